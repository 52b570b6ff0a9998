//! Accurate ECN (RFC 9768) from a scenario: the handshake the builder plays on the two
//! ends' settings (AccECN, or the fallback to RFC 3168's feedback, or no ECN), the count of
//! CE marks the receiver feeds back and the sender reads (every mark the bottleneck made
//! reaches the sender's count exactly), and the ACE field as tshark reads it in a capture.

use ccsim::packet::Ecn;
use ccsim::tcp::EcnEcho;

mod common;
use common::{link, run_in, tshark};

/// One NewReno flow S -> D through a 10 Mb/s bottleneck whose step marker marks every
/// packet that finds 20 queued; `tcp` is added to the flow's `tcp` table. The capture is
/// node S's link, both ways.
fn scenario(tcp: &str) -> String {
    transfer(tcp, "")
}

/// The same, the flow a transfer of `bytes` (a line `bytes = N`, or nothing for bulk).
fn transfer(tcp: &str, bytes: &str) -> String {
    format!(
        r#"
duration = "5s"
seed = 1
hosts = ["S", "D"]
routers = ["R1", "R2"]
[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
between = ["R1", "R2"]
rate = "10Mbps"
delay = "10ms"
queue = {{ discipline = "step", k = 20, limit = 200, signal = "ecn" }}
[[links]]
between = ["R2", "D"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
from = "S"
to = "D"
{bytes}
tcp = {{ mss = 1000, ecn = true{tcp} }}
[[pcap]]
file = "s.pcap"
nodes = ["S"]
"#
    )
}

fn marks(q: &ccsim::queue::fifo::QueueStats) -> u64 {
    q.marks_early + q.marks_forced + q.marks_dequeue
}

fn out_dir(test: &str) -> std::path::PathBuf {
    common::out_dir("accecn", test)
}

#[test]
fn the_handshake_settles_on_what_both_ends_support() {
    let cases = [
        ("", EcnEcho::Rfc3168, true, false),
        (", accecn = true", EcnEcho::AccEcn, true, true),
        (r#", accecn = true, receiver_ecn = "rfc3168""#, EcnEcho::Rfc3168, true, false),
        (r#", accecn = true, receiver_ecn = "none""#, EcnEcho::Rfc3168, false, false),
        (r#", receiver_ecn = "none""#, EcnEcho::Rfc3168, false, false),
    ];
    for (tcp, echo, ecn, accecn) in cases {
        let dir = out_dir("handshake");
        let sim = run_in(&scenario(tcp), &dir);
        let f = &sim.flows[0];
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        assert_eq!((rx.cfg.ecn_echo, tx.cfg.ecn, tx.cfg.accecn), (echo, ecn, accecn), "{tcp}");
        let q = &sim.net.links[link(&sim, "R1->R2")].queue.stats;
        if ecn {
            assert!(marks(q) > 0 && tx.stats.ecn_reductions > 0, "{tcp}: marks {}", marks(q));
        } else {
            assert_eq!(marks(q), 0, "{tcp}: Not-ECT packets are dropped, not marked");
        }
    }
}

#[test]
fn bad_accecn_settings_name_their_key() {
    let e = ccsim::scenario::load(&scenario(", accecn = true").replace("ecn = true,", "ecn = false,"), "<test>", &[], None).err().unwrap();
    assert!(e.to_string().contains("flows[0].tcp.accecn"), "{e}");
    let e = ccsim::scenario::load(&scenario(r#", receiver_ecn = "classic""#), "<test>", &[], None).err().unwrap();
    assert!(e.to_string().contains("flows[0].tcp.receiver_ecn") && e.to_string().contains("\"rfc3168\""), "{e}");
}

/// Every CE mark the bottleneck makes reaches the receiver's count, and the ACKs carry it to
/// the sender, whose reading ends where the receiver's count does.
#[test]
fn the_ace_field_carries_every_mark_to_the_sender() {
    let dir = out_dir("count");
    // 4 MB: done well before the end, so no packet or ACK is still on its way.
    let sim = run_in(&transfer(", accecn = true", "app = \"finite\"\nbytes = 4000000"), &dir);
    let f = &sim.flows[0];
    let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
    let q = &sim.net.links[link(&sim, "R1->R2")].queue.stats;
    assert!(marks(q) > 20, "marks {}", marks(q));
    assert!(tx.completed_at.is_some(), "the transfer ends");
    assert_eq!(rx.stats.ce_received, marks(q), "every mark arrives (nothing is lost after the bottleneck)");
    assert_eq!(tx.accecn_count(), Some(5 + rx.stats.ce_received as u32), "the sender's s.cep: 5 + every mark");
    assert_eq!(tx.stats.window_reductions, tx.stats.ecn_reductions, "marks, no losses");

    if !tshark::available() {
        return;
    }
    let path = dir.join("s.pcap");
    // ACKs: AE, CWR and ECE as tshark reads them equal the receiver's count modulo 8; the last
    // ACK holds 5 + every mark.
    let rows = tshark::run(&path, &["-Y", "tcp.len == 0", "-T", "fields", "-e", "tcp.flags.ae", "-e", "tcp.flags.cwr", "-e", "tcp.flags.ece"]);
    assert_eq!(rows.len() as u64, rx.stats.acks_sent);
    let bit = |s: &str| (s == "1" || s == "True") as u32;
    let ace: Vec<u32> = rows.iter().map(|r| r.split('\t').map(bit).fold(0, |v, b| v * 2 + b)).collect();
    assert_eq!(ace[0], 5, "the first ACK: the initial count");
    assert_eq!(*ace.last().unwrap(), (5 + rx.stats.ce_received as u32) % 8);
    assert!(ace.windows(2).any(|w| w[1] < w[0]), "the field wraps");
    // Data: ECT(0) (the flow is not L4S), ACE = 5, no CWR ever.
    let data =
        tshark::run(&path, &["-Y", "tcp.len > 0", "-T", "fields", "-e", "ip.dsfield.ecn", "-e", "tcp.flags.ae", "-e", "tcp.flags.cwr", "-e", "tcp.flags.ece"]);
    assert!(data.iter().all(|r| r.split('\t').next() == Some(&(Ecn::Ect0 as u8).to_string()[..])), "{:?}", data.first());
    assert!(data.iter().all(|r| r.split('\t').skip(1).map(bit).fold(0, |v, b| v * 2 + b) == 5), "{:?}", data.first());
}

/// TCP Prague asks for AccECN by default; against an RFC 3168 receiver it keeps ECT(1) with
/// RFC 3168's feedback, against one without ECN it sends Not-ECT and answers losses only,
/// and moves data in all three.
#[test]
fn prague_asks_for_accecn_and_falls_back_with_the_receiver() {
    for (receiver, ecn, accecn) in [("accecn", true, true), ("rfc3168", true, false), ("none", false, false)] {
        let tcp = format!(r#", variant = "prague", receiver_ecn = "{receiver}""#);
        let sim = run_in(&scenario(&tcp), &out_dir("prague"));
        let (tx, rx) = (sim.flows[0].sender().unwrap(), sim.flows[0].receiver().unwrap());
        assert_eq!((tx.cfg.ecn, tx.cfg.accecn, tx.cfg.ect1), (ecn, accecn, true), "{receiver}");
        assert_eq!(tx.stats.ecn_reductions > 0, ecn, "{receiver}: ECN reductions only with ECN");
        assert!(rx.stats.delivered_bytes > 2_000_000, "{receiver}: {} bytes", rx.stats.delivered_bytes);
    }
}
