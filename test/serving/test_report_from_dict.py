"""Reports received as JSON (the ROS service's report_json) render like local ones."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT

from plan_verifier.ir import Plan
from plan_verifier.output import render
from plan_verifier.pipeline import Verifier
from plan_verifier.report import Report


@pytest.mark.parametrize("name", ["pick_and_place.tdl", "pick_and_place_unsafe.tdl"])
def test_round_trip_through_json(name):
    text = (ROOT / "examples" / name).read_text(encoding="utf-8")
    original = Verifier("ur10e").verify(text, path=name)
    received = Report.from_dict(json.loads(json.dumps(original.to_dict())), plan=Plan(format="tdl", source=text, parsed=False))
    assert received.to_dict() == original.to_dict()
    assert render.text(received) == render.text(original)
