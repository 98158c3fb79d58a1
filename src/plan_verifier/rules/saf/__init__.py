"""R-SAF: safety at the targets — reach, speeds, floor, gripper logic, joint limits, payload, keep-out."""
