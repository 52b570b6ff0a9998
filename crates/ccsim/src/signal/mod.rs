//! Signalling policies: what a router does with a congestion verdict.
//!
//! Composed with any discipline, they give RED, RED/ECN, RED/Spoofing, RTRED/ECN... from two
//! independent choices, as the ACK-spoofing paper describes.

use crate::net::packet::Packet;
use crate::queue::Verdict;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignalPolicy {
    /// Every signal drops the arriving packet.
    #[default]
    Drop,
    /// RFC 3168: an early or forced signal marks an ECN-capable packet CE and queues it;
    /// a packet that is not ECN-capable is dropped. Overflow always drops.
    Ecn,
    /// ACK spoofing: an early or forced signal queues the packet and spoofs duplicate ACKs
    /// to its source; overflow drops it *and* spoofs.
    Spoof,
}

/// What the router does with one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Enqueue,
    /// Set CE, then queue.
    MarkAndEnqueue,
    Drop,
    EnqueueAndSpoof,
    DropAndSpoof,
}

impl Action {
    pub fn enqueues(self) -> bool {
        matches!(self, Action::Enqueue | Action::MarkAndEnqueue | Action::EnqueueAndSpoof)
    }
    pub fn spoofs(self) -> bool {
        matches!(self, Action::EnqueueAndSpoof | Action::DropAndSpoof)
    }
}

impl SignalPolicy {
    /// The action for `verdict`; `room` says whether the packet would fit in the buffer
    /// (a signal that wants to queue the packet cannot when there is no room).
    pub fn act(self, verdict: Verdict, pkt: &Packet, room: bool) -> Action {
        use Verdict::*;
        match (verdict, self) {
            (Admit, _) if room => Action::Enqueue,
            (Admit, SignalPolicy::Spoof) | (Overflow, SignalPolicy::Spoof) => {
                if pkt.is_tcp() && !pkt.is_reverse() {
                    Action::DropAndSpoof
                } else {
                    Action::Drop
                }
            }
            (Admit, _) | (Overflow, _) => Action::Drop,
            (Early | Forced, SignalPolicy::Drop) => Action::Drop,
            (Early | Forced, SignalPolicy::Ecn) => {
                if room && pkt.ecn.is_ect() {
                    Action::MarkAndEnqueue
                } else {
                    Action::Drop
                }
            }
            (Early | Forced, SignalPolicy::Spoof) => {
                let spoofable = pkt.is_tcp() && !pkt.is_reverse();
                match (room, spoofable) {
                    (true, true) => Action::EnqueueAndSpoof,
                    (true, false) | (false, false) => Action::Drop,
                    (false, true) => Action::DropAndSpoof,
                }
            }
        }
    }
}
