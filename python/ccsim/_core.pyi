"""Type stubs of the compiled module (crates/ccsim-py)."""

from typing import Any

class ScenarioError(ValueError):
    origin: str
    path: str
    message: str

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
