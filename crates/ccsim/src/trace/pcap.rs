//! The capture file containers: classic pcap (nanosecond magic) and pcapng, both written
//! little-endian so that a run gives the same bytes on any machine.

use std::io::{self, Write};

use super::frame::Frame;
use crate::net::Packet;
use crate::sim::SimTime;

/// LINKTYPE_RAW: each frame starts with its IPv4 header.
const LINKTYPE_RAW: u16 = 101;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PcapFormat {
    /// Classic pcap with nanosecond timestamps; it cannot name interfaces, so every
    /// interface's packets share one file without telling which was which.
    Pcap,
    /// pcapng: one interface description block per interface, nanosecond timestamps.
    PcapNg,
}

/// Writes packets as raw IPv4 frames (see the [module docs](super)).
pub struct PcapWriter<W: Write> {
    out: W,
    format: PcapFormat,
    snaplen: u32,
    interfaces: u32,
    /// IPv4 identification of the next frame.
    ident: u16,
    /// One record at a time, reused so that writing allocates nothing per packet.
    buf: Vec<u8>,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header: for pcapng a section header and one interface description
    /// block per name in `interfaces`. `snaplen` (at least 1; 65535 captures every frame
    /// whole) limits the bytes kept of each frame.
    pub fn new(out: W, format: PcapFormat, snaplen: u32, interfaces: &[String]) -> io::Result<Self> {
        if snaplen == 0 {
            return Err(invalid("pcap snaplen must be at least 1"));
        }
        let mut w = PcapWriter {
            out,
            format,
            snaplen,
            interfaces: u32::try_from(interfaces.len()).map_err(|_| invalid("too many interfaces"))?,
            ident: 0,
            buf: Vec::new(),
        };
        match format {
            PcapFormat::Pcap => {
                w.buf.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // nanosecond magic
                w.buf.extend_from_slice(&2u16.to_le_bytes());
                w.buf.extend_from_slice(&4u16.to_le_bytes());
                w.buf.extend_from_slice(&[0; 8]); // thiszone, sigfigs
                w.buf.extend_from_slice(&snaplen.to_le_bytes());
                w.buf.extend_from_slice(&u32::from(LINKTYPE_RAW).to_le_bytes());
            }
            PcapFormat::PcapNg => {
                let b = w.begin_block(0x0a0d_0d0a);
                w.buf.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes()); // byte-order magic
                w.buf.extend_from_slice(&1u16.to_le_bytes());
                w.buf.extend_from_slice(&0u16.to_le_bytes());
                w.buf.extend_from_slice(&u64::MAX.to_le_bytes()); // section length unknown
                w.end_block(b);
                for name in interfaces {
                    let b = w.begin_block(1);
                    w.buf.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
                    w.buf.extend_from_slice(&[0; 2]);
                    w.buf.extend_from_slice(&snaplen.to_le_bytes());
                    w.option(2, name.as_bytes()); // if_name
                    w.option(9, &[9]); // if_tsresol: 10^-9 s
                    w.option(0, &[]); // opt_endofopt
                    w.end_block(b);
                }
            }
        }
        w.out.write_all(&w.buf)?;
        Ok(w)
    }

    /// Writes `pkt` as seen at time `t` on interface `iface` (an index into the names given
    /// to [`PcapWriter::new`]).
    pub fn write(&mut self, iface: u32, t: SimTime, pkt: &Packet) -> io::Result<()> {
        if iface >= self.interfaces {
            return Err(invalid("pcap interface index out of range"));
        }
        let frame = Frame::encode(pkt, self.ident);
        self.ident = self.ident.wrapping_add(1);
        let caplen = frame.len().min(self.snaplen);
        let ns = t.as_nanos();
        self.buf.clear();
        match self.format {
            PcapFormat::Pcap => {
                // Seconds wrap after 136 years of simulated time.
                self.buf.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
                self.buf.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
                self.buf.extend_from_slice(&caplen.to_le_bytes());
                self.buf.extend_from_slice(&frame.len().to_le_bytes());
                frame.append_to(&mut self.buf, caplen);
            }
            PcapFormat::PcapNg => {
                let b = self.begin_block(6);
                self.buf.extend_from_slice(&iface.to_le_bytes());
                self.buf.extend_from_slice(&((ns >> 32) as u32).to_le_bytes());
                self.buf.extend_from_slice(&(ns as u32).to_le_bytes());
                self.buf.extend_from_slice(&caplen.to_le_bytes());
                self.buf.extend_from_slice(&frame.len().to_le_bytes());
                frame.append_to(&mut self.buf, caplen);
                self.pad();
                self.end_block(b);
            }
        }
        self.out.write_all(&self.buf)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The writer the file went to (not flushed: call [`flush`](Self::flush) first).
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Starts a pcapng block in `buf`; returns where it starts, for [`Self::end_block`].
    fn begin_block(&mut self, block_type: u32) -> usize {
        let start = self.buf.len();
        self.buf.extend_from_slice(&block_type.to_le_bytes());
        self.buf.extend_from_slice(&[0; 4]); // total length, filled in by end_block
        start
    }

    /// Writes the block's total length at both ends.
    fn end_block(&mut self, start: usize) {
        let len = (self.buf.len() - start + 4) as u32;
        self.buf[start + 4..start + 8].copy_from_slice(&len.to_le_bytes());
        self.buf.extend_from_slice(&len.to_le_bytes());
    }

    /// A pcapng option: code, length, value padded to 32 bits. A value longer than an
    /// option can say (65535 bytes: an interface name) is cut to that length.
    fn option(&mut self, code: u16, value: &[u8]) {
        let value = &value[..value.len().min(u16::MAX as usize)];
        self.buf.extend_from_slice(&code.to_le_bytes());
        self.buf.extend_from_slice(&(value.len() as u16).to_le_bytes());
        self.buf.extend_from_slice(value);
        self.pad();
    }

    fn pad(&mut self) {
        self.buf.resize(self.buf.len().next_multiple_of(4), 0);
    }
}

