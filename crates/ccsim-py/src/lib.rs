//! Python bindings of ccsim: a scenario goes in, a JSON report comes out.
//!
//! This crate holds no simulation logic. It builds a [`ccsim::engine::Simulation`] from
//! scenario text, runs it in steps with the GIL released, and hands back
//! [`ccsim::report::Report`] as JSON; everything else (results tables, CLI, progress) lives in
//! the Python package `ccsim`.

mod plugins;

use ccsim::engine;
use ccsim::report::{Report, Scope};
use ccsim::sim::SimTime;
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The network's state on huge pages where Linux allows them (`ccsim::huge_pages`): a run at
/// 100,000 flows takes about a tenth less time, at 10,000 a twentieth.
#[global_allocator]
static ALLOC: ccsim::huge_pages::HugePages = ccsim::huge_pages::HugePages;

create_exception!(
    ccsim,
    ScenarioError,
    PyValueError,
    "A problem with a scenario, located by file and field path.\n\nAttributes: `origin` (the file, or \"<string>\"), `path` (the field path such as `links[2].rate`, empty for whole-file problems) and `message`. `str()` gives `origin: path: message`."
);

create_exception!(
    ccsim,
    PluginError,
    pyo3::exceptions::PyRuntimeError,
    "A plug-in (a Python congestion control, queue discipline or router mechanism) stopped the run: it raised an exception, or a hook returned a value the simulator cannot use.\n\nAttributes: `plugin` (its registered name), `hook` (`on_ack`), `site` (the flow or link), `time` (simulated seconds, or None for a hook called without a time: `claims_loss`) and `detail` (the traceback, or what was wrong). `str()` gives them all."
);

