"""R-DOM: domain conventions — the standard pick-and-place pattern, safe heights, delays after gripper actions."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.DOMAIN
