//! A test-only controller that exercises the sender's capabilities: Reno's window, every
//! delivery-rate sample recorded, every ACK's AccECN count recorded, and pacing at a fixed
//! rate when given one.

use super::spec::{CcContext, EcnUse, Recovery, Registration};
use super::{Ack, CcConfig, Controller, Event, NewRenoConfig, Signal, Window};
use crate::settings::table::{keys_of, read, SettingError, Table};
use crate::tcp::rate::RateSample;
use serde::Deserialize;

/// The probe's parameters: the rate to pace at (bytes per second), if any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeConfig {
    pub pacing: Option<f64>,
}

impl ProbeConfig {
    pub fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Probe {
        Probe { w: NewRenoConfig::default().window(mss, init_cwnd, init_ssthresh), pacing: self.pacing, samples: Vec::new(), ce: Vec::new() }
    }
}

/// Reno's window, and the samples it was given.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    w: Window,
    pacing: Option<f64>,
    pub samples: Vec<RateSample>,
    /// `Ack::ce` of every ACK of new data outside recovery.
    pub ce: Vec<Option<u32>>,
}

impl Controller for Probe {
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.ce.push(ack.ce);
        self.w.grow(ack);
    }
    fn reduce(&mut self, ev: &Event, _signal: Signal) -> u32 {
        self.w.reduce(ev)
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.samples.push(*rs);
    }
    fn paces(&self) -> bool {
        self.pacing.is_some()
    }
    fn pacing_rate(&self) -> Option<f64> {
        self.pacing
    }
}

/// The probe's key, `tcp.probe.pacing`: bytes per second.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSpec {
    pub pacing: Option<f64>,
}

/// `tcp.variant = "probe"`, for the tests that run it from a scenario.
pub const REGISTRATION: Registration = Registration { name: "probe", recovery: Recovery::NewReno, ecn: EcnUse::Optional, keys: keys_of::<ProbeSpec>, build };

fn build(table: &Table, _: &CcContext) -> Result<CcConfig, SettingError> {
    Ok(CcConfig::Probe(ProbeConfig { pacing: read::<ProbeSpec>(table)?.pacing }))
}
