"""Running the node as a separate process and talking to it over a live ROS graph.

Isolation: every test session uses its own ROS_DOMAIN_ID (derived from the
pid), discovery limited to this host, and a namespace per node process; node
processes run in their own session and are always killed at teardown. The
node is started exactly as the launch file starts it: the installed
parameter file plus `plan_verifier.ros.launch_spec.ros_arguments`.
Imported by the ROS test modules; skips them when rclpy or the interfaces are
missing.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy is not installed (the ROS tests need the venv of scripts/bootstrap.sh)")
pytest.importorskip("plan_verifier_interfaces", reason="plan_verifier_interfaces is not built (scripts/bootstrap.sh builds msg/)")

from lifecycle_msgs.msg import Transition  # noqa: E402
from lifecycle_msgs.srv import ChangeState, GetState  # noqa: E402
from plan_verifier_interfaces.srv import VerifyPlan  # noqa: E402
from rclpy.executors import MultiThreadedExecutor  # noqa: E402
from rclpy.qos import QoSProfile  # noqa: E402

from plan_verifier.ros import qos  # noqa: E402
from plan_verifier.ros.launch_spec import ros_arguments  # noqa: E402
from slow_plans import large_plan  # noqa: E402,F401 - re-exported for the ROS tests

ROOT = Path(__file__).resolve().parents[2]
PARAMS_FILE = ROOT / "config" / "verifier.yaml"
EXAMPLES = ROOT / "examples"
DOMAIN_ID = 1 + os.getpid() % 100
#: How long a process may take to shut down cleanly after SIGINT before it is killed (it takes about a second).
STOP_S = 15.0
os.environ["ROS_DOMAIN_ID"] = str(DOMAIN_ID)
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)
_names = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{next(_names)}"


class Inbox:
    """Messages received on one subscription, with waiting."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self.subscription: Any = None
        self._cv = threading.Condition()

    def wait_matched(self, timeout: float = 20.0) -> bool:
        """Wait until a publisher is matched, plus the settle time for the publisher to match us back.

        The topics it guards are volatile: what a publisher sends before it has
        matched this subscription is lost for good.
        """
        if not wait_until(lambda: self.subscription.get_publisher_count() > 0, timeout):
            return False
        time.sleep(qos.DISCOVERY_SETTLE_S)
        return True

    def put(self, msg: Any) -> None:
        with self._cv:
            self.messages.append(msg)
            self._cv.notify_all()

    def wait_for(self, predicate: Callable[[Any], bool], timeout: float = 20.0) -> Any:
        """The first message matching `predicate`, waiting for it if needed."""
        with self._cv:
            found: list[Any] = []

            def ready() -> bool:
                found[:] = [m for m in self.messages if predicate(m)]
                return bool(found)

            if not self._cv.wait_for(ready, timeout):
                raise AssertionError(f"no matching message within {timeout} s (got {len(self.messages)} others)")
            return found[0]

    def matching(self, predicate: Callable[[Any], bool]) -> list[Any]:
        with self._cv:
            return [m for m in self.messages if predicate(m)]


class RosSide:
    """The test's own ROS participant: clients, subscriptions and publishers on a spinning executor."""

    def __init__(self) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=DOMAIN_ID)
        self.node = rclpy.create_node(unique("pv_test"), context=self.context)
        self.executor = MultiThreadedExecutor(num_threads=4, context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self.executor.spin, daemon=True)
        self._thread.start()
        self._clients: dict[tuple[Any, str], Any] = {}

    def call(self, srv_type: Any, name: str, request: Any, timeout: float = 30.0, *, server: NodeProcess,
             resend_after: float | None = None) -> Any:
        """One client per server process: a node restarted under the same name must match a new client (qos.wait_until_ready).

        `resend_after` (for queries only, never for calls that change state): a
        response the server sent before it had matched this client's reader is
        lost (ros2/rmw_fastrtps#467, see qos); the query is sent again after
        that many seconds without an answer, until `timeout`."""
        key = (srv_type, name, server.proc.pid)
        if key not in self._clients:
            client = self.node.create_client(srv_type, name, qos_profile=qos.CLIENT)
            if not qos.wait_until_ready(client, timeout):
                raise AssertionError(f"service {name} not available")
            self._clients[key] = client
        client = self._clients[key]
        done = threading.Event()
        deadline = time.monotonic() + timeout
        while True:
            future = client.call_async(request)
            future.add_done_callback(lambda _: done.set())
            left = deadline - time.monotonic()
            if done.wait(min(left, resend_after) if resend_after else left):
                return future.result()
            if time.monotonic() >= deadline:
                raise AssertionError(f"no answer from {name} within {timeout} s")
            client.remove_pending_request(future)

    def call_in_background(self, srv_type: Any, name: str, request: Any, timeout: float = 30.0, *,
                           server: NodeProcess) -> concurrent.futures.Future:
        """`call` on a daemon thread of its own (a test that fails while it waits does not hold up the session's end):
        the future holds the answer, or the AssertionError of no answer."""
        future: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(self.call(srv_type, name, request, timeout, server=server))
            except BaseException as exc:  # noqa: BLE001 - handed to the test through the future
                future.set_exception(exc)

        threading.Thread(target=run, name="pv_test_call", daemon=True).start()
        return future

    def subscribe(self, msg_type: Any, topic: str, qos: QoSProfile | int = 100) -> Inbox:
        inbox = Inbox()
        inbox.subscription = self.node.create_subscription(msg_type, topic, inbox.put, qos)
        return inbox

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)
        self._thread.join(5)


