//! Resource guards: what a scenario will cost, estimated before it is built and run, and
//! refused at once when it is more than the machine (or the caller) allows.
//!
//! - **Memory**, before anything large is allocated: nodes, links with their queues, flows
//!   with their TCP or UDP state, the routing tables, sampled series, packets in the
//!   network and the report. Each size comes from the data structure that will hold it
//!   (`Link::footprint`, `Flow::footprint`, `Routes::peak_bytes`, ...), so the estimate
//!   follows their layout when it changes. The limit is the memory this process can still
//!   get: the smallest of the machine's available memory, the address-space limit
//!   (`ulimit -v`) less what the process already maps, and the cgroup's memory limit.
//! - **Events**, once the routes are known: packets on every link (each flow's demand at
//!   its path's bottleneck, no more than each link can carry), UDP sends, timers and
//!   samples. The limit is [`DEFAULT_MAX_EVENTS`] unless the caller gives another.
//!
//! Either refusal is a [`BuildError`] naming the field that contributes most:
//! `flows[0].count: this scenario needs about 12.4 GB of memory (limit 3.2 GB, ...); use
//! --force to run anyway`. [`Limits::force`] skips both checks (the hard limits of the
//! index types stay).

use super::expand_names;
use crate::app::{Period, UdpPattern};
use crate::engine::memory::available_memory;
use crate::engine::{Flow, Transport};
use crate::net::{Link, Network, Node, NodeId, Routes};
use crate::queue::Limit;
use crate::settings::error::{fail, BuildError};
use crate::settings::schema::{FlowSpec, LinkSpec, QueueSpec, Scenario, SeriesSpecToml};
use crate::settings::units::bytes_text;
use crate::settings::units::num;
use std::collections::{HashMap, HashSet};
use std::mem::size_of;

/// The events a run may handle unless the caller allows more: about ten to twenty minutes
/// of this simulator's work on one core.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000_000;

/// What a scenario may cost before it is refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of memory; None: what this process can still get ([`available_memory`]).
    pub max_memory: Option<u64>,
    /// Events; None: [`DEFAULT_MAX_EVENTS`].
    pub max_events: Option<u64>,
    /// Build and run whatever the estimates say.
    pub force: bool,
}

/// Where a cost comes from: a field path and its share.
type Share = (String, f64);

/// The field with the largest share, and the total.
fn total(shares: &[Share]) -> (f64, &str) {
    let sum = shares.iter().map(|s| s.1).sum();
    // The first of equal shares: the field the user wrote first.
    let top = shares.iter().fold(None::<&Share>, |best, s| if best.is_none_or(|b| s.1 > b.1) { Some(s) } else { best }).map_or("", |s| s.0.as_str());
    (sum, top)
}

/// Bytes of one node named with `name_len` bytes: the node and its entry in the name map.
fn node_bytes(name_len: usize) -> f64 {
    (size_of::<Node>() + size_of::<(String, NodeId)>() + 2 * name_len + 32) as f64
}

/// Names `pattern` expands to, without expanding it (an error is left to the builder).
fn names(pattern: &str) -> f64 {
    super::count_names(pattern) as f64
}

/// Pairs of a `between` or `from`/`to` (as `build::pair_up` makes them).
fn pairs(a: &str, b: &str) -> f64 {
    names(a).max(names(b))
}

/// Refuses a scenario whose nodes alone are more than the limit, or that has more nodes,
/// links or flows than their indices can number, before any is made.
pub fn check_nodes(sc: &Scenario, limits: &Limits) -> Result<(), BuildError> {
    let mut shares = Vec::new();
    let mut count = 0.0;
    for (field, list) in [("hosts", &sc.hosts), ("routers", &sc.routers)] {
        for (i, p) in list.iter().enumerate() {
            count += names(p);
            shares.push((format!("{field}[{i}]"), names(p) * node_bytes(p.len())));
        }
    }
    if count >= NodeId::MAX as f64 {
        let (_, top) = total(&shares);
        return fail(top, format!("the scenario has {} nodes, more than {} (node indices are 32-bit)", num(count), NodeId::MAX - 1));
    }
    let links: f64 = sc.links.iter().map(|l| link_count(l).0).sum();
    if links >= u32::MAX as f64 {
        return fail("links", format!("the scenario has {} links, more than {} (link indices are 32-bit)", num(links), u32::MAX - 1));
    }
    let flows: f64 = sc.flows.iter().map(|f| pairs(&f.from, &f.to) * f.count as f64).sum();
    if flows >= u32::MAX as f64 {
        return fail("flows", format!("the scenario has {} flows, more than {} (flow indices are 32-bit)", num(flows), u32::MAX - 1));
    }
    check_memory_shares(&shares, limits)
}

