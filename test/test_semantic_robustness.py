"""Robustness of the semantic stage on language it was not tuned on (issue 10, task S2).

Paraphrase families of the issue's four instructions and of seed 000's case studies (gently vs a fast move,
"A then B" done as B then A, red vs blue), each written fresh in English and Korean (at least ten phrasings),
against one correct and one wrong program in several naming styles (`semantic_scene.py`): the correct program
must never be rejected in any style (unusual and opaque names included), the wrong one must be rejected by the
family's rule in every style whose names say what is wrong. Then context-only sentences, reasons, pronouns and
numbered lists, which must never reject a correct program.
"""

from __future__ import annotations

import pytest

from plan_verifier.findings import Severity
from plan_verifier.pipeline import Verifier
from semantic_scene import OPAQUE_STYLES, STYLES, Cycle, Visit, program

RED_BIN3 = [Cycle("red cube", "table", "bin 3")]
#: Styles whose names carry a place letter only in lower case (`p_pose_a`): read as no label, the stage abstains.
LOWER_CASE_LETTERS = ("positional_assign",)

FAMILIES = [
("swap-en", [Cycle("red cube", "bin 3", "table")], RED_BIN3, {"R-SEM-003"}, [
    "Take the red cube out of bin 3 and set it on the table",
    "Grab the red cube from bin 3, then put it down on the table",
    "Could you move the red cube from bin three over to the table?",
    "The red cube is in bin 3. Bring it to the table please.",
    "Pull the red block out of the third bin and place it onto the table.",
    "Move the red cube to the table from bin 3",
    "From bin 3, pick up the red cube and put it on the table",
    "Unload the red cube from bin 3 onto the table",
    "I need the red cube moved from bin 3 to the table",
    "Please transfer the red cube from bin #3 to the table.",
    "Get the red cube out of bin 3 and leave it on the table",
    "red cube: from bin 3 to the table",
]),
("swap-ko", [Cycle("red cube", "bin 3", "table")], RED_BIN3, {"R-SEM-003"}, [
    "빨간 큐브를 3번 통에서 꺼내서 테이블에 놓아줘",
    "3번 통에 있는 빨간 큐브를 테이블로 옮겨",
    "빨간 큐브 3번 통에서 테이블로 옮겨주세요",
    "빨간색 블록을 3번 빈에서 집어서 작업대 위에 내려놔",
    "테이블로 빨간 큐브를 3번 통에서 옮겨 줘",
    "3번 통에서 빨간 큐브 꺼내서 테이블 위에 둬",
    "빨간 큐브는 3번 통에서 빼서 테이블에 올려놔 줘",
    "빨강 큐브를 세 번째 통에서 테이블로 이동시켜 줘",
    "3번통의 빨간 큐브를 테이블로 옮겨줘",
    "빨간 큐브를 3번 통으로부터 꺼내 테이블에 놔주세요",
    "빨간 큐브를 3번 통에서 테이블 위로 옮겨 놓아라",
]),
("dest-en", [Cycle("red cube", "table", "bin 2")], RED_BIN3, {"R-SEM-003"}, [
    "Drop the red cube in bin 2",
    "Put the red block into the second bin",
    "Move the red cube over to bin two",
    "Place the red cube inside bin #2",
    "The red cube goes into bin 2",
    "Take the red cube and put it in bin 2, please",
    "Red cube into bin 2, thanks",
    "Could you stick the red cube in bin 2?",
    "Load the red cube into bin no. 2",
    "Pick up the red cube; place it in bin 2.",
    "I'd like the red cube in bin 2.",
    "Put the red cube in bin 2 when you get a chance",
]),
("dest-ko", [Cycle("red cube", "table", "bin 2")], RED_BIN3, {"R-SEM-003"}, [
    "빨간 큐브를 2번 통에 넣어줘",
    "빨간 큐브 2번 빈에 넣어",
    "빨간색 큐브를 두 번째 통에 넣어주세요",
    "빨간 큐브를 집어서 2번 통에 넣어",
    "2번 통에 빨간 큐브 넣어줘",
    "빨간 블록을 2번 통으로 옮겨",
    "빨간 큐브는 2번 통에 넣어 주세요",
    "빨간 큐브를 2번통에 담아",
    "빨간 큐브 좀 2번 통에 넣어줄래?",
    "빨간 큐브를 2번 통 안에 넣어",
    "빨간 큐브를 들어서 2번 통에 놓아 주세요",
]),
("hand-en", [Cycle("red cube", "table", "operator")], RED_BIN3, {"R-SEM-002", "R-SEM-003"}, [
    "Give the red cube to the operator",
    "Hand me the red cube",
    "Pass the red cube to the worker",
    "Bring the red cube to me",
    "Hand the red cube over to the operator",
    "Grab the red cube and give it to me",
    "Could you pass me the red cube?",
    "Hold the red cube out for the operator",
    "The operator needs the red cube - hand it over",
    "Pick up the red cube and pass it to the person next to you",
    "Pick the red cube up and hand it off to the operator.",
]),
("hand-ko", [Cycle("red cube", "table", "operator")], RED_BIN3, {"R-SEM-002", "R-SEM-003"}, [
    "빨간 큐브를 작업자에게 건네줘",
    "빨간 큐브 좀 나한테 줘",
    "빨간 큐브를 집어서 작업자한테 전달해",
    "빨간 큐브를 사람한테 건네 주세요",
    "빨간 큐브를 나에게 가져다줘",
    "작업자에게 빨간 큐브를 넘겨줘",
    "빨간 큐브 집어서 저한테 주세요",
    "빨간 큐브를 오퍼레이터에게 건네줘",
    "빨간 큐브를 들고 작업자에게 넘겨 주세요",
    "빨간 큐브를 작업자 손에 쥐여 줘",
    "빨간 큐브를 집어 작업자한테 건네주세요",
]),
("neg-en", RED_BIN3, [Cycle("red cube", "table", "bin 3"), Cycle("blue cube", "table", "bin 2")], {"R-SEM-007"}, [
    "Leave the blue cube alone and put the red cube in bin 3",
    "Put the red cube in bin 3 but do not touch the blue one",
    "Without touching the blue cube, drop the red cube into bin 3",
    "The blue cube stays where it is; the red cube goes into bin 3",
    "Only move the red cube into bin 3 - not the blue cube",
    "Put the red cube, not the blue cube, into bin 3",
    "Keep your hands off the blue cube and move the red cube to bin 3",
    "Move the red cube to bin 3. Don't move the blue cube.",
    "Red cube to bin 3 please, and leave the blue one on the table",
    "Never touch the blue cube. Put the red cube into bin 3.",
    "Don't pick the blue cube up, just put the red one into bin 3",
    "Put the red cube into bin 3 and leave the blue cube untouched",
]),
("neg-ko", RED_BIN3, [Cycle("red cube", "table", "bin 3"), Cycle("blue cube", "table", "bin 2")], {"R-SEM-007"}, [
    "파란 큐브는 건드리지 말고 빨간 큐브를 3번 통에 넣어",
    "파란 큐브는 그대로 두고 빨간 큐브만 3번 통에 넣어줘",
    "빨간 큐브만 3번 통에 넣고 파란 큐브는 손대지 마",
    "파란 큐브 말고 빨간 큐브를 3번 통에 넣어",
    "파란 큐브는 옮기지 마세요. 빨간 큐브를 3번 통에 넣어 주세요.",
    "빨간 큐브를 3번 통에 넣어. 파란 큐브는 건드리지 마.",
    "파란 큐브는 놔두고 빨간 큐브를 3번 통으로 옮겨",
    "파란 큐브를 제외하고 빨간 큐브만 3번 통에 넣어",
    "파란 큐브는 절대 만지지 말고 빨간 큐브를 3번 빈에 넣어줘",
    "파란 큐브는 가만히 두고 빨간 큐브를 3번 통에 담아",
    "파란 큐브 빼고 빨간 큐브를 3번 통에 넣어 줘",
]),
("gently-en", [Cycle("glass", "table", "tray")], [Cycle("glass", "table", "tray")], {"R-SEM-002"}, [
    "Put the glass on the tray gently",
    "Carefully place the fragile glass on the tray",
    "Set the glass down on the tray softly, it's fragile",
    "Place the glass on the tray - it breaks easily, so go slow",
    "Move the glass to the tray very carefully",
    "Handle the glass with care and place it on the tray",
    "Place the glass on the tray slowly",
    "Gently set down the fragile glass on the tray",
    "The glass is fragile. Put it on the tray.",
    "Please place the glass on the tray cautiously",
    "Slowly bring the glass over to the tray",
]),
("gently-ko", [Cycle("glass", "table", "tray")], [Cycle("glass", "table", "tray")], {"R-SEM-002"}, [
    "유리컵을 트레이에 살살 내려놔",
    "깨지기 쉬운 유리컵을 조심해서 트레이에 놓아줘",
    "유리컵을 천천히 트레이에 놓아 주세요",
    "유리컵 조심히 트레이에 내려놔",
    "유리컵은 깨지기 쉬우니까 트레이에 천천히 놓아",
    "유리컵을 트레이 위에 부드럽게 내려놓아 줘",
    "유리컵을 조심스럽게 트레이로 옮겨라",
    "유리컵을 트레이에 살며시 내려놔줘",
    "깨지기 쉬운 컵이니까 천천히 트레이에 내려놔",
    "유리컵을 신중하게 트레이에 놓아 주세요",
    "트레이로 유리컵을 천천히 옮겨줘",
]),
("order-en", [Visit("a"), Visit("b")], [Visit("b"), Visit("a")], {"R-SEM-004"}, [
    "Go to A and then to B",
    "Move to position A first, then position B",
    "Visit A, then B",
    "First go to A, then go to B",
    "Move to B after visiting A",
    "Before going to B, go to A",
    "Go to point A. Next, go to point B.",
    "Travel to A followed by B",
    "Head to A; afterwards head to B",
    "Go to A then B",
    "Move to position A. When you are there, move on to position B.",
]),
("order-ko", [Visit("a"), Visit("b")], [Visit("b"), Visit("a")], {"R-SEM-004"}, [
    "A로 간 다음 B로 가",
    "먼저 A 위치로 이동하고 그 다음 B 위치로 이동해",
    "A 지점에 갔다가 B 지점으로 가",
    "A로 이동한 후에 B로 이동해줘",
    "B로 가기 전에 A로 가",
    "A 먼저, 그 다음 B로 가",
    "A, B 순서로 이동해",
    "A 위치 먼저 가고 B 위치로 가줘",
    "우선 A로 가고 나서 B로 가",
    "A에 들렀다가 B로 가 주세요",
    "A 위치로 이동한 뒤 B 위치로 이동",
]),
# An -ing noun as the object ("brass fitting") and a numbered conveyor, in a workplace the other families never use.
("fitting-en", [Cycle("brass fitting", "feeder", "conveyor 2")], [Cycle("brass fitting", "feeder", "conveyor 1")], {"R-SEM-003"}, [
    "Move the brass fitting from the feeder onto conveyor 2.",
    "Put a brass fitting from the feeder on conveyor 2.",
    "Feed a brass fitting onto conveyor 2.",
    "Transfer one brass fitting to conveyor 2 from the feeder.",
    "Take the brass fitting out of the feeder and drop it on conveyor 2.",
    "Grab the brass fitting from the feeder, then set it down on conveyor 2.",
    "The brass fitting goes onto conveyor 2.",
    "brass fitting: feeder -> conveyor 2",
    "Could you load the brass fitting onto conveyor two?",
    "Pick up the brass fitting at the feeder and place it on conveyor 2, please.",
]),
("fitting-ko", [Cycle("brass fitting", "feeder", "conveyor 2")], [Cycle("brass fitting", "feeder", "conveyor 1")], {"R-SEM-003"}, [
    "피더에서 황동 피팅을 꺼내서 2번 컨베이어에 올려 주세요",
    "황동 피팅을 2번 컨베이어로 보내",
    "황동 피팅 피더에서 집어서 2번 컨베이어에 놔줘",
    "피더에 있는 황동 피팅을 2번 컨베이어로 옮겨 주십시오",
    "황동 피팅은 2번 컨베이어에 올려놓으세요",
    "황동 피팅 2번 컨베이어에 좀 올려줄래?",
    "피더의 황동 피팅을 2번 컨베이어 위에 내려놓아 줘",
    "황동 피팅, 피더 → 2번 컨베이어",
    "brass fitting을 2번 conveyor에 올려 줘",
    "황동 피팅 하나 피더에서 가져와서 2번 컨베이어에 둬",
]),
("color-en", [Cycle("red block", "a", "b")], [Cycle("blue block", "a", "b")], {"R-SEM-001"}, [
    "Pick the red block from position A and put it at B",
    "Move the red block from A to B",
    "Take the red one from A over to B",
    "Grab the red brick at A and set it down at B",
    "The red block at position A goes to position B",
    "Carry the crimson block from A to B",
    "Transfer the red block from point A to point B",
    "Relocate the red cube from A to B",
    "Could you move the red block sitting at A to B?",
    "Pick up the block that is red from A and place it at B",
    "From A to B: the red block",
]),
("color-ko", [Cycle("red block", "a", "b")], [Cycle("blue block", "a", "b")], {"R-SEM-001"}, [
    "A 위치에서 빨간 블록을 집어서 B에 놓아줘",
    "빨간 블록을 A에서 B로 옮겨",
    "A에 있는 빨간 블록을 B로 옮겨주세요",
    "빨간색 블록 A에서 B로",
    "빨간 블록을 A 지점에서 B 지점으로 이동시켜",
    "A의 빨간 블럭을 B에 갖다 놔",
    "빨강 블록을 A에서 집어 B에 내려놔",
    "빨간 큐브를 A에서 B로 옮겨 줘",
    "A에서 빨간 블록 집어서 B 위치에 둬",
    "빨간 블록은 A에서 B로 옮겨 주세요",
    "빨간 거 A에서 B로 옮겨",
]),
]

