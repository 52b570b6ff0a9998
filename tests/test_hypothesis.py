"""Property tests (hypothesis) of what users hand the Python API: override strings and
scenario dicts. Whatever they hold, `ccsim.run` returns results or raises one
`ScenarioError` whose text is one line starting with the origin: never a panic, never
another exception."""

import copy

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import ccsim  # noqa: E402

BASE = {
    "duration": "50ms",
    "hosts": ["A", "B"],
    "routers": ["R"],
    "links": [
        {"between": ["A", "R"], "rate": "10Mbps", "delay": "1ms"},
        {"between": ["R", "B"], "rate": "1Mbps", "delay": "5ms", "queue": {"discipline": "red", "min_th": 5, "max_th": 15, "limit": 30}},
    ],
    "flows": [{"name": "f", "from": "A", "to": "B"}],
}

#: Keep every example small: a scenario that would run long is refused by the event budget.
MAX_EVENTS = 2_000_000

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(scenario, overrides=None):
    """Runs and returns None, or the ScenarioError's text; anything else fails the test."""
    try:
        ccsim.run(scenario, overrides=overrides, progress=False, max_events=MAX_EVENTS)
    except ccsim.ScenarioError as e:
        text = str(e)
        assert "\n" not in text, text
        assert e.origin and text.startswith(f"{e.origin}: ")
        return text
    return None


PATH_PIECES = st.sampled_from(
    [
        "duration",
        "flows",
        "links",
        "0",
        "1",
        "f",
        "*",
        "queue",
        "limit",
        "rate",
        "delay",
        "tcp",
        "mss",
        "count",
        "udp",
        "x",
        "[0]",
        "[f]",
        "[",
        "]",
        ".",
        "..",
        "",
    ]
)
VALUES = st.one_of(
    st.sampled_from(
        [
            "10",
            "-1",
            "0",
            "1e308",
            "inf",
            "nan",
            "4294967296",
            "18446744073709551616",
            "1Mbps",
            "1ns",
            "1e-300s",
            '"text"',
            "true",
            "[1, 2]",
            "{ a = 1 }",
            "",
            "{",
            '"',
        ]
    ),
    st.text(max_size=12),
)


@SETTINGS
@given(pieces=st.lists(PATH_PIECES, min_size=1, max_size=6), op=st.sampled_from(["=", "+=", "", "=="]), value=VALUES)
def test_override_strings_give_results_or_one_line_errors(pieces, op, value):
    outcome(BASE, [".".join(pieces) + op + value])


@SETTINGS
@given(text=st.text(max_size=40))
def test_arbitrary_override_text_gives_results_or_one_line_errors(text):
    outcome(BASE, [text])


KEYS = [
    ("duration",),
    ("warmup",),
    ("seed",),
    ("hosts",),
    ("links", 0, "rate"),
    ("links", 1, "delay"),
    ("links", 1, "loss"),
    ("links", 1, "cost"),
    ("links", 1, "queue", "limit"),
    ("links", 1, "queue", "max_p"),
    ("links", 1, "queue", "min_th"),
    ("links", 1, "queue", "w_q"),
    ("flows", 0, "count"),
    ("flows", 0, "start"),
    ("flows", 0, "jitter"),
    ("flows", 0, "ttl"),
    ("flows", 0, "tcp"),
    ("flows", 0, "transport"),
    ("flows", 0, "udp"),
    ("flows", 0, "to"),
    ("series",),
]
SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1).filter(lambda i: not 10_000 < i < 10**9),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["10Mbps", "1ms", "0", "-5s", "1e308s", "1e-300s", "B", "A", "udp", "S{1..3}", "", "1.5 Mb/s"]),
    st.booleans(),
)
VALUE = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["rate", "mss", "exponential", "uniform", "x", "kind", "interval"]), inner, max_size=3),
    ),
    max_leaves=6,
)


@SETTINGS
@given(changes=st.lists(st.tuples(st.sampled_from(KEYS), VALUE), min_size=1, max_size=3))
def test_scenario_dicts_give_results_or_one_line_errors(changes):
    d = copy.deepcopy(BASE)
    for path, value in changes:
        at = d
        for k in path[:-1]:
            at = at[k]
        at[path[-1]] = value
    outcome(d)
