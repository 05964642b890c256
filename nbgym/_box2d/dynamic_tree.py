"""b2DynamicTree (Box2D 2.3): the broad-phase's AABB tree, with Box2D's node allocation order, fat AABBs,
insertion cost heuristic and rotations, so that proxy ids, node ids and query order are the wheel's.

One tree is three arrays (batch arrays add a leading rows dimension):

- ``tree_f`` float32 ``(capacity, 4)``: each node's AABB ``[lower.x, lower.y, upper.x, upper.y]``;
- ``tree_i`` int32 ``(capacity, 5)``: ``[userData, parent/next, child1, child2, height]`` (``next`` is the
  free-list link of a free node, as Box2D's union; a free node has height -1);
- ``tree_s`` int32 ``(4,)``: ``[root, freeList, nodeCount, insertionCount]``.

Box2D starts with 16 nodes and doubles when the free list runs out; a fresh port tree chains all
``capacity`` nodes, which hands out the same ids in the same order (growth only happens when every node
is in use). Exceeding the capacity raises. userData is an int32 chosen by the caller (the world's
fixture-proxy index).

AABB helpers of b2Collision.h (``test_overlap``, ``perimeter``) live here too.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d.columns import Columns
from nbgym._box2d.math import b2max, b2min
from nbgym.engine._jit import borrowing_kernel

# tree_i columns
_tree_i = Columns()
USER_DATA = _tree_i.add()
PARENT = _tree_i.add()  # also ``next``
CHILD1, CHILD2, HEIGHT = _tree_i.add_each(3)
NODE_INTS = _tree_i.end()
# tree_s
_tree_s = Columns()
ROOT, FREE_LIST, NODE_COUNT, INSERTION_COUNT = _tree_s.add_each(4)
TREE_INTS = _tree_s.end()
NULL_NODE = -1
AABB_FLOATS = 4  # an AABB (a tree_f row): [lower.x, lower.y, upper.x, upper.y]

_AABB_EXTENSION = np.float32(0.1)
_AABB_MULTIPLIER = np.float32(2.0)
_TWO = np.float32(2.0)
_ZERO = np.float32(0.0)


def new_trees(*shape: int, capacity: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty trees ``(tree_f, tree_i, tree_s)`` with leading dimensions ``shape``, as b2DynamicTree's constructor."""
    tree_f = np.zeros((*shape, capacity, AABB_FLOATS), np.float32)
    tree_i = np.zeros((*shape, capacity, NODE_INTS), np.int32)
    tree_s = np.zeros((*shape, TREE_INTS), np.int32)
    for index in np.ndindex(*shape):
        reset(tree_f[index], tree_i[index], tree_s[index])
    return tree_f, tree_i, tree_s


@borrowing_kernel
def reset(tree_f, tree_i, tree_s):
    """Makes the tree empty, as a new b2DynamicTree (a world's tree is new with the world)."""
    capacity = tree_i.shape[0]
    for i in range(capacity):
        tree_i[i, PARENT] = i + 1 if i + 1 < capacity else NULL_NODE
        tree_i[i, HEIGHT] = -1
        tree_i[i, USER_DATA] = 0
        tree_i[i, CHILD1] = 0
        tree_i[i, CHILD2] = 0
        for k in range(4):
            tree_f[i, k] = _ZERO
    tree_s[ROOT] = NULL_NODE
    tree_s[FREE_LIST] = 0
    tree_s[NODE_COUNT] = 0
    tree_s[INSERTION_COUNT] = 0


@borrowing_kernel
def test_overlap(alx, aly, aux, auy, blx, bly, bux, buy):
    """``b2TestOverlap(a, b)`` of two AABBs."""
    if blx - aux > _ZERO or bly - auy > _ZERO:
        return False
    if alx - bux > _ZERO or aly - buy > _ZERO:
        return False
    return True


@borrowing_kernel
def perimeter(lx, ly, ux, uy):
    """``b2AABB::GetPerimeter``."""
    return _TWO * ((ux - lx) + (uy - ly))