/// The run stopped in a plug-in: its failure as `PluginError`; any other panic goes on.
fn plugin_error(py: Python<'_>, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let Some(f) = payload.downcast_ref::<ccsim::settings::external::Failure>() else { std::panic::resume_unwind(payload) };
    let err = PluginError::new_err(f.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("plugin", &f.plugin)?;
        value.setattr("hook", f.hook)?;
        value.setattr("site", &f.site)?;
        value.setattr("time", f.at.map(secs))?;
        value.setattr("detail", &f.message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// Imports the modules a scenario's `plugins` key names (`ccsim.plugins.import_modules`),
/// so that the plug-ins they register are there when it is built.
fn import_plugins(py: Python<'_>, text: &str, origin: &str) -> PyResult<()> {
    if text.contains("plugins") {
        py.import("ccsim.plugins")?.call_method1("import_modules", (text, origin))?;
    }
    Ok(())
}

/// Runs `f` with the GIL released, unless plug-ins may run in it (`keep`): a plug-in's
/// hooks need the GIL.
fn detached<T: Send>(py: Python<'_>, keep: bool, f: impl FnOnce() -> T + Send) -> T {
    if keep {
        f()
    } else {
        py.detach(f)
    }
}

/// Seconds, correctly rounded (`SimTime::as_secs_f64` multiplies by 1e-9, which is not exact:
/// 1000 s would read 1000.0000000000001).
fn secs(t: SimTime) -> f64 {
    t.as_nanos() as f64 / 1e9
}

/// Events run with the GIL released between two looks at Ctrl-C: a few hundredths of a
/// second of work.
const EVENTS_PER_SLICE: u64 = 1 << 19;

fn scenario_error(py: Python<'_>, e: ccsim::scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("origin", &e.origin)?;
        value.setattr("path", &e.path)?;
        value.setattr("message", &e.message)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(other) => other,
    }
}

/// A simulation built from a scenario, run forward in steps.
///
/// `Simulation(text, origin, overrides, seed, out_dir)`: `text` is the scenario (TOML),
/// `origin` the name used in error messages (a file name or "<string>"), `overrides` a list
/// of `key.path=value` strings, `seed` an integer that replaces the scenario's seed, or None,
/// `out_dir` the directory relative `[[pcap]]` file names are taken from (None: the current
/// directory). Building creates the capture files. A scenario that needs more memory than
/// this process can get (or `max_memory` bytes) or more events than `max_events` (default
/// 10^10) is refused before it is built, unless `force` is true.
#[pyclass(module = "ccsim._core")]
struct Simulation {
    sim: engine::Simulation,
    origin: String,
    /// A plug-in stopped the run (its message): the simulation cannot go on.
    failed: Option<String>,
    /// The scenario uses plug-ins: the run keeps the GIL.
    plugins: bool,
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, origin = "<string>", overrides = Vec::new(), seed = None, out_dir = None, force = false, max_events = None, max_memory = None))]
    #[allow(clippy::too_many_arguments)] // the Python signature
    fn new(
        py: Python<'_>,
        text: &str,
        origin: &str,
        overrides: Vec<String>,
        seed: Option<u64>,
        out_dir: Option<std::path::PathBuf>,
        force: bool,
        max_events: Option<u64>,
        max_memory: Option<u64>,
    ) -> PyResult<Simulation> {
        import_plugins(py, text, origin)?;
        let text = text.to_owned();
        let origin_owned = origin.to_owned();
        let limits = ccsim::scenario::Limits { max_memory, max_events, force };
        let before = plugins::built();
        let keep = plugins::ANY.load(std::sync::atomic::Ordering::Relaxed);
        let built = detached(py, keep, move || ccsim::scenario::load_with(&text, &origin_owned, &overrides, seed, out_dir.as_deref(), &limits));
        match built {
            Ok(sim) => Ok(Simulation { sim, origin: origin.to_owned(), failed: None, plugins: plugins::built() != before }),
            Err(e) => Err(scenario_error(py, e)),
        }
    }

    /// Runs until simulated time `seconds` (or the stop time, whichever is earlier), with the
    /// GIL released. `math.inf` runs to the end. Ctrl-C (any Python signal handler that
    /// raises) stops it within a few hundredths of a second. Raises `ScenarioError` naming
    /// the source if simulated time stops advancing (the watchdog; the run cannot go on).
    ///
    /// A slice is a number of events, but one event can be long work (PIE catching up on
    /// updates every nanosecond after an idle hour): a SIGINT handler of the core's, which
    /// calls Python's, asks the run to stop ([`ccsim::sim::stop`]) so that the slice ends
    /// at once and Python's handler runs. A run whose event was cut short for it cannot go
    /// on: if the handler does not raise, `ScenarioError` says so.
    fn run_until(&mut self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        if seconds.is_nan() {
            return Err(PyValueError::new_err("run_until: time is NaN"));
        }
        if let Some(m) = &self.failed {
            return Err(PluginError::new_err(format!("the run cannot go on: {m}")));
        }
        let t = if seconds >= secs(self.sim.stop_at) { self.sim.stop_at } else { SimTime::from_secs_f64(seconds) };
        interrupt::install();
        // Links are brought up to now once, when the run stops, not after every slice.
        let result = loop {
            let sim = &mut self.sim;
            // A plug-in that fails unwinds out of the slice (`settings::external::Failure`).
            let slice = std::panic::AssertUnwindSafe(move || {
                ccsim::sim::stop::arm();
                let reached = sim.run_slice(t, EVENTS_PER_SLICE);
                ccsim::sim::stop::disarm();
                reached
            });
            let reached = match detached(py, self.plugins, move || std::panic::catch_unwind(slice)) {
                Ok(reached) => reached,
                Err(payload) => {
                    ccsim::sim::stop::disarm();
                    let e = plugin_error(py, payload);
                    self.failed = Some(e.value(py).to_string());
                    return Err(e);
                }
            };
            if let Some(stall) = &self.sim.stalled {
                if stall.reason == ccsim::engine::StallReason::Interrupted {
                    py.check_signals()?;
                }
                let e = ccsim::scenario::ScenarioError { origin: self.origin.clone(), path: stall.path.clone(), message: stall.message() };
                break Err(scenario_error(py, e));
            }
            if reached {
                break Ok(());
            }
            if let Err(e) = py.check_signals() {
                break Err(e);
            }
        };
        let sim = &mut self.sim;
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || sim.advance_links())) {
            let e = plugin_error(py, payload);
            self.failed = Some(e.value(py).to_string());
            return Err(e);
        }
        result
    }

    /// Current simulated time, seconds.
    #[getter]
    fn now(&self) -> f64 {
        secs(self.sim.now)
    }

    /// The scenario's stop time (its duration), seconds.
    #[getter]
    fn stop_time(&self) -> f64 {
        secs(self.sim.stop_at)
    }

    /// Events handled so far.
    #[getter]
    fn events_processed(&self) -> u64 {
        self.sim.events_processed
    }

    /// Flushes the scenario's capture files (none: does nothing). Raises `ScenarioError`
    /// against the capture's field (`pcap[0].file`), naming the file, if writing one failed
    /// during the run; that capture is removed.
    fn finish_traces(&mut self, py: Python<'_>) -> PyResult<()> {
        let sim = &mut self.sim;
        detached(py, self.plugins, move || sim.finish_traces())
            .map_err(|(path, message)| scenario_error(py, ccsim::scenario::ScenarioError { origin: self.origin.clone(), path, message }))
    }

    /// The capture files the scenario writes, in `[[pcap]]` order.
    #[getter]
    fn pcap_files(&self) -> Vec<String> {
        self.sim.trace.as_ref().map_or_else(Vec::new, |t| t.files().map(|p| p.display().to_string()).collect())
    }

    /// The per-packet event log up to now, or None when the scenario keeps none: a dict
    /// with `records` (bytes: `record_bytes`-byte little-endian structs, laid out as
    /// `ccsim::trace::packet_log` documents), `not_kept` (events past `max_events`), and the
    /// names the records' indices refer to: `nodes`, `links`, `flows`, `events`,
    /// `drop_reasons`, `packet_kinds`, `ecn_codepoints`.
    fn packet_log<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, pyo3::types::PyDict>>> {
        use ccsim::trace::packet_log as pl;
        let Some(log) = self.sim.packet_log.as_ref() else { return Ok(None) };
        let d = pyo3::types::PyDict::new(py);
        let bytes = detached(py, self.plugins, || log.to_bytes(self.sim.now));
        d.set_item("records", pyo3::types::PyBytes::new(py, &bytes))?;
        d.set_item("record_bytes", pl::RECORD_BYTES)?;
        d.set_item("not_kept", log.not_kept)?;
        d.set_item("nodes", self.sim.net.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>())?;
        d.set_item("links", self.sim.net.links.iter().map(|l| l.name.as_str()).collect::<Vec<_>>())?;
        d.set_item("flows", self.sim.flows.iter().map(|f| f.name()).collect::<Vec<_>>())?;
        d.set_item("events", pl::EVENTS.to_vec())?;
        d.set_item("drop_reasons", pl::DROP_REASONS.to_vec())?;
        d.set_item("packet_kinds", pl::PACKET_KINDS.to_vec())?;
        d.set_item("ecn_codepoints", pl::ECN_CODEPOINTS.to_vec())?;
        Ok(Some(d))
    }

    /// The report (measured from the end of the warm-up to now) as a JSON string.
    fn report_json(&mut self, py: Python<'_>) -> String {
        let sim = &mut self.sim;
        detached(py, self.plugins, move || Report::new(sim).to_json())
    }

    /// The report without its tables that grow with the network (flows, links, nodes),
    /// and with the rows of the queues named in `queues` only, as a JSON string: the totals
    /// and a few queues of a run of a hundred thousand flows, without writing and parsing a
    /// report of hundreds of megabytes.
    #[pyo3(signature = (queues = Vec::new()))]
    fn summary_json(&mut self, py: Python<'_>, queues: Vec<String>) -> String {
        let sim = &mut self.sim;
        detached(py, self.plugins, move || {
            let mut r = Report::of(sim, Scope::Summary { queues: &queues });
            r.flows.clear();
            r.to_json()
        })
    }

    fn __repr__(&self) -> String {
        format!("<Simulation {:?} at {:.6} s of {:.6} s>", self.sim.name, self.now(), self.stop_time())
    }
}

