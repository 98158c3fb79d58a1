"""R-KIN: kinematics of the execution level — targets the arm can reach within its limits, paths it can follow."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.EXECUTION
