//! A scenario file read for a live run: the simulator's own builder makes the network, its
//! routes and its flows (so a live run forwards exactly as its simulated twin routes), and
//! the `[live]` table adds what only a live run needs.
//!
//! What is taken from the scenario, and how:
//!
//! - every host and router becomes a node process with a virtual address (10.a.b.c, the
//!   simulator's pcap addresses, `ccsim::packet::node_addr`);
//! - every link becomes an egress of its `from` node: shaped to its `rate`, delayed by its
//!   `delay`, lossy with its `loss`, its queue's `limit` (packets) the drop-tail threshold of
//!   the congestion-detecting socket. Only drop-tail queues run live (the paper's socket
//!   has no other discipline);
//! - a queue with `acc = true` has the congestion callback and the ACC monitor (with its
//!   `acc_rtt_floor` and `acc_filter_timeout`); every other queue drops silently;
//! - next hops are the simulator's routes (`ccsim::net::Routes`);
//! - each flow of transport `rdp` becomes an RDP connection from its source host to its
//!   destination host, started at its start time; each `udp` flow, the simulator's UDP
//!   source sending from its host at its rate (TCP flows are refused).

use ccsim::engine::{Simulation, Transport};
use ccsim::net::NodeKind;
use ccsim::queue::{Discipline, Limit};
use ccsim::rdp::{RdpReceiver, RdpSender};
use ccsim::router::acc::{Acc, MonitorConfig};
use ccsim::scenario::{self, ScenarioError};
use ccsim::sim::Dur;
use serde::Deserialize;
use std::net::SocketAddr;

/// The `[live]` table of a scenario; the simulator ignores it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveSpec {
    /// IP address the nodes bind when `nodes` does not name theirs (default 127.0.0.1);
    /// each picks a free port.
    #[serde(default)]
    pub bind: Option<String>,
    /// Fixed UDP addresses by node name ("R1" = "192.0.2.7:7001"), for nodes on several
    /// machines or network namespaces; every node of the scenario must then be named.
    #[serde(default)]
    pub nodes: std::collections::BTreeMap<String, String>,
    /// The MAC key of ACC controls and filter requests (at least 16 bytes of text). The
    /// environment variable `CCSIM_LIVE_KEY` replaces it. Without either, a run makes a
    /// random key for its nodes; a node started alone needs one.
    #[serde(default)]
    pub key: Option<String>,
    /// How long nodes keep running after the scenario's duration, to drain (default 1 s).
    #[serde(default)]
    pub grace: Option<ccsim::settings::units::Duration>,
    /// Nodes that write a pcap of every datagram they send and receive (`NAME.pcap`).
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Flakeways: nodes that delay and/or drop the packets they receive that match.
    #[serde(default)]
    pub flakeway: Vec<FlakewaySpec>,
}

/// One flakeway (RFC 1025's name for a gateway that misbehaves on purpose), at `node`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlakewaySpec {
    pub node: String,
    /// Fixed delay added to every matching packet (default 0).
    #[serde(default)]
    pub delay: Option<ccsim::settings::units::Duration>,
    /// A further delay drawn uniformly from [0, jitter] per packet, which reorders them.
    #[serde(default)]
    pub jitter: Option<ccsim::settings::units::Duration>,
    /// Probability that a matching packet is dropped (default 0).
    #[serde(default)]
    pub loss: f64,
    /// `rdp` (default: RDP segments, both directions), `data` (RDP segments carrying data)
    /// or `all` (every datagram, ACC's included).
    #[serde(default)]
    pub matches: Option<String>,
    /// Only packets addressed to this node.
    #[serde(default)]
    pub to: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Rdp,
    Data,
    All,
}

