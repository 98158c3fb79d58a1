"""Record the live node with `plan-verify record`, replay the bag offline and live (`replay --live`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from ros_harness import NodeProcess, bring_up, example, ros, verify, wait_until  # noqa: F401

from plan_verifier_interfaces.msg import ApprovedActions, PlanRequest, RobotState, VerificationFeedback
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from plan_verifier.replay import interfaces as itf
from plan_verifier.replay.bag import read_bag
from plan_verifier.replay.traffic import read_traffic

pytestmark = pytest.mark.ros

ROOT = Path(__file__).resolve().parents[2]
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
INTROSPECTION = {"service_introspection": "contents"}
#: What the traffic below is answered with, in order.
STATUSES = ["PASS", "FAIL", "PASS", "FAIL", "FAIL", "FAIL", "ATTEMPTS_EXHAUSTED", "PASS", "BAD_REQUEST", "PASS", "PASS"]
WELD_AT_POS_1 = json.dumps({"name": "Tack weld at Pos_1", "steps": [
    {"id": 1, "name": "Tack Weld at Pos_1", "action": "routine", "target": "tack_weld", "position": "Pos_1", "stabilize": 1.5}]})


def plan_verify(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "plan_verifier.cli.main", *args], capture_output=True, text=True, timeout=timeout)


class Recorder:
    """`plan-verify record` as a process (its progress lines collected), stopped with Ctrl-C."""

    def __init__(self, bag: Path, node: NodeProcess) -> None:
        self.bag = bag
        self.lines: list[str] = []
        self.proc = subprocess.Popen([sys.executable, "-m", "plan_verifier.cli.main", "record", str(bag), "--node", node.fqn,
                                      "--robot-state-topic", node.robot_state_topic], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=lambda: self.lines.extend(iter(self.proc.stderr.readline, "")), daemon=True)
        self._reader.start()

    def found(self, topic: str) -> bool:
        """The recorder matched the node's publisher of `topic` (so nothing it publishes from now on is missed)."""
        return f"  {topic}: publisher found\n" in self.lines

    def settled(self, quiet: float = 1.5, timeout: float = 30.0) -> bool:
        """No new message recorded for `quiet` seconds: the last answers have reached the bag (a fixed sleep does not
        survive a loaded machine)."""
        deadline = time.monotonic() + timeout
        last, since = len(self.lines), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            if len(self.lines) != last:
                last, since = len(self.lines), time.monotonic()
            elif time.monotonic() - since >= quiet:
                return True
        return False

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        self._reader.join(5)
        assert self.proc.returncode == 0, "".join(self.lines)
        return "".join(self.lines)


def drive(ros, node: NodeProcess) -> None:  # noqa: F811
    """The standard traffic through the live node: topic requests, service calls, a robot state; one answer at a time."""
    requests = ros.node.create_publisher(PlanRequest, node.service("plan_requests"), 100)
    states = ros.node.create_publisher(RobotState, node.robot_state_topic, 10)
    feedback = ros.subscribe(VerificationFeedback, node.service("feedback"))
    approved = ros.subscribe(ApprovedActions, node.service("approved_actions"), LATCHED)
    assert wait_until(lambda: requests.get_subscription_count() >= 2 and states.get_subscription_count() >= 2)
    assert feedback.wait_matched() and approved.wait_matched()
    answers = [0]

    def publish(plan: str, **fields) -> None:
        seen = len(feedback.messages) + len(approved.messages)
        requests.publish(PlanRequest(plan=plan, **fields))
        assert wait_until(lambda: len(feedback.messages) + len(approved.messages) > seen)
        answers[0] += 1

    publish(example("weld_seam_1.json"), correlation_id="weld-1")
    publish(example("weld_seam_5_illegal_edge.json"), correlation_id="weld-5")
    publish(example("weld_seam_5_repaired.json"), correlation_id="weld-5")
    for _ in range(4):
        verify(ros, node, example("pick_and_place_unsafe.tdl"), correlation_id="unsafe")
    verify(ros, node, example("pick_and_place.tdl"), correlation_id="pick")
    publish(example("pick_and_place.tdl"), correlation_id="bad-level", level="EXTREME")
    publish(example("pick_and_place.tdl"))
    for _ in range(5):  # the node's robot-state subscription is best effort and has no acknowledgement:
        states.publish(RobotState(position="Pos_1", tool="Welder"))  # a loaded machine may drop one message
        time.sleep(0.1)
    time.sleep(0.5)
    publish(WELD_AT_POS_1, correlation_id="from-state")
    ros.node.destroy_publisher(requests)
    ros.node.destroy_publisher(states)


@pytest.fixture(scope="module")
def recording(ros, tmp_path_factory):  # noqa: F811
    """A bag recorded from a live node (with service introspection) by `plan-verify record`, and what the node offered."""
    workdir = tmp_path_factory.mktemp("recording")
    node = NodeProcess(workdir / "node", INTROSPECTION).start()
    try:
        bring_up(ros, node)
        recorder = Recorder(workdir / "bag", node)
        service_events = node.service("verify/_service_event")
        outputs = [node.service(name) for name in ("feedback", "fallback", "approved_actions")] + [service_events]
        assert wait_until(lambda: all(recorder.found(topic) for topic in outputs)), recorder.lines
        publishers = dict(ros.node.get_publisher_names_and_types_by_node("plan_verifier", node.namespace))
        subscriptions = dict(ros.node.get_subscriber_names_and_types_by_node("plan_verifier", node.namespace))
        hashes = {topic: str(ros.node.get_publishers_info_by_topic(topic)[0].topic_type_hash)
                  for topic in (node.service("feedback"), node.service("approved_actions"), service_events)}
        drive(ros, node)
        assert recorder.settled(), recorder.lines
        err = recorder.stop()
    finally:
        node.stop()  # stopped: the live replay starts a fresh node under the same name
    return {"bag": workdir / "bag", "node": node, "publishers": publishers, "subscriptions": subscriptions, "hashes": hashes, "stderr": err}


