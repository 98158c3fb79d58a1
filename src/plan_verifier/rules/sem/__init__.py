"""R-SEM: semantics — the plan against the natural-language instruction (level FULL)."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.SEMANTIC
