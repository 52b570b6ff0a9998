//! Checks a parsed scenario and wires the network, flows, failures and series.
//! Errors are `(field path, message)`; `load` adds the file name.

use super::budget::{self, Limits};
use super::{expand_names, select_flows};
use crate::app::{Period, UdpPattern, UdpSource};
use crate::engine::{Flow, Origins, Simulation, Transport};
use crate::net::{Link, LinkId, Network, Node, NodeId, NodeKind, NodeStats, Routes};
use crate::queue::{self, fifo::MAX_AREAS, Discipline, EgressQueue, Limit, QueueContext};
use crate::rdp::{self, RdpReceiver, RdpSender};
use crate::router::{BuildContext, Mechanism};
pub use crate::settings::error::{fail, BuildError};
use crate::settings::external::Site;
use crate::settings::profile::{self, Profile};
use crate::settings::schema::{DelayedAck, FlowSpec, LinkSpec, PcapSpec, QueueSpec, Scenario, SeriesSpecToml};
use crate::settings::units::num;
use crate::signal::SignalPolicy;
use crate::sim::{Dur, Rng, SimTime};
use crate::stats::{SeriesSpec, SeriesTarget};
use crate::tcp::accecn::{self, EcnSupport, Negotiated};
use crate::tcp::cc::{self, CcContext, EcnUse};
use crate::tcp::{
    EcnAnswered, EcnEcho, EcnResponse, Endpoints, FullAck, NewRenoConfig, PartialAckTimer, ReceiverConfig, RenoConfig, RtoMinOn, RttArithmetic, SenderConfig,
    SsthreshFrom, TcpReceiver, TcpSender,
};
use crate::trace::{PcapFormat, Tracer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The largest TCP window, bytes: 2^30, RFC 7323's limit with the largest window scale
/// (14), well inside half the 32-bit sequence space that wrap-around comparison needs.
/// Bounds the receiver's window and the initial congestion window.
pub const MAX_WINDOW_BYTES: u64 = 1 << 30;

/// Relative `[[pcap]]` file names are taken from `out_dir` (the current directory if None).
pub fn build(sc: &Scenario, seed: Option<u64>, out_dir: Option<&Path>) -> Result<Simulation, BuildError> {
    build_with(sc, seed, out_dir, &Limits::default())
}

/// [`build`], refusing a scenario that needs more memory or events than `limits` allow
/// (see [`budget`](super::budget)).
pub fn build_with(sc: &Scenario, seed: Option<u64>, out_dir: Option<&Path>, limits: &Limits) -> Result<Simulation, BuildError> {
    let seed = seed.unwrap_or(sc.seed);
    if sc.duration.0 <= 0.0 {
        return fail("duration", "must be positive");
    }
    if sc.warmup.0 >= sc.duration.0 {
        return fail("warmup", format!("must be shorter than the duration ({} s)", num(sc.duration.0)));
    }
    budget::check_nodes(sc, limits)?;
    let mut net = Network::default();
    let mut ids: HashMap<String, NodeId> = HashMap::new();
    for (field, list, kind) in [("hosts", &sc.hosts, NodeKind::Host), ("routers", &sc.routers, NodeKind::Router)] {
        for (i, pattern) in list.iter().enumerate() {
            let path = format!("{field}[{i}]");
            for name in expand_names(pattern).or_else(|m| fail(&path, m))? {
                if name.is_empty() || name.contains("->") {
                    return fail(&path, format!("invalid node name {name:?}"));
                }
                if ids.insert(name.clone(), net.nodes.len() as NodeId).is_some() {
                    return fail(&path, format!("duplicate node name {name:?}"));
                }
                net.nodes.push(Node { name, kind, stats: NodeStats::default() });
            }
        }
    }
    if net.nodes.is_empty() {
        return fail("hosts", "the scenario has no nodes");
    }
    budget::check_memory(sc, &ids, limits)?;
    let memory_guard = if limits.force { None } else { crate::engine::MemoryGuard::new(limits.max_memory) };
    let node =
        |path: &str, name: &str| -> Result<NodeId, BuildError> { ids.get(name).copied().ok_or_else(|| (path.to_string(), format!("unknown node {name:?}"))) };

    // Every link reserved at once rather than grown by doubling: a link is 960 bytes, and
    // each growth of a large vector is a copy into memory not yet written (`huge_pages`).
    // Where the allocator grants it, as for the flows: a forced run too large for memory
    // grows them instead.
    let directions = budget::link_directions(sc);
    let _ = net.links.try_reserve_exact(directions);
    let mut link_queues = Vec::new();
    let _ = link_queues.try_reserve_exact(directions);
    for (i, spec) in sc.links.iter().enumerate() {
        add_links(&mut net, &mut link_queues, spec, &format!("links[{i}]"), &node, seed, sc.profile)?;
    }
    if !sc.report.queue_distributions {
        net.links.iter_mut().for_each(|l| l.queue.keep_no_distributions());
    }
    let mut link_ids: HashMap<String, LinkId> = HashMap::new();
    for (i, l) in net.links.iter().enumerate() {
        if link_ids.insert(l.name.clone(), i as LinkId).is_some() {
            return fail("links", format!("two links named {:?} (the same direction between the same nodes)", l.name));
        }
    }

    let mut flows = Vec::new();
    let mut groups: HashMap<String, (usize, usize)> = HashMap::new();
    let mut group_ranges = Vec::with_capacity(sc.flows.len());
    for (i, spec) in sc.flows.iter().enumerate() {
        let path = format!("flows[{i}]");
        let group = spec.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let first = flows.len();
        add_flows(&mut flows, spec, &group, &path, &node, seed, sc.profile)?;
        group_ranges.push((first, flows.len()));
        if groups.insert(group.clone(), (first, flows.len())).is_some() {
            return fail(format!("{path}.name"), format!("duplicate flow group name {group:?}"));
        }
    }

    // Routes toward every flow end point; both directions must be reachable for TCP.
    let mut dests: Vec<NodeId> = flows.iter().flat_map(|f: &Flow| [f.src, f.dst]).collect();
    dests.sort_unstable();
    dests.dedup();
    net.destinations = dests;
    net.routes = Routes::compute(net.nodes.len(), &net.links, &net.destinations);
    for (i, spec) in sc.flows.iter().enumerate() {
        let group = spec.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let (a, b) = groups[&group];
        for f in &flows[a..b] {
            let two_way = matches!(f.transport, Transport::Tcp { .. } | Transport::Rdp { .. });
            let pairs: &[(NodeId, NodeId)] = if two_way { &[(f.src, f.dst), (f.dst, f.src)] } else { &[(f.src, f.dst)] };
            for &(x, y) in pairs {
                if net.routes.path(&net.links, x, y).is_none() {
                    let (xn, yn) = (&net.nodes[x as usize].name, &net.nodes[y as usize].name);
                    return fail(format!("flows[{i}]"), format!("{yn} is unreachable from {xn}"));
                }
            }
        }
    }

    let stop = SimTime::from_secs_f64(sc.duration.0);
    let mut link_events = Vec::new();
    for (i, f) in sc.failures.iter().enumerate() {
        let path = format!("failures[{i}]");
        let targets: Vec<LinkId> = match (&f.link, &f.between) {
            (Some(name), None) => {
                vec![*link_ids.get(name).ok_or_else(|| (format!("{path}.link"), format!("unknown link {name:?} (links are named \"A->B\")")))?]
            }
            (None, Some([a, b])) => {
                let ab = link_ids.get(&format!("{a}->{b}"));
                let ba = link_ids.get(&format!("{b}->{a}"));
                match (ab, ba) {
                    (Some(&x), Some(&y)) => vec![x, y],
                    _ => return fail(format!("{path}.between"), format!("no duplex link between {a:?} and {b:?}")),
                }
            }
            _ => return fail(&path, "give exactly one of `link` or `between`"),
        };
        for (field, d) in [("down", Some(&f.down)), ("duration", f.duration.as_ref())] {
            if let Some(m) = d.and_then(|d| d.check()) {
                return fail(format!("{path}.{field}"), m);
            }
        }
        let mut rng = Rng::stream(seed, &format!("failure/{i}"));
        let down = SimTime::ZERO + f.down.draw(&mut rng);
        let up = f.duration.map(|d| down + d.draw(&mut rng));
        for &l in &targets {
            link_events.push((down, l, false));
            if let Some(up) = up {
                link_events.push((up, l, true));
            }
        }
    }

    let mut series = Vec::new();
    let mut series_paths = Vec::new();
    for (i, s) in sc.series.iter().enumerate() {
        add_series(&mut series, s, &format!("series[{i}]"), &groups, &flows, &link_ids)?;
        series_paths.resize(series.len(), format!("series[{i}]"));
    }
    budget::check_events(sc, &net, &flows, &group_ranges, &link_queues, limits)?;
    let origins = Origins {
        flow_groups: group_ranges.iter().enumerate().map(|(i, &(a, _))| (a as u32, format!("flows[{i}]"))).collect(),
        links: link_queues.iter().map(|(qpath, _)| qpath.split('.').next().unwrap_or_default().to_string()).collect(),
        series: series_paths,
    };

    let cx = BuildContext { scenario: sc, net: &net, seed, node_ids: &ids, link_ids: &link_ids, link_queues: &link_queues };
    let mechanisms = Mechanism::build_all(&cx)?;
    let trace = make_tracer(&sc.pcap, &net, &ids, &link_ids, out_dir)?;
    let packet_log = super::packet_log::build(sc.packet_log.as_ref(), &net, &ids, &link_ids, &groups, flows.len())?;
    let name = sc.name.clone().unwrap_or_else(|| "scenario".into());
    let warmup = SimTime::from_secs_f64(sc.warmup.0);
    let mut sim = Simulation::new(name, seed, net, flows, stop, warmup, series, link_events);
    sim.memory_guard = memory_guard;
    for m in mechanisms {
        sim.add_mechanism(m);
    }
    sim.set_trace(trace);
    sim.origins = origins;
    sim.profile = sc.profile;
    sim.packet_log = packet_log;
    Ok(sim)
}

/// Default `[[pcap]]` snap length: the IPv4 and TCP or UDP headers and then some.
pub const DEFAULT_SNAPLEN: u32 = 96;

/// The captures of the `[[pcap]]` tables, their files created; None when there are none.
fn make_tracer(
    specs: &[PcapSpec],
    net: &Network,
    ids: &HashMap<String, NodeId>,
    link_ids: &HashMap<String, LinkId>,
    out_dir: Option<&Path>,
) -> Result<Option<Box<Tracer>>, BuildError> {
    if specs.is_empty() {
        return Ok(None);
    }
    let mut tracer = Tracer::new(net.links.len());
    let mut paths: Vec<PathBuf> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let p = format!("pcap[{i}]");
        let mut links: Vec<LinkId> = Vec::new();
        for (j, name) in spec.links.iter().enumerate() {
            let l = *link_ids.get(name).ok_or_else(|| (format!("{p}.links[{j}]"), format!("unknown link {name:?} (links are named \"A->B\")")))?;
            if !links.contains(&l) {
                links.push(l);
            }
        }
        for (j, pattern) in spec.nodes.iter().enumerate() {
            for name in expand(&format!("{p}.nodes[{j}]"), pattern)? {
                let n = *ids.get(&name).ok_or_else(|| (format!("{p}.nodes[{j}]"), format!("unknown node {name:?}")))?;
                for (l, link) in net.links.iter().enumerate() {
                    if (link.from == n || link.to == n) && !links.contains(&(l as LinkId)) {
                        links.push(l as LinkId);
                    }
                }
            }
        }
        if links.is_empty() {
            return fail(&p, "captures no link: give `links` or `nodes`");
        }
        if spec.file.trim().is_empty() {
            return fail(format!("{p}.file"), "must name a file");
        }
        let format = match spec.format.as_deref() {
            Some("pcap") => PcapFormat::Pcap,
            Some("pcapng") => PcapFormat::PcapNg,
            None if spec.file.ends_with(".pcap") => PcapFormat::Pcap,
            None => PcapFormat::PcapNg,
            Some(other) => return fail(format!("{p}.format"), format!("unknown format {other:?} (pcap or pcapng)")),
        };
        let snaplen = spec.snaplen.unwrap_or(DEFAULT_SNAPLEN);
        if !(1..=65535).contains(&snaplen) {
            return fail(format!("{p}.snaplen"), format!("must be between 1 and 65535 bytes, got {snaplen}"));
        }
        let path = match out_dir {
            Some(dir) => dir.join(&spec.file),
            None => PathBuf::from(&spec.file),
        };
        if let Some(k) = paths.iter().position(|q| *q == path) {
            return fail(format!("{p}.file"), format!("{} is also the file of pcap[{k}]", path.display()));
        }
        let names: Vec<String> = links.iter().map(|&l| net.links[l as usize].name.clone()).collect();
        tracer.add(path.clone(), format, snaplen, &links, &names).map_err(|e| (format!("{p}.file"), format!("cannot create {}: {e}", path.display())))?;
        paths.push(path);
    }
    Ok(Some(Box::new(tracer)))
}

