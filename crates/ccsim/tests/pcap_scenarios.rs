//! Scenarios with `[[pcap]]` captures, read back with tshark: tshark's own TCP analysis,
//! ECN bits, spoofed ACKs and ACC controls agree with ccsim's counters. Ignored by a
//! plain `cargo test` (they need tshark); `scripts/test.sh` runs them with `--ignored` where
//! tshark is installed.

use std::path::{Path, PathBuf};

mod common;
use common::{link, run_in, tshark};

/// A directory of its own for each test's captures.
fn out_dir(test: &str) -> PathBuf {
    common::out_dir("pcap_scenarios", test)
}

/// Frames matching a display filter.
fn count(path: &Path, filter: &str) -> u64 {
    tshark::frames(path, filter).len() as u64
}

/// No malformed frame, no expert error (bad checksums are errors), and every checksum good.
fn assert_clean(path: &Path) {
    // 8388608 is PI_ERROR.
    let bad = "_ws.malformed || _ws.expert.severity >= 8388608 \
               || ip.checksum.status != 1 || tcp.checksum.status == 0 || udp.checksum.status == 0";
    assert_eq!(count(path, bad), 0, "{path:?}: malformed frames or bad checksums");
}

/// One NewReno flow S -> D. The capture is the sender's access link, both ways (node S):
/// every segment the sender emits and every ACK it receives passes the capture point, and
/// all loss is downstream of it (1% random loss on R2->D; the queues are large enough
/// never to drop).
const LOSSY: &str = r#"
duration = "30s"
seed = 3
hosts = ["S", "D"]
routers = ["R1", "R2"]

