//! The flakeway (Faber, Section 4.2.5; the name is RFC 1025's): at its node, every received
//! datagram that matches is dropped with the loss probability, or else held for the fixed
//! delay plus a uniform draw from [0, jitter] before the node handles it. A jitter reorders
//! packets; the held ones wait in a heap by release time (ties in arrival order).

use crate::plan::{Flakeway, Match};
use crate::pool::Pkt;
use crate::wire::Type;
use ccsim::sim::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct FlakewayStats {
    pub matched: u64,
    pub dropped: u64,
    pub delayed: u64,
}

pub struct Flakeways {
    rules: Vec<Flakeway>,
    rng: Rng,
    held: BinaryHeap<Reverse<(u64, u64, Pkt)>>,
    order: u64,
    pub stats: FlakewayStats,
}

/// What the flakeway did with a datagram.
#[derive(Debug, PartialEq, Eq)]
pub enum Fate {
    /// Not matched, or matched with no delay: handle it now.
    Pass(Pkt),
    Dropped(Pkt),
    Held,
}

impl Flakeways {
    /// The flakeways of node `me` among `all`; `rng` draws losses and jitters.
    pub fn new(all: &[Flakeway], me: u32, rng: Rng) -> Flakeways {
        Flakeways {
            rules: all.iter().filter(|f| f.node == me).copied().collect(),
            rng,
            held: BinaryHeap::with_capacity(1024),
            order: 0,
            stats: FlakewayStats::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// A datagram of type `ty` (carrying data if `data`) to node `dst` arrives at `now`.
    pub fn offer(&mut self, pkt: Pkt, ty: Type, data: bool, dst: Option<u32>, now: u64) -> Fate {
        let Some(rule) = self.rules.iter().find(|r| {
            let kind = match r.matches {
                Match::All => true,
                Match::Rdp => ty == Type::Rdp,
                Match::Data => ty == Type::Rdp && data,
            };
            kind && r.to.is_none_or(|t| Some(t) == dst)
        }) else {
            return Fate::Pass(pkt);
        };
        self.stats.matched += 1;
        if rule.loss > 0.0 && self.rng.bernoulli(rule.loss) {
            self.stats.dropped += 1;
            return Fate::Dropped(pkt);
        }
        let jitter = if rule.jitter.0 > 0 { (self.rng.uniform() * rule.jitter.0 as f64) as u64 } else { 0 };
        let delay = rule.delay.0 + jitter;
        if delay == 0 {
            return Fate::Pass(pkt);
        }
        self.stats.delayed += 1;
        self.order += 1;
        self.held.push(Reverse((now + delay, self.order, pkt)));
        Fate::Held
    }

    /// The next held datagram due by `now`.
    pub fn release(&mut self, now: u64) -> Option<Pkt> {
        let Reverse((due, _, _)) = self.held.peek()?;
        if *due > now {
            return None;
        }
        self.held.pop().map(|Reverse((_, _, p))| p)
    }

    pub fn next_wake(&self) -> Option<u64> {
        self.held.peek().map(|Reverse((d, _, _))| *d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::NOBODY;
    use ccsim::sim::Dur;

    fn rule(delay_ms: u64, jitter_ms: u64, loss: f64, matches: Match) -> Flakeway {
        Flakeway { node: 1, delay: Dur::from_millis(delay_ms), jitter: Dur::from_millis(jitter_ms), loss, matches, to: None }
    }

    fn pkt(buf: u32) -> Pkt {
        Pkt { buf, len: 10, from: NOBODY, at: 0 }
    }

    #[test]
    fn delays_matching_packets_only_and_releases_them_in_time_order() {
        let mut f = Flakeways::new(&[rule(50, 0, 0.0, Match::Data), rule(0, 0, 0.0, Match::All)], 1, Rng::from_seed(1));
        assert_eq!(f.offer(pkt(1), Type::Rdp, true, None, 0), Fate::Held);
        assert_eq!(f.offer(pkt(2), Type::Rdp, false, None, 0), Fate::Pass(pkt(2)), "an ACK matches the second rule, no delay");
        assert_eq!(f.offer(pkt(3), Type::Rdp, true, None, 10), Fate::Held);
        assert_eq!(f.next_wake(), Some(50_000_000));
        assert_eq!(f.release(49_999_999), None);
        assert_eq!(f.release(50_000_010).map(|p| p.buf), Some(1));
        assert_eq!(f.release(50_000_010).map(|p| p.buf), Some(3));
        assert!(Flakeways::new(&[rule(50, 0, 0.0, Match::All)], 2, Rng::from_seed(1)).is_empty(), "another node's");
    }

    #[test]
    fn loss_and_jitter_have_their_rates() {
        let mut f = Flakeways::new(&[rule(10, 10, 0.05, Match::Rdp)], 1, Rng::from_seed(7));
        let n = 100_000;
        let dropped = (0..n).filter(|&i| f.offer(pkt(i), Type::Rdp, true, None, 0) == Fate::Dropped(pkt(i))).count();
        assert!((dropped as f64 / n as f64 - 0.05).abs() < 0.005, "{dropped}");
        let mut last = 0;
        let mut reordered = 0;
        let mut total = 0u64;
        while let Some(p) = f.release(u64::MAX) {
            if p.buf < last {
                reordered += 1;
            }
            last = p.buf;
            total += 1;
        }
        assert_eq!(total as usize, n as usize - dropped);
        assert!(reordered > 1000, "a 10 ms jitter reorders: {reordered}");
    }
}