/// Pairs two expanded name lists: element-wise if equally long, or one against many.
fn pair_up(path: &str, a: &[String], b: &[String]) -> Result<Vec<(String, String)>, BuildError> {
    match (a.len(), b.len()) {
        (x, y) if x == y => Ok(a.iter().cloned().zip(b.iter().cloned()).collect()),
        (1, _) => Ok(b.iter().map(|y| (a[0].clone(), y.clone())).collect()),
        (_, 1) => Ok(a.iter().map(|x| (x.clone(), b[0].clone())).collect()),
        (x, y) => fail(path, format!("cannot pair {x} names with {y} names (give equal counts or a single name on one side)")),
    }
}

fn expand(path: &str, pattern: &str) -> Result<Vec<String>, BuildError> {
    expand_names(pattern).or_else(|m| fail(path, m))
}

/// Adds the links of `spec` to `net`, and the path and table of each one's queue to `queues`.
fn add_links(
    net: &mut Network,
    queues: &mut Vec<(String, Option<QueueSpec>)>,
    spec: &LinkSpec,
    path: &str,
    node: &dyn Fn(&str, &str) -> Result<NodeId, BuildError>,
    seed: u64,
    profile: Profile,
) -> Result<(), BuildError> {
    let (pairs, duplex) = match (&spec.between, &spec.from, &spec.to) {
        (Some([a, b]), None, None) => (pair_up(&format!("{path}.between"), &expand(path, a)?, &expand(path, b)?)?, true),
        (None, Some(a), Some(b)) => (pair_up(path, &expand(path, a)?, &expand(path, b)?)?, false),
        _ => return fail(path, "give either `between = [A, B]` (duplex) or `from` and `to` (one direction)"),
    };
    if !(0.0..1.0).contains(&spec.loss) {
        return fail(format!("{path}.loss"), format!("must be in [0, 1), got {}", num(spec.loss)));
    }
    if spec.cost == 0 {
        return fail(format!("{path}.cost"), "must be at least 1");
    }
    if let Some(m) = spec.delay.check() {
        return fail(format!("{path}.delay"), m);
    }
    if spec.queue_reverse.is_some() && !duplex {
        return fail(format!("{path}.queue_reverse"), "only for duplex links (`between`)");
    }
    let field = if duplex { "between" } else { "from" };
    for (a, b) in pairs {
        let (x, y) = (node(&format!("{path}.{field}"), &a)?, node(&format!("{path}.{field}"), &b)?);
        if x == y {
            return fail(format!("{path}.{field}"), format!("a link from {a:?} to itself"));
        }
        let delay = spec.delay.draw(&mut Rng::stream(seed, &format!("delay/{a}-{b}")));
        let mut dirs = vec![(x, y, spec.queue.as_ref(), "queue")];
        if duplex {
            dirs.push((y, x, spec.queue_reverse.as_ref().or(spec.queue.as_ref()), if spec.queue_reverse.is_some() { "queue_reverse" } else { "queue" }));
        }
        for (from, to, q, qfield) in dirs {
            let name = format!("{}->{}", net.nodes[from as usize].name, net.nodes[to as usize].name);
            let qpath = format!("{path}.{qfield}");
            let queue = make_queue(q.cloned().unwrap_or_default(), &qpath, (spec.rate.bps(), delay), seed, &name, profile)?;
            queues.push((qpath, q.cloned()));
            let loss_rng = Rng::stream(seed, &format!("loss/{name}"));
            net.links.push(Link::new(name, from, to, spec.rate.bps(), delay, spec.cost, spec.loss, queue, loss_rng));
        }
    }
    Ok(())
}

