"""The contact constraints of the worlds whose velocity iterations ``joint_lanes`` runs side by side, one world per
vector lane (``simd``): b2ContactSolver::SolveVelocityConstraints on the ``c``-th held contact of each world at once.

Each velocity iteration solves a world's joints, then its island's contacts one after another, each a chain of
dependent float32 operations (BipedalWalker's legs on the ground: a third of a step). ``joint_lanes`` runs the joints
of up to ``LANES`` worlds as vector operations; ``solve_velocity_constraints`` then runs contact ``c`` of each of those
worlds as vector operations, each lane computing exactly the floats that ``contact_solver.solve_velocity_constraints``
computes for its world's contact ``c``: the friction of each point, then the normal impulse of the single point or the
2-point block solver. Each branch is a selection, lane by lane, between its sides: the point count, and the first of
the block solver's four cases that holds.

The worlds' contacts join different bodies (one world's first contact may push its left leg, another's its right), so
a contact's 6 body velocities are gathered lane by lane into ``lane_velocities`` before the vector operations and
scattered back after: from the joints' vectors (``lanes``) where the body is one of the joints' slots, else from the
world's own ``velocities`` (the ground: a static body, which Box2D updates too, by its inverse mass of 0).

A world row's ``contact_lanes`` holds, for each contact ``c`` of the worlds in its vectors, ``vc_f``'s columns of
their contact ``c`` (column ``k`` of lane ``l`` at ``k * LANES + l``) and the flags ``CL_*``; its ``contact_sources[c]``
the lanes that have a contact ``c`` (``SOURCE_LANES``, then -1s), and per lane where the bodies' velocities are
(``SOURCE_A``, ``SOURCE_B``: a joint slot, or ``-1 - i`` for island body ``i`` in the ``velocities`` of row
``SOURCE_ROW``). A lane without a contact ``c`` holds zeros there, computes with them and writes nothing back.
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from .simd import LANES, load, nonzero, select, splat, store
from .world import (
    CL_BLOCK,
    CL_FIRST,
    CL_ONE,
    CL_SECOND,
    JI_INDEXA,
    JI_SLOTA,
    NVC,
    SI_A,
    SI_COUNT,
    VC_FRICTION,
    VC_IA,
    VC_IB,
    VC_K,
    VC_MA,
    VC_MB,
    VC_NM,
    VC_NX,
    VC_NY,
    VC_POINTS,
    VC_TANGENT_SPEED,
    VP_BIAS,
    VP_NI,
    VP_NMASS,
    VP_RAX,
    VP_RAY,
    VP_RBX,
    VP_RBY,
    VP_STRIDE,
    VP_TI,
    VP_TMASS,
    WI_HELD_CONTACTS,
    WI_HELD_JOINTS,
    lane_velocity_column,
)

SOURCE_LANES, SOURCE_A, SOURCE_B, SOURCE_ROW = range(4)
"""``contact_sources``' rows per contact."""

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)


@borrowing_kernel
def _vector(column):
    """The offset in a contact's ``contact_lanes`` floats of its column's vector."""
    return column * LANES


@borrowing_kernel
def _joint_slot(w, r, body):
    """The slot of island body ``body`` among row ``r``'s held joints' bodies (``JI_SLOTA``), or -1."""
    for i in range(w.world_i[r, WI_HELD_JOINTS]):
        ji = w.joint_i[r, w.isl_joints[r, i]]
        for side in range(2):
            if ji[JI_INDEXA + side] == body:
                return ji[JI_SLOTA + side]
    return -1


@borrowing_kernel
def clear(w, g, count):
    """Contacts ``0`` to ``count - 1`` of row ``g``'s vectors: no lane has them yet."""
    for c in range(count):
        w.contact_lanes[g, c, : (NVC + 4) * LANES] = _ZERO  # the rest, room for wider vectors, is never read
        w.contact_sources[g, c, SOURCE_LANES, :] = -1


@borrowing_kernel
def add_world(w, g, r, lane):
    """Row ``r``'s held contacts (their ``vc_f`` columns, flags and bodies' places) into lane ``lane`` of row ``g``'s
    vectors, whose contacts ``clear`` has cleared, lanes added in increasing order."""
    for c in range(w.world_i[r, WI_HELD_CONTACTS]):
        cl = w.contact_lanes[g, c]
        vcf = w.vc_f[r, c]
        for column in range(NVC):
            cl[_vector(column) + lane] = vcf[column]
        count = w.vc_i[r, c, SI_COUNT]
        cl[_vector(CL_FIRST) + lane] = _ONE if count >= 1 else _ZERO
        cl[_vector(CL_SECOND) + lane] = _ONE if count >= 2 else _ZERO
        cl[_vector(CL_ONE) + lane] = _ONE if count == 1 else _ZERO
        cl[_vector(CL_BLOCK) + lane] = _ZERO if count == 1 else _ONE
        if count < 2:  # a point Box2D does not read: zeros, not a former contact's floats, in the discarded lanes
            for column in range(VC_POINTS + VP_STRIDE, VC_POINTS + 2 * VP_STRIDE):
                cl[_vector(column) + lane] = _ZERO
        sources = w.contact_sources[g, c]
        for i in range(LANES):
            if sources[SOURCE_LANES, i] < 0:
                sources[SOURCE_LANES, i] = lane
                break
        for side in range(2):
            body = w.vc_i[r, c, SI_A + side]
            slot = _joint_slot(w, r, body)
            sources[SOURCE_A + side, lane] = slot if slot >= 0 else -1 - body
        sources[SOURCE_ROW, lane] = r


