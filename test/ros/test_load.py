"""Load and crash behaviour of the node process (slow: run in CI, not while iterating)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from ros_harness import NodeProcess, bring_up, example, ros, start_node, verify, wait_until  # noqa: F401

from plan_verifier.serving.audit import read_records

pytestmark = [pytest.mark.ros, pytest.mark.slow]

CLIENTS, REQUESTS = 8, 250
CLIENT_SCRIPT = Path(__file__).with_name("load_client.py")
MIXED = [
    {"plan": example("pick_and_place.tdl"), "approved": True},
    {"plan": example("pick_and_place_unsafe.tdl"), "approved": False},
    {"plan": example("weld_seam_1.json"), "approved": True},
    {"plan": example("weld_seam_5_illegal_edge.json"), "approved": False},
]


def run_clients(node: NodeProcess, plans: list[dict], tmp_path: Path, clients: int, requests: int) -> list[subprocess.Popen]:
    plans_file = tmp_path / "plans.json"
    plans_file.write_text(json.dumps(plans), encoding="utf-8")
    return [subprocess.Popen([sys.executable, str(CLIENT_SCRIPT), node.service("verify"), str(i), str(requests), str(plans_file)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
            for i in range(clients)]


def audit_lines(node: NodeProcess) -> list[bytes]:
    return [line for path in sorted((node.workdir / "logs" / "verification").glob("verify_*.jsonl")) for line in path.read_bytes().split(b"\n")]


def test_eight_clients_times_250_mixed_requests_are_each_answered_once_and_logged_once(ros, start_node, tmp_path):  # noqa: F811
    node = start_node()
    bring_up(ros, node)
    procs = run_clients(node, MIXED, tmp_path, CLIENTS, REQUESTS)
    answers = []
    try:
        for proc in procs:
            out, _ = proc.communicate(timeout=900)
            assert proc.returncode == 0, out[-2000:]
            answers += [json.loads(line) for line in out.splitlines()]
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert len(answers) == CLIENTS * REQUESTS
    assert Counter(a["cid"] for a in answers).most_common(1)[0][1] == 1
    assert all(a["answer_cid"] == a["cid"] and a["error_code"] == 0 for a in answers)
    wrong = [a for a in answers if a["approved"] != a["expected"]]
    assert not wrong, wrong[:3]

    lines = audit_lines(node)
    complete = [json.loads(line) for line in lines if line]
    assert len(complete) == CLIENTS * REQUESTS and lines[-1] == b""
    assert sorted(r["correlation_id"] for r in complete) == sorted(a["cid"] for a in answers)
    expected = {a["cid"]: a["expected"] for a in answers}
    assert all((r["validation_result"] == "pass") == expected[r["correlation_id"]] for r in complete)

    assert node.stop() == 0
    assert not node.group_alive() and all(p.poll() is not None for p in procs)


def test_kill_9_during_heavy_logging_leaves_every_complete_line_parseable(ros, start_node, tmp_path):  # noqa: F811
    node = start_node({"verify_timeout_s": 600.0})  # each verification takes seconds (4 clients, 2 workers): no budget cut here
    bring_up(ros, node)
    # 3,000 violations per plan: every audit record is a large line (about 1.5 MB).
    heavy = "GOAL Execute_Process() {\n" + "".join(
        f"    SPAWN MoveLinear(target_pose=PosX(400, 0, {100 + i % 50}, 180, 0, 90), velocity=1500, acceleration=900, tool=0, blending_radius=0) WITH WAIT;\n"
        for i in range(3000)) + "}\n"
    procs = run_clients(node, [{"plan": heavy, "approved": False}], tmp_path, 4, 1000)
    try:
        assert wait_until(lambda: sum(1 for line in audit_lines(node) if line) >= 6, timeout=240), node.log()[-2000:]
        node.kill9()
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
    lines = audit_lines(node)
    complete, tail = lines[:-1], lines[-1]
    assert len(complete) >= 6
    assert all(json.loads(line)["validation_result"] == "fail" for line in complete)

    restarted = NodeProcess(node.workdir, {"autostart": True}).start()
    try:
        assert wait_until(lambda: "active: serving" in restarted.log(), 30), restarted.log()
        assert verify(ros, restarted, example("pick_and_place.tdl"), correlation_id="after-crash").approved
        (path,) = (node.workdir / "logs" / "verification").glob("verify_*.jsonl")
        records = read_records(path)
        assert path.read_bytes().endswith(b"\n") and all(json.loads(line) for line in path.read_bytes().splitlines())
        # An incomplete tail (a record cut by the kill) was dropped; the new record starts on its own line.
        assert len(records) == len(complete) + 1 and records[-1]["correlation_id"] == "after-crash"
        assert (restarted.log().count("incomplete") > 0) == (tail != b"")
    finally:
        restarted.stop()
