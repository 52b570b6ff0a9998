//! RED and ECN end to end: the closed-form drop rate of RED at its steady-state average,
//! and RFC 3168 behaviour through an ECN-marking RED router.

mod common;
use common::*;

fn dumbbell(queue: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "20s"
hosts = ["S{{1..20}}", "D{{1..20}}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{{1..20}}", "R1"]
rate = "100Mbps"
delay = {{ uniform = ["1ms", "10ms"] }}
[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "20ms"
queue = {queue}
[[links]]
between = ["R2", "D{{1..20}}"]
rate = "100Mbps"
delay = "1ms"
{flows}
[[series]]
kind = "queue_avg"
link = "R1->R2"
interval = "10ms"
"#
    )
}

/// Expected fraction of arrivals signalled by RED's count rule at a fixed p_b: with
/// p_a = p_b / (1 - count p_b), P(no signal in the first k arrivals) = (1 - (k+1) p_b) / (1 - p_b),
/// and the signal rate is 1 / E[gap].
fn signal_rate(p_b: f64) -> f64 {
    if p_b <= 0.0 {
        return 0.0;
    }
    let mut mean_gap = 0.0;
    let mut k = 0.0;
    loop {
        let survive = (1.0 - (k + 1.0) * p_b) / (1.0 - p_b);
        if survive <= 0.0 {
            break;
        }
        mean_gap += survive;
        k += 1.0;
    }
    1.0 / (mean_gap + 1.0)
}

#[test]
fn red_steady_state_average_and_drop_rate_match_the_closed_form() {
    let (min_th, max_th, max_p) = (20.0, 80.0, 0.1);
    let queue = format!("{{ discipline = \"red\", limit = 300, min_th = {min_th}, max_th = {max_th}, max_p = {max_p}, mean_packet_size = 1040 }}");
    let flows = "[[flows]]\nfrom = \"S{1..20}\"\nto = \"D{1..20}\"\nstart = { uniform = [\"0s\", \"1s\"] }\ntcp = { mss = 1000 }";
    let (_, r) = run(&dumbbell(&queue, flows, "120s"));
    let q = r.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    let avg = &r.series[0];
    let samples: Vec<f64> = avg.t.iter().zip(&avg.value).filter(|(t, _)| **t >= 20.0).map(|(_, v)| *v).collect();
    let mean_avg = samples.iter().sum::<f64>() / samples.len() as f64;
    assert!(mean_avg > min_th && mean_avg < max_th, "average queue {mean_avg} outside [{min_th}, {max_th}]");
    let expected: f64 = samples.iter().map(|a| signal_rate(max_p * ((a - min_th) / (max_th - min_th)).clamp(0.0, 1.0))).sum::<f64>() / samples.len() as f64;
    let measured = q.drops_early as f64 / q.arrivals as f64;
    assert_eq!(q.drops_overflow + q.drops_forced, 0, "only early drops in steady state");
    eprintln!("RED: avg {mean_avg:.2}, measured drop rate {measured:.5}, closed form {expected:.5}");
    assert!((measured / expected - 1.0).abs() < 0.2, "measured drop rate {measured:.5}, closed form {expected:.5} at avg {mean_avg:.1}");
}

#[test]
fn ecn_flows_get_marks_and_halve_without_loss_while_others_get_drops() {
    let queue = "{ discipline = \"red\", signal = \"ecn\", limit = 300, min_th = 20, max_th = 80, max_p = 0.1, mean_packet_size = 1040 }";
    let flows = "[[flows]]\nname = \"ecn\"\nfrom = \"S{1..10}\"\nto = \"D{1..10}\"\nstart = { uniform = [\"0s\", \"1s\"] }\ntcp = { ecn = true }\n\
                 [[flows]]\nname = \"plain\"\nfrom = \"S{11..20}\"\nto = \"D{11..20}\"\nstart = { uniform = [\"0s\", \"1s\"] }";
    let (sim, r) = run(&dumbbell(queue, flows, "60s"));
    let q = r.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    assert!(q.marks_early > 0 && q.drops_early > 0, "marks for ECT packets, drops for the others: {q:?}");
    assert_eq!(q.drops_overflow, 0);
    for f in r.flows.iter().filter(|f| f.group == "ecn") {
        assert!(f.ecn_reductions > 0, "{} never reduced on ECE", f.flow);
        assert_eq!(f.retransmitted_packets, 0, "{} lost packets although every early signal is a mark", f.flow);
    }
    for f in r.flows.iter().filter(|f| f.group == "plain") {
        assert_eq!(f.ecn_reductions, 0);
        assert!(f.fast_retransmits > 0, "{} was signalled by drops", f.flow);
    }
    // The receiver saw CE marks and the sender reduced at most once per window: never more
    // reductions than marked packets, and at most one per round trip.
    for (i, f) in sim.flows.iter().enumerate().take(10) {
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        assert!(rx.stats.ce_received >= tx.stats.ecn_reductions, "flow {i}");
        let rtt = r.flows[i].mean_rtt_ms / 1e3;
        assert!((tx.stats.ecn_reductions as f64) <= 60.0 / rtt, "flow {i}: more than one reduction per round trip");
    }
}

/// A UDP source at twice the rate of a 1 Mb/s link behind a Tail Drop queue of `limit`.
fn overloaded(queue: &str) -> String {
    format!(
        r#"
duration = "2s"
hosts = ["A", "B"]
[[links]]
from = "A"
to = "B"
rate = "1Mbps"
delay = "1ms"
queue = {queue}
[[flows]]
from = "A"
to = "B"
transport = "udp"
udp = {{ rate = "2Mbps", packet_size = 500 }}
"#
    )
}

