"""b2TimeOfImpact.cpp: ``b2TimeOfImpact`` with ``b2SeparationFunction`` (Box2D 2.3, conservative advancement
with root finding). Proxies as in ``distance``; sweeps float32 ``(9,)`` arrays (see ``math``)."""

from __future__ import annotations

import numpy as np

from nbgym._box2d.distance import CACHE_COUNT, CACHE_INDEX_A, CACHE_INDEX_B, distance, get_support
from nbgym._box2d.math import b2abs, b2max, normalize, rot_mul, rot_mul_t, sweep_normalized, sweep_transform, xf_mul
from nbgym.engine._jit import borrowing_kernel

UNKNOWN, FAILED, OVERLAPPED, TOUCHING, SEPARATED = 0, 1, 2, 3, 4  # b2TOIOutput::State
_POINTS, _FACE_A, _FACE_B = 0, 1, 2  # b2SeparationFunction::Type
MAX_ITERATIONS = 20  # k_maxIterations
MAX_PUSH_BACK = 16  # b2_maxPolygonVertices in the wheel's b2Settings.h
MAX_ROOT_ITERATIONS = 50

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_LINEAR_SLOP = np.float32(0.005)


@borrowing_kernel
def _initialize(cache, va, vb, sweep_a, sweep_b, t1):
    """b2SeparationFunction::Initialize: ``(type, localPoint.x, localPoint.y, axis.x, axis.y, separation)``."""
    xf_a = sweep_transform(sweep_a, t1)
    xf_b = sweep_transform(sweep_b, t1)
    ia0 = int(cache[CACHE_INDEX_A])
    ib0 = int(cache[CACHE_INDEX_B])
    if int(cache[CACHE_COUNT]) == 1:
        pax, pay = xf_mul(xf_a, va[ia0, 0], va[ia0, 1])
        pbx, pby = xf_mul(xf_b, vb[ib0, 0], vb[ib0, 1])
        ax, ay, s = normalize(pbx - pax, pby - pay)
        return _POINTS, _ZERO, _ZERO, ax, ay, s
    if ia0 == int(cache[CACHE_INDEX_A + 1]):
        ib1 = int(cache[CACHE_INDEX_B + 1])
        b1x, b1y = vb[ib0, 0], vb[ib0, 1]
        b2x, b2y = vb[ib1, 0], vb[ib1, 1]
        ax, ay, _ = normalize(_ONE * (b2y - b1y), -_ONE * (b2x - b1x))
        nx, ny = rot_mul(xf_b[2], xf_b[3], ax, ay)
        lpx = _HALF * (b1x + b2x)
        lpy = _HALF * (b1y + b2y)
        pbx, pby = xf_mul(xf_b, lpx, lpy)
        pax, pay = xf_mul(xf_a, va[ia0, 0], va[ia0, 1])
        s = (pax - pbx) * nx + (pay - pby) * ny
        if s < _ZERO:
            return _FACE_B, lpx, lpy, -ax, -ay, -s
        return _FACE_B, lpx, lpy, ax, ay, s
    ia1 = int(cache[CACHE_INDEX_A + 1])
    a1x, a1y = va[ia0, 0], va[ia0, 1]
    a2x, a2y = va[ia1, 0], va[ia1, 1]
    ax, ay, _ = normalize(_ONE * (a2y - a1y), -_ONE * (a2x - a1x))
    nx, ny = rot_mul(xf_a[2], xf_a[3], ax, ay)
    lpx = _HALF * (a1x + a2x)
    lpy = _HALF * (a1y + a2y)
    pax, pay = xf_mul(xf_a, lpx, lpy)
    pbx, pby = xf_mul(xf_b, vb[ib0, 0], vb[ib0, 1])
    s = (pbx - pax) * nx + (pby - pay) * ny
    if s < _ZERO:
        return _FACE_A, lpx, lpy, -ax, -ay, -s
    return _FACE_A, lpx, lpy, ax, ay, s


@borrowing_kernel
def _find_min_separation(kind, lpx, lpy, ax, ay, va, na, vb, nb, sweep_a, sweep_b, t):
    """b2SeparationFunction::FindMinSeparation: ``(indexA, indexB, separation)``."""
    xf_a = sweep_transform(sweep_a, t)
    xf_b = sweep_transform(sweep_b, t)
    if kind == _POINTS:
        dax, day = rot_mul_t(xf_a[2], xf_a[3], ax, ay)
        dbx, dby = rot_mul_t(xf_b[2], xf_b[3], -ax, -ay)
        ia = get_support(va, na, dax, day)
        ib = get_support(vb, nb, dbx, dby)
        pax, pay = xf_mul(xf_a, va[ia, 0], va[ia, 1])
        pbx, pby = xf_mul(xf_b, vb[ib, 0], vb[ib, 1])
        return ia, ib, (pbx - pax) * ax + (pby - pay) * ay
    if kind == _FACE_A:
        nx, ny = rot_mul(xf_a[2], xf_a[3], ax, ay)
        pax, pay = xf_mul(xf_a, lpx, lpy)
        dbx, dby = rot_mul_t(xf_b[2], xf_b[3], -nx, -ny)
        ib = get_support(vb, nb, dbx, dby)
        pbx, pby = xf_mul(xf_b, vb[ib, 0], vb[ib, 1])
        return -1, ib, (pbx - pax) * nx + (pby - pay) * ny
    nx, ny = rot_mul(xf_b[2], xf_b[3], ax, ay)
    pbx, pby = xf_mul(xf_b, lpx, lpy)
    dax, day = rot_mul_t(xf_a[2], xf_a[3], -nx, -ny)
    ia = get_support(va, na, dax, day)
    pax, pay = xf_mul(xf_a, va[ia, 0], va[ia, 1])
    return ia, -1, (pax - pbx) * nx + (pay - pby) * ny