/// Refuses a scenario whose structures need more memory than the limit. `ids` are its
/// nodes by name. The packets it may hold in the network are left to the run's
/// [`MemoryGuard`].
pub fn check_memory(sc: &Scenario, ids: &HashMap<String, NodeId>, limits: &Limits) -> Result<(), BuildError> {
    let estimate = memory(sc, ids)?;
    check_memory_shares(&estimate.fixed, limits)
}

fn check_memory_shares(shares: &[Share], limits: &Limits) -> Result<(), BuildError> {
    if limits.force {
        return Ok(());
    }
    let (need, top) = total(shares);
    let (limit, why) = match limits.max_memory {
        Some(b) => (b, "the limit given"),
        None => match available_memory() {
            Some(x) => x,
            None => return Ok(()),
        },
    };
    if need > limit as f64 {
        return fail(
            top,
            format!("this scenario needs about {} of memory (limit {}: {why}); use --force to run anyway", bytes_text(need), bytes_text(limit as f64)),
        );
    }
    Ok(())
}

/// A scenario's memory, by the field it comes from.
pub struct MemoryEstimate {
    /// What is allocated whatever the traffic: nodes, links and their queues' structures,
    /// flows, routing tables, series, the report.
    pub fixed: Vec<Share>,
    /// An upper bound on the bytes of packets in the network at once (every buffer full, or
    /// every flow's window out, whichever is less).
    pub packets: f64,
}

impl MemoryEstimate {
    /// Both parts, bytes.
    pub fn total(&self) -> f64 {
        self.fixed.iter().map(|s| s.1).sum::<f64>() + self.packets
    }
}

/// The memory a scenario needs, by the field it comes from. Node names are resolved with
/// `ids`; names that do not resolve are left for the builder to report.
pub fn memory(sc: &Scenario, ids: &HashMap<String, NodeId>) -> Result<MemoryEstimate, BuildError> {
    let mut shares: Vec<Share> = Vec::new();
    let n_nodes = ids.len() as f64;
    for (field, list) in [("hosts", &sc.hosts), ("routers", &sc.routers)] {
        for (i, p) in list.iter().enumerate() {
            shares.push((format!("{field}[{i}]"), names(p) * node_bytes(p.len())));
        }
    }
    // Links, with their queues, their names in the map and their queue tables.
    let per_table = size_of::<(String, Option<crate::settings::schema::QueueSpec>)>() + 64;
    let mut n_links = 0.0;
    let mut limit_packets = 0.0;
    for (i, l) in sc.links.iter().enumerate() {
        let (count, name_len) = link_count(l);
        let limit = queue_limit(l);
        let per = Link::footprint(name_len, limit) as f64 + (size_of::<(String, u32)>() + name_len + 32 + per_table) as f64 + discipline_bytes(l);
        shares.push((format!("links[{i}]"), count * per));
        n_links += count;
        let packets = match limit {
            Limit::Packets(n) => n as f64,
            Limit::Bytes(b) => b as f64 / 40.0,
        };
        limit_packets += count * packets;
    }
    // ACK spoofers: one per router with a spoofing queue, each with its flow table.
    let spoofing: f64 = sc
        .links
        .iter()
        .filter(|l| [&l.queue, &l.queue_reverse].iter().any(|q| q.as_ref().is_some_and(|q| q.signal.as_deref() == Some("spoof"))))
        .map(|l| link_count(l).0)
        .sum();
    if spoofing > 0.0 {
        let routers: f64 = sc.routers.iter().map(|p| names(p)).sum();
        let size = sc.ack_spoofing.as_ref().and_then(|a| a.table_size).unwrap_or(1024).min(1 << 24) as usize;
        shares.push(("ack_spoofing.table_size".into(), spoofing.min(routers) * crate::router::SpoofConfig::footprint(size) as f64));
    }
    if n_links >= u32::MAX as f64 {
        return fail("links", format!("the scenario has {} links, more than {} (link indices are 32-bit)", num(n_links), u32::MAX - 1));
    }
    // Flows: their state, the vector they live in (up to twice their size while it grows),
    // their report, and the packets they can keep in the network.
    let duration = sc.duration.0;
    let mut n_flows = 0.0;
    let mut in_flight = 0.0;
    for (i, f) in sc.flows.iter().enumerate() {
        let count = pairs(&f.from, &f.to) * f.count as f64;
        n_flows += count;
        let tcp = f.transport.as_deref().unwrap_or("tcp") != "udp";
        let name_len = f.name.as_ref().map_or(6, String::len);
        let per = Flow::footprint(tcp, name_len) as f64 + size_of::<Flow>() as f64 + REPORT_BYTES_PER_FLOW;
        let field = if f.count > 1 { format!("flows[{i}].count") } else { format!("flows[{i}]") };
        shares.push((field, count * per));
        in_flight += count * packets_in_flight(f, duration);
    }
    if n_flows >= u32::MAX as f64 {
        return fail("flows", format!("the scenario has {} flows, more than {} (flow indices are 32-bit)", num(n_flows), u32::MAX - 1));
    }
    let packets = limit_packets.min(in_flight) * Link::bytes_per_packet() as f64;
    shares.push(("links".into(), n_links * REPORT_BYTES_PER_LINK));
    // Routing: a row per node that is not single-homed, a column per anchor of a flow end.
    let (rows, columns, field) = routing_shape(sc, ids);
    shares.push((field, Routes::peak_bytes(n_nodes as u64, n_links as u64, rows, columns) as f64));
    // Series: the points each keeps, allocated when the run starts.
    for (i, s) in sc.series.iter().enumerate() {
        shares.push((format!("series[{i}].interval"), series_count(sc, s) * (series_points(s, duration) * 16.0 + 64.0)));
    }
    Ok(MemoryEstimate { fixed: shares, packets })
}

