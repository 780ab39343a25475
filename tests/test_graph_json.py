"""``graph.json_text`` writes the same text as ``json.dumps(indent=1, sort_keys=True,
ensure_ascii=False)``, which the goldens and stored graphs were written with."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projectgraph.graph import json_text

_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


def _reference(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


@given(_VALUES)
@settings(suppress_health_check=[HealthCheck.too_slow])  # (nested values are slow to draw at load 25)
def test_json_text_is_the_standard_text(value: Any) -> None:
    assert json_text(value) == _reference(value)


def test_json_text_edge_cases() -> None:
    cases: list[Any] = [
        {},
        [],
        {"a": [], "b": {}, "c": [[]]},
        {"s": 'quote " backslash \\ newline \n tab \t nul \x00 é \u2028 😀'},
        [math.nan, math.inf, -math.inf, -0.0, 1e300, True, False, None, 10**30],
        {"z": {"y": {"x": [1, {"w": None}]}}},
    ]
    for value in cases:
        assert json_text(value) == _reference(value)


def test_json_text_hands_unusual_values_to_the_standard_library() -> None:
    assert json_text({1: "a", 2: "b"}) == _reference({1: "a", 2: "b"})
    assert json_text({"big": 2**70, "flag": True}) == _reference({"big": 2**70, "flag": True})