#[test]
fn ns2_tail_drop_holds_one_packet_less_than_its_limit() {
    // ns-2's `DropTail::enque()`: `limit_ 4` keeps 3 waiting besides the one in
    // transmission; ccsim's limit counts what waits.
    let longest = |queue: &str, profile: &str| {
        let (_, r) = run_with(&overloaded(queue), &[&format!("profile={profile}")]);
        let q = r.queues.iter().find(|q| q.link == "A->B").unwrap();
        (q.max_len_packets, q.drops)
    };
    let (rfc, rfc_drops) = longest("{ limit = 4 }", "rfc");
    let (ns2, ns2_drops) = longest("{ limit = 4 }", "ns2");
    assert_eq!((rfc, ns2), (4, 3));
    assert!(ns2_drops > rfc_drops, "{ns2_drops} {rfc_drops}");
    assert_eq!(longest(r#"{ limit = 4, limit_rule = "waiting" }"#, "ns2").0, 4);
    assert_eq!(longest(r#"{ limit = 4, limit_rule = "ns2" }"#, "rfc").0, 3);
    // In bytes (528-byte datagrams on the wire): the waiting queue stays below the limit.
    assert_eq!(longest(r#"{ limit_bytes = 2112, limit_rule = "ns2" }"#, "rfc").0, 3);
    assert_eq!(longest(r#"{ limit_bytes = 2112 }"#, "rfc").0, 4);
    // RED keeps ns-2's RED limit (`qlen >= qlim` before the arrival) under ns2 too.
    let red = r#"{ discipline = "red", limit = 4, min_th = 2, max_th = 3, w_q = 1, byte_mode = false }"#;
    assert_eq!(longest(red, "ns2").0, 4);
    let err = ccsim::scenario::load(&overloaded(r#"{ limit = 4, limit_rule = "all" }"#), "s.toml", &[], None).err().unwrap();
    assert_eq!(err.to_string(), "s.toml: links[0].queue.limit_rule: unknown rule \"all\" (expected \"waiting\" or \"ns2\")");
}

#[test]
fn queue_reports_delay_percentiles_and_the_time_at_each_length() {
    // 528-byte datagrams at twice the rate of a 1 Mb/s link behind 4 waiting places: the
    // queue stays full, so nearly every packet waits 4 transmissions (4 x 4.224 ms).
    let (_, r) = run_with(&overloaded("{ limit = 4 }"), &[]);
    let q = r.queues.iter().find(|q| q.link == "A->B").unwrap();
    let full = 4.0 * 528.0 * 8.0 / 1e6 * 1e3;
    for p in [q.delay_p50_ms, q.delay_p95_ms, q.delay_p99_ms].map(Option::unwrap) {
        assert!((p / full - 1.0).abs() < 0.03, "{p} vs {full}");
    }
    assert!(q.delay_max_ms >= q.delay_p99_ms.unwrap() && q.delay_max_ms <= full * 1.01, "{}", q.delay_max_ms);
    assert!(q.mean_delay_ms <= q.delay_max_ms);
    // Lengths 0 to 4, one bin each, times summing to the 2 s measured, most of it at 4.
    assert_eq!(q.len_hist_from, q.len_hist_to);
    assert_eq!(*q.len_hist_to.last().unwrap(), 4);
    let period = r.measured_s * 1e9;
    assert_eq!(q.len_hist_ns.iter().sum::<u64>(), period.round() as u64);
    assert!(*q.len_hist_ns.last().unwrap() as f64 > 0.9 * period, "{:?}", q.len_hist_ns);
    let mean: f64 = q.len_hist_from.iter().zip(&q.len_hist_ns).map(|(l, t)| *l as f64 * *t as f64 / period).sum();
    assert!((mean - q.mean_len_packets).abs() < 1e-6, "{mean} vs {}", q.mean_len_packets);
    // A queue nothing waited in: zeros, and all the time at length 0.
    let back = r.queues.iter().find(|q| q.link == "B->A");
    if let Some(b) = back {
        assert_eq!((b.delay_p99_ms, b.delay_max_ms), (Some(0.0), 0.0));
    }
}

#[test]
fn a_report_without_queue_distributions_differs_only_in_them() {
    let text = overloaded("{ discipline = \"red\", limit = 20, min_th = 3, max_th = 9, w_q = 0.1, byte_mode = false }");
    let (_, kept) = run_with(&text, &[]);
    let (_, none) = run_with(&text, &["report.queue_distributions=false"]);
    let json = |r: &ccsim::report::Report| serde_json::to_value(r).unwrap();
    let (mut kept, mut none) = (json(&kept), json(&none));
    let fields = ["delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "len_hist_from", "len_hist_to", "len_hist_ns"];
    for (k, n) in kept["queues"].as_array_mut().unwrap().iter_mut().zip(none["queues"].as_array_mut().unwrap()) {
        let (k, n) = (k.as_object_mut().unwrap(), n.as_object_mut().unwrap());
        assert!(k["delay_p99_ms"].is_f64() && k["len_hist_ns"].as_array().is_some_and(|b| !b.is_empty()), "{k:?}");
        for f in fields {
            let gone = n.remove(f).unwrap();
            assert!(gone.is_null() || gone.as_array().is_some_and(|b| b.is_empty()), "{f}: {gone}");
            k.remove(f);
        }
    }
    assert_eq!(kept, none);
    // The waiting happened: the report without distributions still has its mean and maximum.
    assert!(none["queues"][0]["delay_max_ms"].as_f64().unwrap() > 0.0);
}
