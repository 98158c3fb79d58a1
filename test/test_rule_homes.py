"""One rule, one home, for every family: a rule id is spelt out as code only in that rule's module.

The source tree is read as Python. Where an id is *code* — a string literal
made of rule ids and punctuation only, as a lookup key, a comparison or a
table entry would be — it must be in the module of that rule
(`rules/<fam>/r_<fam>_<nnn>.py`, its `id`); everything else refers to the
rule's class, or to the registry (`plan_verifier.rules`, which finds rules by
module name and holds no id), so moving or renumbering a rule touches one
file. Reason codes live on the rule classes (`reason_code`), not in tables.

Where an id is *prose* — docstrings, comments, the CLI's `--help` texts and
the node's parameter descriptions ("a slower graph counts as unavailable
(R-GRF-000)"), the comments of the command catalogue and the grammar — it is
documentation for a user and may name any rule, as docs/*.md do; such a
mention must name a registered rule, so a renumbering cannot leave a stale
reference behind. The graph rules' wording is checked further in
`test_graph_rule_homes.py`.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

from conftest import ROOT
from plan_verifier import rules as registry

SOURCE = ROOT / "src" / "plan_verifier"
RULE_ID = re.compile(r"R-[A-Z]{3}-\d{3}")
#: An id put together at run time (f"R-SAF-{n:03d}"): code by definition, and nowhere a rule's home.
BUILT_ID = re.compile(r"R-[A-Z]{3}-\{\}")
#: What is left of a code-like literal once its ids are taken out (a separator, brackets, quotes).
_CODE_REST = re.compile(r"^[\s,;:|/()\[\]'\"]*$")
_DATA_FILES = ("*.yaml", "*.lark", "*.json")


def home(rule_id: str) -> Path:
    """R-SAF-004 -> src/plan_verifier/rules/saf/r_saf_004.py."""
    family = rule_id[2:5].lower()
    return SOURCE / "rules" / family / f"r_{family}_{rule_id[-3:]}.py"


def _strings(tree: ast.AST) -> list[ast.Constant | ast.JoinedStr]:
    """String literals and f-strings, without docstrings and without the pieces of f-strings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    return [node for node in ast.walk(tree)
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings | pieces)
            or isinstance(node, ast.JoinedStr)]


def _text(node: ast.Constant | ast.JoinedStr) -> str:
    """A literal's text; an f-string's replacement fields read as `{}`."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)


@lru_cache(maxsize=1)
def _literals() -> dict[Path, list[tuple[int, str]]]:
    """{module: [(line, text) of every string literal that names a rule id]} for the whole package."""
    out = {}
    for path in sorted(SOURCE.rglob("*.py")):
        nodes = _strings(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        out[path] = [(n.lineno, _text(n)) for n in nodes if RULE_ID.search(_text(n)) or BUILT_ID.search(_text(n))]
    return out


def is_code(text: str) -> bool:
    """A literal made of rule ids and punctuation only (a key, a comparison, a list of ids), or one that
    puts an id together; not a sentence."""
    return bool(BUILT_ID.search(text)) or (bool(RULE_ID.search(text)) and bool(_CODE_REST.match(RULE_ID.sub("", text))))


def test_every_rule_spells_its_id_in_its_own_module() -> None:
    for rule in registry.all_rules():
        texts = [text for _, text in _literals().get(home(rule.id), [])]
        assert rule.id in texts, f"{rule.id} does not name itself in {home(rule.id).relative_to(ROOT)}"


def test_no_rule_id_is_code_outside_its_rules_module() -> None:
    leaks = [f"{path.relative_to(ROOT)}:{line}: {text!r}"
             for path, literals in _literals().items() for line, text in literals
             if is_code(text) and (BUILT_ID.search(text) or any(home(rule_id) != path for rule_id in RULE_ID.findall(text)))]
    assert not leaks, "rule ids spelt out as code outside the rule's module (refer to the rule's class instead):\n  " + "\n  ".join(leaks)


def test_every_rule_named_in_the_sources_exists() -> None:
    """Prose (docstrings, comments, help texts, data-file comments) may name rules, but only registered ones."""
    known = {rule.id for rule in registry.all_rules()}
    files = sorted(SOURCE.rglob("*.py")) + sorted(p for pattern in _DATA_FILES for p in SOURCE.rglob(pattern))
    stale = [f"{path.relative_to(ROOT)}:{n}: {rule_id}"
             for path in files for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for rule_id in RULE_ID.findall(line) if rule_id not in known]
    assert not stale, "references to rules that do not exist:\n  " + "\n  ".join(stale)


def test_the_scan_sees_code_and_prose() -> None:
    """The scan reads what it should: the rule's own id as code, the CLI's help text naming it as prose."""
    own = [text for _, text in _literals()[home("R-GRF-000")]]
    cli = [text for _, text in _literals()[SOURCE / "cli" / "common.py"]]
    assert "R-GRF-000" in own and any("R-GRF-000" in text and "unavailable" in text and not is_code(text) for text in cli)


def test_the_code_check_tells_keys_from_sentences() -> None:
    assert is_code("R-SAF-002") and is_code(" R-SAF-002 ") and is_code("R-SAF-002, R-SAF-003") and is_code("(R-KIN-003|R-KIN-004)")
    assert not is_code("a graph slower than this counts as unavailable (R-GRF-000; default 5)")
    assert is_code("R-SAF-{}") and is_code("rule R-SAF-{}")
    assert not is_code("R-SAF") and not is_code("speed")
