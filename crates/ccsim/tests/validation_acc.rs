//! ACC/TCP end to end: where filters go and how they end, lost controls, one window cut per
//! congestion event, the RTT floor, packet conservation with filters, and scenario checks.

mod common;
use ccsim::engine::Simulation;
use ccsim::report::Report;
use ccsim::router::acc::{Acc, AccStats};
use ccsim::sim::{Dur, SimTime};
use ccsim::tcp::sender::ReductionCause;
use common::*;

/// Two Reno senders S1, S2 -> R0 -> R1 -> R2 -> D1, D2; R1 -> R2 (1.5 Mb/s) runs RED with
/// ACC, so filters go to R0, 20 ms upstream. `acc` is added to R1's queue options.
fn line(acc: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
hosts = ["S{{1..2}}", "D{{1..2}}"]
routers = ["R0", "R1", "R2"]
[[links]]
between = ["S{{1..2}}", "R0"]
rate = "10Mbps"
delay = "5ms"
[[links]]
between = ["R0", "R1"]
rate = "10Mbps"
delay = "20ms"
[[links]]
between = ["R1", "R2"]
rate = "1.5Mbps"
delay = "50ms"
queue = {{ discipline = "red", limit = 50, min_th = 5, max_th = 15, max_p = 0.1, acc = true {acc} }}
[[links]]
between = ["R2", "D{{1..2}}"]
rate = "10Mbps"
delay = "5ms"
[[flows]]
name = "bulk"
from = "S{{1..2}}"
to = "D{{1..2}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "reno", acc = true }}
"#
    )
}

fn router(sim: &Simulation, name: &str) -> AccStats {
    sim.mechanism::<Acc>().expect("ACC is on").stats[sim.net.node_id(name).unwrap() as usize]
}

#[test]
fn packets_are_conserved_with_filters_and_controls() {
    let text = scenario_file("acc_dumbbell.toml").replace("duration = \"200s\"", "duration = \"60.3s\"");
    let (sim, r) = run(&text);
    assert_conserved(&sim);
    let r1 = &r.acc.iter().find(|a| a.router == "R1").unwrap().counters;
    assert!(r1.controls_sent > 10 && r1.packets_filtered > 10, "ACC must act: {r1:?}");
    assert!(sim.flows.iter().any(|f| f.sender().is_none() && f.net.forward_dropped > 0), "cross traffic is dropped too");
    // The senders are attached to R1, so R1 filters their packets itself.
    assert_eq!(r1.filters_installed, r1.controls_sent);
    let (line_sim, _) = run(&line("", "20.3s"));
    assert_conserved(&line_sim);
}

#[test]
fn filters_sit_upstream_and_end_by_behaviour() {
    let (sim, r) = run(&line("", "60s"));
    let (r0, r1) = (router(&sim, "R0"), router(&sim, "R1"));
    assert!(r1.controls_sent > 10, "{r1:?}");
    assert_eq!((r1.filters_installed, r0.filters_installed), (0, r1.controls_sent), "filters at R0, before R1");
    assert!(r0.filters_removed_behaviour > r0.filters_installed * 3 / 4, "senders react to controls: {r0:?}");
    for f in &r.flows {
        assert!(f.acc_closes > f.endpoint_closes, "{}: ACC closes {} endpoint {}", f.flow, f.acc_closes, f.endpoint_closes);
    }
}

#[test]
fn filters_end_by_count_when_the_sender_does_not_react() {
    // Without controls reaching it the sender keeps sending at its old window, so the filter
    // runs to its count (or the sender's own loss detection shows in its packets).
    let (sim, _) = run(&lost_controls("", "60s"));
    let r0 = router(&sim, "R0");
    assert!(r0.filters_removed_count > 0, "{r0:?}");
    assert_eq!(
        r0.filters_installed,
        r0.filters_removed_count
            + r0.filters_removed_behaviour
            + r0.filters_removed_timeout
            + r0.filters_replaced
            + sim.mechanism::<Acc>().unwrap().filters_at(sim.net.node_id("R0").unwrap()) as u64
    );
}

