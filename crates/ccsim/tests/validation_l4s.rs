//! L4S end to end: TCP Prague (ECT(1), Accurate ECN) through DualPI2 (RFC 9332) on a
//! 100 Mb/s bottleneck, checked against the specifications' own claims (no reference
//! simulator has both): the L4S queue's 99th-percentile delay at most 2 ms (RFC 9330's
//! "consistently low queuing delay", RFC 9332's 1 ms step), a Prague and a CUBIC flow
//! sharing the link within a 2:1 rate ratio either way (the coupling's purpose, RFC 9332
//! section 2.1), and the Classic queue held near its 15 ms target meanwhile; and two
//! DualPI2 hops in a row turning none of the first hop's marks into drops.
//!
//! These are the short runs of the test command; `scripts/validate_l4s.py` runs the longer
//! ones and writes the rows of docs/validation.md.

mod common;
use ccsim::engine::Simulation;
use ccsim::report::Report;
use ccsim::trace::packet_log::{Event, Record};
use common::bulk::bottleneck;
use common::*;

/// The packet log's `ecn` values (the IP field) of ECT(1) and CE: the L4S queue's packets.
const ECT1: u8 = 0b01;
const CE: u8 = 0b11;

/// Flows S_i -> D_i across R1 -> R2 (100 Mb/s, 20 ms, DualPI2 marking, 1000 packets),
/// base RTT 44 ms; `flows` is the `[[flows]]` tables. The packet log keeps the bottleneck's
/// enqueues and dequeues after the warm-up.
fn scenario(n: u32, flows: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
warmup = "5s"
seed = 3
hosts = ["S{{1..{n}}}", "D{{1..{n}}}"]
routers = ["R1", "R2"]
[[links]]
between = ["S{{1..{n}}}", "R1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "100Mbps"
delay = "20ms"
queue = {{ discipline = "dualpi2", limit = 1000, signal = "ecn" }}
[[links]]
between = ["R2", "D{{1..{n}}}"]
rate = "1Gbps"
delay = "1ms"
{flows}
[packet_log]
events = ["enqueue", "dequeue"]
links = ["R1->R2"]
max_events = 20000000
"#
    )
}

/// The queueing delays (ms) at the bottleneck after the warm-up, of the L4S queue's packets
/// and of the Classic queue's: each dequeue matched with its packet's enqueue.
fn sojourns(sim: &Simulation, from_s: f64) -> (Vec<f64>, Vec<f64>) {
    let records: Vec<Record> = sim.packet_log.as_ref().expect("the log").records(sim.now);
    let mut waiting: std::collections::HashMap<(u32, u32, u32, u8), std::collections::VecDeque<f64>> = Default::default();
    let (mut l4s, mut classic) = (Vec::new(), Vec::new());
    for r in &records {
        let key = (r.flow, r.seq, r.size, r.kind);
        let t = r.t.as_secs_f64();
        match r.event {
            Event::Enqueue => waiting.entry(key).or_default().push_back(t),
            Event::Dequeue => {
                let Some(at) = waiting.get_mut(&key).and_then(|q| q.pop_front()) else { continue };
                if at < from_s {
                    continue;
                }
                let ms = (t - at) * 1e3;
                if r.ecn == ECT1 || r.ecn == CE {
                    l4s.push(ms);
                } else {
                    classic.push(ms);
                }
            }
            _ => {}
        }
    }
    (l4s, classic)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn goodput_mbps(r: &Report, i: usize) -> f64 {
    r.flows[i].goodput_bps / 1e6
}

#[test]
fn prague_keeps_the_l4s_queue_p99_under_2_ms_with_the_link_full() {
    let flows = r#"[[flows]]
from = "S{1..4}"
to = "D{1..4}"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "prague" }"#;
    let (sim, r) = run(&scenario(4, flows, "15s"));
    let (mut l4s, classic) = sojourns(&sim, 5.0);
    assert!(classic.is_empty(), "Prague's packets are all ECT(1) or CE");
    let p99 = percentile(&mut l4s, 0.99);
    let q = bottleneck(&r);
    let used = r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 100e6;
    eprintln!("Prague x4: L4S p99 {p99:.3} ms, mean {:.3} ms, goodput {used:.3} of the link, marks {}, drops {}", mean(&l4s), q.marks_dequeue, q.drops);
    assert!(p99 <= 2.0, "L4S p99 queueing delay {p99} ms");
    assert!(used > 0.9, "goodput {used} of the link");
    assert_eq!(q.drops, 0, "marks, no drops");
    for f in &sim.flows {
        let tx = f.sender().unwrap();
        assert!(tx.cfg.accecn && tx.cfg.ect1, "Prague negotiated AccECN and sends ECT(1)");
    }
}

