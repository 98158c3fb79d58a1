"""The `plan_verifier` lifecycle node: ~/verify, ~/plan_requests -> ~/approved_actions, ~/feedback, ~/fallback.

Inputs besides the requests: ~/robot_state (where the robot is in the cell
graph) and `joint_states_topic` (sensor_msgs/JointState, /joint_states): the
latest fresh message is where the execution level starts (`serving.joint_states`).

Parameters are validated when the process starts, before any transition (a
bad value ends it with exit status 2). Lifecycle (nav2's convention):
`configure` reads the parameters it uses (robot, cell graph, audit log, ...:
writable only while unconfigured, so a manager can fix them and configure
again), opens the verification service (robot spec from `robot`, or from the
`robot_description` topic when `robot` names it; cell
graph read once, audit log, warmed verification workers) and creates
publishers, the service, subscriptions and the diagnostics timer; it FAILS
with the reason logged when any of that is unusable. `activate` opens the
request gate. `deactivate` closes it at once (requests are then answered with
ERROR_NOT_ACTIVE, on ~/feedback too for topic requests), waits up to
`drain_timeout_s` for the verifications running, cancels the rest (answered
ERROR_CANCELLED) and only then succeeds; `cleanup`/`shutdown` do the same and
release everything, including the graph connection and the workers. With
`autostart` the node configures and activates itself.

Run: `ros2 run plan_verifier verifier_node --ros-args --params-file config/verifier.yaml`
or `python -m plan_verifier.ros.node --ros-args ...`.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from typing import Any

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from plan_verifier_interfaces.msg import ApprovedActions, PlanRequest, RobotState, VerificationFeedback
from plan_verifier_interfaces.srv import VerifyPlan
from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.callback_groups import CallbackGroup, MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from rclpy.service_introspection import ServiceIntrospectionState
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from plan_verifier.report import Report
from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import load_robot, needs_description
from plan_verifier.ros import convert, qos
from plan_verifier.ros.launch_spec import NODE_NAME
from plan_verifier.serving.joint_states import JointStateError
from plan_verifier.serving.requests import ErrorCode, VerifyRequest, safe_correlation_id
from plan_verifier.serving.service import Outcome, VerificationService
from plan_verifier.serving.settings import PARAMETERS, SPECS, ParamSpec, Settings, SettingsError

DIAGNOSTICS_NAME = "plan_verifier: verification"
#: Parameters rclpy declares itself.
_ROS_OWN = frozenset({"use_sim_time", "start_type_description_service"})
_INTROSPECTION = {"metadata": ServiceIntrospectionState.METADATA, "contents": ServiceIntrospectionState.CONTENTS}
_PARAMETER_TYPE = {str: ParameterType.PARAMETER_STRING, int: ParameterType.PARAMETER_INTEGER,
                   float: ParameterType.PARAMETER_DOUBLE, bool: ParameterType.PARAMETER_BOOL}


class _RosLogHandler(logging.Handler):
    """Core log records (plan_verifier.*) go to the node's ROS logger."""

    def __init__(self, logger: Any) -> None:
        super().__init__()
        self._logger = logger

    def emit(self, record: logging.LogRecord) -> None:
        text = self.format(record)
        if record.levelno >= logging.ERROR:
            self._logger.error(text)
        elif record.levelno >= logging.WARNING:
            self._logger.warning(text)
        else:
            self._logger.info(text)


