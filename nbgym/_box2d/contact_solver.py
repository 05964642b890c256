"""b2ContactSolver: the constructor (``setup``), InitializeVelocityConstraints, WarmStart,
SolveVelocityConstraints (with the 2-point block solver), StoreImpulses, SolvePositionConstraints and
SolveTOIPositionConstraints; float32 in the C++ operation order.

One row's constraint arrays (``World.vc_f/vc_i/pc_f/pc_i[row]``) hold one constraint per island
contact, in island order. ``pos``/``vel`` are the island's ``(bodies, 3)`` arrays (see ``island``).
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import manifold, shapes
from .math import cosf, sinf, sqrtf
from .settings import BAUMGARTE, EPSILON, LINEAR_SLOP, MAX_LINEAR_CORRECTION, TOI_BAUGARTE, VELOCITY_THRESHOLD
from .world import (
    BF_INVI,
    BF_INVMASS,
    BF_LCX,
    BF_LCY,
    BI_ISLAND,
    CF_FRICTION,
    CF_RESTITUTION,
    CF_TANGENT_SPEED,
    CI_FA,
    CI_FB,
    FI_BODY,
    NPC as _WORLD_NPC,
    NVC as _WORLD_NVC,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)
_HALF = F32(0.5)
_MAX_CONDITION = F32(1000.0)
_MIN_SEP = F32(-3.0) * LINEAR_SLOP
_MIN_TOI_SEP = F32(-1.5) * LINEAR_SLOP

# manifold.world_manifold's output: [normal.x, normal.y, points[0].x, points[0].y, points[1].x, points[1].y]
_WM_NX = 0
_WM_NY = 1
_WM_POINTS = 2

# vc_f fields
V_NX = 0
V_NY = 1
V_MA = 2
V_MB = 3
V_IA = 4
V_IB = 5
V_FRICTION = 6
V_RESTITUTION = 7
V_TANGENT_SPEED = 8
V_K = 9  # K: ex.x ex.y ey.x ey.y
V_NM = 13  # normalMass: ex.x ex.y ey.x ey.y
V_POINTS = (
    17  # per point (stride 9): rA.x rA.y rB.x rB.y normalImpulse tangentImpulse normalMass tangentMass velocityBias
)
P_RAX = 0
P_RAY = 1
P_RBX = 2
P_RBY = 3
P_NI = 4
P_TI = 5
P_NMASS = 6
P_TMASS = 7
P_BIAS = 8
P_STRIDE = 9
NVC = V_POINTS + 2 * P_STRIDE

# vc_i / pc_i fields
I_A = 0
I_B = 1
I_COUNT = 2
I_CONTACT = 3  # vc_i: the world's contact index; pc_i: the manifold type

# pc_f fields
Q_LP = 0  # localPoints[2] (4 floats)
Q_LNX = 4
Q_LNY = 5
Q_LPX = 6
Q_LPY = 7
Q_MA = 8
Q_MB = 9
Q_LCAX = 10
Q_LCAY = 11
Q_LCBX = 12
Q_LCBY = 13
Q_IA = 14
Q_IB = 15
Q_RA = 16
Q_RB = 17
NPC = 18
assert NVC == _WORLD_NVC and NPC == _WORLD_NPC


@borrowing_kernel
def _clamp(a, low, high):
    m = a if a < high else high
    return low if low > m else m


@borrowing_kernel
def setup(w, r, count, dt_ratio, warm_starting):
    """b2ContactSolver::b2ContactSolver for the row's island contacts ``w.isl_contacts[r, :count]``."""
    contacts = w.isl_contacts[r]
    for i in range(count):
        c = contacts[i]
        fa = w.contact_i[r, c, CI_FA]
        fb = w.contact_i[r, c, CI_FB]
        radius_a = w.shape_f[r, fa, shapes.RADIUS, 0]
        radius_b = w.shape_f[r, fb, shapes.RADIUS, 0]
        ba = w.fixture_i[r, fa, FI_BODY]
        bb = w.fixture_i[r, fb, FI_BODY]
        mf = w.man_f[r, c]
        mi = w.man_i[r, c]
        point_count = np.int32(mi[manifold.POINT_COUNT])
        vc = w.vc_f[r, i]
        vci = w.vc_i[r, i]
        vc[V_FRICTION] = w.contact_f[r, c, CF_FRICTION]
        vc[V_RESTITUTION] = w.contact_f[r, c, CF_RESTITUTION]
        vc[V_TANGENT_SPEED] = w.contact_f[r, c, CF_TANGENT_SPEED]
        vci[I_A] = w.body_i[r, ba, BI_ISLAND]
        vci[I_B] = w.body_i[r, bb, BI_ISLAND]
        vc[V_MA] = w.body_f[r, ba, BF_INVMASS]
        vc[V_MB] = w.body_f[r, bb, BF_INVMASS]
        vc[V_IA] = w.body_f[r, ba, BF_INVI]
        vc[V_IB] = w.body_f[r, bb, BF_INVI]
        vci[I_CONTACT] = c
        vci[I_COUNT] = point_count
        for k in range(4):
            vc[V_K + k] = _ZERO
            vc[V_NM + k] = _ZERO
        pc = w.pc_f[r, i]
        pci = w.pc_i[r, i]
        pci[I_A] = vci[I_A]
        pci[I_B] = vci[I_B]
        pc[Q_MA] = vc[V_MA]
        pc[Q_MB] = vc[V_MB]
        pc[Q_LCAX] = w.body_f[r, ba, BF_LCX]
        pc[Q_LCAY] = w.body_f[r, ba, BF_LCY]
        pc[Q_LCBX] = w.body_f[r, bb, BF_LCX]
        pc[Q_LCBY] = w.body_f[r, bb, BF_LCY]
        pc[Q_IA] = vc[V_IA]
        pc[Q_IB] = vc[V_IB]
        pc[Q_LNX] = mf[manifold.LOCAL_NORMAL]
        pc[Q_LNY] = mf[manifold.LOCAL_NORMAL + 1]
        pc[Q_LPX] = mf[manifold.LOCAL_POINT]
        pc[Q_LPY] = mf[manifold.LOCAL_POINT + 1]
        pci[I_COUNT] = point_count
        pc[Q_RA] = radius_a
        pc[Q_RB] = radius_b
        pci[I_CONTACT] = np.int32(mi[manifold.TYPE])
        for j in range(point_count):
            o = V_POINTS + P_STRIDE * j
            mp = manifold.POINTS + manifold.POINT_WIDTH * j
            if warm_starting:
                vc[o + P_NI] = dt_ratio * mf[mp + manifold.NORMAL_IMPULSE]
                vc[o + P_TI] = dt_ratio * mf[mp + manifold.TANGENT_IMPULSE]
            else:
                vc[o + P_NI] = _ZERO
                vc[o + P_TI] = _ZERO
            vc[o + P_RAX] = _ZERO
            vc[o + P_RAY] = _ZERO
            vc[o + P_RBX] = _ZERO
            vc[o + P_RBY] = _ZERO
            vc[o + P_NMASS] = _ZERO
            vc[o + P_TMASS] = _ZERO
            vc[o + P_BIAS] = _ZERO
            pc[Q_LP + 2 * j] = mf[mp]
            pc[Q_LP + 2 * j + 1] = mf[mp + 1]


