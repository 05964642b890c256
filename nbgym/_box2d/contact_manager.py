"""b2ContactManager: AddPair (same body, existing contact, ShouldCollide with joints, the default
b2ContactFilter), FindNewContacts (the broad-phase's pairs in Box2D's order), Collide (filtering, the
sleeping test, the fat-AABB overlap test that destroys contacts, Update) and Destroy.

New contacts are prepended to the world's contact list and to both bodies' contact edge lists.
"""

from __future__ import annotations

from nbgym.engine._jit import borrowing_kernel

from . import broad_phase, contact, manifold
from .world import (
    AWAKE_FLAG,
    BI_CONTACTS,
    BI_FLAGS,
    BI_TYPE,
    CI_ALIVE,
    CI_FA,
    CI_FB,
    CI_FLAGS,
    CI_IA,
    CI_IB,
    CI_NEXT,
    CI_PREV,
    C_FILTER_FLAG,
    C_TOUCHING_FLAG,
    ERR_CONTACTS,
    FI_BODY,
    FI_CATEGORY,
    FI_GROUP,
    FI_MASK,
    FI_PROXY,
    FI_SENSOR,
    STATIC,
    WI_CONTACT_COUNT,
    WI_CONTACT_LIST,
    WI_FREE_CONTACT,
    WI_LISTENER,
    edge_other_contact,
    free_row,
    link_edges,
    link_item,
    set_awake,
    should_collide_bodies,
    take_row,
    unlink_edge,
    unlink_item,
)


@borrowing_kernel
def should_collide_fixtures(w, r, fa, fb):
    """b2ContactFilter::ShouldCollide (the default filter: groups, then category/mask bits)."""
    ga = w.fixture_i[r, fa, FI_GROUP]
    gb = w.fixture_i[r, fb, FI_GROUP]
    if ga == gb and ga != 0:
        return ga > 0
    return (w.fixture_i[r, fa, FI_MASK] & w.fixture_i[r, fb, FI_CATEGORY]) != 0 and (
        w.fixture_i[r, fa, FI_CATEGORY] & w.fixture_i[r, fb, FI_MASK]
    ) != 0


@borrowing_kernel
def destroy(w, r, c):
    """b2ContactManager::Destroy (EndContact if touching, unlink, wake the bodies if it had points)."""
    wi = w.world_i[r]
    ci = w.contact_i[r, c]
    fa = ci[CI_FA]
    fb = ci[CI_FB]
    ba = w.fixture_i[r, fa, FI_BODY]
    bb = w.fixture_i[r, fb, FI_BODY]
    if wi[WI_LISTENER] != 0 and (ci[CI_FLAGS] & C_TOUCHING_FLAG) != 0:
        contact.listen(w, r, c, False)
    unlink_item(wi, w.contact_i[r], c, WI_CONTACT_LIST, CI_PREV, CI_NEXT)
    for side in range(2):
        body = ba if side == 0 else bb
        e = 2 * c + side
        unlink_edge(w.cedge, w.body_i, r, e, body, BI_CONTACTS)
    # b2Contact::Destroy
    if (
        w.man_i[r, c, manifold.POINT_COUNT] > 0
        and w.fixture_i[r, fa, FI_SENSOR] == 0
        and w.fixture_i[r, fb, FI_SENSOR] == 0
    ):
        set_awake(w, r, ba, True)
        set_awake(w, r, bb, True)
    free_row(wi, w.contact_i[r], c, WI_FREE_CONTACT, CI_NEXT, CI_ALIVE)
    wi[WI_CONTACT_COUNT] -= 1


