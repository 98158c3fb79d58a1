"""Ordinary operator phrasing that used to raise false alarms, one class of cause per test, in English and Korean.

Each sentence here is written for this test (other objects and workplaces than any evaluation set): the classes
are general rules of the two languages — the structure of noun phrases, relative clauses, hyphenated compounds,
numbered lists, code-switched verbs, light verbs, the scope of "leave", a comma before a new statement, another
person's doing, transliterated loanwords — and of the program's own notation (arrows in comments).
"""

from __future__ import annotations

import pytest

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.language import Morph, _unglue
from plan_verifier.semantic.loanwords import borrowed, english_skeleton, korean_skeleton
from plan_verifier.semantic.names import text_evidence
from plan_verifier.semantic.vocabulary import vocabulary
from semantic_scene import STYLES, Cycle, program

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]


def _tasks(text: str) -> list[tuple]:
    """(action, object class, source key, destination or work place key, stage) of each task."""
    return [(t.action, t.obj.noun if t.obj else None, t.source.key if t.source else None,
             (t.destination or t.at).key if (t.destination or t.at) else None, t.stage) for t in read_instruction(text).tasks]


def _critical(plan: str, instruction: str) -> list[str]:
    report = Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction)
    return sorted({f.rule_id for f in report.findings if f.severity is Severity.CRITICAL})


# --------------------------------------------------------------------------- Korean noun phrases


@pytest.mark.parametrize(("text", "expected"), [
    # nouns written before a place noun modify it: one place, not an object and a place
    ("부품 트레이에서 볼트를 꺼내서 3번 통에 넣어", [("insert", "bolt", "tray", "bin3", 0)]),
    ("입고 팔레트에 있는 상자를 출고 컨베이어로 옮겨 주세요", [("transfer", "box", "pallet", "conveyor", 0)]),
    ("렌치를 오른쪽 선반에 올려 줘", [("place", "wrench", None, "right", 0)]),
    # a dropped 을/를 still splits an object that has its own attribute, or before a complete place name
    ("파란 큐브 팔레트에 놔", [("place", "cube", None, "pallet", 0)]),
    ("볼트 2번 통에 넣어", [("insert", "bolt", None, "bin2", 0)]),
])
def test_korean_noun_phrase_before_a_place_particle_is_one_place(text, expected) -> None:
    assert _tasks(text) == expected


@pytest.mark.parametrize("text", ["도색 끝난 상자를 컨베이어에 올려 줘", "조립이 끝난 상자를 컨베이어로 옮겨", "포장 끝난 상자를 컨베이어에 올려"])
def test_korean_relative_clause_subject_is_no_object(text) -> None:
    assert [t[:2] for t in _tasks(text)] in ([("place", "box")], [("transfer", "box")])


@pytest.mark.parametrize("style", STYLES)
def test_korean_compound_places_do_not_reject_the_correct_program(style) -> None:
    plan = program([Cycle("bolt", "tray", "bin 3")], style)
    assert _critical(plan, "부품 트레이에서 볼트를 꺼내서 3번 통에 넣어 주세요") == []
    assert _critical(plan, "조임 끝난 볼트를 부품 트레이에서 3번 통으로 옮깁니다") == []


# --------------------------------------------------------------------------- English compounds


def test_hyphenated_compound_is_one_word_with_its_colour_and_side() -> None:
    assert _tasks("Lift the glass off the right-hand shelf and set it on the pallet.") == [("place", "glass", "right", "pallet", 0)]
    [task] = read_instruction("Put the blue-lidded box on the tray.").tasks
    assert task.obj.color == "blue" and task.obj.noun == "box"
    # a hyphenated verb is still a verb
    assert _tasks("Spot-weld seam 3.") == [("weld", None, None, "seam3", 0)]


@pytest.mark.parametrize("style", STYLES)
def test_left_hand_is_no_hand_over(style) -> None:
    plan = program([Cycle("wrench", "tray", "shelf")], style)
    assert _critical(plan, "Take the wrench off the tray and hang it on the left-hand shelf.") == []


# --------------------------------------------------------------------------- lists, code-switching, light verbs