/// A window of `bytes` at `path` (the receiver's, the send buffer): from one segment of
/// `mss` to 2^30 bytes, RFC 7323's largest window.
fn window_bytes(path: &str, bytes: u32, mss: u32) -> Result<u32, BuildError> {
    if bytes < mss || bytes as u64 > MAX_WINDOW_BYTES {
        return fail(path, format!("must be from one segment ({mss} bytes) to 2^30 bytes (1073741824), got {bytes}"));
    }
    Ok(bytes)
}

fn make_queue(q: QueueSpec, path: &str, (rate_bps, delay): (u64, Dur), seed: u64, link: &str, profile: Profile) -> Result<EgressQueue, BuildError> {
    let limit = match (q.limit, q.limit_bytes) {
        (Some(_), Some(_)) => return fail(path, "give `limit` (packets) or `limit_bytes`, not both"),
        (Some(0), _) => return fail(format!("{path}.limit"), "must be at least 1 packet"),
        (Some(n), None) => Limit::Packets(n),
        (None, Some(0)) => return fail(format!("{path}.limit_bytes"), "must be positive"),
        (None, Some(b)) => Limit::Bytes(b),
        (None, None) => Limit::Packets(QueueSpec::DEFAULT_LIMIT),
    };
    let ctx = QueueContext { link_bps: rate_bps, limit, profile, delay };
    let discipline = make_discipline(&q, path, &ctx, || Site { name: link.to_string(), rng: Rng::stream(seed, &format!("aqm/{link}")) })?;
    // ns-2's DropTail drops an arrival that would bring the waiting queue to its limit.
    let ns2_limit = match q.limit_rule.as_deref() {
        None => profile == Profile::Ns2 && discipline.name() == queue::droptail::REGISTRATION.name,
        Some("waiting") => false,
        Some("ns2") => true,
        Some(other) => return fail(format!("{path}.limit_rule"), format!("unknown rule {other:?} (expected \"waiting\" or \"ns2\")")),
    };
    let limit = match (ns2_limit, limit) {
        (false, limit) => limit,
        (true, Limit::Packets(n)) => Limit::Packets(n - 1),
        (true, Limit::Bytes(b)) => Limit::Bytes(b - 1),
    };
    let policy = match q.signal.as_deref().map(|name| (name, SignalPolicy::from_name(name))) {
        None => SignalPolicy::default(),
        Some((_, Some(policy))) => policy,
        Some((other, None)) => {
            let names: Vec<String> = SignalPolicy::NAMES.iter().map(|(n, _)| format!("{n:?}")).collect();
            let (last, init) = names.split_last().expect("there are policies");
            return fail(format!("{path}.signal"), format!("unknown signal {other:?} (expected {} or {last})", init.join(", ")));
        }
    };
    let areas = q.drop_areas.unwrap_or_default();
    if areas.len() >= MAX_AREAS {
        return fail(format!("{path}.drop_areas"), format!("at most {} boundaries", MAX_AREAS - 1));
    }
    if areas.windows(2).any(|w| w[0] >= w[1]) {
        return fail(format!("{path}.drop_areas"), "boundaries must be strictly ascending");
    }
    Ok(EgressQueue::new(limit, discipline, policy, Rng::stream(seed, &format!("aqm/{link}")), areas))
}

