from __future__ import annotations

from plan_verifier.ir import fmt_number
from plan_verifier.rules import register
from plan_verifier.rules.sem._evidence import agrees, confidence, corroborated
from plan_verifier.rules.sem._semantic import SemanticRule, quote, said
from plan_verifier.semantic.grounding import compare_place
from plan_verifier.semantic.language import noun_lemma
from plan_verifier.semantic.matching import overlaps
from plan_verifier.semantic.vocabulary import vocabulary

#: Highest commanded Cartesian speed that still reads as "gently"/"slowly"/"천천히" (mm/s).
GENTLE_VELOCITY_MM_S = 250.0
#: Kinds of place a thing is left on for someone to collect later (a pickup tray, a shelf), not where it is handed over
#: (a counter, a pass window, a person).
_SUPPORTS = frozenset({"tray", "shelf", "bin", "drawer", "cart", "pallet", "box"})
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
    * Manner "quickly", "빨리": a program that never carries the object as
      fast as 250 mm/s (the arms' default Cartesian speed, the most "gently"
      allows) does not hurry, however it moves empty (0.75; a crawl of at most
      100 mm/s 0.85); at the default speed or faster the word is not judged.
    * "Grip tightly" / "꽉" with no Delay after the gripper closes (0.75,
      seed 000 §2.3).
    * A hand-over ("hand it to the operator", "작업자에게 건네줘", a carry whose
      goal is a person: "towels to the groomer") released at a place the
      program names as something else (0.9 / 0.8). In a TDL program a release
      that waits for an input is the hand-over, wherever it is; one that
      neither waits nor pauses (`Delay`) before the gripper opens drops the
      thing (0.8). A release at what the program names a hand-over pose
      (`Handover_Pose`, "카운터 전달 위치") is at the hand-over place, whatever
      place the name also gives.
    * A thing to be set down on a support ("leave it on the pickup tray",
      an instruction with no hand-over) that the plan holds out at what it
      names a hand-over pose, waiting for an input before it lets go: a
      hand-over, not a set-down (0.8).
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
            for finding in (*self._faster_loaded(g), *self._slower_loaded(g)):
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
            if not _handing(pair.task) or pair.transfer is None or pair.transfer.release is None:
                continue
            c = pair.destination
            what = pair.task.obj.describe() if pair.task.obj else "object"
            release = pair.transfer.release
            tdl = g.activity.format == "tdl"
            if tdl and _waits_for_a_hand(ctx.plan, release.step.index):
                continue  # held out until someone takes it: that is the hand-over, wherever it is (R-SEM-003 judges where)
            sure = None if _handover_pose(release) else confidence(c, corroborated(pair, "destination"))
            if sure is not None:
                judged = True
                yield self.judged(f"Action mismatch: the instruction asks to hand the {what} to the operator "
                                  f"({said(reading.text[pair.task.start:pair.task.end])}), but the plan releases it at "
                                  f"{c.found.place.text if c.found and c.found.place else 'another place'} ({quote(c.found)})",
                                  sure, step=c.found.step if c.found else None, span=c.found.span if c.found else None,
                                  suggestion="Release the object at the hand-over pose", expected="hand-over", found=c.found.quote if c.found else None)
            elif tdl and not _waits_for_a_hand(ctx.plan, release.step.index, timed=True):
                # the gripper opens as soon as it arrives, whether or not a hand is there: the thing is dropped, not handed
                # over (a TDL program's gripper timeline says so; a JSON plan's hand-over routine waits by itself)
                judged = True
                yield self.judged(f"Action mismatch: the instruction asks to hand the {what} to the operator "
                                  f"({said(reading.text[pair.task.start:pair.task.end])}), but the plan opens the gripper "
                                  f"at step {release.step.index} without waiting for anyone to take it", 0.8,
                                  step=release.step.index, span=release.step.span,
                                  suggestion="Wait for the operator's confirmation (WaitForDigitalInput) before opening the gripper",
                                  expected="hand-over", found="release without waiting")
            elif not _handover_pose(release) and not agrees(c):
                unverified.append(f"the hand-over of the {what}: the plan does not name where it releases it (step "
                                  f"{release.step.index})")
        handing = any(_handing(t) for t in reading.tasks)
        for pair in g.pairs:
            t = pair.transfer
            if handing or pair.task.action != "place" or pair.task.destination is None or t is None or t.release is None or \
                    pair.task.destination.kind not in _SUPPORTS or not _handover_pose(t.release) or \
                    not _waits_for_a_hand(ctx.plan, t.release.step.index):
                continue
            # "leave it on the pickup tray, the customer takes it later": set down; the plan holds it out at a hand-over
            # pose and waits for someone to take it
            what = pair.task.obj.describe() if pair.task.obj else "object"
            named = next((n for n in t.release.places if n.place is not None), None)
            judged = True
            yield self.judged(f"Action mismatch: the instruction asks to put the {what} down on {pair.task.destination.text} "
                              f"({said(reading.text[pair.task.start:pair.task.end])}), but the plan holds it out at a hand-over "
                              f"pose and waits for someone to take it ({quote(named)})", 0.8, step=t.release.step.index,
                              span=t.release.step.span, suggestion=f"Set the {what} down on {pair.task.destination.text} and "
                              "release it without waiting for a hand", expected="set down", found="hand-over")
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
        loaded, empty = _carrying_speeds(g, "slow")
        if not empty:
            return
        fastest_empty = max(empty)
        # One carrying task: "slowly" is about that object, and carrying it no slower than moving empty ignores it. With
        # more, a manner word may govern one of them only ("Gently put the glass …, then take the wrench …").
        one_task = sum(1 for t in g.instruction.tasks if t.carries) == 1
        for word, inside in loaded:
            step, v = max(inside, key=lambda sv: sv[1])
            if (v > fastest_empty or v == fastest_empty and one_task) and v > _CRAWL_MM_S:
                how = "faster than it moves with the gripper empty (at most" if v > fastest_empty else \
                    "no slower than it moves with the gripper empty (also"
                yield self.judged(f"Velocity {fmt_number(v)} mm/s while carrying the object contradicts '{word}' in the instruction: "
                                  f"the plan moves it {how} {fmt_number(fastest_empty)} mm/s)",
                                  0.75, step=step.index, span=step.arg_span(_param(step)),
                                  suggestion=f"Carry the object slower than {fmt_number(fastest_empty)} mm/s", manner=word, velocity=v,
                                  limit=fastest_empty)
                return

    def _slower_loaded(self, g):
        """"Quickly", "빨리" and a program that never carries the object as fast as 250 mm/s — the default Cartesian speed
        of the arms we verify (UR's 250 mm/s) and the most "gently" allows: it does not hurry, whatever it does with the
        gripper empty (0.75 below it; a crawl, at most 100 mm/s, 0.85). A carry at the default speed or faster answers
        "quickly" for some writers: not judged. A TDL program's gripper timeline says which moves carry; a JSON plan's
        moves are all counted. Joint moves (deg/s) say nothing about the tool's speed."""
        loaded, _ = _carrying_speeds(g, "fast")
        if g.activity.format != "tdl":
            words = [w for k, w in tuple(g.instruction.manner) + tuple(m for p in g.pairs for m in p.task.manner) if k == "fast"]
            loaded = [(words[0], list(g.activity.speeds))] if words and g.activity.speeds else []
        for word, inside in loaded:
            step, v = max(inside, key=lambda sv: sv[1])
            if v < GENTLE_VELOCITY_MM_S:
                crawl = v <= _CRAWL_MM_S
                limit = _CRAWL_MM_S if crawl else GENTLE_VELOCITY_MM_S
                how = f"carries it at a crawl, never faster than {fmt_number(limit)} mm/s" if crawl else \
                    f"never carries it as fast as {fmt_number(limit)} mm/s, the arm's default speed"
                yield self.judged(f"Velocity {fmt_number(v)} mm/s while carrying the object contradicts '{word}' in the instruction: "
                                  f"the plan {how}", 0.85 if crawl else 0.75,
                                  step=step.index, span=step.arg_span(_param(step)),
                                  suggestion=f"Carry the object at {fmt_number(GENTLE_VELOCITY_MM_S)} mm/s or faster",
                                  manner=word, velocity=v, limit=limit)
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
        yield self.judged(f"Velocity {fmt_number(v)} mm/s contradicts '{slow[0]}' in the instruction (at most "
                          f"{fmt_number(GENTLE_VELOCITY_MM_S)} mm/s expected)", confidence, step=step.index, span=step.arg_span(_param(step)),
                          suggestion=f"Lower the velocity to {fmt_number(GENTLE_VELOCITY_MM_S)} mm/s or less", manner=slow[0], velocity=v,
                          limit=GENTLE_VELOCITY_MM_S, steps=[s.index for s, _ in fast])


