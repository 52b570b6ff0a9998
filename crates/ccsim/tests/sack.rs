//! SACK end to end (RFC 2018 blocks, RFC 6675 recovery): a window that loses many segments
//! at once, through a whole scenario, against NewReno.

mod common;
use common::{assert_conserved, link, run_with};

/// One flow sends 200 segments; its slow start overshoots a small drop-tail buffer (1.5
/// Mb/s, 20 ms each way plus access links, 15 packets): the window doubles well past what
/// the path holds (about 8 packets in flight plus the buffer), and some twenty segments of
/// one window are dropped.
const OVERSHOOT: &str = r#"
duration = "10s"
hosts = ["S", "D"]
routers = ["R1", "R2"]

[[links]]
between = ["S", "R1"]
rate = "10Mbps"
delay = "1ms"

[[links]]
between = ["R1", "R2"]
rate = "1.5Mbps"
delay = "20ms"
queue = { limit = 15 }

[[links]]
between = ["R2", "D"]
rate = "10Mbps"
delay = "1ms"

[[flows]]
name = "f"
from = "S"
to = "D"
app = "finite"
bytes = 200000
tcp = { variant = "newreno", mss = 1000 }
"#;

struct Outcome {
    drops: u64,
    recoveries: u64,
    timeouts: u64,
    retransmitted: u64,
    done: f64,
}

fn outcome(sets: &[&str]) -> Outcome {
    let (sim, _) = run_with(OVERSHOOT, sets);
    assert_conserved(&sim);
    let f = &sim.flows[0];
    let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
    assert_eq!(rx.stats.delivered_bytes, 200_000, "{sets:?}");
    let o = Outcome {
        drops: sim.net.links[link(&sim, "R1->R2")].queue.stats.drops(),
        recoveries: tx.stats.fast_retransmits,
        timeouts: tx.stats.timeouts,
        retransmitted: tx.stats.retransmitted_packets,
        done: tx.completed_at.expect("the transfer completes").as_secs_f64(),
    };
    eprintln!("{sets:?}: {} drops, {} recoveries, {} timeouts, {} retransmitted, done at {:.3} s", o.drops, o.recoveries, o.timeouts, o.retransmitted, o.done);
    o
}

#[test]
fn sack_repairs_a_window_of_many_losses_without_newrenos_timeout_or_one_round_trip_per_hole() {
    for profile in ["profile=rfc", "profile=ns2"] {
        let sack = outcome(&[profile, "flows.0.tcp.sack=true"]);
        let impatient = outcome(&[profile]);
        let steady = outcome(&[profile, "flows.0.tcp.partial_ack_timer=slow-but-steady"]);
        // SACK: one recovery per congestion event, no timeout, each dropped segment resent
        // about once (a rescue retransmission may add one).
        assert!(sack.drops >= 20, "{profile}: the overshoot must drop many segments of a window");
        assert_eq!(sack.timeouts, 0, "{profile}");
        assert!(sack.retransmitted <= sack.drops + sack.recoveries, "{profile}");
        // NewReno, RFC 6582's timer: the timeout arrives before the holes are repaired, and
        // going back N resends segments the receiver already had.
        assert!(impatient.timeouts >= 1, "{profile}");
        assert!(impatient.retransmitted > impatient.drops, "{profile}");
        // NewReno restarting the timer on every partial ACK: no timeout, one hole per round
        // trip (some 45 ms), which takes much longer.
        assert_eq!(steady.timeouts, 0, "{profile}");
        for (name, other) in [("impatient", &impatient), ("slow-but-steady", &steady)] {
            assert!(sack.done + 0.2 < other.done, "{profile}: SACK done at {:.3} s, NewReno ({name}) at {:.3} s", sack.done, other.done);
        }
    }
}

#[test]
fn sack_composes_with_ecn_delayed_acks_das_and_acc() {
    // Each run delivers everything and conserves packets; the SACK sender meets ECN marks
    // (RED marking), delayed ACKs with DAS at the receiver, and ACC controls.
    let red = "links.1.queue={ discipline = \"red\", limit = 15, min_th = 3, max_th = 10, max_p = 0.1, signal = \"ecn\" }";
    let acc = "links.1.queue={ limit = 15, acc = true }";
    let cases: [&[&str]; 3] = [
        &["flows.0.tcp.sack=true", "flows.0.tcp.ecn=true", red],
        &["flows.0.tcp.sack=true", "flows.0.tcp.delayed_ack=true", "flows.0.tcp.das=true"],
        &["flows.0.tcp.sack=true", "flows.0.tcp.acc=true", acc],
    ];
    for (i, sets) in cases.into_iter().enumerate() {
        let (sim, _) = run_with(OVERSHOOT, sets);
        assert_conserved(&sim);
        let f = &sim.flows[0];
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        assert_eq!(rx.stats.delivered_bytes, 200_000, "{sets:?}");
        eprintln!(
            "{sets:?}: recoveries {}, timeouts {}, ECN reductions {}, ACC reductions {}, retransmitted {}, done at {:?}",
            tx.stats.fast_retransmits, tx.stats.timeouts, tx.stats.ecn_reductions, tx.stats.acc_reductions, tx.stats.retransmitted_packets, tx.completed_at
        );
        assert_eq!(tx.stats.timeouts, 0, "{sets:?}");
        match i {
            0 => assert!(tx.stats.ecn_reductions >= 1),
            1 => assert!(tx.stats.fast_retransmits >= 1),
            _ => assert!(tx.stats.acc_reductions >= 1),
        }
    }
}

