"""The velocity iterations of several worlds' joint islands side by side, one world per vector lane (``simd``).

A revolute joint's velocity constraint is a chain of some 80 dependent float32 operations, and each velocity
iteration solves a world's joints one after another through the bodies they share: alone, a world's iterations wait
on the latency of each operation (gymnasium's LunarLander and BipedalWalker run 180 velocity iterations a step, more
than half of the step). The worlds of a batch are independent and run the same code, so ``iterate_velocities`` runs
the held islands of up to ``LANES`` worlds (``world_step.step_rows``) together: each operation of the scalar solver is
one vector operation over the worlds, and each lane computes exactly the floats its world computes alone (see
``simd``). The branches of ``revolute_joint.solve_velocity_constraints`` become per-lane selections between both
sides: the joint's motor, limit and limit state do not change during the iterations, so they are read once into
per-lane flags.

Worlds go in one set of vectors when their islands have the same joints in the same order between the same bodies
(each body's *slot*, numbered as the joints first meet it); a world whose island differs from the first world's, or
holds more contacts than its row's ``contact_lanes``, iterates alone, with the scalar solver. An island's contacts are
solved after its joints each iteration, as in Box2D, in vectors too: the ``c``-th contact of each world at once
(``contact_lanes``).

A world row's ``World.lanes`` holds, per joint ``i``, the joint's columns and flags (``LANE_VELOCITIES`` vectors) then
the velocities of slots ``2i`` and ``2i + 1`` (3 vectors each); the vectors of a set of worlds are those of the first
world's row, whose rows the caller steps alone, so threads stepping other rows never share them.
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import contact_lanes, contact_solver, island
from .revolute_joint import (
    AT_LOWER_LIMIT,
    AT_UPPER_LIMIT,
    EQUAL_LIMITS,
    EXX,
    EXY,
    EXZ,
    EYX,
    EYY,
    EYZ,
    EZX,
    EZY,
    EZZ,
    INACTIVE_LIMIT,
)
from .simd import LANES, load, nonzero, select, splat, store
from .world import (
    JF_CROSS_EY_EZ,
    JF_IIA,
    JF_IIB,
    JF_IMA,
    JF_IMB,
    JF_IMPX,
    JF_IMPY,
    JF_IMPZ,
    JF_INV_DET22,
    JF_INV_DET33,
    JF_MAX_TORQUE,
    JF_MOTOR_IMP,
    JF_MOTOR_MASS,
    JF_MOTOR_SPEED,
    JF_RAX,
    JF_RAY,
    JF_RBX,
    JF_RBY,
    JI_INDEXA,
    JI_LIMIT_ON,
    JI_LIMIT_STATE,
    JI_MOTOR_ON,
    JI_SLOTA,
    JI_SLOTB,
    LANE_FLOATS,
    NJF,
    WI_HELD,
    WI_HELD_BODIES,
    WI_HELD_CONTACTS,
    WI_HELD_JOINTS,
    WI_LANE,
    lane_velocity,
    lane_velocity_column,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)

# A joint's flags after its columns (1.0 or 0.0 per lane): the branches of SolveVelocityConstraints it takes.
L_MOTOR = NJF
L_LIMIT = NJF + 1
L_LOWER = NJF + 2
L_UPPER = NJF + 3
"""A joint's vectors: its ``joint_f`` columns, then its flags (then its bodies' velocities, from ``LANE_VELOCITIES``)."""

CONTACT_LANES_MIN = 3
"""The contacts a set of worlds solves in vectors (``contact_lanes``) per vector solve, at least, on average: fewer (a
LunarLander on the ground beside 15 in flight) cost less solved world by world, between copies of the joint bodies'
velocities out of the vectors and back."""

_ACCUMULATED = (JF_IMPX, JF_IMPY, JF_IMPZ, JF_MOTOR_IMP)
"""The columns the velocity iterations change: the accumulated impulses."""


@borrowing_kernel
def _column(i, column):
    """The offset in a ``lanes`` row block of joint ``i``'s vector ``column``."""
    return i * LANE_FLOATS + column * LANES


@borrowing_kernel
def _number_slots(w, r):
    """Numbers the bodies of row ``r``'s held island's joints in the order the joints first meet them
    (``JI_SLOTA``/``JI_SLOTB``)."""
    joints = w.isl_joints[r]
    nj = w.world_i[r, WI_HELD_JOINTS]
    slots = 0
    for i in range(nj):
        ji = w.joint_i[r, joints[i]]
        for side in range(2):
            body = ji[JI_INDEXA + side]
            slot = -1
            for earlier in range(i + 1):
                ej = w.joint_i[r, joints[earlier]]
                for earlier_side in range(2 if earlier < i else side):
                    if slot < 0 and ej[JI_INDEXA + earlier_side] == body:
                        slot = ej[JI_SLOTA + earlier_side]
            if slot < 0:
                slot = slots
                slots += 1
            ji[JI_SLOTA + side] = slot


