"""The program's evidence and the R-SEM decisions on it, one general rule per test, in English and Korean.

Each program and sentence is written for this test (other objects and workplaces than any evaluation set). The rules:
a further leg of a thing the instruction names is no unrequested task; kinds of one family (a box and a crate) are no
evidence of another place; the carried thing's words in a place phrase are no place words; a release at a hand-over
pose is the hand-over.
"""

from __future__ import annotations

import pytest

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.clauses import PlaceRef
from plan_verifier.semantic.grounding import place_without_thing
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.names import route_end
from plan_verifier.semantic.places import OTHER_DESIGNATOR, OTHER_KIND, relate
from semantic_scene import Cycle, program

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]


def _findings(plan: str, instruction: str) -> dict[str, str]:
    report = Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction)
    out: dict[str, str] = {}
    for f in report.findings:
        if f.category is Category.SEMANTIC:
            out[f.rule_id] = "reject" if f.severity is Severity.CRITICAL else out.get(f.rule_id, "abstain")
    return out


def _place(text: str) -> PlaceRef:
    [(_, place)] = route_end(text, goal=True)[1]
    return place


def _destination(sentence: str) -> PlaceRef:
    [task] = read_instruction(sentence).tasks
    return task.destination


# --------------------------------------------------------------------------- further legs of a named thing


@pytest.mark.parametrize("instruction", [
    "label the wrench and stow it in bin 1",  # the first leg in a verb the reader takes for a remark
    "wrench는 fixture 갔다가 1번 통으로. 순서 바꾸지 마.",  # the thing read as a stop of the route
])
def test_a_further_leg_of_a_thing_the_instruction_names_is_no_unrequested_task(instruction) -> None:
    plan = program([Cycle("wrench", "table", "fixture"), Cycle("wrench", "fixture", "bin 1")], "define_named")
    assert _findings(plan, instruction).get("R-SEM-007") != "reject"


def test_a_thing_the_instruction_never_names_is_still_an_unrequested_task() -> None:
    plan = program([Cycle("box", "table", "pallet"), Cycle("wrench", "tray", "bin 1")], "define_named")
    assert _findings(plan, "Put the box from the table on the pallet.").get("R-SEM-007") == "reject"
    assert _findings(plan, "테이블에 있는 상자를 팔레트에 올려 줘").get("R-SEM-007") == "reject"


# --------------------------------------------------------------------------- kinds of one family


def test_kinds_of_one_family_are_no_other_place() -> None:
    assert relate(_destination("Put the bolt into the box."), _place("crate")).kind != OTHER_KIND
    assert relate(_destination("볼트를 출고 상자에 넣어"), _place("크레이트")).kind != OTHER_KIND
    assert relate(_destination("Put the bolt into the jig."), _place("slot")).kind != OTHER_KIND
    # another family is another place: a slot is not a bin, a table not a shelf
    assert relate(_destination("Put the bolt into slot 2."), _place("bin 3")).kind == OTHER_KIND
    assert relate(_destination("볼트를 테이블에 놔"), _place("선반")).kind == OTHER_KIND
    # within a family, a reject container is not another one, nor the dispatch one
    assert relate(_destination("볼트를 카톤에 넣어"), _place("격리함")).kind == OTHER_DESIGNATOR
    assert relate(_destination("Put the bolt into the dispatch box."), _place("remake bin")).kind == OTHER_DESIGNATOR
    assert relate(_destination("볼트를 출고 상자에 넣어"), _place("dispatch crate")).kind not in (OTHER_KIND, OTHER_DESIGNATOR)


@pytest.mark.parametrize("instruction", ["Put the bolt from the table into the box.", "테이블에서 볼트를 상자에 넣어 줘"])
def test_a_crate_for_the_box_the_instruction_names_is_no_location_error(instruction) -> None:
    plan = program([Cycle("bolt", "table", "crate", place=(600, 250, 80))], "define_named")
    assert _findings(plan, instruction).get("R-SEM-003") != "reject"


# --------------------------------------------------------------------------- the carried thing in a place phrase


