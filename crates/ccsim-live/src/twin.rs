//! The simulated twin of a live run (`ccsim live twin`): the simulation the live plan was
//! made from ([`Plan::load_with_sim`]), with every flakeway put where the live run has it.
//!
//! A flakeway acts on the datagrams its node *receives*, before the node routes them to an
//! egress queue. The twin gives its delay and loss to every link into that node whose
//! packets the flakeway matches, so that they reach the node as late (and as often) as
//! live, and meet the node's queues after it, as live. That is exact only if such a link
//! carries nothing the flakeway leaves alone (routes are fixed, so what a link carries is
//! known before the run: the flows' data and acknowledgements, ACC's controls and filter
//! requests); a flakeway for which it is not, or one with a jitter (the simulator's links
//! keep packets in order; a jitter reorders them), is refused naming its field.
//!
//! [`path`] lists what a packet meets on its way, queue by queue, in either network; the
//! tests compare the two for every flow in both directions.

use crate::plan::{Match, Plan};
use ccsim::engine::Simulation;
use ccsim::net::{LinkId, NodeId};
use ccsim::scenario::ScenarioError;
use ccsim::sim::Dur;

/// What crosses a link: a kind of packet and the node it is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Traffic {
    /// RDP segments from a flow's sender (data, SYN).
    Data(NodeId),
    /// RDP segments from a flow's receiver (acknowledgements).
    Ack(NodeId),
    /// ACC controls and filter requests.
    Acc(NodeId),
    /// A UDP source's datagrams.
    Udp(NodeId),
}

impl Traffic {
    fn matched_by(self, m: Match, to: Option<u32>) -> bool {
        let (kind, dst) = match self {
            Traffic::Data(d) => (true, d),
            Traffic::Ack(d) => (m != Match::Data, d),
            Traffic::Acc(d) | Traffic::Udp(d) => (m == Match::All, d),
        };
        kind && to.is_none_or(|t| t == dst)
    }
}

/// The links from `src` to `dst` by the plan's routes.
fn route(plan: &Plan, src: NodeId, dst: NodeId) -> Vec<LinkId> {
    let mut at = src;
    let mut links = Vec::new();
    while at != dst && links.len() <= plan.links.len() {
        let Some(l) = plan.next_hop[at as usize][dst as usize] else { break };
        links.push(l);
        at = plan.links[l as usize].to;
    }
    links
}

/// Every (link, traffic) pair the run will have: each flow's data and acknowledgements, and
/// for each ACC queue on a flow's data path, the controls to its sender and the filter
/// requests to the node upstream.
fn traffic(plan: &Plan) -> Vec<(LinkId, Traffic)> {
    let mut out = Vec::new();
    for f in &plan.flows {
        let data = route(plan, f.src, f.dst);
        if f.udp.is_some() {
            out.extend(data.iter().map(|&l| (l, Traffic::Udp(f.dst))));
            continue;
        }
        out.extend(data.iter().map(|&l| (l, Traffic::Data(f.dst))));
        out.extend(route(plan, f.dst, f.src).into_iter().map(|l| (l, Traffic::Ack(f.src))));
        for (i, &l) in data.iter().enumerate() {
            let link = &plan.links[l as usize];
            if link.monitor.is_none() {
                continue;
            }
            out.extend(route(plan, link.from, f.src).into_iter().map(|r| (r, Traffic::Acc(f.src))));
            if i > 0 {
                let up = plan.links[data[i - 1] as usize].from;
                out.extend(route(plan, link.from, up).into_iter().map(|r| (r, Traffic::Acc(up))));
            }
        }
    }
    out
}

fn err(origin: &str, path: String, message: String) -> ScenarioError {
    ScenarioError { origin: origin.to_string(), path, message }
}

/// Loss probability of two independent losses in a row.
pub fn both(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        return a + b;
    }
    1.0 - (1.0 - a) * (1.0 - b)
}

