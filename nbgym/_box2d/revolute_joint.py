"""b2RevoluteJoint: InitVelocityConstraints, SolveVelocityConstraints (motor, limits, point-to-point),
SolvePositionConstraints; float32 in the C++ operation order.

``pos`` and ``vel`` are one row's island arrays ``(bodies, 3)``: ``[c.x, c.y, a]`` and ``[v.x, v.y, w]``
indexed by island index (b2SolverData). ``ji``/``jf`` are the joint's rows of ``World.joint_i/joint_f``.
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from .columns import Columns
from .math import sin_cos, sqrtf
from .settings import ANGULAR_SLOP, LINEAR_SLOP, MAX_ANGULAR_CORRECTION
from .world import (
    BF_A,
    BF_INVI,
    BF_INVMASS,
    BF_LCX,
    BF_LCY,
    BI_ISLAND,
    JF_IIA,
    JF_IIB,
    JF_IMA,
    JF_IMB,
    JF_IMPX,
    JF_IMPY,
    JF_IMPZ,
    JF_LAX,
    JF_LAY,
    JF_LBX,
    JF_LBY,
    JF_CROSS_EY_EZ,
    JF_INV_DET22,
    JF_INV_DET33,
    JF_LCAX,
    JF_LCAY,
    JF_LCBX,
    JF_LCBY,
    JF_LOWER,
    JF_MASS,
    JF_MAX_TORQUE,
    JF_MOTOR_IMP,
    JF_MOTOR_MASS,
    JF_MOTOR_SPEED,
    JF_RAX,
    JF_RAY,
    JF_RBX,
    JF_RBY,
    JF_REF,
    JF_UPPER,
    JI_BODYA,
    JI_BODYB,
    JI_INDEXA,
    JI_INDEXB,
    JI_LIMIT_ON,
    JI_LIMIT_STATE,
    JI_MOTOR_ON,
    load_pair,
    set_awake,
    store_pair,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)
_TWO = F32(2.0)

INACTIVE_LIMIT = 0
AT_LOWER_LIMIT = 1
AT_UPPER_LIMIT = 2
EQUAL_LIMITS = 3

# m_mass (b2Mat33) entries
_mass = Columns(JF_MASS)
EXX, EXY, EXZ, EYX, EYY, EYZ, EZX, EZY, EZZ = _mass.add_each(9)


@borrowing_kernel
def _clamp(a, low, high):
    """b2Clamp: b2Max(low, b2Min(a, high))."""
    m = a if a < high else high
    return low if low > m else m


@borrowing_kernel
def init_velocity_constraints(body_i, body_f, ji, jf, pos, vel, dt_ratio, warm_starting):
    """b2RevoluteJoint::InitVelocityConstraints."""
    ba = ji[JI_BODYA]
    bb = ji[JI_BODYB]
    ia_ = body_i[ba, BI_ISLAND]
    ib_ = body_i[bb, BI_ISLAND]
    ji[JI_INDEXA] = ia_
    ji[JI_INDEXB] = ib_
    jf[JF_LCAX] = body_f[ba, BF_LCX]
    jf[JF_LCAY] = body_f[ba, BF_LCY]
    jf[JF_LCBX] = body_f[bb, BF_LCX]
    jf[JF_LCBY] = body_f[bb, BF_LCY]
    mA = body_f[ba, BF_INVMASS]
    mB = body_f[bb, BF_INVMASS]
    iA = body_f[ba, BF_INVI]
    iB = body_f[bb, BF_INVI]
    jf[JF_IMA] = mA
    jf[JF_IMB] = mB
    jf[JF_IIA] = iA
    jf[JF_IIB] = iB

    aA = pos[ia_, 2]
    aB = pos[ib_, 2]
    vAx, vAy, wA, vBx, vBy, wB = load_pair(vel, ia_, ib_)

    sA, cA = sin_cos(aA)
    sB, cB = sin_cos(aB)
    dx = jf[JF_LAX] - jf[JF_LCAX]
    dy = jf[JF_LAY] - jf[JF_LCAY]
    rAx = cA * dx - sA * dy
    rAy = sA * dx + cA * dy
    dx = jf[JF_LBX] - jf[JF_LCBX]
    dy = jf[JF_LBY] - jf[JF_LCBY]
    rBx = cB * dx - sB * dy
    rBy = sB * dx + cB * dy
    jf[JF_RAX] = rAx
    jf[JF_RAY] = rAy
    jf[JF_RBX] = rBx
    jf[JF_RBY] = rBy

    fixed_rotation = (iA + iB) == _ZERO

    jf[EXX] = mA + mB + rAy * rAy * iA + rBy * rBy * iB
    jf[EYX] = -rAy * rAx * iA - rBy * rBx * iB
    jf[EZX] = -rAy * iA - rBy * iB
    jf[EXY] = jf[EYX]
    jf[EYY] = mA + mB + rAx * rAx * iA + rBx * rBx * iB
    jf[EZY] = rAx * iA + rBx * iB
    jf[EXZ] = jf[EZX]
    jf[EYZ] = jf[EZY]
    jf[EZZ] = iA + iB
    _invert_once(jf)

    motor_mass = iA + iB
    if motor_mass > _ZERO:
        motor_mass = _ONE / motor_mass
    jf[JF_MOTOR_MASS] = motor_mass

    if ji[JI_MOTOR_ON] == 0 or fixed_rotation:
        jf[JF_MOTOR_IMP] = _ZERO

    if ji[JI_LIMIT_ON] != 0 and not fixed_rotation:
        joint_angle = aB - aA - jf[JF_REF]
        if abs(jf[JF_UPPER] - jf[JF_LOWER]) < _TWO * ANGULAR_SLOP:
            ji[JI_LIMIT_STATE] = EQUAL_LIMITS
        elif joint_angle <= jf[JF_LOWER]:
            if ji[JI_LIMIT_STATE] != AT_LOWER_LIMIT:
                jf[JF_IMPZ] = _ZERO
            ji[JI_LIMIT_STATE] = AT_LOWER_LIMIT
        elif joint_angle >= jf[JF_UPPER]:
            if ji[JI_LIMIT_STATE] != AT_UPPER_LIMIT:
                jf[JF_IMPZ] = _ZERO
            ji[JI_LIMIT_STATE] = AT_UPPER_LIMIT
        else:
            ji[JI_LIMIT_STATE] = INACTIVE_LIMIT
            jf[JF_IMPZ] = _ZERO
    else:
        ji[JI_LIMIT_STATE] = INACTIVE_LIMIT

    if warm_starting:
        jf[JF_IMPX] = jf[JF_IMPX] * dt_ratio
        jf[JF_IMPY] = jf[JF_IMPY] * dt_ratio
        jf[JF_IMPZ] = jf[JF_IMPZ] * dt_ratio
        jf[JF_MOTOR_IMP] = jf[JF_MOTOR_IMP] * dt_ratio
        Px = jf[JF_IMPX]
        Py = jf[JF_IMPY]
        vAx = vAx - mA * Px
        vAy = vAy - mA * Py
        wA = wA - iA * ((rAx * Py - rAy * Px) + jf[JF_MOTOR_IMP] + jf[JF_IMPZ])
        vBx = vBx + mB * Px
        vBy = vBy + mB * Py
        wB = wB + iB * ((rBx * Py - rBy * Px) + jf[JF_MOTOR_IMP] + jf[JF_IMPZ])
    else:
        jf[JF_IMPX] = _ZERO
        jf[JF_IMPY] = _ZERO
        jf[JF_IMPZ] = _ZERO
        jf[JF_MOTOR_IMP] = _ZERO

    store_pair(vel, ia_, ib_, vAx, vAy, wA, vBx, vBy, wB)


@borrowing_kernel
def _invert_once(jf):
    """The parts of b2Mat33::Solve33 and Solve22 on m_mass that do not depend on the right-hand side, which the
    velocity iterations would recompute each time to the same floats (the division off their critical path)."""
    exx = jf[EXX]
    exy = jf[EXY]
    exz = jf[EXZ]
    eyx = jf[EYX]
    eyy = jf[EYY]
    eyz = jf[EYZ]
    ezx = jf[EZX]
    ezy = jf[EZY]
    ezz = jf[EZZ]
    cx = eyy * ezz - eyz * ezy
    cy = eyz * ezx - eyx * ezz
    cz = eyx * ezy - eyy * ezx
    det = exx * cx + exy * cy + exz * cz
    if det != _ZERO:
        det = _ONE / det
    jf[JF_INV_DET33] = det
    jf[JF_CROSS_EY_EZ] = cx
    jf[JF_CROSS_EY_EZ + 1] = cy
    jf[JF_CROSS_EY_EZ + 2] = cz
    det = exx * eyy - eyx * exy  # a11 * a22 - a12 * a21
    if det != _ZERO:
        det = _ONE / det
    jf[JF_INV_DET22] = det


@borrowing_kernel
def _solve22(joint_f, j, bx, by):
    """b2Mat33::Solve22 on m_mass (its reciprocal determinant from ``_invert_once``)."""
    a11 = joint_f[j, EXX]
    a12 = joint_f[j, EYX]
    a21 = joint_f[j, EXY]
    a22 = joint_f[j, EYY]
    det = joint_f[j, JF_INV_DET22]
    return det * (a22 * bx - a12 * by), det * (a11 * by - a21 * bx)


@borrowing_kernel(always_inline=True)
def solve_velocity_constraints(joint_i, joint_f, j, vel, dt):
    """b2RevoluteJoint::SolveVelocityConstraints; inlined in ``island._iteration``, its one caller (see there)."""
    ia_ = joint_i[j, JI_INDEXA]
    ib_ = joint_i[j, JI_INDEXB]
    vAx, vAy, wA, vBx, vBy, wB = load_pair(vel, ia_, ib_)
    mA = joint_f[j, JF_IMA]
    mB = joint_f[j, JF_IMB]
    iA = joint_f[j, JF_IIA]
    iB = joint_f[j, JF_IIB]
    rAx = joint_f[j, JF_RAX]
    rAy = joint_f[j, JF_RAY]
    rBx = joint_f[j, JF_RBX]
    rBy = joint_f[j, JF_RBY]
    fixed_rotation = (iA + iB) == _ZERO
    limit_state = joint_i[j, JI_LIMIT_STATE]

    if joint_i[j, JI_MOTOR_ON] != 0 and limit_state != EQUAL_LIMITS and not fixed_rotation:
        Cdot = wB - wA - joint_f[j, JF_MOTOR_SPEED]
        impulse = -joint_f[j, JF_MOTOR_MASS] * Cdot
        old_impulse = joint_f[j, JF_MOTOR_IMP]
        max_impulse = dt * joint_f[j, JF_MAX_TORQUE]
        joint_f[j, JF_MOTOR_IMP] = _clamp(old_impulse + impulse, -max_impulse, max_impulse)
        impulse = joint_f[j, JF_MOTOR_IMP] - old_impulse
        wA = wA - iA * impulse
        wB = wB + iB * impulse

    if joint_i[j, JI_LIMIT_ON] != 0 and limit_state != INACTIVE_LIMIT and not fixed_rotation:
        Cdot1x = vBx + (-wB * rBy) - vAx - (-wA * rAy)
        Cdot1y = vBy + wB * rBx - vAy - wA * rAx
        Cdot2 = wB - wA
        # impulse = -m_mass.Solve33(Cdot)
        exx = joint_f[j, EXX]
        exy = joint_f[j, EXY]
        exz = joint_f[j, EXZ]
        eyx = joint_f[j, EYX]
        eyy = joint_f[j, EYY]
        eyz = joint_f[j, EYZ]
        ezx = joint_f[j, EZX]
        ezy = joint_f[j, EZY]
        ezz = joint_f[j, EZZ]
        # b2Cross(ey, ez) and the reciprocal determinant, from _invert_once
        cx = joint_f[j, JF_CROSS_EY_EZ]
        cy = joint_f[j, JF_CROSS_EY_EZ + 1]
        cz = joint_f[j, JF_CROSS_EY_EZ + 2]
        det = joint_f[j, JF_INV_DET33]
        x = det * (Cdot1x * cx + Cdot1y * cy + Cdot2 * cz)
        # b2Cross(b, ez)
        cx = Cdot1y * ezz - Cdot2 * ezy
        cy = Cdot2 * ezx - Cdot1x * ezz
        cz = Cdot1x * ezy - Cdot1y * ezx
        y = det * (exx * cx + exy * cy + exz * cz)
        # b2Cross(ey, b)
        cx = eyy * Cdot2 - eyz * Cdot1y
        cy = eyz * Cdot1x - eyx * Cdot2
        cz = eyx * Cdot1y - eyy * Cdot1x
        z = det * (exx * cx + exy * cy + exz * cz)
        impx = -x
        impy = -y
        impz = -z

        if limit_state == EQUAL_LIMITS:
            joint_f[j, JF_IMPX] = joint_f[j, JF_IMPX] + impx
            joint_f[j, JF_IMPY] = joint_f[j, JF_IMPY] + impy
            joint_f[j, JF_IMPZ] = joint_f[j, JF_IMPZ] + impz
        elif limit_state == AT_LOWER_LIMIT or limit_state == AT_UPPER_LIMIT:
            new_impulse = joint_f[j, JF_IMPZ] + impz
            if (limit_state == AT_LOWER_LIMIT and new_impulse < _ZERO) or (
                limit_state == AT_UPPER_LIMIT and new_impulse > _ZERO
            ):
                iz = joint_f[j, JF_IMPZ]
                rhsx = -Cdot1x + iz * joint_f[j, EZX]
                rhsy = -Cdot1y + iz * joint_f[j, EZY]
                rx, ry = _solve22(joint_f, j, rhsx, rhsy)
                impx = rx
                impy = ry
                impz = -iz
                joint_f[j, JF_IMPX] = joint_f[j, JF_IMPX] + rx
                joint_f[j, JF_IMPY] = joint_f[j, JF_IMPY] + ry
                joint_f[j, JF_IMPZ] = _ZERO
            else:
                joint_f[j, JF_IMPX] = joint_f[j, JF_IMPX] + impx
                joint_f[j, JF_IMPY] = joint_f[j, JF_IMPY] + impy
                joint_f[j, JF_IMPZ] = joint_f[j, JF_IMPZ] + impz

        vAx = vAx - mA * impx
        vAy = vAy - mA * impy
        wA = wA - iA * ((rAx * impy - rAy * impx) + impz)
        vBx = vBx + mB * impx
        vBy = vBy + mB * impy
        wB = wB + iB * ((rBx * impy - rBy * impx) + impz)
    else:
        Cdotx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
        Cdoty = vBy + wB * rBx - vAy - wA * rAx
        ix, iy = _solve22(joint_f, j, -Cdotx, -Cdoty)
        joint_f[j, JF_IMPX] = joint_f[j, JF_IMPX] + ix
        joint_f[j, JF_IMPY] = joint_f[j, JF_IMPY] + iy
        vAx = vAx - mA * ix
        vAy = vAy - mA * iy
        wA = wA - iA * (rAx * iy - rAy * ix)
        vBx = vBx + mB * ix
        vBy = vBy + mB * iy
        wB = wB + iB * (rBx * iy - rBy * ix)

    store_pair(vel, ia_, ib_, vAx, vAy, wA, vBx, vBy, wB)


@borrowing_kernel
def solve_position_constraints(joint_i, joint_f, j, pos):
    """b2RevoluteJoint::SolvePositionConstraints; returns whether the joint is within tolerance."""
    ia_ = joint_i[j, JI_INDEXA]
    ib_ = joint_i[j, JI_INDEXB]
    cAx, cAy, aA, cBx, cBy, aB = load_pair(pos, ia_, ib_)
    angular_error = _ZERO
    position_error = _ZERO
    inv_ia = joint_f[j, JF_IIA]
    inv_ib = joint_f[j, JF_IIB]
    fixed_rotation = (inv_ia + inv_ib) == _ZERO
    limit_state = joint_i[j, JI_LIMIT_STATE]

    if joint_i[j, JI_LIMIT_ON] != 0 and limit_state != INACTIVE_LIMIT and not fixed_rotation:
        angle = aB - aA - joint_f[j, JF_REF]
        limit_impulse = _ZERO
        if limit_state == EQUAL_LIMITS:
            C = _clamp(angle - joint_f[j, JF_LOWER], -MAX_ANGULAR_CORRECTION, MAX_ANGULAR_CORRECTION)
            limit_impulse = -joint_f[j, JF_MOTOR_MASS] * C
            angular_error = abs(C)
        elif limit_state == AT_LOWER_LIMIT:
            C = angle - joint_f[j, JF_LOWER]
            angular_error = -C
            C = _clamp(C + ANGULAR_SLOP, -MAX_ANGULAR_CORRECTION, _ZERO)
            limit_impulse = -joint_f[j, JF_MOTOR_MASS] * C
        elif limit_state == AT_UPPER_LIMIT:
            C = angle - joint_f[j, JF_UPPER]
            angular_error = C
            C = _clamp(C - ANGULAR_SLOP, _ZERO, MAX_ANGULAR_CORRECTION)
            limit_impulse = -joint_f[j, JF_MOTOR_MASS] * C
        aA = aA - inv_ia * limit_impulse
        aB = aB + inv_ib * limit_impulse

    sA, cA = sin_cos(aA)
    sB, cB = sin_cos(aB)
    dx = joint_f[j, JF_LAX] - joint_f[j, JF_LCAX]
    dy = joint_f[j, JF_LAY] - joint_f[j, JF_LCAY]
    rAx = cA * dx - sA * dy
    rAy = sA * dx + cA * dy
    dx = joint_f[j, JF_LBX] - joint_f[j, JF_LCBX]
    dy = joint_f[j, JF_LBY] - joint_f[j, JF_LCBY]
    rBx = cB * dx - sB * dy
    rBy = sB * dx + cB * dy
    Cx = cBx + rBx - cAx - rAx
    Cy = cBy + rBy - cAy - rAy
    position_error = sqrtf(Cx * Cx + Cy * Cy)

    mA = joint_f[j, JF_IMA]
    mB = joint_f[j, JF_IMB]
    iA = inv_ia
    iB = inv_ib
    kexx = mA + mB + iA * rAy * rAy + iB * rBy * rBy
    kexy = -iA * rAx * rAy - iB * rBx * rBy
    keyx = kexy
    keyy = mA + mB + iA * rAx * rAx + iB * rBx * rBx
    # -K.Solve(C)
    det = kexx * keyy - keyx * kexy
    if det != _ZERO:
        det = _ONE / det
    ix = -(det * (keyy * Cx - keyx * Cy))
    iy = -(det * (kexx * Cy - kexy * Cx))

    cAx = cAx - mA * ix
    cAy = cAy - mA * iy
    aA = aA - iA * (rAx * iy - rAy * ix)
    cBx = cBx + mB * ix
    cBy = cBy + mB * iy
    aB = aB + iB * (rBx * iy - rBy * ix)

    store_pair(pos, ia_, ib_, cAx, cAy, aA, cBx, cBy, aB)
    return position_error <= LINEAR_SLOP and angular_error <= ANGULAR_SLOP


@borrowing_kernel
def joint_angle(w, r, j):
    """b2RevoluteJoint::GetJointAngle: bodyB's sweep angle - bodyA's - the reference angle (float32)."""
    return row_joint_angle(w.body_f[r], w.joint_i[r], w.joint_f[r], j)


@borrowing_kernel
def row_joint_angle(body_f, joint_i, joint_f, j):
    """``joint_angle`` of joint ``j`` of one world's rows of ``body_f``, ``joint_i`` and ``joint_f``."""
    a = body_f[joint_i[j, JI_BODYA], BF_A]
    b = body_f[joint_i[j, JI_BODYB], BF_A]
    return (b - a) - joint_f[j, JF_REF]


