//! Writes a small capture of hand-built packets in both formats and reads it back with
//! tshark: checksums valid, nothing malformed, fields as written, and tshark's own TCP
//! analysis finding the retransmission and the duplicate ACKs. Ignored by a plain `cargo test`
//! (it needs tshark); `scripts/test.sh` runs it with `--ignored` where tshark is installed.

use std::path::Path;

mod common;
use common::tshark;

use ccsim::net::{Ecn, Kind, Packet, SackBlocks};
use ccsim::packet::Seq;
use ccsim::packet::{flags, AccState, TCP_IP_HEADER, UDP_IP_HEADER};
use ccsim::sim::SimTime;
use ccsim::trace::{PcapFormat, PcapWriter};

const MSS: u32 = 1000;
const SENDER: u32 = 0;
const RECEIVER: u32 = 1;
const ROUTER: u32 = 2;

fn base(kind: Kind, src: u32, dst: u32, sport: u16, dport: u16) -> Packet {
    Packet {
        kind,
        flow: 0,
        src,
        dst,
        sport,
        dport,
        ttl: 64,
        ecn: Ecn::NotEct,
        flags: 0,
        ae: false,
        seq: Seq(0),
        ack: Seq(0),
        wnd: 0,
        payload: 0,
        size: 0,
        sent_at: SimTime::ZERO,
        acc: None,
        rdp_var: Default::default(),
        tunnel: 0,
        sack: Default::default(),
    }
}

/// Data segment `i` (sequence numbers from 1000), ECN-capable.
fn data(i: u32) -> Packet {
    Packet {
        ecn: Ecn::Ect0,
        flags: flags::ACK,
        seq: Seq(1000 + i * MSS),
        ack: Seq(5000),
        wnd: 65535,
        payload: MSS,
        size: MSS + TCP_IP_HEADER,
        ..base(Kind::TcpData, SENDER, RECEIVER, 43000, 43001)
    }
}

/// ACK for everything below segment `i`; the window saturates to 65535 on the wire.
fn ack(i: u32) -> Packet {
    Packet {
        ttl: 60,
        flags: flags::ACK,
        seq: Seq(5000),
        ack: Seq(1000 + i * MSS),
        wnd: 1 << 20,
        size: TCP_IP_HEADER,
        ..base(Kind::TcpAck, RECEIVER, SENDER, 43001, 43000)
    }
}

/// The capture, one packet per millisecond, on interface 0 except the UDP datagram.
fn packets() -> Vec<(u32, Packet)> {
    let ce = Packet { ecn: Ecn::Ce, ..data(6) };
    let ece = Packet { flags: flags::ACK | flags::ECE, ..ack(7) };
    let cwr = Packet { flags: flags::ACK | flags::CWR | flags::PSH, ..data(7) };
    let spoofed = Packet { kind: Kind::SpoofedAck, ..ack(8) };
    let udp = Packet { payload: 200, size: 200 + UDP_IP_HEADER, ..base(Kind::Udp, ROUTER, RECEIVER, 43002, 43003) };
    let acc = Packet {
        size: UDP_IP_HEADER + 16,
        acc: Some(AccState { cwnd: 8000, ssthresh: 4000, srtt_us: 100_000, slow_start: false, fast_recovery: true }),
        ..base(Kind::AccControl, ROUTER, SENDER, 43004, 0)
    };
    let tcp = [
        data(0),
        data(1),
        data(2), // lost after the capture point
        data(3),
        data(4),
        data(5),
        ack(1),
        ack(2),
        ack(2), // three duplicate ACKs
        ack(2),
        ack(2),
        data(2), // fast retransmission
        ack(6),
        ce,
        ece,
        cwr,
        ack(8),
        spoofed, // a fourth ACK of 9000 with the same window: a duplicate
    ];
    let mut all: Vec<(u32, Packet)> = tcp.into_iter().map(|p| (0, p)).collect();
    all.push((1, udp));
    all.push((0, acc));
    all
}

