"""b2Contact: creation by shape-type pair (the contact registers, which may swap the fixtures), friction
and restitution mixing, ``Evaluate`` per contact type, and ``Update`` (manifold, warm-start impulse
matching by contact id, touching flag, wake-ups, the listener's BeginContact/EndContact).

The listener is compiled in; ``world_i[WI_LISTENER]`` is a mask of what it does. With ``LISTEN_BODIES``,
BeginContact sets ``BI_TOUCH`` and ``BI_BEGUN`` of both bodies and EndContact clears their ``BI_TOUCH``, at
the moment Box2D calls the listener, so a caller reading them after ``Step`` sees what a Python listener
keeping "the last event of this body" and "any begin of this body" would (gymnasium's ``ground_contact`` and
``game_over``). With ``LISTEN_EVENTS``, each call appends ``(fixtureA, fixtureB, begin)`` to the row's
``events`` (``WI_EVENT_COUNT`` of them; the caller clears the count): a caller processing them after ``Step``
in that order does what a Python listener would, as long as that listener does not change the world
(CarRacing's tiles).
"""

from __future__ import annotations

import numpy as np

from nbgym.engine._jit import borrowing_kernel

from . import collide_circle, collide_edge, collide_polygon, distance, manifold, shapes
from .math import XF_FLOATS, copy_to, sqrtf
from .world import (
    BI_BEGUN,
    BI_TOUCH,
    C_ENABLED_FLAG,
    C_TOUCHING_FLAG,
    CF_FRICTION,
    CF_RESTITUTION,
    CF_TANGENT_SPEED,
    CF_TOI,
    CI_FA,
    CI_FB,
    CI_FLAGS,
    CI_IA,
    CI_IB,
    CI_TOI_COUNT,
    FF_FRICTION,
    FF_RESTITUTION,
    FI_BODY,
    FI_SENSOR,
    BF_XF,
    ERR_EVENTS,
    EV_BEGIN,
    EV_FIXTURE_A,
    EV_FIXTURE_B,
    LISTEN_BODIES,
    LISTEN_EVENTS,
    WI_ERROR,
    WI_EVENT_COUNT,
    WI_LISTENER,
    set_awake,
)

F32 = np.float32
_ZERO = F32(0.0)
_ONE = F32(1.0)

CIRCLE = shapes.CIRCLE
EDGE = shapes.EDGE
POLYGON = shapes.POLYGON


@borrowing_kernel
def mix_friction(f1, f2):
    """b2MixFriction: sqrtf(friction1 * friction2)."""
    return sqrtf(f1 * f2)


@borrowing_kernel
def mix_restitution(r1, r2):
    """b2MixRestitution: the larger."""
    return r1 if r1 > r2 else r2


@borrowing_kernel
def registered(type_a, type_b):
    """The contact register of a shape-type pair: 0 none, 1 primary (keep A, B), 2 swap to (B, A)."""
    if type_a == CIRCLE and type_b == CIRCLE:
        return 1
    if type_a == POLYGON and (type_b == CIRCLE or type_b == POLYGON):
        return 1
    if type_a == EDGE and (type_b == CIRCLE or type_b == POLYGON):
        return 1
    if type_a == CIRCLE and (type_b == POLYGON or type_b == EDGE):
        return 2
    if type_a == POLYGON and type_b == EDGE:
        return 2
    return 0


@borrowing_kernel
def init_contact(w, r, c, fa, ia, fb, ib):
    """The b2Contact constructor on row ``c`` (fixtures already in register order)."""
    ci = w.contact_i[r, c]
    cf = w.contact_f[r, c]
    ci[CI_FLAGS] = C_ENABLED_FLAG
    ci[CI_FA] = fa
    ci[CI_FB] = fb
    ci[CI_IA] = ia
    ci[CI_IB] = ib
    w.man_i[r, c, manifold.POINT_COUNT] = 0
    ci[CI_TOI_COUNT] = 0
    cf[CF_FRICTION] = mix_friction(w.fixture_f[r, fa, FF_FRICTION], w.fixture_f[r, fb, FF_FRICTION])
    cf[CF_RESTITUTION] = mix_restitution(w.fixture_f[r, fa, FF_RESTITUTION], w.fixture_f[r, fb, FF_RESTITUTION])
    cf[CF_TANGENT_SPEED] = _ZERO
    cf[CF_TOI] = _ZERO


@borrowing_kernel
def evaluate(w, r, c, xf_a, xf_b):
    """b2Contact::Evaluate: the manifold of the contact's two shapes at these transforms."""
    fa = w.contact_i[r, c, CI_FA]
    fb = w.contact_i[r, c, CI_FB]
    sia = w.shape_i[r, fa]
    sfa = w.shape_f[r, fa]
    sib = w.shape_i[r, fb]
    sfb = w.shape_f[r, fb]
    mf = w.man_f[r, c]
    mi = w.man_i[r, c]
    ta = sia[shapes.TYPE]
    tb = sib[shapes.TYPE]
    if ta == POLYGON:
        if tb == POLYGON:
            collide_polygon.collide_polygons(mf, mi, sia, sfa, xf_a, sib, sfb, xf_b)
        else:
            collide_circle.collide_polygon_and_circle(mf, mi, sia, sfa, xf_a, sib, sfb, xf_b)
    elif ta == EDGE:
        if tb == POLYGON:
            collide_edge.collide_edge_and_polygon(mf, mi, sia, sfa, xf_a, sib, sfb, xf_b)
        else:
            collide_edge.collide_edge_and_circle(mf, mi, sia, sfa, xf_a, sib, sfb, xf_b)
    else:
        collide_circle.collide_circles(mf, mi, sia, sfa, xf_a, sib, sfb, xf_b)


