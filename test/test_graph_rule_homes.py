"""One rule, one home: a graph rule's id and its wording live in its own module and nowhere else.

The source tree is read as Python (its string literals and f-string
templates; docstrings and comments are documentation and may name rules).
No R-GRF id is spelt out anywhere but in the module of that rule (other code
refers to the rule's class). Every message, seed 003 feedback line and tool
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

from conftest import ROOT
from test_graph_views import PLANS, _verifier
from plan_verifier import rules as registry

SOURCE = ROOT / "src" / "plan_verifier"
SHARED_HINTS = SOURCE / "graph" / "repair.py"
GRAPH_RULE_ID = re.compile(r"R-GRF-\d{3}")
_LABEL = re.compile(r"^(Step \d+|Start): (Hint: )?")
_MIN_LETTERS = 6  # templates with fewer literal letters ("{label}: {text}") match anything


def _home(rule_id: str) -> Path:
    return SOURCE / "rules" / "grf" / f"r_grf_{rule_id[-3:]}.py"


def _strings(tree: ast.AST) -> list[ast.Constant | ast.JoinedStr]:
    """String literals and f-strings, without docstrings and without the pieces of f-strings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    return [node for node in ast.walk(tree)
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | pieces)
            or isinstance(node, ast.JoinedStr)]


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


def test_no_graph_rule_id_is_spelt_out_outside_its_module() -> None:
    graph_rules = [r.id for r in registry.all_rules() if r.id.startswith("R-GRF-")]
    assert len(graph_rules) == 12
    for rule_id in graph_rules:
        assert rule_id in _sources()[_home(rule_id)][0], f"{rule_id} does not name itself in {_home(rule_id).name}"
    for path, (literals, _) in _sources().items():
        for literal in literals:
            for rule_id in GRAPH_RULE_ID.findall(literal):
                assert literal.strip() != rule_id or path == _home(rule_id), \
                    f"{path.relative_to(ROOT)} spells out {rule_id}: refer to the rule's class instead"


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
        assert anywhere & {_home(rule_id), SHARED_HINTS}, f"{text!r} is written in {where}"
        graph_rules = {p for p in written if p.parent == _home(rule_id).parent and p.name.startswith("r_grf_")}
        assert graph_rules <= {_home(rule_id)}, f"{text!r} is written in {where}"
    else:
        assert anywhere == {_home(rule_id)}, f"{text!r} is written in {sorted(str(p.relative_to(SOURCE)) for p in anywhere)}"
