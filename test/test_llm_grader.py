"""The llm grader against a real local HTTP server speaking chat completions.

Covers a good answer, the two-stage escalation, malformed answers, a slow
answer past the timeout, a refused connection and a server error; whatever
the model says or fails to say, a plan the rules rejected stays rejected.
"""

from __future__ import annotations

import json
import socket

import pytest

from chat_server import ChatServer
from conftest import FIXTURES
from plan_verifier.pipeline import Verifier
from plan_verifier.options import LLM_API_KEY_ENV, GraderOptions, VerifyOptions
from plan_verifier.semantic import prompts
from plan_verifier.semantic.llm import LlmError, parse_json_answer

INSTRUCTION = "Transfer the box from table A to table B"
GOOD_PLAN = (FIXTURES / "plans" / "transfer_box_a_to_b.tdl").read_text(encoding="utf-8")
#: Rejected by a safety rule (Z below the floor).
UNSAFE_PLAN = GOOD_PLAN.replace("PosX(400, 200, 60,", "PosX(400, 200, -50,")
assert UNSAFE_PLAN != GOOD_PLAN
#: Rejected by the deterministic semantic grader (red block asked, blue block handled).
WRONG_OBJECT = ("Move the red block from A to B", GOOD_PLAN.replace("A_Grasp_Pose", "Blue_Block_A_Pose"))

PASS_95 = json.dumps({"verdict": "PASS", "confidence": 95, "brief_reason": "Correct source A and destination B"})
PASS_99 = json.dumps({"verdict": "PASS", "confidence": 99, "brief_reason": "looks perfect"})


def _verify(server_url: str, plan: str = GOOD_PLAN, instruction: str = INSTRUCTION, timeout: float = 5.0):
    verifier = Verifier(level="FULL", options=VerifyOptions(grader=GraderOptions("llm", server_url, "test-model", timeout)))
    return verifier.verify(plan, instruction=instruction)


def _semantic(report):
    return [f for f in report.findings if f.rule_id.startswith("R-SEM")]


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_good_answer_passes_with_one_quick_request(monkeypatch) -> None:
    monkeypatch.setenv(LLM_API_KEY_ENV, "sk-test")
    with ChatServer([PASS_95]) as server:
        report = _verify(server.url)
    assert report.verdict == "PASS" and report.outcome == "OK"
    assert _semantic(report) == []
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "test-model"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    prompt = request["body"]["messages"][0]["content"]
    assert prompt == prompts.QUICK.format(natural_language=INSTRUCTION, tdl_code=GOOD_PLAN)


def test_low_confidence_asks_for_the_detailed_analysis() -> None:
    detailed = {"overall_verdict": "FAIL", "confidence": 90,
                "detailed_analysis": {"spatial_validation": {"status": "FAIL", "details": "B is reached before A"}},
                "issues_found": ["order"], "suggestions": ["Visit A first"]}
    with ChatServer([json.dumps({"verdict": "PASS", "confidence": 50, "brief_reason": "?"}), json.dumps(detailed)]) as server:
        report = _verify(server.url)
    assert len(server.requests) == 2
    assert "# Detailed Validation Requirements:" in server.requests[1]["body"]["messages"][0]["content"]
    [finding] = _semantic(report)
    assert finding.rule_id == "R-SEM-006" and finding.message == "LLM review (spatial): B is reached before A"
    assert finding.evidence["grader"] == "llm" and finding.evidence["section"] == "spatial" and finding.suggestion == "Visit A first"
    assert report.verdict == "FAIL"


@pytest.mark.parametrize(("answers", "timeout", "reason"), [
    (["The plan looks fine to me."], 5.0, "tool_output_invalid"),
    ([{"body": b"<html>Bad gateway</html>"}], 5.0, "tool_output_invalid"),
    ([json.dumps({"verdict": "MAYBE", "confidence": 70})], 5.0, "tool_output_invalid"),
    ([json.dumps({"verdict": "PASS", "confidence": 250})], 5.0, "tool_output_invalid"),
    ([{"content": PASS_95, "delay": 3.0}], 0.3, "tool_timeout"),
    ([{"body": b'{"error": "overloaded"}', "status": 500}], 5.0, "tool_failure"),
], ids=["prose", "not-json", "bad-verdict", "bad-confidence", "slow", "http-500"])
def test_no_usable_answer_leaves_the_verdict_and_makes_the_outcome_unknown(answers, timeout, reason) -> None:
    with ChatServer(answers) as server:
        report = _verify(server.url, timeout=timeout)
    assert report.verdict == "PASS" and report.approved
    assert report.outcome == "UNKNOWN"
    [finding] = _semantic(report)
    assert finding.rule_id == "R-SEM-000" and finding.severity.value == "INFO"
    assert finding.evidence["reason_code"] == reason
    assert reason in report.reason_codes


