"""The verification service behind the ROS node, without ROS.

Everything the node does besides converting messages lives here, so it is
tested without a ROS graph: request checking, attempt bookkeeping per
correlation id, start-state resolution, the audit log, statistics for
diagnostics, and the parameter table. `plan_verifier.ros` only translates
messages to these calls and back.
"""