@borrowing_kernel
def _same_joints(w, r, s):
    """Whether rows ``r`` and ``s`` hold islands whose joints join the same slots in the same order."""
    nj = w.world_i[r, WI_HELD_JOINTS]
    if w.world_i[s, WI_HELD_JOINTS] != nj:
        return False
    for i in range(nj):
        a = w.joint_i[r, w.isl_joints[r, i]]
        b = w.joint_i[s, w.isl_joints[s, i]]
        if a[JI_SLOTA] != b[JI_SLOTA] or a[JI_SLOTB] != b[JI_SLOTB]:
            return False
    return True


@borrowing_kernel
def _flag(condition):
    return _ONE if condition else _ZERO


@borrowing_kernel
def _load_joints(w, g, r, k):
    """Copies row ``r``'s held joints into lane ``k`` of row ``g``'s vectors, with their flags."""
    block = w.lanes[g]
    for i in range(w.world_i[r, WI_HELD_JOINTS]):
        j = w.isl_joints[r, i]
        jf = w.joint_f[r, j]
        ji = w.joint_i[r, j]
        lanes = block[i]
        for column in range(NJF):
            lanes[column * LANES + k] = jf[column]
        fixed_rotation = (jf[JF_IIA] + jf[JF_IIB]) == _ZERO
        state = ji[JI_LIMIT_STATE]
        motor = ji[JI_MOTOR_ON] != 0 and state != EQUAL_LIMITS and not fixed_rotation
        lanes[L_MOTOR * LANES + k] = _flag(motor)
        lanes[L_LIMIT * LANES + k] = _flag(ji[JI_LIMIT_ON] != 0 and state != INACTIVE_LIMIT and not fixed_rotation)
        lanes[L_LOWER * LANES + k] = _flag(state == AT_LOWER_LIMIT)
        lanes[L_UPPER * LANES + k] = _flag(state == AT_UPPER_LIMIT)
    _copy_velocities(w, g, r, k, True)


@borrowing_kernel
def _copy_velocities(w, g, r, k, into_lanes):
    """Copies the velocities of row ``r``'s joint bodies into lane ``k`` of row ``g``'s vectors (``into_lanes``), or
    back."""
    block = w.lanes[g]
    vel = w.velocities[r]
    for i in range(w.world_i[r, WI_HELD_JOINTS]):
        ji = w.joint_i[r, w.isl_joints[r, i]]
        for side in range(2):
            body = ji[JI_INDEXA + side]
            slot = ji[JI_SLOTA + side]
            lanes = block[slot >> 1]
            for component in range(3):
                if into_lanes:
                    lanes[lane_velocity_column(slot, component) + k] = vel[body, component]
                else:
                    vel[body, component] = lanes[lane_velocity_column(slot, component) + k]


@borrowing_kernel
def _store_impulses(w, g, r, k):
    """Copies lane ``k``'s accumulated impulses back into row ``r``'s joints."""
    block = w.lanes[g]
    for i in range(w.world_i[r, WI_HELD_JOINTS]):
        jf = w.joint_f[r, w.isl_joints[r, i]]
        for column in _ACCUMULATED:
            jf[column] = block[i, column * LANES + k]


@borrowing_kernel
def _in_lanes(w, r, resting):
    return not resting[r] and w.world_i[r, WI_HELD] != 0 and w.world_i[r, WI_LANE] >= 0


@borrowing_kernel
def _any_lane(w, first, stop, resting):
    for r in range(first, stop):
        if _in_lanes(w, r, resting):
            return True
    return False


@borrowing_kernel
def iterate_velocities(w, first, stop, resting, h, iterations):
    """The velocity iterations of the held islands (``WI_HELD``) of rows ``first`` to ``stop - 1`` not ``resting``:
    ``island.iterate_velocities`` on each, the same floats, run ``LANES`` worlds at a time where their joints match."""
    g = -1
    count = 0
    for r in range(first, stop):
        wi = w.world_i[r]
        if resting[r] or wi[WI_HELD] == 0:
            continue
        _number_slots(w, r)
        # The vectors' loads and stores are unchecked: a world whose ``lanes`` rows hold fewer joints than its island
        # (a World not made by ``new_world``/``grown``), or whose ``contact_lanes`` hold fewer contacts, iterates alone.
        if (
            wi[WI_HELD_JOINTS] > w.lanes.shape[1]
            or wi[WI_HELD_CONTACTS] > w.contact_lanes.shape[1]
            or (count > 0 and not _same_joints(w, g, r))
        ):
            wi[WI_LANE] = -1
            island.iterate_velocities(w, r, wi[WI_HELD_BODIES], wi[WI_HELD_CONTACTS], wi[WI_HELD_JOINTS], h, iterations)
            continue
        if count == 0:
            g = r  # loaded once a second world joins it: a world alone iterates alone
        elif count == 1:
            _load_joints(w, g, g, 0)
        if count > 0:
            _load_joints(w, g, r, count)
        wi[WI_LANE] = count
        count += 1
        if count == LANES:
            _iterate_lanes(w, g, r + 1, resting, h, iterations)
            count = 0
    if count > 0:
        _iterate_lanes(w, g, stop, resting, h, iterations)


