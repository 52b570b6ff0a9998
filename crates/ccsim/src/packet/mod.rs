//! Packets are plain `Copy` values carrying the fields the real IPv4/TCP/UDP headers carry,
//! plus a few simulator fields (flow index, kind, send time) that never reach the wire.
//!
//! Packets are made by named constructors, one per kind ([`Packet::tcp_data`],
//! [`Packet::tcp_ack`], [`Packet::spoofed_ack`], [`Packet::udp`], [`Packet::acc_control`],
//! and [`Packet::rdp`] for both directions of an RDP connection), so that every field a kind
//! does not use has one value everywhere, and the transport protocol on the wire
//! ([`Protocol`]) follows from the kind.

pub mod checksum;
pub mod explicit;
pub mod rdp;
pub mod seq;
pub mod timestamps;

pub use explicit::Explicit;
pub use rdp::{Fields, VarArea};
pub use seq::Seq;
pub use timestamps::Timestamps;

use crate::sim::SimTime;

/// Index of a node (host or router).
pub type NodeId = u32;

/// The IPv4 address of node `n`: `10.a.b.c` with `c = n % 254 + 1` (1..=254, so never a
/// `.0` or `.255` address), `b = (n / 254) % 256`, `a = (n / (254 * 256)) % 256`. Node 0 is
/// 10.0.0.1, node 253 is 10.0.0.254, node 254 is 10.0.1.1. One-to-one for the first
/// 254 * 256 * 256 (16 646 144) nodes.
pub fn node_addr(n: NodeId) -> [u8; 4] {
    let c = n % 254 + 1;
    let rest = n / 254;
    [10, (rest >> 8) as u8, rest as u8, c as u8]
}

/// Index of a flow: a TCP connection or a UDP source, with its two end points.
pub type FlowId = u32;

/// Bytes of IPv4 + TCP header (no options) added to every TCP segment on the wire.
pub const TCP_IP_HEADER: u32 = 40;
/// Bytes of IPv4 + UDP header.
pub const UDP_IP_HEADER: u32 = 28;
/// Bytes of the IPv4 header (no options), before a transport header of variable length
/// (RDP's).
pub const IP_HEADER: u32 = 20;
/// UDP port that ACC control messages are sent to.
pub const ACC_PORT: u16 = 7777;
/// Bytes of the ACC control payload (cwnd, ssthresh, srtt, flags: [`AccState::to_bytes`]).
pub const ACC_PAYLOAD: u32 = AccState::BYTES as u32;
/// Initial TTL of the packets routers make (spoofed ACKs, ACC controls).
pub const ROUTER_TTL: u8 = 64;

/// The SACK option of a TCP ACK (RFC 2018 section 3): up to [`SackBlocks::MAX`] blocks, each
/// the left edge and the right edge (the sequence number just past the block) of a range of
/// data the receiver holds above its cumulative acknowledgement. A fixed array, so that a
/// packet stays a small `Copy` value: the blocks in use come first, unused ones are empty
/// (left edge = right edge). Packets that carry no SACK option hold [`SackBlocks::NONE`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks([(Seq, Seq); SackBlocks::MAX]);

impl SackBlocks {
    /// Blocks one option carries here. RFC 2018 section 3 allows four in the 40 bytes of
    /// TCP option space, three beside the timestamps option (which real stacks send); three
    /// is what they carry.
    pub const MAX: usize = 3;
    /// No SACK option.
    pub const NONE: SackBlocks = SackBlocks([(Seq(0), Seq(0)); SackBlocks::MAX]);