[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "1ms"
queue = { limit = 1000 }

[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "10ms"
queue = { limit = 1000 }

[[links]]
from = "R2"
to = "D"
rate = "100Mbps"
delay = "1ms"
loss = 0.01

[[links]]
from = "D"
to = "R2"
rate = "100Mbps"
delay = "1ms"

[[flows]]
name = "f"
from = "S"
to = "D"
start = "0.5s"
tcp = { variant = "newreno", mss = 1000, rwnd = 60000 }

[[pcap]]
file = "sender.pcapng"
nodes = ["S"]
"#;

#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn tcp_analysis_matches_the_senders_counters() {
    tshark::require();
    let dir = out_dir("lossy");
    let sim = run_in(LOSSY, &dir);
    let path = dir.join("sender.pcapng");
    assert_clean(&path);

    let f = &sim.flows[0];
    let (tx, rx) = (f.sender().unwrap().stats, f.receiver().unwrap().stats);
    let (up, down) = (link(&sim, "S->R1"), link(&sim, "R1->S"));
    assert_eq!(sim.net.links[link(&sim, "R2->D")].queue.stats.drops(), 0);
    assert_eq!(f.net.reverse_dropped, 0, "no ACK is lost");
    // Everything both links transmitted is in the file, on its interface.
    for l in [up, down] {
        let name = &sim.net.links[l].name;
        assert_eq!(count(&path, &format!("frame.interface_name == \"{name}\"")), sim.net.links[l].stats.tx_packets, "{name}");
    }
    assert_eq!(count(&path, "tcp.len > 0"), tx.packets_sent);
    assert_eq!(count(&path, "tcp.len == 0"), rx.acks_sent);

    let retx = count(&path, "tcp.analysis.retransmission");
    let spurious = count(&path, "tcp.analysis.spurious_retransmission");
    let fast = count(&path, "tcp.analysis.fast_retransmission");
    let dup = count(&path, "tcp.analysis.duplicate_ack");
    let ooo = count(&path, "tcp.analysis.out_of_order");
    eprintln!(
        "lossy: tshark retransmission {retx} (fast {fast}), spurious {spurious}, out-of-order {ooo}, duplicate ACKs {dup}; \
         ccsim retransmitted {} (fast {}, timeouts {}), dupacks sent {} received {}, random losses {}",
        tx.retransmitted_packets,
        tx.fast_retransmits,
        tx.timeouts,
        rx.dupacks_sent,
        tx.dupacks_received,
        sim.net.links[link(&sim, "R2->D")].stats.lost_random
    );
    assert!(tx.fast_retransmits > 10 && rx.dupacks_sent > 30, "the loss must show");
    // Every retransmitted segment passes the capture point. tshark flags it a
    // retransmission, or a spurious one if an ACK it saw already covered it, or
    // out-of-order when it left within 3 ms of the highest segment (tshark's threshold
    // without a handshake RTT: NewReno's retransmission after a partial ACK can do that).
    // Fast retransmissions are a subset of retransmissions in both.
    assert_eq!(fast, tx.fast_retransmits, "fast retransmissions");
    assert_eq!(retx + spurious + ooo, tx.retransmitted_packets, "retransmissions");
    // No ACK is lost, so every duplicate ACK the receiver sends reaches the sender.
    assert_eq!(dup, rx.dupacks_sent, "duplicate ACKs");
    assert_eq!(dup, tx.dupacks_received, "duplicate ACKs");

    // Timestamps: the first frame is the first segment, sent at 0.5 s, leaving the
    // 100 Mb/s transmitter 1040 * 8 / 1e8 s = 83.2 us later.
    let first = tshark::run(&path, &["-c", "1", "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.len", "-e", "frame.interface_name"]);
    assert_eq!(first, ["0.500083200\t1000\tS->R1"]);
}

#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn sack_blocks_in_a_capture_are_what_the_receiver_sent() {
    tshark::require();
    // The lossy path with SACK at both ends.
    let text = LOSSY.replace("rwnd = 60000 }", "rwnd = 60000, sack = true }");
    let dir = out_dir("sack");
    let sim = run_in(&text, &dir);
    let path = dir.join("sender.pcapng");
    assert_clean(&path);
    let f = &sim.flows[0];
    let (tx, rx) = (f.sender().unwrap().stats, f.receiver().unwrap().stats);
    // What the links carried (at the end, ACKs are still on their way to the sender).
    assert_eq!(count(&path, "tcp.len > 0"), sim.net.links[link(&sim, "S->R1")].stats.tx_packets);
    assert_eq!(count(&path, "tcp.len == 0"), sim.net.links[link(&sim, "R1->S")].stats.tx_packets);
    let sacks = count(&path, "tcp.options.sack");
    let dup = count(&path, "tcp.analysis.duplicate_ack");
    let retx = count(&path, "tcp.analysis.retransmission");
    let spurious = count(&path, "tcp.analysis.spurious_retransmission");
    let ooo = count(&path, "tcp.analysis.out_of_order");
    eprintln!(
        "sack: {sacks} ACKs with SACK, tshark duplicate ACKs {dup}, retransmission {retx}, spurious {spurious}, out-of-order {ooo}; \
         ccsim retransmitted {} (recoveries {}, timeouts {}), dupacks sent {} received {}",
        tx.retransmitted_packets, tx.fast_retransmits, tx.timeouts, rx.dupacks_sent, tx.dupacks_received
    );
    assert!(tx.fast_retransmits > 10 && rx.dupacks_sent > 30, "the loss must show");
    // Every duplicate ACK reports what arrived out of order (ACKs that fill part of a hole
    // carry blocks too), except those of segments received twice with nothing buffered,
    // which tshark also counts as duplicates. No block reads as a D-SACK (RFC 2883), which
    // is not implemented.
    let plain = count(&path, "tcp.analysis.duplicate_ack && !tcp.options.sack");
    assert!(plain <= rx.duplicate_packets, "{plain} duplicate ACKs without SACK, {} duplicate segments", rx.duplicate_packets);
    assert_eq!(dup, rx.dupacks_sent + plain);
    assert!(sacks > dup);
    assert_eq!(count(&path, "tcp.options.sack.dsack"), 0);
    assert_eq!(retx + spurious + ooo, tx.retransmitted_packets, "retransmissions");
    // Each block lies above the ACK and holds whole segments (ISN 0, MSS 1000); the option
    // makes the ACK 4 + 8 bytes per block longer.
    let args = ["-o", "tcp.relative_sequence_numbers:FALSE", "-Y", "tcp.options.sack", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"];
    let fields = ["ip.len", "tcp.ack", "tcp.options.sack.count", "tcp.options.sack_le", "tcp.options.sack_re"];
    let mut args = args.to_vec();
    for field in fields {
        args.extend(["-e", field]);
    }
    let rows = tshark::run(&path, &args);
    assert_eq!(rows.len() as u64, sacks);
    for row in rows {
        let c: Vec<&str> = row.split('\t').collect();
        let num = |s: &str| s.split(',').map(|x| x.parse::<u64>().unwrap()).collect::<Vec<_>>();
        let (len, ack, n, le, re) = (num(c[0])[0], num(c[1])[0], num(c[2])[0], num(c[3]), num(c[4]));
        assert!((1..=3).contains(&n) && le.len() == n as usize && re.len() == n as usize, "{row}");
        assert_eq!(len, 40 + 4 + 8 * n, "{row}");
        for (l, r) in le.iter().zip(&re) {
            assert!(ack < *l && l < r && l % 1000 == 0 && r % 1000 == 0, "{row}");
        }
    }
}

/// Four ECN flows through a RED/ECN bottleneck R1->R2. Node R1 is captured: the access
/// links (CWR leaving the senders, ECE reaching them) and the bottleneck after its queue
/// (CE marks).
const ECN: &str = r#"
duration = "20s"
seed = 2
hosts = ["S{1..4}", "D{1..4}"]
routers = ["R1", "R2"]

[[links]]
between = ["S{1..4}", "R1"]
rate = "100Mbps"
delay = "1ms"
queue = { limit = 1000 }

[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "10ms"
queue = { discipline = "red", limit = 200, min_th = 5, max_th = 15, max_p = 0.1, signal = "ecn" }
queue_reverse = { limit = 200 }

[[links]]
between = ["R2", "D{1..4}"]
rate = "100Mbps"
delay = "1ms"

[[flows]]
name = "f"
from = "S{1..4}"
to = "D{1..4}"
start = { uniform = ["0s", "1s"] }
tcp = { variant = "newreno", mss = 1000, ecn = true }

[[pcap]]
file = "r1.pcapng"
nodes = ["R1"]
snaplen = 60
"#;

#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn ecn_marks_and_echoes_are_where_ccsim_puts_them() {
    tshark::require();
    let dir = out_dir("ecn");
    let sim = run_in(ECN, &dir);
    let path = dir.join("r1.pcapng");
    assert_clean(&path);

    let q = sim.net.links[link(&sim, "R1->R2")].queue.stats;
    let marks = q.marks_early + q.marks_forced;
    let senders: Vec<_> = sim.flows.iter().map(|f| f.sender().unwrap().stats).collect();
    let receivers: Vec<_> = sim.flows.iter().map(|f| f.receiver().unwrap().stats).collect();
    let reductions: u64 = senders.iter().map(|s| s.ecn_reductions).sum();
    let ce_received: u64 = receivers.iter().map(|r| r.ce_received).sum();

    let ce = count(&path, "ip.dsfield.ecn == 3 && frame.interface_name == \"R1->R2\"");
    let ce_elsewhere = count(&path, "ip.dsfield.ecn == 3 && frame.interface_name != \"R1->R2\"");
    let ect = count(&path, "ip.dsfield.ecn == 2 && frame.interface_name == \"R1->R2\"");
    let ece = count(&path, "tcp.flags.ece == 1 && frame.interface_name matches \"^R1->S\"");
    let cwr = count(&path, "tcp.flags.cwr == 1 && frame.interface_name matches \"^S[0-9]+->R1\"");
    eprintln!(
        "ecn: tshark CE {ce} (elsewhere {ce_elsewhere}), ECT(0) {ect}, ECE {ece}, CWR {cwr}; \
         ccsim marks {marks}, CE received {ce_received}, ECN reductions {reductions}, queue drops {}",
        q.drops()
    );
    assert!(marks > 20, "the queue must mark");
    assert_eq!(ce, marks, "CE after the marking queue = its marks");
    assert_eq!(ce_elsewhere, 0, "nothing is marked before the bottleneck");
    // Marked packets still queued or propagating when the run stops have not reached a receiver.
    let ce_in_network = sim.net.links.iter().flat_map(|l| l.packets(&sim.net.pipes, sim.now)).filter(|p| p.ecn == ccsim::net::Ecn::Ce).count() as u64;
    assert_eq!(ce, ce_received + ce_in_network, "no marked packet is lost downstream");
    assert!(ece > 0);
    // Each ECN reduction sets CWR on the sender's next new segment: captured when it has
    // left the sender's transmitter, unless the run stopped before that.
    for (i, f) in sim.flows.iter().enumerate() {
        let tx = f.sender().unwrap();
        let l = &sim.net.links[link(&sim, &format!("S{}->R1", i + 1))];
        let cwr_flag = |p: &&ccsim::net::Packet| p.flags & ccsim::packet::flags::CWR != 0;
        let not_yet_sent = tx.cwr_pending() as u64
            + l.queue.iter().filter(cwr_flag).count() as u64
            + l.transmitting_packet(&sim.net.pipes, sim.now).filter(cwr_flag).is_some() as u64;
        let captured = count(&path, &format!("tcp.flags.cwr == 1 && frame.interface_name == \"{}\"", l.name));
        assert_eq!(captured + not_yet_sent, tx.stats.ecn_reductions, "{}: CWR", l.name);
    }
    assert!(cwr + 4 >= reductions && cwr <= reductions);
}

/// `scenarios/ackspoof_net1.toml`, shortened: R2 spoofs ACKs toward the senders behind R0
/// and R1; its links out toward them are captured.
#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn spoofed_acks_carry_dscp_cs1() {
    tshark::require();
    let text = common::scenario_file("ackspoof_net1.toml").replace("duration = \"20s\"", "duration = \"6s\"").replace("warmup = \"5s\"", "warmup = \"0s\"");
    let text = format!("{text}\n[[pcap]]\nfile = \"r2.pcapng\"\nlinks = [\"R2->R0\", \"R2->R1\"]\n");
    let dir = out_dir("spoof");
    let sim = run_in(&text, &dir);
    let path = dir.join("r2.pcapng");
    assert_clean(&path);

    let spoofer = sim.mechanism::<ccsim::router::AckSpoofing>().and_then(|m| m.spoofers().next()).unwrap().stats;
    let per_flow: u64 = sim.flows.iter().map(|f| f.net.spoofed_acks).sum();
    for l in ["R2->R0", "R2->R1"] {
        assert_eq!(sim.net.links[link(&sim, l)].queue.stats.drops(), 0, "{l} drops nothing");
    }
    let cs1 = count(&path, "ip.dsfield.dscp == 8");
    let cs1_tcp_acks = count(&path, "ip.dsfield.dscp == 8 && tcp.len == 0 && tcp.flags.ack == 1");
    let dup = count(&path, "ip.dsfield.dscp == 8 && tcp.analysis.duplicate_ack");
    eprintln!("spoof: tshark CS1 {cs1} ({dup} of them duplicate ACKs); ccsim spoofed ACKs sent {}", spoofer.spoofed_acks_sent);
    assert!(spoofer.spoofed_acks_sent > 20);
    assert_eq!(per_flow, spoofer.spoofed_acks_sent);
    assert_eq!(cs1, spoofer.spoofed_acks_sent, "every spoofed ACK crosses R2->R0 or R2->R1");
    assert_eq!(cs1_tcp_acks, cs1);
    assert_eq!(count(&path, "ip.dsfield.dscp != 0 && ip.dsfield.dscp != 8"), 0);
    assert_eq!(count(&path, "udp"), 0);
}

