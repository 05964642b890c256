"""Box2D 2.3's shapes (b2CircleShape, b2EdgeShape, b2PolygonShape) over the port's shape arrays.

A shape is ``shape_i`` int32 ``(4,)`` ``[type, count, hasVertex0, hasVertex3]`` and ``shape_f`` float32
``(SHAPE_ROWS, 2)``: row ``RADIUS`` ``[m_radius, 0]``, row ``CENTROID`` (polygon), rows ``VERTEX0``/``VERTEX3``
(edge), rows ``VERTICES..VERTICES+7`` the vertices (polygon m_vertices; edge m_vertex1, m_vertex2; circle
m_p), rows ``NORMALS..NORMALS+7`` a polygon's normals. Batch arrays add leading ``(rows, shapes)``
dimensions; functions take one shape's views.
"""

from __future__ import annotations

import numpy as np

from nbgym._box2d.columns import Columns
from nbgym._box2d.math import b2max, b2min, cross, dot, normalize, rot_mul, rot_mul_t, sinf, cosf, sqrtf, xf_mul
from nbgym._box2d.settings import MAX_POLYGON_VERTICES
from numba.extending import overload

from nbgym.engine._jit import BORROWING_OPTIONS, borrowing_kernel, kernel

CIRCLE, EDGE, POLYGON = 0, 1, 2  # b2Shape::Type
MAX_VERTICES = MAX_POLYGON_VERTICES
# shape_i columns
_shape_i = Columns()
TYPE, COUNT, HAS_VERTEX0, HAS_VERTEX3 = _shape_i.add_each(4)
SHAPE_INTS = _shape_i.end()
# shape_f rows
_shape_f = Columns()
RADIUS, CENTROID, VERTEX0, VERTEX3 = _shape_f.add_each(4)
VERTICES = _shape_f.add(MAX_VERTICES)
NORMALS = _shape_f.add(MAX_VERTICES)
SHAPE_ROWS = _shape_f.end()

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
_INV3 = np.float32(1.0) / np.float32(3.0)
_PI = np.float32(3.14159265359)
_EPSILON = np.float32(1.1920928955078125e-07)
_POLYGON_RADIUS = np.float32(2.0) * np.float32(0.005)


