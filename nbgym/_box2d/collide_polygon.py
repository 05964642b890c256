"""b2CollidePolygon.cpp (Box2D 2.3.0's, as pybox2d 2.3.10 bundles it) and ``b2ClipSegmentToLine``.

Shapes are ``(shape_i, shape_f)`` views (see ``shapes``), transforms ``(4,)`` arrays, the manifold
``(man_f, man_i)`` views (see ``manifold``). A clip vertex is ``(x, y, key)`` scalars.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d.manifold import FACE, FACE_A, FACE_B, POINT_COUNT, VERTEX, make_id, set_face, set_point, swap_id
from nbgym._box2d.math import normalize, rot_mul, rot_mul_t, xf_mul, xf_mul_t
from nbgym._box2d.shapes import CENTROID, COUNT, NORMALS, RADIUS, VERTICES
from nbgym.engine._jit import borrowing_kernel

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_MAX_FLOAT = np.float32(np.finfo(np.float32).max)


@borrowing_kernel
def clip_segment_to_line(nx, ny, offset, vertex_index_a, x0, y0, k0, x1, y1, k1):
    """``b2ClipSegmentToLine`` of the segment ``(x0, y0, k0)``-``(x1, y1, k1)`` against the half-plane
    ``dot(normal, v) <= offset``: ``(count, x, y, key, x, y, key)`` (the unused output is zeros)."""
    distance0 = (nx * x0 + ny * y0) - offset
    distance1 = (nx * x1 + ny * y1) - offset
    n = 0
    ox0 = _ZERO
    oy0 = _ZERO
    ok0 = 0
    ox1 = _ZERO
    oy1 = _ZERO
    ok1 = 0
    if distance0 <= _ZERO:
        ox0, oy0, ok0 = x0, y0, k0
        n = 1
    if distance1 <= _ZERO:
        if n == 0:
            ox0, oy0, ok0 = x1, y1, k1
        else:
            ox1, oy1, ok1 = x1, y1, k1
        n += 1
    if distance0 * distance1 < _ZERO:
        interp = distance0 / (distance0 - distance1)
        x = x0 + interp * (x1 - x0)
        y = y0 + interp * (y1 - y0)
        key = make_id(vertex_index_a, (k0 >> 8) & 0xFF, VERTEX, FACE)
        if n == 0:
            ox0, oy0, ok0 = x, y, key
        else:
            ox1, oy1, ok1 = x, y, key
        n += 1
    return n, ox0, oy0, ok0, ox1, oy1, ok1


@borrowing_kernel
def edge_separation(s1, xf1, edge1, si2, s2, xf2):
    """b2EdgeSeparation: separation of poly2 from poly1's edge ``edge1``."""
    n1wx, n1wy = rot_mul(xf1[2], xf1[3], s1[NORMALS + edge1, 0], s1[NORMALS + edge1, 1])
    n1x, n1y = rot_mul_t(xf2[2], xf2[3], n1wx, n1wy)
    index = 0
    min_dot = _MAX_FLOAT
    for i in range(si2[COUNT]):
        d = s2[VERTICES + i, 0] * n1x + s2[VERTICES + i, 1] * n1y
        if d < min_dot:
            min_dot = d
            index = i
    v1x, v1y = xf_mul(xf1, s1[VERTICES + edge1, 0], s1[VERTICES + edge1, 1])
    v2x, v2y = xf_mul(xf2, s2[VERTICES + index, 0], s2[VERTICES + index, 1])
    return (v2x - v1x) * n1wx + (v2y - v1y) * n1wy


@borrowing_kernel
def find_max_separation(si1, s1, xf1, si2, s2, xf2):
    """b2FindMaxSeparation: ``(edgeIndex, separation)`` over poly1's edge normals (hill climbing)."""
    count1 = si1[COUNT]
    c2x, c2y = xf_mul(xf2, s2[CENTROID, 0], s2[CENTROID, 1])
    c1x, c1y = xf_mul(xf1, s1[CENTROID, 0], s1[CENTROID, 1])
    dlx, dly = rot_mul_t(xf1[2], xf1[3], c2x - c1x, c2y - c1y)
    edge = 0
    max_dot = -_MAX_FLOAT
    for i in range(count1):
        d = s1[NORMALS + i, 0] * dlx + s1[NORMALS + i, 1] * dly
        if d > max_dot:
            max_dot = d
            edge = i
    s = edge_separation(s1, xf1, edge, si2, s2, xf2)
    prev_edge = edge - 1 if edge - 1 >= 0 else count1 - 1
    s_prev = edge_separation(s1, xf1, prev_edge, si2, s2, xf2)
    next_edge = edge + 1 if edge + 1 < count1 else 0
    s_next = edge_separation(s1, xf1, next_edge, si2, s2, xf2)
    if s_prev > s and s_prev > s_next:
        increment = -1
        best_edge = prev_edge
        best_separation = s_prev
    elif s_next > s:
        increment = 1
        best_edge = next_edge
        best_separation = s_next
    else:
        return edge, s
    while True:
        if increment == -1:
            edge = best_edge - 1 if best_edge - 1 >= 0 else count1 - 1
        else:
            edge = best_edge + 1 if best_edge + 1 < count1 else 0
        s = edge_separation(s1, xf1, edge, si2, s2, xf2)
        if s > best_separation:
            best_edge = edge
            best_separation = s
        else:
            break
    return best_edge, best_separation


