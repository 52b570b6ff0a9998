//! The two state machines against each other through a hostile channel: segments lost,
//! duplicated and reordered in both directions, each one carried as bytes (encoded, decoded
//! and turned back into a packet, as a live node does). Every segment must reach the
//! application once and in order.

use super::*;
use crate::packet::Seq;
use crate::packet::{Endpoints, Kind, Packet};
use crate::sim::{Dur, EventQueue, Rng, SimTime};

const ENDS: Endpoints = Endpoints { flow: 3, sender: 10, receiver: 20, sport: 4000, dport: 80 };

/// A lossy, duplicating, reordering path: each packet is lost with probability `loss`, else
/// delivered after `delay` plus U(0, `jitter`), and duplicated with probability `dup`.
/// Besides, the first `lose_syns` segments with SYN set of each side are lost.
struct Channel {
    loss: f64,
    dup: f64,
    delay: Dur,
    jitter: Dur,
    rng: Rng,
    lose_syns: [u32; 2],
}

impl Channel {
    fn send(&mut self, now: SimTime, pkt: Packet, q: &mut EventQueue<Packet>) {
        let side = &mut self.lose_syns[(pkt.kind == Kind::RdpAck) as usize];
        if pkt.flags & flags::SYN != 0 && *side > 0 {
            *side -= 1;
            return;
        }
        if self.rng.bernoulli(self.loss) {
            return;
        }
        let copies = if self.rng.bernoulli(self.dup) { 2 } else { 1 };
        for _ in 0..copies {
            let at = now + self.delay + Dur::from_secs_f64(self.rng.uniform() * self.jitter.as_secs_f64());
            q.schedule(at, pkt);
        }
    }
}

/// `pkt` as a live node gets it: its bytes, decoded, made a packet again.
fn through_the_wire(pkt: &Packet) -> Packet {
    let mut buf = [0u8; 2048];
    let data = vec![0xa5; pkt.payload as usize];
    let n = wire::encode(&wire::Header::of(pkt), &data, &mut buf).expect("encodes");
    let (h, d) = wire::decode(&buf[..n]).expect("decodes");
    assert_eq!(d, &data[..]);
    let back = h.packet(pkt.kind, pkt.flow, pkt.src, pkt.dst, d.len() as u32, pkt.ttl, pkt.sent_at);
    assert_eq!(back, *pkt, "the bytes carry every field the state machines read");
    back
}

struct Outcome {
    sender: RdpSender,
    receiver: RdpReceiver,
    /// Segments the application received, in the order it received them.
    delivered: Vec<Seq>,
    bytes: u64,
}

/// Runs a transfer of `data_bytes` (None: bulk) for at most `limit` over `channel` (both
/// directions alike).
fn transfer(data_bytes: Option<u64>, limit: Dur, mut channel: Channel, acc: bool) -> Outcome {
    let cfg = SenderConfig { data_bytes, isn: u32::MAX - 40, acc, ..SenderConfig::default() };
    let mut tx = RdpSender::new(cfg, ENDS);
    let mut rx = RdpReceiver::new(ReceiverConfig { max_outstanding: 64, isn: 77, ..ReceiverConfig::default() }, ENDS);
    let mut q: EventQueue<Packet> = EventQueue::default();
    let mut out = Vec::new();
    let mut delivered = Vec::new();
    let mut bytes = 0;
    let end = SimTime::ZERO + limit;
    tx.start(SimTime::ZERO, &mut out);
    let mut now = SimTime::ZERO;
    loop {
        for p in out.drain(..) {
            channel.send(now, through_the_wire(&p), &mut q);
        }
        // Timers first at a common instant: a packet is taken only if it is due before the
        // next timer (and before the end).
        let next_timer = [tx.deadline(), rx.deadline()].into_iter().flatten().min();
        let before = next_timer.map_or(end, |t| end.min(SimTime(t.0.saturating_sub(1))));
        let Some((at, pkt)) = q.pop_until(before) else {
            match next_timer {
                Some(t) if t <= end => {
                    now = t;
                    tx.on_timer(now, &mut out);
                    rx.on_timer(now);
                    continue;
                }
                _ => break,
            }
        };
        now = at;
        if pkt.kind == Kind::RdpData {
            let d = rx.on_segment(&pkt, now, &mut out);
            for i in 0..d.segments {
                delivered.push(d.first + i);
            }
            bytes += d.bytes;
        } else {
            tx.on_segment(&pkt, now, &mut out);
        }
    }
    Outcome { sender: tx, receiver: rx, delivered, bytes }
}