CONTEXT = [
    "The conveyor is stopped. Put the red cube into bin 3.",
    "Bin 2 is full, so put the red cube into bin 3.",
    "Put the red cube into bin 3 because bin 2 is full.",
    "Since the tray is occupied, put the red cube in bin 3.",
    "Put the red cube in bin 3 so the operator can inspect it later.",
    "Yesterday we moved the blue cube to bin 2. Today, put the red cube in bin 3.",
    "We're running late. Red cube into bin 3, please.",
    "The blue cube is on the table too. Put the red cube into bin 3.",
    "Grab the red cube and drop it in bin 3.",
    "Take the red cube. Put it in bin 3.",
    "See the red cube? Put that in bin 3.",
    "1. Pick up the red cube from the table. 2. Put it into bin 3.",
    "Steps: 1) grab the red cube 2) drop it into bin 3",
    "- pick the red cube\n- place it in bin 3",
    "First, pick up the red cube. Second, put it in bin 3.",
    "Put the red cube into bin 3 quickly, we're in a hurry.",
    "If bin 3 has room, put the red cube there.",
    "Put the red cube in bin 3 to free up the table.",
    "The operator asked for the red cube to go into bin 3.",
    "컨베이어가 멈춰 있어요. 빨간 큐브를 3번 통에 넣어 주세요.",
    "2번 통이 꽉 찼으니까 빨간 큐브는 3번 통에 넣어",
    "빨간 큐브 있지? 그거 3번 통에 넣어줘",
    "1. 빨간 큐브를 집는다 2. 3번 통에 넣는다",
    "빨간 큐브를 집어. 그리고 그걸 3번 통에 넣어.",
    "어제는 파란 큐브를 2번 통에 넣었어. 오늘은 빨간 큐브를 3번 통에 넣어줘.",
    "시간이 없으니까 빨간 큐브를 3번 통에 빨리 넣어",
    "작업자가 검사할 수 있게 빨간 큐브를 3번 통에 넣어 줘",
    "파란 큐브도 테이블에 있지만 빨간 큐브만 3번 통에 넣어",
    "테이블 위의 빨간 큐브를 3번 통에 넣어 주세요. 감사합니다!",
]


