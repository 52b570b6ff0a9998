//! RDP (`transport = "rdp"`) end to end: reliable, ordered delivery through random loss and
//! a path that reorders; ACC on an RDP dumbbell (controls in packets, filters upstream);
//! packet conservation; the segments in a capture are RDP segments that decode; and the
//! scenario checks of the `rdp` table.

mod common;
use ccsim::engine::{Simulation, Transport};
use ccsim::net::Kind;
use ccsim::rdp::{wire, RdpReceiver, RdpSender, State};
use ccsim::tcp::sender::ReductionCause;
use common::*;

fn rdp(sim: &Simulation, i: usize) -> (&RdpSender, &RdpReceiver) {
    match &sim.flows[i].transport {
        Transport::Rdp { tx, rx } => (tx, rx),
        _ => panic!("flow {i} is not RDP"),
    }
}

/// S - A - C - R with a backup A - B - C ten times as long as A - C. A - C fails for 0.5 s
/// every 3 s; IP fast reroute moves the traffic to the backup at once and back to A - C at
/// each repair, when the segments sent after it overtake those still on the backup. S - A
/// loses 5% of the packets each way. One RDP transfer of `bytes` from S to R.
fn reordering(bytes: u64, extra: &str) -> String {
    let mut text = format!(
        r#"
duration = "120s"
seed = 7
hosts = ["S", "R"]
routers = ["A", "B", "C"]
[[links]]
between = ["S", "A"]
rate = "10Mbps"
delay = "2ms"
loss = 0.05
[[links]]
between = ["A", "C"]
rate = "10Mbps"
delay = "5ms"
[[links]]
between = ["A", "B"]
rate = "10Mbps"
delay = "25ms"
[[links]]
between = ["B", "C"]
rate = "10Mbps"
delay = "25ms"
[[links]]
between = ["C", "R"]
rate = "10Mbps"
delay = "2ms"
[[flows]]
name = "rdp"
from = "S"
to = "R"
transport = "rdp"
app = "finite"
bytes = {bytes}
rdp = {{ isn = 4294967000 {extra} }}
[ipfrr]
detection_delay = "0ms"
hold_down = "10s"
"#
    );
    for k in 0..30 {
        text += &format!("[[failures]]\nbetween = [\"A\", \"C\"]\ndown = \"{}s\"\nduration = \"0.5s\"\n", 1 + 3 * k);
    }
    text
}

#[test]
fn every_segment_arrives_once_and_in_order_through_loss_and_reordering() {
    let bytes = 3_000_000 + 321;
    let (sim, r) = run(&reordering(bytes, ""));
    let (tx, rx) = rdp(&sim, 0);
    let f = &r.flows[0];
    assert!(tx.completed_at.is_some(), "the transfer finished: {f:?}");
    // Every byte reached the application once: a duplicate delivery would count twice, a
    // missing segment would hold the rest back. The receiver's last in-sequence segment is
    // the transfer's last (its sequence numbers wrapped: the ISS is 296 below 2^32).
    assert_eq!(rx.stats.delivered_bytes, bytes);
    assert_eq!(rx.rcv_cur().0, 4_294_967_000u32.wrapping_add(bytes.div_ceil(1000) as u32));
    assert_eq!((rx.held(), tx.state(), rx.state()), (0, State::Closed, State::Closed));
    // The path did its worst: losses both ways, reordering at each repair, duplicates.
    assert!(f.forward_dropped > 50 && f.reverse_dropped > 50, "{f:?}");
    assert!(r.ipfrr.transient_repairs >= 5, "{:?}", r.ipfrr);
    assert!(rx.stats.out_of_order_packets > 50 && rx.stats.duplicate_packets > 0, "{:?}", rx.stats);
    assert!(tx.stats.fast_retransmits > 10 && rx.rdp_stats.eacks_sent > 50);
    assert_conserved(&sim);
}