@borrowing_kernel
def find_incident_edge(s1, xf1, edge1, si2, s2, xf2):
    """b2FindIncidentEdge: the incident edge's two clip vertices ``(x, y, key, x, y, key)`` in world frame."""
    wx, wy = rot_mul(xf1[2], xf1[3], s1[NORMALS + edge1, 0], s1[NORMALS + edge1, 1])
    n1x, n1y = rot_mul_t(xf2[2], xf2[3], wx, wy)
    count2 = si2[COUNT]
    index = 0
    min_dot = _MAX_FLOAT
    for i in range(count2):
        d = n1x * s2[NORMALS + i, 0] + n1y * s2[NORMALS + i, 1]
        if d < min_dot:
            min_dot = d
            index = i
    i1 = index
    i2 = i1 + 1 if i1 + 1 < count2 else 0
    x0, y0 = xf_mul(xf2, s2[VERTICES + i1, 0], s2[VERTICES + i1, 1])
    x1, y1 = xf_mul(xf2, s2[VERTICES + i2, 0], s2[VERTICES + i2, 1])
    return x0, y0, make_id(edge1, i1, FACE, VERTEX), x1, y1, make_id(edge1, i2, FACE, VERTEX)


@borrowing_kernel
def collide_polygons(man_f, man_i, si_a, sf_a, xf_a, si_b, sf_b, xf_b):
    """``b2CollidePolygons(manifold, polyA, xfA, polyB, xfB)``."""
    man_i[POINT_COUNT] = 0
    total_radius = sf_a[RADIUS, 0] + sf_b[RADIUS, 0]
    edge_a, separation_a = find_max_separation(si_a, sf_a, xf_a, si_b, sf_b, xf_b)
    if separation_a > total_radius:
        return
    edge_b, separation_b = find_max_separation(si_b, sf_b, xf_b, si_a, sf_a, xf_a)
    if separation_b > total_radius:
        return
    if separation_b > np.float32(0.98) * separation_a + np.float32(0.001):
        si1, s1, xf1, si2, s2, xf2 = si_b, sf_b, xf_b, si_a, sf_a, xf_a
        edge1 = edge_b
        manifold_type = FACE_B
        flip = True
    else:
        si1, s1, xf1, si2, s2, xf2 = si_a, sf_a, xf_a, si_b, sf_b, xf_b
        edge1 = edge_a
        manifold_type = FACE_A
        flip = False
    man_i[0] = manifold_type
    ix0, iy0, ik0, ix1, iy1, ik1 = find_incident_edge(s1, xf1, edge1, si2, s2, xf2)
    count1 = si1[COUNT]
    iv1 = edge1
    iv2 = edge1 + 1 if edge1 + 1 < count1 else 0
    v11x = s1[VERTICES + iv1, 0]
    v11y = s1[VERTICES + iv1, 1]
    v12x = s1[VERTICES + iv2, 0]
    v12y = s1[VERTICES + iv2, 1]
    ltx, lty, _ = normalize(v12x - v11x, v12y - v11y)
    lnx = _ONE * lty
    lny = -_ONE * ltx
    ppx = _HALF * (v11x + v12x)
    ppy = _HALF * (v11y + v12y)
    tx, ty = rot_mul(xf1[2], xf1[3], ltx, lty)
    nx = _ONE * ty
    ny = -_ONE * tx
    v11x, v11y = xf_mul(xf1, v11x, v11y)
    v12x, v12y = xf_mul(xf1, v12x, v12y)
    front_offset = nx * v11x + ny * v11y
    side_offset1 = -(tx * v11x + ty * v11y) + total_radius
    side_offset2 = (tx * v12x + ty * v12y) + total_radius
    n, cx0, cy0, ck0, cx1, cy1, ck1 = clip_segment_to_line(-tx, -ty, side_offset1, iv1, ix0, iy0, ik0, ix1, iy1, ik1)
    if n < 2:
        return
    n, cx0, cy0, ck0, cx1, cy1, ck1 = clip_segment_to_line(tx, ty, side_offset2, iv2, cx0, cy0, ck0, cx1, cy1, ck1)
    if n < 2:
        return
    set_face(man_f, man_i, manifold_type, lnx, lny, ppx, ppy)
    point_count = 0
    for i in range(2):
        x, y, key = (cx0, cy0, ck0) if i == 0 else (cx1, cy1, ck1)
        separation = (nx * x + ny * y) - front_offset
        if separation <= total_radius:
            lx, ly = xf_mul_t(xf2, x, y)
            set_point(man_f, man_i, point_count, lx, ly, swap_id(key) if flip else key)
            point_count += 1
    man_i[POINT_COUNT] = point_count