/// The points one series of `s` takes over `duration` seconds.
fn series_points(s: &SeriesSpecToml, duration: f64) -> f64 {
    ((duration / s.interval.0.max(1e-9)).floor() + 1.0).min(s.max_points as f64)
}

/// The series `s` makes: one per flow of a group, or one.
fn series_count(sc: &Scenario, s: &SeriesSpecToml) -> f64 {
    match (&s.flow, s.kind.as_str()) {
        (Some(sel), "cwnd" | "goodput") if !sel.contains('[') => sc
            .flows
            .iter()
            .enumerate()
            .find(|(j, f)| f.name.clone().unwrap_or_else(|| format!("flow{j}")) == *sel)
            .map_or(1.0, |(_, f)| pairs(&f.from, &f.to) * f.count as f64),
        _ => 1.0,
    }
}

/// Report bytes per flow: its statistics, as a struct and as JSON.
const REPORT_BYTES_PER_FLOW: f64 = 2_000.0;
/// Report bytes per link: its and its queue's statistics, as structs and as JSON.
const REPORT_BYTES_PER_LINK: f64 = 2_500.0;

/// The links the scenario's `[[links]]` make, each direction one, as the estimate counts
/// them: what the builder reserves room for (after [`check_memory`] has passed).
pub fn link_directions(sc: &Scenario) -> usize {
    sc.links.iter().map(|l| link_count(l).0).sum::<f64>() as usize
}

/// Links a spec makes (both directions of duplex pairs) and the length of their names.
fn link_count(l: &LinkSpec) -> (f64, usize) {
    match (&l.between, &l.from, &l.to) {
        (Some([a, b]), _, _) => (2.0 * pairs(a, b), a.len() + b.len() + 2),
        (None, Some(a), Some(b)) => (pairs(a, b), a.len() + b.len() + 2),
        _ => (0.0, 0),
    }
}

/// Bytes a link's discipline takes from the start beyond its struct: its boxed state (every
/// discipline but tail drop, counted as the largest) and FQ-CoDel's flow queues; the larger
/// of its two directions.
fn discipline_bytes(l: &LinkSpec) -> f64 {
    [l.queue.as_ref(), l.queue_reverse.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|q| Some((q, q.discipline.as_deref().and_then(crate::queue::spec::find)?)))
        .map(|(q, r)| (r.footprint)(&q.settings) as f64)
        .fold(0.0, f64::max)
}

