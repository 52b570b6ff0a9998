//! A scenario as the builder expands it, without running it (`ccsim show`): every node and
//! link with its queue, every flow with its route and its transport's settings, with the
//! defaults in force filled in and the profile that chose them.
//!
//! The settings are the builder's own resolved structures (`SenderConfig`, `RedParams`, ...)
//! printed with their `Debug` form, so that what is shown is what runs and cannot drift
//! from it. Capture files are listed as written, not created (their names are checked when
//! the scenario runs).

use super::{build, parse, ScenarioError};
use crate::engine::{Simulation, Transport};
use crate::net::NodeKind;
use crate::packet::node_addr;
use crate::queue::{Discipline, Limit};
use crate::signal::SignalPolicy;
use serde_json::{json, Value};

/// The expanded scenario as JSON (see the module docs); the same errors as `load`.
pub fn describe(text: &str, origin: &str, overrides: &[String], seed: Option<u64>) -> Result<Value, ScenarioError> {
    let mut scenario = parse(text, origin, overrides)?;
    let err = |(path, message): (String, String)| ScenarioError { origin: origin.to_string(), path, message };
    // Build without the captures: showing a scenario creates no file.
    let pcap: Vec<Value> =
        scenario.pcap.iter().map(|p| json!({ "file": p.file, "links": p.links, "nodes": p.nodes, "format": p.format, "snaplen": p.snaplen })).collect();
    scenario.pcap.clear();
    let sim = build::build(&scenario, seed, None).map_err(err)?;
    let mut d = of(&sim, scenario.profile.name(), pcap);
    // What the run will cost, as a run's resource checks estimate it (`budget`): memory
    // (bytes) and events.
    let ids = sim.net.nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i as crate::net::NodeId)).collect();
    let memory = super::budget::memory(&scenario, &ids).map_err(err)?;
    let starts: Vec<usize> = sim.origins.flow_groups.iter().map(|&(first, _)| first as usize).collect();
    let groups: Vec<(usize, usize)> = starts.iter().enumerate().map(|(i, &a)| (a, starts.get(i + 1).copied().unwrap_or(sim.flows.len()))).collect();
    let events: f64 = super::budget::events(&scenario, &sim.net, &sim.flows, &groups, &[]).iter().map(|s| s.1).sum();
    d["cost"] = json!({ "memory_bytes": memory.total(), "events": events });
    Ok(d)
}

fn of(sim: &Simulation, profile: &str, pcap: Vec<Value>) -> Value {
    let net = &sim.net;
    let node = |n: u32| net.nodes[n as usize].name.clone();
    let nodes: Vec<Value> = net
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let a = node_addr(i as u32);
            json!({
                "name": n.name,
                "kind": if n.kind == NodeKind::Host { "host" } else { "router" },
                "address": format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]),
            })
        })
        .collect();
    let links: Vec<Value> = net
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let q = &l.queue;
            let (limit, unit) = match q.limit {
                Limit::Packets(n) => (n as u64, "packets"),
                Limit::Bytes(b) => (b, "bytes"),
            };
            json!({
                "name": l.name,
                // The [[links]] table it comes from: `--set links.N...` counts these.
                "table": sim.origins.links.get(i).and_then(|o| o.trim_start_matches("links[").trim_end_matches(']').parse::<u64>().ok()),
                "from": node(l.from),
                "to": node(l.to),
                "rate_bps": l.rate_bps,
                "delay_s": l.delay.as_secs_f64(),
                "loss": l.loss(),
                "cost": l.cost,
                "queue": {
                    "discipline": q.discipline().name(),
                    "limit": limit,
                    "limit_unit": unit,
                    "signal": match q.policy { SignalPolicy::Drop => "drop", SignalPolicy::Ecn => "ecn", SignalPolicy::Spoof => "spoof" },
                    "drop_areas": q.area_bounds(),
                    "settings": discipline_settings(q.discipline()),
                },
            })
        })
        .collect();
    let route = |a: u32, b: u32| -> Value {
        match net.routes.path(&net.links, a, b) {
            Some(path) => {
                let mut hops = vec![node(a)];
                hops.extend(path.iter().map(|&l| node(net.links[l as usize].to)));
                json!(hops)
            }
            None => Value::Null,
        }
    };
    let flows: Vec<Value> = sim
        .flows
        .iter()
        .map(|f| {
            let (transport, settings) = match &f.transport {
                Transport::Tcp { tx, rx } => ("tcp", json!({ "sender": format!("{:#?}", tx.cfg), "receiver": format!("{:#?}", rx.cfg) })),
                Transport::Rdp { tx, rx } => ("rdp", json!({ "sender": format!("{:#?}", tx.cfg), "receiver": format!("{:#?}", rx.cfg) })),
                Transport::Udp(u) => {
                    ("udp", json!({ "source": format!("payload: {} bytes, rate: {} bit/s, pattern: {:?}, ttl: {}", u.payload, u.rate_bps, u.pattern, u.ttl) }))
                }
            };
            json!({
                "flow": f.name(),
                "group": f.group,
                "from": node(f.src),
                "to": node(f.dst),
                "transport": transport,
                "start_s": f.start.as_secs_f64(),
                "stop_s": f.stop.map(|t| t.as_secs_f64()),
                "jitter_s": f.jitter().as_secs_f64(),
                "route": route(f.src, f.dst),
                "reverse_route": if transport != "udp" { route(f.dst, f.src) } else { Value::Null },
                "settings": settings,
            })
        })
        .collect();
    let mechanisms: Vec<Value> = sim
        .mechanisms
        .iter()
        .map(|m| {
            let debug = format!("{m:?}");
            json!(debug.split(['(', ' ', '{']).next().unwrap_or_default())
        })
        .collect();
    json!({
        "scenario": sim.name,
        "profile": profile,
        "seed": sim.seed,
        "duration_s": sim.stop_at.as_secs_f64(),
        "warmup_s": sim.warmup.as_secs_f64(),
        "nodes": nodes,
        "links": links,
        "flows": flows,
        "router_mechanisms": mechanisms,
        "series": sim.series_specs.iter().map(|s| json!({ "name": s.name, "interval_s": s.interval_ns as f64 / 1e9, "max_points": s.max_points })).collect::<Vec<_>>(),
        "pcap": pcap,
        "packet_log": sim.packet_log.is_some(),
    })
}

