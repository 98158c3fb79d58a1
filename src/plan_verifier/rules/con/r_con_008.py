from __future__ import annotations

import math
from typing import Any

from plan_verifier import catalogue
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import NO_COORDINATES, RUNTIME, UNDEFINED, Pose, Step, unresolved_in
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

#: Parameter types whose values the checks and the executor need before the plan runs.
_NEEDED = frozenset({"pose", "pose_list", "number", "value"})
#: Causes another rule reports: a name defined nowhere (R-CON-001), a cell position without coordinates
#: (taught in the cell: the graph vouches for the move; the execution level says it could not simulate it).
_REPORTED_ELSEWHERE = frozenset({UNDEFINED, NO_COORDINATES})


@register
class RCon008(Rule):
    """Every value the checks need is known before the plan runs.

    A motion target (``target_pose``, ``via_pose``, ``pose_list``), a speed,
    acceleration or blend radius, a delay, a tool number, an I/O port or value
    — every parameter the verifier evaluates — must be computable from the
    program alone. A value that exists only when the program runs cannot be
    checked against anything: a function that reads the robot or its I/O
    (``GetDigitalInput(1)``, ``GetAnalogInput(2)``), a variable ``Assign``'ed
    from one, a ``For`` loop variable. Such a value is CRITICAL with reason
    code ``reverify_with_value``: the plan must be verified again with the
    value in it. The planner resubmits with numbers (the node's feedback
    names the step and the expression); the node does not re-verify at run
    time — it has ``/joint_states`` (where the arm is) but never the value
    a program will read as it runs. An expression the verifier does not
    evaluate (``A + B`` of two poses, a comparison, a pose where a number
    belongs) is CRITICAL too, with reason code ``insufficient_evidence``.

    The findings say a check could not run (outcome UNKNOWN). Names defined
    nowhere are R-CON-001's and non-finite numbers R-SYN-011's;
    this rule reports everything else that keeps a value from being known. It
    runs at every level, BASIC included: a target nobody could evaluate is
    never approved, whichever checks were asked for.

    **Unsafe**::

        Assign(pick, GetCurrentPose());                                  // read from the robot as it runs
        SPAWN MoveLinear(target_pose=pick * Trans(0, 0, 100, 0, 0, 0), velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
        SPAWN MoveLinear(target_pose=A_Safe_Pose, velocity=GetAnalogInput(1), acceleration=50, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        DEFINE Pick_Pose = PosX(450, -300, 120, 180, 0, 90);
        SPAWN MoveLinear(target_pose=Pick_Pose * Trans(0, 0, 100, 0, 0, 0), velocity=100, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-CON-008"
    name = "unevaluated-value"
    severity = Severity.CRITICAL
    category = Category.CONSISTENCY
    reason_code = "reverify_with_value"
    every_level = True

    def check(self, ctx):
        for step in ctx.plan.steps:
            spec = catalogue.lookup(step.command)
            if spec is None:
                continue
            for param in spec.params:
                if param.type in _NEEDED and param.name in step.params:
                    finding = self._judge(step, param.name, param.type, step.params[param.name])
                    if finding is not None:
                        yield finding

    def _judge(self, step: Step, param: str, kind: str, value: Any):
        where = f"Step {step.index} {step.command} {param}"
        unresolved = unresolved_in(value)
        if unresolved is not None:
            causes = [c for c in unresolved.causes if c.kind not in _REPORTED_ELSEWHERE]
            if unresolved.causes and not causes:
                return None
            runtime = [c for c in causes if c.kind == RUNTIME]
            shown = [c for c in (runtime or causes) if not (c.text == unresolved.text and c.span == step.arg_span(param))]
            listed = ", ".join(f"'{c.text}'" + (f" at line {c.span.line}" if c.span else "") for c in shown)
            why = (f" (it comes from {listed})" if runtime else f" ({listed})") if shown else ""
            evidence = {"expression": unresolved.text, "step": step.index, "command": step.command, "param": param,
                        "causes": sorted({c.kind for c in causes}) or ["unknown"],
                        "reason_code": "reverify_with_value" if runtime else "insufficient_evidence"}
            if runtime:
                return self.finding(
                    f"{where}: '{unresolved.text}' is only known when the program runs{why}; it was not checked",
                    span=step.arg_span(param), step=step.index, evidence=evidence, indeterminate=True,
                    suggestion="Resubmit the plan with the value as numbers (a PosX/PosJ literal, a number), so that it is "
                               "verified with the value in it")
            return self.finding(
                f"{where}: '{unresolved.text}' cannot be evaluated{why}; it was not checked",
                span=step.arg_span(param), step=step.index, evidence=evidence, indeterminate=True,
                suggestion="Write the value as numbers, a PosX/PosJ literal or a name DEFINE'd as one")
        wrong = _wrong_kind(kind, value)
        if wrong is None:
            return None
        return self.finding(f"{where}: its value is {wrong}, not {_WANTED[kind]}; it was not checked",
                            span=step.arg_span(param), step=step.index, indeterminate=True,
                            evidence={"step": step.index, "command": step.command, "param": param, "value": wrong,
                                      "reason_code": "insufficient_evidence"},
                            suggestion=f"Give {_WANTED[kind]}")


_WANTED = {"pose": "a pose", "pose_list": "a list of poses", "number": "a finite number", "value": "a value"}


def _wrong_kind(kind: str, value: Any) -> str | None:
    """What the evaluated value is when it is not what the parameter takes (None: it is)."""
    if kind == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return None
        return _describe(value)
    if kind == "pose":
        return None if _target(value) else _describe(value)
    if kind == "pose_list":
        return None if type(value) is list and all(_target(v) for v in value) else _describe(value)
    if kind == "value" and isinstance(value, float) and not math.isfinite(value):
        return _describe(value)
    return None


def _target(value: Any) -> bool:
    """A pose a robot can be sent to: joint or Cartesian (not an offset), every reading finite."""
    return type(value) is Pose and value.kind != "offset" and all(math.isfinite(v) for r in value.readings for v in r)


def _describe(value: Any) -> str:
    if type(value) is Pose:
        return f"an offset {value.label}" if value.kind == "offset" else f"the pose {value.label}"
    if isinstance(value, str):
        return f"the text '{value}'"
    if type(value) is list:
        return "a list"
    return f"'{value}'"

