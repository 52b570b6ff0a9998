//! Algorithms defined outside the core, by name: the one hook through which a program that
//! embeds the core (the Python binding, `crates/ccsim-py`) adds congestion controls, queue
//! disciplines and router mechanisms of its own, without the core knowing how they are
//! written.
//!
//! Each kind has one [`Plugins`] list (`tcp::cc::external::PLUGINS`, `queue::external::PLUGINS`,
//! `router::external::PLUGINS`). The scenario builder looks a name up there only when no
//! registered algorithm has it, so a scenario of built-in algorithms never reads the list,
//! and a run pays nothing per packet for it: a plug-in is one more variant of the registry's
//! enum, reached by the same `match`.
//!
//! A plug-in's hooks cannot return an error through the core's hooks (they return
//! decisions, as the built-in ones do). A plug-in that fails unwinds with a [`Failure`]
//! (`std::panic::resume_unwind`, which prints nothing), and the embedding program catches
//! it around the run (`catch_unwind`) and reports it: what failed, where, when.

use crate::sim::{Rng, SimTime};
use std::sync::{Arc, RwLock};

/// The plug-ins of one kind, by name; later registrations of a name replace earlier ones.
pub struct Plugins<T: ?Sized> {
    list: RwLock<Vec<(String, Arc<T>)>>,
}

impl<T: ?Sized> Plugins<T> {
    pub const fn new() -> Plugins<T> {
        Plugins { list: RwLock::new(Vec::new()) }
    }

    /// Registers `plugin` as `name`.
    pub fn register(&self, name: &str, plugin: Arc<T>) {
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        list.retain(|(n, _)| n != name);
        list.push((name.to_string(), plugin));
    }

    /// The plug-in registered as `name`.
    pub fn find(&self, name: &str) -> Option<Arc<T>> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter().find(|(n, _)| n == name).map(|(_, p)| p.clone())
    }

    /// The registered names, in registration order.
    pub fn names(&self) -> Vec<String> {
        let list = self.list.read().unwrap_or_else(|e| e.into_inner());
        list.iter().map(|(n, _)| n.clone()).collect()
    }
}

impl<T: ?Sized> Default for Plugins<T> {
    fn default() -> Self {
        Plugins::new()
    }
}

/// Where a plug-in instance serves, given to it when it is built: the flow (`"bulk/3"`) or
/// the link (`"R1->R2"`) it is for, for its messages, and its own named random stream from
/// the run's seed (the same scenario and seed give the same draws).
#[derive(Clone, Debug)]
pub struct Site {
    pub name: String,
    pub rng: Rng,
}

/// Why a plug-in stopped the run: the payload it unwinds with. `message` says what failed
/// (the traceback of an exception, or the bad value a hook returned).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The plug-in's name as registered.
    pub plugin: String,
    /// The hook that failed (`on_ack`).
    pub hook: &'static str,
    /// The flow or link (a [`Site`]'s name), or the router mechanism's own name.
    pub site: String,
    /// Simulated time of the hook; None for a hook the core calls without one (a router
    /// mechanism's `claims_loss`).
    pub at: Option<SimTime>,
    pub message: String,
}

impl Failure {
    /// Stops the run with this failure (unwinding, without the panic message).
    pub fn raise(self) -> ! {
        std::panic::resume_unwind(Box::new(self))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "plug-in {:?} failed in {} at t = {} s ({}): {}", self.plugin, self.hook, at.as_secs_f64(), self.site, self.message),
            None => write!(f, "plug-in {:?} failed in {} ({}): {}", self.plugin, self.hook, self.site, self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_finds_its_latest_registration() {
        let p: Plugins<str> = Plugins::new();
        assert!(p.find("a").is_none());
        p.register("a", Arc::from("one"));
        p.register("b", Arc::from("two"));
        p.register("a", Arc::from("three"));
        assert_eq!(p.find("a").as_deref(), Some("three"));
        assert_eq!(p.names(), ["b", "a"]);
    }

    #[test]
    fn a_failure_unwinds_with_its_payload() {
        let f = Failure { plugin: "x".into(), hook: "on_ack", site: "f/0".into(), at: Some(SimTime(1_500_000_000)), message: "boom".into() };
        let caught = std::panic::catch_unwind(|| f.clone().raise()).unwrap_err();
        assert_eq!(caught.downcast_ref::<Failure>(), Some(&f));
        assert_eq!(f.to_string(), "plug-in \"x\" failed in on_ack at t = 1.5 s (f/0): boom");
        let untimed = Failure { hook: "claims_loss", at: None, ..f };
        assert_eq!(untimed.to_string(), "plug-in \"x\" failed in claims_loss (f/0): boom");
    }
}
