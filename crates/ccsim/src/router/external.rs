//! Router mechanisms defined outside the core (`settings::external`): Python classes, through
//! the binding. A scenario runs them with one `[[mechanisms]]` table each, `name` the
//! plug-in's and every other key its own settings:
//!
//! ```toml
//! [[mechanisms]]
//! name = "blackhole"
//! router = "R1"
//! ```
//!
//! They are one registered mechanism, [`External`], which holds them in the order of their
//! tables and calls each on the hooks it implements; a timer comes back to the plug-in that
//! set it (the timer's `kind` is its index).

use super::hooks::{BuildContext, Cx, Hooks, Passage, RouterMechanism, Timer};
use crate::net::{LinkId, NodeId, Packet};
use crate::settings::error::{fail, BuildError};
use crate::settings::external::{Plugins, Site};
use crate::settings::table::{SettingError, Table};
use crate::signal::{Action, Verdict};
use crate::sim::{Rng, SimTime};
use std::fmt;

/// A router mechanism registered from outside the core.
pub trait Plugin: Send + Sync {
    /// The mechanism from its table (without `name`) in the network `cx` describes; an
    /// error names the key.
    fn build(&self, table: &Table, cx: &BuildContext, site: Site) -> Result<Box<dyn ExternalMechanism>, SettingError>;
}

/// A plug-in's mechanism. Its timers' `kind` is not its own: [`External`] sets it.
pub trait ExternalMechanism: RouterMechanism + Send + Sync + fmt::Debug {
    /// A copy (a simulation is copied only by tests).
    fn clone_box(&self) -> Box<dyn ExternalMechanism>;
}

/// The registered plug-ins.
pub static PLUGINS: Plugins<dyn Plugin> = Plugins::new();

/// The scenario's plug-in mechanisms, in the order of its `[[mechanisms]]` tables.
#[derive(Debug)]
pub struct External {
    list: Vec<Box<dyn ExternalMechanism>>,
    hooks: Hooks,
}

impl Clone for External {
    fn clone(&self) -> Self {
        External { list: self.list.iter().map(|m| m.clone_box()).collect(), hooks: self.hooks }
    }
}

impl External {
    pub fn build(cx: &BuildContext) -> Result<Option<External>, BuildError> {
        let mut list = Vec::new();
        for (i, table) in cx.scenario.mechanisms.iter().enumerate() {
            let path = format!("mechanisms[{i}]");
            let Some(name) = table.get("name").and_then(|v| v.as_str()) else {
                return fail(format!("{path}.name"), "required: the name a plug-in was registered under");
            };
            let Some(plugin) = PLUGINS.find(name) else {
                let names: Vec<String> = PLUGINS.names().iter().map(|n| format!("{n:?}")).collect();
                let known = if names.is_empty() { "none is registered".to_string() } else { format!("registered: {}", names.join(", ")) };
                return fail(format!("{path}.name"), format!("unknown mechanism {name:?} ({known})"));
            };
            let mut own = table.clone();
            own.remove("name");
            let site = Site { name: format!("{name} ({path})"), rng: Rng::stream(cx.seed, &format!("mechanism/{i}")) };
            let m = plugin.build(&own, cx, site).map_err(|e| (e.path_under(&path), e.message))?;
            list.push(m);
        }
        if list.len() > u8::MAX as usize {
            return fail("mechanisms", format!("at most {} plug-in mechanisms", u8::MAX));
        }
        let hooks = list.iter().fold(Hooks::default(), |h, m| h | m.hooks());
        Ok(if list.is_empty() { None } else { Some(External { list, hooks }) })
    }

    /// Calls `f` on each plug-in that implements `hook`, with its index.
    fn each(&mut self, hook: Hooks, mut f: impl FnMut(u8, &mut Box<dyn ExternalMechanism>)) {
        for (i, m) in self.list.iter_mut().enumerate() {
            if m.hooks().contains(hook) {
                f(i as u8, m);
            }
        }
    }
}

/// Runs a plug-in's hook with its timers tagged with its index.
fn tagged<T>(i: u8, cx: &mut Cx, f: impl FnOnce(&mut Cx) -> T) -> T {
    let from = cx.effects.timers.len();
    let out = f(cx);
    for (_, t) in &mut cx.effects.timers[from..] {
        t.kind = i;
    }
    out
}

// Out of line and cold: the registry's `match` reaches these only when a scenario has
// plug-ins, and without the hint the run loop's hook points were laid out for them (DUMBBELL-100
// without any plug-in ran 3% more instructions; 2% with `inline(never)` alone).
impl RouterMechanism for External {
    fn hooks(&self) -> Hooks {
        self.hooks
    }

    #[cold]
    #[inline(never)]
    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Passage {
        let mut passage = Passage::Forward;
        self.each(Hooks::ARRIVAL, |i, m| {
            if passage == Passage::Forward {
                passage = tagged(i, cx, |cx| m.on_arrival(node, pkt, cx));
            }
        });
        passage
    }

    #[cold]
    #[inline(never)]
    fn next_hop(&mut self, node: NodeId, pkt: &mut Packet, chosen: Option<LinkId>, cx: &mut Cx) -> Option<LinkId> {
        let mut link = chosen;
        self.each(Hooks::NEXT_HOP, |i, m| link = tagged(i, cx, |cx| m.next_hop(node, pkt, link, cx)));
        link
    }

    #[cold]
    #[inline(never)]
    fn on_verdict(&mut self, link: LinkId, pkt: &Packet, verdict: Verdict, action: Action, cx: &mut Cx) -> Action {
        let mut action = action;
        self.each(Hooks::VERDICT, |i, m| action = tagged(i, cx, |cx| m.on_verdict(link, pkt, verdict, action, cx)));
        action
    }

    #[cold]
    #[inline(never)]
    fn on_queue_drop(&mut self, link: LinkId, pkt: &Packet, cx: &mut Cx) {
        self.each(Hooks::QUEUE_DROP, |i, m| tagged(i, cx, |cx| m.on_queue_drop(link, pkt, cx)));
    }

    #[cold]
    #[inline(never)]
    fn claims_loss(&mut self, pkt: &Packet) -> bool {
        let mut claimed = false;
        self.each(Hooks::LOSS, |_, m| claimed = claimed || m.claims_loss(pkt));
        claimed
    }

    #[cold]
    #[inline(never)]
    fn on_link_change(&mut self, link: LinkId, up: bool, cx: &mut Cx) {
        self.each(Hooks::LINK_CHANGE, |i, m| tagged(i, cx, |cx| m.on_link_change(link, up, cx)));
    }

    #[cold]
    #[inline(never)]
    fn on_timer(&mut self, timer: Timer, cx: &mut Cx) {
        let i = timer.kind;
        if let Some(m) = self.list.get_mut(i as usize) {
            tagged(i, cx, |cx| m.on_timer(timer, cx));
        }
    }

    #[cold]
    #[inline(never)]
    fn settle(&mut self, now: SimTime) {
        for m in &mut self.list {
            m.settle(now);
        }
    }

    #[cold]
    #[inline(never)]
    fn begin_measurement(&mut self) {
        for m in &mut self.list {
            m.begin_measurement();
        }
    }
}