/// A flakeway, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flakeway {
    pub node: u32,
    pub delay: Dur,
    pub jitter: Dur,
    pub loss: f64,
    pub matches: Match,
    pub to: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct NodePlan {
    pub name: String,
    pub router: bool,
    /// The virtual address, 10.a.b.c as a big-endian u32.
    pub addr: u32,
    /// The UDP address fixed by `[live.nodes]`, if any.
    pub fixed: Option<SocketAddr>,
}

#[derive(Clone, Debug)]
pub struct LinkPlan {
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Dur,
    pub loss: f64,
    /// The drop-tail threshold, packets.
    pub limit: u32,
    /// The ACC monitor of this egress, if its queue has `acc = true`.
    pub monitor: Option<MonitorConfig>,
}

#[derive(Clone, Debug)]
pub struct FlowPlan {
    /// `group[index]`.
    pub name: String,
    pub group: String,
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub start: Dur,
    pub stop: Option<Dur>,
    /// The flow's RDP settings, as the simulator built them (an RDP flow).
    pub rdp: Option<RdpParams>,
    /// The flow's UDP source, as the simulator built it (a UDP flow: constant rate,
    /// Poisson or on/off; it does not respond to anything).
    pub udp: Option<ccsim::app::UdpSource>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub seed: u64,
    pub duration: Dur,
    pub warmup: Dur,
    pub grace: Dur,
    pub nodes: Vec<NodePlan>,
    pub links: Vec<LinkPlan>,
    /// `next_hop[node][dst]`: the link index, or None.
    pub next_hop: Vec<Vec<Option<u32>>>,
    pub flows: Vec<FlowPlan>,
    pub flakeways: Vec<Flakeway>,
    pub bind: String,
    pub key: Option<String>,
    pub pcap: Vec<u32>,
}

fn err(origin: &str, path: &str, message: impl Into<String>) -> ScenarioError {
    ScenarioError { origin: origin.to_string(), path: path.to_string(), message: message.into() }
}

impl Plan {
    /// Reads scenario `text` (from `origin`) with `overrides` applied, as `ccsim run` would,
    /// and its `[live]` table.
    pub fn load(text: &str, origin: &str, overrides: &[String]) -> Result<Plan, ScenarioError> {
        Plan::load_with_sim(text, origin, overrides).map(|(plan, _)| plan)
    }

    /// [`load`](Self::load), also returning the simulation the plan was made from (the
    /// simulated twin's starting point, `crate::twin`).
    pub fn load_with_sim(text: &str, origin: &str, overrides: &[String]) -> Result<(Plan, Simulation), ScenarioError> {
        // The simulator's `[[pcap]]` captures are not a live run's (a node captures with
        // `[live] pcap`): removed, so that building the plan creates no file.
        let mut without_pcap = overrides.to_vec();
        without_pcap.push("pcap=".into());
        let sim = scenario::load(text, origin, &without_pcap, None)?;
        // The [live] table, with the overrides applied (they may set live keys too).
        let root = scenario::tree(text, origin, overrides)?;
        let live: LiveSpec = match root.get("live") {
            None => LiveSpec::default(),
            Some(v) => serde_path_to_error::deserialize(v.clone()).map_err(|e| {
                let p = e.path().to_string();
                err(origin, &if p == "." { "live".into() } else { format!("live.{p}") }, e.into_inner().message().trim().to_string())
            })?,
        };
        let plan = Plan::from_sim(&sim, live, origin)?;
        Ok((plan, sim))
    }