def test_numbered_lists_are_read_item_by_item_in_order() -> None:
    assert _tasks("1) pick up the wrench from the table 2) put it on the shelf 3) go home") == [
        ("place", "wrench", "table", "shelf", 0), ("return_home", None, None, "home", 1)]
    assert [t[0] for t in _tasks("1) A 위치에서 상자를 집어 2) 상자를 B 위치에 놓아")] == ["place"]
    assert [t[4] for t in _tasks("1) 볼트를 1번 통에 넣어 2) 상자를 팔레트에 놓아")] == [0, 1]


@pytest.mark.parametrize(("text", "expected"), [
    ("box를 table에서 pick해서 bin 2에 place 해줘", [("place", "box", "table", "bin2", 0)]),
    ("bolt를 tray에서 꺼내서 fixture에 insert", [("insert", "bolt", "tray", "fixture", 0)]),
])
def test_code_switched_english_verbs(text, expected) -> None:
    assert _tasks(text) == expected


def test_korean_light_verbs_take_the_action_of_their_noun() -> None:
    assert _tasks("3번 위치 용접 좀 부탁드립니다") == [("weld", None, None, "pos3", 0)]
    assert _tasks("2번 심 검사만 해 주세요")[0][0] == "inspect"


# --------------------------------------------------------------------------- verbs the vocabulary lacks


def test_any_verb_with_an_object_and_a_goal_moves_it() -> None:
    assert _tasks("Lob the bolt into bin 1.") == [("transfer", "bolt", None, "bin1", 0)]
    assert _tasks("Scoot the box from the table onto the pallet.") == [("transfer", "box", "table", "pallet", 0)]
    # but a describing word is no verb
    assert [t[1] for t in _tasks("Move the red, blue and green cubes onto the tray.")] == ["cube"] * 3
    # Korean: after a pick, an unknown verb with a place completes the transfer
    assert _tasks("렌치를 테이블에서 집어서 선반에 걸어 줘") == [("place", "wrench", "table", "shelf", 0)]


# --------------------------------------------------------------------------- scope: leave, statements, other people


def test_leave_the_tool_on_is_no_exclusion() -> None:
    reading = read_instruction("Weld seam 2 and leave the welder on.")
    assert reading.excluded == () and [t.action for t in reading.tasks] == ["weld"]


@pytest.mark.parametrize("text", ["Carry the bolt to the tray, the operator needs it there.",
                                  "Put the wrench on the shelf. The operator will take it from there.",
                                  "Put the wrench on the shelf; the operator wants to check it first."])
def test_what_someone_else_does_is_no_task(text) -> None:
    reading = read_instruction(text)
    assert len(reading.tasks) == 1 and reading.excluded == ()


def test_a_new_statement_after_so_is_read_on_its_own() -> None:
    assert _tasks("Bin 2 is full, so the bolt goes from the table to bin 1.") == [("transfer", "bolt", "table", "bin1", 0)]


@pytest.mark.parametrize("text", ["Put the box into bin 2. It's on the pallet right now.", "상자를 2번 통에 넣어 줘. 지금 팔레트에 있어."])
def test_where_the_thing_is_said_afterwards_is_its_source(text) -> None:
    assert _tasks(text)[0][2] == "pallet"


@pytest.mark.parametrize("text", ["Tack weld seams 1 and 5, one after the other.", "Weld seams 1 and 5 one after another.",
                                  "1번 심과 5번 심을 차례로 가접해.", "1번 심, 5번 심 하나씩 용접해."])
def test_an_order_phrase_after_listed_places_is_no_place(text) -> None:
    """"one after the other", "차례로", "하나씩" say how the listed places follow one another (or how many at a time), never
    a place "one" or a place "하나씩"."""
    tasks = _tasks(text)
    assert [t[3][-1] for t in tasks] == ["1", "5"] and [t[4] for t in tasks] in ([0, 1], [0, 0]), tasks


def test_exclusion_told_apart_only_by_unread_words_is_not_judged() -> None:
    plan = program([Cycle("box", "table", "pallet")], "define_named")
    assert _critical(plan, "찌그러진 상자 말고 새 상자만 팔레트로 옮겨") == []
    assert _critical(plan, "Not the dented box, move the new box to the pallet.") == []
    # an exclusion by colour still counts
    assert "R-SEM-007" in _critical(program([Cycle("red cube", "table", "pallet")], "define_named"), "빨간 큐브 말고 파란 큐브를 팔레트로 옮겨")


