//! Adaptive RED and RTRED end to end: scenarios loaded from TOML, run in small steps, with
//! the discipline's state read between steps and checked against the papers' rules
//! (Floyd, Gummadi & Shenker 2001; Feng et al. 1999; the RTRED paper, Section IV.B, as
//! SCENARIOS.md P2 states it).

mod common;
use ccsim::engine::Simulation;
use ccsim::queue::fifo::MAX_AREAS;
use ccsim::queue::{Discipline, RedState};
use ccsim::report::Report;
use ccsim::sim::SimTime;
use common::*;

/// One observation of a RED-family queue between two steps.
#[derive(Clone, Copy, Debug)]
struct Sample {
    t: f64,
    avg: f64,
    max_p: f64,
    /// The queue the last arrival found, in packets.
    found: f64,
    arrivals: u64,
    /// Early, forced and overflow drops so far.
    drops: u64,
    drop_areas: [u64; MAX_AREAS],
}

fn red_state(sim: &Simulation, link: usize) -> &RedState {
    match sim.net.links[link].queue.discipline() {
        Discipline::Red(d) => d.state(),
        Discipline::AdaptiveRed(d) => d.red().state(),
        Discipline::Rtred(d) => d.red().state(),
        other => panic!("not a RED-family queue: {other:?}"),
    }
}

/// Runs `sim` to its end in steps of `step_ms`, sampling the queue of `link` after each.
fn run_sampled(mut sim: Simulation, link: &str, step_ms: u64) -> (Vec<Sample>, Report) {
    let l = common::link(&sim, link);
    let mut samples = Vec::new();
    let mut t = SimTime::ZERO;
    while !sim.is_finished() {
        t = SimTime(t.0 + step_ms * 1_000_000);
        sim.run_until(t);
        let q = &sim.net.links[l].queue;
        let s = red_state(&sim, l);
        let drops = q.stats.drops_early + q.stats.drops_forced + q.stats.drops_overflow;
        samples.push(Sample { t: t.as_secs_f64(), avg: s.avg, max_p: s.max_p, found: s.found, arrivals: q.stats.arrivals, drops, drop_areas: q.drop_areas });
    }
    let report = Report::new(&mut sim);
    (samples, report)
}

