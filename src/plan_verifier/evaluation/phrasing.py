"""Natural-language instructions for generated tasks, in English and Korean.

Several phrasings per task kind, the way people write to a planner ("Transfer
the box from table A to table B", "박스를 A에서 B로 옮겨줘"), with optional
manner words ("gently", "천천히"), coordinates ("A(400, 0, 50)") and a
"return home". The generator keeps its own small word table (below), apart
from the grader's vocabulary, so that the two do not share words by
construction; the hand-written development set (`evaluation/devset.py`) is
the measure of phrasing the generator never uses.
"""

from __future__ import annotations

import random

from plan_verifier.evaluation.programs import Item, Spot, TdlTask
from plan_verifier.ir import fmt_number

_GENTLE_EN = ("gently", "slowly", "carefully")
_GENTLE_KO = ("조심스럽게", "천천히", "살살", "부드럽게")


#: How the generator writes its nouns, colours and tools in Korean.
_KOREAN = {
    "objects": {"box": "박스", "cube": "큐브", "block": "블록", "apple": "사과", "banana": "바나나", "orange": "오렌지",
                "glass": "유리컵", "cup": "컵", "bottle": "물병", "gear": "기어", "bolt": "볼트", "battery": "배터리",
                "welder": "용접기", "camera": "카메라", "gripper": "그리퍼", "screwdriver": "드라이버"},
    "colors": {"red": "빨간", "blue": "파란", "green": "초록", "yellow": "노란", "black": "검은", "white": "흰"},
}


def _korean(group, canonical: str) -> str | None:
    return _KOREAN[group].get(canonical)


def korean_item(item: Item) -> str:
    noun = _korean("objects", item.noun) or item.noun
    color = _korean("colors", item.color) if item.color else None
    return f"{color} {noun}" if color else noun


def object_particle(word: str) -> str:
    """을 after a final consonant, 를 after a vowel (Hangul syllables; other text takes 를)."""
    last = word[-1]
    if "\uac00" <= last <= "\ud7a3":
        return "을" if (ord(last) - 0xAC00) % 28 else "를"
    return "를"


def _place(spot: Spot, coordinates: bool) -> str:
    if coordinates:
        return f"{spot.label}({', '.join(fmt_number(round(c)) for c in spot.xyz)})"
    return spot.label


def tdl_instruction(task: TdlTask, rng: random.Random, language: str) -> str:
    return (_tdl_korean if language == "ko" else _tdl_english)(task, rng)


def _tdl_english(task: TdlTask, rng: random.Random) -> str:
    P = [_place(s, task.coordinates) for s in task.visits]
    home = rng.choice((" and return home", ", then return home", ", then go back home")) if task.return_home else ""
    manner = rng.choice(_GENTLE_EN) if task.gentle else ""
    if task.kind == "move_to":
        text = rng.choice(("Move to position {A}", "Go to table {A}", "Move the arm to position {A}", "Move the robot to point {A}",
                           "Please head over to position {A}")).format(A=P[0])
        return _with_manner(text, manner, rng) + home
    if task.kind == "tour":
        if len(P) == 2:
            text = rng.choice(("Move to position {0}, then position {1}", "Go to {0} first, then to {1}", "Visit table {0} and then table {1}")).format(*P)
        else:
            text = rng.choice(("Move to position {0}, then position {1}, then position {2}", "Go to {0} first, then {1}, and then {2}",
                               "Visit positions {0}, {1} and {2} in that order")).format(*P)
        return _with_manner(text, manner, rng) + (", and finally return home" if task.return_home else "")
    parts = []
    for n, t in enumerate(task.transfers):
        a, b, obj = _place(t.source, task.coordinates), _place(t.destination, task.coordinates), t.item.english
        if task.gentle and n == 0 and rng.random() < 0.4 and t.item.color is None:
            obj = f"fragile {obj}"
        parts.append(rng.choice((
            "transfer the {o} from table {a} to table {b}", "pick the {o} from position {a} and place it at position {b}",
            "move the {o} from {a} to {b}", "pick up the {o} at {a} and put it down at {b}",
            "take the {o} from {a} and place it on table {b}", "grab the {o} sitting on table {a} and drop it off at table {b}",
            "bring the {o} from {a} over to {b}", "relocate the {o} from position {a} to position {b}")).format(o=obj, a=a, b=b))
    if len(parts) == 1:
        text = parts[0][0].upper() + parts[0][1:]
    else:
        first, joint = rng.choice((("First, ", ". Then "), ("", ", then "), ("", "; next, ")))
        text = first + joint.join(parts)
        text = text[0].upper() + text[1:]
    return _with_manner(text, manner, rng) + home


def _with_manner(text: str, manner: str, rng: random.Random) -> str:
    if not manner:
        return text
    if rng.random() < 0.5:
        return f"{manner.capitalize()} {text[0].lower()}{text[1:]}"
    return f"{text} {manner}"


