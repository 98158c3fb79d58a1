"""Verified repair (contract §8): a rejected plan back with the smallest change the verifier itself approves, or
a precise reason why no motion change can save it.

The engine is core (no ROS): `repair_plan` takes a plan's text and a `Verification`
(the verifier and the inputs `check` used) and returns a `RepairResult`. Every
candidate is verified by the whole pipeline; the task — every event, in order, at
its TCP pose — is kept by construction and checked for every candidate.
"""

from __future__ import annotations

from plan_verifier.repair.result import Edit, RepairResult, Unrepaired
from plan_verifier.repair.verifying import Verification

__all__ = ["Edit", "RepairResult", "Unrepaired", "Verification", "repair_plan"]


def repair_plan(text: str, verification: Verification, plan_format: str = "auto") -> RepairResult:
    """Repair a TDL program, a JSON/YAML step plan or an approved-actions file (its format detected as `check` does)."""
    from plan_verifier.inputs import read_plan_text

    plan_text = read_plan_text(text, plan_format)
    if plan_text.format == "tdl":
        from plan_verifier.repair.tdl_repair import repair_tdl

        return repair_tdl(text, verification)
    if plan_text.format == "actions":
        from plan_verifier.repair.actions_repair import repair_actions

        return repair_actions(text, verification)
    from plan_verifier.repair.json_repair import repair_json

    return repair_json(text, verification)
