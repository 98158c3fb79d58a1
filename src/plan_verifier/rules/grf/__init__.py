"""R-GRF: the cell graph — seed 003's checks, each a rule judging the state simulation's trace (see `trace.py`)."""

from plan_verifier.findings import Category

#: The category of every rule of the family: the registry imports the family when a stage of it runs.
CATEGORY = Category.GRAPH