/// `scenarios/acc_dumbbell.toml`, shortened: R1's ACC queue sends controls to the ACC
/// senders B1, B2; node R1 is captured, in classic pcap.
#[test]
#[ignore = "needs tshark: scripts/test.sh runs it with --ignored where tshark is installed"]
fn acc_controls_are_udp_to_port_7777() {
    tshark::require();
    let text = common::scenario_file("acc_dumbbell.toml").replace("duration = \"200s\"", "duration = \"30s\"");
    let text = format!("{text}\n[[pcap]]\nfile = \"r1.pcap\"\nnodes = [\"R1\"]\n");
    let dir = out_dir("acc");
    let sim = run_in(&text, &dir);
    let path = dir.join("r1.pcap");
    assert_clean(&path);

    let r1 = sim.net.nodes.iter().position(|n| n.name == "R1").unwrap();
    let acc = sim.mechanism::<ccsim::router::acc::Acc>().unwrap().stats[r1];
    let controls = count(&path, "udp.dstport == 7777");
    let cs2 = count(&path, "ip.dsfield.dscp == 16");
    let received: u64 = sim.flows.iter().filter_map(|f| f.sender()).map(|s| s.stats.acc_controls).sum();
    eprintln!("acc: tshark controls {controls} (CS2 {cs2}); ccsim controls sent {}, lost {}, received {received}", acc.controls_sent, acc.controls_lost);
    assert!(acc.controls_sent > 5);
    assert_eq!(acc.controls_lost, 0);
    assert_eq!(controls, acc.controls_sent, "every control leaves R1 toward B1 or B2");
    assert_eq!(controls, received);
    assert_eq!(cs2, controls);
    assert_eq!(count(&path, "udp.dstport == 7777 && !(ip.src == 10.0.0.25)"), 0, "controls come from R1");
    assert_eq!(count(&path, "ip.dsfield.dscp == 8"), 0);
}