    /// Blocks in use.
    pub fn len(&self) -> usize {
        self.0.iter().take_while(|b| b.0 != b.1).count()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The blocks in use, first to last: (left edge, right edge).
    pub fn iter(&self) -> impl Iterator<Item = (Seq, Seq)> + '_ {
        self.0.iter().copied().take_while(|b| b.0 != b.1)
    }
    /// Appends a block; false (and nothing changes) when the option is full or the block
    /// empty.
    pub fn push(&mut self, left: Seq, right: Seq) -> bool {
        let n = self.len();
        if n == SackBlocks::MAX || left == right {
            return false;
        }
        self.0[n] = (left, right);
        true
    }
    /// Whether a block equal to `b` is already in the option.
    pub fn contains(&self, b: (Seq, Seq)) -> bool {
        self.iter().any(|x| x == b)
    }
    /// Bytes of TCP options the blocks take on the wire, padding included: two NOPs, then
    /// kind 5, length 2 + 8n and the n blocks (RFC 2018 section 3), a multiple of four; zero
    /// without blocks.
    pub fn option_bytes(&self) -> u32 {
        match self.len() {
            0 => 0,
            n => 4 + 8 * n as u32,
        }
    }
}

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

/// The transport protocol of a packet: the IPv4 header's protocol field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Protocol {
    Tcp = 6,
    Udp = 17,
    /// The Reliable Data Protocol (RFC 908, RFC 1151), IANA protocol number 27.
    Rdp = 27,
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
    /// An RDP segment from the connection's sending side (its active opener) to the
    /// receiving side: SYN, data, or RST.
    RdpData,
    /// An RDP segment from the receiving side (the passive opener) to the sending side:
    /// SYN-ACK, ACK (with or without EACKs), or RST.
    RdpAck,
}

impl Kind {
    /// The transport protocol this kind of packet travels in (ACC controls are UDP).
    pub const fn protocol(self) -> Protocol {
        match self {
            Kind::TcpData | Kind::TcpAck | Kind::SpoofedAck => Protocol::Tcp,
            Kind::AccControl | Kind::Udp => Protocol::Udp,
            Kind::RdpData | Kind::RdpAck => Protocol::Rdp,
        }
    }
    /// True for packets travelling from a flow's receiver toward its sender.
    pub const fn is_reverse(self) -> bool {
        matches!(self, Kind::TcpAck | Kind::SpoofedAck | Kind::AccControl | Kind::RdpAck)
    }
}

/// The addressing of one flow, from its sender's point of view: data goes `sender:sport`
/// -> `receiver:dport`, acknowledgements the other way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub flow: FlowId,
    pub sender: NodeId,
    pub receiver: NodeId,
    pub sport: u16,
    pub dport: u16,
}

impl Endpoints {
    /// The endpoints of the flow a forward-direction packet (data, datagram) belongs to.
    pub fn of_forward(p: &Packet) -> Endpoints {
        Endpoints { flow: p.flow, sender: p.src, receiver: p.dst, sport: p.sport, dport: p.dport }
    }
    /// The endpoints of the flow a reverse-direction packet (an ACK) belongs to.
    pub fn of_reverse(p: &Packet) -> Endpoints {
        Endpoints { flow: p.flow, sender: p.dst, receiver: p.src, sport: p.dport, dport: p.sport }
    }
}

/// The sender's congestion state that ACC/TCP and ACC/RDP carry in every data packet: "the endpoint's
/// current estimate of round trip time, its window size, and slow-start and fast
/// retransmission state" (Faber, Section 3.1). In an ACC control message the same block is
/// the state the router tells the sender to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AccState {
    /// Congestion window: bytes for TCP, packets for RDP.
    pub cwnd: u32,
    /// Slow-start threshold, in the unit of `cwnd`.
    pub ssthresh: u32,
    /// Smoothed round-trip time, microseconds.
    pub srtt_us: u32,
    /// In slow start (cwnd below ssthresh); in a control: the sender is to slow-start.
    pub slow_start: bool,
    /// In fast retransmission / fast recovery (the window carried is then inflated by the
    /// duplicate ACKs, and the loss that started it is already being answered).
    pub fast_recovery: bool,
}

impl AccState {
    /// Bytes of the state block on the wire (ACC controls; RDP's ACC extension).
    pub const BYTES: usize = 16;

