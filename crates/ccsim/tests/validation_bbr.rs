//! BBR v1 (Cardwell et al. 2016) end to end, checked against what it is built to do: a lone
//! flow on a deep buffer fills the link while keeping about one BDP in flight, so the queue
//! stays far below the buffer (where a loss-based window fills it), and every 10 s without a
//! new minimum RTT it drops its window to 4 packets (ProbeRTT). BBR v3 from its own key does
//! the same with ProbeRTT every 5 s at half the BDP.

mod common;
use common::bulk::{bottleneck, equal_access, utilisation, Bulk};
use common::*;

/// One flow S1 -> D1 across a 10 Mb/s bottleneck, RTT 40 ms (1 + 18 + 1 ms each way), a
/// 500-packet buffer (ten BDPs of 50 packets), 30 s, its cwnd sampled every 10 ms.
fn scenario(variant: &str) -> String {
    let tcp = format!("mss = 1000, rwnd = 100000000, variant = \"{variant}\"");
    let queue = r#"{ discipline = "droptail", limit = 500 }"#;
    let mut t = Bulk { n: 1, rate: "10Mbps", delay: "18ms", queue, tcp: &tcp, duration: "30s", warmup: "5s", seed: 5, access: &equal_access(1) }.toml();
    t.push_str("[[series]]\nkind = \"cwnd\"\nflow = \"flow0\"\ninterval = \"10ms\"\n");
    t.push_str("[[series]]\nkind = \"pacing_rate\"\nflow = \"flow0\"\ninterval = \"10ms\"\n");
    t
}

/// Over 90 % of the link, and about one BDP in flight (cwnd gain 2 caps it at two): the
/// queue holds well under one BDP of the 500-packet buffer. The mean queue, packets.
fn full_link_short_queue(r: &ccsim::report::Report) -> f64 {
    let (u, q) = (utilisation(r), bottleneck(r).mean_len_packets);
    assert!(u > 0.9 && q < 50.0, "utilisation {u}, mean queue {q} packets");
    q
}

#[test]
fn bbr_fills_the_link_with_a_short_queue_and_probes_rtt_every_ten_seconds() {
    let (_, bbr) = run(&scenario("bbr"));
    let q = full_link_short_queue(&bbr);
    let f = &bbr.flows[0];
    assert!(f.timeouts == 0, "{f:?}");
    // ProbeRTT: the window at 4 packets for about 200 ms, about every 10 s.
    let s = &bbr.series[0];
    let mut dips = Vec::new();
    for i in 1..s.t.len() {
        if s.value[i] <= 4.0 && s.value[i - 1] > 4.0 {
            dips.push(s.t[i]);
        }
    }
    assert!((2..=3).contains(&dips.len()), "ProbeRTT at {dips:?}");
    for w in dips.windows(2) {
        assert!((9.5..=11.0).contains(&(w[1] - w[0])), "ProbeRTT every 10 s or so: {dips:?}");
    }
    // The pacing rate: most of the time the gain-1 phases' rate, the link's less 1 %.
    let mut rates: Vec<f64> = bbr.series[1].value.iter().copied().filter(|r| r.is_finite()).collect();
    rates.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    assert!((median / 9.9e6 - 1.0).abs() < 0.02, "median pacing rate {median} bit/s");
    // NewReno on the same buffer fills it, and does not pace.
    let (_, newreno) = run(&scenario("newreno"));
    assert!(newreno.series[1].value.iter().all(|r| r.is_nan()));
    let qn = bottleneck(&newreno).mean_len_packets;
    assert!(qn > 4.0 * q.max(1.0), "NewReno's mean queue {qn} packets, BBR's {q}");
}

#[test]
fn bbr3_from_its_scenario_key_fills_the_link_with_a_short_queue() {
    let (_, r) = run(&scenario("bbr3"));
    full_link_short_queue(&r);
    // ProbeRTT every 5 s at half the BDP (25 of 50 packets): the window dips to it 4 to 6
    // times in 30 s.
    let s = &r.series[0];
    let dips = (1..s.t.len()).filter(|&i| s.value[i] <= 27.0 && s.value[i - 1] > 27.0).count();
    assert!((4..=7).contains(&dips), "{dips} dips");
}
