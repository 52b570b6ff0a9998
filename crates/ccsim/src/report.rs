//! The run's summary: per-flow, per-queue, per-link and per-node tables plus totals, all
//! measured after the warm-up. Field names are stable and documented in
//! `docs/results-schema.md`; the JSON output of `ccsim run --json` is this structure.

use crate::engine::{Simulation, Transport};
use crate::net::frr::FastReroute;
use crate::net::NodeId;
use crate::net::NodeKind;
use crate::router::acc::Acc;
use crate::router::acc::AccStats;
use crate::router::AckSpoofing;
use crate::router::SpoofStats;
use crate::stats::{jain_index, Series};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Length of the measurement period (simulated time after the warm-up).
    pub measured_s: f64,
    pub events_processed: u64,
    pub totals: Totals,
    /// IP fast reroute counters (zero when it is off).
    pub ipfrr: IpFrrReport,
    /// ACC counters of every router (empty when no queue runs ACC).
    pub acc: Vec<AccRouterReport>,
    /// One per router with an ACK spoofer.
    pub spoofers: Vec<SpooferReport>,
    pub flows: Vec<FlowReport>,
    pub queues: Vec<QueueReport>,
    pub links: Vec<LinkReport>,
    pub nodes: Vec<NodeReport>,
    pub series: Vec<Series>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Totals {
    pub goodput_bps: f64,
    pub delivered_bytes: u64,
    pub packets_sent: u64,
    pub retransmitted_packets: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub queue_drops: u64,
    /// Jain's index of the TCP flows' goodputs (1 = perfectly fair).
    pub jain_fairness: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct IpFrrReport {
    pub detections: u64,
    pub transient_repairs: u64,
    pub reconvergences: u64,
}

/// Counters of one router's ACK spoofer (see `SpoofStats` for their meaning) and the state
/// of its flow table at the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct SpooferReport {
    pub node: String,
    /// The spoofer's counters over the measurement period.
    #[serde(flatten)]
    pub counters: SpoofStats,
    /// Flows with a spoof pending at the end of the run.
    pub pending_now: usize,
    pub table_occupancy: usize,
    pub table_capacity: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct AccRouterReport {
    pub router: String,
    /// The router's ACC counters over the measurement period.
    #[serde(flatten)]
    pub counters: AccStats,
    /// Filters still in place at the end.
    pub filters_active: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    pub flow: String,
    pub group: String,
    pub index: u32,
    pub src: String,
    pub dst: String,
    pub transport: &'static str,
    pub start_s: f64,
    /// Data packets (or datagrams) sent, retransmissions included.
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// The same without retransmissions.
    pub new_packets_sent: u64,
    pub new_bytes_sent: u64,
    pub retransmitted_packets: u64,
    pub fast_retransmits: u64,
    /// Fast retransmits of segments that had in fact arrived or were still in the network.
    pub false_fast_retransmits: u64,
    pub timeouts: u64,
    pub window_reductions: u64,
    /// Mean size of a window reduction, in segments.
    pub mean_window_reduction_segments: f64,
    pub ecn_reductions: u64,
    /// Window closes the sender decided (fast retransmit, timeout, ECN echo): count, mean
    /// size in segments, and rate per second of measurement.
    pub endpoint_closes: u64,
    pub endpoint_close_mean_segments: f64,
    pub endpoint_closes_per_s: f64,
    /// Window closes an ACC router asked for, likewise.
    pub acc_closes: u64,
    pub acc_close_mean_segments: f64,
    pub acc_closes_per_s: f64,
    /// ACC control messages that reached the sender, obeyed or not.
    pub acc_controls_received: u64,
    pub mean_rtt_ms: f64,
    /// In-order payload bytes delivered to the receiving application (UDP: bytes received).
    pub delivered_bytes: u64,
    pub goodput_bps: f64,
    pub out_of_order_packets: u64,
    pub dupacks_sent: u64,
    pub dupacks_suppressed: u64,
    pub forward_dropped: u64,
    pub reverse_dropped: u64,
    /// Spoofed ACKs routers sent to the sender.
    pub spoofed_acks: u64,
    /// Finite transfers: when the last byte was acknowledged (absolute time), else null.
    pub completion_time_s: Option<f64>,
    /// Final congestion window, segments.
    pub final_cwnd_segments: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct QueueReport {
    pub link: String,
    pub arrivals: u64,
    pub departures: u64,
    pub drops: u64,
    pub drops_overflow: u64,
    pub drops_early: u64,
    pub drops_forced: u64,
    pub drops_link_down: u64,
    pub marks_early: u64,
    pub marks_forced: u64,
    /// Signals turned into ACK spoofing (the packet may also have been dropped).
    pub spoof_signals: u64,
    pub mean_len_packets: f64,
    pub mean_len_bytes: f64,
    pub mean_delay_ms: f64,
    pub max_len_packets: u32,
    pub final_len_packets: u32,
    /// Drops by instantaneous queue length: `drop_areas[i]` counts drops with
    /// `drop_area_bounds[i-1] <= len < drop_area_bounds[i]`.
    pub drop_area_bounds: Vec<u32>,
    pub drop_areas: Vec<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkReport {
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_ms: f64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub utilisation: f64,
    pub lost_random: u64,
    pub lost_down: u64,
    pub failures: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeReport {
    pub node: String,
    pub kind: &'static str,
    pub forwarded: u64,
    pub ttl_expired: u64,
    pub no_route: u64,
    pub backup_forwarded: u64,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

impl Report {
    pub fn new(sim: &mut Simulation) -> Report {
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
                Transport::Udp(_) => ("udp", 1.0, None, 0.0),
            };
            let tcp = transport == "tcp";
            let (sent, bytes, delivered) =
                if tcp { (s.packets_sent, s.bytes_sent, r.delivered_bytes) } else { (u.packets_sent, u.bytes_sent, u.bytes_received) };
            flows.push(FlowReport {
                flow: f.name(),
                group: f.group.clone(),
                index: f.index,
                src: node_name(f.src),
                dst: node_name(f.dst),
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
        for (i, l) in sim.net.links.iter().enumerate() {
            let q = now.queues[i].delta(&base.queues[i]);
            let ls = now.links[i].delta(&base.links[i]);
            let period_ns = measured * 1e9;
            let bounds = l.queue.area_bounds().to_vec();
            queues.push(QueueReport {
                link: l.name.clone(),
                arrivals: q.arrivals,
                departures: q.departures,
                drops: q.drops(),
                drops_overflow: q.drops_overflow,
                drops_early: q.drops_early,
                drops_forced: q.drops_forced,
                drops_link_down: q.drops_link_down,
                marks_early: q.marks_early,
                marks_forced: q.marks_forced,
                spoof_signals: q.spoof_signals,
                mean_len_packets: ratio(q.len_area_packets as f64, period_ns),
                mean_len_bytes: ratio(q.len_area_bytes as f64, period_ns),
                mean_delay_ms: ratio(q.delay_sum_ns as f64 * 1e-6, q.departures as f64),
                max_len_packets: l.queue.max_packets,
                final_len_packets: l.queue.len() as u32,
                drop_areas: l.queue.drop_areas[..bounds.len() + 1].to_vec(),
                drop_area_bounds: bounds,
            });
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

        let nodes = sim
            .net
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
            .collect();

        let tcp_goodputs: Vec<f64> = flows.iter().filter(|f| f.transport == "tcp").map(|f| f.goodput_bps).collect();
        let totals = Totals {
            goodput_bps: flows.iter().map(|f| f.goodput_bps).sum(),
            delivered_bytes: flows.iter().map(|f| f.delivered_bytes).sum(),
            packets_sent: flows.iter().map(|f| f.packets_sent).sum(),
            retransmitted_packets: flows.iter().map(|f| f.retransmitted_packets).sum(),
            fast_retransmits: flows.iter().map(|f| f.fast_retransmits).sum(),
            timeouts: flows.iter().map(|f| f.timeouts).sum(),
            queue_drops: queues.iter().map(|q| q.drops).sum(),
            jain_fairness: if tcp_goodputs.is_empty() { 1.0 } else { jain_index(&tcp_goodputs) },
        };

        let mut report = Report {
            scenario: sim.name.clone(),
            seed: sim.seed,
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
