//! The step marker of DCTCP (RFC 8257 Section 3.1; Alizadeh et al., "Data Center TCP",
//! SIGCOMM 2010, Section 3.1): a congestion signal for every packet that arrives to find
//! the instantaneous queue at or above `K` packets, none below.
//!
//! RFC 8257 Section 3.1: "the switch marks a packet if the queue length is greater than K
//! upon its arrival" — here "the queue the packet finds holds at least `K` packets", so that
//! with it queued the queue exceeds `K`. This is the marking ns-3 and Linux give DCTCP with
//! RED set to `min_th = max_th = K` and `w_q = 1` (ns-3's `RedQueueDisc` signals when the
//! average, here the queue found, is at least `MaxTh`).
//!
//! The verdict is an `Early` signal; the queue's signal policy decides what it becomes. With
//! `signal = "ecn"` an ECN-capable packet is marked CE and one that is not is dropped, which
//! is what DCTCP's switches do; with the default `signal = "drop"` every signal is a drop.
//! There is no default `K`: RFC 8257 gives none (the DCTCP paper's guideline is `K > C x
//! RTT / 7`, about 65 packets at 10 Gb/s and 100 us).

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, Probe, QueueContext, Verdict};
use crate::packet::Packet;
use crate::sim::{Rng, SimTime};
use serde::Deserialize;

#[derive(Clone, Debug)]
pub struct StepMarker {
    /// Queue (packets) from which every arrival is signalled.
    k: u32,
}

impl StepMarker {
    pub fn new(k: u32) -> Result<StepMarker, SettingError> {
        if k == 0 {
            return Err(SettingError::new("k", "must be at least 1 packet"));
        }
        Ok(StepMarker { k })
    }
    pub fn k(&self) -> u32 {
        self.k
    }
}

impl Aqm for StepMarker {
    fn on_arrival(&mut self, _: &Packet, occ: Occupancy, _: SimTime, _: &mut Rng) -> Verdict {
        if occ.packets >= self.k {
            Verdict::Early
        } else {
            Verdict::Admit
        }
    }
    fn probe(&self) -> Probe {
        Probe::default()
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// The marking threshold, packets. Required (RFC 8257 gives no default).
    pub k: Option<u32>,
}

pub const REGISTRATION: Registration =
    Registration { name: "step", aliases: &[], family: None, keys: keys_of::<StepSpec>, footprint: boxed::<StepMarker>, build };

fn build(table: &Table, ctx: &QueueContext) -> Result<Discipline, SettingError> {
    let Some(k) = read::<StepSpec>(table)?.k else { return Err(SettingError::new("k", "required for discipline \"step\"")) };
    if let super::Limit::Packets(n) = ctx.limit {
        if k > n {
            return Err(SettingError::new("k", format!("must not exceed the buffer limit ({n}), got {k}")));
        }
    }
    Ok(Discipline::Step(Box::new(StepMarker::new(k)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::sized;

    #[test]
    fn signals_every_arrival_that_finds_k_or_more_packets() {
        let mut s = StepMarker::new(3).unwrap();
        let mut rng = Rng::from_seed(1);
        let got: Vec<Verdict> = (0..6).map(|n| s.on_arrival(&sized(1000), Occupancy { packets: n, bytes: n as u64 * 1000 }, SimTime::ZERO, &mut rng)).collect();
        use Verdict::*;
        assert_eq!(got, [Admit, Admit, Admit, Early, Early, Early]);
        // Only the packet count matters, not the bytes or the time.
        assert_eq!(s.on_arrival(&sized(9000), Occupancy { packets: 2, bytes: 1 << 40 }, SimTime(1 << 50), &mut rng), Admit);
    }

    #[test]
    fn k_is_required_positive_and_within_the_buffer() {
        let ctx = QueueContext { link_bps: 1_000_000, limit: super::super::Limit::Packets(100), profile: Default::default(), delay: crate::sim::Dur::ZERO };
        let t = |s: &str| -> Table { s.parse().unwrap() };
        assert_eq!(build(&t(""), &ctx).unwrap_err().message, "required for discipline \"step\"");
        assert_eq!(build(&t("k = 0"), &ctx).unwrap_err().key, "k");
        assert_eq!(build(&t("k = 101"), &ctx).unwrap_err().message, "must not exceed the buffer limit (100), got 101");
        assert!(matches!(build(&t("k = 65"), &ctx).unwrap(), Discipline::Step(s) if s.k() == 65));
    }
}
