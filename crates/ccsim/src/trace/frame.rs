//! A packet as the bytes of a raw IPv4 frame (no link-layer header): a short non-zero
//! prefix (the headers, and the ACC control payload) followed by zeros up to `pkt.size`.
//! Encoding fills a fixed stack array, so tracing allocates nothing per packet.
//!
//! A TCP segment carrying SACK blocks (`pkt.sack`) has the SACK option after its 20-byte
//! header: NOP, NOP, kind 5, length 2 + 8n, then the n blocks' left and right edges as
//! absolute sequence numbers (RFC 2018 section 3), the data offset counting the option.
//! There is no handshake, so no SYN carries SACK-permitted (kind 4). A segment carrying
//! RFC 7323 timestamps (`pkt.timestamps()`) has that option first: NOP, NOP, kind 8, length
//! 10, TSval, TSecr (RFC 7323 Appendix A), the SACK option after it.

use crate::net::{Kind, Packet};
use crate::packet::checksum::{fold, sum};
use crate::packet::node_addr;
use crate::packet::timestamps::OPTION_BYTES as TS_BYTES;
use crate::packet::{SackBlocks, TCP_IP_HEADER, UDP_IP_HEADER};
use crate::rdp::wire;

pub use crate::packet::ACC_PORT;
/// DSCP of spoofed ACKs: CS1.
pub const DSCP_SPOOFED_ACK: u8 = 8;
/// DSCP of ACC control messages: CS2.
pub const DSCP_ACC_CONTROL: u8 = 16;
/// Bytes of the ACC control payload layout (see the module docs of [`super`]).
pub const ACC_PAYLOAD: usize = crate::packet::ACC_PAYLOAD as usize;

const IP_HEADER: usize = crate::packet::IP_HEADER as usize;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_RDP: u8 = crate::packet::Protocol::Rdp as u8;
/// Largest non-zero prefix: IPv4 and the longest RDP header (which is longer than the UDP
/// header and the ACC control payload).
const MAX_PREFIX: usize = IP_HEADER + wire::MAX_HEADER;
const _: () = assert!(MAX_PREFIX >= UDP_IP_HEADER as usize + ACC_PAYLOAD);
const _: () = assert!(MAX_PREFIX >= (TCP_IP_HEADER + TS_BYTES) as usize + 4 + 8 * SackBlocks::MAX);
/// TCP option kinds (RFC 793, RFC 2018, RFC 7323).
const TCPOPT_NOP: u8 = 1;
const TCPOPT_SACK: u8 = 5;
const TCPOPT_TIMESTAMP: u8 = 8;

/// One encoded frame: `prefix[..prefix_len]` then zeros up to `len` bytes.
pub(crate) struct Frame {
    prefix: [u8; MAX_PREFIX],
    prefix_len: usize,
    len: u32,
}

