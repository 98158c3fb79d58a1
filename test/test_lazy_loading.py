"""A request imports what it needs: the rule families of the stages its level runs, the readers of its format.

`plan-verify check` starts a process per call, so what it imports is most of what it costs
(README, "Performance"). The registry still knows every rule: `plan-verify rules`, the SARIF
catalogue and a later verification at another level load the families they need.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from plan_verifier import rules as registry
from plan_verifier.findings import Category, Severity
from plan_verifier.pipeline import Verifier
from plan_verifier.rules.base import Rule

RULES = Path(registry.__file__).parent
PLAN = ROOT / "examples" / "pick_and_place.tdl"


def _imported(*argv: str) -> tuple[int, set[str]]:
    """(exit status, the modules a fresh `plan-verify ARGV` process has imported when it is done)."""
    code = ("import sys, io, contextlib; from plan_verifier.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): status = main(sys.argv[1:])\n"
            "print(status, *sorted(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120, check=True)
    status, *modules = done.stdout.split()
    return int(status), set(modules)


def _under(modules: set[str], *packages: str) -> list[str]:
    """The modules of these packages; `pkg.` names the package's modules but not the package (a rule family's
    `__init__`, which only says the family's category)."""
    return sorted(m for m in modules if any(m.startswith(p) if p.endswith(".") else (m == p or m.startswith(p + "."))
                                            for p in packages))


def test_a_check_at_standard_loads_neither_the_semantic_stage_nor_the_json_readers() -> None:
    status, modules = _imported("check", str(PLAN))
    assert status == 0
    assert not _under(modules, "plan_verifier.semantic", "plan_verifier.rules.sem.", "plan_verifier.plans"), \
        _under(modules, "plan_verifier.semantic", "plan_verifier.rules.sem.", "plan_verifier.plans")
    assert not _under(modules, "coal", "pinocchio", "matplotlib", "rclpy")
    assert "plan_verifier.motion.simulate" in modules and "plan_verifier.rules.kin.r_kin_004" in modules


def test_a_check_at_basic_loads_no_execution_level() -> None:
    status, modules = _imported("check", str(PLAN), "--level", "BASIC")
    assert status == 0
    assert not _under(modules, "plan_verifier.motion", "plan_verifier.rules.kin.", "plan_verifier.rules.col.",
                      "plan_verifier.rules.sem.", "plan_verifier.semantic")
    # The consistency family is loaded for its every-level rules (a name defined nowhere is never approved).
    assert "plan_verifier.rules.con.r_con_001" in modules


def test_basic_still_rejects_a_name_defined_nowhere(tmp_path) -> None:
    plan = tmp_path / "undefined.tdl"
    plan.write_text(PLAN.read_text(encoding="utf-8").replace("PosX(", "PosX(foo + ", 1), encoding="utf-8")
    status, modules = _imported("check", str(plan), "--level", "BASIC", "--format", "json")
    assert status != 0
    assert not _under(modules, "plan_verifier.motion", "plan_verifier.rules.sem.")


def test_only_consistency_rules_run_at_every_level() -> None:
    """A lower level loads the every-level categories' families and no others, so a rule elsewhere could not run."""
    every = [cls for cls in registry.all_rules() if cls.every_level]
    assert every and {cls.category for cls in every} <= registry.EVERY_LEVEL_CATEGORIES


def test_the_catalogue_still_lists_every_rule_module() -> None:
    on_disk = {p.stem.replace("r_", "R-", 1).replace("_", "-").upper() for p in RULES.glob("*/r_*_*.py")}
    listed = subprocess.run([sys.executable, "-c", "import sys; from plan_verifier.cli.main import main; sys.exit(main(sys.argv[1:]))",
                             "rules", "--format", "json"], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert {r["id"] for r in json.loads(listed.stdout)} == on_disk
    assert {r.id for r in registry.all_rules()} == on_disk


def test_one_verifier_loads_the_semantic_stage_when_a_verification_first_needs_it() -> None:
    verifier = Verifier("ur10e", level="STANDARD")
    plan = PLAN.read_text(encoding="utf-8")
    standard = verifier.verify(plan)
    full = verifier.verify(plan, level="FULL", instruction="weld the bracket to the frame")
    assert not any(f.category is Category.SEMANTIC for f in standard.findings)
    assert any(f.category is Category.SEMANTIC and f.severity is not Severity.INFO for f in full.findings), \
        [(f.rule_id, f.message) for f in full.findings]


def test_a_rule_lives_in_the_family_of_its_category() -> None:
    class Misfiled(Rule):
        """Not a rule: a semantic check filed among the safety rules."""

        id = "R-SAF-999"
        name = "misfiled"
        severity = Severity.WARNING
        category = Category.SEMANTIC

    Misfiled.__module__ = "plan_verifier.rules.saf.r_saf_999"
    with pytest.raises(RuntimeError, match="R-SAF-999 has category semantic"):
        registry.register(Misfiled)
    with pytest.raises(KeyError):
        registry.get("R-SAF-999")
