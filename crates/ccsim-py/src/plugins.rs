//! Plug-ins written in Python: congestion controls, queue disciplines and router mechanisms
//! as classes (`python/ccsim/plugins.py` documents them for their authors).
//!
//! Each kind has a base class here (`CongestionControlBase`, `QueueDisciplineBase`,
//! `RouterMechanismBase`) holding what the core reads after every hook (the window, the
//! effects asked for) and what the plug-in is given (its random stream, its link's rate);
//! `register_*` puts a class in the core's plug-in list of its kind
//! (`ccsim::settings::external`), and the core builds one instance per flow, link or
//! `[[mechanisms]]` table, calling `cls(**settings)`.
//!
//! A hook runs with the GIL: a simulation whose scenario may use plug-ins runs without
//! releasing it (`lib.rs`). An exception in a hook, or a value the core cannot use (a negative
//! window, NaN), stops the run by unwinding with a [`Failure`], which `Simulation.run_until`
//! turns into `PluginError`.

use ccsim::net::{LinkId, NodeId, NodeKind, Packet, Routes};
use ccsim::packet::{AccState, Endpoints, Kind, Seq};
use ccsim::queue::external::{ExternalAqm, Plugin as AqmPlugin};
use ccsim::queue::{Aqm, Head, Occupancy, QueueContext, Verdict};
use ccsim::router::external::{ExternalMechanism, Plugin as MechanismPlugin};
use ccsim::router::{BuildContext, Cx, Hooks, Passage, RouterMechanism, Timer};
use ccsim::settings::external::{Failure, Site};
use ccsim::settings::table::{SettingError, Table};
use ccsim::signal::Action;
use ccsim::sim::{Rng, SimTime};
use ccsim::tcp::cc::external::{Configured, ExternalController, Plugin as CcPlugin};
use ccsim::tcp::cc::{Ack, CcContext, Controller, EcnUse, Event, NewRenoConfig, Recovery, Signal, Window};
use ccsim::tcp::rate::RateSample;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyType};
use pyo3::{intern, IntoPyObjectExt};
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Whether any plug-in was ever registered in this process: a scenario is then built with
/// the GIL held.
pub static ANY: AtomicBool = AtomicBool::new(false);

/// Plug-in instances built so far in this process: a simulation whose build changed it uses
/// plug-ins, and runs with the GIL held.
static BUILT: AtomicU64 = AtomicU64::new(0);

pub fn built() -> u64 {
    BUILT.load(Ordering::Relaxed)
}

fn count_built() {
    BUILT.fetch_add(1, Ordering::Relaxed);
}

fn secs(t: SimTime) -> f64 {
    t.as_nanos() as f64 / 1e9
}

// ---------------------------------------------------------------------------------------
// What every plug-in is given: its random stream, and its place.

/// A run's named random stream (xoshiro256**, the core's `Rng`): the only randomness a
/// plug-in should draw, so that the same scenario and seed give the same results.
#[pyclass(module = "ccsim._core")]
pub struct Random {
    rng: Rng,
}

#[pymethods]
impl Random {
    /// A stream of its own, seeded with `seed` (for tests; a run gives each plug-in its own).
    #[new]
    #[pyo3(signature = (seed = 1))]
    fn new(seed: u64) -> Random {
        Random { rng: Rng::from_seed(seed) }
    }
    /// Uniform in [0, 1), 53 bits.
    fn uniform(&mut self) -> f64 {
        self.rng.uniform()
    }
    /// Uniform in [lo, hi).
    fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        self.rng.uniform_range(lo, hi)
    }
    /// Exponential with mean `mean`.
    fn exponential(&mut self, mean: f64) -> f64 {
        self.rng.exponential(mean)
    }
    /// True with probability `p` (draws nothing when `p <= 0`).
    fn bernoulli(&mut self, p: f64) -> bool {
        self.rng.bernoulli(p)
    }
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// What an instance is given before its `__init__` runs (the base class's `__new__` takes it).
struct Pending {
    rng: Rng,
    site: String,
    link_bps: u64,
    limit: Limits,
}

thread_local! {
    static PENDING: RefCell<Option<Pending>> = const { RefCell::new(None) };
}

/// A buffer limit: in packets, or in bytes.
type Limits = (Option<u32>, Option<u64>);

/// The base's share of a new instance: the pending stream and place, or a stream seeded 1
/// for an instance made outside a run.
fn take_pending(py: Python<'_>) -> PyResult<(Py<Random>, String, u64, Limits)> {
    let p = PENDING.with(|p| p.borrow_mut().take());
    let (rng, site, bps, limit) = match p {
        Some(p) => (p.rng, p.site, p.link_bps, p.limit),
        None => (Rng::from_seed(1), String::new(), 0, (None, None)),
    };
    Ok((Py::new(py, Random { rng })?, site, bps, limit))
}

/// `cls(**settings)` with `pending` handed to its base; an exception is a setting error of
/// the table (its message the exception's).
fn instantiate<'py>(py: Python<'py>, cls: &Py<PyType>, table: &Table, pending: Pending) -> Result<Bound<'py, PyAny>, SettingError> {
    let kwargs = table_to_dict(py, table).map_err(|e| SettingError::new("", e.to_string()))?;
    PENDING.with(|p| *p.borrow_mut() = Some(pending));
    let made = cls.bind(py).call((), Some(&kwargs));
    PENDING.with(|p| p.borrow_mut().take());
    made.map_err(|e| SettingError::new("", format!("{} raised {}", cls_name(py, cls), one_line(py, &e))))
}

fn cls_name(py: Python<'_>, cls: &Py<PyType>) -> String {
    cls.bind(py).qualname().map(|n| n.to_string()).unwrap_or_else(|_| "the plug-in".into())
}

/// `TypeError: message`, on one line.
fn one_line(py: Python<'_>, e: &PyErr) -> String {
    let ty = e.get_type(py).qualname().map(|n| n.to_string()).unwrap_or_default();
    format!("{ty}: {}", e.value(py))
}

/// The exception with its traceback, as Python prints it.
fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = (|| -> PyResult<String> {
        let tb = py.import("traceback")?;
        let lines = tb.call_method1("format_exception", (e.get_type(py), e.value(py), e.traceback(py)))?;
        Ok(lines.extract::<Vec<String>>()?.concat())
    })();
    formatted.unwrap_or_else(|_| one_line(py, e)).trim_end().to_string()
}

fn toml_to_py<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.into_bound_py_any(py)?,
        toml::Value::Integer(i) => i.into_bound_py_any(py)?,
        toml::Value::Float(f) => f.into_bound_py_any(py)?,
        toml::Value::Boolean(b) => b.into_bound_py_any(py)?,
        toml::Value::Datetime(d) => d.to_string().into_bound_py_any(py)?,
        toml::Value::Array(a) => PyList::new(py, a.iter().map(|x| toml_to_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any(),
        toml::Value::Table(t) => table_to_dict(py, t)?.into_any(),
    })
}

fn table_to_dict<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, toml_to_py(py, v)?)?;
    }
    Ok(d)
}

/// Where a hook runs, for its failure: the plug-in, its place, the hook's time.
#[derive(Clone, Debug)]
struct Place {
    plugin: Arc<str>,
    site: Arc<str>,
}

impl Place {
    fn fail(&self, hook: &'static str, at: impl Into<Option<SimTime>>, message: String) -> ! {
        Failure { plugin: self.plugin.to_string(), hook, site: self.site.to_string(), at: at.into(), message }.raise()
    }
    fn raised(&self, py: Python<'_>, hook: &'static str, at: impl Into<Option<SimTime>>, e: PyErr) -> ! {
        self.fail(hook, at, format!("{}\n{}", one_line(py, &e), traceback(py, &e)))
    }
}

