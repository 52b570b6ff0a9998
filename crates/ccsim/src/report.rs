//! The run's summary: per-flow, per-queue, per-link and per-node tables plus totals, all
//! measured after the warm-up. Field names are stable; the JSON output of `ccsim run --json`
//! is this structure. The doc comments of these types are the fields' documentation: they
//! become the descriptions of the report's JSON Schema (`schemars`), from which
//! `docs/results-schema.md`'s field tables and the Python tables' column types are made.

use crate::engine::{Simulation, Transport};
use crate::net::{NodeId, NodeKind};
use crate::router::acc::{Acc, AccStats};
use crate::router::frr::FastReroute;
use crate::router::{AckSpoofing, SpoofStats};
use crate::stats::histogram::LogHistogram;
use crate::stats::{jain_index, Series};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Report {
    /// The scenario's `name`.
    pub scenario: String,
    /// The seed of every random stream (0 to 2^64-1): the scenario's, or `--seed`.
    pub seed: u64,
    /// The scenario's `profile`: `rfc` (the RFCs' defaults), `ns2` (ns-2.35's where they
    /// differ) or `linux` (Linux's TCP defaults; `docs/profiles.md`).
    pub profile: &'static str,
    /// Simulated time of the run.
    pub duration_s: f64,
    /// Statistics exclude everything before this time.
    pub warmup_s: f64,
    /// Length of the measurement period (simulated time after the warm-up), `duration_s -
    /// warmup_s` for a finished run.
    pub measured_s: f64,
    /// Discrete events the simulator handled, warm-up included.
    pub events_processed: u64,
    /// The run's totals over the flows and queues.
    pub totals: Totals,
    /// IP fast reroute counters (zero when it is off).
    pub ipfrr: IpFrrReport,
    /// ACC counters of every router (empty when no queue runs ACC).
    pub acc: Vec<AccRouterReport>,
    /// One per router with an ACK spoofer.
    pub spoofers: Vec<SpooferReport>,
    /// One per flow, in scenario order.
    pub flows: Vec<FlowReport>,
    /// One per one-way link's egress queue, in link order.
    pub queues: Vec<QueueReport>,
    /// One per one-way link.
    pub links: Vec<LinkReport>,
    /// One per host and router.
    pub nodes: Vec<NodeReport>,
    /// The sampled series the scenario asked for.
    pub series: Vec<Series>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Totals {
    /// Sum of the flows' `goodput_bps`.
    pub goodput_bps: f64,
    /// Sum of the flows' `delivered_bytes`.
    pub delivered_bytes: u64,
    /// Sum of the flows' `packets_sent`.
    pub packets_sent: u64,
    /// Sum of the flows' `retransmitted_packets`.
    pub retransmitted_packets: u64,
    /// Sum of the flows' `fast_retransmits`.
    pub fast_retransmits: u64,
    /// Sum of the flows' `timeouts`.
    pub timeouts: u64,
    /// Sum of the queues' `drops`, packets.
    pub queue_drops: u64,
    /// Jain's index of the congestion-controlled (TCP and RDP) flows' goodputs, (Σx)² /
    /// (n·Σx²): 1 = perfectly fair, 1/n when one flow takes all; 1 when there is no such flow.
    pub jain_fairness: f64,
}

#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct IpFrrReport {
    /// Failures noticed by the router at the head of the failed link.
    pub detections: u64,
    /// Failures repaired before the hold-down expired (traffic returned to the primary at
    /// once).
    pub transient_repairs: u64,
    /// Global reconvergences completed (every router installed new tables).
    pub reconvergences: u64,
}

/// Counters of one router's ACK spoofer (see `SpoofStats` for their meaning) and the state
/// of its flow table at the end of the run.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SpooferReport {
    /// The router.
    pub node: String,
    /// The spoofer's counters over the measurement period.
    #[serde(flatten)]
    pub counters: SpoofStats,
    /// Flows with a spoof pending at the end of the run.
    pub pending_now: usize,
    /// Flow-table entries in use at the end of the run.
    pub table_occupancy: usize,
    /// The flow table's size.
    pub table_capacity: usize,
}

