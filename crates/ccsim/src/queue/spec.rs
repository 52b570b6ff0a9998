//! A discipline's settings as a scenario writes them: read from a queue's table, resolved
//! against the queue they configure, checked, and built into the discipline.
//!
//! A queue's table holds the keys every queue has (`limit`, `signal`, ...: the scenario
//! schema's `QueueSpec`) and its discipline's own keys. Each discipline owns its keys: a
//! serde struct in the discipline's module (`RedSpec`, `AredSpec`, `RtredSpec`) lists them
//! with their doc comments and defaults, and a [`Registration`] in the same module names
//! the discipline, lists its keys and builds it. The registry
//! [`REGISTRY`](super::REGISTRY) holds one registration per discipline, and [`build`]
//! dispatches through it: the scenario builder names no discipline.
//!
//! ## Reading, resolving, checking
//!
//! - **Keys.** A key of the table that the chosen discipline does not read is an error
//!   that says which disciplines do take it, or that none does. A spec struct's keys are
//!   read from its `Deserialize` impl ([`keys_of`]), so they cannot drift from its fields.
//!   A discipline may read several structs (Adaptive RED reads `RedSpec` and `AredSpec`);
//!   [`read`] gives each the keys it declares.
//! - **Resolution.** Every key is optional in the struct; the spec's `resolve` fills in the
//!   defaults and turns the keys into the discipline's parameters (`RedParams`,
//!   `AredVariant`, ...). It takes a [`QueueContext`], so a default that depends on the
//!   queue (the buffer, the link rate) or on the scenario (the `rfc`/`ns2` profile, when
//!   there is one: it will be a field of the context) is computed in that one place.
//! - **Bounds.** A bound that needs nothing but the parameters (`0 <= min_th < max_th`,
//!   `0 < w_q <= 1`) is checked once, by the discipline's constructor (`RedParams::validate`,
//!   `Rtred::new`), whether the parameters come from a scenario or from code; a bound that
//!   needs the context (`max_th` within the buffer) is checked once, by `resolve`. Either way
//!   the error is a [`SettingError`] naming the key, which the builder prefixes with the
//!   table's path (`links[1].queue.max_th: ...`).
//!
//! ## Adding a discipline
//!
//! One module beside `red.rs` with the discipline ([`Aqm`](super::Aqm)), its spec struct and
//! a `pub const REGISTRATION`, plus one line in the `disciplines!` list of `queue/mod.rs`
//! (which declares the [`Discipline`] variant and registers it), and its rows in
//! `docs/scenario-format.md` (a test checks that every key is documented there, with its
//! true default). How the disciplines that are not RED-like fit:
//!
//! - **Step marking** (DCTCP's `K`, `step.rs`): an `Aqm` whose `on_arrival` says `Early`
//!   when the instantaneous queue is at least `K`; with `signal = "ecn"` that is a mark.
//! - **PIE** (`pie.rs`) decides at enqueue like RED. It estimates the queueing delay from
//!   the departure rate, so it reads each departed packet's size
//!   ([`on_departure_of`](super::Aqm::on_departure_of)); its update every `t_update` runs
//!   lazily on the next arrival or departure, so it needs no timer.
//! - **CoDel** (`codel.rs`) decides at *dequeue*, from the sojourn time of the packet at
//!   the head: [`on_dequeue`](super::Aqm::on_dequeue) for each head packet until one is
//!   sent, called by [`EgressQueue::next_departure`](super::EgressQueue::next_departure) at
//!   each transmission opportunity of the link. The signal policy turns its verdict into a
//!   drop, a CE mark or a spoof as at enqueue; packets dropped at dequeue reach the router
//!   extensions that watch drops (ACC) as drops at enqueue do.
//! - **FQ-CoDel** (`fq_codel.rs`) owns its buffer: the egress queue hands it every packet
//!   and asks it for the next to send (per-flow queues served by deficit round robin,
//!   CoDel on each); on overflow it drops from its fattest flow, and the queue reports those
//!   packets to the router ([`EgressQueue::take_evicted`](super::EgressQueue::take_evicted)).
//!   The counters, drop areas and time integrals of `EgressQueue` see only total occupancy.

