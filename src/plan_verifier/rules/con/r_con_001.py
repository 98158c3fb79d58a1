from __future__ import annotations

import difflib

from plan_verifier import catalogue
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import BinOp, Call, Plan, Ref, Reference, Value
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

_POSE_PARAMS = ("pose", "pose_list")
_POSE_CALLS = frozenset({"PosJ", "PosX", "PosY", "Trans"})


@register
class RCon001(Rule):
    """Every position or variable a command uses is defined before it is used.

    Names in pose parameters (``target_pose``, ``via_pose``, ``pose_list``), in
    numeric parameters, in a motion's ``tool`` and an output's ``value``, in an
    ``Assign`` source and anywhere in a ``DEFINE``'s pose (``PosX(x_off, ...)``)
    must be bound by ``DEFINE`` (program-wide), by an ``Assign`` that runs
    earlier in execution order (a GOAL called from a Main GOAL runs where it is
    called), by a ``For`` loop, or be a position of the cell graph. A name that an ``Assign`` binds only later is
    reported as used before it is assigned; any other unknown name gets the
    closest defined name as a suggestion. Each use is reported at its line and
    column. A value built from an undefined name cannot be evaluated, so this
    rule runs at every level (BASIC too). ``nan`` and ``inf`` are not names but
    numbers that are not finite (R-SYN-011).

    **Unsafe**::

        DEFINE A_Safe_Pose = PosX(0, 0, 150, 0, 0, 0);
        ...
        SPAWN MoveLinear(target_pose=B_Safe_Pose, ...)  // Error: not defined
        DEFINE B_Safe_Pose = PosX(foo, 0, 150, 0, 0, 0);  // Error: 'foo' is defined nowhere

    **Safe**::

        DEFINE A_Safe_Pose = PosX(0, 0, 150, 0, 0, 0);
        ...
        SPAWN MoveLinear(target_pose=A_Safe_Pose, ...)  // OK: defined
    """

    id = "R-CON-001"
    name = "undefined-reference"
    severity = Severity.CRITICAL
    category = Category.CONSISTENCY
    reason_code = "self_inconsistency"
    every_level = True

    def check(self, ctx):
        plan = ctx.plan
        loop_vars = _loop_variables(plan)
        candidates = sorted({d.name for d in plan.definitions} | set(loop_vars) | set(ctx.cell.positions if ctx.cell else ()))
        used_as_pose = {r.name for r in plan.references if _param_type(plan, r) in _POSE_PARAMS}
        for ref in plan.references:
            if ref.definition is not None or ref.graph_position:
                continue
            if ref.name in loop_vars and ref.step is not None and loop_vars[ref.name] <= ref.step:
                continue
            kind = "position" if _is_position(plan, ref, used_as_pose) else "variable"
            span = ref.span or (plan.step(ref.step).span if ref.step else None)
            line = span.line if span else "?"
            message = f"Undefined {kind} reference '{ref.name}' at line {line}"
            if ref.step is None:  # in a DEFINE: every value of it must be a number or a defined name
                message = f"Undefined name '{ref.name}' in {ref.param} at line {line}"
            evidence = {"name": ref.name, "kind": kind, "param": ref.param}
            later = ref.defined_later
            if later is not None:
                later_line = later.span.line if later.span else "?"
                evidence.update(assigned_at_line=later_line, assigned_at_step=later.step)
                yield self.finding(f"{message}: used before it is assigned at line {later_line}", span=span, step=ref.step, evidence=evidence,
                                   suggestion=f"Move the Assign of '{ref.name}' (line {later_line}) before its first use")
                continue
            guess = difflib.get_close_matches(ref.name, candidates, n=1, cutoff=0.6)
            if guess:
                evidence["closest"] = guess[0]
                suggestion = f"Did you mean '{guess[0]}'?"
            elif ref.step is None:
                suggestion = f"Write the number '{ref.name}' stands for"
            elif kind == "position":
                suggestion = f"Define it: DEFINE {ref.name} = PosX(x, y, z, rx, ry, rz);"
            else:
                suggestion = f"Assign it before line {line}: Assign({ref.name}, value)"
            yield self.finding(message, span=span, step=ref.step, evidence=evidence, suggestion=suggestion)


def _loop_variables(plan: Plan) -> dict[str, int]:
    """Names bound by `For` loops, with the step that first binds each."""
    out: dict[str, int] = {}
    for step in plan.steps:
        variable = step.args.get("variable") if step.command == "For" else None
        if isinstance(variable, Ref):
            out.setdefault(variable.name, step.index)
    return out


def _param_type(plan: Plan, ref: Reference) -> str | None:
    if ref.step is None:
        return None
    spec = catalogue.lookup(plan.step(ref.step).command)
    param = spec.param(ref.param) if spec else None
    return param.type if param else None


def _is_position(plan: Plan, ref: Reference, used_as_pose: set[str]) -> bool:
    """A name is a position when a pose parameter takes it, or an Assign builds a pose from it."""
    if _param_type(plan, ref) in _POSE_PARAMS:
        return True
    step = plan.step(ref.step) if ref.step else None
    if step is None or step.command != "Assign":
        return False
    destination = step.args.get("destination")
    return _has_pose_call(step.args.get("source")) or (isinstance(destination, Ref) and destination.name in used_as_pose)


def _has_pose_call(value: Value | None) -> bool:
    if isinstance(value, Call):
        return value.name in _POSE_CALLS or any(_has_pose_call(a.value) for a in value.args)
    if isinstance(value, BinOp):
        return _has_pose_call(value.left) or _has_pose_call(value.right)
    return False
