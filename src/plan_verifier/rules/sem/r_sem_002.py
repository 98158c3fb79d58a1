from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.sem._evidence import agrees, confidence, corroborated
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.grounding import compare_place
from plan_verifier.semantic.matching import overlaps
from plan_verifier.semantic.vocabulary import vocabulary

#: Highest commanded Cartesian speed that still reads as "gently"/"slowly"/"천천히" (mm/s).
GENTLE_VELOCITY_MM_S = 250.0
#: A carrying speed slow whatever the program does empty (mm/s).
_CRAWL_MM_S = 100.0


@register
class RSem002(SemanticRule):
    """Action or parameter mismatch: the plan acts differently than the instruction asks.

    * Manner: "gently", "slowly", "carefully", "fragile", "천천히", "조심히" ask
      for low speed; every commanded Cartesian speed (linear moves,
      `SetTaskVelocity`, JSON step `velocity`; joint moves are deg/s and do not
      count) of the task they govern — or of the whole plan when they govern the
      whole instruction — must be at most 250 mm/s. Confidence rises from 0.6
      just above the limit to 0.9 at twice it (CRITICAL from about 333 mm/s).
      A TDL program that carries the object faster than it moves with the
      gripper empty (and above 100 mm/s) does not slow down for it either (0.75);
      nor does one that carries the only object of the instruction no slower.
      "Quickly", "빨리" and a TDL program that carries the object at a crawl
      (every carrying move at most 100 mm/s) while it moves faster empty (0.75).
    * "Grip tightly" / "꽉" with no Delay after the gripper closes (0.75,
      seed 000 §2.3).
    * A hand-over ("hand it to the operator", "작업자에게 건네줘") released at a
      place the program names as something else (0.9 / 0.8); the rule abstains
      when the release point is not named. A release at what the program names
      a hand-over pose (`Handover_Pose`, "카운터 전달 위치") is the hand-over,
      whatever place the name also gives.
    * A routine other than the one asked for at the named place ("inspect
      Pos_2", the plan welds there; 0.85).

    **Unsafe**::

        # instruction: Place the fragile glass gently at B
        SPAWN MoveLinear(target_pose=B_Place_Pose, velocity=1000, acceleration=100, tool=0, blending_radius=0) WITH WAIT;

    **Safe**::

        # instruction: Place the fragile glass gently at B
        SPAWN MoveLinear(target_pose=B_Place_Pose, velocity=50, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    """

    id = "R-SEM-002"
    name = "action-parameter-mismatch"

    def check(self, ctx):
        g = ctx.grounding
        if g is None:
            return
        reading = g.instruction
        judged = False
        for finding in self._speed(reading.manner, g.activity.speeds):
            judged = True
            yield finding
        for pair in g.pairs:
            if pair.task.manner and pair.transfer is not None and pair.transfer.speeds:
                for finding in self._speed(pair.task.manner, pair.transfer.speeds):
                    judged = True
                    yield finding
        # Manner on a task that carries nothing ("살살 이동한 뒤", "attach the welder slowly") governs the plan's moves.
        carried = {id(p.task) for p in g.pairs if p.transfer is not None and p.transfer.speeds}
        other = tuple(m for t in reading.tasks if id(t) not in carried for m in t.manner)
        if other and not judged:
            for finding in self._speed(other, g.activity.speeds):
                judged = True
                yield finding
        if not judged:
            for finding in self._faster_loaded(g):
                judged = True
                yield finding
        if not judged:
            for finding in self._crawling_loaded(g):
                judged = True
                yield finding
        firm = [w for k, w in reading.manner if k == "firm"] + [w for p in g.pairs for k, w in p.task.manner if k == "firm"]
        if firm:
            for t in g.activity.transfers:
                if not t.delay_after_grasp:
                    step = t.grasp.step
                    judged = True
                    yield self.judged(f"Missing delay after the gripper closes: the instruction asks to grip '{firm[0]}'", 0.75,
                                      step=step.index, span=step.span, suggestion="Add Delay(duration_sec=0.5) after closing the gripper",
                                      manner=firm[0])
        unverified = []
        for pair in g.pairs:
            if pair.task.action != "handover" or pair.transfer is None or pair.transfer.release is None:
                continue
            c = pair.destination
            what = pair.task.obj.describe() if pair.task.obj else "object"
            if _handover_pose(pair.transfer.release):
                continue  # released at what the program names a hand-over pose ("카운터 전달 위치"): that is the hand-over
            sure = confidence(c, corroborated(pair, "destination"))
            if sure is not None:
                judged = True
                yield self.judged(f"Action mismatch: the instruction asks to hand the {what} to the operator "
                                  f"({said(reading.text[pair.task.start:pair.task.end])}), but the plan releases it at "
                                  f"{c.found.place.text if c.found and c.found.place else 'another place'} ({quote(c.found)})",
                                  sure, step=c.found.step if c.found else None, span=c.found.span if c.found else None,
                                  suggestion="Release the object at the hand-over pose", expected="hand-over", found=c.found.quote if c.found else None)
            elif not agrees(c):
                unverified.append(f"the hand-over of the {what}: the plan does not name where it releases it (step "
                                  f"{pair.transfer.release.step.index})")
        for task, work, c in g.works:
            if work is not None or task.at is None:
                continue
            other = next((w for w in g.activity.works if w.spot.position and task.at is not None and w.action not in ("attach", "detach")
                          and _at(task.at, w)), None)
            if other is not None:
                judged = True
                yield self.judged(f"Action mismatch: the instruction asks to {task.action} at {task.at.text}, but the plan runs "
                                  f"'{other.routine}' there", 0.85, step=other.step.index, span=other.step.span,
                                  suggestion=f"Run the {task.action} routine at {task.at.text}", expected=task.action, found=other.routine)
        if unverified and not judged:
            yield self.abstain(unverified)

    def _faster_loaded(self, g):
        """"Slowly", "gently" and a program that carries the object faster than it moves with the gripper empty (a TDL
        program: its gripper timeline says when it holds) — or, when the instruction carries one thing only, no slower:
        whatever the absolute speed, it does not slow down for the object (0.75). Only above 100 mm/s: a crawl is slow
        whichever way round."""
        if g.activity.format != "tdl":
            return
        asked = {id(p.transfer): p.task.manner for p in g.pairs if p.transfer is not None}
        held_at: set[int] = set()
        loaded = []
        for t in g.activity.transfers:
            if t.release is None:
                continue
            inside = [(s, v) for s, v in g.activity.speeds if t.grasp.step.index < s.index < t.release.step.index]
            held_at.update(s.index for s, _ in inside)
            manner = tuple(g.instruction.manner) + tuple(asked.get(id(t), ()))
            slow = [w for k, w in manner if k == "slow"]
            if slow and inside:
                loaded.append((slow[0], max(inside, key=lambda sv: sv[1])))
        empty = [v for s, v in g.activity.speeds if s.index not in held_at]
        if not empty:
            return
        fastest_empty = max(empty)
        # One carrying task: "slowly" is about that object, and carrying it no slower than moving empty ignores it. With
        # more, a manner word may govern one of them only ("Gently put the glass …, then take the wrench …").
        one_task = sum(1 for t in g.instruction.tasks if t.carries) == 1
        for word, (step, v) in loaded:
            if (v > fastest_empty or v == fastest_empty and one_task) and v > _CRAWL_MM_S:
                param = "mm_per_sec" if step.command == "SetTaskVelocity" else "velocity"
                how = "faster than it moves with the gripper empty (at most" if v > fastest_empty else \
                    "no slower than it moves with the gripper empty (also"
                yield self.judged(f"Velocity {fmt_number(v)} mm/s while carrying the object contradicts '{word}' in the instruction: "
                                  f"the plan moves it {how} {fmt_number(fastest_empty)} mm/s)",
                                  0.75, step=step.index, span=step.arg_span(param),
                                  suggestion=f"Carry the object slower than {fmt_number(fastest_empty)} mm/s", manner=word, velocity=v,
                                  limit=fastest_empty)
                return

    def _crawling_loaded(self, g):
        """"Quickly", "빨리", "급해" and a TDL program that carries the object at a crawl (100 mm/s at most, every move while
        it holds it) although it moves faster with the gripper empty: it slows down for the object where it was asked
        to hurry (0.75). A slow last approach alone is no crawl: the fastest carrying move counts."""
        if g.activity.format != "tdl":
            return
        asked = {id(p.transfer): p.task.manner for p in g.pairs if p.transfer is not None}
        held_at: set[int] = set()
        loaded = []
        for t in g.activity.transfers:
            if t.release is None:
                continue
            inside = [(s, v) for s, v in g.activity.speeds if t.grasp.step.index < s.index < t.release.step.index]
            held_at.update(s.index for s, _ in inside)
            fast = [w for k, w in tuple(g.instruction.manner) + tuple(asked.get(id(t), ())) if k == "fast"]
            if fast and inside:
                loaded.append((fast[0], max(inside, key=lambda sv: sv[1])))
        empty = [v for s, v in g.activity.speeds if s.index not in held_at]
        if not empty:
            return
        fastest_empty = max(empty)
        for word, (step, v) in loaded:
            if v <= _CRAWL_MM_S and v < fastest_empty:
                param = "mm_per_sec" if step.command == "SetTaskVelocity" else "velocity"
                yield self.judged(f"Velocity {fmt_number(v)} mm/s while carrying the object contradicts '{word}' in the instruction: "
                                  f"the plan carries it at a crawl, slower than it moves with the gripper empty (up to "
                                  f"{fmt_number(fastest_empty)} mm/s)", 0.75, step=step.index, span=step.arg_span(param),
                                  suggestion=f"Carry the object at least as fast as it moves empty ({fmt_number(fastest_empty)} mm/s)",
                                  manner=word, velocity=v, limit=fastest_empty)
                return

    def _speed(self, manner, speeds):
        slow = [w for k, w in manner if k == "slow"]
        if not slow:
            return
        fast = [(s, v) for s, v in speeds if v > GENTLE_VELOCITY_MM_S]
        if not fast:
            return
        step, v = max(fast, key=lambda sv: sv[1])
        confidence = round(0.6 + 0.3 * min(1.0, v / GENTLE_VELOCITY_MM_S - 1.0), 3)
        param = "mm_per_sec" if step.command == "SetTaskVelocity" else "velocity"
        yield self.judged(f"Velocity {fmt_number(v)} mm/s contradicts '{slow[0]}' in the instruction (at most "
                          f"{fmt_number(GENTLE_VELOCITY_MM_S)} mm/s expected)", confidence, step=step.index, span=step.arg_span(param),
                          suggestion=f"Lower the velocity to {fmt_number(GENTLE_VELOCITY_MM_S)} mm/s or less", manner=slow[0], velocity=v,
                          limit=GENTLE_VELOCITY_MM_S, steps=[s.index for s, _ in fast])


def _handover_pose(spot) -> bool:
    """Does the program name the release point a hand-over pose (the lexicon's `handover_places`: `Handover_Pose`, "카운터
    전달 위치")? The operator takes the thing there, whatever place the name also gives (the counter it is handed over at).
    A support named for hand-overs ("전달 트레이", a hand-over shelf) is a place things are set down on: no hand-over."""
    v = vocabulary()
    words = tuple(v.handover_places)
    for n in spot.places:
        said = tuple(w.lower() for w in (n.place.words if n.place is not None else ()))
        if not said or not overlaps(said, words):
            continue
        # (the hand-over word names a pose, not a support things are set down on: "전달 트레이", a hand-over shelf)
        head = said[-1]
        if overlaps((head,), words) or (v.en_places.get(head) or v.ko_places.get(head)) in (None, "position", "operator"):
            return True
    return False


def _at(place, work) -> bool:
    return compare_place(place, work.spot).same
