from __future__ import annotations

from collections import Counter

from plan_verifier import catalogue
from plan_verifier.analysis.timeline import Move, Timeline, descent_before, lift_after
from plan_verifier.findings import Category, Severity
from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

SEED_MESSAGE = "Consider using consistent velocities for similar motions"
#: Seed 000 R-CON-004 heuristic: precision moves onto a grasp/place and lifts use 50-100 mm/s.
PRECISION_MAX_MM_S = 100.0
#: Velocities of one kind of motion differ "very much" when one is more than this many times another.
SPREAD_RATIO = 2.0
_KIND_TEXT = {"precision": "grasp/place descents and lifts", "transfer": "approach and transfer moves"}


@register
class RCon004(Rule):
    """Similar motions use similar velocities.

    Motions are grouped by what they do (seed 000 heuristics): the descent onto
    a grasp or place point and the lift or retreat after it are *precision*
    moves (usually 50-100 mm/s); every other move is an approach or transfer
    (usually 100-200 mm/s). Reports a linear precision move faster than
    100 mm/s, and, per kind of motion and per motion type (joint moves are not
    compared with linear ones), the first move whose velocity differs from the
    kind's usual (most common) velocity by more than a factor of two.

    **Unsafe**::

        SPAWN MoveLinear(A_Grasp_Pose, 50, 50, 0, 0) WITH WAIT;   // descend to A
        ...
        SPAWN MoveLinear(B_Place_Pose, 300, 50, 0, 0) WITH WAIT;  // descend to B, 6x faster

    **Safe**::

        SPAWN MoveLinear(A_Grasp_Pose, 50, 50, 0, 0) WITH WAIT;
        ...
        SPAWN MoveLinear(B_Place_Pose, 50, 50, 0, 0) WITH WAIT;
    """

    id = "R-CON-004"
    name = "velocity-consistency"
    severity = Severity.INFO
    category = Category.CONSISTENCY

    def check(self, ctx):
        timeline = ctx.timeline
        precision = _precision_moves(timeline)
        groups: dict[tuple[str, str], list[tuple[Move, float]]] = {}
        reported: set[int] = set()
        for move in timeline.moves:
            velocity = move.step.number("velocity")
            spec = catalogue.lookup(move.step.command)
            if velocity is None or velocity <= 0 or spec is None:
                continue
            kind = "precision" if move.step.index in precision else "transfer"
            groups.setdefault((kind, spec.motion or "other"), []).append((move, velocity))
            if kind == "precision" and spec.motion == "linear" and velocity > PRECISION_MAX_MM_S:
                reported.add(move.step.index)
                yield self.finding(f"{SEED_MESSAGE}: {precision[move.step.index]} at {fmt_number(velocity)} mm/s "
                                   f"(grasp/place moves and lifts are usually 50-{fmt_number(PRECISION_MAX_MM_S)} mm/s)",
                                   span=move.step.arg_span("velocity"), step=move.step.index,
                                   evidence={"kind": kind, "velocity": velocity, "recommended_max": PRECISION_MAX_MM_S},
                                   suggestion=f"Use velocity <= {fmt_number(PRECISION_MAX_MM_S)} for this {precision[move.step.index]}")
        for (kind, motion), members in groups.items():
            counts = Counter(v for move, v in members if move.step.index not in reported)
            if not counts:
                continue
            usual = max(counts, key=lambda v: (counts[v], -v))  # the most common; on a tie the slower, so the faster one stands out
            for move, velocity in members:
                if move.step.index in reported or max(velocity, usual) <= SPREAD_RATIO * min(velocity, usual):
                    continue
                yield self.finding(f"{SEED_MESSAGE}: {fmt_number(velocity)} mm/s here, {fmt_number(usual)} mm/s for the other {motion} {_KIND_TEXT[kind]}",
                                   span=move.step.arg_span("velocity"), step=move.step.index,
                                   evidence={"kind": kind, "motion": motion, "velocity": velocity, "usual_velocity": usual},
                                   suggestion=f"Use about {fmt_number(usual)} like the other {_KIND_TEXT[kind]}")
                break


def _precision_moves(timeline: Timeline) -> dict[int, str]:
    """Step index -> what the move does ("descent to grasp", "lift", ...), for moves next to a grasp or release."""
    out: dict[int, str] = {}
    for action in timeline.gripper:
        if not (action.grasps or action.releases):
            continue  # opening an empty gripper is not handling a part
        if descent_before(action):
            out[action.position.step.index] = "descent to grasp" if action.closes else "descent to place"
        if lift_after(action):
            out[action.move_after.step.index] = "lift" if action.closes else "retreat"
    return out