@borrowing_kernel
def add_pair(w, r, fixture_a, fixture_b):
    """b2ContactManager::AddPair for the proxies of child 0 of these two fixtures."""
    index_a = 0
    index_b = 0
    body_a = w.fixture_i[r, fixture_a, FI_BODY]
    body_b = w.fixture_i[r, fixture_b, FI_BODY]
    if body_a == body_b:
        return
    e = w.body_i[r, body_b, BI_CONTACTS]
    while e >= 0:
        if edge_other_contact(w, r, e) == body_a:
            c = e >> 1
            f_a = w.contact_i[r, c, CI_FA]
            f_b = w.contact_i[r, c, CI_FB]
            i_a = w.contact_i[r, c, CI_IA]
            i_b = w.contact_i[r, c, CI_IB]
            if f_a == fixture_a and f_b == fixture_b and i_a == index_a and i_b == index_b:
                return
            if f_a == fixture_b and f_b == fixture_a and i_a == index_b and i_b == index_a:
                return
        e = w.cedge[r, e, 1]
    if not should_collide_bodies(w, r, body_b, body_a):
        return
    if not should_collide_fixtures(w, r, fixture_a, fixture_b):
        return
    kind = contact.registered(w.shape_i[r, fixture_a, 0], w.shape_i[r, fixture_b, 0])
    if kind == 0:
        return
    if kind == 2:
        fixture_a, fixture_b = fixture_b, fixture_a
        index_a, index_b = index_b, index_a
    wi = w.world_i[r]
    c = take_row(wi, w.contact_i[r], WI_FREE_CONTACT, CI_NEXT, ERR_CONTACTS)
    if c < 0:
        return
    w.contact_i[r, c, CI_ALIVE] = 1
    contact.init_contact(w, r, c, fixture_a, index_a, fixture_b, index_b)
    body_a = w.fixture_i[r, fixture_a, FI_BODY]
    body_b = w.fixture_i[r, fixture_b, FI_BODY]
    link_item(wi, w.contact_i[r], c, WI_CONTACT_LIST, CI_PREV, CI_NEXT)
    link_edges(w.cedge, w.body_i, r, c, body_a, body_b, BI_CONTACTS)
    if w.fixture_i[r, fixture_a, FI_SENSOR] == 0 and w.fixture_i[r, fixture_b, FI_SENSOR] == 0:
        set_awake(w, r, body_a, True)
        set_awake(w, r, body_b, True)
    wi[WI_CONTACT_COUNT] += 1


@borrowing_kernel
def find_new_contacts(w, r):
    """b2ContactManager::FindNewContacts: b2BroadPhase::UpdatePairs calling AddPair in its order."""
    more = True
    after_a = after_b = broad_phase.NULL_PROXY
    while more:  # one batch unless the pair buffer is short (see update_pairs)
        n, more, after_a, after_b = broad_phase.update_pairs(
            w.tree_f[r],
            w.tree_i[r],
            w.tree_s[r],
            w.bp_i[r],
            w.move_buffer[r],
            w.pair_buffer[r],
            w.query_stack[r],
            w.query_found[r],
            after_a,
            after_b,
        )
        for k in range(n):
            add_pair(w, r, w.pair_buffer[r, k, 0], w.pair_buffer[r, k, 1])


@borrowing_kernel
def collide(w, r):
    """b2ContactManager::Collide."""
    c = w.world_i[r, WI_CONTACT_LIST]
    while c >= 0:
        ci = w.contact_i[r, c]
        fa = ci[CI_FA]
        fb = ci[CI_FB]
        ba = w.fixture_i[r, fa, FI_BODY]
        bb = w.fixture_i[r, fb, FI_BODY]
        if ci[CI_FLAGS] & C_FILTER_FLAG:
            if not should_collide_bodies(w, r, bb, ba):
                nxt = ci[CI_NEXT]
                destroy(w, r, c)
                c = nxt
                continue
            if not should_collide_fixtures(w, r, fa, fb):
                nxt = ci[CI_NEXT]
                destroy(w, r, c)
                c = nxt
                continue
            ci[CI_FLAGS] &= ~C_FILTER_FLAG
        active_a = (w.body_i[r, ba, BI_FLAGS] & AWAKE_FLAG) != 0 and w.body_i[r, ba, BI_TYPE] != STATIC
        active_b = (w.body_i[r, bb, BI_FLAGS] & AWAKE_FLAG) != 0 and w.body_i[r, bb, BI_TYPE] != STATIC
        if not active_a and not active_b:
            c = ci[CI_NEXT]
            continue
        overlap = broad_phase.test_overlap(w.tree_f[r], w.fixture_i[r, fa, FI_PROXY], w.fixture_i[r, fb, FI_PROXY])
        if not overlap:
            nxt = ci[CI_NEXT]
            destroy(w, r, c)
            c = nxt
            continue
        contact.update(w, r, c)
        c = ci[CI_NEXT]