/// The simulated twin of the scenario `text` with `overrides`: the plan a live run makes
/// and the simulation with the plan's flakeways on the links into their nodes.
pub fn build(text: &str, origin: &str, overrides: &[String]) -> Result<(Plan, Simulation), ScenarioError> {
    let (plan, mut sim) = Plan::load_with_sim(text, origin, overrides)?;
    let traffic = traffic(&plan);
    for (i, fw) in plan.flakeways.iter().enumerate() {
        let path = format!("live.flakeway[{i}]");
        if fw.delay == Dur::ZERO && fw.loss == 0.0 && fw.jitter == Dur::ZERO {
            continue;
        }
        if fw.jitter != Dur::ZERO {
            return Err(err(
                origin,
                format!("{path}.jitter"),
                "a simulated twin has no jitter: the simulator's links keep packets in order, a jitter reorders them (set it to 0 for the twin)".into(),
            ));
        }
        for (l, link) in plan.links.iter().enumerate() {
            if link.to != fw.node {
                continue;
            }
            let on: Vec<Traffic> = traffic.iter().filter(|(x, _)| *x as usize == l).map(|&(_, t)| t).collect();
            let matched = on.iter().filter(|t| t.matched_by(fw.matches, fw.to)).count();
            if matched == 0 {
                continue;
            }
            if matched < on.len() {
                let what = on.iter().find(|t| !t.matched_by(fw.matches, fw.to)).copied().map_or(String::new(), |t| {
                    let (kind, d) = match t {
                        Traffic::Data(d) => ("data", d),
                        Traffic::Ack(d) => ("acknowledgements", d),
                        Traffic::Acc(d) => ("ACC messages", d),
                        Traffic::Udp(d) => ("UDP datagrams", d),
                    };
                    format!("{kind} to {}", plan.nodes[d as usize].name)
                });
                return Err(err(
                    origin,
                    path,
                    format!(
                        "a simulated twin cannot hold only some of the packets on link {}: the flakeway matches some and not others ({what}); \
                         give it `matches` and `to` that take every packet into {} on that link, or none",
                        link.name, plan.nodes[fw.node as usize].name
                    ),
                ));
            }
            let s = &mut sim.net.links[l];
            s.delay = Dur(s.delay.0 + fw.delay.0);
            let loss = both(s.loss(), fw.loss);
            if loss >= 1.0 {
                return Err(err(origin, format!("{path}.loss"), "the twin's links lose less than every packet: below 1".into()));
            }
            s.set_loss(loss);
        }
    }
    Ok((plan, sim))
}

/// Runs the twin of the scenario `text` with `overrides` to its end; returns the
/// simulator's report as JSON (`ccsim::report::Report`).
pub fn run(text: &str, origin: &str, overrides: &[String]) -> Result<String, ScenarioError> {
    let (_, mut sim) = build(text, origin, overrides)?;
    sim.run();
    if let Some(stall) = &sim.stalled {
        return Err(err(origin, stall.path.clone(), stall.message()));
    }
    sim.advance_links();
    Ok(ccsim::report::Report::new(&mut sim).to_json())
}

/// What a packet meets on its way: an egress queue, or a stretch of wire (propagation and
/// flakeway delays, link and flakeway losses, merged up to the next queue).
#[derive(Clone, Debug, PartialEq)]
pub enum Element {
    Queue { link: String, rate_bps: u64, limit: u32, acc: bool },
    Wire { delay: Dur, loss: f64 },
}

fn wire(out: &mut Vec<Element>, delay: Dur, loss: f64) {
    if let Some(Element::Wire { delay: d, loss: l }) = out.last_mut() {
        *d = Dur(d.0 + delay.0);
        *l = both(*l, loss);
    } else {
        out.push(Element::Wire { delay, loss });
    }
}