/// The discipline `q` names, built by its registration from its own keys (a plug-in, for
/// `site`: the link and the stream the queue's own disciplines draw from).
fn make_discipline(q: &QueueSpec, path: &str, ctx: &QueueContext, site: impl FnOnce() -> Site) -> Result<Discipline, BuildError> {
    let name = q.discipline.as_deref().unwrap_or(queue::spec::DEFAULT_DISCIPLINE);
    queue::choose::build(name, &q.settings, ctx, QueueSpec::COMMON_KEYS, site).map_err(|e| (e.path_under(path), e.message))
}

fn add_flows(
    flows: &mut Vec<Flow>,
    spec: &FlowSpec,
    group: &str,
    path: &str,
    node: &dyn Fn(&str, &str) -> Result<NodeId, BuildError>,
    seed: u64,
    profile: Profile,
) -> Result<(), BuildError> {
    let pairs = pair_up(path, &expand(&format!("{path}.from"), &spec.from)?, &expand(&format!("{path}.to"), &spec.to)?)?;
    if spec.count == 0 {
        return fail(format!("{path}.count"), "must be at least 1");
    }
    if let Some(m) = spec.start.as_ref().and_then(|s| s.check()) {
        return fail(format!("{path}.start"), m);
    }
    let transport = spec.transport.as_deref().unwrap_or("tcp");
    let ttl = spec.ttl.unwrap_or(64);
    if ttl == 0 {
        return fail(format!("{path}.ttl"), "must be at least 1");
    }
    let stop = spec.stop.map(|s| SimTime::from_secs_f64(s.0));
    let jitter = spec.jitter.map_or(Dur::ZERO, |j| j.dur());
    // A flow holds its TCP ends (about 1.3 kB): the group's room at once rather than by
    // doubling, where the allocator grants it (a forced run too large for memory grows).
    let _ = flows.try_reserve(pairs.len().saturating_mul(spec.count as usize));
    let mut k = 0u32;
    for (a, b) in &pairs {
        let src = node(&format!("{path}.from"), a)?;
        let dst = node(&format!("{path}.to"), b)?;
        if src == dst {
            return fail(path, format!("a flow from {a:?} to itself"));
        }
        for _ in 0..spec.count {
            let idx = flows.len() as u32;
            let ends = Endpoints { flow: idx, sender: src, receiver: dst, sport: 10_000 + (idx % 50_000) as u16, dport: 80 };
            let mut start_rng = Rng::stream(seed, &format!("start/{group}/{k}"));
            let start = SimTime::ZERO + spec.start.map_or(Dur::ZERO, |s| s.draw(&mut start_rng));
            let transport = match transport {
                "tcp" => tcp_transport(spec, path, ends, ttl, profile, Rng::stream(seed, &format!("tick/{group}/{k}")), || Site {
                    name: format!("{group}[{k}]"),
                    rng: Rng::stream(seed, &format!("cc/{group}/{k}")),
                })?,
                "udp" => udp_transport(spec, path, ends, ttl, Rng::stream(seed, &format!("udp/{group}/{k}")))?,
                "rdp" => rdp_transport(spec, path, ends, ttl)?,
                other => return fail(format!("{path}.transport"), format!("unknown transport {other:?} (expected \"tcp\", \"udp\" or \"rdp\")")),
            };
            let jitter_rng = Rng::stream(seed, &format!("jitter/{group}/{k}"));
            flows.push(Flow::new(group.to_string(), k, src, dst, start, stop, transport, jitter, jitter_rng));
            k += 1;
        }
    }
    Ok(())
}