/// The overridden hooks of a class, by name, from the list the Python side computed.
#[derive(Clone, Copy, Debug, Default)]
struct Overrides(u32);

impl Overrides {
    fn of(names: &[String], all: &[&str]) -> PyResult<Overrides> {
        let mut bits = 0;
        for n in names {
            let Some(i) = all.iter().position(|h| h == n) else {
                return Err(PyValueError::new_err(format!("unknown hook {n:?} (hooks: {})", all.join(", "))));
            };
            bits |= 1 << i;
        }
        Ok(Overrides(bits))
    }
    fn has(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }
}

// ---------------------------------------------------------------------------------------
// Congestion control.

const CC_HOOKS: &[&str] = &["on_ack", "reduce", "on_loss", "on_ecn", "on_timeout", "on_rate_sample"];
const ON_ACK: usize = 0;
const REDUCE: usize = 1;
const ON_LOSS: usize = 2;
const ON_ECN: usize = 3;
const ON_TIMEOUT: usize = 4;
const ON_RATE_SAMPLE: usize = 5;

/// The base of a Python congestion control: the window the sender reads after every hook.
#[pyclass(subclass, module = "ccsim._core")]
pub struct CongestionControlBase {
    cwnd: f64,
    ssthresh: f64,
    /// Bytes per segment (SMSS).
    #[pyo3(get)]
    mss: u32,
    /// The rate to pace new data at, bytes per second (for a class with `paces = True`).
    #[pyo3(get, set)]
    pacing_rate: Option<f64>,
    /// The flow's random stream.
    #[pyo3(get)]
    rng: Py<Random>,
    /// The flow, `group[index]`.
    #[pyo3(get)]
    flow: String,
}

/// A window value as Python reads it: an int where it is whole.
fn number(py: Python<'_>, v: f64) -> PyResult<Py<PyAny>> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15 {
        (v as i64).into_py_any(py)
    } else {
        v.into_py_any(py)
    }
}

#[pymethods]
impl CongestionControlBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let (rng, flow, _, _) = take_pending(py)?;
        Ok(CongestionControlBase { cwnd: 0.0, ssthresh: 0.0, mss: 0, pacing_rate: None, rng, flow })
    }
    /// The congestion window, bytes.
    #[getter]
    fn get_cwnd(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        number(py, self.cwnd)
    }
    #[setter]
    fn set_cwnd(&mut self, v: f64) {
        self.cwnd = v;
    }
    /// The slow-start threshold, bytes.
    #[getter]
    fn get_ssthresh(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        number(py, self.ssthresh)
    }
    #[setter]
    fn set_ssthresh(&mut self, v: f64) {
        self.ssthresh = v;
    }
}

/// An ACK of new data (`Controller::on_ack`'s `Ack`). Times in seconds, sizes in bytes.
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct AckInfo {
    now: f64,
    acked: u64,
    una: u64,
    max: u64,
    flight: u64,
    ece: bool,
    cwnd_limited: bool,
    rtt: Option<f64>,
    srtt: Option<f64>,
}

impl AckInfo {
    fn of(a: &Ack) -> AckInfo {
        AckInfo {
            now: secs(a.now),
            acked: a.acked,
            una: a.una,
            max: a.max,
            flight: a.max - a.una,
            ece: a.ece,
            cwnd_limited: a.cwnd_limited,
            rtt: a.rtt.map(|d| d.as_secs_f64()),
            srtt: a.srtt.map(|d| d.as_secs_f64()),
        }
    }
}

/// A duplicate ACK, a congestion signal, a timeout (`Controller`'s `Event`).
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct EventInfo {
    now: f64,
    flight: u32,
    dupacks: u32,
    backoffs: u32,
    rwnd: u32,
    ecn_answered: bool,
}

impl EventInfo {
    fn of(e: &Event) -> EventInfo {
        EventInfo { now: secs(e.now), flight: e.flight, dupacks: e.dupacks, backoffs: e.backoffs, rwnd: e.rwnd, ecn_answered: e.ecn_answered }
    }
}

/// A delivery-rate sample (`tcp/rate.rs`): `delivery_rate` is `delivered / interval`,
/// bytes per second (0 for an empty interval).
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct RateInfo {
    /// When the ACK that gave the sample arrived, seconds.
    now: f64,
    delivered: u64,
    interval: f64,
    delivery_rate: f64,
    rtt: Option<f64>,
    prior_in_flight: u64,
    is_app_limited: bool,
    total_delivered: u64,
}

impl RateInfo {
    fn of(rs: &RateSample) -> RateInfo {
        let interval = rs.interval.as_secs_f64();
        RateInfo {
            now: secs(rs.now),
            delivered: rs.delivered,
            interval,
            delivery_rate: if interval > 0.0 { rs.delivered as f64 / interval } else { 0.0 },
            rtt: rs.rtt.map(|d| d.as_secs_f64()),
            prior_in_flight: rs.prior_in_flight,
            is_app_limited: rs.is_app_limited,
            total_delivered: rs.total_delivered,
        }
    }
}

struct CcClass {
    name: Arc<str>,
    cls: Py<PyType>,
    recovery: Recovery,
    ecn: EcnUse,
    hooks: Overrides,
    paces: bool,
}

impl CcPlugin for CcClass {
    fn recovery(&self) -> Recovery {
        self.recovery
    }
    fn ecn(&self) -> EcnUse {
        self.ecn
    }
    fn configure(&self, table: &Table, ctx: &CcContext, site: Site) -> Result<Arc<dyn Configured>, SettingError> {
        Python::attach(|py| {
            let place = Place { plugin: self.name.clone(), site: Arc::from(format!("flow {}", site.name)) };
            let pending = Pending { rng: site.rng, site: site.name, link_bps: 0, limit: (None, None) };
            let obj = instantiate(py, &self.cls, table, pending)?;
            count_built();
            let obj = obj.cast_into::<CongestionControlBase>().map_err(|_| SettingError::new("", "not a ccsim.CongestionControl"))?.unbind();
            Ok(Arc::new(CcInstance { obj, window: ctx.window.clone(), hooks: self.hooks, paces: self.paces, place }) as Arc<dyn Configured>)
        })
    }
}

struct CcInstance {
    obj: Py<CongestionControlBase>,
    window: NewRenoConfig,
    hooks: Overrides,
    paces: bool,
    place: Place,
}

impl fmt::Debug for CcInstance {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "plug-in {:?} ({})", self.place.plugin, self.place.site)
    }
}

impl Configured for CcInstance {
    fn build(&self, mss: u32, init_cwnd: u32, init_ssthresh: u32) -> Box<dyn ExternalController> {
        let w = self.window.window(mss, init_cwnd, init_ssthresh);
        let obj = Python::attach(|py| {
            let mut b = self.obj.bind(py).borrow_mut();
            b.mss = mss;
            b.cwnd = w.cwnd as f64;
            b.ssthresh = w.ssthresh as f64;
            self.obj.clone_ref(py)
        });
        Box::new(PyController { obj, w, hooks: self.hooks, paces: self.paces, place: self.place.clone(), now: SimTime::ZERO })
    }
}

/// A flow's Python controller: the core's window, synchronised with the instance's
/// `cwnd` and `ssthresh` around every hook; hooks the class does not define are the window's
/// standard rules.
struct PyController {
    obj: Py<CongestionControlBase>,
    w: Window,
    hooks: Overrides,
    paces: bool,
    place: Place,
    now: SimTime,
}