fn queue_limit(l: &LinkSpec) -> Limit {
    let q = l.queue.as_ref();
    match (q.and_then(|q| q.limit), q.and_then(|q| q.limit_bytes)) {
        (Some(n), _) => Limit::Packets(n),
        (None, Some(b)) => Limit::Bytes(b),
        (None, None) => Limit::Packets(QueueSpec::DEFAULT_LIMIT),
    }
}

/// Packets one flow of `f` can keep in the network at once: a TCP window (data and
/// ACKs), or every datagram a UDP source sends in the run.
fn packets_in_flight(f: &FlowSpec, duration: f64) -> f64 {
    match f.transport.as_deref().unwrap_or("tcp") {
        "udp" => f.udp.as_ref().map_or(0.0, |u| {
            let size = u.packet_size.unwrap_or(1000) as f64 + 28.0;
            duration * u.rate.0 / (8.0 * size) + 1.0
        }),
        _ => {
            let t = f.tcp.as_ref();
            let mss = t.and_then(|t| t.mss).unwrap_or(1000).max(1) as f64;
            let rwnd = t.and_then(|t| t.rwnd).unwrap_or(1 << 20) as f64;
            2.0 * (rwnd / mss).ceil() + 2.0
        }
    }
}

/// The routing tables' shape: (rows, columns, the field whose flows make most of them).
fn routing_shape(sc: &Scenario, ids: &HashMap<String, NodeId>) -> (u64, u64, String) {
    let n = ids.len();
    // Links in and out per node, and the upstream node of a node with one link in.
    let (mut indegree, mut outdegree) = (vec![0u32; n], vec![0u32; n]);
    let mut upstream = vec![NodeId::MAX; n];
    let mut downstream = vec![NodeId::MAX; n];
    let mut add = |a: &str, b: &str| {
        if let (Some(&x), Some(&y)) = (ids.get(a), ids.get(b)) {
            indegree[y as usize] = indegree[y as usize].saturating_add(1);
            outdegree[x as usize] = outdegree[x as usize].saturating_add(1);
            upstream[y as usize] = x;
            if downstream[x as usize] == NodeId::MAX {
                downstream[x as usize] = y;
            }
        }
    };
    for l in &sc.links {
        let (a, b, duplex) = match (&l.between, &l.from, &l.to) {
            (Some([a, b]), _, _) => (a, b, true),
            (None, Some(a), Some(b)) => (a, b, false),
            _ => continue,
        };
        for (x, y) in expanded_pairs(a, b) {
            add(&x, &y);
            if duplex {
                add(&y, &x);
            }
        }
    }
    // Columns: one per anchor of a flow end point (a stub shares its upstream node's).
    let mut anchors: HashSet<NodeId> = HashSet::new();
    let mut most = (0usize, String::from("flows"));
    for (i, f) in sc.flows.iter().enumerate() {
        let before = anchors.len();
        for (a, b) in expanded_pairs(&f.from, &f.to) {
            for d in [ids.get(&a), ids.get(&b)].into_iter().flatten() {
                let d = *d as usize;
                anchors.insert(if indegree[d] == 1 && upstream[d] as usize != d { upstream[d] } else { d as NodeId });
            }
        }
        if anchors.len() - before > most.0 {
            most = (anchors.len() - before, format!("flows[{i}]"));
        }
    }
    // Rows: nodes with links out that are not single-homed (one link out, to a node with
    // several).
    let single_homed = |u: usize| outdegree[u] == 1 && outdegree.get(downstream[u] as usize).is_some_and(|&o| o > 1);
    let rows = (0..n).filter(|&u| outdegree[u] > 0 && !single_homed(u)).count();
    (rows as u64, anchors.len() as u64, most.1)
}

/// The name pairs of `a` and `b` (nothing when either is malformed: the builder says why).
fn expanded_pairs(a: &str, b: &str) -> Vec<(String, String)> {
    let (Ok(a), Ok(b)) = (expand_names(a), expand_names(b)) else { return Vec::new() };
    match (a.len(), b.len()) {
        (x, y) if x == y => a.into_iter().zip(b).collect(),
        (1, _) => b.into_iter().map(|y| (a[0].clone(), y)).collect(),
        (_, 1) => a.into_iter().map(|x| (x, b[0].clone())).collect(),
        _ => Vec::new(),
    }
}