    fn from_sim(sim: &Simulation, live: LiveSpec, origin: &str) -> Result<Plan, ScenarioError> {
        let net = &sim.net;
        let node_id =
            |path: &str, name: &str| -> Result<u32, ScenarioError> { net.node_id(name).ok_or_else(|| err(origin, path, format!("unknown node {name:?}"))) };
        let mut nodes: Vec<NodePlan> = net
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| NodePlan {
                name: n.name.clone(),
                router: n.kind == NodeKind::Router,
                addr: u32::from_be_bytes(ccsim::packet::node_addr(i as u32)),
                fixed: None,
            })
            .collect();
        for (name, addr) in &live.nodes {
            let path = format!("live.nodes.{name}");
            let id = node_id(&path, name)?;
            let a: SocketAddr = addr.parse().map_err(|_| err(origin, &path, format!("{addr:?} is not an address such as \"192.0.2.7:7001\"")))?;
            nodes[id as usize].fixed = Some(a);
        }
        if !live.nodes.is_empty() {
            if let Some(n) = nodes.iter().find(|n| n.fixed.is_none()) {
                return Err(err(origin, "live.nodes", format!("names some nodes but not {:?}: name every node or none", n.name)));
            }
        }
        let acc = sim.mechanism::<Acc>();
        let mut links = Vec::with_capacity(net.links.len());
        for (i, l) in net.links.iter().enumerate() {
            let path = format!("links ({})", l.name);
            if !matches!(l.queue.discipline(), Discipline::TailDrop(_)) {
                return Err(err(origin, &path, "a live run has drop-tail queues only (the congestion-detecting socket's discipline)"));
            }
            let limit = match l.queue.limit {
                Limit::Packets(n) => n,
                Limit::Bytes(_) => return Err(err(origin, &path, "a live queue's limit is in packets (`limit`), not bytes")),
            };
            links.push(LinkPlan {
                name: l.name.clone(),
                from: l.from,
                to: l.to,
                rate_bps: l.rate_bps,
                delay: l.delay,
                loss: l.loss(),
                limit,
                monitor: acc.and_then(|a| a.monitor(i as u32)),
            });
        }
        let n = nodes.len();
        let next_hop = (0..n as u32).map(|u| (0..n as u32).map(|d| net.routes.next_hop(u, d)).collect()).collect();
        let mut flows = Vec::new();
        for f in &sim.flows {
            let name = format!("{}[{}]", f.group, f.index);
            let (rdp, udp, sport, dport) = match (&f.transport, RdpParams::of(&f.transport)) {
                (Transport::Udp(src), _) => (None, Some((**src).clone()), src.ends.sport, src.ends.dport),
                (_, Some(rdp)) => {
                    let (sport, dport) = (rdp.sport, rdp.dport);
                    (Some(rdp), None, sport, dport)
                }
                _ => {
                    return Err(err(
                        origin,
                        &format!("flows ({})", f.group),
                        "a live run carries RDP flows (transport = \"rdp\") and UDP sources (\"udp\"), not tcp",
                    ))
                }
            };
            if let Some(u) = &udp {
                let most = crate::wire::MAX_DATAGRAM - crate::wire::HEADER - crate::wire::UDP_BODY - crate::wire::MAC_LEN;
                if u.payload as usize > most {
                    return Err(err(origin, &format!("flows ({}).udp.packet_size", f.group), format!("a live datagram carries at most {most} bytes")));
                }
            }
            flows.push(FlowPlan {
                name,
                group: f.group.clone(),
                src: f.src,
                dst: f.dst,
                sport,
                dport,
                start: Dur(f.start.as_nanos()),
                stop: f.stop.map(|s| Dur(s.as_nanos())),
                rdp,
                udp,
            });
        }
        let mut flakeways = Vec::new();
        for (i, fw) in live.flakeway.iter().enumerate() {
            let path = format!("live.flakeway[{i}]");
            let node = node_id(&format!("{path}.node"), &fw.node)?;
            if !(0.0..=1.0).contains(&fw.loss) {
                return Err(err(origin, &format!("{path}.loss"), "must be a probability in [0, 1]"));
            }
            let matches = match fw.matches.as_deref().unwrap_or("rdp") {
                "rdp" => Match::Rdp,
                "data" => Match::Data,
                "all" => Match::All,
                other => return Err(err(origin, &format!("{path}.matches"), format!("unknown {other:?} (rdp, data or all)"))),
            };
            let to = fw.to.as_deref().map(|t| node_id(&format!("{path}.to"), t)).transpose()?;
            flakeways.push(Flakeway {
                node,
                delay: fw.delay.map_or(Dur::ZERO, |d| d.dur()),
                jitter: fw.jitter.map_or(Dur::ZERO, |d| d.dur()),
                loss: fw.loss,
                matches,
                to,
            });
        }
        let pcap = live.pcap.iter().enumerate().map(|(i, name)| node_id(&format!("live.pcap[{i}]"), name)).collect::<Result<_, _>>()?;
        let key = std::env::var("CCSIM_LIVE_KEY").ok().filter(|k| !k.is_empty()).or(live.key.clone());
        if let Some(k) = &key {
            crate::wire::Auth::new(k.as_bytes(), 0).map_err(|m| err(origin, "live.key", m))?;
        }
        let bind = live.bind.clone().unwrap_or_else(|| "127.0.0.1".into());
        if bind.parse::<std::net::IpAddr>().is_err() {
            return Err(err(origin, "live.bind", format!("{bind:?} is not an IP address")));
        }
        Ok(Plan {
            name: sim.name.clone(),
            seed: sim.seed,
            duration: Dur(sim.stop_at.as_nanos()),
            warmup: Dur(sim.warmup.as_nanos()),
            grace: live.grace.map_or(Dur::from_secs(1), |g| g.dur()),
            nodes,
            links,
            next_hop,
            flows,
            flakeways,
            bind,
            key,
            pcap,
        })
    }

    /// The node with virtual address `addr`.
    pub fn node_of_addr(&self, addr: u32) -> Option<u32> {
        node_of_addr(addr, self.nodes.len())
    }

    pub fn node_named(&self, name: &str) -> Option<u32> {
        self.nodes.iter().position(|n| n.name == name).map(|i| i as u32)
    }
}