@borrowing_kernel
def _allocate_node(tree_i, tree_s):
    node = tree_s[FREE_LIST]
    if node == NULL_NODE:
        raise ValueError("b2DynamicTree: node capacity exceeded")
    tree_s[FREE_LIST] = tree_i[node, PARENT]
    tree_i[node, PARENT] = NULL_NODE
    tree_i[node, CHILD1] = NULL_NODE
    tree_i[node, CHILD2] = NULL_NODE
    tree_i[node, HEIGHT] = 0
    tree_i[node, USER_DATA] = 0
    tree_s[NODE_COUNT] += 1
    return node


@borrowing_kernel
def _free_node(tree_i, tree_s, node):
    tree_i[node, PARENT] = tree_s[FREE_LIST]
    tree_i[node, HEIGHT] = -1
    tree_s[FREE_LIST] = node
    tree_s[NODE_COUNT] -= 1


@borrowing_kernel
def _combine(tree_f, node, a, b):
    """``nodes[node].aabb.Combine(nodes[a].aabb, nodes[b].aabb)``."""
    tree_f[node, 0] = b2min(tree_f[a, 0], tree_f[b, 0])
    tree_f[node, 1] = b2min(tree_f[a, 1], tree_f[b, 1])
    tree_f[node, 2] = b2max(tree_f[a, 2], tree_f[b, 2])
    tree_f[node, 3] = b2max(tree_f[a, 3], tree_f[b, 3])


@borrowing_kernel
def _combined_perimeter(lx, ly, ux, uy, tree_f, node):
    """Perimeter of ``Combine(leafAABB, nodes[node].aabb)``."""
    return perimeter(
        b2min(lx, tree_f[node, 0]), b2min(ly, tree_f[node, 1]), b2max(ux, tree_f[node, 2]), b2max(uy, tree_f[node, 3])
    )


@borrowing_kernel
def _rotate(tree_f, tree_i, tree_s, ia, up, keep, slot):
    """One rotation of b2DynamicTree::Balance: child ``up`` of ``ia`` becomes the subtree's root; ``ia``
    keeps its child ``keep`` and takes the lower of ``up``'s children into ``slot`` (``CHILD2`` when C
    rises, ``CHILD1`` when B rises), exactly as the C++ spells out both cases."""
    i1 = tree_i[up, CHILD1]
    i2 = tree_i[up, CHILD2]
    tree_i[up, CHILD1] = ia
    tree_i[up, PARENT] = tree_i[ia, PARENT]
    tree_i[ia, PARENT] = up
    parent = tree_i[up, PARENT]
    if parent != NULL_NODE:
        if tree_i[parent, CHILD1] == ia:
            tree_i[parent, CHILD1] = up
        else:
            tree_i[parent, CHILD2] = up
    else:
        tree_s[ROOT] = up
    if tree_i[i1, HEIGHT] > tree_i[i2, HEIGHT]:
        high, low = i1, i2
    else:
        high, low = i2, i1
    tree_i[up, CHILD2] = high
    tree_i[ia, slot] = low
    tree_i[low, PARENT] = ia
    _combine(tree_f, ia, keep, low)
    _combine(tree_f, up, ia, high)
    tree_i[ia, HEIGHT] = 1 + max(tree_i[keep, HEIGHT], tree_i[low, HEIGHT])
    tree_i[up, HEIGHT] = 1 + max(tree_i[ia, HEIGHT], tree_i[high, HEIGHT])


@borrowing_kernel
def _balance(tree_f, tree_i, tree_s, ia):
    """b2DynamicTree::Balance: a left or right rotation at ``ia`` if it is imbalanced; the subtree's new root."""
    if tree_i[ia, CHILD1] == NULL_NODE or tree_i[ia, HEIGHT] < 2:
        return ia
    ib = tree_i[ia, CHILD1]
    ic = tree_i[ia, CHILD2]
    balance = tree_i[ic, HEIGHT] - tree_i[ib, HEIGHT]
    if balance > 1:  # rotate C up
        _rotate(tree_f, tree_i, tree_s, ia, ic, ib, CHILD2)
        return ic
    if balance < -1:  # rotate B up
        _rotate(tree_f, tree_i, tree_s, ia, ib, ic, CHILD1)
        return ib
    return ia