class NodeProcess:
    """The verifier node in its own process, started like the launch file starts it."""

    def __init__(self, workdir: Path, overrides: dict[str, Any] | None = None, extra_env: dict[str, str] | None = None,
                 executable: list[str] | None = None, params_file: Path = PARAMS_FILE) -> None:
        self.workdir = workdir
        #: The node's command without its ROS arguments (default: this Python, `-m plan_verifier.ros.node`).
        self.executable = executable or [sys.executable, "-m", "plan_verifier.ros.node"]
        self.params_file = params_file
        self.namespace = "/" + unique("pvt")
        self.fqn = f"{self.namespace}/plan_verifier"
        #: The launch file's robot_state_topic argument, per node so that parallel nodes do not share a robot.
        self.robot_state_topic = f"{self.namespace}/robot_state"
        self.overrides = dict(overrides or {})
        self.log_path = workdir / "node.log"
        self.extra_env = dict(extra_env or {})
        self.proc: subprocess.Popen | None = None

    def start(self) -> "NodeProcess":
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "RCUTILS_COLORIZED_OUTPUT": "0", "RCUTILS_LOGGING_BUFFERED_STREAM": "0", **self.extra_env}
        cmd = [*self.executable,
               *ros_arguments(str(self.params_file), overrides=self.overrides, namespace=self.namespace, robot_state_topic=self.robot_state_topic)]
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, cwd=self.workdir, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def service(self, name: str) -> str:
        return f"{self.fqn}/{name}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = STOP_S) -> int | None:
        """SIGINT (a clean shutdown), then SIGKILL for the whole process group if needed."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill9()
        self._reap_group()
        self._log.close()
        return self.proc.returncode

    def kill9(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def _reap_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def group_alive(self) -> bool:
        """Whether any process of the node's process group still exists."""
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return False
        return True


def change_state(ros: RosSide, node: NodeProcess, transition: int, timeout: float = 120.0) -> bool:
    """A transition; configure starts and warms the verification workers, which takes seconds on a loaded machine."""
    return ros.call(ChangeState, node.service("change_state"), ChangeState.Request(transition=Transition(id=transition)), timeout,
                    server=node).success


def get_state(ros: RosSide, node: NodeProcess) -> str:
    return ros.call(GetState, node.service("get_state"), GetState.Request(), server=node, resend_after=5.0).current_state.label


def bring_up(ros: RosSide, node: NodeProcess) -> None:
    assert change_state(ros, node, Transition.TRANSITION_CONFIGURE), node.log()
    assert change_state(ros, node, Transition.TRANSITION_ACTIVATE), node.log()


def verify(ros: RosSide, node: NodeProcess, plan: str, timeout: float = 30.0, **fields: Any) -> VerifyPlan.Response:
    return ros.call(VerifyPlan, node.service("verify"), VerifyPlan.Request(plan=plan, **fields), timeout=timeout, server=node)


def example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def wait_until(predicate: Callable[[], bool], timeout: float = 20.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


@pytest.fixture(scope="session")
def ros():
    side = RosSide()
    yield side
    side.close()


@pytest.fixture
def start_node(tmp_path_factory):
    """Factory: start_node(overrides) -> a running NodeProcess, stopped at teardown."""
    started: list[NodeProcess] = []

    def start(overrides: dict[str, Any] | None = None, **kwargs: Any) -> NodeProcess:
        node = NodeProcess(tmp_path_factory.mktemp("node"), overrides, **kwargs).start()
        started.append(node)
        return node

    yield start
    for node in started:
        node.stop()
