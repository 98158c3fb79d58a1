"""Issue 15: the repair's motion planner gives each query's path as a function of that query alone.

OMPL's random stream is process-wide; the planner restarts it from `planner.SEED` for every query, so the
same query gives the same path when it is the first one a process asks, and after any others (a node that has
served many requests, a replay, a repair that searched before).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from conftest import ROOT
from plan_verifier.graph.open import open_graph
from plan_verifier.repair import planner
from plan_verifier.repair.model import MotionModel
from plan_verifier.robots.spec import load_robot

# A transfer of the benchmark's (UR10e in the weld cell, tool 0): the straight joint move hits the cell, the
# search finds a way round in a few dozen collision checks.
Q0 = [0.7428365870331026, -1.3295917789906044, 1.47198997505566, -1.7131945228599526, -1.5707963267948957, 3.5179100977040867]
Q1 = [-0.6320863373623533, -1.567333019679376, 2.0850250414606752, -2.0884883485761954, -1.5707963267948957, 0.3452980437544708]

ALONE = """
import json, numpy as np
from plan_verifier.graph.open import open_graph
from plan_verifier.repair import planner
from plan_verifier.repair.model import MotionModel
from plan_verifier.robots.spec import load_robot
model = MotionModel(load_robot("ur10e"), open_graph(cell="weld_cell").snapshot())
mount = model.mount(tool_number=0)
raw, _ = planner._search(model, mount, np.array({q0}), np.array({q1}), planner.CHECK_BUDGET)
vias = planner.plan_path(model, mount, np.array({q0}), np.array({q1}))
print(json.dumps({{"raw": [[v.hex() for v in q] for q in raw], "vias": [[v.hex() for v in q] for q in vias]}}))
"""


def _model() -> MotionModel:
    return MotionModel(load_robot("ur10e"), open_graph(cell="weld_cell").snapshot())


def _hex(path) -> list[list[str]]:
    return [[float(v).hex() for v in q] for q in path]


def test_a_query_gives_the_same_path_alone_and_after_other_queries() -> None:
    model = _model()
    mount = model.mount(tool_number=0)
    q0, q1 = np.array(Q0), np.array(Q1)
    assert not model.joint_move_clear(mount, q0, q1)  # the search is needed: this tests OMPL's sampling, not a shortcut
    alone = subprocess.run([sys.executable, "-c", ALONE.format(q0=Q0, q1=Q1)], capture_output=True, text=True, timeout=300,
                           cwd=ROOT, check=True)
    first = json.loads(alone.stdout.strip().splitlines()[-1])
    assert first["vias"], "a path round the cell"
    # other queries first, in this process: another transfer, the way back, a start far from both
    planner._search(model, mount, q1, q0, planner.CHECK_BUDGET)
    planner._search(model, mount, q0, q0 + np.array([0.0, 0.3, -0.4, 0.2, 0.0, 0.5]), 60)
    planner.plan_path(model, mount, q1, q0)
    raw, _ = planner._search(model, mount, q0, q1, planner.CHECK_BUDGET)
    assert _hex(raw) == first["raw"]
    assert _hex(planner.plan_path(model, mount, q0, q1)) == first["vias"]
    # and asked twice in a row
    assert _hex(planner.plan_path(model, mount, q0, q1)) == first["vias"]
