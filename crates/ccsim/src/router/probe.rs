//! A router mechanism for tests of the engine's hook dispatch: it records every hook call
//! and, as configured, discards, reroutes, changes a queue's action, sends packets and sets
//! timers. Registered only in test builds.

use super::hooks::{BuildContext, Cx, Hooks, Passage, RouterMechanism, Timer};
use crate::net::{LinkId, NodeId};
use crate::packet::{Endpoints, Kind, Packet};
use crate::settings::error::BuildError;
use crate::signal::Action;
use crate::signal::Verdict;
use crate::sim::SimTime;

/// One hook call as the probe saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Arrival { node: NodeId, kind: Kind, seq: u32 },
    NextHop { node: NodeId, chosen: Option<LinkId> },
    Verdict { link: LinkId, verdict: Verdict, action: Action },
    QueueDrop { link: LinkId },
    Loss { kind: Kind },
    LinkChange { link: LinkId, up: bool },
    Timer { at: SimTime, timer: Timer },
}

#[derive(Clone, Debug, Default)]
pub struct Probe {
    /// Which hooks it asks for.
    pub hooks: Hooks,
    pub calls: Vec<Call>,
    /// Discard data packets arriving at this router.
    pub discard_at: Option<NodeId>,
    /// At this node, send every data packet on this link instead.
    pub reroute: Option<(NodeId, LinkId)>,
    /// On this link, turn every `Enqueue` into `Drop`.
    pub drop_on: Option<LinkId>,
    /// On each queue drop, send this packet from this node.
    pub answer_drops: Option<(NodeId, Packet)>,
    /// On the first arrival, set this timer.
    pub timer: Option<(SimTime, Timer)>,
    /// Claim the losses of UDP packets.
    pub claim_udp: bool,
    /// Set every timer again, at the instant it fires: a loop in which time stands still
    /// (not recorded in `calls`).
    pub loop_timers: bool,
}

impl Probe {
    pub fn build(_cx: &BuildContext) -> Result<Option<Probe>, BuildError> {
        Ok(None)
    }
}

impl RouterMechanism for Probe {
    fn hooks(&self) -> Hooks {
        self.hooks
    }

    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Passage {
        self.calls.push(Call::Arrival { node, kind: pkt.kind, seq: pkt.seq.0 });
        if let Some((at, t)) = self.timer.take() {
            cx.set_timer(at, t);
        }
        if self.discard_at == Some(node) && pkt.kind == Kind::TcpData {
            Passage::Discard
        } else {
            Passage::Forward
        }
    }

    fn next_hop(&mut self, node: NodeId, pkt: &mut Packet, chosen: Option<LinkId>, _cx: &mut Cx) -> Option<LinkId> {
        self.calls.push(Call::NextHop { node, chosen });
        match self.reroute {
            Some((n, l)) if n == node && pkt.kind == Kind::TcpData => Some(l),
            _ => chosen,
        }
    }

    fn on_verdict(&mut self, link: LinkId, _pkt: &Packet, verdict: Verdict, action: Action, _cx: &mut Cx) -> Action {
        self.calls.push(Call::Verdict { link, verdict, action });
        if self.drop_on == Some(link) && action == Action::Enqueue {
            Action::Drop
        } else {
            action
        }
    }

    fn on_queue_drop(&mut self, link: LinkId, _pkt: &Packet, cx: &mut Cx) {
        self.calls.push(Call::QueueDrop { link });
        if let Some((from, pkt)) = self.answer_drops {
            cx.send(from, pkt);
        }
    }

    fn claims_loss(&mut self, pkt: &Packet) -> bool {
        self.calls.push(Call::Loss { kind: pkt.kind });
        self.claim_udp && pkt.kind == Kind::Udp
    }

    fn on_link_change(&mut self, link: LinkId, up: bool, _cx: &mut Cx) {
        self.calls.push(Call::LinkChange { link, up });
    }

    fn on_timer(&mut self, timer: Timer, cx: &mut Cx) {
        if self.loop_timers {
            cx.set_timer(cx.now, timer);
            return;
        }
        self.calls.push(Call::Timer { at: cx.now, timer });
    }
}