def _param(step) -> str:
    return "mm_per_sec" if step.command == "SetTaskVelocity" else "velocity"


def _carrying_speeds(g, kind: str) -> tuple[list[tuple[str, list]], list[float]]:
    """The speeds of each TDL transfer a manner word of `kind` governs (the word, the moves while it is held), and the
    speeds of the moves with the gripper empty. A TDL program's gripper timeline says when it holds; JSON plans have
    no such timeline."""
    if g.activity.format != "tdl":
        return [], []
    asked = {id(p.transfer): p.task.manner for p in g.pairs if p.transfer is not None}
    held_at: set[int] = set()
    loaded = []
    for t in g.activity.transfers:
        if t.release is None:
            continue
        inside = [(s, v) for s, v in g.activity.speeds if t.grasp.step.index < s.index < t.release.step.index]
        held_at.update(s.index for s, _ in inside)
        words = [w for k, w in tuple(g.instruction.manner) + tuple(asked.get(id(t), ())) if k == kind]
        if words and inside:
            loaded.append((words[0], inside))
    return loaded, [v for s, v in g.activity.speeds if s.index not in held_at]


def _handing(task) -> bool:
    """Does the task give the thing to someone: a hand-over, or a carry whose goal is a person ("dive computer → front
    desk 손님한테", "towels to the groomer")? A person's word after a thing's is a machine ("the case packer", "the
    carton packer"): no one takes the thing there."""
    if task.action == "handover":
        return True
    goal = task.destination
    if goal is None or goal.kind != "operator":
        return False
    v = vocabulary()
    return not any(v.en_objects.get(noun_lemma(w.lower())) or v.ko_objects.get(w) for w in goal.words[:-1])


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


def _waits_for_a_hand(plan, release: int, *, timed: bool = False) -> bool:
    """Does the program wait for an input (the operator's button, a hand sensor) between its last move and opening the
    gripper at step `release`? That is a hand-over: the thing is held out until someone takes it. With `timed`, a pause
    (`Delay` — "wait for the operator to take it") counts too: a hand-over on a timer, not a drop on arrival."""
    for step in reversed([s for s in plan.steps if s.index < release]):
        if step.is_motion:
            return False
        if step.command == "WaitForDigitalInput" or timed and step.command == "Delay":
            return True
    return False


def _at(place, work) -> bool:
    return compare_place(place, work.spot).same
