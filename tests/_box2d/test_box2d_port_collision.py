"""The compiled Box2D port's collision half (nbgym._box2d) against the box2d 2.3.10 wheel, bit for bit."""

from __future__ import annotations

import ctypes
import ctypes.util

import numba
import numpy as np
import pytest

B = pytest.importorskip("Box2D")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nbgym._box2d import math as bm  # noqa: E402
from nbgym._box2d import shapes  # noqa: E402
from helpers.box2d_port import F32  # noqa: E402
from helpers.jit import INTERPRETED  # noqa: E402

# The port's functions as Python entry points: minutes to compile, `cold` when compiled.
pytestmark = [] if INTERPRETED else [pytest.mark.cold]

# Interpreted (NUMBA_DISABLE_JIT=1, CI's second pass) each example is ~50x slower: fewer there.
FAST = settings(
    max_examples=40 if numba.config.DISABLE_JIT else 150, deadline=None, suppress_health_check=list(HealthCheck)
)
SLOW = settings(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
SWEEPS = {}


def differential(*strategies):
    """``@given(*strategies)`` with ``FAST``'s examples, plus a ``<name>_sweep`` test of 5000 marked slow."""

    def decorate(body):
        SWEEPS[body.__name__ + "_sweep"] = pytest.mark.slow(SLOW(given(*strategies)(body)))
        return FAST(given(*strategies)(body))

    return decorate


def coord(low=-10.0, high=10.0):
    low, high = float(np.float32(low)), float(np.float32(high))
    return st.floats(low, high, width=32, allow_nan=False, allow_infinity=False).map(F32)


def bits(*values):
    return [np.float32(v).view(np.uint32).item() for v in values]


def same(ours, theirs):
    """Equal float32 bit patterns (the wheel's values come back as doubles of float32s)."""
    assert bits(*ours) == bits(*theirs), (ours, theirs)


def transform(x, y, angle):
    xf = B.b2Transform()
    xf.position = (float(x), float(y))
    xf.angle = float(angle)
    return xf


def xf_array(xf):
    return np.array([xf.position.x, xf.position.y, xf.q.s, xf.q.c], np.float32)


transforms = st.tuples(coord(), coord(), coord(-7.0, 7.0))


def polygon_arrays(poly):
    si, sf = shapes.new_shapes()
    pts = np.array([(v[0], v[1]) for v in poly.vertices], np.float32)
    shapes.polygon_set(si, sf, pts, len(pts))
    return si, sf


def wheel_shape(si, sf):
    t = si[shapes.TYPE]
    v = sf[shapes.VERTICES :]
    if t == shapes.CIRCLE:
        return B.b2CircleShape(radius=float(sf[0, 0]), pos=(float(v[0, 0]), float(v[0, 1])))
    if t == shapes.EDGE:
        e = B.b2EdgeShape(vertices=[(float(v[0, 0]), float(v[0, 1])), (float(v[1, 0]), float(v[1, 1]))])
        if si[shapes.HAS_VERTEX0]:
            e.vertex0 = tuple(map(float, sf[shapes.VERTEX0]))
            e.hasVertex0 = True
        if si[shapes.HAS_VERTEX3]:
            e.vertex3 = tuple(map(float, sf[shapes.VERTEX3]))
            e.hasVertex3 = True
        return e
    return B.b2PolygonShape(vertices=[(float(x), float(y)) for x, y in v[: si[shapes.COUNT]]])


# --- random shapes (as the shape arrays and as the wheel's shapes) ---------------------------------------------


@st.composite
def polygons(draw, scale=3.0):
    n = draw(st.integers(3, 8))
    points = draw(st.lists(st.tuples(coord(-scale, scale), coord(-scale, scale)), min_size=n, max_size=n))
    si, sf = shapes.new_shapes()
    try:  # first the port: it refuses the points on which the wheel's hull never closes (and it crashes)
        with np.errstate(all="ignore"):  # interpreted, degenerate points warn before the wheel refuses them
            shapes.polygon_set(si, sf, np.array(points, np.float32), n)
        wheel = B.b2PolygonShape(vertices=[(float(x), float(y)) for x, y in points])
    except (AssertionError, ValueError):
        assume(False)
    return si, sf, wheel


@st.composite
def boxes(draw):
    hx, hy = draw(coord(0.05, 3.0)), draw(coord(0.05, 3.0))
    si, sf = shapes.new_shapes()
    if draw(st.booleans()):
        shapes.polygon_set_as_box(si, sf, hx, hy)
        wheel = B.b2PolygonShape(box=(float(hx), float(hy)))
    else:
        cx, cy, a = draw(coord(-2, 2)), draw(coord(-2, 2)), draw(coord(-4, 4))
        shapes.polygon_set_as_oriented_box(si, sf, hx, hy, cx, cy, a)
        wheel = B.b2PolygonShape()
        wheel.SetAsBox(float(hx), float(hy), (float(cx), float(cy)), float(a))
    return si, sf, wheel


@st.composite
def circles(draw):
    r, x, y = draw(coord(0.05, 3.0)), draw(coord(-2, 2)), draw(coord(-2, 2))
    si, sf = shapes.new_shapes()
    shapes.circle_set(si, sf, r, x, y)
    return si, sf, wheel_shape(si, sf)


@st.composite
def edges(draw, adjacent=False):
    v = [draw(coord(-5, 5)) for _ in range(4)]
    assume((v[0], v[1]) != (v[2], v[3]))
    si, sf = shapes.new_shapes()
    shapes.edge_set(si, sf, *v)
    if adjacent:
        has0, has3 = draw(st.booleans()), draw(st.booleans())
        a = [draw(coord(-5, 5)) for _ in range(4)]
        shapes.edge_set_adjacent(si, sf, has0, a[0], a[1], has3, a[2], a[3])
    return si, sf, wheel_shape(si, sf)


any_shape = st.one_of(polygons(), boxes(), circles(), edges())


# --- math ----------------------------------------------------------------------------------------------------


def test_trig_is_libm():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name in ("sinf", "cosf"):
        getattr(libm, name).restype = ctypes.c_float
        getattr(libm, name).argtypes = [ctypes.c_float]
    libm.atan2f.restype = ctypes.c_float
    libm.atan2f.argtypes = [ctypes.c_float, ctypes.c_float]
    x = np.random.default_rng(0).uniform(-50, 50, 300).astype(np.float32)
    for v in x:
        s, c = bm.rot_set(v)
        same((s, c), (libm.sinf(float(v)), libm.cosf(float(v))))
        same((bm.atan2f(v, F32(0.3)),), (libm.atan2f(float(v), 0.3),))


@differential(transforms, coord(-2, 2), coord(-2, 2))
def test_transform_mul_matches_wheel(t, x, y):
    xf = transform(*t)
    a = xf_array(xf)
    same(a, (xf.position.x, xf.position.y, xf.q.s, xf.q.c))
    ours = np.zeros(4, np.float32)
    bm.xf_set(ours, *t)
    same(ours, a)
    same(bm.xf_mul(a, x, y), tuple(B.b2Mul(xf, (float(x), float(y)))))
    same(bm.xf_mul_t(a, x, y), tuple(B.b2MulT(xf, (float(x), float(y)))))


@differential(st.lists(coord(-5, 5), min_size=9, max_size=9), coord(0, 1), coord(0, 1))
def test_sweep_matches_wheel(values, beta, alpha):
    values[8] = F32(min(abs(values[8]) / 10, 0.9))  # alpha0 < 1
    sweep = np.array(values, np.float32)
    s = B.b2Sweep()
    s.localCenter = (float(values[0]), float(values[1]))
    s.c0 = (float(values[2]), float(values[3]))
    s.c = (float(values[4]), float(values[5]))
    s.a0, s.a, s.alpha0 = float(values[6]), float(values[7]), float(values[8])
    xf = np.zeros(4, np.float32)
    bm.sweep_get_transform(sweep, beta, xf)
    wxf = B.b2Transform()
    s.GetTransform(wxf, float(beta))
    same(xf, xf_array(wxf))
    bm.sweep_advance(sweep, alpha)
    s.Advance(float(alpha))
    s.Normalize()
    bm.sweep_normalize(sweep)
    same(sweep, (*s.localCenter, *s.c0, *s.c, s.a0, s.a, s.alpha0))


# --- shapes --------------------------------------------------------------------------------------------------


def test_polygon_hull_drops_interior_and_collinear_points():
    si, sf = shapes.new_shapes()
    pts = np.array([(0, 0), (1, 0), (0.5, 0.2), (2, 0), (2, 2), (0, 2), (1, 2)], np.float32)
    shapes.polygon_set(si, sf, pts, 7)
    wheel = B.b2PolygonShape(vertices=[tuple(map(float, p)) for p in pts])
    assert si[shapes.COUNT] == len(wheel.vertices) == 4
    same(sf[4:8].ravel(), np.ravel(wheel.vertices))


@differential(st.one_of(polygons(), boxes()))
def test_polygon_set_matches_wheel(shape):
    si, sf, wheel = shape
    n = si[shapes.COUNT]
    assert n == wheel.vertexCount
    same(sf[shapes.VERTICES : shapes.VERTICES + n].ravel(), np.ravel(wheel.vertices))
    same(sf[shapes.NORMALS : shapes.NORMALS + n].ravel(), np.ravel([tuple(v) for v in wheel.normals]))
    same(sf[shapes.CENTROID], tuple(wheel.centroid))
    same((sf[0, 0],), (wheel.radius,))


@differential(any_shape, coord(0.1, 10))
def test_compute_mass_matches_wheel(shape, density):
    si, sf, wheel = shape
    m = wheel.getMass(float(density))
    same(shapes.compute_mass(si, sf, density), (m.mass, m.center.x, m.center.y, m.I))


@differential(any_shape, transforms)
def test_compute_aabb_matches_wheel(shape, t):
    si, sf, wheel = shape
    xf = transform(*t)
    aabb = np.zeros(4, np.float32)
    shapes.compute_aabb(si, sf, xf_array(xf), aabb)
    w = wheel.getAABB(xf, 0)
    same(aabb, (*w.lowerBound, *w.upperBound))


@differential(any_shape, transforms, st.tuples(coord(), coord(), coord(), coord()), coord(0.2, 1.5))
def test_ray_cast_matches_wheel(shape, t, ray, max_fraction):
    si, sf, wheel = shape
    xf = transform(t[0] / 4, t[1] / 4, t[2])
    out = B.b2RayCastOutput()
    hit = wheel.RayCast(
        out,
        B.b2RayCastInput(p1=tuple(map(float, ray[:2])), p2=tuple(map(float, ray[2:])), maxFraction=float(max_fraction)),
        xf,
        0,
    )
    ours = shapes.ray_cast(si, sf, xf_array(xf), *ray, max_fraction)
    assert ours[0] == hit
    if hit:
        same(ours[1:], (out.fraction, *out.normal))


# --- manifolds -------------------------------------------------------------------------------------------------

from nbgym._box2d import manifold as mf  # noqa: E402
from nbgym._box2d.collide_circle import collide_circles, collide_polygon_and_circle  # noqa: E402
from nbgym._box2d.collide_edge import collide_edge_and_circle, collide_edge_and_polygon  # noqa: E402
from nbgym._box2d.collide_polygon import collide_polygons  # noqa: E402

near = st.tuples(coord(-2.5, 2.5), coord(-2.5, 2.5), coord(-7.0, 7.0))


def check_manifold(man_f, man_i, wm):
    """The port's manifold equals the wheel's (fields the C++ wrote; a fresh b2Manifold is zeroed)."""
    assert man_i[mf.POINT_COUNT] == wm.pointCount
    assert man_i[mf.TYPE] == wm.type_
    if wm.pointCount:
        same(man_f[:4], (*wm.localNormal, *wm.localPoint))
    for i in range(wm.pointCount):
        p = wm.points[i]
        o = mf.POINTS + mf.POINT_WIDTH * i
        same(man_f[o : o + 2], tuple(p.localPoint))
        assert man_i[mf.IDS + i] == p.id.key


def run_collide(ours, theirs, a, ta, b, tb):
    si_a, sf_a, wa = a
    si_b, sf_b, wb = b
    xa, xb = transform(*ta), transform(*tb)
    man_f, man_i = mf.new_manifolds()
    ours(man_f, man_i, si_a, sf_a, xf_array(xa), si_b, sf_b, xf_array(xb))
    wm = B.b2Manifold()
    theirs(wm, wa, xa, wb, xb)
    check_manifold(man_f, man_i, wm)
    if wm.pointCount:  # b2WorldManifold::Initialize
        out = np.zeros(6, np.float32)
        mf.world_manifold(man_f, man_i, xf_array(xa), sf_a[0, 0], xf_array(xb), sf_b[0, 0], out)
        w = B.b2WorldManifold()
        w.Initialize(wm, xa, wa.radius, xb, wb.radius)
        same(out[: 2 + 2 * wm.pointCount], (*w.normal, *[c for p in w.points[: wm.pointCount] for c in p]))
    return int(man_i[mf.POINT_COUNT])


convex = st.one_of(polygons(2.0), boxes())


@differential(convex, near, convex, near)
def test_collide_polygons_matches_wheel(a, ta, b, tb):
    run_collide(collide_polygons, B.b2CollidePolygons, a, ta, b, tb)


@differential(circles(), near, circles(), near)
def test_collide_circles_matches_wheel(a, ta, b, tb):
    run_collide(collide_circles, B.b2CollideCircles, a, ta, b, tb)


@differential(convex, near, circles(), near)
def test_collide_polygon_and_circle_matches_wheel(a, ta, b, tb):
    run_collide(collide_polygon_and_circle, B.b2CollidePolygonAndCircle, a, ta, b, tb)


@differential(edges(adjacent=True), near, circles(), near)
def test_collide_edge_and_circle_matches_wheel(a, ta, b, tb):
    run_collide(collide_edge_and_circle, B.b2CollideEdgeAndCircle, a, ta, b, tb)


@differential(edges(adjacent=True), near, convex, near)
def test_collide_edge_and_polygon_matches_wheel(a, ta, b, tb):
    run_collide(collide_edge_and_polygon, B.b2CollideEdgeAndPolygon, a, ta, b, tb)


def test_collisions_are_exercised():
    """The random sweeps above reach every kind of manifold (guards the strategies against drifting apart)."""
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(300):
        si_a, sf_a = shapes.new_shapes()
        si_b, sf_b = shapes.new_shapes()
        shapes.polygon_set_as_box(si_a, sf_a, F32(1), F32(0.5))
        shapes.polygon_set_as_oriented_box(si_b, sf_b, F32(0.7), F32(0.3), F32(0.1), F32(0), F32(rng.uniform(-3, 3)))
        xa = np.array([0, 0, 0, 1], np.float32)
        xb = np.zeros(4, np.float32)
        bm.xf_set(xb, *rng.uniform(-2, 2, 2).astype(np.float32), F32(rng.uniform(-3, 3)))
        man_f, man_i = mf.new_manifolds()
        collide_polygons(man_f, man_i, si_a, sf_a, xa, si_b, sf_b, xb)
        seen.add((int(man_i[0]), int(man_i[1])))
    assert {(1, 1), (1, 2), (2, 1), (2, 2), (0, 0)} <= seen or {(1, 2), (2, 2)} <= seen


# --- distance ------------------------------------------------------------------------------------------------

from nbgym._box2d import distance as dist  # noqa: E402


def proxy(si, sf):
    """``shapes.proxy`` with its radius kept float32 (numba returns a float32 to Python as a float)."""
    vertices, count, radius = shapes.proxy(si, sf)
    return vertices, count, F32(radius)


@differential(any_shape, near, any_shape, near, st.booleans())
def test_distance_matches_wheel(a, ta, b, tb, use_radii):
    si_a, sf_a, wa = a
    si_b, sf_b, wb = b
    xa, xb = transform(*ta), transform(*tb)
    cache = dist.new_cache()
    ours = dist.distance(cache, *proxy(si_a, sf_a), xf_array(xa), *proxy(si_b, sf_b), xf_array(xb), use_radii)
    w = B.b2Distance(shapeA=wa, shapeB=wb, transformA=xa, transformB=xb, useRadii=use_radii)
    same(ours[:5], (*w.pointA, *w.pointB, w.distance))
    assert ours[5] == w.iterations
    # a second call from the written cache (warm start) agrees with the first's geometry
    again = dist.distance(cache, *proxy(si_a, sf_a), xf_array(xa), *proxy(si_b, sf_b), xf_array(xb), use_radii)
    assert abs(again[4] - ours[4]) <= 1e-3 * max(1.0, abs(ours[4]))


def test_point_states_match_wheel():
    for keys1, keys2 in (((1, 2), (2, 3)), ((5,), (5, 6)), ((), (7,)), ((8, 9), ())):
        m1, m2 = B.b2Manifold(), B.b2Manifold()
        ours = []
        for m, keys in ((m1, keys1), (m2, keys2)):
            man_f, man_i = mf.new_manifolds()
            man_i[mf.POINT_COUNT] = m.pointCount = len(keys)
            for i, k in enumerate(keys):
                m.points[i].id.key = k
                man_i[mf.IDS + i] = k
            ours.append(man_i)
        s1, s2 = np.zeros(2, np.int64), np.zeros(2, np.int64)
        mf.point_states(ours[0], ours[1], s1, s2)
        w1, w2 = B.b2GetPointStates(m1, m2)
        assert list(s1) == list(w1) and list(s2) == list(w2)


# --- time of impact ------------------------------------------------------------------------------------------

from nbgym._box2d import time_of_impact as toi  # noqa: E402


@st.composite
def sweeps(draw, start, end):
    v = [draw(coord(-0.5, 0.5)), draw(coord(-0.5, 0.5))]  # localCenter
    v += [draw(start), draw(start), draw(end), draw(end)]  # c0, c
    v += [draw(coord(-8, 8)), draw(coord(-8, 8)), F32(0)]  # a0, a, alpha0
    return np.array(v, np.float32)


def wheel_sweep(s):
    w = B.b2Sweep()
    w.localCenter = (float(s[0]), float(s[1]))
    w.c0 = (float(s[2]), float(s[3]))
    w.c = (float(s[4]), float(s[5]))
    w.a0, w.a, w.alpha0 = float(s[6]), float(s[7]), float(s[8])
    return w


@differential(
    any_shape, sweeps(coord(-4, -1), coord(-1, 3)), any_shape, sweeps(coord(-1, 1), coord(-1, 1)), coord(0.3, 1)
)
def test_time_of_impact_matches_wheel(a, sweep_a, b, sweep_b, t_max):
    si_a, sf_a, wa = a
    si_b, sf_b, wb = b
    before = sweep_a.copy()
    ours = toi.time_of_impact(*proxy(si_a, sf_a), *proxy(si_b, sf_b), sweep_a, sweep_b, t_max, dist.new_cache())
    assert (sweep_a == before).all()
    state, t = B.b2TimeOfImpact(
        shapeA=wa, shapeB=wb, sweepA=wheel_sweep(sweep_a), sweepB=wheel_sweep(sweep_b), tMax=float(t_max)
    )
    assert ours[0] == state
    same((ours[1],), (t,))


# --- dynamic tree and broad phase, against a wheel world's broad phase ----------------------------------------

from nbgym._box2d import broad_phase as bp  # noqa: E402
from nbgym._box2d import dynamic_tree as dt  # noqa: E402


class _Query(B.b2QueryCallback):
    def __init__(self):
        super().__init__()
        self.found = []

    def ReportFixture(self, fixture):
        self.found.append(fixture.userData)
        return True


class Worlds:
    """A wheel world of dynamic boxes (one fixture each, userData = creation index) and the port's broad
    phase fed the same proxies; ``check`` compares the tree node by node, queries and new pairs."""

    def __init__(self):
        self.world = B.b2World(gravity=(0, 0))
        self.bodies = {}
        self.arrays = bp.new_broad_phases(capacity=512, move_capacity=256, pair_capacity=4096)
        self.proxy = {}
        self.contacts = set()
        self.next = 0

    def add(self, x, y, angle, hx, hy):
        body = self.world.CreateDynamicBody(position=(float(x), float(y)), angle=float(angle))
        body.CreatePolygonFixture(box=(float(hx), float(hy)), userData=self.next)
        si, sf = shapes.new_shapes()
        shapes.polygon_set_as_box(si, sf, F32(hx), F32(hy))
        aabb = np.zeros(4, np.float32)
        shapes.compute_aabb(si, sf, xf_array(body.transform), aabb)
        self.proxy[self.next] = bp.create_proxy(*self.arrays[:5], aabb, self.next)
        self.bodies[self.next] = body
        self.next += 1

    def remove(self, key):
        body = self.bodies.pop(key)
        self.contacts = {c for c in self.contacts if key not in c}
        self.world.DestroyBody(body)
        bp.destroy_proxy(*self.arrays[:5], self.proxy.pop(key))

    def move(self, key, aabb, dx, dy):
        wheel_bp = self.world.contactManager.broadPhase
        box = B.b2AABB(lowerBound=tuple(map(float, aabb[:2])), upperBound=tuple(map(float, aabb[2:])))
        wheel_bp.MoveProxy(int(self.proxy[key]), box, (float(dx), float(dy)))
        bp.move_proxy(*self.arrays[:5], self.proxy[key], aabb, dx, dy)

    def check(self, query_boxes=()):
        tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer = self.arrays
        wheel_bp = self.world.contactManager.broadPhase
        assert bp_i[bp.PROXY_COUNT] == wheel_bp.proxyCount
        root = tree_s[dt.ROOT]
        assert (tree_i[root, dt.HEIGHT] if root >= 0 else 0) == wheel_bp.treeHeight
        for node in np.flatnonzero(tree_i[:, dt.HEIGHT] >= 0):
            w = wheel_bp.GetFatAABB(int(node))
            same(tree_f[node], (*w.lowerBound, *w.upperBound))
        stack, out = np.zeros(513, np.int32), np.zeros(512, np.int32)
        for box in query_boxes:
            q = _Query()
            self.world.QueryAABB(
                q, B.b2AABB(lowerBound=tuple(map(float, box[:2])), upperBound=tuple(map(float, box[2:])))
            )
            n = dt.query(tree_f, tree_i, tree_s, box, stack, out)
            assert [int(tree_i[p, dt.USER_DATA]) for p in out[:n]] == q.found
        # UpdatePairs -> AddPair (skipping existing contacts, as b2ContactManager) -> the world's contact list
        # the C++ list (m_contactList: newest first); pybox2d's ``world.contacts`` reverses it
        before = [(c.fixtureA.userData, c.fixtureB.userData) for c in self.world.contacts_gen]
        self.world.contactManager.FindNewContacts()
        # a pair buffer of two pairs takes the same pairs in batches (the broad phase's own holds them all)
        few = all_pairs(tree_f, tree_i, tree_s, bp_i.copy(), move_buffer, np.zeros((2, 2), np.int32))
        pairs = all_pairs(tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer)
        assert few == pairs
        added = []
        for a, b in pairs:
            if frozenset((a, b)) not in self.contacts:
                self.contacts.add(frozenset((a, b)))
                added.append((a, b))
        after = [(c.fixtureA.userData, c.fixtureB.userData) for c in self.world.contacts_gen]
        assert after == added[::-1] + before
        return len(pairs)


def all_pairs(tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer):
    """The userData pairs of ``update_pairs`` batch after batch, as the contact manager adds them."""
    stack, found = np.zeros(len(tree_i) + 1, np.int32), np.zeros(len(tree_i), np.int32)
    pairs, more, after = [], True, (bp.NULL_PROXY, bp.NULL_PROXY)
    while more:
        n, more, *after = bp.update_pairs(tree_f, tree_i, tree_s, bp_i, move_buffer, pair_buffer, stack, found, *after)
        pairs += pair_buffer[:n].tolist()
    assert bp_i[bp.MOVE_COUNT] == 0
    return pairs


boxes_params = st.tuples(coord(-5, 5), coord(-5, 5), coord(-3, 3), coord(0.1, 1.5), coord(0.1, 1.5))


def broad_phase_scenario(params, data):
    worlds = Worlds()
    for p in params:
        worlds.add(*p)
    lo, hi = sorted(data.draw(st.tuples(coord(-6, 6), coord(-6, 6))))
    queries = [np.array([lo, lo, hi, hi], np.float32)]
    worlds.check(queries)
    for _ in range(data.draw(st.integers(0, 3))):  # moves (some inside their fat AABB), removals, additions
        keys = sorted(worlds.proxy) or [None]
        for key in data.draw(st.lists(st.sampled_from(keys), max_size=10, unique=True)) if keys[0] is not None else ():
            x, y = data.draw(coord(-5, 5)), data.draw(coord(-5, 5))
            hx, hy = data.draw(coord(0.05, 1.5)), data.draw(coord(0.05, 1.5))
            aabb = np.array([x - hx, y - hy, x + hx, y + hy], np.float32)
            worlds.move(key, aabb, data.draw(coord(-1, 1)), data.draw(coord(-1, 1)))
        keys = sorted(worlds.proxy) or [None]
        for key in data.draw(st.lists(st.sampled_from(keys), max_size=3, unique=True)) if keys[0] is not None else ():
            worlds.remove(key)
        for p in data.draw(st.lists(boxes_params, max_size=5)):
            worlds.add(*p)
        worlds.check()


broad_phase_worlds = (st.lists(boxes_params, min_size=1, max_size=30), st.data())
test_broad_phase_matches_wheel = settings(FAST, max_examples=25)(given(*broad_phase_worlds)(broad_phase_scenario))
SWEEPS["test_broad_phase_matches_wheel_sweep"] = pytest.mark.slow(
    settings(SLOW, max_examples=500)(given(*broad_phase_worlds)(broad_phase_scenario))
)


def test_broad_phase_many_proxies_matches_wheel():
    """60 proxies, then rounds of 10 moves, 3 removals (freed ids reused) and 4 additions: a tree of height
    ~8 with rotations; every node's fat AABB, queries and the contact order stay the wheel's."""
    rng = np.random.default_rng(5)
    worlds = Worlds()
    low, high = [-5, -5, -3, 0.1, 0.1], [5, 5, 3, 1.5, 1.5]
    for _ in range(60):
        worlds.add(*rng.uniform(low, high).astype(np.float32))
    pairs = worlds.check([np.array([-2, -2, 2, 2], np.float32)])
    for _ in range(8):
        for key in rng.choice(sorted(worlds.proxy), 10, replace=False):
            c, h = rng.uniform(-5, 5, 2), rng.uniform(0.05, 1.5, 2)
            worlds.move(int(key), np.array([*(c - h), *(c + h)], np.float32), *rng.uniform(-1, 1, 2).astype(np.float32))
        for key in rng.choice(sorted(worlds.proxy), 3, replace=False):
            worlds.remove(int(key))
        for _ in range(4):
            worlds.add(*rng.uniform(low, high).astype(np.float32))
        pairs += worlds.check([np.array([-3, -1, 1, 4], np.float32)])
    assert pairs > 500 and worlds.world.contactManager.broadPhase.treeHeight >= 6


class _Lidar(B.b2RayCastCallback):
    """gymnasium's BipedalWalker LidarCallback, recording what it keeps."""

    def __init__(self):
        super().__init__()
        self.kept = None

    def ReportFixture(self, fixture, point, normal, fraction):
        if (fixture.filterData.categoryBits & 1) == 0:
            return -1
        self.kept = (fixture.userData, fraction, *point, *normal)
        return fraction


def ray_world(params):
    """A wheel world of static edges and polygons (category 1) and dynamic boxes and circles (category
    0x20), and the port's broad phase and fixture arrays built in the same order."""
    world = B.b2World(gravity=(0, 0))
    n = len(params)
    shape_i, shape_f = shapes.new_shapes(n)
    fixture_body = np.arange(n, dtype=np.int32)
    body_xf = np.zeros((n, 4), np.float32)
    accept = np.zeros(n, np.bool_)
    arrays = bp.new_broad_phases(capacity=2 * n + 2, move_capacity=n + 1, pair_capacity=4)
    for k, (kind, x, y, angle, a, b, c, d) in enumerate(params):
        static = kind < 2
        body = (world.CreateStaticBody if static else world.CreateDynamicBody)(
            position=(float(x), float(y)), angle=float(angle)
        )
        if kind == 0:
            shapes.edge_set(shape_i[k], shape_f[k], a, b, c, d)
        elif kind == 1 or kind == 2:
            pts = np.array([(-a, -b), (c, -b), (c, d), (-a, d * F32(0.5))], np.float32)
            shapes.polygon_set(shape_i[k], shape_f[k], pts, 4)
        else:
            shapes.circle_set(shape_i[k], shape_f[k], abs(a) + F32(0.1), b, c)
        fixture = body.CreateFixture(shape=wheel_shape(shape_i[k], shape_f[k]), userData=k)
        fixture.filterData = B.b2Filter(categoryBits=1 if static else 0x20)
        accept[k] = static
        body_xf[k] = xf_array(body.transform)
        aabb = np.zeros(4, np.float32)
        shapes.compute_aabb(shape_i[k], shape_f[k], body_xf[k], aabb)
        bp.create_proxy(*arrays[:5], aabb, k)
    return world, arrays, (shape_i, shape_f, fixture_body, body_xf, accept)


ray_params = st.lists(
    st.tuples(
        st.integers(0, 3),
        coord(-5, 5),
        coord(-5, 5),
        coord(-3, 3),
        coord(0.2, 1.5),
        coord(0.2, 1.5),
        coord(0.2, 1.5),
        coord(0.2, 1.5),
    )
    # an edge of two equal vertices is not a Box2D shape (the wheel's ray cast asserts a non-zero length)
    .filter(lambda p: p[0] != 0 or (p[4], p[5]) != (p[6], p[7])),
    min_size=1,
    max_size=25,
)


@settings(FAST, max_examples=30)
@given(ray_params, st.lists(st.tuples(coord(-7, 7), coord(-7, 7), coord(-7, 7), coord(-7, 7)), min_size=1, max_size=10))
def test_ray_cast_closest_matches_wheel_lidar(params, rays):
    """Each ray against the leaves of the box that holds every ray, as the lidar's fan casts them, and against the
    leaves of its own box: the wheel's closest kept hit, its fraction and point."""
    world, arrays, (shape_i, shape_f, fixture_body, body_xf, accept) = ray_world(params)
    fan = np.array(rays, np.float32)
    fan_box = (*(fan[:, [0, 2]].min(), fan[:, [1, 3]].min()), *(fan[:, [0, 2]].max(), fan[:, [1, 3]].max()))
    fan_leaves = np.zeros(arrays[1].shape[0] + 1, np.int32)
    fan_count = bp.overlapping_leaves(*arrays[:3], *map(F32, fan_box), accept, fan_leaves)
    own_leaves = np.zeros_like(fan_leaves)
    for x1, y1, x2, y2 in rays:
        dx, dy = F32(x2 - x1), F32(y2 - y1)
        if dx * dx + dy * dy == F32(0.0):  # no ray: Box2D asserts a non-zero float32 length
            continue
        lidar = _Lidar()
        world.RayCast(lidar, (float(x1), float(y1)), (float(x2), float(y2)))
        own_box = (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
        own_count = bp.overlapping_leaves(*arrays[:3], *map(F32, own_box), accept, own_leaves)
        for leaves, count in ((fan_leaves, fan_count), (own_leaves, own_count)):
            ours = bp.ray_cast_closest(
                leaves, count, arrays[0], arrays[1], x1, y1, x2, y2, shape_i, shape_f, fixture_body, body_xf
            )
            assert ours[0] == (lidar.kept is not None)
            if lidar.kept is not None:
                same(ours[1:], (lidar.kept[1], *lidar.kept[2:4]))


# --- a stepping wheel world: every touching contact's manifold is the port's -----------------------------------

COLLIDE = {
    (shapes.POLYGON, shapes.POLYGON): collide_polygons,
    (shapes.POLYGON, shapes.CIRCLE): collide_polygon_and_circle,
    (shapes.EDGE, shapes.POLYGON): collide_edge_and_polygon,
    (shapes.EDGE, shapes.CIRCLE): collide_edge_and_circle,
    (shapes.CIRCLE, shapes.CIRCLE): collide_circles,
}


def falling_world(seed):
    """LunarLander-like: a static terrain of edges and polygons; dynamic boxes, polygons and circles dropped
    on it and on each other. Fixture userData indexes the port's shape arrays."""
    rng = np.random.default_rng(seed)
    world = B.b2World(gravity=(0, -10))
    world.continuousPhysics = False  # SolveTOI would re-evaluate some manifolds at times of impact
    shape_i, shape_f = shapes.new_shapes(64)
    k = 0
    ground = world.CreateStaticBody(userData=-1)
    xs = np.linspace(-8, 8, 11).astype(np.float32)
    ys = rng.uniform(-0.5, 0.5, 11).astype(np.float32)
    for i in range(10):
        shapes.edge_set(shape_i[k], shape_f[k], xs[i], ys[i], xs[i + 1], ys[i + 1])
        ground.CreateFixture(shape=wheel_shape(shape_i[k], shape_f[k]), userData=k, friction=0.5)
        k += 1
    for x in (-5.0, 3.0):
        pts = np.array([(x, 0.0), (x + 1.5, 0.0), (x + 1.2, 1.0), (x + 0.2, 0.8)], np.float32)
        shapes.polygon_set(shape_i[k], shape_f[k], pts, 4)
        ground.CreateFixture(shape=wheel_shape(shape_i[k], shape_f[k]), userData=k)
        k += 1
    for n in range(14):
        x, y, angle = rng.uniform(-6, 6), rng.uniform(1.5, 7), rng.uniform(-3, 3)
        body = world.CreateDynamicBody(position=(float(x), float(y)), angle=float(angle), userData=n)
        body.linearVelocity = tuple(map(float, rng.uniform(-3, 3, 2)))
        body.angularVelocity = float(rng.uniform(-2, 2))
        kind = rng.integers(3)
        if kind == 0:
            shapes.polygon_set_as_box(shape_i[k], shape_f[k], *rng.uniform(0.2, 0.8, 2).astype(np.float32))
            fixture = body.CreatePolygonFixture(
                box=tuple(map(float, shape_f[k, shapes.VERTICES + 2])), density=1.0, userData=k
            )
        elif kind == 1:
            pts = (rng.uniform(-0.6, 0.6, (6, 2)) + [[0.1, 0]]).astype(np.float32)
            try:
                shapes.polygon_set(shape_i[k], shape_f[k], pts, 6)
                fixture = body.CreateFixture(shape=wheel_shape(shape_i[k], shape_f[k]), density=1.0, userData=k)
            except (AssertionError, ValueError):
                world.DestroyBody(body)
                continue
        else:
            shapes.circle_set(shape_i[k], shape_f[k], F32(rng.uniform(0.15, 0.5)), F32(0), F32(0))
            fixture = body.CreateFixture(shape=wheel_shape(shape_i[k], shape_f[k]), density=1.0, userData=k)
        fixture.friction = 0.3
        k += 1
    return world, shape_i, shape_f


@pytest.mark.parametrize("seed", [0, 1])
def test_stepping_world_manifolds_are_the_ports(seed):
    world, shape_i, shape_f = falling_world(seed)
    touching = 0
    for _ in range(150):
        transforms = {b.userData: xf_array(b.transform) for b in world.bodies}
        awake = {b.userData for b in world.bodies if b.awake and b.type == B.b2_dynamicBody}
        world.Step(1.0 / 50, 6 * 30, 2 * 30)
        for c in world.contacts:
            if not {c.fixtureA.body.userData, c.fixtureB.body.userData} & awake:
                continue  # b2ContactManager::Collide skips a contact of sleeping (or static) bodies
            ka, kb = c.fixtureA.userData, c.fixtureB.userData
            man_f, man_i = mf.new_manifolds()
            COLLIDE[shape_i[ka, 0], shape_i[kb, 0]](
                man_f,
                man_i,
                shape_i[ka],
                shape_f[ka],
                transforms[c.fixtureA.body.userData],
                shape_i[kb],
                shape_f[kb],
                transforms[c.fixtureB.body.userData],
            )
            if c.touching:
                touching += 1
                wm = c.manifold
                assert man_i[mf.POINT_COUNT] == wm.pointCount and man_i[mf.TYPE] == wm.type_
                check_manifold(man_f, man_i, wm)
            elif man_i[mf.POINT_COUNT]:
                assert c.manifold.pointCount == 0  # a contact the broad phase found after this step's solve
    assert touching > 500


globals().update(SWEEPS)  # the slow sweeps: the differential tests above with 5000 examples each