/// A UDP datagram from `from` to `to`, for the probe to send.
pub fn datagram(from: NodeId, to: NodeId) -> Packet {
    Packet::udp(&Endpoints { flow: u32::MAX, sender: from, receiver: to, sport: 9, dport: 9 }, 100, 64, SimTime::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Simulation;
    use crate::router::Mechanism;
    use crate::sim::Dur;

    /// H1 - R1 - R2 - H2, and a second way R1 - R3 - R2 (one more hop, unused by routing).
    /// One TCP flow H1 -> H2 with a window of 4 segments, 1 s.
    const NET: &str = r#"
        duration = "1s"
        hosts = ["H1", "H2"]
        routers = ["R1", "R2", "R3"]
        [[links]]
        between = ["H1", "R1"]
        rate = "10Mbps"
        delay = "1ms"
        [[links]]
        between = ["R1", "R2"]
        rate = "10Mbps"
        delay = "1ms"
        [[links]]
        between = ["R2", "H2"]
        rate = "10Mbps"
        delay = "1ms"
        [[links]]
        between = ["R1", "R3"]
        rate = "10Mbps"
        delay = "1ms"
        [[links]]
        between = ["R3", "R2"]
        rate = "10Mbps"
        delay = "1ms"
        [[flows]]
        name = "f"
        from = "H1"
        to = "H2"
        tcp = { rwnd = 4000, mss = 1000 }
        [[failures]]
        link = "R3->R2"
        down = "0.5s"
        duration = "0.1s"
    "#;

    fn sim_with(probe: Probe) -> Simulation {
        let mut sim = crate::scenario::load(NET, "net", &[], None).expect("valid scenario");
        sim.add_mechanism(Mechanism::Probe(probe));
        sim
    }

    fn probe(sim: &Simulation) -> &Probe {
        sim.mechanism::<Probe>().expect("the probe")
    }

    fn link(sim: &Simulation, name: &str) -> LinkId {
        sim.net.links.iter().position(|l| l.name == name).unwrap() as LinkId
    }

    fn node(sim: &Simulation, name: &str) -> NodeId {
        sim.net.node_id(name).unwrap()
    }

    #[test]
    fn only_the_hooks_asked_for_are_called() {
        let mut sim = sim_with(Probe { hooks: Hooks::LINK_CHANGE, ..Probe::default() });
        sim.run();
        let (r3r2, calls) = (link(&sim, "R3->R2"), &probe(&sim).calls);
        assert_eq!(calls, &vec![Call::LinkChange { link: r3r2, up: false }, Call::LinkChange { link: r3r2, up: true }]);
    }

    #[test]
    fn arrival_sees_every_packet_a_router_forwards_and_a_discard_is_a_drop_of_its_flow() {
        let mut sim = sim_with(Probe { hooks: Hooks::ARRIVAL, ..Probe::default() });
        sim.run();
        let forwarded: u64 = sim.net.nodes.iter().map(|n| n.stats.forwarded).sum();
        assert!(forwarded > 100);
        assert_eq!(probe(&sim).calls.len() as u64, forwarded);
        let (r1, r2) = (node(&sim, "R1"), node(&sim, "R2"));
        assert!(probe(&sim).calls.iter().all(|c| matches!(c, Call::Arrival { node, .. } if *node == r1 || *node == r2)));

        let mut sim = sim_with(Probe { hooks: Hooks::ARRIVAL, discard_at: Some(r2), ..Probe::default() });
        sim.run();
        let f = &sim.flows[0];
        assert_eq!(f.receiver().unwrap().stats.packets_received, 0, "R2 discards every data packet");
        let (in_flight, _) = sim.packets_in_network(0);
        assert_eq!(f.net.forward_dropped + in_flight, f.sender().unwrap().stats.packets_sent);
        assert_eq!(sim.net.nodes[r2 as usize].stats.forwarded, 0);
    }

    #[test]
    fn next_hop_chooses_the_link() {
        let mut sim = sim_with(Probe::default());
        let (r1, r1r3, r1r2) = (node(&sim, "R1"), link(&sim, "R1->R3"), link(&sim, "R1->R2"));
        sim.add_mechanism(Mechanism::Probe(Probe { hooks: Hooks::NEXT_HOP, reroute: Some((r1, r1r3)), ..Probe::default() }));
        sim.run_until(SimTime::ZERO + Dur::from_millis(400));
        assert!(sim.net.links[r1r3 as usize].stats.tx_packets > 50, "data goes the long way");
        assert_eq!(sim.net.links[r1r2 as usize].stats.tx_packets, 0);
        assert!(sim.flows[0].receiver().unwrap().stats.delivered_bytes > 50_000);
        let calls = &sim.mechanisms[1];
        let Mechanism::Probe(p) = calls else { panic!() };
        assert!(p.calls.contains(&Call::NextHop { node: r1, chosen: Some(r1r2) }), "it sees the table's choice");
    }

    #[test]
    fn verdict_action_is_committed_and_a_queue_drop_can_answer_with_a_packet() {
        let sim = sim_with(Probe::default());
        let (r1r2, r1, h1) = (link(&sim, "R1->R2"), node(&sim, "R1"), node(&sim, "H1"));
        let probe = Probe {
            hooks: Hooks::VERDICT | Hooks::QUEUE_DROP | Hooks::LOSS,
            drop_on: Some(r1r2),
            answer_drops: Some((r1, datagram(r1, h1))),
            claim_udp: true,
            ..Probe::default()
        };
        let mut sim = sim_with(probe);
        sim.run();
        let q = &sim.net.links[r1r2 as usize].queue.stats;
        assert!(q.drops_overflow > 0 && q.departures == 0, "every packet on R1->R2 dropped: {q:?}");
        let p = probe_of(&sim);
        let drops = p.calls.iter().filter(|c| matches!(c, Call::QueueDrop { link } if *link == r1r2)).count() as u64;
        assert_eq!(drops, q.drops_overflow);
        // Each drop sent a datagram to H1; it arrived there (H1 has no UDP flow of that index).
        let to_h1 = link(&sim, "R1->H1");
        assert!(sim.net.links[to_h1 as usize].stats.tx_packets >= drops);
        // Losses are reported to the loss hook, and the data packets are charged to the flow.
        assert!(p.calls.contains(&Call::Loss { kind: Kind::TcpData }));
        assert_eq!(sim.flows[0].net.forward_dropped, q.drops_overflow);
    }

    fn probe_of(sim: &Simulation) -> &Probe {
        probe(sim)
    }

    #[test]
    fn timers_fire_at_their_time_with_their_payload() {
        let t = Timer { kind: 7, a: 11, b: 13 };
        let at = SimTime::ZERO + Dur::from_millis(321);
        let mut sim = sim_with(Probe { hooks: Hooks::ARRIVAL, timer: Some((at, t)), ..Probe::default() });
        sim.run();
        let fired: Vec<_> = probe(&sim).calls.iter().filter(|c| matches!(c, Call::Timer { .. })).cloned().collect();
        assert_eq!(fired, vec![Call::Timer { at, timer: t }]);
    }

    #[test]
    fn the_watchdog_stops_a_loop_in_which_time_stands_still() {
        let t = Timer { kind: 1, a: 0, b: 0 };
        let at = SimTime::ZERO + Dur::from_millis(321);
        let mut sim = sim_with(Probe { hooks: Hooks::ARRIVAL, timer: Some((at, t)), loop_timers: true, ..Probe::default() });
        let started = std::time::Instant::now();
        sim.run();
        let stall = sim.stalled.clone().expect("stopped by the watchdog");
        assert!(started.elapsed().as_secs() < 30);
        assert_eq!(stall.at, at);
        assert!(stall.events > crate::engine::WATCHDOG_EVENTS, "{stall:?}");
        assert_eq!(
            stall.message(),
            format!(
                "simulated time stopped advancing at 0.321000000 s: {} events at that instant, the last a timer of router mechanism Probe; the run was stopped",
                stall.events
            )
        );
        assert!(!sim.is_finished());
        let events = sim.events_processed;
        sim.run();
        assert_eq!(sim.events_processed, events, "a stalled run does not go on");
    }

    #[test]
    fn mechanisms_are_called_in_the_order_they_were_added() {
        let mut sim = sim_with(Probe { hooks: Hooks::ARRIVAL, ..Probe::default() });
        let r2 = node(&sim, "R2");
        sim.add_mechanism(Mechanism::Probe(Probe { hooks: Hooks::ARRIVAL, discard_at: Some(r2), ..Probe::default() }));
        sim.add_mechanism(Mechanism::Probe(Probe { hooks: Hooks::ARRIVAL, ..Probe::default() }));
        sim.run_until(SimTime::ZERO + Dur::from_millis(100));
        let n = |i: usize| match &sim.mechanisms[i] {
            Mechanism::Probe(p) => p.calls.iter().filter(|c| matches!(c, Call::Arrival { node, kind: Kind::TcpData, .. } if *node == r2)).count(),
            _ => unreachable!(),
        };
        assert!(n(0) > 0, "the first sees the packets the second discards");
        assert_eq!(n(0), n(1));
        assert_eq!(n(2), 0, "a discard stops the packet before later mechanisms");
    }
}
