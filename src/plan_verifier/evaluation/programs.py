"""Correct TDL programs for generated tasks, in the dialects real generators emit.

A task (places on the table, objects to carry, order, manner) becomes a list
of operations following the pick-and-place pattern of seed 000 (home, open,
approach, descend, close + delay, lift, move, descend, open + delay, retreat,
home) and is then written out in one of three dialects:

* `named_inline`: named arguments, inline `PosX(...)` targets, the place and
  object only in comments (the NLTDL generator's style);
* `positional_assign`: positional arguments with a trailing `None`, poses held
  in `Assign`'ed variables named after the object and place, `PrintLog` lines
  and a `# User Command:` header (the 251204/251128 generators' style);
* `define_named`: `DEFINE`d poses such as `A_Grasp_Pose` and named arguments
  (seed 000's own examples).

Every number stays inside the robot's recommended ranges (velocity 50–500
mm/s, acceleration 20–200 mm/s², Z >= 20 mm, safe heights >= 100 mm, delays
0.5 s after every gripper action, `End()` last), so a program generated
without an injected error is correct by construction; `check_correct` says
so again before the program is used as a positive example.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plan_verifier.ir import fmt_number

DIALECTS = ("named_inline", "positional_assign", "define_named")
#: Home in front of the robot: on a UR10e PosJ(180, -90, 90, -90, -90, 0) puts the TCP at about (691, 174, 527), tool down
#: (PosJ(0, ...) would reach backwards, behind the base, away from every target below).
HOME_JOINTS = (180, -90, 90, -90, -90, 0)
TOOL_DOWN = (0, 180, 0)
JOINT_SPEED = 60  # deg/s for the joint moves home
GRIPPER_PORT = 1
DELAY_S = 0.5


@dataclass(frozen=True, slots=True)
class Spot:
    """A labelled place on the table; `xyz` is where an object sits (mm, robot base frame)."""

    label: str
    xyz: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Item:
    noun: str  # canonical English noun of the semantic lexicon
    color: str | None = None

    @property
    def words(self) -> tuple[str, ...]:
        return (self.color, self.noun) if self.color else (self.noun,)

    @property
    def english(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True, slots=True)
class Transfer:
    item: Item
    source: Spot
    destination: Spot


@dataclass(frozen=True)
class TdlTask:
    """What the instruction asks for (the plan is built from a possibly altered copy)."""

    kind: str  # move_to | tour | pick_place | multi_pick_place
    visits: tuple[Spot, ...] = ()
    transfers: tuple[Transfer, ...] = ()
    return_home: bool = False
    gentle: bool = False
    grip_height: float = 25.0
    approach_height: float = 120.0
    fast: float = 150.0
    slow: float = 60.0
    acceleration: float = 80.0
    coordinates: bool = False  # the instruction gives the places' coordinates


@dataclass(frozen=True, slots=True)
class Op:
    """One executed command: a move to a pose, a gripper action, the joint move home, End()."""

    kind: str  # home | move | grip | end
    role: str  # what the comment says: visit approach descend lift carry lower retreat open grasp release home return end
    pose: "PoseKey | None" = None
    xyz: tuple[float, float, float] | None = None
    velocity: float = 0.0
    acceleration: float = 0.0
    close: bool = False
    item: Item | None = None
    label: str = ""


@dataclass(frozen=True, slots=True)
class PoseKey:
    """Identifies a pose for naming: what it is for, where, how high, with which object."""

    purpose: str  # pick | place | visit
    label: str
    level: str  # above | at
    item: Item | None = None


@dataclass(frozen=True)
class Program:
    initialize: tuple[Op, ...]
    execute: tuple[Op, ...]
    finalize: tuple[Op, ...]
    uses_gripper: bool


def build_program(task: TdlTask, drop_release: int | None = None, drop_home: bool = False) -> Program:
    """The operations that carry out `task`. `drop_release`/`drop_home` leave steps out (missing_step)."""
    execute: list[Op] = []
    for spot in task.visits:
        xyz = (spot.xyz[0], spot.xyz[1], spot.xyz[2] + task.approach_height)
        execute.append(Op("move", "visit", PoseKey("visit", spot.label, "above"), xyz, task.fast, task.acceleration, label=spot.label))
    for n, t in enumerate(task.transfers):
        execute += _pick(task, t)
        if n != drop_release:
            execute += _place(task, t)
    uses_gripper = bool(task.transfers)
    initialize = [Op("home", "home", velocity=JOINT_SPEED, acceleration=task.acceleration)]
    if uses_gripper:
        initialize.append(Op("grip", "open", close=False))
    finalize = [] if drop_home else [Op("home", "return", velocity=JOINT_SPEED, acceleration=task.acceleration)]
    finalize.append(Op("end", "end"))
    return Program(tuple(initialize), tuple(execute), tuple(finalize), uses_gripper)


def _above(task: TdlTask, spot: Spot) -> tuple[float, float, float]:
    return (spot.xyz[0], spot.xyz[1], spot.xyz[2] + task.grip_height + task.approach_height)


def _at(task: TdlTask, spot: Spot) -> tuple[float, float, float]:
    return (spot.xyz[0], spot.xyz[1], spot.xyz[2] + task.grip_height)


def _pick(task: TdlTask, t: Transfer) -> list[Op]:
    s, item = t.source, t.item
    above, at = PoseKey("pick", s.label, "above", item), PoseKey("pick", s.label, "at", item)
    return [
        Op("move", "approach", above, _above(task, s), task.fast, task.acceleration, item=item, label=s.label),
        Op("move", "descend", at, _at(task, s), task.slow, task.acceleration, item=item, label=s.label),
        Op("grip", "grasp", close=True, item=item, label=s.label),
        Op("move", "lift", above, _above(task, s), task.slow, task.acceleration, item=item, label=s.label),
    ]


def _place(task: TdlTask, t: Transfer) -> list[Op]:
    d, item = t.destination, t.item
    above, at = PoseKey("place", d.label, "above", item), PoseKey("place", d.label, "at", item)
    return [
        Op("move", "carry", above, _above(task, d), task.fast, task.acceleration, item=item, label=d.label),
        Op("move", "lower", at, _at(task, d), task.slow, task.acceleration, item=item, label=d.label),
        Op("grip", "release", close=False, item=item, label=d.label),
        Op("move", "retreat", above, _above(task, d), task.slow, task.acceleration, item=item, label=d.label),
    ]


# --------------------------------------------------------------------------- rendering


@dataclass
class Style:
    """How one program is written (chosen per case)."""

    dialect: str
    header_comment: str | None = None  # the `# User Command:` block (positional_assign)
    header_block: dict[str, str] | None = None  # HEADER ... END_HEADER (named_inline)
    plain_calls: bool = False  # `Cmd(...);` instead of `SPAWN Cmd(...) WITH WAIT;`
    comment_language: str = "en"  # en | ko


def render(program: Program, style: Style) -> str:
    writer = _Writer(style)
    return writer.program(program)


class _Writer:
    def __init__(self, style: Style) -> None:
        self.style = style
        self.names: dict[PoseKey, str] = {}
        self.declared: set[PoseKey] = set()

    def program(self, program: Program) -> str:
        lines: list[str] = []
        if self.style.header_comment:
            lines += [f"# {line}" for line in self.style.header_comment.splitlines()] + ["# " + "=" * 60, ""]
        if self.style.header_block:
            lines.append("HEADER")
            lines += [f'  {k}: "{v}"' for k, v in self.style.header_block.items()]
            lines += ["END_HEADER", ""]
        if self.style.dialect == "define_named":
            seen: dict[PoseKey, tuple[float, float, float]] = {}
            for op in program.execute:
                if op.pose is not None and op.pose not in seen:
                    seen[op.pose] = op.xyz
            lines.append(f"DEFINE Home_Pose = PosJ({_nums(HOME_JOINTS)});")
            for key, xyz in seen.items():
                lines.append(f"DEFINE {self.name(key)} = PosX({_nums(xyz + TOOL_DOWN)});")
                self.declared.add(key)
            lines.append("")
        for goal, ops in (("Initialize_Process", program.initialize), ("Execute_Process", program.execute),
                          ("Finalize_Process", program.finalize)):
            lines.append(f"GOAL {goal}()")
            lines.append("{")
            lines += self.body(ops)
            lines.append("}")
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    def body(self, ops: tuple[Op, ...]) -> list[str]:
        out: list[str] = []
        block_item = None
        for op in ops:
            if self.style.dialect == "positional_assign" and op.item is not None and op.item != block_item:
                block_item = op.item
                out.append(self.statement(f'PrintLog("Handling the {op.item.english}")'))
            if op.kind == "move" and self.style.dialect == "positional_assign" and op.pose not in self.declared:
                self.declared.add(op.pose)
                out.append(self.statement(f"Assign({self.name(op.pose)}, PosX({_nums(op.xyz + TOOL_DOWN)}))"))
            out.append(f"    // {comment(op, self.style.comment_language)}")
            out += self.command(op)
        return out

    def command(self, op: Op) -> list[str]:
        named = self.style.dialect != "positional_assign"
        if op.kind == "end":
            return [self.statement("End()")]
        if op.kind == "grip":
            value = 1 if op.close else 0
            grip = f"SetDigitalOutput(port={GRIPPER_PORT}, value={value})" if named else f"SetDigitalOutput({GRIPPER_PORT}, {value})"
            delay = f"Delay(duration_sec={fmt_number(DELAY_S)})" if named else f"Delay({fmt_number(DELAY_S)})"
            return [self.statement(grip), self.statement(delay)]
        if op.kind == "home":
            target = "Home_Pose" if self.style.dialect == "define_named" else f"PosJ({_nums(HOME_JOINTS)})"
            return [self.statement(self.move("MoveJoint", target, op))]
        if self.style.dialect == "named_inline":
            target = f"PosX({_nums(op.xyz + TOOL_DOWN)})"
        else:
            target = self.name(op.pose)
        return [self.statement(self.move("MoveLinear", target, op))]

    def move(self, command: str, target: str, op: Op) -> str:
        v, a = fmt_number(op.velocity), fmt_number(op.acceleration)
        if self.style.dialect == "positional_assign":
            return f"{command}({target}, {v}, {a}, 0, 0.0, None)"
        return f"{command}(target_pose={target}, velocity={v}, acceleration={a}, tool=0, blending_radius=0)"

    def statement(self, call: str) -> str:
        return f"    {call};" if self.style.plain_calls else f"    SPAWN {call} WITH WAIT;"

    def name(self, key: PoseKey) -> str:
        if key not in self.names:
            role = {("pick", "at"): "grasp", ("place", "at"): "place", ("visit", "above"): "visit"}.get((key.purpose, key.level), "approach")
            if key.purpose == "place" and key.level == "above":
                role = "place_approach"
            if self.style.dialect == "define_named":
                words = [w.capitalize() for w in (key.item.words if key.item else ())]
                parts = words + [key.label] + [w.capitalize() for w in role.split("_")] + ([] if key.item else ["Pose"])
            else:
                parts = list(key.item.words if key.item else ("pos",)) + role.split("_") + [key.label]
            self.names[key] = "_".join(parts)
        return self.names[key]


_COMMENTS = {
    "en": {
        "visit": "Move to position {L}", "home": "Move to the home position", "return": "Return to the home position",
        "open": "Open the gripper", "approach": "Approach the {item} at {L} (safe height)",
        "descend": "Descend to the {item} at {L}", "grasp": "Grasp the {item}", "lift": "Lift the {item} above {L}",
        "carry": "Carry the {item} above {L}", "lower": "Lower the {item} onto {L}", "release": "Release the {item}",
        "retreat": "Retreat above {L}", "end": "End the program",
    },
    "ko": {
        "visit": "{L} 위치로 이동", "home": "홈 위치로 이동", "return": "홈 위치로 복귀", "open": "그리퍼 열기",
        "approach": "{L} 위치의 {item} 위로 접근 (안전 높이)", "descend": "{L} 위치의 {item}까지 하강",
        "grasp": "그리퍼를 닫아 {item} 잡기", "lift": "{item} 들어 올리기 ({L} 위)", "carry": "{L} 위치 위로 {item} 운반",
        "lower": "{L} 위치에 {item} 내리기", "release": "그리퍼를 열어 {item} 놓기", "retreat": "{L} 위치 위로 후퇴",
        "end": "프로그램 종료",
    },
}


def comment(op: Op, language: str) -> str:
    """The step's comment, in the language of the program's comments."""
    from plan_verifier.evaluation.phrasing import korean_item

    item = "" if op.item is None else (korean_item(op.item) if language == "ko" else op.item.english)
    return _COMMENTS[language][op.role].format(L=op.label, item=item)


def _nums(values) -> str:
    return ", ".join(fmt_number(round(float(v), 1)) for v in values)


# --------------------------------------------------------------------------- correctness


def check_correct(program: Program, reach_mm: float) -> None:
    """Raise if the program breaks a rule a correct program keeps (a generator bug, never a label)."""
    for op in program.initialize + program.execute + program.finalize:
        if op.kind == "move":
            assert op.xyz is not None and 20 <= op.xyz[2] and math.dist((0, 0, 0), op.xyz) <= 0.9 * reach_mm, op
            assert math.hypot(op.xyz[0], op.xyz[1]) >= 300, op
        if op.kind in ("move", "home"):
            assert 50 <= op.velocity <= 500 and 20 <= op.acceleration <= 200, op
    last = (program.finalize or program.execute)[-1]
    assert last.kind == "end", last
