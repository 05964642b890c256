"""b2Island: Solve (integrate velocities, warm start, velocity iterations, integrate positions with the
maximum translation/rotation clamps, position iterations, sleep) and SolveTOI.

An island is one row's ``World.isl_bodies/isl_contacts/isl_joints[row]`` prefixes; a body's
``BI_ISLAND`` is its index there. ``positions``/``velocities`` hold ``[c.x, c.y, a]``/``[v.x, v.y, w]``
per island body (b2Position/b2Velocity).
"""

from __future__ import annotations

import math

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import contact_solver, revolute_joint
from .math import sqrtf
from .settings import (
    ANGULAR_SLEEP_TOLERANCE,
    MAX_MANIFOLD_POINTS,
    LINEAR_SLEEP_TOLERANCE,
    MAX_FLOAT,
    MAX_ROTATION,
    MAX_ROTATION_SQUARED,
    MAX_TRANSLATION,
    MAX_TRANSLATION_SQUARED,
    TIME_TO_SLEEP,
)
from .world import (
    AUTO_SLEEP_FLAG,
    BF_A,
    BF_A0,
    BF_ADAMP,
    BF_C0X,
    BF_C0Y,
    BF_CX,
    BF_CY,
    BF_FX,
    BF_FY,
    BF_GSCALE,
    BF_INVI,
    BF_INVMASS,
    BF_LDAMP,
    BF_SLEEP,
    BF_TORQUE,
    BF_VX,
    BF_VY,
    BF_W,
    BI_FLAGS,
    BI_ISLAND,
    BI_TYPE,
    DYNAMIC,
    JF_IMPX,
    JF_IMPY,
    JF_IMPZ,
    JF_MOTOR_IMP,
    STATIC,
    VC_POINTS,
    VP_NI,
    VP_STRIDE,
    VP_TI,
    WF_GX,
    WF_GY,
    set_awake,
    synchronize_transform,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)
_LIN_TOL_SQR = LINEAR_SLEEP_TOLERANCE * LINEAR_SLEEP_TOLERANCE
_ANG_TOL_SQR = ANGULAR_SLEEP_TOLERANCE * ANGULAR_SLEEP_TOLERANCE


@borrowing_kernel
def add_body(w, r, count, b):
    """b2Island::Add(body); returns the new body count."""
    w.body_i[r, b, BI_ISLAND] = count
    w.isl_bodies[r, count] = b
    return count + 1


@borrowing_kernel
def _clamp01(x):
    m = x if x < _ONE else _ONE
    return _ZERO if _ZERO > m else m


@borrowing_kernel
def _integrate_positions(w, r, nb, h):
    """The position integration of Solve/SolveTOI, with the maximum translation and rotation clamps."""
    pos = w.positions[r]
    vel = w.velocities[r]
    for i in range(nb):
        cx = pos[i, 0]
        cy = pos[i, 1]
        a = pos[i, 2]
        vx = vel[i, 0]
        vy = vel[i, 1]
        av = vel[i, 2]
        tx = h * vx
        ty = h * vy
        if tx * tx + ty * ty > MAX_TRANSLATION_SQUARED:
            ratio = MAX_TRANSLATION / sqrtf(tx * tx + ty * ty)
            vx = vx * ratio
            vy = vy * ratio
        rotation = h * av
        if rotation * rotation > MAX_ROTATION_SQUARED:
            ratio = MAX_ROTATION / abs(rotation)
            av = av * ratio
        cx = cx + h * vx
        cy = cy + h * vy
        a = a + h * av
        pos[i, 0] = cx
        pos[i, 1] = cy
        pos[i, 2] = a
        vel[i, 0] = vx
        vel[i, 1] = vy
        vel[i, 2] = av


