"""`sim_executor`: a kinematic simulator that runs approved plans and reports the robot state, closing the loop without a robot.

~/approved_actions (ApprovedActions, reliable + transient local: a late
executor still gets the last approval) -> check the sha256 (and the robot)
-> walk the steps (`plan_verifier.executor`), waiting out each step's
duration on the node clock -> ~/robot_state (RobotState after every step and
every `state_period_s`) and ~/status (ExecutionStatus). Jobs run one after
the other in arrival order. With `use_sim_time` every wait and stamp follows
/clock, so a simulator's clock paces the execution; `time_scale` shortens
(or stretches) the simulated durations.

Kinematics (`executor.kinematic`): steps approved with the execution level
carry their verified joint targets and durations; the job is sent as one
trajectory_msgs/JointTrajectory on `trajectory_topic` (what a
joint_trajectory_controller takes), then followed every `publish_period_s`
(simulated seconds), each reached configuration published as
sensor_msgs/JointState on `joint_states_topic` (what robot_state_publisher,
RViz and the verifier's start read) and checked: a deviation from the
command beyond `deviation_tolerance_deg` (inject one with `fault_joint`,
`fault_offset_deg`, `fault_after_s`) or a collision of the reached
configuration with the cell or the robot itself ends the job as
STATE_FAILED on ~/status. Between jobs the joints are republished every
`state_period_s`. A job verified from other joints than the arm's (further
than `max_start_offset_deg`) is refused (STATE_REJECTED): its first motion was
never checked from here. Without `start_joints_deg` the arm starts where the
verifier starts without the robot's joints (`executor.kinematic.verified_start`).

Remap the topics onto the verifier's: `-r '~/approved_actions:=/plan_verifier/approved_actions'
-r '~/robot_state:=/robot_state'` (what the verifier's launch file subscribes to; quoted, or the
shell expands `~`).

Run: `ros2 run plan_verifier sim_executor --ros-args -r ...` or
`python -m plan_verifier.ros.sim_executor --ros-args -r ...`.
"""

from __future__ import annotations

import math
import queue
import signal
import sys
import threading
from typing import Any

import rclpy
from builtin_interfaces.msg import Time
from plan_verifier_interfaces.msg import ApprovedActions, ExecutionStatus, RobotState
from builtin_interfaces.msg import Duration as DurationMsg
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.duration import Duration
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import Header
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from plan_verifier.executor.job import Job, JobRejected, RobotPose, Segment, Timing, check_approval, prepare_job, start_pose
from plan_verifier.executor.kinematic import (DEVIATION_TOLERANCE_DEG, MAX_START_OFFSET_DEG, Fault, Follower, Sample, check_start,
                                              contacts_for, job_points, sample_times, verified_start)
from plan_verifier.executor.runner import ABORTED, FINISHED, STARTED, SUCCEEDED, Progress, run_job
from plan_verifier.graph.embedded import EmbeddedGraph
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import load_robot
from plan_verifier.ros import qos

NODE_NAME = "sim_executor"
#: Reliable, so that no step of the robot state is lost on the way to a reliable subscriber; the verifier's is best effort.
STATE_QOS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
#: Transient local, as a ROS 2 action's status topic: a monitor that subscribes after a job started (or ended: a latched
#: approval starts the job as the executor starts) still gets its last statuses; a volatile subscriber still matches.
STATUS_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: (name, default, description, lower bound) of the numeric parameters.
_NUMBERS = (
    ("time_scale", 1.0, "Simulated durations are multiplied by this (0.01 runs a job 100 times faster; 0 = no waiting).", 0.0),
    ("velocity_mm_s", 250.0, "Cartesian speed of moves whose step gives none.", 1e-3),
    ("joint_velocity_deg_s", 60.0, "Joint speed of joint moves whose step gives none.", 1e-3),
    ("move_s", 2.0, "Duration of a move whose start or end pose is unknown.", 0.0),
    ("stabilize_s", 0.0, "Duration of a routine without a stabilize time (step or cell).", 0.0),
    ("command_s", 0.0, "Duration of other commands (I/O, settings).", 0.0),
    ("state_period_s", 0.5, "Republish ~/robot_state and the joint states this often (0 = only after steps); late subscribers get the state.", 0.0),
    ("publish_period_s", 0.05, "Simulated seconds between two joint-state samples of a running job (each is checked).", 1e-3),
    ("deviation_tolerance_deg", DEVIATION_TOLERANCE_DEG, "A reached joint further than this from its command fails the job.", 0.0),
    ("fault_offset_deg", 0.0, "Injected fault: joint fault_joint reaches its command plus this (0 = no fault).", -360.0),
    ("fault_after_s", 0.0, "Injected fault: from this many simulated seconds into each job.", 0.0),
    ("max_start_offset_deg", MAX_START_OFFSET_DEG, "Reject a job when the arm is further than this (any joint) from the joints its "
     "verification started at (verification.start_joints_deg); 0 = not checked.", 0.0),
)
#: (name, default, description, lower, upper) of the integer parameters.
_INTEGERS = (
    ("fault_joint", 0, "Injected fault: the joint (1-based) that is fault_offset_deg off its command; 0 = none.", 0, 32),
)
_TEXTS = (
    ("robot", "ur10e", "Robot spec (name or path): approvals for other robots are rejected; PosJ targets use its kinematics. Empty = no check."),
    ("cell", "weld_cell", "Cell file (name or path): poses of named positions, stabilize times, tool stands. Empty = none."),
    ("start_position", "", "Where the robot starts; empty = the cell's initial state (else Home)."),
    ("start_tool", "", "The tool it starts with; empty = the cell's initial state (else none)."),
    ("start_joints_deg", "", "Its joints at start, degrees comma-separated; empty = where the verifier assumes the robot is at the "
     "start position without its joints (the position's taught joints, else its IK solution nearest to home_joints_deg that "
     "touches nothing), else the robot spec's home_joints_deg."),
    ("joint_names", "", "Joint names in JointState/JointTrajectory, comma-separated in the spec's order; empty = each spec "
                       "joint's ros_name (the vendor description's, what a joint_trajectory_controller expects), else its name."),
    ("joint_states_topic", "joint_states", "sensor_msgs/JointState out: the simulated joints (relative: /joint_states in the root namespace)."),
    ("trajectory_topic", "~/joint_trajectory", "trajectory_msgs/JointTrajectory out: each job's whole trajectory, at its start."),
)
_STATE = {STARTED: ExecutionStatus.STATE_RUNNING, SUCCEEDED: ExecutionStatus.STATE_SUCCEEDED, ABORTED: ExecutionStatus.STATE_ABORTED}