@borrowing_kernel
def store_impulses(w, g, r, lane):
    """Copies lane ``lane``'s accumulated impulses back into row ``r``'s contact constraints (``vc_f``)."""
    for c in range(w.world_i[r, WI_HELD_CONTACTS]):
        cl = w.contact_lanes[g, c]
        vcf = w.vc_f[r, c]
        for j in range(w.vc_i[r, c, SI_COUNT]):
            o = VC_POINTS + VP_STRIDE * j
            vcf[o + VP_NI] = cl[_vector(o + VP_NI) + lane]
            vcf[o + VP_TI] = cl[_vector(o + VP_TI) + lane]


@borrowing_kernel
def _move_velocities(w, g, c, gather):
    """Copies the velocities of contact ``c``'s bodies in each lane into ``lane_velocities`` (``gather``: vA.x, vA.y,
    wA, vB.x, vB.y, wB vectors), or back."""
    sources = w.contact_sources[g, c]
    gathered = w.lane_velocities[g]
    block = w.lanes[g]
    for i in range(LANES):
        lane = sources[SOURCE_LANES, i]
        if lane < 0:
            break
        r = sources[SOURCE_ROW, lane]
        for side in range(2):
            source = sources[SOURCE_A + side, lane]
            for component in range(3):
                at = (3 * side + component) * LANES + lane
                if source >= 0:
                    column = lane_velocity_column(source, component) + lane
                    if gather:
                        gathered[at] = block[source >> 1, column]
                    else:
                        block[source >> 1, column] = gathered[at]
                elif gather:
                    gathered[at] = w.velocities[r, -1 - source, component]
                else:
                    w.velocities[r, -1 - source, component] = gathered[at]


@borrowing_kernel
def _clamp(a, low, high):
    """``contact_solver._clamp`` lane by lane."""
    m = select(a < high, a, high)
    return select(low > m, low, m)


@borrowing_kernel
def _arms(cl, o):
    """The vectors of the point at ``o``'s rA.x, rA.y, rB.x, rB.y."""
    return (
        load(cl, _vector(o + VP_RAX)),
        load(cl, _vector(o + VP_RAY)),
        load(cl, _vector(o + VP_RBX)),
        load(cl, _vector(o + VP_RBY)),
    )


