"""R-CON: consistency — names defined once before use, GOAL naming and order, End(), payload bookkeeping."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.CONSISTENCY