def new_shapes(*shape: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``(shape_i, shape_f)`` batch arrays of the given leading shape."""
    return np.zeros((*shape, SHAPE_INTS), np.int32), np.zeros((*shape, SHAPE_ROWS, 2), np.float32)


@borrowing_kernel
def _header(si, sf, shape_type, count, radius):
    si[TYPE] = shape_type
    si[COUNT] = count
    si[HAS_VERTEX0] = 0
    si[HAS_VERTEX3] = 0
    sf[RADIUS, 0] = radius


@borrowing_kernel
def circle_set(si, sf, radius, px, py):
    """A b2CircleShape of ``m_radius = radius`` and ``m_p = (px, py)``."""
    _header(si, sf, CIRCLE, 1, radius)
    sf[VERTICES, 0] = px
    sf[VERTICES, 1] = py


@borrowing_kernel
def edge_set(si, sf, v1x, v1y, v2x, v2y):
    """A new b2EdgeShape (radius b2_polygonRadius) after ``Set(v1, v2)`` (no adjacent vertices)."""
    _header(si, sf, EDGE, 2, _POLYGON_RADIUS)
    sf[VERTICES, 0] = v1x
    sf[VERTICES, 1] = v1y
    sf[VERTICES + 1, 0] = v2x
    sf[VERTICES + 1, 1] = v2y


@borrowing_kernel
def edge_set_adjacent(si, sf, has0, v0x, v0y, has3, v3x, v3y):
    """Sets an edge's ``m_vertex0``/``m_hasVertex0`` and ``m_vertex3``/``m_hasVertex3``."""
    si[HAS_VERTEX0] = 1 if has0 else 0
    si[HAS_VERTEX3] = 1 if has3 else 0
    sf[VERTEX0, 0] = v0x
    sf[VERTEX0, 1] = v0y
    sf[VERTEX3, 0] = v3x
    sf[VERTEX3, 1] = v3y


@borrowing_kernel
def _box(si, sf, hx, hy):
    _header(si, sf, POLYGON, 4, _POLYGON_RADIUS)
    v = VERTICES
    sf[v, 0] = -hx
    sf[v, 1] = -hy
    sf[v + 1, 0] = hx
    sf[v + 1, 1] = -hy
    sf[v + 2, 0] = hx
    sf[v + 2, 1] = hy
    sf[v + 3, 0] = -hx
    sf[v + 3, 1] = hy
    n = NORMALS
    sf[n, 0] = _ZERO
    sf[n, 1] = -_ONE
    sf[n + 1, 0] = _ONE
    sf[n + 1, 1] = _ZERO
    sf[n + 2, 0] = _ZERO
    sf[n + 2, 1] = _ONE
    sf[n + 3, 0] = -_ONE
    sf[n + 3, 1] = _ZERO


@borrowing_kernel
def polygon_set_as_box(si, sf, hx, hy):
    """A new b2PolygonShape (radius b2_polygonRadius) after ``SetAsBox(hx, hy)``."""
    _box(si, sf, hx, hy)
    sf[CENTROID, 0] = _ZERO
    sf[CENTROID, 1] = _ZERO


@borrowing_kernel
def polygon_set_as_oriented_box(si, sf, hx, hy, cx, cy, angle):
    """A new b2PolygonShape after ``SetAsBox(hx, hy, center, angle)``."""
    _box(si, sf, hx, hy)
    sf[CENTROID, 0] = cx
    sf[CENTROID, 1] = cy
    s = sinf(angle)
    c = cosf(angle)
    for i in range(4):
        x, y = rot_mul(s, c, sf[VERTICES + i, 0], sf[VERTICES + i, 1])
        sf[VERTICES + i, 0] = x + cx
        sf[VERTICES + i, 1] = y + cy
        x, y = rot_mul(s, c, sf[NORMALS + i, 0], sf[NORMALS + i, 1])
        sf[NORMALS + i, 0] = x
        sf[NORMALS + i, 1] = y


@kernel(counts_references=True)  # it allocates, and borrowing callers (BipedalWalker's terrain) call it
def polygon_set(si, sf, points, count):
    """A new b2PolygonShape after ``Set(points, count)``: gift-wrapping hull, normals, centroid.

    ``points`` is float32 ``(>= count, 2)``; ``3 <= count <= 8`` (fewer than 3 gives ``SetAsBox(1, 1)``,
    as Box2D). Box2D asserts a hull edge longer than b2_epsilon and a positive area: points that violate
    them are the caller's error here too. Points on which Box2D 2.3.0's gift wrapping never closes (it
    then writes past its hull array) raise ``ValueError``.
    """
    if count < 3:
        polygon_set_as_box(si, sf, _ONE, _ONE)
        return
    n = count
    ps = np.empty((MAX_VERTICES, 2), np.float32)
    for i in range(n):
        ps[i, 0] = points[i, 0]
        ps[i, 1] = points[i, 1]
    i0 = 0
    x0 = ps[0, 0]
    for i in range(1, count):
        x = ps[i, 0]
        if x > x0 or (x == x0 and ps[i, 1] < ps[i0, 1]):
            i0 = i
            x0 = x
    hull = np.empty(MAX_VERTICES + 1, np.int64)
    m = 0
    ih = i0
    while True:
        hull[m] = ih
        ie = 0
        for j in range(1, n):
            if ie == ih:
                ie = j
                continue
            h = hull[m]
            rx = ps[ie, 0] - ps[h, 0]
            ry = ps[ie, 1] - ps[h, 1]
            vx = ps[j, 0] - ps[h, 0]
            vy = ps[j, 1] - ps[h, 1]
            c = cross(rx, ry, vx, vy)
            if c < _ZERO:
                ie = j
            if c == _ZERO and vx * vx + vy * vy > rx * rx + ry * ry:
                ie = j
        m += 1
        ih = ie
        if ie == i0:
            break
        if m == n:  # the wrap cycles without returning to i0 (duplicate points): Box2D overruns its hull
            raise ValueError("b2PolygonShape::Set: degenerate points (the hull does not close)")
    _header(si, sf, POLYGON, m, _POLYGON_RADIUS)
    for i in range(m):
        sf[VERTICES + i, 0] = ps[hull[i], 0]
        sf[VERTICES + i, 1] = ps[hull[i], 1]
    for i in range(m):
        i2 = i + 1 if i + 1 < m else 0
        ex = sf[VERTICES + i2, 0] - sf[VERTICES + i, 0]
        ey = sf[VERTICES + i2, 1] - sf[VERTICES + i, 1]
        nx, ny, _ = normalize(_ONE * ey, -_ONE * ex)
        sf[NORMALS + i, 0] = nx
        sf[NORMALS + i, 1] = ny
    # ComputeCentroid (reference point at the origin)
    cx = _ZERO
    cy = _ZERO
    area = _ZERO
    for i in range(m):
        p2x = sf[VERTICES + i, 0]
        p2y = sf[VERTICES + i, 1]
        j = i + 1 if i + 1 < m else 0
        p3x = sf[VERTICES + j, 0]
        p3y = sf[VERTICES + j, 1]
        e1x = p2x - _ZERO
        e1y = p2y - _ZERO
        e2x = p3x - _ZERO
        e2y = p3y - _ZERO
        d = cross(e1x, e1y, e2x, e2y)
        triangle_area = _HALF * d
        area += triangle_area
        k = triangle_area * _INV3
        cx += k * ((_ZERO + p2x) + p3x)
        cy += k * ((_ZERO + p2y) + p3y)
    inv = _ONE / area
    sf[CENTROID, 0] = cx * inv
    sf[CENTROID, 1] = cy * inv


@borrowing_kernel
def compute_mass(si, sf, density):
    """``ComputeMass(massData, density)`` of any shape: ``(mass, center.x, center.y, I)``."""
    t = si[TYPE]
    radius = sf[RADIUS, 0]
    if t == CIRCLE:
        px = sf[VERTICES, 0]
        py = sf[VERTICES, 1]
        mass = density * _PI * radius * radius
        return mass, px, py, mass * (_HALF * radius * radius + dot(px, py, px, py))
    if t == EDGE:
        return (
            _ZERO,
            _HALF * (sf[VERTICES, 0] + sf[VERTICES + 1, 0]),
            _HALF * (sf[VERTICES, 1] + sf[VERTICES + 1, 1]),
            _ZERO,
        )
    count = si[COUNT]
    sx = _ZERO
    sy = _ZERO
    for i in range(count):
        sx += sf[VERTICES + i, 0]
        sy += sf[VERTICES + i, 1]
    inv_count = _ONE / np.float32(count)
    sx *= inv_count
    sy *= inv_count
    cx = _ZERO
    cy = _ZERO
    area = _ZERO
    inertia = _ZERO
    for i in range(count):
        e1x = sf[VERTICES + i, 0] - sx
        e1y = sf[VERTICES + i, 1] - sy
        j = i + 1 if i + 1 < count else 0
        e2x = sf[VERTICES + j, 0] - sx
        e2y = sf[VERTICES + j, 1] - sy
        d = cross(e1x, e1y, e2x, e2y)
        triangle_area = _HALF * d
        area += triangle_area
        k = triangle_area * _INV3
        cx += k * (e1x + e2x)
        cy += k * (e1y + e2y)
        intx2 = e1x * e1x + e2x * e1x + e2x * e2x
        inty2 = e1y * e1y + e2y * e1y + e2y * e2y
        inertia += (np.float32(0.25) * _INV3 * d) * (intx2 + inty2)
    mass = density * area
    inv = _ONE / area
    cx *= inv
    cy *= inv
    mcx = cx + sx
    mcy = cy + sy
    inertia = density * inertia
    inertia += mass * (dot(mcx, mcy, mcx, mcy) - dot(cx, cy, cx, cy))
    return mass, mcx, mcy, inertia


@borrowing_kernel
def compute_aabb(si, sf, xf, aabb):
    """``ComputeAABB(aabb, xf, 0)`` of any shape into ``aabb`` ``[lower.x, lower.y, upper.x, upper.y]``."""
    t = si[TYPE]
    r = sf[RADIUS, 0]
    if t == CIRCLE:
        x, y = rot_mul(xf[2], xf[3], sf[VERTICES, 0], sf[VERTICES, 1])
        px = xf[0] + x
        py = xf[1] + y
        aabb[0] = px - r
        aabb[1] = py - r
        aabb[2] = px + r
        aabb[3] = py + r
        return
    if t == EDGE:
        v1x, v1y = xf_mul(xf, sf[VERTICES, 0], sf[VERTICES, 1])
        v2x, v2y = xf_mul(xf, sf[VERTICES + 1, 0], sf[VERTICES + 1, 1])
        aabb[0] = b2min(v1x, v2x) - r
        aabb[1] = b2min(v1y, v2y) - r
        aabb[2] = b2max(v1x, v2x) + r
        aabb[3] = b2max(v1y, v2y) + r
        return
    lx, ly = xf_mul(xf, sf[VERTICES, 0], sf[VERTICES, 1])
    ux = lx
    uy = ly
    for i in range(1, si[COUNT]):
        vx, vy = xf_mul(xf, sf[VERTICES + i, 0], sf[VERTICES + i, 1])
        lx = b2min(lx, vx)
        ly = b2min(ly, vy)
        ux = b2max(ux, vx)
        uy = b2max(uy, vy)
    aabb[0] = lx - r
    aabb[1] = ly - r
    aabb[2] = ux + r
    aabb[3] = uy + r


@borrowing_kernel
def ray_cast(si, sf, xf, p1x, p1y, p2x, p2y, max_fraction):
    """``RayCast(output, input, xf, 0)`` of any shape: ``(hit, fraction, normal.x, normal.y)`` (zeros if no hit).

    As Box2D 2.3, an edge's normal is not rotated into the world frame (the polygon's and circle's are).
    """
    t = si[TYPE]
    s = xf[2]
    c = xf[3]
    if t == CIRCLE:
        x, y = rot_mul(s, c, sf[VERTICES, 0], sf[VERTICES, 1])
        posx = xf[0] + x
        posy = xf[1] + y
        sx = p1x - posx
        sy = p1y - posy
        radius = sf[RADIUS, 0]
        b = dot(sx, sy, sx, sy) - radius * radius
        rx = p2x - p1x
        ry = p2y - p1y
        cc = dot(sx, sy, rx, ry)
        rr = dot(rx, ry, rx, ry)
        sigma = cc * cc - rr * b
        if sigma < _ZERO or rr < _EPSILON:
            return False, _ZERO, _ZERO, _ZERO
        a = -(cc + sqrtf(sigma))
        if _ZERO <= a and a <= max_fraction * rr:
            a /= rr
            nx, ny, _ = normalize(sx + a * rx, sy + a * ry)
            return True, a, nx, ny
        return False, _ZERO, _ZERO, _ZERO
    q1x, q1y = rot_mul_t(s, c, p1x - xf[0], p1y - xf[1])
    q2x, q2y = rot_mul_t(s, c, p2x - xf[0], p2y - xf[1])
    dx = q2x - q1x
    dy = q2y - q1y
    if t == EDGE:
        v1x = sf[VERTICES, 0]
        v1y = sf[VERTICES, 1]
        v2x = sf[VERTICES + 1, 0]
        v2y = sf[VERTICES + 1, 1]
        ex = v2x - v1x
        ey = v2y - v1y
        nx, ny, _ = normalize(ey, -ex)
        numerator = dot(nx, ny, v1x - q1x, v1y - q1y)
        denominator = dot(nx, ny, dx, dy)
        if denominator == _ZERO:
            return False, _ZERO, _ZERO, _ZERO
        tt = numerator / denominator
        if tt < _ZERO or max_fraction < tt:
            return False, _ZERO, _ZERO, _ZERO
        qx = q1x + tt * dx
        qy = q1y + tt * dy
        rr = dot(ex, ey, ex, ey)
        if rr == _ZERO:
            return False, _ZERO, _ZERO, _ZERO
        along = dot(qx - v1x, qy - v1y, ex, ey) / rr
        if along < _ZERO or _ONE < along:
            return False, _ZERO, _ZERO, _ZERO
        if numerator > _ZERO:
            return True, tt, -nx, -ny
        return True, tt, nx, ny  # Box2D 2.3's edge gives the normal in the edge's frame (not rotated)
    lower = _ZERO
    upper = max_fraction
    index = -1
    for i in range(si[COUNT]):
        nx = sf[NORMALS + i, 0]
        ny = sf[NORMALS + i, 1]
        numerator = dot(nx, ny, sf[VERTICES + i, 0] - q1x, sf[VERTICES + i, 1] - q1y)
        denominator = dot(nx, ny, dx, dy)
        if denominator == _ZERO:
            if numerator < _ZERO:
                return False, _ZERO, _ZERO, _ZERO
        elif denominator < _ZERO and numerator < lower * denominator:
            lower = numerator / denominator
            index = i
        elif denominator > _ZERO and numerator < upper * denominator:
            upper = numerator / denominator
        if upper < lower:
            return False, _ZERO, _ZERO, _ZERO
    if index >= 0:
        wx, wy = rot_mul(s, c, sf[NORMALS + index, 0], sf[NORMALS + index, 1])
        return True, lower, wx, wy
    return False, _ZERO, _ZERO, _ZERO


def proxy(si, sf):
    """``b2DistanceProxy::Set(shape, 0)``: ``(vertices view (count, 2), count, radius)``.

    A plain function (numpy's view from Python), compiled inline into the kernels that call it: a compiled
    function that borrows its arrays would hand Python the whole ``sf`` instead of the view.
    """
    count = si[COUNT]
    return sf[VERTICES : VERTICES + count], count, sf[RADIUS, 0]


@overload(proxy, jit_options=BORROWING_OPTIONS, inline="always")
def _proxy_overload(si, sf):
    return proxy