/// The JSON Schema (draft 2020-12) of the report, as a JSON string: every field with its
/// type and, from the core's doc comments, its description, objects' properties in the order
/// of the report's JSON. The single description of the results: the Python tables' column
/// types and `docs/results-schema.md` are made from it.
#[pyfunction]
fn report_schema() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12().for_serialize().into_generator().into_root_schema_for::<Report>();
    serde_json::to_string(&schema).expect("a schema always serializes")
}

/// Runs node `name` of a scenario on a real UDP socket until the run ends; returns its report
/// as JSON (see `ccsim_live::report::NodeReport`). With `rendezvous`, the node binds a free
/// port, prints `READY <address>` and reads its peers and start time as one JSON line from
/// stdin (how `ccsim live run` starts nodes); otherwise every address comes from the
/// scenario's `[live.nodes]` and the run starts at unix time `start_unix` (None: now).
/// The GIL is released while the node runs. Raises `ValueError` with a message for the user.
#[pyfunction]
#[pyo3(signature = (text, origin, overrides, name, rendezvous, start_unix = None, out_dir = None))]
#[allow(clippy::too_many_arguments)]
fn live_node(
    py: Python<'_>,
    text: &str,
    origin: &str,
    overrides: Vec<String>,
    name: &str,
    rendezvous: bool,
    start_unix: Option<f64>,
    out_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let meeting = if rendezvous { ccsim_live::Meeting::Rendezvous } else { ccsim_live::Meeting::Fixed { start_unix } };
    let (text, origin, name) = (text.to_owned(), origin.to_owned(), name.to_owned());
    py.detach(move || ccsim_live::node_process(&text, &origin, &overrides, &name, meeting, out_dir.as_deref())).map_err(PyValueError::new_err)
}