@borrowing_kernel
def _insert_leaf(tree_f, tree_i, tree_s, leaf):
    tree_s[INSERTION_COUNT] += 1
    if tree_s[ROOT] == NULL_NODE:
        tree_s[ROOT] = leaf
        tree_i[leaf, PARENT] = NULL_NODE
        return
    lx = tree_f[leaf, 0]
    ly = tree_f[leaf, 1]
    ux = tree_f[leaf, 2]
    uy = tree_f[leaf, 3]
    index = tree_s[ROOT]
    while tree_i[index, CHILD1] != NULL_NODE:
        child1 = tree_i[index, CHILD1]
        child2 = tree_i[index, CHILD2]
        area = perimeter(tree_f[index, 0], tree_f[index, 1], tree_f[index, 2], tree_f[index, 3])
        combined_area = _combined_perimeter(lx, ly, ux, uy, tree_f, index)
        cost = _TWO * combined_area
        inheritance_cost = _TWO * (combined_area - area)
        if tree_i[child1, CHILD1] == NULL_NODE:
            cost1 = _combined_perimeter(lx, ly, ux, uy, tree_f, child1) + inheritance_cost
        else:
            old_area = perimeter(tree_f[child1, 0], tree_f[child1, 1], tree_f[child1, 2], tree_f[child1, 3])
            cost1 = (_combined_perimeter(lx, ly, ux, uy, tree_f, child1) - old_area) + inheritance_cost
        if tree_i[child2, CHILD1] == NULL_NODE:
            cost2 = _combined_perimeter(lx, ly, ux, uy, tree_f, child2) + inheritance_cost
        else:
            old_area = perimeter(tree_f[child2, 0], tree_f[child2, 1], tree_f[child2, 2], tree_f[child2, 3])
            cost2 = (_combined_perimeter(lx, ly, ux, uy, tree_f, child2) - old_area) + inheritance_cost
        if cost < cost1 and cost < cost2:
            break
        index = child1 if cost1 < cost2 else child2
    sibling = index
    old_parent = tree_i[sibling, PARENT]
    new_parent = _allocate_node(tree_i, tree_s)
    tree_i[new_parent, PARENT] = old_parent
    tree_i[new_parent, USER_DATA] = 0
    tree_f[new_parent, 0] = b2min(lx, tree_f[sibling, 0])
    tree_f[new_parent, 1] = b2min(ly, tree_f[sibling, 1])
    tree_f[new_parent, 2] = b2max(ux, tree_f[sibling, 2])
    tree_f[new_parent, 3] = b2max(uy, tree_f[sibling, 3])
    tree_i[new_parent, HEIGHT] = tree_i[sibling, HEIGHT] + 1
    if old_parent != NULL_NODE:
        if tree_i[old_parent, CHILD1] == sibling:
            tree_i[old_parent, CHILD1] = new_parent
        else:
            tree_i[old_parent, CHILD2] = new_parent
    else:
        tree_s[ROOT] = new_parent
    tree_i[new_parent, CHILD1] = sibling
    tree_i[new_parent, CHILD2] = leaf
    tree_i[sibling, PARENT] = new_parent
    tree_i[leaf, PARENT] = new_parent
    index = tree_i[leaf, PARENT]
    while index != NULL_NODE:
        index = _balance(tree_f, tree_i, tree_s, index)
        child1 = tree_i[index, CHILD1]
        child2 = tree_i[index, CHILD2]
        tree_i[index, HEIGHT] = 1 + max(tree_i[child1, HEIGHT], tree_i[child2, HEIGHT])
        _combine(tree_f, index, child1, child2)
        index = tree_i[index, PARENT]


@borrowing_kernel
def _remove_leaf(tree_f, tree_i, tree_s, leaf):
    if leaf == tree_s[ROOT]:
        tree_s[ROOT] = NULL_NODE
        return
    parent = tree_i[leaf, PARENT]
    grand_parent = tree_i[parent, PARENT]
    sibling = tree_i[parent, CHILD2] if tree_i[parent, CHILD1] == leaf else tree_i[parent, CHILD1]
    if grand_parent != NULL_NODE:
        if tree_i[grand_parent, CHILD1] == parent:
            tree_i[grand_parent, CHILD1] = sibling
        else:
            tree_i[grand_parent, CHILD2] = sibling
        tree_i[sibling, PARENT] = grand_parent
        _free_node(tree_i, tree_s, parent)
        index = grand_parent
        while index != NULL_NODE:
            index = _balance(tree_f, tree_i, tree_s, index)
            child1 = tree_i[index, CHILD1]
            child2 = tree_i[index, CHILD2]
            _combine(tree_f, index, child1, child2)
            tree_i[index, HEIGHT] = 1 + max(tree_i[child1, HEIGHT], tree_i[child2, HEIGHT])
            index = tree_i[index, PARENT]
    else:
        tree_s[ROOT] = sibling
        tree_i[sibling, PARENT] = NULL_NODE
        _free_node(tree_i, tree_s, parent)