def test_the_carried_things_words_are_no_words_of_its_place() -> None:
    # a thing named in one script, its place in the other: the whole run of the first is the thing
    place = place_without_thing(_place("cover plate 왼쪽 지그"), (("커버", "cover"),))
    assert (place.kind, place.side) == ("fixture", "left")
    # one script: the leading words that are the thing's
    place = place_without_thing(_place("the wrench left jig"), (("wrench",),))
    assert (place.kind, place.side) == ("fixture", "left")
    place = place_without_thing(_place("볼트 출고 상자"), (("볼트",),))
    assert place.text == "출고 상자"
    # a word the thing and its place share is no name of the thing: the PET bin of a PET bottle
    place = _destination("Put the PET bottle into the PET bin.")
    assert place_without_thing(place, (("pet", "bottle"),)) is place
    # what is left must read as a place of a known kind, or the phrase stands
    place = PlaceRef("the capper pls", "pls", None, words=("capper", "pls"))
    assert place_without_thing(place, (("capper",),)) is place


# --------------------------------------------------------------------------- hand-over poses


@pytest.mark.parametrize("instruction", ["Hand the bolt over to the customer at the counter.", "볼트 카운터에서 손님한테 건네줘"])
def test_a_release_at_a_hand_over_pose_is_the_hand_over(instruction) -> None:
    plan = program([Cycle("bolt", "table", "operator")], "define_named").replace("Handover_Pose", "Counter_Handover_Pose")
    assert _findings(plan, instruction).get("R-SEM-002") != "reject"
    ko = program([Cycle("bolt", "table", "operator")], "korean_comments").replace("작업자에게 볼트 건네주기", "카운터 전달 위치에 볼트 내려놓기")
    assert _findings(ko, instruction).get("R-SEM-002") != "reject"


# --------------------------------------------------------------------------- route headings


def test_a_route_headings_start_is_a_place_once_the_thing_is_named() -> None:
    from plan_verifier.semantic.names import text_evidence

    places = dict(text_evidence("[1] spindle: grinder outlet → wash rack")[1])
    assert places["source"].words == ("grinder", "outlet")
    places = dict(text_evidence("---- 볼트: 선반 → 연마기 출구")[1])
    assert places["goal"].words == ("연마기", "출구")


@pytest.mark.parametrize(("heading", "instruction"), [
    ("[1] bolt: table → grinder outlet", "Put the bolt from the table on the grinder outlet."),
    ("---- 볼트: 테이블 → 연마기 출구", "테이블에서 볼트를 연마기 출구에 올려 줘"),
])
def test_the_route_heading_of_a_cycle_names_where_its_release_goes(heading, instruction) -> None:
    plan = program([Cycle("bolt", "table", "bin 1")], "named_inline")
    # the release's own comments name no place the vocabulary reads; the heading does
    plan = plan.replace("// Pick up the bolt from the table", f"// {heading}").replace("// Put the bolt into bin 1", "// release")
    assert "release" in plan and heading in plan
    assert _findings(plan, instruction).get("R-SEM-003") is None


# --------------------------------------------------------------------------- objects named in part


def test_a_compound_object_named_by_its_head_or_across_scripts_is_named() -> None:
    from plan_verifier.semantic.activity import COMMENT, IDENTIFIER, Named
    from plan_verifier.semantic.clauses import ObjectRef
    from plan_verifier.semantic.grounding import compare_object

    want = ObjectRef("the spanner set", "set", None, words=("spanner", "set"))
    name = Named("SpannerSet_Tray_Grasp", IDENTIFIER, 5, None, obj=ObjectRef("Spanner", "spanner", None, words=("spanner",)), known=False)
    assert compare_object(want, [name]).same
    want = ObjectRef("poster roll", "roll", None, words=("poster", "roll"))
    said = Named("포스터 롤 들어올림", COMMENT, 5, None, obj=ObjectRef("포스터 롤", "롤", None, words=("포스터", "롤")), known=False)
    assert compare_object(want, [said]).same
    # two English heads that differ are not one thing
    want = ObjectRef("chair rung", "rung", None, words=("chair", "rung"))
    name = Named("ChairLeg_Cart_Grasp", IDENTIFIER, 5, None, obj=ObjectRef("Chair", "chair", None, words=("chair",)), known=False)
    assert not compare_object(want, [name]).same


# --------------------------------------------------------------------------- what a negation and a count are about


@pytest.mark.parametrize("instruction", ["볼트는 지그 거치지 말고 바로 1번 통에 넣어 줘"])
def test_a_negated_way_of_the_thing_moved_next_is_no_exclusion_of_the_thing(instruction) -> None:
    plan = program([Cycle("bolt", "table", "bin 1")], "korean_comments")
    assert _findings(plan, instruction).get("R-SEM-007") != "reject"