@borrowing_kernel
def _store_bodies(w, r, nb):
    """The end of Solve/SolveTOI: each island body's solved position and velocity copied back to the body (its
    sweep's c and a), and its transform synchronized."""
    pos = w.positions[r]
    vel = w.velocities[r]
    bodies = w.isl_bodies[r]
    for i in range(nb):
        b = bodies[i]
        bf = w.body_f[r, b]
        bf[BF_CX] = pos[i, 0]
        bf[BF_CY] = pos[i, 1]
        bf[BF_A] = pos[i, 2]
        bf[BF_VX] = vel[i, 0]
        bf[BF_VY] = vel[i, 1]
        bf[BF_W] = vel[i, 2]
        synchronize_transform(w, r, b)


@borrowing_kernel
def solve(w, r, nb, nc, nj, h, dt_ratio, velocity_iterations, position_iterations, warm_starting, allow_sleep):
    """b2Island::Solve."""
    begin(w, r, nb, nc, nj, h, dt_ratio, warm_starting)
    iterate_velocities(w, r, nb, nc, nj, h, velocity_iterations)
    end(w, r, nb, nc, nj, h, position_iterations, allow_sleep)


@borrowing_kernel
def begin(w, r, nb, nc, nj, h, dt_ratio, warm_starting):
    """b2Island::Solve up to its velocity iterations: the velocities integrated, the contact and joint constraints
    initialised and warm started."""
    pos = w.positions[r]
    vel = w.velocities[r]
    gx = w.world_f[r, WF_GX]
    gy = w.world_f[r, WF_GY]
    bodies = w.isl_bodies[r]
    for i in range(nb):
        b = bodies[i]
        bf = w.body_f[r, b]
        cx = bf[BF_CX]
        cy = bf[BF_CY]
        a = bf[BF_A]
        vx = bf[BF_VX]
        vy = bf[BF_VY]
        av = bf[BF_W]
        bf[BF_C0X] = cx
        bf[BF_C0Y] = cy
        bf[BF_A0] = a
        if w.body_i[r, b, BI_TYPE] == DYNAMIC:
            gs = bf[BF_GSCALE]
            im = bf[BF_INVMASS]
            vx = vx + h * (gs * gx + im * bf[BF_FX])
            vy = vy + h * (gs * gy + im * bf[BF_FY])
            av = av + h * bf[BF_INVI] * bf[BF_TORQUE]
            ld = _clamp01(_ONE - h * bf[BF_LDAMP])
            vx = vx * ld
            vy = vy * ld
            av = av * _clamp01(_ONE - h * bf[BF_ADAMP])
        pos[i, 0] = cx
        pos[i, 1] = cy
        pos[i, 2] = a
        vel[i, 0] = vx
        vel[i, 1] = vy
        vel[i, 2] = av

    contact_solver.setup(w, r, nc, dt_ratio, warm_starting)
    contact_solver.initialize_velocity_constraints(w, r, nc)
    if warm_starting:
        contact_solver.warm_start(w.vc_f[r], w.vc_i[r], vel, nc)
    joints = w.isl_joints[r]
    for i in range(nj):
        j = joints[i]
        revolute_joint.init_velocity_constraints(
            w.body_i[r], w.body_f[r], w.joint_i[r, j], w.joint_f[r, j], pos, vel, dt_ratio, warm_starting
        )


@borrowing_kernel
def iterate_velocities(w, r, nb, nc, nj, h, iterations):
    """b2Island::Solve's velocity iterations: each joint's constraint, then the contacts', ``iterations`` times
    (``iterate_to_cycle``)."""
    iterate_to_cycle(
        w.joint_i[r],
        w.joint_f[r],
        w.isl_joints[r],
        w.velocities[r],
        w.vc_f[r],
        w.vc_i[r],
        nb,
        nc,
        nj,
        h,
        iterations,
        w.lanes[r],
    )


