//! ACK spoofing checked against an RFC 5681 Reno sender: on a hand-built packet sequence
//! through the spoofer, and end to end (one fast recovery per spoof event, the needless
//! retransmission and its discard, sequence wrap-around, asymmetric paths, conservation),
//! plus the P1 scenario files in their four AQM variants.

mod common;
use ccsim::engine::Simulation;
use ccsim::net::{Kind, Packet};
use ccsim::report::Report;
use ccsim::router::ack_spoof::Passage;
use ccsim::router::{AckSpoofer, SpoofConfig};
use ccsim::signal::Action;
use ccsim::sim::SimTime;
use ccsim::tcp::{CcConfig, Endpoints, NewRenoConfig, ReceiverConfig, Recovery, SenderConfig, TcpReceiver, TcpSender};
use common::*;
use std::collections::VecDeque;

const MSS: u32 = 1000;

/// One Reno connection through a router with a spoofer, driven by hand: each step carries
/// the oldest data packet in flight through the router to the receiver and its ACK back.
struct Wire {
    tx: TcpSender,
    rx: TcpReceiver,
    sp: AckSpoofer,
    in_flight: VecDeque<Packet>,
    ms: u64,
}

impl Wire {
    fn new(cfg: SpoofConfig) -> Wire {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 10_000, dport: 80 };
        let tcfg = SenderConfig { recovery: Recovery::Reno, cc: CcConfig::Reno(NewRenoConfig::reno()), mss: MSS, ..SenderConfig::default() };
        let rcfg = ReceiverConfig::default();
        let mut w = Wire {
            tx: TcpSender::new(tcfg, ends, rcfg.rwnd),
            rx: TcpReceiver::new(rcfg, ends, 0),
            sp: AckSpoofer::new(cfg),
            in_flight: VecDeque::new(),
            ms: 0,
        };
        let mut out = Vec::new();
        w.tx.start(w.now(), &mut out);
        w.in_flight.extend(out);
        w
    }

    fn now(&self) -> SimTime {
        SimTime(self.ms * 1_000_000)
    }

    fn ack_sender(&mut self, p: &Packet) {
        let mut out = Vec::new();
        self.tx.on_ack(p, self.now(), &mut out);
        self.in_flight.extend(out);
    }

    /// Carries the next data packet: the router's queue signals congestion for it if
    /// `signal`, and the network loses it after the router if `lose`.
    fn step(&mut self, signal: bool, lose: bool) {
        self.ms += 1;
        let now = self.now();
        let pkt = self.in_flight.pop_front().expect("data in flight");
        if self.sp.on_arrival(&pkt, now) == Passage::Discard {
            return;
        }
        if signal {
            let (action, burst) = self.sp.on_signal(&pkt, Action::EnqueueAndSpoof, now);
            assert_eq!(action, Action::EnqueueAndSpoof);
            for _ in 0..burst.map_or(0, |b| b.count) {
                self.ack_sender(&burst.unwrap().pkt);
            }
        }
        if lose {
            return;
        }
        let mut acks = Vec::new();
        self.rx.on_data(&pkt, now, &mut acks);
        for a in acks {
            let passage = self.sp.on_arrival(&a, now);
            if let Passage::SpoofBefore(b) = passage {
                (0..b.count).for_each(|_| self.ack_sender(&b.pkt));
            }
            self.ack_sender(&a);
            if let Passage::SpoofAfter(b) = passage {
                (0..b.count).for_each(|_| self.ack_sender(&b.pkt));
            }
        }
    }

    /// Steps until the sender's window has reached `segs` segments.
    fn grow_to(&mut self, segs: u32) {
        while self.tx.cwnd() < segs * MSS {
            self.step(false, false);
        }
    }
}

