"""Programs for the semantic robustness tests: one scene, written out in the naming styles planners use.

A program is a list of pick-and-place cycles (or moves to named points); each
style names the same motions differently — pose names (`DEFINE Red_Cube_Pick`),
comments only (inline `PosX`), `Assign`ed variables with `PrintLog`, Korean
comments, camelCase, names that say nothing (`P1`) and names no vocabulary
knows. The robot is a UR10e, tool down, in front of the base; every program is
clean at level STANDARD (the tests check that), so whatever FULL reports is
the semantic stage's.
"""

from __future__ import annotations

from dataclasses import dataclass

HOME = "PosJ(180, -90, 90, -90, -90, 0)"
#: Where things are: (x, y, z of the grasp/release point), mm.
SPOTS = {
    "table": (500, -200, 40), "bin 1": (560, 320, 80), "bin 2": (700, 120, 80), "bin 3": (600, 250, 80),
    "tray": (430, 260, 70), "pallet": (700, -250, 100), "operator": (480, 480, 280), "a": (420, -150, 90),
    "b": (420, 150, 90), "c": (520, 0, 90), "conveyor": (780, -380, 180), "fixture": (620, -60, 140),
    "blue cube": (560, -250, 40), "red cube": (500, -200, 40), "shelf": (720, 380, 200),
    "camera": (640, 60, 320), "feeder": (460, -320, 90), "conveyor 1": (780, -380, 180), "conveyor 2": (740, 200, 160),
    "scanner": (600, 100, 300),
}
STYLES = ("define_named", "named_inline", "positional_assign", "korean_comments", "camel_case")
#: Styles whose names say nothing an instruction could be compared with.
OPAQUE_STYLES = ("opaque", "unusual")

_KO = {"red cube": "빨간 큐브", "blue cube": "파란 큐브", "green cube": "초록 큐브", "table": "테이블", "bin 1": "1번 통",
       "bin 2": "2번 통", "bin 3": "3번 통", "tray": "트레이", "pallet": "팔레트", "operator": "작업자", "glass": "유리컵",
       "a": "A 위치", "b": "B 위치", "c": "C 위치", "box": "상자", "conveyor": "컨베이어", "red block": "빨간 블록",
       "blue block": "파란 블록", "fixture": "지그", "shelf": "선반", "bolt": "볼트", "wrench": "렌치", "camera": "카메라",
       "brass fitting": "황동 피팅", "feeder": "피더", "conveyor 1": "1번 컨베이어", "conveyor 2": "2번 컨베이어",
       "scanner": "스캐너"}


@dataclass(frozen=True)
class Cycle:
    """Grasp `obj` at `source`, release it at `destination` (a hand-over waits for the operator first); `via`: a
    place the object is held up to on the way (a camera), without letting go."""

    obj: str
    source: str
    destination: str
    pick: tuple[float, float, float] | None = None
    place: tuple[float, float, float] | None = None
    via: str | None = None

    def at(self, end: str) -> tuple[float, float, float]:
        given = self.pick if end == "pick" else self.place
        name = self.source if end == "pick" else self.destination
        return given or SPOTS[name]


@dataclass(frozen=True)
class Visit:
    """A move to a named point (no gripper action)."""

    place: str


def _words(text: str) -> list[str]:
    return text.replace("bin ", "bin").split()


def _pascal(text: str) -> str:
    return "_".join(w.capitalize() if not w[-1].isdigit() else w.capitalize() for w in _words(text))


def _camel(text: str) -> str:
    words = _words(text)
    return words[0].lower() + "".join(w.capitalize() for w in words[1:])


def _xyz(p: tuple[float, float, float], dz: float = 0) -> str:
    return f"PosX({p[0]:g}, {p[1]:g}, {p[2] + dz:g}, 180, 0, 0)"