#[test]
fn filters_time_out() {
    let (sim, _) = run(&line(", acc_filter_timeout = \"1ms\"", "30s"));
    let r0 = router(&sim, "R0");
    assert!(r0.filters_removed_timeout > r0.filters_installed / 2, "{r0:?}");
    assert!(r0.packets_filtered < r0.filters_installed, "a 1 ms filter removes at most a packet or so: {r0:?}");
    let (sim, _) = run(&line("", "30s"));
    assert!(router(&sim, "R0").filters_removed_timeout * 10 < router(&sim, "R0").filters_installed, "the default timeout rarely fires");
}

/// The `line` network, but ACKs from D return by R2 -> R3 -> S while ACC controls from R1
/// take R1 -> R0 -> S, and R1 -> R0 is down from the start: every control is lost and
/// nothing else is.
fn lost_controls(acc: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
hosts = ["S", "D"]
routers = ["R0", "R1", "R2", "R3"]
[[links]]
from = "S"
to = "R0"
rate = "10Mbps"
delay = "5ms"
[[links]]
from = "R0"
to = "R1"
rate = "10Mbps"
delay = "20ms"
[[links]]
from = "R1"
to = "R2"
rate = "1.5Mbps"
delay = "50ms"
queue = {{ discipline = "red", limit = 50, min_th = 5, max_th = 15, max_p = 0.1, acc = true {acc} }}
[[links]]
between = ["R2", "D"]
rate = "10Mbps"
delay = "5ms"
[[links]]
from = "R2"
to = "R3"
rate = "10Mbps"
delay = "50ms"
[[links]]
from = "R3"
to = "S"
rate = "10Mbps"
delay = "25ms"
[[links]]
from = "R1"
to = "R0"
rate = "10Mbps"
delay = "20ms"
[[links]]
from = "R0"
to = "S"
rate = "10Mbps"
delay = "5ms"
[[failures]]
link = "R1->R0"
down = 0
[[flows]]
from = "S"
to = "D"
tcp = {{ variant = "reno", acc = true }}
"#
    )
}

#[test]
fn lost_controls_leave_the_sender_to_plain_tcp() {
    let (sim, r) = run(&lost_controls("", "100s"));
    let r1 = router(&sim, "R1");
    assert!(r1.controls_sent > 5, "{r1:?}");
    assert_eq!(r1.controls_lost, r1.controls_sent);
    let f = &r.flows[0];
    assert_eq!((f.acc_controls_received, f.acc_closes), (0, 0));
    assert!(f.endpoint_closes > 5, "the sender detects congestion itself");
    assert_conserved(&sim);
    // It converges, losing little to the filters' extra drops against plain TCP.
    let (_, plain) = run_with(&lost_controls("", "100s"), &["links.2.queue.acc=false", "flows.0.tcp.acc=false"]);
    let (acc, tcp) = (f.goodput_bps, plain.flows[0].goodput_bps);
    assert!(acc > 0.75 * tcp, "goodput {acc:.0} b/s, plain TCP {tcp:.0} b/s");
}

