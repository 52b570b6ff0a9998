"""TOML out: dict scenarios (tomli-w) and the inline values of dict overrides."""

import math
import sys

import pytest

from ccsim import ScenarioError
from ccsim._scenario import to_toml, toml_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")


def test_round_trip():
    doc = {
        "name": 'quotes " and \\ backslash\nnew line\ttab \x01 ünïcödé',
        "duration": 2.5,
        "big": 10**18,
        "neg": -3,
        "flag": False,
        "empty": [],
        "mixed": [1, "a", 2.0, [True]],
        "odd key": 1,
        "table": {"a": 1, "nested": {"b": "c"}, "list": [{"x": 1}]},
        "links": [
            {"between": ["A", "B"], "rate": "1Mbps", "queue": {"limit": 5}},
            {"from": "B", "to": "A", "rate": 1e6, "queue": {}},
        ],
        "series": [{"kind": "queue", "inline": [{"a": 1}, {"b": 2}]}],
    }
    assert tomllib.loads(to_toml(doc)) == doc


def test_special_floats():
    parsed = tomllib.loads(to_toml({"a": math.inf, "b": -math.inf, "c": math.nan, "d": 1e-7, "e": 3.0}))
    assert parsed["a"] == math.inf and parsed["b"] == -math.inf and math.isnan(parsed["c"])
    assert parsed["d"] == 1e-7 and parsed["e"] == 3.0 and isinstance(parsed["e"], float)


def test_numpy_values():
    np = pytest.importorskip("numpy")
    parsed = tomllib.loads(to_toml({"i": np.int64(3), "f": np.float32(0.5), "a": np.array([1, 2])}))
    assert parsed == {"i": 3, "f": 0.5, "a": [1, 2]}


def test_values():
    assert toml_value(True) == "true"
    assert toml_value("100Mbps") == '"100Mbps"'
    assert toml_value({"discipline": "droptail", "limit": 5}) == '{ discipline = "droptail", limit = 5 }'
    assert toml_value([1, 2.5, "x"]) == '[1, 2.5, "x"]'
    assert toml_value({}) == "{}" and toml_value([]) == "[]"


def test_documents_are_written_by_tomli_w():
    tomli_w = pytest.importorskip("tomli_w")
    doc = {"name": "x", "links": [{"between": ["A", "B"], "queue": {"limit": 5}}]}
    assert to_toml(doc) == tomli_w.dumps(doc)


@pytest.mark.parametrize(
    "value",
    [
        {"discipline": "red", "limit": 100, "min_th": 5, "max_p": 0.1},
        {"a": [1, {"b": [True, 'q"uote']}], "odd key": {"nested": {}}},
        [[1, 2], [], ["x"]],
        'line\nbreak \\ "quoted" \x01',
        -(2**63),
        1e-7,
    ],
)
def test_inline_values_round_trip_on_one_line(value):
    text = toml_value(value)
    assert "\n" not in text
    assert tomllib.loads(f"v = {text}")["v"] == value


def test_numpy_scalars_in_values():
    np = pytest.importorskip("numpy")
    assert toml_value(np.bool_(True)) == "true"
    assert toml_value({"x": np.int32(4), "y": np.arange(3)}) == "{ x = 4, y = [0, 1, 2] }"


@pytest.mark.parametrize(
    "doc, path",
    [
        ({"a": None}, "a"),
        ({"t": {"x": [1, None]}}, "t.x[1]"),
        ({"a": 2**64}, "a"),
        ({"a": object()}, "a"),
        ({"t": {1: 2}}, "t"),
        ({"links": [{"queue": {"limit": None}}]}, "links[0].queue.limit"),
    ],
)
def test_errors_name_the_field(doc, path):
    with pytest.raises(ScenarioError) as e:
        to_toml(doc)
    assert e.value.origin == "<dict>" and e.value.path == path
    with pytest.raises(ScenarioError) as e:
        toml_value(doc)
    assert e.value.path == path