@borrowing_kernel(always_inline=True)
def _iteration(joint_i, joint_f, joints, vel, vcf, vcif, nc, nj, h):
    """One velocity iteration: each joint's constraint, then the contacts'.

    Inlined in ``iterate_to_cycle``, its one caller, with the joints' constraint
    (``revolute_joint.solve_velocity_constraints``), which LLVM called, ~500 times a BipedalWalker step: with no call
    left in a world's iterations, a single BipedalWalker stepped 1.01x as fast, a single LunarLander 1.04x (medians of
    6 and 5 interleaved rounds), and BipedalWalker's cold compile took as long (76.0 s against 77.4 s)."""
    for i in range(nj):
        revolute_joint.solve_velocity_constraints(joint_i, joint_f, joints[i], vel, h)
    contact_solver.solve_velocity_constraints(vcf, vcif, vel, nc)


PERIOD = 2
"""The iterations of the cycles that ``iterate_to_cycle`` looks for: cycles of 1 iteration repeat after 2 as well."""


@borrowing_kernel
def _at(scratch, k):
    """The row and column of float ``k`` of ``scratch`` (a C-contiguous 2-D block) counted as one run."""
    return k // scratch.shape[1], k % scratch.shape[1]


@borrowing_kernel
def _note(scratch, at, vel, joint_f, joints, vcf, nb, nc, nj):
    """Copies into ``scratch`` from float ``at`` on what a velocity iteration reads and changes: the island's
    velocities, each joint's limit and motor impulses, each contact point's normal and tangent impulses."""
    k = at
    for b in range(nb):
        for c in range(3):
            scratch[_at(scratch, k)] = vel[b, c]
            k += 1
    for i in range(nj):
        scratch[_at(scratch, k)] = joint_f[joints[i], JF_IMPZ]
        scratch[_at(scratch, k + 1)] = joint_f[joints[i], JF_MOTOR_IMP]
        k += 2
    for i in range(nc):
        for p in range(MAX_MANIFOLD_POINTS):
            o = VC_POINTS + VP_STRIDE * p
            scratch[_at(scratch, k)] = vcf[i, o + VP_NI]
            scratch[_at(scratch, k + 1)] = vcf[i, o + VP_TI]
            k += 2


@borrowing_kernel
def _same_bits(scratch, at, before, size):
    """Whether floats ``at`` to ``at + size - 1`` of ``scratch`` are those from ``before`` on, bit for bit (a NaN is
    never the same)."""
    for k in range(size):
        a = scratch[_at(scratch, at + k)]
        b = scratch[_at(scratch, before + k)]
        if not (a == b and math.copysign(_ONE, a) == math.copysign(_ONE, b)):
            return False
    return True


@borrowing_kernel
def _zero_point_impulses(joint_f, joints, nj, scratch, at):
    """Moves each joint's point impulses (x, y) into ``scratch`` from float ``at`` on and sets them to ``-0.0``, so
    that the next iteration leaves in them the amounts it adds (``-0.0 + x`` is ``x``)."""
    for i in range(nj):
        j = joints[i]
        scratch[_at(scratch, at + 2 * i)] = joint_f[j, JF_IMPX]
        scratch[_at(scratch, at + 2 * i + 1)] = joint_f[j, JF_IMPY]
        joint_f[j, JF_IMPX] = -_ZERO
        joint_f[j, JF_IMPY] = -_ZERO


@borrowing_kernel
def _add_back_point_impulses(joint_f, joints, nj, scratch, at):
    """After ``_zero_point_impulses`` and an iteration: each point impulse becomes what it was plus the amount the
    iteration added (the addition the iteration makes), and ``scratch`` keeps the amounts."""
    for i in range(nj):
        j = joints[i]
        x = _at(scratch, at + 2 * i)
        y = _at(scratch, at + 2 * i + 1)
        dx = joint_f[j, JF_IMPX]
        dy = joint_f[j, JF_IMPY]
        joint_f[j, JF_IMPX] = scratch[x] + dx
        joint_f[j, JF_IMPY] = scratch[y] + dy
        scratch[x] = dx
        scratch[y] = dy