#[test]
fn without_loss_reordering_alone_costs_no_data() {
    // The same path with the access link clean: what arrives out of order is held and
    // delivered; the only losses are on the failing link and in the sender's queue.
    let text = reordering(2_000_000, "").replace("loss = 0.05", "loss = 0.0");
    let (sim, r) = run(&text);
    let (tx, rx) = rdp(&sim, 0);
    assert_eq!(rx.stats.delivered_bytes, 2_000_000);
    assert!(rx.stats.out_of_order_packets > 0);
    let lost: u64 = r.links.iter().map(|l| l.lost_down + l.lost_random).sum::<u64>() + r.totals.queue_drops;
    assert_eq!(r.flows[0].forward_dropped + r.flows[0].reverse_dropped, lost);
    assert!(r.links.iter().map(|l| l.lost_down).sum::<u64>() > 0);
    assert!(tx.completed_at.is_some());
    assert_conserved(&sim);
}

#[test]
fn acc_on_an_rdp_dumbbell_sends_controls_in_packets_and_filters_upstream() {
    let (sim, r) = run(&scenario_file("rdp_dumbbell.toml"));
    let at = |name: &str| &r.acc.iter().find(|a| a.router == name).unwrap().counters;
    let (r0, r1) = (at("R0"), at("R1"));
    assert!(r1.controls_sent > 10, "the congested router controls: {r1:?}");
    assert!(r0.filters_installed > 10 && r0.packets_filtered > 0, "filters go to R0, upstream: {r0:?}");
    assert_eq!((r1.filters_installed, r1.packets_filtered), (0, 0));
    for (i, f) in r.flows.iter().enumerate() {
        assert_eq!(f.transport, "rdp");
        assert!(f.acc_closes > 0 && f.acc_controls_received >= f.acc_closes, "{f:?}");
        // Controls carry windows in packets: an ACC close takes about half a window of
        // some tens of packets off, not thousands (bytes) or fractions.
        assert!((1.0..40.0).contains(&f.acc_close_mean_segments), "{}", f.acc_close_mean_segments);
        assert!(f.goodput_bps > 400_000.0, "{f:?}");
        let (tx, _) = rdp(&sim, i);
        assert!(tx.cwnd_packets() >= 1 && tx.cwnd() % 1000 == 0, "whole packets");
    }
    assert!(r.totals.goodput_bps > 1_300_000.0, "the bottleneck is used: {}", r.totals.goodput_bps);
    assert!((r.totals.jain_fairness - 1.0).abs() < 0.05, "RDP flows count in the fairness index");
    assert_conserved(&sim);
    // ACC off: the same flows, no control, no filter.
    let (off, r) = run_with(&scenario_file("rdp_dumbbell.toml"), &["links.2.queue.acc=false"]);
    assert!(r.acc.is_empty() && r.flows.iter().all(|f| f.acc_closes == 0 && f.window_reductions > 0));
    assert_conserved(&off);
}

#[test]
fn a_control_cuts_an_rdp_window_to_half_what_the_dropped_segment_carried() {
    // Step the dumbbell to the first ACC close of a flow: the router asked for half the
    // window the dropped segment carried, in packets (at least two), and the sender's window
    // then was at least that carried window (between reductions it only grows).
    let mut sim = load(&scenario_file("rdp_dumbbell.toml"));
    let mut t = 0.0;
    loop {
        t += 0.001;
        assert!(t < 60.0, "no ACC close in 60 s");
        sim.run_until(ccsim::sim::SimTime::from_secs_f64(t));
        let (tx, _) = rdp(&sim, 0);
        if tx.stats.acc_reductions > 0 {
            let before = tx.cwnd_packets() + (tx.stats.acc_reduction_bytes / 1000) as u32;
            assert_eq!(tx.last_reduction.map(|r| r.1), Some(ReductionCause::AccControl));
            assert_eq!(tx.cwnd_packets(), tx.ssthresh_packets(), "the control sets both");
            assert!((2..=before.div_ceil(2).max(2)).contains(&tx.cwnd_packets()), "{} after {before}", tx.cwnd_packets());
            break;
        }
    }
}