impl fmt::Debug for PyController {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "plug-in {:?} ({}): {:?}", self.place.plugin, self.place.site, self.w)
    }
}

/// A window value the core can hold: whole bytes (rounded down), finite, at least `least`.
fn window_value(what: &str, v: f64, least: u32) -> Result<u32, String> {
    if v.is_nan() || v < least as f64 || v >= 4_294_967_296.0 {
        let shown = if v.is_finite() && v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v}") };
        return Err(format!("{what} = {shown}: must be a number of bytes from {least} to 4294967295"));
    }
    Ok(v as u32)
}

impl PyController {
    /// Calls the hook `hook` with the window handed over and taken back.
    fn call<R>(&mut self, hook: &'static str, now: SimTime, f: impl FnOnce(Python<'_>, &Bound<'_, CongestionControlBase>) -> PyResult<R>) -> R {
        self.now = now;
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            {
                let mut b = obj.borrow_mut();
                b.cwnd = self.w.cwnd as f64;
                b.ssthresh = self.w.ssthresh as f64;
            }
            let out = f(py, obj).unwrap_or_else(|e| self.place.raised(py, hook, now, e));
            let b = obj.borrow();
            let cwnd = window_value("cwnd", b.cwnd, 1);
            let ssthresh = window_value("ssthresh", b.ssthresh, 0);
            match (cwnd, ssthresh) {
                (Ok(c), Ok(s)) => {
                    self.w.cwnd = c;
                    self.w.ssthresh = s;
                }
                (Err(m), _) | (_, Err(m)) => self.place.fail(hook, now, m),
            }
            out
        })
    }

    fn event_hook(&mut self, hook: &'static str, ev: &Event) {
        self.call(hook, ev.now, |py, obj| obj.call_method1(pyo3::types::PyString::intern(py, hook), (EventInfo::of(ev),)).map(drop));
    }
}

/// The trait's default rules for a controller, with `reduce` and `on_ack` still the plug-in's.
struct Standard<'a>(&'a mut PyController);

impl Controller for Standard<'_> {
    fn window(&self) -> &Window {
        &self.0.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.0.w
    }
    fn on_ack(&mut self, ack: &Ack) {
        self.0.on_ack(ack)
    }
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
        self.0.reduce(ev, signal)
    }
}

impl Controller for PyController {
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn on_ack(&mut self, ack: &Ack) {
        if !self.hooks.has(ON_ACK) {
            self.w.grow(ack);
            return;
        }
        self.call("on_ack", ack.now, |py, obj| obj.call_method1(intern!(py, "on_ack"), (AckInfo::of(ack),)).map(drop));
    }
    fn reduce(&mut self, ev: &Event, signal: Signal) -> u32 {
        if !self.hooks.has(REDUCE) {
            return self.w.reduce(ev);
        }
        let name = match signal {
            Signal::Loss => "loss",
            Signal::Ecn => "ecn",
            Signal::Timeout => "timeout",
        };
        let place = self.place.clone();
        let left = self.call("reduce", ev.now, |py, obj| obj.call_method1(intern!(py, "reduce"), (EventInfo::of(ev), name))?.extract::<f64>());
        window_value("reduce's window", left, 1).unwrap_or_else(|m| place.fail("reduce", ev.now, m))
    }
    fn on_fast_retransmit(&mut self, ev: &Event) {
        if !self.hooks.has(ON_LOSS) {
            return Standard(self).on_fast_retransmit(ev);
        }
        self.event_hook("on_loss", ev);
        let left = self.w.cwnd;
        self.w.set_base(left);
    }
    fn on_timeout(&mut self, ev: &Event) {
        if !self.hooks.has(ON_TIMEOUT) {
            return Standard(self).on_timeout(ev);
        }
        self.event_hook("on_timeout", ev);
        // Whatever window the hook left, the timeout ends any fast recovery.
        let cwnd = self.w.cwnd;
        self.w.collapse();
        self.w.cwnd = cwnd;
    }
    fn on_ecn_echo(&mut self, ev: &Event) {
        if !self.hooks.has(ON_ECN) {
            return Standard(self).on_ecn_echo(ev);
        }
        self.event_hook("on_ecn", ev);
    }
    fn wants_rate_samples(&self) -> bool {
        self.hooks.has(ON_RATE_SAMPLE)
    }
    fn on_rate_sample(&mut self, rs: &RateSample) {
        let now = self.now;
        self.call("on_rate_sample", now, |py, obj| obj.call_method1(intern!(py, "on_rate_sample"), (RateInfo::of(rs),)).map(drop));
    }
    fn paces(&self) -> bool {
        self.paces
    }
    fn pacing_rate(&self) -> Option<f64> {
        let rate = Python::attach(|py| self.obj.bind(py).borrow().pacing_rate);
        match rate {
            Some(r) if !(r > 0.0 && r.is_finite()) => {
                self.place.fail("pacing_rate", self.now, format!("pacing_rate = {r}: must be a positive number of bytes per second, or None"))
            }
            r => r,
        }
    }
}

impl ExternalController for PyController {
    fn clone_box(&self) -> Box<dyn ExternalController> {
        let obj = Python::attach(|py| self.obj.clone_ref(py));
        Box::new(PyController { obj, w: self.w.clone(), hooks: self.hooks, paces: self.paces, place: self.place.clone(), now: self.now })
    }
}

fn recovery_of(s: &str) -> PyResult<Recovery> {
    match s {
        "reno" => Ok(Recovery::Reno),
        "newreno" => Ok(Recovery::NewReno),
        other => Err(PyValueError::new_err(format!("recovery = {other:?}: expected \"reno\" or \"newreno\""))),
    }
}

