//! The ACC agents of a live node (Faber, Section 4.2): the monitor on a congested egress and
//! the filters an upstream node runs. The decisions are the simulator's
//! (`ccsim::router::acc::decide`: what window to send, what to filter, when a filter ends);
//! this module only keeps the state between packets and does the diversion and the flush.
//!
//! - **Monitor** (Section 4.2.2): the congestion-detecting socket calls it with the packet
//!   about to be dropped. If the packet is an RDP data segment carrying its sender's state,
//!   [`Monitor::on_drop`] asks `decide::on_drop` (windows counted in packets: `seg = 1`)
//!   and returns the control for the sender and the filter request for the node the packet
//!   came from. Controls are sent once: a lost one does not break correctness (Section
//!   4.2.4).
//! - **Filters** (Section 4.2.3): a filter diverts the connection's data segments into its
//!   own queue as they arrive. After each batch of arrivals the node runs the filters: each
//!   held segment is judged by `decide::filter` (discard until the requested number is
//!   filtered, or pass the segment that shows the sender changed its window, or the
//!   timeout). When a filter ends, the segments it still holds are not judged but sent on:
//!   the paper's *flush*, which closes the diversion channel after delivering what it holds,
//!   so that packets beyond the ones to discard are not lost with the channel.
//! - A newer request for a connection replaces the filter there (its held segments are kept).

use crate::pool::Pkt;
use crate::wire::{Conn, FilterRequest};
use ccsim::packet::AccState;
use ccsim::router::acc::decide::{self, Decision, FilterEnd, FilterState, MonitorConfig};
use ccsim::sim::{Dur, SimTime};
use std::collections::{HashMap, VecDeque};

/// ACC counters of one node, as congested node, as filtering node and as endpoint.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct AccCounters {
    /// RDP data segments carrying ACC state that a monitored egress dropped.
    pub acc_drops: u64,
    pub below_rtt_floor: u64,
    /// Controls sent to senders.
    pub controls_sent: u64,
    /// Filter requests sent to upstream nodes.
    pub filter_requests_sent: u64,
    /// Filters set at this node (requested by a neighbour, or its own when the sender is attached).
    pub filters_set: u64,
    pub filters_replaced: u64,
    pub filters_removed_count: u64,
    pub filters_removed_behaviour: u64,
    pub filters_removed_timeout: u64,
    /// Segments this node's filters discarded.
    pub packets_filtered: u64,
    /// Segments sent on by the flush of an ending filter.
    pub packets_flushed: u64,
    /// Controls received by this node's senders (authenticated, not replayed).
    pub controls_received: u64,
    /// Datagrams refused for their MAC: a control or filter request with a wrong MAC or at a
    /// node without a key; with a key, any datagram without the run's MAC (forged, corrupted,
    /// or replayed from another run).
    pub bad_mac: u64,
    /// Authenticated controls or requests refused because their nonce was not new.
    pub replayed: u64,
}

/// What the monitor decided for one dropped segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reaction {
    pub state: AccState,
    pub filter: Option<decide::FilterRequest>,
}

/// The ACC monitor of a node's congested egresses.
#[derive(Default)]
pub struct Monitor {
    last_control: HashMap<(u32, Conn), SimTime>,
}

impl Monitor {
    /// Egress `link` (configured `cfg`) dropped a data segment of `conn` carrying `carried`.
    pub fn on_drop(&mut self, cfg: &MonitorConfig, link: u32, conn: Conn, carried: &AccState, now: u64, c: &mut AccCounters) -> Option<Reaction> {
        c.acc_drops += 1;
        let now = SimTime(now);
        let last = self.last_control.get(&(link, conn)).copied();
        match decide::on_drop(cfg, carried, 1, last, now) {
            Decision::BelowFloor => {
                c.below_rtt_floor += 1;
                None
            }
            Decision::Ignore => None,
            Decision::Control { state, filter } => {
                self.last_control.insert((link, conn), now);
                c.controls_sent += 1;
                Some(Reaction { state, filter })
            }
        }
    }
}