class BoundedCallbackGroup(CallbackGroup):
    """At most `limit` callbacks of the group run at once (MutuallyExclusiveCallbackGroup is limit 1).

    The requests' group: a request waiting for a verification worker blocks its
    executor thread, so the requests may hold at most `verification_workers`
    threads; the others stay free for lifecycle transitions, parameters,
    diagnostics and the robot's state. Requests beyond the limit wait in the
    service's and the subscription's queues (`request_queue_depth`).
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self._running = 0
        self._lock = threading.Lock()

    def can_execute(self, entity: Any) -> bool:
        with self._lock:
            return self._running < self.limit

    def beginning_execution(self, entity: Any) -> bool:
        with self._lock:
            if self._running < self.limit:
                self._running += 1
                return True
        return False

    def ending_execution(self, entity: Any) -> None:
        with self._lock:
            self._running -= 1


class VerifierNode(LifecycleNode):
    def __init__(self, **kwargs: Any) -> None:
        """Declare and validate every parameter; SettingsError (the process ends with status 2) when one is invalid."""
        super().__init__(NODE_NAME, **kwargs)
        for spec in PARAMETERS:
            self.declare_parameter(spec.name, spec.default, _descriptor(spec))
        Settings.from_values(self._parameter_values())
        unknown = sorted(name for name in self._parameter_overrides if name not in SPECS and name not in _ROS_OWN
                         and not name.startswith("qos_overrides."))
        if unknown:  # a typo (max_plan_attempt) would otherwise change nothing without a word
            self.get_logger().warning(f"the parameter file sets parameters this node does not have (ignored): {', '.join(unknown)}")
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._service: VerificationService | None = None
        self._entities: list[tuple[str, Any]] = []
        self._timer_group = MutuallyExclusiveCallbackGroup()
        self._log_handler = _RosLogHandler(self.get_logger())
        logging.getLogger("plan_verifier").addHandler(self._log_handler)

    def _parameter_values(self) -> dict[str, Any]:
        return {name: self.get_parameter(name).value for name in SPECS}

    # ------------------------------------------------------------------ lifecycle
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._configure_started = time.monotonic()
        try:
            settings = Settings.from_values(self._parameter_values())
            if settings.graph_source == "neo4j" and settings.cell.strip():
                self.get_logger().info(f"graph_uri is set: the cell parameter ({settings.cell}) is not used")
            self._configure(settings)
        except (SettingsError, ConfigError, OSError) as exc:
            self.get_logger().error(f"configure failed: {exc}")
            self.release()
            return TransitionCallbackReturn.FAILURE
        except Exception as exc:  # noqa: BLE001 - rclpy would turn it into a silent ERROR transition
            self.get_logger().error(f"configure failed: internal error: {exc.__class__.__name__}: {exc}")
            self.release()
            return TransitionCallbackReturn.FAILURE
        return super().on_configure(state)

    def _configure(self, settings: Settings) -> None:
        urdf, srdf = self._robot_description(settings) if needs_description(settings.robot) else (None, None)
        service = VerificationService(settings, load_robot(settings.robot, urdf_text=urdf, srdf_text=srdf))
        self._service = service
        requests_qos = qos.requests(settings.request_queue_depth)
        self._requests_group = BoundedCallbackGroup(settings.verification_workers)
        # Approvals and fallbacks only ever leave an active node: lifecycle publishers. Feedback is a plain publisher
        # because it also carries the NOT_ACTIVE answers to ~/plan_requests messages that arrive while inactive.
        self._approved_pub = self.create_lifecycle_publisher(ApprovedActions, "~/approved_actions", qos.APPROVED)
        self._fallback_pub = self.create_lifecycle_publisher(VerificationFeedback, "~/fallback", qos.FEEDBACK)
        self._feedback_pub = self.create_publisher(VerificationFeedback, "~/feedback", qos.FEEDBACK)
        # Diagnostics are a plain publisher: they report the inactive state too.
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._entities = [
            ("lifecycle_publisher", self._approved_pub),
            ("lifecycle_publisher", self._fallback_pub),
            ("publisher", self._feedback_pub),
            ("publisher", self._diagnostics_pub),
            ("service", self._verify_service(settings, requests_qos)),
            ("subscription", self.create_subscription(PlanRequest, "~/plan_requests", self._on_plan_request, requests_qos,
                                                      callback_group=self._requests_group)),
            ("subscription", self.create_subscription(RobotState, "~/robot_state", self._on_robot_state, qos.ROBOT_STATE)),
            *self._joint_states(settings),
            ("timer", self.create_timer(settings.diagnostics_period_s, self._on_diagnostics, callback_group=self._timer_group)),
        ]
        warm = service.warm_up
        if warm.sample is not None:  # the first answer's message conversion (type support) is warmed here too
            nanoseconds = self.get_clock().now().nanoseconds
            sample = Outcome("warm-up", "service", settings.max_plan_attempts, report=Report.from_dict(warm.sample.report),
                             feedback=warm.sample.feedback, actions_yaml=warm.sample.actions_yaml, sha256=warm.sample.sha256)
            convert.fill_response(VerifyPlan.Response(), sample)
            convert.feedback_msg(sample, nanoseconds)
            convert.approved_msg(sample, service.robot.name, nanoseconds)
        self.get_logger().info(f"configured in {time.monotonic() - self._configure_started:.1f} s: robot {service.robot.name}, "
                               f"graph {service.graph_description}, "
                               f"audit log {settings.audit_log_dir}, max_plan_attempts {settings.max_plan_attempts}; "
                               f"{settings.verification_workers} verification worker(s) warmed up ({', '.join(warm.labels)}) "
                               f"in {warm.milliseconds:.0f} ms; {service.restored_tasks} recent task(s) restored from the audit log")

    def _robot_description(self, settings: Settings) -> tuple[str, str | None]:
        """The URDF on `robot_description` and the SRDF on `robot_description_semantic` (relative names, transient
        local, as MoveIt reads them), waited for up to `robot_description_timeout_s`; ConfigError when no URDF comes.

        The subscriptions run in their own callback group, so the executor delivers while configure waits."""
        received: dict[str, str] = {}
        arrived = threading.Event()

        def keep(topic: str):
            def callback(msg: String) -> None:
                received[topic] = msg.data
                if topic == "robot_description":
                    arrived.set()
            return callback

        group = ReentrantCallbackGroup()
        subscriptions = [self.create_subscription(String, topic, keep(topic), qos.ROBOT_DESCRIPTION, callback_group=group)
                         for topic in ("robot_description", "robot_description_semantic")]
        try:
            if not arrived.wait(settings.robot_description_timeout_s):
                raise ConfigError(f"no URDF on {self.resolve_topic_name('robot_description')} within "
                                  f"{settings.robot_description_timeout_s:g} s (robot: {settings.robot})")
            deadline = time.monotonic() + min(1.0, settings.robot_description_timeout_s)
            while "robot_description_semantic" not in received and time.monotonic() < deadline:
                time.sleep(0.05)  # the SRDF is usually latched beside it: give it a moment, it is optional
        finally:
            for subscription in subscriptions:
                self.destroy_subscription(subscription)
        srdf = received.get("robot_description_semantic")
        self.get_logger().info(f"robot model from {self.resolve_topic_name('robot_description')} "
                               f"({len(received['robot_description'])} characters)"
                               + (f" and {self.resolve_topic_name('robot_description_semantic')}" if srdf else ", no SRDF"))
        return received["robot_description"], srdf

    def _joint_states(self, settings: Settings) -> list[tuple[str, Any]]:
        """The /joint_states subscription (none when `joint_states_topic` is empty)."""
        if not settings.joint_states_topic.strip():
            return []
        return [("subscription", self.create_subscription(JointState, settings.joint_states_topic.strip(), self._on_joint_state,
                                                          qos.JOINT_STATES))]

    def _verify_service(self, settings: Settings, requests_qos: Any) -> Any:
        service = self.create_service(VerifyPlan, "~/verify", self._on_verify, qos_profile=requests_qos, callback_group=self._requests_group)
        if settings.service_introspection != "disabled":
            service.configure_introspection(self.get_clock(), qos.SERVICE_EVENTS, _INTROSPECTION[settings.service_introspection])
        return service

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        result = super().on_activate(state)
        if self._service is not None:
            self._service.activate()
        self.get_logger().info("active: serving ~/verify and ~/plan_requests")
        return result

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        if self._service is not None and not self._service.deactivate(self._service.settings.drain_timeout_s):
            self.get_logger().error("deactivate failed: cancelled requests could not be answered; the node stays active")
            self._service.activate()
            return TransitionCallbackReturn.FAILURE
        self.get_logger().info("inactive: requests are answered with ERROR_NOT_ACTIVE")
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        if not self.release("cleaned up"):
            return TransitionCallbackReturn.FAILURE
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        if not self.release("shut down"):
            return TransitionCallbackReturn.FAILURE
        return super().on_shutdown(state)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release("stopped after an error")
        return TransitionCallbackReturn.SUCCESS

    def release(self, why: str = "shut down") -> bool:
        """Drain and cancel the verifications (see on_deactivate), destroy what configure created and close the
        workers, the graph connection and the audit log. False when cancelled requests could not be answered."""
        service, self._service = self._service, None
        drained = service.close(why=why) if service is not None else True
        entities, self._entities = self._entities, []
        for kind, entity in entities:
            if kind == "lifecycle_publisher":
                self.destroy_lifecycle_publisher(entity)
            elif kind == "publisher":
                self.destroy_publisher(entity)
            elif kind == "service":
                self.destroy_service(entity)
            elif kind == "subscription":
                self.destroy_subscription(entity)
            elif kind == "timer":
                self.destroy_timer(entity)
        if service is not None and self.context.ok():  # after Ctrl-C the context is gone and /rosout with it
            self.get_logger().info("released the graph connection, the audit log and the verification workers")
        return drained

    # ------------------------------------------------------------------ callbacks
    def _on_verify(self, request: VerifyPlan.Request, response: VerifyPlan.Response) -> VerifyPlan.Response:
        outcome = self._handle(convert.request_from_msg(request, "service"))
        try:
            return convert.fill_response(response, outcome)
        except Exception as exc:  # noqa: BLE001 - a request must get exactly one answer, and never a false approval
            self.get_logger().error(f"answer for {outcome.correlation_id} could not be built: {exc.__class__.__name__}: {exc}")
            return VerifyPlan.Response(correlation_id=outcome.correlation_id, error_code=int(ErrorCode.INTERNAL),
                                       error_msg=f"the answer could not be built: {exc.__class__.__name__}")

    def _on_plan_request(self, msg: PlanRequest) -> None:
        self._handle(convert.request_from_msg(msg, "topic"))

    def _handle(self, request: VerifyRequest) -> Outcome:
        """The service's answer; an unexpected failure is an INTERNAL error (logged), never an exception in the executor."""
        service = self._service
        nanoseconds = self.get_clock().now().nanoseconds
        cid = safe_correlation_id(request.correlation_id)
        if service is None:  # cleaned up while the request was on its way
            return Outcome(cid, request.source, 0, error_code=ErrorCode.NOT_ACTIVE, error_msg="the verifier is not configured")
        try:
            return service.handle(request, stamp_ns=nanoseconds, publish=lambda outcome: self._publish(outcome, service, nanoseconds))
        except Exception as exc:  # noqa: BLE001 - fail closed and keep serving
            self.get_logger().error(f"request {cid!r} failed: {exc.__class__.__name__}: {exc}")
            return Outcome(cid, request.source, service.max_attempts, error_code=ErrorCode.INTERNAL,
                           error_msg=f"internal error: {exc.__class__.__name__}")

    def _publish(self, outcome: Outcome, service: VerificationService, nanoseconds: int) -> None:
        if outcome.approved:
            self._approved_pub.publish(convert.approved_msg(outcome, service.robot.name, nanoseconds))
        if outcome.publishes_feedback:
            self._feedback_pub.publish(convert.feedback_msg(outcome, nanoseconds))
        if outcome.fallback:
            self.get_logger().warning(f"task {outcome.correlation_id} rejected {outcome.attempt.number} times: fallback")
            self._fallback_pub.publish(convert.feedback_msg(outcome, nanoseconds))

    def _on_robot_state(self, msg: RobotState) -> None:
        if self._service is not None:
            self._service.observe_robot_state(msg.position, msg.tool)

    def _on_joint_state(self, msg: JointState) -> None:
        """The robot's joints: stamped by the message's header (else its arrival), on this node's clock (use_sim_time)."""
        service = self._service
        if service is None:
            return
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec or self.get_clock().now().nanoseconds
        try:
            service.observe_joint_state(list(msg.name), list(msg.position), stamp)
        except JointStateError as exc:
            self.get_logger().warning(f"/joint_states not used: {exc}", throttle_duration_sec=10.0)

    def _on_diagnostics(self) -> None:
        service = self._service
        if service is None:
            return
        service.probe_graph(unless_seen_within_s=service.settings.diagnostics_period_s)
        active = service.active  # the timer exists only while configured: active or inactive
        self._diagnostics_pub.publish(convert.diagnostics_msg(
            service.diagnostics(), name=DIAGNOSTICS_NAME, hardware_id=service.robot.name, active=active,
            lifecycle_state="active" if active else "inactive", graph=service.graph_description,
            nanoseconds=self.get_clock().now().nanoseconds,
            extra={"node": self.get_fully_qualified_name(), "verifying": str(service.verifying),
                   "workers": f"{service.workers_ready}/{service.settings.verification_workers}"}))

    def _on_set_parameters(self, params: list[Any]) -> SetParametersResult:
        """Refuse bad values (with the reason), and changes to what configure read unless the node is unconfigured."""
        state = self._state_machine.current_state[1]
        values = self._parameter_values()
        for param in params:
            spec = SPECS.get(param.name)
            if spec is None:
                continue  # use_sim_time and other rclpy parameters
            problem = spec.problem(param.value)
            if problem:
                return SetParametersResult(successful=False, reason=problem)
            if spec.stage == "configure" and state != "unconfigured":
                return SetParametersResult(successful=False, reason=(
                    f"{param.name} is read at configure: it can be changed only while the node is unconfigured "
                    f"(it is {state}; deactivate and clean up first)"))
            values[param.name] = param.value
        try:
            Settings.from_values(values)
        except SettingsError as exc:  # a combination that cannot work (executor_threads against verification_workers)
            return SetParametersResult(successful=False, reason=str(exc))
        service = self._service
        for param in params:
            if service is None:
                break
            if param.name == "level":
                service.level = param.value
            elif param.name == "max_plan_attempts":
                service.max_attempts = param.value
            elif param.name == "verify_timeout_s":
                service.verify_timeout_s = float(param.value)
            elif param.name == "repair_rejected":
                service.repair_rejected = param.value
        return SetParametersResult(successful=True)


