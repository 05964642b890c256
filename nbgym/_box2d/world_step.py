"""b2World::Step, Solve (the island depth-first search over the body list and the contact and joint
edges in Box2D's order), SolveTOI (continuous collision with sub-stepping), ClearForces; and the
teardown calls that need the contact manager (b2World::DestroyBody, b2Body::DestroyFixture).

Box2D's Solve, SolveTOI and ClearForces walk every body of the world list; here they walk only its non-static bodies
(``WI_MOVING_LIST``, in the same order), since on a static body the walks change nothing: its ISLAND_FLAG is clear
between islands (an island unflags its static bodies when it ends, ``_unflag_static`` and SolveTOI's event loop),
ApplyForce* leave its forces zero, and the only alpha0 SolveTOI's reset finds non-zero on one is that of a static body
its own events advanced, which ``_advance`` chains on ``WI_ADVANCED_LIST`` for the reset. A terrain's hundreds of
static bodies (BipedalWalker's, CarRacing's tiles) are not read each step.
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import contact, contact_manager, island, joint_lanes, shapes, time_of_impact
from .math import SWEEP_FLOATS, XF_FLOATS, copy_to, cosf, sinf
from .settings import EPSILON, MAX_SUB_STEPS, MAX_TOI_CONTACTS
from .world import (
    ACTIVE_FLAG,
    ADVANCED_FLAG,
    AWAKE_FLAG,
    BF_A,
    BF_A0,
    BF_ALPHA0,
    BF_C0X,
    BF_C0Y,
    BF_CX,
    BF_CY,
    BF_FX,
    BF_FY,
    BF_LCX,
    BF_LCY,
    BF_PX,
    BF_PY,
    BF_QC,
    BF_QS,
    BF_SWEEP,
    BF_TORQUE,
    BF_XF,
    BI_ADVANCED_NEXT,
    BI_ALIVE,
    BI_CONTACTS,
    BI_FIXTURES,
    BI_FIXTURE_COUNT,
    BI_FLAGS,
    BI_ISLAND,
    BI_JOINTS,
    BI_MOVING_NEXT,
    BI_MOVING_PREV,
    BI_NEXT,
    BI_PREV,
    BI_TYPE,
    BULLET_FLAG,
    CF_TOI,
    CI_FA,
    CI_FB,
    CI_FLAGS,
    CI_NEXT,
    CI_TOI_COUNT,
    CLEAR_FORCES,
    C_ENABLED_FLAG,
    C_ISLAND_FLAG,
    C_TOI_FLAG,
    C_TOUCHING_FLAG,
    DYNAMIC,
    FI_BODY,
    FI_NEXT,
    FI_SENSOR,
    ISLAND_FLAG,
    JI_ISLAND,
    JI_NEXT,
    NEW_FIXTURE,
    STATIC,
    WF_INV_DT0,
    WI_ADVANCED_LIST,
    WI_ALLOW_SLEEP,
    WI_BODY_COUNT,
    WI_BODY_LIST,
    WI_CONTACT_LIST,
    WI_CONTINUOUS,
    WI_FLAGS,
    WI_FREE_BODY,
    WI_HELD,
    WI_HELD_BODIES,
    WI_HELD_CONTACTS,
    WI_HELD_JOINTS,
    WI_HELD_SEED,
    WI_JOINT_LIST,
    WI_MOVING_LIST,
    WI_STEP_COMPLETE,
    WI_SUBSTEPPING,
    WI_WARM_STARTING,
    advance_body,
    advance_sweep,
    destroy_joint,
    destroy_proxies,
    edge_other_contact,
    edge_other_joint,
    fixture_synchronize,
    free_fixture,
    free_row,
    reset_mass_data,
    set_awake,
    synchronize_fixtures,
    synchronize_transform,
    unlink_item,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)
_TOI_DONE = _ONE - F32(10.0) * EPSILON


@borrowing_kernel
def clear_forces(w, r):
    """b2World::ClearForces (a static body's forces are zero: ApplyForce* take none)."""
    b = w.world_i[r, WI_MOVING_LIST]
    while b >= 0:
        w.body_f[r, b, BF_FX] = _ZERO
        w.body_f[r, b, BF_FY] = _ZERO
        w.body_f[r, b, BF_TORQUE] = _ZERO
        b = w.body_i[r, b, BI_MOVING_NEXT]


@borrowing_kernel
def _contact_solid_touching(w, r, c):
    flags = w.contact_i[r, c, CI_FLAGS]
    return (flags & C_ENABLED_FLAG) != 0 and (flags & C_TOUCHING_FLAG) != 0


@borrowing_kernel
def _contact_has_sensor(w, r, c):
    return (
        w.fixture_i[r, w.contact_i[r, c, CI_FA], FI_SENSOR] != 0
        or w.fixture_i[r, w.contact_i[r, c, CI_FB], FI_SENSOR] != 0
    )


@borrowing_kernel
def _begin_solve(w, r, dt, dt_ratio, velocity_iterations, position_iterations, hold):
    """b2World::Solve up to its first island with joints, held (see ``_solve_islands``) when ``hold``; to its end
    otherwise."""
    wi = w.world_i[r]
    b = wi[WI_MOVING_LIST]
    while b >= 0:
        w.body_i[r, b, BI_FLAGS] &= ~ISLAND_FLAG
        b = w.body_i[r, b, BI_MOVING_NEXT]
    c = wi[WI_CONTACT_LIST]
    while c >= 0:
        w.contact_i[r, c, CI_FLAGS] &= ~C_ISLAND_FLAG
        c = w.contact_i[r, c, CI_NEXT]
    j = wi[WI_JOINT_LIST]
    while j >= 0:
        w.joint_i[r, j, JI_ISLAND] = 0
        j = w.joint_i[r, j, JI_NEXT]
    _solve_islands(w, r, wi[WI_MOVING_LIST], dt, dt_ratio, velocity_iterations, position_iterations, hold)
    if not hold or wi[WI_HELD] == 0:
        _end_solve(w, r, dt, velocity_iterations, position_iterations)


@borrowing_kernel
def _unflag_static(w, r, nb):
    """Lets the static bodies of the island just solved join later islands (b2World::Solve)."""
    for i in range(nb):
        b = w.isl_bodies[r, i]
        if w.body_i[r, b, BI_TYPE] == STATIC:
            w.body_i[r, b, BI_FLAGS] &= ~ISLAND_FLAG


@borrowing_kernel
def _solve_islands(w, r, seed, dt, dt_ratio, velocity_iterations, position_iterations, hold):
    """b2World::Solve's islands, found depth-first from each body of the list from ``seed`` on (the moving
    bodies: Box2D skips static seeds), solved in turn.

    With ``hold``, the first island with joints stops the search once its constraints are initialised: its
    velocity iterations are due (``WI_HELD`` is set, with its counts and the next seed), so that ``step_rows`` can run
    those of several worlds side by side; ``_end_solve`` ends the island and goes on from the next seed.
    """
    wi = w.world_i[r]
    warm = wi[WI_WARM_STARTING] != 0
    allow_sleep = wi[WI_ALLOW_SLEEP] != 0
    stack = w.stack[r]
    while seed >= 0:
        next_seed = w.body_i[r, seed, BI_MOVING_NEXT]
        sflags = w.body_i[r, seed, BI_FLAGS]
        if (sflags & ISLAND_FLAG) or (sflags & AWAKE_FLAG) == 0 or (sflags & ACTIVE_FLAG) == 0:
            seed = next_seed
            continue
        nb = 0
        nc = 0
        nj = 0
        stack_count = 1
        stack[0] = seed
        w.body_i[r, seed, BI_FLAGS] |= ISLAND_FLAG
        while stack_count > 0:
            stack_count -= 1
            b = stack[stack_count]
            nb = island.add_body(w, r, nb, b)
            set_awake(w, r, b, True)
            if w.body_i[r, b, BI_TYPE] == STATIC:
                continue
            e = w.body_i[r, b, BI_CONTACTS]
            while e >= 0:
                c = e >> 1
                nxt = w.cedge[r, e, 1]
                if (
                    (w.contact_i[r, c, CI_FLAGS] & C_ISLAND_FLAG)
                    or not _contact_solid_touching(w, r, c)
                    or _contact_has_sensor(w, r, c)
                ):
                    e = nxt
                    continue
                w.isl_contacts[r, nc] = c
                nc += 1
                w.contact_i[r, c, CI_FLAGS] |= C_ISLAND_FLAG
                other = edge_other_contact(w, r, e)
                if (w.body_i[r, other, BI_FLAGS] & ISLAND_FLAG) == 0:
                    stack[stack_count] = other
                    stack_count += 1
                    w.body_i[r, other, BI_FLAGS] |= ISLAND_FLAG
                e = nxt
            e = w.body_i[r, b, BI_JOINTS]
            while e >= 0:
                jj = e >> 1
                nxt = w.jedge[r, e, 1]
                if w.joint_i[r, jj, JI_ISLAND] != 0:
                    e = nxt
                    continue
                other = edge_other_joint(w, r, e)
                if (w.body_i[r, other, BI_FLAGS] & ACTIVE_FLAG) == 0:
                    e = nxt
                    continue
                w.isl_joints[r, nj] = jj
                nj += 1
                w.joint_i[r, jj, JI_ISLAND] = 1
                if (w.body_i[r, other, BI_FLAGS] & ISLAND_FLAG) == 0:
                    stack[stack_count] = other
                    stack_count += 1
                    w.body_i[r, other, BI_FLAGS] |= ISLAND_FLAG
                e = nxt
        if hold and nj > 0:
            island.begin(w, r, nb, nc, nj, dt, dt_ratio, warm)
            wi[WI_HELD] = 1
            wi[WI_HELD_BODIES] = nb
            wi[WI_HELD_CONTACTS] = nc
            wi[WI_HELD_JOINTS] = nj
            wi[WI_HELD_SEED] = next_seed
            return
        island.solve(w, r, nb, nc, nj, dt, dt_ratio, velocity_iterations, position_iterations, warm, allow_sleep)
        _unflag_static(w, r, nb)
        seed = next_seed


@borrowing_kernel
def _end_solve(w, r, dt, velocity_iterations, position_iterations):
    """The rest of b2World::Solve: the held island's end and the islands after it (if one is held), then the
    fixtures' broad-phase proxies and the new contacts."""
    wi = w.world_i[r]
    if wi[WI_HELD] != 0:
        wi[WI_HELD] = 0
        nb = wi[WI_HELD_BODIES]
        island.end(w, r, nb, wi[WI_HELD_CONTACTS], wi[WI_HELD_JOINTS], dt, position_iterations, wi[WI_ALLOW_SLEEP] != 0)
        _unflag_static(w, r, nb)
        dt_ratio = w.world_f[r, WF_INV_DT0] * dt
        _solve_islands(w, r, wi[WI_HELD_SEED], dt, dt_ratio, velocity_iterations, position_iterations, False)
    b = wi[WI_MOVING_LIST]
    while b >= 0:
        if (w.body_i[r, b, BI_FLAGS] & ISLAND_FLAG) != 0:
            synchronize_fixtures(w, r, b)
        b = w.body_i[r, b, BI_MOVING_NEXT]
    contact_manager.find_new_contacts(w, r)


@borrowing_kernel
def _awake_non_static(w, r, b):
    return (w.body_i[r, b, BI_FLAGS] & AWAKE_FLAG) != 0 and w.body_i[r, b, BI_TYPE] != STATIC


@borrowing_kernel
def _contact_toi(w, r, c):
    """The TOI of contact ``c`` in [alpha0, 1] (1 if none), as SolveTOI computes it; -1 to skip the contact."""
    fa = w.contact_i[r, c, CI_FA]
    fb = w.contact_i[r, c, CI_FB]
    if w.fixture_i[r, fa, FI_SENSOR] != 0 or w.fixture_i[r, fb, FI_SENSOR] != 0:
        return F32(-1.0)
    ba = w.fixture_i[r, fa, FI_BODY]
    bb = w.fixture_i[r, fb, FI_BODY]
    type_a = w.body_i[r, ba, BI_TYPE]
    type_b = w.body_i[r, bb, BI_TYPE]
    if not _awake_non_static(w, r, ba) and not _awake_non_static(w, r, bb):
        return F32(-1.0)
    collide_a = (w.body_i[r, ba, BI_FLAGS] & BULLET_FLAG) != 0 or type_a != DYNAMIC
    collide_b = (w.body_i[r, bb, BI_FLAGS] & BULLET_FLAG) != 0 or type_b != DYNAMIC
    if not collide_a and not collide_b:
        return F32(-1.0)
    bfa = w.body_f[r, ba]
    bfb = w.body_f[r, bb]
    alpha0 = bfa[BF_ALPHA0]
    if bfa[BF_ALPHA0] < bfb[BF_ALPHA0]:
        alpha0 = bfb[BF_ALPHA0]
        _advance(w, r, ba, alpha0, False)
    elif bfb[BF_ALPHA0] < bfa[BF_ALPHA0]:
        alpha0 = bfa[BF_ALPHA0]
        _advance(w, r, bb, alpha0, False)
    va, na, ra = shapes.proxy(w.shape_i[r, fa], w.shape_f[r, fa])
    vb, nb, rb = shapes.proxy(w.shape_i[r, fb], w.shape_f[r, fb])
    sweep_a = bfa[BF_SWEEP : BF_SWEEP + SWEEP_FLOATS]
    sweep_b = bfb[BF_SWEEP : BF_SWEEP + SWEEP_FLOATS]
    state, t = time_of_impact.time_of_impact(va, na, ra, vb, nb, rb, sweep_a, sweep_b, _ONE, w.simplex_cache[r])
    if state == time_of_impact.TOUCHING:
        alpha = alpha0 + (_ONE - alpha0) * t
        return alpha if alpha < _ONE else _ONE
    return _ONE


@borrowing_kernel
def _advance(w, r, b, alpha, body):
    """b2Body::Advance (``body``) or b2Sweep::Advance of body ``b`` to ``alpha``; a static body's is chained on
    ``WI_ADVANCED_LIST`` for SolveTOI's reset of alpha0."""
    bi = w.body_i[r, b]
    if bi[BI_TYPE] == STATIC and (bi[BI_FLAGS] & ADVANCED_FLAG) == 0:
        bi[BI_FLAGS] |= ADVANCED_FLAG
        bi[BI_ADVANCED_NEXT] = w.world_i[r, WI_ADVANCED_LIST]
        w.world_i[r, WI_ADVANCED_LIST] = b
    if body:
        advance_body(w, r, b, alpha)
    else:
        advance_sweep(w.body_f[r, b], alpha)


@borrowing_kernel
def solve_toi(w, r, dt, velocity_iterations):
    """b2World::SolveTOI."""
    wi = w.world_i[r]
    if wi[WI_STEP_COMPLETE] != 0:
        b = wi[WI_MOVING_LIST]
        while b >= 0:
            w.body_i[r, b, BI_FLAGS] &= ~ISLAND_FLAG
            w.body_f[r, b, BF_ALPHA0] = _ZERO
            b = w.body_i[r, b, BI_MOVING_NEXT]
        b = wi[WI_ADVANCED_LIST]
        while b >= 0:
            w.body_i[r, b, BI_FLAGS] &= ~ADVANCED_FLAG
            w.body_f[r, b, BF_ALPHA0] = _ZERO
            b = w.body_i[r, b, BI_ADVANCED_NEXT]
        wi[WI_ADVANCED_LIST] = -1
        c = wi[WI_CONTACT_LIST]
        while c >= 0:
            w.contact_i[r, c, CI_FLAGS] &= ~(C_TOI_FLAG | C_ISLAND_FLAG)
            w.contact_i[r, c, CI_TOI_COUNT] = 0
            w.contact_f[r, c, CF_TOI] = _ONE
            c = w.contact_i[r, c, CI_NEXT]

    body_capacity = 2 * MAX_TOI_CONTACTS
    contact_capacity = MAX_TOI_CONTACTS
    while True:
        min_contact = -1
        min_alpha = _ONE
        c = wi[WI_CONTACT_LIST]
        while c >= 0:
            ci = w.contact_i[r, c]
            if (ci[CI_FLAGS] & C_ENABLED_FLAG) == 0 or ci[CI_TOI_COUNT] > MAX_SUB_STEPS:
                c = ci[CI_NEXT]
                continue
            alpha = _ONE
            if ci[CI_FLAGS] & C_TOI_FLAG:
                alpha = w.contact_f[r, c, CF_TOI]
            else:
                alpha = _contact_toi(w, r, c)
                if alpha < _ZERO:
                    c = ci[CI_NEXT]
                    continue
                w.contact_f[r, c, CF_TOI] = alpha
                ci[CI_FLAGS] |= C_TOI_FLAG
            if alpha < min_alpha:
                min_contact = c
                min_alpha = alpha
            c = ci[CI_NEXT]

        if min_contact < 0 or _TOI_DONE < min_alpha:
            wi[WI_STEP_COMPLETE] = 1
            break

        fa = w.contact_i[r, min_contact, CI_FA]
        fb = w.contact_i[r, min_contact, CI_FB]
        ba = w.fixture_i[r, fa, FI_BODY]
        bb = w.fixture_i[r, fb, FI_BODY]
        backup1 = w.sweep_backup[r, 0]
        backup2 = w.sweep_backup[r, 1]
        copy_to(backup1, w.body_f[r, ba, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS])
        copy_to(backup2, w.body_f[r, bb, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS])
        _advance(w, r, ba, min_alpha, True)
        _advance(w, r, bb, min_alpha, True)
        contact.update(w, r, min_contact)
        w.contact_i[r, min_contact, CI_FLAGS] &= ~C_TOI_FLAG
        w.contact_i[r, min_contact, CI_TOI_COUNT] += 1
        if not _contact_solid_touching(w, r, min_contact):
            w.contact_i[r, min_contact, CI_FLAGS] &= ~C_ENABLED_FLAG
            copy_to(w.body_f[r, ba, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS], backup1)
            copy_to(w.body_f[r, bb, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS], backup2)
            synchronize_transform(w, r, ba)
            synchronize_transform(w, r, bb)
            continue

        set_awake(w, r, ba, True)
        set_awake(w, r, bb, True)
        nb = 0
        nc = 0
        nb = island.add_body(w, r, nb, ba)
        nb = island.add_body(w, r, nb, bb)
        w.isl_contacts[r, nc] = min_contact
        nc += 1
        w.body_i[r, ba, BI_FLAGS] |= ISLAND_FLAG
        w.body_i[r, bb, BI_FLAGS] |= ISLAND_FLAG
        w.contact_i[r, min_contact, CI_FLAGS] |= C_ISLAND_FLAG

        for k in range(2):
            body = ba if k == 0 else bb
            if w.body_i[r, body, BI_TYPE] != DYNAMIC:
                continue
            e = w.body_i[r, body, BI_CONTACTS]
            while e >= 0:
                if nb == body_capacity or nc == contact_capacity:
                    break
                c = e >> 1
                nxt = w.cedge[r, e, 1]
                if w.contact_i[r, c, CI_FLAGS] & C_ISLAND_FLAG:
                    e = nxt
                    continue
                other = edge_other_contact(w, r, e)
                if (
                    w.body_i[r, other, BI_TYPE] == DYNAMIC
                    and (w.body_i[r, body, BI_FLAGS] & BULLET_FLAG) == 0
                    and (w.body_i[r, other, BI_FLAGS] & BULLET_FLAG) == 0
                ):
                    e = nxt
                    continue
                if _contact_has_sensor(w, r, c):
                    e = nxt
                    continue
                backup = w.sweep_backup[r, 2]
                copy_to(backup, w.body_f[r, other, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS])
                if (w.body_i[r, other, BI_FLAGS] & ISLAND_FLAG) == 0:
                    _advance(w, r, other, min_alpha, True)
                contact.update(w, r, c)
                flags = w.contact_i[r, c, CI_FLAGS]
                if (flags & C_ENABLED_FLAG) == 0 or (flags & C_TOUCHING_FLAG) == 0:
                    copy_to(w.body_f[r, other, BF_SWEEP : BF_SWEEP + SWEEP_FLOATS], backup)
                    synchronize_transform(w, r, other)
                    e = nxt
                    continue
                w.contact_i[r, c, CI_FLAGS] |= C_ISLAND_FLAG
                w.isl_contacts[r, nc] = c
                nc += 1
                if w.body_i[r, other, BI_FLAGS] & ISLAND_FLAG:
                    e = nxt
                    continue
                w.body_i[r, other, BI_FLAGS] |= ISLAND_FLAG
                if w.body_i[r, other, BI_TYPE] != STATIC:
                    set_awake(w, r, other, True)
                nb = island.add_body(w, r, nb, other)
                e = nxt

        sub_dt = (_ONE - min_alpha) * dt
        island.solve_toi(
            w, r, nb, nc, sub_dt, velocity_iterations, w.body_i[r, ba, BI_ISLAND], w.body_i[r, bb, BI_ISLAND]
        )

        for i in range(nb):
            body = w.isl_bodies[r, i]
            w.body_i[r, body, BI_FLAGS] &= ~ISLAND_FLAG
            if w.body_i[r, body, BI_TYPE] != DYNAMIC:
                continue
            synchronize_fixtures(w, r, body)
            e = w.body_i[r, body, BI_CONTACTS]
            while e >= 0:
                w.contact_i[r, e >> 1, CI_FLAGS] &= ~(C_TOI_FLAG | C_ISLAND_FLAG)
                e = w.cedge[r, e, 1]

        contact_manager.find_new_contacts(w, r)
        if wi[WI_SUBSTEPPING] != 0:
            wi[WI_STEP_COMPLETE] = 0
            break


@borrowing_kernel
def step(w, r, dt, velocity_iterations, position_iterations):
    """b2World::Step(dt, velocityIterations, positionIterations) on row ``r`` (``dt`` float32)."""
    _begin_step(w, r, dt, velocity_iterations, position_iterations, False)
    _end_step(w, r, dt, velocity_iterations, position_iterations)


@borrowing_kernel
def step_rows(w, first, stop, resting, dt, velocity_iterations, position_iterations):
    """``step`` on each row from ``first`` to ``stop - 1`` whose ``resting[row]`` is false, with the velocity
    iterations of their first islands with joints run side by side (``joint_lanes``): the same floats as ``step`` on
    each row alone."""
    if stop - first == 1:  # one world (a single env's): nothing to run beside it, nothing to hold
        if not resting[first]:
            step(w, first, dt, velocity_iterations, position_iterations)
        return
    for r in range(first, stop):
        if not resting[r]:
            _begin_step(w, r, dt, velocity_iterations, position_iterations, True)
    joint_lanes.iterate_velocities(w, first, stop, resting, dt, velocity_iterations)
    for r in range(first, stop):
        if not resting[r]:
            _end_step(w, r, dt, velocity_iterations, position_iterations)


@borrowing_kernel
def _begin_step(w, r, dt, velocity_iterations, position_iterations, hold):
    """b2World::Step up to the velocity iterations of its first island with joints, held there (``WI_HELD``) when
    ``hold``, else through its islands."""
    wi = w.world_i[r]
    if wi[WI_FLAGS] & NEW_FIXTURE:
        contact_manager.find_new_contacts(w, r)
        wi[WI_FLAGS] &= ~NEW_FIXTURE
    dt_ratio = w.world_f[r, WF_INV_DT0] * dt
    contact_manager.collide(w, r)
    if wi[WI_STEP_COMPLETE] != 0 and dt > _ZERO:
        _begin_solve(w, r, dt, dt_ratio, velocity_iterations, position_iterations, hold)


@borrowing_kernel
def _end_step(w, r, dt, velocity_iterations, position_iterations):
    """The rest of b2World::Step after ``_begin_step`` (and the held island's velocity iterations)."""
    wi = w.world_i[r]
    if wi[WI_HELD] != 0:
        _end_solve(w, r, dt, velocity_iterations, position_iterations)
    inv_dt = _ONE / dt if dt > _ZERO else _ZERO
    if wi[WI_CONTINUOUS] != 0 and dt > _ZERO:
        solve_toi(w, r, dt, velocity_iterations)
    if dt > _ZERO:
        w.world_f[r, WF_INV_DT0] = inv_dt
    if wi[WI_FLAGS] & CLEAR_FORCES:
        clear_forces(w, r)


# ------------------------------------------------------------------------------------------- teardown


@borrowing_kernel
def destroy_body(w, r, b):
    """b2World::DestroyBody: its joints, contacts (EndContact if touching and listening), fixtures."""
    wi = w.world_i[r]
    e = w.body_i[r, b, BI_JOINTS]
    while e >= 0:
        nxt = w.jedge[r, e, 1]
        destroy_joint(w, r, e >> 1)
        w.body_i[r, b, BI_JOINTS] = nxt
        e = nxt
    w.body_i[r, b, BI_JOINTS] = -1
    e = w.body_i[r, b, BI_CONTACTS]
    while e >= 0:
        nxt = w.cedge[r, e, 1]
        contact_manager.destroy(w, r, e >> 1)
        e = nxt
    w.body_i[r, b, BI_CONTACTS] = -1
    f = w.body_i[r, b, BI_FIXTURES]
    while f >= 0:
        nxt = w.fixture_i[r, f, FI_NEXT]
        destroy_proxies(w, r, f)
        free_fixture(w, r, f)
        w.body_i[r, b, BI_FIXTURES] = nxt
        w.body_i[r, b, BI_FIXTURE_COUNT] -= 1
        f = nxt
    w.body_i[r, b, BI_FIXTURES] = -1
    w.body_i[r, b, BI_FIXTURE_COUNT] = 0
    unlink_item(wi, w.body_i[r], b, WI_BODY_LIST, BI_PREV, BI_NEXT)
    if w.body_i[r, b, BI_TYPE] != STATIC:
        unlink_item(wi, w.body_i[r], b, WI_MOVING_LIST, BI_MOVING_PREV, BI_MOVING_NEXT)
    elif w.body_i[r, b, BI_FLAGS] & ADVANCED_FLAG:
        _unchain_advanced(w, r, b)
    wi[WI_BODY_COUNT] -= 1
    free_row(wi, w.body_i[r], b, WI_FREE_BODY, BI_NEXT, BI_ALIVE)


@borrowing_kernel
def _unchain_advanced(w, r, b):
    """Takes static body ``b`` off ``WI_ADVANCED_LIST`` (it is being destroyed: its row may be reused)."""
    wi = w.world_i[r]
    nxt = w.body_i[r, b, BI_ADVANCED_NEXT]
    if wi[WI_ADVANCED_LIST] == b:
        wi[WI_ADVANCED_LIST] = nxt
        return
    x = wi[WI_ADVANCED_LIST]
    while w.body_i[r, x, BI_ADVANCED_NEXT] != b:
        x = w.body_i[r, x, BI_ADVANCED_NEXT]
    w.body_i[r, x, BI_ADVANCED_NEXT] = nxt


@borrowing_kernel
def set_transform(w, r, b, px, py, angle):
    """b2Body::SetTransform(position, angle) of pybox2d 2.3.10: the transform and the sweep jump there, each
    fixture's proxy moves (``Synchronize(xf, xf)``), then ``FindNewContacts``. (The port's world is never locked
    when this runs: callers are outside ``step``.)"""
    bf = w.body_f[r, b]
    angle = np.float32(angle)
    bf[BF_QS] = sinf(angle)
    bf[BF_QC] = cosf(angle)
    bf[BF_PX] = px
    bf[BF_PY] = py
    lcx = bf[BF_LCX]
    lcy = bf[BF_LCY]
    bf[BF_CX] = (bf[BF_QC] * lcx - bf[BF_QS] * lcy) + px
    bf[BF_CY] = (bf[BF_QS] * lcx + bf[BF_QC] * lcy) + py
    bf[BF_A] = angle
    bf[BF_C0X] = bf[BF_CX]
    bf[BF_C0Y] = bf[BF_CY]
    bf[BF_A0] = angle
    xf = bf[BF_XF : BF_XF + XF_FLOATS]
    f = w.body_i[r, b, BI_FIXTURES]
    while f >= 0:
        fixture_synchronize(w, r, f, xf, xf)
        f = w.fixture_i[r, f, FI_NEXT]
    contact_manager.find_new_contacts(w, r)


@borrowing_kernel
def destroy_fixture(w, r, f):
    """b2Body::DestroyFixture."""
    b = w.fixture_i[r, f, FI_BODY]
    node = w.body_i[r, b, BI_FIXTURES]
    if node == f:
        w.body_i[r, b, BI_FIXTURES] = w.fixture_i[r, f, FI_NEXT]
    else:
        while node >= 0:
            nxt = w.fixture_i[r, node, FI_NEXT]
            if nxt == f:
                w.fixture_i[r, node, FI_NEXT] = w.fixture_i[r, f, FI_NEXT]
                break
            node = nxt
    e = w.body_i[r, b, BI_CONTACTS]
    while e >= 0:
        c = e >> 1
        e = w.cedge[r, e, 1]
        if w.contact_i[r, c, CI_FA] == f or w.contact_i[r, c, CI_FB] == f:
            contact_manager.destroy(w, r, c)
    if w.body_i[r, b, BI_FLAGS] & ACTIVE_FLAG:
        destroy_proxies(w, r, f)
    free_fixture(w, r, f)
    w.body_i[r, b, BI_FIXTURE_COUNT] -= 1
    reset_mass_data(w, r, b)
