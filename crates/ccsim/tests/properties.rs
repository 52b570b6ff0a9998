//! Property tests of whole runs on random small topologies: packet conservation per flow and
//! per queue (sent = delivered + dropped + in flight), and determinism (the same scenario
//! and seed give the same report, byte for byte, whether or not the run warms the caches
//! ahead of its events).

use ccsim::engine::Simulation;
use ccsim::report::Report;
use proptest::prelude::*;

/// A random network: routers in a chain (plus a chord), hosts on random routers, flows
/// between random hosts, TCP and UDP, with random rates, delays, losses and queues.
fn scenarios() -> impl Strategy<Value = String> {
    let link = (0usize..3, 0usize..3, 0usize..2, 0usize..4);
    let flow = (0usize..4, 1usize..4, any::<bool>(), 1u32..3, 0usize..3, any::<bool>(), any::<bool>());
    (2usize..5, 1usize..5, proptest::collection::vec(link, 8), proptest::collection::vec(flow, 1..4), 0usize..4, any::<u64>(), 1u32..4).prop_map(
        |(hosts, routers, links, flows, chord, seed, seconds)| {
            let rate = ["1Mbps", "10Mbps", "100Mbps"];
            let delay = ["0", "1ms", "5ms"];
            let queue = [
                "{ limit = 5 }",
                "{ limit = 50 }",
                "{ discipline = \"red\", min_th = 2, max_th = 8, limit = 20 }",
                "{ discipline = \"red\", min_th = 2, max_th = 8, limit = 20, signal = \"ecn\", gentle = true }",
            ];
            let mut t = format!("duration = \"{seconds}s\"\nseed = \"{seed}\"\nhosts = [\"H{{0..{}}}\"]\nrouters = [\"R{{0..{}}}\"]\n", hosts - 1, routers - 1);
            let mut add = |a: String, b: String, (r, d, l, q): (usize, usize, usize, usize)| {
                let loss = if l == 1 { 0.01 } else { 0.0 };
                t += &format!(
                    "[[links]]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{}\"\ndelay = \"{}\"\nloss = {loss}\nqueue = {}\n",
                    rate[r], delay[d], queue[q]
                );
            };
            let mut k = 0;
            for h in 0..hosts {
                add(format!("H{h}"), format!("R{}", (h * 7 + chord) % routers), links[k % 8]);
                k += 1;
            }
            for r in 1..routers {
                add(format!("R{}", r - 1), format!("R{r}"), links[k % 8]);
                k += 1;
            }
            if routers > 2 && chord > 0 {
                add("R0".into(), format!("R{}", routers - 1), links[k % 8]);
            }
            for (i, &(a, b, udp, count, app, delack, ecn)) in flows.iter().enumerate() {
                let (a, b) = (a % hosts, (a + b) % hosts);
                if a == b {
                    continue;
                }
                t += &format!("[[flows]]\nname = \"g{i}\"\nfrom = \"H{a}\"\nto = \"H{b}\"\ncount = {count}\nstart = {{ uniform = [\"0s\", \"0.5s\"] }}\n");
                if udp {
                    let app = ["cbr", "poisson", "onoff"][app];
                    t += &format!("transport = \"udp\"\napp = \"{app}\"\nudp = {{ rate = \"2Mbps\", packet_size = 500");
                    if app == "onoff" {
                        t += ", on = { exponential = \"50ms\" }, off = \"20ms\"";
                    }
                    t += " }\n";
                } else {
                    let variant = ["reno", "newreno", "newreno"][app];
                    t += &format!("tcp = {{ variant = \"{variant}\", delayed_ack = {delack}, ecn = {ecn}, isn = 4294960000 }}\n");
                    if app == 2 {
                        t += "jitter = \"1ms\"\n";
                    }
                }
            }
            t
        },
    )
}

fn run(text: &str) -> (Simulation, String) {
    run_warming(text, None)
}

/// Runs `text`, warming ahead as the simulation decides (`None`) or as forced.
fn run_warming(text: &str, warm_ahead: Option<bool>) -> (Simulation, String) {
    let mut sim = ccsim::scenario::load(text, "random.toml", &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    if let Some(on) = warm_ahead {
        sim.set_warm_ahead(on);
    }
    sim.run();
    let json = Report::new(&mut sim).to_json();
    (sim, json)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn packets_are_conserved_and_runs_are_deterministic(text in scenarios()) {
        let (sim, json) = run(&text);
        prop_assert!(sim.is_finished() && sim.stalled.is_none());
        for (i, f) in sim.flows.iter().enumerate() {
            let (fwd, rev) = sim.packets_in_network(i as u32);
            if let (Some(tx), Some(rx)) = (f.sender(), f.receiver()) {
                prop_assert_eq!(tx.stats.packets_sent, rx.stats.packets_received + f.net.forward_dropped + fwd, "data of {}\n{}", f.name(), text);
                prop_assert_eq!(rx.stats.acks_sent, tx.stats.acks_received + f.net.reverse_dropped + rev, "ACKs of {}\n{}", f.name(), text);
            } else if let ccsim::engine::Transport::Udp(src) = &f.transport {
                prop_assert_eq!(src.stats.packets_sent, src.stats.packets_received + f.net.forward_dropped + fwd, "datagrams of {}\n{}", f.name(), text);
            }
        }
        for l in &sim.net.links {
            let s = &l.queue.stats;
            prop_assert_eq!(s.arrivals, s.departures + s.drops() + l.queue.len() as u64, "queue {}", l.name);
        }
        let (sim, again) = run_warming(&text, Some(!sim.warms_ahead()));
        prop_assert!(json == again, "two runs of one scenario and seed differ (warming ahead {})\n{}", sim.warms_ahead(), text);
    }
}
