//! Today's queue disciplines end to end, checked against what each is built to do: CoDel
//! holds the sojourn time near its 5 ms target and PIE the queueing delay near its 15 ms
//! target under load; DCTCP's step marker holds the queue near `K` with the link full; and
//! FQ-CoDel shares the bottleneck fairly between flows of different round-trip times where a
//! FIFO does not. Plus the accounting every queue owes: each arrival leaves, is dropped or
//! is still queued.

mod common;
use ccsim::report::Report;
use common::bulk::{bottleneck, equal_access, utilisation, Bulk};
use common::*;

/// `n` NewReno bulk flows S_i -> D_i across R1 -> R2 (`rate`, 20 ms, `queue`); `access`
/// holds the links from the senders to R1 (1 Gb/s, 1 ms, or one delay per sender).
fn dumbbell(n: u32, rate: &str, queue: &str, tcp: &str, duration: &str, access: &str) -> String {
    let tcp = format!("mss = 1000{tcp}");
    Bulk { n, rate, delay: "20ms", queue, tcp: &tcp, duration, warmup: "5s", seed: 3, access }.toml()
}

/// Jain's fairness index of the flows' goodputs.
fn jain(r: &Report) -> f64 {
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn codel_holds_the_sojourn_time_near_its_5_ms_target() {
    let queue = r#"{ discipline = "codel", limit = 1000 }"#;
    let (_, r) = run(&dumbbell(10, "100Mbps", queue, "", "25s", &equal_access(10)));
    let q = bottleneck(&r);
    // A 1000-packet FIFO would fill (83 ms at 100 Mb/s); CoDel keeps the standing delay
    // near target, dropping at dequeue only.
    assert!((3.0..8.0).contains(&q.mean_delay_ms), "mean sojourn {} ms", q.mean_delay_ms);
    assert!(q.drops_dequeue > 0 && q.drops_overflow == 0 && q.drops_early == 0, "{q:?}");
    assert!(utilisation(&r) > 0.95, "utilisation {}", utilisation(&r));
    // The same with ECN: marks instead of drops.
    let queue = r#"{ discipline = "codel", limit = 1000, signal = "ecn" }"#;
    let (_, r) = run(&dumbbell(10, "100Mbps", queue, ", ecn = true", "25s", &equal_access(10)));
    let q = bottleneck(&r);
    assert!((3.0..8.0).contains(&q.mean_delay_ms), "mean sojourn with ECN {} ms", q.mean_delay_ms);
    assert!(q.marks_dequeue > 0 && q.drops_dequeue == 0, "{q:?}");
}

#[test]
fn pie_holds_the_queueing_delay_near_its_15_ms_target() {
    let queue = r#"{ discipline = "pie", limit = 1000 }"#;
    let (_, r) = run(&dumbbell(10, "100Mbps", queue, "", "25s", &equal_access(10)));
    let q = bottleneck(&r);
    assert!((11.0..20.0).contains(&q.mean_delay_ms), "mean queueing delay {} ms", q.mean_delay_ms);
    assert!(q.drops_early > 0 && q.drops_overflow == 0, "{q:?}");
    assert!(utilisation(&r) > 0.95, "utilisation {}", utilisation(&r));
}

#[test]
fn the_step_marker_holds_the_queue_near_k_with_the_link_full() {
    // ECN-capable NewReno senders (DCTCP on the same marker: validation_modern_tcp.rs): each mark
    // halves a window, so the queue swings below K, but never far above it.
    let k = 65;
    let queue = format!(r#"{{ discipline = "step", k = {k}, limit = 1000, signal = "ecn" }}"#);
    let (_, r) = run(&dumbbell(10, "10Mbps", &queue, ", ecn = true", "25s", &equal_access(10)));
    let q = bottleneck(&r);
    assert!(q.marks_early > 0 && q.drops == 0, "{q:?}");
    assert!(q.max_len_packets <= k + 10, "max {} packets", q.max_len_packets);
    assert!((0.4 * k as f64..k as f64).contains(&q.mean_len_packets), "mean {} packets", q.mean_len_packets);
    assert!(utilisation(&r) > 0.97, "utilisation {}", utilisation(&r));
    // Not ECN-capable: the same signals are drops.
    let (_, r) = run(&dumbbell(10, "100Mbps", &queue, "", "10s", &equal_access(10)));
    let q = bottleneck(&r);
    assert!(q.drops_early > 0 && q.marks_early == 0, "{q:?}");
}

#[test]
fn fq_codel_shares_the_link_fairly_across_round_trip_times_where_a_fifo_does_not() {
    // Four flows whose access delays give RTTs from 44 ms to 122 ms.
    let delays = ["1ms", "10ms", "20ms", "40ms"];
    let access: String =
        delays.iter().enumerate().map(|(i, d)| format!("[[links]]\nbetween = [\"S{}\", \"R1\"]\nrate = \"1Gbps\"\ndelay = \"{d}\"\n", i + 1)).collect();
    let run_with = |queue: &str| run(&dumbbell(4, "20Mbps", queue, "", "40s", &access)).1;
    let fifo = run_with(r#"{ discipline = "droptail", limit = 200 }"#);
    let fq = run_with(r#"{ discipline = "fq_codel", limit = 1000 }"#);
    let (j_fifo, j_fq) = (jain(&fifo), jain(&fq));
    assert!(j_fq > 0.99, "FQ-CoDel: Jain {j_fq}");
    assert!(j_fifo < 0.99, "FIFO: Jain {j_fifo}");
    // Four NewReno flows, each with its own CoDel: a flow that halves its window empties its
    // queue for a while, and the others fill only part of the gap (about 90 % here).
    assert!(utilisation(&fq) > 0.85, "utilisation {}", utilisation(&fq));
}

#[test]
fn every_arrival_leaves_is_dropped_or_is_still_queued() {
    for queue in [
        r#"{ discipline = "codel", limit = 100 }"#,
        r#"{ discipline = "fq_codel", limit = 100 }"#,
        r#"{ discipline = "pie", limit = 100 }"#,
        r#"{ discipline = "step", k = 20, limit = 100 }"#,
    ] {
        let mut text = dumbbell(10, "10Mbps", queue, "", "10s", &equal_access(10));
        text = text.replace("warmup = \"5s\"\n", "");
        let (_, r) = run(&text);
        let q = bottleneck(&r);
        assert_eq!(q.arrivals, q.departures + q.drops + q.final_len_packets as u64, "{queue}: {q:?}");
        assert_eq!(q.drops, q.drops_overflow + q.drops_early + q.drops_forced + q.drops_dequeue + q.drops_link_down, "{queue}");
        assert!(q.drops > 0, "{queue}: the 100-packet buffer is under load");
        // Same scenario, same seed: the same report.
        let (_, again) = run(&text);
        assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap(), "{queue}");
    }
}
