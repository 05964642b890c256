"""b2Distance.cpp: GJK ``b2Distance`` with its simplex cache (Box2D 2.3), and ``b2TestOverlap`` of shapes.

A proxy (b2DistanceProxy) is ``(vertices, count, radius)``: a float32 ``(>= count, 2)`` view of the
shape's vertices (``shapes.proxy``). The simplex cache (b2SimplexCache) is a float32 ``(CACHE_SIZE,)``
array ``[metric, count, indexA[3], indexB[3]]`` (the small integers are exact in float32); a fresh cache
has count 0. Simplex vertices are tuples ``(wA.x, wA.y, wB.x, wB.y, w.x, w.y, a, indexA, indexB)``, so a
call allocates nothing.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d.columns import Columns
from nbgym._box2d.math import rot_mul_t, sqrtf, xf_mul
from nbgym.engine._jit import borrowing_kernel

# the simplex cache's floats (b2SimplexCache, its metric first)
_cache = Columns()
CACHE_METRIC, CACHE_COUNT = _cache.add_each(2)
CACHE_INDEX_A = _cache.add(3)
CACHE_INDEX_B = _cache.add(3)
CACHE_SIZE = _cache.end()
MAX_ITERATIONS = 20  # k_maxIters

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_TWO = np.float32(2.0)
_EPSILON = np.float32(1.1920928955078125e-07)
_MAX_FLOAT = np.float32(np.finfo(np.float32).max)


def new_cache() -> np.ndarray:
    """An empty simplex cache (count 0)."""
    return np.zeros(CACHE_SIZE, np.float32)


@borrowing_kernel
def get_support(vertices, count, dx, dy):
    """``b2DistanceProxy::GetSupport(d)``."""
    best_index = 0
    best_value = vertices[0, 0] * dx + vertices[0, 1] * dy
    for i in range(1, count):
        value = vertices[i, 0] * dx + vertices[i, 1] * dy
        if value > best_value:
            best_index = i
            best_value = value
    return best_index


@borrowing_kernel
def _vertex(va, xf_a, vb, xf_b, ia, ib, a):
    wax, way = xf_mul(xf_a, va[ia, 0], va[ia, 1])
    wbx, wby = xf_mul(xf_b, vb[ib, 0], vb[ib, 1])
    return (wax, way, wbx, wby, wbx - wax, wby - way, a, ia, ib)


@borrowing_kernel
def _metric(count, v1, v2, v3):
    """b2Simplex::GetMetric."""
    if count == 2:
        dx = v1[4] - v2[4]
        dy = v1[5] - v2[5]
        return sqrtf(dx * dx + dy * dy)
    if count == 3:
        ax = v2[4] - v1[4]
        ay = v2[5] - v1[5]
        bx = v3[4] - v1[4]
        by = v3[5] - v1[5]
        return ax * by - ay * bx
    return _ZERO


@borrowing_kernel
def _with_a(v, a):
    return (v[0], v[1], v[2], v[3], v[4], v[5], a, v[7], v[8])


@borrowing_kernel
def _solve2(v1, v2):
    """b2Simplex::Solve2: ``(count, v1, v2)``."""
    e12x = v2[4] - v1[4]
    e12y = v2[5] - v1[5]
    d12_2 = -(v1[4] * e12x + v1[5] * e12y)
    if d12_2 <= _ZERO:
        return 1, _with_a(v1, _ONE), v2
    d12_1 = v2[4] * e12x + v2[5] * e12y
    if d12_1 <= _ZERO:
        v2 = _with_a(v2, _ONE)
        return 1, v2, v2
    inv = _ONE / (d12_1 + d12_2)
    return 2, _with_a(v1, d12_1 * inv), _with_a(v2, d12_2 * inv)


@borrowing_kernel
def _solve3(v1, v2, v3):
    """b2Simplex::Solve3: ``(count, v1, v2, v3)``."""
    w1x, w1y = v1[4], v1[5]
    w2x, w2y = v2[4], v2[5]
    w3x, w3y = v3[4], v3[5]
    e12x = w2x - w1x
    e12y = w2y - w1y
    d12_1 = w2x * e12x + w2y * e12y
    d12_2 = -(w1x * e12x + w1y * e12y)
    e13x = w3x - w1x
    e13y = w3y - w1y
    d13_1 = w3x * e13x + w3y * e13y
    d13_2 = -(w1x * e13x + w1y * e13y)
    e23x = w3x - w2x
    e23y = w3y - w2y
    d23_1 = w3x * e23x + w3y * e23y
    d23_2 = -(w2x * e23x + w2y * e23y)
    n123 = e12x * e13y - e12y * e13x
    d123_1 = n123 * (w2x * w3y - w2y * w3x)
    d123_2 = n123 * (w3x * w1y - w3y * w1x)
    d123_3 = n123 * (w1x * w2y - w1y * w2x)
    if d12_2 <= _ZERO and d13_2 <= _ZERO:
        return 1, _with_a(v1, _ONE), v2, v3
    if d12_1 > _ZERO and d12_2 > _ZERO and d123_3 <= _ZERO:
        inv = _ONE / (d12_1 + d12_2)
        return 2, _with_a(v1, d12_1 * inv), _with_a(v2, d12_2 * inv), v3
    if d13_1 > _ZERO and d13_2 > _ZERO and d123_2 <= _ZERO:
        inv = _ONE / (d13_1 + d13_2)
        v3 = _with_a(v3, d13_2 * inv)
        return 2, _with_a(v1, d13_1 * inv), v3, v3
    if d12_1 <= _ZERO and d23_2 <= _ZERO:
        v2 = _with_a(v2, _ONE)
        return 1, v2, v2, v3
    if d13_1 <= _ZERO and d23_1 <= _ZERO:
        v3 = _with_a(v3, _ONE)
        return 1, v3, v2, v3
    if d23_1 > _ZERO and d23_2 > _ZERO and d123_1 <= _ZERO:
        inv = _ONE / (d23_1 + d23_2)
        v3 = _with_a(v3, d23_2 * inv)
        return 2, v3, _with_a(v2, d23_1 * inv), v3
    inv = _ONE / (d123_1 + d123_2 + d123_3)
    return 3, _with_a(v1, d123_1 * inv), _with_a(v2, d123_2 * inv), _with_a(v3, d123_3 * inv)


@borrowing_kernel
def distance(cache, va, na, ra, xf_a, vb, nb, rb, xf_b, use_radii):
    """``b2Distance(output, cache, input)``: ``(pointA.x, pointA.y, pointB.x, pointB.y, distance, iterations)``.

    The proxies are ``(va, na, ra)`` and ``(vb, nb, rb)``; ``cache`` is read and written as Box2D's.
    """
    # b2Simplex::ReadCache
    count = int(cache[CACHE_COUNT])
    v1 = _vertex(va, xf_a, vb, xf_b, 0, 0, _ZERO)
    v2 = v1
    v3 = v1
    if count >= 1:
        v1 = _vertex(va, xf_a, vb, xf_b, int(cache[CACHE_INDEX_A]), int(cache[CACHE_INDEX_B]), _ZERO)
    if count >= 2:
        v2 = _vertex(va, xf_a, vb, xf_b, int(cache[CACHE_INDEX_A + 1]), int(cache[CACHE_INDEX_B + 1]), _ZERO)
    if count >= 3:
        v3 = _vertex(va, xf_a, vb, xf_b, int(cache[CACHE_INDEX_A + 2]), int(cache[CACHE_INDEX_B + 2]), _ZERO)
    if count > 1:
        metric1 = cache[CACHE_METRIC]
        metric2 = _metric(count, v1, v2, v3)
        if metric2 < _HALF * metric1 or _TWO * metric1 < metric2 or metric2 < _EPSILON:
            count = 0
    if count == 0:
        v1 = _vertex(va, xf_a, vb, xf_b, 0, 0, _ONE)
        count = 1
    sa0 = sa1 = sa2 = sb0 = sb1 = sb2 = 0
    iteration = 0
    while iteration < MAX_ITERATIONS:
        save_count = count
        sa0, sb0 = v1[7], v1[8]
        sa1, sb1 = v2[7], v2[8]
        sa2, sb2 = v3[7], v3[8]
        if count == 2:
            count, v1, v2 = _solve2(v1, v2)
        elif count == 3:
            count, v1, v2, v3 = _solve3(v1, v2, v3)
        if count == 3:
            break
        # GetSearchDirection
        if count == 1:
            dx = -v1[4]
            dy = -v1[5]
        else:
            e12x = v2[4] - v1[4]
            e12y = v2[5] - v1[5]
            sgn = e12x * -v1[5] - e12y * -v1[4]
            if sgn > _ZERO:
                dx = -_ONE * e12y
                dy = _ONE * e12x
            else:
                dx = _ONE * e12y
                dy = -_ONE * e12x
        if dx * dx + dy * dy < _EPSILON * _EPSILON:
            break
        lx, ly = rot_mul_t(xf_a[2], xf_a[3], -dx, -dy)
        ia = get_support(va, na, lx, ly)
        lx, ly = rot_mul_t(xf_b[2], xf_b[3], dx, dy)
        ib = get_support(vb, nb, lx, ly)
        if count == 1:  # the new vertex keeps its slot's old barycentric coordinate, as the C++
            v2 = _vertex(va, xf_a, vb, xf_b, ia, ib, v2[6])
        else:
            v3 = _vertex(va, xf_a, vb, xf_b, ia, ib, v3[6])
        iteration += 1
        duplicate = (ia == sa0 and ib == sb0) or (save_count > 1 and ia == sa1 and ib == sb1)
        duplicate = duplicate or (save_count > 2 and ia == sa2 and ib == sb2)
        if duplicate:
            break
        count += 1
    # GetWitnessPoints
    if count == 1:
        pax, pay, pbx, pby = v1[0], v1[1], v1[2], v1[3]
    elif count == 2:
        pax = v1[6] * v1[0] + v2[6] * v2[0]
        pay = v1[6] * v1[1] + v2[6] * v2[1]
        pbx = v1[6] * v1[2] + v2[6] * v2[2]
        pby = v1[6] * v1[3] + v2[6] * v2[3]
    else:
        pax = v1[6] * v1[0] + v2[6] * v2[0] + v3[6] * v3[0]
        pay = v1[6] * v1[1] + v2[6] * v2[1] + v3[6] * v3[1]
        pbx = pax
        pby = pay
    dx = pax - pbx
    dy = pay - pby
    dist = sqrtf(dx * dx + dy * dy)
    # WriteCache
    cache[CACHE_METRIC] = _metric(count, v1, v2, v3)
    cache[CACHE_COUNT] = count
    cache[CACHE_INDEX_A] = v1[7]
    cache[CACHE_INDEX_B] = v1[8]
    if count >= 2:
        cache[CACHE_INDEX_A + 1] = v2[7]
        cache[CACHE_INDEX_B + 1] = v2[8]
    if count >= 3:
        cache[CACHE_INDEX_A + 2] = v3[7]
        cache[CACHE_INDEX_B + 2] = v3[8]
    if use_radii:
        if dist > ra + rb and dist > _EPSILON:
            dist -= ra + rb
            nx = pbx - pax
            ny = pby - pay
            n = sqrtf(nx * nx + ny * ny)
            if not n < _EPSILON:
                inv = _ONE / n
                nx *= inv
                ny *= inv
            pax += ra * nx
            pay += ra * ny
            pbx -= rb * nx
            pby -= rb * ny
        else:
            px = _HALF * (pax + pbx)
            py = _HALF * (pay + pby)
            pax = px
            pay = py
            pbx = px
            pby = py
            dist = _ZERO
    return pax, pay, pbx, pby, dist, iteration


@borrowing_kernel
def test_overlap(va, na, ra, xf_a, vb, nb, rb, xf_b, cache):
    """``b2TestOverlap(shapeA, 0, shapeB, 0, xfA, xfB)`` of two proxies (``cache``: a simplex cache to use,
    emptied first)."""
    cache[:] = np.float32(0.0)
    d = distance(cache, va, na, ra, xf_a, vb, nb, rb, xf_b, True)[4]
    return d < np.float32(10.0) * _EPSILON