impl Frame {
    /// Encodes `pkt` with IPv4 identification `ident`.
    pub(crate) fn encode(pkt: &Packet, ident: u16) -> Frame {
        let ts = pkt.timestamps();
        let tcp_options = ts.map_or(0, |_| TS_BYTES) + pkt.sack.option_bytes();
        let (proto, headers, dscp) = match pkt.kind {
            Kind::TcpData | Kind::TcpAck => (PROTO_TCP, TCP_IP_HEADER + tcp_options, 0),
            Kind::SpoofedAck => (PROTO_TCP, TCP_IP_HEADER + tcp_options, DSCP_SPOOFED_ACK),
            Kind::Udp => (PROTO_UDP, UDP_IP_HEADER, 0),
            Kind::AccControl => (PROTO_UDP, UDP_IP_HEADER, DSCP_ACC_CONTROL),
            Kind::RdpData | Kind::RdpAck => (PROTO_RDP, IP_HEADER as u32 + wire::header_len(&pkt.rdp_fields()) as u32, 0),
        };
        // An IPv4 total length is 16 bits and must cover the headers.
        let len = pkt.size.clamp(headers, u16::MAX as u32);
        let (src, dst) = (node_addr(pkt.src), node_addr(pkt.dst));
        let mut f = Frame { prefix: [0; MAX_PREFIX], prefix_len: headers as usize, len };
        let p = &mut f.prefix;

        p[0] = 0x45; // version 4, 5-word header
        p[1] = dscp << 2 | pkt.ecn as u8;
        p[2..4].copy_from_slice(&(len as u16).to_be_bytes());
        p[4..6].copy_from_slice(&ident.to_be_bytes());
        p[6] = 0x40; // don't fragment, offset 0
        p[8] = pkt.ttl;
        p[9] = proto;
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        let ip_sum = !fold(sum(&p[..IP_HEADER]));
        p[10..12].copy_from_slice(&ip_sum.to_be_bytes());

        let seg_len = len - IP_HEADER as u32;
        if proto == PROTO_RDP {
            // The RDP header of `crate::rdp::wire`, its checksum over the segment alone (no
            // pseudo-header); the data are zeros, which add nothing to it.
            let data = (len - headers) as u16;
            wire::write_header(&wire::Header::of(pkt), data, 0, &mut f.prefix[IP_HEADER..]).expect("the prefix holds the longest RDP header");
            return f;
        }
        let t = &mut p[IP_HEADER..];
        if proto == PROTO_TCP {
            t[0..2].copy_from_slice(&pkt.sport.to_be_bytes());
            t[2..4].copy_from_slice(&pkt.dport.to_be_bytes());
            t[4..8].copy_from_slice(&pkt.seq.0.to_be_bytes());
            t[8..12].copy_from_slice(&pkt.ack.0.to_be_bytes());
            let options = tcp_options as usize;
            // Data offset, in 32-bit words; the low bit is AE (RFC 9768's ACE field).
            t[12] = (((20 + options) / 4) as u8) << 4 | pkt.ae as u8;
            t[13] = pkt.flags;
            t[14..16].copy_from_slice(&(pkt.wnd.min(u16::MAX as u32) as u16).to_be_bytes());
            let mut o = &mut t[20..20 + options];
            if let Some(ts) = ts {
                o[..4].copy_from_slice(&[TCPOPT_NOP, TCPOPT_NOP, TCPOPT_TIMESTAMP, 10]);
                o[4..8].copy_from_slice(&ts.val.to_be_bytes());
                o[8..12].copy_from_slice(&ts.ecr.to_be_bytes());
                o = &mut o[TS_BYTES as usize..];
            }
            if !pkt.sack.is_empty() {
                let sack = pkt.sack.option_bytes() as u8;
                o[..4].copy_from_slice(&[TCPOPT_NOP, TCPOPT_NOP, TCPOPT_SACK, sack - 2]);
                for (i, (left, right)) in pkt.sack.iter().enumerate() {
                    o[4 + 8 * i..8 + 8 * i].copy_from_slice(&left.0.to_be_bytes());
                    o[8 + 8 * i..12 + 8 * i].copy_from_slice(&right.0.to_be_bytes());
                }
            }
        } else {
            let dport = if pkt.kind == Kind::AccControl { ACC_PORT } else { pkt.dport };
            t[0..2].copy_from_slice(&pkt.sport.to_be_bytes());
            t[2..4].copy_from_slice(&dport.to_be_bytes());
            t[4..6].copy_from_slice(&(seg_len as u16).to_be_bytes());
            if let (Kind::AccControl, Some(acc)) = (pkt.kind, pkt.acc) {
                // The payload is whatever fits of the layout; the rest stays zero.
                let room = (seg_len as usize - 8).min(ACC_PAYLOAD);
                t[8..8 + room].copy_from_slice(&acc.to_bytes()[..room]);
                f.prefix_len += room;
            }
        }
        // The zeros after the prefix add nothing to the sum, but the pseudo-header counts
        // the whole segment length.
        let seg = &f.prefix[IP_HEADER..f.prefix_len];
        let pseudo = sum(&src) + sum(&dst) + proto as u32 + seg_len;
        let mut l4_sum = !fold(pseudo + sum(seg));
        if proto == PROTO_UDP && l4_sum == 0 {
            l4_sum = 0xffff; // zero means "no checksum" in UDP (RFC 768)
        }
        let at = IP_HEADER + if proto == PROTO_TCP { 16 } else { 6 };
        f.prefix[at..at + 2].copy_from_slice(&l4_sum.to_be_bytes());
        f
    }