/// Refuses a scenario whose run needs more events than the limit. `flows` are those of the
/// scenario, built (`groups[i]` the range `sc.flows[i]` made), `net` has its routes, and
/// `queues[l]` holds the field path of link `l`'s queue table (`links[1].queue`).
pub fn check_events(
    sc: &Scenario,
    net: &Network,
    flows: &[Flow],
    groups: &[(usize, usize)],
    queues: &[(String, Option<QueueSpec>)],
    limits: &Limits,
) -> Result<(), BuildError> {
    if limits.force {
        return Ok(());
    }
    let shares = events(sc, net, flows, groups, queues);
    let (need, top) = total(&shares);
    let limit = limits.max_events.unwrap_or(DEFAULT_MAX_EVENTS);
    if need > limit as f64 {
        return fail(
            top,
            format!(
                "this scenario needs about {} events over its {} s (limit {} events); use --force to run anyway, or allow more with --max-events",
                count_text(need),
                num(sc.duration.0),
                count_text(limit as f64)
            ),
        );
    }
    Ok(())
}

/// A count as messages show it: `25000`, `1.5e10`.
fn count_text(x: f64) -> String {
    if x < 1e6 {
        format!("{}", x.round() as u64)
    } else {
        format!("{x:.1e}").replace(".0e", "e")
    }
}