#[test]
fn a_prague_and_a_cubic_flow_share_within_2_to_1() {
    let flows = r#"[[flows]]
from = "S1"
to = "D1"
tcp = { variant = "prague" }
[[flows]]
from = "S2"
to = "D2"
start = "0.1s"
tcp = { variant = "cubic" }"#;
    let (sim, r) = run(&scenario(2, flows, "25s"));
    let (prague, cubic) = (goodput_mbps(&r, 0), goodput_mbps(&r, 1));
    let (mut l4s, classic) = sojourns(&sim, 5.0);
    let ratio = prague / cubic;
    eprintln!(
        "Prague {prague:.1} Mb/s, CUBIC {cubic:.1} Mb/s (ratio {ratio:.2}); L4S p99 {:.2} ms; Classic mean {:.2} ms",
        percentile(&mut l4s, 0.99),
        mean(&classic)
    );
    assert!((0.5..=2.0).contains(&ratio), "Prague/CUBIC rate ratio {ratio}");
    assert!(prague + cubic > 80.0, "the link is used: {} Mb/s", prague + cubic);
}

/// Five Prague and five CUBIC flows: the Classic queue near its 15 ms target (the PI
/// controller's), the L4S queue's p99 still under 2 ms, and the two kinds' mean rates
/// within 2:1.
#[test]
fn with_classic_load_the_classic_queue_stays_near_15_ms_and_l4s_near_empty() {
    let flows = r#"[[flows]]
from = "S{1..5}"
to = "D{1..5}"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "prague" }
[[flows]]
from = "S{6..10}"
to = "D{6..10}"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "cubic" }"#;
    let (sim, r) = run(&scenario(10, flows, "20s"));
    let (mut l4s, classic) = sojourns(&sim, 5.0);
    let prague = (0..5).map(|i| goodput_mbps(&r, i)).sum::<f64>() / 5.0;
    let cubic = (5..10).map(|i| goodput_mbps(&r, i)).sum::<f64>() / 5.0;
    let (p99, classic_mean) = (percentile(&mut l4s, 0.99), mean(&classic));
    eprintln!("5+5: Prague {prague:.1} Mb/s, CUBIC {cubic:.1} Mb/s each; L4S p99 {p99:.2} ms; Classic mean {classic_mean:.2} ms");
    assert!((12.0..=18.0).contains(&classic_mean), "Classic mean queueing delay {classic_mean} ms");
    assert!(p99 <= 2.0, "L4S p99 {p99} ms");
    assert!((0.5..=2.0).contains(&(prague / cubic)), "Prague/CUBIC {}", prague / cubic);
}

/// A parking lot of two DualPI2 hops (100 Mb/s each): a Prague flow across both, and one
/// Prague flow across each hop alone, so both hops mark. The long flow's packets that the
/// first hop marked CE and the second signals again are marked again, not dropped (Linux's
/// `INET_ECN_set_ce`): the second hop drops nothing.
#[test]
fn two_dualpi2_hops_keep_the_first_hops_marks() {
    let text = r#"
duration = "8s"
warmup = "2s"
seed = 5
hosts = ["S{1..3}", "D{1..3}"]
routers = ["R1", "R2", "R3"]
[[links]]
between = ["S{1..2}", "R1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "100Mbps"
delay = "5ms"
queue = { discipline = "dualpi2", limit = 1000, signal = "ecn" }
[[links]]
between = ["R2", "R3"]
rate = "100Mbps"
delay = "5ms"
queue = { discipline = "dualpi2", limit = 1000, signal = "ecn" }
[[links]]
between = ["S3", "R2"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R2", "D2"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R3", "D1"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["R3", "D3"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
from = "S{1..3}"
to = "D{1..3}"
tcp = { variant = "prague" }
"#;
    let (sim, r) = run(text);
    let marks = |name: &str| {
        let q = &sim.net.links[link(&sim, name)].queue.stats;
        (q.marks_dequeue + q.marks_early + q.marks_forced, q.drops())
    };
    let (first, second) = (marks("R1->R2"), marks("R2->R3"));
    eprintln!("first hop marks {} drops {}; second hop marks {} drops {}", first.0, first.1, second.0, second.1);
    assert!(first.0 > 100 && second.0 > 100, "both hops mark");
    assert_eq!(second.1, 0, "the second hop drops nothing, CE packets included");
    assert!(r.flows.iter().all(|f| f.goodput_bps > 10e6), "{:?}", r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>());
}
