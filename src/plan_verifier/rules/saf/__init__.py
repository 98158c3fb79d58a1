"""R-SAF: safety at the targets — reach, speeds, floor, gripper logic, joint limits, payload, keep-out."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.SAFETY