@borrowing_kernel
def initialize_velocity_constraints(w, r, count):
    """b2ContactSolver::InitializeVelocityConstraints."""
    pos = w.positions[r]
    vel = w.velocities[r]
    xf_a = w.xf_tmp[r, 0]
    xf_b = w.xf_tmp[r, 1]
    wm = w.wm_tmp[r]
    for i in range(count):
        vc = w.vc_f[r, i]
        vci = w.vc_i[r, i]
        pc = w.pc_f[r, i]
        radius_a = pc[Q_RA]
        radius_b = pc[Q_RB]
        c = vci[I_CONTACT]
        ia_ = vci[I_A]
        ib_ = vci[I_B]
        mA = vc[V_MA]
        mB = vc[V_MB]
        iA = vc[V_IA]
        iB = vc[V_IB]
        lcax = pc[Q_LCAX]
        lcay = pc[Q_LCAY]
        lcbx = pc[Q_LCBX]
        lcby = pc[Q_LCBY]
        cAx = pos[ia_, 0]
        cAy = pos[ia_, 1]
        aA = pos[ia_, 2]
        vAx = vel[ia_, 0]
        vAy = vel[ia_, 1]
        wA = vel[ia_, 2]
        cBx = pos[ib_, 0]
        cBy = pos[ib_, 1]
        aB = pos[ib_, 2]
        vBx = vel[ib_, 0]
        vBy = vel[ib_, 1]
        wB = vel[ib_, 2]

        sa = sinf(aA)
        ca = cosf(aA)
        sb = sinf(aB)
        cb = cosf(aB)
        xf_a[2] = sa
        xf_a[3] = ca
        xf_b[2] = sb
        xf_b[3] = cb
        xf_a[0] = cAx - (ca * lcax - sa * lcay)
        xf_a[1] = cAy - (sa * lcax + ca * lcay)
        xf_b[0] = cBx - (cb * lcbx - sb * lcby)
        xf_b[1] = cBy - (sb * lcbx + cb * lcby)
        manifold.world_manifold(w.man_f[r, c], w.man_i[r, c], xf_a, radius_a, xf_b, radius_b, wm)
        nx = wm[_WM_NX]
        ny = wm[_WM_NY]
        vc[V_NX] = nx
        vc[V_NY] = ny
        tx = ny
        ty = -nx
        point_count = vci[I_COUNT]
        restitution = vc[V_RESTITUTION]
        for j in range(point_count):
            o = V_POINTS + P_STRIDE * j
            px = wm[_WM_POINTS + 2 * j]
            py = wm[_WM_POINTS + 2 * j + 1]
            rAx = px - cAx
            rAy = py - cAy
            rBx = px - cBx
            rBy = py - cBy
            vc[o + P_RAX] = rAx
            vc[o + P_RAY] = rAy
            vc[o + P_RBX] = rBx
            vc[o + P_RBY] = rBy
            rnA = rAx * ny - rAy * nx
            rnB = rBx * ny - rBy * nx
            k_normal = mA + mB + iA * rnA * rnA + iB * rnB * rnB
            vc[o + P_NMASS] = _ONE / k_normal if k_normal > _ZERO else _ZERO
            rtA = rAx * ty - rAy * tx
            rtB = rBx * ty - rBy * tx
            k_tangent = mA + mB + iA * rtA * rtA + iB * rtB * rtB
            vc[o + P_TMASS] = _ONE / k_tangent if k_tangent > _ZERO else _ZERO
            vc[o + P_BIAS] = _ZERO
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            v_rel = nx * dvx + ny * dvy
            if v_rel < -VELOCITY_THRESHOLD:
                vc[o + P_BIAS] = -restitution * v_rel

        if point_count == 2:
            o1 = V_POINTS
            o2 = V_POINTS + P_STRIDE
            rn1A = vc[o1 + P_RAX] * ny - vc[o1 + P_RAY] * nx
            rn1B = vc[o1 + P_RBX] * ny - vc[o1 + P_RBY] * nx
            rn2A = vc[o2 + P_RAX] * ny - vc[o2 + P_RAY] * nx
            rn2B = vc[o2 + P_RBX] * ny - vc[o2 + P_RBY] * nx
            k11 = mA + mB + iA * rn1A * rn1A + iB * rn1B * rn1B
            k22 = mA + mB + iA * rn2A * rn2A + iB * rn2B * rn2B
            k12 = mA + mB + iA * rn1A * rn2A + iB * rn1B * rn2B
            if k11 * k11 < _MAX_CONDITION * (k11 * k22 - k12 * k12):
                vc[V_K + 0] = k11
                vc[V_K + 1] = k12
                vc[V_K + 2] = k12
                vc[V_K + 3] = k22
                # K.GetInverse(): a = ex.x, b = ey.x, c = ex.y, d = ey.y
                det = k11 * k22 - k12 * k12
                if det != _ZERO:
                    det = _ONE / det
                vc[V_NM + 0] = det * k22
                vc[V_NM + 2] = -det * k12
                vc[V_NM + 1] = -det * k12
                vc[V_NM + 3] = det * k11
            else:
                vci[I_COUNT] = 1