/// Registers `cls` (a subclass of `CongestionControlBase`) as `tcp.variant = name`;
/// `hooks` are the hooks it defines. Called by `ccsim.register_cc`.
#[pyfunction]
pub fn register_cc(name: &str, cls: Bound<'_, PyType>, recovery: &str, ecn: &str, hooks: Vec<String>, paces: bool) -> PyResult<()> {
    if !cls.is_subclass_of::<CongestionControlBase>()? {
        return Err(PyTypeError::new_err(format!("{name:?}: the class must derive from ccsim.CongestionControl")));
    }
    let ecn = match ecn {
        "optional" => EcnUse::Optional,
        "per-packet" => EcnUse::PerPacket,
        other => return Err(PyValueError::new_err(format!("ecn = {other:?}: expected \"optional\" or \"per-packet\""))),
    };
    if ccsim::tcp::cc::spec::find(name).is_some() {
        return Err(PyValueError::new_err(format!("{name:?} is a built-in congestion control: choose another name")));
    }
    let hooks = Overrides::of(&hooks, CC_HOOKS)?;
    let plugin = CcClass { name: Arc::from(name), cls: cls.unbind(), recovery: recovery_of(recovery)?, ecn, hooks, paces };
    ccsim::tcp::cc::external::PLUGINS.register(name, Arc::new(plugin));
    ANY.store(true, Ordering::Relaxed);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The packet, as plug-ins read it.

/// A packet: a copy of the one the hook is about, read-only except for the routing fields
/// (`ttl`, `tunnel`) of the packet `next_hop` is given.
#[pyclass(module = "ccsim._core", name = "Packet")]
#[derive(Clone)]
pub struct PacketView {
    pub pkt: Packet,
    /// The packet of a `next_hop` call: its routing fields may be rewritten.
    routing: bool,
}

impl PacketView {
    pub fn of(pkt: Packet) -> PacketView {
        PacketView { pkt, routing: false }
    }

    /// A routing field may be set: only on `next_hop`'s packet, to a whole number in range.
    fn field(&self, name: &str, v: &Bound<'_, PyAny>, least: u32, max: u32) -> PyResult<u32> {
        if !self.routing {
            return Err(bad_field("Packet", name, v, "only the packet next_hop is given may be rewritten (its ttl and tunnel)"));
        }
        whole_upto(v, max).filter(|n| *n >= least).ok_or_else(|| bad_field("next_hop", name, v, &format!("must be a whole number from {least} to {max}")))
    }
}

#[pymethods]
impl PacketView {
    /// `tcp_data`, `tcp_ack`, `spoofed_ack`, `acc_control`, `udp`, `rdp_data`, `rdp_ack`.
    #[getter]
    fn kind(&self) -> String {
        format!("{:?}", self.pkt.kind).chars().fold(String::new(), |mut s, c| {
            if c.is_uppercase() && !s.is_empty() {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
            s
        })
    }
    /// The flow's index in the scenario's order.
    #[getter]
    fn flow(&self) -> u32 {
        self.pkt.flow
    }
    #[getter]
    fn src(&self) -> u32 {
        self.pkt.src
    }
    #[getter]
    fn dst(&self) -> u32 {
        self.pkt.dst
    }
    /// Bytes on the wire, headers included.
    #[getter]
    fn size(&self) -> u32 {
        self.pkt.size
    }
    /// Bytes of payload.
    #[getter]
    fn payload(&self) -> u32 {
        self.pkt.payload
    }
    #[getter]
    fn ttl(&self) -> u8 {
        self.pkt.ttl
    }
    /// In `next_hop`: the TTL the packet leaves with (1 to 255; this router has already
    /// decremented it). Fast reroute's tunnel undoes the decrement inside a repair path.
    #[setter]
    fn set_ttl(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.pkt.ttl = self.field("ttl", v, 1, u8::MAX as u32)? as u8;
        Ok(())
    }
    /// The repair path the packet is tunnelled along, 1 + its index, or 0 outside a tunnel
    /// (the field fast reroute's explicit repair paths use; one number space for every
    /// mechanism of the run).
    #[getter]
    fn tunnel(&self) -> u16 {
        self.pkt.tunnel
    }
    /// In `next_hop`: puts the packet in tunnel `v` (0: out of any tunnel), 0 to 65535.
    #[setter]
    fn set_tunnel(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        self.pkt.tunnel = self.field("tunnel", v, 0, u16::MAX as u32)? as u16;
        Ok(())
    }
    /// The sequence number (bytes from the initial one).
    #[getter]
    fn seq(&self) -> u64 {
        self.pkt.seq.0 as u64
    }
    /// The acknowledgment number.
    #[getter]
    fn ack(&self) -> u64 {
        self.pkt.ack.0 as u64
    }
    /// `not_ect`, `ect1`, `ect0` or `ce`.
    #[getter]
    fn ecn(&self) -> &'static str {
        match self.pkt.ecn {
            ccsim::packet::Ecn::NotEct => "not_ect",
            ccsim::packet::Ecn::Ect1 => "ect1",
            ccsim::packet::Ecn::Ect0 => "ect0",
            ccsim::packet::Ecn::Ce => "ce",
        }
    }
    /// ECN-capable transport: a mark can replace a drop.
    #[getter]
    fn ect(&self) -> bool {
        self.pkt.ecn != ccsim::packet::Ecn::NotEct
    }
    /// When the packet was sent, seconds.
    #[getter]
    fn sent_at(&self) -> f64 {
        secs(self.pkt.sent_at)
    }
    #[getter]
    fn sport(&self) -> u16 {
        self.pkt.sport
    }
    #[getter]
    fn dport(&self) -> u16 {
        self.pkt.dport
    }
    /// The advertised window, bytes.
    #[getter]
    fn wnd(&self) -> u32 {
        self.pkt.wnd
    }
    /// The TCP flags byte (ACK is 0x10), or RDP's control flags.
    #[getter]
    fn flags(&self) -> u8 {
        self.pkt.flags
    }
    /// True for packets travelling from a flow's receiver toward its sender (ACKs, ACC
    /// controls).
    #[getter]
    fn is_reverse(&self) -> bool {
        self.pkt.is_reverse()
    }
    /// The congestion state an ACC sender's data packet carries (or an ACC control asks for),
    /// else None.
    #[getter]
    fn acc(&self) -> Option<AccInfo> {
        self.pkt.acc.map(|a| AccInfo {
            cwnd: a.cwnd,
            ssthresh: a.ssthresh,
            srtt: a.srtt_us as f64 / 1e6,
            slow_start: a.slow_start,
            fast_recovery: a.fast_recovery,
        })
    }
    fn __repr__(&self) -> String {
        format!("<Packet {} flow {} seq {} size {}>", self.kind(), self.pkt.flow, self.seq(), self.pkt.size)
    }
}

/// The congestion state of ACC (`Packet.acc`): `cwnd` and `ssthresh` (bytes for TCP, packets
/// for RDP), `srtt` (seconds, whole microseconds), `slow_start`, `fast_recovery`.
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct AccInfo {
    cwnd: u32,
    ssthresh: u32,
    srtt: f64,
    slow_start: bool,
    fast_recovery: bool,
}

// ---------------------------------------------------------------------------------------
// Queue disciplines.

const AQM_HOOKS: &[&str] = &["on_arrival", "on_departure", "on_dequeue", "on_overflow"];
const ON_DEPARTURE: usize = 1;
const ON_DEQUEUE: usize = 2;
const ON_OVERFLOW: usize = 3;

/// The base of a Python queue discipline.
#[pyclass(subclass, module = "ccsim._core")]
pub struct QueueDisciplineBase {
    /// The link's random stream (`aqm/<link>`, the one built-in disciplines draw from).
    #[pyo3(get)]
    rng: Py<Random>,
    /// The link, `"R1->R2"`.
    #[pyo3(get)]
    link: String,
    /// The link's rate, bit/s.
    #[pyo3(get)]
    link_bps: u64,
    /// The buffer's limit in packets, or None where it is in bytes.
    #[pyo3(get)]
    limit_packets: Option<u32>,
    /// The buffer's limit in bytes, or None where it is in packets.
    #[pyo3(get)]
    limit_bytes: Option<u64>,
}

#[pymethods]
impl QueueDisciplineBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let (rng, link, link_bps, (limit_packets, limit_bytes)) = take_pending(py)?;
        Ok(QueueDisciplineBase { rng, link, link_bps, limit_packets, limit_bytes })
    }
}

/// The queue as a discipline's hook finds it: `packets` and `bytes` queued (before an
/// arriving packet is added, after a departing one left), and the time.
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct QueueInfo {
    packets: u32,
    bytes: u64,
    /// Seconds.
    now: f64,
    /// Nanoseconds, exact.
    now_ns: u64,
}

impl QueueInfo {
    fn of(occ: Occupancy, now: SimTime) -> QueueInfo {
        QueueInfo { packets: occ.packets, bytes: occ.bytes, now: secs(now), now_ns: now.as_nanos() }
    }
}

/// The head packet a dequeue-time discipline decides on.
#[pyclass(frozen, get_all, module = "ccsim._core")]
pub struct HeadInfo {
    /// Seconds it spent queued.
    sojourn: f64,
    /// Bytes left behind it.
    bytes_left: u64,
}

struct AqmClass {
    name: Arc<str>,
    cls: Py<PyType>,
    hooks: Overrides,
}

