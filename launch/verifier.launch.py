"""Start the plan_verifier lifecycle node with config/verifier.yaml.

    ros2 launch plan_verifier verifier.launch.py
    ros2 launch plan_verifier verifier.launch.py cell:=/path/to/cell.yaml namespace:=/robot1
    ros2 launch plan_verifier verifier.launch.py graph_uri:=bolt://cell-db:7687 use_sim_time:=true autostart:=false

Arguments left empty keep the parameter file's values. With autostart:=true (the
default here) the node configures and activates itself; with false, a lifecycle
manager (e.g. nav2_lifecycle_manager) or `ros2 lifecycle set` drives it. The node,
remappings and overrides come from plan_verifier.ros.launch_spec, which the tests use
to start the node exactly this way where `launch` is not installed.
"""

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import LifecycleNode

from plan_verifier.ros.launch_spec import ARGUMENTS, EXECUTABLE, NODE_NAME, PACKAGE, parameter_overrides, remappings


def _node(context):
    values = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    params_file = values["params_file"] or f"{get_package_share_directory(PACKAGE)}/config/verifier.yaml"
    return [
        LifecycleNode(
            package=PACKAGE,
            executable=EXECUTABLE,
            name=NODE_NAME,
            namespace=values["namespace"],
            parameters=[params_file, parameter_overrides(values)],
            remappings=remappings(values["robot_state_topic"]),
            arguments=["--ros-args", "--log-level", values["log_level"]],
            output="screen",
        )
    ]


def generate_launch_description():
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=description) for name, default, description in ARGUMENTS]
        + [OpaqueFunction(function=_node)]
    )