def test_the_gripper_put_back_is_a_tool_release() -> None:
    reading = read_instruction("상자를 컨베이어에 놓고 그리퍼는 거치대에 다시 갖다 둬")
    assert [t.action for t in reading.tasks] == ["place", "detach"]
    # "park the welder", "return the camera": a verb of going back with a tool as its object puts the tool back
    parked = read_instruction("Screw down the bracket on the fixture, then park the screwdriver.")
    assert [(t.action, t.obj.noun if t.obj else None) for t in parked.tasks][-1] == ("detach", "screwdriver")
    assert [t.action for t in read_instruction("Park the arm.").tasks] == ["return_home"]
    assert [t.action for t in read_instruction("Tack-weld seam 1, then return the welder.").tasks] == ["weld", "detach"]


def test_tool_changes_and_work_said_without_a_verb() -> None:
    # "then swap to the gripper": the tool fitted last comes off, the named one goes on
    reading = read_instruction("Pick up the screwdriver, tighten the bracket at the jig, then swap to the gripper.")
    assert [(t.action, t.obj.noun if t.obj else None) for t in reading.tasks][-2:] == [("detach", "screwdriver"), ("attach", "gripper")]
    # a tool put back with no place named goes back on its stand
    reading = read_instruction("Fit the camera and put it back afterwards.")
    assert [t.action for t in reading.tasks][-1] == "detach"
    # "Leak check of Pos_3 only": that routine at that place
    assert _tasks("Leak check of Pos_3 only. No gluing today.")[0][0] == "inspect"
    assert _tasks("Leak check of Pos_3 only. No gluing today.")[0][3] == read_instruction("Inspect Pos_3.").tasks[0].at.key


# --------------------------------------------------------------------------- the program's notation, loanwords, analysis


def test_an_arrow_in_a_comment_names_source_and_destination() -> None:
    _, places = text_evidence("box: table -> bin 2")
    assert [(role, p.key) for role, p in places] == [("source", "table"), ("goal", "bin2")]
    _, places = text_evidence("상자: 테이블 → 2번 통")
    assert [(role, p.key) for role, p in places] == [("source", "table"), ("goal", "bin2")]


@pytest.mark.parametrize(("korean", "english"), [("바스켓", "basket"), ("플랜지", "flange"), ("카메라", "camera"), ("피더", "feeder"),
                                                  ("컨베이어", "conveyor"), ("플레이트", "plate")])
def test_loanwords_share_the_consonant_skeleton_of_their_english_word(korean, english) -> None:
    assert korean_skeleton(korean) == english_skeleton(english)


def test_loanwords_map_to_the_vocabulary_and_native_words_do_not() -> None:
    v = vocabulary()
    assert borrowed("플레이트", v)[0] == v.en_objects["plate"]
    assert borrowed("테이블", v)[1] == v.en_places["table"]
    assert borrowed("책상", v) == (None, None)  # a native word: no English reading, the stage abstains on it
    assert borrowed("드로어", v) == (None, None)  # two candidates fit about as well: no guess


def test_a_particle_glued_to_a_noun_is_split_as_elsewhere_in_the_text() -> None:
    morphs = (Morph("리프터", "NNP", 0, 3), Morph("에", "JKB", 3, 4), Morph("리프터에", "NNG", 10, 14))
    assert [(m.form, m.tag) for m in _unglue(morphs)][-2:] == [("리프터", "NNG"), ("에", "JKB")]


def test_extra_transfer_of_an_unknown_thing_after_every_task_is_done_is_unrequested() -> None:
    plan = program([Cycle("box", "table", "pallet"), Cycle("gizmo", "tray", "bin 1")], "define_named")
    assert _critical(plan, "Put the box from the table on the pallet.") == ["R-SEM-007"]
    # a name that could abbreviate the asked object is no other task
    plan = program([Cycle("wrench", "table", "pallet"), Cycle("wrnch", "tray", "bin 1")], "define_named")
    assert "R-SEM-007" not in _critical(plan, "Put the wrench from the table on the pallet.")


