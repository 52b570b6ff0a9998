//! CoDel, Controlled Delay (RFC 8289): drops at dequeue, from the time the packet at the
//! head spent queued (its sojourn time).
//!
//! The rules, as RFC 8289's pseudocode (Section 5) states them, with the names of its
//! variables:
//!
//! 1. **Estimator** (`dodequeue`). Each packet taken from the head is judged:
//!    if its sojourn time is below `TARGET`, or the bytes left in the queue are at most one
//!    MTU (`maxpacket`), the sojourn time is "below" and `first_above_time` is cleared. Else,
//!    the first such packet sets `first_above_time = now + INTERVAL`, and from then on it is
//!    `ok_to_drop` once `now >= first_above_time`. An empty queue clears `first_above_time`.
//! 2. **Entering the dropping state** (`dequeue`). Not dropping and
//!    `ok_to_drop`: the head packet is signalled (dropped), the next head is judged (rule 1)
//!    and sent whatever the verdict; `dropping` becomes true, and `count` restarts at 1, or at
//!    `count - lastcount` if that is more than 1 and the last dropping state ended less than
//!    16 `INTERVAL`s ago (`now - drop_next < 16 INTERVAL`); `drop_next =
//!    control_law(now, count)`, `lastcount = count`.
//! 3. **In the dropping state**. A head that is not `ok_to_drop` ends it. Otherwise, while
//!    `now >= drop_next`: the head is dropped, `count += 1`, the next head is judged, and
//!    either ends the dropping state (not `ok_to_drop`, or the queue is empty) or moves
//!    `drop_next = control_law(drop_next, count)`.
//! 4. **Control law** (`control_law`): `control_law(t, count) = t + INTERVAL / sqrt(count)`,
//!    computed in floating point on nanoseconds (Linux and ns-3 use a Newton-step reciprocal
//!    square root in fixed point, whose error is at most a few parts in 10^4).
//! 5. **ECN** (the RFC speaks of dropping "or marking" throughout). A signal is a [`Verdict::Early`]; the
//!    queue's signal policy turns it into a drop, a CE mark or a spoof. The pseudocode only
//!    drops; for a packet that is marked and sent, Linux's rule (`codel_dequeue` in
//!    `include/net/codel_impl.h`) applies: on entering the dropping state the state changes
//!    as for a drop and the marked packet is sent; in the dropping state `drop_next =
//!    control_law(drop_next, count)` and the marked packet is sent. ns-3's `CoDelQueueDisc`
//!    moves `drop_next` from `now` instead in the second case.
//!
//! Defaults (Section 4, "Setting INTERVAL" and "Setting TARGET"): `TARGET` 5 ms, `INTERVAL` 100 ms; `maxpacket` is the MTU,
//! 1500 bytes here (ns-3's `MinBytes`; Linux uses the device MTU). ns-3's `CoDelQueueDisc`
//! differs in small ways: it keeps time in 1024-ns units, it compares bytes left with
//! `<  MinBytes` (here `<= maxpacket`, as the RFC), and judges `ok_to_drop` with
//! `now > first_above_time` (here `>=`, as the RFC).
//!
//! The state machine is [`CodelState`], one per queue: the [`Codel`] discipline runs one
//! on the egress FIFO, FQ-CoDel one per flow queue. It is fed one head packet at a time
//! ([`CodelState::on_dequeue`]): the pseudocode's loop over heads becomes the queue's loop,
//! which asks again after each drop, and [`CodelState::after_signal`] says whether the
//! signalled packet was dropped or sent.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Head, Occupancy, QueueContext, Verdict};
use crate::packet::Packet;
use crate::settings::units::Duration;
use crate::sim::{Dur, Rng, SimTime};
use serde::Deserialize;

/// RFC 8289 Section 4 ("Setting TARGET"): the acceptable standing queue delay, 5 ms.
pub const TARGET: Dur = Dur::from_millis(5);
/// RFC 8289 Section 4 ("Setting INTERVAL"): the sliding window over which the minimum delay is judged, 100 ms
/// (a worst-case round trip).
pub const INTERVAL: Dur = Dur::from_millis(100);
/// RFC 8289's pseudocode (`maxpacket`): below one MTU of backlog CoDel never drops; 1500
/// bytes (ns-3's `MinBytes`).
pub const MAX_PACKET: u64 = 1500;

/// CoDel's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: Dur,
    pub interval: Dur,
    /// Bytes of backlog at or below which no packet is dropped.
    pub max_packet: u64,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams { target: TARGET, interval: INTERVAL, max_packet: MAX_PACKET }
    }
}

