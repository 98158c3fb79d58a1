"""The exact narrow phase: signed distances between two placed shapes, computed by coal.

coal (the maintained successor of hpp-fcl, the Flexible Collision Library
family MoveIt uses) computes signed distances with witness points: closed
forms for sphere/capsule pairs and GJK/EPA for the rest. docs/collision.md
has the measurements that chose it over python-fcl.

It is imported on first use, because loading it costs about 60 ms (its
compiled extension and Boost): a verification that never comes close to an
obstacle never pays for it. Long-running processes can call `load()` at
start-up instead.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import numpy as np

from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Shape, Sphere

#: GJK/EPA stop when the relative change falls below this; the caller's safety margin covers it.
SOLVER_TOLERANCE = 1e-9
#: No distance or witness coordinate in a robot cell comes near this (mm); beyond it the library failed.
_IMPLAUSIBLE_MM = 1e9

_local = threading.local()


@functools.cache
def load() -> Any:
    """The coal module (imported once)."""
    import coal

    return coal


def _request() -> tuple[Any, Any, Any]:
    """Per-thread request and two reusable transforms (coal objects are not thread-safe)."""
    cached = getattr(_local, "objects", None)
    if cached is None:
        coal = load()
        request = coal.DistanceRequest()
        request.enable_signed_distance = True
        request.gjk_tolerance = SOLVER_TOLERANCE
        request.epa_tolerance = SOLVER_TOLERANCE
        cached = _local.objects = (request, coal.Transform3s(), coal.Transform3s())
    return cached


@functools.lru_cache(maxsize=512)
def geometry(shape: Shape) -> Any:
    """coal's object for a shape (shapes are values, so equal shapes share one)."""
    coal = load()
    if isinstance(shape, Box):
        return coal.Box(shape.sx, shape.sy, shape.sz)
    if isinstance(shape, Cylinder):
        return coal.Cylinder(shape.radius, shape.length)
    if isinstance(shape, Capsule):
        return coal.Capsule(shape.radius, shape.length)
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    raise TypeError(f"not a collision shape: {shape!r}")


def signed_distances(shape_a: Shape, frames_a: np.ndarray, shape_b: Shape, frames_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distance (K,), point on a (K,3), point on b (K,3)) for K placements of two shapes.

    `frames_a`/`frames_b` are (K,4,4) world transforms of the shapes' centres.
    Negative distances are penetration depths; the points are then the
    deepest points of each shape inside the other. Where the library fails
    (EPA gives up on some deep, degenerate penetrations and answers -DBL_MAX)
    the distance is NaN: the caller must not trust it.
    """
    coal = load()
    geo_a, geo_b = geometry(shape_a), geometry(shape_b)
    request, tf_a, tf_b = _request()
    k = frames_a.shape[0]
    out = np.empty(k)
    points = np.empty((k, 2, 3))
    rot_a = np.ascontiguousarray(frames_a[:, :3, :3])
    rot_b = np.ascontiguousarray(frames_b[:, :3, :3])
    pos_a = np.ascontiguousarray(frames_a[:, :3, 3])
    pos_b = np.ascontiguousarray(frames_b[:, :3, 3])
    distance, result_type = coal.distance, coal.DistanceResult
    for i in range(k):
        tf_a.setRotation(rot_a[i])
        tf_a.setTranslation(pos_a[i])
        tf_b.setRotation(rot_b[i])
        tf_b.setTranslation(pos_b[i])
        result = result_type()  # fresh each time: nothing of one query can leak into the next
        out[i] = distance(geo_a, tf_a, geo_b, tf_b, request, result)
        points[i, 0] = result.getNearestPoint1()
        points[i, 1] = result.getNearestPoint2()
    failed = ~(np.abs(out) < _IMPLAUSIBLE_MM) | ~(np.abs(points) < _IMPLAUSIBLE_MM).all(axis=(1, 2))
    out[failed] = np.nan
    return out, points[:, 0], points[:, 1]
