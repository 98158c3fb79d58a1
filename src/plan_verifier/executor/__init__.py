"""Executing approved plans in simulation, without ROS: timing, state changes, the walk.

`plan_verifier.ros.sim_executor` wires this to ~/approved_actions,
~/robot_state and ~/status; a Gazebo-driven executor would replace the
waiting with the simulator's motion and keep the same topics.
"""