def test_refused_connection_is_a_tool_failure() -> None:
    report = _verify(_refused_url())
    [finding] = _semantic(report)
    assert finding.evidence["reason_code"] == "tool_failure" and "cannot reach" in finding.message
    assert report.verdict == "PASS" and report.outcome == "UNKNOWN"


@pytest.mark.parametrize("answers", [
    [PASS_99], ["not json at all"], [{"content": PASS_99, "delay": 3.0}], None,
], ids=["confident-pass", "malformed", "slow", "refused"])
@pytest.mark.parametrize(("instruction", "plan", "rule"), [
    (INSTRUCTION, UNSAFE_PLAN, "R-SAF-004"),
    (WRONG_OBJECT[0], WRONG_OBJECT[1], "R-SEM-001"),
], ids=["safety-rule", "rule-check"])
def test_the_model_never_approves_a_plan_the_rules_rejected(answers, instruction, plan, rule) -> None:
    if answers is None:
        report = _verify(_refused_url(), plan, instruction)
    else:
        with ChatServer(answers) as server:
            report = _verify(server.url, plan, instruction, timeout=0.3)
    assert report.verdict == "FAIL" and not report.approved
    assert rule in report.violated_constraints


@pytest.mark.parametrize(("content", "verdict"), [
    ('{"verdict": "FAIL", "confidence": 90, "brief_reason": "x"}', "FAIL"),
    ('```json\n{"verdict": "PASS", "confidence": 80}\n```', "PASS"),
    ('Sure! Here is my answer: {"verdict": "PASS", "confidence": 80} Hope this helps.', "PASS"),
])
def test_answers_are_read_through_fences_and_chatter(content: str, verdict: str) -> None:
    assert parse_json_answer(content)["verdict"] == verdict


def test_an_answer_without_an_object_is_invalid() -> None:
    with pytest.raises(LlmError) as caught:
        parse_json_answer("PASS")
    assert caught.value.reason_code == "tool_output_invalid"


def test_check_command_with_the_llm_grader(tmp_path, capsys) -> None:
    from plan_verifier.cli.main import main

    plan = tmp_path / "transfer.tdl"
    plan.write_text(GOOD_PLAN, encoding="utf-8")
    args = ["check", str(plan), "--level", "FULL", "--instruction", INSTRUCTION, "--format", "json", "--semantic-grader", "llm"]
    with ChatServer([PASS_95, "no idea"]) as server:
        assert main(args + ["--llm-url", server.url]) == 0
        assert json.loads(capsys.readouterr().out)["outcome"] == "OK"
        assert main(args + ["--llm-url", server.url]) == 0  # the second answer is malformed
        report = json.loads(capsys.readouterr().out)
    assert report["outcome"] == "UNKNOWN" and report["verdict"] == "PASS"
    assert report["findings"][0]["evidence"]["reason_code"] == "tool_output_invalid"


@pytest.mark.parametrize("extra", [[], ["--llm-url", "http://127.0.0.1:1/v1", "--llm-timeout", "0"]], ids=["no-url", "zero-timeout"])
def test_llm_grader_flags_are_checked(tmp_path, capsys, extra) -> None:
    from plan_verifier.cli.main import main

    plan = tmp_path / "transfer.tdl"
    plan.write_text(GOOD_PLAN, encoding="utf-8")
    assert main(["check", str(plan), "--level", "FULL", "--instruction", INSTRUCTION, "--semantic-grader", "llm", *extra]) == 2
    assert "plan-verify: error: --" in capsys.readouterr().err