/// The TCP sender and receiver of one flow; defaults as `profile` has them
/// (`settings::profile` lists them). `tick_rng` draws the phase of ns-2's RTT clock.
/// `site` names the flow and gives its random stream, for a plug-in controller.
fn tcp_transport(
    spec: &FlowSpec,
    path: &str,
    ends: Endpoints,
    ttl: u8,
    profile: Profile,
    mut tick_rng: Rng,
    site: impl FnOnce() -> Site,
) -> Result<Transport, BuildError> {
    only_table(spec, path, "tcp")?;
    let t = spec.tcp.clone().unwrap_or_default();
    let data_bytes = reliable_app(spec, path, "TCP")?;
    let tp = format!("{path}.tcp");
    let d = profile::TcpDefaults::of(profile);
    let choose = |field: &str, given: Option<&str>, default: &'static str, names: &[&'static str]| -> Result<&'static str, BuildError> {
        let name = given.unwrap_or(default);
        names.iter().find(|n| **n == name).copied().ok_or_else(|| {
            let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
            (format!("{tp}.{field}"), format!("unknown value {name:?} (expected {})", quoted.join(" or ")))
        })
    };
    let ssthresh_from = match choose("ssthresh_from", t.ssthresh_from.as_deref(), d.ssthresh_from, &["flight", "window", "cwnd"])? {
        "window" => SsthreshFrom::Window,
        "cwnd" => SsthreshFrom::Cwnd,
        _ => SsthreshFrom::Flight,
    };
    let exact_increase = choose("ca_increase", t.ca_increase.as_deref(), d.ca_increase, &["floor", "exact"])? == "exact";
    let byte_counting = t.byte_counting.unwrap_or(d.byte_counting);
    let reno = RenoConfig { ssthresh_from, exact_increase, byte_counting, ..RenoConfig::default() };
    let full_ack = match choose("full_ack", t.full_ack.as_deref(), d.full_ack, &["min-flight", "ssthresh"])? {
        "ssthresh" => FullAck::Ssthresh,
        _ => FullAck::MinFlight,
    };
    // A variant is a congestion controller with the loss recovery it pairs with, chosen from
    // the registry (tcp/cc/mod.rs); its own keys are in the table named after it.
    let variant = t.variant.as_deref().unwrap_or(cc::spec::DEFAULT_VARIANT);
    let Some(reg) = cc::variant::Variant::find(variant) else {
        return fail(format!("{tp}.variant"), format!("unknown variant {variant:?} (expected {})", cc::variant::names()));
    };
    for (name, value) in &t.controllers {
        if cc::variant::Variant::find(name).is_none() {
            return fail(
                format!("{tp}.{name}"),
                format!("unknown field `{name}`: not a key of `tcp`, nor a variant's table (variants: {})", cc::variant::names()),
            );
        }
        if name != reg.name() {
            return fail(format!("{tp}.{name}"), format!("only for `variant = {name:?}`, not for variant {variant:?}"));
        }
        if !value.is_table() {
            return fail(format!("{tp}.{name}"), format!("must be a table of variant {name:?}'s settings (`{name}.KEY = value`)"));
        }
    }
    let own = t.controllers.get(reg.name()).and_then(toml::Value::as_table).cloned().unwrap_or_default();
    let ctx = CcContext { window: NewRenoConfig { reno, full_ack }, full_ack_given: t.full_ack.is_some(), profile };
    let cc = reg.build(&own, &ctx, site).map_err(|e| (e.path_under(&tp), e.message))?;
    let recovery = reg.recovery();
    let per_packet_ecn = matches!(reg.ecn(), EcnUse::PerPacket | EcnUse::L4s);
    let l4s = reg.ecn() == EcnUse::L4s;
    if per_packet_ecn && t.ecn == Some(false) {
        return fail(format!("{tp}.ecn"), format!("variant {variant:?} needs ECN (it turns it on; leave `ecn` out or set it true)"));
    }
    let mut cfg = SenderConfig { recovery, cc, data_bytes, ttl, ..SenderConfig::default() };
    if let Some(mss) = t.mss {
        if !(1..=65_000).contains(&mss) {
            return fail(format!("{tp}.mss"), format!("must be between 1 and 65000 bytes, got {mss}"));
        }
        cfg.mss = mss;
    }
    let w = t.init_cwnd.unwrap_or(d.init_cwnd);
    if w == 0 || w as u64 * cfg.mss as u64 > MAX_WINDOW_BYTES {
        let most = MAX_WINDOW_BYTES / cfg.mss as u64;
        return fail(format!("{tp}.init_cwnd"), format!("must be from 1 to {most} segments (at most 2^30 bytes of {} each), got {w}", cfg.mss));
    }
    cfg.init_cwnd = w;
    if let Some(r) = t.min_rto {
        cfg.min_rto = r.dur();
    }
    cfg.initial_rto = match t.initial_rto {
        Some(r) if r.0 <= 0.0 => return fail(format!("{tp}.initial_rto"), "must be positive"),
        Some(r) => r.dur(),
        None => d.initial_rto,
    };
    cfg.clock_granularity = match t.clock_granularity {
        Some(g) if g.0 <= 0.0 => return fail(format!("{tp}.clock_granularity"), "must be positive"),
        Some(g) => g.dur(),
        None => d.clock_granularity,
    };
    cfg.rtt_arithmetic = match choose("rtt_arithmetic", t.rtt_arithmetic.as_deref(), d.rtt_arithmetic, &["rfc6298", "ns2"])? {
        "ns2" => RttArithmetic::Ns2Ticks { phase: Dur((tick_rng.uniform() * cfg.clock_granularity.as_nanos() as f64) as u64) },
        _ => RttArithmetic::Rfc6298,
    };
    // Linux's variance term is RFC 6298's arithmetic; the profile's default yields to ns-2's
    // ticks, an explicit `variance` is refused.
    let ticks = cfg.rtt_arithmetic != RttArithmetic::Rfc6298;
    cfg.rto_min_on = match choose("rto_min_on", t.rto_min_on.as_deref(), if ticks { "rto" } else { d.rto_min_on }, &["rto", "variance"])? {
        "variance" if ticks => return fail(format!("{tp}.rto_min_on"), "\"variance\" only with `rtt_arithmetic = \"rfc6298\"`"),
        "variance" => RtoMinOn::Variance,
        _ => RtoMinOn::Rto,
    };
    cfg.sack = t.sack.unwrap_or(d.sack);
    cfg.sack_clear_on_timeout = match t.sack_after_timeout.as_deref() {
        Some(_) if !cfg.sack => return fail(format!("{tp}.sack_after_timeout"), "only with `sack = true`"),
        None | Some("keep") => false,
        Some("clear") => true,
        Some(other) => return fail(format!("{tp}.sack_after_timeout"), format!("unknown value {other:?} (expected \"keep\" or \"clear\")")),
    };
    if cfg.sack && t.partial_ack_timer.is_some() {
        return fail(format!("{tp}.partial_ack_timer"), "only without `sack` (SACK recovery restarts the timer on every new ACK, RFC 6298 (5.3))");
    }
    cfg.partial_ack_timer = match t.partial_ack_timer.as_deref().unwrap_or("impatient") {
        "impatient" => PartialAckTimer::Impatient,
        "slow-but-steady" => PartialAckTimer::SlowButSteady,
        other => return fail(format!("{tp}.partial_ack_timer"), format!("unknown timer rule {other:?} (expected \"impatient\" or \"slow-but-steady\")")),
    };
    cfg.reno_recover_check = t.reno_recover_check.unwrap_or(d.reno_recover_check);
    cfg.limited_transmit = t.limited_transmit.unwrap_or(d.limited_transmit);
    cfg.limited_transmit_resends = t.limited_transmit_resends.unwrap_or(d.limited_transmit_resends);
    cfg.fast_retransmit_resets_timer = t.fast_retransmit_resets_timer.unwrap_or(d.fast_retransmit_resets_timer);
    cfg.head_retransmit_resets_timer = t.head_retransmit_resets_timer.unwrap_or(d.head_retransmit_resets_timer);
    cfg.recover_again = t.recover_again.unwrap_or(d.recover_again);
    cfg.ecn = t.ecn.unwrap_or(per_packet_ecn);
    // The handshake (tcp/accecn.rs): what the sender asks for against what the receiver
    // supports; the outcome configures both ends.
    let receiver = match choose("receiver_ecn", t.receiver_ecn.as_deref(), "accecn", &["accecn", "rfc3168", "none"])? {
        "none" => EcnSupport::None,
        "rfc3168" => EcnSupport::Rfc3168,
        _ => EcnSupport::AccEcn,
    };
    let asks_accecn = t.accecn.unwrap_or(l4s);
    if asks_accecn && !cfg.ecn {
        return fail(format!("{tp}.accecn"), "only with `ecn = true` (Accurate ECN is ECN's feedback)");
    }
    let client = match (cfg.ecn, asks_accecn) {
        (false, _) => EcnSupport::None,
        (true, false) => EcnSupport::Rfc3168,
        (true, true) => EcnSupport::AccEcn,
    };
    let negotiated = accecn::negotiate(client, receiver);
    cfg.ecn = negotiated != Negotiated::NoEcn;
    cfg.accecn = negotiated == Negotiated::AccEcn;
    cfg.ect1 = l4s;
    cfg.ecn_response = match choose("ecn_response", t.ecn_response.as_deref(), d.ecn_response, &["immediate", "cwr"])? {
        "cwr" => EcnResponse::Cwr,
        _ => EcnResponse::Immediate,
    };
    cfg.ecn_answered_until = match choose("ecn_answered", t.ecn_answered.as_deref(), d.ecn_answered, &["window", "next-reduction"])? {
        "next-reduction" => EcnAnswered::NextReduction,
        _ => EcnAnswered::Window,
    };
    cfg.ecn_at_once_after_timeout = choose("ecn_after_timeout", t.ecn_after_timeout.as_deref(), d.ecn_after_timeout, &["next-window", "at-once"])? == "at-once";
    cfg.cwr_on_retransmit = t.cwr_on_retransmit.unwrap_or(d.cwr_on_retransmit);
    // PRR paces SACK recovery (RFC 6937 counts pipe by RFC 6675) and a `cwr` ECN response.
    if t.prr == Some(true) && !cfg.sack && cfg.ecn_response != EcnResponse::Cwr {
        return fail(format!("{tp}.prr"), "only with `sack = true` or `ecn_response = \"cwr\"` (PRR counts what is in flight by RFC 6675's pipe)");
    }
    cfg.prr = t.prr.unwrap_or(d.prr);
    // RACK-TLP reads the SACK scoreboard (RFC 8985 section 4); the profile's default yields
    // to `sack = false`, an explicit `true` is refused.
    if t.rack == Some(true) && !cfg.sack {
        return fail(format!("{tp}.rack"), "only with `sack = true` (RACK-TLP detects losses from SACKed segments)");
    }
    cfg.rack = t.rack.unwrap_or(d.rack && cfg.sack);
    cfg.ect_on_retransmit = t.ect_on_retransmit.unwrap_or(d.ect_on_retransmit || per_packet_ecn);
    cfg.acc = t.acc.unwrap_or(false);
    // A controller that stamps a congestion header (XCP, RCP) holds it where the timestamps
    // option would be: the profile's default yields, an explicit `true` is refused.
    let stamps = crate::tcp::cc::Controller::header(&cfg.cc.build(cfg.mss, cfg.init_cwnd, cfg.init_ssthresh)).is_some();
    cfg.timestamps = t.timestamps.unwrap_or(d.timestamps && !stamps);
    if cfg.timestamps && stamps {
        return fail(
            format!("{tp}.timestamps"),
            format!("variant {variant:?} carries its congestion header where the timestamps option is held; set `timestamps = false`"),
        );
    }
    cfg.isn = t.isn.unwrap_or(0);
    let ecn_echo = match (cfg.accecn, per_packet_ecn && !l4s) {
        (true, _) => EcnEcho::AccEcn,
        (false, true) => EcnEcho::PerPacket,
        (false, false) => EcnEcho::Rfc3168,
    };
    let mut rcfg = ReceiverConfig { ttl, das: t.das.unwrap_or(false), sack: cfg.sack, ecn_echo, ..ReceiverConfig::default() };
    if let Some(w) = t.rwnd {
        rcfg.rwnd = window_bytes(&format!("{tp}.rwnd"), w, cfg.mss)?;
    }
    rcfg.delayed_ack = match t.delayed_ack {
        None => d.delayed_ack,
        Some(DelayedAck::Enabled(false)) => None,
        Some(DelayedAck::Enabled(true)) => Some(Dur::from_millis(100)),
        Some(DelayedAck::Timeout(d)) if d.0 > 0.0 => Some(d.dur()),
        Some(DelayedAck::Timeout(_)) => return fail(format!("{tp}.delayed_ack"), "timeout must be positive"),
    };
    if let Some(b) = t.send_buffer {
        cfg.send_buffer = std::num::NonZeroU32::new(window_bytes(&format!("{tp}.send_buffer"), b, cfg.mss)?);
    }
    let isn = cfg.isn;
    let rwnd = rcfg.rwnd;
    Ok(Transport::Tcp { tx: TcpSender::new(cfg, ends, rwnd), rx: TcpReceiver::new(rcfg, ends, isn) })
}

