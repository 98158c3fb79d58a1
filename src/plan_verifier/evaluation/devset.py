"""Hand-written instruction/program pairs (YAML) for the semantic stage, and their fixed hold-out split.

A development set is a directory of YAML files (`cases:` lists in seed 000
§3.1's case structure plus `style`, `language`, `tags`, `error_subtype`),
written apart from the grader's vocabulary. PASS cases are correct programs
for their instruction, FAIL cases carry exactly one semantic mistake, so
every rejected PASS case is a false alarm and every approved FAIL case a miss.

30 % of the cases are held out by a hash of their id — the same cases on
every machine and after the set grows, independent of file order — and are
meant to be measured, never debugged against: `split()` says which part a
case is in and `plan-verify eval --split` picks one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable

from plan_verifier import yaml_text
from plan_verifier.resources import config_dir

HOLDOUT_PERCENT = 30
SPLITS = ("dev", "holdout", "all")


def split(case_id: str) -> str:
    """`holdout` for a fixed 30 % of ids, `dev` for the rest."""
    bucket = int(hashlib.sha256(case_id.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "holdout" if bucket < HOLDOUT_PERCENT else "dev"


def yaml_files(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(p for p in path.glob("*.yaml") if p.is_file()))
        else:
            out.append(path)
    return out


def load(paths: Iterable[Path], which: str = "all") -> list[dict[str, Any]]:
    """The cases of these YAML files (or directories of them) in the runner's shape, restricted to a split."""
    if which not in SPLITS:
        raise ValueError(f"unknown split {which!r} (expected one of {', '.join(SPLITS)})")
    cases = []
    for path in yaml_files(paths):
        data = yaml_text.load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
            raise ValueError(f"{path}: not a development set file (no 'cases:' list)")
        for raw in data["cases"]:
            case = runner_case(raw, path)
            if which == "all" or split(case["id"]) == which:
                cases.append(case)
    return cases


def runner_case(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    """One YAML case as `evaluation.runner` runs it: category from the label, the cell as a file path."""
    verdict = str(raw.get("expected_verdict", "")).upper()
    if verdict not in ("PASS", "FAIL") or not raw.get("id") or not raw.get("natural_language"):
        raise ValueError(f"{path}: case {raw.get('id', '?')} needs id, natural_language and expected_verdict PASS|FAIL")
    cell = raw.get("cell")
    metadata = {"robot": raw.get("robot", "ur10e"), "language": raw.get("language"), "style": raw.get("style"),
                "tags": list(raw.get("tags") or []), "file": path.name}
    if cell:
        metadata["cell"] = str(config_dir() / "cells" / f"{cell}.yaml") if "/" not in str(cell) else str(cell)
    case = {"id": str(raw["id"]), "natural_language": raw["natural_language"], "plan_format": raw.get("plan_format", "tdl"),
            "expected_verdict": verdict, "category": "positive" if verdict == "PASS" else "semantic",
            "error_subtype": raw.get("error_subtype"), "error_description": raw.get("error_description"), "metadata": metadata}
    key = "json_plan" if case["plan_format"] == "json" else "tdl_code"
    case[key] = raw.get(key) or raw.get("plan") or ""
    return case
