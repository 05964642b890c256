"""b2Island: Solve (integrate velocities, warm start, velocity iterations, integrate positions with the
maximum translation/rotation clamps, position iterations, sleep) and SolveTOI.

An island is one row's ``World.isl_bodies/isl_contacts/isl_joints[row]`` prefixes; a body's
``BI_ISLAND`` is its index there. ``positions``/``velocities`` hold ``[c.x, c.y, a]``/``[v.x, v.y, w]``
per island body (b2Position/b2Velocity).
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import contact_solver, revolute_joint
from .math import sqrtf
from .settings import (
    ANGULAR_SLEEP_TOLERANCE,
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
    STATIC,
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
    iterate_velocities(w, r, nc, nj, h, velocity_iterations)
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
def iterate_velocities(w, r, nc, nj, h, iterations):
    """b2Island::Solve's velocity iterations: each joint's constraint, then the contacts', ``iterations`` times."""
    joints = w.isl_joints[r]
    joint_i = w.joint_i[r]
    joint_f = w.joint_f[r]
    vel = w.velocities[r]
    vcf = w.vc_f[r]
    vcif = w.vc_i[r]
    for _ in range(iterations):
        for i in range(nj):
            revolute_joint.solve_velocity_constraints(joint_i, joint_f, joints[i], vel, h)
        contact_solver.solve_velocity_constraints(vcf, vcif, vel, nc)


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
    for _ in range(velocity_iterations):
        contact_solver.solve_velocity_constraints(vcf, vcif, vel, nc)
    _integrate_positions(w, r, nb, h)
    _store_bodies(w, r, nb)
