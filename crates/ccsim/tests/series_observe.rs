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
"#;

#[test]
fn series_do_not_change_the_run() {
    let plain = dumbbell(100, 20);
    let (_, a) = common::run(&plain);
    let (_, b) = common::run(&format!("{plain}{SERIES}"));
    assert!(a.series.is_empty());
    assert_eq!(b.series.len(), 5 + 100 + 1);
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