#[test]
fn below_real_ack_halves_the_window_and_the_router_discards_the_needless_retransmission() {
    let mut w = Wire::new(SpoofConfig::default());
    w.grow_to(20);
    let flight = w.tx.flight_size();
    let una = w.tx.snd_una();
    w.step(true, false);
    // The spoofs (numbered una) went just before the real ACK una + MSS: the third one made
    // the sender halve and retransmit una at once; the real ACK then ended fast recovery.
    let s = w.tx.stats;
    assert_eq!((s.fast_retransmits, s.window_reductions, s.retransmitted_packets), (1, 1, 1));
    assert_eq!(w.tx.ssthresh(), flight / 2);
    assert_eq!(w.tx.cwnd(), w.tx.ssthresh(), "Reno leaves fast recovery on the real ACK");
    assert!(!w.tx.in_recovery());
    let rtx = *w.in_flight.back().unwrap();
    assert_eq!(rtx.seq, una, "the needless retransmission is sent (RFC 5681 3.2 step 2)");
    for _ in 0..100 {
        w.step(false, false);
    }
    assert_eq!(w.sp.stats.retransmissions_discarded, 1);
    assert_eq!(w.rx.stats.duplicate_packets, 0, "no needless retransmission reached the receiver");
    assert_eq!(w.tx.stats.window_reductions, 1);

    // Without the discard the same retransmission reaches the receiver.
    let mut w = Wire::new(SpoofConfig { discard_retransmission: false, ..SpoofConfig::default() });
    w.grow_to(20);
    w.step(true, false);
    for _ in 0..100 {
        w.step(false, false);
    }
    assert_eq!((w.tx.stats.window_reductions, w.rx.stats.duplicate_packets), (1, 1));
}

#[test]
fn spoofing_a_sender_already_in_fast_recovery_does_not_cut_again() {
    for below in [true, false] {
        let mut w = Wire::new(SpoofConfig { below_real_ack: below, ..SpoofConfig::default() });
        w.grow_to(10);
        w.step(true, false); // the router learns the flow (and spoofs once)
        w.grow_to(10);
        let reductions = w.tx.stats.window_reductions;
        w.step(false, true); // a real loss after the router
        while !w.tx.in_recovery() {
            w.step(false, false);
        }
        assert_eq!(w.tx.stats.window_reductions, reductions + 1);
        let (ssthresh, cwnd) = (w.tx.ssthresh(), w.tx.cwnd());
        // A signal during fast recovery: the spoofs carry snd_una, so they are duplicates
        // that only inflate the window.
        w.step(true, false);
        assert!(w.sp.stats.spoof_events >= 2, "the router did spoof");
        assert!(w.tx.in_recovery());
        assert_eq!(w.tx.stats.window_reductions, reductions + 1, "below = {below}: no second cut");
        assert_eq!(w.tx.ssthresh(), ssthresh);
        assert_eq!(w.tx.cwnd(), cwnd + (3 + 1) * MSS, "three spoofs and one real duplicate inflate");
    }
}

