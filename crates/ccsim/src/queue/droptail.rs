//! Tail Drop: never signals early; the FIFO's hard limit drops arrivals when full.

use super::{Aqm, Occupancy, Verdict};
use crate::sim::{Rng, SimTime};

#[derive(Clone, Debug, Default)]
pub struct TailDrop;

impl Aqm for TailDrop {
    fn on_arrival(&mut self, _: Occupancy, _: u32, _: SimTime, _: &mut Rng) -> Verdict {
        Verdict::Admit
    }
}
