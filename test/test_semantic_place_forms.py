"""Place forms an operator or a program writes that used to leave the semantic stage abstaining (issue 17).

Each is a general construction, in English and in Korean: a route heading with a stop on the way ("A → reader → B"),
a container of the carried thing's own kind (a parcel box into the returns box), a level of a rack counted in Korean
("2단", "3층"), a person as where a thing goes ("the kitchen folks", "바리스타에게") and a hand-over place named for
that person, and a place read from a clause the reader could not read. The workplaces (a coffee bar, a parcel
depot, a pottery) are this file's own.
"""

from __future__ import annotations

import pytest

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.activity import COMMENT, Named
from plan_verifier.semantic.grounding import _names_carried
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.names import name_places, text_evidence
from plan_verifier.semantic.places import OTHER_DESIGNATOR, OTHER_KIND, SAME, UNCOMPARABLE, relate
from semantic_scene import Cycle, program

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]
_CONVEYOR, _SHELF, _COUNTER = (700, -250, 100), (540, 330, 150), (620, 160, 80)


def _destination(text: str):
    [task] = [t for t in read_instruction(text).tasks if t.destination is not None]
    return task.destination


def _critical(plan: str, instruction: str) -> list[str]:
    findings = Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction).findings
    return sorted({f.rule_id for f in findings if f.severity is Severity.CRITICAL})


# --------------------------------------------------------------------------- a route with stops


@pytest.mark.parametrize(("text", "source", "stop", "goal"), [
    ("mug: shelf 2 -> label printer -> tray 3", "shelf 2", "label printer", "tray 3"),
    ("머그컵: 2번 선반 → 바코드 리더 → 3번 트레이", "2번 선반", "바코드 리더", "3번 트레이"),
])
def test_a_route_with_a_stop_names_its_ends_and_the_stop_apart(text, source, stop, goal) -> None:
    places = [(role, p.text) for role, p in text_evidence(text)[1]]
    assert places == [("source", source), ("stop", stop), ("goal", goal)]


def test_two_routes_in_one_line_are_no_route_with_a_stop() -> None:
    # "A → B, C → D": the comma ends the first route — "B, C" is no stop of one route
    assert not any(role == "stop" for role, _ in text_evidence("mug -> left tray, saucer -> right tray")[1])


_HEADED = """GOAL Initialize_Process() {
    SPAWN MoveJoint(target_pose=PosJ(180, -90, 90, -90, -90, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
}

GOAL Execute_Process() {
    // [1] HEADING
    SPAWN MoveLinear(target_pose=PosX(540, 330, 290, 180, 0, 0), velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(540, 330, 150, 180, 0, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(540, 330, 290, 180, 0, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(640, 60, 320, 180, 0, 0), velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN Delay(duration_sec=1.0) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(620, 160, 220, 180, 0, 0), velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(620, 160, 80, 180, 0, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=PosX(620, 160, 220, 180, 0, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
}

GOAL Finalize_Process() {
    SPAWN MoveJoint(target_pose=PosJ(180, -90, 90, -90, -90, 0), velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""


@pytest.mark.parametrize(("heading", "right", "wrong"), [
    ("mug: shelf 2 -> barcode reader -> bin 1", "Scan the mug from shelf 2 on the barcode reader, then put it into bin 1.",
     "Scan the mug from shelf 2 on the barcode reader, then put it into bin 3."),
    ("머그컵: 2번 선반 → 바코드 리더 → 1번 통", "머그컵을 2번 선반에서 꺼내 바코드 리더에 찍고 1번 통에 넣어 줘.",
     "머그컵을 2번 선반에서 꺼내 바코드 리더에 찍고 3번 통에 넣어 줘."),
])
def test_a_heading_with_a_stop_gives_the_grasp_and_the_release_their_places(heading, right, wrong) -> None:
    # the heading is the program's only place evidence: its first place is the grasp's, its last the release's
    plan = _HEADED.replace("HEADING", heading)
    assert _critical(plan, right) == []
    assert "R-SEM-003" in _critical(plan, wrong)


# --------------------------------------------------------------------------- a container of the carried thing's kind


@pytest.mark.parametrize(("name", "carried", "words"), [
    ("ParcelBox_ReturnsBox_Release", ("parcel", "box"), ("return", "box")),
    ("ParcelBox_ReturnsBox_Release", ("택배", "상자", "box", "parcel"), ("return", "box")),  # "택배 상자", and its English
])
def test_a_box_put_into_another_box_names_the_other_box(name, carried, words) -> None:
    [place] = name_places(name, carried)
    assert place.words == words and place.kind == "container:box"


def test_a_comment_naming_a_box_of_other_words_is_a_place_for_a_carried_box() -> None:
    [(_, place)] = text_evidence("반품 상자 위로 접근")[1]
    assert not _names_carried(Named("반품 상자 위로 접근", COMMENT, 5, None, place=place), ("택배", "상자", "box"))
    # ... while a comment naming the carried box itself is no place ("택배 상자 위로 하강": down onto the parcel box)
    [(_, itself)] = text_evidence("택배 상자 위로 하강")[1]
    assert _names_carried(Named("택배 상자 위로 하강", COMMENT, 5, None, place=itself), ("택배", "상자", "box"))


_NAMED_BOX = """DEFINE ParcelBox_Conveyor_Approach = PosX(540, 330, 290, 180, 0, 0);
DEFINE ParcelBox_Conveyor_Grasp = PosX(540, 330, 150, 180, 0, 0);
DEFINE ParcelBox_ReturnsBox_Approach = PosX(620, 160, 220, 180, 0, 0);
DEFINE ParcelBox_ReturnsBox_Release = PosX(620, 160, 80, 180, 0, 0);

