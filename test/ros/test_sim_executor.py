"""`sim_executor` closes the loop: approval -> simulated execution -> ~/robot_state -> the next verification's start state."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from ros_harness import STOP_S, bring_up, ros, start_node, unique, verify, wait_until  # noqa: F401

from builtin_interfaces.msg import Time
from plan_verifier_interfaces.msg import ApprovedActions, ExecutionStatus, RobotState
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory

from plan_verifier.actions import approved_yaml
from plan_verifier.graph.open import open_graph
from plan_verifier.pipeline import Verifier
from plan_verifier.ros.sim_executor import STATUS_QOS
from plan_verifier.serving.audit import read_records

pytestmark = pytest.mark.ros

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def plan(*steps: tuple) -> str:
    """A JSON step plan: ("move", target) or ("routine", routine, position[, tool])."""
    out = []
    for i, step in enumerate(steps, 1):
        if step[0] == "move":
            out.append({"id": i, "name": f"Move to {step[1]}", "action": "move", "target": step[1]})
        else:
            out.append({"id": i, "name": step[1], "action": "routine", "target": step[1], "position": step[2], **({"tool": step[3]} if len(step) > 3 else {})})
    return json.dumps({"name": "job", "steps": out})


#: Attach the Welder at its stand, then weld at Pos_1 (legal moves of config/cells/weld_cell.yaml).
WELD_JOB = plan(("move", "Tool_Weld_Safe_Position"), ("move", "Tool_Weld_Position"), ("routine", "tool_attach", "Tool_Weld_Position", "Welder"),
                ("move", "Tool_Weld_Safe_Position"), ("move", "Home"), ("move", "Safe_Pos_1"), ("move", "Pos_1"), ("routine", "tack_weld", "Pos_1"))
#: From Pos_1, fetch the Welder again as if the wrist were empty.
ASSUMES_EMPTY_WRIST = plan(("move", "Safe_Pos_1"), ("move", "Home"), ("move", "Tool_Weld_Safe_Position"), ("move", "Tool_Weld_Position"),
                           ("routine", "tool_attach", "Tool_Weld_Position", "Welder"), ("move", "Tool_Weld_Safe_Position"), ("move", "Home"),
                           ("move", "Safe_Pos_1"), ("move", "Pos_1"), ("routine", "tack_weld", "Pos_1"))
#: Weld at Pos_1 again with the Welder still in hand.
KEEPS_THE_WELDER = plan(("routine", "tack_weld", "Pos_1"))


class Executor:
    """The sim_executor node as its own process, remapped onto a verifier node's topics."""

    def __init__(self, workdir: Path, namespace: str, approved_topic: str, state_topic: str, *params: str, remaps: tuple[str, ...] = (),
                 sigint_ignored: bool = False) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.fqn = f"{namespace}/sim_executor"
        self.log_path = workdir / "executor.log"
        args = ["--ros-args", "-r", f"__ns:={namespace}", "-r", f"~/approved_actions:={approved_topic}", "-r", f"~/robot_state:={state_topic}"]
        for remap in remaps:
            args += ["-r", remap]
        for param in params:
            args += ["-p", param]
        self._log = open(self.log_path, "ab")
        command = [sys.executable, "-m", "plan_verifier.ros.sim_executor", *args]
        if sigint_ignored:  # started as a shell's background job is: SIGINT ignored, and exec keeps it so
            command = ["sh", "-c", 'trap "" INT; exec "$0" "$@"', *command]
        self.proc = subprocess.Popen(command, cwd=workdir, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> int | None:
        """SIGINT, then SIGKILL if it has not ended within STOP_S; the tests assert the clean exit, never how long it took."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(STOP_S)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self._log.close()
        return self.proc.returncode


@pytest.fixture
def executors(tmp_path):
    started: list[Executor] = []

    def start(*args, **kwargs) -> Executor:
        executor = Executor(tmp_path / f"executor{len(started)}", *args, **kwargs)
        started.append(executor)
        return executor

    yield start
    for executor in started:
        executor.stop()


def test_closed_loop_the_executed_state_is_the_next_start_state(ros, start_node, executors):  # noqa: F811
    node = start_node()
    bring_up(ros, node)
    executor = executors(node.namespace, node.service("approved_actions"), node.robot_state_topic, "time_scale:=0.01", "state_period_s:=0.2")
    status = ros.subscribe(ExecutionStatus, f"{executor.fqn}/status", STATUS_QOS)
    states = ros.subscribe(RobotState, node.robot_state_topic)
    assert wait_until(lambda: states.matching(lambda m: m.position == "Home")) and status.wait_matched(), executor.log()
    before = verify(ros, node, KEEPS_THE_WELDER, correlation_id=unique("before"))
    assert not before.approved and "R-GRF-005" in {f.rule_id for f in before.findings}  # at Home, empty wrist

    job = unique("weld-job")
    assert verify(ros, node, WELD_JOB, correlation_id=job).approved
    done = status.wait_for(lambda m: m.correlation_id == job and m.state == ExecutionStatus.STATE_SUCCEEDED, 30)
    assert (done.position, done.tool, done.step, done.step_count) == ("Pos_1", "Welder", 8, 8)
    running = status.matching(lambda m: m.correlation_id == job and m.state == ExecutionStatus.STATE_RUNNING)
    assert [m.step for m in running] == list(range(1, 9))
    assert running[2].step_name == "tool_attach" and running[2].step_duration_s == pytest.approx(1.5)
    assert running[1].message == "verified joint trajectory"  # the execution level's joint targets and durations
    assert done.planned_duration_s == pytest.approx(sum(m.step_duration_s for m in running))
    assert wait_until(lambda: states.matching(lambda m: (m.position, m.tool) == ("Pos_1", "Welder")))
    visited = [m.position for m in states.messages]
    assert visited.index("Tool_Weld_Position") < visited.index("Safe_Pos_1") < visited.index("Pos_1")

    empty_wrist = verify(ros, node, ASSUMES_EMPTY_WRIST, correlation_id=unique("empty-wrist"))
    assert not empty_wrist.approved
    assert {f.rule_id for f in empty_wrist.findings if f.severity == 2} == {"R-GRF-006"}
    keeps = unique("keeps")
    assert verify(ros, node, KEEPS_THE_WELDER, correlation_id=keeps).approved
    records = [r for path in sorted((node.workdir / "logs" / "verification").glob("verify_*.jsonl")) for r in read_records(path)]
    (record,) = [r for r in records if r["correlation_id"] == keeps]
    assert {k: record["start_state"][k] for k in ("position", "position_source", "tool", "tool_source")} == {
        "position": "Pos_1", "position_source": "robot_state", "tool": "Welder", "tool_source": "robot_state"}
    # The executor's joint states (same namespace) are the execution level's start: where the weld job left the arm.
    assert record["start_state"].get("joints_source") == "joint_states", (record, executor.log())


def _approval(plan_text: str, correlation_id: str, *, robot: str = "ur10e") -> ApprovedActions:
    """What the node would publish for `plan_text` (approved from the cell's start state, or at Pos_1 with the Welder)."""
    verifier = Verifier("ur10e", graph=open_graph(cell="weld_cell"))
    report = verifier.verify(plan_text)
    if not report.approved:
        report = verifier.verify(plan_text, start_position="Pos_1", start_tool="Welder")
    text, sha = approved_yaml(report, correlation_id=correlation_id, robot=robot, graph_fingerprint=report.cell.fingerprint)
    return ApprovedActions(correlation_id=correlation_id, robot=robot, verdict=report.verdict, actions_yaml=text, sha256=sha)


def test_changed_steps_and_other_robots_are_rejected(ros, executors):  # noqa: F811
    namespace = "/" + unique("exec")
    approvals = ros.node.create_publisher(ApprovedActions, f"{namespace}/approvals", LATCHED)
    executor = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "time_scale:=0.0")
    status = ros.subscribe(ExecutionStatus, f"{executor.fqn}/status", STATUS_QOS)
    assert wait_until(lambda: approvals.get_subscription_count() > 0) and status.wait_matched(), executor.log()
    tampered = _approval(WELD_JOB, "tampered")
    tampered.actions_yaml = tampered.actions_yaml.replace("Pos_1", "Pos_2")
    approvals.publish(tampered)
    rejected = status.wait_for(lambda m: m.correlation_id == "tampered")
    assert rejected.state == ExecutionStatus.STATE_REJECTED and "sha256" in rejected.message
    approvals.publish(_approval(KEEPS_THE_WELDER, "other-robot", robot="ur5e"))
    other = status.wait_for(lambda m: m.correlation_id == "other-robot")
    assert other.state == ExecutionStatus.STATE_REJECTED and "approved for robot ur5e" in other.message
    approvals.publish(_approval(WELD_JOB, "good"))
    assert status.wait_for(lambda m: m.correlation_id == "good" and m.state == ExecutionStatus.STATE_SUCCEEDED).tool == "Welder"
    ros.node.destroy_publisher(approvals)
    assert executor.stop() == 0, executor.log()


def test_execution_follows_the_simulation_clock(ros, executors):  # noqa: F811
    """With use_sim_time every wait and stamp is simulated time: while /clock stands still no step ends."""
    namespace = "/" + unique("simtime")
    sim = {"now_ns": 1000 * 10**9, "step_ns": 0}

    def tick() -> None:
        sim["now_ns"] += sim["step_ns"]
        clock.publish(Clock(clock=Time(sec=sim["now_ns"] // 10**9, nanosec=sim["now_ns"] % 10**9)))

    clock = ros.node.create_publisher(Clock, f"{namespace}/clock", 10)
    timer = ros.node.create_timer(0.05, tick)
    approvals = ros.node.create_publisher(ApprovedActions, f"{namespace}/approvals", LATCHED)
    try:
        executor = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "use_sim_time:=true", "time_scale:=0.1",
                             "state_period_s:=0.0", remaps=[f"/clock:={namespace}/clock"])
        status = ros.subscribe(ExecutionStatus, f"{executor.fqn}/status", STATUS_QOS)
        assert wait_until(lambda: approvals.get_subscription_count() > 0 and clock.get_subscription_count() > 0), executor.log()
        assert status.wait_matched(), executor.log()

        def on_sim_time() -> bool:  # a rejected probe's status is stamped with the executor's clock
            probe = _approval(KEEPS_THE_WELDER, unique("probe"), robot="ur5e")
            approvals.publish(probe)
            return status.wait_for(lambda m: m.correlation_id == probe.correlation_id).header.stamp.sec == 1000

        assert wait_until(on_sim_time, timeout=20, interval=0.1)
        approvals.publish(_approval(WELD_JOB, "sim-job"))
        first = status.wait_for(lambda m: m.correlation_id == "sim-job" and m.state == ExecutionStatus.STATE_RUNNING)
        assert (first.step, first.header.stamp.sec) == (1, 1000) and first.step_duration_s > 1.0
        time.sleep(1.0)  # ten times the scaled step on a wall clock; simulated time has not moved
        assert [m.state for m in status.matching(lambda m: m.correlation_id == "sim-job")] == [ExecutionStatus.STATE_ACCEPTED,
                                                                                                 ExecutionStatus.STATE_RUNNING]
        sim["step_ns"] = 10**9  # now one simulated second per tick
        done = status.wait_for(lambda m: m.correlation_id == "sim-job" and m.state == ExecutionStatus.STATE_SUCCEEDED, 60)
        stamp_s = done.header.stamp.sec + done.header.stamp.nanosec / 1e9
        assert 1000 + 0.1 * done.planned_duration_s <= stamp_s < 1000 + 3600
        assert done.elapsed_s >= 0.1 * done.planned_duration_s
    finally:
        ros.node.destroy_timer(timer)
        ros.node.destroy_publisher(clock)
        ros.node.destroy_publisher(approvals)


def test_the_executor_moves_the_verified_joints_and_fails_on_an_injected_deviation(ros, executors):  # noqa: F811
    """JointTrajectory at the job's start, JointState samples on the way, STATE_FAILED when a joint leaves its command."""
    namespace = "/" + unique("kin")
    approvals = ros.node.create_publisher(ApprovedActions, f"{namespace}/approvals", LATCHED)
    try:
        clean = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "time_scale:=0.0", "state_period_s:=0.0",
                          "trajectory_topic:=trajectory")
        joints = ros.subscribe(JointState, f"{namespace}/joint_states")
        trajectories = ros.subscribe(JointTrajectory, f"{namespace}/trajectory")
        status = ros.subscribe(ExecutionStatus, f"{clean.fqn}/status", STATUS_QOS)
        assert wait_until(lambda: approvals.get_subscription_count() > 0) and status.wait_matched(), clean.log()
        assert joints.wait_matched() and trajectories.wait_matched(), clean.log()
        approval = _approval(WELD_JOB, "kin-job")
        approvals.publish(approval)
        done = status.wait_for(lambda m: m.correlation_id == "kin-job" and m.state == ExecutionStatus.STATE_SUCCEEDED, 60)
        steps = yaml.safe_load(approval.actions_yaml)["RobotSequence"]["steps"]
        assert done.planned_duration_s == pytest.approx(sum(s.get("verified", {}).get("duration_s", 0) for s in steps) + 3.0, abs=0.01)
        trajectory = trajectories.wait_for(lambda m: True)
        assert trajectory.joint_names == ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
        last = trajectory.points[-1]
        assert last.time_from_start.sec + last.time_from_start.nanosec / 1e9 == pytest.approx(done.planned_duration_s, abs=0.01)
        target = [math.radians(v) for v in steps[6]["verified"]["joints_deg"]]  # Pos_1, the last motion
        assert wait_until(lambda: joints.messages and list(joints.messages[-1].position) == pytest.approx(target, abs=1e-6))
        assert len(joints.messages) > 20  # every publish_period_s of the job, not only the targets
        assert clean.stop() == 0, clean.log()

        # Each executor below gets the latched approval as soon as it starts, so its job may be over before this side's
        # subscription is matched: the status topic is transient local, and a subscription asking for that gets it all.
        status = ros.subscribe(ExecutionStatus, f"{clean.fqn}/status", STATUS_QOS)
        faulty = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "time_scale:=0.0", "state_period_s:=0.0",
                           "fault_joint:=2", "fault_offset_deg:=3.0", "fault_after_s:=0.5")
        assert status.wait_matched(), faulty.log()
        failed = status.wait_for(lambda m: m.correlation_id == "kin-job" and m.state == ExecutionStatus.STATE_FAILED, 60)  # the latched approval
        assert failed.message.startswith("deviation: joint 2 is 3.00° from its command") and failed.step == 1, failed.message
        assert not status.matching(lambda m: m.correlation_id == "kin-job" and m.state == ExecutionStatus.STATE_SUCCEEDED)
        assert faulty.stop() == 0, faulty.log()

        # An arm somewhere else than the approval was verified from: refused by default (max_start_offset_deg 0.5).
        status = ros.subscribe(ExecutionStatus, f"{clean.fqn}/status", STATUS_QOS)
        elsewhere = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "time_scale:=0.0",
                              "start_joints_deg:=0,-90,90,-90,-90,0")
        assert status.wait_matched(), elsewhere.log()
        refused = status.wait_for(lambda m: m.correlation_id == "kin-job" and m.state == ExecutionStatus.STATE_REJECTED, 60)
        assert "from the joints the plan was verified from" in refused.message
        assert elsewhere.stop() == 0, elsewhere.log()

        # The shoulder 30° low, the deviation check out of the way: the reached configurations hit the Welder's stand.
        verified_start = ",".join(map(str, yaml.safe_load(approval.actions_yaml)["RobotSequence"]["verification"]["start_joints_deg"]))
        status = ros.subscribe(ExecutionStatus, f"{clean.fqn}/status", STATUS_QOS)
        crash = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "time_scale:=0.0", "fault_joint:=2",
                          "fault_offset_deg:=30.0", "fault_after_s:=0.5", "deviation_tolerance_deg:=180.0",
                          f"start_joints_deg:={verified_start}", "max_start_offset_deg:=0.01")
        assert status.wait_matched(), crash.log()
        hit = status.wait_for(lambda m: m.correlation_id == "kin-job" and m.state == ExecutionStatus.STATE_FAILED, 60)
        assert hit.message.startswith("collision: ") and "ToolStand_Welder" in hit.message, hit.message
    finally:
        ros.node.destroy_publisher(approvals)


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["from-a-terminal", "as-a-background-job"])
def test_a_job_cut_short_by_shutdown_is_reported_aborted(ros, executors, sigint_ignored):  # noqa: F811
    """Simulated time that never starts (no /clock): the first step never ends; Ctrl-C reports the job ABORTED.

    Also when the executor was started with SIGINT ignored (a shell's background job, nohup): Python installs no
    Ctrl-C handler then, and before the executor set one itself a launcher's SIGINT did nothing.
    """
    namespace = "/" + unique("abort")
    approvals = ros.node.create_publisher(ApprovedActions, f"{namespace}/approvals", LATCHED)
    executor = executors(namespace, f"{namespace}/approvals", f"{namespace}/robot_state", "use_sim_time:=true",
                         remaps=(f"/clock:={namespace}/no_clock",), sigint_ignored=sigint_ignored)
    status = ros.subscribe(ExecutionStatus, f"{executor.fqn}/status", STATUS_QOS)
    try:
        assert wait_until(lambda: approvals.get_subscription_count() > 0) and status.wait_matched(), executor.log()
        approvals.publish(_approval(WELD_JOB, "cut-short"))
        status.wait_for(lambda m: m.correlation_id == "cut-short" and m.state == ExecutionStatus.STATE_RUNNING)
        assert executor.stop() == 0, executor.log()
        aborted = status.wait_for(lambda m: m.correlation_id == "cut-short" and m.state == ExecutionStatus.STATE_ABORTED)
        assert (aborted.step, aborted.position, aborted.tool) == (1, "Home", "none")
    finally:
        ros.node.destroy_publisher(approvals)
