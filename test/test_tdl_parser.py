"""The TDL parser: every dialect in the corpus, positions, and error recovery."""

from __future__ import annotations

import lark
import pytest

from conftest import CORPUS
from plan_verifier import catalogue as commands
from plan_verifier.findings import Category
from plan_verifier.pipeline import Verifier
from plan_verifier.rules import owner
from plan_verifier.tdl.lower import lower_tdl
from plan_verifier.tdl.grammar import grammar
from plan_verifier.tdl.parser import parse


def test_modern_lark_is_installed() -> None:
    # ros-rosidl-parser pulls lark-parser 0.12 into the same folder; bootstrap.sh reinstalls lark last.
    assert lark.__version__.startswith("1.")


def test_grammar_is_compiled_once() -> None:
    assert grammar() is grammar()


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.t*")), ids=lambda p: p.name[:40])
def test_corpus_parses_without_diagnostics(path) -> None:
    result = parse(path.read_text(encoding="utf-8"))
    assert result.items is not None
    assert result.problems == []


def test_corpus_is_crlf() -> None:
    # The corpus keeps the generators' CRLF line endings; the parser must accept them.
    assert all(b"\r\n" in p.read_bytes() for p in CORPUS.glob("*.t*"))


def test_dialects_lower_to_the_same_steps() -> None:
    named = lower_tdl(
        "GOAL Execute_Process() {\n"
        "    SPAWN MoveLinear(target_pose=PosX(400, 0, 200, 0, 180, 0), velocity=50, acceleration=50, tool=0, blending_radius=0) WITH WAIT;\n"
        "}\n"
    )
    positional = lower_tdl(
        "GOAL Execute_Process()\r\n{\r\n"
        "    SPAWN Assign(p, PosX(400, 0, 200, 0, 180, 0)) WITH WAIT;\r\n"
        "    MoveLinear(p, 50, 50, 0, 0.0, None);\r\n"
        "}"
    )
    a, b = named.steps[0], positional.steps[1]
    assert a.command == b.command == "MoveLinear"
    assert a.target.values == b.target.values == (400.0, 0.0, 200.0, 0.0, 180.0, 0.0)
    assert a.number("velocity") == b.number("velocity") == 50.0
    assert b.target.name == "p" and b.target.origin == "assign"
    assert a.spawn == "WAIT" and b.spawn is None


def test_positions_are_one_based_and_end_exclusive() -> None:
    plan = lower_tdl("GOAL A() {\n  SPAWN Delay(0.5) WITH WAIT;\n}\n")
    span = plan.steps[0].span
    assert (span.line, span.column, span.end_line, span.end_column) == (2, 3, 2, 30)


def test_header_comments_and_unicode() -> None:
    plan = lower_tdl(
        "# Generated TDL v1\n// 로봇 A\nHEADER\n  TASK_NAME: \"박스 옮기기\"\n  PAYLOAD_KG: 15.0\n  NOTE: free text, no quotes\nEND_HEADER\n"
        "GOAL Execute_Process() { SPAWN PrintLog(\"시작\") WITH WAIT; // 끝\n}\n"
    )
    assert plan.problems == ()
    assert plan.header_value("payload_kg").value == 15.0
    assert plan.header_value("NOTE").value == "free text, no quotes"
    assert plan.name == "박스 옮기기"
    assert plan.steps[0].params["message"] == "시작"


def test_main_goal_runs_called_goals_in_call_order() -> None:
    plan = lower_tdl(
        "GOAL Main_Process() { SPAWN Finalize_Process() WITH WAIT; SPAWN Initialize_Process() WITH WAIT; }\n"
        "GOAL Initialize_Process() { SPAWN Delay(1) WITH WAIT; }\n"
        "GOAL Finalize_Process() { SPAWN End() WITH WAIT; }\n"
    )
    assert [s.command for s in plan.steps] == ["End", "Delay"]
    assert [s.goal for s in plan.steps] == ["Finalize_Process", "Initialize_Process"]
    order = {g.name: g.order for g in plan.goals}
    assert order["Main_Process"] < order["Finalize_Process"] < order["Initialize_Process"]


def test_assign_is_in_effect_from_its_step_on() -> None:
    plan = lower_tdl(
        "GOAL A() {\n  MoveLinear(p, 50, 50, 0, 0);\n  Assign(p, PosX(400, 0, 200, 0, 180, 0));\n  MoveLinear(p, 50, 50, 0, 0);\n}\n"
    )
    first, second = (r for r in plan.references if r.name == "p")
    assert first.definition is None
    assert second.definition is not None and second.definition.step == 2


def test_pose_expression_keeps_both_frame_readings() -> None:
    plan = lower_tdl(
        "GOAL A() {\n  Assign(pick, PosX(-101, 199, 645, 0, 180, 0));\n"
        "  Assign(approach, pick * Trans(0, 0, 100, 0, 0, 0));\n  MoveLinear(approach, 50, 50, 0, 0);\n}\n"
    )
    target = plan.steps[2].target
    assert target.values[2] == pytest.approx(745.0)
    assert [round(r[2], 6) for r in target.readings] == [745.0, 545.0]
    assert "frame" in target.note


def test_graph_positions_count_as_defined_and_carry_their_pose() -> None:
    plan = lower_tdl("GOAL A() { MoveLinear(Pos_1, 50, 50, 0, 0); }", positions={"Pos_1": (500, -200, 150, 180, 0, 90)})
    ref = plan.references[0]
    assert ref.graph_position and ref.definition is None
    assert plan.steps[0].target.values[:3] == (500.0, -200.0, 150.0)
    assert plan.pose_sites[0].context == "graph position Pos_1"


# ---------------------------------------------------------------- error recovery


