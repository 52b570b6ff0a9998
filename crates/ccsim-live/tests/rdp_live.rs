//! RDP end to end on real sockets: every node of a scenario a thread with its own socket.

use ccsim_live::plan::Plan;
use ccsim_live::report::NodeReport;

const KEY: &[u8] = b"a test key of sixteen bytes or more";

fn run(text: &str, overrides: &[&str]) -> Vec<NodeReport> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let plan = Plan::load(text, "<test>", &overrides).unwrap_or_else(|e| panic!("{e}"));
    ccsim_live::run_threads(&plan, Some(KEY), None).unwrap()
}

fn node<'a>(r: &'a [NodeReport], name: &str) -> &'a NodeReport {
    r.iter().find(|n| n.name == name).unwrap()
}

const LINE: &str = r#"
name = "lossy"
duration = "15s"
hosts = ["S", "D"]
routers = ["R"]
[[links]]
between = ["S", "R"]
rate = "20Mbps"
delay = "2ms"
[[links]]
between = ["R", "D"]
rate = "20Mbps"
delay = "2ms"
[[flows]]
name = "f"
from = "S"
to = "D"
transport = "rdp"
app = "finite"
bytes = 1000000
rdp = { min_rto = "50ms" }
[[live.flakeway]]
node = "R"
loss = 0.05
jitter = "4ms"
"#;

#[test]
fn rdp_delivers_every_byte_once_and_in_order_through_five_percent_loss_and_reordering() {
    let r = run(LINE, &[]);
    let d = node(&r, "D");
    let s = node(&r, "S");
    let fw = node(&r, "R").flakeway;
    eprintln!("flakeway {fw:?}; D {:?}; S {:?}", d.flows, s.flows);
    assert!(fw.dropped as f64 > 0.03 * fw.matched as f64, "the flakeway dropped about 5%: {fw:?}");
    assert_eq!(d.flows[0].bytes_delivered, 1_000_000, "every byte");
    assert_eq!(d.flows[0].delivery_errors, 0, "once, in order, intact");
    assert!(s.flows[0].retransmissions > 0);
}

fn acc_live() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/acc_live.toml")).unwrap()
}

#[test]
fn acc_on_the_fig8_topology_sets_filters_upstream_and_controls_the_senders() {
    let r = run(&acc_live(), &["duration=8s"]);
    let (c, i1, i2) = (node(&r, "C"), node(&r, "I1"), node(&r, "I2"));
    for n in &r {
        eprintln!("{}: fwd {} cpu/pkt {:.1} us acc {:?} flows {:?}", n.name, n.forwarded, n.cpu_per_forwarded_us, n.acc, n.flows);
    }
    let neck = c.queues.iter().find(|q| q.link == "C->D").unwrap();
    eprintln!("C->D: {neck:?}");
    assert!(c.acc.controls_sent > 0 && c.acc.filter_requests_sent > 0);
    assert!(i1.acc.filters_set + i2.acc.filters_set > 0, "filters at the intermediate nodes");
    assert_eq!(c.acc.filters_set, 0, "none at the congested node: its upstream neighbours are routers");
    // Run with a MAC key: the filters read the window each segment carries (not the
    // segment with its MAC, which fails its checksum), so the senders' reactions end them.
    assert!(i1.acc.filters_removed_behaviour + i2.acc.filters_removed_behaviour > 0, "{:?} {:?}", i1.acc, i2.acc);
    let received: u64 = r.iter().map(|n| n.acc.controls_received).sum();
    assert!(received > 0, "the senders took controls");
    assert!(r.iter().all(|n| n.acc.bad_mac == 0 && n.malformed == 0));
    let d = node(&r, "D");
    assert!(d.flows.iter().all(|f| f.delivery_errors == 0 && f.bytes_delivered > 0));
    // The shaper checked against the far end: what D received from C over what C -> D
    // should carry at its utilisation.
    let received_bps = d.received_bytes_from["C"] as f64 * 8.0 / d.window_s;
    let error = received_bps / (neck.rate_bps as f64 * neck.utilization) - 1.0;
    assert!(error.abs() < 0.05, "{error}");
    assert!(neck.mean_queue > 0.0 && neck.mean_queue <= neck.limit as f64, "{}", neck.mean_queue);
}

#[test]
fn a_misbehaving_sender_ignores_the_controls_and_a_udp_source_keeps_its_rate() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/acc_live_misbehaving.toml")).unwrap();
    let r = run(&text, &["duration=6s", "warmup=2s"]);
    let (e1, e2, d) = (node(&r, "E1"), node(&r, "E2"), node(&r, "D"));
    let sent = |n: &NodeReport, g: &str| n.flows.iter().find(|f| f.group == g).cloned().unwrap();
    let (good, bad) = (sent(e1, "e1"), sent(e2, "e2"));
    eprintln!("e1 {good:?}\ne2 {bad:?}");
    assert!(good.acc_controls_received > 0 && good.acc_controls_obeyed > 0, "the well-behaved sender obeys");
    assert!(bad.acc_controls_received > 0 && bad.acc_controls_obeyed == 0, "the misbehaving one receives and ignores");
    let cbr = sent(d, "cbr");
    assert_eq!(cbr.delivery_errors, 0);
    // 2 Mb/s of payload sent (UDP datagrams of 1000 bytes, 28 more on the wire): what reaches
    // D is that less C's drops.
    assert!(cbr.goodput_bps > 1.4e6 && cbr.goodput_bps < 2.0e6, "{}", cbr.goodput_bps);
    assert!(sent(e2, "cbr").segments_sent > 1000);
}

#[test]
fn a_data_flakeway_matches_the_data_segments_of_a_run_with_a_key() {
    // With a key each segment's MAC follows it: the flakeway reads the segment as the
    // header bounds it, so it sees which segments carry data.
    let r = run(LINE, &["duration=5s", "live.flakeway.0.matches=\"data\""]);
    let fw = node(&r, "R").flakeway;
    assert!(fw.matched >= 1000, "every data segment of the 1 MB transfer: {fw:?}");
    assert_eq!(node(&r, "D").flows[0].bytes_delivered, 1_000_000);
}
