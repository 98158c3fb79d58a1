"""R-GRF: the cell graph — seed 003's checks, each a rule judging the state simulation's trace (see `trace.py`)."""