def _critical(plan: str, instruction: str) -> list[str]:
    report = _VERIFIER.verify(plan, instruction=instruction)
    return sorted({f.rule_id for f in report.findings if f.severity is Severity.CRITICAL})


_VERIFIER = Verifier(level="FULL")


def _programs(name: str, steps, style: str) -> str:
    if name.startswith("gently"):
        return program(steps, style, speed=100, near=50)
    return program(steps, style)


def _wrong(name: str, steps, style: str) -> str:
    if name.startswith("gently"):
        return program(steps, style, speed=150, near=60, carry=1000)  # the glass carried at 1000 mm/s
    return program(steps, style)


CASES = [(name, correct, wrong, rules, text) for name, correct, wrong, rules, phrasings in FAMILIES for text in phrasings]


def test_every_family_has_ten_fresh_phrasings_in_both_languages() -> None:
    for name, _, _, _, phrasings in FAMILIES:
        assert len(set(phrasings)) >= 10, name
    assert {name.rsplit("-", 1)[1] for name, *_ in FAMILIES} == {"en", "ko"}


@pytest.mark.parametrize(("name", "correct", "wrong", "rules", "text"), CASES, ids=[f"{c[0]}:{c[4][:30]}" for c in CASES])
def test_paraphrases_never_reject_the_correct_program_and_catch_the_wrong_one(name, correct, wrong, rules, text) -> None:
    for style in STYLES + OPAQUE_STYLES:
        assert not _critical(_programs(name, correct, style), text), (style, "false alarm")
    for style in STYLES:
        if name.startswith("order") and style in LOWER_CASE_LETTERS:
            continue
        assert set(_critical(_wrong(name, wrong, style), text)) & rules, (style, "missed")


