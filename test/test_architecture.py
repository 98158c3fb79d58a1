"""The architecture contracts of .importlinter hold, and breaking one fails this test.

import-linter (`lint-imports`) reads the import graph of plan_verifier, imports inside
functions and under TYPE_CHECKING included: rclpy and message types only in
plan_verifier.ros (the core cannot reach them through another module either), the
core in layers, no import cycles between siblings. The contracts are checked here so
that scripts/test.sh and CI enforce them; the tests below break each kind of contract
in a copy of the package to show that the check really fails.

test_replay.py's runtime check (offline `plan-verify replay` never loads rclpy) stays:
the contracts allow the command line to reach ROS through plan_verifier.ros for
`call`, `record` and `replay --live`, so only a run shows that the offline path does not.
"""

from __future__ import annotations

import configparser
import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import plan_verifier

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"
PACKAGE_DIR = Path(plan_verifier.__file__).parent
#: The layers and subpackages that may use ROS; every other child must be in the core's forbidden contract.
ROS_USERS = {"ros", "cli"}


def _contracts() -> dict[str, configparser.SectionProxy]:
    parser = configparser.ConfigParser()
    parser.read(CONFIG, encoding="utf-8")
    return {name.split(":", 2)[2]: parser[name] for name in parser.sections() if name.startswith("importlinter:contract:")}


def _lint_imports(pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """`lint-imports` on .importlinter; with `pythonpath`, on the plan_verifier package found there."""
    env = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1"}  # one line per contract in the report
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--config", str(CONFIG), "--no-cache"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold() -> None:
    done = _lint_imports()
    assert done.returncode == 0, f"an architecture contract in .importlinter is broken:\n{done.stdout}{done.stderr}"
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in done.stdout, done.stdout


def test_every_core_module_is_under_the_ros_contract() -> None:
    """New subpackages must be named in the forbidden contract (the layers contract is exhaustive by itself)."""
    children = {info.name for info in pkgutil.iter_modules([str(PACKAGE_DIR)])}
    listed = {name.removeprefix("plan_verifier.") for name in _contracts()["core-without-ros"]["source_modules"].split()}
    assert children - ROS_USERS == listed, (
        f"add {sorted(children - ROS_USERS - listed)} to / remove {sorted(listed - children)} from "
        "source_modules of [importlinter:contract:core-without-ros] in .importlinter")


def test_the_command_line_forbids_the_same_ros_packages_as_the_core() -> None:
    contracts = _contracts()
    core, cli = (contracts[key]["forbidden_modules"].split() for key in ("core-without-ros", "cli-through-ros-package"))
    assert core == cli, "keep forbidden_modules of the two ROS contracts in .importlinter identical"


#: (file to change, line appended to it, key of the contract that must break)
BREAKS = {
    "rclpy_in_the_core": ("serving/service.py", "import rclpy", "core-without-ros"),
    "the_core_through_ros": ("pipeline.py", "from plan_verifier.ros import qos", "core-without-ros"),
    "message_type_in_the_cli": ("cli/main.py", "from std_msgs.msg import String", "cli-through-ros-package"),
    "lower_layer_imports_a_higher_one": ("robots/spec.py", "from plan_verifier.rules import all_rules", "layers"),
    "undeclared_subpackage": ("motion_sketch/__init__.py", "from plan_verifier.ir import Plan", "layers"),
    "cycle_inside_a_subpackage": ("tdl/parser.py", "from plan_verifier.tdl import lower", "acyclic"),
}


@pytest.mark.parametrize("break_name", sorted(BREAKS))
def test_breaking_a_contract_fails(tmp_path, break_name) -> None:
    relative, line, contract = BREAKS[break_name]
    copy = tmp_path / "plan_verifier"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / relative
    target.parent.mkdir(exist_ok=True)
    with target.open("a", encoding="utf-8") as f:
        f.write(f"\n{line}\n")
    done = _lint_imports(pythonpath=tmp_path)
    name = _contracts()[contract]["name"]
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{name} BROKEN" in done.stdout, done.stdout