@borrowing_kernel
def create_proxy(tree_f, tree_i, tree_s, aabb, user_data):
    """``b2DynamicTree::CreateProxy(aabb, userData)``: the proxy id (its leaf stores the fattened AABB)."""
    proxy = _allocate_node(tree_i, tree_s)
    tree_f[proxy, 0] = aabb[0] - _AABB_EXTENSION
    tree_f[proxy, 1] = aabb[1] - _AABB_EXTENSION
    tree_f[proxy, 2] = aabb[2] + _AABB_EXTENSION
    tree_f[proxy, 3] = aabb[3] + _AABB_EXTENSION
    tree_i[proxy, USER_DATA] = user_data
    tree_i[proxy, HEIGHT] = 0
    _insert_leaf(tree_f, tree_i, tree_s, proxy)
    return proxy


@borrowing_kernel
def destroy_proxy(tree_f, tree_i, tree_s, proxy):
    """``b2DynamicTree::DestroyProxy(proxyId)``."""
    _remove_leaf(tree_f, tree_i, tree_s, proxy)
    _free_node(tree_i, tree_s, proxy)


@borrowing_kernel
def move_proxy(tree_f, tree_i, tree_s, proxy, aabb, dx, dy):
    """``b2DynamicTree::MoveProxy(proxyId, aabb, displacement)``: whether the proxy was re-inserted (its fat
    AABB did not contain ``aabb``; the new one is extended and stretched by 2 x the displacement)."""
    if (
        tree_f[proxy, 0] <= aabb[0]
        and tree_f[proxy, 1] <= aabb[1]
        and aabb[2] <= tree_f[proxy, 2]
        and aabb[3] <= tree_f[proxy, 3]
    ):
        return False
    _remove_leaf(tree_f, tree_i, tree_s, proxy)
    lx = aabb[0] - _AABB_EXTENSION
    ly = aabb[1] - _AABB_EXTENSION
    ux = aabb[2] + _AABB_EXTENSION
    uy = aabb[3] + _AABB_EXTENSION
    ddx = _AABB_MULTIPLIER * dx
    ddy = _AABB_MULTIPLIER * dy
    if ddx < _ZERO:
        lx += ddx
    else:
        ux += ddx
    if ddy < _ZERO:
        ly += ddy
    else:
        uy += ddy
    tree_f[proxy, 0] = lx
    tree_f[proxy, 1] = ly
    tree_f[proxy, 2] = ux
    tree_f[proxy, 3] = uy
    _insert_leaf(tree_f, tree_i, tree_s, proxy)
    return True


@borrowing_kernel
def query(tree_f, tree_i, tree_s, aabb, stack, out):
    """``b2DynamicTree::Query(callback, aabb)`` with a callback that always proceeds: writes the ids of the
    leaves whose fat AABB overlaps ``aabb`` into ``out`` in Box2D's visiting order; returns their number.
    ``stack`` is int32 scratch of at least the tree's capacity + 1."""
    count = 0
    top = 0
    stack[top] = tree_s[ROOT]
    top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        if node == NULL_NODE:
            continue
        if test_overlap(
            tree_f[node, 0], tree_f[node, 1], tree_f[node, 2], tree_f[node, 3], aabb[0], aabb[1], aabb[2], aabb[3]
        ):
            if tree_i[node, CHILD1] == NULL_NODE:
                out[count] = node
                count += 1
            else:
                stack[top] = tree_i[node, CHILD1]
                stack[top + 1] = tree_i[node, CHILD2]
                top += 2
    return count
