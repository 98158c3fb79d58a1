from __future__ import annotations

from bisect import bisect_left, bisect_right

from plan_verifier.analysis.timeline import Z_EPSILON_MM, GripperAction, Move, Timeline, descent_before, is_descent, lift_after
from plan_verifier.findings import Category, Severity
from plan_verifier.graph.model import Cell
from plan_verifier.ir import JOINT
from plan_verifier.rules import register
from plan_verifier.rules.base import Rule

SEED_MESSAGE = "Non-standard pick-and-place pattern detected"
#: Seed 000 R-DOM-001's standard pattern, in order.
PATTERN = (
    "move to home",
    "open gripper",
    "approach the source at safe height",
    "descend to grasp height",
    "close gripper + delay",
    "lift to safe height",
    "move to the destination at safe height",
    "descend to place height",
    "open gripper + delay",
    "retreat to safe height",
    "return home",
)
#: Seed 000: a pick & place follows the pattern when at least 80% of its steps match.
MATCH_THRESHOLD = 0.8


@register
class RDom001(Rule):
    """Pick & place follows the standard pattern.

    Each pick & place cycle (a grasp, and the release that follows it, if any)
    is compared with seed 000's eleven steps: home, open gripper, approach the
    source at safe height, descend, close gripper + delay, lift, move to the
    destination at safe height, descend, open gripper + delay, retreat, home.
    Fewer than 80% matching steps is reported once per cycle, at the grasp,
    listing the missing steps. A home move is a joint-space (PosJ) target, a
    target whose name contains "home", or a cell position with role home.
    Programs that never grasp are not pick & place and are not checked.

    **Unsafe**::

        SPAWN MoveLinear(A_Grasp_Pose, 50, 50, 0, 0) WITH WAIT;
        SPAWN SetDigitalOutput(1, 1) WITH WAIT;
        SPAWN MoveLinear(B_Place_Pose, 50, 50, 0, 0) WITH WAIT;
        SPAWN SetDigitalOutput(1, 0) WITH WAIT;

    **Safe**::

        Home → open → A_Safe → A_Grasp → close + Delay(0.5) → A_Safe →
        B_Safe → B_Place → open + Delay(0.5) → B_Safe → Home
    """

    id = "R-DOM-001"
    name = "pick-and-place-pattern"
    severity = Severity.INFO
    category = Category.DOMAIN

    def check(self, ctx):
        timeline = ctx.timeline
        moves = [m.step.index for m in timeline.moves]
        homes = [m.step.index for m in timeline.moves if _is_home(m, ctx.cell)]
        for grasp, release in _cycles(timeline):
            matched = _match(grasp, release, moves, homes)
            score = sum(matched) / len(PATTERN)
            if score >= MATCH_THRESHOLD:
                continue
            missing = [name for name, ok in zip(PATTERN, matched) if not ok]
            yield self.finding(f"{SEED_MESSAGE}: {sum(matched)} of {len(PATTERN)} standard steps ({round(score * 100)}%); "
                               f"missing: {', '.join(missing)}",
                               span=grasp.step.span, step=grasp.step.index,
                               evidence={"matched": sum(matched), "of": len(PATTERN), "missing": missing},
                               suggestion="Follow home → open → approach → descend → close + delay → lift → move → "
                                          "descend → open + delay → retreat → home")


def _cycles(timeline: Timeline) -> list[tuple[GripperAction, GripperAction | None]]:
    """Each grasp with the release that ends it (None when the program ends holding)."""
    cycles: list[tuple[GripperAction, GripperAction | None]] = []
    for action in timeline.gripper:
        if action.grasps:
            cycles.append((action, None))
        elif action.releases and cycles and cycles[-1][1] is None:
            cycles[-1] = (cycles[-1][0], action)
    return cycles


def _match(grasp: GripperAction, release: GripperAction | None, moves: list[int], homes: list[int]) -> list[bool]:
    """Which of the PATTERN steps this cycle has; `moves` and `homes` are the step indices of all moves and of home moves."""
    before = grasp.moves_before
    approach, descent = (before[0], before[1]) if len(before) == 2 else (None, before[-1] if before else None)
    start = (approach or descent or grasp).step.index
    lift = grasp.move_after if lift_after(grasp) else None
    steps = [
        bool(homes) and homes[0] < start,
        grasp.state_before == "open",
        _above(approach, descent),
        bool(descent_before(grasp)),
        grasp.delay_after is not None,
        lift is not None,
    ]
    if release is None:
        steps += [False] * 4
    else:
        place_before = [m for m in release.moves_before if m.step.index > grasp.step.index]
        place_descent = len(place_before) == 2 and is_descent(place_before[0], place_before[1])
        between = bisect_left(moves, release.step.index) - bisect_right(moves, grasp.step.index)
        steps += [
            between - (lift is not None) - place_descent >= 1,
            place_descent,
            release.delay_after is not None,
            bool(lift_after(release)),
        ]
    end = (release or grasp).step.index
    steps.append(bool(homes) and homes[-1] > end)
    return steps


def _above(high: Move | None, low: Move | None) -> bool:
    return high is not None and low is not None and high.z is not None and low.z is not None and high.z - low.z > Z_EPSILON_MM


def _is_home(move: Move, cell: Cell | None) -> bool:
    target = move.step.target
    name = move.step.target_name
    if target is not None and target.kind == JOINT:
        return True
    if name and "home" in name.lower():
        return True
    return bool(name and cell and name in cell.positions and cell.positions[name].role == "home")
