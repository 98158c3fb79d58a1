"""What the R-KIN and R-COL rules share: they judge the execution level's simulated run.

`ctx.execution` (`motion.simulate`) runs every motion of the plan in the
kinematic model of the cell and records neutral facts (`motion.facts`); each
rule module picks the facts it is about and words its finding. Nothing is
judged when the simulation could not run at all: R-KIN-000 says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.motion.facts import Execution, MotionRef
from plan_verifier.rules.base import Rule

if TYPE_CHECKING:
    from plan_verifier.context import RuleContext

#: What the robot's bodies are, for messages (kinematics.bodies names them base, link1 ... link6, tool).
_LINKS = {"base": "base", "link1": "shoulder", "link2": "upper arm", "link3": "forearm", "link4": "wrist 1",
          "link5": "wrist 2", "link6": "wrist 3", "tool": "tool"}


class ExecutionRule(Rule):
    """A rule of the execution level: judges the simulated run (`judge`), when there is one."""

    severity = Severity.CRITICAL
    category = Category.EXECUTION
    formats = frozenset({"tdl", "json"})

    def check(self, ctx: "RuleContext") -> Iterator[Finding]:
        execution = ctx.execution
        if execution.unavailable is None:
            yield from self.judge(execution, ctx)

    def judge(self, execution: Execution, ctx: "RuleContext") -> Iterator[Finding]:
        raise NotImplementedError


def body(name: str) -> str:
    """A robot body as a message names it: `link3` -> `forearm (link3)`."""
    base = name.split(".")[0]
    label = _LINKS.get(base)
    return f"{label} ({name})" if label and label != name else name


def angles(values) -> str:
    """Joint angles as a message gives them: `[180, -90, 90.5, -90, -90, 0]` (degrees, 0.01°)."""
    return "[" + ", ".join(fmt_number(round(float(v), 2)) for v in values) + "]"


def xyz(point: tuple[float, float, float]) -> str:
    return "(" + ", ".join(fmt_number(round(v)) for v in point) + ")"


def where(motion: MotionRef, s: float, tcp: tuple[float, float, float]) -> str:
    """`at 37% of MoveLinear to Pick_A (TCP at (500, 0, 120))`: the instant of a motion."""
    return f"at {round(100 * s)}% of {motion.command} to {motion.target} (TCP at {xyz(tcp)})"


def motion_evidence(motion: MotionRef, s: float, tcp: tuple[float, float, float]) -> dict:
    return {"motion": motion.command, "target": motion.target, "tool": motion.tool, "fraction": round(s, 3),
            "tcp_mm": [round(v, 1) for v in tcp]}
