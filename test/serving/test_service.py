"""The verification service behind the node, without ROS: what every request gets answered."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest
import yaml
from conftest import ROOT

from slow_plans import large_plan

from plan_verifier.actions import verify_actions_file
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.resources import ConfigError
from plan_verifier.serving import service as service_module
from plan_verifier.serving.audit import read_records
from plan_verifier.serving.requests import ErrorCode, VerifyRequest
from plan_verifier.serving.service import VerificationService
from plan_verifier.serving.settings import Settings

EXAMPLES = ROOT / "examples"
APPROVED = (EXAMPLES / "pick_and_place.tdl").read_text(encoding="utf-8")
REJECTED = (EXAMPLES / "pick_and_place_unsafe.tdl").read_text(encoding="utf-8")
JSON_APPROVED = (EXAMPLES / "weld_seam_1.json").read_text(encoding="utf-8")
JSON_REJECTED = (EXAMPLES / "weld_seam_5_illegal_edge.json").read_text(encoding="utf-8")


def make(tmp_path, **values) -> VerificationService:
    settings = Settings.from_values({"audit_log_dir": str(tmp_path / "logs"), "actions_output_path": str(tmp_path / "actions.yaml"), **values})
    service = VerificationService(settings)
    service.activate()
    return service


def records(tmp_path) -> list[dict]:
    return [r for path in sorted((tmp_path / "logs").glob("verify_*.jsonl")) for r in read_records(path)]


@pytest.fixture
def service(tmp_path):
    svc = make(tmp_path)
    yield svc
    svc.close()


# --------------------------------------------------------------------------- opening


@pytest.mark.parametrize("values, message", [
    ({"robot": "no_such_robot"}, "unknown robot 'no_such_robot'"),
    ({"cell": "/nonexistent/cell.yaml"}, "cell file not found"),
])
def test_unusable_configuration_is_refused_with_the_reason(tmp_path, values, message):
    with pytest.raises(ConfigError, match=message):
        make(tmp_path, **values)


def test_an_invalid_cell_file_is_refused(tmp_path):
    bad = tmp_path / "cell.yaml"
    bad.write_text("name: broken\npositions: [{name: A, role: dock}]\n")
    with pytest.raises(ConfigError, match="invalid cell file"):
        make(tmp_path, cell=str(bad))


def test_an_unusable_audit_directory_is_refused(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="audit log directory"):
        VerificationService(Settings.from_values({"audit_log_dir": str(tmp_path / "file" / "logs")}))


# --------------------------------------------------------------------------- answers


def test_approved_plan(service, tmp_path):
    published = []
    outcome = service.handle(VerifyRequest(plan=APPROVED, correlation_id="job-1"), stamp_ns=1_700_000_000_000_000_000, publish=published.append)
    assert (outcome.approved, outcome.error_code, outcome.retry_allowed, outcome.fallback) == (True, ErrorCode.NONE, False, False)
    assert outcome.attempt.number == 1 and len(outcome.sha256) == 64 and "RobotSequence" in outcome.actions_yaml
    assert (tmp_path / "actions.yaml").read_text() == outcome.actions_yaml
    assert verify_actions_file(tmp_path / "actions.yaml").ok
    block = yaml.safe_load(outcome.actions_yaml)["RobotSequence"]["verification"]
    assert (block["correlation_id"], block["sha256"], block["timestamp"], block["robot"]) == ("job-1", outcome.sha256, "2023-11-14T22:13:20.000Z", "ur10e")
    assert published == [outcome]
    (record,) = records(tmp_path)
    assert {k: record[k] for k in ("correlation_id", "step_count", "validation_result", "error_details", "attempt", "error_code")} == {
        "correlation_id": "job-1", "step_count": 15, "validation_result": "pass", "error_details": [], "attempt": 1, "error_code": "NONE"}
    assert record["report"] == outcome.report.to_dict() and record["ros_time_ns"] == 1_700_000_000_000_000_000
    assert record["actions_sha256"] == outcome.sha256 and record["request"]["plan_bytes"] == len(APPROVED.encode())
    assert "SPAWN" not in json.dumps(record)  # the plan text itself is never logged


def test_rejected_plan_counts_attempts_and_fires_the_fallback_once(service, tmp_path):
    outcomes = [service.handle(VerifyRequest(plan=REJECTED, correlation_id="job-2")) for _ in range(3)]
    assert [(o.attempt.number, o.retry_allowed, o.fallback, o.publishes_feedback) for o in outcomes] == [
        (1, True, False, True), (2, True, False, True), (3, False, True, True)]
    assert outcomes[0].feedback.splitlines()[0] == "Line 7: Z-coordinate -20mm is below ground level (z=0) (hint: Keep targets at z >= 10 mm)"
    closed = service.handle(VerifyRequest(plan=APPROVED, correlation_id="job-2"))
    assert (closed.error_code, closed.approved, closed.retry_allowed, closed.attempt) == (ErrorCode.ATTEMPTS_EXHAUSTED, False, False, None)
    assert "used up its 3 attempts" in closed.error_msg
    assert not (tmp_path / "actions.yaml").exists()
    assert [(r["attempt"], r["validation_result"], r["fallback"]) for r in records(tmp_path)] == [
        (1, "fail", False), (2, "fail", False), (3, "fail", True), (None, "error", False)]
    assert {d["rule_id"] for d in records(tmp_path)[0]["error_details"]} == {"R-SAF-002", "R-SAF-004", "R-CON-006",
                                                                                "R-COL-002"}


def test_a_bad_request_costs_no_attempt(service):
    refused = service.handle(VerifyRequest(plan=REJECTED, correlation_id="job-3", plan_format="xml"))
    assert (refused.error_code, refused.retry_allowed, refused.publishes_feedback) == (ErrorCode.BAD_REQUEST, True, False)
    assert service.handle(VerifyRequest(plan=REJECTED, correlation_id="job-3")).attempt.number == 1
    assert service.handle(VerifyRequest(plan="", correlation_id="job-3", plan_format="yaml", source="topic")).publishes_feedback


def test_plan_problems_are_reports_not_errors(service):
    for plan in ("", "x" * (5 << 20), "GOAL Main() { \ufffd\ufffd }"):
        outcome = service.handle(VerifyRequest(plan=plan))
        assert outcome.error_code is ErrorCode.NONE and outcome.report.verdict == "FAIL"


def test_json_plan_against_the_cell(service):
    approved = service.handle(VerifyRequest(plan=JSON_APPROVED, correlation_id="weld-1"))
    assert approved.approved and approved.report.plan_format == "json"
    block = yaml.safe_load(approved.actions_yaml)["RobotSequence"]
    assert block["verification"]["graph_fingerprint"] == EmbeddedGraph.from_file("weld_cell").snapshot().fingerprint
    assert len(block["steps"]) == 9
    rejected = service.handle(VerifyRequest(plan=JSON_REJECTED, correlation_id="weld-5"))
    assert not rejected.approved and "Step 6: No :ONLY_ALLOWED_MOVE_TO edge from 'Home' to 'Pos_5'" in rejected.feedback


def test_start_state_comes_from_the_request_then_the_robot_state(service, tmp_path):
    holding = service.handle(VerifyRequest(plan=JSON_APPROVED, start_position="Home", start_tool="Welder"))
    assert not holding.approved  # cannot attach the Welder while holding it
    service.observe_robot_state("Home", "Welder")
    assert not service.handle(VerifyRequest(plan=JSON_APPROVED)).approved
    assert service.handle(VerifyRequest(plan=JSON_APPROVED, start_tool="none")).approved
    sources = [r["start_state"] for r in records(tmp_path)]
    assert (sources[0]["tool_source"], sources[1]["tool_source"], sources[2]["tool_source"]) == ("request", "robot_state", "request")


def test_robot_state_database_is_read_and_an_unreadable_one_fails_closed(tmp_path):
    db = tmp_path / "robot_state.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE robot_state (current_position TEXT, current_tool TEXT)")
        conn.execute("INSERT INTO robot_state VALUES ('Home', 'Welder')")
    service = make(tmp_path, robot_state_db=str(db))
    try:
        assert not service.handle(VerifyRequest(plan=JSON_APPROVED)).approved  # the db says the Welder is held
        db.unlink()
        failed = service.handle(VerifyRequest(plan=JSON_APPROVED))
        assert (failed.error_code, failed.approved) == (ErrorCode.INTERNAL, False) and "start state unknown" in failed.error_msg
        assert service.diagnostics().level(active=True) == ("WARN", "1 internal errors since configure")
    finally:
        service.close()


def test_not_active_requests_are_refused_logged_and_published(tmp_path):
    service = make(tmp_path)
    service.deactivate(0.0)
    published = []
    outcome = service.handle(VerifyRequest(plan=APPROVED, correlation_id="late", source="topic"), publish=published.append)
    assert (outcome.error_code, outcome.retry_allowed, outcome.publishes_feedback) == (ErrorCode.NOT_ACTIVE, True, True)
    assert published == [outcome]  # the refusal of a topic request goes out on ~/feedback
    service.close()
    assert service.handle(VerifyRequest(plan=APPROVED)).error_code is ErrorCode.NOT_ACTIVE
    assert [(r["error_code"], r["decision"]) for r in records(tmp_path)] == [("NOT_ACTIVE", "not_active")]


def test_deactivate_waits_for_an_answer_being_committed(service, monkeypatch):
    monkeypatch.setattr(service_module, "CANCEL_GRACE_S", 0.2)
    entered, release = threading.Event(), threading.Event()
    results = []

    def slow_publish(outcome):
        entered.set()
        release.wait(30)

    worker = threading.Thread(target=lambda: results.append(service.handle(VerifyRequest(plan=APPROVED), publish=slow_publish)))
    worker.start()
    assert entered.wait(30)
    assert service.deactivate(0.05) is False  # still answering the admitted request: nothing to cancel, so not drained
    assert service.handle(VerifyRequest(plan=APPROVED)).error_code is ErrorCode.NOT_ACTIVE
    release.set()
    assert service.deactivate(10) is True
    worker.join(10)
    assert results[0].approved


def test_deactivate_cancels_a_verification_that_outlasts_the_drain(service, tmp_path):
    service.verify_timeout_s = 600.0
    results = []
    worker = threading.Thread(target=lambda: results.append(service.handle(VerifyRequest(plan=large_plan(), correlation_id="big"))))
    worker.start()
    assert wait_for(lambda: service.verifying == 1)
    assert service.deactivate(0.1) is True  # drained: the running verification was stopped and answered
    worker.join(10)
    (outcome,) = results
    assert (outcome.error_code, outcome.approved, outcome.attempt_number) == (ErrorCode.CANCELLED, False, 0)
    assert "drain_timeout_s (0.1 s)" in outcome.error_msg
    assert [r["decision"] for r in records(tmp_path)] == ["cancelled"]
    service.activate()
    assert wait_for(lambda: service.workers_ready == service.settings.verification_workers)
    assert service.handle(VerifyRequest(plan=APPROVED, correlation_id="big")).attempt.number == 1  # the cancelled one cost nothing


def test_a_verification_over_the_time_budget_is_too_large_and_its_worker_replaced(service, tmp_path):
    service.verify_timeout_s = 0.5
    outcome = service.handle(VerifyRequest(plan=large_plan(), correlation_id="huge"))
    assert (outcome.error_code, outcome.approved, outcome.retry_allowed) == (ErrorCode.TOO_LARGE, False, True)
    assert "verify_timeout_s (0.5 s)" in outcome.error_msg
    service.verify_timeout_s = 60.0
    assert all(service.handle(VerifyRequest(plan=APPROVED)).approved for _ in range(3))
    assert wait_for(lambda: service.workers_ready == service.settings.verification_workers)
    assert [r["decision"] for r in records(tmp_path)] == ["too_large", "approved", "approved", "approved"]


def test_an_approved_task_is_refused_with_its_approval(service, tmp_path):
    first = service.handle(VerifyRequest(plan=APPROVED, correlation_id="once"))
    again = service.handle(VerifyRequest(plan=APPROVED, correlation_id="once"))
    assert (again.error_code, again.approved, again.attempt_number, again.retry_allowed) == (ErrorCode.ALREADY_APPROVED, False, 1, False)
    assert again.sha256 == first.sha256 and again.report is None and not again.publishes_feedback
    assert [(r["decision"], r["attempt"], r["actions_sha256"]) for r in records(tmp_path)] == [
        ("approved", 1, first.sha256), ("already_approved", 1, first.sha256)]


def test_a_restarted_service_keeps_approved_and_fallback_tasks_closed(tmp_path):
    first = make(tmp_path)
    approved = first.handle(VerifyRequest(plan=APPROVED, correlation_id="approved"))
    first.handle(VerifyRequest(plan=REJECTED, correlation_id="open"))
    for _ in range(3):
        first.handle(VerifyRequest(plan=REJECTED, correlation_id="handed-over"))
    first.close()
    restarted = make(tmp_path)  # the same audit log: a node restarted after a crash, or cleaned up and configured again
    try:
        again = restarted.handle(VerifyRequest(plan=APPROVED, correlation_id="approved"))
        assert (again.error_code, again.attempt_number, again.sha256) == (ErrorCode.ALREADY_APPROVED, 1, approved.sha256)
        assert restarted.handle(VerifyRequest(plan=APPROVED, correlation_id="handed-over")).error_code is ErrorCode.ATTEMPTS_EXHAUSTED
        assert restarted.handle(VerifyRequest(plan=REJECTED, correlation_id="open")).attempt.number == 2
    finally:
        restarted.close()


def test_client_attempt_numbers_are_recorded_but_never_counted(service, tmp_path):
    answers = [service.handle(VerifyRequest(plan=REJECTED, correlation_id="claims", attempt=n)) for n in (2, 1)]
    assert [(a.attempt.number, a.fallback) for a in answers] == [(1, False), (2, False)]
    assert [r["request"]["claimed_attempt"] for r in records(tmp_path)] == [2, 1]


def test_workers_are_warmed_before_the_first_request(service, tmp_path):
    assert {"tdl", "tdl-unsafe", "tdl-unreadable", "json"} <= set(service.warm_up.labels)
    outcome = service.handle(VerifyRequest(plan=JSON_REJECTED, correlation_id="first"))
    assert outcome.verified.worker["verifications_before"] >= 4 and outcome.verified.worker["modules_loaded"] == []


def wait_for(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_a_failing_publisher_does_not_lose_the_answer(service, tmp_path):
    def broken(outcome):
        raise RuntimeError("publisher gone")

    outcome = service.handle(VerifyRequest(plan=APPROVED), publish=broken)
    assert outcome.approved and service.diagnostics().counts["publish_error"] == 1
    assert len(records(tmp_path)) == 1


def test_approved_but_undeliverable_is_an_internal_error_logged_after_the_approval(tmp_path):
    service = make(tmp_path)
    service._actions_path = tmp_path / "missing-dir" / "actions.yaml"
    try:
        outcome = service.handle(VerifyRequest(plan=APPROVED, correlation_id="nowhere"))
    finally:
        service.close()
    assert (outcome.error_code, outcome.approved) == (ErrorCode.INTERNAL, False) and "writing" in outcome.error_msg
    assert [r["validation_result"] for r in records(tmp_path)] == ["pass", "error"]


def test_concurrent_requests_are_each_answered_and_logged_once(service, tmp_path):
    plans = [(APPROVED, True), (REJECTED, False), (JSON_APPROVED, True), (JSON_REJECTED, False)]
    answers = {}

    def worker(w):
        for i in range(25):
            plan, expected = plans[(w + i) % len(plans)]
            cid = f"w{w}-{i}"
            answers[cid] = (service.handle(VerifyRequest(plan=plan, correlation_id=cid)), expected)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 200 and all(o.approved == expected and o.attempt.number == 1 for o, expected in answers.values())
    logged = records(tmp_path)
    assert sorted(r["correlation_id"] for r in logged) == sorted(answers)
    counts = service.diagnostics().counts
    assert (counts["requests"], counts["approved"], counts["rejected"]) == (200, 100, 100)


def test_live_settings(service):
    service.max_attempts = 1
    assert service.handle(VerifyRequest(plan=REJECTED)).fallback
    service.level = "BASIC"
    assert service.handle(VerifyRequest(plan=APPROVED)).report.level == "BASIC"
    assert service.handle(VerifyRequest(plan=APPROVED, level="full")).report.level == "FULL"


def test_a_request_cannot_lower_the_level(service, tmp_path):
    """A planner that asks for BASIC would skip the execution level: it gets the node's level (issue 14)."""
    assert service.level == "STANDARD"
    outcome = service.handle(VerifyRequest(plan=APPROVED, level="BASIC"))
    assert outcome.report.level == "STANDARD" and outcome.report.execution["ran"]
    assert records(tmp_path)[-1]["request"]["level"] == "STANDARD"


