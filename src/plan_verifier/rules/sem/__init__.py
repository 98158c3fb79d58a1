"""R-SEM: semantics — the plan against the natural-language instruction (level FULL)."""
