"""The node configured from a published robot_description (issue 16): the model as MoveIt reads it.

A publisher in the test stands in for `robot_state_publisher` (the URDF, transient local) and MoveIt's
`move_group` (the SRDF): the classic UR5 of example-robot-data, meshes resolved through the ament index.
The node's `robot` is a spec YAML whose `urdf:` is `robot_description`: the topics give the chain, limits
and collision meshes, the YAML the home, tool and payload. The verification goes through ~/verify.
"""

from __future__ import annotations

import json
import os
import sysconfig
from pathlib import Path

import pytest
from ros_harness import bring_up, change_state, example, ros, start_node, verify, wait_until  # noqa: F401

from lifecycle_msgs.msg import Transition
from std_msgs.msg import String

from plan_verifier.ros import qos

pytestmark = pytest.mark.ros

PREFIX = Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix"
UR = PREFIX / "share" / "example-robot-data" / "robots" / "ur_description"


def _spec(tmp_path: Path) -> Path:
    path = tmp_path / "ur5_from_topic.yaml"
    path.write_text("urdf: robot_description\nrated_payload_kg: 5\nhome_joints_deg: [180, -90, 90, -90, -90, 0]\n"
                    "tools:\n  0: {tcp: [0, 0, 150, 0, 0, 0], shape: {type: cylinder, radius_mm: 40, length_mm: 150}}\n")
    return path


def test_the_node_verifies_with_the_published_robot_description(ros, start_node, tmp_path):  # noqa: F811
    env = {"AMENT_PREFIX_PATH": os.pathsep.join(filter(None, [os.environ.get("AMENT_PREFIX_PATH"), str(PREFIX)]))}
    node = start_node({"robot": str(_spec(tmp_path)), "robot_description_timeout_s": 30.0}, extra_env=env)
    publishers = []
    for topic, text in (("robot_description", (UR / "urdf" / "ur5_robot.urdf").read_text()),
                        ("robot_description_semantic", (UR / "srdf" / "ur5.srdf").read_text())):
        publisher = ros.node.create_publisher(String, f"{node.namespace}/{topic}", qos.ROBOT_DESCRIPTION)
        publisher.publish(String(data=text))
        publishers.append(publisher)
    bring_up(ros, node)
    assert "robot model from" in node.log() and "no SRDF" not in node.log(), node.log()
    response = verify(ros, node, example("pick_and_place.tdl"))
    report = json.loads(response.report_json)
    assert response.approved, response.report_json[-2000:]
    assert report["execution"]["body_model"] == "exact" and report["execution"]["simulated"] == 8
    unsafe = verify(ros, node, example("pick_and_place_unsafe.tdl"))
    assert not unsafe.approved


def test_configure_fails_when_no_robot_description_comes(ros, start_node):  # noqa: F811
    node = start_node({"robot": "robot_description", "robot_description_timeout_s": 1.0})
    assert not change_state(ros, node, Transition.TRANSITION_CONFIGURE)
    assert wait_until(lambda: "no URDF on" in node.log()), node.log()
