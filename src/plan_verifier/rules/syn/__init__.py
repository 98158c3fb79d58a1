"""R-SYN: syntax — the plan can be read (structure, statement formats, arity, parameters, schema, encoding, limits)."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.SYNTAX