@borrowing_kernel
def _iterate_lanes(w, g, stop, resting, h, iterations):
    """The velocity iterations of the worlds in row ``g``'s vectors (the rows from ``g`` to ``stop - 1`` with a lane),
    then their velocities and impulses copied back."""
    nj = w.world_i[g, WI_HELD_JOINTS]
    if not _any_lane(w, g + 1, stop, resting):
        # One world: the vectors would do 16 worlds' work for it.
        w.world_i[g, WI_LANE] = -1
        island.iterate_velocities(w, g, w.world_i[g, WI_HELD_BODIES], w.world_i[g, WI_HELD_CONTACTS], nj, h, iterations)
        return
    block = w.lanes[g]
    joints = w.isl_joints[g]
    contacts = 0  # the most of a world
    held = 0  # the worlds' contacts
    for r in range(g, stop):
        if _in_lanes(w, r, resting):
            contacts = max(contacts, w.world_i[r, WI_HELD_CONTACTS])
            held += w.world_i[r, WI_HELD_CONTACTS]
    in_vectors = contacts > 0 and held >= CONTACT_LANES_MIN * contacts
    if in_vectors:
        contact_lanes.clear(w, g, contacts)
        for r in range(g, stop):
            if _in_lanes(w, r, resting):
                contact_lanes.add_world(w, g, r, w.world_i[r, WI_LANE])
    for _ in range(iterations):
        for i in range(nj):
            ji = w.joint_i[g, joints[i]]
            solve_velocity_constraints(block, i, ji[JI_SLOTA], ji[JI_SLOTB], h)
        if in_vectors:
            for c in range(contacts):
                contact_lanes.solve_velocity_constraints(w, g, c)
        elif contacts > 0:
            for r in range(g, stop):
                nc = w.world_i[r, WI_HELD_CONTACTS]
                if _in_lanes(w, r, resting) and nc > 0:
                    k = w.world_i[r, WI_LANE]
                    _copy_velocities(w, g, r, k, False)
                    contact_solver.solve_velocity_constraints(w.vc_f[r], w.vc_i[r], w.velocities[r], nc)
                    _copy_velocities(w, g, r, k, True)
    for r in range(g, stop):
        if _in_lanes(w, r, resting):
            k = w.world_i[r, WI_LANE]
            _copy_velocities(w, g, r, k, False)
            _store_impulses(w, g, r, k)
            if in_vectors:
                contact_lanes.store_impulses(w, g, r, k)