@borrowing_kernel
def set_motor_speed(w, r, j, speed):
    """b2RevoluteJoint::SetMotorSpeed (wakes both bodies)."""
    set_awake(w, r, w.joint_i[r, j, JI_BODYA], True)
    set_awake(w, r, w.joint_i[r, j, JI_BODYB], True)
    w.joint_f[r, j, JF_MOTOR_SPEED] = speed


@borrowing_kernel
def set_max_motor_torque(w, r, j, torque):
    """b2RevoluteJoint::SetMaxMotorTorque (wakes both bodies)."""
    set_awake(w, r, w.joint_i[r, j, JI_BODYA], True)
    set_awake(w, r, w.joint_i[r, j, JI_BODYB], True)
    w.joint_f[r, j, JF_MAX_TORQUE] = torque


@borrowing_kernel
def enable_motor(w, r, j, flag):
    """b2RevoluteJoint::EnableMotor (wakes both bodies)."""
    set_awake(w, r, w.joint_i[r, j, JI_BODYA], True)
    set_awake(w, r, w.joint_i[r, j, JI_BODYB], True)
    w.joint_i[r, j, JI_MOTOR_ON] = 1 if flag else 0


@borrowing_kernel
def enable_limit(w, r, j, flag):
    """b2RevoluteJoint::EnableLimit (wakes both bodies and resets the limit impulse if it changes)."""
    if flag != (w.joint_i[r, j, JI_LIMIT_ON] != 0):
        set_awake(w, r, w.joint_i[r, j, JI_BODYA], True)
        set_awake(w, r, w.joint_i[r, j, JI_BODYB], True)
        w.joint_i[r, j, JI_LIMIT_ON] = 1 if flag else 0
        w.joint_f[r, j, JF_IMPZ] = _ZERO


@borrowing_kernel
def set_limits(w, r, j, lower, upper):
    """b2RevoluteJoint::SetLimits (wakes both bodies and resets the limit impulse if they change)."""
    if lower != w.joint_f[r, j, JF_LOWER] or upper != w.joint_f[r, j, JF_UPPER]:
        set_awake(w, r, w.joint_i[r, j, JI_BODYA], True)
        set_awake(w, r, w.joint_i[r, j, JI_BODYB], True)
        w.joint_f[r, j, JF_IMPZ] = _ZERO
        w.joint_f[r, j, JF_LOWER] = lower
        w.joint_f[r, j, JF_UPPER] = upper