def test_semantic_grader_settings_reach_the_verifier(tmp_path):
    # semantic_grader=llm without an endpoint: the semantic stage cannot run, says so, and the
    # deterministic verdict stands (seed 004 §4.4); with rule_check the same request is judged.
    llm = make(tmp_path, semantic_grader="llm", llm_url="")
    outcome = llm.handle(VerifyRequest(plan=APPROVED, correlation_id="sem-1", level="FULL", instruction="Pick up the box and place it at B"))
    report = json.loads(outcome.report_json)
    assert report["outcome"] == "UNKNOWN" and "tool_failure" in report["reason_codes"]
    assert any(f["rule_id"] == "R-SEM-000" and "no llm_url" in f["message"] for f in report["findings"])
    llm.close()
    rule_check = make(tmp_path / "rc", semantic_grader="rule_check")
    judged = json.loads(rule_check.handle(VerifyRequest(plan=APPROVED, correlation_id="sem-2", level="FULL",
                                                        instruction="Pick up the box and place it at B")).report_json)
    rule_check.close()
    assert not any(f["rule_id"] == "R-SEM-000" for f in judged["findings"])


# --------------------------------------------------------------------------- repair (issue 15)

ACROSS_THE_BASE = ("GOAL Execute_Process() {\n    SPAWN MoveLinear(PosX(500, -300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n"
                   "    SPAWN MoveLinear(PosX(-500, 300, 300, 180, 0, 0), 100, 100, 0, 0) WITH WAIT;\n    SPAWN End() WITH WAIT;\n}\n")