/// A dumbbell: `n` TCP Reno senders on 100 Mb/s links to R1, R1 -> R2 at 10 Mb/s, 20 ms.
fn dumbbell(n: u32, queue: &str) -> String {
    format!(
        r#"
duration = "40s"
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{{1..{n}}}", "R1"]
rate = "100Mbps"
delay = {{ uniform = ["1ms", "5ms"] }}
[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "20ms"
queue = {queue}
[[links]]
between = ["R2", "D{{1..{n}}}"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
from = "S{{1..{n}}}"
to = "D{{1..{n}}}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ variant = "reno", mss = 1000 }}
"#
    )
}

/// Thresholds of the dumbbell's RED queues: FGS's target band is [26, 34].
const MIN_TH: f64 = 10.0;
const MAX_TH: f64 = 50.0;
const BAND: (f64, f64) = (MIN_TH + 0.4 * (MAX_TH - MIN_TH), MIN_TH + 0.6 * (MAX_TH - MIN_TH));
/// How far `avg` can move between an adaptation and the sample after it: steps of 1 ms see
/// at most two arrivals at 10 Mb/s (one packet each 0.83 ms, and the senders' links are
/// ten times faster only while a burst lasts), each moving `avg` by at most
/// w_q |q - avg| <= 0.002 x 100 = 0.2 packets. A generous bound: five arrivals.
const AVG_SLACK: f64 = 1.0;

fn red_queue(discipline: &str, max_p: f64) -> String {
    format!("{{ discipline = \"red\", limit = 100, min_th = {MIN_TH}, max_th = {MAX_TH}, max_p = {max_p} }}").replace("\"red\"", discipline)
}

/// Mean average queue from 20 s on.
fn late_avg(samples: &[Sample]) -> f64 {
    let late: Vec<f64> = samples.iter().filter(|s| s.t >= 20.0).map(|s| s.avg).collect();
    late.iter().sum::<f64>() / late.len() as f64
}

/// The `max_p` changes seen: (sample before, sample after).
fn changes(samples: &[Sample]) -> Vec<(Sample, Sample)> {
    samples.windows(2).filter(|w| w[0].max_p != w[1].max_p).map(|w| (w[0], w[1])).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn fgs_moves_max_p_in_the_papers_steps_and_brings_the_average_into_the_target_band() {
    let (samples, _) = run_sampled(load(&dumbbell(20, &red_queue("\"ared\"", 0.01))), "R1->R2", 1);
    assert!(samples.iter().all(|s| (0.01..=0.5).contains(&s.max_p)));
    let changes = changes(&samples);
    assert!(changes.len() > 10, "{} changes", changes.len());
    for (before, after) in &changes {
        let (old, new) = (before.max_p, after.max_p);
        if new > old {
            assert!(close(new, (old + (old / 4.0).min(0.01)).min(0.5)), "at {} s: {old} -> {new} is not the additive step", after.t);
            assert!(after.avg > BAND.1 - AVG_SLACK, "at {} s: increase with avg {} below the band's top {}", after.t, after.avg, BAND.1);
        } else {
            assert!(close(new, (old * 0.9).max(0.01)), "at {} s: {old} -> {new} is not the multiplicative step", after.t);
            assert!(after.avg < BAND.0 + AVG_SLACK, "at {} s: decrease with avg {} above the band's bottom {}", after.t, after.avg, BAND.0);
        }
    }
    // Once per interval at most: an adaptation at time a makes the next due at a + 0.5 s,
    // and each is seen at the end of its 1 ms step.
    for w in changes.windows(2) {
        assert!(w[1].1.t - w[0].1.t >= 0.5 - 0.001 - 1e-9, "changes at {} s and {} s", w[0].1.t, w[1].1.t);
    }
    // Under this load max_p climbs from its floor, and the average settles in the band,
    // where plain RED with the same max_p keeps it well above.
    assert!(samples.last().unwrap().max_p > 0.02);
    let ared = late_avg(&samples);
    let (red, _) = run_sampled(load(&dumbbell(20, &red_queue("\"red\"", 0.01))), "R1->R2", 10);
    let red = late_avg(&red);
    eprintln!("late average queue: ARED {ared:.1}, RED {red:.1}, band {BAND:?}");
    assert!(ared > BAND.0 && ared < BAND.1, "ARED's average {ared} is outside the band {BAND:?}");
    assert!(red > BAND.1 + 5.0, "RED's average {red}");
}

#[test]
fn fgs_lowers_max_p_to_its_floor_when_the_average_stays_below_the_band() {
    let (samples, _) = run_sampled(load(&dumbbell(2, &red_queue("\"ared\"", 0.5))), "R1->R2", 1);
    assert!(samples.iter().all(|s| (0.01..=0.5).contains(&s.max_p)));
    let changes = changes(&samples);
    assert!(changes.iter().all(|(b, a)| a.max_p < b.max_p && close(a.max_p, (b.max_p * 0.9).max(0.01))));
    // From 0.5 to 0.01 takes ceil(ln(0.02) / ln(0.9)) = 38 decreases.
    assert_eq!(changes.len(), 38);
    assert_eq!(samples.last().unwrap().max_p, 0.01);
}

#[test]
fn feng_multiplies_and_divides_on_entering_the_regions_and_stays_in_bounds() {
    for (flows, start) in [(20, 0.01), (2, 0.5)] {
        let queue = red_queue("\"ared\", adapt = \"feng\"", start);
        let (samples, _) = run_sampled(load(&dumbbell(flows, &queue)), "R1->R2", 1);
        assert!(samples.iter().all(|s| (0.001..=1.0).contains(&s.max_p)));
        let changes = changes(&samples);
        assert!(!changes.is_empty());
        for (before, after) in &changes {
            let (old, new) = (before.max_p, after.max_p);
            if new > old {
                assert!(close(new, (old * 2.0).min(1.0)), "{flows} flows, at {} s: {old} -> {new}", after.t);
                assert!(after.avg >= MAX_TH - AVG_SLACK, "{flows} flows, at {} s: doubled with avg {}", after.t, after.avg);
            } else {
                assert!(close(new, (old / 3.0).max(0.001)), "{flows} flows, at {} s: {old} -> {new}", after.t);
                assert!(after.avg < MIN_TH + AVG_SLACK, "{flows} flows, at {} s: divided with avg {}", after.t, after.avg);
            }
        }
        // Heavy load raises max_p from its start, light load lowers it.
        let end = samples.last().unwrap().max_p;
        if flows == 20 {
            assert!(end > start, "{end}");
        } else {
            assert!(end < start, "{end}");
        }
    }
}

/// Scenario S1 of the RTRED paper as SCENARIOS.md P2 sets it up: six Reno sources on
/// 10 Mb/s links, a 0.7 Mb/s bottleneck, 552-byte segments, a receiver window of 20.
fn rtred_s1() -> String {
    r#"
duration = "60s"
hosts = ["S{1..6}", "K"]
routers = ["G"]
[[links]]
between = ["S{1..6}", "G"]
rate = "10Mbps"
delay = { uniform = ["1ms", "5ms"] }
[[links]]
between = ["G", "K"]
rate = "0.7Mbps"
delay = "20ms"
queue = { discipline = "rtred", limit = 30, min_th = 12, max_th = 25, max_p = 0.05, risk_th = 28, drop_areas = [12, 25, 28], mean_packet_size = 592 }
[[flows]]
from = "S{1..6}"
to = "K"
start = { uniform = ["0s", "7s"] }
tcp = { variant = "reno", mss = 552, rwnd = 11040 }
"#
    .to_string()
}

/// The paper's areas of the actual queue: unfair, normal, safe, timeout.
fn area(q: f64) -> usize {
    [12.0, 25.0, 28.0].iter().take_while(|b| q >= **b).count()
}

#[test]
fn rtred_chooses_max_p_by_the_actual_queue_and_drops_are_binned_by_it() {
    let (samples, report) = run_sampled(load(&rtred_s1()), "G->K", 1);
    // The max_p in force for the last arrival follows from the queue it found alone:
    // m / 5 below min_th, m / 2 up to risk_th (the paper's normal area and the safe area
    // it is silent on), m from risk_th on.
    let mut seen = [0; 4];
    for s in samples.iter().filter(|s| s.arrivals > 0) {
        let expected = [0.01, 0.025, 0.025, 0.05][area(s.found)];
        assert!(close(s.max_p, expected), "at {} s: queue {} found, max_p {}", s.t, s.found, s.max_p);
        seen[area(s.found)] += 1;
    }
    assert!(seen.iter().all(|n| *n > 100), "every area is visited: {seen:?}");
    // A drop in a step with one arrival was of the packet that found `found`: it is in
    // that queue's area, which is also the one RTRED chose max_p from.
    let mut attributed = 0;
    for w in samples.windows(2) {
        let (b, a) = (&w[0], &w[1]);
        if a.drops == b.drops + 1 && a.arrivals == b.arrivals + 1 {
            let binned: Vec<usize> = (0..4).filter(|i| a.drop_areas[*i] > b.drop_areas[*i]).collect();
            assert_eq!(binned, [area(a.found)], "at {} s: queue {} found", a.t, a.found);
            attributed += 1;
        }
    }
    let q = report.queues.iter().find(|q| q.link == "G->K").unwrap();
    assert!(attributed * 2 > q.drops, "{attributed} of {} drops attributed", q.drops);
    // The report's areas hold every drop; overflow happens at a full buffer, in the
    // timeout area; and few drops are unfair (the paper's Fig. 4).
    assert_eq!(q.drop_areas.iter().sum::<u64>(), q.drops);
    assert!(q.drops_overflow > 0 && q.drops_overflow <= q.drop_areas[3], "{q:?}");
    assert!(q.drop_areas[0] * 20 < q.drops, "unfair drops {:?}", q.drop_areas);
    eprintln!("drops by area {:?}, early/forced/overflow {}/{}/{}, {attributed} attributed", q.drop_areas, q.drops_early, q.drops_forced, q.drops_overflow);
}
