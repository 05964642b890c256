"""b2CollideEdge.cpp: ``b2CollideEdgeAndCircle`` and ``b2CollideEdgeAndPolygon`` (b2EPCollider), Box2D 2.3,
with the edge's adjacent vertices (``m_vertex0``/``m_vertex3``) taken into account."""

from __future__ import annotations

import numpy as np

from nbgym._box2d.collide_polygon import clip_segment_to_line
from nbgym._box2d.manifold import (
    CIRCLES,
    FACE,
    FACE_A,
    FACE_B,
    POINT_COUNT,
    TYPE,
    VERTEX,
    make_id,
    set_face,
    set_point,
    swap_id,
)
from nbgym._box2d.math import b2min, cross, normalize, rot_mul, rot_mul_t, xf_mul, xf_mul_t
from nbgym._box2d.shapes import CENTROID, COUNT, HAS_VERTEX0, HAS_VERTEX3, NORMALS, RADIUS, VERTEX0, VERTEX3, VERTICES
from nbgym.engine._jit import borrowing_kernel

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_MAX_FLOAT = np.float32(np.finfo(np.float32).max)
_RADIUS = np.float32(2.0) * (np.float32(2.0) * np.float32(0.005))  # 2 * b2_polygonRadius
_ANGULAR_SLOP = np.float32(2.0) / np.float32(180.0) * np.float32(3.14159265359)
_UNKNOWN, _EDGE_A, _EDGE_B = 0, 1, 2  # b2EPAxis::Type


@borrowing_kernel
def collide_edge_and_circle(man_f, man_i, si_a, sf_a, xf_a, si_b, sf_b, xf_b):
    """``b2CollideEdgeAndCircle(manifold, edgeA, xfA, circleB, xfB)``."""
    man_i[POINT_COUNT] = 0
    wx, wy = xf_mul(xf_b, sf_b[VERTICES, 0], sf_b[VERTICES, 1])
    qx, qy = xf_mul_t(xf_a, wx, wy)
    ax = sf_a[VERTICES, 0]
    ay = sf_a[VERTICES, 1]
    bx = sf_a[VERTICES + 1, 0]
    by = sf_a[VERTICES + 1, 1]
    ex = bx - ax
    ey = by - ay
    u = ex * (bx - qx) + ey * (by - qy)
    v = ex * (qx - ax) + ey * (qy - ay)
    radius = sf_a[RADIUS, 0] + sf_b[RADIUS, 0]
    mx = sf_b[VERTICES, 0]
    my = sf_b[VERTICES, 1]
    if v <= _ZERO:
        dx = qx - ax
        dy = qy - ay
        if dx * dx + dy * dy > radius * radius:
            return
        if si_a[HAS_VERTEX0]:
            e1x = ax - sf_a[VERTEX0, 0]
            e1y = ay - sf_a[VERTEX0, 1]
            if e1x * (ax - qx) + e1y * (ay - qy) > _ZERO:
                return
        man_i[POINT_COUNT] = 1
        set_face(man_f, man_i, CIRCLES, _ZERO, _ZERO, ax, ay)
        set_point(man_f, man_i, 0, mx, my, make_id(0, 0, VERTEX, VERTEX))
        return
    if u <= _ZERO:
        dx = qx - bx
        dy = qy - by
        if dx * dx + dy * dy > radius * radius:
            return
        if si_a[HAS_VERTEX3]:
            e2x = sf_a[VERTEX3, 0] - bx
            e2y = sf_a[VERTEX3, 1] - by
            if e2x * (qx - bx) + e2y * (qy - by) > _ZERO:
                return
        man_i[POINT_COUNT] = 1
        set_face(man_f, man_i, CIRCLES, _ZERO, _ZERO, bx, by)
        set_point(man_f, man_i, 0, mx, my, make_id(1, 0, VERTEX, VERTEX))
        return
    den = ex * ex + ey * ey
    inv = _ONE / den
    px = inv * (u * ax + v * bx)
    py = inv * (u * ay + v * by)
    dx = qx - px
    dy = qy - py
    if dx * dx + dy * dy > radius * radius:
        return
    nx = -ey
    ny = ex
    if nx * (qx - ax) + ny * (qy - ay) < _ZERO:
        nx = -nx
        ny = -ny
    nx, ny, _ = normalize(nx, ny)
    man_i[POINT_COUNT] = 1
    set_face(man_f, man_i, FACE_A, nx, ny, ax, ay)
    set_point(man_f, man_i, 0, mx, my, make_id(0, 0, FACE, VERTEX))


@borrowing_kernel
def _vertex_b(sf_b, xf, i):
    """Polygon B's vertex ``i`` in frame A (b2EPCollider's m_polygonB, recomputed: the same bits each time)."""
    return xf_mul(xf, sf_b[VERTICES + i, 0], sf_b[VERTICES + i, 1])


@borrowing_kernel
def _normal_b(sf_b, xf, i):
    return rot_mul(xf[2], xf[3], sf_b[NORMALS + i, 0], sf_b[NORMALS + i, 1])


