//! Entry points for fuzzing: each takes arbitrary bytes and must neither panic, nor abort,
//! nor run without bound, whatever they hold. The `cargo fuzz` targets in `fuzz/` call them,
//! and `tests/fuzz_corpus.rs` replays the checked-in corpus through them as ordinary tests.
//!
//! - [`scenario`]: the bytes as scenario text, parsed, checked, built and run for at most
//!   [`MAX_EVENTS`] events, within small resource limits.
//! - [`overrides`]: each line of the bytes as a `--set` override of a small scenario.
//! - [`pcap`]: packets made from the bytes, written as pcap and pcapng, and the files read
//!   back and checked block by block.
//!
//! Capture files are never written by the first two: the scenario's `pcap` key is removed
//! before it is checked.

use crate::packet::Seq;
use crate::packet::{AccState, Ecn, Kind, Packet};
use crate::scenario::{self, Limits};
use crate::sim::SimTime;
use crate::trace::{PcapFormat, PcapWriter};

/// Events a fuzzed scenario runs for at most.
pub const MAX_EVENTS: u64 = 100_000;

/// Resource limits of a fuzzed scenario: little memory, so that a large scenario is refused
/// rather than built.
pub const LIMITS: Limits = Limits { max_memory: Some(64 << 20), max_events: Some(1 << 30), force: false };

/// The scenario the override target changes.
pub const BASE: &str = r#"
duration = "2s"
hosts = ["A", "B"]
routers = ["R1", "R2"]
[[links]]
between = ["A", "R1"]
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "1Mbps"
delay = "10ms"
queue = { discipline = "red", min_th = 5, max_th = 15, limit = 30 }
[[links]]
between = ["R2", "B"]
rate = "10Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "A"
to = "B"
[[series]]
kind = "queue"
link = "R1->R2"
interval = "100ms"
"#;

/// Loads `text` with `overrides` (and the captures removed) and runs it for at most
/// `max_events` events. Errors are the expected outcome of most inputs.
fn load_and_run(text: &str, overrides: &[String], max_events: u64) {
    let mut all = overrides.to_vec();
    all.push("pcap=".into());
    if let Ok(mut sim) = scenario::load_with(text, "fuzz.toml", &all, None, None, &LIMITS) {
        let stop = sim.stop_at;
        sim.run_until_at_most(stop, max_events);
        let _ = crate::report::Report::new(&mut sim).to_json();
    }
}

/// Scenario text -> parse -> check -> build -> run (at most [`MAX_EVENTS`] events).
pub fn scenario(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        load_and_run(text, &[], MAX_EVENTS);
    }
}

/// Each line of `data` is an override of [`BASE`]; then build and run (at most
/// [`MAX_EVENTS`] / 10 events).
pub fn overrides(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let lines: Vec<String> = text.lines().take(16).map(str::to_string).collect();
    load_and_run(BASE, &lines, MAX_EVENTS / 10);
}

/// Reads bytes in order, zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn u64(&mut self) -> u64 {
        (self.u32() as u64) | (self.u32() as u64) << 32
    }
}

/// An arbitrary packet: every field from the bytes.
fn packet(b: &mut Bytes) -> Packet {
    let kind = [Kind::TcpData, Kind::TcpAck, Kind::SpoofedAck, Kind::AccControl, Kind::Udp, Kind::RdpData, Kind::RdpAck][b.u8() as usize % 7];
    let ecn = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce][b.u8() as usize % 4];
    let acc = (b.u8() & 1 == 1).then(|| {
        let (cwnd, ssthresh, srtt_us, flags) = (b.u32(), b.u32(), b.u32(), b.u8());
        AccState { cwnd, ssthresh, srtt_us, slow_start: flags & 1 == 1, fast_recovery: flags & 2 == 2 }
    });
    Packet {
        kind,
        flow: b.u32(),
        src: b.u32(),
        dst: b.u32(),
        sport: b.u16(),
        dport: b.u16(),
        ttl: b.u8(),
        ecn,
        flags: b.u8(),
        ae: false,
        seq: Seq(b.u32()),
        ack: Seq(b.u32()),
        wnd: b.u32(),
        payload: b.u32(),
        size: b.u32() >> (b.u8() % 32),
        sent_at: SimTime(b.u64()),
        acc,
        tunnel: b.u16(),
        rdp_var: crate::rdp::VarArea::NONE,
        sack: {
            // Up to three blocks of any edges (a TCP data packet may carry them too here).
            let mut s = crate::net::SackBlocks::NONE;
            for _ in 0..b.u8() % 4 {
                s.push(Seq(b.u32()), Seq(b.u32()));
            }
            s
        },
    }
}

