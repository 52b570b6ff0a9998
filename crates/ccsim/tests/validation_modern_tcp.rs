//! Today's TCP window algorithms end to end, checked against what each is built to do.
//!
//! - CUBIC (RFC 9438): after each reduction a lone flow's window is back at `W_max` (the
//!   window before it, or less by fast convergence) `K = cbrt((W_max - cwnd_epoch) / C)`
//!   seconds later (eq. (2)), where NewReno climbs one segment per round trip.
//! - DCTCP (RFC 8257) with a step marker at `K` packets: the queue oscillates near `K` and
//!   never empties, so the link stays full, with no loss; NewReno with ECN on the same
//!   marker halves at every mark and lets the queue swing further below `K`.

mod common;
use ccsim::report::Report;
use common::bulk::{bottleneck, equal_access, utilisation, Bulk};
use common::*;

/// `n` bulk flows S_i -> D_i across R1 -> R2 (`rate`, `delay`, `queue`), access links
/// 1 Gb/s, 1 ms; `tcp` goes into each flow's `tcp` table.
fn dumbbell(n: u32, rate: &str, delay: &str, queue: &str, tcp: &str, duration: &str, warmup: &str) -> String {
    let tcp = format!("mss = 1000, rwnd = 100000000, {tcp}");
    Bulk { n, rate, delay, queue, tcp: &tcp, duration, warmup, seed: 5, access: &equal_access(n) }.toml()
}

