"""The small TOML writer used for dict scenarios and dict overrides."""

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


@pytest.mark.parametrize(
    "doc, path",
    [
        ({"a": None}, "a"),
        ({"t": {"x": [1, None]}}, "t.x[1]"),
        ({"a": 2**64}, "a"),
        ({"a": object()}, "a"),
        ({"t": {1: 2}}, "t"),
    ],
)
def test_errors_name_the_field(doc, path):
    with pytest.raises(ScenarioError) as e:
        to_toml(doc)
    assert e.value.origin == "<dict>" and e.value.path == path
