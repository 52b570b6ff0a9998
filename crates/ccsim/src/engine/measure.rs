//! What the run measures: counters brought up to now and taken at the end of the warm-up
//! ([`Snapshot`]), the series' samples, the packet log's entries, and which packets are in
//! the network.

use super::flow::is_data_segment;
use super::{Event, FlowIdx, FlowNetStats, Simulation};
use crate::app::UdpStats;
use crate::net::{Kind, LinkId, LinkStats, NodeId, NodeStats, Packet};
use crate::queue::QueueStats;
use crate::router::RouterMechanism;
use crate::signal::Action;
use crate::sim::{Dur, SimTime};
use crate::stats::SeriesTarget;
use crate::tcp::{ReceiverStats, SenderStats};
use crate::trace::packet_log::{DropReason, Event as LogEvent};

/// Every cumulative counter of the run, taken at the end of the warm-up.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub at: SimTime,
    pub links: Vec<LinkStats>,
    pub queues: Vec<QueueStats>,
    pub nodes: Vec<NodeStats>,
    pub senders: Vec<SenderStats>,
    pub receivers: Vec<ReceiverStats>,
    pub udp: Vec<UdpStats>,
    pub flow_net: Vec<FlowNetStats>,
}

impl Simulation {
    /// Brings the links and the mechanisms' time-dependent state up to now.
    fn settle(&mut self) {
        self.advance_links();
        let now = self.now;
        for l in &mut self.net.links {
            l.settle(&self.net.pipes, now);
        }
        for m in &mut self.mechanisms {
            m.settle(now);
        }
    }

    /// Every cumulative counter as of now.
    pub fn snapshot(&mut self) -> Snapshot {
        self.settle();
        // Sized up front: a network of 10,000 flows has 20,000 links, whose counters would
        // otherwise be copied as the vectors grow.
        let (links, flows) = (self.net.links.len(), self.flows.len());
        let mut s = Snapshot {
            at: self.now,
            links: Vec::with_capacity(links),
            queues: Vec::with_capacity(links),
            nodes: Vec::new(),
            senders: Vec::with_capacity(flows),
            receivers: Vec::with_capacity(flows),
            udp: Vec::with_capacity(flows),
            flow_net: Vec::with_capacity(flows),
        };
        for l in &self.net.links {
            s.links.push(l.stats);
            s.queues.push(l.queue.stats);
        }
        s.nodes = self.net.nodes.iter().map(|n| n.stats).collect();
        for f in &self.flows {
            let (tx, rx, udp) = f.transport.stats();
            s.senders.push(tx);
            s.receivers.push(rx);
            s.udp.push(udp);
            s.flow_net.push(f.net);
        }
        s
    }

    /// The warm-up ended: counters are measured from here.
    pub(super) fn begin_measurement(&mut self) {
        self.baseline = self.snapshot();
        for l in &mut self.net.links {
            l.queue.begin_measurement();
        }
        for m in &mut self.mechanisms {
            m.begin_measurement();
        }
    }

