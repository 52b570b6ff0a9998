//! Property tests of the TCP state machines: a sender and a receiver joined by a channel
//! that loses, reorders and duplicates packets at random, with initial sequence numbers
//! near 2^32 so that every transfer crosses the wrap. After every step:
//!
//! - the sender: `cwnd >= 1 MSS` (RFC 5681's floor: the loss window is one segment),
//!   `snd_una <= snd_nxt <= snd_max`, and no byte sent beyond `snd_una` plus the window
//!   the receiver advertised (RFC 793 section 3.7, RFC 5681 section 2);
//! - the receiver: `rcv_nxt - isn` equals the bytes delivered, which never exceed the bytes
//!   sent: every byte is delivered once, in order;
//!
//! and at the end the whole transfer has been delivered exactly once. Every case runs with
//! SACK (RFC 2018 blocks, RFC 6675 recovery, with or without RACK-TLP) or without; with it,
//! the sender's scoreboard
//! also holds only bytes above `snd_una` that it has sent and the receiver holds (it never
//! reneges), and no retransmission carries a byte the scoreboard says is SACKed.

use super::{NewRenoConfig, ReceiverConfig, Recovery, SenderConfig, Seq, TcpReceiver, TcpSender};
use crate::packet::{Endpoints, Packet};
use crate::sim::{Dur, Rng, SimTime};
use crate::tcp::CcConfig;
use proptest::prelude::*;

/// The channel's misbehaviour and the transfer.
#[derive(Clone, Debug)]
struct Case {
    isn: u32,
    bytes: u64,
    mss: u32,
    rwnd_segments: u32,
    reno: bool,
    sack: bool,
    /// With `sack`: RACK-TLP (RFC 8985).
    rack: bool,
    delayed_ack: bool,
    loss: f64,
    duplicate: f64,
    /// Extra delay, up to this many ms, drawn per packet: packets overtake each other.
    jitter_ms: u64,
    seed: u64,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        (0u32..4_000_000, any::<u64>(), 1u32..1500, 1u32..64, any::<bool>(), any::<bool>(), any::<bool>()),
        (0.0f64..0.2, 0.0f64..0.1, 0u64..30, any::<u64>(), any::<bool>()),
    )
        .prop_map(|((below_wrap, bytes, mss, rwnd_segments, reno, sack, delayed_ack), (loss, duplicate, jitter_ms, seed, rack))| Case {
            isn: u32::MAX - below_wrap,
            // Up to 300 segments: enough to cross the wrap and recover from many losses.
            bytes: 1 + bytes % (300 * mss as u64),
            mss,
            rwnd_segments,
            reno,
            sack,
            rack: sack && rack,
            delayed_ack,
            loss,
            duplicate,
            jitter_ms,
            seed,
        })
}

