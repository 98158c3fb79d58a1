"""R-COL: collisions of the execution level — links and tool against the floor, the cell's obstacles and each other."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.EXECUTION