class SimExecutor(Node):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NODE_NAME, **kwargs)
        for name, default, description in _TEXTS:
            self.declare_parameter(name, default, ParameterDescriptor(description=description, read_only=True))
        for name, default, description, low in _NUMBERS:
            self.declare_parameter(name, default, ParameterDescriptor(
                description=description, read_only=True, floating_point_range=[FloatingPointRange(from_value=low, to_value=1e6)]))
        for name, default, description, low, high in _INTEGERS:
            self.declare_parameter(name, default, ParameterDescriptor(
                description=description, read_only=True, integer_range=[IntegerRange(from_value=low, to_value=high, step=1)]))
        value = lambda name: self.get_parameter(name).value  # noqa: E731
        self._robot = load_robot(value("robot")) if value("robot").strip() else None
        self._cell = EmbeddedGraph.from_file(value("cell")).snapshot() if value("cell").strip() else None
        self._timing = Timing(value("velocity_mm_s"), value("joint_velocity_deg_s"), value("move_s"), value("stabilize_s"), value("command_s"))
        self._scale = float(value("time_scale"))
        self._state = start_pose(self._cell, value("start_position").strip() or None, value("start_tool").strip() or None)
        self._joint_names = _names(value("joint_names")) or ([j.ros_name or j.name for j in self._robot.joints] if self._robot else [])
        self._joints = _start_joints(value("start_joints_deg"), self._robot, self._cell, self._state)
        self._contacts = contacts_for(self._robot, self._cell)
        self._fault = Fault(value("fault_joint"), float(value("fault_offset_deg")), float(value("fault_after_s")))
        if self._joints is not None and self._fault.joint > len(self._joints):
            raise ParameterException(f"fault_joint must be 0..{len(self._joints)}", ["fault_joint"])
        self._tolerance = float(value("deviation_tolerance_deg"))
        self._period = float(value("publish_period_s"))
        self._max_start_offset = float(value("max_start_offset_deg"))
        self._follower: Follower | None = None  # the job's trajectory, while one runs (the job thread's)
        self._segment: Segment | None = None
        self._failure: Sample | None = None
        self._state_lock = threading.Lock()
        self._jobs: queue.Queue[ApprovedActions | None] = queue.Queue()
        self._running: tuple[Progress, Job, Any] | None = None  # the step under way, for abort()
        self._state_pub = self.create_publisher(RobotState, "~/robot_state", STATE_QOS)
        self._status_pub = self.create_publisher(ExecutionStatus, "~/status", STATUS_QOS)
        self._joints_pub = self.create_publisher(JointState, value("joint_states_topic"), STATE_QOS)
        self._trajectory_pub = self.create_publisher(JointTrajectory, value("trajectory_topic"), STATE_QOS)
        self.create_subscription(ApprovedActions, "~/approved_actions", self._on_approved, qos.APPROVED)
        if value("state_period_s") > 0:
            self.create_timer(value("state_period_s"), self._publish_state)
        self._worker = threading.Thread(target=self._work, name="sim_executor_jobs", daemon=True)
        self._worker.start()
        self._publish_state()
        where = f"cell {self._cell.name}" if self._cell is not None else "no cell"
        self.get_logger().info(f"ready: robot {self._robot.name if self._robot else '(any)'}, {where}, at {self._state.position} "
                               f"holding {self._state.tool}, time_scale {self._scale:g}")

    # ------------------------------------------------------------------ inputs
    def _on_approved(self, msg: ApprovedActions) -> None:
        try:
            check_approval(msg.actions_yaml, sha256=msg.sha256, robot=self._robot)
        except JobRejected as exc:
            self.get_logger().error(f"approval {msg.correlation_id!r} rejected: {exc}")
            self._status(ExecutionStatus.STATE_REJECTED, msg.correlation_id, msg.sha256, message=str(exc))
            return
        self._status(ExecutionStatus.STATE_ACCEPTED, msg.correlation_id, msg.sha256, message=f"queued behind {self._jobs.qsize()} waiting jobs")
        self._jobs.put(msg)

    def abort(self) -> None:
        """Report the job that is running as ABORTED (at shutdown, while the context still works)."""
        with self._state_lock:
            running, self._running = self._running, None
        if running is not None and self.context.ok():
            progress, job, began = running
            self.get_logger().warning(f"aborted {job.correlation_id!r} during step {progress.segment.step} of {len(job.segments)}")
            self._report(ExecutionStatus.STATE_ABORTED, progress, job, began, "the executor shut down during this step")
            self._status_pub.wait_for_all_acked(Duration(seconds=1.0))

    def stop(self, timeout: float = 5.0) -> None:
        """End the job thread (after the context is shut down, a job waiting on the clock wakes and ends)."""
        self._jobs.put(None)
        self._worker.join(timeout)

    # ------------------------------------------------------------------ the job thread
    def _work(self) -> None:
        while True:
            msg = self._jobs.get()
            if msg is None or not self.context.ok():
                return
            with self._state_lock:
                state = self._state
            try:
                job = prepare_job(msg.actions_yaml, sha256=msg.sha256, correlation_id=msg.correlation_id, start=state,
                                  cell=self._cell, robot=self._robot, timing=self._timing)
            except JobRejected as exc:
                self._status(ExecutionStatus.STATE_REJECTED, msg.correlation_id, msg.sha256, message=str(exc))
                continue
            with self._state_lock:
                joints = self._joints
            try:
                check_start(job, joints, self._max_start_offset)
            except JobRejected as exc:
                self._status(ExecutionStatus.STATE_REJECTED, msg.correlation_id, msg.sha256, message=str(exc))
                continue
            self.get_logger().info(f"running {msg.correlation_id!r}: {len(job.segments)} steps, {job.duration_s:.2f} s simulated")
            began = self.get_clock().now()
            self._failure = None
            self._follower = Follower(job, joints, self._contacts, fault=self._fault, tolerance_deg=self._tolerance) if joints else None
            if self._follower is not None and any(s.points for s in job.segments):
                self._publish_trajectory(job, joints)
            run_job(job, state, sleep=self._follow, report=lambda p, job=job, began=began: self._on_progress(p, job, began))
            self._follower = None

    def _follow(self, seconds: float) -> bool:
        """Wait out the current step, sampling, publishing and checking its joints every publish_period_s."""
        follower, segment = self._follower, self._segment
        if follower is None or segment is None:
            return self._sleep(seconds)
        last = 0.0
        for t in sample_times(seconds, self._period):
            if not self._sleep(t - last):
                return False
            last = t
            sample = follower.sample(segment, t)
            self._publish_joints(sample.reached_deg)
            if sample.failure is not None:
                self._failure = sample
                with self._state_lock:
                    self._joints = sample.reached_deg  # where the arm stopped
                return False
        follower.end(segment)
        with self._state_lock:
            self._joints = tuple(float(v) for v in follower.position)
        return True

    def _sleep(self, seconds: float) -> bool:
        if seconds * self._scale <= 0:
            return self.context.ok()
        try:
            return self.get_clock().sleep_for(Duration(nanoseconds=int(seconds * self._scale * 1e9)), context=self.context)
        except Exception:  # noqa: BLE001 - the context went away during the wait (shutdown)
            return False

    def _on_progress(self, progress: Progress, job: Job, began: Any) -> None:
        if not self.context.ok():
            return
        if progress.event == FINISHED:
            with self._state_lock:
                self._state = progress.state
            self._publish_state()
            return
        with self._state_lock:
            if progress.event == STARTED:
                self._running = (progress, job, began)
                self._segment = progress.segment
            else:
                running, self._running = self._running, None
                if progress.event == ABORTED and running is None:
                    return  # abort() has reported it
        failure = self._failure if progress.event == ABORTED else None
        if failure is not None:
            self.get_logger().error(f"failed {job.correlation_id!r} at step {progress.segment.step}: {failure.failure}")
            self._report(ExecutionStatus.STATE_FAILED, progress, job, began,
                         f"{failure.failure} ({failure.t_s:.2f} s into the step; reached {_degrees(failure.reached_deg)}, "
                         f"commanded {_degrees(failure.commanded_deg)})")
            return
        self._report(_STATE[progress.event], progress, job, began, progress.segment.how if progress.event == STARTED else "")
        if progress.event == SUCCEEDED:
            self.get_logger().info(f"done {job.correlation_id!r}: at {progress.state.position} holding {progress.state.tool}")

    def _report(self, state_code: int, progress: Progress, job: Job, began: Any, message: str) -> None:
        segment = progress.segment
        self._status(state_code, job.correlation_id, job.sha256, step=segment.step if segment else 0, step_count=len(job.segments),
                     step_name=segment.name if segment else "", step_duration_s=segment.duration_s if segment else 0.0,
                     planned_duration_s=job.duration_s, elapsed_s=(self.get_clock().now() - began).nanoseconds / 1e9,
                     state=progress.state, message=message)

    # ------------------------------------------------------------------ outputs
    def _stamp(self) -> Time:
        return self.get_clock().now().to_msg()

    def _publish_state(self) -> None:
        with self._state_lock:
            state, joints, running = self._state, self._joints, self._follower is not None
        if self.context.ok():
            self._state_pub.publish(RobotState(header=Header(stamp=self._stamp()), position=state.position, tool=state.tool))
            if joints and not running:  # while a job runs, its samples are the joint states
                self._publish_joints(joints)

    def _publish_joints(self, joints_deg: tuple[float, ...]) -> None:
        if self.context.ok():
            self._joints_pub.publish(JointState(header=Header(stamp=self._stamp()), name=self._joint_names,
                                                position=[math.radians(v) for v in joints_deg]))

    def _publish_trajectory(self, job: Job, start_deg: tuple[float, ...]) -> None:
        """The job as one JointTrajectory (positions in radians, time_from_start in simulated seconds)."""
        points = [JointTrajectoryPoint(positions=[math.radians(v) for v in q], time_from_start=_duration(t)) for t, q in job_points(job, start_deg)]
        self._trajectory_pub.publish(JointTrajectory(header=Header(stamp=self._stamp()), joint_names=self._joint_names, points=points))

    def _status(self, state_code: int, correlation_id: str, sha256: str, *, state: RobotPose | None = None, **fields: Any) -> None:
        if state is None:
            with self._state_lock:
                state = self._state
        self._status_pub.publish(ExecutionStatus(header=Header(stamp=self._stamp()), correlation_id=correlation_id, sha256=sha256,
                                                 state=state_code, position=state.position, tool=state.tool, **fields))


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _start_joints(text: str, robot: Any, cell: Any, state: RobotPose) -> tuple[float, ...] | None:
    """The `start_joints_deg` parameter, else where the verifier assumes the robot is at its start position (so that what
    it approves without the robot's joints runs), else the robot's home joints; None without a robot (no kinematics)."""
    if text.strip():
        try:
            joints = tuple(float(v) for v in _names(text))
        except ValueError:
            joints = ()
        if robot is None or len(joints) != len(robot.joints) or not all(math.isfinite(v) for v in joints):
            count = f"{len(robot.joints)} " if robot is not None else ""
            raise ParameterException(f"start_joints_deg must be {count}joint angles, finite degrees, comma-separated "
                                     "(and needs a robot)", ["start_joints_deg"])
        return joints
    return verified_start(robot, cell, state)


def _duration(seconds: float) -> DurationMsg:
    nanoseconds = int(round(seconds * 1e9))
    return DurationMsg(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def _degrees(values: tuple[float, ...]) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


def main(args: list[str] | None = None) -> int:
    # Ctrl-C and SIGTERM become KeyboardInterrupt here (not rclpy's handlers, which would shut the
    # context down at once): a running job is then reported ABORTED before the context goes. SIGINT is
    # set too: a process started with it ignored (a shell's background job, nohup) keeps it ignored,
    # Python then installs no handler, and a launcher's SIGINT would do nothing.
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.default_int_handler)
    try:
        node = SimExecutor()
    except (ConfigError, ParameterException) as exc:  # a bad robot or cell, a parameter of the wrong type or out of range
        print(f"sim_executor: error: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        while rclpy.ok():
            executor.spin_once(timeout_sec=0.2)  # returns to Python regularly, so a signal is seen
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.abort()
        rclpy.try_shutdown()  # wakes a job waiting on the clock
        node.stop()
        executor.shutdown()
        node.destroy_node()
    return 0


if __name__ == "__main__":
    sys.exit(main())