def test_a_rejected_attempt_carries_its_verified_repair_in_the_report_json(service, tmp_path):
    """The planner's next attempt can submit the repaired plan; the node itself never runs it (nothing is approved)."""
    outcome = service.handle(VerifyRequest(plan=ACROSS_THE_BASE, correlation_id="job-r"))
    assert outcome.rejected and not outcome.actions_yaml
    repair = json.loads(outcome.report_json)["repair"]
    assert repair["verified"] and repair["edits"] and "MoveJoint" in repair["plan"]
    assert not (tmp_path / "actions.yaml").exists()
    again = service.handle(VerifyRequest(plan=repair["plan"], correlation_id="job-r", attempt=2))
    assert again.approved and "repair" not in json.loads(again.report_json)


def test_repair_rejected_switches_the_repair_off_live_and_a_retried_plan_is_repaired_once(service):
    """`repair_rejected` (a live node parameter): off, a rejection carries no repair; on again, the repair is made in a
    worker, and the same plan sent again (another task, the same inputs) gets the remembered repair unchanged."""
    service.repair_rejected = False
    plain = service.handle(VerifyRequest(plan=ACROSS_THE_BASE, correlation_id="job-off"))
    assert plain.rejected and "repair" not in json.loads(plain.report_json)
    service.repair_rejected = True
    first = service.handle(VerifyRequest(plan=ACROSS_THE_BASE, correlation_id="job-on"))
    again = service.handle(VerifyRequest(plan=ACROSS_THE_BASE, correlation_id="job-on-2"))
    assert first.repair is not None and first.repair["verified"] and again.repair == first.repair


def test_a_repair_never_turns_a_verdict_into_too_large(tmp_path):
    """The repair runs within what is left of verify_timeout_s: with a budget too short for any candidate, the rejection
    still comes back (without its repair or with what was verified in time), never ERROR_TOO_LARGE."""
    svc = make(tmp_path, verify_timeout_s=0.5)
    try:
        outcome = svc.handle(VerifyRequest(plan=ACROSS_THE_BASE, correlation_id="job-short"))
        assert outcome.error_code is ErrorCode.NONE and outcome.rejected
    finally:
        svc.close()