/// Four Reno flows through R1 -> R2 (10 Mb/s, RED with ACK spoofing, a buffer that never
/// fills); `extra` adds top-level keys.
fn dumbbell(queue_extra: &str, tcp_extra: &str, extra: &str) -> String {
    format!(
        r#"
duration = "15s"
hosts = ["S{{1..4}}", "D{{1..4}}"]
routers = ["R1", "R2"]
{extra}
[[links]]
between = ["S{{1..4}}", "R1"]
rate = "100Mbps"
delay = {{ uniform = ["1ms", "5ms"] }}
[[links]]
from = "R1"
to = "R2"
rate = "10Mbps"
delay = "10ms"
queue = {{ discipline = "red", limit = 1000, min_th = 10, max_th = 40, max_p = 0.1, signal = "spoof" {queue_extra} }}
[[links]]
from = "R2"
to = "R1"
rate = "10Mbps"
delay = "10ms"
[[links]]
between = ["R2", "D{{1..4}}"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
name = "f"
from = "S{{1..4}}"
to = "D{{1..4}}"
start = {{ uniform = ["0s", "0.5s"] }}
jitter = "0.1ms"
tcp = {{ variant = "reno", mss = 1000 {tcp_extra} }}
"#
    )
}

/// Spoofed ACKs of flow `fi` still in the network.
fn spoofs_in_network(sim: &Simulation, fi: u32) -> u64 {
    let hit = |p: &&Packet| p.flow == fi && p.kind == Kind::SpoofedAck;
    sim.net.links.iter().map(|l| l.packets(&sim.net.pipes, sim.now).filter(hit).count() as u64).sum()
}

/// Every burst of spoofed duplicates that reached its sender started exactly one fast
/// recovery, and nothing else did.
fn assert_one_recovery_per_spoof_event(sim: &Simulation) {
    for (i, f) in sim.flows.iter().enumerate() {
        let tx = f.sender().unwrap();
        assert_eq!(f.net.reverse_dropped, 0);
        let delivered = f.net.spoofed_acks - spoofs_in_network(sim, i as u32);
        assert!(delivered > 10, "{}: too few spoofs to test ({delivered})", f.name());
        assert_eq!(tx.stats.fast_retransmits, delivered / 3, "{}", f.name());
        assert_eq!((tx.stats.timeouts, tx.stats.window_reductions), (0, tx.stats.fast_retransmits), "{}", f.name());
    }
}

#[test]
fn end_to_end_each_spoof_event_is_one_fast_recovery() {
    // A large asymmetric threshold: the start-up trains of forced signals must not turn
    // into drops (real losses would start fast recoveries of their own).
    for below in [true, false] {
        let extra = format!("[ack_spoofing]\nspoof_below_real_ack = {below}\nasymmetric_threshold = 1000");
        let (sim, r) = run(&dumbbell("", "", &extra));
        let q = r.queues.iter().find(|q| q.link == "R1->R2").unwrap();
        assert_eq!(q.drops, 0, "below = {below}: every signal is a spoof");
        assert!(q.spoof_signals > 0);
        assert_one_recovery_per_spoof_event(&sim);
        let rx_dups: u64 = sim.flows.iter().map(|f| f.receiver().unwrap().stats.duplicate_packets).sum();
        if below {
            // Discard is on by default with below_real_ack: no needless retransmission
            // reaches a receiver, though the sender sent one per fast retransmit.
            assert_eq!(rx_dups, 0);
            let sp = &r.spoofers[0].counters;
            let fr: u64 = sim.flows.iter().map(|f| f.sender().unwrap().stats.fast_retransmits).sum();
            assert!(sp.retransmissions_discarded <= fr && sp.retransmissions_discarded + 4 >= fr, "{sp:?}, {fr} fast retransmits");
        } else {
            assert!(rx_dups > 0, "spoofing at once without discard delivers needless retransmissions");
        }
    }
}

#[test]
fn without_discard_every_needless_retransmission_reaches_the_receiver() {
    let extra = "[ack_spoofing]\ndiscard_retransmission = false\nasymmetric_threshold = 1000";
    let (sim, _) = run(&dumbbell("", "", extra));
    assert_one_recovery_per_spoof_event(&sim);
    for f in &sim.flows {
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        // Each fast retransmit resends a segment the receiver already has; the last one
        // may still be on its way.
        assert!(rx.stats.duplicate_packets <= tx.stats.fast_retransmits && rx.stats.duplicate_packets + 1 >= tx.stats.fast_retransmits, "{}", f.name());
    }
}

#[test]
fn sequence_numbers_wrap_during_spoofing() {
    let isn = u32::MAX - 1_999_999; // 2 MB below 2^32: each flow wraps after about 6 s
    let extra = "[ack_spoofing]\nasymmetric_threshold = 1000";
    let mut sim = load(&dumbbell("", &format!(", isn = {isn}"), extra));
    sim.run_until(SimTime::from_secs_f64(4.0));
    let before: Vec<u64> = sim.flows.iter().map(|f| f.net.spoofed_acks).collect();
    for f in &sim.flows {
        assert!(f.sender().unwrap().snd_una().0 >= isn, "{} wrapped too early", f.name());
    }
    sim.run();
    for (i, f) in sim.flows.iter().enumerate() {
        assert!(f.sender().unwrap().snd_una().0 < isn, "{} did not wrap", f.name());
        assert!(f.net.spoofed_acks > before[i] + 30, "{}: spoofed after the wrap", f.name());
    }
    assert_one_recovery_per_spoof_event(&sim);
    let rx_dups: u64 = sim.flows.iter().map(|f| f.receiver().unwrap().stats.duplicate_packets).sum();
    assert_eq!(rx_dups, 0, "discards matched across the wrap");
}

/// S -> R1 -> R2 -> D, with the ACKs routed back D -> R2 -> R3 -> S around R1 (the link
/// R2 -> R1 costs 10). The spoofing queue is R1 -> R2.
const ASYMMETRIC: &str = r#"
duration = "10s"
hosts = ["S", "D"]
routers = ["R1", "R2", "R3"]
[[links]]
between = ["S", "R1"]
rate = "100Mbps"
delay = "1ms"
[[links]]
from = "R1"
to = "R2"
rate = "10Mbps"
delay = "10ms"
queue = { discipline = "red", limit = 300, min_th = 10, max_th = 40, max_p = 0.1, signal = "spoof" }
[[links]]
from = "R2"
to = "R1"
rate = "10Mbps"
delay = "10ms"
cost = 10
[[links]]
from = "R2"
to = "R3"
rate = "10Mbps"
delay = "10ms"
[[links]]
from = "R3"
to = "S"
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["R2", "D"]
rate = "100Mbps"
delay = "1ms"
[[flows]]
from = "S"
to = "D"
count = 3
tcp = { variant = "reno" }
"#;

#[test]
fn asymmetric_path_falls_back_to_drops_and_a_reverse_packet_clears_it() {
    let (_, r) = run(ASYMMETRIC);
    let sp = &r.spoofers[0].counters;
    assert_eq!(r.spoofers[0].node, "R1");
    assert_eq!(sp.spoof_events, 0, "no real ACK ever passes R1: {sp:?}");
    assert_eq!(sp.asymmetric_detected, 3, "each flow once: {sp:?}");
    assert_eq!(sp.pending_set, 3);
    assert_eq!(sp.pending_expired, 3);
    assert!(sp.fallback_drops > 20, "{sp:?}");
    assert_eq!(sp.signals, sp.pending_set + sp.signals_absorbed + sp.fallback_drops);
    assert_eq!(sp.signals_absorbed, 3 * 2, "the threshold (3) of signals, one pending and two absorbed");
    let q = r.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    assert_eq!(q.drops_early + q.drops_forced, sp.fallback_drops);

    // At 4 s the reverse path fails; R2's loop-free alternate sends the ACKs through R1:
    // the first reverse packet clears each flow and spoofing takes over from the drops.
    let text = format!("{ASYMMETRIC}\n[[failures]]\nlink = \"R2->R3\"\ndown = \"4s\"\n[ipfrr]\n");
    let mut sim = load(&text);
    let r1 = sim.net.node_id("R1").unwrap() as usize;
    let mut stats_at = |s: f64| {
        sim.run_until(SimTime::from_secs_f64(s));
        sim.mechanism::<ccsim::router::AckSpoofing>().and_then(|m| m.at(r1 as u32)).unwrap().stats
    };
    let (before, after, end) = (stats_at(3.99), stats_at(4.5), stats_at(10.0));
    assert!(before.spoof_events == 0 && before.fallback_drops > 0, "{before:?}");
    assert!(end.spoof_events > after.spoof_events + 20, "{end:?}");
    assert_eq!(end.fallback_drops, after.fallback_drops, "no drops once the ACKs pass R1");
}

#[test]
fn packets_are_conserved_with_discards_and_overflow() {
    // A buffer barely above max_th: overflow drops (and spoofs) as well as early spoofs,
    // fallback drops and discarded retransmissions.
    let text = dumbbell("", "", "").replace("limit = 1000", "limit = 45").replace("duration = \"15s\"", "duration = \"12.3s\"");
    let text = text.replace("S{1..4}", "S{1..8}").replace("D{1..4}", "D{1..8}");
    let (sim, r) = run(&text);
    let sp = &r.spoofers[0].counters;
    assert!(sp.retransmissions_discarded > 0 && sp.fallback_drops > 0, "{sp:?}");
    let q = r.queues.iter().find(|q| q.link == "R1->R2").unwrap();
    assert!(q.drops_overflow > 0, "{q:?}");
    for (i, f) in sim.flows.iter().enumerate() {
        let (tx, rx) = (f.sender().unwrap(), f.receiver().unwrap());
        let (fwd, rev) = sim.packets_in_network(i as u32);
        assert_eq!(tx.stats.packets_sent, rx.stats.packets_received + f.net.forward_dropped + fwd, "data of {}", f.name());
        assert_eq!(rx.stats.acks_sent + f.net.spoofed_acks, tx.stats.acks_received + f.net.reverse_dropped + rev, "ACKs of {}", f.name());
    }
    for l in &sim.net.links {
        let s = &l.queue.stats;
        assert_eq!(s.arrivals, s.departures + s.drops() + l.queue.len() as u64, "queue {}", l.name);
    }
    let forward_dropped: u64 = sim.flows.iter().map(|f| f.net.forward_dropped).sum();
    let queue_drops: u64 = sim.net.links.iter().map(|l| l.queue.stats.drops()).sum();
    assert_eq!(forward_dropped, queue_drops + sp.retransmissions_discarded, "discards are the flows' only other losses");
}

fn variant(file: &str, overrides: &[&str]) -> Report {
    // Long enough for the queues to build up; Network 2's second group starts at 2 s.
    let mut o: Vec<String> = ["duration=3s", "warmup=2s"].iter().chain(overrides).map(|s| s.to_string()).collect();
    o.retain(|s| !s.is_empty());
    let mut sim = ccsim::scenario::load(&scenario_file(file), file, &o, None).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    Report::new(&mut sim)
}

#[test]
fn p1_scenarios_run_with_every_aqm() {
    for (file, link) in [("ackspoof_net1.toml", "R2->R3"), ("ackspoof_net2.toml", "R0->R1")] {
        let [tail, red, ecn, spoof] = [
            variant(file, &["links.0.queue={ limit = 120 }"]),
            variant(file, &["links.0.queue.signal=drop", "links.0.queue.max_p=0.02"]),
            variant(file, &["links.0.queue.signal=ecn", "links.0.queue.max_p=0.10", "flows.*.tcp.ecn=true"]),
            variant(file, &[]),
        ];
        let q = |r: &Report| r.queues.iter().find(|q| q.link == link).unwrap().clone();
        let early = |r: &Report| q(r).drops_early + q(r).drops_forced;
        let marks = |r: &Report| q(r).marks_early + q(r).marks_forced;
        assert!(early(&tail) == 0 && marks(&tail) == 0 && q(&tail).drops_overflow > 0, "{file}: Tail Drop {:?}", q(&tail));
        assert!(early(&red) > 0 && marks(&red) == 0, "{file}: RED {:?}", q(&red));
        assert!(marks(&ecn) > 0 && ecn.flows.iter().map(|f| f.ecn_reductions).sum::<u64>() > 0, "{file}: RED/ECN {:?}", q(&ecn));
        assert!(q(&spoof).spoof_signals > 0 && spoof.spoofers[0].counters.spoof_events > 0, "{file}: RED/Spoofing {:?}", spoof.spoofers);
        assert!(tail.spoofers.is_empty() && red.spoofers.is_empty() && ecn.spoofers.is_empty());
        assert_eq!(spoof.spoofers.len(), 1, "{file}: one spoofer, at the bottleneck router");
    }
}
