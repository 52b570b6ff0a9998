"""Type stubs of the compiled module (crates/ccsim-py)."""

from typing import Any

class ScenarioError(ValueError):
    origin: str
    path: str
    message: str

class PluginError(RuntimeError):
    """A plug-in stopped the run: an exception in a hook (with its traceback) or a bad value."""

    plugin: str
    hook: str
    site: str
    #: Simulated seconds; None for a hook the core calls without a time (`claims_loss`).
    time: float | None
    detail: str

class PacketError(ValueError):
    """A router mechanism asked for a packet the simulator cannot send (a field out of range,
    a packet of the wrong kind, a node that does not exist)."""

class Random:
    """A run's named random stream."""

    def __init__(self, seed: int = 1) -> None: ...
    def uniform(self) -> float: ...
    def uniform_range(self, lo: float, hi: float) -> float: ...
    def exponential(self, mean: float) -> float: ...
    def bernoulli(self, p: float) -> bool: ...
    def next_u64(self) -> int: ...

class AckInfo:
    now: float
    acked: int
    una: int
    max: int
    flight: int
    ece: bool
    cwnd_limited: bool
    rtt: float | None
    srtt: float | None

class EventInfo:
    now: float
    flight: int
    dupacks: int
    backoffs: int
    rwnd: int
    ecn_answered: bool

class RateInfo:
    now: float
    delivered: int
    interval: float
    delivery_rate: float
    rtt: float | None
    prior_in_flight: int
    is_app_limited: bool
    total_delivered: int

class Packet:
    """Read-only, except `ttl` and `tunnel` of the packet `next_hop` is given."""

    kind: str
    flow: int
    src: int
    dst: int
    size: int
    payload: int
    ttl: int
    seq: int
    ack: int
    ecn: str
    ect: bool
    sent_at: float
    sport: int
    dport: int
    wnd: int
    flags: int
    is_reverse: bool
    acc: AccInfo | None
    tunnel: int

class AccInfo:
    cwnd: int
    ssthresh: int
    srtt: float
    slow_start: bool
    fast_recovery: bool

class QueueInfo:
    packets: int
    bytes: int
    now: float
    now_ns: int

class HeadInfo:
    sojourn: float
    bytes_left: int

class CongestionControlBase:
    cwnd: int | float
    ssthresh: int | float
    pacing_rate: float | None
    @property
    def mss(self) -> int: ...
    @property
    def rng(self) -> Random: ...
    @property
    def flow(self) -> str: ...
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class QueueDisciplineBase:
    @property
    def rng(self) -> Random: ...
    @property
    def link(self) -> str: ...
    @property
    def link_bps(self) -> int: ...
    @property
    def limit_packets(self) -> int | None: ...
    @property
    def limit_bytes(self) -> int | None: ...
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

class RouterMechanismBase:
    @property
    def rng(self) -> Random: ...
    @property
    def nodes(self) -> dict[str, int]: ...
    @property
    def links(self) -> dict[str, int]: ...
    @property
    def link_ends(self) -> list[tuple[int, int]]: ...
    @property
    def link_delay_ns(self) -> list[int]: ...
    @property
    def node_kinds(self) -> list[str]: ...
    @property
    def now_ns(self) -> int: ...
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def route(self, node: int, dst: int) -> int | None: ...
    def path(self, src: int, dst: int) -> list[int] | None: ...
    def send(self, node: int, pkt: Packet) -> None: ...
    def send_first(self, node: int, pkt: Packet) -> None: ...
    def set_timer(self, at: float, a: int = 0, b: int = 0) -> None: ...
    def spoofed_ack(self, of: Packet, ack: int, wnd: int, seq: int | None = None) -> Packet: ...
    def acc_control(
        self,
        node: int,
        dropped: Packet,
        cwnd: int,
        ssthresh: int,
        srtt: float,
        slow_start: bool = False,
        fast_recovery: bool = False,
    ) -> Packet: ...

def register_cc(name: str, cls: type, recovery: str, ecn: str, hooks: list[str], paces: bool) -> None: ...
def register_queue(name: str, cls: type, hooks: list[str]) -> None: ...
def register_mechanism(name: str, cls: type, hooks: list[str]) -> None: ...

class Simulation:
    def __init__(
        self,
        text: str,
        origin: str = "<string>",
        overrides: list[str] = ...,
        seed: int | None = None,
        out_dir: str | None = None,
        force: bool = False,
        max_events: int | None = None,
        max_memory: int | None = None,
    ) -> None: ...
    def run_until(self, seconds: float) -> None: ...
    @property
    def now(self) -> float: ...
    @property
    def stop_time(self) -> float: ...
    @property
    def events_processed(self) -> int: ...
    def report_json(self) -> str: ...
    def summary_json(self, queues: list[str] = ...) -> str: ...
    def finish_traces(self) -> None: ...
    def packet_log(self) -> dict[str, Any] | None: ...
    @property
    def pcap_files(self) -> list[str]: ...

def version() -> str: ...
def build() -> str:
    """How the core was compiled: "profile-guided", "instrumented" or "plain"."""

def describe(text: str, origin: str = "<string>", overrides: list[str] = ..., seed: int | None = None) -> str:
    """The scenario as the builder expands it, as a JSON string."""

def bare_durations(text: str, origin: str = "<string>", overrides: list[str] = ...) -> list[tuple[str, float]]:
    """The durations written as bare numbers other than 0 (read as seconds): (field path, seconds)."""

def report_schema() -> str:
    """The JSON Schema (draft 2020-12) of the report, as a JSON string."""