impl AqmPlugin for AqmClass {
    fn build(&self, table: &Table, ctx: &QueueContext, site: Site) -> Result<Box<dyn ExternalAqm>, SettingError> {
        Python::attach(|py| {
            let limit = match ctx.limit {
                ccsim::queue::Limit::Packets(n) => (Some(n), None),
                ccsim::queue::Limit::Bytes(b) => (None, Some(b)),
            };
            let place = Place { plugin: self.name.clone(), site: Arc::from(format!("link {}", site.name)) };
            let pending = Pending { rng: site.rng, site: site.name, link_bps: ctx.link_bps, limit };
            let obj = instantiate(py, &self.cls, table, pending)?;
            count_built();
            let obj = obj.cast_into::<QueueDisciplineBase>().map_err(|_| SettingError::new("", "not a ccsim.QueueDiscipline"))?.unbind().into_any();
            Ok(Box::new(PyAqm { obj, hooks: self.hooks, place }) as Box<dyn ExternalAqm>)
        })
    }
}

struct PyAqm {
    obj: Py<PyAny>,
    hooks: Overrides,
    place: Place,
}

impl fmt::Debug for PyAqm {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "plug-in {:?} ({})", self.place.plugin, self.place.site)
    }
}

fn verdict_of(v: &Bound<'_, PyAny>) -> Result<Verdict, String> {
    match v.extract::<i64>() {
        Ok(0) => Ok(Verdict::Admit),
        Ok(1) => Ok(Verdict::Early),
        Ok(2) => Ok(Verdict::Forced),
        Ok(3) => Ok(Verdict::EarlyDrop),
        _ => Err(format!("returned {}: expected ADMIT, EARLY, FORCED or EARLY_DROP", v.repr().map(|r| r.to_string()).unwrap_or_default())),
    }
}

impl PyAqm {
    fn call<R>(&self, hook: &'static str, now: SimTime, f: impl FnOnce(Python<'_>, &Bound<'_, PyAny>) -> PyResult<Result<R, String>>) -> R {
        Python::attach(|py| match f(py, self.obj.bind(py)) {
            Ok(Ok(r)) => r,
            Ok(Err(m)) => self.place.fail(hook, now, format!("{hook} {m}")),
            Err(e) => self.place.raised(py, hook, now, e),
        })
    }
}

impl Aqm for PyAqm {
    fn on_arrival(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime, _rng: &mut Rng) -> Verdict {
        self.call("on_arrival", now, |py, obj| {
            let v = obj.call_method1(intern!(py, "on_arrival"), (PacketView::of(*pkt), QueueInfo::of(occ, now)))?;
            Ok(verdict_of(&v))
        })
    }
    fn on_departure_of(&mut self, occ: Occupancy, departed_bytes: u32, now: SimTime) {
        if self.hooks.has(ON_DEPARTURE) {
            self.call("on_departure", now, |py, obj| {
                obj.call_method1(intern!(py, "on_departure"), (QueueInfo::of(occ, now), departed_bytes))?;
                Ok(Ok(()))
            })
        }
    }
    fn decides_at_dequeue(&self) -> bool {
        self.hooks.has(ON_DEQUEUE)
    }
    fn on_dequeue(&mut self, head: Option<Head>, now: SimTime) -> Verdict {
        self.call("on_dequeue", now, |py, obj| {
            let head = head.map(|h| HeadInfo { sojourn: h.sojourn.as_secs_f64(), bytes_left: h.bytes_left });
            let v = obj.call_method1(intern!(py, "on_dequeue"), (head, secs(now)))?;
            Ok(verdict_of(&v))
        })
    }
    fn on_overflow(&mut self) -> bool {
        if !self.hooks.has(ON_OVERFLOW) {
            return false;
        }
        self.call("on_overflow", SimTime::ZERO, |py, obj| Ok(Ok(obj.call_method0(intern!(py, "on_overflow"))?.is_truthy()?)))
    }
}

impl ExternalAqm for PyAqm {
    fn clone_box(&self) -> Box<dyn ExternalAqm> {
        Box::new(PyAqm { obj: Python::attach(|py| self.obj.clone_ref(py)), hooks: self.hooks, place: self.place.clone() })
    }
    fn name(&self) -> &str {
        &self.place.plugin
    }
}