/// Writes packets made from `data` in both formats and checks what was written.
pub fn pcap(data: &[u8]) {
    let mut b = Bytes(data);
    let snaplen = (b.u32() % 70_000).max(1);
    let n_ifaces = (b.u8() % 4) as usize + 1;
    let names: Vec<String> = (0..n_ifaces).map(|i| format!("L{i}->{}", "x".repeat(b.u16() as usize % 300))).collect();
    for format in [PcapFormat::Pcap, PcapFormat::PcapNg] {
        let mut b = Bytes(data);
        let mut w = PcapWriter::new(Vec::new(), format, snaplen, &names).expect("writing to memory");
        let mut t = 0u64;
        while !b.0.is_empty() {
            let iface = b.u8() as u32 % (n_ifaces as u32 + 1);
            t = t.saturating_add(b.u32() as u64);
            let p = packet(&mut b);
            let written = w.write(iface, SimTime(t), &p);
            assert_eq!(written.is_ok(), iface < n_ifaces as u32, "interface {iface} of {n_ifaces}");
        }
        w.flush().expect("flush to memory");
        let bytes = w.into_inner();
        match format {
            PcapFormat::Pcap => check_pcap(&bytes, snaplen),
            PcapFormat::PcapNg => check_pcapng(&bytes, snaplen),
        }
    }
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// A classic pcap file: its header, then records whose lengths add up.
fn check_pcap(b: &[u8], snaplen: u32) {
    assert!(b.len() >= 24 && le32(b, 0) == 0xa1b2_3c4d && le32(b, 16) == snaplen, "pcap header");
    let mut at = 24;
    while at < b.len() {
        assert!(at + 16 <= b.len(), "truncated record header");
        let (nsec, caplen, len) = (le32(b, at + 4), le32(b, at + 8), le32(b, at + 12));
        assert!(nsec < 1_000_000_000 && caplen <= snaplen && caplen <= len && len <= 65535, "record header {nsec} {caplen} {len}");
        check_ipv4(&b[at + 16..at + 16 + caplen as usize], len);
        at += 16 + caplen as usize;
    }
    assert_eq!(at, b.len());
}

/// A pcapng file: blocks whose lengths are stated twice, multiples of four.
fn check_pcapng(b: &[u8], snaplen: u32) {
    let mut at = 0;
    while at < b.len() {
        assert!(at + 12 <= b.len(), "truncated block");
        let (kind, len) = (le32(b, at), le32(b, at + 4) as usize);
        assert!(len >= 12 && len % 4 == 0 && at + len <= b.len() && le32(b, at + len - 4) as usize == len, "block length {len}");
        if kind == 6 {
            let (caplen, orig) = (le32(b, at + 20), le32(b, at + 24));
            assert!(caplen <= snaplen && caplen <= orig && 28 + caplen as usize <= len - 4, "packet block {caplen} {orig}");
            check_ipv4(&b[at + 28..at + 28 + caplen as usize], orig);
        }
        at += len;
    }
}

/// A captured frame: an IPv4 header whose checksum holds and whose total length is the
/// frame's.
fn check_ipv4(frame: &[u8], len: u32) {
    if frame.len() < 20 {
        return;
    }
    assert_eq!(frame[0], 0x45, "IPv4, no options");
    assert_eq!(u16::from_be_bytes([frame[2], frame[3]]) as u32, len, "total length");
    let sum: u32 = frame[..20].chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum();
    let folded = (sum & 0xffff) + (sum >> 16);
    assert_eq!((folded & 0xffff) + (folded >> 16), 0xffff, "IPv4 header checksum");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_scenario_runs() {
        assert!(scenario::load_with(BASE, "fuzz.toml", &[], None, None, &LIMITS).is_ok());
        overrides(b"flows.f.count=3\nduration=1s");
        scenario(BASE.as_bytes());
        pcap(&[7; 200]);
    }
}
