//! The walk-through of `docs/architecture.md` ("Adding an algorithm"), run: its congestion
//! control (`tcp/cc/aimd.rs`) and its queue discipline (`queue/random_drop.rs`), each one file
//! and one registration line (`#[cfg(test)]`, so that only the tests build them), chosen from
//! a scenario like any other. The docs' blocks are checked against those files by the docs
//! tests (`excerpt` directives).

use crate::report::Report;

const SCENARIO: &str = r#"
duration = "10s"
warmup = "2s"
hosts = ["S", "D"]
routers = ["R1", "R2"]

[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "20ms"
queue = { discipline = "random_drop", p = 0.01, limit = 100 }

[[links]]
between = ["R2", "D"]
rate = "100Mbps"
delay = "1ms"

[[flows]]
from = "S"
to = "D"
count = 2
tcp = { variant = "aimd", aimd = { a = 1.0, b = 0.5 } }
"#;

fn run(sets: &[&str]) -> Report {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut sim = crate::scenario::load(SCENARIO, "walkthrough.toml", &sets, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    Report::new(&mut sim)
}

#[test]
fn the_walkthroughs_controller_and_discipline_run_from_a_scenario() {
    let base = run(&[]);
    let bottleneck = |r: &Report| r.queues.iter().find(|q| q.link == "R1->R2").map(|q| (q.drops_early, q.drops_overflow)).unwrap();
    assert!(base.totals.goodput_bps > 5e6, "two AIMD flows fill much of 10 Mb/s: {}", base.totals.goodput_bps);
    assert!(bottleneck(&base).0 > 0, "random drop signals");
    // Their keys reach them.
    assert_eq!(bottleneck(&run(&["links.1.queue.p=0"])).0, 0, "p = 0 never signals");
    let gentler = run(&["flows.0.tcp.aimd.b=0.9"]);
    assert_ne!(gentler.flows[0].goodput_bps, base.flows[0].goodput_bps, "b changes the flow");
    let e = crate::scenario::load(SCENARIO, "walkthrough.toml", &["flows.0.tcp.aimd.b=1".to_string()], None).map(|_| ()).unwrap_err();
    assert_eq!(e.to_string(), "walkthrough.toml: flows[0].tcp.aimd.b: must be between 0 and 1 (exclusive), got 1");
}