def program(steps: list[Cycle | Visit], style: str = "define_named", speed: float = 150, near: float = 60,
            carry: float | None = None) -> str:
    """The TDL of these cycles in one naming style; `carry`: the speed of the moves with the object held."""
    carry = carry if carry is not None else speed
    named = style in ("define_named", "camel_case", "opaque", "unusual")
    defines: list[str] = []
    body: list[str] = []
    assigns: list[str] = []
    counter = [0]

    def name_for(label: str, p: tuple[float, float, float], dz: float) -> str:
        counter[0] += 1
        if style == "opaque":
            name = f"P{counter[0]}"
        elif style == "unusual":
            name = f"Xf_{counter[0]:02d}_{'Ingress' if dz else 'Seat'}"
        elif style == "camel_case":
            name = label
        else:
            name = label
        if name not in {d.split()[1] for d in defines}:
            defines.append(f"DEFINE {name} = {_xyz(p, dz)};")
        return name

    def move(target: str, v: float, comment: str = "", linear: bool = True) -> None:
        cmd = "MoveLinear" if linear else "MoveJoint"
        tail = f" // {comment}" if comment and style in ("named_inline", "korean_comments") else ""
        if style == "positional_assign":
            body.append(f"    SPAWN {cmd}({target}, {v:g}, 80, 0, 0.0, None) WITH WAIT;{tail}")
        else:
            body.append(f"    SPAWN {cmd}(target_pose={target}, velocity={v:g}, acceleration=80, tool=0, blending_radius=0) WITH WAIT;{tail}")

    def target(label_en: str, p: tuple[float, float, float], dz: float) -> str:
        if named:
            label = _camel(label_en) if style == "camel_case" else _pascal(label_en)
            return name_for(label, p, dz)
        if style == "positional_assign":
            var = "p_" + "_".join(_words(label_en.lower()))
            if var not in {a.split("(")[1].split(",")[0] for a in assigns}:
                assigns.append(f"    SPAWN Assign({var}, {_xyz(p, dz)}) WITH WAIT;")
            return var
        return _xyz(p, dz)

    def note(en: str, ko: str) -> None:
        if style == "named_inline":
            body.append(f"    // {en}")
        elif style == "korean_comments":
            body.append(f"    // {ko}")
        elif style == "positional_assign":
            body.append(f'    SPAWN PrintLog("{en}") WITH WAIT;')

    def gripper(value: int) -> None:
        if style == "positional_assign":
            body.append(f"    SPAWN SetDigitalOutput(1, {value}) WITH WAIT;")
            body.append("    SPAWN Delay(0.5) WITH WAIT;")
        else:
            body.append(f"    SPAWN SetDigitalOutput(port=1, value={value}) WITH WAIT;")
            body.append("    SPAWN Delay(duration_sec=0.5) WITH WAIT;")

    for step in steps:
        if isinstance(step, Visit):
            p = SPOTS[step.place]
            note(f"Move to {_say(step.place)}", f"{_KO.get(step.place, step.place)}(으)로 이동")
            move(target(f"pose {_point(step.place)}", p, 60), speed)
            continue
        pick, place = step.at("pick"), step.at("place")
        obj, src, dst = step.obj, step.source, step.destination
        ko_obj, ko_src, ko_dst = _KO.get(obj, obj), _KO.get(src, src), _KO.get(dst, dst)
        note(f"Pick up the {obj} from {_say(src)}", f"{ko_src}에서 {ko_obj} 집기")
        above = target(f"{src} {obj} approach", pick, 140)
        move(above, speed)
        move(target(f"{src} {obj} pick", pick, 0), near)
        gripper(1)
        move(above, near)
        if step.via is not None:
            note(f"Show the {obj} to {_say(step.via)}", f"{ko_obj}를 {_KO.get(step.via, step.via)}에 보여주기")
            move(target(f"{step.via} {obj} hold", SPOTS[step.via], 0), carry)
            body.append("    SPAWN Delay(duration_sec=1.0) WITH WAIT;" if style != "positional_assign" else "    SPAWN Delay(1.0) WITH WAIT;")
        if dst == "operator":
            note(f"Hand the {obj} over to the operator", f"작업자에게 {ko_obj} 건네주기")
            hand = target("handover pose", place, 0)
            move(hand, carry)
            body.append("    SPAWN Delay(duration_sec=2.0) WITH WAIT;" if style != "positional_assign" else "    SPAWN Delay(2.0) WITH WAIT;")
            gripper(0)
            continue
        note(f"Put the {obj} {_into(dst)}", f"{ko_obj}를 {ko_dst}에 놓기")
        drop_above = target(f"{dst} {obj} approach" if style == "unusual" else f"{dst} approach", place, 140)
        move(drop_above, carry)
        move(target(f"{dst} place", place, 0), min(near, carry))
        gripper(0)
        move(drop_above, near)
    head = []
    if style == "positional_assign":
        head = ["# Generated TDL v1", "# User Command: (echoed request; never evidence)", "# " + "=" * 60, ""]
    lines = head + defines + ([""] if defines else [])
    lines += ["GOAL Initialize_Process() {"]
    if style == "positional_assign":
        lines += [f"    SPAWN MoveJoint({HOME}, 60, 80, 0, 0.0, None) WITH WAIT;", "    SPAWN SetDigitalOutput(1, 0) WITH WAIT;",
                  "    SPAWN Delay(0.5) WITH WAIT;"]
    else:
        lines += [f"    SPAWN MoveJoint(target_pose={HOME}, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;",
                  "    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;", "    SPAWN Delay(duration_sec=0.5) WITH WAIT;"]
    lines += ["}", "", "GOAL Execute_Process() {"] + assigns + body + ["}", "", "GOAL Finalize_Process() {"]
    if style == "positional_assign":
        lines += [f"    SPAWN MoveJoint({HOME}, 60, 80, 0, 0.0, None) WITH WAIT;"]
    else:
        lines += [f"    SPAWN MoveJoint(target_pose={HOME}, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;"]
    lines += ["    SPAWN End() WITH WAIT;", "}", ""]
    return "\n".join(lines)


def _say(place: str) -> str:
    if place in ("a", "b", "c"):
        return f"position {place.upper()}"
    return place if place.startswith("bin") else f"the {place}"


def _point(place: str) -> str:
    return place.upper() if place in ("a", "b", "c") else place


def _into(place: str) -> str:
    return f"into {_say(place)}" if place.startswith("bin") else f"on {_say(place)}"