/// Registers `cls` (a subclass of `QueueDisciplineBase`) as `discipline = name`; `hooks`
/// are the hooks it defines. Called by `ccsim.register_queue`.
#[pyfunction]
pub fn register_queue(name: &str, cls: Bound<'_, PyType>, hooks: Vec<String>) -> PyResult<()> {
    if !cls.is_subclass_of::<QueueDisciplineBase>()? {
        return Err(PyTypeError::new_err(format!("{name:?}: the class must derive from ccsim.QueueDiscipline")));
    }
    if ccsim::queue::spec::find(name).is_some() {
        return Err(PyValueError::new_err(format!("{name:?} is a built-in queue discipline: choose another name")));
    }
    let hooks = Overrides::of(&hooks, AQM_HOOKS)?;
    if !hooks.has(0) {
        return Err(PyTypeError::new_err(format!("{name:?}: a queue discipline defines on_arrival")));
    }
    ccsim::queue::external::PLUGINS.register(name, Arc::new(AqmClass { name: Arc::from(name), cls: cls.unbind(), hooks }));
    ANY.store(true, Ordering::Relaxed);
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Router mechanisms.

const MECHANISM_HOOKS: &[&str] =
    &["on_arrival", "next_hop", "on_verdict", "on_queue_drop", "on_link_change", "on_timer", "claims_loss", "settle", "begin_measurement"];
/// The engine's hook bit of each hook in `MECHANISM_HOOKS` it calls only where asked.
const HOOK_BITS: [(usize, Hooks); 6] =
    [(0, Hooks::ARRIVAL), (1, Hooks::NEXT_HOP), (2, Hooks::VERDICT), (3, Hooks::QUEUE_DROP), (4, Hooks::LINK_CHANGE), (6, Hooks::LOSS)];
const ON_TIMER: usize = 5;
const SETTLE: usize = 7;
const BEGIN_MEASUREMENT: usize = 8;

thread_local! {
    /// The routing tables during a hook that is given the network (`RouterMechanism.route`),
    /// moved out of the network for the call and back after it.
    static ROUTES: RefCell<Option<Routes>> = const { RefCell::new(None) };
}

pyo3::create_exception!(
    ccsim,
    PacketError,
    PyValueError,
    "A router mechanism asked for a packet the simulator cannot send: a field out of its range, a packet of the wrong kind, a node that does not exist. Raised by `RouterMechanism.send` and the packet constructors; in a run it stops the run with a one-line `PluginError` naming the field."
);

/// The base of a Python router mechanism: the effects its hooks ask for, applied by the
/// engine after the hook returns, as a Rust mechanism's `Cx` does, and the packets it may
/// build (those the Rust mechanisms build: `Packet::spoofed_ack`, `Packet::acc_control`).
#[pyclass(subclass, module = "ccsim._core")]
pub struct RouterMechanismBase {
    /// The mechanism's random stream (`mechanism/<index>`).
    #[pyo3(get)]
    rng: Py<Random>,
    /// Node names to their numbers (as hooks give them).
    #[pyo3(get)]
    nodes: Py<PyDict>,
    /// Link names (`"R1->R2"`) to their numbers.
    #[pyo3(get)]
    links: Py<PyDict>,
    /// For each link number, its (head, tail) nodes.
    #[pyo3(get)]
    link_ends: Py<PyList>,
    /// For each link number, its propagation delay in nanoseconds.
    #[pyo3(get)]
    link_delay_ns: Py<PyList>,
    /// For each node number, `"host"` or `"router"`.
    #[pyo3(get)]
    node_kinds: Py<PyList>,
    n_nodes: u32,
    /// Each link's tail, for `path`.
    link_to: Vec<NodeId>,
    /// The time of the hook being run: the send time of the packets it builds.
    now: SimTime,
    sends: Vec<(NodeId, Packet, bool)>,
    timers: Vec<(f64, u32, u32)>,
}

/// Names and numbers, and the links' ends.
type Numbered = Vec<(String, u32)>;

/// What a new mechanism is told of the network.
struct Topology {
    nodes: Numbered,
    links: Numbered,
    ends: Vec<(NodeId, NodeId)>,
    delays_ns: Vec<u64>,
    kinds: Vec<&'static str>,
}

thread_local! {
    /// The nodes and links a new mechanism is given before its `__init__` runs.
    static NAMES: RefCell<Option<Topology>> = const { RefCell::new(None) };
}

fn repr(v: &Bound<'_, PyAny>) -> String {
    v.repr().map(|r| r.to_string()).unwrap_or_default()
}

/// `what: name = value: must be ...` as a `PacketError`.
fn bad_field(what: &str, name: &str, v: &Bound<'_, PyAny>, must: &str) -> PyErr {
    PacketError::new_err(format!("{what}: {name} = {}: {must}", repr(v)))
}

/// `v` if it is a whole number from 0 to `max` (not a bool, not a float).
fn whole_upto(v: &Bound<'_, PyAny>, max: u32) -> Option<u32> {
    let n = v.extract::<i64>().ok().filter(|_| !v.is_instance_of::<pyo3::types::PyBool>())?;
    (0..=max as i64).contains(&n).then_some(n as u32)
}

/// A whole number from 0 to `max`, or an error naming the field.
fn whole(what: &str, name: &str, v: &Bound<'_, PyAny>, max: u32) -> PyResult<u32> {
    whole_upto(v, max).ok_or_else(|| bad_field(what, name, v, &format!("must be a whole number from 0 to {max}")))
}

/// The packet `v` must be, as the core holds it.
fn packet_arg(what: &str, name: &str, v: &Bound<'_, PyAny>) -> PyResult<Packet> {
    match v.cast::<PacketView>() {
        Ok(p) => Ok(p.borrow().pkt),
        Err(_) => Err(bad_field(what, name, v, "must be a ccsim.Packet a hook was given or one a constructor built")),
    }
}

impl RouterMechanismBase {
    fn node(&self, what: &str, v: &Bound<'_, PyAny>) -> PyResult<NodeId> {
        match self.n_nodes.checked_sub(1) {
            None => Err(bad_field(what, "node", v, "not a node number (the mechanism is not in a run)")),
            Some(last) => {
                whole_upto(v, last).ok_or_else(|| bad_field(what, "node", v, &format!("not a node number (0 to {last}; self.nodes maps names to them)")))
            }
        }
    }
}

#[pymethods]
impl RouterMechanismBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let (rng, _, _, _) = take_pending(py)?;
        let (nodes, links) = (PyDict::new(py), PyDict::new(py));
        let t = NAMES.with(|x| x.borrow_mut().take());
        let t = t.unwrap_or(Topology { nodes: vec![], links: vec![], ends: vec![], delays_ns: vec![], kinds: vec![] });
        for (k, v) in &t.nodes {
            nodes.set_item(k, v)?;
        }
        for (k, v) in &t.links {
            links.set_item(k, v)?;
        }
        Ok(RouterMechanismBase {
            rng,
            nodes: nodes.unbind(),
            links: links.unbind(),
            link_ends: PyList::new(py, &t.ends)?.unbind(),
            link_delay_ns: PyList::new(py, &t.delays_ns)?.unbind(),
            node_kinds: PyList::new(py, &t.kinds)?.unbind(),
            n_nodes: t.nodes.len() as u32,
            link_to: t.ends.iter().map(|e| e.1).collect(),
            now: SimTime::ZERO,
            sends: Vec::new(),
            timers: Vec::new(),
        })
    }
    /// The simulated time of the hook being run, nanoseconds (exact; hooks' `now` is seconds).
    #[getter]
    fn now_ns(&self) -> u64 {
        self.now.as_nanos()
    }
    /// The link `node` sends packets for `dst` on now (its routing table's next hop), or
    /// None without a route. Only in the hooks that take a time `now` before it, except
    /// `settle` and `begin_measurement`.
    fn route(&self, node: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<Option<LinkId>> {
        let (node, dst) = (self.node("route", node)?, self.node("route", dst)?);
        with_routes("route", |r| r.next_hop(node, dst))
    }
    /// The links from `src` to `dst` by the routing tables now, or None if there is no
    /// loop-free path (`Routes::path`). Where `route` may be called.
    fn path(&self, src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<Option<Vec<LinkId>>> {
        let (src, dst) = (self.node("path", src)?, self.node("path", dst)?);
        with_routes("path", |r| {
            let (mut path, mut at) = (Vec::new(), src);
            while at != dst {
                let l = r.next_hop(at, dst)?;
                path.push(l);
                at = self.link_to[l as usize];
                if path.len() > self.link_to.len() {
                    return None;
                }
            }
            Some(path)
        })
    }
    /// Sends `pkt` from node `node` once the hook returns.
    fn send(&mut self, node: &Bound<'_, PyAny>, pkt: &Bound<'_, PyAny>) -> PyResult<()> {
        let entry = (self.node("send", node)?, packet_arg("send", "pkt", pkt)?, false);
        self.sends.push(entry);
        Ok(())
    }
    /// In `on_arrival`: sends `pkt` from `node` before the arriving packet goes on.
    fn send_first(&mut self, node: &Bound<'_, PyAny>, pkt: &Bound<'_, PyAny>) -> PyResult<()> {
        let entry = (self.node("send_first", node)?, packet_arg("send_first", "pkt", pkt)?, true);
        self.sends.push(entry);
        Ok(())
    }
    /// Calls `on_timer(a, b, now)` at simulated time `at` (seconds).
    #[pyo3(signature = (at, a = 0, b = 0))]
    fn set_timer(&mut self, at: f64, a: u32, b: u32) {
        self.timers.push((at, a, b));
    }
    /// A TCP ACK a router makes toward the sender of `of`'s flow, as ACK spoofing does
    /// (`Packet::spoofed_ack`): kind `spoofed_ack`, from the flow's receiver to its sender,
    /// acknowledging `ack` with window `wnd` and sequence number `seq`, TTL 64, sent now.
    /// `of` is any TCP packet of the flow, in either direction.
    #[pyo3(signature = (of, ack, wnd, seq = None))]
    fn spoofed_ack(&self, of: &Bound<'_, PyAny>, ack: &Bound<'_, PyAny>, wnd: &Bound<'_, PyAny>, seq: Option<&Bound<'_, PyAny>>) -> PyResult<PacketView> {
        const WHAT: &str = "spoofed_ack";
        let p = packet_arg(WHAT, "of", of)?;
        if !p.is_tcp() {
            return Err(bad_field(WHAT, "of", of, "not a TCP packet: only a TCP flow's sender takes an ACK"));
        }
        let ends = if p.is_reverse() { Endpoints::of_reverse(&p) } else { Endpoints::of_forward(&p) };
        let ack = whole(WHAT, "ack", ack, u32::MAX)?;
        let wnd = whole(WHAT, "wnd", wnd, u32::MAX)?;
        let seq = match seq {
            Some(s) => whole(WHAT, "seq", s, u32::MAX)?,
            None => 0,
        };
        Ok(PacketView::of(Packet::spoofed_ack(&ends, Seq(seq), Seq(ack), wnd, self.now)))
    }
    /// An ACC control message from router `node` to the sender of `dropped` (a data packet of
    /// a TCP or RDP flow), asking for the congestion state `cwnd`, `ssthresh` (bytes for TCP,
    /// packets for RDP), `srtt` (seconds), `slow_start`, `fast_recovery`
    /// (`Packet::acc_control`): a UDP datagram to port 7777, TTL 64, sent now. Only a sender
    /// with `tcp.acc` (or RDP's) acts on it.
    #[pyo3(signature = (node, dropped, cwnd, ssthresh, srtt, slow_start = false, fast_recovery = false))]
    #[allow(clippy::too_many_arguments)] // the state's fields, each named
    fn acc_control(
        &self,
        node: &Bound<'_, PyAny>,
        dropped: &Bound<'_, PyAny>,
        cwnd: &Bound<'_, PyAny>,
        ssthresh: &Bound<'_, PyAny>,
        srtt: &Bound<'_, PyAny>,
        slow_start: bool,
        fast_recovery: bool,
    ) -> PyResult<PacketView> {
        const WHAT: &str = "acc_control";
        let router = self.node(WHAT, node)?;
        let p = packet_arg(WHAT, "dropped", dropped)?;
        if !matches!(p.kind, Kind::TcpData | Kind::RdpData) {
            return Err(bad_field(WHAT, "dropped", dropped, "not a data packet of a TCP or RDP flow"));
        }
        let cwnd = whole(WHAT, "cwnd", cwnd, u32::MAX)?;
        let ssthresh = whole(WHAT, "ssthresh", ssthresh, u32::MAX)?;
        let srtt_us = match srtt.extract::<f64>() {
            Ok(s) if s.is_finite() && s >= 0.0 && (s * 1e6).round() <= u32::MAX as f64 => (s * 1e6).round() as u32,
            _ => return Err(bad_field(WHAT, "srtt", srtt, "must be a number of seconds from 0 to 4294.967295")),
        };
        let state = AccState { cwnd, ssthresh, srtt_us, slow_start, fast_recovery };
        Ok(PacketView::of(Packet::acc_control(router, &p, state, self.now)))
    }
}

/// `f` on the routing tables of the hook being run.
fn with_routes<T>(what: &str, f: impl FnOnce(&Routes) -> Option<T>) -> PyResult<Option<T>> {
    ROUTES.with(|r| match r.borrow().as_ref() {
        Some(routes) => Ok(f(routes)),
        None => Err(PyRuntimeError::new_err(format!(
            "{what}: the routing tables are read during a hook that is given the time (not in claims_loss, settle, begin_measurement or outside a run)"
        ))),
    })
}

struct MechanismClass {
    name: Arc<str>,
    cls: Py<PyType>,
    hooks: Overrides,
}

impl MechanismPlugin for MechanismClass {
    fn build(&self, table: &Table, cx: &BuildContext, site: Site) -> Result<Box<dyn ExternalMechanism>, SettingError> {
        Python::attach(|py| {
            let net = cx.net;
            let topology = Topology {
                nodes: net.nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i as u32)).collect(),
                links: net.links.iter().enumerate().map(|(i, l)| (l.name.clone(), i as u32)).collect(),
                ends: net.links.iter().map(|l| (l.from, l.to)).collect(),
                delays_ns: net.links.iter().map(|l| l.delay.as_nanos()).collect(),
                kinds: net.nodes.iter().map(|n| if n.kind == NodeKind::Router { "router" } else { "host" }).collect(),
            };
            NAMES.with(|x| *x.borrow_mut() = Some(topology));
            let place = Place { plugin: self.name.clone(), site: Arc::from(site.name.as_str()) };
            let pending = Pending { rng: site.rng, site: site.name, link_bps: 0, limit: (None, None) };
            let made = instantiate(py, &self.cls, table, pending);
            NAMES.with(|x| x.borrow_mut().take());
            count_built();
            let obj = made?.cast_into::<RouterMechanismBase>().map_err(|_| SettingError::new("", "not a ccsim.RouterMechanism"))?.unbind();
            let mut hooks = Hooks::default();
            for (i, h) in HOOK_BITS {
                if self.hooks.has(i) {
                    hooks = hooks | h;
                }
            }
            let warmup = SimTime::from_secs_f64(cx.scenario.warmup.0);
            Ok(Box::new(PyMechanism { obj, hooks, defined: self.hooks, place, warmup }) as Box<dyn ExternalMechanism>)
        })
    }
}

