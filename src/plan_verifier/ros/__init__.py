"""The ROS 2 side: the only code that imports rclpy or message types.

It converts messages to calls of `plan_verifier.serving` and results back to
messages; every decision is taken in the core.
"""