/// The events a run will handle, by the field they come from. `groups[i]` is the range of
/// `flows` that `sc.flows[i]` made; `queues[l]` holds the field path of link `l`'s queue table.
///
/// Periodic work counts as events whether or not it is scheduled as one: the samples of
/// the series, and a discipline's periodic updates (`Aqm::update_period`: PIE's and
/// DualPI2's every `tupdate`, which run lazily on the next packet but one by one).
pub fn events(sc: &Scenario, net: &Network, flows: &[Flow], groups: &[(usize, usize)], queues: &[(String, Option<QueueSpec>)]) -> Vec<Share> {
    let duration = sc.duration.0;
    let stop = duration;
    let links = &net.links;
    // Each flow's demand: (packets per second it could send, packet bytes, path, reverse
    // path with ACKs per data packet, active seconds, finite packet bound, UDP sends).
    struct Demand {
        pps: f64,
        bytes: f64,
        path: Vec<u32>,
        reverse: Vec<u32>,
        ack_per_packet: f64,
        seconds: f64,
        most_packets: f64,
        sends: f64,
    }
    let mut demands = Vec::with_capacity(flows.len());
    for f in flows {
        let start = f.start.as_secs_f64();
        let end = f.stop.map_or(stop, |s| s.as_secs_f64().min(stop));
        let seconds = (end - start).max(0.0);
        let path = net.routes.path(links, f.src, f.dst).unwrap_or_default();
        let bottleneck = |bytes: f64, p: &[u32]| p.iter().map(|&l| links[l as usize].rate_bps as f64 / (8.0 * bytes)).fold(f64::INFINITY, f64::min);
        // The base round trip: data packets of `bytes` out, 40-byte ACKs back.
        let round_trip = |bytes: f64, path: &[u32], reverse: &[u32]| -> f64 {
            let way =
                |p: &[u32], bytes: f64| p.iter().map(|&l| links[l as usize].delay.as_secs_f64() + bytes * 8.0 / links[l as usize].rate_bps as f64).sum::<f64>();
            way(path, bytes) + way(reverse, 40.0)
        };
        let d = match &f.transport {
            Transport::Tcp { tx, rx } => {
                let bytes = tx.cfg.mss as f64 + 40.0;
                let reverse = net.routes.path(links, f.dst, f.src).unwrap_or_default();
                let rtt = round_trip(bytes, &path, &reverse);
                let window = rx.cfg.rwnd as f64 / tx.cfg.mss as f64 / rtt.max(1e-9);
                let most_packets = tx.cfg.data_bytes.map_or(f64::INFINITY, |b| 1.5 * (b as f64 / tx.cfg.mss as f64).ceil() + 10.0);
                let ack_per_packet = if rx.cfg.delayed_ack.is_some() { 0.5 } else { 1.0 };
                Demand { pps: bottleneck(bytes, &path).min(window), bytes, path, reverse, ack_per_packet, seconds, most_packets, sends: 0.0 }
            }
            Transport::Rdp { tx, rx } => {
                // RDP: segments of segment_size bytes, each acknowledged; at most the receiver's
                // max_outstanding segments per round trip.
                let seg = tx.cfg.segment_size.max(1) as f64;
                let bytes = seg + 20.0 + crate::rdp::wire::FIXED_HEADER as f64;
                let reverse = net.routes.path(links, f.dst, f.src).unwrap_or_default();
                let rtt = round_trip(bytes, &path, &reverse);
                let window = rx.cfg.max_outstanding.max(1) as f64 / rtt.max(1e-9);
                let most_packets = tx.cfg.data_bytes.map_or(f64::INFINITY, |b| 1.5 * (b as f64 / seg).ceil() + 10.0);
                Demand { pps: bottleneck(bytes, &path).min(window), bytes, path, reverse, ack_per_packet: 1.0, seconds, most_packets, sends: 0.0 }
            }
            Transport::Udp(src) => {
                let bytes = src.payload as f64 + 28.0;
                let gap = (bytes * 8.0 / src.rate_bps as f64).max(1e-9);
                let mean = |p: Period| match p {
                    Period::Constant(d) | Period::Exponential { mean: d } => d.as_secs_f64().max(1e-9),
                };
                let per_second = match src.pattern {
                    UdpPattern::Constant | UdpPattern::Poisson => 1.0 / gap,
                    UdpPattern::OnOff { on, off } => (mean(on) / gap + 1.0) / (mean(on) + mean(off)),
                };
                let sends = per_second * seconds;
                Demand { pps: per_second, bytes, path, reverse: Vec::new(), ack_per_packet: 0.0, seconds, most_packets: sends, sends }
            }
        };
        demands.push(d);
    }
    // Bits each link is offered, and the share of it that fits.
    let mut offered = vec![0.0f64; links.len()];
    for d in &demands {
        let packets = (d.pps * d.seconds).min(d.most_packets);
        for &l in &d.path {
            offered[l as usize] += packets * d.bytes * 8.0;
        }
        for &l in &d.reverse {
            offered[l as usize] += packets * d.ack_per_packet * 320.0;
        }
    }
    let fits: Vec<f64> = links.iter().zip(&offered).map(|(l, &bits)| if bits > 0.0 { (l.rate_bps as f64 * duration / bits).min(1.0) } else { 1.0 }).collect();
    let mut shares: Vec<Share> = Vec::new();
    for (i, &(a, b)) in groups.iter().enumerate() {
        let mut n = 0.0;
        for d in &demands[a..b] {
            let fit = d.path.iter().chain(&d.reverse).map(|&l| fits[l as usize]).fold(1.0, f64::min);
            let packets = (d.pps * d.seconds).min(d.most_packets) * fit;
            let hops = d.path.len() as f64 + d.ack_per_packet * d.reverse.len() as f64;
            // Link events per hop, the sends, a start, and the retransmission timer.
            n += packets * hops + d.sends + 1.0 + if d.sends == 0.0 { d.seconds / 0.2 + packets * 0.1 } else { 0.0 };
        }
        let field = if sc.flows[i].transport.as_deref() == Some("udp") { format!("flows[{i}].udp") } else { "duration".to_string() };
        shares.push((field, n));
    }
    for (i, s) in sc.series.iter().enumerate() {
        shares.push((format!("series[{i}].interval"), series_count(sc, s) * series_points(s, duration)));
    }
    for (i, l) in links.iter().enumerate() {
        if let Some((period, key)) = l.queue.discipline().as_aqm_ref().update_period() {
            let field = queues.get(i).map_or_else(|| format!("the queue of {}", l.name), |(queue, _)| format!("{queue}.{key}"));
            shares.push((field, duration / period.as_secs_f64().max(1e-9)));
        }
    }
    shares.push(("failures".into(), 2.0 * sc.failures.len() as f64 * (1.0 + net.nodes.len() as f64)));
    shares
}
