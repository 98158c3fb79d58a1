"""The constructions operators use to say where a transfer starts and ends, read as the lexicon lists them (issue 17).

`test/fixtures/semantic_constructions.yaml` holds sentences for every construction of the lexicon's `constructions`
section, in English and in Korean, written in workplaces of their own, and what each must read as: the carrying and
presenting tasks in order, with the words or kind/label/side of their places. A construction the lexicon lists with no
sentence here fails, and so does a sentence read otherwise.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from plan_verifier import yaml_text
from plan_verifier.semantic.clauses import ObjectRef, PlaceRef
from plan_verifier.semantic.instruction import read_instruction
from plan_verifier.semantic.vocabulary import vocabulary

DATA = yaml_text.load((FIXTURES / "semantic_constructions.yaml").read_text(encoding="utf-8"))["constructions"]
CASES = [(name, case) for name, cases in DATA.items() for case in cases]
#: Tasks a construction is about: carrying something, or showing it somewhere on the way.
_ABOUT = frozenset({"transfer", "place", "insert", "stack", "pick", "handover", "inspect"})


def test_every_construction_of_the_lexicon_has_sentences_in_both_languages() -> None:
    c = vocabulary().constructions
    listed = {"leave_at": c.leave_at, "fills": c.fills, "goes_to": c.goes_to, "duty": c.duty, "straight": c.straight, "arrows": c.arrows,
              "landmarks": c.landmarks, "where_it_is": c.where_it_is, "list_markers": c.list_markers, "corrections": c.corrections,
              "back_where": c.back_where, "keep_empty": c.ko_keep_empty}
    for name, words in listed.items():
        assert words, name
        assert name in DATA, f"construction {name!r} has no sentences in semantic_constructions.yaml"
    languages = {case["language"] for _, case in CASES}
    assert languages == {"en", "ko"}
    for name in ("arrows", "where_it_is", "list_markers", "routes", "corrections", "back_where"):
        assert {case["language"] for case in DATA[name]} == {"en", "ko"} or name == "list_markers", name


def _has(words: tuple[str, ...], text: str, want: str) -> bool:
    return want.lower() in words or want.lower() in text.lower()


def _place_fits(place: PlaceRef | None, want) -> bool:
    if want is None:
        return True
    if place is None:
        return False
    if isinstance(want, str):
        return _has(place.words, place.text, want)
    return all((place.kind or "").split(":")[-1] == v if k == "kind" else str(place.label) == str(v) if k == "label" else
               place.side == v if k == "side" else _has(place.words, place.text, v) for k, v in want.items())


def _object_fits(obj: ObjectRef | None, want: str | None) -> bool:
    if want is None:
        return True
    return obj is not None and (_has(obj.words, obj.text, want) or obj.noun == want)


@pytest.mark.parametrize(("name", "case"), CASES, ids=[f"{n}:{c['text'][:40]}" for n, c in CASES])
def test_construction_reads_as_written(name, case) -> None:
    reading = read_instruction(case["text"])
    tasks = [t for t in reading.tasks if t.action in _ABOUT]
    got = [(t.action, t.obj.text if t.obj else None, t.source and t.source.text, t.destination and t.destination.text,
            t.at and t.at.text) for t in tasks]
    assert len(tasks) == len(case["tasks"]), got
    for task, want in zip(tasks, case["tasks"]):
        assert task.action == want["action"], got
        assert _object_fits(task.obj, want.get("object")), got
        assert _place_fits(task.source, want.get("source")), got
        assert _place_fits(task.destination, want.get("destination")), got
        assert _place_fits(task.at, want.get("at")), got
    if case.get("ordered"):
        stages = [t.stage for t in tasks if t.action != "inspect"]
        assert stages == sorted(stages) and (len(stages) < 2 or stages[-1] > stages[0]), got
    assert bool(reading.unread) == bool(case.get("unread")), reading.unread
    for word in case.get("excluded_places", ()):
        assert any(_has(p.words, p.text, word) for _, p in reading.excluded_places), reading.excluded_places
    for word in case.get("excluded_objects", ()):
        assert any(_object_fits(o, word) for o in reading.excluded), reading.excluded
    for word in case.get("kept_places", ()):
        assert not any(_has(p.words, p.text, word) for _, p in reading.excluded_places), reading.excluded_places
    for word in case.get("kept_objects", ()):
        assert not any(_object_fits(o, word) for o in reading.excluded), reading.excluded
    kinds = {kind for kind, _ in reading.manner} | {kind for t in reading.tasks for kind, _ in t.manner}
    assert set(case.get("manner", ())) <= kinds, (reading.manner, got)