/// ACC counters of one router, as a congested router and as a filtering one.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct AccRouterReport {
    /// The router.
    pub router: String,
    /// The router's ACC counters over the measurement period.
    #[serde(flatten)]
    pub counters: AccStats,
    /// Filters still in place at the end.
    pub filters_active: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FlowReport {
    /// The flow's name, `GROUP[i]`.
    pub flow: String,
    /// Its `[[flows]]` entry's `name` (default `flow<N>`, N its position).
    pub group: String,
    /// `i`, its position within the group, from 0.
    pub index: u32,
    /// Sending host.
    pub src: String,
    /// Receiving host.
    pub dst: String,
    /// `tcp`, `udp` or `rdp`. RDP flows fill the TCP columns with the same meanings, in
    /// segments (RDP's unit) where TCP's are segments of the MSS.
    pub transport: &'static str,
    /// When the flow started (absolute; drawn from the scenario's `start`).
    pub start_s: f64,
    /// Data segments (TCP, RDP) or datagrams (UDP) sent, retransmissions included.
    pub packets_sent: u64,
    /// Payload bytes sent (TCP, RDP: retransmissions included).
    pub bytes_sent: u64,
    /// `packets_sent` less retransmissions.
    pub new_packets_sent: u64,
    /// `bytes_sent` less retransmitted bytes.
    pub new_bytes_sent: u64,
    /// Segments sent again (fast retransmit, NewReno partial ACK, timeout, ACC go-back); 0
    /// for UDP.
    pub retransmitted_packets: u64,
    /// Times TCP entered fast retransmit / fast recovery.
    pub fast_retransmits: u64,
    /// Fast retransmits of a segment that had in fact reached the receiver or was still in
    /// the network at that moment (the rest are real).
    pub false_fast_retransmits: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Times the sender reduced its congestion window (fast retransmit, timeout, ECN echo or
    /// ACC control).
    pub window_reductions: u64,
    /// Mean size of one window reduction (congestion window before less after).
    pub mean_window_reduction_segments: f64,
    /// Window reductions caused by ECN echoes.
    pub ecn_reductions: u64,
    /// Window closes the sender decided itself (fast retransmit, timeout, ECN echo).
    pub endpoint_closes: u64,
    /// Their mean size.
    pub endpoint_close_mean_segments: f64,
    /// Their rate over the measurement period.
    pub endpoint_closes_per_s: f64,
    /// Window closes ordered by ACC control messages.
    pub acc_closes: u64,
    /// Their mean size.
    pub acc_close_mean_segments: f64,
    /// Their rate over the measurement period.
    pub acc_closes_per_s: f64,
    /// ACC control messages that reached the sender, obeyed or not.
    pub acc_controls_received: u64,
    /// Mean of the sender's RTT samples (Karn's rule: none from retransmitted segments).
    pub mean_rtt_ms: f64,
    /// Payload bytes delivered to the receiving application (TCP, RDP: in order; UDP: bytes
    /// received).
    pub delivered_bytes: u64,
    /// `delivered_bytes · 8 / measured_s`.
    pub goodput_bps: f64,
    /// Segments that arrived above the next expected sequence number.
    pub out_of_order_packets: u64,
    /// Duplicate ACKs the receiver sent (RDP: ACKs that did not move the cumulative
    /// acknowledgement, EACKs included), packets.
    pub dupacks_sent: u64,
    /// Duplicate ACKs the receiver held back (duplicate-ACK suppression, `das`), packets.
    pub dupacks_suppressed: u64,
    /// The flow's data packets lost anywhere in the network (queues, wire, failures, TTL, no
    /// route).
    pub forward_dropped: u64,
    /// The flow's ACKs lost anywhere in the network, packets.
    pub reverse_dropped: u64,
    /// Duplicate ACKs routers spoofed toward this flow's sender, packets.
    pub spoofed_acks: u64,
    /// Finite transfers: when the last byte was acknowledged (absolute time, whether before
    /// or after the warm-up); null for bulk flows, UDP, and transfers not finished. An RDP
    /// transfer's time includes its connection's SYN exchange.
    pub completion_time_s: Option<f64>,
    /// Congestion window at the end of the run (not a period statistic), segments; 0 for UDP.
    pub final_cwnd_segments: f64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct QueueReport {
    /// The link whose egress queue this is, `FROM->TO`.
    pub link: String,
    /// Packets offered to the queue (queued or dropped).
    pub arrivals: u64,
    /// Packets that left the queue for the transmitter.
    pub departures: u64,
    /// Packets dropped: `drops_overflow + drops_early + drops_forced + drops_dequeue +
    /// drops_link_down`.
    pub drops: u64,
    /// Packets dropped because the buffer was full (FQ-CoDel: dropped from the head of its
    /// fattest flow queue to make room).
    pub drops_overflow: u64,
    /// Packets dropped by the discipline's early decision at enqueue (RED between the
    /// thresholds, PIE, the step marker).
    pub drops_early: u64,
    /// Packets dropped by the discipline's forced decision (RED above the maximum threshold).
    pub drops_forced: u64,
    /// Packets dropped at dequeue by the discipline's decision on their sojourn time (CoDel,
    /// FQ-CoDel).
    pub drops_dequeue: u64,
    /// Packets lost from the buffer because the link went down.
    pub drops_link_down: u64,
    /// Packets ECN-marked instead of an early drop.
    pub marks_early: u64,
    /// Packets ECN-marked instead of a forced drop.
    pub marks_forced: u64,
    /// Packets ECN-marked at dequeue instead of a drop (CoDel, FQ-CoDel).
    pub marks_dequeue: u64,
    /// Congestion signals turned into ACK spoofing (`signal = "spoof"`; the packet may also
    /// have been dropped), packets.
    pub spoof_signals: u64,
    /// Time-weighted mean queue length.
    pub mean_len_packets: f64,
    /// Time-weighted mean queue length, bytes on the wire.
    pub mean_len_bytes: f64,
    /// Mean time a departing packet waited in the queue, its sojourn time (enqueue to start
    /// of transmission; serialization and propagation not included).
    pub mean_delay_ms: f64,
    /// Median of the departures' sojourn times, ms (from a histogram whose bins are at most
    /// 1/32 of their value wide: within about 3%; a packet that passed straight through
    /// waited 0). Null when the scenario keeps no queue distributions
    /// (`report.queue_distributions = false`), as are the next two.
    pub delay_p50_ms: Option<f64>,
    /// 95th percentile of the sojourn times, ms.
    pub delay_p95_ms: Option<f64>,
    /// 99th percentile of the sojourn times, ms.
    pub delay_p99_ms: Option<f64>,
    /// Longest sojourn time, ms (exact).
    pub delay_max_ms: f64,
    /// Largest queue length during the measurement period.
    pub max_len_packets: u32,
    /// Queue length at the end of the run.
    pub final_len_packets: u32,
    /// Boundaries of the drop-area histogram, ascending, packets (the scenario's
    /// `queue.drop_areas`; empty by default).
    pub drop_area_bounds: Vec<u32>,
    /// Drops by the queue length when they happened: element `i` counts drops with
    /// `drop_area_bounds[i-1] <= len < drop_area_bounds[i]` (first: below the first bound,
    /// last: at or above the last bound); one longer than `drop_area_bounds`. Counts buffer
    /// drops (overflow, early, forced, dequeue), not `drops_link_down`.
    pub drop_areas: Vec<u64>,
    /// The time-weighted distribution of the queue length: bin `i` holds the lengths
    /// `len_hist_from[i]..=len_hist_to[i]` packets (one length each below 32, then 32 bins
    /// per power of two), and the queue spent `len_hist_ns[i]` of the measurement period
    /// there. Only bins the queue visited are listed, ascending; none when the scenario keeps
    /// no queue distributions.
    pub len_hist_from: Vec<u64>,
    /// Upper ends of the bins, packets.
    pub len_hist_to: Vec<u64>,
    /// Nanoseconds at each bin's lengths; they sum to the measurement period.
    pub len_hist_ns: Vec<u64>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct LinkReport {
    /// Name, `FROM->TO`.
    pub link: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Transmission rate (configuration).
    pub rate_bps: u64,
    /// Propagation delay (configuration).
    pub delay_ms: f64,
    /// Packets whose serialization finished.
    pub tx_packets: u64,
    /// Bytes on the wire of those packets.
    pub tx_bytes: u64,
    /// Fraction of the period the transmitter was busy, 0 to 1.
    pub utilisation: f64,
    /// Packets lost to the link's random `loss`.
    pub lost_random: u64,
    /// Packets lost being transmitted or propagated when the link went down, or offered while
    /// it was down.
    pub lost_down: u64,
    /// Times the link went down.
    pub failures: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct NodeReport {
    /// Name.
    pub node: String,
    /// `host` or `router`.
    pub kind: &'static str,
    /// Packets a router forwarded (0 for hosts).
    pub forwarded: u64,
    /// Packets discarded because their TTL reached zero.
    pub ttl_expired: u64,
    /// Packets discarded for want of a route.
    pub no_route: u64,
    /// Packets a router sent over an IP fast-reroute backup (alternate or repair tunnel).
    pub backup_forwarded: u64,
}

/// The 50th, 95th and 99th percentiles of a queue's sojourn times, ns: `departures` in all,
/// those that waited in `hist`, the others 0; none above the longest, `max`.
fn delay_percentiles(hist: &LogHistogram, departures: u64, max: f64) -> (f64, f64, f64) {
    let zeros = departures.saturating_sub(hist.total());
    // A bin's midpoint may lie above the largest value in it.
    let at = |q: f64| hist.quantile(q, zeros).min(max);
    (at(0.50), at(0.95), at(0.99))
}

/// A queue's time at each bin of lengths, ns, with the time at length 0 the rest of
/// `period_ns`: `(from, to, ns)`, ascending, bins with time only.
fn length_times(hist: &LogHistogram, period_ns: f64) -> Vec<(u64, u64, u64)> {
    let idle = (period_ns.round() as u64).saturating_sub(hist.total());
    let zero = (idle > 0).then_some((0, 0, idle));
    zero.into_iter().chain(hist.bins()).collect()
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// What a report holds besides its totals and the mechanisms' counters.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// Every flow, queue, link and node.
    Full,
    /// The totals and the named links' queues only: no flow, link or node tables, and no
    /// row built for the rest (a run of a hundred thousand flows has 200,000 queues).
    Summary { queues: &'a [String] },
}

impl Scope<'_> {
    fn is_full(&self) -> bool {
        matches!(self, Scope::Full)
    }

    /// Whether the queue of link `link` has a row.
    fn keeps_queue(&self, link: &str) -> bool {
        match self {
            Scope::Full => true,
            Scope::Summary { queues } => queues.iter().any(|q| q == link),
        }
    }
}

impl Report {
    /// The whole report.
    pub fn new(sim: &mut Simulation) -> Report {
        Report::of(sim, Scope::Full)
    }

    /// The report, its tables as `scope` says; the totals are the same in every scope.
    pub fn of(sim: &mut Simulation, scope: Scope) -> Report {
        let full = scope.is_full();
        let now = sim.snapshot();
        let base = &sim.baseline;
        let measured = (now.at - base.at).as_secs_f64();
        let node_name = |n: u32| sim.net.nodes[n as usize].name.clone();

        let mut flows = Vec::with_capacity(sim.flows.len());
        for (i, f) in sim.flows.iter().enumerate() {
            let s = now.senders[i].delta(&base.senders[i]);
            let r = now.receivers[i].delta(&base.receivers[i]);
            let u = now.udp[i].delta(&base.udp[i]);
            let n = now.flow_net[i].delta(&base.flow_net[i]);
            let (transport, mss, completion, cwnd) = match &f.transport {
                Transport::Tcp { tx, .. } => ("tcp", tx.cfg.mss as f64, tx.completed_at.map(|t| t.as_secs_f64()), tx.cwnd() as f64 / tx.cfg.mss as f64),
                Transport::Rdp { tx, .. } => ("rdp", tx.cfg.segment_size as f64, tx.completed_at.map(|t| t.as_secs_f64()), tx.cwnd_packets() as f64),
                Transport::Udp(_) => ("udp", 1.0, None, 0.0),
            };
            let reliable = transport != "udp";
            let (sent, bytes, delivered) =
                if reliable { (s.packets_sent, s.bytes_sent, r.delivered_bytes) } else { (u.packets_sent, u.bytes_sent, u.bytes_received) };
            // A summary keeps no flow table: its rows count toward the totals, unnamed.
            let (flow, group, src, dst) = if full { (f.name(), f.group.clone(), node_name(f.src), node_name(f.dst)) } else { Default::default() };
            flows.push(FlowReport {
                flow,
                group,
                index: f.index,
                src,
                dst,
                transport,
                start_s: f.start.as_secs_f64(),
                packets_sent: sent,
                bytes_sent: bytes,
                new_packets_sent: sent - s.retransmitted_packets,
                new_bytes_sent: bytes - s.retransmitted_bytes,
                retransmitted_packets: s.retransmitted_packets,
                fast_retransmits: s.fast_retransmits,
                false_fast_retransmits: n.false_fast_retransmits,
                timeouts: s.timeouts,
                window_reductions: s.window_reductions,
                mean_window_reduction_segments: ratio(s.window_reduction_bytes as f64 / mss, s.window_reductions as f64),
                ecn_reductions: s.ecn_reductions,
                endpoint_closes: s.window_reductions - s.acc_reductions,
                endpoint_close_mean_segments: ratio(
                    (s.window_reduction_bytes - s.acc_reduction_bytes) as f64 / mss,
                    (s.window_reductions - s.acc_reductions) as f64,
                ),
                endpoint_closes_per_s: ratio((s.window_reductions - s.acc_reductions) as f64, measured),
                acc_closes: s.acc_reductions,
                acc_close_mean_segments: ratio(s.acc_reduction_bytes as f64 / mss, s.acc_reductions as f64),
                acc_closes_per_s: ratio(s.acc_reductions as f64, measured),
                acc_controls_received: s.acc_controls,
                mean_rtt_ms: ratio(s.rtt_sum_ns as f64 * 1e-6, s.rtt_samples as f64),
                delivered_bytes: delivered,
                goodput_bps: ratio(delivered as f64 * 8.0, measured),
                out_of_order_packets: r.out_of_order_packets,
                dupacks_sent: r.dupacks_sent,
                dupacks_suppressed: r.dupacks_suppressed,
                forward_dropped: n.forward_dropped,
                reverse_dropped: n.reverse_dropped,
                spoofed_acks: n.spoofed_acks,
                completion_time_s: completion,
                final_cwnd_segments: cwnd,
            });
        }

        let mut queues = Vec::new();
        let mut links = Vec::new();
        let mut queue_drops = 0;
        for (i, l) in sim.net.links.iter().enumerate() {
            let q = now.queues[i].delta(&base.queues[i]);
            queue_drops += q.drops();
            if !scope.keeps_queue(&l.name) {
                continue;
            }
            let ls = now.links[i].delta(&base.links[i]);
            let period_ns = measured * 1e9;
            let bounds = l.queue.area_bounds().to_vec();
            let dist = l.queue.distributions();
            let waited = dist.map(|d| delay_percentiles(&d.delay_hist, q.departures, l.queue.max_delay().as_nanos() as f64));
            let lens = dist.map_or(vec![], |d| length_times(&d.len_hist, period_ns));
            queues.push(QueueReport {
                link: l.name.clone(),
                arrivals: q.arrivals,
                departures: q.departures,
                drops: q.drops(),
                drops_overflow: q.drops_overflow,
                drops_early: q.drops_early,
                drops_forced: q.drops_forced,
                drops_dequeue: q.drops_dequeue,
                drops_link_down: q.drops_link_down,
                marks_early: q.marks_early,
                marks_forced: q.marks_forced,
                marks_dequeue: q.marks_dequeue,
                spoof_signals: q.spoof_signals,
                mean_len_packets: ratio(q.len_area_packets as f64, period_ns),
                mean_len_bytes: ratio(q.len_area_bytes as f64, period_ns),
                mean_delay_ms: ratio(q.delay_sum_ns as f64 * 1e-6, q.departures as f64),
                delay_p50_ms: waited.map(|w| w.0 * 1e-6),
                delay_p95_ms: waited.map(|w| w.1 * 1e-6),
                delay_p99_ms: waited.map(|w| w.2 * 1e-6),
                delay_max_ms: l.queue.max_delay().as_secs_f64() * 1e3,
                max_len_packets: l.queue.max_packets,
                final_len_packets: l.queue.len() as u32,
                drop_areas: l.queue.drop_areas[..bounds.len() + 1].to_vec(),
                drop_area_bounds: bounds,
                len_hist_from: lens.iter().map(|b| b.0).collect(),
                len_hist_to: lens.iter().map(|b| b.1).collect(),
                len_hist_ns: lens.iter().map(|b| b.2).collect(),
            });
            if full {
                links.push(LinkReport {
                    link: l.name.clone(),
                    from: node_name(l.from),
                    to: node_name(l.to),
                    rate_bps: l.rate_bps,
                    delay_ms: l.delay.as_secs_f64() * 1e3,
                    tx_packets: ls.tx_packets,
                    tx_bytes: ls.tx_bytes,
                    utilisation: ratio(ls.busy_ns as f64, period_ns),
                    lost_random: ls.lost_random,
                    lost_down: ls.lost_down,
                    failures: ls.failures,
                });
            }
        }

        let nodes = if !full {
            Vec::new()
        } else {
            sim.net
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let s = now.nodes[i].delta(&base.nodes[i]);
                    NodeReport {
                        node: n.name.clone(),
                        kind: if n.kind == NodeKind::Host { "host" } else { "router" },
                        forwarded: s.forwarded,
                        ttl_expired: s.ttl_expired,
                        no_route: s.no_route,
                        backup_forwarded: s.backup_forwarded,
                    }
                })
                .collect()
        };

        let tcp_goodputs: Vec<f64> = flows.iter().filter(|f| f.transport != "udp").map(|f| f.goodput_bps).collect();
        let totals = Totals {
            goodput_bps: flows.iter().map(|f| f.goodput_bps).sum(),
            delivered_bytes: flows.iter().map(|f| f.delivered_bytes).sum(),
            packets_sent: flows.iter().map(|f| f.packets_sent).sum(),
            retransmitted_packets: flows.iter().map(|f| f.retransmitted_packets).sum(),
            fast_retransmits: flows.iter().map(|f| f.fast_retransmits).sum(),
            timeouts: flows.iter().map(|f| f.timeouts).sum(),
            queue_drops,
            jain_fairness: if tcp_goodputs.is_empty() { 1.0 } else { jain_index(&tcp_goodputs) },
        };

        let mut report = Report {
            scenario: sim.name.clone(),
            seed: sim.seed,
            profile: sim.profile.name(),
            duration_s: sim.stop_at.as_secs_f64(),
            warmup_s: sim.warmup.as_secs_f64(),
            measured_s: measured,
            events_processed: sim.events_processed,
            totals,
            ipfrr: IpFrrReport::default(),
            acc: Vec::new(),
            spoofers: Vec::new(),
            flows,
            queues,
            links,
            nodes,
            series: sim.series.clone(),
        };
        report.ipfrr = sim.mechanism::<FastReroute>().map_or_else(IpFrrReport::default, |f| {
            let s = f.measured();
            IpFrrReport { detections: s.detections, transient_repairs: s.transient_repairs, reconvergences: s.reconvergences }
        });
        if let Some(acc) = sim.mechanism::<Acc>() {
            report.acc = (0..sim.net.nodes.len() as NodeId)
                .filter(|&n| sim.net.nodes[n as usize].kind == NodeKind::Router)
                .map(|n| AccRouterReport { router: node_name(n), counters: acc.measured(n), filters_active: acc.filters_at(n) as u64 })
                .collect();
        }
        if let Some(sp) = sim.mechanism::<AckSpoofing>() {
            report.spoofers = sp
                .by_node()
                .map(|(n, s)| SpooferReport {
                    node: node_name(n),
                    counters: sp.measured(n).unwrap_or_default(),
                    pending_now: s.pending_now(),
                    table_occupancy: s.table_occupancy(),
                    table_capacity: s.table_capacity(),
                })
                .collect();
        }
        report
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serializes")
    }
}
