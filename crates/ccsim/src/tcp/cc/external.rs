//! Congestion controls defined outside the core (`settings::external`): a Python class, through
//! the binding. `tcp.variant = "NAME"` selects one when no registered algorithm has that name;
//! its table `tcp.NAME` is handed to it whole (the plug-in reads its own settings).
//!
//! A plug-in is a [`Plugin`] (what the registry holds: its loss recovery, its use of ECN, and
//! how it reads its settings for one flow); a flow's configuration holds what that gave, an
//! [`ExternalConfig`], which builds the flow's controller, an [`External`]: any
//! [`Controller`] the plug-in wrote, boxed. The controller enum reaches it by the same `match`
//! as the built-in ones.

use super::spec::{CcContext, EcnUse, Recovery};
use super::{Ack, Controller, Event, Signal, Window};
use crate::settings::external::{Plugins, Site};
use crate::settings::table::{SettingError, Table};
use crate::tcp::rate::RateSample;
use std::fmt;
use std::sync::Arc;

/// A congestion control registered from outside the core.
pub trait Plugin: Send + Sync {
    /// The loss recovery the sender runs with it.
    fn recovery(&self) -> Recovery;
    /// What it needs of ECN.
    fn ecn(&self) -> EcnUse;
    /// Reads its table for one flow (`site`): an error names the key, as a registration's
    /// builder does.
    fn configure(&self, table: &Table, ctx: &CcContext, site: Site) -> Result<Arc<dyn Configured>, SettingError>;
}

/// A plug-in configured for one flow: builds its controller when the sender is made.
pub trait Configured: Send + Sync + fmt::Debug {
    fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Box<dyn ExternalController>;
}

/// A plug-in's controller.
pub trait ExternalController: Controller + Send + Sync + fmt::Debug {
    /// A copy (a sender is copied only by tests).
    fn clone_box(&self) -> Box<dyn ExternalController>;
}

/// The registered plug-ins.
pub static PLUGINS: Plugins<dyn Plugin> = Plugins::new();

/// A flow's configuration of a plug-in.
#[derive(Clone, Debug)]
pub struct ExternalConfig(pub Arc<dyn Configured>);

impl PartialEq for ExternalConfig {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl ExternalConfig {
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> External {
        External(self.0.build(mss, init_cwnd, init_ssthresh))
    }
}

/// A plug-in's controller, as the controller enum holds it.
#[derive(Debug)]
pub struct External(pub Box<dyn ExternalController>);

impl Clone for External {
    fn clone(&self) -> Self {
        External(self.0.clone_box())
    }
}

impl PartialEq for External {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(&*self.0, &*other.0)
    }
}

// Out of line and cold: the registry's `match` reaches these only for a plug-in, and the
// run loop's hot paths should be laid out as if it never does.
impl Controller for External {
    #[cold]
    #[inline(never)]
    fn window(&self) -> &Window {
        self.0.window()
    }
    #[cold]
    #[inline(never)]
    fn window_mut(&mut self) -> &mut Window {
        self.0.window_mut()
    }
    #[cold]
    #[inline(never)]
    fn on_ack(&mut self, ack: &Ack) {
        self.0.on_ack(ack)
    }
    #[cold]
    #[inline(never)]
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
        self.0.reduce(ev, signal)
    }
    #[cold]
    #[inline(never)]
    fn on_fast_retransmit(&mut self, ev: &Event) {
        self.0.on_fast_retransmit(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_recovery_start(&mut self, ev: &Event) {
        self.0.on_recovery_start(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_sack_recovery_start(&mut self, ev: &Event) {
        self.0.on_sack_recovery_start(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_recovery_dupack(&mut self, ev: &Event) {
        self.0.on_recovery_dupack(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_partial_ack(&mut self, ack: &Ack) {
        self.0.on_partial_ack(ack)
    }
    #[cold]
    #[inline(never)]
    fn on_recovery_end(&mut self, ack: &Ack) {
        self.0.on_recovery_end(ack)
    }
    #[cold]
    #[inline(never)]
    fn on_timeout(&mut self, ev: &Event) {
        self.0.on_timeout(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_ecn_echo(&mut self, ev: &Event) {
        self.0.on_ecn_echo(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_loss_in_answered_window(&mut self, ev: &Event) {
        self.0.on_loss_in_answered_window(ev)
    }
    #[cold]
    #[inline(never)]
    fn on_acc_control(&mut self, ev: &Event, cwnd: u32, ssthresh: u32) {
        self.0.on_acc_control(ev, cwnd, ssthresh)
    }
    #[cold]
    #[inline(never)]
    fn wants_rate_samples(&self) -> bool {
        self.0.wants_rate_samples()
    }
    #[cold]
    #[inline(never)]
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.0.on_rate_sample(rs)
    }
    #[cold]
    #[inline(never)]
    fn paces(&self) -> bool {
        self.0.paces()
    }
    #[cold]
    #[inline(never)]
    fn sets_window_in_recovery(&self) -> bool {
        self.0.sets_window_in_recovery()
    }
    #[cold]
    #[inline(never)]
    fn pacing_rate(&self) -> Option<f64> {
        self.0.pacing_rate()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{CcConfig, NewRenoConfig};
    use super::*;

    /// A plug-in written in Rust: NewReno's window behind the external path.
    #[derive(Debug)]
    struct Boxed;
    #[derive(Clone, Debug)]
    struct Inner(super::super::Reno);
    impl Controller for Inner {
        fn window(&self) -> &Window {
            self.0.window()
        }
        fn window_mut(&mut self) -> &mut Window {
            self.0.window_mut()
        }
        fn on_ack(&mut self, ack: &Ack) {
            self.0.on_ack(ack)
        }
        fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
            self.0.reduce(ev, signal)
        }
    }
    impl ExternalController for Inner {
        fn clone_box(&self) -> Box<dyn ExternalController> {
            Box::new(self.clone())
        }
    }
    impl Configured for Boxed {
        fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Box<dyn ExternalController> {
            Box::new(Inner(NewRenoConfig::default().build(mss, init_cwnd, init_ssthresh)))
        }
    }

    #[test]
    fn the_enum_reaches_an_external_controller() {
        let cfg = CcConfig::External(ExternalConfig(Arc::new(Boxed)));
        let mut c = cfg.build(MSS, 1, u32::MAX / 2);
        c.on_ack(&ack(MSS, 0));
        assert_eq!(c.cwnd(), 2 * MSS);
        let copy = c.clone();
        assert_eq!(copy.cwnd(), 2 * MSS);
        assert_ne!(copy, c, "a copy is another controller");
        assert_eq!(cfg.clone(), cfg);
    }
}