/// A filter request's decision part.
pub fn request_of(f: &FilterRequest) -> decide::FilterRequest {
    decide::FilterRequest { carried: f.carried, remaining: f.remaining, lifetime: Dur::from_micros(f.lifetime_us as u64) }
}

struct Filter {
    conn: Conn,
    state: FilterState,
    held: VecDeque<Pkt>,
}

/// The filters at work at one node.
#[derive(Default)]
pub struct Filters {
    list: Vec<Filter>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Sets a filter on `conn` at `now`.
    pub fn install(&mut self, conn: Conn, req: &decide::FilterRequest, now: u64, c: &mut AccCounters) {
        c.filters_set += 1;
        let state = FilterState::new(req, SimTime(now));
        match self.list.iter_mut().find(|f| f.conn == conn) {
            Some(f) => {
                c.filters_replaced += 1;
                f.state = state;
            }
            None => self.list.push(Filter { conn, state, held: VecDeque::new() }),
        }
    }

    /// Diverts a data segment of `conn` into its filter, if one is at work; else gives it back.
    pub fn divert(&mut self, conn: &Conn, pkt: Pkt, now: u64) -> Result<(), Pkt> {
        match self.list.iter_mut().find(|f| f.conn == *conn && (f.state.active(SimTime(now)) || !f.held.is_empty())) {
            Some(f) => {
                f.held.push_back(pkt);
                Ok(())
            }
            None => Err(pkt),
        }
    }

    /// Judges every held segment at `now`: `cwnd_of` reads the window a segment carries;
    /// `out(pkt, discard)` takes each one. Ended filters are removed (timed-out idle ones too).
    pub fn run(&mut self, now: u64, c: &mut AccCounters, mut cwnd_of: impl FnMut(&Pkt) -> u32, mut out: impl FnMut(Pkt, bool)) {
        let t = SimTime(now);
        let mut i = 0;
        while i < self.list.len() {
            let f = &mut self.list[i];
            let mut ended = None;
            while let Some(p) = f.held.pop_front() {
                let v = decide::filter(&mut f.state, cwnd_of(&p), t);
                if v.discard {
                    c.packets_filtered += 1;
                }
                out(p, v.discard);
                if v.ended.is_some() {
                    ended = v.ended;
                    break;
                }
            }
            if ended.is_none() && f.held.is_empty() && t >= f.state.until {
                ended = Some(FilterEnd::Timeout);
            }
            match ended {
                Some(end) => {
                    // The flush: what the filter still holds goes on, unjudged.
                    while let Some(p) = f.held.pop_front() {
                        c.packets_flushed += 1;
                        out(p, false);
                    }
                    *match end {
                        FilterEnd::Count => &mut c.filters_removed_count,
                        FilterEnd::Behaviour => &mut c.filters_removed_behaviour,
                        FilterEnd::Timeout => &mut c.filters_removed_timeout,
                    } += 1;
                    self.list.swap_remove(i);
                }
                None => i += 1,
            }
        }
    }

    /// When the next filter times out, if any.
    pub fn next_expiry(&self) -> Option<u64> {
        self.list.iter().map(|f| f.state.until.as_nanos()).min()
    }
}

/// Nonces seen, by sending node: a control or request is taken once, in order.
#[derive(Default)]
pub struct Replay {
    last: HashMap<u32, u64>,
}