    /// Bytes on the wire (the IPv4 total length).
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Appends the first `caplen` (at most [`Frame::len`]) bytes of the frame to `buf`.
    pub(crate) fn append_to(&self, buf: &mut Vec<u8>, caplen: u32) {
        let caplen = caplen.min(self.len) as usize;
        buf.extend_from_slice(&self.prefix[..self.prefix_len.min(caplen)]);
        buf.resize(buf.len() + caplen.saturating_sub(self.prefix_len), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Ecn;
    use crate::packet::flags;
    use crate::packet::AccState;
    use crate::packet::Seq;
    use crate::sim::SimTime;

    fn pkt(kind: Kind) -> Packet {
        Packet {
            kind,
            flow: 0,
            src: 3,
            dst: 300,
            sport: 5000,
            dport: 6000,
            ttl: 61,
            ecn: Ecn::Ce,
            flags: flags::ACK | flags::CWR,
            ae: false,
            seq: Seq(0xdead_beef),
            ack: Seq(7),
            wnd: 100_000,
            payload: 1000,
            size: 1040,
            sent_at: SimTime::ZERO,
            acc: None,
            rdp_var: Default::default(),
            tunnel: 0,
            sack: Default::default(),
        }
    }

    fn bytes(p: &Packet) -> Vec<u8> {
        let f = Frame::encode(p, 42);
        let mut b = Vec::new();
        f.append_to(&mut b, u32::MAX);
        b
    }

    /// True when the transport checksum over the pseudo-header and `b[20..]` verifies.
    fn l4_ok(b: &[u8]) -> bool {
        let pseudo = sum(&b[12..20]) + b[9] as u32 + (b.len() - 20) as u32;
        fold(pseudo + sum(&b[20..])) == 0xffff
    }

    #[test]
    fn addresses_skip_zero_and_broadcast_octets() {
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(253), [10, 0, 0, 254]);
        assert_eq!(node_addr(254), [10, 0, 1, 1]);
        assert_eq!(node_addr(254 * 256), [10, 1, 0, 1]);
    }

    #[test]
    fn tcp_segment_headers() {
        let b = bytes(&pkt(Kind::TcpData));
        assert_eq!(b.len(), 1040);
        assert_eq!(fold(sum(&b[..20])), 0xffff, "IPv4 header checksum");
        assert!(l4_ok(&b), "TCP checksum");
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 1040);
        assert_eq!(b[1], 0b11, "DSCP 0, ECN CE");
        assert_eq!((b[6], b[8], b[9]), (0x40, 61, 6));
        assert_eq!(&b[12..16], &[10, 0, 0, 4]);
        assert_eq!(&b[16..20], &[10, 0, 1, 47]);
        assert_eq!(&b[24..28], &0xdead_beefu32.to_be_bytes());
        assert_eq!((b[32], b[33]), (0x50, flags::ACK | flags::CWR));
        let accecn = bytes(&Packet { ae: true, ..pkt(Kind::TcpAck) });
        assert_eq!((accecn[32], accecn[33]), (0x51, flags::ACK | flags::CWR), "AE: the low bit of byte 12");
        assert!(l4_ok(&accecn), "the checksum covers it");
        assert_eq!(&b[34..36], &[0xff, 0xff], "window saturates");
        assert!(b[40..].iter().all(|&x| x == 0));
    }

    #[test]
    fn spoofed_ack_is_cs1_and_keeps_ecn() {
        let mut p = pkt(Kind::SpoofedAck);
        p.ecn = Ecn::Ect0;
        p.size = 40;
        let b = bytes(&p);
        assert_eq!(b[1] >> 2, DSCP_SPOOFED_ACK);
        assert_eq!(b[1] & 3, Ecn::Ect0 as u8);
        assert_eq!(fold(sum(&b[..20])), 0xffff);
        assert!(l4_ok(&b));
    }

