//! ccsim scenarios on real sockets: the paper's ACC implementation (Faber, "Experience with
//! Active Congestion Control", Section 4) as a virtual network over UDP whose nodes are
//! ordinary processes, sharing the simulator's ACC decisions.
//!
//! - [`plan`]: a scenario file read for a live run (the simulator's builder makes the
//!   network, the routes and the flows; `[live]` adds ports, flakeways, the MAC key);
//! - [`wire`]: the datagram format and its MAC;
//! - [`node`]: one node's loop: socket, forwarding, link emulation ([`egress`]), the
//!   [`flakeway`], the ACC agents ([`acc`]) and the RDP hosts ([`endpoint`]);
//! - [`pcap`]: what a node sends and receives, for Wireshark;
//! - [`report`]: what a node reports.
//!
//! Where it lives: the node is Rust (this crate), reached from Python through the
//! extension module (`ccsim._core.live_node`), so that `pip install .` builds it and the
//! per-packet path never touches the interpreter; the `ccsim live` command starts one
//! process per node and collects their reports (`python/ccsim/live.py`).

pub mod acc;
pub mod egress;
pub mod endpoint;
pub mod flakeway;
pub mod kernel;
pub mod node;
pub mod pcap;
pub mod plan;
pub mod pool;
pub mod report;
pub mod twin;
pub mod wire;

use plan::Plan;
use std::io::{self, BufRead, Write};
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How a node learns its peers and the start time.
#[derive(Clone, Debug)]
pub enum Meeting {
    /// Bind a free port, print `READY <address>` on stdout, then read one line of JSON from
    /// stdin: `{"peers": ["127.0.0.1:40001", ...], "start_unix_ns": N, "key": "..."}` (peers
    /// by node index). The node dies with the process that started it.
    Rendezvous,
    /// Every address from `[live.nodes]`; start at `start_unix` (seconds; None: now).
    Fixed { start_unix: Option<f64> },
}