/// Fails on a table of another transport's options than `transport`'s.
fn only_table(spec: &FlowSpec, path: &str, transport: &str) -> Result<(), BuildError> {
    for (table, given) in [("tcp", spec.tcp.is_some()), ("udp", spec.udp.is_some()), ("rdp", spec.rdp.is_some())] {
        if given && table != transport {
            return fail(format!("{path}.{table}"), format!("only for `transport = \"{table}\"`"));
        }
    }
    Ok(())
}

/// The bytes a reliable transport's application sends: None for `bulk`, `bytes` for `finite`.
fn reliable_app(spec: &FlowSpec, path: &str, name: &str) -> Result<Option<u64>, BuildError> {
    match (spec.app.as_deref().unwrap_or("bulk"), spec.bytes) {
        ("bulk", None) => Ok(None),
        ("bulk", Some(_)) => fail(format!("{path}.bytes"), "only for `app = \"finite\"`"),
        ("finite", Some(0)) => fail(format!("{path}.bytes"), "must be positive"),
        ("finite", Some(b)) => Ok(Some(b)),
        ("finite", None) => fail(format!("{path}.bytes"), "required for `app = \"finite\"`"),
        (other, _) => fail(format!("{path}.app"), format!("unknown {name} application {other:?} (expected \"bulk\" or \"finite\")")),
    }
}

