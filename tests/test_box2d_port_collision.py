"""The compiled Box2D port's collision half (nbgym._box2d) against the box2d 2.3.10 wheel, bit for bit."""

from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

B = pytest.importorskip("Box2D")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nbgym._box2d import math as bm  # noqa: E402
from nbgym._box2d import shapes  # noqa: E402

f32 = np.float32
FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def coord(low=-10.0, high=10.0):
    low, high = float(np.float32(low)), float(np.float32(high))
    return st.floats(low, high, width=32, allow_nan=False, allow_infinity=False).map(f32)


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
    try:
        wheel = B.b2PolygonShape(vertices=[(float(x), float(y)) for x, y in points])
    except AssertionError:
        assume(False)
    si, sf = shapes.new_shapes()
    shapes.polygon_set(si, sf, np.array(points, np.float32), n)
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
        same((bm.atan2f(v, f32(0.3)),), (libm.atan2f(float(v), 0.3),))


@FAST
@given(transforms, coord(-2, 2), coord(-2, 2))
def test_transform_mul_matches_wheel(t, x, y):
    xf = transform(*t)
    a = xf_array(xf)
    same(a, (xf.position.x, xf.position.y, xf.q.s, xf.q.c))
    ours = np.zeros(4, np.float32)
    bm.xf_set(ours, *t)
    same(ours, a)
    same(bm.xf_mul(a, x, y), tuple(B.b2Mul(xf, (float(x), float(y)))))
    same(bm.xf_mul_t(a, x, y), tuple(B.b2MulT(xf, (float(x), float(y)))))


@FAST
@given(st.lists(coord(-5, 5), min_size=9, max_size=9), coord(0, 1), coord(0, 1))
def test_sweep_matches_wheel(values, beta, alpha):
    values[8] = f32(min(abs(values[8]) / 10, 0.9))  # alpha0 < 1
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


@FAST
@given(st.one_of(polygons(), boxes()))
def test_polygon_set_matches_wheel(shape):
    si, sf, wheel = shape
    n = si[shapes.COUNT]
    assert n == wheel.vertexCount
    same(sf[shapes.VERTICES : shapes.VERTICES + n].ravel(), np.ravel(wheel.vertices))
    same(sf[shapes.NORMALS : shapes.NORMALS + n].ravel(), np.ravel([tuple(v) for v in wheel.normals]))
    same(sf[shapes.CENTROID], tuple(wheel.centroid))
    same((sf[0, 0],), (wheel.radius,))


@FAST
@given(any_shape, coord(0.1, 10))
def test_compute_mass_matches_wheel(shape, density):
    si, sf, wheel = shape
    m = wheel.getMass(float(density))
    same(shapes.compute_mass(si, sf, density), (m.mass, m.center.x, m.center.y, m.I))


@FAST
@given(any_shape, transforms)
def test_compute_aabb_matches_wheel(shape, t):
    si, sf, wheel = shape
    xf = transform(*t)
    aabb = np.zeros(4, np.float32)
    shapes.compute_aabb(si, sf, xf_array(xf), aabb)
    w = wheel.getAABB(xf, 0)
    same(aabb, (*w.lowerBound, *w.upperBound))


@FAST
@given(any_shape, transforms, st.tuples(coord(), coord(), coord(), coord()), coord(0.2, 1.5))
def test_ray_cast_matches_wheel(shape, t, ray, max_fraction):
    si, sf, wheel = shape
    xf = transform(t[0] / 4, t[1] / 4, t[2])
    out = B.b2RayCastOutput()
    hit = wheel.RayCast(out, B.b2RayCastInput(p1=tuple(map(float, ray[:2])), p2=tuple(map(float, ray[2:])), maxFraction=float(max_fraction)), xf, 0)
    ours = shapes.ray_cast(si, sf, xf_array(xf), *ray, max_fraction)
    assert ours[0] == hit
    if hit:
        same(ours[1:], (out.fraction, *out.normal))
