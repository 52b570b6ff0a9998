//! ACC/TCP and ACC/RDP in the routers (Faber, "Experience with Active Congestion Control",
//! Sections 2, 3.1 and 4.2): a monitor on each egress queue configured with ACC, and packet
//! filters. The decisions themselves are in [`decide`], which a live router shares; this
//! module wires them to the simulated network.
//!
//! ACC acts on the data packets that carry their sender's state: TCP segments, whose windows
//! are in bytes (the segment size is the dropped packet's payload), and RDP data segments,
//! whose windows are in packets (a segment of one, `decide.rs`'s unit rule).
//!
//! When an ACC queue drops a data packet that carries its sender's state (`pkt.acc`), the
//! router computes the window TCP would choose, half the carried cwnd and at least two
//! segments (ssthresh the same), and
//!
//! 1. sends it to the sender in a control message: a real packet (`Kind::AccControl`, IPv4,
//!    UDP and the 16-byte state layout of the pcap writer) routed like any other, so it can
//!    be queued, delayed or lost. Its `seq` names the dropped segment, so that the sender
//!    can tell which window of data the control is about;
//! 2. installs at the previous router on the flow's path a filter that discards the flow's
//!    data packets until it has discarded what the sender would not have sent (the carried
//!    cwnd minus the new one, in segments), or a packet shows the sender has reacted, or a
//!    timeout expires.
//!
//! Where the paper is silent:
//!
//! - The segment size is the dropped packet's payload (a router sees no MSS option).
//! - A packet shows the sender has reacted (to the control, or to congestion it detected
//!   itself) when it carries a smaller cwnd than the dropped packet did: between reductions
//!   TCP's window only grows. Comparing with the new window instead misses most reactions,
//!   because congestion avoidance has grown the window a little past it by the time the
//!   sender, silent until its flight has drained to the new window, sends again.
//! - At most one control per flow per carried srtt, per queue. A packet that carries no RTT
//!   estimate yet (srtt 0) gets none: the spacing could not be sized.
//! - No control when the window is already at two segments: TCP would not close it either.
//! - An optional per-queue RTT floor (Section 3.2's remedy for low bandwidth-delay
//!   products): flows whose carried srtt is below it get no control and no filter.
//! - The previous router comes from the current routes. When the flow's source is attached
//!   to the congested router there is none, and the congested router filters the flow's
//!   arriving packets itself, at once. Otherwise the message installing the filter goes back
//!   over the link from the congested router to the previous one and takes that link's
//!   propagation delay (not the data direction's, which may differ: a delay before the
//!   congested queue, as a live run's flakeway puts it, is not on the way back); it is one
//!   small packet, so its queueing and loss are not modelled. Without such a link the
//!   congested router filters itself, at once, as a live node does.
//! - The filter times out two carried RTTs after it starts working, unless the queue sets
//!   another timeout. Expired filters are removed when a packet of their flow arrives or
//!   when statistics are taken, whichever is first; an expired filter does nothing else.
//! - A new filter for a flow at a router replaces the one there (counted as replaced).
//! - Filtered packets are counted as drops of their flow where they are filtered, and lost
//!   controls against the router that sent them.

pub mod decide;

pub use decide::MonitorConfig;

use crate::net::{LinkId, Network, NodeKind};
use crate::packet::{AccState, FlowId, Kind, NodeId, Packet};
use crate::router::hooks::{BuildContext, Cx, Hooks, Passage, RouterMechanism};
use crate::settings::error::{fail, BuildError};
use crate::settings::schema::QueueSpec;
use crate::sim::{Dur, SimTime};
use crate::stats::counters;
use decide::{Decision, FilterEnd, FilterState};
use std::collections::HashMap;

counters! {
    /// ACC counters of one router, as a congested router and as a filtering one.
    pub struct AccStats {
        /// Data packets carrying ACC state dropped by the router's ACC queues.
        pub acc_drops: u64,
        /// Of those, drops of flows below the RTT floor.
        pub below_rtt_floor: u64,
        /// Control messages sent to the senders of dropped packets.
        pub controls_sent: u64,
        /// Controls this router sent that the network lost.
        pub controls_lost: u64,
        /// Filters installed at this router.
        pub filters_installed: u64,
        /// Filters removed after discarding their count of packets.
        pub filters_removed_count: u64,
        /// Filters removed because a packet showed the sender had reduced its window.
        pub filters_removed_behaviour: u64,
        /// Filters removed by their timeout.
        pub filters_removed_timeout: u64,
        /// Filters replaced by a newer one for the same flow.
        pub filters_replaced: u64,
        /// Packets this router's filters discarded (counted as drops of their flows).
        pub packets_filtered: u64,
    }
}

