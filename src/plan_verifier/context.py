"""Everything a rule may look at during one verification.

One `RuleContext` per verification: the plan, the robot, the cell snapshot, the
start state and the typed options, plus analyses computed lazily and at most
once (the motion timeline, the graph state simulation, the execution level's
kinematic simulation, and for the semantic stage the instruction's tasks, the
program's transfers, how they ground in each other and the optional model
review). The analyses take plain values and never see the context, so no
import runs the other way. It is frozen: rules cannot change it, and the
pipeline derives a new context (`dataclasses.replace`) when it must tell a
rule something new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from plan_verifier.analysis.timeline import Timeline, build_timeline
from plan_verifier.graph.model import NO_TOOL, Cell
from plan_verifier.ir import Plan
from plan_verifier.options import VerifyOptions
from plan_verifier.robots.spec import RobotSpec

if TYPE_CHECKING:
    from plan_verifier.graph.simulate import Simulation
    from plan_verifier.motion.facts import Execution
    from plan_verifier.semantic.grounding import Grounding
    from plan_verifier.semantic.instruction import Instruction
    from plan_verifier.semantic.llm import Review
    from plan_verifier.semantic.activity import Activity


#: The start source of a run from another configuration of an assumed start (`RuleContext.start_alternatives`).
ALTERNATIVE_START = "alternative"


@dataclass(frozen=True, slots=True)
class StartState:
    """Where the robot is and what it holds before the plan's first step, and, when known, its joints.

    `joints` (degrees) come from the robot itself (`joint_states`: the node's /joint_states)
    or the request; without them the execution level assumes a configuration the robot can
    be standing in at `position` (`motion.start`), else starts at the robot spec's
    `home_joints_deg`.
    """

    position: str | None = None
    tool: str = NO_TOOL
    source: str = "default"  # request | robot_state | cell | default
    joints: tuple[float, ...] | None = None
    joints_source: str | None = None  # joint_states | request


@dataclass(frozen=True)
class RuleContext:
    plan: Plan
    robot: RobotSpec
    profile: str = "default"
    level: str = "STANDARD"
    cell: Cell | None = None
    start: StartState = StartState()
    instruction: str | None = None
    options: VerifyOptions = VerifyOptions()

    @cached_property
    def timeline(self) -> Timeline:
        return build_timeline(self.plan, self.robot)

    @cached_property
    def simulation(self) -> "Simulation":
        from plan_verifier.graph.simulate import simulate

        assert self.cell is not None, "graph rules run only with a cell"
        return simulate(self.plan, self.cell, self.start)

    @cached_property
    def execution(self) -> "Execution":
        """The execution level: every motion run in the kinematic simulation of the cell."""
        from plan_verifier.motion.simulate import simulate_execution

        trace = self.simulation if self.cell is not None and self.plan.format == "json" else None
        return simulate_execution(self.plan, self.robot, self.cell, self.start, trace)

    @cached_property
    def start_alternatives(self) -> "tuple[Execution, ...]":
        """The plan run again from each other configuration the robot could be standing in at the start the
        execution level assumed (`Start.alternatives`; none when the robot's joints are known). R-KIN-010's."""
        alternatives = self.execution.start.alternatives if self.execution.start is not None else ()
        if not alternatives:
            return ()
        from plan_verifier.motion.simulate import simulate_execution

        trace = self.simulation if self.cell is not None and self.plan.format == "json" else None
        return tuple(simulate_execution(self.plan, self.robot, self.cell,
                                        replace(self.start, joints=joints, joints_source=ALTERNATIVE_START), trace,
                                        follow=self.execution) for joints in alternatives)

    @cached_property
    def instruction_reading(self) -> "Instruction | None":
        """The instruction's tasks (None: no instruction given)."""
        if not (self.instruction or "").strip():
            return None
        from plan_verifier.semantic.instruction import read_instruction

        return read_instruction(self.instruction.strip())

    @cached_property
    def activity(self) -> "Activity":
        """What the plan does in the instruction's terms: transfers, visits, routines, speeds."""
        from plan_verifier.semantic.program import read_program

        return read_program(self.plan, self.timeline if self.plan.format == "tdl" else None, self.cell, self.robot)

    @cached_property
    def grounding(self) -> "Grounding | None":
        """Which transfer carries out which task, aspect by aspect (None: no instruction)."""
        if self.instruction_reading is None:
            return None
        from plan_verifier.semantic.grounding import ground

        return ground(self.instruction_reading, self.activity)

    @cached_property
    def review(self) -> "Review | None":
        """The llm grader's opinion (None unless `options.grader` selects it and there is an instruction)."""
        if self.options.grader.name != "llm" or self.instruction_reading is None:
            return None
        from plan_verifier.semantic.llm import review

        return review(self.instruction or "", self.plan.source, self.options.grader)

    @property
    def strict(self) -> bool:
        return self.profile == "strict"
