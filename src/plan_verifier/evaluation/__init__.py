"""Measuring the verifier (seed 000 §3–§5): a labelled dataset with injected errors, and metrics over it.

`dataset` generates the cases (`plan-verify dataset generate`), `programs`,
`cell_plans` and `phrasing` build correct plans and their instructions,
`injector` breaks them in the ways of seed 000 §3.2, `runner` runs the
verifier over a dataset (`plan-verify eval`), `metrics` computes the figures
and `plots` draws them.
"""
