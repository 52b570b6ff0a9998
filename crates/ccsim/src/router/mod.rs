//! Router extensions: mechanisms a router runs beside forwarding. They see packets at defined
//! points (on arrival before forwarding, on a queue's congestion signal) and may emit packets
//! of their own; the engine calls them through one hook per point.
//!
//! - [`ack_spoof`]: ACK spoofing, with its partial per-flow state in a [`flow_table`].

pub mod ack_spoof;
pub mod flow_table;

pub use ack_spoof::{AckSpoofer, Burst, Passage, SpoofConfig, SpoofStats};
pub use flow_table::{FlowKey, FlowTable};
