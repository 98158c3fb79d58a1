"""R-SYS: the verifier itself — a check that crashed rejects the plan (fail closed)."""
