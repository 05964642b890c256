"""b2ContactSolver: the constructor (``setup``), InitializeVelocityConstraints, WarmStart,
SolveVelocityConstraints (with the 2-point block solver), StoreImpulses, SolvePositionConstraints and
SolveTOIPositionConstraints; float32 in the C++ operation order.

One row's constraint arrays (``World.vc_f/vc_i/pc_f/pc_i[row]``, their columns ``world``'s ``VC_*``/``VP_*``,
``SI_*`` and ``PC_*``) hold one constraint per island contact, in island order. ``pos``/``vel`` are the island's ``(bodies, 3)`` arrays (see ``island``).
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import manifold, shapes
from .math import sin_cos, sqrtf
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
    PC_IA,
    PC_IB,
    PC_LCAX,
    PC_LCAY,
    PC_LCBX,
    PC_LCBY,
    PC_LNX,
    PC_LNY,
    PC_LP,
    PC_LPX,
    PC_LPY,
    PC_MA,
    PC_MB,
    PC_RA,
    PC_RB,
    SI_A,
    SI_B,
    SI_CONTACT,
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
    VC_RESTITUTION,
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
    load_pair,
    store_pair,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)
_HALF = F32(0.5)
_MAX_CONDITION = F32(1000.0)
_MIN_SEP = F32(-3.0) * LINEAR_SLOP
_MIN_TOI_SEP = F32(-1.5) * LINEAR_SLOP


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
        vc[VC_FRICTION] = w.contact_f[r, c, CF_FRICTION]
        vc[VC_RESTITUTION] = w.contact_f[r, c, CF_RESTITUTION]
        vc[VC_TANGENT_SPEED] = w.contact_f[r, c, CF_TANGENT_SPEED]
        vci[SI_A] = w.body_i[r, ba, BI_ISLAND]
        vci[SI_B] = w.body_i[r, bb, BI_ISLAND]
        vc[VC_MA] = w.body_f[r, ba, BF_INVMASS]
        vc[VC_MB] = w.body_f[r, bb, BF_INVMASS]
        vc[VC_IA] = w.body_f[r, ba, BF_INVI]
        vc[VC_IB] = w.body_f[r, bb, BF_INVI]
        vci[SI_CONTACT] = c
        vci[SI_COUNT] = point_count
        for k in range(4):
            vc[VC_K + k] = _ZERO
            vc[VC_NM + k] = _ZERO
        pc = w.pc_f[r, i]
        pci = w.pc_i[r, i]
        pci[SI_A] = vci[SI_A]
        pci[SI_B] = vci[SI_B]
        pc[PC_MA] = vc[VC_MA]
        pc[PC_MB] = vc[VC_MB]
        pc[PC_LCAX] = w.body_f[r, ba, BF_LCX]
        pc[PC_LCAY] = w.body_f[r, ba, BF_LCY]
        pc[PC_LCBX] = w.body_f[r, bb, BF_LCX]
        pc[PC_LCBY] = w.body_f[r, bb, BF_LCY]
        pc[PC_IA] = vc[VC_IA]
        pc[PC_IB] = vc[VC_IB]
        pc[PC_LNX] = mf[manifold.LOCAL_NORMAL]
        pc[PC_LNY] = mf[manifold.LOCAL_NORMAL + 1]
        pc[PC_LPX] = mf[manifold.LOCAL_POINT]
        pc[PC_LPY] = mf[manifold.LOCAL_POINT + 1]
        pci[SI_COUNT] = point_count
        pc[PC_RA] = radius_a
        pc[PC_RB] = radius_b
        pci[SI_CONTACT] = np.int32(mi[manifold.TYPE])
        for j in range(point_count):
            o = VC_POINTS + VP_STRIDE * j
            mp = manifold.POINTS + manifold.POINT_WIDTH * j
            if warm_starting:
                vc[o + VP_NI] = dt_ratio * mf[mp + manifold.NORMAL_IMPULSE]
                vc[o + VP_TI] = dt_ratio * mf[mp + manifold.TANGENT_IMPULSE]
            else:
                vc[o + VP_NI] = _ZERO
                vc[o + VP_TI] = _ZERO
            vc[o + VP_RAX] = _ZERO
            vc[o + VP_RAY] = _ZERO
            vc[o + VP_RBX] = _ZERO
            vc[o + VP_RBY] = _ZERO
            vc[o + VP_NMASS] = _ZERO
            vc[o + VP_TMASS] = _ZERO
            vc[o + VP_BIAS] = _ZERO
            pc[PC_LP + 2 * j] = mf[mp]
            pc[PC_LP + 2 * j + 1] = mf[mp + 1]


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
        radius_a = pc[PC_RA]
        radius_b = pc[PC_RB]
        c = vci[SI_CONTACT]
        ia_ = vci[SI_A]
        ib_ = vci[SI_B]
        mA = vc[VC_MA]
        mB = vc[VC_MB]
        iA = vc[VC_IA]
        iB = vc[VC_IB]
        lcax = pc[PC_LCAX]
        lcay = pc[PC_LCAY]
        lcbx = pc[PC_LCBX]
        lcby = pc[PC_LCBY]
        cAx, cAy, aA, cBx, cBy, aB = load_pair(pos, ia_, ib_)
        vAx, vAy, wA, vBx, vBy, wB = load_pair(vel, ia_, ib_)

        sa, ca = sin_cos(aA)
        sb, cb = sin_cos(aB)
        xf_a[2] = sa
        xf_a[3] = ca
        xf_b[2] = sb
        xf_b[3] = cb
        xf_a[0] = cAx - (ca * lcax - sa * lcay)
        xf_a[1] = cAy - (sa * lcax + ca * lcay)
        xf_b[0] = cBx - (cb * lcbx - sb * lcby)
        xf_b[1] = cBy - (sb * lcbx + cb * lcby)
        manifold.world_manifold(w.man_f[r, c], w.man_i[r, c], xf_a, radius_a, xf_b, radius_b, wm)
        nx = wm[manifold.WM_NORMAL]
        ny = wm[manifold.WM_NORMAL + 1]
        vc[VC_NX] = nx
        vc[VC_NY] = ny
        tx = ny
        ty = -nx
        point_count = vci[SI_COUNT]
        restitution = vc[VC_RESTITUTION]
        for j in range(point_count):
            o = VC_POINTS + VP_STRIDE * j
            px = wm[manifold.WM_POINTS + 2 * j]
            py = wm[manifold.WM_POINTS + 2 * j + 1]
            rAx = px - cAx
            rAy = py - cAy
            rBx = px - cBx
            rBy = py - cBy
            vc[o + VP_RAX] = rAx
            vc[o + VP_RAY] = rAy
            vc[o + VP_RBX] = rBx
            vc[o + VP_RBY] = rBy
            rnA = rAx * ny - rAy * nx
            rnB = rBx * ny - rBy * nx
            k_normal = mA + mB + iA * rnA * rnA + iB * rnB * rnB
            vc[o + VP_NMASS] = _ONE / k_normal if k_normal > _ZERO else _ZERO
            rtA = rAx * ty - rAy * tx
            rtB = rBx * ty - rBy * tx
            k_tangent = mA + mB + iA * rtA * rtA + iB * rtB * rtB
            vc[o + VP_TMASS] = _ONE / k_tangent if k_tangent > _ZERO else _ZERO
            vc[o + VP_BIAS] = _ZERO
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            v_rel = nx * dvx + ny * dvy
            if v_rel < -VELOCITY_THRESHOLD:
                vc[o + VP_BIAS] = -restitution * v_rel

        if point_count == 2:
            o1 = VC_POINTS
            o2 = VC_POINTS + VP_STRIDE
            rn1A = vc[o1 + VP_RAX] * ny - vc[o1 + VP_RAY] * nx
            rn1B = vc[o1 + VP_RBX] * ny - vc[o1 + VP_RBY] * nx
            rn2A = vc[o2 + VP_RAX] * ny - vc[o2 + VP_RAY] * nx
            rn2B = vc[o2 + VP_RBX] * ny - vc[o2 + VP_RBY] * nx
            k11 = mA + mB + iA * rn1A * rn1A + iB * rn1B * rn1B
            k22 = mA + mB + iA * rn2A * rn2A + iB * rn2B * rn2B
            k12 = mA + mB + iA * rn1A * rn2A + iB * rn1B * rn2B
            if k11 * k11 < _MAX_CONDITION * (k11 * k22 - k12 * k12):
                vc[VC_K + 0] = k11
                vc[VC_K + 1] = k12
                vc[VC_K + 2] = k12
                vc[VC_K + 3] = k22
                # K.GetInverse(): a = ex.x, b = ey.x, c = ex.y, d = ey.y
                det = k11 * k22 - k12 * k12
                if det != _ZERO:
                    det = _ONE / det
                vc[VC_NM + 0] = det * k22
                vc[VC_NM + 2] = -det * k12
                vc[VC_NM + 1] = -det * k12
                vc[VC_NM + 3] = det * k11
            else:
                vci[SI_COUNT] = 1


@borrowing_kernel
def _velocity_constraint(vcf, vcif, i):
    """What WarmStart and SolveVelocityConstraints read first of constraint ``i``: its bodies' island indices,
    inverse masses and inertias, its point count and its normal."""
    return (
        vcif[i, SI_A],
        vcif[i, SI_B],
        vcf[i, VC_MA],
        vcf[i, VC_IA],
        vcf[i, VC_MB],
        vcf[i, VC_IB],
        vcif[i, SI_COUNT],
        vcf[i, VC_NX],
        vcf[i, VC_NY],
    )


@borrowing_kernel
def warm_start(vcf, vcif, vel, count):
    """b2ContactSolver::WarmStart."""
    for i in range(count):
        ia_, ib_, mA, iA, mB, iB, point_count, nx, ny = _velocity_constraint(vcf, vcif, i)
        vAx, vAy, wA, vBx, vBy, wB = load_pair(vel, ia_, ib_)
        tx = ny
        ty = -nx
        for j in range(point_count):
            o = VC_POINTS + VP_STRIDE * j
            ni = vcf[i, o + VP_NI]
            ti = vcf[i, o + VP_TI]
            Px = ni * nx + ti * tx
            Py = ni * ny + ti * ty
            wA = wA - iA * (vcf[i, o + VP_RAX] * Py - vcf[i, o + VP_RAY] * Px)
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wB = wB + iB * (vcf[i, o + VP_RBX] * Py - vcf[i, o + VP_RBY] * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
        store_pair(vel, ia_, ib_, vAx, vAy, wA, vBx, vBy, wB)


@borrowing_kernel
def solve_velocity_constraints(vcf, vcif, vel, count):
    """b2ContactSolver::SolveVelocityConstraints."""
    for i in range(count):
        ia_, ib_, mA, iA, mB, iB, point_count, nx, ny = _velocity_constraint(vcf, vcif, i)
        vAx, vAy, wA, vBx, vBy, wB = load_pair(vel, ia_, ib_)
        tx = ny
        ty = -nx
        friction = vcf[i, VC_FRICTION]
        tangent_speed = vcf[i, VC_TANGENT_SPEED]

        for j in range(point_count):
            o = VC_POINTS + VP_STRIDE * j
            rAx = vcf[i, o + VP_RAX]
            rAy = vcf[i, o + VP_RAY]
            rBx = vcf[i, o + VP_RBX]
            rBy = vcf[i, o + VP_RBY]
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            vt = (dvx * tx + dvy * ty) - tangent_speed
            lam = vcf[i, o + VP_TMASS] * (-vt)
            max_friction = friction * vcf[i, o + VP_NI]
            old = vcf[i, o + VP_TI]
            new_impulse = _clamp(old + lam, -max_friction, max_friction)
            lam = new_impulse - old
            vcf[i, o + VP_TI] = new_impulse
            Px = lam * tx
            Py = lam * ty
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wA = wA - iA * (rAx * Py - rAy * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
            wB = wB + iB * (rBx * Py - rBy * Px)

        if point_count == 1:
            o = VC_POINTS
            rAx = vcf[i, o + VP_RAX]
            rAy = vcf[i, o + VP_RAY]
            rBx = vcf[i, o + VP_RBX]
            rBy = vcf[i, o + VP_RBY]
            dvx = vBx + (-wB * rBy) - vAx - (-wA * rAy)
            dvy = vBy + wB * rBx - vAy - wA * rAx
            vn = dvx * nx + dvy * ny
            lam = -vcf[i, o + VP_NMASS] * (vn - vcf[i, o + VP_BIAS])
            old = vcf[i, o + VP_NI]
            new_impulse = old + lam
            if not (new_impulse > _ZERO):
                new_impulse = _ZERO
            lam = new_impulse - old
            vcf[i, o + VP_NI] = new_impulse
            Px = lam * nx
            Py = lam * ny
            vAx = vAx - mA * Px
            vAy = vAy - mA * Py
            wA = wA - iA * (rAx * Py - rAy * Px)
            vBx = vBx + mB * Px
            vBy = vBy + mB * Py
            wB = wB + iB * (rBx * Py - rBy * Px)
        else:
            o1 = VC_POINTS
            o2 = VC_POINTS + VP_STRIDE
            r1Ax = vcf[i, o1 + VP_RAX]
            r1Ay = vcf[i, o1 + VP_RAY]
            r1Bx = vcf[i, o1 + VP_RBX]
            r1By = vcf[i, o1 + VP_RBY]
            r2Ax = vcf[i, o2 + VP_RAX]
            r2Ay = vcf[i, o2 + VP_RAY]
            r2Bx = vcf[i, o2 + VP_RBX]
            r2By = vcf[i, o2 + VP_RBY]
            ax = vcf[i, o1 + VP_NI]
            ay = vcf[i, o2 + VP_NI]
            dv1x = vBx + (-wB * r1By) - vAx - (-wA * r1Ay)
            dv1y = vBy + wB * r1Bx - vAy - wA * r1Ax
            dv2x = vBx + (-wB * r2By) - vAx - (-wA * r2Ay)
            dv2y = vBy + wB * r2Bx - vAy - wA * r2Ax
            vn1 = dv1x * nx + dv1y * ny
            vn2 = dv2x * nx + dv2y * ny
            bx = vn1 - vcf[i, o1 + VP_BIAS]
            by = vn2 - vcf[i, o2 + VP_BIAS]
            # b -= b2Mul(K, a)
            kexx = vcf[i, VC_K + 0]
            kexy = vcf[i, VC_K + 1]
            keyx = vcf[i, VC_K + 2]
            keyy = vcf[i, VC_K + 3]
            bx = bx - (kexx * ax + keyx * ay)
            by = by - (kexy * ax + keyy * ay)
            solved = False
            xx = _ZERO
            xy = _ZERO
            # case 1: vn = 0 for both points
            xx = -(vcf[i, VC_NM + 0] * bx + vcf[i, VC_NM + 2] * by)
            xy = -(vcf[i, VC_NM + 1] * bx + vcf[i, VC_NM + 3] * by)
            if xx >= _ZERO and xy >= _ZERO:
                solved = True
            if not solved:
                # case 2: vn1 = 0, x2 = 0
                xx = -vcf[i, o1 + VP_NMASS] * bx
                xy = _ZERO
                vn2 = kexy * xx + by
                if xx >= _ZERO and vn2 >= _ZERO:
                    solved = True
            if not solved:
                # case 3: vn2 = 0, x1 = 0
                xx = _ZERO
                xy = -vcf[i, o2 + VP_NMASS] * by
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
                vcf[i, o1 + VP_NI] = xx
                vcf[i, o2 + VP_NI] = xy

        store_pair(vel, ia_, ib_, vAx, vAy, wA, vBx, vBy, wB)


@borrowing_kernel
def store_impulses(w, r, count):
    """b2ContactSolver::StoreImpulses."""
    for i in range(count):
        vc = w.vc_f[r, i]
        c = w.vc_i[r, i, SI_CONTACT]
        mf = w.man_f[r, c]
        for j in range(w.vc_i[r, i, SI_COUNT]):
            o = VC_POINTS + VP_STRIDE * j
            mp = manifold.POINTS + manifold.POINT_WIDTH * j
            mf[mp + manifold.NORMAL_IMPULSE] = vc[o + VP_NI]
            mf[mp + manifold.TANGENT_IMPULSE] = vc[o + VP_TI]


@borrowing_kernel
def _position_manifold(pcf, i, mtype, qa_s, qa_c, pax, pay, qb_s, qb_c, pbx, pby, index):
    """b2PositionSolverManifold::Initialize: (normal.x, normal.y, point.x, point.y, separation)."""
    if mtype == manifold.CIRCLES:
        lx = pcf[i, PC_LPX]
        ly = pcf[i, PC_LPY]
        pointAx = (qa_c * lx - qa_s * ly) + pax
        pointAy = (qa_s * lx + qa_c * ly) + pay
        lx = pcf[i, PC_LP]
        ly = pcf[i, PC_LP + 1]
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
        sep = ((pointBx - pointAx) * nx + (pointBy - pointAy) * ny) - pcf[i, PC_RA] - pcf[i, PC_RB]
        return nx, ny, px, py, sep
    # e_faceA: the plane (normal and point) on body A, the clip point on body B; e_faceB the other way round, and
    # the normal returned negated so that it points from A to B.
    if mtype == manifold.FACE_A:
        qp_s, qp_c, ppx, ppy, qc_s, qc_c, pcx, pcy = qa_s, qa_c, pax, pay, qb_s, qb_c, pbx, pby
    else:
        qp_s, qp_c, ppx, ppy, qc_s, qc_c, pcx, pcy = qb_s, qb_c, pbx, pby, qa_s, qa_c, pax, pay
    lx = pcf[i, PC_LNX]
    ly = pcf[i, PC_LNY]
    nx = qp_c * lx - qp_s * ly
    ny = qp_s * lx + qp_c * ly
    lx = pcf[i, PC_LPX]
    ly = pcf[i, PC_LPY]
    planex = (qp_c * lx - qp_s * ly) + ppx
    planey = (qp_s * lx + qp_c * ly) + ppy
    lx = pcf[i, PC_LP + 2 * index]
    ly = pcf[i, PC_LP + 2 * index + 1]
    clipx = (qc_c * lx - qc_s * ly) + pcx
    clipy = (qc_s * lx + qc_c * ly) + pcy
    sep = ((clipx - planex) * nx + (clipy - planey) * ny) - pcf[i, PC_RA] - pcf[i, PC_RB]
    if mtype == manifold.FACE_A:
        return nx, ny, clipx, clipy, sep
    return -nx, -ny, clipx, clipy, sep


@borrowing_kernel
def _solve_positions(w, r, count, toi, toi_a, toi_b):
    pos = w.positions[r]
    pcf = w.pc_f[r]
    pcif = w.pc_i[r]
    min_separation = _ZERO
    for i in range(count):
        ia_ = pcif[i, SI_A]
        ib_ = pcif[i, SI_B]
        lcax = pcf[i, PC_LCAX]
        lcay = pcf[i, PC_LCAY]
        lcbx = pcf[i, PC_LCBX]
        lcby = pcf[i, PC_LCBY]
        if toi:
            mA = _ZERO
            iA = _ZERO
            if ia_ == toi_a or ia_ == toi_b:
                mA = pcf[i, PC_MA]
                iA = pcf[i, PC_IA]
            mB = _ZERO
            iB = _ZERO
            if ib_ == toi_a or ib_ == toi_b:
                mB = pcf[i, PC_MB]
                iB = pcf[i, PC_IB]
            baumgarte = TOI_BAUGARTE
        else:
            mA = pcf[i, PC_MA]
            iA = pcf[i, PC_IA]
            mB = pcf[i, PC_MB]
            iB = pcf[i, PC_IB]
            baumgarte = BAUMGARTE
        point_count = pcif[i, SI_COUNT]
        mtype = pcif[i, SI_CONTACT]
        cAx, cAy, aA, cBx, cBy, aB = load_pair(pos, ia_, ib_)
        for j in range(point_count):
            sa, ca = sin_cos(aA)
            sb, cb = sin_cos(aB)
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
        store_pair(pos, ia_, ib_, cAx, cAy, aA, cBx, cBy, aB)
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
