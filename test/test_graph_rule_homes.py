"""One rule, one home: a graph rule's id and its wording live in its own module and nowhere else.

The source tree is read as Python (its string literals and f-string
templates; docstrings and comments are documentation and may name rules).
That no rule id is spelt out as code outside its module is checked for
every family in `test_rule_homes.py`. Every message, seed 003 feedback line and tool
conflict that the graph rules produce for the pinned plans of
`test_graph_views.py` is written in the module of the rule that produced it
and in no other. A repair hint is written in its rule's module or by the
shared hint helpers of `graph/repair.py`, and in no other graph rule's module.

"Written in" a module: a string literal there matches the text, an
f-string's replacement fields matching anything. A finding's own words match
no literal outside its rule's module, however loosely. For hints, of several
matching literals the most specific (the most literal characters) tells where
the text is written, so that "release '{tool}' at {stand}" (R-GRF-005's
detour) does not claim the shared "release '{tool}' at its stand {stand} first".
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

from test_graph_views import PLANS, _verifier
from test_rule_homes import SOURCE, _strings, home

SHARED_HINTS = SOURCE / "graph" / "repair.py"
_LABEL = re.compile(r"^(Step \d+|Start): (Hint: )?")
_MIN_LETTERS = 6  # templates with fewer literal letters ("{label}: {text}") match anything


def _template(node: ast.Constant | ast.JoinedStr) -> tuple[re.Pattern, int] | None:
    """A string literal as (pattern, number of literal characters): an f-string's replacement fields match any text."""
    values = node.values if isinstance(node, ast.JoinedStr) else [node]
    literal = "".join(v.value for v in values if isinstance(v, ast.Constant))
    if sum(c.isalpha() for c in literal) < _MIN_LETTERS:
        return None
    pattern = "".join(re.escape(v.value) if isinstance(v, ast.Constant) else ".*?" for v in values)
    return re.compile(pattern, re.DOTALL), len(literal)


@lru_cache(maxsize=1)
def _sources() -> dict[Path, tuple[list[str], list[tuple[re.Pattern, int]]]]:
    """{module: (its string literals, its templates)} for every module of the package."""
    out = {}
    for path in sorted(SOURCE.rglob("*.py")):
        nodes = _strings(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        literals = [n.value for n in nodes if isinstance(n, ast.Constant)]
        out[path] = (literals, [t for t in map(_template, nodes) if t is not None])
    return out


def _written_in(text: str) -> tuple[set[Path], set[Path]]:
    """(every module with a literal matching `text`, the modules with the most specific one)."""
    matches = [(path, size) for path, (_, templates) in _sources().items() for pattern, size in templates if pattern.fullmatch(text)]
    best = max((size for _, size in matches), default=0)
    return {path for path, _ in matches}, {path for path, size in matches if size == best}


@lru_cache(maxsize=1)
def _wording() -> list[tuple[str, str, str]]:
    """(rule id, kind, text) of everything the graph rules said about the pinned plans."""
    out = []
    for _pid, cell, robot, plan, kwargs in PLANS:
        for f in _verifier(cell, robot).verify(plan, **kwargs).findings:
            if f.graph is None:
                continue
            out.append((f.rule_id, "message", f.message))
            if f.suggestion:
                out.append((f.rule_id, "hint", f.suggestion))
            for line in f.graph.feedback:
                out.append((f.rule_id, "hint" if ": Hint: " in line else "feedback", _LABEL.sub("", line)))
            if f.graph.tool_conflict:
                out.append((f.rule_id, "conflict", _LABEL.sub("", f.graph.tool_conflict)))
    return sorted(set(out))


def test_the_wording_under_test_covers_every_graph_rule() -> None:
    kinds = {(rule_id, kind) for rule_id, kind, _ in _wording()}
    for n in range(1, 12):
        assert {(f"R-GRF-{n:03d}", "message"), (f"R-GRF-{n:03d}", "feedback")} <= kinds
    assert sum(kind == "hint" for _, kind, _ in _wording()) > 30


@pytest.mark.parametrize(("rule_id", "kind", "text"), _wording(), ids=lambda v: v[:50] if isinstance(v, str) else v)
def test_graph_wording_lives_in_its_rule_module(rule_id: str, kind: str, text: str) -> None:
    anywhere, written = _written_in(text)
    where = sorted(str(p.relative_to(SOURCE)) for p in written)
    if kind == "hint":
        assert anywhere & {home(rule_id), SHARED_HINTS}, f"{text!r} is written in {where}"
        graph_rules = {p for p in written if p.parent == home(rule_id).parent and p.name.startswith("r_grf_")}
        assert graph_rules <= {home(rule_id)}, f"{text!r} is written in {where}"
    else:
        assert anywhere == {home(rule_id)}, f"{text!r} is written in {sorted(str(p.relative_to(SOURCE)) for p in anywhere)}"