fn write(path: &Path, format: PcapFormat) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let names = ["sender-r1".to_string(), "r1-receiver".to_string()];
    let mut w = PcapWriter::new(file, format, 65535, &names).unwrap();
    for (i, (iface, p)) in packets().iter().enumerate() {
        w.write(*iface, SimTime(i as u64 * 1_000_000 + 17), p).unwrap();
    }
    w.flush().unwrap();
}

#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn tshark_reads_both_formats() {
    tshark::require();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (format, name) in [(PcapFormat::Pcap, "ccsim.pcap"), (PcapFormat::PcapNg, "ccsim.pcapng")] {
        let path = dir.join(name);
        write(&path, format);
        check(&path, format);
    }
}

fn check(path: &Path, format: PcapFormat) {
    let sent = packets();
    let fields = [
        "frame.time_epoch",
        "ip.len",
        "ip.ttl",
        "ip.dsfield.dscp",
        "ip.dsfield.ecn",
        "ip.src",
        "ip.dst",
        "ip.checksum.status",
        "tcp.checksum.status",
        "udp.checksum.status",
        "tcp.flags",
        "tcp.seq_raw",
        "tcp.ack_raw",
        "tcp.window_size_value",
        "udp.dstport",
        "frame.interface_name",
    ];
    let mut args = vec!["-T", "fields", "-E", "occurrence=f"];
    for f in fields {
        args.extend(["-e", f]);
    }
    let rows = tshark::run(path, &args);
    assert_eq!(rows.len(), sent.len(), "{path:?}: one row per frame");

    for (i, (row, (iface, p))) in rows.iter().zip(&sent).enumerate() {
        let c: Vec<&str> = row.split('\t').collect();
        let is_tcp = !matches!(p.kind, Kind::Udp | Kind::AccControl);
        let ctx = format!("{path:?} frame {}: {row}", i + 1);
        assert_eq!(c[0], format!("{}.{:06}017", i / 1000, i % 1000 * 1000), "{ctx}: ns timestamp");
        assert_eq!(c[1], p.size.to_string(), "{ctx}: ip.len");
        assert_eq!(c[2], p.ttl.to_string(), "{ctx}: ttl");
        let dscp = match p.kind {
            Kind::SpoofedAck => "8",
            Kind::AccControl => "16",
            _ => "0",
        };
        assert_eq!(c[3], dscp, "{ctx}: dscp");
        assert_eq!(c[4], (p.ecn as u8).to_string(), "{ctx}: ecn");
        assert_eq!(c[5], format!("10.0.0.{}", p.src + 1), "{ctx}: src");
        assert_eq!(c[6], format!("10.0.0.{}", p.dst + 1), "{ctx}: dst");
        assert_eq!(c[7], "1", "{ctx}: IP checksum good");
        if is_tcp {
            assert_eq!(c[8], "1", "{ctx}: TCP checksum good");
            assert_eq!(c[10], format!("0x{:04x}", p.flags), "{ctx}: flags");
            assert_eq!(c[11], p.seq.0.to_string(), "{ctx}: seq");
            assert_eq!(c[12], p.ack.0.to_string(), "{ctx}: ack");
            assert_eq!(c[13], p.wnd.min(65535).to_string(), "{ctx}: window");
        } else {
            assert_eq!(c[9], "1", "{ctx}: UDP checksum good");
            let dport = if p.kind == Kind::AccControl { 7777 } else { p.dport };
            assert_eq!(c[14], dport.to_string(), "{ctx}: udp.dstport");
        }
        if format == PcapFormat::PcapNg {
            assert_eq!(c[15], ["sender-r1", "r1-receiver"][*iface as usize], "{ctx}: interface");
        }
    }

    // 8388608 is PI_ERROR: malformed packets and bad checksums are expert errors.
    let bad = "_ws.malformed || _ws.expert.severity >= 8388608 \
               || ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0";
    assert_eq!(tshark::frames(path, bad), Vec::<usize>::new(), "{path:?}: malformed or bad checksum");
    assert_eq!(tshark::frames(path, "tcp.analysis.retransmission"), [12], "{path:?}");
    assert_eq!(tshark::frames(path, "tcp.analysis.fast_retransmission"), [12], "{path:?}");
    assert_eq!(tshark::frames(path, "tcp.analysis.duplicate_ack"), [9, 10, 11, 18], "{path:?}");
    assert_eq!(tshark::frames(path, "ip.dsfield.dscp == 8"), [18], "{path:?}: spoofed ACK");
    // cwnd 8000, ssthresh 4000, srtt 100 ms, not in slow start, in fast recovery.
    assert_eq!(
        tshark::frames(path, "udp.dstport == 7777 && data.data == 00:00:1f:40:00:00:0f:a0:00:01:86:a0:02:00:00:00"),
        [20],
        "{path:?}: ACC control payload"
    );
}

