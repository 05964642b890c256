"""b2Manifold and b2WorldManifold (b2Collision.h/.cpp): the manifold arrays, contact ids, world points.

A manifold is ``man_f`` float32 ``(MANIFOLD_FLOATS,)`` ``[localNormal.x, localNormal.y, localPoint.x,
localPoint.y]`` then per point ``i`` at ``POINTS + POINT_WIDTH * i``: ``[localPoint.x, localPoint.y,
normalImpulse, tangentImpulse]``; and ``man_i`` uint32 ``(MANIFOLD_INTS,)`` ``[type, pointCount, id0, id1]``.
An id is b2ContactID's ``key``: ``indexA | indexB << 8 | typeA << 16 | typeB << 24`` (little-endian bytes
of b2ContactFeature). Batch arrays add leading ``(rows, contacts)`` dimensions.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d.columns import Columns
from nbgym._box2d.math import normalize, rot_mul, xf_mul
from nbgym._box2d.settings import MAX_MANIFOLD_POINTS
from nbgym.engine._jit import borrowing_kernel

CIRCLES, FACE_A, FACE_B = 0, 1, 2  # b2Manifold::Type
VERTEX, FACE = 0, 1  # b2ContactFeature::Type
# a point's floats, from its offset in man_f
_point = Columns()
_point.add(2)  # localPoint
NORMAL_IMPULSE, TANGENT_IMPULSE = _point.add_each(2)
POINT_WIDTH = _point.end()
# man_f offsets
_man_f = Columns()
LOCAL_NORMAL = _man_f.add(2)
LOCAL_POINT = _man_f.add(2)
POINTS = _man_f.add(MAX_MANIFOLD_POINTS * POINT_WIDTH)
MANIFOLD_FLOATS = _man_f.end()
# man_i columns
_man_i = Columns()
TYPE, POINT_COUNT = _man_i.add_each(2)
IDS = _man_i.add(MAX_MANIFOLD_POINTS)
MANIFOLD_INTS = _man_i.end()
# world_manifold's output
_world_manifold = Columns()
WM_NORMAL = _world_manifold.add(2)
WM_POINTS = _world_manifold.add(2 * MAX_MANIFOLD_POINTS)  # x, y of each point
WM_FLOATS = _world_manifold.end()
NULL_STATE, ADD_STATE, PERSIST_STATE, REMOVE_STATE = 0, 1, 2, 3  # b2PointState

_HALF = np.float32(0.5)
_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_EPSILON = np.float32(1.1920928955078125e-07)


def new_manifolds(*shape: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``(man_f, man_i)`` batch arrays of the given leading shape."""
    return np.zeros((*shape, MANIFOLD_FLOATS), np.float32), np.zeros((*shape, MANIFOLD_INTS), np.uint32)


@borrowing_kernel
def make_id(index_a, index_b, type_a, type_b):
    """b2ContactID's key of a b2ContactFeature (indices truncated to uint8, as the C++ casts)."""
    return (index_a & 0xFF) | (index_b & 0xFF) << 8 | type_a << 16 | type_b << 24


@borrowing_kernel
def swap_id(key):
    """The key with A's and B's features swapped (b2CollidePolygons' ``flip``)."""
    return (key >> 8) & 0xFF | (key & 0xFF) << 8 | ((key >> 24) & 0xFF) << 16 | ((key >> 16) & 0xFF) << 24


@borrowing_kernel
def set_point(man_f, man_i, i, x, y, key):
    """Writes manifold point ``i``'s localPoint and id (what the collide functions write)."""
    o = POINTS + POINT_WIDTH * i
    man_f[o] = x
    man_f[o + 1] = y
    man_i[IDS + i] = key


@borrowing_kernel
def set_face(man_f, man_i, manifold_type, nx, ny, px, py):
    """Writes a manifold's type, localNormal and localPoint."""
    man_i[TYPE] = manifold_type
    man_f[LOCAL_NORMAL] = nx
    man_f[LOCAL_NORMAL + 1] = ny
    man_f[LOCAL_POINT] = px
    man_f[LOCAL_POINT + 1] = py


