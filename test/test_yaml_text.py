"""The actions-file emitter: seed 003's look, and a lossless round trip through PyYAML."""

from __future__ import annotations

import math

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from plan_verifier import yaml_text

SCALARS = (
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False) | st.text(max_size=30)
)
KEYS = st.text(max_size=12) | st.integers(min_value=-1000, max_value=1000) | st.booleans()
DATA = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(DATA)
def test_round_trip(data) -> None:
    assert yaml.safe_load(yaml_text.dump(data)) == data


def test_non_finite_floats() -> None:
    loaded = yaml.safe_load(yaml_text.dump({"a": math.inf, "b": -math.inf, "c": 1e20, "d": 5e-324}))
    assert loaded["a"] == math.inf and loaded["b"] == -math.inf and loaded["c"] == 1e20 and loaded["d"] == 5e-324
    assert math.isnan(yaml.safe_load(yaml_text.dump([math.nan]))[0])


def test_seed_003_layout() -> None:
    text = yaml_text.dump({"RobotSequence": {"name": "Robot Sequence", "steps": [
        {"id": 4, "name": "Attach Welder", "action": "routine", "target": "tool_attach", "stabilize": 1.5},
        {"id": 5, "name": "박스 옮기기", "pose": [400, 0, 200]},
    ]}})
    assert text == (
        "RobotSequence:\n"
        '  name: "Robot Sequence"\n'
        "  steps:\n"
        "    - id: 4\n"
        '      name: "Attach Welder"\n'
        '      action: "routine"\n'
        '      target: "tool_attach"\n'
        "      stabilize: 1.5\n"
        "    - id: 5\n"
        '      name: "박스 옮기기"\n'
        "      pose:\n"
        "        - 400\n"
        "        - 0\n"
        "        - 200\n"
    )


def test_strings_that_look_like_other_types_stay_strings() -> None:
    for text in ("yes", "no", "null", "~", "1.5", "0x10", "2026-11-22", "- item", "a: b", "#", "\u2028", "\x85", "\ufeff"):
        assert yaml.safe_load(yaml_text.dump({"v": text, text: 1})) == {"v": text, text: 1}
