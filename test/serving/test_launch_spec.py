"""What the launch file passes to the node, checked without `launch` (not installable here)."""

from __future__ import annotations

import ast

import pytest
import yaml
from conftest import ROOT

from plan_verifier.ros.launch_spec import ARGUMENTS, parameter_overrides, remappings, ros_arguments
from plan_verifier.serving.settings import SPECS


def test_empty_arguments_leave_the_parameter_file_in_charge():
    assert parameter_overrides({name: "" for name, _, _ in ARGUMENTS}) == {}


def test_given_arguments_become_typed_parameters():
    assert parameter_overrides({"robot": "ur5e", "graph_uri": "bolt://db:7687", "use_sim_time": "True", "autostart": "false"}) == {
        "robot": "ur5e", "graph_uri": "bolt://db:7687", "use_sim_time": True, "autostart": False}


def test_a_malformed_boolean_is_refused():
    with pytest.raises(ValueError, match="use_sim_time must be true or false"):
        parameter_overrides({"use_sim_time": "yes"})


def test_every_parameter_argument_is_a_node_parameter():
    assert set(parameter_overrides({"robot": "a", "cell": "b", "graph_uri": "c", "use_sim_time": "true", "autostart": "true"})) <= set(SPECS) | {"use_sim_time"}


def test_ros_arguments_match_a_launch_of_the_node():
    args = ros_arguments("config/verifier.yaml", overrides={"cell": "", "autostart": True, "max_plan_attempts": 5, "robot": "123"},
                         namespace="robot1", robot_state_topic="/arm/state", log_level="debug")
    assert args == ["--ros-args", "--params-file", "config/verifier.yaml", "-r", "~/robot_state:=/arm/state", "-r", "__ns:=/robot1",
                    "-p", 'cell:=""', "-p", "autostart:=true", "-p", "max_plan_attempts:=5", "-p", 'robot:="123"', "--log-level", "debug"]
    for item in args[args.index("-p") + 1::2][:4]:  # every -p value parses as YAML to the intended type
        name, text = item.split(":=", 1)
        assert yaml.safe_load(text) == {"cell": "", "autostart": True, "max_plan_attempts": 5, "robot": "123"}[name]


def test_the_launch_file_builds_its_node_from_the_launch_spec():
    tree = ast.parse((ROOT / "launch" / "verifier.launch.py").read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "plan_verifier.ros.launch_spec"
                for alias in node.names}
    assert {"ARGUMENTS", "parameter_overrides", "remappings", "NODE_NAME", "EXECUTABLE", "PACKAGE"} <= imported
    assert remappings() == [("~/robot_state", "/robot_state")]
    defaults = dict((name, default) for name, default, _ in ARGUMENTS)
    assert defaults["autostart"] == "true" and defaults["use_sim_time"] == "false"