@borrowing_kernel
def _evaluate(kind, lpx, lpy, ax, ay, va, vb, sweep_a, sweep_b, ia, ib, t):
    """b2SeparationFunction::Evaluate."""
    xf_a = sweep_transform(sweep_a, t)
    xf_b = sweep_transform(sweep_b, t)
    if kind == _POINTS:
        pax, pay = xf_mul(xf_a, va[ia, 0], va[ia, 1])
        pbx, pby = xf_mul(xf_b, vb[ib, 0], vb[ib, 1])
        return (pbx - pax) * ax + (pby - pay) * ay
    if kind == _FACE_A:
        nx, ny = rot_mul(xf_a[2], xf_a[3], ax, ay)
        pax, pay = xf_mul(xf_a, lpx, lpy)
        pbx, pby = xf_mul(xf_b, vb[ib, 0], vb[ib, 1])
        return (pbx - pax) * nx + (pby - pay) * ny
    nx, ny = rot_mul(xf_b[2], xf_b[3], ax, ay)
    pbx, pby = xf_mul(xf_b, lpx, lpy)
    pax, pay = xf_mul(xf_a, va[ia, 0], va[ia, 1])
    return (pax - pbx) * nx + (pay - pby) * ny


@borrowing_kernel
def time_of_impact(va, na, ra, vb, nb, rb, sweep_a, sweep_b, t_max, cache):
    """``b2TimeOfImpact(output, input)``: ``(state, t)`` for proxies ``(va, na, ra)``, ``(vb, nb, rb)`` moving
    along the sweeps (float32 ``(9,)`` arrays, not modified) over ``[0, t_max]`` (``cache``: the simplex cache
    to use, emptied first)."""
    state = UNKNOWN
    t_out = t_max
    sa = sweep_normalized(sweep_a)
    sb = sweep_normalized(sweep_b)
    total_radius = ra + rb
    target = b2max(_LINEAR_SLOP, total_radius - np.float32(3.0) * _LINEAR_SLOP)
    tolerance = np.float32(0.25) * _LINEAR_SLOP
    t1 = _ZERO
    iteration = 0
    cache[:] = np.float32(0.0)
    while True:
        xf_a = sweep_transform(sa, t1)
        xf_b = sweep_transform(sb, t1)
        d = distance(cache, va, na, ra, xf_a, vb, nb, rb, xf_b, False)[4]
        if d <= _ZERO:
            state = OVERLAPPED
            t_out = _ZERO
            break
        if d < target + tolerance:
            state = TOUCHING
            t_out = t1
            break
        kind, lpx, lpy, ax, ay, _ = _initialize(cache, va, vb, sa, sb, t1)
        done = False
        t2 = t_max
        push_back = 0
        while True:
            ia, ib, s2 = _find_min_separation(kind, lpx, lpy, ax, ay, va, na, vb, nb, sa, sb, t2)
            if s2 > target + tolerance:
                state = SEPARATED
                t_out = t_max
                done = True
                break
            if s2 > target - tolerance:
                t1 = t2
                break
            s1 = _evaluate(kind, lpx, lpy, ax, ay, va, vb, sa, sb, ia, ib, t1)
            if s1 < target - tolerance:
                state = FAILED
                t_out = t1
                done = True
                break
            if s1 <= target + tolerance:
                state = TOUCHING
                t_out = t1
                done = True
                break
            root_iterations = 0
            a1 = t1
            a2 = t2
            while True:
                if root_iterations & 1:
                    t = a1 + (target - s1) * (a2 - a1) / (s2 - s1)
                else:
                    t = _HALF * (a1 + a2)
                root_iterations += 1
                s = _evaluate(kind, lpx, lpy, ax, ay, va, vb, sa, sb, ia, ib, t)
                if b2abs(s - target) < tolerance:
                    t2 = t
                    break
                if s > target:
                    a1 = t
                    s1 = s
                else:
                    a2 = t
                    s2 = s
                if root_iterations == MAX_ROOT_ITERATIONS:
                    break
            push_back += 1
            if push_back == MAX_PUSH_BACK:
                break
        iteration += 1
        if done:
            break
        if iteration == MAX_ITERATIONS:
            state = FAILED
            t_out = t1
            break
    return state, t_out
