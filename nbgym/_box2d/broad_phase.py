"""b2BroadPhase (Box2D 2.3): proxies in a dynamic tree, a move buffer, and ``UpdatePairs``, which reports
new overlapping pairs in Box2D's order (sorted by ``(proxyIdA, proxyIdB)``, duplicates skipped).

A broad phase is the tree's three arrays (``dynamic_tree``) plus ``bp_i`` int32 ``(BP_INTS,)``
``[proxyCount, moveCount, pairCount]``, ``move_buffer`` int32 ``(moveCapacity,)`` and ``pair_buffer``
int32 ``(pairCapacity, 2)`` (Box2D grows its buffers; the port's are fixed: a full move buffer raises, a full pair
buffer splits ``update_pairs`` into batches, neither changes any order; ``pairCount`` is the most pairs a call
found, for the caller to grow the pair buffer). ``update_pairs`` does not call the contact manager: it writes the
pairs' userData in the order Box2D calls ``AddPair``, a batch at a time, and the caller adds them in that order.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d import dynamic_tree as tree
from nbgym._box2d.columns import Columns
from nbgym._box2d.math import b2abs, b2max, b2min, normalize
from nbgym._box2d.shapes import ray_cast
from nbgym.engine._jit import borrowing_kernel

# bp_i
_bp_i = Columns()
PROXY_COUNT, MOVE_COUNT, PAIR_COUNT = _bp_i.add_each(3)
BP_INTS = _bp_i.end()
NULL_PROXY = -1  # b2BroadPhase::e_nullProxy


def new_broad_phases(*shape: int, capacity: int, move_capacity: int, pair_capacity: int):
    """Empty broad phases: ``(tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer)`` with leading ``shape``."""
    tree_f, tree_i, tree_s = tree.new_trees(*shape, capacity=capacity)
    bp_i = np.zeros((*shape, BP_INTS), np.int32)
    move_buffer = np.full((*shape, move_capacity), NULL_PROXY, np.int32)
    pair_buffer = np.zeros((*shape, pair_capacity, 2), np.int32)
    return tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer


@borrowing_kernel
def reset(tree_f, tree_i, tree_s, bp_i):
    """Makes the broad phase empty, as a new b2BroadPhase."""
    tree.reset(tree_f, tree_i, tree_s)
    bp_i[PROXY_COUNT] = 0
    bp_i[MOVE_COUNT] = 0
    bp_i[PAIR_COUNT] = 0


@borrowing_kernel
def buffer_move(bp_i, move_buffer, proxy):
    """``b2BroadPhase::BufferMove`` (also ``TouchProxy``)."""
    n = bp_i[MOVE_COUNT]
    if n == move_buffer.shape[0]:
        raise ValueError("b2BroadPhase: move buffer capacity exceeded")
    move_buffer[n] = proxy
    bp_i[MOVE_COUNT] = n + 1


@borrowing_kernel
def create_proxy(tree_f, tree_i, tree_s, bp_i, move_buffer, aabb, user_data):
    """``b2BroadPhase::CreateProxy(aabb, userData)``: the proxy id."""
    proxy = tree.create_proxy(tree_f, tree_i, tree_s, aabb, user_data)
    bp_i[PROXY_COUNT] += 1
    buffer_move(bp_i, move_buffer, proxy)
    return proxy


@borrowing_kernel
def destroy_proxy(tree_f, tree_i, tree_s, bp_i, move_buffer, proxy):
    """``b2BroadPhase::DestroyProxy(proxyId)`` (UnBufferMove, then the tree's DestroyProxy)."""
    for i in range(bp_i[MOVE_COUNT]):
        if move_buffer[i] == proxy:
            move_buffer[i] = NULL_PROXY
    bp_i[PROXY_COUNT] -= 1
    tree.destroy_proxy(tree_f, tree_i, tree_s, proxy)


@borrowing_kernel
def move_proxy(tree_f, tree_i, tree_s, bp_i, move_buffer, proxy, aabb, dx, dy):
    """``b2BroadPhase::MoveProxy(proxyId, aabb, displacement)``."""
    if tree.move_proxy(tree_f, tree_i, tree_s, proxy, aabb, dx, dy):
        buffer_move(bp_i, move_buffer, proxy)


@borrowing_kernel
def test_overlap(tree_f, proxy_a, proxy_b):
    """``b2BroadPhase::TestOverlap(proxyIdA, proxyIdB)`` of the fat AABBs."""
    a = tree_f[proxy_a]
    b = tree_f[proxy_b]
    return tree.test_overlap(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])


@borrowing_kernel
def _pair_less(pair_buffer, i, j):
    """b2PairLessThan(pair i, pair j)."""
    if pair_buffer[i, 0] < pair_buffer[j, 0]:
        return True
    if pair_buffer[i, 0] == pair_buffer[j, 0]:
        return pair_buffer[i, 1] < pair_buffer[j, 1]
    return False


