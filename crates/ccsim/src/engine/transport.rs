//! The transport seam: a flow's two end hosts as the run loop sees them. TCP, RDP and UDP
//! ends answer the same few questions (take this packet, start, your timer fired, when is
//! your next deadline, your counters), so the run loop handles every transport alike and
//! names none of them; this file is the one place that tells them apart.
//!
//! Packets an end sends go to the `out` buffer it is given; the run loop hands them to the
//! network (the sender's through its jitter) and rearms the timers the call may have moved.

use crate::app::{UdpSource, UdpStats};
use crate::packet::{Kind, Packet, Seq};
use crate::rdp::{RdpReceiver, RdpSender};
use crate::sim::prefetch;
use crate::sim::SimTime;
use crate::tcp::{ReceiverStats, SenderStats, TcpReceiver, TcpSender};

#[derive(Clone, Debug)]
#[repr(u8)]
#[allow(clippy::large_enum_variant)] // on purpose: TCP's ends are in the flow (below)
pub enum Transport {
    /// TCP's two ends are held in the flow itself, not boxed: an event at either end then
    /// reads one place in memory rather than two (`benchmarks/README.md`, "A flow's TCP ends
    /// held in the flow"). A UDP or RDP flow carries the room for them unused (a kilobyte);
    /// those transports stay boxed. `repr(u8)` makes the tag the first byte, where warming
    /// finds it (`Flow::prefetch`).
    Tcp {
        tx: TcpSender,
        rx: TcpReceiver,
    },
    Udp(Box<UdpSource>),
    /// RDP (`crate::rdp`): the sender's and the receiver's state machines.
    Rdp {
        tx: Box<RdpSender>,
        rx: Box<RdpReceiver>,
    },
}

/// One of a flow's two ends, each with a timer of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// Sends data; its timer rides on `Event::Rto`, and its packets go through its jitter.
    Sender,
    /// Takes data; its timer rides on `Event::DelAck`.
    Receiver,
}

/// Which end took a packet delivered to its flow, for the run loop to follow up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Taken {
    /// Nothing to follow up: a datagram, a control message, a packet for a stopped sender,
    /// or one of a kind the flow's transport does not take.
    Nothing,
    /// The receiver: its timer may have moved; its answers go out unjittered.
    ByReceiver,
    /// The sender: its timer may have moved; its packets go through its jitter. If the packet
    /// made it fast-retransmit, the segment retransmitted (its oldest unacknowledged) and
    /// whether the receiver already had it.
    BySender { fast_retransmit: Option<(Seq, bool)> },
}

impl Transport {
    /// `pkt` reached this flow's end host addressed to it, at `now`. A stopped flow's sender
    /// takes nothing (its receiver still does).
    #[inline]
    pub(super) fn deliver(&mut self, pkt: &Packet, now: SimTime, stopped: bool, out: &mut Vec<Packet>) -> Taken {
        match (self, pkt.kind) {
            (Transport::Tcp { rx, .. }, Kind::TcpData) => {
                rx.on_data(pkt, now, out);
                Taken::ByReceiver
            }
            (Transport::Tcp { tx, rx }, Kind::TcpAck | Kind::SpoofedAck) if !stopped => {
                let fast_retransmits = tx.stats.fast_retransmits;
                tx.on_ack(pkt, now, out);
                let fast_retransmit = (tx.stats.fast_retransmits > fast_retransmits).then(|| {
                    let una = tx.snd_una();
                    (una, rx.has_received(una, 1))
                });
                Taken::BySender { fast_retransmit }
            }
            (Transport::Tcp { tx, .. }, Kind::AccControl) if !stopped => {
                tx.on_acc_control(pkt, now);
                Taken::Nothing
            }
            (Transport::Udp(src), Kind::Udp) => {
                src.receive(pkt);
                Taken::Nothing
            }
            (Transport::Rdp { rx, .. }, Kind::RdpData) => {
                rx.on_segment(pkt, now, out);
                Taken::ByReceiver
            }
            (Transport::Rdp { tx, rx }, Kind::RdpAck) if !stopped => {
                let fast_retransmits = tx.stats.fast_retransmits;
                tx.on_segment(pkt, now, out);
                let fast_retransmit = (tx.stats.fast_retransmits > fast_retransmits).then(|| {
                    let una = tx.snd_una();
                    (una, rx.has_received(una))
                });
                Taken::BySender { fast_retransmit }
            }
            (Transport::Rdp { tx, .. }, Kind::AccControl) if !stopped => {
                tx.on_acc_control(pkt, now);
                Taken::Nothing
            }
            _ => Taken::Nothing,
        }
    }

