from __future__ import annotations

from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule


@register
class RKin006(ExecutionRule):
    """Every motion uses a tool number the robot spec defines.

    The `tool` argument selects the controller's tool: its TCP (where a
    Cartesian target puts the tool's tip) and its collision shape. A number the
    robot spec's `tools` do not define has no known TCP: every target of those
    motions would be reached somewhere else than the program thinks. The
    simulation then uses the bare flange (never a silent default) and the plan
    is rejected. One finding per tool number, at its first use.

    **Unsafe**::

        SPAWN MoveLinear(PosX(500, 0, 300, 180, 0, 0), 100, 100, 3, 0) WITH WAIT;   // tool 3: not in the spec

    **Safe**::

        SPAWN MoveLinear(PosX(500, 0, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;
    """

    id = "R-KIN-006"
    name = "tool-defined"

    def judge(self, execution, ctx):
        steps: dict[str, list[int]] = {}
        first = {}
        for problem in execution.tools:
            steps.setdefault(problem.given, []).append(problem.motion.step)
            first.setdefault(problem.given, problem)
        for given, problem in first.items():
            motion = problem.motion
            defined = ", ".join(map(str, problem.defined)) or "none"
            yield self.finding(
                f"{motion.command} uses tool {given}, which the {ctx.robot.model} spec does not define (defined: {defined}); "
                f"its TCP and shape are unknown, so the motions were checked with the bare flange",
                span=motion.span, step=motion.step, evidence={"tool": given, "defined": list(problem.defined), "steps": steps[given]},
                suggestion=f"Use a tool number the robot spec defines ({defined}), or add tool {given} (tcp and shape) to the spec")
