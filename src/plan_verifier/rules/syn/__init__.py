"""R-SYN: syntax — the plan can be read (structure, statement formats, arity, parameters, schema, encoding, limits)."""
