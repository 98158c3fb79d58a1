"""R-CON: consistency — names defined once before use, GOAL naming and order, End(), payload bookkeeping."""
