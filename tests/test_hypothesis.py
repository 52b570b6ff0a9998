"""Property tests (hypothesis) of what users hand the Python API: override strings and
scenario dicts, values that are not scenarios at all, values nested deep or containing
themselves, and text with lone surrogates. Whatever they hold, `ccsim.run` returns results
or raises one `ScenarioError` whose text is one line starting with the origin: never a
panic, never another exception (`TypeError`, `RecursionError`, `UnicodeEncodeError`)."""

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


def outcome(scenario, overrides=None, seed=None, max_events=MAX_EVENTS):
    """Runs and returns None, or the ScenarioError; anything else fails the test."""
    try:
        ccsim.run(scenario, overrides=overrides, seed=seed, progress=False, max_events=max_events)
    except ccsim.ScenarioError as e:
        text = str(e)
        assert "\n" not in text, text
        assert e.origin and text.startswith(f"{e.origin}: ")
        text.encode("utf-8")  # printable: no lone surrogate of the input in it
        return e
    return None


def refused_at_a_path(scenario, overrides=None, **kw):
    """The ScenarioError `ccsim.run` must raise, checked to name a field path."""
    e = outcome(scenario, overrides, **kw)
    assert e is not None, "accepted"
    assert e.path, f"no field path: {e}"
    return e


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


# --- Not scenarios, values nested deep or containing themselves, lone surrogates ---------

NOT_SCENARIOS = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.binary(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.tuples(st.text(max_size=5)),
    st.sets(st.integers(), max_size=3),
    st.booleans(),
    st.complex_numbers(),
)


@SETTINGS
@given(scenario=NOT_SCENARIOS)
def test_a_value_that_is_no_scenario_is_a_scenario_error_naming_the_argument(scenario):
    e = refused_at_a_path(scenario)
    assert (e.origin, e.path) == ("<argument>", "scenario"), str(e)


@SETTINGS
@given(
    overrides=st.one_of(
        st.integers(),
        st.floats(),
        st.booleans(),
        st.binary(max_size=8),
        st.lists(st.one_of(st.integers(), st.none(), st.binary()), min_size=1, max_size=3),
    )
)
def test_overrides_that_are_not_key_value_strings_name_the_argument(overrides):
    e = refused_at_a_path(BASE, overrides)
    assert e.path.startswith("overrides"), str(e)


@SETTINGS
@given(max_events=st.one_of(st.integers(max_value=0), st.integers(min_value=2**64), st.floats(), st.text(max_size=5), st.booleans()))
def test_a_bad_max_events_names_it(max_events):
    assert refused_at_a_path(BASE, max_events=max_events).path == "max_events"


def nested(depth, leaf, kind):
    """`leaf` inside `depth` dicts (`kind` "dict") or lists."""
    v = leaf
    for _ in range(depth):
        v = {"x": v} if kind == "dict" else [v]
    return v


def self_referencing(kind):
    v = {} if kind == "dict" else []
    if kind == "dict":
        v["x"] = v
    else:
        v.append(v)
    return v


DEEP = st.one_of(
    st.builds(nested, st.integers(min_value=65, max_value=3000), SCALARS, st.sampled_from(["dict", "list"])),
    st.builds(self_referencing, st.sampled_from(["dict", "list"])),
)


@SETTINGS
@given(value=DEEP, where=st.sampled_from(["scenario", "override", "seed", "pcap"]), key=st.sampled_from(KEYS))
def test_values_nested_deep_or_containing_themselves_are_scenario_errors(value, where, key):
    d = copy.deepcopy(BASE)
    if where == "scenario":
        at = d
        for k in key[:-1]:
            at = at[k]
        at[key[-1]] = value
        refused_at_a_path(d)
    elif where == "override":
        refused_at_a_path(BASE, {".".join(map(str, key)): value})
    elif where == "seed":
        assert refused_at_a_path(BASE, seed=value).path == "seed"
    else:
        with pytest.raises(ccsim.ScenarioError) as caught:
            ccsim.run(BASE, pcap=value, progress=False, max_events=MAX_EVENTS)
        assert caught.value.path


@SETTINGS
@given(depth=st.integers(min_value=1, max_value=60), kind=st.sampled_from(["dict", "list"]))
def test_values_nested_less_deep_are_checked_as_any_other(depth, kind):
    d = copy.deepcopy(BASE)
    d["flows"][0]["tcp"] = nested(depth, 1, kind)
    e = outcome(d)
    assert e is not None and e.path.startswith("flows[0].tcp"), str(e)


SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
WITH_SURROGATE = st.builds(lambda a, c, b: a + c + b, st.text(max_size=5), SURROGATE, st.text(max_size=5))


@SETTINGS
@given(text=WITH_SURROGATE, where=st.sampled_from(["value", "key", "override", "override key", "toml", "toml comment", "pcap"]))
def test_a_lone_surrogate_anywhere_is_a_scenario_error_naming_where(text, where):
    d = copy.deepcopy(BASE)
    if where == "value":
        d["flows"][0]["name"] = text
        e = refused_at_a_path(d)
        assert e.path == "flows[0].name", str(e)
    elif where == "key":
        d["links"][0][text] = 1
        e = refused_at_a_path(d)
        assert e.path.startswith("links[0]."), str(e)
    elif where == "override":
        assert refused_at_a_path(BASE, ["duration=1s", f"flows.0.name={text}"]).path == "overrides[1]"
    elif where == "override key":
        assert refused_at_a_path(BASE, {f"flows.0.{text}": 1}).path.startswith("flows.0.")
    elif where in ("toml", "toml comment"):
        line = f'name = "{text}"' if where == "toml" else f"# {text}"
        e = refused_at_a_path(f'duration = "1s"\n{line}\n')
        surrogate = next(i for i, c in enumerate(line) if 0xD800 <= ord(c) <= 0xDFFF)
        assert e.path == f"line {2 + line.count(chr(10), 0, surrogate)}", str(e)
    else:
        with pytest.raises(ccsim.ScenarioError) as caught:
            ccsim.run(BASE, pcap=[f"A->{text}"], progress=False, max_events=MAX_EVENTS)
        assert caught.value.path == "pcap"