def test_record_writes_the_topics_and_types_the_node_uses(recording):
    node = recording["node"]
    contents = read_bag(recording["bag"])
    topics = contents.topics
    assert topics.node == node.fqn and contents.robot_state_topic == node.robot_state_topic
    expected = {topics.feedback: itf.FEEDBACK, topics.fallback: itf.FEEDBACK, topics.approved_actions: itf.APPROVED,
                topics.service_events: itf.VERIFY_EVENT}
    for topic, typename in expected.items():  # what the node publishes, under the names and types it publishes them
        assert recording["publishers"][topic] == [typename], topic
    assert recording["subscriptions"][topics.plan_requests] == [itf.PLAN_REQUEST]
    assert recording["subscriptions"][node.robot_state_topic] == [itf.ROBOT_STATE]
    for topic, ros_hash in recording["hashes"].items():
        assert ros_hash == itf.type_hash(expected[topic])
    assert "wrote" in recording["stderr"]


def test_recorded_traffic_replays_offline_without_regressions(recording):
    traffic = read_traffic(read_bag(recording["bag"]))
    assert [r.answer.status if r.answer else None for r in traffic.requests] == STATUSES
    done = plan_verify("replay", str(recording["bag"]), "--cell", "weld_cell", "--format", "json")
    assert done.returncode == 0, done.stderr + done.stdout
    document = json.loads(done.stdout)
    assert document["summary"]["same"] == len(STATUSES) and document["summary"]["verdict"] == 0
    assert document["notes"] == []


def test_a_cell_without_an_edge_changes_exactly_the_plan_that_used_it(recording, tmp_path):
    cell = yaml.safe_load((ROOT / "config" / "cells" / "weld_cell.yaml").read_text())
    cell["moves"] = [m for m in cell["moves"] if m != ["Safe_Pos_1", "Pos_1"]]
    (tmp_path / "cut.yaml").write_text(yaml.safe_dump(cell))
    done = plan_verify("replay", str(recording["bag"]), "--cell", str(tmp_path / "cut.yaml"), "--format", "json")
    assert done.returncode == 1, done.stderr
    changes = {t["correlation_id"]: [(r["before"]["status"], r["now"]["status"]) for r in t["requests"] if r["change"] == "verdict"]
               for t in json.loads(done.stdout)["tasks"] if t["change"] == "verdict"}
    assert changes == {"weld-1": [("PASS", "FAIL")]}


def test_a_tighter_velocity_limit_changes_exactly_the_fast_programs(recording, tmp_path):
    spec = yaml.safe_load((ROOT / "config" / "robots" / "ur10e.yaml").read_text())
    spec["limits"] = {"velocity_mm_s": {"min": 10, "max": 150, "recommended_min": 50, "recommended_max": 100}}
    (tmp_path / "slow.yaml").write_text(yaml.safe_dump(spec))
    done = plan_verify("replay", str(recording["bag"]), "--cell", "weld_cell", "--robot", str(tmp_path / "slow.yaml"), "--format", "json")
    assert done.returncode == 1, done.stderr
    tasks = json.loads(done.stdout)["tasks"]
    changed = sorted(t["correlation_id"] for t in tasks if t["change"] == "verdict")
    generated = tasks[5]["correlation_id"]
    assert changed == sorted(["pick", generated]) and len(generated) == 32


@pytest.mark.parametrize("pacing", [(), ("--rate", "50")], ids=["recorded-pacing", "rate"])
def test_live_replay_reproduces_the_recorded_outputs(ros, recording, tmp_path, pacing):  # noqa: F811
    """A fresh node under the recorded name gets the recorded requests and answers them message for message.

    At a fixed rate a robot state is sent as soon as the requests before it are answered, so the new bag
    must stamp it after those answers (it once took the stamp before waiting, and the offline replay of the
    new bag then verified an earlier request from the later state)."""
    first = recording["node"]
    node = NodeProcess(tmp_path / "node", INTROSPECTION)
    node.namespace, node.fqn, node.robot_state_topic = first.namespace, first.fqn, first.robot_state_topic
    node.start()
    try:
        bring_up(ros, node)
        done = plan_verify("replay", "--live", str(recording["bag"]), "--output", str(tmp_path / "live"), "--storage", "mcap", *pacing)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "message for message" in done.stdout and "note:" not in done.stdout
        offline = plan_verify("replay", str(tmp_path / "live"), "--cell", "weld_cell")
        assert offline.returncode == 0, offline.stdout + offline.stderr  # the new bag is a recording in its own right
    finally:
        node.stop()


def test_live_replay_without_a_node_is_a_one_line_error(recording, tmp_path):
    done = plan_verify("replay", "--live", str(recording["bag"]), "--output", str(tmp_path / "none"), "--timeout", "2")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "running and configured?" in done.stderr
    assert not (tmp_path / "none").exists()  # no half-made bag left behind