struct PyMechanism {
    obj: Py<RouterMechanismBase>,
    hooks: Hooks,
    defined: Overrides,
    place: Place,
    /// The end of the warm-up: when `begin_measurement` is called.
    warmup: SimTime,
}

impl fmt::Debug for PyMechanism {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "plug-in {:?} ({})", self.place.plugin, self.place.site)
    }
}

const ACTIONS: [Action; 5] = [Action::Enqueue, Action::MarkAndEnqueue, Action::Drop, Action::EnqueueAndSpoof, Action::DropAndSpoof];

impl PyMechanism {
    /// Calls a hook, then hands the effects it asked for to the engine.
    fn call<R>(&self, hook: &'static str, cx: &mut Cx, f: impl FnOnce(Python<'_>, &Bound<'_, RouterMechanismBase>, f64) -> PyResult<Result<R, String>>) -> R {
        let now = cx.now;
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            obj.borrow_mut().now = now;
            let outer = ROUTES.with(|r| r.replace(Some(std::mem::take(&mut cx.net.routes))));
            let answer = f(py, obj, secs(now));
            cx.net.routes = ROUTES.with(|r| r.replace(outer)).unwrap_or_default();
            let out = match answer {
                Ok(Ok(r)) => r,
                Ok(Err(m)) => self.place.fail(hook, now, format!("{hook} {m}")),
                // A packet the core cannot send: one line naming the field.
                Err(e) if e.is_instance_of::<PacketError>(py) => self.place.fail(hook, now, e.value(py).to_string()),
                Err(e) => self.place.raised(py, hook, now, e),
            };
            let mut b = obj.borrow_mut();
            for (from, pkt, first) in b.sends.drain(..) {
                if first {
                    cx.send_first(from, pkt)
                } else {
                    cx.send(from, pkt)
                }
            }
            for (at, a, bb) in b.timers.drain(..) {
                if !(at.is_finite() && at >= secs(now)) {
                    self.place.fail(hook, now, format!("set_timer(at = {at}): must be a time from now on"));
                }
                cx.set_timer(SimTime::from_secs_f64(at), Timer { kind: 0, a, b: bb });
            }
            out
        })
    }

    /// Calls a hook the core gives no effects (`claims_loss`, `settle`,
    /// `begin_measurement`) at `at` if known; asking for any is an error. A failure names
    /// `pkt`, the packet of a hook without a time.
    fn call_bare<R>(
        &self,
        hook: &'static str,
        at: Option<SimTime>,
        pkt: Option<&Packet>,
        f: impl FnOnce(Python<'_>, &Bound<'_, RouterMechanismBase>) -> PyResult<Result<R, String>>,
    ) -> R {
        let called = || match pkt {
            Some(p) => format!("{hook}({})", PacketView::of(*p).__repr__()),
            None => hook.to_string(),
        };
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            if let Some(at) = at {
                obj.borrow_mut().now = at;
            }
            let out = match f(py, obj) {
                Ok(Ok(r)) => r,
                Ok(Err(m)) => self.place.fail(hook, at, format!("{} {m}", called())),
                Err(e) if e.is_instance_of::<PacketError>(py) => self.place.fail(hook, at, format!("{}: {}", called(), e.value(py))),
                Err(e) => self.place.fail(hook, at, format!("{}: {}\n{}", called(), one_line(py, &e), traceback(py, &e))),
            };
            let b = obj.borrow();
            if !b.sends.is_empty() || !b.timers.is_empty() {
                self.place.fail(hook, at, format!("{}: sends no packets and sets no timers (only the hooks given a time do)", called()));
            }
            out
        })
    }
}