/// ACK `i` with SACK blocks `(from, to)` in segments, most recent first.
fn sack_ack(i: u32, blocks: &[(u32, u32)]) -> Packet {
    let mut p = ack(i);
    let mut b = SackBlocks::NONE;
    for &(from, to) in blocks {
        b.push(Seq(1000 + from * MSS), Seq(1000 + to * MSS));
    }
    p.set_sack(b);
    p
}

#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn tshark_reads_sack_blocks() {
    tshark::require();
    // Segments 1 and 3 are lost; the receiver's SACK blocks as RFC 2018 section 4 orders
    // them, then the retransmission of 1 and the ACK with the block left.
    let packets = [
        data(0),
        data(2),
        data(4),
        data(5),
        ack(1),
        sack_ack(1, &[(2, 3)]),
        sack_ack(1, &[(4, 5), (2, 3)]),
        sack_ack(1, &[(4, 6), (2, 3)]),
        data(1),
        sack_ack(3, &[(4, 6)]),
        sack_ack(3, &[(10, 11), (8, 9), (4, 6)]), // three blocks, the most there are here
    ];
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (format, name) in [(PcapFormat::Pcap, "sack.pcap"), (PcapFormat::PcapNg, "sack.pcapng")] {
        let path = dir.join(name);
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut w = PcapWriter::new(file, format, 65535, &["sender-r1".to_string()]).unwrap();
        for (i, p) in packets.iter().enumerate() {
            w.write(0, SimTime(i as u64 * 1_000_000), p).unwrap();
        }
        w.flush().unwrap();
        drop(w);

        let fields = ["ip.len", "tcp.hdr_len", "tcp.ack_raw", "tcp.options.sack.count", "tcp.options.sack_le", "tcp.options.sack_re"];
        let mut args = vec!["-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"];
        for f in fields {
            args.extend(["-e", f]);
        }
        let rows = tshark::run(&path, &args);
        assert_eq!(rows.len(), packets.len());
        for (row, p) in rows.iter().zip(&packets) {
            let c: Vec<&str> = row.split('\t').collect();
            let n = p.sack.len();
            assert_eq!(c[0], p.size.to_string(), "{row}: ip.len");
            if p.kind != Kind::TcpAck {
                continue;
            }
            assert_eq!(c[1], (20 + p.sack.option_bytes()).to_string(), "{row}: header length");
            assert_eq!(c[2], p.ack.0.to_string(), "{row}");
            let edges = |k: usize| p.sack.iter().map(|b| [b.0 .0, b.1 .0][k].to_string()).collect::<Vec<_>>().join(",");
            if n == 0 {
                assert_eq!(&c[3..], ["", "", ""], "{row}: no option");
            } else {
                assert_eq!(c[3], n.to_string(), "{row}: blocks");
                assert_eq!(c[4], edges(0), "{row}: left edges");
                assert_eq!(c[5], edges(1), "{row}: right edges");
            }
        }
        let bad = "_ws.malformed || _ws.expert.severity >= 8388608 || tcp.checksum.status == 0";
        assert_eq!(tshark::frames(&path, bad), Vec::<usize>::new(), "{path:?}");
        assert_eq!(tshark::frames(&path, "tcp.options.sack"), [6, 7, 8, 10, 11], "{path:?}");
        assert_eq!(tshark::frames(&path, "tcp.options.sack.dsack"), Vec::<usize>::new(), "{path:?}: no block reads as D-SACK");
        assert_eq!(tshark::frames(&path, "tcp.analysis.duplicate_ack"), [6, 7, 8, 11], "{path:?}");
    }
}