impl CodelParams {
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.target == Dur::ZERO {
            return Err(SettingError::new("target", "must be positive"));
        }
        if self.interval == Dur::ZERO {
            return Err(SettingError::new("interval", "must be positive"));
        }
        Ok(())
    }

    /// RFC 8289's `control_law`: `t + interval / sqrt(count)`.
    pub fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let step = (self.interval.as_nanos() as f64 / (count.max(1) as f64).sqrt()).round() as u64;
        t + Dur(step)
    }
}

/// Where the state machine is within one transmission opportunity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Pending {
    /// No signal given in this opportunity (the next head is its first).
    #[default]
    None,
    /// The head was signalled on entering the dropping state (rule 2).
    Entered,
    /// The head was signalled in the dropping state's loop (rule 3).
    Looping,
}

/// CoDel's state for one queue.
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    /// `first_above_time`; `None` for the RFC's 0.
    pub first_above_time: Option<SimTime>,
    pub drop_next: SimTime,
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    pending: Pending,
}

impl CodelState {
    /// Rule 1, the estimator: whether dropping `head` is allowed.
    fn ok_to_drop(&mut self, p: &CodelParams, head: Option<Head>, now: SimTime) -> bool {
        let Some(h) = head else {
            self.first_above_time = None;
            return false;
        };
        if h.sojourn < p.target || h.bytes_left <= p.max_packet {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// The verdict on the packet just taken from the head (`None`: the queue is empty):
    /// `Early` to signal it, `Admit` to send it.
    pub fn on_dequeue(&mut self, p: &CodelParams, head: Option<Head>, now: SimTime) -> Verdict {
        let ok = self.ok_to_drop(p, head, now);
        match std::mem::take(&mut self.pending) {
            // Rule 2: after the entering drop the next head goes out whatever it is.
            Pending::Entered => Verdict::Admit,
            // Rule 3, after a drop in the loop: end the state or schedule the next drop.
            Pending::Looping => {
                if !ok {
                    self.dropping = false;
                    return Verdict::Admit;
                }
                self.drop_next = p.control_law(self.drop_next, self.count);
                self.signal_in_loop(now)
            }
            Pending::None if head.is_none() => {
                self.dropping = false;
                Verdict::Admit
            }
            Pending::None if self.dropping => {
                if !ok {
                    self.dropping = false;
                    return Verdict::Admit;
                }
                self.signal_in_loop(now)
            }
            Pending::None if ok => {
                // Rule 2: enter the dropping state.
                self.dropping = true;
                let delta = self.count.saturating_sub(self.lastcount);
                let since_last = now.as_nanos() as i128 - self.drop_next.as_nanos() as i128;
                self.count = if delta > 1 && since_last < 16 * p.interval.as_nanos() as i128 { delta } else { 1 };
                self.drop_next = p.control_law(now, self.count);
                self.lastcount = self.count;
                self.pending = Pending::Entered;
                Verdict::Early
            }
            Pending::None => Verdict::Admit,
        }
    }

    /// Rule 3's loop condition: signal the head if its drop is due.
    fn signal_in_loop(&mut self, now: SimTime) -> Verdict {
        if self.dropping && now >= self.drop_next {
            self.count += 1;
            self.pending = Pending::Looping;
            Verdict::Early
        } else {
            Verdict::Admit
        }
    }

    /// What became of the packet just signalled: dropped (the queue asks again for the next
    /// head) or marked and sent (rule 5).
    pub fn after_signal(&mut self, p: &CodelParams, dropped: bool) {
        if dropped {
            return;
        }
        if std::mem::take(&mut self.pending) == Pending::Looping {
            self.drop_next = p.control_law(self.drop_next, self.count);
        }
    }
}

/// CoDel on the egress FIFO.
#[derive(Clone, Debug)]
pub struct Codel {
    params: CodelParams,
    state: CodelState,
}

impl Codel {
    pub fn new(params: CodelParams) -> Result<Codel, SettingError> {
        params.validate()?;
        Ok(Codel { params, state: CodelState::default() })
    }
    pub fn params(&self) -> &CodelParams {
        &self.params
    }
    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl Aqm for Codel {
    fn on_arrival(&mut self, _: &Packet, _: Occupancy, _: SimTime, _: &mut Rng) -> Verdict {
        Verdict::Admit
    }
    fn decides_at_dequeue(&self) -> bool {
        true
    }
    fn on_dequeue(&mut self, head: Option<Head>, now: SimTime) -> Verdict {
        self.state.on_dequeue(&self.params, head, now)
    }
    fn after_dequeue_signal(&mut self, dropped: bool) {
        self.state.after_signal(&self.params, dropped);
    }
}

/// CoDel's keys, shared with FQ-CoDel.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Acceptable standing queue delay; default [`TARGET`].
    pub target: Option<Duration>,
    /// Window over which the sojourn time must stay above `target` before dropping;
    /// default [`INTERVAL`].
    pub interval: Option<Duration>,
}

impl CodelSpec {
    pub fn resolve(&self) -> Result<CodelParams, SettingError> {
        let d = CodelParams::default();
        let params = CodelParams { target: self.target.map_or(d.target, |t| t.dur()), interval: self.interval.map_or(d.interval, |t| t.dur()), ..d };
        params.validate()?;
        Ok(params)
    }
}

pub const REGISTRATION: Registration = Registration { name: "codel", aliases: &[], family: None, keys: keys_of::<CodelSpec>, footprint: boxed::<Codel>, build };

fn build(table: &Table, _: &QueueContext) -> Result<Discipline, SettingError> {
    Ok(Discipline::Codel(Box::new(Codel::new(read::<CodelSpec>(table)?.resolve()?)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime(t * 1_000_000)
    }
    /// A head that waited `sojourn_ms` with `left` bytes behind it.
    fn head(sojourn_ms: u64, left: u64) -> Option<Head> {
        Some(Head { sojourn: Dur::from_millis(sojourn_ms), bytes_left: left })
    }
    const P: CodelParams = CodelParams { target: TARGET, interval: INTERVAL, max_packet: MAX_PACKET };
    const MANY: u64 = 100_000;

    #[test]
    fn below_target_or_one_mtu_of_backlog_never_drops_and_clears_first_above_time() {
        let mut s = CodelState::default();
        for t in 0..500 {
            assert_eq!(s.on_dequeue(&P, head(4, MANY), ms(t)), Verdict::Admit);
        }
        assert_eq!(s.first_above_time, None);
        // Above target but at most one MTU behind: still below (rule 1).
        for t in 0..500 {
            assert_eq!(s.on_dequeue(&P, head(50, 1500), ms(t)), Verdict::Admit);
        }
        assert_eq!(s.first_above_time, None);
        assert!(!s.dropping);
    }

    #[test]
    fn a_sojourn_above_target_for_an_interval_enters_dropping_with_count_one() {
        let mut s = CodelState::default();
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(1000)), Verdict::Admit);
        assert_eq!(s.first_above_time, Some(ms(1100)), "now + INTERVAL");
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(1099)), Verdict::Admit, "not yet an interval");
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(1100)), Verdict::Early, "now >= first_above_time");
        assert!(s.dropping);
        assert_eq!((s.count, s.lastcount), (1, 1));
        assert_eq!(s.drop_next, ms(1200), "control_law(now, 1) = now + INTERVAL");
        // Dropped: the next head goes out whatever it is (rule 2).
        s.after_signal(&P, true);
        assert_eq!(s.on_dequeue(&P, head(80, MANY), ms(1100)), Verdict::Admit);
        // Dropping, but the next drop is not due until drop_next.
        assert_eq!(s.on_dequeue(&P, head(80, MANY), ms(1150)), Verdict::Admit);
        assert!(s.dropping);
    }

    #[test]
    fn in_the_dropping_state_drops_are_spaced_by_the_control_law() {
        let mut s = CodelState::default();
        s.on_dequeue(&P, head(6, MANY), ms(0));
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(100)), Verdict::Early);
        s.after_signal(&P, true);
        s.on_dequeue(&P, head(6, MANY), ms(100));
        // Drop k happens at drop_next; then drop_next += INTERVAL / sqrt(count).
        let mut expected_next = ms(200);
        for count in 2..8u32 {
            assert_eq!(s.drop_next, expected_next);
            let t = expected_next;
            assert_eq!(s.on_dequeue(&P, head(6, MANY), t), Verdict::Early, "drop {count} due at {t:?}");
            assert_eq!(s.count, count);
            s.after_signal(&P, true);
            // The next head is judged: still above target, so drop_next moves on.
            assert_eq!(s.on_dequeue(&P, head(6, MANY), t), Verdict::Admit);
            let step = (100e6 / (count as f64).sqrt()).round() as u64;
            expected_next = t + Dur(step);
            assert_eq!(s.drop_next, expected_next);
        }
    }

    #[test]
    fn a_large_backlog_drops_several_heads_in_one_opportunity() {
        let mut s = CodelState { dropping: true, count: 10, lastcount: 5, drop_next: ms(0), first_above_time: Some(ms(0)), ..Default::default() };
        // At 1 s every drop since drop_next = 0 is overdue: heads are dropped until
        // drop_next passes now.
        let mut drops = 0;
        let mut t_next = ms(0);
        while s.on_dequeue(&P, head(50, MANY), ms(1000)) == Verdict::Early {
            drops += 1;
            s.after_signal(&P, true);
            t_next = P.control_law(t_next, 10 + drops);
        }
        assert!(drops > 1, "{drops}");
        assert_eq!(s.count, 10 + drops);
        assert!(s.drop_next > ms(1000));
        assert_eq!(s.drop_next, t_next);
    }

    #[test]
    fn the_dropping_state_ends_when_the_sojourn_falls_below_target_or_the_queue_empties() {
        let mut s = CodelState { dropping: true, count: 3, drop_next: ms(10), first_above_time: Some(ms(0)), ..Default::default() };
        assert_eq!(s.on_dequeue(&P, head(2, MANY), ms(20)), Verdict::Admit);
        assert!(!s.dropping && s.first_above_time.is_none());
        // After a drop, an empty queue ends it too.
        let mut s = CodelState { dropping: true, count: 3, drop_next: ms(10), first_above_time: Some(ms(0)), ..Default::default() };
        assert_eq!(s.on_dequeue(&P, head(50, MANY), ms(20)), Verdict::Early);
        s.after_signal(&P, true);
        assert_eq!(s.on_dequeue(&P, None, ms(20)), Verdict::Admit);
        assert!(!s.dropping);
        // So does an empty queue at a transmission opportunity.
        let mut s = CodelState { dropping: true, ..Default::default() };
        s.on_dequeue(&P, None, ms(20));
        assert!(!s.dropping);
    }

    #[test]
    fn reentering_soon_after_resumes_the_last_drop_rate() {
        // The last dropping state reached count 9 from lastcount 1 and ended; re-entering
        // within 16 intervals of drop_next starts from count - lastcount = 8.
        let mut s = CodelState { count: 9, lastcount: 1, drop_next: ms(1000), first_above_time: Some(ms(1100)), ..Default::default() };
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(1200)), Verdict::Early);
        assert_eq!((s.count, s.lastcount), (8, 8));
        assert_eq!(s.drop_next, P.control_law(ms(1200), 8));
        // Long after (16 intervals or more), it starts from 1.
        let mut s = CodelState { count: 9, lastcount: 1, drop_next: ms(1000), first_above_time: Some(ms(2600)), ..Default::default() };
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(2600)), Verdict::Early);
        assert_eq!(s.count, 1);
        // A delta of 1 or less also starts from 1.
        let mut s = CodelState { count: 2, lastcount: 1, drop_next: ms(1000), first_above_time: Some(ms(1100)), ..Default::default() };
        s.on_dequeue(&P, head(6, MANY), ms(1100));
        assert_eq!(s.count, 1);
    }

    #[test]
    fn a_marked_packet_is_sent_and_moves_drop_next_as_linux_does() {
        // Entering: the state is as for a drop, and no further head is judged.
        let mut s = CodelState { first_above_time: Some(ms(100)), ..Default::default() };
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(100)), Verdict::Early);
        s.after_signal(&P, false);
        assert!(s.dropping);
        assert_eq!(s.drop_next, ms(200));
        // In the loop: drop_next = control_law(drop_next, count).
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(200)), Verdict::Early);
        assert_eq!(s.count, 2);
        s.after_signal(&P, false);
        assert_eq!(s.drop_next, P.control_law(ms(200), 2));
        // The next opportunity starts afresh: not due yet.
        assert_eq!(s.on_dequeue(&P, head(6, MANY), ms(201)), Verdict::Admit);
    }

    #[test]
    fn the_control_law_is_interval_over_the_square_root_of_count() {
        assert_eq!(P.control_law(ms(0), 1), ms(100));
        assert_eq!(P.control_law(ms(0), 4), ms(50));
        assert_eq!(P.control_law(ms(0), 100), ms(10));
    }

    #[test]
    fn keys_resolve_to_the_rfc_defaults_and_are_checked() {
        let t: Table = "".parse().unwrap();
        assert_eq!(read::<CodelSpec>(&t).unwrap().resolve().unwrap(), CodelParams::default());
        let t: Table = "target = \"10ms\"\ninterval = \"200ms\"".parse().unwrap();
        let p = read::<CodelSpec>(&t).unwrap().resolve().unwrap();
        assert_eq!((p.target, p.interval), (Dur::from_millis(10), Dur::from_millis(200)));
        let t: Table = "target = 0".parse().unwrap();
        assert_eq!(read::<CodelSpec>(&t).unwrap().resolve().unwrap_err().key, "target");
    }
}