@borrowing_kernel
def warm_start(vcf, vcif, vel, count):
    """b2ContactSolver::WarmStart."""
    for i in range(count):
        ia_ = vcif[i, I_A]
        ib_ = vcif[i, I_B]
        mA = vcf[i, V_MA]
        iA = vcf[i, V_IA]
        mB = vcf[i, V_MB]
        iB = vcf[i, V_IB]
        point_count = vcif[i, I_COUNT]
        vAx = vel[ia_, 0]
        vAy = vel[ia_, 1]
        wA = vel[ia_, 2]
        vBx = vel[ib_, 0]
        vBy = vel[ib_, 1]
        wB = vel[ib_, 2]
        nx = vcf[i, V_NX]
        ny = vcf[i, V_NY]
        tx = ny
        ty = -nx
        for j in range(point_count):
            o = V_POINTS + P_STRIDE * j
            ni = vcf[i, o + P_NI]
            ti = vcf[i, o + P_TI]
            Px = ni * nx + ti * tx
            Py = ni * ny + ti * ty
            wA = wA - iA * (vcf[i, o + P_RAX] * Py - vcf[i, o + P_RAY] * Px)
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wB = wB + iB * (vcf[i, o + P_RBX] * Py - vcf[i, o + P_RBY] * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
        vel[ia_, 0] = vAx
        vel[ia_, 1] = vAy
        vel[ia_, 2] = wA
        vel[ib_, 0] = vBx
        vel[ib_, 1] = vBy
        vel[ib_, 2] = wB


@borrowing_kernel
def solve_velocity_constraints(vcf, vcif, vel, count):
    """b2ContactSolver::SolveVelocityConstraints."""
    for i in range(count):
        ia_ = vcif[i, I_A]
        ib_ = vcif[i, I_B]
        mA = vcf[i, V_MA]
        iA = vcf[i, V_IA]
        mB = vcf[i, V_MB]
        iB = vcf[i, V_IB]
        point_count = vcif[i, I_COUNT]
        vAx = vel[ia_, 0]
        vAy = vel[ia_, 1]
        wA = vel[ia_, 2]
        vBx = vel[ib_, 0]
        vBy = vel[ib_, 1]
        wB = vel[ib_, 2]
        nx = vcf[i, V_NX]
        ny = vcf[i, V_NY]
        tx = ny
        ty = -nx
        friction = vcf[i, V_FRICTION]
        tangent_speed = vcf[i, V_TANGENT_SPEED]

        for j in range(point_count):
            o = V_POINTS + P_STRIDE * j
            rAx = vcf[i, o + P_RAX]
            rAy = vcf[i, o + P_RAY]
            rBx = vcf[i, o + P_RBX]
            rBy = vcf[i, o + P_RBY]
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            vt = (dvx * tx + dvy * ty) - tangent_speed
            lam = vcf[i, o + P_TMASS] * (-vt)
            max_friction = friction * vcf[i, o + P_NI]
            old = vcf[i, o + P_TI]
            new_impulse = _clamp(old + lam, -max_friction, max_friction)
            lam = new_impulse - old
            vcf[i, o + P_TI] = new_impulse
            Px = lam * tx
            Py = lam * ty
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wA = wA - iA * (rAx * Py - rAy * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
            wB = wB + iB * (rBx * Py - rBy * Px)

        if point_count == 1:
            o = V_POINTS
            rAx = vcf[i, o + P_RAX]
            rAy = vcf[i, o + P_RAY]
            rBx = vcf[i, o + P_RBX]
            rBy = vcf[i, o + P_RBY]
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            vn = dvx * nx + dvy * ny
            lam = -vcf[i, o + P_NMASS] * (vn - vcf[i, o + P_BIAS])
            old = vcf[i, o + P_NI]
            new_impulse = old + lam
            if not (new_impulse > _ZERO):
                new_impulse = _ZERO
            lam = new_impulse - old
            vcf[i, o + P_NI] = new_impulse
            Px = lam * nx
            Py = lam * ny
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wA = wA - iA * (rAx * Py - rAy * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
            wB = wB + iB * (rBx * Py - rBy * Px)
        else:
            o1 = V_POINTS
            o2 = V_POINTS + P_STRIDE
            r1Ax = vcf[i, o1 + P_RAX]
            r1Ay = vcf[i, o1 + P_RAY]
            r1Bx = vcf[i, o1 + P_RBX]
            r1By = vcf[i, o1 + P_RBY]
            r2Ax = vcf[i, o2 + P_RAX]
            r2Ay = vcf[i, o2 + P_RAY]
            r2Bx = vcf[i, o2 + P_RBX]
            r2By = vcf[i, o2 + P_RBY]
            ax = vcf[i, o1 + P_NI]
            ay = vcf[i, o2 + P_NI]
            dv1x = vBx + (-wB * r1By) - vAx - (-wA * r1Ay)
            dv1y = vBy + wB * r1Bx - vAy - wA * r1Ax
            dv2x = vBx + (-wB * r2By) - vAx - (-wA * r2Ay)
            dv2y = vBy + wB * r2Bx - vAy - wA * r2Ax
            vn1 = dv1x * nx + dv1y * ny
            vn2 = dv2x * nx + dv2y * ny
            bx = vn1 - vcf[i, o1 + P_BIAS]
            by = vn2 - vcf[i, o2 + P_BIAS]
            # b -= b2Mul(K, a)
            kexx = vcf[i, V_K + 0]
            kexy = vcf[i, V_K + 1]
            keyx = vcf[i, V_K + 2]
            keyy = vcf[i, V_K + 3]
            bx = bx - (kexx * ax + keyx * ay)
            by = by - (kexy * ax + keyy * ay)
            solved = False
            xx = _ZERO
            xy = _ZERO
            # case 1: vn = 0 for both points
            xx = -(vcf[i, V_NM + 0] * bx + vcf[i, V_NM + 2] * by)
            xy = -(vcf[i, V_NM + 1] * bx + vcf[i, V_NM + 3] * by)
            if xx >= _ZERO and xy >= _ZERO:
                solved = True
            if not solved:
                # case 2: vn1 = 0, x2 = 0
                xx = -vcf[i, o1 + P_NMASS] * bx
                xy = _ZERO
                vn2 = kexy * xx + by
                if xx >= _ZERO and vn2 >= _ZERO:
                    solved = True
            if not solved:
                # case 3: vn2 = 0, x1 = 0
                xx = _ZERO
                xy = -vcf[i, o2 + P_NMASS] * by
                vn1 = keyx * xy + bx
                if xy >= _ZERO and vn1 >= _ZERO:
                    solved = True
            if not solved:
                # case 4: x = 0
                xx = _ZERO
                xy = _ZERO
                vn1 = bx
                vn2 = by
                if vn1 >= _ZERO and vn2 >= _ZERO:
                    solved = True
            if solved:
                dx = xx - ax
                dy = xy - ay
                P1x = dx * nx
                P1y = dx * ny
                P2x = dy * nx
                P2y = dy * ny
                vAx = vAx - mA * (P1x + P2x)
                vAy = vAy - mA * (P1y + P2y)
                wA = wA - iA * ((r1Ax * P1y - r1Ay * P1x) + (r2Ax * P2y - r2Ay * P2x))
                vBx = vBx + mB * (P1x + P2x)
                vBy = vBy + mB * (P1y + P2y)
                wB = wB + iB * ((r1Bx * P1y - r1By * P1x) + (r2Bx * P2y - r2By * P2x))
                vcf[i, o1 + P_NI] = xx
                vcf[i, o2 + P_NI] = xy

        vel[ia_, 0] = vAx
        vel[ia_, 1] = vAy
        vel[ia_, 2] = wA
        vel[ib_, 0] = vBx
        vel[ib_, 1] = vBy
        vel[ib_, 2] = wB


@borrowing_kernel
def store_impulses(w, r, count):
    """b2ContactSolver::StoreImpulses."""
    for i in range(count):
        vc = w.vc_f[r, i]
        c = w.vc_i[r, i, I_CONTACT]
        mf = w.man_f[r, c]
        for j in range(w.vc_i[r, i, I_COUNT]):
            o = V_POINTS + P_STRIDE * j
            mp = manifold.POINTS + manifold.POINT_WIDTH * j
            mf[mp + manifold.NORMAL_IMPULSE] = vc[o + P_NI]
            mf[mp + manifold.TANGENT_IMPULSE] = vc[o + P_TI]


@borrowing_kernel
def _position_manifold(pcf, i, mtype, qa_s, qa_c, pax, pay, qb_s, qb_c, pbx, pby, index):
    """b2PositionSolverManifold::Initialize: (normal.x, normal.y, point.x, point.y, separation)."""
    if mtype == manifold.CIRCLES:
        lx = pcf[i, Q_LPX]
        ly = pcf[i, Q_LPY]
        pointAx = (qa_c * lx - qa_s * ly) + pax
        pointAy = (qa_s * lx + qa_c * ly) + pay
        lx = pcf[i, Q_LP]
        ly = pcf[i, Q_LP + 1]
        pointBx = (qb_c * lx - qb_s * ly) + pbx
        pointBy = (qb_s * lx + qb_c * ly) + pby
        nx = pointBx - pointAx
        ny = pointBy - pointAy
        length = sqrtf(nx * nx + ny * ny)
        if not (length < EPSILON):
            inv_length = _ONE / length
            nx = nx * inv_length
            ny = ny * inv_length
        px = _HALF * (pointAx + pointBx)
        py = _HALF * (pointAy + pointBy)
        sep = ((pointBx - pointAx) * nx + (pointBy - pointAy) * ny) - pcf[i, Q_RA] - pcf[i, Q_RB]
        return nx, ny, px, py, sep
    elif mtype == manifold.FACE_A:
        lx = pcf[i, Q_LNX]
        ly = pcf[i, Q_LNY]
        nx = qa_c * lx - qa_s * ly
        ny = qa_s * lx + qa_c * ly
        lx = pcf[i, Q_LPX]
        ly = pcf[i, Q_LPY]
        planex = (qa_c * lx - qa_s * ly) + pax
        planey = (qa_s * lx + qa_c * ly) + pay
        lx = pcf[i, Q_LP + 2 * index]
        ly = pcf[i, Q_LP + 2 * index + 1]
        clipx = (qb_c * lx - qb_s * ly) + pbx
        clipy = (qb_s * lx + qb_c * ly) + pby
        sep = ((clipx - planex) * nx + (clipy - planey) * ny) - pcf[i, Q_RA] - pcf[i, Q_RB]
        return nx, ny, clipx, clipy, sep
    else:
        lx = pcf[i, Q_LNX]
        ly = pcf[i, Q_LNY]
        nx = qb_c * lx - qb_s * ly
        ny = qb_s * lx + qb_c * ly
        lx = pcf[i, Q_LPX]
        ly = pcf[i, Q_LPY]
        planex = (qb_c * lx - qb_s * ly) + pbx
        planey = (qb_s * lx + qb_c * ly) + pby
        lx = pcf[i, Q_LP + 2 * index]
        ly = pcf[i, Q_LP + 2 * index + 1]
        clipx = (qa_c * lx - qa_s * ly) + pax
        clipy = (qa_s * lx + qa_c * ly) + pay
        sep = ((clipx - planex) * nx + (clipy - planey) * ny) - pcf[i, Q_RA] - pcf[i, Q_RB]
        return -nx, -ny, clipx, clipy, sep


@borrowing_kernel
def _solve_positions(w, r, count, toi, toi_a, toi_b):
    pos = w.positions[r]
    pcf = w.pc_f[r]
    pcif = w.pc_i[r]
    min_separation = _ZERO
    for i in range(count):
        ia_ = pcif[i, I_A]
        ib_ = pcif[i, I_B]
        lcax = pcf[i, Q_LCAX]
        lcay = pcf[i, Q_LCAY]
        lcbx = pcf[i, Q_LCBX]
        lcby = pcf[i, Q_LCBY]
        if toi:
            mA = _ZERO
            iA = _ZERO
            if ia_ == toi_a or ia_ == toi_b:
                mA = pcf[i, Q_MA]
                iA = pcf[i, Q_IA]
            mB = _ZERO
            iB = _ZERO
            if ib_ == toi_a or ib_ == toi_b:
                mB = pcf[i, Q_MB]
                iB = pcf[i, Q_IB]
            baumgarte = TOI_BAUGARTE
        else:
            mA = pcf[i, Q_MA]
            iA = pcf[i, Q_IA]
            mB = pcf[i, Q_MB]
            iB = pcf[i, Q_IB]
            baumgarte = BAUMGARTE
        point_count = pcif[i, I_COUNT]
        mtype = pcif[i, I_CONTACT]
        cAx = pos[ia_, 0]
        cAy = pos[ia_, 1]
        aA = pos[ia_, 2]
        cBx = pos[ib_, 0]
        cBy = pos[ib_, 1]
        aB = pos[ib_, 2]
        for j in range(point_count):
            sa = sinf(aA)
            ca = cosf(aA)
            sb = sinf(aB)
            cb = cosf(aB)
            pax = cAx - (ca * lcax - sa * lcay)
            pay = cAy - (sa * lcax + ca * lcay)
            pbx = cBx - (cb * lcbx - sb * lcby)
            pby = cBy - (sb * lcbx + cb * lcby)
            nx, ny, px, py, separation = _position_manifold(pcf, i, mtype, sa, ca, pax, pay, sb, cb, pbx, pby, j)
            rAx = px - cAx
            rAy = py - cAy
            rBx = px - cBx
            rBy = py - cBy
            if not (min_separation < separation):
                min_separation = separation
            C = _clamp(baumgarte * (separation + LINEAR_SLOP), -MAX_LINEAR_CORRECTION, _ZERO)
            rnA = rAx * ny - rAy * nx
            rnB = rBx * ny - rBy * nx
            K = mA + mB + iA * rnA * rnA + iB * rnB * rnB
            impulse = -C / K if K > _ZERO else _ZERO
            Px = impulse * nx
            Py = impulse * ny
            cAx = cAx - mA * Px
            cAy = cAy - mA * Py
            aA = aA - iA * (rAx * Py - rAy * Px)
            cBx = cBx + mB * Px
            cBy = cBy + mB * Py
            aB = aB + iB * (rBx * Py - rBy * Px)
        pos[ia_, 0] = cAx
        pos[ia_, 1] = cAy
        pos[ia_, 2] = aA
        pos[ib_, 0] = cBx
        pos[ib_, 1] = cBy
        pos[ib_, 2] = aB
    if toi:
        return min_separation >= _MIN_TOI_SEP
    return min_separation >= _MIN_SEP


@borrowing_kernel
def solve_position_constraints(w, r, count):
    """b2ContactSolver::SolvePositionConstraints."""
    return _solve_positions(w, r, count, False, -1, -1)


@borrowing_kernel
def solve_toi_position_constraints(w, r, count, toi_a, toi_b):
    """b2ContactSolver::SolveTOIPositionConstraints."""
    return _solve_positions(w, r, count, True, toi_a, toi_b)
