"""The cell's collision geometry: the file syntax (good and bad files), the fingerprint, and the example cells' fixtures.

Bad files must fail with exit-status-2 errors that name the field; a cell
round-trips through its file form exactly; any change to the geometry changes
the fingerprint (so approved YAML and the Neo4j version stamp notice it); the
shipped cells' obstacles leave every position and every allowed straight path
clear for every tool the graph lets the robot hold there.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import yaml

from plan_verifier.collision.frames import pose_matrix
from plan_verifier.collision.scene import Body, Scene
from plan_verifier.collision.shapes import Box, Cylinder, Sphere
from plan_verifier.collision.tool_shape import ToolShape
from plan_verifier.graph.model import load_cell_file, parse_cell
from plan_verifier.graph.obstacles import CollisionObject
from plan_verifier.resources import ConfigError, resolve

GOOD = {
    "name": "geometry_cell",
    "floor_z_mm": -5,
    "clearance_mm": 15,
    "positions": [
        {"name": "Home", "role": "home", "pose": [0, -300, 400, 180, 0, 90], "joints": [180, -90, 90, -90, -90, 0]},
        {"name": "Mount", "role": "tool_mount", "pose": [-400, -400, 120, 180, 0, 90]},
    ],
    "moves": [["Home", "Mount"]],
    "tools": [
        {"name": "Welder", "stand": "Stand_W", "position": "Mount", "tcp": [0, 0, 250, 0, 0, 0],
         "shape": {"type": "cylinder", "radius_mm": 25, "length_mm": 250}},
        {"name": "Camera", "stand": "Stand_C", "position": "Mount", "tcp": [0, 30, 200, 0, 0, 0],
         "shape": {"type": "box", "size_mm": [90, 70, 120], "pose": [0, 30, 0, 0, 0, 0]}},
    ],
    "collision_objects": [
        {"name": "Fixture_1", "shape": "box", "size": [200, 300, 250], "pose": [600, 0, 125, 0, 0, 0]},
        {"name": "Column", "shape": "cylinder", "radius": 80, "height": 1200, "pose": [-700, 0, 600, 0, 0, 0]},
        {"name": "Dome", "shape": "sphere", "radius": 150, "pose": [0, 900, 0, 0, 0, 0]},
    ],
}


def _with(change) -> dict:
    data = copy.deepcopy(GOOD)
    change(data)
    return data


# --------------------------------------------------------------------------- reading


def test_a_cell_carries_its_collision_geometry() -> None:
    cell = parse_cell(GOOD)
    assert (cell.floor_z_mm, cell.clearance_mm) == (-5.0, 15.0)
    assert dict(cell.collision_objects) == {
        "Fixture_1": CollisionObject("Fixture_1", Box(200.0, 300.0, 250.0), (600.0, 0.0, 125.0, 0.0, 0.0, 0.0)),
        "Column": CollisionObject("Column", Cylinder(80.0, 1200.0), (-700.0, 0.0, 600.0, 0.0, 0.0, 0.0)),
        "Dome": CollisionObject("Dome", Sphere(150.0), (0.0, 900.0, 0.0, 0.0, 0.0, 0.0)),
    }
    assert cell.positions["Home"].joints == (180.0, -90.0, 90.0, -90.0, -90.0, 0.0)
    assert cell.positions["Mount"].joints is None
    assert cell.tools["Welder"].tcp == (0.0, 0.0, 250.0, 0.0, 0.0, 0.0)
    assert cell.tools["Welder"].shape == ToolShape(Cylinder(25.0, 250.0))
    assert cell.tools["Camera"].shape == ToolShape(Box(90.0, 70.0, 120.0), (0.0, 30.0, 0.0, 0.0, 0.0, 0.0))


def test_a_cell_without_geometry_has_no_obstacles() -> None:
    cell = load_cell_file(resolve("cells", "weld_cell"))
    bare = parse_cell({k: v for k, v in cell.to_file_dict().items() if k not in ("floor_z_mm", "clearance_mm", "collision_objects")})
    assert (bare.floor_z_mm, bare.clearance_mm, dict(bare.collision_objects)) == (None, None, {})
    scene = Scene.from_cell(bare, default_floor_z_mm=-1.0)
    assert (scene.floor_z_mm, scene.clearance_mm, scene.obstacles) == (-1.0, 10.0, ())


def test_the_tool_shape_stands_on_the_flange() -> None:
    """Without a pose the shape runs from the flange face along +z; a pose moves its mount frame."""
    torch = ToolShape(Cylinder(25.0, 250.0)).in_flange()
    assert np.allclose(torch[:3, 3], [0.0, 0.0, 125.0]) and np.allclose(torch[:3, :3], np.eye(3))
    camera = ToolShape(Box(90.0, 70.0, 120.0), (0.0, 30.0, 10.0, 0.0, 90.0, 0.0)).in_flange()
    assert np.allclose(camera[:3, 3], [60.0, 30.0, 10.0])  # the mount's z axis points along the flange's x
    assert np.allclose(ToolShape(Sphere(40.0)).in_flange()[:3, 3], [0.0, 0.0, 40.0])


@pytest.mark.parametrize("name", ["weld_cell", "assembly_cell"])
def test_a_cell_round_trips_through_its_file_form(name: str, tmp_path) -> None:
    cell = load_cell_file(resolve("cells", name))
    assert cell.collision_objects and all(t.shape is not None and t.tcp is not None for t in cell.tools.values())
    (tmp_path / "again.yaml").write_text(yaml.safe_dump(cell.to_file_dict(), sort_keys=False), encoding="utf-8")
    again = load_cell_file(tmp_path / "again.yaml")
    assert again == cell and again.fingerprint == cell.fingerprint
    assert parse_cell(GOOD).to_file_dict() == parse_cell(parse_cell(GOOD).to_file_dict()).to_file_dict()


# --------------------------------------------------------------------------- bad files


@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda d: d["collision_objects"][0].update(size=[200, 0, 250]), "collision_objects.0.box.size.1", "greater than 0"),
    (lambda d: d["collision_objects"][1].update(radius=-80), "collision_objects.1.cylinder.radius", "greater than 0"),
    (lambda d: d["collision_objects"][1].update(height=float("inf")), "collision_objects.1.cylinder.height", "finite"),
    (lambda d: d["collision_objects"][0].update(pose=[600, 0, float("nan"), 0, 0, 0]), "collision_objects.0.box.pose.2", "finite"),
    (lambda d: d["collision_objects"][0].update(pose=[600, 0, 125]), "collision_objects.0.box.pose", "at least 6 items"),
    (lambda d: d["collision_objects"][0].update(colour="red"), "collision_objects.0.box.colour", "Extra inputs"),
    (lambda d: d["collision_objects"][0].update(shape="cone"), "collision_objects.0", "'box', 'cylinder', 'sphere'"),
    (lambda d: d["collision_objects"][2].update(height=3), "collision_objects.2.sphere.height", "Extra inputs"),
    (lambda d: d["collision_objects"][1].pop("height"), "collision_objects.1.cylinder.height", "Field required"),
    (lambda d: d["collision_objects"][1].update(name="Fixture_1"), "(top level)", "duplicate names: Fixture_1"),
    (lambda d: d["collision_objects"][1].update(name="floor"), "(top level)", "'floor' is the name of the floor plane"),
    (lambda d: d.update(clearance_mm=-1), "clearance_mm", "greater than or equal to 0"),
    (lambda d: d.update(floor_z_mm="low"), "floor_z_mm", "valid number"),
    (lambda d: d["positions"][0].update(joints=[0, 0, 0, 0, 0]), "positions.0.joints", "at least 6 items"),
    (lambda d: d["tools"][0].update(tcp=[0, 0, 250, 0, 0, 0, 1]), "tools.0.tcp", "at most 6 items"),
    (lambda d: d["tools"][0].update(shape={"type": "cylinder", "radius_mm": 25}), "tools.0.shape.cylinder.length_mm", "Field required"),
    (lambda d: d["tools"][0].update(shape={"type": "cone", "radius_mm": 25}), "tools.0.shape", "'box', 'cylinder', 'capsule', 'sphere'"),
    (lambda d: d["tools"][1]["shape"].update(size_mm=[90, 70]), "tools.1.shape.box.size_mm", "at least 3 items"),
    (lambda d: d["tools"][1]["shape"].update(size=[90, 70, 10]), "tools.1.shape.box.size", "Extra inputs"),
])
def test_a_bad_geometry_names_the_field(change, field: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_cell(_with(change), "bad.yaml")
    text = str(raised.value)
    assert text.startswith(f"invalid cell file bad.yaml: {field}: ") and message in text, text


# --------------------------------------------------------------------------- the fingerprint


@pytest.mark.parametrize("change", [
    lambda d: d["collision_objects"][0]["pose"].__setitem__(0, 601),
    lambda d: d["collision_objects"][0].update(size=[200, 300, 251]),
    lambda d: d["collision_objects"][1].update(shape="sphere", height=None) or d["collision_objects"][1].pop("height"),
    lambda d: d["collision_objects"].pop(),
    lambda d: d["collision_objects"].append({"name": "Bin", "shape": "box", "size": [1, 1, 1], "pose": [0, 0, 0, 0, 0, 0]}),
    lambda d: d.update(floor_z_mm=0),
    lambda d: d.pop("clearance_mm"),
    lambda d: d["positions"][0]["joints"].__setitem__(5, 1),
    lambda d: d["tools"][0].update(tcp=[0, 0, 251, 0, 0, 0]),
    lambda d: d["tools"][0]["shape"].update(radius_mm=26),
    lambda d: d["tools"][1]["shape"].pop("pose"),
], ids=["obstacle moved", "obstacle resized", "obstacle reshaped", "obstacle removed", "obstacle added", "floor",
        "clearance", "joints", "tcp", "tool shape", "tool mount"])
def test_any_geometry_change_changes_the_fingerprint(change) -> None:
    assert parse_cell(_with(change)).fingerprint != parse_cell(GOOD).fingerprint


def test_the_obstacle_order_in_the_file_does_not_matter() -> None:
    reordered = _with(lambda d: d["collision_objects"].reverse())
    assert parse_cell(reordered) == parse_cell(GOOD) and parse_cell(reordered).fingerprint == parse_cell(GOOD).fingerprint


# --------------------------------------------------------------------------- the example cells' fixtures

#: A bare flange (no tool): the flange itself goes to the pose, and the last link reaches about this far around it.
BARE_WRIST_MM = 45.0


def _held(cell, position: str) -> list[str | None]:
    """What the graph lets the robot hold at a position: its own tool at a mount, a tool some routine uses at a work position."""
    role = cell.positions[position].role
    if role == "tool_mount":
        return [None, cell.tool_at(position)]
    if role == "work":
        return [None, *(t for t in cell.tools if cell.routines_using_at(t, position))]
    return [None, *cell.tools]


def _body(cell, tool: str | None, tcp_poses: np.ndarray) -> tuple[Body, np.ndarray]:
    """The tool's body (or a bare wrist) placed with its TCP at each pose."""
    if tool is None:
        return Body("bare flange", Sphere(BARE_WRIST_MM)), tcp_poses
    spec = cell.tools[tool]
    flange = tcp_poses @ np.linalg.inv(pose_matrix(spec.tcp))
    return Body(tool, spec.shape.shape), flange @ spec.shape.in_flange()