fn run_with(text: &str, overrides: &[&str]) -> (Simulation, Report) {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut sim = ccsim::scenario::load(text, "<test>", &o, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    let r = Report::new(&mut sim);
    (sim, r)
}

/// Every window reduction of flow 0 with the time it happened and the sender's snd_una and
/// snd_max just after it, sampled each millisecond: a reduction leaves the sender waiting
/// for ACKs a round trip away, so neither moves within the millisecond.
fn reductions(sim: &mut Simulation, until: f64) -> Vec<(SimTime, ReductionCause, u32, u32)> {
    let mut out = Vec::new();
    let mut seen = 0;
    let mut t = SimTime::ZERO;
    while t < SimTime::from_secs_f64(until) {
        t += Dur::from_millis(1);
        sim.run_until(t);
        let tx = sim.flows[0].sender().unwrap();
        if tx.stats.window_reductions > seen {
            assert_eq!(tx.stats.window_reductions, seen + 1, "two reductions within 1 ms");
            seen += 1;
            let (at, cause, _) = tx.last_reduction.unwrap();
            out.push((at, cause, tx.snd_una().0, tx.snd_max().0));
        }
    }
    out
}

#[test]
fn one_window_cut_per_congestion_event() {
    // Filters at R0 let the packets already past it through, so the receiver sees the hole
    // and sends duplicate ACKs for data the control already answered. A fast retransmit
    // after a control must be for data sent after it: at or above snd_max at the control.
    let mut sim = load(&line("", "60s"));
    let events = reductions(&mut sim, 60.0);
    let mut after_control = None;
    let mut checked = 0;
    for &(at, cause, una, max) in &events {
        match cause {
            ReductionCause::AccControl => after_control = Some(max),
            ReductionCause::FastRetransmit => {
                if let Some(m) = after_control {
                    assert!(una.wrapping_sub(m) < 1 << 31, "fast retransmit at {at:?} for {una} < {m}, sent before the control");
                    checked += 1;
                }
            }
            _ => {}
        }
    }
    let controls = events.iter().filter(|e| e.1 == ReductionCause::AccControl).count();
    assert!(controls > 10, "{controls} controls obeyed");
    assert!(checked > 0, "some fast retransmits follow controls");
    let tx = sim.flows[0].sender().unwrap();
    let rx = sim.flows[0].receiver().unwrap();
    assert!(rx.stats.duplicate_packets + rx.stats.out_of_order_packets > 0, "holes and resent data reach the receiver");
    assert!(tx.stats.dupacks_received > 3 * controls as u64, "duplicate ACKs follow controls");
}

#[test]
fn rtt_floor_keeps_acc_off_for_short_round_trips() {
    // S1's round trip is about 0.16 s, S2's about 0.45 s; the floor is 0.3 s.
    let text = line(", acc_rtt_floor = \"300ms\"", "60s").replace(
        "[[links]]\nbetween = [\"S{1..2}\", \"R0\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"",
        "[[links]]\nbetween = [\"S1\", \"R0\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n[[links]]\nbetween = [\"S2\", \"R0\"]\nrate = \"10Mbps\"\ndelay = \"150ms\"",
    );
    let (sim, r) = run(&text);
    let r1 = router(&sim, "R1");
    assert!(r1.below_rtt_floor > 5, "{r1:?}");
    assert_eq!(r.flows[0].acc_controls_received, 0, "short flow: no control");
    assert!(r.flows[0].endpoint_closes > 5);
    assert!(r.flows[1].acc_controls_received > 0, "long flow: controls");
    assert_eq!(r1.controls_sent, r.flows[1].acc_controls_received);
    // Without the floor the short flow is controlled too.
    let (_, r) = run(&text.replace(", acc_rtt_floor = \"300ms\"", ""));
    assert!(r.flows[0].acc_controls_received > 0);
}

#[test]
fn acc_off_changes_nothing() {
    // A sender carrying ACC state through queues without ACC behaves like any TCP sender.
    let text = line("", "20s");
    let (a, ra) = run_with(&text, &["links.2.queue.acc=false"]);
    let (_, rb) = run_with(&text, &["links.2.queue.acc=false", "flows.0.tcp.acc=false"]);
    assert!(a.mechanism::<Acc>().is_none() && ra.acc.is_empty());
    let delivered = |r: &Report| r.flows.iter().map(|f| (f.delivered_bytes, f.window_reductions)).collect::<Vec<_>>();
    assert_eq!(delivered(&ra), delivered(&rb));
    assert!(ra.totals.queue_drops > 0);
}

#[test]
fn acc_settings_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (&["links.2.queue.acc=false", "links.2.queue.acc_rtt_floor=1"], "links[2].queue.acc_rtt_floor: only with `acc = true`"),
        (&["links.2.queue.acc_filter_timeout=0"], "links[2].queue.acc_filter_timeout: must be positive"),
        (&["links.2.queue.acc_rtt_floor=-1"], "links[2].queue.acc_rtt_floor: duration must not be negative"),
        (&["flows.0.tcp.acc=1"], "flows[0].tcp.acc: invalid type"),
        (&["links.0.queue={ acc = true }"], "links[0].queue.acc: ACC runs in routers, and \"S1\" is a host"),
    ];
    let text = line("", "1s");
    for (overrides, expected) in cases {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let msg = ccsim::scenario::load(&text, "acc.toml", &o, None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.starts_with(&format!("acc.toml: {expected}")), "for {overrides:?} expected {expected:?}, got {msg:?}");
    }
}