#[test]
fn cubic_climbs_back_to_w_max_in_k_seconds() {
    // One flow, 100 Mb/s, RTT 100 ms, a 250-packet buffer: the buffer overflows at a window
    // of about 1452 segments. SACK senders, so that an overflow is one reduction repaired in
    // a round trip or two (no timeout, which would restart the curve).
    let text = |variant: &str| {
        let tcp = format!("variant = \"{variant}\", sack = true");
        let mut t = dumbbell(1, "100Mbps", "48ms", r#"{ discipline = "droptail", limit = 250 }"#, &tcp, "160s", "30s");
        t.push_str("[[series]]\nkind = \"cwnd\"\nflow = \"flow0\"\ninterval = \"10ms\"\n");
        t
    };
    // The samples at which the window fell by more than a fifth, after `from` seconds.
    let reductions = |r: &Report, from: f64| -> Vec<usize> {
        let s = &r.series[0];
        (1..s.t.len()).filter(|&i| s.t[i] > from && s.value[i] < 0.8 * s.value[i - 1]).collect()
    };
    let (_, cubic) = run(&text("cubic"));
    let f = &cubic.flows[0];
    assert!(f.timeouts == 0 && f.false_fast_retransmits == 0, "{f:?}");
    let s = &cubic.series[0];
    let at = reductions(&cubic, 0.0);
    assert!(at.len() >= 6, "reductions at {:?}", at.iter().map(|&i| s.t[i]).collect::<Vec<_>>());
    // After each reduction, RFC 9438's curve from the series' own numbers: W_max is the window
    // before it, or (1 + β) / 2 of it when that is below the last W_max (fast convergence,
    // 4.7); the epoch starts from the reduced window; K = cbrt((W_max - cwnd_epoch) / C), eq.
    // (2). The window must be back near W_max about K later: the epoch starts a round trip
    // or two after the reduction and each ACK aims one RTT ahead.
    let (c, beta) = (0.4, 0.7);
    let mut last_w_max = 0.0;
    let mut checked = 0;
    for (n, &i) in at.iter().enumerate() {
        let before = s.value[i - 1];
        let w_max = if before < last_w_max { before * (1.0 + beta) / 2.0 } else { before };
        last_w_max = w_max;
        let end = at.get(n + 1).copied().unwrap_or(s.t.len());
        let epoch = s.value[i..end.min(i + 50)].iter().cloned().fold(f64::INFINITY, f64::min);
        let k = ((w_max - epoch) / c).cbrt();
        let Some(back) = (i..end).find(|&j| s.value[j] >= w_max - 0.5) else { continue };
        if s.t[i] < 30.0 {
            continue; // before the warm-up's end: only the history of W_max
        }
        // Within half a segment of W_max: cbrt(0.5 / C) = 1.08 s before K on the plateau.
        let expected = k - (0.5 / c).cbrt();
        let took = s.t[back] - s.t[i];
        assert!(
            (expected - 0.4..expected + 0.6).contains(&took),
            "reduction at {:.2} s from {before:.0}: within half a segment of W_max {w_max:.0} after {took:.2} s, expected {expected:.2} s (K = {k:.2} s)",
            s.t[i]
        );
        checked += 1;
    }
    assert!(checked >= 4, "{checked} climbs checked");
    assert!(utilisation(&cubic) > 0.95, "CUBIC keeps the pipe full: {}", utilisation(&cubic));
    // NewReno needs W_max / 2 = 726 round trips (73 s) to climb back: at most two
    // reductions in the 130 s measured.
    let (_, newreno) = run(&text("newreno"));
    assert!(reductions(&newreno, 30.0).len() <= 2, "NewReno: {} reductions", reductions(&newreno, 30.0).len());
}

#[test]
fn dctcp_holds_the_queue_near_k_with_the_link_full() {
    // DCTCP keeps the link full when K exceeds about C x RTT / 7 (Alizadeh et al., SIGCOMM
    // 2010, section 3.3; RFC 8257 4.1 leaves K to this analysis). K = 65 is just at that
    // bound at 100 Mb/s with a 44 ms RTT (530 packets in flight) and at 1 Gb/s with a
    // 4.2 ms one (505).
    let k = 65u32;
    let queue = format!(r#"{{ discipline = "step", k = {k}, limit = 1000, signal = "ecn" }}"#);
    for (rate, delay) in [("100Mbps", "20ms"), ("1Gbps", "100us")] {
        let (_, dctcp) = run(&dumbbell(10, rate, delay, &queue, r#"variant = "dctcp""#, "20s", "5s"));
        let q = bottleneck(&dctcp);
        assert!(q.drops == 0 && q.marks_early > 0, "{rate}: {q:?}");
        assert!((0.6 * k as f64..1.2 * k as f64).contains(&q.mean_len_packets), "{rate}: mean queue {} packets", q.mean_len_packets);
        assert!(q.max_len_packets < 2 * k, "{rate}: max queue {} packets", q.max_len_packets);
        assert!(utilisation(&dctcp) > 0.99, "{rate}: utilisation {}", utilisation(&dctcp));
        assert!(dctcp.flows.iter().all(|f| f.timeouts == 0 && f.fast_retransmits == 0), "{rate}: no loss");
        // NewReno with ECN on the same marker halves at every mark: the queue falls further
        // below K and spends more time empty.
        let (_, reno) = run(&dumbbell(10, rate, delay, &queue, "ecn = true", "20s", "5s"));
        let rq = bottleneck(&reno);
        assert!(rq.mean_len_packets < q.mean_len_packets, "{rate}: NewReno+ECN {} vs DCTCP {}", rq.mean_len_packets, q.mean_len_packets);
        assert!(utilisation(&reno) <= utilisation(&dctcp), "{rate}: NewReno+ECN {} vs DCTCP {}", utilisation(&reno), utilisation(&dctcp));
    }
    // Far below the bound (1 Gb/s, 44 ms: 5,300 packets in flight) the same K leaves the
    // link partly idle: each cut takes more than the queue holds.
    let (_, long) = run(&dumbbell(10, "1Gbps", "20ms", &queue, r#"variant = "dctcp""#, "20s", "5s"));
    assert!(utilisation(&long) < 0.95, "utilisation {}", utilisation(&long));
}

#[test]
fn dctcp_refuses_ecn_off_and_names_the_field() {
    let text = dumbbell(1, "10Mbps", "20ms", r#"{ discipline = "step", k = 20 }"#, r#"variant = "dctcp", ecn = false"#, "1s", "0s");
    let err = ccsim::scenario::load(&text, "<test>", &[], None).err().expect("an error").to_string();
    assert!(err.contains("flows[0].tcp.ecn"), "{err}");
}