@borrowing_kernel
def collide_edge_and_polygon(man_f, man_i, si_a, sf_a, xf_a, si_b, sf_b, xf_b):
    """``b2CollideEdgeAndPolygon(manifold, edgeA, xfA, polygonB, xfB)`` (b2EPCollider::Collide)."""
    # m_xf = b2MulT(xfA, xfB), as a tuple (p.x, p.y, q.s, q.c)
    rpx, rpy = rot_mul_t(xf_a[2], xf_a[3], xf_b[0] - xf_a[0], xf_b[1] - xf_a[1])
    xf = (rpx, rpy, xf_a[3] * xf_b[2] - xf_a[2] * xf_b[3], xf_a[3] * xf_b[3] + xf_a[2] * xf_b[2])
    cbx, cby = xf_mul(xf, sf_b[CENTROID, 0], sf_b[CENTROID, 1])
    v0x = sf_a[VERTEX0, 0]
    v0y = sf_a[VERTEX0, 1]
    v1x = sf_a[VERTICES, 0]
    v1y = sf_a[VERTICES, 1]
    v2x = sf_a[VERTICES + 1, 0]
    v2y = sf_a[VERTICES + 1, 1]
    v3x = sf_a[VERTEX3, 0]
    v3y = sf_a[VERTEX3, 1]
    has0 = si_a[HAS_VERTEX0] != 0
    has3 = si_a[HAS_VERTEX3] != 0
    e1x, e1y, _ = normalize(v2x - v1x, v2y - v1y)
    n1x = e1y
    n1y = -e1x
    offset1 = n1x * (cbx - v1x) + n1y * (cby - v1y)
    offset0 = _ZERO
    offset2 = _ZERO
    convex1 = False
    convex2 = False
    n0x = _ZERO
    n0y = _ZERO
    n2x = _ZERO
    n2y = _ZERO
    if has0:
        e0x, e0y, _ = normalize(v1x - v0x, v1y - v0y)
        n0x = e0y
        n0y = -e0x
        convex1 = cross(e0x, e0y, e1x, e1y) >= _ZERO
        offset0 = n0x * (cbx - v0x) + n0y * (cby - v0y)
    if has3:
        e2x, e2y, _ = normalize(v3x - v2x, v3y - v2y)
        n2x = e2y
        n2y = -e2x
        convex2 = cross(e1x, e1y, e2x, e2y) > _ZERO
        offset2 = n2x * (cbx - v2x) + n2y * (cby - v2y)
    # front or back collision, and the normal limits (lower, upper), as b2EPCollider::Collide
    if has0 and has3:
        if convex1 and convex2:
            front = offset0 >= _ZERO or offset1 >= _ZERO or offset2 >= _ZERO
            if front:
                lx, ly, ux, uy = n0x, n0y, n2x, n2y
            else:
                lx, ly, ux, uy = -n1x, -n1y, -n1x, -n1y
        elif convex1:
            front = offset0 >= _ZERO or (offset1 >= _ZERO and offset2 >= _ZERO)
            if front:
                lx, ly, ux, uy = n0x, n0y, n1x, n1y
            else:
                lx, ly, ux, uy = -n2x, -n2y, -n1x, -n1y
        elif convex2:
            front = offset2 >= _ZERO or (offset0 >= _ZERO and offset1 >= _ZERO)
            if front:
                lx, ly, ux, uy = n1x, n1y, n2x, n2y
            else:
                lx, ly, ux, uy = -n1x, -n1y, -n0x, -n0y
        else:
            front = offset0 >= _ZERO and offset1 >= _ZERO and offset2 >= _ZERO
            if front:
                lx, ly, ux, uy = n1x, n1y, n1x, n1y
            else:
                lx, ly, ux, uy = -n2x, -n2y, -n0x, -n0y
    elif has0:
        if convex1:
            front = offset0 >= _ZERO or offset1 >= _ZERO
            if front:
                lx, ly, ux, uy = n0x, n0y, -n1x, -n1y
            else:
                lx, ly, ux, uy = n1x, n1y, -n1x, -n1y
        else:
            front = offset0 >= _ZERO and offset1 >= _ZERO
            if front:
                lx, ly, ux, uy = n1x, n1y, -n1x, -n1y
            else:
                lx, ly, ux, uy = n1x, n1y, -n0x, -n0y
    elif has3:
        if convex2:
            front = offset1 >= _ZERO or offset2 >= _ZERO
            if front:
                lx, ly, ux, uy = -n1x, -n1y, n2x, n2y
            else:
                lx, ly, ux, uy = -n1x, -n1y, n1x, n1y
        else:
            front = offset1 >= _ZERO and offset2 >= _ZERO
            if front:
                lx, ly, ux, uy = -n1x, -n1y, n1x, n1y
            else:
                lx, ly, ux, uy = -n2x, -n2y, n1x, n1y
    else:
        front = offset1 >= _ZERO
        if front:
            lx, ly, ux, uy = -n1x, -n1y, -n1x, -n1y
        else:
            lx, ly, ux, uy = n1x, n1y, n1x, n1y
    if front:
        nx, ny = n1x, n1y
    else:
        nx, ny = -n1x, -n1y
    count_b = si_b[COUNT]
    man_i[POINT_COUNT] = 0
    # ComputeEdgeSeparation
    edge_separation = _MAX_FLOAT
    for i in range(count_b):
        bx, by = _vertex_b(sf_b, xf, i)
        s = nx * (bx - v1x) + ny * (by - v1y)
        if s < edge_separation:
            edge_separation = s
    if edge_separation > _RADIUS:
        return
    # ComputePolygonSeparation
    polygon_type = _UNKNOWN
    polygon_index = -1
    polygon_separation = -_MAX_FLOAT
    perpx = -ny
    perpy = nx
    for i in range(count_b):
        bnx, bny = _normal_b(sf_b, xf, i)
        mnx = -bnx
        mny = -bny
        bx, by = _vertex_b(sf_b, xf, i)
        s1 = mnx * (bx - v1x) + mny * (by - v1y)
        s2 = mnx * (bx - v2x) + mny * (by - v2y)
        s = b2min(s1, s2)
        if s > _RADIUS:
            polygon_type = _EDGE_B
            polygon_index = i
            polygon_separation = s
            break
        if mnx * perpx + mny * perpy >= _ZERO:
            if (mnx - ux) * nx + (mny - uy) * ny < -_ANGULAR_SLOP:
                continue
        elif (mnx - lx) * nx + (mny - ly) * ny < -_ANGULAR_SLOP:
            continue
        if s > polygon_separation:
            polygon_type = _EDGE_B
            polygon_index = i
            polygon_separation = s
    if polygon_type != _UNKNOWN and polygon_separation > _RADIUS:
        return
    if polygon_type == _UNKNOWN:
        primary_edge = True
    elif polygon_separation > np.float32(0.98) * edge_separation + np.float32(0.001):
        primary_edge = False
    else:
        primary_edge = True
    if primary_edge:
        man_i[TYPE] = FACE_A
        best_index = 0
        bnx, bny = _normal_b(sf_b, xf, 0)
        best_value = nx * bnx + ny * bny
        for i in range(1, count_b):
            bnx, bny = _normal_b(sf_b, xf, i)
            value = nx * bnx + ny * bny
            if value < best_value:
                best_value = value
                best_index = i
        i1 = best_index
        i2 = i1 + 1 if i1 + 1 < count_b else 0
        ix0, iy0 = _vertex_b(sf_b, xf, i1)
        ik0 = make_id(0, i1, FACE, VERTEX)
        ix1, iy1 = _vertex_b(sf_b, xf, i2)
        ik1 = make_id(0, i2, FACE, VERTEX)
        if front:
            r1, r2 = 0, 1
            rv1x, rv1y, rv2x, rv2y = v1x, v1y, v2x, v2y
            rnx, rny = n1x, n1y
        else:
            r1, r2 = 1, 0
            rv1x, rv1y, rv2x, rv2y = v2x, v2y, v1x, v1y
            rnx, rny = -n1x, -n1y
    else:
        man_i[TYPE] = FACE_B
        ix0, iy0 = v1x, v1y
        ik0 = make_id(0, polygon_index, VERTEX, FACE)
        ix1, iy1 = v2x, v2y
        ik1 = ik0
        r1 = polygon_index
        r2 = r1 + 1 if r1 + 1 < count_b else 0
        rv1x, rv1y = _vertex_b(sf_b, xf, r1)
        rv2x, rv2y = _vertex_b(sf_b, xf, r2)
        rnx, rny = _normal_b(sf_b, xf, r1)
    sn1x = rny
    sn1y = -rnx
    sn2x = -sn1x
    sn2y = -sn1y
    side_offset1 = sn1x * rv1x + sn1y * rv1y
    side_offset2 = sn2x * rv2x + sn2y * rv2y
    n, cx0, cy0, ck0, cx1, cy1, ck1 = clip_segment_to_line(sn1x, sn1y, side_offset1, r1, ix0, iy0, ik0, ix1, iy1, ik1)
    if n < 2:
        return
    n, cx0, cy0, ck0, cx1, cy1, ck1 = clip_segment_to_line(sn2x, sn2y, side_offset2, r2, cx0, cy0, ck0, cx1, cy1, ck1)
    if n < 2:
        return
    if primary_edge:
        set_face(man_f, man_i, FACE_A, rnx, rny, rv1x, rv1y)
    else:
        set_face(
            man_f,
            man_i,
            FACE_B,
            sf_b[NORMALS + r1, 0],
            sf_b[NORMALS + r1, 1],
            sf_b[VERTICES + r1, 0],
            sf_b[VERTICES + r1, 1],
        )
    point_count = 0
    for i in range(2):
        x, y, key = (cx0, cy0, ck0) if i == 0 else (cx1, cy1, ck1)
        separation = rnx * (x - rv1x) + rny * (y - rv1y)
        if separation <= _RADIUS:
            if primary_edge:
                lpx, lpy = xf_mul_t(xf, x, y)
                set_point(man_f, man_i, point_count, lpx, lpy, key)
            else:
                set_point(man_f, man_i, point_count, x, y, swap_id(key))
            point_count += 1
    man_i[POINT_COUNT] = point_count
