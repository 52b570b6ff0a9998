//! Packets are plain `Copy` values carrying the fields the real IPv4/TCP/UDP headers carry,
//! plus a few simulator fields (flow index, kind, send time) that never reach the wire.

use crate::sim::SimTime;
use crate::tcp::seq::Seq;

/// Index of a node (host or router).
pub type NodeId = u32;
/// Index of a flow: a TCP connection or a UDP source, with its two end points.
pub type FlowId = u32;

/// Bytes of IPv4 + TCP header (no options) added to every TCP segment on the wire.
pub const TCP_IP_HEADER: u32 = 40;
/// Bytes of IPv4 + UDP header.
pub const UDP_IP_HEADER: u32 = 28;

/// The IP ECN field (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// TCP flags, as the bits of the TCP header's flags byte.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// What a packet is, for dispatch at the end host and for statistics and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A TCP segment carrying data, from sender to receiver.
    TcpData,
    /// A pure TCP acknowledgement from receiver to sender.
    TcpAck,
    /// A duplicate ACK made by a router (ACK spoofing); a valid TCP ACK on the wire.
    SpoofedAck,
    /// An ACC control message from a congested router to a sender.
    AccControl,
    /// A UDP datagram.
    Udp,
}

/// The sender's congestion state that ACC/TCP carries in every data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AccState {
    /// Congestion window, bytes.
    pub cwnd: u32,
    /// Slow-start threshold, bytes.
    pub ssthresh: u32,
    /// Smoothed round-trip time, microseconds.
    pub srtt_us: u32,
    pub slow_start: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub kind: Kind,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    pub sport: u16,
    pub dport: u16,
    pub ttl: u8,
    pub ecn: Ecn,
    /// TCP flags (see [`flags`]).
    pub flags: u8,
    pub seq: Seq,
    pub ack: Seq,
    /// Advertised window, bytes (no window scaling is modelled; values above 65535 are
    /// written to pcap files saturated).
    pub wnd: u32,
    /// Transport payload bytes.
    pub payload: u32,
    /// Bytes on the wire (IP header included).
    pub size: u32,
    /// When the sending host emitted it.
    pub sent_at: SimTime,
    /// Present on data packets of ACC-enabled senders.
    pub acc: Option<AccState>,
    /// IP fast reroute: 1 + the index of the explicit repair path the packet is tunnelled
    /// along, or 0 when it is routed normally.
    pub tunnel: u16,
}

impl Packet {
    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    pub fn is_tcp(&self) -> bool {
        !matches!(self.kind, Kind::Udp)
    }
    /// True for packets travelling from a TCP receiver toward its sender.
    pub fn is_reverse(&self) -> bool {
        matches!(self.kind, Kind::TcpAck | Kind::SpoofedAck | Kind::AccControl)
    }
}