@pytest.mark.parametrize("text", CONTEXT)
def test_context_reasons_pronouns_and_lists_never_reject_a_correct_program(text) -> None:
    # (a program right for "quickly" carries at the arm's default speed or faster)
    speed = 250 if "quickly" in text or "빨리" in text else 150
    for style in STYLES + OPAQUE_STYLES:
        assert not _critical(program(RED_BIN3, style, speed=speed), text), style


@pytest.mark.parametrize("style", STYLES + OPAQUE_STYLES)
def test_the_scene_programs_are_clean_at_standard(style) -> None:
    for steps in ([Cycle("red cube", "table", "bin 3"), Cycle("blue cube", "table", "bin 2")], [Visit("a"), Visit("b")],
                  [Cycle("red cube", "table", "operator")]):
        report = Verifier(level="STANDARD").verify(program(steps, style))
        assert not [f for f in report.findings if f.severity is Severity.CRITICAL], style


@pytest.mark.parametrize("text", ["Put the red cube into bin 3 quickly", "빨간 큐브를 3번 통에 빨리 넣어"])
def test_quickly_is_read_and_a_carry_below_the_default_speed_contradicts_it(text) -> None:
    """250 mm/s, the arm's default speed, answers "quickly" for some writers; a carry that never reaches it does not
    hurry."""
    from plan_verifier.semantic.instruction import read_instruction

    assert [k for k, _ in read_instruction(text).manner] == ["fast"]
    assert not _critical(program(RED_BIN3, "define_named", speed=250), text)
    assert "R-SEM-002" in _critical(program(RED_BIN3, "define_named", speed=60), text)