/// PRR (RFC 6937) in the same overshoot: the transfer completes with every byte delivered,
/// and recovery sends no more than RFC 6675's `cwnd - pipe` would (no more retransmissions).
/// `profile = "linux"` turns PRR, SACK and the CWR response on; explicit keys win.
#[test]
fn prr_recovers_the_overshoot_and_the_linux_profile_turns_it_on() {
    let plain = outcome(&["flows.0.tcp.sack=true"]);
    let prr = outcome(&["flows.0.tcp.sack=true", "flows.0.tcp.prr=true"]);
    assert!(prr.recoveries >= 1 && prr.retransmitted <= plain.retransmitted + 2, "{} / {}", prr.retransmitted, plain.retransmitted);
    let (sim, _) = run_with(OVERSHOOT, &["profile=linux"]);
    let tx = sim.flows[0].sender().unwrap();
    assert!(tx.cfg.sack && tx.cfg.prr && tx.cfg.limited_transmit);
    assert_eq!((tx.cfg.init_cwnd, tx.cfg.ecn_response), (10, ccsim::tcp::EcnResponse::Cwr));
    assert_eq!((tx.cfg.rto_min_on, tx.cfg.head_retransmit_resets_timer), (ccsim::tcp::RtoMinOn::Variance, true));
    assert!(tx.cfg.recover_again, "tcp_time_to_recover() tests lost_out");
    let rx = sim.flows[0].receiver().unwrap();
    assert_eq!(rx.cfg.delayed_ack, Some(ccsim::sim::Dur::from_millis(40)), "an ACK per two segments, TCP_DELACK_MIN");
    assert!(tx.rto() >= tx.srtt().unwrap() + ccsim::sim::Dur::from_millis(200), "RTO >= SRTT + min_rto");
    let halves_cwnd = matches!(&tx.cfg.cc, ccsim::tcp::CcConfig::Reno(c) if c.reno.ssthresh_from == ccsim::tcp::SsthreshFrom::Cwnd);
    assert!(halves_cwnd, "tcp_reno_ssthresh(): ssthresh from cwnd");
    // ns-2's ticks keep RFC 6298's rule, whatever the profile says.
    let (sim, _) = run_with(OVERSHOOT, &["profile=linux", "flows.0.tcp.rtt_arithmetic=ns2"]);
    assert_eq!(sim.flows[0].sender().unwrap().cfg.rto_min_on, ccsim::tcp::RtoMinOn::Rto);
    let (sim, _) = run_with(OVERSHOOT, &["profile=linux", "flows.0.tcp.prr=false", "flows.0.tcp.init_cwnd=1"]);
    let tx = sim.flows[0].sender().unwrap();
    assert!(!tx.cfg.prr && tx.cfg.init_cwnd == 1);
}

/// RACK-TLP (RFC 8985) in the same overshoot: every byte delivered, without a timeout and
/// with no more retransmissions than RFC 6675's DupThresh; the `linux` profile turns it on
/// with SACK, and leaves it off when SACK is off.
#[test]
fn rack_recovers_the_overshoot_and_the_linux_profile_turns_it_on() {
    let plain = outcome(&["flows.0.tcp.sack=true"]);
    let rack = outcome(&["flows.0.tcp.sack=true", "flows.0.tcp.rack=true"]);
    assert!(rack.recoveries >= 1 && rack.timeouts <= plain.timeouts, "{} / {}", rack.timeouts, plain.timeouts);
    assert!(rack.retransmitted <= plain.retransmitted + 2, "{} / {}", rack.retransmitted, plain.retransmitted);
    for (sets, on) in
        [(&["profile=linux"][..], true), (&["profile=linux", "flows.0.tcp.sack=false"], false), (&["profile=linux", "flows.0.tcp.rack=false"], false)]
    {
        let (sim, _) = run_with(OVERSHOOT, sets);
        let tx = sim.flows[0].sender().unwrap();
        assert_eq!((tx.cfg.rack, tx.rack().is_some()), (on, on), "{sets:?}");
    }
}
