"""scripts/demo.sh, the README's first command, without its bootstrap step (the suite runs after it)."""

from __future__ import annotations

import os
import subprocess

import pytest
from ros_harness import ROOT

pytestmark = pytest.mark.ros


def test_demo_verifies_one_approved_and_one_rejected_plan_through_the_node():
    env = {**os.environ, "PLAN_VERIFIER_SKIP_BOOTSTRAP": "1"}
    result = subprocess.run([str(ROOT / "scripts" / "demo.sh")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "examples/weld_seam_1.json: PASS (approved" in out
    assert "examples/pick_and_place_unsafe.tdl: FAIL (rejected" in out
    assert "feedback for the planner:\n  Line 7: Z-coordinate -20mm is below ground level" in out
    assert "RobotSequence:" in out and 'correlation_id: "demo-weld-seam-1"' in out and "demo OK" in out
    assert "2 records" in out