#[derive(Clone, Copy, Debug)]
struct Filter {
    flow: FlowId,
    state: FilterState,
}

/// ACC for a whole network: the monitors, by link, and the filters, by node.
#[derive(Clone, Debug)]
pub struct Acc {
    monitors: Vec<Option<MonitorConfig>>,
    /// When each (queue, flow) was last sent a control.
    last_control: HashMap<(LinkId, FlowId), SimTime>,
    filters: Vec<Vec<Filter>>,
    /// By node.
    pub stats: Vec<AccStats>,
    /// The counters at the end of the warm-up (zero before).
    baseline: Vec<AccStats>,
}

impl Acc {
    /// `monitors[l]` configures link `l`'s queue, or is None where ACC is off.
    pub fn new(monitors: Vec<Option<MonitorConfig>>, n_nodes: usize) -> Acc {
        Acc {
            monitors,
            last_control: HashMap::new(),
            filters: vec![Vec::new(); n_nodes],
            stats: vec![AccStats::default(); n_nodes],
            baseline: vec![AccStats::default(); n_nodes],
        }
    }

    /// ACC for the queues whose table sets `acc = true`; None when no queue does.
    pub fn build(cx: &BuildContext) -> Result<Option<Acc>, BuildError> {
        let mut monitors = Vec::with_capacity(cx.net.links.len());
        for (l, (path, q)) in cx.link_queues.iter().enumerate() {
            let head = &cx.net.nodes[cx.net.links[l].from as usize];
            monitors.push(monitor(q.as_ref(), path, &head.name, head.kind)?);
        }
        Ok(monitors.iter().any(Option::is_some).then(|| Acc::new(monitors, cx.net.nodes.len())))
    }

    /// The monitor of `link`'s queue, if it runs ACC (a live node builds its own from it).
    pub fn monitor(&self, link: LinkId) -> Option<MonitorConfig> {
        self.monitors.get(link as usize).copied().flatten()
    }

    /// The counters of `node` since the end of the warm-up.
    pub fn measured(&self, node: NodeId) -> AccStats {
        self.stats[node as usize].delta(&self.baseline[node as usize])
    }

    /// Filters in place (or on their way) at `node`.
    pub fn filters_at(&self, node: NodeId) -> usize {
        self.filters[node as usize].len()
    }

    /// `link`'s queue dropped `pkt`. Returns the control message to send, if ACC reacts.
    pub fn on_drop(&mut self, link: LinkId, pkt: &Packet, now: SimTime, net: &Network) -> Option<Packet> {
        let cfg = self.monitors[link as usize]?;
        let (state, seg) = carried(pkt)?;
        let router = net.links[link as usize].from;
        let stats = &mut self.stats[router as usize];
        stats.acc_drops += 1;
        let last = self.last_control.get(&(link, pkt.flow)).copied();
        let (state, filter) = match decide::on_drop(&cfg, &state, seg, last, now) {
            Decision::BelowFloor => {
                stats.below_rtt_floor += 1;
                return None;
            }
            Decision::Ignore => return None,
            Decision::Control { state, filter } => (state, filter),
        };
        stats.controls_sent += 1;
        self.last_control.insert((link, pkt.flow), now);
        if let Some(req) = filter {
            let (site, delay) = filter_site(net, link, pkt);
            self.install(site, Filter { flow: pkt.flow, state: FilterState::new(&req, now + delay) });
        }
        Some(Packet::acc_control(router, pkt, state, now))
    }

    fn install(&mut self, node: NodeId, filter: Filter) {
        let (filters, stats) = (&mut self.filters[node as usize], &mut self.stats[node as usize]);
        stats.filters_installed += 1;
        match filters.iter_mut().find(|f| f.flow == filter.flow) {
            Some(old) => {
                stats.filters_replaced += 1;
                *old = filter;
            }
            None => filters.push(filter),
        }
    }