/// Which network [`path`] walks.
pub enum Network<'a> {
    /// The live run: its links, and its flakeways where they act (on reception).
    Live(&'a Plan),
    /// The simulation: its links as they are.
    Sim(&'a Simulation),
}

/// The elements a data segment (`data`) or an acknowledgement of flow `flow` of `plan`
/// meets from its source to its destination in `net`.
pub fn path(plan: &Plan, net: Network, flow: usize, data: bool) -> Vec<Element> {
    let f = &plan.flows[flow];
    let (src, dst) = if data { (f.src, f.dst) } else { (f.dst, f.src) };
    let t = match (f.udp.is_some(), data) {
        (true, _) => Traffic::Udp(dst),
        (false, true) => Traffic::Data(dst),
        (false, false) => Traffic::Ack(dst),
    };
    let mut out = Vec::new();
    let mut at = src;
    for _ in 0..=plan.links.len() {
        if at == dst {
            break;
        }
        let hop = match &net {
            Network::Live(p) => p.next_hop[at as usize][dst as usize],
            Network::Sim(s) => s.net.routes.next_hop(at, dst),
        };
        let Some(l) = hop else { break };
        match &net {
            Network::Live(p) => {
                let link = &p.links[l as usize];
                out.push(Element::Queue { link: link.name.clone(), rate_bps: link.rate_bps, limit: link.limit, acc: link.monitor.is_some() });
                wire(&mut out, link.delay, link.loss);
                if let Some(fw) = p.flakeways.iter().find(|fw| fw.node == link.to && t.matched_by(fw.matches, fw.to)) {
                    wire(&mut out, fw.delay, fw.loss);
                }
                at = link.to;
            }
            Network::Sim(s) => {
                let link = &s.net.links[l as usize];
                let limit = match link.queue.limit {
                    ccsim::queue::Limit::Packets(n) => n,
                    ccsim::queue::Limit::Bytes(n) => n as u32,
                };
                let acc = s.mechanism::<ccsim::router::acc::Acc>().is_some_and(|a| a.monitor(l).is_some());
                out.push(Element::Queue { link: link.name.clone(), rate_bps: link.rate_bps, limit, acc });
                wire(&mut out, link.delay, link.loss());
                at = link.to;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc_live() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/acc_live.toml")).unwrap()
    }

    fn refused(over: &[&str]) -> ScenarioError {
        match load(over) {
            Ok(_) => panic!("{over:?} made a twin"),
            Err(e) => e,
        }
    }

    fn load(over: &[&str]) -> Result<(Plan, Simulation), ScenarioError> {
        build(&acc_live(), "acc_live.toml", &over.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_twin_of_acc_live_is_the_live_network_element_by_element() {
        let (plan, sim) = load(&[]).unwrap();
        let live = Plan::load(&acc_live(), "acc_live.toml", &[]).unwrap();
        // The same nodes, links and routes.
        assert_eq!(sim.net.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), live.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>());
        assert_eq!(
            sim.net.links.iter().map(|l| (l.name.as_str(), l.rate_bps)).collect::<Vec<_>>(),
            live.links.iter().map(|l| (l.name.as_str(), l.rate_bps)).collect::<Vec<_>>()
        );
        assert_eq!(plan.flows.len(), 2);
        for flow in 0..plan.flows.len() {
            for data in [true, false] {
                let (l, s) = (path(&live, Network::Live(&live), flow, data), path(&plan, Network::Sim(&sim), flow, data));
                assert_eq!(l, s, "flow {flow}, {}", if data { "data" } else { "acknowledgements" });
            }
        }
        // The data meet 1 + 1 ms, then 1 + 100 ms before C's congested queue, then 1 ms.
        let ms = Dur::from_millis;
        let e1 = path(&plan, Network::Sim(&sim), 0, true);
        let delays: Vec<Dur> = e1.iter().filter_map(|e| if let Element::Wire { delay, .. } = e { Some(*delay) } else { None }).collect();
        assert_eq!(delays, [ms(1), ms(101), ms(1)]);
        assert!(matches!(&e1[4], Element::Queue { link, acc: true, limit: 50, .. } if link == "C->D"), "{e1:?}");
        // The twin the scenario's comment used to give (the delay after C's queue) differs.
        let (old_plan, old) = load(&["live.flakeway=[]", "links.4.delay=101ms"]).unwrap();
        assert_ne!(path(&live, Network::Live(&live), 0, true), path(&old_plan, Network::Sim(&old), 0, true));
    }

    #[test]
    fn the_twins_filter_request_takes_the_link_back_as_a_live_nodes_does() {
        use ccsim::packet::{AccState, Endpoints, Kind, Packet, Seq};
        use ccsim::router::acc::Acc;
        use ccsim::sim::SimTime;
        let (plan, sim) = load(&[]).unwrap();
        let id = |name: &str| plan.nodes.iter().position(|n| n.name == name).unwrap() as u32;
        let link = |a: &str, b: &str| plan.links.iter().position(|l| l.from == id(a) && l.to == id(b)).unwrap();
        // A live C sends the request to I1 on its egress C -> I1 (`node.rs`, `to_neighbour`):
        // 1 ms; the data came over I1 -> C and the flakeway's 100 ms.
        let back = plan.links[link("C", "I1")].delay;
        assert_eq!((back, sim.net.links[link("I1", "C")].delay), (Dur::from_millis(1), Dur::from_millis(101)));
        let ends = Endpoints { flow: 0, sender: id("E1"), receiver: id("D"), sport: 1, dport: 2 };
        let acc = Some(AccState { cwnd: 40, ssthresh: 1000, srtt_us: 110_000, slow_start: false, fast_recovery: false });
        let seg = |seq| Packet::rdp(Kind::RdpData, &ends, ccsim::rdp::Fields { seq: Seq(seq), acc, ..Default::default() }, 1000, 64, SimTime::ZERO);
        let mut a = sim.mechanism::<Acc>().unwrap().clone();
        let t = SimTime::ZERO + Dur::from_secs(1);
        assert!(a.on_drop(link("C", "D") as u32, &seg(7), t, &sim.net).is_some());
        assert!(!a.filter(id("I1"), &seg(8), t + Dur(back.0 - 1)));
        assert!(a.filter(id("I1"), &seg(9), t + back), "the twin's filter works as soon as the live one");
    }

    #[test]
    fn a_flakeway_loss_is_on_the_links_into_its_node() {
        let (plan, sim) = load(&["live.flakeway.0.loss=0.1"]).unwrap();
        for name in ["I1->C", "I2->C"] {
            assert_eq!(sim.net.links.iter().find(|l| l.name == name).unwrap().loss(), 0.1);
        }
        assert_eq!(sim.net.links.iter().find(|l| l.name == "D->C").unwrap().loss(), 0.0, "acknowledgements are not addressed to D");
        let live = Plan::load(&acc_live(), "acc_live.toml", &["live.flakeway.0.loss=0.1".into()]).unwrap();
        assert_eq!(path(&live, Network::Live(&live), 1, true), path(&plan, Network::Sim(&sim), 1, true));
    }

    #[test]
    fn a_twin_it_cannot_make_is_refused_naming_the_field() {
        let e = refused(&["live.flakeway.0.jitter=5ms"]);
        assert_eq!(e.path, "live.flakeway[0].jitter", "{e}");
        // At C for E1 only: D -> C carries the acknowledgements to E2 as well.
        let e = refused(&["live.flakeway.0.to=E1"]);
        assert_eq!(e.path, "live.flakeway[0]", "{e}");
        assert!(e.message.contains("link D->C") && e.message.contains("acknowledgements to E2"), "{e}");
        // At I1, every RDP segment: C -> I1 carries ACC's controls to E1 too.
        let e = refused(&["live.flakeway=[{ node = \"I1\", delay = \"10ms\" }]"]);
        assert!(e.message.contains("link C->I1") && e.message.contains("ACC messages to E1"), "{e}");
        // Every datagram (`all`) at I1: both links in take it.
        let (_, sim) = load(&["live.flakeway=[{ node = \"I1\", delay = \"10ms\", matches = \"all\" }]"]).unwrap();
        for name in ["E1->I1", "C->I1"] {
            assert_eq!(sim.net.links.iter().find(|l| l.name == name).unwrap().delay, Dur::from_millis(11), "{name}");
        }
    }
}