/// Checks a scenario for a kernel run (`ccsim kernel run`); returns what the run needs
/// (nodes, links, flows with their kernel congestion control, MTU) as JSON. Raises
/// `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", overrides = Vec::new()))]
fn kernel_plan(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<String> {
    match ccsim_live::kernel::KernelPlan::load(text, origin, &overrides) {
        Ok(p) => Ok(p.summary()),
        Err(e) => Err(scenario_error(py, e)),
    }
}

/// The router process of a kernel run (`ccsim_live::kernel::router_process`): makes a TUN
/// device in each host's namespace, prints `READY`, waits for a line on stdin, carries the
/// hosts' IP packets through the scenario's links and queues until the run ends, and returns
/// its report as JSON. The GIL is released while it runs. Raises `ValueError`.
/// Each router in `pcap` writes `NAME.pcap` into `out_dir`.
#[pyfunction]
#[pyo3(signature = (text, origin, overrides, namespaces, ifname, interval_s, pcap = Vec::new(), out_dir = None))]
#[allow(clippy::too_many_arguments)]
fn kernel_router(
    py: Python<'_>,
    text: &str,
    origin: &str,
    overrides: Vec<String>,
    namespaces: Vec<String>,
    ifname: &str,
    interval_s: f64,
    pcap: Vec<String>,
    out_dir: Option<std::path::PathBuf>,
) -> PyResult<String> {
    let (text, origin, ifname) = (text.to_owned(), origin.to_owned(), ifname.to_owned());
    py.detach(move || ccsim_live::kernel::router_process(&text, &origin, &overrides, &namespaces, &ifname, interval_s, &pcap, out_dir.as_deref()))
        .map_err(PyValueError::new_err)
}

/// Checks a scenario for a live run; returns the node names in order, each with whether it
/// is a router, as JSON. Raises `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", overrides = Vec::new()))]
fn live_plan(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<String> {
    match ccsim_live::plan::Plan::load(text, origin, &overrides) {
        Ok(p) => Ok(ccsim_live::plan_summary(&p)),
        Err(e) => Err(scenario_error(py, e)),
    }
}

/// Runs the simulated twin of a live run to its end (`ccsim live twin`): the scenario's
/// simulation with its flakeways on the links into their nodes (`ccsim_live::twin`);
/// returns the simulator's report as JSON, the GIL released. Raises `ScenarioError`.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", overrides = Vec::new()))]
fn live_twin(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<String> {
    let (text, origin_owned) = (text.to_owned(), origin.to_owned());
    py.detach(move || ccsim_live::twin::run(&text, &origin_owned, &overrides)).map_err(|e| scenario_error(py, e))
}

/// The scenario as the builder expands it, without running it (`ccsim show`), as a JSON
/// string: nodes, links and their queues, flows with their routes, the settings in force
/// and the profile (see `ccsim::scenario::describe`). Raises `ScenarioError` as
/// `Simulation` does.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", overrides = Vec::new(), seed = None))]
fn describe(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>, seed: Option<u64>) -> PyResult<String> {
    import_plugins(py, text, origin)?;
    ccsim::scenario::describe::describe(text, origin, &overrides, seed).map(|v| v.to_string()).map_err(|e| scenario_error(py, e))
}

/// The durations of a scenario written as bare numbers other than 0 (read as seconds), as
/// a list of `(field path, seconds)`, for a warning (`ccsim run`); empty for a scenario that
/// does not load. See `ccsim::scenario::bare_durations`.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", overrides = Vec::new()))]
fn bare_durations(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> Vec<(String, f64)> {
    let (text, origin) = (text.to_owned(), origin.to_owned());
    py.detach(move || ccsim::scenario::bare_durations(&text, &origin, &overrides))
}

/// Ctrl-C during a run: a SIGINT handler that asks the run to stop and then calls the
/// handler it replaced (Python's, which makes `check_signals` raise `KeyboardInterrupt`).
#[cfg(unix)]
mod interrupt {
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The replaced handler (`sa_sigaction`) and its flags.
    static PREVIOUS: AtomicUsize = AtomicUsize::new(0);
    static PREVIOUS_FLAGS: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn on_sigint(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        ccsim::sim::stop::request();
        let previous = PREVIOUS.load(Ordering::Relaxed);
        if previous == libc::SIG_DFL || previous == libc::SIG_IGN {
            return;
        }
        // SAFETY: `previous` is the handler that was installed for SIGINT, of the kind its
        // flags say, called as the kernel would have called it.
        unsafe {
            if PREVIOUS_FLAGS.load(Ordering::Relaxed) as libc::c_int & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(previous);
                f(sig, info, context);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(previous);
                f(sig);
            }
        }
    }

    /// Puts the handler in front of SIGINT's, unless it is there already or SIGINT is
    /// ignored or left to its default (which ends the process anyway). Python replaces it
    /// when a program sets its own handler (`signal.signal`); the next run puts it back in
    /// front of that one.
    pub fn install() {
        // SAFETY: sigaction with valid pointers; the handler only touches atomics and calls
        // the handler it replaced.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGINT, std::ptr::null(), &mut current) != 0 {
                return;
            }
            let ours = on_sigint as *const () as usize;
            if current.sa_sigaction == ours || current.sa_sigaction == libc::SIG_DFL || current.sa_sigaction == libc::SIG_IGN {
                return;
            }
            PREVIOUS_FLAGS.store(current.sa_flags as usize, Ordering::Relaxed);
            PREVIOUS.store(current.sa_sigaction, Ordering::Relaxed);
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = ours;
            action.sa_flags = libc::SA_SIGINFO | (current.sa_flags & (libc::SA_RESTART | libc::SA_ONSTACK));
            action.sa_mask = current.sa_mask;
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
mod interrupt {
    /// No handler of the core's: Ctrl-C is seen between slices only.
    pub fn install() {}
}

/// Version of the simulation core.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// How the core was compiled: "profile-guided" (`pip install .` where the toolchain allows:
/// packaging/pgo.py), "instrumented" (the build that writes the profile) or "plain".
#[pyfunction]
fn build() -> &'static str {
    env!("CCSIM_BUILD_KIND")
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("PluginError", m.py().get_type::<PluginError>())?;
    plugins::add(m)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(report_schema, m)?)?;
    m.add_function(wrap_pyfunction!(live_node, m)?)?;
    m.add_function(wrap_pyfunction!(live_plan, m)?)?;
    m.add_function(wrap_pyfunction!(live_twin, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_plan, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_router, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(bare_durations, m)?)?;
    Ok(())
}