@pytest.mark.parametrize("style", ["define_named", "named_inline", "positional_assign"])
def test_steel_and_aluminium_differ_and_metal_fits_both(style) -> None:
    plan = program([Cycle("steel bolt", "table", "bin 1")], style)
    assert _critical(plan, "Put the aluminium bolt from the table into bin 1.") == ["R-SEM-001"]
    assert _critical(plan, "Put the metal bolt from the table into bin 1.") == []
    assert _critical(plan, "알루미늄 볼트는 그대로 두고 강철 볼트만 1번 통에 넣어") == []


def test_a_side_written_into_a_pose_name_is_that_place_side() -> None:
    from plan_verifier.semantic.names import identifier_evidence

    [place] = identifier_evidence("Bolt_LeftShelf_Grasp")[1]
    assert (place.kind, place.side) == ("shelf", "left")
    plan = program([Cycle("bolt", "table", "shelf")], "define_named").replace("Shelf_Place", "RightShelf_Place")
    assert _critical(plan, "Put the bolt from the table on the left-hand shelf.") == ["R-SEM-003"]
    assert _critical(plan, "Put the bolt from the table on the right-hand shelf.") == []


def test_a_colour_before_a_compound_noun_in_a_pose_name_is_the_head_nouns() -> None:
    from plan_verifier.semantic.names import identifier_evidence

    [(obj, known)] = identifier_evidence("BlueLidBox_Shelf_Grasp")[0]
    assert (obj.noun, obj.color, known) == ("box", "blue", True)


def test_a_syllable_kiwi_took_apart_is_the_noun_it_is_elsewhere_in_the_text() -> None:
    text = "C 캔 말고 D 캔에"
    morphs = (Morph("C", "SL", 0, 1), Morph("이", "VCP", 2, 2), Morph("캐", "EC", 2, 3), Morph("ᆫ", "Z_CODA", 2, 3),
              Morph("말", "VX", 4, 5), Morph("고", "EC", 5, 6), Morph("D", "SL", 7, 8), Morph("캔", "NNP", 9, 10), Morph("에", "JKB", 10, 11))
    assert [(m.form, m.tag) for m in _unglue(morphs, text)][:3] == [("C", "SL"), ("캔", "NNP"), ("말", "VX")]


def test_a_routine_run_with_a_tool_the_instruction_fetches_is_not_unrequested() -> None:
    from pathlib import Path

    from plan_verifier.evaluation import devset
    from plan_verifier.graph.embedded import EmbeddedGraph

    root = Path(__file__).parent
    [case] = [c for c in devset.load([root / "fixtures" / "semantic_dev" / "cell_jobs.yaml"]) if c["id"] == "DEV-CELL-027"]
    verifier = Verifier(level="FULL", rules=SEMANTIC_RULES, graph=EmbeddedGraph.from_file(case["metadata"]["cell"]))
    report = verifier.verify(case["json_plan"], plan_format="json",
                             instruction="Fetch the screwdriver; the part in the fixture needs it.")
    assert "R-SEM-007" not in {f.rule_id for f in report.findings if f.severity is Severity.CRITICAL}


def test_asides_in_parentheses() -> None:
    # an apposition or a note adds no object
    assert _tasks("Put the cube (the red one) into bin 2.") == [("place", "cube", None, "bin2", 0)]
    assert _tasks("Put the cube (see note 1) into bin 2.") == [("place", "cube", None, "bin2", 0)]
    # a statement between two clauses is read as one, in its place
    first, then = _tasks("Sort the wrench first (it goes from the tray to the shelf), and after that take the bolt to bin 1.")
    assert first[1:4] == ("wrench", "tray", "shelf") and then[1:4] == ("bolt", None, "bin1") and then[4] > first[4]


def test_and_after_that_orders_what_follows() -> None:
    assert [t[1] for t in _tasks("Move the box to A and after that take the cube to B.")] == ["box", "cube"]
    assert [t[4] for t in _tasks("Move the box to A and after that take the cube to B.")] == [0, 1]
    assert [e.describe() for e in read_instruction("Move both boxes onto the pallet, except the green one").excluded] == ["green one"]


