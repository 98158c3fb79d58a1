"""R-KIN: kinematics of the execution level — targets the arm can reach within its limits, paths it can follow."""