impl Replay {
    /// Whether `nonce` from `src` is newer than every one taken from it before (and takes it).
    pub fn fresh(&mut self, src: u32, nonce: u64) -> bool {
        let last = self.last.entry(src).or_insert(0);
        if nonce <= *last {
            return false;
        }
        *last = nonce;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::NOBODY;

    const CONN: Conn = Conn { src: 1, dst: 2, sport: 3, dport: 4 };
    const MS: u64 = 1_000_000;

    fn carried(cwnd: u32) -> AccState {
        AccState { cwnd, ssthresh: 100, srtt_us: 100_000, slow_start: false, fast_recovery: false }
    }

    fn pkt(buf: u32) -> Pkt {
        Pkt { buf, len: 100, from: NOBODY, at: 0 }
    }

    #[test]
    fn the_monitor_halves_the_window_and_keeps_one_control_per_rtt() {
        let (mut m, mut c) = (Monitor::default(), AccCounters::default());
        let cfg = MonitorConfig::default();
        let r = m.on_drop(&cfg, 0, CONN, &carried(20), 0, &mut c).unwrap();
        assert_eq!((r.state.cwnd, r.filter.unwrap().remaining), (10, 10));
        assert!(m.on_drop(&cfg, 0, CONN, &carried(20), 99 * MS, &mut c).is_none());
        assert!(m.on_drop(&cfg, 1, CONN, &carried(20), 99 * MS, &mut c).is_some(), "per egress");
        assert!(m.on_drop(&cfg, 0, CONN, &carried(20), 100 * MS, &mut c).is_some());
        assert_eq!((c.acc_drops, c.controls_sent), (4, 3));
    }

    #[test]
    fn a_filter_discards_its_count_then_flushes_what_it_holds() {
        let (mut f, mut c) = (Filters::default(), AccCounters::default());
        f.install(CONN, &decide::FilterRequest { carried: 8, remaining: 2, lifetime: Dur::from_millis(100) }, 0, &mut c);
        for b in 0..5 {
            assert!(f.divert(&CONN, pkt(b), MS).is_ok());
        }
        let other = Conn { sport: 9, ..CONN };
        assert!(f.divert(&other, pkt(9), MS).is_err(), "other connections pass");
        let mut seen = vec![];
        f.run(MS, &mut c, |_| 8, |p, discard| seen.push((p.buf, discard)));
        assert_eq!(seen, [(0, true), (1, true), (2, false), (3, false), (4, false)]);
        assert!(f.is_empty());
        assert_eq!((c.packets_filtered, c.packets_flushed, c.filters_removed_count), (2, 3, 1));
    }

    #[test]
    fn a_smaller_carried_window_ends_the_filter_and_that_segment_passes() {
        let (mut f, mut c) = (Filters::default(), AccCounters::default());
        f.install(CONN, &decide::FilterRequest { carried: 8, remaining: 5, lifetime: Dur::from_millis(100) }, 0, &mut c);
        for b in 0..3 {
            f.divert(&CONN, pkt(b), MS).unwrap();
        }
        let mut seen = vec![];
        f.run(MS, &mut c, |p| if p.buf == 1 { 4 } else { 8 }, |p, d| seen.push((p.buf, d)));
        assert_eq!(seen, [(0, true), (1, false), (2, false)]);
        assert_eq!((c.filters_removed_behaviour, c.packets_flushed), (1, 1));
    }

    #[test]
    fn an_idle_filter_times_out_and_a_new_request_replaces_the_old() {
        let (mut f, mut c) = (Filters::default(), AccCounters::default());
        let req = decide::FilterRequest { carried: 8, remaining: 5, lifetime: Dur::from_millis(10) };
        f.install(CONN, &req, 0, &mut c);
        f.install(CONN, &req, 5 * MS, &mut c);
        assert_eq!((f.len(), c.filters_replaced), (1, 1));
        assert_eq!(f.next_expiry(), Some(15 * MS));
        f.run(14 * MS, &mut c, |_| 8, |_, _| panic!());
        assert_eq!(f.len(), 1);
        f.run(15 * MS, &mut c, |_| 8, |_, _| panic!());
        assert_eq!((f.len(), c.filters_removed_timeout), (0, 1));
        assert!(f.divert(&CONN, pkt(0), 16 * MS).is_err());
    }

    #[test]
    fn nonces_are_taken_once_and_in_order() {
        let mut r = Replay::default();
        assert!(r.fresh(7, 10));
        assert!(!r.fresh(7, 10));
        assert!(!r.fresh(7, 9));
        assert!(r.fresh(8, 1));
        assert!(r.fresh(7, 11));
    }
}