/// The RDP sender and receiver of one flow (`crate::rdp`).
fn rdp_transport(spec: &FlowSpec, path: &str, ends: Endpoints, ttl: u8) -> Result<Transport, BuildError> {
    only_table(spec, path, "rdp")?;
    let r = spec.rdp.clone().unwrap_or_default();
    let rp = format!("{path}.rdp");
    let mut cfg = rdp::SenderConfig { data_bytes: reliable_app(spec, path, "RDP")?, ttl, ..rdp::SenderConfig::default() };
    let mut rcfg = rdp::ReceiverConfig { ttl, ..rdp::ReceiverConfig::default() };
    if let Some(size) = r.segment_size {
        if !(1..=65_000).contains(&size) {
            return fail(format!("{rp}.segment_size"), format!("must be between 1 and 65000 bytes, got {size}"));
        }
        cfg.segment_size = size;
    }
    if let Some(m) = r.max_outstanding {
        if !(1..=u16::MAX as u32).contains(&m) {
            return fail(format!("{rp}.max_outstanding"), format!("must be between 1 and 65535 segments, got {m}"));
        }
        rcfg.max_outstanding = m as u16;
    }
    if let Some(w) = r.init_cwnd {
        if w == 0 {
            return fail(format!("{rp}.init_cwnd"), "must be at least 1 packet");
        }
        cfg.init_cwnd = w;
    }
    if let Some(t) = r.min_rto {
        cfg.min_rto = t.dur();
    }
    if let Some(t) = r.initial_rto {
        if t.0 <= 0.0 {
            return fail(format!("{rp}.initial_rto"), "must be positive");
        }
        cfg.initial_rto = t.dur();
    }
    if let Some(t) = r.close_wait {
        cfg.close_wait = t.dur();
        rcfg.close_wait = t.dur();
    }
    cfg.acc = r.acc.unwrap_or(true);
    cfg.obey_acc = r.obey_acc.unwrap_or(true);
    cfg.isn = r.isn.unwrap_or(0);
    // The receiver accepts the segments its sender makes: header, ACC extension, data.
    rcfg.max_segment = (rdp::wire::FIXED_HEADER + rdp::wire::ACC_AREA) as u16 + cfg.segment_size as u16;
    Ok(Transport::Rdp { tx: Box::new(RdpSender::new(cfg, ends)), rx: Box::new(RdpReceiver::new(rcfg, ends)) })
}

