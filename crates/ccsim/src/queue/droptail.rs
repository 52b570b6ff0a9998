//! Tail Drop: never signals early; the FIFO's hard limit drops arrivals when full.
//!
//! It has no keys of its own: a `droptail` queue is configured by the keys every queue has
//! (`limit`, `signal`, ...). `taildrop` is another name for it.

use super::spec::{boxed, Registration, SettingError, Table};
use super::{Aqm, Discipline, Occupancy, QueueContext, Verdict};
use crate::packet::Packet;
use crate::sim::{Rng, SimTime};

#[derive(Clone, Debug, Default)]
pub struct TailDrop;

impl Aqm for TailDrop {
    fn on_arrival(&mut self, _: &Packet, _: Occupancy, _: SimTime, _: &mut Rng) -> Verdict {
        Verdict::Admit
    }
}

pub const REGISTRATION: Registration =
    Registration { name: "droptail", aliases: &["taildrop"], family: None, keys: Vec::new, footprint: boxed::<TailDrop>, build };

fn build(_: &Table, _: &QueueContext) -> Result<Discipline, SettingError> {
    Ok(Discipline::TailDrop(Box::new(TailDrop)))
}
