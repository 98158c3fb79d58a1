"""The `plan_verifier` lifecycle node: ~/verify, ~/plan_requests -> ~/approved_actions, ~/feedback, ~/fallback.

Inputs besides the requests: ~/robot_state (where the robot is in the cell
graph) and `joint_states_topic` (sensor_msgs/JointState, /joint_states): the
latest fresh message is where the execution level starts (`serving.joint_states`).

Lifecycle (as ros2/demos lifecycle_py): `configure` reads and validates the
parameters, opens the verification service (robot spec, cell graph read once,
audit log) and creates publishers, the service, subscriptions and the
diagnostics timer; it FAILS with the reason logged when any of that is
unusable. `activate` opens the request gate, `deactivate` closes it (requests
are then answered with ERROR_NOT_ACTIVE) after the requests already admitted
have been answered, `cleanup`/`shutdown` release everything, including the
graph connection. With `autostart` the node configures and activates itself.

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
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from rclpy.service_introspection import ServiceIntrospectionState
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from plan_verifier.resources import ConfigError
from plan_verifier.robots.spec import needs_description
from plan_verifier.ros import convert, qos
from plan_verifier.ros.launch_spec import NODE_NAME
from plan_verifier.serving.joint_states import JointStateError
from plan_verifier.serving.requests import ErrorCode, VerifyRequest
from plan_verifier.serving.service import Outcome, VerificationService
from plan_verifier.serving.settings import PARAMETERS, SPECS, ParamSpec, Settings, SettingsError

DIAGNOSTICS_NAME = "plan_verifier: verification"
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


class VerifierNode(LifecycleNode):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NODE_NAME, **kwargs)
        for spec in PARAMETERS:
            self.declare_parameter(spec.name, spec.default, _descriptor(spec))
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._service: VerificationService | None = None
        self._entities: list[tuple[str, Any]] = []
        self._requests_group = ReentrantCallbackGroup()
        self._timer_group = MutuallyExclusiveCallbackGroup()
        self._log_handler = _RosLogHandler(self.get_logger())
        logging.getLogger("plan_verifier").addHandler(self._log_handler)

    # ------------------------------------------------------------------ lifecycle
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            settings = Settings.from_values({name: self.get_parameter(name).value for name in SPECS})
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
        description = self._robot_description(settings) if needs_description(settings.robot) else None
        service = VerificationService(settings, description)
        self._service = service
        requests_qos = qos.requests(settings.request_queue_depth)
        self._approved_pub = self.create_lifecycle_publisher(ApprovedActions, "~/approved_actions", qos.APPROVED)
        self._feedback_pub = self.create_lifecycle_publisher(VerificationFeedback, "~/feedback", qos.FEEDBACK)
        self._fallback_pub = self.create_lifecycle_publisher(VerificationFeedback, "~/fallback", qos.FEEDBACK)
        # Diagnostics are a plain publisher: they report the inactive state too.
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._entities = [
            ("lifecycle_publisher", self._approved_pub),
            ("lifecycle_publisher", self._feedback_pub),
            ("lifecycle_publisher", self._fallback_pub),
            ("publisher", self._diagnostics_pub),
            ("service", self._verify_service(settings, requests_qos)),
            ("subscription", self.create_subscription(PlanRequest, "~/plan_requests", self._on_plan_request, requests_qos,
                                                      callback_group=self._requests_group)),
            ("subscription", self.create_subscription(RobotState, "~/robot_state", self._on_robot_state, qos.ROBOT_STATE)),
            *self._joint_states(settings),
            ("timer", self.create_timer(settings.diagnostics_period_s, self._on_diagnostics, callback_group=self._timer_group)),
        ]
        self.get_logger().info(f"configured: robot {service.robot.name}, graph {service.graph_description}, "
                               f"audit log {settings.audit_log_dir}, max_plan_attempts {settings.max_plan_attempts}")

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
            self.get_logger().warning("deactivated while requests were still being verified (drain_timeout_s elapsed)")
        self.get_logger().info("inactive: requests are answered with ERROR_NOT_ACTIVE")
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return super().on_cleanup(state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return super().on_shutdown(state)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        return TransitionCallbackReturn.SUCCESS

    def release(self) -> None:
        """Destroy what configure created and close the graph connection and the audit log."""
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
        service, self._service = self._service, None
        if service is not None:
            service.close()
            if self.context.ok():  # after Ctrl-C the context is gone and /rosout with it
                self.get_logger().info("released the graph connection and the audit log")

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
        if service is None:  # cleaned up while the request was on its way
            return Outcome(request.correlation_id, request.source, 0, error_code=ErrorCode.NOT_ACTIVE, error_msg="the verifier is not configured")
        try:
            return service.handle(request, stamp_ns=nanoseconds, publish=lambda outcome: self._publish(outcome, service, nanoseconds))
        except Exception as exc:  # noqa: BLE001 - fail closed and keep serving
            self.get_logger().error(f"request {request.correlation_id!r} failed: {exc.__class__.__name__}: {exc}")
            return Outcome(request.correlation_id, request.source, service.max_attempts, error_code=ErrorCode.INTERNAL,
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
            nanoseconds=self.get_clock().now().nanoseconds))

    def _on_set_parameters(self, params: list[Any]) -> SetParametersResult:
        for param in params:
            spec = SPECS.get(param.name)
            problem = spec.problem(param.value) if spec is not None else None
            if problem:
                return SetParametersResult(successful=False, reason=problem)
        service = self._service
        for param in params:
            if service is None:
                break
            if param.name == "level":
                service.level = param.value
            elif param.name == "max_plan_attempts":
                service.max_attempts = param.value
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
    except ParameterException as exc:
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
