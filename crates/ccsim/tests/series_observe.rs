//! Series observe a run, they do not change it: DUMBBELL-100 (benchmarks/README.md, ns-2's
//! behaviours) with and without every kind of `[[series]]` gives the same flow and queue
//! tables, value for value.

mod common;

fn dumbbell(n: u32, seconds: u32) -> String {
    common::dumbbell::dumbbell_toml(n, seconds as f64, 3, 2.0)
}

const SERIES: &str = r#"
[[series]]
kind = "queue"
link = "R1->R2"
interval = "7ms"

[[series]]
kind = "queue_avg"
link = "R1->R2"
interval = "10ms"

[[series]]
kind = "drop_prob"
link = "R1->R2"
interval = "10ms"

[[series]]
kind = "max_p"
link = "R1->R2"
interval = "100ms"

[[series]]
kind = "link_rate"
link = "R1->R2"
interval = "100ms"

[[series]]
kind = "cwnd"
flow = "bulk"
interval = "50ms"

[[series]]
kind = "goodput"
flow = "bulk[7]"
interval = "1ms"

[[series]]
kind = "ssthresh"
flow = "bulk[3]"
interval = "10ms"

[[series]]
kind = "drops"
link = "R1->R2"
interval = "10ms"

[[series]]
kind = "rtt"
flow = "bulk[3]"
interval = "10ms"

[[series]]
kind = "srtt"
flow = "bulk[3]"
interval = "10ms"
"#;

#[test]
fn series_do_not_change_the_run() {
    let plain = dumbbell(100, 20);
    let (_, a) = common::run(&plain);
    let (_, b) = common::run(&format!("{plain}{SERIES}"));
    assert!(a.series.is_empty());
    assert_eq!(b.series.len(), 5 + 100 + 1 + 4);
    // The drops series adds up to the queue's drops over the whole run.
    let drops = b.series.iter().find(|s| s.name == "drops R1->R2").unwrap();
    let q = &b.queues[common::link(&common::load(&plain), "R1->R2")];
    assert!(drops.value.iter().sum::<f64>() >= (q.drops_overflow + q.drops_early + q.drops_forced) as f64);
    assert!(b.series.iter().all(|s| !s.t.is_empty()), "every series sampled");
    assert_eq!(json(&a.flows), json(&b.flows), "flow tables differ");
    assert_eq!(json(&a.queues), json(&b.queues), "queue tables differ");
    assert_eq!(json(&a.links), json(&b.links), "link tables differ");
    assert_eq!(json(&a.totals), json(&b.totals), "totals differ");
    assert!(a.totals.queue_drops > 0 && a.totals.delivered_bytes > 0);
    // The samples are the only extra events.
    assert!(b.events_processed > a.events_processed);
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializes")
}

/// One NewReno flow through a 1 Mb/s, 10 ms bottleneck with a 20-packet Tail Drop buffer
/// (2 ms access links at 100 Mb/s), sampled every millisecond.
const ONE_FLOW: &str = r#"
duration = "20s"
hosts = ["S", "D"]
routers = ["R1", "R2"]
[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "2ms"
[[links]]
between = ["R1", "R2"]
rate = "1Mbps"
delay = "10ms"
queue = { limit = 20 }
[[links]]
between = ["R2", "D"]
rate = "100Mbps"
delay = "2ms"
[[flows]]
name = "f"
from = "S"
to = "D"
tcp = { mss = 1000 }
[[series]]
kind = "ssthresh"
flow = "f"
interval = "1ms"
[[series]]
kind = "rtt"
flow = "f"
interval = "1ms"
[[series]]
kind = "srtt"
flow = "f"
interval = "1ms"
[[series]]
kind = "cwnd"
flow = "f"
interval = "1ms"
"#;

#[test]
fn rtt_series_lie_between_the_path_s_base_rtt_and_a_full_buffer() {
    let (_, r) = common::run(ONE_FLOW);
    let get = |name: &str| r.series.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}"));
    // Base RTT, by hand: 2 x (2 + 10 + 2) ms of propagation, a 1040-byte segment serialized
    // at 100, 1 and 100 Mb/s, and a 40-byte ACK at the same rates.
    let ser = |bytes: f64, bps: f64| bytes * 8.0 / bps * 1e3;
    let base = 28.0 + 2.0 * ser(1040.0, 100e6) + ser(1040.0, 1e6) + 2.0 * ser(40.0, 100e6) + ser(40.0, 1e6);
    // At most a full buffer of segments ahead at the bottleneck (20 queued, one in service).
    let worst = base + 21.0 * ser(1040.0, 1e6);
    let (rtt_s, srtt_s, ss) = (get("rtt f[0]"), get("srtt f[0]"), get("ssthresh f[0]"));
    let rtt: Vec<f64> = rtt_s.value.iter().copied().filter(|v| !v.is_nan()).collect();
    let srtt: Vec<f64> = srtt_s.value.iter().copied().filter(|v| !v.is_nan()).collect();
    assert!(rtt.len() > 10_000 && srtt.len() == rtt.len());
    let (lo, hi) = rtt.iter().fold((f64::MAX, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
    // The first segment travels alone: its RTT is the base RTT to the nanosecond.
    assert!((lo - base).abs() < 1e-6, "min {lo} vs base {base}");
    // Until the first loss (the first ssthresh) no hole delays an ACK: every sample is the
    // base RTT plus the queue ahead of the timed segment, at most a full buffer. (A segment
    // timed behind a hole is acknowledged only once the hole is repaired, and its sample
    // includes the recovery, as in ns-2 and BSD.)
    let first_loss = ss.value.iter().position(|v| !v.is_nan()).expect("a loss");
    let before = rtt_s.value[..first_loss].iter().copied().filter(|v| !v.is_nan()).fold(0.0f64, f64::max);
    assert!(before <= worst + 1e-6 && before > base + 10.0, "max {before} before the first loss (base {base}, full buffer {worst})");
    assert!(srtt.iter().all(|&v| v >= lo - 1e-9 && v <= hi + 1e-9));
    // Before the first sample, both are not numbers.
    assert!(get("rtt f[0]").value[0].is_nan() && get("srtt f[0]").value[0].is_nan());
}

#[test]
fn ssthresh_series_is_unset_until_the_first_loss_then_half_the_window_or_two_segments() {
    let (_, r) = common::run(ONE_FLOW);
    let get = |name: &str| r.series.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{name}"));
    let (ss, cwnd) = (get("ssthresh f[0]"), get("cwnd f[0]"));
    let first = ss.value.iter().position(|v| !v.is_nan()).expect("a loss in 20 s");
    assert!(first > 0, "slow start begins with an unbounded threshold");
    assert!(ss.value[first..].iter().all(|v| !v.is_nan() && *v >= 2.0), "RFC 5681 (4): at least 2 segments");
    // Slow start until the first loss: the window grew past the 21 packets that fit the path.
    let peak = cwnd.value[..first].iter().copied().fold(0.0, f64::max);
    assert!(peak > 21.0, "{peak}");
    // ssthresh = max(FlightSize / 2, 2 SMSS) where FlightSize <= cwnd: never above half the
    // largest window seen before the reduction.
    let mut largest = 0.0f64;
    for i in 1..ss.value.len() {
        largest = largest.max(cwnd.value[i - 1]);
        if ss.value[i] != ss.value[i - 1] && !ss.value[i].is_nan() {
            assert!(ss.value[i] <= (largest / 2.0).max(2.0) + 1.0, "t = {}: ssthresh {} after cwnd up to {largest}", ss.t[i], ss.value[i]);
        }
    }
}
