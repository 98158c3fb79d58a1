"""launch_testing: launch/verifier.launch.py starts a node that serves ~/verify (ROS 2 installs).

`launch` and `launch_testing` are not on PyPI, so where they are missing this
module is skipped with that reason; test_node.py starts the node the same way
as a plain process. On a ROS 2 install: `launch_test test/ros/test_launch.py`,
or `colcon test --packages-select plan_verifier`.
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

import pytest

pytest.importorskip("launch_testing", reason="launch_testing is not installed (ROS 2 installs only, not on PyPI); "
                                              "test_node.py starts the node with the launch file's arguments instead")

import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
import rclpy  # noqa: E402
import yaml  # noqa: E402
from launch import LaunchDescription  # noqa: E402
from launch.actions import IncludeLaunchDescription  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from plan_verifier_interfaces.srv import VerifyPlan  # noqa: E402

pytestmark = pytest.mark.ros

ROOT = Path(__file__).resolve().parents[2]
NAMESPACE = "/launch_test"
WORKDIR = Path(tempfile.mkdtemp(prefix="plan_verifier_launch_"))


def _params_file() -> str:
    """config/verifier.yaml with the audit log and actions file in a temporary directory."""
    data = yaml.safe_load((ROOT / "config" / "verifier.yaml").read_text(encoding="utf-8"))
    data["/**"]["ros__parameters"].update(audit_log_dir=str(WORKDIR / "logs"), actions_output_path=str(WORKDIR / "actions.yaml"))
    path = WORKDIR / "verifier.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return str(path)


@pytest.mark.launch_test
def generate_test_description():
    include = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(ROOT / "launch" / "verifier.launch.py")),
        launch_arguments={"namespace": NAMESPACE, "autostart": "true", "params_file": _params_file()}.items(),
    )
    return LaunchDescription([include, launch_testing.actions.ReadyToTest()])


class TestVerifierLaunch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rclpy.init()
        cls.node = rclpy.create_node("verifier_launch_test")

    @classmethod
    def tearDownClass(cls):
        cls.node.destroy_node()
        rclpy.shutdown()

    def test_node_becomes_active_and_verifies(self, proc_output):
        proc_output.assertWaitFor("active: serving", timeout=30)
        client = self.node.create_client(VerifyPlan, f"{NAMESPACE}/plan_verifier/verify")
        self.assertTrue(client.wait_for_service(timeout_sec=30))
        future = client.call_async(VerifyPlan.Request(plan=(ROOT / "examples" / "pick_and_place.tdl").read_text(encoding="utf-8")))
        rclpy.spin_until_future_complete(self.node, future, timeout_sec=30)
        self.assertTrue(future.result().approved, future.result().report_json)
        self.assertTrue((WORKDIR / "actions.yaml").is_file())


@launch_testing.post_shutdown_test()
class TestVerifierShutdown(unittest.TestCase):
    def test_clean_exit(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)