fn udp_transport(spec: &FlowSpec, path: &str, ends: Endpoints, ttl: u8, rng: Rng) -> Result<Transport, BuildError> {
    only_table(spec, path, "udp")?;
    if spec.bytes.is_some() {
        return fail(format!("{path}.bytes"), "only for TCP `app = \"finite\"`");
    }
    let Some(u) = &spec.udp else { return fail(format!("{path}.udp"), "required for `transport = \"udp\"` (at least `rate`)") };
    let up = format!("{path}.udp");
    let size = u.packet_size.unwrap_or(1000);
    if !(1..=65_000).contains(&size) {
        return fail(format!("{up}.packet_size"), format!("must be between 1 and 65000 bytes, got {size}"));
    }
    let period = |field: &str, d: Option<crate::settings::units::TimeDist>| -> Result<Period, BuildError> {
        use crate::settings::units::TimeDist;
        match d {
            None => fail(format!("{up}.{field}"), "required for `app = \"onoff\"`"),
            Some(TimeDist::Fixed(d)) if d.0 > 0.0 => Ok(Period::Constant(d.dur())),
            Some(TimeDist::Exponential { exponential }) if exponential.0 > 0.0 => Ok(Period::Exponential { mean: exponential.dur() }),
            Some(_) => fail(format!("{up}.{field}"), "must be a positive duration or { exponential = mean }"),
        }
    };
    let pattern = match spec.app.as_deref().unwrap_or("cbr") {
        "cbr" => UdpPattern::Constant,
        "poisson" => UdpPattern::Poisson,
        "onoff" => UdpPattern::OnOff { on: period("on", u.on)?, off: period("off", u.off)? },
        other => return fail(format!("{path}.app"), format!("unknown UDP application {other:?} (expected \"cbr\", \"onoff\" or \"poisson\")")),
    };
    if !matches!(pattern, UdpPattern::OnOff { .. }) && (u.on.is_some() || u.off.is_some()) {
        return fail(format!("{up}.on"), "only for `app = \"onoff\"`");
    }
    Ok(Transport::Udp(Box::new(UdpSource::new(ends, size, u.rate.bps(), pattern, ttl, rng))))
}

fn add_series(
    out: &mut Vec<SeriesSpec>,
    s: &SeriesSpecToml,
    path: &str,
    groups: &HashMap<String, (usize, usize)>,
    flows: &[Flow],
    links: &HashMap<String, LinkId>,
) -> Result<(), BuildError> {
    if s.interval.0 <= 0.0 {
        return fail(format!("{path}.interval"), "must be positive");
    }
    if s.max_points == 0 {
        return fail(format!("{path}.max_points"), "must be at least 1");
    }
    let interval_ns = s.interval.dur().as_nanos();
    let mut push = |name: String, target: SeriesTarget| out.push(SeriesSpec { name, target, interval_ns, max_points: s.max_points });
    let flow_kind = matches!(s.kind.as_str(), "cwnd" | "ssthresh" | "rtt" | "srtt" | "pacing_rate" | "goodput");
    let link_kind = matches!(s.kind.as_str(), "queue" | "queue_avg" | "max_p" | "drop_prob" | "link_rate" | "drops");
    if flow_kind {
        let Some(sel) = &s.flow else { return fail(format!("{path}.flow"), format!("required for kind {:?}", s.kind)) };
        let range = select_flows(sel, &format!("{path}.flow"), groups)?;
        for fi in range {
            let needs = match s.kind.as_str() {
                "goodput" => None,
                "cwnd" => matches!(flows[fi].transport, Transport::Udp(_)).then_some("a UDP flow, which has no window"),
                _ => (!matches!(flows[fi].transport, Transport::Tcp { .. })).then_some("not a TCP flow"),
            };
            if let Some(why) = needs {
                return fail(format!("{path}.flow"), format!("{} is {why}", flows[fi].name()));
            }
            let flow = fi as u32;
            let target = match s.kind.as_str() {
                "cwnd" => SeriesTarget::Cwnd { flow },
                "ssthresh" => SeriesTarget::Ssthresh { flow },
                "rtt" => SeriesTarget::Rtt { flow },
                "srtt" => SeriesTarget::Srtt { flow },
                "pacing_rate" => SeriesTarget::PacingRate { flow },
                _ => SeriesTarget::Goodput { flow },
            };
            push(format!("{} {}", s.kind, flows[fi].name()), target);
        }
    } else if link_kind {
        let Some(name) = &s.link else { return fail(format!("{path}.link"), format!("required for kind {:?}", s.kind)) };
        let &link = links.get(name).ok_or_else(|| (format!("{path}.link"), format!("unknown link {name:?} (links are named \"A->B\")")))?;
        let target = match s.kind.as_str() {
            "queue" => SeriesTarget::QueueLen { link },
            "queue_avg" => SeriesTarget::QueueAvg { link },
            "max_p" => SeriesTarget::MaxP { link },
            "drop_prob" => SeriesTarget::DropProb { link },
            "drops" => SeriesTarget::Drops { link },
            _ => SeriesTarget::LinkRate { link },
        };
        push(format!("{} {name}", s.kind), target);
    } else {
        return fail(
            format!("{path}.kind"),
            format!(
                "unknown series kind {:?} (expected cwnd, ssthresh, rtt, srtt, pacing_rate, goodput, queue, queue_avg, max_p, drop_prob, link_rate or drops)",
                s.kind
            ),
        );
    }
    Ok(())
}
