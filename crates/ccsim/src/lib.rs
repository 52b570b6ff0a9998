//! ccsim: a fast, deterministic packet-level simulator for TCP congestion control, active
//! queue management, and the routers and receivers that help them.
//!
//! The core is a pure Rust library: a [`scenario`] (TOML) is validated and built into an
//! [`engine::Simulation`], which runs to its stop time and reports [`report::Report`].

pub mod app;
pub mod engine;
pub mod fuzz;
pub mod huge_pages;
pub mod net;
pub mod packet;
pub mod queue;
pub mod rdp;
pub mod report;
pub mod router;
pub mod scenario;
pub mod settings;
pub mod signal;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod trace;
#[cfg(test)]
mod walkthrough;