def _tdl_korean(task: TdlTask, rng: random.Random) -> str:
    P = [_place(s, task.coordinates) for s in task.visits]
    manner = rng.choice(_GENTLE_KO) + " " if task.gentle else ""
    if task.kind == "move_to":
        if task.return_home:
            return f"{P[0]} 위치로 {manner}이동한 뒤 홈으로 돌아와"
        return rng.choice(("{A} 위치로 {m}이동해줘", "{A} 지점으로 {m}가줘", "로봇을 {A} 위치로 {m}움직여줘")).format(A=P[0], m=manner)
    if task.kind == "tour":
        if len(P) == 2:
            text = f"{P[0]} 위치로 {manner}이동한 다음 {P[1]} 위치로 가"
        else:
            text = f"먼저 {P[0]} 위치로 {manner}이동하고, 그 다음 {P[1]} 위치, 이어서 {P[2]} 위치로 가"
        return text + ("고 마지막으로 홈으로 돌아와" if task.return_home else "줘")
    clauses = []
    for t in task.transfers:
        a, b = _place(t.source, task.coordinates), _place(t.destination, task.coordinates)
        obj = korean_item(t.item)
        obj += object_particle(obj)
        clauses.append(rng.choice(("{o} {a}에서 {b}로 {m}옮기", "{a} 위치의 {o} 집어서 {b} 위치에 {m}놓",
                                   "{a}에 있는 {o} 들어서 {b}에 {m}내려놓")).format(o=obj, a=a, b=b, m=manner))
    if task.return_home:
        clauses.append("홈으로 돌아오")
    return ("먼저 " if len(task.transfers) > 1 else "") + _join_korean(clauses, rng)


_FINAL = {"옮기": "옮겨줘", "내려놓": "내려놔줘", "놓": "놓아줘", "하": "해줘", "돌아오": "돌아와"}
_THEN = {"옮기": ("옮기고", "옮긴 다음", "옮긴 뒤"), "내려놓": ("내려놓고", "내려놓은 다음"), "놓": ("놓고", "놓은 다음", "놓은 뒤"),
         "하": ("하고", "한 다음", "한 뒤")}


def _join_korean(clauses: list[str], rng: random.Random) -> str:
    """Verb-stem clauses joined in order ("…하고", "…한 다음") and the last one conjugated ("…해줘")."""
    out = []
    for n, clause in enumerate(clauses):
        stem = next(k for k in _FINAL if clause.endswith(k))
        head = clause[: len(clause) - len(stem)]
        if n == len(clauses) - 1:
            out.append(head + _FINAL[stem])
        else:
            out.append(head + rng.choice(_THEN[stem]) + ("," if n == 0 and len(clauses) > 2 else ""))
    return " ".join(out)


# --------------------------------------------------------------------------- cell jobs


def routine_phrase(routine: str, language: str) -> str | None:
    """`tack_weld` -> "tack weld" / "용접"; None when the lexicon has no Korean verb for it."""
    words = routine.split("_")
    if language == "en":
        return " ".join(words)
    return next((_KOREAN_WORK[w] for w in words if w in _KOREAN_WORK), None)


#: Korean nouns that take 하다 for the work verbs ("Pos_1에서 용접해줘").
_KOREAN_WORK = {"weld": "용접", "inspect": "검사", "pick": "픽업", "place": "플레이스"}


def tool_noun(tool: str, tool_type: str | None, language: str) -> str:
    """`Welder` -> "welder" / "용접기"."""
    noun = tool.lower()
    if language == "ko":
        return _korean("objects", noun) or tool
    return noun


def job_instruction(jobs, attach_only: str | None, return_home: bool, release: bool, gentle: bool,
                    language: str, rng: random.Random) -> str:
    """`jobs`: [(tool noun, routine phrase, position)] in order; `attach_only`: the tool noun of an attach-only task."""
    if language == "ko":
        return _jobs_korean(jobs, attach_only, return_home, release, gentle, rng)
    manner = rng.choice(_GENTLE_EN) if gentle else ""
    if attach_only:
        text = rng.choice(("Attach the {t}", "Pick up the {t} from its tool stand", "Mount the {t}")).format(t=attach_only)
        return _with_manner(text + (" and return home" if return_home else ""), manner, rng)
    tools = list(dict.fromkeys(t for t, _, _ in jobs))
    if len(tools) == 1:
        tool = tools[0]
        work = ", then ".join(f"{verb} at {pos}" for _, verb, pos in jobs)
        text = f"Attach the {tool}, {work}"
        if release:
            text += f", then put the {tool} back"
    else:
        chunks = []
        for tool in tools:
            work = ", then ".join(f"{verb} at {pos}" for t, verb, pos in jobs if t == tool)
            chunks.append(f"attach the {tool}, {work}" + (f" and put the {tool} back" if release or tool != tools[-1] else ""))
        text = "First " + ". Then ".join(chunks)
    text += " and return home" if return_home else ""
    return _with_manner(text, manner, rng)


def _jobs_korean(jobs, attach_only, return_home, release, gentle, rng) -> str:
    manner = rng.choice(_GENTLE_KO) + " " if gentle else ""
    clauses = []
    if attach_only:
        clauses.append(f"{attach_only}{object_particle(attach_only)} {manner}장착하")
    tools = list(dict.fromkeys(t for t, _, _ in jobs))
    for tool in tools:
        obj = tool + object_particle(tool)
        clauses.append(f"{obj} {manner}장착하")
        clauses += [f"{pos}에서 {verb}하" for t, verb, pos in jobs if t == tool]
        if release or tool != tools[-1]:
            clauses.append(f"{obj} 반납하")
    if return_home:
        clauses.append("홈으로 돌아오")
    return ("먼저 " if len(tools) > 1 else "") + _join_korean(clauses, rng)
