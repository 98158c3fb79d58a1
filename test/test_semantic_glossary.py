"""The lexicon's Korean–English glossary: well formed, and a Korean noun and its translation correspond."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from plan_verifier.semantic.loanwords import borrowed
from plan_verifier.semantic.matching import overlaps, same_word
from plan_verifier.semantic.vocabulary import vocabulary


def _glossary_lines() -> list[str]:
    text = resources.files("plan_verifier.data").joinpath("semantic_lexicon.yaml").read_text(encoding="utf-8")
    section = text.split("\nglossary:\n", 1)[1]
    lines = []
    for line in section.splitlines():
        if line.startswith("#") or not line.strip():
            if line.startswith("#") and lines:
                break  # the next section's comment
            continue
        if not line.startswith("  "):
            break
        lines.append(line)
    return lines


def test_glossary_is_well_formed():
    lines = _glossary_lines()
    keys = [line.split(":", 1)[0].strip() for line in lines]
    assert len(keys) >= 400
    assert len(keys) == len(set(keys)), "duplicate keys"
    assert keys == sorted(keys), "keys out of order"
    for line, key in zip(lines, keys):
        assert re.fullmatch(r"[가-힣]+", key), key
        values = re.fullmatch(r"  \S+: \[(.*)\]", line).group(1).split(", ")
        assert values and all(re.fullmatch(r"[a-z][a-z -]*", v) for v in values), line
        assert len(values) == len(set(values)), line
    assert set(vocabulary().glossary) == set(keys)


@pytest.mark.parametrize("korean, english", [
    ("찻잔", "teacup"), ("봉지", "bag"), ("무전기", "radio"), ("가발", "wig"), ("거름망", "strainer"), ("송진", "rosin"),
    ("사진첩", "album"), ("반지", "ring"), ("쐐기", "wedge"), ("돋보기", "loupe"), ("장화", "boots"),
])
def test_korean_noun_and_its_translation_are_one_word(korean, english):
    assert same_word(korean, english) and same_word(english, korean)


def test_compounds_either_way():
    assert overlaps(("찻", "잔"), ("teacup",))  # written in two
    assert overlaps(("도마",), ("cutting", "board"))  # a two-word translation as a run of a name's words
    assert overlaps(("사진첩",), ("photo", "albums"))


def test_other_words_stay_apart():
    assert not same_word("찻잔", "saucer")
    assert not same_word("사진첩", "photo")  # a modifier of the translation is not the thing
    assert not same_word("안경", "glass")  # glasses (spectacles), not a drinking glass
    assert not overlaps(("사진첩",), ("photo", "frame"))


def test_a_glossed_noun_takes_the_class_of_its_translation():
    v = vocabulary()
    assert borrowed("봉지", v) == ("bag", None)
    assert borrowed("맥주잔", v) == (None, None)  # beer glass or mug: two classes, none chosen
    assert borrowed("창고", v) == (None, None)  # places keep their own reading
