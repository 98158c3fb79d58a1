"""Graph down: the verifier fails closed (FAIL, UNKNOWN, R-GRF-000), never hangs past its timeout,
and recovers by itself once the server is back.

"No hang" is enforced by pytest-timeout on each test, not by measuring time.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from graph_server import USER, FalkorServer, free_port
from plan_verifier.graph.neo4j_backend import PASSWORD_ENV, Neo4jGraph
from plan_verifier.pipeline import Verifier

pytestmark = [pytest.mark.graph_server, pytest.mark.timeout(90)]

PLAN = json.dumps([{"id": 1, "action": "move", "target": "Safe_Pos_1"}, {"id": 2, "action": "move", "target": "Pos_1"}])


def _verdict(report) -> tuple:
    return report.verdict, report.outcome, [f.rule_id for f in report.findings]


def _unavailable(report) -> str:
    assert _verdict(report) == ("FAIL", "UNKNOWN", ["R-GRF-000"])
    assert report.graph["valid"] is False
    return report.findings[0].message


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "")
    with FalkorServer(tmp_path / "falkordb") as running:
        assert running.load("weld_cell").returncode == 0
        yield running


def test_wrong_port(monkeypatch) -> None:
    monkeypatch.setenv(PASSWORD_ENV, "")
    graph = Neo4jGraph(f"bolt://127.0.0.1:{free_port()}", user=USER, timeout_s=2)
    try:
        message = _unavailable(Verifier("ur10e", graph=graph).verify(PLAN))
        assert "connection refused" in message
    finally:
        graph.close()


def test_wrong_password_and_the_password_never_shows(tmp_path, monkeypatch) -> None:
    with FalkorServer(tmp_path / "falkordb", password="s3cret-pw") as server:
        assert server.load("weld_cell").returncode == 0
        monkeypatch.setenv(PASSWORD_ENV, "not-the-password")
        graph = Neo4jGraph(server.uri, user=USER, timeout_s=2)
        try:
            report = Verifier("ur10e", graph=graph).verify(PLAN)
            message = _unavailable(report)
            assert "refused the credentials" in message and PASSWORD_ENV in message
            assert "not-the-password" not in json.dumps(report.to_dict()) + graph.describe()
        finally:
            graph.close()
        monkeypatch.setenv(PASSWORD_ENV, "s3cret-pw")
        graph = Neo4jGraph(server.uri, user=USER, timeout_s=2)
        try:
            report = Verifier("ur10e", graph=graph).verify(PLAN)
            assert _verdict(report) == ("PASS", "OK", [])
            assert "s3cret-pw" not in json.dumps(report.to_dict()) + graph.describe()
        finally:
            graph.close()


def test_server_stopped_mid_run_then_back(server) -> None:
    graph = Neo4jGraph(server.uri, user=USER, timeout_s=2)
    verifier = Verifier("ur10e", graph=graph)
    try:
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
        server.stop()
        _unavailable(verifier.verify(PLAN))
        _unavailable(verifier.verify(PLAN))
        server.start()  # same ports, same data (saved on shutdown)
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
    finally:
        graph.close()


def test_a_server_that_stops_answering_times_out_then_recovers(server) -> None:
    graph = Neo4jGraph(server.uri, user=USER, timeout_s=1.0)
    verifier = Verifier("ur10e", graph=graph)
    try:
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
        server.pause()
        try:
            report = verifier.verify(PLAN)
            _unavailable(report)
            assert report.findings[0].evidence["reason_code"] == "tool_timeout"
            assert report.reason_codes == ("tool_timeout",)
        finally:
            server.resume()
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
    finally:
        graph.close()


def test_per_step_strategy_fails_closed_too(server) -> None:
    graph = Neo4jGraph(server.uri, user=USER, timeout_s=2, strategy="per_step")
    verifier = Verifier("ur10e", graph=graph)
    try:
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
        server.stop()
        _unavailable(verifier.verify(PLAN))
        server.start()
        assert _verdict(verifier.verify(PLAN)) == ("PASS", "OK", [])
    finally:
        graph.close()


def test_cli_graph_down_is_a_rejection_without_traceback(tmp_path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(PLAN, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", "check", str(plan), "--graph-uri", f"bolt://127.0.0.1:{free_port()}",
                           "--graph-user", USER, "--graph-timeout", "2", "--format", "json"],
                          capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", PASSWORD_ENV: ""})
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert (report["verdict"], report["outcome"], report["findings"][0]["rule_id"]) == ("FAIL", "UNKNOWN", "R-GRF-000")