/// The discipline's resolved parameters (not its running state) where it can tell them
/// apart; the whole discipline for one that has not said how.
fn discipline_settings(d: &Discipline) -> String {
    match d {
        Discipline::TailDrop(_) => String::new(),
        Discipline::Red(r) => format!("{:#?}", r.params()),
        Discipline::AdaptiveRed(a) => format!("{:#?}\n{:#?}", a.red().params(), a.variant()),
        Discipline::Rtred(r) => format!("{:#?}\nrisk_th: {}", r.red().params(), r.risk_th()),
        #[allow(unreachable_patterns)] // a discipline added later: adding it needs no change here
        other => format!("{other:#?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
duration = "2s"
profile = "ns2"
hosts = ["S{1..2}", "D"]
routers = ["R"]
[[links]]
between = ["S{1..2}", "R"]
rate = "10Mbps"
delay = "1ms"
[[links]]
between = ["R", "D"]
rate = "1Mbps"
delay = "5ms"
queue = { discipline = "red", limit = 30, min_th = 5, max_th = 15 }
[[flows]]
name = "f"
from = "S{1..2}"
to = "D"
count = 2
[[pcap]]
file = "never-created.pcapng"
links = ["R->D"]
"#;

    #[test]
    fn describes_the_expanded_network_routes_and_settings_without_creating_files() {
        let d = describe(TEXT, "t.toml", &[], None).unwrap();
        assert!(!std::path::Path::new("never-created.pcapng").exists());
        assert_eq!(d["profile"], "ns2");
        assert_eq!(d["nodes"].as_array().unwrap().len(), 4);
        assert_eq!(d["nodes"][3], json!({ "name": "R", "kind": "router", "address": "10.0.0.4" }));
        assert_eq!(d["links"].as_array().unwrap().len(), 6);
        let bottleneck = d["links"].as_array().unwrap().iter().find(|l| l["name"] == "R->D").unwrap();
        assert_eq!(bottleneck["queue"]["discipline"], "red");
        assert_eq!(bottleneck["queue"]["limit"], 30);
        assert!(bottleneck["queue"]["settings"].as_str().unwrap().contains("min_th: 5.0"));
        // count = 2 flows per (from, to) pair: 2 senders x 2.
        let flows = d["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 4);
        assert_eq!(flows[3]["route"], json!(["S2", "R", "D"]));
        assert_eq!(flows[3]["reverse_route"], json!(["D", "R", "S2"]));
        assert!(flows[0]["settings"]["sender"].as_str().unwrap().contains("mss: 1000"));
        assert_eq!(d["pcap"][0]["file"], "never-created.pcapng");
        // Each direction names its [[links]] table; the cost is the run's estimate.
        assert_eq!(bottleneck["table"], 1);
        assert_eq!(d["links"][0]["table"], 0);
        assert!(d["cost"]["memory_bytes"].as_f64().unwrap() > 0.0 && d["cost"]["events"].as_f64().unwrap() > 0.0);
    }

    #[test]
    fn errors_are_those_of_a_run() {
        let e = describe(TEXT, "t.toml", &["links.1.rate=fast".into()], None).unwrap_err();
        assert_eq!(e.path, "links[1].rate");
        let e = describe(TEXT, "t.toml", &["flows.f.to=Q".into()], None).unwrap_err();
        assert_eq!(e.to_string(), "t.toml: flows[0].to: unknown node \"Q\"");
    }
}