fn invalid(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Ecn, Kind};
    use crate::packet::Seq;
    use crate::packet::{flags, TCP_IP_HEADER};

    fn ack(size: u32) -> Packet {
        Packet {
            kind: Kind::TcpAck,
            flow: 0,
            src: 1,
            dst: 0,
            sport: 2,
            dport: 1,
            ttl: 64,
            ecn: Ecn::NotEct,
            flags: flags::ACK,
            ae: false,
            seq: Seq(0),
            ack: Seq(1),
            wnd: 1000,
            payload: size - TCP_IP_HEADER,
            size,
            sent_at: SimTime::ZERO,
            acc: None,
            rdp_var: Default::default(),
            tunnel: 0,
            sack: Default::default(),
        }
    }

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn pcapng_blocks_are_consistent() {
        let mut out = Vec::new();
        let mut w = PcapWriter::new(&mut out, PcapFormat::PcapNg, 100, &names(&["r1-r2", "eth"])).unwrap();
        w.write(1, SimTime(5_000_000_123), &ack(41)).unwrap();
        w.write(0, SimTime(6), &ack(1040)).unwrap();
        assert!(w.write(2, SimTime(7), &ack(40)).is_err());
        drop(w);

        let mut blocks = Vec::new();
        let mut at = 0;
        while at < out.len() {
            let len = u32_at(&out, at + 4) as usize;
            assert_eq!(len % 4, 0);
            assert_eq!(u32_at(&out, at + len - 4) as usize, len, "trailing length");
            blocks.push((u32_at(&out, at), at));
            at += len;
        }
        assert_eq!(at, out.len());
        let types: Vec<u32> = blocks.iter().map(|b| b.0).collect();
        assert_eq!(types, [0x0a0d_0d0a, 1, 1, 6, 6]);

        let idb = blocks[1].1;
        assert_eq!(&out[idb + 8..idb + 10], &101u16.to_le_bytes());
        assert_eq!(&out[idb + 16..idb + 25], b"\x02\x00\x05\x00r1-r2");
        let epb = blocks[3].1;
        let ns = (u32_at(&out, epb + 12) as u64) << 32 | u32_at(&out, epb + 16) as u64;
        assert_eq!((u32_at(&out, epb + 8), ns), (1, 5_000_000_123));
        assert_eq!((u32_at(&out, epb + 20), u32_at(&out, epb + 24)), (41, 41));
        let epb = blocks[4].1;
        assert_eq!((u32_at(&out, epb + 20), u32_at(&out, epb + 24)), (100, 1040), "snaplen");
    }

    #[test]
    fn classic_pcap_records() {
        let mut out = Vec::new();
        let mut w = PcapWriter::new(&mut out, PcapFormat::Pcap, 65535, &names(&["a"])).unwrap();
        w.write(0, SimTime(2_000_000_007), &ack(60)).unwrap();
        drop(w);
        assert_eq!(&out[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32_at(&out, 20), 101);
        assert_eq!((u32_at(&out, 24), u32_at(&out, 28)), (2, 7));
        assert_eq!((u32_at(&out, 32), u32_at(&out, 36)), (60, 60));
        assert_eq!(out.len(), 24 + 16 + 60);
    }

    #[test]
    fn zero_snaplen_is_rejected() {
        assert!(PcapWriter::new(Vec::new(), PcapFormat::Pcap, 0, &[]).is_err());
    }
}