@borrowing_kernel
def _sort_pairs(pair_buffer, n):
    """Sorts the first ``n`` pairs by (proxyIdA, proxyIdB). std::sort is not stable, but equal pairs are
    identical, so every correct sort gives Box2D's sequence. A heapsort: in place, O(n log n)."""
    for start in range((n - 2) // 2, -1, -1):
        _sift_down(pair_buffer, start, n)
    for end in range(n - 1, 0, -1):
        a = pair_buffer[0, 0]
        b = pair_buffer[0, 1]
        pair_buffer[0, 0] = pair_buffer[end, 0]
        pair_buffer[0, 1] = pair_buffer[end, 1]
        pair_buffer[end, 0] = a
        pair_buffer[end, 1] = b
        _sift_down(pair_buffer, 0, end)


@borrowing_kernel
def _sift_down(pair_buffer, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and _pair_less(pair_buffer, child, child + 1):
            child += 1
        if not _pair_less(pair_buffer, root, child):
            return
        a = pair_buffer[root, 0]
        b = pair_buffer[root, 1]
        pair_buffer[root, 0] = pair_buffer[child, 0]
        pair_buffer[root, 1] = pair_buffer[child, 1]
        pair_buffer[child, 0] = a
        pair_buffer[child, 1] = b
        root = child


@borrowing_kernel
def _keep_pair(pair_buffer, n, a, b):
    """Offers the pair ``(a, b)`` to the first ``n`` pairs of ``pair_buffer``, which keep the smallest pairs
    offered: appended while there is room (then made a heap, the largest first), else in place of the largest if
    smaller. Returns the new number of pairs kept."""
    capacity = pair_buffer.shape[0]
    if n < capacity:
        pair_buffer[n, 0] = a
        pair_buffer[n, 1] = b
        n += 1
        if n == capacity:
            for start in range((n - 2) // 2, -1, -1):
                _sift_down(pair_buffer, start, n)
        return n
    if a < pair_buffer[0, 0] or (a == pair_buffer[0, 0] and b < pair_buffer[0, 1]):
        pair_buffer[0, 0] = a
        pair_buffer[0, 1] = b
        _sift_down(pair_buffer, 0, n)
    return n


@borrowing_kernel
def update_pairs(tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer, stack, found, after_a, after_b):
    """``b2BroadPhase::UpdatePairs(callback)``, a batch at a time: writes into ``pair_buffer`` the
    ``(userDataA, userDataB)`` of the new pairs that come after the proxy pair ``(after_a, after_b)`` in the order
    Box2D calls ``callback->AddPair`` (``(-1, -1)`` for the first batch), as many as it holds. Returns
    ``(count, more, last_a, last_b)``: ``more`` says whether pairs after the proxy pair ``(last_a, last_b)`` are left
    for another batch; the last batch clears the move buffer.

    Box2D grows its pair buffer by doubling until every pair of a call fits, then sorts it; the port's buffer is a
    fixed row, so a call whose pairs do not fit keeps the smallest (a heap) and goes on from the largest kept in the
    next batch, querying the moved proxies again (the tree does not change in between). The order of the pairs is
    Box2D's either way, and the buffer needs no room for all the pairs: ``bp_i[PAIR_COUNT]`` keeps the most pairs
    (duplicates included, as Box2D's ``m_pairCount``) a first batch found since the broad phase was emptied, for
    the caller to grow the buffer to. ``stack`` (int32, tree capacity + 1) and ``found`` (int32, tree capacity) are
    the tree queries' scratch."""
    pair_count = 0
    offered = 0
    for i in range(bp_i[MOVE_COUNT]):
        query_proxy = move_buffer[i]
        if query_proxy == NULL_PROXY:
            continue
        n = tree.query(tree_f, tree_i, tree_s, tree_f[query_proxy], stack, found)
        for k in range(n):
            proxy = found[k]
            if proxy == query_proxy:
                continue
            a = min(proxy, query_proxy)
            b = max(proxy, query_proxy)
            if a < after_a or (a == after_a and b <= after_b):
                continue
            offered += 1
            pair_count = _keep_pair(pair_buffer, pair_count, a, b)
    if after_a == NULL_PROXY and offered > bp_i[PAIR_COUNT]:
        bp_i[PAIR_COUNT] = offered
    more = offered > pair_count
    if not more:
        bp_i[MOVE_COUNT] = 0
    _sort_pairs(pair_buffer, pair_count)
    last_a = pair_buffer[pair_count - 1, 0] if pair_count else after_a
    last_b = pair_buffer[pair_count - 1, 1] if pair_count else after_b
    added = 0
    i = 0
    while i < pair_count:  # the pairs become their userData in place: each is read before it is written
        a = pair_buffer[i, 0]
        b = pair_buffer[i, 1]
        pair_buffer[added, 0] = tree_i[a, tree.USER_DATA]
        pair_buffer[added, 1] = tree_i[b, tree.USER_DATA]
        added += 1
        i += 1
        while i < pair_count and pair_buffer[i, 0] == a and pair_buffer[i, 1] == b:
            i += 1
    return added, more, last_a, last_b


@borrowing_kernel
def overlapping_leaves(tree_f, tree_i, tree_s, lx, ly, ux, uy, accept, scratch):
    """The tree's leaves whose fat AABB overlaps the box ``(lx, ly, ux, uy)`` and whose fixture ``accept`` takes
    (its userData indexes ``accept``), for ``ray_cast_closest`` to cast the rays within the box against.

    ``scratch`` is int32 of at least the tree's capacity + 1: the leaves are written at its front, in the tree's
    order, and the walk's stack grows down from its back. They never meet: a walk's stack holds at most the tree's
    height + 1 nodes and the leaves are at most half of its nodes + 1. Returns the number of leaves.
    """
    count = 0
    bottom = scratch.shape[0]  # the stack is scratch[bottom:]
    root = tree_s[tree.ROOT]
    if root != NULL_PROXY:
        bottom -= 1
        scratch[bottom] = root
    while bottom < scratch.shape[0]:
        node = scratch[bottom]
        bottom += 1
        a = tree_f[node]
        if not tree.test_overlap(a[0], a[1], a[2], a[3], lx, ly, ux, uy):
            continue
        if tree_i[node, tree.CHILD1] == NULL_PROXY:
            if accept[tree_i[node, tree.USER_DATA]]:
                scratch[count] = node
                count += 1
        else:
            scratch[bottom - 1] = tree_i[node, tree.CHILD2]
            scratch[bottom - 2] = tree_i[node, tree.CHILD1]
            bottom -= 2
    return count


@borrowing_kernel
def ray_cast_closest(leaves, count, tree_f, tree_i, p1x, p1y, p2x, p2y, shape_i, shape_f, fixture_body, body_xf):
    """What ``b2World::RayCast(callback, p1, p2)`` finds with gymnasium's lidar callback (a fixture it rejects gets -1
    and is ignored, a hit is kept and its fraction clips the ray), cast against ``leaves[:count]``: the leaves of
    ``overlapping_leaves`` for a box that holds the ray (several rays from one point share them).

    Box2D's tree walk calls the callback in its own order, and each kept hit clips the ray for the fixtures after it;
    the hit kept last is then the closest, with a fraction and point that do not depend on that order: a fixture's
    ``RayCast`` computes its fraction independently of the ray's clip (which only decides whether it reports it), and
    the walk prunes only nodes whose fat AABB (0.1 wider than its shapes) misses the clipped ray, so never one holding
    a closer hit. So each leaf here gets the walk's tests on its own AABB and its fixture's ``RayCast``, in any order.
    The fixture and normal of the hit are not returned: between hits at the same fraction they do depend on the order.

    The tree's userData is a fixture index into ``shape_i``/``shape_f`` (the fixtures' shapes) and ``fixture_body``
    (its body); ``body_xf`` holds the bodies' transforms. Returns ``(hit, fraction, point.x, point.y)``; the point is
    the wrapper's ``(1 - fraction) * p1 + fraction * p2``.
    """
    one = np.float32(1.0)
    half = np.float32(0.5)
    zero = np.float32(0.0)
    found = False
    found_fraction = zero
    found_px = zero
    found_py = zero
    rx, ry, _ = normalize(p2x - p1x, p2y - p1y)
    vx = -one * ry
    vy = one * rx
    avx = b2abs(vx)
    avy = b2abs(vy)
    max_fraction = one
    tx = p1x + max_fraction * (p2x - p1x)
    ty = p1y + max_fraction * (p2y - p1y)
    slx, sly, sux, suy = b2min(p1x, tx), b2min(p1y, ty), b2max(p1x, tx), b2max(p1y, ty)
    for k in range(count):
        node = leaves[k]
        a = tree_f[node]
        if not tree.test_overlap(a[0], a[1], a[2], a[3], slx, sly, sux, suy):
            continue
        cx = half * (a[0] + a[2])
        cy = half * (a[1] + a[3])
        hx = half * (a[2] - a[0])
        hy = half * (a[3] - a[1])
        separation = b2abs(vx * (p1x - cx) + vy * (p1y - cy)) - (avx * hx + avy * hy)
        if separation > zero:
            continue
        fixture = tree_i[node, tree.USER_DATA]
        hit, fraction, _nx, _ny = ray_cast(
            shape_i[fixture], shape_f[fixture], body_xf[fixture_body[fixture]], p1x, p1y, p2x, p2y, max_fraction
        )
        if not hit:
            continue
        w = one - fraction
        found = True
        found_fraction = fraction
        found_px = w * p1x + fraction * p2x
        found_py = w * p1y + fraction * p2y
        if fraction == zero:
            break
        max_fraction = fraction
        tx = p1x + max_fraction * (p2x - p1x)
        ty = p1y + max_fraction * (p2y - p1y)
        slx, sly, sux, suy = b2min(p1x, tx), b2min(p1y, ty), b2max(p1x, tx), b2max(p1y, ty)
    return found, found_fraction, found_px, found_py