@pytest.mark.parametrize("instruction", ["Two things: bolt to bin 1, wrench to bin 2."])
def test_a_count_of_generic_things_announces_the_list_after_it(instruction) -> None:
    plan = program([Cycle("bolt", "table", "bin 1"), Cycle("wrench", "tray", "bin 2")], "define_named")
    assert _findings(plan, instruction).get("R-SEM-005") != "reject"


# --------------------------------------------------------------------------- closed-world evidence


def _two_machines(style: str, first: str, second: str) -> str:
    """A bolt taken from `first` to `second`, two machines the vocabulary has no kind for; in English a route heading
    says so (the English comment reader reads no place of an unknown kind from a sentence)."""
    plan = program([Cycle("bolt", "kiosk", "lectern", pick=(500, -200, 40), place=(600, 250, 80))], style)
    if style == "named_inline":
        plan = plan.replace("// Pick up the bolt from the kiosk", "// bolt: kiosk → lectern").replace("// Put the bolt on the lectern", "// release")
    return plan.replace("kiosk", first).replace("lectern", second)


@pytest.mark.parametrize(("style", "first", "second", "instruction"), [
    ("named_inline", "polisher", "deburrer", "Move the bolt from the deburrer to the polisher."),
    ("korean_comments", "광택기", "도장기", "볼트를 도장기에서 광택기로 옮겨 줘"),
])
def test_a_swap_shown_by_the_programs_own_places_is_a_location_error(style, first, second, instruction) -> None:
    plan = _two_machines(style, first, second)
    assert _findings(plan, instruction).get("R-SEM-003") == "reject"
    # the right way round is no finding; places the instruction does not name are no swap
    assert _findings(_two_machines(style, second, first), instruction).get("R-SEM-003") is None


@pytest.mark.parametrize("instruction", ["Put the bolt from the table into the washer, then the wrench from the tray into the grinder.",
                                         "테이블에서 볼트를 washer에 넣고, 그 다음 트레이에서 렌치를 grinder에 넣어 줘"])
def test_a_place_the_program_names_at_another_step_is_not_this_one(instruction) -> None:
    swapped = program([Cycle("bolt", "table", "grinder", place=(600, 250, 80)), Cycle("wrench", "tray", "washer", place=(700, 120, 80))],
                      "define_named")
    assert _findings(swapped, instruction).get("R-SEM-003") == "reject"
    right = program([Cycle("bolt", "table", "washer", place=(600, 250, 80)), Cycle("wrench", "tray", "grinder", place=(700, 120, 80))],
                    "define_named")
    assert _findings(right, instruction).get("R-SEM-003") is None


def test_a_support_named_for_hand_overs_is_no_hand_over() -> None:
    plan = program([Cycle("bolt", "table", "operator")], "korean_comments").replace("작업자에게 볼트 건네주기", "볼트를 전달 트레이에 내려놓기")
    assert _findings(plan, "볼트 작업자한테 줘").get("R-SEM-002") == "reject"


# --------------------------------------------------------------------------- "slowly" and the loaded speed


def _carried_at(plan: str, speed: int) -> str:
    """The plan with every linear move between closing and opening the gripper at `speed` mm/s."""
    head, _, rest = plan.partition("value=1) WITH WAIT;")
    held, _, tail = rest.partition("value=0) WITH WAIT;")
    import re

    held = re.sub(r"(MoveLinear\(target_pose=\w+, velocity=)\d+", rf"\g<1>{speed}", held)
    return f"{head}value=1) WITH WAIT;{held}value=0) WITH WAIT;{tail}"


@pytest.mark.parametrize("instruction", ["Move the bolt from the table to bin 1 slowly.", "볼트를 테이블에서 1번 통으로 천천히 옮겨 줘"])
def test_carrying_faster_than_moving_empty_is_not_slow(instruction) -> None:
    plan = program([Cycle("bolt", "table", "bin 1")], "define_named", speed=200)
    assert _findings(_carried_at(plan, 240), instruction).get("R-SEM-002") == "reject"
    assert _findings(_carried_at(plan, 60), instruction).get("R-SEM-002") is None
    # a crawl is slow whichever way round
    slow = program([Cycle("bolt", "table", "bin 1")], "define_named", speed=50, near=40)
    assert _findings(_carried_at(slow, 90), instruction).get("R-SEM-002") is None