    /// The state block: cwnd, ssthresh, srtt in microseconds (big-endian u32 each), a flags
    /// byte (bit 0: slow start, bit 1: fast recovery), three zero bytes.
    pub fn to_bytes(&self) -> [u8; AccState::BYTES] {
        let mut b = [0; AccState::BYTES];
        b[0..4].copy_from_slice(&self.cwnd.to_be_bytes());
        b[4..8].copy_from_slice(&self.ssthresh.to_be_bytes());
        b[8..12].copy_from_slice(&self.srtt_us.to_be_bytes());
        b[12] = self.slow_start as u8 | (self.fast_recovery as u8) << 1;
        b
    }

    /// Reads a state block written by [`AccState::to_bytes`]; flag bits it does not know and
    /// the reserved bytes are ignored.
    pub fn from_bytes(b: &[u8; AccState::BYTES]) -> AccState {
        let word = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        AccState { cwnd: word(0), ssthresh: word(4), srtt_us: word(8), slow_start: b[12] & 1 == 1, fast_recovery: b[12] & 2 == 2 }
    }
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
    /// TCP flags (see [`flags`]), or RDP's control flags (`crate::rdp::flags`) in an RDP
    /// segment.
    pub flags: u8,
    /// The TCP header's AE flag (RFC 9768, the bit before CWR that RFC 3540 had named NS):
    /// with CWR and ECE, Accurate ECN's ACE counter (`crate::tcp::accecn`). False in every
    /// other packet.
    pub ae: bool,
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
    /// RDP's variable header area: a SYN's parameters or an ACK's EACK set; in a TCP
    /// segment, XCP's or RCP's congestion header ([`explicit`]) or the timestamps option
    /// ([`timestamps`]); zero in other packets.
    pub rdp_var: VarArea,
    /// IP fast reroute: 1 + the index of the explicit repair path the packet is tunnelled
    /// along, or 0 when it is routed normally.
    pub tunnel: u16,
    /// The SACK option of a TCP ACK ([`SackBlocks::NONE`] in every other packet); `size`
    /// counts its bytes ([`Packet::set_sack`]).
    pub sack: SackBlocks,
}

impl Packet {
    /// A packet of `kind` from `src:sport` to `dst:dport` with no payload, no flags, no ECN
    /// capability and zero sequence numbers; the constructors below fill in the rest.
    #[allow(clippy::too_many_arguments)] // the addressing, each part named
    const fn bare(kind: Kind, flow: FlowId, src: NodeId, dst: NodeId, sport: u16, dport: u16, ttl: u8, now: SimTime) -> Packet {
        Packet {
            kind,
            flow,
            src,
            dst,
            sport,
            dport,
            ttl,
            ecn: Ecn::NotEct,
            flags: 0,
            ae: false,
            seq: Seq(0),
            ack: Seq(0),
            wnd: 0,
            payload: 0,
            size: match kind.protocol() {
                Protocol::Tcp => TCP_IP_HEADER,
                Protocol::Udp => UDP_IP_HEADER,
                Protocol::Rdp => IP_HEADER + rdp::FIXED_HEADER as u32,
            },
            sent_at: now,
            acc: None,
            rdp_var: VarArea::NONE,
            tunnel: 0,
            sack: SackBlocks::NONE,
        }
    }

    /// A TCP segment of `payload` bytes starting at `seq`, from the flow's sender. The ACK
    /// flag is set; the reverse direction carries no data, so the advertised window is a
    /// full 65535 as a real stack's would be (traces then show no zero window).
    pub fn tcp_data(ends: &Endpoints, seq: Seq, payload: u32, ttl: u8, now: SimTime) -> Packet {
        let mut p = Packet::bare(Kind::TcpData, ends.flow, ends.sender, ends.receiver, ends.sport, ends.dport, ttl, now);
        p.flags = flags::ACK;
        p.seq = seq;
        p.wnd = u16::MAX as u32;
        p.payload = payload;
        p.size = payload + TCP_IP_HEADER;
        p
    }