#[test]
fn a_capture_holds_rdp_segments_that_decode() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("validation_rdp");
    let _ = std::fs::remove_dir_all(&dir);
    let text = scenario_file("rdp_dumbbell.toml").replace("duration = \"60s\"", "duration = \"5s\"").replace("warmup = \"5s\"", "")
        + "[[pcap]]\nfile = \"r0.pcap\"\nlinks = [\"R0->R1\", \"R1->R0\"]\nsnaplen = 65535\n";
    let mut sim = ccsim::scenario::load_in(&text, "<test>", &[], None, Some(&dir)).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.finish_traces().unwrap();
    let frames = read_pcap(&dir.join("r0.pcap"));
    let (mut syn, mut data, mut eack) = (0, 0, 0);
    for f in &frames {
        assert_eq!(f[0] >> 4, 4, "IPv4");
        if f[9] != 27 {
            continue; // an ACC control (UDP)
        }
        let (h, d) = wire::decode(&f[20..]).unwrap_or_else(|e| panic!("{e}: {f:?}"));
        let fl = h.fields.flags;
        syn += (fl & ccsim::rdp::flags::SYN != 0) as u32;
        eack += (fl & ccsim::rdp::flags::EAK != 0) as u32;
        if !d.is_empty() {
            data += 1;
            assert!(h.fields.acc.is_some_and(|a| a.cwnd >= 1), "data carries the ACC state");
            assert_eq!(d.len(), 1000);
        }
    }
    assert_eq!(syn, 4, "two SYNs and two SYN-ACKs");
    assert!(data > 100 && eack < data, "{data} data segments, {eack} EACKs");
    let sent: u64 = ["R0->R1", "R1->R0"].iter().map(|l| sim.net.links[link(&sim, l)].stats.tx_packets).sum();
    assert_eq!(frames.len() as u64, sent);
    if tshark::available() {
        let path = dir.join("r0.pcap");
        let rdp = tshark::frames(&path, "ip.proto == 27");
        assert_eq!(rdp.len() as u32, frames.iter().filter(|f| f[9] == 27).count() as u32);
        assert!(tshark::frames(&path, "_ws.malformed || ip.checksum.status != 1").is_empty());
    }
}

/// The frames of a classic pcap file (LINKTYPE_RAW: each an IPv4 packet).
fn read_pcap(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap();
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
    assert_eq!(u32_at(20), 101, "LINKTYPE_RAW");
    let (mut at, mut frames) = (24, Vec::new());
    while at < b.len() {
        let caplen = u32_at(at + 8);
        frames.push(b[at + 16..at + 16 + caplen].to_vec());
        at += 16 + caplen;
    }
    frames
}

#[test]
fn rdp_flows_in_a_report_and_their_settings_checked() {
    let (_, r) = run(&reordering(100_000, ", segment_size = 500, init_cwnd = 4, max_outstanding = 16"));
    let f = &r.flows[0];
    assert_eq!((f.transport, f.delivered_bytes, f.new_bytes_sent), ("rdp", 100_000, 100_000));
    assert!(f.completion_time_s.is_some() && f.mean_rtt_ms > 0.0);
    for (over, msg) in [
        ("flows.0.rdp.segment_size=0", "flows[0].rdp.segment_size: must be between 1 and 65000 bytes, got 0"),
        ("flows.0.rdp.max_outstanding=70000", "flows[0].rdp.max_outstanding: must be between 1 and 65535 segments, got 70000"),
        ("flows.0.rdp.init_cwnd=0", "flows[0].rdp.init_cwnd: must be at least 1 packet"),
        ("flows.0.rdp.initial_rto=0", "flows[0].rdp.initial_rto: must be positive"),
        ("flows.0.rdp.variant=\"reno\"", "flows[0].rdp.variant: unknown field `variant`"),
        ("flows.0.tcp.mss=500", "flows[0].tcp: only for `transport = \"tcp\"`"),
        ("flows.0.app=\"cbr\"", "flows[0].app: unknown RDP application \"cbr\""),
    ] {
        let err = ccsim::scenario::load(&reordering(1000, ""), "r.toml", &[over.to_string()], None).err().unwrap_or_else(|| panic!("{over} accepted"));
        assert!(err.to_string().starts_with(&format!("r.toml: {msg}")), "{over}: {err}");
    }
    let (sim, _) = run_with(&scenario_file("rdp_dumbbell.toml"), &["flows.0.rdp.acc=false", "duration=5s", "warmup=0s"]);
    let (tx, _) = rdp(&sim, 0);
    assert!(!tx.cfg.acc);
    assert!(sim.net.links.iter().all(|l| l.packets(&sim.net.pipes, sim.now).all(|p| p.kind != Kind::RdpData || p.acc.is_none())));
}