def test_an_abbreviated_place_in_a_pose_name_is_read_when_only_one_place_fits() -> None:
    from plan_verifier.semantic.names import identifier_evidence

    assert [p.key for p in identifier_evidence("p_box_shlf3_place")[1]] == ["shelf3"]
    assert [p.key for p in identifier_evidence("Bolt_Conv_Pick")[1]] == ["conveyor"]
    assert identifier_evidence("p_box_xq_place")[1] == ()  # nothing fits: nothing guessed
    plan = program([Cycle("box", "table", "bin 2")], "define_named").replace("Bin2_", "Tbl_")
    assert "R-SEM-003" in _critical(plan, "Put the box from the table into bin 2.")


def test_taking_the_same_thing_up_again_where_it_was_put_is_no_extra_task() -> None:
    spot = (600, 250, 80)
    plan = program([Cycle("box", "table", "bin 3", place=spot), Cycle("gizmo", "bin 3", "pallet", pick=spot)], "define_named")
    assert "R-SEM-007" not in _critical(plan, "Put the box from the table into bin 3.")


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("instruction", [
    "Send the red cube to bin 3.",
    "Toss the red cube from the table into bin 3, thanks.",
    "1) pick up the red cube from the table 2) drop it into bin 3",
    "Take the red cube off the table (it is the small one) and put it into bin 3.",
    "Bin 2 is full, so the red cube goes from the table to bin 3.",
    "Put the red cube into bin 3. It's on the table right now.",
    "Put the red cube into bin 3; the operator will check it later.",
    "빨간 큐브를 3번 통에 넣어 주세요. 지금 테이블에 있어요.",
    "1) 테이블에서 빨간 큐브를 집어 2) 3번 통에 넣어",
    "테이블 위 빨간 큐브 좀 3번 통으로 옮겨 주실래요?",
    "red cube를 table에서 pick해서 bin 3에 place 해줘",
])
def test_new_readings_never_reject_the_correct_program(style, instruction) -> None:
    assert _critical(program([Cycle("red cube", "table", "bin 3")], style), instruction) == []


def test_a_korean_heading_before_a_colon_names_no_object() -> None:
    assert _tasks("작업 내용: 테이블의 상자를 2번 통으로 이동") == [("transfer", "box", "table", "bin2", 0)]
    assert _tasks("상자: 테이블에서 2번 통으로") == [("transfer", "box", "table", "bin2", 0)]  # no heading: the object itself


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("instruction", [
    "Put the bolt from the tray into bin 1, then move the box from the pallet onto the conveyor.",
    "1) bolt: tray -> bin 1 2) box: pallet -> conveyor",
    "Take the bolt out of the tray and drop it in bin 1. After that, the box goes from the pallet to the conveyor.",
    "트레이에 있는 볼트를 1번 통에 넣고, 그 다음 팔레트의 상자를 컨베이어로 옮겨 주세요.",
    "먼저 부품 트레이에서 볼트 꺼내서 1번 통에 넣고 나서 팔레트 위 상자 컨베이어에 올려 줘",
    "Could you please drop the bolt into bin 1 and send the box down to the conveyor? Thanks!",
])
def test_two_transfers_read_in_new_ways_never_reject_the_correct_program(style, instruction) -> None:
    assert _critical(program([Cycle("bolt", "tray", "bin 1"), Cycle("box", "pallet", "conveyor")], style), instruction) == []


def test_a_bare_object_before_a_place_is_split_only_when_nothing_else_can_be_the_object() -> None:
    assert _tasks("상자 컨베이어에 올려") == [("place", "box", None, "conveyor", 0)]
    assert _tasks("볼트 꺼내서 부품 트레이에 넣어") == [("insert", "bolt", None, "tray", 0)]  # after a fetch: the parts tray
    assert [t[1] for t in _tasks("부품 트레이에 있는 볼트를 1번 통에 넣어")] == ["bolt"]  # an object follows: the parts tray
    assert [t[2] for t in _tasks("상자를 2번 통에 넣어. 지금 부품 트레이에 있어.")] == ["tray"]  # where it is: the parts tray


