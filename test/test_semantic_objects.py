"""How the instruction's object is compared with what the program names, one general rule per test, English and Korean.

The sentences and things here are written for these tests (washers, cables, pins: no evaluation set's workplace):
a measure noun at the head of a description ("washer pack", "와셔 세트") names a quantity, the words before it the
thing; a motion word of pose names that is the instruction's word for the thing (a guitar "pickup") is that thing;
Hangul loanwords end in ㅂ for an English p ("픽업", "컵") and write ch with ㅊ ("벤치").
"""

from __future__ import annotations

import pytest

from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.semantic.clauses import ObjectRef
from plan_verifier.semantic.grounding import thing_of
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.loanwords import borrowed, english_skeleton, korean_skeleton
from plan_verifier.semantic.matching import transliterates
from plan_verifier.semantic.vocabulary import vocabulary
from semantic_scene import STYLES, Cycle, program

SEMANTIC_RULES = [r for r in registry.all_rules() if r.category is Category.SEMANTIC]


def _object_findings(plan: str, instruction: str) -> list[tuple[str, str]]:
    report = Verifier(level="FULL", rules=SEMANTIC_RULES).verify(plan, instruction=instruction)
    return sorted((f.rule_id, f.severity.name) for f in report.findings if f.rule_id == "R-SEM-001")


# --------------------------------------------------------------------------- measure nouns


def test_a_measure_noun_leaves_the_thing_before_it_as_the_head() -> None:
    bundle = thing_of(ObjectRef("the cable bundle", "bundle", words=("cable", "bundle")))
    assert (bundle.noun, bundle.words) == ("cable", ("cable",))
    assert thing_of(ObjectRef("와셔 세트", "세트", words=("와셔", "세트"))).noun == "washer"
    # alone, a measure names no particular thing in a program; an instruction's "the set" stays a noun to compare
    assert thing_of(ObjectRef("Kit", "kit", words=("kit",))).generic
    assert thing_of(ObjectRef("the set", "set", words=("set",)), bare=False).noun == "set"
    # a known object class is never a measure
    assert thing_of(ObjectRef("the pin", "shaft", words=("pin",))).noun == "shaft"


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("instruction", ["Move the washer pack from the table to bin 1.", "와셔 세트를 테이블에서 1번 통으로 옮겨 줘",
                                         "washer bundle: table → bin 1"])
def test_a_quantity_of_the_named_thing_is_that_thing(style, instruction) -> None:
    assert _object_findings(program([Cycle("washers", "table", "bin 1")], style), instruction) == []


@pytest.mark.parametrize("style", ["define_named", "positional_assign", "camel_case"])
def test_a_name_shortened_before_its_measure_is_the_same_thing(style) -> None:
    plan = program([Cycle("silicone pack", "table", "bin 1")], style)
    assert _object_findings(plan, "Move the silicone grease pack from the table to bin 1.") == []


@pytest.mark.parametrize("style", ["define_named", "named_inline", "positional_assign", "camel_case"])
@pytest.mark.parametrize("instruction", ["Move the washer pack from the table to bin 1.", "와셔 세트를 테이블에서 1번 통으로 옮겨 줘"])
def test_a_quantity_of_another_thing_is_an_object_mismatch(style, instruction) -> None:
    assert _object_findings(program([Cycle("bolts", "table", "bin 1")], style), instruction) == [("R-SEM-001", "CRITICAL")]


def test_a_route_headline_ending_in_a_measure_noun_names_its_thing() -> None:
    [first, second] = read_instruction("1. hex bolt: table → bin 1\n2. cable pack: bin 2 → tray").tasks
    assert (first.obj.noun, second.obj.text) == ("bolt", "cable pack")


def test_a_korean_measure_noun_stays_with_its_thing_before_a_place() -> None:
    [task] = read_instruction("와셔 세트 오른쪽 트레이에서 2번 통으로 옮겨").tasks
    assert (task.obj.words, task.source.key) == (("와셔", "세트"), "right")


# --------------------------------------------------------------------------- things named like motions


@pytest.mark.parametrize("style", ["define_named", "named_inline", "positional_assign", "camel_case"])
@pytest.mark.parametrize("instruction", ["Put the pickup from the table in bin 1.", "픽업을 테이블에서 1번 통에 넣어"])
def test_a_thing_named_like_a_motion_word_is_the_thing(style, instruction) -> None:
    assert _object_findings(program([Cycle("pickup", "table", "bin 1")], style), instruction) == []


# --------------------------------------------------------------------------- loanwords


@pytest.mark.parametrize(("korean", "english"), [("픽업", "pickup"), ("컵", "cup"), ("클립", "clip"), ("벤치", "bench")])
def test_hangul_loanwords_final_p_and_ch(korean, english) -> None:
    assert korean_skeleton(korean) == english_skeleton(english)
    assert transliterates(korean, english)


def test_a_bench_written_in_hangul_is_a_table_and_a_setup_is_no_stove() -> None:
    v = vocabulary()
    assert borrowed("벤치", v) == (None, "table")
    assert borrowed("셋업", v) == (None, None)


@pytest.mark.parametrize(("korean", "english"), [("트레이", "tray"), ("스테이션", "station"), ("플라스크", "flask"), ("클램프", "clamp")])
def test_a_word_borrowed_with_an_opening_cluster_writes_it_with_eu(korean, english) -> None:
    assert borrowed(korean, vocabulary()) != (None, None)


@pytest.mark.parametrize("native", ["타래", "다리"])
def test_a_native_word_with_the_skeleton_of_a_cluster_word_is_no_loanword(native) -> None:
    # 타래 (a skein) and 다리 (a leg) share the skeleton of "drawer"/"tray", but Korean would write the opening cluster
    # with ㅡ (드로어, 트레이): no English reading, the stage abstains on them rather than read a drawer or a tray
    assert borrowed(native, vocabulary()) == (None, None)


def test_a_native_word_is_no_transliteration_of_a_cluster_word() -> None:
    assert not transliterates("타래", "tray")


def test_a_caliper_in_hangul_is_a_caliper_not_a_gripper() -> None:
    # 캘리퍼 and "gripper" share a skeleton, but "gripper" opens with a cluster Korean writes 그리-: the vocabulary's
    # caliper it is
    task = read_instruction("캘리퍼 측정 테이블에 올려 줘.").tasks[0]
    assert task.obj is not None and task.obj.noun == "caliper"