    /// Takes a sample of series `i` and schedules the next.
    pub(super) fn on_sample(&mut self, i: u32) {
        let spec = &self.series_specs[i as usize];
        let interval = spec.interval_ns;
        if let SeriesTarget::QueueLen { link }
        | SeriesTarget::QueueAvg { link }
        | SeriesTarget::MaxP { link }
        | SeriesTarget::DropProb { link }
        | SeriesTarget::LinkRate { link }
        | SeriesTarget::Drops { link } = spec.target
        {
            self.observe_link(link);
        }
        let spec = &self.series_specs[i as usize];
        let t = self.now.as_secs_f64();
        let value = match spec.target {
            SeriesTarget::Cwnd { flow } => self.flows[flow as usize].transport.cwnd_segments(),
            SeriesTarget::Ssthresh { flow } => match self.flows[flow as usize].sender() {
                // The initial threshold is "arbitrarily high" (RFC 5681): no number to plot.
                Some(tx) if tx.ssthresh() < 1 << 30 => tx.ssthresh() as f64 / tx.cfg.mss as f64,
                _ => f64::NAN,
            },
            SeriesTarget::Rtt { flow } => self.flows[flow as usize].sender().and_then(|tx| tx.last_rtt).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
            SeriesTarget::Srtt { flow } => self.flows[flow as usize].sender().and_then(|tx| tx.srtt()).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3),
            SeriesTarget::PacingRate { flow } => self.flows[flow as usize].sender().and_then(|tx| tx.pacing_rate()).map_or(f64::NAN, |r| r * 8.0),
            SeriesTarget::QueueLen { link } => self.net.links[link as usize].queue.len() as f64,
            SeriesTarget::QueueAvg { link } => self.net.links[link as usize].queue.discipline().probe().avg,
            SeriesTarget::MaxP { link } => self.net.links[link as usize].queue.discipline().probe().max_p,
            SeriesTarget::DropProb { link } => self.net.links[link as usize].queue.discipline().probe().prob,
            SeriesTarget::Goodput { flow } => {
                let total = self.flows[flow as usize].transport.delivered_bytes();
                self.rate_since_last(i, total, interval)
            }
            SeriesTarget::LinkRate { link } => {
                let total = self.net.links[link as usize].stats.tx_bytes;
                self.rate_since_last(i, total, interval)
            }
            SeriesTarget::Drops { link } => {
                let total = self.net.links[link as usize].queue.stats.drops();
                (total - std::mem::replace(&mut self.series_last[i as usize], total)) as f64
            }
        };
        let spec = &self.series_specs[i as usize];
        self.series[i as usize].push(t, value, spec.max_points);
        if !self.series[i as usize].truncated {
            self.events.schedule(self.now + Dur(interval), Event::Sample(i));
        }
    }

    /// bit/s over the last interval of a cumulative byte count.
    fn rate_since_last(&mut self, i: u32, total: u64, interval_ns: u64) -> f64 {
        let last = std::mem::replace(&mut self.series_last[i as usize], total);
        if self.now == SimTime::ZERO {
            0.0
        } else {
            (total - last) as f64 * 8.0 / (interval_ns as f64 * 1e-9)
        }
    }

    /// Whether a data packet of flow `fi` starting at `seq` is queued or on a link: one of
    /// the copies the flow's sender handed to the network and that has not left it, unless
    /// a lossy link has lost it on the wire by now (losses are replayed lazily).
    pub(super) fn data_in_network(&self, fi: FlowIdx, seq: crate::packet::Seq) -> bool {
        let copies = self.flows[fi as usize].in_network.copies(seq);
        if copies == 0 || self.lossy_links.is_empty() {
            return copies > 0;
        }
        let hit = |p: &Packet| p.flow == fi && is_data_segment(p) && p.seq == seq;
        let lost: usize = self.lossy_links.iter().map(|&l| self.net.links[l as usize].lost_unreplayed(self.now, hit)).sum();
        copies > lost
    }

    /// [`data_in_network`](Self::data_in_network) by a scan of every link: what the per-flow
    /// record must agree with (checked in debug builds).
    #[cfg(debug_assertions)]
    pub(super) fn data_in_network_scan(&self, fi: FlowIdx, seq: crate::packet::Seq) -> bool {
        let hit = |p: &Packet| p.flow == fi && is_data_segment(p) && p.seq == seq;
        self.net.links.iter().any(|l| l.holds(&self.net.pipes, self.now, hit))
    }

    /// Packets of flow `fi` still queued, being transmitted, propagating, or waiting in the
    /// sender's jitter buffer: (forward, reverse). ACC control messages are the routers'
    /// packets and are not counted.
    pub fn packets_in_network(&self, fi: FlowIdx) -> (u64, u64) {
        let mut fwd = 0;
        let mut rev = 0;
        let mut count = |p: &Packet| {
            if p.flow == fi && p.kind != Kind::AccControl {
                if p.is_reverse() {
                    rev += 1
                } else {
                    fwd += 1
                }
            }
        };
        for l in &self.net.links {
            l.packets(&self.net.pipes, self.now).for_each(&mut count);
        }
        self.flows[fi as usize].pending.iter().for_each(|(_, p)| count(p));
        (fwd, rev)
    }

    /// Logs `event` for `pkt` at `node` (and `link`) now, if the scenario keeps a packet log.
    #[inline]
    pub(super) fn log(&mut self, event: LogEvent, reason: DropReason, node: NodeId, link: Option<LinkId>, pkt: &Packet) {
        if let Some(log) = &mut self.packet_log {
            log.log(self.now, event, reason, node, link, pkt);
        }
    }

    /// Logs an event of `link`'s queue (at its sending node) at `t`.
    pub(super) fn log_at(&mut self, t: SimTime, event: LogEvent, reason: DropReason, link: LinkId, pkt: &Packet) {
        let from = self.net.links[link as usize].from;
        if let Some(log) = &mut self.packet_log {
            log.log(t, event, reason, from, Some(link), pkt);
        }
    }

    /// Logs `pkt` joining `link`'s queue now (and its ECN mark, if the queue set one).
    pub(super) fn log_enqueue(&mut self, link: LinkId, pkt: &Packet, action: Action) {
        if self.packet_log.is_some() {
            self.log_at(self.now, LogEvent::Enqueue, DropReason::None, link, pkt);
            if action == Action::MarkAndEnqueue {
                self.log_at(self.now, LogEvent::Mark, DropReason::None, link, pkt);
            }
        }
    }
}