/// Runs one transfer, checking the invariants after every step; returns the bytes the
/// receiver delivered.
fn transfer(c: &Case) -> Result<u64, TestCaseError> {
    let ends = Endpoints { flow: 0, sender: 0, receiver: 1, sport: 1, dport: 2 };
    let rwnd = c.mss * c.rwnd_segments;
    let (recovery, cc) =
        if c.reno { (Recovery::Reno, CcConfig::Reno(NewRenoConfig::reno())) } else { (Recovery::NewReno, CcConfig::Reno(NewRenoConfig::default())) };
    let cfg = SenderConfig { recovery, cc, mss: c.mss, isn: c.isn, data_bytes: Some(c.bytes), sack: c.sack, rack: c.rack, ..SenderConfig::default() };
    let mut tx = TcpSender::new(cfg, ends, rwnd);
    let rcfg = ReceiverConfig { rwnd, delayed_ack: c.delayed_ack.then(|| Dur::from_millis(100)), sack: c.sack, ..ReceiverConfig::default() };
    let mut rx = TcpReceiver::new(rcfg, ends, c.isn);
    let mut rng = Rng::from_seed(c.seed);
    // Packets on their way: (arrival, order, packet); data to the receiver, ACKs back.
    let mut wire: Vec<(SimTime, u64, Packet)> = Vec::new();
    let mut order = 0u64;
    let mut out = Vec::new();
    let one_way = Dur::from_millis(10);
    let mut now = SimTime::ZERO;
    tx.start(now, &mut out);
    let deadline = SimTime::ZERO + Dur::from_secs(3_000);
    loop {
        // Send what the last step produced, through the misbehaving channel.
        for p in out.drain(..) {
            if p.payload > 0 {
                let end = p.seq + p.payload;
                let limit = tx.snd_una() + rwnd;
                prop_assert!(end <= limit, "sent {:?}..{:?} beyond una {:?} + rwnd {rwnd}", p.seq, end, tx.snd_una());
                let (start, end) = ((p.seq - Seq(c.isn)) as u64, (end - Seq(c.isn)) as u64);
                for &(s, e) in tx.scoreboard().ranges() {
                    // Offsets wrap at 2^32 on the wire; transfers here are shorter.
                    prop_assert!(end <= s || e <= start, "resent {start}..{end}, SACKed {s}..{e}");
                }
            }
            let copies = if rng.bernoulli(c.duplicate) { 2 } else { 1 };
            for _ in 0..copies {
                if c.loss > 0.0 && rng.bernoulli(c.loss) {
                    continue;
                }
                let extra = Dur::from_secs_f64(rng.uniform() * c.jitter_ms as f64 * 1e-3);
                wire.push((now + one_way + extra, order, p));
                order += 1;
            }
        }
        check_sender(&tx, c.mss)?;
        check_scoreboard(&tx, &rx, c.isn)?;
        let delivered = rx.stats.delivered_bytes;
        prop_assert_eq!((rx.rcv_nxt() - Seq(c.isn)) as u64, delivered % (1u64 << 32), "rcv_nxt - isn is the bytes delivered");
        prop_assert!(delivered <= c.bytes, "delivered {} of {}", delivered, c.bytes);
        if tx.completed_at.is_some() && delivered == c.bytes {
            return Ok(delivered);
        }
        // The next thing to happen: an arrival, or a timer.
        let next_packet = wire.iter().enumerate().min_by_key(|(_, w)| (w.0, w.1)).map(|(i, w)| (w.0, i));
        let times = [next_packet.map(|p| p.0), tx.deadline(), rx.delack_deadline()];
        let Some(t) = times.iter().flatten().min().copied() else {
            return Err(TestCaseError::fail("nothing left to happen before the transfer completed"));
        };
        prop_assert!(t >= now, "time goes forward");
        now = t;
        if now > deadline {
            return Err(TestCaseError::fail(format!("not done after {now:?}: delivered {delivered} of {}", c.bytes)));
        }
        match next_packet {
            Some((at, i)) if at == now => {
                let (_, _, p) = wire.swap_remove(i);
                if p.payload > 0 {
                    rx.on_data(&p, now, &mut out);
                } else {
                    tx.on_ack(&p, now, &mut out);
                }
            }
            _ if tx.deadline() == Some(now) => tx.on_deadline(now, &mut out),
            _ => rx.on_delack_timeout(now, &mut out),
        }
    }
}

fn check_sender(tx: &TcpSender, mss: u32) -> Result<(), TestCaseError> {
    prop_assert!(tx.cwnd() >= mss, "cwnd {} below one MSS {}", tx.cwnd(), mss);
    prop_assert!(tx.snd_una() <= tx.snd_nxt(), "snd_una {:?} > snd_nxt {:?}", tx.snd_una(), tx.snd_nxt());
    prop_assert!(tx.snd_nxt() <= tx.snd_max(), "snd_nxt {:?} > snd_max {:?}", tx.snd_nxt(), tx.snd_max());
    Ok(())
}

/// The SACK scoreboard: sorted, disjoint ranges of sent data above `snd_una`, all held by the
/// receiver.
fn check_scoreboard(tx: &TcpSender, rx: &TcpReceiver, isn: u32) -> Result<(), TestCaseError> {
    let (una, max) = ((tx.snd_una() - Seq(isn)) as u64, (tx.snd_max() - Seq(isn)) as u64);
    let mut last = una;
    for &(s, e) in tx.scoreboard().ranges() {
        prop_assert!(last <= s && s < e && e <= max, "scoreboard {:?} (una {una}, max {max})", tx.scoreboard().ranges());
        prop_assert!(rx.has_received(Seq(isn) + s as u32, (e - s) as u32), "SACKed {s}..{e} not held by the receiver");
        last = e;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_is_delivered_once_in_order_whatever_the_channel_does(c in cases()) {
        prop_assert_eq!(transfer(&c)?, c.bytes);
    }
}