# --------------------------------------------------------------------------- self-corrections


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("instruction", [
    "Move the bolt from the tray to bin 2? No wait - bin 3.",
    "Move the bolt from the tray to bin 2, actually bin 3.",
    "Put the bolt from the tray in bin 2... sorry, I mean bin 3.",
    "Take the bolt from the tray to the pallet... actually no, drop it in bin 3.",
    "볼트를 트레이에서 2번 통에, 아니 3번 통에 넣어.",
    "볼트를 트레이에서 2번 통으로… 아니다, 3번 통으로 옮겨.",
    "bolt를 tray에서 bin 2에, sorry, bin 3에 넣어 줘.",
])
def test_a_place_taken_back_never_rejects_the_program_that_goes_to_the_corrected_one(style, instruction) -> None:
    assert _critical(program([Cycle("bolt", "tray", "bin 3")], style), instruction) == []


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("instruction", ["Move the bolt from the tray to bin 2? No wait - bin 3.", "볼트를 트레이에서 2번 통에, 아니 3번 통에 넣어."])
def test_the_corrected_place_is_the_one_compared(style, instruction) -> None:
    assert "R-SEM-003" in _critical(program([Cycle("bolt", "tray", "bin 2")], style), instruction)


def test_a_correction_that_cannot_be_placed_is_unread_and_words_that_only_look_like_one_change_nothing() -> None:
    unsure = read_instruction("Move the bolt from the tray to bin 2, sorry, the box.")
    assert unsure.unread and all(t.destination is None or t.destination.label != "2" for t in unsure.tasks)
    assert _tasks("Put the bolt in bin 2. Sorry to keep you waiting.") == [("place", "bolt", None, "bin2", 0)]
    assert _tasks("Put the bolt in bin 2, um, carefully.") == [("place", "bolt", None, "bin2", 0)]


@pytest.mark.parametrize("text", ["볼트 두 개... 아니 한 개만 트레이에서 3번 통으로 옮겨 줘.", "Move two bolts — sorry, one bolt — from the tray to bin 3."])
def test_a_corrected_count_is_the_count_read(text) -> None:
    assert [(t.obj.noun, t.obj.count) for t in read_instruction(text).tasks] == [("bolt", 1)]



@pytest.mark.parametrize("style", ["define_named", "korean_comments"])
def test_a_ruled_out_inspection_is_a_hold_at_that_place(style) -> None:
    """"스캐너에 대지 말고 바로 …", "don't scan it": the plan that holds the thing at the scanner does what is ruled out."""
    held = program([Cycle("red cube", "table", "tray", via="scanner")], style)
    direct = program([Cycle("red cube", "table", "tray")], style)
    for text in ("빨간 큐브를 스캐너에 대지 말고 바로 트레이로 옮겨 줘.", "Move the red cube to the tray. Don't hold it up to the scanner."):
        assert "R-SEM-007" in _critical(held, text), text
        assert _critical(direct, text) == [], text


@pytest.mark.parametrize("style", ["define_named", "korean_comments"])
def test_back_where_it_was_is_its_source(style) -> None:
    """"원래 자리로 돌려놔. 지금 A에 있어": the thing goes back to A; a plan that leaves it at B is wrong."""
    back = program([Cycle("red cube", "a", "a", via="scanner")], style)
    elsewhere = program([Cycle("red cube", "a", "b", via="scanner")], style)
    for text in ("빨간 큐브를 스캐너에 찍고 원래 자리로 돌려놔. 지금 A에 있어.",
                 "Scan the red cube at the scanner and put it back where it was. It's at A now."):
        assert "R-SEM-003" not in _critical(back, text), text
        assert "R-SEM-003" in _critical(elsewhere, text), text


@pytest.mark.parametrize("style", ["define_named", "korean_comments"])
def test_things_listed_and_counted_are_each_carried(style) -> None:
    """"X랑 Y 둘 다 트레이에", "both the X and the Y": two things to carry even when the vocabulary knows neither noun."""
    both = program([Cycle("rasp", "a", "tray"), Cycle("awl", "b", "tray")], style)
    one = program([Cycle("rasp", "a", "tray")], style)
    for text in ("rasp랑 awl 둘 다 트레이에 올려 줘. rasp는 A에, awl은 B에 있어.", "Put both the rasp and the awl on the tray."):
        assert "R-SEM-005" in _critical(one, text), text
        assert _critical(both, text) == [], text
