"""What the launch file starts, as plain data, so tests start the node the same way.

`launch/verifier.launch.py` builds its LifecycleNode from these names,
remappings and the parameter overrides below; the tests (where `launch` is not
installed) start the node process with `ros_arguments`, which yields the same
`--ros-args` the launch system would pass. Nothing here imports ROS.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

PACKAGE = "plan_verifier"
EXECUTABLE = "verifier_node"
NODE_NAME = "plan_verifier"
#: Launch arguments: (name, default, description). Empty defaults leave config/verifier.yaml in charge.
ARGUMENTS: tuple[tuple[str, str, str], ...] = (
    ("params_file", "", "Parameter file (default: the installed config/verifier.yaml)"),
    ("namespace", "", "Namespace of the node, e.g. /robot1"),
    ("robot", "", "Robot spec name or path (overrides the parameter file)"),
    ("cell", "", "Cell file name or path for the embedded graph (overrides the parameter file)"),
    ("graph_uri", "", "bolt:// URI of a Neo4j cell graph (password from PLAN_VERIFIER_GRAPH_PASSWORD)"),
    ("use_sim_time", "false", "Use /clock (Gazebo) for every stamp"),
    ("autostart", "true", "Configure and activate without a lifecycle manager"),
    ("robot_state_topic", "/robot_state", "Topic with plan_verifier_interfaces/RobotState (remapped to ~/robot_state)"),
    ("log_level", "info", "Logging level"),
)
#: Launch arguments that become parameters when not empty, with their types.
_PARAMETER_ARGUMENTS = {"robot": str, "cell": str, "graph_uri": str, "use_sim_time": bool, "autostart": bool}


def remappings(robot_state_topic: str = "/robot_state") -> list[tuple[str, str]]:
    return [("~/robot_state", robot_state_topic)]


def parameter_overrides(values: Mapping[str, str]) -> dict[str, Any]:
    """Typed parameter values for the launch arguments that were given (non-empty)."""
    overrides: dict[str, Any] = {}
    for name, kind in _PARAMETER_ARGUMENTS.items():
        raw = str(values.get(name, "")).strip()
        if not raw:
            continue
        if kind is bool:
            if raw.lower() not in ("true", "false"):
                raise ValueError(f"launch argument {name} must be true or false, not {raw!r}")
            overrides[name] = raw.lower() == "true"
        else:
            overrides[name] = raw
    return overrides


def ros_arguments(params_file: str, *, overrides: Mapping[str, Any] | None = None, namespace: str = "",
                  robot_state_topic: str = "/robot_state", log_level: str = "") -> list[str]:
    """The `--ros-args …` a launch of this node passes (parameter file, remappings, overrides)."""
    args = ["--ros-args", "--params-file", params_file]
    for source, target in remappings(robot_state_topic):
        args += ["-r", f"{source}:={target}"]
    if namespace:
        args += ["-r", f"__ns:={namespace if namespace.startswith('/') else '/' + namespace}"]
    for name, value in (overrides or {}).items():
        args += ["-p", f"{name}:={_param_text(value)}"]
    if log_level:
        args += ["--log-level", log_level]
    return args


def _param_text(value: Any) -> str:
    """rcl parses `-p` values as YAML: strings are always quoted so "123" or "true" stay strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)