@borrowing_kernel
def world_manifold(man_f, man_i, xf_a, radius_a, xf_b, radius_b, out):
    """``b2WorldManifold::Initialize`` into ``out`` float32 ``(WM_FLOATS,)`` ``[normal.x, normal.y, points[0].x,
    points[0].y, points[1].x, points[1].y]``; with no point, ``out`` is left as it is (as the C++)."""
    count = man_i[POINT_COUNT]
    if count == 0:
        return
    t = man_i[TYPE]
    if t == CIRCLES:
        nx = _ONE
        ny = _ZERO
        pax, pay = xf_mul(xf_a, man_f[LOCAL_POINT], man_f[LOCAL_POINT + 1])
        pbx, pby = xf_mul(xf_b, man_f[POINTS], man_f[POINTS + 1])
        dx = pax - pbx
        dy = pay - pby
        if dx * dx + dy * dy > _EPSILON * _EPSILON:
            nx, ny, _ = normalize(pbx - pax, pby - pay)
        cax = pax + radius_a * nx
        cay = pay + radius_a * ny
        cbx = pbx - radius_b * nx
        cby = pby - radius_b * ny
        out[WM_NORMAL] = nx
        out[WM_NORMAL + 1] = ny
        out[WM_POINTS] = _HALF * (cax + cbx)
        out[WM_POINTS + 1] = _HALF * (cay + cby)
        return
    if t == FACE_A:
        xf_ref = xf_a
        xf_inc = xf_b
        r_ref = radius_a
        r_inc = radius_b
    else:
        xf_ref = xf_b
        xf_inc = xf_a
        r_ref = radius_b
        r_inc = radius_a
    nx, ny = rot_mul(xf_ref[2], xf_ref[3], man_f[LOCAL_NORMAL], man_f[LOCAL_NORMAL + 1])
    ppx, ppy = xf_mul(xf_ref, man_f[LOCAL_POINT], man_f[LOCAL_POINT + 1])
    for i in range(count):
        o = POINTS + POINT_WIDTH * i
        cx, cy = xf_mul(xf_inc, man_f[o], man_f[o + 1])
        k = r_ref - ((cx - ppx) * nx + (cy - ppy) * ny)
        c_ref_x = cx + k * nx
        c_ref_y = cy + k * ny
        c_inc_x = cx - r_inc * nx
        c_inc_y = cy - r_inc * ny
        if t == FACE_A:
            out[WM_POINTS + 2 * i] = _HALF * (c_ref_x + c_inc_x)
            out[WM_POINTS + 2 * i + 1] = _HALF * (c_ref_y + c_inc_y)
        else:
            out[WM_POINTS + 2 * i] = _HALF * (c_inc_x + c_ref_x)
            out[WM_POINTS + 2 * i + 1] = _HALF * (c_inc_y + c_ref_y)
    if t == FACE_A:
        out[WM_NORMAL] = nx
        out[WM_NORMAL + 1] = ny
    else:
        out[WM_NORMAL] = -nx
        out[WM_NORMAL + 1] = -ny


@borrowing_kernel
def point_states(man_i1, man_i2, state1, state2):
    """``b2GetPointStates`` of two manifolds' ``man_i`` into int ``(2,)`` arrays ``state1``, ``state2``."""
    for i in range(2):
        state1[i] = NULL_STATE
        state2[i] = NULL_STATE
    for i in range(man_i1[POINT_COUNT]):
        state1[i] = REMOVE_STATE
        for j in range(man_i2[POINT_COUNT]):
            if man_i2[IDS + j] == man_i1[IDS + i]:
                state1[i] = PERSIST_STATE
                break
    for i in range(man_i2[POINT_COUNT]):
        state2[i] = ADD_STATE
        for j in range(man_i1[POINT_COUNT]):
            if man_i1[IDS + j] == man_i2[IDS + i]:
                state2[i] = PERSIST_STATE
                break