#[derive(serde::Deserialize)]
struct Welcome {
    peers: Vec<String>,
    start_unix_ns: u64,
    #[serde(default)]
    key: Option<String>,
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

/// The instant at unix time `t_ns` (now if it has passed).
fn instant_at(t_ns: u64) -> Instant {
    let now = unix_ns();
    Instant::now() + Duration::from_nanos(t_ns.saturating_sub(now))
}

/// Runs node `name` of the scenario `text` (from `origin`, with `overrides`) to the end and
/// returns its report as JSON. Errors are messages for the user.
pub fn node_process(text: &str, origin: &str, overrides: &[String], name: &str, meeting: Meeting, out_dir: Option<&std::path::Path>) -> Result<String, String> {
    let plan = Plan::load(text, origin, overrides).map_err(|e| e.to_string())?;
    let me = plan.node_named(name).ok_or_else(|| format!("{origin}: no node named {name:?}"))?;
    let (socket, peers, key, start) = match meeting {
        Meeting::Rendezvous => {
            // SAFETY: prctl with integer arguments: die with the parent.
            unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
            node::stop_on_sigusr1();
            let socket = UdpSocket::bind((plan.bind.as_str(), 0)).map_err(|e| format!("{name}: cannot bind {}: {e}", plan.bind))?;
            let addr = socket.local_addr().map_err(|e| e.to_string())?;
            let mut out = io::stdout().lock();
            writeln!(out, "READY {addr}").and_then(|_| out.flush()).map_err(|e| e.to_string())?;
            let mut line = String::new();
            io::stdin().lock().read_line(&mut line).map_err(|e| e.to_string())?;
            if line.trim().is_empty() {
                return Err(format!("{name}: no peers given (stdin closed)"));
            }
            let w: Welcome = serde_json::from_str(&line).map_err(|e| format!("{name}: bad peer table: {e}"))?;
            let peers =
                w.peers.iter().map(|p| p.parse::<SocketAddr>().map_err(|_| format!("{name}: bad peer address {p:?}"))).collect::<Result<Vec<_>, _>>()?;
            (socket, peers, w.key.or(plan.key.clone()), w.start_unix_ns)
        }
        Meeting::Fixed { start_unix } => {
            let peers: Vec<SocketAddr> = plan
                .nodes
                .iter()
                .map(|n| n.fixed)
                .collect::<Option<_>>()
                .ok_or_else(|| format!("{origin}: live.nodes: a node started alone needs every node's address in [live.nodes]"))?;
            if start_unix.is_none() && plan.key.is_some() {
                return Err(format!(
                    "{name}: a node started alone with a MAC key needs its start time (--start-at): it identifies the run in the MACs, so give every node the same"
                ));
            }
            let socket = UdpSocket::bind(peers[me as usize]).map_err(|e| format!("{name}: cannot bind {}: {e}", peers[me as usize]))?;
            (socket, peers, plan.key.clone(), start_unix.map_or_else(unix_ns, |s| (s * 1e9) as u64))
        }
    };
    // The run's identifier in its MACs is its start time, which every node is given alike.
    let (run, start) = (start, instant_at(start));
    if peers.len() != plan.nodes.len() {
        return Err(format!("{name}: {} peer addresses for {} nodes", peers.len(), plan.nodes.len()));
    }
    let auth = key.map(|k| wire::Auth::new(k.as_bytes(), run)).transpose().map_err(|m| format!("{origin}: live.key: {m}"))?;
    if let Some(wait) = start.checked_duration_since(Instant::now()) {
        std::thread::sleep(wait);
    }
    let setup = node::Setup { plan, me, socket, peers, auth, start, out_dir: out_dir.map(Into::into) };
    let report = node::Node::new(setup).and_then(node::Node::run).map_err(|e| format!("{name}: {e}"))?;
    serde_json::to_string(&report).map_err(|e| e.to_string())
}

/// What the process that starts the nodes needs of a plan, as JSON: the nodes (name,
/// router, fixed address), the links (name, rate, delay, ACC) and the flows, the run's
/// duration, warm-up and grace (s), and whether a MAC key is set.
pub fn plan_summary(p: &Plan) -> String {
    let nodes: Vec<_> = p.nodes.iter().map(|n| serde_json::json!({"name": n.name, "router": n.router, "fixed": n.fixed.map(|a| a.to_string())})).collect();
    let links: Vec<_> = p
        .links
        .iter()
        .map(|l| serde_json::json!({"name": l.name, "rate_bps": l.rate_bps, "delay_s": l.delay.as_secs_f64(), "limit": l.limit, "acc": l.monitor.is_some()}))
        .collect();
    let flows: Vec<_> = p
        .flows
        .iter()
        .map(|f| {
            let transport = if f.udp.is_some() { "udp" } else { "rdp" };
            serde_json::json!({"name": f.name, "group": f.group, "transport": transport, "src": p.nodes[f.src as usize].name, "dst": p.nodes[f.dst as usize].name})
        })
        .collect();
    serde_json::json!({
        "name": p.name,
        "nodes": nodes,
        "links": links,
        "flows": flows,
        "duration_s": p.duration.as_secs_f64(),
        "warmup_s": p.warmup.as_secs_f64(),
        "grace_s": p.grace.as_secs_f64(),
        "has_key": p.key.is_some(),
    })
    .to_string()
}

/// The key and run identifier of [`fuzz_one`]'s MACs (the corpus's seeds are sealed with
/// them).
pub const FUZZ_KEY: &[u8] = b"ccsim-live fuzzing key";
pub const FUZZ_RUN: u64 = 1;

/// What a node does first with any datagram it receives, for the fuzz target and its
/// corpus test: decode it, check its MAC with a fixed key, and read the RDP segment it
/// carries (a router reads RDP headers to find connections and their windows).
pub fn fuzz_one(data: &[u8]) {
    thread_local! {
        static AUTH: wire::Auth = wire::Auth::new(FUZZ_KEY, FUZZ_RUN).expect("a long enough key");
    }
    AUTH.with(|auth| {
        if let Ok(d) = wire::accept(data, Some(auth)) {
            if let wire::Body::Rdp(seg) = d.body {
                let _ = endpoint::view(seg);
            }
        }
        let _ = wire::decode(data);
        let _ = endpoint::view(data);
    });
}

/// Runs every node of `plan` in a thread of this process, each on its own socket on
/// `plan.bind` (for tests and for measuring a whole overlay without process start-up);
/// returns the reports in node order.
pub fn run_threads(plan: &Plan, key: Option<&[u8]>, out_dir: Option<&std::path::Path>) -> io::Result<Vec<report::NodeReport>> {
    let sockets = plan.nodes.iter().map(|_| UdpSocket::bind((plan.bind.as_str(), 0))).collect::<io::Result<Vec<_>>>()?;
    let peers = sockets.iter().map(|s| s.local_addr()).collect::<io::Result<Vec<_>>>()?;
    let auth = key.map(|k| wire::Auth::new(k, unix_ns())).transpose().map_err(io::Error::other)?;
    let start = Instant::now() + Duration::from_millis(50);
    let handles: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(me, socket)| {
            let setup =
                node::Setup { plan: plan.clone(), me: me as u32, socket, peers: peers.clone(), auth: auth.clone(), start, out_dir: out_dir.map(Into::into) };
            std::thread::spawn(move || {
                if let Some(wait) = start.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                node::Node::new(setup).and_then(node::Node::run)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().map_err(|_| io::Error::other("a node panicked"))?).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_started_alone_with_a_key_needs_the_runs_start_time() {
        let text = "duration = \"1s\"\nhosts = [\"A\", \"B\"]\n[[links]]\nbetween = [\"A\", \"B\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                    [live]\nkey = \"a key of sixteen bytes or more\"\n[live.nodes]\nA = \"127.0.0.1:9\"\nB = \"127.0.0.1:9\"\n";
        let e = node_process(text, "k.toml", &[], "A", Meeting::Fixed { start_unix: None }, None).unwrap_err();
        assert!(e.starts_with("A: a node started alone with a MAC key needs its start time (--start-at)"), "{e}");
    }
}