    /// A pure TCP acknowledgement of everything below `ack`, from the flow's receiver,
    /// advertising `wnd` bytes.
    pub fn tcp_ack(ends: &Endpoints, ack: Seq, wnd: u32, ttl: u8, now: SimTime) -> Packet {
        let mut p = Packet::bare(Kind::TcpAck, ends.flow, ends.receiver, ends.sender, ends.dport, ends.sport, ttl, now);
        p.flags = flags::ACK;
        p.ack = ack;
        p.wnd = wnd;
        p
    }

    /// Gives a TCP segment the SACK option `blocks` (none: no option), its size on the wire
    /// growing by the option's bytes ([`SackBlocks::option_bytes`]).
    pub fn set_sack(&mut self, blocks: SackBlocks) {
        self.size = self.size - self.sack.option_bytes() + blocks.option_bytes();
        self.sack = blocks;
    }

    /// A duplicate ACK a router makes on the receiver's behalf (ACK spoofing): a valid TCP
    /// ACK on the wire, `seq`, `ack` and `wnd` copied from a real ACK of the flow.
    pub fn spoofed_ack(ends: &Endpoints, seq: Seq, ack: Seq, wnd: u32, now: SimTime) -> Packet {
        let mut p = Packet::bare(Kind::SpoofedAck, ends.flow, ends.receiver, ends.sender, ends.dport, ends.sport, ROUTER_TTL, now);
        p.flags = flags::ACK;
        p.seq = seq;
        p.ack = ack;
        p.wnd = wnd;
        p
    }

    /// A UDP datagram of `payload` bytes from the flow's sender.
    pub fn udp(ends: &Endpoints, payload: u32, ttl: u8, now: SimTime) -> Packet {
        let mut p = Packet::bare(Kind::Udp, ends.flow, ends.sender, ends.receiver, ends.sport, ends.dport, ttl, now);
        p.payload = payload;
        p.size = payload + UDP_IP_HEADER;
        p
    }

    /// An ACC control message from `router` to the sender of `dropped` (a data packet the
    /// router dropped), asking for the congestion state `state`. Its `seq` names the dropped
    /// segment, so that the sender can tell which window of data it is about.
    pub fn acc_control(router: NodeId, dropped: &Packet, state: AccState, now: SimTime) -> Packet {
        let mut p = Packet::bare(Kind::AccControl, dropped.flow, router, dropped.src, ACC_PORT, ACC_PORT, ROUTER_TTL, now);
        p.seq = dropped.seq;
        p.payload = ACC_PAYLOAD;
        p.size = UDP_IP_HEADER + ACC_PAYLOAD;
        p.acc = Some(state);
        p
    }

    /// An RDP segment (RFC 908, RFC 1151) of the flow: from its sender (`Kind::RdpData`) or
    /// from its receiver (`Kind::RdpAck`, whose addresses and ports are the reverse), with the
    /// header fields `f` and `payload` bytes of data. Its size on the wire is the IPv4 header,
    /// the RDP header as [`crate::rdp::wire`] lays it out (which depends on `f`), and the
    /// data.
    pub fn rdp(kind: Kind, ends: &Endpoints, f: Fields, payload: u32, ttl: u8, now: SimTime) -> Packet {
        debug_assert!(matches!(kind, Kind::RdpData | Kind::RdpAck));
        let mut p = if kind == Kind::RdpAck {
            Packet::bare(kind, ends.flow, ends.receiver, ends.sender, ends.dport, ends.sport, ttl, now)
        } else {
            Packet::bare(kind, ends.flow, ends.sender, ends.receiver, ends.sport, ends.dport, ttl, now)
        };
        p.flags = f.flags;
        p.seq = f.seq;
        p.ack = f.ack;
        p.rdp_var = f.var;
        p.acc = f.acc;
        p.payload = payload;
        p.size = IP_HEADER + rdp::header_len(&f) as u32 + payload;
        p
    }

