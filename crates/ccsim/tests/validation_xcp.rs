//! XCP and RCP end to end, the short subset of `scripts/validate_xcp.py`: flows of unequal
//! RTTs (24 to 84 ms) through one explicit-feedback bottleneck keep it nearly full with
//! nearly no queue and share it fairly, the physics both protocols claim (Katabi et al.
//! 2002, Section 4; Dukkipati and McKeown 2006, Section 3); and a plain NewReno flow through
//! the same queues is served as by tail drop (the routers only read and stamp headers).
//! The comparison with ns-2.35's own XCP is the script's (it needs `ns`).

mod common;
use ccsim::report::Report;
use common::bulk::{bottleneck, utilisation};
use common::*;

/// Three flows S_i -> D_i through R1 -> R2 (20 Mb/s, 10 ms, `discipline`), access delays
/// 1, 8 and 16 ms each way (RTTs 24, 52 and 84 ms), all starting at once.
fn unequal_rtts(discipline: &str, variant: &str) -> String {
    let mut s = format!(
        r#"
duration = "12s"
warmup = "4s"
seed = 1
hosts = ["S{{1..3}}", "D{{1..3}}"]
routers = ["R1", "R2"]
[[links]]
between = ["R1", "R2"]
rate = "20Mbps"
delay = "10ms"
queue = {{ discipline = "{discipline}", limit = 200 }}
"#
    );
    for (i, d) in [(1, 1), (2, 8), (3, 16)] {
        s += &format!("[[links]]\nbetween = [\"S{i}\", \"R1\"]\nrate = \"1Gbps\"\ndelay = \"{d}ms\"\n");
        s += &format!("[[links]]\nbetween = [\"R2\", \"D{i}\"]\nrate = \"1Gbps\"\ndelay = \"{d}ms\"\n");
    }
    s + &format!("[[flows]]\nfrom = \"S{{1..3}}\"\nto = \"D{{1..3}}\"\ntcp = {{ variant = \"{variant}\", mss = 1000, rwnd = 10000000 }}\n")
}

fn jain(r: &Report) -> f64 {
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let (s, q) = (g.iter().sum::<f64>(), g.iter().map(|x| x * x).sum::<f64>());
    s * s / (g.len() as f64 * q)
}

/// The bandwidth-delay product of the shortest RTT, packets of 1040 bytes.
const BDP_24MS: f64 = 20e6 * 0.024 / 8.0 / 1040.0;

fn physics(discipline: &str, variant: &str, min_jain: f64) {
    let (sim, r) = run(&unequal_rtts(discipline, variant));
    let q = bottleneck(&r);
    let u = utilisation(&r);
    let j = jain(&r);
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
    eprintln!("{variant}: utilisation {u:.4}, mean queue {:.2} packets, drops {}, Jain {j:.4}, goodputs {g:.2?} Mb/s", q.mean_len_packets, q.drops);
    assert!(u >= 0.95, "{variant}: utilisation {u}");
    assert!(q.mean_len_packets <= 0.1 * BDP_24MS, "{variant}: mean queue {} packets", q.mean_len_packets);
    assert_eq!(q.drops, 0, "{variant}: {q:?}");
    assert!(j >= min_jain, "{variant}: Jain {j}, goodputs {g:?}");
    assert_conserved(&sim);
}

#[test]
fn xcp_fills_the_link_with_nearly_no_queue_and_shares_it_across_unequal_rtts() {
    physics("xcp", "xcp", 0.95);
}

#[test]
fn rcp_fills_the_link_with_nearly_no_queue_and_shares_it_across_unequal_rtts() {
    physics("rcp", "rcp", 0.95);
}

#[test]
fn other_traffic_passes_the_explicit_routers_as_a_tail_drop_queue() {
    let (_, plain) = run(&unequal_rtts("droptail", "newreno"));
    for d in ["xcp", "rcp"] {
        let (_, r) = run(&unequal_rtts(d, "newreno"));
        let (a, b) = (bottleneck(&plain), bottleneck(&r));
        assert_eq!((a.arrivals, a.departures, a.drops), (b.arrivals, b.departures, b.drops), "{d}");
        let bytes = |r: &Report| r.flows.iter().map(|f| f.delivered_bytes).collect::<Vec<_>>();
        assert_eq!(bytes(&plain), bytes(&r), "{d}");
    }
}