def _paths(cell):
    for name, position in cell.positions.items():
        yield name, [position.pose], _held(cell, name)
    for a, b in sorted(cell.edges):
        start, end = np.array(cell.positions[a].pose), np.array(cell.positions[b].pose)
        yield f"{a} -> {b}", [start + s * (end - start) for s in np.linspace(0.0, 1.0, 41)], sorted(
            set(_held(cell, a)) & set(_held(cell, b)), key=str)


@pytest.mark.parametrize("name", ["weld_cell", "assembly_cell"])
def test_the_example_cells_leave_the_tool_clear_at_every_position_and_allowed_path(name: str) -> None:
    """Poses are the held tool's TCP; straight paths interpolate position and yaw (the cells only turn about z)."""
    cell = load_cell_file(resolve("cells", name))
    scene = Scene.from_cell(cell, default_floor_z_mm=0.0)
    assert {o.name for o in scene.obstacles} >= {t.stand for t in cell.tools.values()}, "every tool stand is an obstacle"
    closest = math.inf
    for label, poses, tools in _paths(cell):
        frames = np.array([pose_matrix(p) for p in poses])
        for tool in tools:
            body, placed = _body(cell, tool, frames)
            result = scene.distances([body], placed[None])
            worst = int(np.argmin(result.world_mm[0]))
            assert result.world_mm[0, worst] > scene.clearance_mm, (label, tool, result.target(0, worst), result.world_mm[0, worst])
            closest = min(closest, float(result.world_mm[0, worst]))
    assert closest < 100.0  # the fixtures sit close under the work: the check is not vacuous
