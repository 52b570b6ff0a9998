//! Signalling policies: what a router does with a congestion verdict.
//!
//! Composed with any discipline, they give RED, RED/ECN, RED/Spoofing, RTRED/ECN... from two
//! independent choices, as the ACK-spoofing paper describes. The rules, for a packet that
//! arrives with the discipline's [`Verdict`] and with or without room in the buffer:
//!
//! 1. **No signal.** `Admit` with room queues the packet, whatever the policy. `Admit`
//!    without room is an overflow.
//! 2. **Overflow** (no room: `Overflow`, or `Admit` without room) drops the packet, whatever
//!    the policy; `spoof` also spoofs if the packet can be spoofed for (below).
//! 3. **`drop`**: an early or forced signal drops the packet (`EarlyDrop` is an early one
//!    under every policy but `ecn`).
//! 4. **`ecn`** (RFC 3168 Section 5): an early or forced signal marks an ECN-capable packet
//!    (ECT(0) or ECT(1)) CE and queues it; a packet that is not ECN-capable is dropped, and
//!    so is any packet that finds no room: a full queue drops, with or without ECN. A packet
//!    that arrives already marked CE (by an earlier hop) is marked: it stays CE and is
//!    queued, as Linux's `INET_ECN_set_ce` (`include/net/inet_ecn.h`) reports it marked,
//!    so that a second signalling hop on the path (two DualPI2 queues, say) does not turn
//!    the first hop's marks into drops. An early signal the discipline says must drop
//!    (`EarlyDrop`: ns-2's RED past `mark_p`) drops, ECN-capable or not.
//! 5. **`spoof`** (the ACK-spoofing paper): an early or forced signal queues the packet and
//!    spoofs duplicate ACKs to its source; without room it drops the packet *and* spoofs.
//!    Only a TCP packet travelling from sender to receiver (data) can be spoofed for: the
//!    spoofed ACKs go to its sender. Any other packet (a TCP ACK, a UDP datagram) that gets
//!    a signal is dropped, as under `drop`.

use crate::packet::{Ecn, Packet};