GOAL Execute_Process() {
    SPAWN MoveLinear(target_pose=ParcelBox_Conveyor_Approach, velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=ParcelBox_Conveyor_Grasp, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=1) WITH WAIT;
    SPAWN MoveLinear(target_pose=ParcelBox_Conveyor_Approach, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=ParcelBox_ReturnsBox_Approach, velocity=150, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=ParcelBox_ReturnsBox_Release, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN SetDigitalOutput(port=1, value=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=ParcelBox_ReturnsBox_Approach, velocity=60, acceleration=80, tool=0, blending_radius=0) WITH WAIT;
    SPAWN End() WITH WAIT;
}
"""


@pytest.mark.parametrize("plan", [_NAMED_BOX] + [program([Cycle("parcel box", "conveyor", "returns box", pick=_CONVEYOR, place=_COUNTER)], style)
                                  for style in ("named_inline", "positional_assign")])
def test_a_box_released_into_another_box_is_compared_as_a_place(plan) -> None:
    for text in ("Put the parcel box into the returns box.", "택배 상자를 반품 상자에 넣어 줘."):
        assert _critical(plan, text) == [], text
    for text in ("Put the parcel box on the counter.", "택배 상자를 카운터에 올려 줘."):
        assert "R-SEM-003" in _critical(plan, text), text


# --------------------------------------------------------------------------- levels counted in Korean


@pytest.mark.parametrize(("instruction", "name", "relation"), [
    ("꽃병을 건조대 2단에 올려 줘.", "Vase_DryingRack2_Place", SAME),
    ("꽃병을 2단 건조대에 올려 줘.", "Vase_DryingRack2_Place", SAME),
    ("꽃병을 건조대 2단에 올려 줘.", "Vase_DryingRack1_Place", OTHER_DESIGNATOR),   # level 2 is not shelf 1
    ("꽃병을 3층 선반에 올려 줘.", "Vase_Shelf1_Place", OTHER_DESIGNATOR),
    ("꽃병을 가마 1단에 넣어 줘.", "Vase_KilnShelf1_Place", SAME),                 # the kiln's first level
    ("Put the vase on tier 2 of the drying rack.", "Vase_DryingRack1_Place", OTHER_DESIGNATOR),
])
def test_a_level_counted_in_korean_is_a_numbered_shelf(instruction, name, relation) -> None:
    want = _destination(instruction)
    relations = {relate(want, got).kind for got in name_places(name, ("vase", "꽃병"))}
    assert relation in relations, relations


def test_a_level_in_a_comment_numbers_the_shelf() -> None:
    [(_, place)] = text_evidence("건조대 2단 위로 접근")[1]
    assert (place.kind, place.label) == ("shelf", "2")


# --------------------------------------------------------------------------- people as where a thing goes


@pytest.mark.parametrize("text", ["Bring the mug over to the kitchen folks.", "Take the mug to the bar team.",
                                  "머그컵을 바리스타에게 전달해 줘.", "머그컵 직원한테 건네 줘."])
def test_a_person_is_where_a_handed_thing_goes(text) -> None:
    tasks = [t for t in read_instruction(text).tasks if t.destination is not None]
    assert tasks and tasks[0].destination.kind == "operator", tasks


@pytest.mark.parametrize(("instruction", "name", "relation"), [
    ("Bring the mug over to the kitchen folks.", "Mug_KitchenHandover_Handover", SAME),
    ("Bring the mug to the hand-over point.", "Mug_Handover_Place", SAME),
    ("머그컵을 바리스타에게 전달해 줘.", "Mug_BaristaHandover_Place", SAME),
    ("Bring the mug over to the kitchen folks.", "Mug_TrayLeft_Place", OTHER_KIND),    # a tray is nobody
    ("Put the mug at position 3.", "Mug_Handover_Place", UNCOMPARABLE),                 # a vague place: no judgement
])
def test_a_hand_over_place_is_where_the_person_takes_it(instruction, name, relation) -> None:
    want = _destination(instruction)
    relations = {relate(want, got).kind for got in name_places(name, ("mug", "머그컵"))}
    assert relation in relations and (relation == SAME or SAME not in relations), relations


def test_a_korean_hand_over_comment_is_the_recipient_s_place() -> None:
    [(_, place)] = text_evidence("바리스타 전달 위치 위로 접근")[1]
    assert relate(_destination("머그컵을 바리스타에게 전달해 줘."), place).kind == SAME
    # ... but a tray for hand-overs is a support the mug is set down on, nobody's hand
    [(_, tray)] = text_evidence("머그컵 전달 트레이에 내려놓기")[1]
    assert relate(_destination("머그컵을 바리스타에게 전달해 줘."), tray).kind == OTHER_KIND


# --------------------------------------------------------------------------- a place in a clause the reader could not read


@pytest.mark.parametrize(("text", "unread", "doubted"), [
    # a stop read as where the plate goes, the shelf after it left over: the reading of the destination is in doubt
    ("접시를 저울에 넣어 둬", "저울에 한 번 보고 3번 선반에 다시 넣어 둬", True),
    ("Put the plate on the scale.", "on the scale for a moment and then back onto shelf 3", True),
    # the clause names no other place after it (a person, or the end of a shift, is none): no other reading of it
    ("접시를 저울에 넣어 둬", "저울에 넣어 두고 작업자에게 알려 줘", False),
    ("Put the plate on the scale.", "sitting on the scale by the end of the shift", False),
])
def test_a_place_from_a_clause_the_reader_could_not_read_is_no_contradiction(text, unread, doubted) -> None:
    from types import SimpleNamespace

    from plan_verifier.rules.sem.r_sem_003 import _doubted

    [task] = [t for t in read_instruction(text).tasks if t.destination is not None]
    assert _doubted(task.destination, task, SimpleNamespace(unread=(unread,))) is doubted
