from __future__ import annotations

from plan_verifier.findings import Category, Finding, Severity
from plan_verifier.problems import Problem, ProblemKind as K
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule


@register
class RSyn008(Rule):
    """JSON/YAML plan matches the plan schema (contract §5).

    A plan is a list of steps or ``{"name", "description", "steps": [...]}``;
    each step has ``action`` (``move`` or ``routine``) and a non-empty
    ``target``; ``position``, ``tool``, ``name``, ``id``, ``stabilize``,
    ``velocity`` and ``acceleration`` have the documented types. An
    approved-actions file (a ``RobotSequence`` root) holds such steps, or the
    commands of a TDL program (``command``, ``args``). Every schema error is
    reported with its step number and field.

    **Unsafe**::

        [{"id": 1, "action": "fly", "target": "Pos_1"}]

    **Safe**::

        [{"id": 1, "name": "Move to Safe_Pos_1", "action": "move", "target": "Safe_Pos_1"}]
    """

    id = "R-SYN-008"
    name = "plan-schema"
    severity = Severity.CRITICAL
    category = Category.SYNTAX
    formats = frozenset({"json", "actions"})
    owns = frozenset({K.JSON_INVALID, K.YAML_INVALID, K.DOCUMENT_TOO_DEEP, K.NOT_A_STEP_LIST, K.SCHEMA_MISMATCH})

    def check(self, ctx):
        yield from self.owned_problems(ctx)

    def word(self, problem: Problem) -> Finding:
        kind, v, span = problem.kind, problem.values, problem.span
        if kind is K.JSON_INVALID:
            return self.finding(f"Plan is not valid JSON: {v['reason']}", span=span, suggestion="Emit strict JSON (double quotes, no trailing commas)")
        if kind is K.YAML_INVALID:
            return self.finding(f"Plan is not valid YAML: {v['reason']}", span=span)
        if kind is K.DOCUMENT_TOO_DEEP:
            return self.finding("Plan is nested too deeply to be a step list", span=span)
        if kind is K.NOT_A_STEP_LIST:
            return self.finding("Plan does not match the plan schema: expected a list of steps or an object with 'steps'", span=span)
        loc = v["loc"]
        field = ".".join(str(p) for p in loc)
        if problem.step is not None:
            inner = ".".join(str(p) for p in loc[2:])
            where = f"Step {problem.step}" + (f": field '{inner}'" if inner else "")
        else:
            where = "Plan" + (f": field '{field}'" if loc else "")
        reason = "required field is missing" if v["error"] == "missing" else v["reason"]
        return self.finding(f"Plan does not match the plan schema: {where}: {reason}", span=span, step=problem.step,
                            evidence={"field": field, "error": v["error"]})