@borrowing_kernel
def iterate_to_cycle(joint_i, joint_f, joints, vel, vcf, vcif, nb, nc, nj, h, iterations, scratch):
    """``iterations`` velocity iterations (``_iteration``), to the same floats, without computing those that repeat.

    An iteration is a function of the island's velocities, the joints' limit and motor impulses and the contacts'
    impulses (what ``_note`` copies): the joints' point impulses (``JF_IMPX``, ``JF_IMPY``) are added to, never
    read. Once those floats come back, bit for bit, to what they were ``PERIOD`` iterations before, every later
    iteration repeats the one ``PERIOD`` before it and adds the same amounts to the point impulses. A cycle is looked
    for where the first body's velocity is that of 1 or 2 iterations before (three floats, compared each iteration
    beside the iteration's own chain); the next ``PERIOD`` iterations then record the amounts they add
    (``_zero_point_impulses``, ``_add_back_point_impulses``) and the copies before and after them are compared. Where
    they match, each whole cycle left only adds the amounts, in the same order: the float additions its iterations
    would make; the rest of a cycle runs as iterations. Where they differ, the next look waits twice as long as the
    last. One loop runs every iteration (a single inlined copy of the solvers: each copy lengthens a cold compile).

    Every look spans ``PERIOD`` = 2 iterations, which a fixed point repeats too: a first body that stops changing while
    the others still alternate (a walker's hull, its legs on the ground) was looked at over 1 iteration, which never
    matched, and its island ran all its iterations.

    ``scratch`` (the row's ``lanes`` block, which only a set of worlds iterated in vectors uses) holds the copies;
    an island too large for it iterates without looking for cycles.
    """
    size = 3 * nb + 2 * nj + 2 * MAX_MANIFOLD_POINTS * nc
    added = 2 * size  # the amounts of a cycle's iterations: 2 * nj floats each
    looking = nb > 0 and added + 2 * PERIOD * nj <= scratch.shape[0] * scratch.shape[1]
    nan = F32(np.nan)
    x1, y1, w1, x2, y2, w2 = nan, nan, nan, nan, nan, nan  # the first body's velocity 1 and 2 iterations before
    next_look = 0
    wait = 1
    recording = False  # the PERIOD iterations after a look: their amounts recorded, then the copies compared
    recorded = 0  # of those iterations so far
    done = 0
    while done < iterations:
        if recording:
            _zero_point_impulses(joint_f, joints, nj, scratch, added + 2 * nj * recorded)
        _iteration(joint_i, joint_f, joints, vel, vcf, vcif, nc, nj, h)
        done += 1
        if recording:
            _add_back_point_impulses(joint_f, joints, nj, scratch, added + 2 * nj * recorded)
            recorded += 1
            if recorded < PERIOD:
                continue
            _note(scratch, size, vel, joint_f, joints, vcf, nb, nc, nj)
            if _same_bits(scratch, size, 0, size):
                cycles = (iterations - done) // PERIOD
                for _ in range(cycles):
                    for q in range(PERIOD):
                        for i in range(nj):
                            j = joints[i]
                            at = added + 2 * (nj * q + i)
                            joint_f[j, JF_IMPX] = joint_f[j, JF_IMPX] + scratch[_at(scratch, at)]
                            joint_f[j, JF_IMPY] = joint_f[j, JF_IMPY] + scratch[_at(scratch, at + 1)]
                done += cycles * PERIOD
                looking = False  # the part of a cycle left over runs as iterations
            else:
                next_look = done + wait
                wait *= 2
                x1, y1, w1, x2, y2, w2 = vel[0, 0], vel[0, 1], vel[0, 2], nan, nan, nan
            recording = False
            recorded = 0
            continue
        if not looking:
            continue
        x, y, w = vel[0, 0], vel[0, 1], vel[0, 2]
        repeat = (x == x1 and y == y1 and w == w1) or (x == x2 and y == y2 and w == w2)
        x2, y2, w2, x1, y1, w1 = x1, y1, w1, x, y, w
        if not repeat or done < next_look or iterations - done < PERIOD:
            continue
        _note(scratch, 0, vel, joint_f, joints, vcf, nb, nc, nj)
        recording = True