    #[test]
    fn every_ecn_codepoint_goes_on_the_wire_as_it_is() {
        for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            let mut p = pkt(Kind::TcpData);
            p.ecn = ecn;
            let b = bytes(&p);
            assert_eq!(b[1], ecn as u8, "DSCP 0, ECN {ecn:?}");
            assert_eq!(fold(sum(&b[..20])), 0xffff, "IP checksum with {ecn:?}");
        }
        assert_eq!(Ecn::Ect1 as u8, 0b01, "ECT(1), RFC 3168 Section 5");
    }

    #[test]
    fn udp_datagram_and_acc_control() {
        let mut p = pkt(Kind::Udp);
        p.size = 229; // odd length
        let b = bytes(&p);
        assert_eq!(b.len(), 229);
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 209, "UDP length");
        assert_eq!(&b[22..24], &6000u16.to_be_bytes());
        assert!(l4_ok(&b), "UDP checksum");

        let mut c = pkt(Kind::AccControl);
        c.size = 28 + 16;
        c.acc = Some(AccState { cwnd: 0x0102_0304, ssthresh: 9, srtt_us: 1, slow_start: true, fast_recovery: true });
        let b = bytes(&c);
        assert_eq!(b[1], DSCP_ACC_CONTROL << 2 | 3);
        assert_eq!(&b[22..24], &ACC_PORT.to_be_bytes());
        assert_eq!(&b[28..41], &[1, 2, 3, 4, 0, 0, 0, 9, 0, 0, 0, 1, 3], "flags: slow start (bit 0) and fast recovery (bit 1)");
        assert_eq!(fold(sum(&b[..20])), 0xffff);
        assert!(l4_ok(&b));

        // A shorter datagram carries the part of the layout that fits.
        c.size = 28 + 6;
        let b = bytes(&c);
        assert_eq!(&b[28..], &[1, 2, 3, 4, 0, 0]);
        assert!(l4_ok(&b));
    }

    #[test]
    fn sack_option_follows_the_tcp_header() {
        let mut p = pkt(Kind::TcpAck);
        p.payload = 0;
        let mut blocks = SackBlocks::NONE;
        blocks.push(Seq(0x0102_0304), Seq(0x0102_0704));
        blocks.push(Seq(500), Seq(900));
        p.size = TCP_IP_HEADER;
        p.set_sack(blocks);
        let b = bytes(&p);
        assert_eq!(b.len(), 40 + 20);
        assert_eq!(b[32] >> 4, 10, "data offset: 20 + 20 bytes of options");
        assert_eq!(&b[40..44], &[1, 1, 5, 18], "NOP, NOP, SACK, length 2 + 2 * 8");
        assert_eq!(&b[44..52], &[1, 2, 3, 4, 1, 2, 7, 4]);
        assert_eq!(&b[52..60], &[0, 0, 1, 244, 0, 0, 3, 132]);
        assert_eq!(fold(sum(&b[..20])), 0xffff);
        assert!(l4_ok(&b), "the checksum covers the option");
        // The option is part of the headers even when the size says less.
        p.size = TCP_IP_HEADER;
        assert_eq!(Frame::encode(&p, 0).len(), 60);
    }

    #[test]
    fn timestamps_option_comes_first_then_sack() {
        let mut p = pkt(Kind::TcpAck);
        p.payload = 0;
        p.size = TCP_IP_HEADER;
        p.set_timestamps(crate::packet::Timestamps { val: 0x0a0b_0c0d, ecr: 7 });
        let mut blocks = SackBlocks::NONE;
        blocks.push(Seq(500), Seq(900));
        p.set_sack(blocks);
        let b = bytes(&p);
        assert_eq!(b.len(), 40 + 12 + 12);
        assert_eq!(b[32] >> 4, 11, "data offset: 20 + 24 bytes of options");
        assert_eq!(&b[40..52], &[1, 1, 8, 10, 10, 11, 12, 13, 0, 0, 0, 7], "NOP, NOP, TS, length 10, TSval, TSecr");
        assert_eq!(&b[52..56], &[1, 1, 5, 10], "then NOP, NOP, SACK, length 2 + 8");
        assert_eq!(&b[56..64], &[0, 0, 1, 244, 0, 0, 3, 132]);
        assert!(l4_ok(&b), "the checksum covers both options");
    }

    #[test]
    fn lengths_are_clamped_to_what_ipv4_can_say() {
        let mut p = pkt(Kind::TcpAck);
        p.size = 10;
        assert_eq!(Frame::encode(&p, 0).len(), 40);
        p.size = 70_000;
        assert_eq!(Frame::encode(&p, 0).len(), 65_535);
    }

    #[test]
    fn truncated_capture_keeps_full_length_checksum() {
        let f = Frame::encode(&pkt(Kind::TcpData), 1);
        let mut b = Vec::new();
        f.append_to(&mut b, 30);
        assert_eq!(b.len(), 30);
        f.append_to(&mut b, 2000);
        assert_eq!(b.len(), 30 + 1040);
        assert!(l4_ok(&b[30..]));
    }
}