    /// `pkt` arrives at router `node`: true if a filter discards it.
    pub fn filter(&mut self, node: NodeId, pkt: &Packet, now: SimTime) -> bool {
        let filters = &mut self.filters[node as usize];
        if filters.is_empty() {
            return false;
        }
        let Some((state, _)) = carried(pkt) else { return false };
        let Some(i) = filters.iter().position(|f| f.flow == pkt.flow && f.state.from <= now) else { return false };
        let stats = &mut self.stats[node as usize];
        let verdict = decide::filter(&mut filters[i].state, state.cwnd, now);
        if verdict.discard {
            stats.packets_filtered += 1;
        }
        if let Some(end) = verdict.ended {
            *match end {
                FilterEnd::Count => &mut stats.filters_removed_count,
                FilterEnd::Behaviour => &mut stats.filters_removed_behaviour,
                FilterEnd::Timeout => &mut stats.filters_removed_timeout,
            } += 1;
            filters.swap_remove(i);
        }
        verdict.discard
    }

    /// The network lost `pkt`. A control message is the routers' packet, not its flow's:
    /// it is counted against the router that sent it, and the answer is true.
    pub fn count_lost_control(&mut self, pkt: &Packet) -> bool {
        let control = pkt.kind == Kind::AccControl;
        if control {
            self.stats[pkt.src as usize].controls_lost += 1;
        }
        control
    }

    /// Removes the filters that have expired by `now` (before statistics are taken).
    pub fn expire(&mut self, now: SimTime) {
        for (filters, stats) in self.filters.iter_mut().zip(&mut self.stats) {
            let before = filters.len();
            filters.retain(|f| f.state.until > now);
            stats.filters_removed_timeout += (before - filters.len()) as u64;
        }
    }
}

impl RouterMechanism for Acc {
    fn hooks(&self) -> Hooks {
        Hooks::ARRIVAL | Hooks::QUEUE_DROP | Hooks::LOSS
    }

    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Passage {
        if self.filter(node, pkt, cx.now) {
            Passage::Discard
        } else {
            Passage::Forward
        }
    }

    fn on_queue_drop(&mut self, link: LinkId, pkt: &Packet, cx: &mut Cx) {
        if let Some(ctl) = self.on_drop(link, pkt, cx.now, cx.net) {
            cx.send(ctl.src, ctl);
        }
    }

    fn claims_loss(&mut self, pkt: &Packet) -> bool {
        self.count_lost_control(pkt)
    }

    fn settle(&mut self, now: SimTime) {
        self.expire(now);
    }

    fn begin_measurement(&mut self) {
        self.baseline.clone_from(&self.stats);
    }
}

/// The congestion state a data packet carries, and the segment of its windows' unit: the
/// payload for a TCP segment (bytes), one for an RDP segment (packets). None for packets
/// that carry none.
pub fn carried(pkt: &Packet) -> Option<(AccState, u32)> {
    let state = pkt.acc?;
    match pkt.kind {
        Kind::TcpData => Some((state, pkt.payload)),
        Kind::RdpData if pkt.payload > 0 => Some((state, 1)),
        _ => None,
    }
}

/// The ACC monitor of a queue at node `head`, if its table `q` (at `path`) runs ACC.
fn monitor(q: Option<&QueueSpec>, path: &str, head: &str, kind: NodeKind) -> Result<Option<MonitorConfig>, BuildError> {
    let Some(q) = q else { return Ok(None) };
    if !q.acc.unwrap_or(false) {
        for (field, given) in [("acc_rtt_floor", q.acc_rtt_floor.is_some()), ("acc_filter_timeout", q.acc_filter_timeout.is_some())] {
            if given {
                return fail(format!("{path}.{field}"), "only with `acc = true`");
            }
        }
        return Ok(None);
    }
    if kind != NodeKind::Router {
        return fail(format!("{path}.acc"), format!("ACC runs in routers, and {head:?} is a host"));
    }
    if q.acc_filter_timeout.is_some_and(|t| t.0 <= 0.0) {
        return fail(format!("{path}.acc_filter_timeout"), "must be positive");
    }
    Ok(Some(MonitorConfig { rtt_floor: q.acc_rtt_floor.map_or(Dur::ZERO, |d| d.dur()), filter_timeout: q.acc_filter_timeout.map(|d| d.dur()) }))
}