/// The node of a network of `nodes` nodes whose address is `addr`.
pub fn node_of_addr(addr: u32, nodes: usize) -> Option<u32> {
    // 10.a.b.c with c = n % 254 + 1 and (a, b) = n / 254 (see ccsim::packet::node_addr).
    let [ten, a, b, c] = addr.to_be_bytes();
    if ten != 10 || c == 0 || c == 255 {
        return None;
    }
    let n = ((a as u32) << 8 | b as u32) * 254 + (c as u32 - 1);
    ((n as usize) < nodes).then_some(n)
}

/// The RDP state machines of one flow, as the simulator built them.
#[derive(Clone, Debug)]
pub struct RdpParams {
    pub sport: u16,
    pub dport: u16,
    pub tx: RdpSender,
    pub rx: RdpReceiver,
}

impl RdpParams {
    /// The state machines of an RDP flow; None for other transports.
    pub fn of(t: &Transport) -> Option<RdpParams> {
        match t {
            Transport::Rdp { tx, rx } => Some(RdpParams { sport: tx.ends.sport, dport: tx.ends.dport, tx: (**tx).clone(), rx: (**rx).clone() }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"
        name = "line"
        duration = "5s"
        warmup = "1s"
        hosts = ["S", "D"]
        routers = ["R1", "R2"]
        [[links]]
        between = ["S", "R1"]
        rate = "100Mbps"
        delay = "1ms"
        [[links]]
        between = ["R1", "R2"]
        rate = "10Mbps"
        delay = "5ms"
        loss = 0.01
        queue = { limit = 30, acc = true, acc_rtt_floor = "2ms" }
        queue_reverse = { limit = 40 }
        [[links]]
        between = ["R2", "D"]
        rate = "100Mbps"
        delay = "1ms"
        [[flows]]
        name = "f"
        from = "S"
        to = "D"
        start = "0.5s"
        transport = "rdp"
        [[pcap]]
        file = "never-written.pcap"
        links = ["R1->R2"]
        [live]
        grace = "2s"
        pcap = ["R2"]
        [[live.flakeway]]
        node = "R2"
        delay = "30ms"
        jitter = "2ms"
        loss = 0.05
        matches = "data"
        to = "D"
    "#;

    #[test]
    fn the_plan_is_the_simulators_network_with_the_live_table() {
        let p = Plan::load(LINE, "<t>", &[]).unwrap();
        assert!(!std::path::Path::new("never-written.pcap").exists(), "the simulator's captures are not made");
        assert_eq!(p.nodes.iter().map(|n| (n.name.as_str(), n.router)).collect::<Vec<_>>(), [("S", false), ("D", false), ("R1", true), ("R2", true)]);
        let l = p.links.iter().find(|l| l.name == "R1->R2").unwrap();
        assert_eq!((l.rate_bps, l.delay, l.limit, l.loss), (10_000_000, Dur::from_millis(5), 30, 0.01));
        assert_eq!(l.monitor, Some(MonitorConfig { rtt_floor: Dur::from_millis(2), filter_timeout: None }));
        assert_eq!(p.links.iter().find(|l| l.name == "R2->R1").map(|l| (l.limit, l.monitor)), Some((40, None)));
        // S's route to D goes through R1 and R2.
        let (s, d) = (p.node_named("S").unwrap(), p.node_named("D").unwrap());
        let mut at = s;
        let mut path = vec![];
        while at != d {
            let l = &p.links[p.next_hop[at as usize][d as usize].unwrap() as usize];
            path.push(l.name.clone());
            at = l.to;
        }
        assert_eq!(path, ["S->R1", "R1->R2", "R2->D"]);
        assert_eq!((p.flows[0].name.as_str(), p.flows[0].start, p.flows[0].src, p.flows[0].dst), ("f[0]", Dur::from_millis(500), s, d));
        assert_eq!((p.duration, p.warmup, p.grace), (Dur::from_secs(5), Dur::from_secs(1), Dur::from_secs(2)));
        let fw = p.flakeways[0];
        assert_eq!(
            (fw.node, fw.delay, fw.jitter, fw.loss, fw.matches, fw.to),
            (p.node_named("R2").unwrap(), Dur::from_millis(30), Dur::from_millis(2), 0.05, Match::Data, Some(d))
        );
        assert_eq!(p.pcap, [p.node_named("R2").unwrap()]);
        for (i, n) in p.nodes.iter().enumerate() {
            assert_eq!(p.node_of_addr(n.addr), Some(i as u32));
        }
        assert_eq!(p.node_of_addr(u32::from_be_bytes([10, 0, 0, 9])), None, "no such node");
        assert_eq!(p.node_of_addr(u32::from_be_bytes([192, 168, 0, 1])), None);
    }

    #[test]
    fn what_a_live_run_cannot_do_is_refused_naming_the_field() {
        let e = |o: &[&str]| Plan::load(LINE, "<t>", &o.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap_err().to_string();
        assert!(e(&["flows.0.transport=tcp"]).contains("not tcp"));
        let red = e(&["links.1.queue={ discipline = \"red\", limit = 30, min_th = 5, max_th = 15 }"]);
        assert!(red.contains("drop-tail queues only"), "{red}");
        let bytes = e(&["links.1.queue={ limit_bytes = 30000, acc = true }"]);
        assert!(bytes.contains("in packets"), "{bytes}");
        assert!(e(&["live.flakeway.0.loss=2"]).contains("live.flakeway[0].loss"));
        assert!(e(&["live.flakeway.0.matches=some"]).contains("live.flakeway[0].matches"));
        assert!(e(&["live.bind=here"]).contains("live.bind"));
        assert!(e(&["live.key=short"]).contains("live.key"));
        assert!(e(&["live.nodes={ S = \"127.0.0.1:1\" }"]).contains("name every node or none"));
        assert!(e(&["live.nodes={ S = \"nowhere\" }"]).contains("live.nodes.S"));
        assert!(e(&["live.color=1"]).contains("live"));
    }
}
