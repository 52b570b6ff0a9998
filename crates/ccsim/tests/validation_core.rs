//! End-to-end validation of the core against independent references: packet conservation,
//! the Mathis et al. throughput model, utilisation and fairness on a dumbbell, determinism.

mod common;
use common::*;

#[test]
fn dumbbell_is_fully_used_and_fair() {
    let mut text = scenario_file("dumbbell.toml");
    text = text.replace("duration = \"30s\"", "duration = \"65s\"");
    let (_, r) = run(&text);
    let q = r.links.iter().find(|l| l.link == "R1->R2").unwrap();
    assert!(q.utilisation > 0.95, "bottleneck utilisation {}", q.utilisation);
    assert!(r.totals.jain_fairness > 0.9, "Jain's index {}", r.totals.jain_fairness);
    assert!((r.measured_s - 60.0).abs() < 1e-9);
}

#[test]
fn packets_are_conserved_per_flow_and_per_queue() {
    let text = scenario_file("dumbbell.toml").replace("warmup = \"5s\"", "warmup = 0").replace("duration = \"30s\"", "duration = \"7.3s\"");
    let (sim, _) = run(&text);
    for (i, f) in sim.flows.iter().enumerate() {
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        let (fwd_in_net, rev_in_net) = sim.packets_in_network(i as u32);
        assert_eq!(tx.stats.packets_sent, rx.stats.packets_received + f.net.forward_dropped + fwd_in_net, "data packets of {}", f.name());
        assert_eq!(rx.stats.acks_sent, tx.stats.acks_received + f.net.reverse_dropped + rev_in_net, "ACKs of {}", f.name());
    }
    for l in &sim.net.links {
        let s = &l.queue.stats;
        assert_eq!(s.arrivals, s.departures + s.drops() + l.queue.len() as u64, "queue {}", l.name);
    }
    assert!(sim.net.links.iter().any(|l| l.queue.stats.drops() > 0), "the test must exercise drops");
}

/// One Reno flow over a link with random loss p. Mathis et al. (1997):
/// throughput = MSS/RTT * C/sqrt(p) with C = sqrt(3/2) for ACKs of every segment. The model
/// assumes loss recovery by fast retransmit and no timeouts; at these loss rates that holds
/// for most loss events, so the simulated throughput must be within 25%.
fn mathis(p: f64, seconds: u32) -> (f64, f64) {
    let text = format!(
        r#"
duration = "{seconds}s"
warmup = "10s"
hosts = ["S", "D"]
routers = ["R"]
[[links]]
between = ["S", "R"]
rate = "1Gbps"
delay = "1ms"
queue = {{ limit = 10000 }}
[[links]]
from = "R"
to = "D"
rate = "1Gbps"
delay = "49ms"
loss = {p}
queue = {{ limit = 10000 }}
[[links]]
from = "D"
to = "R"
rate = "1Gbps"
delay = "49ms"
[[flows]]
from = "S"
to = "D"
tcp = {{ variant = "reno", mss = 1000, rwnd = 100000000 }}
"#
    );
    let (_, r) = run(&text);
    let f = &r.flows[0];
    let rtt = f.mean_rtt_ms / 1e3;
    let model = 1000.0 * 8.0 / rtt * (1.5f64 / p).sqrt();
    (f.goodput_bps, model)
}

#[test]
fn reno_matches_mathis_at_one_percent_loss() {
    let (sim, model) = mathis(0.01, 400);
    assert!((sim / model - 1.0).abs() < 0.25, "simulated {sim:.0} b/s, Mathis {model:.0} b/s");
}

#[test]
fn reno_matches_mathis_at_a_tenth_of_a_percent_loss() {
    let (sim, model) = mathis(0.001, 1000);
    assert!((sim / model - 1.0).abs() < 0.25, "simulated {sim:.0} b/s, Mathis {model:.0} b/s");
}

#[test]
fn same_seed_same_bytes() {
    let text = scenario_file("dumbbell.toml").replace("duration = \"30s\"", "duration = \"8s\"");
    let a = run(&text).1.to_json();
    let b = run(&text).1.to_json();
    assert_eq!(a, b);
    let mut other = ccsim::scenario::load(&text, "<test>", &[], Some(2)).unwrap();
    other.run();
    assert_ne!(a, ccsim::report::Report::new(&mut other).to_json(), "another seed changes the run");
}

/// Warming the caches ahead of the events (on by itself only for networks larger than the
/// caches) changes how fast a run goes, never what it computes: a busy dumbbell, where the
/// event queue's buckets hold enough events for every step of the warming to run, forced on
/// and off.
#[test]
fn warming_ahead_changes_nothing() {
    let text = common::dumbbell::dumbbell_toml_at(400, 3.0, 5, 0.0, 400);
    let run_warming = |on: bool| {
        let mut sim = load(&text);
        sim.set_warm_ahead(on);
        sim.run();
        ccsim::report::Report::new(&mut sim).to_json()
    };
    assert_eq!(run_warming(true), run_warming(false));
}