/// A discipline's answer for one arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No congestion signal.
    Admit,
    /// A probabilistic early signal (RED's drop/mark with probability p_a).
    Early,
    /// A forced signal: the average queue is past the point where every arrival is signalled.
    Forced,
    /// An early signal that must drop the packet even where the policy would mark it: ns-2's
    /// RED (`use_mark_p_`) drops rather than marks once `p_b` exceeds `mark_p`, and counts the
    /// drop as early (see `red.rs`).
    EarlyDrop,
    /// The buffer is full (decided by the FIFO's hard limit, not by the discipline).
    Overflow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignalPolicy {
    /// Every signal drops the arriving packet.
    #[default]
    Drop,
    /// RFC 3168: an early or forced signal marks an ECN-capable packet CE and queues it (one
    /// already CE stays CE); a packet that is not ECN-capable is dropped. Overflow always
    /// drops.
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
    /// Every policy with the name a scenario's `signal` key gives it.
    pub const NAMES: [(&'static str, SignalPolicy); 3] = [("drop", SignalPolicy::Drop), ("ecn", SignalPolicy::Ecn), ("spoof", SignalPolicy::Spoof)];

    /// The policy a scenario names `name`.
    pub fn from_name(name: &str) -> Option<SignalPolicy> {
        SignalPolicy::NAMES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
    }

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
            (Early | Forced | EarlyDrop, SignalPolicy::Drop) | (EarlyDrop, SignalPolicy::Ecn) => Action::Drop,
            (Early | Forced, SignalPolicy::Ecn) => {
                if room && pkt.ecn != Ecn::NotEct {
                    Action::MarkAndEnqueue
                } else {
                    Action::Drop
                }
            }
            (Early | Forced | EarlyDrop, SignalPolicy::Spoof) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::sim::SimTime;

    const VERDICTS: [Verdict; 4] = [Verdict::Admit, Verdict::Early, Verdict::Forced, Verdict::Overflow];
    const POLICIES: [SignalPolicy; 3] = [SignalPolicy::Drop, SignalPolicy::Ecn, SignalPolicy::Spoof];
    const CODEPOINTS: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce];

    /// A packet of each kind a router queues: TCP data (spoofable), a TCP ACK and a UDP
    /// datagram (not), each with every ECN codepoint.
    fn packets() -> Vec<(&'static str, Packet)> {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 10_000, dport: 80 };
        let kinds = [
            ("data", Packet::tcp_data(&ends, Seq(0), 1000, 64, SimTime::ZERO)),
            ("ack", Packet::tcp_ack(&ends, Seq(1000), 65_535, 64, SimTime::ZERO)),
            ("udp", Packet::udp(&ends, 1000, 64, SimTime::ZERO)),
        ];
        let mut out = Vec::new();
        for (name, p) in kinds {
            for ecn in CODEPOINTS {
                out.push((name, Packet { ecn, ..p }));
            }
        }
        out
    }

    /// The action the module doc's rules give, written from the rules alone: which rule
    /// applies, then what it says.
    fn by_the_rules(verdict: Verdict, policy: SignalPolicy, kind: &str, ecn: Ecn, room: bool) -> (u8, Action) {
        let signal = matches!(verdict, Verdict::Early | Verdict::Forced);
        let spoofable = kind == "data";
        // An ECN-capable packet, or one an earlier hop marked (it stays CE).
        let ecn_capable = matches!(ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce);
        if !signal {
            return match (verdict, room) {
                (Verdict::Admit, true) => (1, Action::Enqueue),
                _ if policy == SignalPolicy::Spoof && spoofable => (2, Action::DropAndSpoof),
                _ => (2, Action::Drop),
            };
        }
        match policy {
            SignalPolicy::Drop => (3, Action::Drop),
            SignalPolicy::Ecn if ecn_capable && room => (4, Action::MarkAndEnqueue),
            SignalPolicy::Ecn => (4, Action::Drop),
            SignalPolicy::Spoof if !spoofable => (5, Action::Drop),
            SignalPolicy::Spoof if room => (5, Action::EnqueueAndSpoof),
            SignalPolicy::Spoof => (5, Action::DropAndSpoof),
        }
    }

    #[test]
    fn every_verdict_policy_packet_and_room_follows_the_composition_rules() {
        let mut by_rule = [0usize; 6];
        let mut cases = 0;
        for verdict in VERDICTS {
            for policy in POLICIES {
                for (kind, pkt) in packets() {
                    for room in [true, false] {
                        let (rule, expected) = by_the_rules(verdict, policy, kind, pkt.ecn, room);
                        let got = policy.act(verdict, &pkt, room);
                        assert_eq!(got, expected, "rule {rule}: {verdict:?} {policy:?} {kind} {:?} room {room}", pkt.ecn);
                        by_rule[rule as usize] += 1;
                        cases += 1;
                    }
                }
            }
        }
        assert_eq!(cases, 4 * 3 * 12 * 2);
        // Rule 1: Admit with room, any policy and packet; rule 2: Admit without room and
        // Overflow either way; rules 3-5: the two signals under each policy.
        assert_eq!(by_rule, [0, 3 * 12, 3 * 12 * 3, 2 * 12 * 2, 2 * 12 * 2, 2 * 12 * 2]);
    }

    #[test]
    fn what_each_action_does() {
        use Action::*;
        let table = [(Enqueue, true, false), (MarkAndEnqueue, true, false), (Drop, false, false), (EnqueueAndSpoof, true, true), (DropAndSpoof, false, true)];
        for (action, enqueues, spoofs) in table {
            assert_eq!((action.enqueues(), action.spoofs()), (enqueues, spoofs), "{action:?}");
        }
    }

    #[test]
    fn spot_checks_of_the_papers_compositions() {
        let (data, ack) = (packets()[1].1, packets()[4].1); // ECT(0) data, Not-ECT ACK
                                                            // RED/ECN: an early signal marks ECN-capable data; the ACK is dropped.
        assert_eq!(SignalPolicy::Ecn.act(Verdict::Early, &data, true), Action::MarkAndEnqueue);
        assert_eq!(SignalPolicy::Ecn.act(Verdict::Early, &ack, true), Action::Drop);
        // RED/Spoofing: a forced signal keeps the data and spoofs; overflow drops and spoofs.
        assert_eq!(SignalPolicy::Spoof.act(Verdict::Forced, &data, true), Action::EnqueueAndSpoof);
        assert_eq!(SignalPolicy::Spoof.act(Verdict::Overflow, &data, false), Action::DropAndSpoof);
        // Tail drop: overflow drops under every policy.
        for policy in POLICIES {
            assert!(!policy.act(Verdict::Overflow, &ack, false).enqueues());
        }
    }

    /// A packet an earlier hop marked CE is marked again (it stays CE and is queued) where
    /// a Not-ECT packet is dropped: two signalling hops in a row keep L4S marks as marks.
    #[test]
    fn an_already_marked_packet_stays_marked_under_ecn() {
        let ce = packets().into_iter().find(|(k, p)| *k == "data" && p.ecn == Ecn::Ce).unwrap().1;
        for verdict in [Verdict::Early, Verdict::Forced] {
            assert_eq!(SignalPolicy::Ecn.act(verdict, &ce, true), Action::MarkAndEnqueue, "{verdict:?}");
        }
        assert_eq!(SignalPolicy::Ecn.act(Verdict::Early, &ce, false), Action::Drop, "no room: dropped");
        assert_eq!(SignalPolicy::Ecn.act(Verdict::EarlyDrop, &ce, true), Action::Drop, "a drop the discipline asks for");
        assert_eq!(SignalPolicy::Drop.act(Verdict::Early, &ce, true), Action::Drop, "drop policy: dropped");
    }

    #[test]
    fn names_select_the_policies() {
        for (name, policy) in SignalPolicy::NAMES {
            assert_eq!(SignalPolicy::from_name(name), Some(policy));
        }
        assert_eq!(SignalPolicy::from_name("mark"), None);
        assert_eq!(SignalPolicy::NAMES[0].1, SignalPolicy::default(), "the first name is the default");
    }
}
