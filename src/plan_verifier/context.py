"""Everything a rule may look at during one verification.

One `RuleContext` per verification: the plan, the robot, the cell snapshot, the
start state and options, plus analyses computed lazily and at most once (the
motion timeline, the graph state simulation, the semantic assessment). Rules
never mutate it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

from plan_verifier.analysis.timeline import Timeline, build_timeline
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.ir import Plan
from plan_verifier.robots.spec import RobotSpec

if TYPE_CHECKING:
    from plan_verifier.graph.simulate import Simulation
    from plan_verifier.semantic.assessment import Assessment


@dataclass(frozen=True, slots=True)
class StartState:
    """Where the robot is and what it holds before the plan's first step."""

    position: str | None = None
    tool: str = NO_TOOL
    source: str = "default"  # request | robot_state | cell | default


@dataclass
class RuleContext:
    plan: Plan
    robot: RobotSpec
    profile: str = "default"
    level: str = "STANDARD"
    cell: Cell | None = None
    start: StartState = StartState()
    instruction: str | None = None
    options: Mapping[str, Any] | None = None

    @cached_property
    def timeline(self) -> Timeline:
        return build_timeline(self.plan, self.robot)

    @cached_property
    def simulation(self) -> "Simulation":
        from plan_verifier.graph.simulate import simulate

        assert self.cell is not None, "graph rules run only with a cell"
        return simulate(self.plan, self.cell, self.start)

    @cached_property
    def semantic(self) -> "Assessment":
        """The semantic stage's assessment against `instruction` (the grader runs once)."""
        from plan_verifier.semantic import assess

        return assess(self)

    @property
    def strict(self) -> bool:
        return self.profile == "strict"
