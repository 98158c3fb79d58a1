"""This repository dropped into a colcon workspace builds, and the installed node serves ~/verify.

A temporary workspace gets the checkout as `src/plan_verifier`; `colcon build` builds
both packages — `plan_verifier_interfaces` (msg/, ament_cmake + rosidl) and
`plan_verifier` (the root, ament_python) — against the ROS 2 wheels of this venv, which
play the part of /opt/ros/kilted (the underlay). Then the node is started the way
`ros2 run plan_verifier verifier_node` starts it: the executable from the install
space's lib/plan_verifier/, in the environment of the workspace's `install/setup.sh`,
with the installed share/plan_verifier/config/verifier.yaml and autostart:=true. It must
become active, approve a plan through ~/verify and shut down cleanly, running the
installed Python packages and the workspace's own interface libraries (the venv holds
copies of both from scripts/bootstrap.sh; the test checks which ones the process loaded).

The wheels' CMake configs name include directories of the machine that built them;
scripts/cmake/pypi_ros_fix.cmake (the bootstrap's fix) is passed with --cmake-args. A
ROS 2 install needs no such argument: docs/ros.md has the commands for a real workspace.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from ros_harness import ROOT, NodeProcess, example, get_state, ros, verify, wait_until  # noqa: F401

pytestmark = [pytest.mark.ros, pytest.mark.slow]

VENV = Path(sys.prefix)
COLCON = VENV / "bin" / "colcon"
PACKAGES = ("plan_verifier_interfaces", "plan_verifier")


def underlay_env() -> dict[str, str]:
    """The venv as the ROS underlay, what sourcing /opt/ros/kilted/setup.sh gives on a ROS install.

    Its prefix for CMake and ament, its bin/ on PATH, its libraries (the prefix's lib/ and
    the wheels' ros_*.libs) on LD_LIBRARY_PATH in a fixed order. The wheels' bootstrapper
    (a .pth that re-executes Python with LD_LIBRARY_PATH set) is told it already ran: it
    puts the directories in a random order (a set), so the venv's copy of the interface
    libraries could shadow the workspace's.
    """
    site_packages = Path(sysconfig.get_paths()["purelib"])
    libraries = [VENV / "lib", *sorted(site_packages.glob("ros_*.libs"))]
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "COLCON_PREFIX_PATH")}
    env.update(AMENT_PREFIX_PATH=str(VENV), CMAKE_PREFIX_PATH=str(VENV), PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
               LD_LIBRARY_PATH=os.pathsep.join(map(str, libraries)), _ROS_WHEELS_BOOTSTRAP_COMPLETE="1")
    return env


def sourced_env(setup_sh: Path, env: dict[str, str]) -> dict[str, str]:
    """The environment after `. install/setup.sh` in a POSIX shell started with `env`."""
    done = subprocess.run(["sh", "-c", f'. "{setup_sh}" && env -0'], env=env, capture_output=True, timeout=60, check=True)
    return dict(item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A colcon workspace with this checkout as src/plan_verifier, built with `colcon build`."""
    ws = tmp_path_factory.mktemp("colcon_ws")
    src = ws / "src"
    src.mkdir()
    (src / "plan_verifier").symlink_to(ROOT, target_is_directory=True)  # the checkout as it is, .venv/ and build/ included
    cmd = [str(COLCON), "--log-base", "log", "build", "--base-paths", "src/plan_verifier", "src/plan_verifier/msg",
           "--cmake-args",
           f"-DCMAKE_PROJECT_INCLUDE={ROOT / 'scripts' / 'cmake' / 'pypi_ros_fix.cmake'}", f"-DPython3_EXECUTABLE={sys.executable}"]
    done = subprocess.run(cmd, cwd=ws, env=underlay_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"colcon build failed (logs in {ws / 'log'}):\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert all(f"Finished <<< {package} [" in done.stdout for package in PACKAGES), done.stdout[-3000:]
    return ws


def test_colcon_never_takes_the_venv_or_build_tree_for_packages(tmp_path):
    """The venv holds the ROS wheels' package.xml files; COLCON_IGNORE (scripts/bootstrap.sh) keeps a crawl out of it."""
    crawled = [path for path in (VENV, ROOT / "build") if path.is_dir()]
    assert crawled, "no .venv/ or build/ to crawl (run scripts/bootstrap.sh)"
    done = subprocess.run([str(COLCON), "--log-base", "log", "build", "--base-paths", *map(str, crawled)],
                          cwd=tmp_path, env=underlay_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    packages = [path.name for path in (tmp_path / "install").iterdir() if path.is_dir()]
    assert "Starting >>>" not in done.stdout and packages == [], done.stdout[-2000:]


def test_colcon_installs_both_packages(workspace):
    install = workspace / "install"
    share = install / "plan_verifier" / "share" / "plan_verifier"
    for path in (install / "plan_verifier" / "lib" / "plan_verifier" / "verifier_node",  # where `ros2 run` looks
                 install / "plan_verifier" / "lib" / "plan_verifier" / "sim_executor",
                 install / "plan_verifier" / "share" / "ament_index" / "resource_index" / "packages" / "plan_verifier",
                 share / "package.xml", share / "config" / "verifier.yaml", share / "config" / "cells" / "weld_cell.yaml",
                 share / "config" / "robots" / "ur10e.yaml", share / "launch" / "verifier.launch.py",
                 install / "plan_verifier_interfaces" / "share" / "plan_verifier_interfaces" / "srv" / "VerifyPlan.srv",
                 install / "plan_verifier_interfaces" / "lib" / "libplan_verifier_interfaces__rosidl_typesupport_c.so"):
        assert path.exists(), f"not installed: {path.relative_to(workspace)}"
    assert os.access(install / "plan_verifier" / "lib" / "plan_verifier" / "verifier_node", os.X_OK)


def test_installed_node_starts_from_the_install_space_and_verifies(workspace, ros, tmp_path):  # noqa: F811
    install = workspace / "install"
    env = sourced_env(install / "setup.sh", underlay_env())
    probe = subprocess.run(
        [sys.executable, "-c", "import plan_verifier, plan_verifier_interfaces.srv as s; "
         "from ament_index_python.packages import get_package_share_directory as d; "
         "print(plan_verifier.__file__); print(s.__file__); print(d('plan_verifier'))"],
        env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert all(line.startswith(str(install)) for line in probe.stdout.split()), f"not the installed packages:\n{probe.stdout}"

    share = install / "plan_verifier" / "share" / "plan_verifier"
    node = NodeProcess(tmp_path / "node", {"autostart": True}, extra_env=env, params_file=share / "config" / "verifier.yaml",
                       executable=[str(install / "plan_verifier" / "lib" / "plan_verifier" / "verifier_node")]).start()
    try:
        assert wait_until(lambda: "active: serving" in node.log() or not node.alive, 60) and node.alive, node.log()
        assert f"graph cell file {share / 'config' / 'cells' / 'weld_cell.yaml'}" in node.log()
        assert get_state(ros, node) == "active"
        response = verify(ros, node, example("pick_and_place.tdl"), correlation_id="colcon-installed")
        assert (response.error_code, response.approved, response.verdict) == (0, True, "PASS"), response.report_json
        loaded = {line.split()[-1] for line in Path(f"/proc/{node.proc.pid}/maps").read_text().splitlines() if "plan_verifier_interfaces" in line}
        assert loaded and all(path.startswith(str(install)) for path in loaded), f"interface libraries not from the workspace: {sorted(loaded)}"
    finally:
        code = node.stop()
    assert code == 0, node.log()
