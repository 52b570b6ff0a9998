//! Traces of simulated traffic: packet captures that Wireshark and tshark read, and the
//! per-packet event log ([`packet_log`]).
//!
//! A scenario's `[[pcap]]` tables become a [`Tracer`] that records chosen links as their
//! packets finish transmission (see [`Tracer`] for the capture point).
//!
//! [`PcapWriter`] writes classic pcap (nanosecond-resolution magic `0xa1b23c4d`) or pcapng
//! (one interface description block per interface, `if_tsresol` = 9), timestamps taken
//! from simulated time.
//!
//! # Frames
//!
//! The link type is LINKTYPE_RAW (101): every frame is an IPv4 packet with no link-layer
//! header, since the simulator models none. Each packet becomes:
//!
//! - IPv4: no options, DSCP 0 (but see below) with the packet's ECN codepoint, total
//!   length `pkt.size` (raised to the header size or lowered to 65535 if out of range),
//!   identification from a per-writer counter, DF set, the packet's TTL, a correct header
//!   checksum, addresses from [`node_addr`].
//! - TCP (every kind but `Udp` and `AccControl`): ports, 32-bit seq and ack, data offset 5
//!   (no options) or more with SACK blocks, the flags byte straight from `pkt.flags` and the
//!   AE bit from `pkt.ae` (the low bit of byte 12: with CWR and ECE, AccECN's ACE counter,
//!   which tshark shows as `tcp.flags.ae`), window
//!   `min(pkt.wnd, 65535)` (no window scaling), urgent pointer 0, a correct checksum. A
//!   segment with SACK blocks (`pkt.sack`, the ACKs of a `tcp.sack` receiver) carries the
//!   SACK option (RFC 2018 section 3): NOP, NOP, kind 5, length 2 + 8n, the blocks' edges as
//!   absolute sequence numbers; `pkt.size` counts it. No SYN is ever written, so no
//!   SACK-permitted option: tshark shows the blocks (`tcp.options.sack_le`,
//!   `tcp.options.sack_re`, relative to the stream's first sequence number it saw, unless
//!   `-o tcp.relative_sequence_numbers:FALSE`).
//! - UDP: ports, length, a correct checksum.
//! - RDP (`Kind::RdpData`, `Kind::RdpAck`): IPv4 protocol 27 (RDP's IANA number), the
//!   segment's header as [`crate::rdp::wire`] lays it out (flags and version 2, ports,
//!   data length, sequence and acknowledgement numbers, SYN parameters, the ACC state
//!   extension, EACKs) with its checksum, which covers the segment alone.
//!
//! Payload bytes are zeros, except in ACC control messages. Checksums cover the full
//! payload even when `snaplen` cuts the captured frame short; the original length is
//! always the total length. The ACC state block that ACC/TCP data packets carry
//! (`pkt.acc`) is a simulator field with no header to live in, and is left out of TCP
//! frames; RDP's header has room for it (its ACC extension).
//!
//! # Telling router-made packets apart
//!
//! The writer marks packets that routers make with the IPv4 DSCP, keeping their ECN bits:
//!
//! - Spoofed ACKs (`Kind::SpoofedAck`) are ordinary TCP ACKs with DSCP CS1 (8); Wireshark
//!   filter `ip.dsfield.dscp == 8`. Their addresses and ports are the packet's own, so a
//!   spoofed ACK that names the receiver as source joins its TCP stream and tshark's
//!   analysis counts it as a duplicate ACK, as the sender does.
//! - ACC control messages (`Kind::AccControl`) are UDP datagrams with DSCP CS2 (16), from
//!   the packet's source (the router) and source port to UDP port [`ACC_PORT`] (7777);
//!   filter `ip.dsfield.dscp == 16` or `udp.dstport == 7777`. When the packet carries an
//!   ACC state block, the payload begins with as much of this 16-byte layout as fits,
//!   zeros after it:
//!
//!   | bytes | field                                        |
//!   |-------|----------------------------------------------|
//!   | 0-3   | cwnd, bytes (big-endian u32)                 |
//!   | 4-7   | ssthresh, bytes (big-endian u32)             |
//!   | 8-11  | srtt, microseconds (big-endian u32)          |
//!   | 12    | flags: bit 0 slow start, bit 1 fast recovery |
//!   | 13-15 | zero                                         |

mod capture;
mod frame;
pub mod packet_log;
mod pcap;

pub use capture::Tracer;
pub use frame::{ACC_PAYLOAD, ACC_PORT, DSCP_ACC_CONTROL, DSCP_SPOOFED_ACK};
pub use pcap::{PcapFormat, PcapWriter};