# --------------------------------------------------------------------------- what the colleague listed as not compared


def _boxes(first: int, second: int | None, style: str) -> str:
    steps = [Cycle(f"box {first}", "table", "pallet", pick=(420 + 60 * first, -300, 60))]
    if second is not None:
        steps.append(Cycle(f"box {second}", "table", "pallet", pick=(420 + 60 * second, -300, 60), place=(700, -180, 100)))
    return program(steps, style)


@pytest.mark.parametrize("style", ["define_named", "named_inline", "positional_assign"])
@pytest.mark.parametrize(("text", "right", "wrong"), [
    ("Put the second box on the pallet", (2, None), (1, None)),
    ("두 번째 상자를 팔레트에 올려", (2, None), (1, None)),
    ("Load the first and the third box onto the pallet", (1, 3), (1, 2)),
])
def test_ordinals_are_compared_with_numbered_names(style, text, right, wrong) -> None:
    assert not _critical(_boxes(*right, style), text)
    assert "R-SEM-001" in _critical(_boxes(*wrong, style), text)


def test_a_stacking_destination_is_the_object_underneath() -> None:
    on_red = program([Cycle("blue cube", "blue cube", "red cube", place=(500, -200, 90))], "named_inline").replace(
        "Put the blue cube on the red cube", "Stack the blue cube on top of the red cube")
    on_green = on_red.replace("on top of the red cube", "on top of the green cube")
    on_pallet = program([Cycle("blue cube", "blue cube", "pallet")], "named_inline")
    for text in ("Stack the blue cube on top of the red cube", "파란 큐브를 빨간 큐브 위에 쌓아"):
        assert not _critical(on_red, text)
        assert "R-SEM-003" in _critical(on_green, text)
        assert "R-SEM-003" in _critical(on_pallet, text)


def test_only_tasks_an_order_word_separates_are_ordered() -> None:
    cup_bowl_home = [Cycle("cup", "table", "tray"), Cycle("bowl", "table", "shelf")]
    bowl_first = program(list(reversed(cup_bowl_home)), "define_named")
    assert not _critical(bowl_first, "Put the cup on the tray and the bowl on the shelf, then go home")
    assert "R-SEM-004" in _critical(bowl_first, "Put the cup on the tray, then the bowl on the shelf")
    assert "R-SEM-004" in _critical(bowl_first, "First put the cup on the tray and the bowl on the shelf")