#[test]
fn scenario_errors_name_the_field() {
    let dir = out_dir("errors");
    let base = LOSSY.split("[[pcap]]").next().unwrap().to_string();
    let err =
        |extra: &str| ccsim::scenario::load_in(&format!("{base}[[pcap]]\n{extra}\n"), "<test>", &[], None, Some(&dir)).err().expect("an error").to_string();
    assert!(err("file = \"a.pcap\"\nlinks = [\"S->R1\", \"S->D\"]").contains("pcap[0].links[1]: unknown link \"S->D\""));
    assert!(err("file = \"a.pcap\"\nnodes = [\"X\"]").contains("pcap[0].nodes[0]: unknown node \"X\""));
    assert!(err("file = \"a.pcap\"").contains("pcap[0]: captures no link"));
    assert!(err("file = \"a.pcap\"\nlinks = [\"S->R1\"]\nformat = \"erf\"").contains("pcap[0].format: unknown format"));
    assert!(err("file = \"a.pcap\"\nlinks = [\"S->R1\"]\nsnaplen = 0").contains("pcap[0].snaplen: must be between"));
    assert!(err("links = [\"S->R1\"]").contains("pcap[0]: missing field `file`"));
    assert!(err("file = \"a.pcap\"\nlinks = [\"S->R1\"]\n[[pcap]]\nfile = \"a.pcap\"\nnodes = [\"S\"]").contains("pcap[1].file:"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("plain"), "").unwrap();
    let e = err("file = \"plain/a.pcap\"\nlinks = [\"S->R1\"]");
    assert!(e.contains("pcap[0].file: cannot create"), "{e}");
}

/// `pcap+=` overrides add captures; with no capture the simulation has no tracer at all.
#[test]
fn overrides_add_captures() {
    let dir = out_dir("overrides");
    let base = LOSSY.split("[[pcap]]").next().unwrap().replace("30s", "2s");
    let plain = ccsim::scenario::load_in(&base, "<test>", &[], None, Some(&dir)).unwrap();
    assert!(plain.trace.is_none());
    let o = vec!["pcap+={ file = \"x/a.pcap\", links = [\"R1->R2\"], snaplen = 65535 }".to_string()];
    let mut sim = ccsim::scenario::load_in(&base, "<test>", &o, None, Some(&dir)).unwrap();
    sim.run();
    sim.finish_traces().unwrap();
    let bytes = std::fs::read(dir.join("x/a.pcap")).unwrap();
    assert_eq!(&bytes[..4], &0xa1b2_3c4du32.to_le_bytes(), "classic pcap, nanosecond magic, from the file name");
    let l = &sim.net.links[link(&sim, "R1->R2")].stats;
    assert_eq!(bytes.len() as u64, 24 + 16 * l.tx_packets + l.tx_bytes, "whole frames with snaplen 65535");
}
