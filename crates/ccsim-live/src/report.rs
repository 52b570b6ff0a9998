//! What a node reports at the end of a live run (JSON), and how a run's reports are put
//! together in the shape of `ccsim run`'s (flows, queues, ACC counters, nodes).

use crate::acc::AccCounters;
use crate::egress::EgressStats;
use crate::flakeway::FlakewayStats;
use serde::Serialize;

/// One RDP connection, measured at its receiver (goodput) and its sender.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowReport {
    /// `group[index]`.
    pub name: String,
    pub group: String,
    /// Payload bytes delivered in order to the receiver in the measurement window.
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    /// The sender's counters (filled at the sending node).
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// ACC controls the sender obeyed.
    pub acc_controls: u64,
    /// Payload delivered twice or out of order (must be zero).
    pub delivery_errors: u64,
}

/// One egress (virtual link) of a node.
#[derive(Clone, Debug, Serialize)]
pub struct QueueReport {
    /// "A->B", as the scenario names links.
    pub link: String,
    pub rate_bps: u64,
    pub limit: u32,
    pub acc: bool,
    #[serde(flatten)]
    pub stats: EgressStats,
    /// Scheduled transmission time over the window (0..1).
    pub utilization: f64,
    /// Bits written to the socket per second of the window.
    pub sent_bps: f64,
    /// sent_bps over (rate x utilization), minus one: how far the emulated link's
    /// delivered rate is from its configured rate while it is busy.
    pub shaper_error: f64,
    pub lateness_mean_us: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct NodeReport {
    pub name: String,
    pub router: bool,
    /// The UDP address it was bound to.
    pub address: String,
    /// Measurement window, s.
    pub window_s: f64,
    /// CPU time (user + system) the process used in the window, s.
    pub cpu_s: f64,
    pub received: u64,
    /// Datagrams forwarded in the window (routers).
    pub forwarded: u64,
    pub cpu_per_forwarded_us: f64,
    /// Datagrams refused by the decoder (wrong magic, version, type or length).
    pub malformed: u64,
    pub ttl_expired: u64,
    pub no_route: u64,
    /// Datagrams from addresses that are not neighbours (still handled).
    pub unknown_source: u64,
    pub queues: Vec<QueueReport>,
    pub acc: AccCounters,
    pub flakeway: FlakewayStats,
    pub flows: Vec<FlowReport>,
    /// Pool buffers in use at the end (datagrams still held).
    pub buffers_in_use: u64,
    /// The pcap file written, if any.
    pub pcap: Option<String>,
}
