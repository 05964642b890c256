"""b2CollideCircle.cpp: ``b2CollideCircles`` and ``b2CollidePolygonAndCircle`` (Box2D 2.3)."""

from __future__ import annotations

import numpy as np

from nbgym._box2d.manifold import CIRCLES, FACE_A, POINT_COUNT, set_face, set_point
from nbgym._box2d.math import normalize, xf_mul, xf_mul_t
from nbgym._box2d.shapes import COUNT, NORMALS, RADIUS, VERTICES
from nbgym.engine._jit import borrowing_kernel

_ZERO = np.float32(0.0)
_HALF = np.float32(0.5)
_MAX_FLOAT = np.float32(np.finfo(np.float32).max)
_EPSILON = np.float32(1.1920928955078125e-07)


@borrowing_kernel
def collide_circles(man_f, man_i, si_a, sf_a, xf_a, si_b, sf_b, xf_b):
    """``b2CollideCircles(manifold, circleA, xfA, circleB, xfB)``."""
    man_i[POINT_COUNT] = 0
    pax, pay = xf_mul(xf_a, sf_a[VERTICES, 0], sf_a[VERTICES, 1])
    pbx, pby = xf_mul(xf_b, sf_b[VERTICES, 0], sf_b[VERTICES, 1])
    dx = pbx - pax
    dy = pby - pay
    dist_sqr = dx * dx + dy * dy
    radius = sf_a[RADIUS, 0] + sf_b[RADIUS, 0]
    if dist_sqr > radius * radius:
        return
    set_face(man_f, man_i, CIRCLES, _ZERO, _ZERO, sf_a[VERTICES, 0], sf_a[VERTICES, 1])
    man_i[POINT_COUNT] = 1
    set_point(man_f, man_i, 0, sf_b[VERTICES, 0], sf_b[VERTICES, 1], 0)


@borrowing_kernel
def collide_polygon_and_circle(man_f, man_i, si_a, sf_a, xf_a, si_b, sf_b, xf_b):
    """``b2CollidePolygonAndCircle(manifold, polygonA, xfA, circleB, xfB)``."""
    man_i[POINT_COUNT] = 0
    cx, cy = xf_mul(xf_b, sf_b[VERTICES, 0], sf_b[VERTICES, 1])
    clx, cly = xf_mul_t(xf_a, cx, cy)
    normal_index = 0
    separation = -_MAX_FLOAT
    radius = sf_a[RADIUS, 0] + sf_b[RADIUS, 0]
    count = si_a[COUNT]
    for i in range(count):
        s = sf_a[NORMALS + i, 0] * (clx - sf_a[VERTICES + i, 0]) + sf_a[NORMALS + i, 1] * (cly - sf_a[VERTICES + i, 1])
        if s > radius:
            return
        if s > separation:
            separation = s
            normal_index = i
    i1 = normal_index
    i2 = i1 + 1 if i1 + 1 < count else 0
    v1x = sf_a[VERTICES + i1, 0]
    v1y = sf_a[VERTICES + i1, 1]
    v2x = sf_a[VERTICES + i2, 0]
    v2y = sf_a[VERTICES + i2, 1]
    mx = sf_b[VERTICES, 0]
    my = sf_b[VERTICES, 1]
    if separation < _EPSILON:
        man_i[POINT_COUNT] = 1
        set_face(
            man_f, man_i, FACE_A, sf_a[NORMALS + i1, 0], sf_a[NORMALS + i1, 1], _HALF * (v1x + v2x), _HALF * (v1y + v2y)
        )
        set_point(man_f, man_i, 0, mx, my, 0)
        return
    u1 = (clx - v1x) * (v2x - v1x) + (cly - v1y) * (v2y - v1y)
    u2 = (clx - v2x) * (v1x - v2x) + (cly - v2y) * (v1y - v2y)
    if u1 <= _ZERO or u2 <= _ZERO:
        px = v1x if u1 <= _ZERO else v2x
        py = v1y if u1 <= _ZERO else v2y
        dx = clx - px
        dy = cly - py
        if dx * dx + dy * dy > radius * radius:
            return
        man_i[POINT_COUNT] = 1
        nx, ny, _ = normalize(clx - px, cly - py)
        set_face(man_f, man_i, FACE_A, nx, ny, px, py)
        set_point(man_f, man_i, 0, mx, my, 0)
        return
    fcx = _HALF * (v1x + v2x)
    fcy = _HALF * (v1y + v2y)
    separation = (clx - fcx) * sf_a[NORMALS + i1, 0] + (cly - fcy) * sf_a[NORMALS + i1, 1]
    if separation > radius:
        return
    man_i[POINT_COUNT] = 1
    set_face(man_f, man_i, FACE_A, sf_a[NORMALS + i1, 0], sf_a[NORMALS + i1, 1], fcx, fcy)
    set_point(man_f, man_i, 0, mx, my, 0)