def rules_and_lines(text: str) -> list[tuple[str, int]]:
    return [(owner(p.kind).id, p.span.line) for p in parse(text).problems]


def test_every_missing_semicolon_is_reported() -> None:
    text = "GOAL A() {\n" + "".join(f"  SPAWN Delay({i}) WITH WAIT\n" for i in range(5)) + "}\n"
    assert rules_and_lines(text) == [("R-SYN-005", line) for line in range(2, 7)]


def test_errors_in_different_goals_are_all_reported() -> None:
    text = (
        "GOAL A() {\n  SPAWN Delay(1) WAIT;\n}\n"
        "GOAL B() {\n  SPAWN Delay(1,, 2) WITH WAIT;\n  SPAWN Delay(2) WITH WAIT;\n}\n"
        "DEFINE X = PosX(1, 2, 3, 4, 5, 6)\n"
        "GOAL C() {\n  SPAWN Delay(1) WITH WAIT;\n"
    )
    assert rules_and_lines(text) == [("R-SYN-005", 2), ("R-SYN-005", 5), ("R-SYN-002", 8), ("R-SYN-001", 9)]


def test_recovery_keeps_the_good_statements() -> None:
    plan = lower_tdl("GOAL A() {\n  SPAWN Delay(1) WITH WAIT\n  SPAWN Delay(2,, 3) WITH WAIT;\n  SPAWN Delay(3) WITH WAIT;\n}\n")
    assert [s.params["duration_sec"] for s in plan.steps] == [1.0, 3.0]


def test_missing_semicolon_at_end_of_input() -> None:
    assert rules_and_lines("DEFINE A = PosX(1, 2, 3, 4, 5, 6)") == [("R-SYN-002", 1)]


@pytest.mark.parametrize(
    "text",
    ["}", "{", ")", "(((", "GOAL", "GOAL A(", "SPAWN", "DEFINE", "DEFINE X =", "GOAL A() { SPAWN", "; ; ;", "HEADER",
     "GOAL A() { X(1 2 3); }", "GOAL A() { [1, 2 }", "GOAL A() {} }}}{{{", "COMMAND X(a) { y.z(; }", "\"", "'abc"],
)
def test_fragments_never_raise_and_always_report(text: str) -> None:
    result = parse(text)
    assert result.problems, text


def test_grammar_loaded_from_lark_cache_parses_the_same(tmp_path, monkeypatch) -> None:
    # The second process start loads lark's cached tables; that path must build the same scanner.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = (CORPUS / "NLTDL__tdl_transfer_20251027_075238.tdl").read_text(encoding="utf-8")
    results = []
    for _ in range(2):  # first run writes the cache, second run reads it
        grammar.cache_clear()
        tokens = parse(text).tokens
        names = {v: k for k, v in grammar().symbols.items()}
        results.append([(names[kind], value) for kind, value in zip(tokens.kinds, tokens.texts)])
    grammar.cache_clear()
    assert any(tmp_path.joinpath("plan_verifier").iterdir())
    assert results[0] == results[1] and results[0]


def test_the_command_catalogue_read_from_the_cache_is_the_validated_file(tmp_path, monkeypatch) -> None:
    """commands.yaml is validated once; later starts read the validated table (a damaged one is validated again)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    commands.catalogue.cache_clear()
    first = commands.catalogue()
    cached = next(tmp_path.joinpath("plan_verifier").glob("commands-*.json"))
    validated = commands._validated

    def refuse(text):
        raise AssertionError("validated again although the cache holds the table")

    monkeypatch.setattr(commands, "_validated", refuse)
    commands.catalogue.cache_clear()
    assert commands.catalogue() == first and "MoveLinear" in first
    cached.write_text("{damaged", encoding="utf-8")
    monkeypatch.setattr(commands, "_validated", validated)
    commands.catalogue.cache_clear()
    assert commands.catalogue() == first
    commands.catalogue.cache_clear()


def test_statement_shapes_seen_again_are_read_exactly_as_the_first_time() -> None:
    # The second sighting of a statement shape compiles it to straight-line code; the IR must not change.
    g = grammar()
    g.segments.clear()
    g.sightings.clear()
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.t*"))]
    texts.append("GOAL A() {\n  SPAWN Delay(1) WITH WAIT\n  SPAWN Delay(2,, 3) WITH WAIT;\n  SPAWN Delay(3) WITH WAIT;\n}\n")
    first = [repr(lower_tdl(text)) for text in texts]
    assert any(g.segments.values()), "no statement shape was compiled"
    assert [repr(lower_tdl(text)) for text in texts] == first


def test_a_comment_is_never_given_back_to_make_a_token() -> None:
    """The scanner skips comments possessively: text ending in a comment, or a comment just before a
    bad character, yields no token made of the comment's last letters (a false R-SYN-005 before)."""
    program = "GOAL Execute_Process() { SPAWN MoveLinear(PosX(300, 200, 50), 100, 50, 0, 0) WITH WAIT; }  // Only 3 parameters"
    syntax = [f for f in Verifier(level="BASIC").verify(program).findings if f.category is Category.SYNTAX]
    assert [f.rule_id for f in syntax] == ["R-SYN-004"]
    defined = Verifier(level="BASIC").verify("DEFINE Bad_Pose = PosX(0, 0, 150)  // Missing semicolon\n").findings
    assert "missing ';' after the DEFINE statement" in " ".join(f.message for f in defined)
    bad = Verifier(level="BASIC").verify("GOAL A() {\n  // a comment\n@ End();\n}\n").findings
    assert [(f.rule_id, f.span.line, f.span.column) for f in bad if f.category is Category.SYNTAX] == [("R-SYN-009", 3, 1)]