    /// The flow starts at `now`: a TCP or RDP sender opens (its packets to `out`); a UDP
    /// source, which sends on its own clock, returns the time of its first datagram.
    #[inline]
    pub(super) fn start(&mut self, now: SimTime, out: &mut Vec<Packet>) -> Option<SimTime> {
        match self {
            Transport::Tcp { tx, .. } => tx.start(now, out),
            Transport::Rdp { tx, .. } => tx.start(now, out),
            Transport::Udp(src) => return Some(src.start(now)),
        }
        None
    }

    /// A UDP source's send time came: its datagrams to `out`, and the time of its next send.
    /// None for the other transports, which send when packets and timers let them.
    #[inline]
    pub(super) fn send_datagrams(&mut self, now: SimTime, out: &mut Vec<Packet>) -> Option<SimTime> {
        match self {
            Transport::Udp(src) => Some(src.send(now, out)),
            _ => None,
        }
    }

    /// When `end`'s timer is due, if it is running: the sender's (TCP's retransmission
    /// timeout, or a paced sender's next departure if that is sooner; RDP's SYN,
    /// retransmission or CLOSE-WAIT timer) or the receiver's (TCP's delayed ACK, RDP's
    /// CLOSE-WAIT).
    #[inline]
    pub(super) fn deadline(&self, end: End) -> Option<SimTime> {
        match (self, end) {
            (Transport::Tcp { tx, .. }, End::Sender) => tx.deadline(),
            (Transport::Tcp { rx, .. }, End::Receiver) => rx.delack_deadline(),
            (Transport::Rdp { tx, .. }, End::Sender) => tx.deadline(),
            (Transport::Rdp { rx, .. }, End::Receiver) => rx.deadline(),
            (Transport::Udp(_), _) => None,
        }
    }

    /// `end`'s timer fired at `now` (it may have been moved since: the end checks).
    #[inline]
    pub(super) fn on_timer(&mut self, end: End, now: SimTime, out: &mut Vec<Packet>) {
        match (self, end) {
            (Transport::Tcp { tx, .. }, End::Sender) => tx.on_deadline(now, out),
            (Transport::Tcp { rx, .. }, End::Receiver) => rx.on_delack_timeout(now, out),
            (Transport::Rdp { tx, .. }, End::Sender) => tx.on_timer(now, out),
            (Transport::Rdp { rx, .. }, End::Receiver) => rx.on_timer(now),
            (Transport::Udp(_), _) => {}
        }
    }

    /// The cumulative counters of the two ends: the sender's and the receiver's (zero for
    /// UDP), the UDP source's (zero for TCP and RDP).
    pub fn stats(&self) -> (SenderStats, ReceiverStats, UdpStats) {
        match self {
            Transport::Tcp { tx, rx } => (tx.stats, rx.stats, UdpStats::default()),
            Transport::Rdp { tx, rx } => (tx.stats, rx.stats, UdpStats::default()),
            Transport::Udp(src) => (SenderStats::default(), ReceiverStats::default(), src.stats),
        }
    }

    /// The sender's congestion window in segments; NaN for UDP, which has none.
    pub fn cwnd_segments(&self) -> f64 {
        match self {
            Transport::Tcp { tx, .. } => tx.cwnd() as f64 / tx.cfg.mss as f64,
            Transport::Rdp { tx, .. } => tx.cwnd_packets() as f64,
            Transport::Udp(_) => f64::NAN,
        }
    }

    /// Bytes the receiving end has taken so far (delivered in order for TCP and RDP,
    /// received for UDP).
    pub fn delivered_bytes(&self) -> u64 {
        match self {
            Transport::Tcp { rx, .. } => rx.stats.delivered_bytes,
            Transport::Rdp { rx, .. } => rx.stats.delivered_bytes,
            Transport::Udp(src) => src.stats.bytes_received,
        }
    }

    /// The TCP sender, if the flow is TCP.
    pub fn tcp_sender(&self) -> Option<&TcpSender> {
        match self {
            Transport::Tcp { tx, .. } => Some(tx),
            _ => None,
        }
    }

    /// The TCP receiver, if the flow is TCP.
    pub fn tcp_receiver(&self) -> Option<&TcpReceiver> {
        match self {
            Transport::Tcp { rx, .. } => Some(rx),
            _ => None,
        }
    }

    /// Whether the flow is TCP (whose ends are held in the flow, not boxed).
    pub fn is_tcp(&self) -> bool {
        matches!(self, Transport::Tcp { .. })
    }

    /// Prefetches `end` (a UDP source is both).
    #[inline]
    pub(super) fn prefetch_end(&self, end: End) {
        match (self, end) {
            (Transport::Tcp { tx, .. }, End::Sender) => prefetch::value(tx),
            (Transport::Tcp { rx, .. }, End::Receiver) => prefetch::value(rx),
            (Transport::Rdp { tx, .. }, End::Sender) => prefetch::value(&**tx),
            (Transport::Rdp { rx, .. }, End::Receiver) => prefetch::value(&**rx),
            (Transport::Udp(src), _) => prefetch::value(&**src),
        }
    }
}
