//! Queue disciplines defined outside the core (`settings::external`): a Python class, through
//! the binding. `discipline = "NAME"` selects one when no registered discipline has that
//! name; the queue's keys other than those every queue has are handed to it whole.
//!
//! A plug-in is a [`Plugin`] (what the registry holds); it builds, for one link, an
//! [`ExternalAqm`]: any [`Aqm`] it wrote, boxed, which the discipline enum reaches by the same
//! `match` as the built-in ones.

use super::spec::{QueueContext, SettingError, Table};
use super::{Aqm, Head, Occupancy, OwnBuffer, Probe, Verdict};
use crate::packet::Packet;
use crate::settings::external::{Plugins, Site};
use crate::sim::{Dur, Rng, SimTime};
use std::fmt;

/// A queue discipline registered from outside the core.
pub trait Plugin: Send + Sync {
    /// The discipline of one link (`site`) from its own keys; an error names the key.
    fn build(&self, table: &Table, ctx: &QueueContext, site: Site) -> Result<Box<dyn ExternalAqm>, SettingError>;
}

/// A plug-in's discipline.
pub trait ExternalAqm: Aqm + Send + Sync + fmt::Debug {
    /// A copy (a queue is copied only by tests).
    fn clone_box(&self) -> Box<dyn ExternalAqm>;
    /// The name it was registered under.
    fn name(&self) -> &str;
}

/// The registered plug-ins.
pub static PLUGINS: Plugins<dyn Plugin> = Plugins::new();

/// A plug-in's discipline, as the discipline enum holds it.
#[derive(Debug)]
pub struct External(pub Box<dyn ExternalAqm>);

impl Clone for External {
    fn clone(&self) -> Self {
        External(self.0.clone_box())
    }
}

// Out of line and cold: the registry's `match` reaches these only for a plug-in, and the
// run loop's hot paths should be laid out as if it never does.
impl Aqm for External {
    #[cold]
    #[inline(never)]
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, rng: &mut Rng) -> Verdict {
        self.0.on_arrival(pkt, occ, now, rng)
    }
    #[cold]
    #[inline(never)]
    fn on_departure(&mut self, occ: Occupancy, now: SimTime) {
        self.0.on_departure(occ, now)
    }
    #[cold]
    #[inline(never)]
    fn on_departure_of(&mut self, occ: Occupancy, departed_bytes: u32, now: SimTime) {
        self.0.on_departure_of(occ, departed_bytes, now)
    }
    #[cold]
    #[inline(never)]
    fn decides_at_dequeue(&self) -> bool {
        self.0.decides_at_dequeue()
    }
    #[cold]
    #[inline(never)]
    fn on_dequeue(&mut self, head: Option<Head>, now: SimTime) -> Verdict {
        self.0.on_dequeue(head, now)
    }
    #[cold]
    #[inline(never)]
    fn after_dequeue_signal(&mut self, dropped: bool) {
        self.0.after_dequeue_signal(dropped)
    }
    #[cold]
    #[inline(never)]
    fn on_overflow(&mut self) -> bool {
        self.0.on_overflow()
    }
    #[cold]
    #[inline(never)]
    fn probe(&self) -> Probe {
        self.0.probe()
    }
    #[cold]
    #[inline(never)]
    fn update_period(&self) -> Option<(Dur, &'static str)> {
        self.0.update_period()
    }
    #[cold]
    #[inline(never)]
    fn own_buffer(&mut self) -> Option<&mut dyn OwnBuffer> {
        self.0.own_buffer()
    }
    #[cold]
    #[inline(never)]
    fn own_buffer_ref(&self) -> Option<&dyn OwnBuffer> {
        self.0.own_buffer_ref()
    }
}
