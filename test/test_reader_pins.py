"""The TDL reader's behaviour, pinned on real and broken programs.

`test/fixtures/reader_pins.json.gz` holds programs (the corpus, the examples,
the rule fixtures' TDL plans, and seeded token/character/line mutations of
them: deletions, insertions, swaps, truncations) with what the reader made of
each: every syntax finding in full (rule, severity, span, message, evidence,
suggestion) and a summary of the IR (steps, definitions, references, pose
literals and sites, GOALs). The pins were taken with the reader this project
had before its rewrite (lark's LALR parser state machine and a syntax tree)
and checked against the new one input by input; they keep doing that job.
After an intended change, regenerate with
    PLAN_VERIFIER_UPDATE_PINS=1 scripts/test.sh test/test_reader_pins.py
and read the diff (`zcat`) before committing.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re

import pytest
import yaml

from conftest import CORPUS, FIXTURES, ROOT
from plan_verifier.findings import Category
from plan_verifier.pipeline import Verifier

PINS = FIXTURES / "reader_pins.json.gz"
VERIFIER = Verifier("ur10e", level="BASIC")
_TOKENS = [";", "{", "}", "(", ")", ",", "=", "SPAWN", "WITH", "WAIT", "NOWAIT", "GOAL", "DEFINE", "PosX", "PosJ", "...", '"', "'",
           "//", "#", "\n", "-", "+", "*", "/", "[", "]", "HEADER", "END_HEADER", ":", "COMMAND", ".", "None", "True", "1", "0.5", "@",
           "\u00a0", "Trans", "MoveLinear", "Delay", "Assign", "End", "==", "1e3", "é"]
_TOKEN = re.compile(r'"(?:[^"\\\r\n]|\\.)*"|//[^\r\n]*|#[^\r\n]*|\w+|\.\.\.|==|!=|<=|>=|\S')


def _programs() -> dict[str, str]:
    """Name -> program: the real ones, then seeded mutations of each (the same every run)."""
    base = {p.name: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.t*"))}
    base.update({p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").glob("*.tdl"))})
    for path in sorted((FIXTURES / "rules").glob("R-SYN-*.yaml")):
        for k, case in enumerate(yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]):
            plan = case["plan"]
            if "repeat" not in case and plan.lstrip()[:1] not in "[{" and "steps:" not in plan and "RobotSequence" not in plan:
                base[f"{path.stem}#{k}"] = plan
    out = dict(base)
    rng = random.Random(20260601)
    for name, program in base.items():
        for j in range(12):
            out[f"{name}~{j}"] = _mutate(program, rng, j % 4)
    return out


def _mutate(text: str, rng: random.Random, how: int) -> str:
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)] or [(0, 0)]
    if how == 0:  # delete one or two tokens
        for _ in range(1 + rng.randrange(2)):
            a, b = rng.choice(spans)
            text = text[:a] + text[b:]
            spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)] or [(0, 0)]
    elif how == 1:  # insert a token
        a = rng.choice(spans)[0]
        text = text[:a] + rng.choice(_TOKENS) + " " + text[a:]
    elif how == 2:  # swap two neighbouring tokens, or replace one
        k = rng.randrange(len(spans))
        (a, b), (c, d) = spans[k], spans[min(k + 1, len(spans) - 1)]
        text = text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:] if b <= c else text[:a] + rng.choice(_TOKENS) + text[b:]
    else:  # drop, repeat or cut at a line
        lines = text.splitlines(keepends=True) or [""]
        k = rng.randrange(len(lines))
        roll = rng.random()
        lines = lines[:k] + lines[k + 1 :] if roll < 0.4 else lines[: k + 1] + lines[k:] if roll < 0.8 else lines[:k]
        text = "".join(lines)
    return text


def _summary(text: str) -> dict:
    report = VERIFIER.verify(text)
    plan = report.plan

    def span(s):
        return list(s) if s else None

    syntax = [{k: v for k, v in f.to_dict().items() if k != "category"} for f in report.findings if f.category is Category.SYNTAX]
    return {
        "syntax": syntax,
        "parsed": plan.parsed,
        "steps": [[s.command, s.goal, s.spawn, span(s.span), sorted(s.params), list(s.target.values) if s.target else None,
                   s.binding.known if s.binding else None] for s in plan.steps],
        "definitions": [[d.name, d.kind, span(d.span), d.step] for d in plan.definitions],
        "references": [[r.name, span(r.span), r.step, r.param, r.definition is not None, r.defined_later is not None] for r in plan.references],
        "literals": [[p.constructor, len(p.args), span(p.span), p.context] for p in plan.pose_literals],
        "sites": [[s.context, span(s.span), s.step, list(s.pose.values)] for s in plan.pose_sites],
        "goals": [[g.name, span(g.span), g.order, g.first_step, g.last_step, g.called_by] for g in plan.goals],
    }


def _pins() -> dict:
    if os.environ.get("PLAN_VERIFIER_UPDATE_PINS"):
        pins = {name: {"program": text, "read": _summary(text)} for name, text in _programs().items()}
        PINS.write_bytes(gzip.compress(json.dumps(pins, ensure_ascii=False, sort_keys=True, indent=0).encode("utf-8"), mtime=0))
    return json.loads(gzip.decompress(PINS.read_bytes()))


PINNED = _pins()


def test_the_pins_cover_the_programs() -> None:
    programs = _programs()
    assert sorted(PINNED) == sorted(programs)
    assert all(PINNED[name]["program"] == text for name, text in programs.items())
    assert sum(1 for pin in PINNED.values() if pin["read"]["syntax"]) > len(PINNED) // 3  # many are broken


@pytest.mark.parametrize("name", sorted(PINNED), ids=lambda n: n[:48])
def test_the_reader_reads_as_pinned(name: str) -> None:
    pin = PINNED[name]
    assert json.loads(json.dumps(_summary(pin["program"]), ensure_ascii=False)) == pin["read"]