def _descriptor(spec: ParamSpec) -> ParameterDescriptor:
    descriptor = ParameterDescriptor(name=spec.name, type=_PARAMETER_TYPE[type(spec.default)], description=spec.description,
                                     additional_constraints=spec.constraints, read_only=spec.read_only)
    if spec.bounds is not None and isinstance(spec.default, int) and not isinstance(spec.default, bool):
        descriptor.integer_range = [IntegerRange(from_value=int(spec.bounds[0]), to_value=int(spec.bounds[1]), step=1)]
    elif spec.bounds is not None and isinstance(spec.default, float):
        descriptor.floating_point_range = [FloatingPointRange(from_value=float(spec.bounds[0]), to_value=float(spec.bounds[1]), step=0.0)]
    return descriptor


def main(args: list[str] | None = None) -> int:
    rclpy.init(args=args)
    try:
        node = VerifierNode()
    except (ParameterException, SettingsError) as exc:
        print(f"verifier_node: invalid parameter: {exc}", file=sys.stderr)
        rclpy.try_shutdown()
        return 2
    executor = MultiThreadedExecutor(num_threads=node.get_parameter("executor_threads").value)
    executor.add_node(node)
    if node.get_parameter("autostart").value:
        if node.trigger_configure() == TransitionCallbackReturn.SUCCESS:
            node.trigger_activate()
        else:
            node.get_logger().error("autostart: configure failed; the node stays unconfigured")
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        node.release()
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