fn none_or<T>(v: &Bound<'_, PyAny>, f: impl FnOnce() -> Result<T, String>) -> Result<Option<T>, String> {
    if v.is_none() {
        Ok(None)
    } else {
        f().map(Some)
    }
}

impl RouterMechanism for PyMechanism {
    fn hooks(&self) -> Hooks {
        self.hooks
    }
    fn on_arrival(&mut self, node: NodeId, pkt: &Packet, cx: &mut Cx) -> Passage {
        self.call("on_arrival", cx, |py, obj, now| {
            let v = obj.call_method1(intern!(py, "on_arrival"), (node, PacketView::of(*pkt), now))?;
            Ok(match v.extract::<Option<bool>>() {
                Ok(None | Some(false)) => Ok(Passage::Forward),
                Ok(Some(true)) => Ok(Passage::Discard),
                Err(_) => Err(format!("returned {}: expected True (discard), False or None (forward)", v.repr()?)),
            })
        })
    }
    fn next_hop(&mut self, node: NodeId, pkt: &mut Packet, chosen: Option<LinkId>, cx: &mut Cx) -> Option<LinkId> {
        let links = cx.net.links.len();
        self.call("next_hop", cx, |py, obj, now| {
            let view = Bound::new(py, PacketView { pkt: *pkt, routing: true })?;
            let v = obj.call_method1(intern!(py, "next_hop"), (node, &view, chosen, now))?;
            let mut view = view.borrow_mut();
            (*pkt, view.routing) = (view.pkt, false); // a copy kept past the hook is read-only
            Ok(none_or(&v, || match v.extract::<u32>() {
                Ok(l) if (l as usize) < links => Ok(l),
                _ => Err(format!("returned {}: expected a link number or None", v.repr().map(|r| r.to_string()).unwrap_or_default())),
            }))
        })
    }
    fn on_verdict(&mut self, link: LinkId, pkt: &Packet, verdict: ccsim::signal::Verdict, action: Action, cx: &mut Cx) -> Action {
        let verdict = ["admit", "early", "forced", "early_drop", "overflow"][verdict as usize];
        let given = ACTIONS.iter().position(|a| *a == action).unwrap_or(0);
        self.call("on_verdict", cx, |py, obj, now| {
            let v = obj.call_method1(intern!(py, "on_verdict"), (link, PacketView::of(*pkt), verdict, given, now))?;
            Ok(match v.extract::<usize>() {
                Ok(i) if i < ACTIONS.len() => Ok(ACTIONS[i]),
                _ => Err(format!("returned {}: expected ENQUEUE, MARK, DROP, ENQUEUE_AND_SPOOF or DROP_AND_SPOOF", v.repr()?)),
            })
        })
    }
    fn on_queue_drop(&mut self, link: LinkId, pkt: &Packet, cx: &mut Cx) {
        self.call("on_queue_drop", cx, |py, obj, now| {
            obj.call_method1(intern!(py, "on_queue_drop"), (link, PacketView::of(*pkt), now))?;
            Ok(Ok(()))
        })
    }
    fn on_link_change(&mut self, link: LinkId, up: bool, cx: &mut Cx) {
        self.call("on_link_change", cx, |py, obj, now| {
            obj.call_method1(intern!(py, "on_link_change"), (link, up, now))?;
            Ok(Ok(()))
        })
    }
    fn on_timer(&mut self, timer: Timer, cx: &mut Cx) {
        if !self.defined.has(ON_TIMER) {
            return;
        }
        self.call("on_timer", cx, |py, obj, now| {
            obj.call_method1(intern!(py, "on_timer"), (timer.a, timer.b, now))?;
            Ok(Ok(()))
        })
    }
    /// The core gives this hook no time: a failure names the packet instead.
    fn claims_loss(&mut self, pkt: &Packet) -> bool {
        self.call_bare("claims_loss", None, Some(pkt), |py, obj| {
            let v = obj.call_method1(intern!(py, "claims_loss"), (PacketView::of(*pkt),))?;
            Ok(match v.extract::<Option<bool>>() {
                Ok(claimed) => Ok(claimed == Some(true)),
                Err(_) => Err(format!("returned {}: expected True (its own packet), False or None", v.repr()?)),
            })
        })
    }
    fn settle(&mut self, now: SimTime) {
        if self.defined.has(SETTLE) {
            self.call_bare("settle", Some(now), None, |py, obj| {
                obj.call_method1(intern!(py, "settle"), (secs(now),))?;
                Ok(Ok(()))
            })
        }
    }
    fn begin_measurement(&mut self) {
        if self.defined.has(BEGIN_MEASUREMENT) {
            self.call_bare("begin_measurement", Some(self.warmup), None, |py, obj| {
                obj.call_method0(intern!(py, "begin_measurement"))?;
                Ok(Ok(()))
            })
        }
    }
}

impl ExternalMechanism for PyMechanism {
    fn clone_box(&self) -> Box<dyn ExternalMechanism> {
        let obj = Python::attach(|py| self.obj.clone_ref(py));
        Box::new(PyMechanism { obj, hooks: self.hooks, defined: self.defined, place: self.place.clone(), warmup: self.warmup })
    }
}

/// Registers `cls` (a subclass of `RouterMechanismBase`) for `[[mechanisms]] name = name`;
/// `hooks` are the hooks it defines. Called by `ccsim.register_mechanism`.
#[pyfunction]
pub fn register_mechanism(name: &str, cls: Bound<'_, PyType>, hooks: Vec<String>) -> PyResult<()> {
    if !cls.is_subclass_of::<RouterMechanismBase>()? {
        return Err(PyTypeError::new_err(format!("{name:?}: the class must derive from ccsim.RouterMechanism")));
    }
    let hooks = Overrides::of(&hooks, MECHANISM_HOOKS)?;
    ccsim::router::external::PLUGINS.register(name, Arc::new(MechanismClass { name: Arc::from(name), cls: cls.unbind(), hooks }));
    ANY.store(true, Ordering::Relaxed);
    Ok(())
}

pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Random>()?;
    m.add_class::<CongestionControlBase>()?;
    m.add_class::<AckInfo>()?;
    m.add_class::<EventInfo>()?;
    m.add_class::<RateInfo>()?;
    m.add_class::<PacketView>()?;
    m.add_class::<QueueDisciplineBase>()?;
    m.add_class::<QueueInfo>()?;
    m.add_class::<HeadInfo>()?;
    m.add_class::<RouterMechanismBase>()?;
    m.add_class::<AccInfo>()?;
    m.add("PacketError", m.py().get_type::<PacketError>())?;
    m.add_function(wrap_pyfunction!(register_cc, m)?)?;
    m.add_function(wrap_pyfunction!(register_queue, m)?)?;
    m.add_function(wrap_pyfunction!(register_mechanism, m)?)?;
    Ok(())
}