@borrowing_kernel
def record_event(w, r, c, begin):
    """The LISTEN_EVENTS listener: appends contact ``c``'s event to the row's ``events``."""
    n = w.world_i[r, WI_EVENT_COUNT]
    if n >= w.events.shape[1]:
        w.world_i[r, WI_ERROR] = ERR_EVENTS
        return
    w.events[r, n, EV_FIXTURE_A] = w.contact_i[r, c, CI_FA]
    w.events[r, n, EV_FIXTURE_B] = w.contact_i[r, c, CI_FB]
    w.events[r, n, EV_BEGIN] = 1 if begin else 0
    w.world_i[r, WI_EVENT_COUNT] = n + 1


@borrowing_kernel
def listen(w, r, c, begin):
    """The compiled listener's BeginContact (``begin``) or EndContact of contact ``c``."""
    listen_mask = w.world_i[r, WI_LISTENER]
    if listen_mask & LISTEN_BODIES:
        for k in range(2):
            f = w.contact_i[r, c, CI_FA + k]
            b = w.fixture_i[r, f, FI_BODY]
            w.body_i[r, b, BI_TOUCH] = 1 if begin else 0
            if begin:
                w.body_i[r, b, BI_BEGUN] = 1
    if listen_mask & LISTEN_EVENTS:
        record_event(w, r, c, begin)


@borrowing_kernel
def update(w, r, c):
    """b2Contact::Update(listener) (the listener is the row's compiled one when WI_LISTENER is set)."""
    ci = w.contact_i[r, c]
    mf = w.man_f[r, c]
    mi = w.man_i[r, c]
    old_f = w.old_man_f[r]
    old_i = w.old_man_i[r]
    copy_to(old_f, mf)
    copy_to(old_i, mi)
    ci[CI_FLAGS] |= C_ENABLED_FLAG
    was_touching = (ci[CI_FLAGS] & C_TOUCHING_FLAG) == C_TOUCHING_FLAG
    fa = ci[CI_FA]
    fb = ci[CI_FB]
    sensor = w.fixture_i[r, fa, FI_SENSOR] != 0 or w.fixture_i[r, fb, FI_SENSOR] != 0
    ba = w.fixture_i[r, fa, FI_BODY]
    bb = w.fixture_i[r, fb, FI_BODY]
    xf_a = w.body_f[r, ba, BF_XF : BF_XF + XF_FLOATS]
    xf_b = w.body_f[r, bb, BF_XF : BF_XF + XF_FLOATS]
    if sensor:
        touching = shapes_overlap(w, r, fa, fb, xf_a, xf_b)
        mi[manifold.POINT_COUNT] = 0
    else:
        evaluate(w, r, c, xf_a, xf_b)
        count = np.int32(mi[manifold.POINT_COUNT])
        touching = count > 0
        old_count = np.int32(old_i[manifold.POINT_COUNT])
        for i in range(count):
            p = manifold.POINTS + manifold.POINT_WIDTH * i
            mf[p + manifold.NORMAL_IMPULSE] = _ZERO
            mf[p + manifold.TANGENT_IMPULSE] = _ZERO
            key = mi[manifold.IDS + i]
            for j in range(old_count):
                if old_i[manifold.IDS + j] == key:
                    q = manifold.POINTS + manifold.POINT_WIDTH * j
                    mf[p + manifold.NORMAL_IMPULSE] = old_f[q + manifold.NORMAL_IMPULSE]
                    mf[p + manifold.TANGENT_IMPULSE] = old_f[q + manifold.TANGENT_IMPULSE]
                    break
        if touching != was_touching:
            set_awake(w, r, ba, True)
            set_awake(w, r, bb, True)
    if touching:
        ci[CI_FLAGS] |= C_TOUCHING_FLAG
    else:
        ci[CI_FLAGS] &= ~C_TOUCHING_FLAG
    listener = w.world_i[r, WI_LISTENER] != 0
    if (not was_touching) and touching and listener:
        listen(w, r, c, True)
    if was_touching and (not touching) and listener:
        listen(w, r, c, False)


@borrowing_kernel
def shapes_overlap(w, r, fa, fb, xf_a, xf_b):
    """b2TestOverlap(shapeA, 0, shapeB, 0, xfA, xfB), for sensor contacts."""
    va, na, ra = shapes.proxy(w.shape_i[r, fa], w.shape_f[r, fa])
    vb, nb, rb = shapes.proxy(w.shape_i[r, fb], w.shape_f[r, fb])
    return distance.test_overlap(va, na, ra, xf_a, vb, nb, rb, xf_b, w.simplex_cache[r])
