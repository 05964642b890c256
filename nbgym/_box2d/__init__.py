"""A numba port of the parts of Box2D 2.3 (pybox2d 2.3.10, the ``box2d==2.3.10`` wheel) that gymnasium's
LunarLander and BipedalWalker use: bit for bit the wheel's float32 results.

A physics library that knows no environment. One file per Box2D subsystem, named after it; every
function is a compiled helper (nbgym's kernel options: cached, no fastmath) that also runs as plain
Python under ``NUMBA_DISABLE_JIT=1``. Everything is float32, each operation in the C++ source order.

Collision half (this branch's files):

- ``settings``: b2Settings.h constants (float32).
- ``columns``: ``Columns``, which numbers every table's columns (the ``*_i``/``*_f`` index constants of the
  modules below, and the environments' state rows) in the order they are declared.
- ``math``: b2Math: vector/rotation/transform operations returning tuples of float32 scalars,
  ``sinf``/``cosf``/``atan2f`` of libm, b2Sweep's ``GetTransform``/``Advance``/``Normalize``.
- ``shapes``: polygon ``Set`` (hull, normals, centroid), ``SetAsBox``, circle and edge shapes;
  ``ComputeMass``, ``ComputeAABB``, ``RayCast`` per shape type.
- ``collide_polygon``, ``collide_circle``, ``collide_edge``: the b2Collide* manifold functions.
- ``manifold``: ``b2WorldManifold::Initialize``, ``b2GetPointStates``.
- ``distance``: GJK ``b2Distance`` with its simplex cache; ``time_of_impact``: ``b2TimeOfImpact``.
- ``dynamic_tree``: b2DynamicTree (node allocation order exactly Box2D's); ``broad_phase``: b2BroadPhase
  (move buffer, pair buffer, ``UpdatePairs`` with Box2D's pair order) and ``ray_cast_closest``
  (``b2World::RayCast`` with the nearest-hit, category-filtered callback of gymnasium's lidar).

Scalars are float32 everywhere: from Python pass ``np.float32`` values (a Python float would make numba
compile a float64 variant), and note that numba hands a float32 result back to Python as a float.

Array layouts (a "row" is one sub-environment's world; batch arrays have leading dimensions
``(rows, items)`` and a function takes the views of one item, e.g. ``shape_f[row, k]``):

Transform ``xf``: float32 ``(4,)`` ``[p.x, p.y, q.s, q.c]`` (``math.XF_*``).

Sweep: float32 ``(9,)`` ``[localCenter.x, localCenter.y, c0.x, c0.y, c.x, c.y, a0, a, alpha0]`` (``math.SW_*``).

AABB: float32 ``(4,)`` ``[lower.x, lower.y, upper.x, upper.y]``.

Shape: two arrays (``shapes.*`` constants):

- ``shape_i`` int32 ``(4,)``: ``[type, count, hasVertex0, hasVertex3]``; type is b2Shape::Type
  (``CIRCLE=0, EDGE=1, POLYGON=2``); count is the number of vertices in ``vertices`` (polygon m_count,
  2 for an edge, 1 for a circle).
- ``shape_f`` float32 ``(SHAPE_ROWS=20, 2)``: row ``RADIUS=0`` is ``[m_radius, 0]``; row ``CENTROID=1``
  the polygon's m_centroid; rows ``VERTEX0=2``, ``VERTEX3=3`` an edge's adjacent vertices; rows
  ``VERTICES=4 .. 11`` the vertices (polygon m_vertices; an edge's m_vertex1, m_vertex2; a circle's m_p);
  rows ``NORMALS=12 .. 19`` a polygon's m_normals. ``MAX_POLYGON_VERTICES = 8`` (Box2D allows 16, the
  environments use at most 8). ``shape_f[VERTICES:VERTICES + 8]`` is the ``(8, 2)`` vertex array.

Manifold (b2Manifold): two arrays (``manifold.*`` constants):

- ``man_f`` float32 ``(12,)``: ``[localNormal.x, localNormal.y, localPoint.x, localPoint.y]`` then per
  point ``i`` (two) at ``4 + 4 * i``: ``[localPoint.x, localPoint.y, normalImpulse, tangentImpulse]``.
- ``man_i`` uint32 ``(4,)``: ``[type, pointCount, id0, id1]``; type is b2Manifold::Type
  (``CIRCLES=0, FACE_A=1, FACE_B=2``); an id is b2ContactID's ``key``: the bytes of b2ContactFeature
  in memory order, ``indexA | indexB << 8 | typeA << 16 | typeB << 24`` (type ``VERTEX=0, FACE=1``).

The collide functions write exactly the fields the C++ writes (never the impulses): the caller keeps
the old manifold and matches ids as ``b2Contact::Update`` does.

Distance proxy: ``(vertices (n, 2) float32 view, count, radius)``; ``shapes.proxy(shape_i, shape_f)``
gives it for any shape (``b2DistanceProxy::Set``). Simplex cache: int32 ``(7,)`` ``[count, indexA[3],
indexB[3]]`` and float32 metric returned/passed as a scalar (see ``distance``).

Dynamic tree (one per row): ``tree_f`` float32 ``(capacity, 4)`` node AABBs; ``tree_i`` int32
``(capacity, 5)`` ``[userData, parent/next, child1, child2, height]``; ``tree_s`` int32 ``(4,)``
``[root, freeList, nodeCount, insertionCount]``. Capacity is fixed at creation (Box2D grows by doubling;
the free-list order is the same while it fits). userData is an int32 (the world's fixture-proxy index).

Broad phase (one per row): the tree's arrays plus ``bp_i`` int32 ``(3,)`` ``[proxyCount, moveCount,
pairCount]``, ``move_buffer`` int32 ``(moveCapacity,)``, ``pair_buffer`` int32 ``(pairCapacity, 2)``.
``broad_phase.update_pairs`` writes the new pairs (as userData pairs) in the order Box2D calls
``AddPair``, as many as the pair buffer holds, and returns their number: the contact manager adds them in that
order, then asks for the next batch if there is one.
"""
