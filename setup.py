"""plan_verifier: the ROS 2 package (ament_python) and the ROS-free core library."""

import os
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "plan_verifier"


def share(subdir: str, pattern: str) -> tuple[str, list[str]]:
    """The files (not folders) `pattern` matches, installed under share/plan_verifier/`subdir`."""
    return (f"share/{PACKAGE}/{subdir}", sorted(p for p in glob(pattern) if os.path.isfile(p)))


setup(
    name=PACKAGE,
    version="0.1.0",
    description="Verifies robot plans (TDL programs, JSON step plans) against robot specs and a cell knowledge graph",
    license="Apache-2.0",
    python_requires=">=3.11",
    package_dir={"": "src"},
    packages=find_packages("src"),
    package_data={"plan_verifier.tdl": ["*.lark"], "plan_verifier.data": ["*.yaml", "*.json"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        share("launch", "launch/*"),
        share("config", "config/*.yaml"),
        share("config/robots", "config/robots/*.yaml"),
        share("config/cells", "config/cells/*.yaml"),
        share("examples", "examples/*"),
        share("examples/repair", "examples/repair/*"),
        # The interface texts, for reading and writing bags without ROS (plan_verifier.resources.interfaces_dir).
        share("interfaces/msg", "msg/msg/*.msg"),
        share("interfaces/srv", "msg/srv/*.srv"),
    ],
    install_requires=["lark>=1.2", "pydantic>=2.6", "PyYAML>=6", "numpy>=1.26", "neo4j>=5.20", "matplotlib>=3.8", "rosbags>=0.10", "coal>=3.0"],
    zip_safe=False,
    entry_points={
        "console_scripts": [
            "plan-verify = plan_verifier.cli.main:main",
            "verifier_node = plan_verifier.ros.node:main",
            "sim_executor = plan_verifier.ros.sim_executor:main",
        ],
    },
)