/// Where the filter for a drop of `pkt` at `link` goes, and how long the message installing
/// it takes: the router before the congested one on the flow's path, reached over the link
/// back to it (its propagation delay), or the congested router itself, at once, when the
/// flow's source is attached to it or no link leads back.
fn filter_site(net: &Network, link: LinkId, pkt: &Packet) -> (NodeId, Dur) {
    let congested = net.links[link as usize].from;
    let previous = net
        .routes
        .path(&net.links, pkt.src, pkt.dst)
        .and_then(|path| {
            let i = path.iter().position(|&l| l == link)?;
            Some(net.links[path[i.checked_sub(1)?] as usize].from)
        })
        .filter(|&n| net.nodes[n as usize].kind == NodeKind::Router);
    let back = previous.and_then(|n| net.links.iter().find(|l| l.from == congested && l.to == n));
    match back {
        Some(l) => (l.to, l.delay),
        None => (congested, Dur::ZERO),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Link, Node, NodeStats};
    use crate::packet::Endpoints;
    use crate::packet::Seq;
    use crate::queue::{Discipline, EgressQueue, Limit, TailDrop};
    use crate::signal::SignalPolicy;
    use crate::sim::Rng;

    const MSS: u32 = 1000;

    /// S - R0 - R1 - D with 5 ms links; ACC on R1 -> D (link 2) and on R0 -> R1 (link 1).
    fn net() -> Network {
        net_of(&[(0, 1), (1, 2), (2, 3), (3, 2), (2, 1), (1, 0)])
    }

    /// Nodes S, R0, R1, D and one-way 5 ms links between them, `(from, to)`, in order.
    fn net_of(links: &[(NodeId, NodeId)]) -> Network {
        let mut net = Network::default();
        for (name, kind) in [("S", NodeKind::Host), ("R0", NodeKind::Router), ("R1", NodeKind::Router), ("D", NodeKind::Host)] {
            net.nodes.push(Node { name: name.into(), kind, stats: NodeStats::default() });
        }
        for &(a, b) in links {
            let q = EgressQueue::new(Limit::Packets(10), Discipline::TailDrop(Box::new(TailDrop)), SignalPolicy::Drop, Rng::from_seed(1), vec![]);
            net.links.push(Link::new(format!("{a}->{b}"), a, b, 10_000_000, Dur::from_millis(5), 1, 0.0, q, Rng::from_seed(2)));
        }
        net.destinations = vec![0, 3];
        net.recompute_routes();
        net
    }

    fn acc(cfg: MonitorConfig) -> Acc {
        let mut monitors = vec![None; 6];
        monitors[1] = Some(cfg);
        monitors[2] = Some(cfg);
        Acc::new(monitors, 4)
    }

    fn data(seq: u32, cwnd_segs: u32, srtt_ms: u32) -> Packet {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 3, sport: 1, dport: 2 };
        let mut p = Packet::tcp_data(&ends, Seq(seq), MSS, 64, SimTime::ZERO);
        p.acc = Some(AccState { cwnd: cwnd_segs * MSS, ssthresh: u32::MAX, srtt_us: srtt_ms * 1000, ..AccState::default() });
        p
    }

    fn ms(t: u64) -> SimTime {
        SimTime::ZERO + Dur::from_millis(t)
    }

    #[test]
    fn control_halves_the_carried_window_and_goes_to_the_sender() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        let c = a.on_drop(2, &data(7000, 20, 100), ms(1), &net).expect("a control");
        assert_eq!((c.kind, c.src, c.dst, c.seq), (Kind::AccControl, 2, 0, Seq(7000)));
        assert_eq!(c.size, 44);
        let s = c.acc.unwrap();
        assert_eq!((s.cwnd, s.ssthresh), (10 * MSS, 10 * MSS));
        assert!(a.on_drop(2, &data(8000, 3, 100), ms(2), &net).is_none(), "one control per RTT");
        let c = a.on_drop(2, &data(9000, 3, 100), ms(101), &net).expect("next RTT");
        assert_eq!(c.acc.unwrap().cwnd, 2 * MSS, "at least two segments");
        assert!(a.on_drop(2, &data(9000, 2, 100), ms(300), &net).is_none(), "a window of two is not closed");
        assert!(a.on_drop(0, &data(9000, 20, 100), ms(400), &net).is_none(), "not an ACC queue");
        let mut plain = data(9000, 20, 100);
        plain.acc = None;
        assert!(a.on_drop(2, &plain, ms(500), &net).is_none(), "not an ACC flow");
        assert_eq!(a.stats[2].controls_sent, 2);
        assert_eq!(a.stats[2].acc_drops, 4);
    }

    #[test]
    fn filter_goes_upstream_after_the_link_delay_and_ends_by_count() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        a.on_drop(2, &data(0, 6, 100), ms(10), &net).unwrap();
        assert_eq!((a.filters_at(1), a.filters_at(2)), (1, 0), "at R0, the router before R1");
        assert!(!a.filter(1, &data(1000, 6, 100), ms(14)), "not installed before the message arrives");
        assert!(a.filter(1, &data(2000, 6, 100), ms(15)));
        let mut other = data(2000, 6, 100);
        other.flow = 1;
        assert!(!a.filter(1, &other, ms(15)), "other flows pass");
        assert!(a.filter(1, &data(3000, 6, 100), ms(16)));
        assert!(a.filter(1, &data(4000, 6, 100), ms(17)), "the third of 6 - 3 packets");
        assert_eq!(a.filters_at(1), 0);
        assert!(!a.filter(1, &data(5000, 6, 100), ms(18)));
        assert_eq!((a.stats[1].packets_filtered, a.stats[1].filters_removed_count, a.stats[1].filters_installed), (3, 1, 1));
    }

    #[test]
    fn filter_request_goes_back_over_the_link_to_the_previous_router() {
        // 100 ms on R0 -> R1 (the data direction, before R1's queue, as a live flakeway at R1
        // puts it); 5 ms back on R1 -> R0, which the request crosses (a live node sends it
        // on that egress).
        let mut net = net();
        net.links[1].delay = Dur::from_millis(100);
        let mut a = acc(MonitorConfig::default());
        a.on_drop(2, &data(0, 6, 100), ms(10), &net).unwrap();
        assert!(!a.filter(1, &data(1000, 6, 100), ms(14)), "not before the request arrives");
        assert!(a.filter(1, &data(2000, 6, 100), ms(15)), "working 5 ms after the drop, not 100");
        // With no link back to R0 (R1 reaches S directly), R1 filters itself, at once.
        let net = net_of(&[(0, 1), (1, 2), (2, 3), (3, 2), (2, 0)]);
        let mut a = acc(MonitorConfig::default());
        a.on_drop(2, &data(0, 6, 100), ms(10), &net).unwrap();
        assert_eq!((a.filters_at(1), a.filters_at(2)), (0, 1));
        assert!(a.filter(2, &data(1000, 6, 100), ms(10)));
    }

    #[test]
    fn filter_ends_when_the_sender_shows_it_reacted() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        a.on_drop(2, &data(0, 40, 100), ms(0), &net).unwrap();
        assert!(a.filter(1, &data(1000, 40, 100), ms(5)));
        assert!(a.filter(1, &data(2000, 41, 100), ms(6)), "the window grew: no reaction yet");
        assert!(!a.filter(1, &data(3000, 21, 100), ms(7)), "cwnd 21 < 40: the sender reduced");
        assert_eq!((a.filters_at(1), a.stats[1].filters_removed_behaviour, a.stats[1].packets_filtered), (0, 1, 2));
    }

    #[test]
    fn filter_times_out() {
        let (net, mut a) = (net(), acc(MonitorConfig { filter_timeout: Some(Dur::from_millis(30)), ..MonitorConfig::default() }));
        a.on_drop(2, &data(0, 40, 100), ms(0), &net).unwrap();
        assert!(a.filter(1, &data(1000, 40, 100), ms(34)));
        assert!(!a.filter(1, &data(2000, 40, 100), ms(35)), "installed at 5 ms, expired at 35 ms");
        assert_eq!((a.filters_at(1), a.stats[1].filters_removed_timeout), (0, 1));
        // Default: two carried RTTs; an idle flow's filter is swept when statistics are taken.
        let mut a = acc(MonitorConfig::default());
        a.on_drop(2, &data(0, 40, 100), ms(0), &net).unwrap();
        a.expire(ms(204));
        assert_eq!(a.filters_at(1), 1);
        a.expire(ms(205));
        assert_eq!((a.filters_at(1), a.stats[1].filters_removed_timeout), (0, 1));
    }

    #[test]
    fn congested_first_router_filters_itself_at_once() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        a.on_drop(1, &data(0, 40, 100), ms(0), &net).unwrap();
        assert_eq!(a.filters_at(1), 1, "R0 has no router before it on the path");
        assert!(a.filter(1, &data(1000, 40, 100), ms(0)));
    }

    #[test]
    fn newer_filter_replaces_the_old_one() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        a.on_drop(2, &data(0, 40, 10), ms(0), &net).unwrap();
        a.on_drop(2, &data(0, 30, 10), ms(10), &net).unwrap();
        assert_eq!((a.filters_at(1), a.stats[1].filters_installed, a.stats[1].filters_replaced), (1, 2, 1));
        assert!(a.filter(1, &data(1000, 35, 10), ms(20)), "measured against the newer drop's 30");
        assert!(!a.filter(1, &data(1000, 29, 10), ms(21)));
    }

    #[test]
    fn flows_below_the_rtt_floor_get_no_control() {
        let (net, mut a) = (net(), acc(MonitorConfig { rtt_floor: Dur::from_millis(50), ..MonitorConfig::default() }));
        assert!(a.on_drop(2, &data(0, 40, 49), ms(0), &net).is_none());
        assert_eq!((a.filters_at(1), a.stats[2].below_rtt_floor), (0, 1));
        assert!(a.on_drop(2, &data(0, 40, 50), ms(1), &net).is_some());
        assert!(a.on_drop(2, &data(0, 40, 0), ms(1), &net).is_none(), "no RTT estimate yet");
    }

    /// An RDP data segment of flow 0 carrying a window of `cwnd` packets.
    fn rdp_data(seq: u32, cwnd: u32, srtt_ms: u32) -> Packet {
        let ends = Endpoints { flow: 0, sender: 0, receiver: 3, sport: 1, dport: 2 };
        let acc = Some(AccState { cwnd, ssthresh: 1000, srtt_us: srtt_ms * 1000, slow_start: false, fast_recovery: false });
        let f = crate::rdp::Fields { flags: crate::rdp::flags::ACK, seq: Seq(seq), acc, ..Default::default() };
        Packet::rdp(Kind::RdpData, &ends, f, MSS, 64, SimTime::ZERO)
    }

    #[test]
    fn rdp_windows_are_counted_in_packets() {
        let (net, mut a) = (net(), acc(MonitorConfig::default()));
        let c = a.on_drop(2, &rdp_data(7, 20, 100), ms(1), &net).expect("a control");
        assert_eq!((c.kind, c.dst, c.seq), (Kind::AccControl, 0, Seq(7)));
        let s = c.acc.unwrap();
        assert_eq!((s.cwnd, s.ssthresh), (10, 10), "half of 20 packets");
        // The filter at R0 discards the 10 packets the sender would not have sent.
        let discarded = (0..12).filter(|&i| a.filter(1, &rdp_data(8 + i, 20, 100), ms(10 + i as u64))).count();
        assert_eq!((discarded, a.stats[1].filters_removed_count), (10, 1));
        // At two packets there is nothing to close; segments without data carry no state.
        assert!(a.on_drop(2, &rdp_data(9, 2, 100), ms(500), &net).is_none());
        let mut syn = rdp_data(1, 40, 100);
        syn.payload = 0;
        assert!(a.on_drop(2, &syn, ms(900), &net).is_none());
        assert_eq!(carried(&syn), None);
        assert_eq!(carried(&rdp_data(1, 40, 100)).map(|c| c.1), Some(1));
        assert_eq!(carried(&data(1, 40, 100)).map(|c| c.1), Some(MSS));
    }
}
