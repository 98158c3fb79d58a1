from __future__ import annotations

from plan_verifier import rules as registry
from plan_verifier.findings import Severity
from plan_verifier.rules import register
from plan_verifier.rules.execution import ExecutionRule, angles

#: Failing starts and their findings named in the message (all of them are in the evidence).
_NAMED = 3


@register
class RKin010(ExecutionRule):
    """The verdict does not depend on a start configuration the verifier had to assume.

    Without the robot's joints (no `/joint_states`, no `--start-joints`, no
    taught `joints` for the start position) the execution level assumes the
    start: the start position's inverse-kinematics solution nearest to
    `home_joints_deg` among those the robot can stand in (R-KIN-009). A posed
    position has several (up to eight on a UR), and the way to the first target
    and the controller's branch for every later Cartesian target follow from
    the one the arm is really in. So the plan is run again from each of the
    other collision-free configurations of the start position and judged by the
    same execution rules; when the plan is rejected (a CRITICAL finding) from
    some of them and not from others, the verdict rests on the assumption, and
    this WARNING (outcome UNKNOWN) says which starts approve the plan and which
    reject it, and why (rule and step). Findings that differ without changing
    the verdict (another collision from every start, clearance warnings) do not
    count. The verdict stays the assumed start's: never approved from a start
    that merely happened to pass, never rejected from one the robot could not
    be in. An
    approval records the start it was verified from
    (`verification.start_joints_deg`, `start_joints_source: start_position`),
    so an executor can refuse to run it from anywhere else.

    Cost: one more simulation per other configuration, only when the start is
    assumed at a posed position; a run that reaches the assumed run's
    configuration at the beginning of a step (a taught position, a PosJ target)
    stops there, the rest being the same. Give the robot's joints and there are
    no extra runs.

    **Unsafe**::

        # UR10e on the weld cell, the Welder in hand at Pos_1 (no taught joints there): from Pos_1's
        # configuration nearest to home the plan is clean; from the other one the robot can stand in
        # there (elbow down) the joint move to Safe_Pos_1 drives the torch into the jig and the arm into itself
        plan-verify check put_away.json --cell weld_cell --start-position Pos_1 --start-tool Welder
        # put_away.json: {"steps": [{"id": 1, "action": "move", "target": "Safe_Pos_1"},
        #                           {"id": 2, "action": "move", "target": "Home"}]}

    **Safe**::

        plan-verify check put_away.json --cell weld_cell --start-position Pos_1 --start-tool Welder \
            --start-joints=139.331,-100.942,128.646,-117.703,-90,139.331
    """

    id = "R-KIN-010"
    name = "verdict-independent-of-assumed-start"
    severity = Severity.WARNING
    reason_code = "start_dependent"

    def judge(self, execution, ctx):
        start = execution.start
        if start is None or not start.assumed or not start.alternatives:
            return
        applies = {ctx.plan.format, ctx.plan.source_format}  # as the pipeline selects rules
        judges = [cls() for cls in registry.all_rules()
                  if issubclass(cls, ExecutionRule) and cls is not type(self) and not applies.isdisjoint(cls.formats)]
        assumed = _rejections(execution, judges, ctx)
        others = [(run.start.joints_deg, _rejections(run, judges, ctx, assumed)) for run in ctx.start_alternatives]
        if all(bool(found) == bool(assumed) for _, found in others):
            return  # the same verdict from every configuration (their findings may differ: not the verdict)
        approving = [joints for joints, found in others if not found]
        rejecting = [(joints, found) for joints, found in others if found]
        verdict = f"rejected ({_named(assumed)})" if assumed else "approved"
        parts = []
        if approving:
            listed = "; ".join(angles(j) for j in approving[:_NAMED]) + (" ..." if len(approving) > _NAMED else "")
            parts.append(f"{len(approving)} {'approves' if len(approving) == 1 else 'approve'} it ({listed})")
        if rejecting:
            listed = "; ".join(f"{angles(j)}: {_named(found)}" for j, found in rejecting[:_NAMED]) + (" ..." if len(rejecting) > _NAMED else "")
            parts.append(f"{len(rejecting)} {'rejects' if len(rejecting) == 1 else 'reject'} it ({listed})")
        if len(others) == 1:
            joints, found = others[0]
            elsewhere = (f"from the other configuration the robot can stand in there, {angles(joints)}, it is "
                         + (f"rejected ({_named(found)})" if found else "approved"))
        else:
            elsewhere = f"of the {len(others)} other configurations the robot can stand in there, {' and '.join(parts)}"
        yield self.finding(
            f"The verdict depends on where the robot starts: its joints were not given, so the run assumed start position "
            f"'{start.position}' in the configuration nearest to home_joints_deg, {angles(start.joints_deg)}, from which the plan "
            f"is {verdict}; {elsewhere}",
            indeterminate=True,
            evidence={"position": start.position, "assumed_deg": _rounded(start.joints_deg), "assumed_rejects": _listed(assumed),
                      "approving_deg": [_rounded(j) for j in approving],
                      "rejecting": [{"start_deg": _rounded(j), "rejects": _listed(found)} for j, found in rejecting]},
            suggestion="Verify from the robot's real joints (--start-joints, the node's /joint_states), or teach the start "
                       "position's joints in the cell (`plan-verify graph lint --teach`); an approval holds only from the start "
                       "it records (verification.start_joints_deg)")


def _rejections(execution, judges, ctx, assumed=frozenset()) -> frozenset[tuple[str, int | None]]:
    """The (rule id, step) of every CRITICAL finding the execution rules make of one run; a run that joined the
    assumed start's (`Execution.joined_at`) has the assumed start's from that step on."""
    own = frozenset((f.rule_id, f.step) for rule in judges for f in rule.judge(execution, ctx) if f.severity is Severity.CRITICAL)
    if execution.joined_at is None:
        return own
    return own | frozenset(key for key in assumed if key[1] is not None and key[1] >= execution.joined_at)


def _named(found) -> str:
    ordered = sorted(found, key=lambda key: (key[1] or 0, key[0]))
    text = ", ".join(f"step {step} {rule}" if step is not None else rule for rule, step in ordered[:_NAMED])
    return text + (" ..." if len(ordered) > _NAMED else "")


def _listed(found) -> list[dict]:
    return [{"rule_id": rule, "step": step} for rule, step in sorted(found, key=lambda key: (key[1] or 0, key[0]))]


def _rounded(joints) -> list[float]:
    return [round(float(v), 3) for v in joints]
