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

from plan_verifier.collision.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere

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
    if isinstance(shape, Mesh):
        model = coal.BVHModelOBBRSS()
        model.beginModel(len(shape.triangles), len(shape.vertices))
        model.addVertices(np.ascontiguousarray(shape.vertices, dtype=float))
        model.addTriangles(np.ascontiguousarray(shape.triangles, dtype=np.int64))
        model.endModel()
        return model
    raise TypeError(f"not a collision shape: {shape!r}")


@functools.lru_cache(maxsize=512)
def convex(shape: Shape) -> Any:
    """A convex object containing the shape: a mesh's convex hull, a primitive itself."""
    if not isinstance(shape, Mesh):
        return geometry(shape)
    model = geometry(shape)
    model.buildConvexHull(False, "Qt")
    return model.convex


def mesh_distances(shape_a: Shape, frames_a: np.ndarray, shape_b: Shape, frames_b: np.ndarray,
                   cutoff: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(signed distance (K,), exact (K,), points (K, 2, 3)) for placements of two shapes, one at least a mesh.

    Three stages, each only where the one before cannot decide: the convex hulls (GJK/EPA, a
    lower bound of the meshes' distance, since each mesh lies inside its hull) — at or above
    `cutoff` that bound is the answer; then whether the meshes' triangles intersect (coal's
    BVH collision); if they do not, the exact distance between the meshes (BVH distance, with
    witness points). Where they do, the depth is the hulls' penetration depth: at least the
    meshes' own (a translation that separates the hulls separates the meshes), flagged not
    exact. A mesh wholly inside another without any triangle crossing is not seen: a link
    cannot get there without crossing first, which the swept check finds.
    """
    coal = load()
    request, tf_a, tf_b = _request()
    hull_a, hull_b = convex(shape_a), convex(shape_b)
    geo_a, geo_b = geometry(shape_a), geometry(shape_b)
    collide_request = _collide_request()
    k = frames_a.shape[0]
    out = np.empty(k)
    exact = np.zeros(k, dtype=bool)
    points = np.full((k, 2, 3), np.nan)
    rot_a, pos_a = np.ascontiguousarray(frames_a[:, :3, :3]), np.ascontiguousarray(frames_a[:, :3, 3])
    rot_b, pos_b = np.ascontiguousarray(frames_b[:, :3, :3]), np.ascontiguousarray(frames_b[:, :3, 3])
    for i in range(k):
        tf_a.setRotation(rot_a[i])
        tf_a.setTranslation(pos_a[i])
        tf_b.setRotation(rot_b[i])
        tf_b.setTranslation(pos_b[i])
        result = coal.DistanceResult()
        hull = coal.distance(hull_a, tf_a, hull_b, tf_b, request, result)
        if not abs(hull) < _IMPLAUSIBLE_MM:  # EPA gave up: the hulls overlap deeply; no better bound at hand
            hull = -_IMPLAUSIBLE_MM
        if hull >= cutoff[i]:
            out[i] = hull
            continue
        if hull <= 0.0:
            contact = coal.CollisionResult()
            if coal.collide(geo_a, tf_a, geo_b, tf_b, collide_request, contact):
                out[i] = hull
                where = contact.getContact(0).pos
                points[i, 0] = points[i, 1] = where
                continue
        result = coal.DistanceResult()
        out[i] = coal.distance(geo_a, tf_a, geo_b, tf_b, request, result)
        exact[i] = True
        points[i, 0] = result.getNearestPoint1()
        points[i, 1] = result.getNearestPoint2()
    return out, exact, points


def _collide_request() -> Any:
    cached = getattr(_local, "collide", None)
    if cached is None:
        coal = load()
        cached = _local.collide = coal.CollisionRequest()
        cached.enable_contact = True
        cached.num_max_contacts = 1
    return cached


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
