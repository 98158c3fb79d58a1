"""R-SYS: the verifier itself — a check that crashed rejects the plan (fail closed)."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.SAFETY