@borrowing_kernel
def end(w, r, nb, nc, nj, h, position_iterations, allow_sleep):
    """b2Island::Solve after its velocity iterations: the impulses stored, the positions integrated and solved, the
    bodies written back and put to sleep."""
    pos = w.positions[r]
    bodies = w.isl_bodies[r]
    joints = w.isl_joints[r]
    joint_i = w.joint_i[r]
    joint_f = w.joint_f[r]
    contact_solver.store_impulses(w, r, nc)

    _integrate_positions(w, r, nb, h)

    position_solved = False
    for _ in range(position_iterations):
        contacts_okay = contact_solver.solve_position_constraints(w, r, nc)
        joints_okay = True
        for i in range(nj):
            j = joints[i]
            joint_okay = revolute_joint.solve_position_constraints(joint_i, joint_f, j, pos)
            joints_okay = joints_okay and joint_okay
        if contacts_okay and joints_okay:
            position_solved = True
            break

    _store_bodies(w, r, nb)

    if allow_sleep:
        min_sleep_time = MAX_FLOAT
        for i in range(nb):
            b = bodies[i]
            if w.body_i[r, b, BI_TYPE] == STATIC:
                continue
            bf = w.body_f[r, b]
            av = bf[BF_W]
            vx = bf[BF_VX]
            vy = bf[BF_VY]
            if (
                (w.body_i[r, b, BI_FLAGS] & AUTO_SLEEP_FLAG) == 0
                or av * av > _ANG_TOL_SQR
                or vx * vx + vy * vy > _LIN_TOL_SQR
            ):
                bf[BF_SLEEP] = _ZERO
                min_sleep_time = _ZERO
            else:
                bf[BF_SLEEP] = bf[BF_SLEEP] + h
                st = bf[BF_SLEEP]
                if not (min_sleep_time < st):
                    min_sleep_time = st
        if min_sleep_time >= TIME_TO_SLEEP and position_solved:
            for i in range(nb):
                set_awake(w, r, bodies[i], False)


@borrowing_kernel
def solve_toi(w, r, nb, nc, h, velocity_iterations, toi_index_a, toi_index_b):
    """b2Island::SolveTOI (position iterations 20, no warm start, no joints)."""
    pos = w.positions[r]
    vel = w.velocities[r]
    bodies = w.isl_bodies[r]
    for i in range(nb):
        bf = w.body_f[r, bodies[i]]
        pos[i, 0] = bf[BF_CX]
        pos[i, 1] = bf[BF_CY]
        pos[i, 2] = bf[BF_A]
        vel[i, 0] = bf[BF_VX]
        vel[i, 1] = bf[BF_VY]
        vel[i, 2] = bf[BF_W]
    contact_solver.setup(w, r, nc, _ONE, False)
    for _ in range(20):
        if contact_solver.solve_toi_position_constraints(w, r, nc, toi_index_a, toi_index_b):
            break
    ba = w.body_f[r, bodies[toi_index_a]]
    ba[BF_C0X] = pos[toi_index_a, 0]
    ba[BF_C0Y] = pos[toi_index_a, 1]
    ba[BF_A0] = pos[toi_index_a, 2]
    bb = w.body_f[r, bodies[toi_index_b]]
    bb[BF_C0X] = pos[toi_index_b, 0]
    bb[BF_C0Y] = pos[toi_index_b, 1]
    bb[BF_A0] = pos[toi_index_b, 2]
    contact_solver.initialize_velocity_constraints(w, r, nc)
    vcf = w.vc_f[r]
    vcif = w.vc_i[r]
    iterate_to_cycle(
        w.joint_i[r], w.joint_f[r], w.isl_joints[r], vel, vcf, vcif, nb, nc, 0, h, velocity_iterations, w.lanes[r]
    )
    _integrate_positions(w, r, nb, h)
    _store_bodies(w, r, nb)
