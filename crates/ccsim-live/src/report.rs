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
    /// ACC controls that reached the sender (for an open connection with ACC on).
    pub acc_controls_received: u64,
    /// Of those, the controls it obeyed: it shrank its window (at most once per window of
    /// data, never in fast recovery, never to open it; a misbehaving sender obeys none).
    pub acc_controls_obeyed: u64,
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
    /// sent_bps over (rate x utilization), minus one: how far the node's writes are from
    /// its own schedule (near zero by construction; the check against what the far end
    /// received is `ccsim live run`'s `shaper_error`).
    pub send_error: f64,
    /// Packets waiting for the transmitter, time-averaged over the window.
    pub mean_queue: f64,
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
    /// When the run was ended early (SIGUSR1: another node died), s since the start.
    pub stopped_early_at_s: Option<f64>,
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
    /// Bytes (IP size) received in the window from each neighbour, by node name: what the
    /// links into this node delivered, for the shaper check against the receiver.
    pub received_bytes_from: std::collections::BTreeMap<String, u64>,
    pub queues: Vec<QueueReport>,
    pub acc: AccCounters,
    pub flakeway: FlakewayStats,
    pub flows: Vec<FlowReport>,
    /// Pool buffers in use at the end (datagrams still held).
    pub buffers_in_use: u64,
    /// The pcap file written, if any.
    pub pcap: Option<String>,
}
