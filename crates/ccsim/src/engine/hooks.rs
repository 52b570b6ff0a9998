//! Router mechanisms as the run loop calls them (`crate::router`): which mechanisms implement
//! each hook point, the one loop that calls them, and the effects they ask for.
//!
//! Hooks gather their effects in `Simulation::effects`. Timers are scheduled as soon as the
//! hook that set them returns (they carry the index of the mechanism that set them). Packets
//! are sent once the engine is done with the packet that caused them: from a mark taken
//! before the hooks ran to the end of the buffer, which is then truncated back to the mark.
//! Sending runs further hooks, whose effects go after (and are gone before) those being
//! sent, so nothing is allocated per packet.

use super::{Event, Simulation};
use crate::net::{Kind, NodeId, Packet};
use crate::router::{Cx, Hooks, Mechanism, Registered, RouterMechanism, Timer};

/// A hook point: one of the lists of [`HookLists`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Hook {
    Arrival,
    NextHop,
    Verdict,
    QueueDrop,
    Loss,
    LinkChange,
}

impl Hook {
    /// Every hook point, with the bit a mechanism sets to be called there.
    const ALL: [(Hook, Hooks); 6] = [
        (Hook::Arrival, Hooks::ARRIVAL),
        (Hook::NextHop, Hooks::NEXT_HOP),
        (Hook::Verdict, Hooks::VERDICT),
        (Hook::QueueDrop, Hooks::QUEUE_DROP),
        (Hook::Loss, Hooks::LOSS),
        (Hook::LinkChange, Hooks::LINK_CHANGE),
    ];
}

/// For each hook point, the indices of the mechanisms that implement it, in order.
#[derive(Clone, Debug, Default)]
pub(super) struct HookLists([Vec<u8>; Hook::ALL.len()]);

impl HookLists {
    fn add(&mut self, i: u8, hooks: Hooks) {
        for (hook, bit) in Hook::ALL {
            if hooks.contains(bit) {
                self.0[hook as usize].push(i);
            }
        }
    }

    /// The mechanisms called at `hook`, in order.
    #[inline]
    pub(super) fn at(&self, hook: Hook) -> &[u8] {
        &self.0[hook as usize]
    }
}

/// What a hook's answer says of the mechanisms after it: a hook that answers `true` (a
/// discard, a loss claimed) stops the list; one without an answer never does.
pub(super) trait Stops {
    fn stops(self) -> bool;
}

impl Stops for () {
    #[inline]
    fn stops(self) -> bool {
        false
    }
}

impl Stops for bool {
    #[inline]
    fn stops(self) -> bool {
        self
    }
}

impl Simulation {
    /// Adds a router mechanism; its hooks are called after those of the mechanisms added
    /// before it.
    pub fn add_mechanism(&mut self, m: Mechanism) {
        let i = u8::try_from(self.mechanisms.len()).expect("at most 255 router mechanisms");
        self.hooked.add(i, m.hooks());
        self.mechanisms.push(m);
    }

    /// The simulation's mechanism of type `T`, if the scenario uses it.
    pub fn mechanism<T: Registered>(&self) -> Option<&T> {
        self.mechanisms.iter().find_map(T::find)
    }

    /// Calls `hook` on each mechanism of hook point `at`, in order, each with a [`Cx`] of its
    /// own, and schedules the timers each sets as it returns. Stops after an answer that
    /// [`Stops`]; returns whether one did. The packets they ask to send are left in
    /// `effects.emits` for the caller to send (see the module's comment).
    #[inline]
    pub(super) fn run_hooks<R: Stops>(&mut self, at: Hook, mut hook: impl FnMut(&mut Mechanism, &mut Cx) -> R) -> bool {
        for k in 0..self.hooked.at(at).len() {
            let i = self.hooked.at(at)[k];
            if self.call_hook(i, &mut hook).stops() {
                return true;
            }
        }
        false
    }

    /// Calls `hook` on mechanism `i` with a [`Cx`], then schedules the timers it set.
    #[inline]
    fn call_hook<R>(&mut self, i: u8, hook: impl FnOnce(&mut Mechanism, &mut Cx) -> R) -> R {
        let answer = hook(&mut self.mechanisms[i as usize], &mut Cx::new(self.now, &mut self.net, &mut self.effects));
        self.schedule_timers(i);
        answer
    }

    /// A timer of mechanism `i` expired.
    pub(super) fn on_mechanism_timer(&mut self, i: u8, timer: Timer) {
        let mark = self.effects.emits.len();
        self.call_hook(i, |m, cx| m.on_timer(timer, cx));
        self.send_emits(mark);
    }

    /// Schedules the timers mechanism `by` has just set.
    fn schedule_timers(&mut self, by: u8) {
        for (at, t) in self.effects.timers.drain(..) {
            self.events.schedule(at, Event::Timer { mechanism: by, kind: t.kind, a: t.a, b: t.b });
        }
    }

    /// Sends the packets mechanisms asked for since `mark` (in `on_arrival`, those not sent
    /// first) and forgets them.
    pub(super) fn send_emits(&mut self, mark: usize) {
        self.send_emits_of(mark, false);
        self.effects.emits.truncate(mark);
    }

    /// Sends the packets asked for since `mark` to go before the packet being handled.
    pub(super) fn send_emits_first(&mut self, mark: usize) {
        self.send_emits_of(mark, true);
    }

    /// Sends the packets asked for since `mark` whose `first` is `first`, in order. Each
    /// sending may ask for more, which are sent and gone before it returns.
    fn send_emits_of(&mut self, mark: usize, first: bool) {
        let end = self.effects.emits.len();
        for i in mark..end {
            let e = self.effects.emits[i];
            if e.first == first {
                self.emit(e.from, e.pkt);
            }
        }
    }

    /// A router sends a packet it made for a flow.
    fn emit(&mut self, from: NodeId, pkt: Packet) {
        if pkt.kind == Kind::SpoofedAck {
            if let Some(f) = self.flows.get_mut(pkt.flow as usize) {
                f.net.spoofed_acks += 1;
            }
        }
        self.forward(from, &mut { pkt });
    }
}
