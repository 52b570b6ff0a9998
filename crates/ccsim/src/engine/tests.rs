//! The engine's own rules, on small networks: packets follow their routes and reach the end
//! they are for, routers drop what has no route or no TTL left, hook effects are applied
//! after the hooks in order, runs stop where they are told to, and the warm-up's snapshot
//! is the state at its end.

use super::*;
use crate::net::{NodeId, Packet};
use crate::packet::{Endpoints, Seq};
use crate::router::probe::{datagram, Call, Probe};
use crate::router::Hooks;
use crate::sim::Dur;

/// A scenario of one second (and the top-level keys `more`) with these hosts and routers,
/// a link of 10 Mb/s and 1 ms each way between each pair, and these `[[flows]]` tables
/// (name, from, to, the rest of the table).
fn scenario(more: &str, nodes: (&str, &str), pairs: &[(&str, &str)], flows: &[(&str, &str, &str, &str)]) -> String {
    let mut s = format!("duration = 1\n{more}\nhosts = [{}]\nrouters = [{}]\n", nodes.0, nodes.1);
    for (a, b) in pairs {
        s += &format!("[[links]]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n");
    }
    for (name, from, to, rest) in flows {
        s += &format!("[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\n{rest}\n");
    }
    s
}

/// H1 - R1 - R2 - H2, a second way R1 - R3 - R2 (one hop longer, unused by routing), and
/// H3 on no link. One UDP flow H1 -> H2 that starts after the instants the tests look at,
/// so that the packets in the network are the tests' own.
fn net() -> String {
    let pairs = [("H1", "R1"), ("R1", "R2"), ("R2", "H2"), ("R1", "R3"), ("R3", "R2")];
    let udp = "transport = \"udp\"\nstart = \"0.9s\"\nudp = { rate = \"1Mbps\" }";
    scenario("", (r#""H1", "H2", "H3""#, r#""R1", "R2", "R3""#), &pairs, &[("u", "H1", "H2", udp)])
}

/// Two TCP flows between the same hosts, one each way, over H1 - R - H2 (and `more`).
fn two_ways(more: &str) -> String {
    let tcp = "tcp = { rwnd = 8000 }";
    scenario(more, (r#""H1", "H2""#, r#""R""#), &[("H1", "R"), ("R", "H2")], &[("east", "H1", "H2", tcp), ("west", "H2", "H1", tcp)])
}

fn load(text: &str) -> Simulation {
    crate::scenario::load(text, "net", &[], None).expect("valid scenario")
}

fn node(sim: &Simulation, name: &str) -> NodeId {
    sim.net.node_id(name).unwrap()
}

fn link(sim: &Simulation, name: &str) -> LinkId {
    sim.net.links.iter().position(|l| l.name == name).unwrap() as LinkId
}

fn tx_packets(sim: &Simulation, name: &str) -> u64 {
    sim.net.links[link(sim, name) as usize].stats.tx_packets
}

fn ms(t: u64) -> SimTime {
    SimTime::ZERO + Dur::from_millis(t)
}

/// The network of [`net`], `prepare`d, 100 ms after H1 handed it a datagram of flow 0 (the
/// UDP flow) for `to` with `ttl`.
fn after_one_packet(to: &str, ttl: u8, prepare: impl FnOnce(&mut Simulation, &mut Packet)) -> Simulation {
    let mut sim = load(&net());
    let (h1, to) = (node(&sim, "H1"), node(&sim, to));
    let mut pkt = Packet::udp(&Endpoints { flow: 0, sender: h1, receiver: to, sport: 9, dport: 9 }, 100, ttl, SimTime::ZERO);
    prepare(&mut sim, &mut pkt);
    sim.forward(h1, &mut pkt);
    sim.run_until(ms(100));
    sim
}

fn node_stats(sim: &Simulation, name: &str) -> crate::net::NodeStats {
    sim.net.nodes[node(sim, name) as usize].stats
}

fn udp_received(sim: &Simulation) -> u64 {
    sim.flows[0].transport.stats().2.packets_received
}

#[test]
fn a_packet_follows_its_route_to_the_end_it_is_for() {
    let sim = after_one_packet("H2", 64, |_, _| {});
    for (name, sent) in [("H1->R1", 1), ("R1->R2", 1), ("R2->H2", 1), ("R1->R3", 0), ("R3->R2", 0), ("R2->R1", 0)] {
        assert_eq!(tx_packets(&sim, name), sent, "{name}");
    }
    let forwarded = |n: &str| node_stats(&sim, n).forwarded;
    assert_eq!((forwarded("R1"), forwarded("R2"), forwarded("R3")), (1, 1, 0));
    assert_eq!(udp_received(&sim), 1, "the flow's end at H2 took it");
    assert_eq!(sim.packets_in_network(0), (0, 0));
}

#[test]
fn routers_drop_a_packet_whose_ttl_runs_out_and_charge_its_flow() {
    // R1 and R2 each take one from the TTL: 2 expires at R2, 3 arrives with 1 left.
    let sim = after_one_packet("H2", 2, |_, _| {});
    assert_eq!(node_stats(&sim, "R2").ttl_expired, 1);
    assert_eq!((tx_packets(&sim, "R2->H2"), udp_received(&sim)), (0, 0));
    assert_eq!(sim.flows[0].net.forward_dropped, 1);
    let sim = after_one_packet("H2", 3, |_, _| {});
    assert_eq!((udp_received(&sim), sim.flows[0].net.forward_dropped), (1, 0));
}

#[test]
fn a_packet_without_a_route_is_dropped_where_it_is() {
    // H3 is on no link: the first node has no route to it.
    let sim = after_one_packet("H3", 64, |_, _| {});
    assert_eq!(node_stats(&sim, "H1").no_route, 1);
    assert_eq!((tx_packets(&sim, "H1->R1"), sim.flows[0].net.forward_dropped), (0, 1));
}

#[test]
fn a_host_forwards_nothing_that_is_not_for_it() {
    // A mechanism at R1 sends the packet back to H1, which is not its destination.
    let sim = after_one_packet("H2", 64, |sim, pkt| {
        let (r1, r1h1) = (node(sim, "R1"), link(sim, "R1->H1"));
        sim.add_mechanism(Mechanism::Probe(Probe { hooks: Hooks::NEXT_HOP, reroute: Some((r1, r1h1)), ..Probe::default() }));
        pkt.kind = crate::packet::Kind::TcpData; // what the probe reroutes
    });
    assert_eq!(tx_packets(&sim, "R1->H1"), 1);
    assert_eq!(node_stats(&sim, "H1").no_route, 1);
    assert_eq!((tx_packets(&sim, "H1->R1"), tx_packets(&sim, "R1->R2")), (1, 0), "H1 did not send it out again");
    assert_eq!(sim.flows[0].net.forward_dropped, 1);
}

#[test]
fn a_packet_reaches_the_end_of_its_own_flow_and_a_stopped_sender_takes_none() {
    let mut sim = load(&two_ways(""));
    let totals =
        |sim: &Simulation| sim.flows.iter().map(|f| f.transport.stats()).map(|(tx, rx, _)| (tx.acks_received, rx.packets_received)).collect::<Vec<_>>();
    sim.run_until(SimTime::ZERO); // both flows started
    let (east, west) = (sim.flows[0].sender().unwrap().ends, sim.flows[1].sender().unwrap().ends);
    assert_eq!(east.receiver, west.sender, "east's receiver and west's sender are both at H2");

    // Data of west at H1 goes to west's receiver, not to east's sender, which is there too.
    sim.deliver(&Packet::tcp_data(&west, Seq(0), 1000, 64, sim.now));
    assert_eq!(totals(&sim), [(0, 0), (0, 1)]);
    // An acknowledgement of east at H1 goes to east's sender.
    sim.deliver(&Packet::tcp_ack(&east, Seq(0), 8000, 64, sim.now));
    assert_eq!(totals(&sim), [(1, 0), (0, 1)]);
    // A datagram is nothing a TCP flow takes; a packet of no flow is absorbed.
    sim.deliver(&Packet::udp(&east, 100, 64, sim.now));
    sim.deliver(&Packet::udp(&Endpoints { flow: 99, ..east }, 100, 64, sim.now));
    assert_eq!(totals(&sim), [(1, 0), (0, 1)]);

    // A stopped flow's sender takes no acknowledgement; its receiver still takes data.
    sim.schedule_for_test(sim.now, Event::FlowStop(0));
    sim.run_until(sim.now);
    sim.deliver(&Packet::tcp_ack(&east, Seq(0), 8000, 64, sim.now));
    sim.deliver(&Packet::tcp_data(&east, Seq(0), 1000, 64, sim.now));
    assert_eq!(totals(&sim), [(1, 1), (0, 1)]);
}

#[test]
fn both_flows_of_a_host_pair_deliver_their_data() {
    let mut sim = load(&two_ways(""));
    sim.run();
    for f in &sim.flows {
        let (tx, rx, _) = f.transport.stats();
        assert!(rx.delivered_bytes > 100_000, "{}: {rx:?}", f.name());
        assert!(tx.acks_received > 50, "{}: {tx:?}", f.name());
        assert_eq!(f.transport.delivered_bytes(), rx.delivered_bytes);
    }
}

#[test]
fn hook_effects_are_applied_after_the_hooks_in_the_order_asked() {
    // R1 -> R2 drops every packet. Both mechanisms answer a queue drop with a datagram, the
    // first from R2, the second from R3; both watch next hops.
    let sim = after_one_packet("H2", 64, |sim, _| {
        let (r1r2, r2, r3, h1) = (link(sim, "R1->R2"), node(sim, "R2"), node(sim, "R3"), node(sim, "H1"));
        let hooks = Hooks::NEXT_HOP | Hooks::QUEUE_DROP;
        let first = Probe { hooks: hooks | Hooks::VERDICT, drop_on: Some(r1r2), answer_drops: Some((r2, datagram(r2, h1))), ..Probe::default() };
        sim.add_mechanism(Mechanism::Probe(first));
        sim.add_mechanism(Mechanism::Probe(Probe { hooks, answer_drops: Some((r3, datagram(r3, h1))), ..Probe::default() }));
    });
    let r1r2 = link(&sim, "R1->R2");

    let calls = |i: usize| match &sim.mechanisms[i] {
        Mechanism::Probe(p) => p.calls.iter().filter(|c| !matches!(c, Call::Verdict { .. })).cloned().collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    let hop = |n: &str, to: &str| Call::NextHop { node: node(&sim, n), chosen: Some(link(&sim, to)) };
    // Both mechanisms see the drop before either datagram is sent (each sees its own drop
    // call before any next hop of the answers), and the answers go in the order asked.
    let expected = vec![
        hop("H1", "H1->R1"),
        hop("R1", "R1->R2"),
        Call::QueueDrop { link: r1r2 },
        hop("R2", "R2->R1"),
        hop("R3", "R3->R1"),
        hop("R1", "R1->H1"),
        hop("R1", "R1->H1"),
    ];
    assert_eq!(calls(0), expected);
    assert_eq!(calls(1), expected);
    assert_eq!(tx_packets(&sim, "R1->H1"), 2, "both answers arrived");
    assert!(sim.effects.emits.is_empty() && sim.effects.timers.is_empty(), "the effects buffer is left empty");
}

#[test]
fn a_mechanisms_timer_fires_after_the_hook_that_set_it() {
    // Set in the first arrival at a router; fires at its time, once.
    let t = crate::router::Timer { kind: 3, a: 5, b: 8 };
    let sim = after_one_packet("H2", 64, |sim, _| {
        sim.add_mechanism(Mechanism::Probe(Probe { hooks: Hooks::ARRIVAL, timer: Some((ms(50), t)), ..Probe::default() }));
    });
    let Mechanism::Probe(p) = &sim.mechanisms[0] else { unreachable!() };
    let (r1, r2) = (node(&sim, "R1"), node(&sim, "R2"));
    let kind = crate::packet::Kind::Udp;
    assert_eq!(p.calls, [Call::Arrival { node: r1, kind, seq: 0 }, Call::Arrival { node: r2, kind, seq: 0 }, Call::Timer { at: ms(50), timer: t }]);
}

#[test]
fn run_until_stops_at_its_time_and_a_run_in_pieces_is_the_same_run() {
    let whole = {
        let mut sim = load(&two_ways(""));
        sim.run();
        sim
    };
    let mut sim = load(&two_ways(""));
    sim.run_until(ms(300));
    assert_eq!(sim.now, ms(300));
    assert!(!sim.is_finished());
    assert!(sim.events_processed > 0 && sim.events_processed < whole.events_processed);
    sim.run_until(ms(5000));
    assert_eq!(sim.now, sim.stop_at, "no further than the stop time");
    assert!(sim.is_finished());
    assert_eq!(sim.events_processed, whole.events_processed);
    assert_eq!(format!("{:?}", sim.snapshot()), format!("{:?}", load_and_run(&two_ways("")).snapshot()));
}

fn load_and_run(text: &str) -> Simulation {
    let mut sim = load(text);
    sim.run();
    sim
}

#[test]
fn run_until_at_most_stops_at_its_event_budget() {
    let whole = load_and_run(&two_ways(""));
    let mut sim = load(&two_ways(""));
    assert!(!sim.run_until_at_most(sim.stop_at, 100), "the budget ran out first");
    assert_eq!(sim.events_processed, 100);
    assert!(!sim.is_finished());
    let mut slices = 1;
    while !sim.run_until_at_most(sim.stop_at, 1000) {
        slices += 1;
    }
    assert!(slices > 2 && sim.is_finished());
    assert_eq!(sim.events_processed, whole.events_processed);
    assert_eq!(sim.flows[0].transport.delivered_bytes(), whole.flows[0].transport.delivered_bytes());
}

#[test]
fn the_watchdog_counts_events_at_one_instant_only() {
    // Events at one instant up to the limit run; one more stops the run there.
    let mut sim = load(&net());
    sim.set_watchdog_limit(1000);
    for i in 0..999 {
        sim.schedule_for_test(ms(5 + i % 2), Event::FlowStop(0));
    }
    sim.run();
    assert!(sim.stalled.is_none() && sim.is_finished());

    let mut sim = load(&net());
    sim.set_watchdog_limit(1000);
    for _ in 0..2000 {
        sim.schedule_for_test(ms(5), Event::FlowStop(0));
    }
    sim.run();
    let stall = sim.stalled.clone().expect("stopped by the watchdog");
    assert_eq!((stall.at, stall.events, stall.path.as_str()), (ms(5), 1001, "flows[0]"));
    assert!(stall.message().contains("the last the stop of flow u[0]"), "{}", stall.message());
    assert_eq!(sim.now, ms(5));
}

#[test]
fn the_warmup_snapshot_is_the_state_at_its_end_and_changes_nothing() {
    // The warm-up ends between events (an odd instant), so a run stopped there sees it too.
    let warm = two_ways("warmup = \"0.2000005s\"");
    let at = SimTime::ZERO + Dur::from_nanos(200_000_500);
    let with = load_and_run(&warm);
    assert_eq!(with.baseline.at, at);
    let mut without = load(&two_ways(""));
    assert_eq!(without.baseline.at, SimTime::ZERO);
    without.run_until(at);
    let then = without.snapshot();
    assert_eq!(format!("{:?}", with.baseline), format!("{then:?}"));
    assert!(with.baseline.senders[0].packets_sent > 0);
    without.run();
    assert_eq!(with.events_processed, without.events_processed + 1, "the warm-up's end is one event more");
    assert_eq!(format!("{:?}", with.flows[0].transport.stats()), format!("{:?}", without.flows[0].transport.stats()));
}

/// A paced sender leaves at its pacing rate whatever its window: the bottleneck (100 Mb/s)
/// carries what the pacing rate allows (1.04 MB/s of 1040-byte packets: 8 Mb/s of payload)
/// and its queue stays empty; unpaced, the same window fills the bottleneck's buffer.
#[test]
fn a_paced_sender_is_held_to_its_rate_by_the_run_loop() {
    let text = |pacing: &str| {
        format!(
            r#"
duration = "5s"
warmup = "1s"
hosts = ["S", "D"]
routers = ["R1", "R2"]
[[links]]
between = ["S", "R1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "100Mbps"
delay = "10ms"
queue = {{ limit = 1000 }}
[[links]]
between = ["R2", "D"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
from = "S"
to = "D"
tcp = {{ variant = "probe", rwnd = 1000000 {pacing} }}
"#
        )
    };
    let run = |t: String| {
        let mut sim = load(&t);
        sim.run();
        crate::report::Report::new(&mut sim)
    };
    let paced = run(text(", probe = { pacing = 1040000.0 }"));
    let goodput = paced.flows[0].goodput_bps;
    assert!((goodput / 8e6 - 1.0).abs() < 0.01, "paced at 8 Mb/s of payload: {goodput}");
    let queue = |r: &crate::report::Report| r.queues.iter().find(|q| q.link == "R1->R2").unwrap().mean_len_packets;
    assert!(queue(&paced) < 0.05, "paced below the bottleneck's rate, nothing waits: {}", queue(&paced));
    let unpaced = run(text(""));
    assert!(unpaced.flows[0].goodput_bps > 5.0 * goodput, "unpaced, the window fills the link: {}", unpaced.flows[0].goodput_bps);
}
