//! Router extensions: mechanisms a router runs beside forwarding. They see packets at defined
//! points (on arrival before forwarding, on a queue's congestion signal or drop) and may emit
//! packets of their own; the engine calls each through one `if let Some(..)` hook per point,
//! so an extension that is off costs nothing.
//!
//! - [`ack_spoof`]: ACK spoofing, with its partial per-flow state in a [`flow_table`].
//! - [`acc`]: Active Congestion Control's monitor and upstream filters.

pub mod acc;
pub mod ack_spoof;
pub mod flow_table;

pub use ack_spoof::{AckSpoofer, Burst, Passage, SpoofConfig, SpoofStats};
pub use flow_table::{FlowKey, FlowTable};