@borrowing_kernel
def solve_velocity_constraints(w, g, c):
    """``contact_solver.solve_velocity_constraints`` of contact ``c`` in every lane of row ``g``'s vectors: its
    operations in its order, each branch a selection."""
    _move_velocities(w, g, c, True)
    gathered = w.lane_velocities[g]
    cl = w.contact_lanes[g, c]
    vAx = load(gathered, 0)
    vAy = load(gathered, LANES)
    wA = load(gathered, 2 * LANES)
    vBx = load(gathered, 3 * LANES)
    vBy = load(gathered, 4 * LANES)
    wB = load(gathered, 5 * LANES)
    mA = load(cl, _vector(VC_MA))
    iA = load(cl, _vector(VC_IA))
    mB = load(cl, _vector(VC_MB))
    iB = load(cl, _vector(VC_IB))
    nx = load(cl, _vector(VC_NX))
    ny = load(cl, _vector(VC_NY))
    tx = ny
    ty = -nx
    friction = load(cl, _vector(VC_FRICTION))
    tangent_speed = load(cl, _vector(VC_TANGENT_SPEED))
    zero = splat(_ZERO)

    for j in range(2):
        o = VC_POINTS + VP_STRIDE * j
        has_point = nonzero(load(cl, _vector(CL_FIRST + j)))
        rAx, rAy, rBx, rBy = _arms(cl, o)
        dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
        dvy = vBy + wB * rBx - vAy - wA * rAx
        vt = (dvx * tx + dvy * ty) - tangent_speed
        lam = load(cl, _vector(o + VP_TMASS)) * (-vt)
        max_friction = friction * load(cl, _vector(o + VP_NI))
        old = load(cl, _vector(o + VP_TI))
        new_impulse = _clamp(old + lam, -max_friction, max_friction)
        lam = new_impulse - old
        store(cl, _vector(o + VP_TI), select(has_point, new_impulse, old))
        Px = lam * tx
        Py = lam * ty
        vAx = select(has_point, vAx - mA * Px, vAx)
        vAy = select(has_point, vAy - mA * Py, vAy)
        wA = select(has_point, wA - iA * (rAx * Py - rAy * Px), wA)
        vBx = select(has_point, vBx + mB * Px, vBx)
        vBy = select(has_point, vBy + mB * Py, vBy)
        wB = select(has_point, wB + iB * (rBx * Py - rBy * Px), wB)

    # One point.
    o1 = VC_POINTS
    o2 = VC_POINTS + VP_STRIDE
    r1Ax, r1Ay, r1Bx, r1By = _arms(cl, o1)
    ax = load(cl, _vector(o1 + VP_NI))
    dv1x = vBx + (-wB * r1By) - vAx - (-wA * r1Ay)
    dv1y = vBy + wB * r1Bx - vAy - wA * r1Ax
    vn1 = dv1x * nx + dv1y * ny  # the single point's vn, and the block solver's first
    lam = -load(cl, _vector(o1 + VP_NMASS)) * (vn1 - load(cl, _vector(o1 + VP_BIAS)))
    one_impulse = ax + lam
    one_impulse = select(one_impulse > zero, one_impulse, zero)
    lam = one_impulse - ax
    Px = lam * nx
    Py = lam * ny
    one_vAx = vAx - mA * Px
    one_vAy = vAy - mA * Py
    one_wA = wA - iA * (r1Ax * Py - r1Ay * Px)
    one_vBx = vBx + mB * Px
    one_vBy = vBy + mB * Py
    one_wB = wB + iB * (r1Bx * Py - r1By * Px)

    # Two points: the block solver.
    r2Ax, r2Ay, r2Bx, r2By = _arms(cl, o2)
    ay = load(cl, _vector(o2 + VP_NI))
    dv2x = vBx + (-wB * r2By) - vAx - (-wA * r2Ay)
    dv2y = vBy + wB * r2Bx - vAy - wA * r2Ax
    vn2 = dv2x * nx + dv2y * ny
    bx = vn1 - load(cl, _vector(o1 + VP_BIAS))
    by = vn2 - load(cl, _vector(o2 + VP_BIAS))
    kexx = load(cl, _vector(VC_K + 0))
    kexy = load(cl, _vector(VC_K + 1))
    keyx = load(cl, _vector(VC_K + 2))
    keyy = load(cl, _vector(VC_K + 3))
    bx = bx - (kexx * ax + keyx * ay)
    by = by - (kexy * ax + keyy * ay)
    # case 1: vn = 0 for both points
    xx1 = -(load(cl, _vector(VC_NM + 0)) * bx + load(cl, _vector(VC_NM + 2)) * by)
    xy1 = -(load(cl, _vector(VC_NM + 1)) * bx + load(cl, _vector(VC_NM + 3)) * by)
    case1 = (xx1 >= zero) & (xy1 >= zero)
    # case 2: vn1 = 0, x2 = 0
    xx2 = -load(cl, _vector(o1 + VP_NMASS)) * bx
    case2 = (xx2 >= zero) & ((kexy * xx2 + by) >= zero)
    # case 3: vn2 = 0, x1 = 0
    xy3 = -load(cl, _vector(o2 + VP_NMASS)) * by
    case3 = (xy3 >= zero) & ((keyx * xy3 + bx) >= zero)
    # case 4: x = 0
    case4 = (bx >= zero) & (by >= zero)
    xx = select(case1, xx1, select(case2, xx2, zero))
    xy = select(case1, xy1, select(case2, zero, select(case3, xy3, zero)))
    block = nonzero(load(cl, _vector(CL_BLOCK))) & (case1 | case2 | case3 | case4)
    dx = xx - ax
    dy = xy - ay
    P1x = dx * nx
    P1y = dx * ny
    P2x = dy * nx
    P2y = dy * ny
    block_vAx = vAx - mA * (P1x + P2x)
    block_vAy = vAy - mA * (P1y + P2y)
    block_wA = wA - iA * ((r1Ax * P1y - r1Ay * P1x) + (r2Ax * P2y - r2Ay * P2x))
    block_vBx = vBx + mB * (P1x + P2x)
    block_vBy = vBy + mB * (P1y + P2y)
    block_wB = wB + iB * ((r1Bx * P1y - r1By * P1x) + (r2Bx * P2y - r2By * P2x))

    one = nonzero(load(cl, _vector(CL_ONE)))
    store(cl, _vector(o1 + VP_NI), select(one, one_impulse, select(block, xx, ax)))
    store(cl, _vector(o2 + VP_NI), select(block, xy, ay))
    store(gathered, 0, select(one, one_vAx, select(block, block_vAx, vAx)))
    store(gathered, LANES, select(one, one_vAy, select(block, block_vAy, vAy)))
    store(gathered, 2 * LANES, select(one, one_wA, select(block, block_wA, wA)))
    store(gathered, 3 * LANES, select(one, one_vBx, select(block, block_vBx, vBx)))
    store(gathered, 4 * LANES, select(one, one_vBy, select(block, block_vBy, vBy)))
    store(gathered, 5 * LANES, select(one, one_wB, select(block, block_wB, wB)))
    _move_velocities(w, g, c, False)
