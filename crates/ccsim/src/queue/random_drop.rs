//! Random drop, the walk-through's queue discipline (`docs/architecture.md`, "Adding an
//! algorithm"): an arriving packet that finds at least `min` packets queued gets an early
//! signal with probability `p`, whatever else the queue holds. The signal policy makes it a
//! drop, a CE mark or a spoof, as for RED.

use super::spec::{boxed, keys_of, read, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, QueueContext, Verdict};
use crate::packet::Packet;
use crate::sim::{Rng, SimTime};
use serde::Deserialize;

/// The discipline: its two parameters, and no state.
#[derive(Clone, Debug)]
pub struct RandomDrop {
    p: f64,
    min: u32,
}

impl Aqm for RandomDrop {
    fn on_arrival(&mut self, _: &Packet, occ: Occupancy, _: SimTime, rng: &mut Rng) -> Verdict {
        if occ.packets >= self.min && rng.uniform() < self.p {
            Verdict::Early
        } else {
            Verdict::Admit
        }
    }
}

/// Random drop's keys.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomDropSpec {
    /// The probability of a signal; default 0.01.
    pub p: Option<f64>,
    /// Packets the queue must hold for a signal; default 1.
    pub min: Option<u32>,
}

pub const REGISTRATION: Registration =
    Registration { name: "random_drop", aliases: &[], family: None, keys: keys_of::<RandomDropSpec>, footprint: boxed::<RandomDrop>, build };

fn build(table: &Table, _: &QueueContext) -> Result<Discipline, SettingError> {
    let spec = read::<RandomDropSpec>(table)?;
    let p = spec.p.unwrap_or(0.01);
    if !(0.0..=1.0).contains(&p) {
        return Err(SettingError::new("p", format!("must be in [0, 1], got {p}")));
    }
    Ok(Discipline::RandomDrop(Box::new(RandomDrop { p, min: spec.min.unwrap_or(1) })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::sized;

    #[test]
    fn signals_about_p_of_the_arrivals_that_find_min_packets() {
        let mut d = RandomDrop { p: 0.25, min: 2 };
        let mut rng = Rng::from_seed(7);
        let mut early =
            |packets| (0..10_000).filter(|_| d.on_arrival(&sized(1000), Occupancy { packets, bytes: 0 }, SimTime::ZERO, &mut rng) == Verdict::Early).count();
        assert_eq!(early(1), 0, "below min: never");
        assert!((2300..2700).contains(&early(2)), "about a quarter");
    }
}