fn hostile(seed: u64) -> Channel {
    Channel { loss: 0.05, dup: 0.05, delay: Dur::from_millis(20), jitter: Dur::from_millis(15), rng: Rng::stream(seed, "rdp-channel"), lose_syns: [0, 0] }
}

/// The application saw segments ISS + 1, ISS + 2, ... each once, in order.
fn assert_once_in_order(o: &Outcome) {
    let first = o.sender.cfg.isn.wrapping_add(1);
    for (i, s) in o.delivered.iter().enumerate() {
        assert_eq!(s.0, first.wrapping_add(i as u32), "delivery {i}");
    }
}

#[test]
fn every_segment_arrives_once_and_in_order_through_loss_duplication_and_reordering() {
    for seed in 1..=8 {
        let bytes = 400_000 + seed * 777;
        let o = transfer(Some(bytes), Dur::from_secs(600), hostile(seed), true);
        assert_once_in_order(&o);
        assert_eq!(o.bytes, bytes, "seed {seed}: every byte delivered once");
        assert_eq!(o.delivered.len() as u64, bytes.div_ceil(1000));
        assert!(o.sender.completed_at.is_some(), "seed {seed}: the sender saw it all acknowledged");
        // The channel did its worst: retransmissions, reordering, duplicates, EACKs.
        let (tx, rx) = (&o.sender, &o.receiver);
        assert!(tx.stats.retransmitted_packets > 0 && rx.stats.out_of_order_packets > 0 && rx.stats.duplicate_packets > 0);
        assert!(rx.rdp_stats.eacks_sent > 0 && tx.rdp_stats.eacked > 0);
        assert!(tx.stats.fast_retransmits > 0, "seed {seed}");
        // Sequence numbers wrapped (the ISS is 40 below 2^32).
        assert!(o.delivered.last().unwrap().0 < 1000);
    }
}

#[test]
fn a_bulk_transfer_keeps_its_order_and_eacks_save_retransmissions() {
    let o = transfer(None, Dur::from_secs(60), hostile(42), true);
    assert_once_in_order(&o);
    assert!(o.delivered.len() > 2000, "{} segments in a minute", o.delivered.len());
    assert_eq!(o.bytes, o.receiver.stats.delivered_bytes);
    assert!(o.sender.rdp_stats.eack_skips > 0, "a timeout's go-back-N skipped EACKed segments");
}

#[test]
fn the_connection_opens_through_lost_syns_and_syn_acks() {
    // Two SYNs lost, then the SYN-ACKs of the next two: the fifth SYN opens the connection,
    // since SYN-RCVD answers a retransmitted SYN with its SYN-ACK again.
    let channel = Channel { loss: 0.0, dup: 0.0, delay: Dur::from_millis(10), jitter: Dur::ZERO, rng: Rng::stream(1, "rdp-syn"), lose_syns: [2, 2] };
    let o = transfer(Some(5000), Dur::from_secs(300), channel, false);
    assert_eq!((o.bytes, o.sender.rdp_stats.syns_sent, o.receiver.stats.acks_sent), (5000, 5, 3 + 5), "three SYN-ACKs, five ACKs");
    assert_eq!((o.sender.state(), o.receiver.state()), (State::Closed, State::Closed), "closed after the transfer");
    assert_eq!(o.sender.srtt(), Some(Dur::from_millis(20)), "from the data: Karn's rule kept the SYNs' out");
    assert_once_in_order(&o);
}

#[test]
fn without_loss_the_window_alone_paces_the_transfer() {
    let clean = Channel { loss: 0.0, dup: 0.0, delay: Dur::from_millis(50), jitter: Dur::ZERO, rng: Rng::stream(1, "clean"), lose_syns: [0, 0] };
    let o = transfer(Some(1_000_000), Dur::from_secs(60), clean, true);
    assert_once_in_order(&o);
    let tx = &o.sender;
    assert_eq!((tx.stats.retransmitted_packets, tx.stats.timeouts, tx.rdp_stats.syns_sent), (0, 0, 1));
    assert_eq!(o.receiver.stats.dupacks_sent, 0);
    // Slow start doubles the window each 100 ms round trip until the receiver's 64
    // outstanding segments cap it: after the SYN's round trip, rounds of 1, 2, ..., 32
    // segments, then 64 per round: 1000 segments take 7 + ceil((1000 - 127) / 64) = 21
    // rounds, acknowledged 2.2 s after the SYN.
    let done = tx.completed_at.unwrap().as_secs_f64();
    assert!((done - 2.2).abs() < 1e-9, "completed at {done} s");
}