use super::{Discipline, Limit};
use crate::settings::profile::Profile;
use crate::sim::Dur;
use std::fmt;

use crate::settings::table::one_of;
pub use crate::settings::table::{keys_of, read, SettingError, Table};

/// What a discipline's settings are resolved against: the queue and link they configure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueContext {
    /// Rate of the link the queue feeds, bit/s.
    pub link_bps: u64,
    /// The buffer's hard limit.
    pub limit: Limit,
    /// The scenario's profile: the set of defaults in force.
    pub profile: Profile,
    /// Propagation delay of the link the queue feeds (ns-2's automatic RED weight).
    pub delay: Dur,
}

impl QueueContext {
    /// The buffer in packets: the packet limit, or the byte limit in packets of
    /// `packet_bytes` (RED's thresholds in byte mode are in mean-size packets).
    pub fn capacity_packets(&self, packet_bytes: u32) -> f64 {
        match self.limit {
            Limit::Packets(n) => n as f64,
            Limit::Bytes(b) => b as f64 / packet_bytes as f64,
        }
    }
}

/// One discipline, as the registry holds it.
#[derive(Clone, Copy)]
pub struct Registration {
    /// The name `discipline = "..."` selects it by.
    pub name: &'static str,
    /// Other names that select it.
    pub aliases: &'static [&'static str],
    /// The family it belongs to, if it shares keys with others ("RED"): messages say "the
    /// RED family (red, ared, rtred)" for a key every member takes.
    pub family: Option<&'static str>,
    /// Every key of its own it reads (not the keys every queue has).
    pub keys: fn() -> Vec<&'static str>,
    /// Reads its keys from a table that holds no others, resolves them and builds it.
    pub build: fn(&Table, &QueueContext) -> Result<Discipline, SettingError>,
    /// Bytes its state takes on a queue with these keys, for the scenario's memory estimate
    /// (the box every discipline has, and what it allocates from the start: FQ-CoDel's flow
    /// queues); [`boxed`] for a discipline with only its box.
    pub footprint: fn(&Table) -> u64,
}

/// The footprint of a discipline whose whole state is its box of `T`.
pub fn boxed<T>(_: &Table) -> u64 {
    std::mem::size_of::<T>() as u64
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Registration").field("name", &self.name).field("keys", &(self.keys)()).finish()
    }
}

/// The discipline of a queue whose table names none.
pub const DEFAULT_DISCIPLINE: &str = "droptail";

/// The registration `name` (or one of its aliases) selects.
pub fn find(name: &str) -> Option<&'static Registration> {
    super::REGISTRY.iter().find(|r| r.name == name || r.aliases.contains(&name))
}

/// Why `key` is not a key of the discipline `name`, whose keys are `own`: which disciplines
/// take it, or that none does.
pub(super) fn misplaced(key: &str, name: &str, own: &[&str], common: &[&str]) -> String {
    let takers: Vec<&Registration> = super::REGISTRY.iter().filter(|r| (r.keys)().contains(&key)).collect();
    let quoted = |list: &[&str]| list.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    if takers.is_empty() {
        let own = if own.is_empty() { "none of its own".to_string() } else { quoted(own) };
        return format!("unknown field `{key}`: discipline {name:?} takes {own}, and every queue takes {}", quoted(common));
    }
    let names: Vec<&str> = takers.iter().map(|r| r.name).collect();
    let family = takers[0].family.filter(|f| {
        let members: Vec<&str> = super::REGISTRY.iter().filter(|r| r.family == Some(*f)).map(|r| r.name).collect();
        members == names
    });
    let who = match (family, names.as_slice()) {
        (Some(f), _) => format!("the {f} family ({})", names.join(", ")),
        (None, [one]) => format!("discipline {one:?}"),
        (None, _) => format!("disciplines {}", one_of(&names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>(), "and")),
    };
    format!("only for {who}, not for discipline {name:?}")
}