@borrowing_kernel
def solve_velocity_constraints(block, i, slot_a, slot_b, dt):
    """``revolute_joint.solve_velocity_constraints`` of joint ``i`` in every lane of ``block`` (a row's ``lanes``,
    whose C-contiguous floats ``load`` and ``store`` address as one run), between the bodies of slots ``slot_a`` and
    ``slot_b``: its operations in its order, each branch a selection by the joint's flags."""
    vAx = load(block, lane_velocity(slot_a, 0))
    vAy = load(block, lane_velocity(slot_a, 1))
    wA = load(block, lane_velocity(slot_a, 2))
    vBx = load(block, lane_velocity(slot_b, 0))
    vBy = load(block, lane_velocity(slot_b, 1))
    wB = load(block, lane_velocity(slot_b, 2))
    mA = load(block, _column(i, JF_IMA))
    mB = load(block, _column(i, JF_IMB))
    iA = load(block, _column(i, JF_IIA))
    iB = load(block, _column(i, JF_IIB))
    rAx = load(block, _column(i, JF_RAX))
    rAy = load(block, _column(i, JF_RAY))
    rBx = load(block, _column(i, JF_RBX))
    rBy = load(block, _column(i, JF_RBY))

    motor = nonzero(load(block, _column(i, L_MOTOR)))
    Cdot = wB - wA - load(block, _column(i, JF_MOTOR_SPEED))
    impulse = -load(block, _column(i, JF_MOTOR_MASS)) * Cdot
    old_impulse = load(block, _column(i, JF_MOTOR_IMP))
    max_impulse = splat(dt) * load(block, _column(i, JF_MAX_TORQUE))
    # b2Clamp(old_impulse + impulse, -max_impulse, max_impulse)
    clamped = old_impulse + impulse
    clamped = select(clamped < max_impulse, clamped, max_impulse)
    low = -max_impulse
    clamped = select(low > clamped, low, clamped)
    impulse = clamped - old_impulse
    store(block, _column(i, JF_MOTOR_IMP), select(motor, clamped, old_impulse))
    wA = select(motor, wA - iA * impulse, wA)
    wB = select(motor, wB + iB * impulse, wB)

    # The limit's side: the 3x3 solve, clamped to the limit's side when at one.
    Cdot1x = vBx + (-wB * rBy) - vAx - (-wA * rAy)
    Cdot1y = vBy + wB * rBx - vAy - wA * rAx
    Cdot2 = wB - wA
    exx = load(block, _column(i, EXX))
    exy = load(block, _column(i, EXY))
    exz = load(block, _column(i, EXZ))
    eyx = load(block, _column(i, EYX))
    eyy = load(block, _column(i, EYY))
    eyz = load(block, _column(i, EYZ))
    ezx = load(block, _column(i, EZX))
    ezy = load(block, _column(i, EZY))
    ezz = load(block, _column(i, EZZ))
    cx = load(block, _column(i, JF_CROSS_EY_EZ))
    cy = load(block, _column(i, JF_CROSS_EY_EZ + 1))
    cz = load(block, _column(i, JF_CROSS_EY_EZ + 2))
    det = load(block, _column(i, JF_INV_DET33))
    x = det * (Cdot1x * cx + Cdot1y * cy + Cdot2 * cz)
    cx = Cdot1y * ezz - Cdot2 * ezy
    cy = Cdot2 * ezx - Cdot1x * ezz
    cz = Cdot1x * ezy - Cdot1y * ezx
    y = det * (exx * cx + exy * cy + exz * cz)
    cx = eyy * Cdot2 - eyz * Cdot1y
    cy = eyz * Cdot1x - eyx * Cdot2
    cz = eyx * Cdot1y - eyy * Cdot1x
    z = det * (exx * cx + exy * cy + exz * cz)
    impx = -x
    impy = -y
    impz = -z
    accumulated_x = load(block, _column(i, JF_IMPX))
    accumulated_y = load(block, _column(i, JF_IMPY))
    accumulated_z = load(block, _column(i, JF_IMPZ))
    new_impulse = accumulated_z + impz
    zero = splat(_ZERO)
    at_limit = (nonzero(load(block, _column(i, L_LOWER))) & (new_impulse < zero)) | (
        nonzero(load(block, _column(i, L_UPPER))) & (new_impulse > zero)
    )
    det22 = load(block, _column(i, JF_INV_DET22))
    rhsx = -Cdot1x + accumulated_z * ezx
    rhsy = -Cdot1y + accumulated_z * ezy
    rx = det22 * (eyy * rhsx - eyx * rhsy)
    ry = det22 * (exx * rhsy - exy * rhsx)
    limit_x = select(at_limit, rx, impx)
    limit_y = select(at_limit, ry, impy)
    limit_z = select(at_limit, -accumulated_z, impz)
    limit_accumulated_z = select(at_limit, zero, accumulated_z + impz)
    limit_wA = wA - iA * ((rAx * limit_y - rAy * limit_x) + limit_z)
    limit_wB = wB + iB * ((rBx * limit_y - rBy * limit_x) + limit_z)

    # The point's side: the 2x2 solve.
    Cdotx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
    Cdoty = vBy + wB * rBx - vAy - wA * rAx
    bx = -Cdotx
    by = -Cdoty
    ix = det22 * (eyy * bx - eyx * by)
    iy = det22 * (exx * by - exy * bx)
    point_wA = wA - iA * (rAx * iy - rAy * ix)
    point_wB = wB + iB * (rBx * iy - rBy * ix)

    limit = nonzero(load(block, _column(i, L_LIMIT)))
    px = select(limit, limit_x, ix)
    py = select(limit, limit_y, iy)
    store(block, _column(i, JF_IMPX), accumulated_x + px)
    store(block, _column(i, JF_IMPY), accumulated_y + py)
    store(block, _column(i, JF_IMPZ), select(limit, limit_accumulated_z, accumulated_z))
    store(block, lane_velocity(slot_a, 0), vAx - mA * px)
    store(block, lane_velocity(slot_a, 1), vAy - mA * py)
    store(block, lane_velocity(slot_a, 2), select(limit, limit_wA, point_wA))
    store(block, lane_velocity(slot_b, 0), vBx + mB * px)
    store(block, lane_velocity(slot_b, 1), vBy + mB * py)
    store(block, lane_velocity(slot_b, 2), select(limit, limit_wB, point_wB))