    /// The RDP header fields of an RDP segment.
    pub fn rdp_fields(&self) -> Fields {
        Fields { flags: self.flags, seq: self.seq, ack: self.ack, var: self.rdp_var, acc: self.acc }
    }

    pub fn has_flag(&self, f: u8) -> bool {
        self.flags & f != 0
    }
    /// The transport protocol on the wire.
    pub fn protocol(&self) -> Protocol {
        self.kind.protocol()
    }
    pub fn is_tcp(&self) -> bool {
        self.protocol() == Protocol::Tcp
    }
    /// True for packets travelling from a flow's receiver toward its sender.
    pub fn is_reverse(&self) -> bool {
        self.kind.is_reverse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENDS: Endpoints = Endpoints { flow: 3, sender: 1, receiver: 2, sport: 10_000, dport: 80 };

    #[test]
    fn constructors_address_each_kind_and_size_it_on_the_wire() {
        let t = SimTime::ZERO;
        let d = Packet::tcp_data(&ENDS, Seq(1000), 500, 64, t);
        assert_eq!((d.src, d.dst, d.sport, d.dport, d.size, d.protocol()), (1, 2, 10_000, 80, 540, Protocol::Tcp));
        assert_eq!(Endpoints::of_forward(&d), ENDS);
        let a = Packet::tcp_ack(&ENDS, Seq(1500), 4000, 64, t);
        assert_eq!((a.src, a.dst, a.sport, a.dport, a.size, a.ack, a.wnd), (2, 1, 80, 10_000, 40, Seq(1500), 4000));
        assert_eq!(Endpoints::of_reverse(&a), ENDS);
        assert!(a.is_reverse() && !d.is_reverse());
        let s = Packet::spoofed_ack(&ENDS, Seq(0), Seq(1500), 4000, t);
        assert_eq!((s.kind, s.src, s.dst, s.ttl), (Kind::SpoofedAck, 2, 1, ROUTER_TTL));
        let u = Packet::udp(&ENDS, 200, 64, t);
        assert_eq!((u.size, u.protocol(), u.is_tcp()), (228, Protocol::Udp, false));
        let state = AccState { cwnd: 5000, ssthresh: 5000, srtt_us: 1, ..AccState::default() };
        let c = Packet::acc_control(7, &d, state, t);
        assert_eq!((c.src, c.dst, c.seq, c.size, c.acc), (7, 1, Seq(1000), 44, Some(state)));
        assert!(!c.is_tcp(), "an ACC control is a UDP datagram");
        assert!(c.is_reverse());
    }

    #[test]
    fn sack_option_sizes_follow_rfc_2018() {
        let mut a = Packet::tcp_ack(&ENDS, Seq(1500), 4000, 64, SimTime::ZERO);
        assert_eq!((a.sack, a.sack.len()), (SackBlocks::NONE, 0));
        let mut b = SackBlocks::NONE;
        assert!(!b.push(Seq(7), Seq(7)), "an empty block is no block");
        for (i, size) in [(0u32, 52), (1, 60), (2, 68)] {
            assert!(b.push(Seq(2000 + 1000 * i), Seq(2500 + 1000 * i)));
            a.set_sack(b);
            // 2 NOPs + kind + length + 8 bytes per block.
            assert_eq!(a.size, size, "{} blocks", i + 1);
        }
        assert!(!b.push(Seq(9000), Seq(9100)), "three blocks at most");
        assert_eq!(b.iter().map(|x| x.0 .0).collect::<Vec<_>>(), [2000, 3000, 4000]);
        assert!(b.contains((Seq(3000), Seq(3500))) && !b.contains((Seq(3000), Seq(3400))));
        a.set_sack(SackBlocks::NONE);
        assert_eq!(a.size, TCP_IP_HEADER);
    }
}
