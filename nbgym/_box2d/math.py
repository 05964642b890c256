"""b2Math: Box2D 2.3's vector, rotation, transform and sweep operations in float32, in the C++ order.

Vectors are pairs of float32 scalars (functions return tuples); a transform is a float32 ``(4,)`` array
``[p.x, p.y, q.s, q.c]``; a sweep a float32 ``(9,)`` array ``[localCenter.x, localCenter.y, c0.x, c0.y,
c.x, c.y, a0, a, alpha0]``. ``sinf``/``cosf``/``atan2f`` are the C library's (as the wheel, built by g++,
calls them): compiled, numba's ``math.sin`` of a float32 lowers to ``llvm.sin.f32``, i.e. ``sinf``;
interpreted, they call libm through ctypes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
from numba import types
from numba.extending import overload

from nbgym._box2d.columns import Columns
from nbgym.engine._jit import OVERLOAD_OPTIONS, borrowing_kernel

# a transform's floats
_xf = Columns()
XF_PX, XF_PY, XF_S, XF_C = _xf.add_each(4)
XF_FLOATS = _xf.end()

# a sweep's floats
_sweep = Columns()
SW_LX, SW_LY, SW_C0X, SW_C0Y, SW_CX, SW_CY, SW_A0, SW_A, SW_ALPHA0 = _sweep.add_each(9)
SWEEP_FLOATS = _sweep.end()

_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)

_libm = ctypes.CDLL(ctypes.util.find_library("m") or ctypes.util.find_library("c"))
_c_sinf, _c_cosf, _c_atan2f = _libm.sinf, _libm.cosf, _libm.atan2f
for _function, _arguments in ((_c_sinf, 1), (_c_cosf, 1), (_c_atan2f, 2)):
    _function.restype = ctypes.c_float
    _function.argtypes = [ctypes.c_float] * _arguments


def sinf(x):
    """libm's ``sinf`` of a float32."""
    return np.float32(_c_sinf(float(x)))


def cosf(x):
    """libm's ``cosf`` of a float32."""
    return np.float32(_c_cosf(float(x)))


def atan2f(y, x):
    """libm's ``atan2f`` of float32s."""
    return np.float32(_c_atan2f(float(y), float(x)))


@overload(sinf, jit_options=OVERLOAD_OPTIONS)
def _sinf_overload(x):
    if x == types.float32:
        return lambda x: math.sin(x)
    return None


@overload(cosf, jit_options=OVERLOAD_OPTIONS)
def _cosf_overload(x):
    if x == types.float32:
        return lambda x: math.cos(x)
    return None


@overload(atan2f, jit_options=OVERLOAD_OPTIONS)
def _atan2f_overload(y, x):
    if y == types.float32 and x == types.float32:
        return lambda y, x: math.atan2(y, x)
    return None


@borrowing_kernel
def sqrtf(x):
    """``b2Sqrt`` (``std::sqrt`` of a float: ``sqrtss``, correctly rounded)."""
    return np.float32(math.sqrt(x))


@borrowing_kernel
def b2abs(a):
    """``b2Abs``: ``a > 0 ? a : -a`` (so the absolute value of +0 is -0, as in Box2D)."""
    return a if a > _ZERO else -a


@borrowing_kernel
def b2min(a, b):
    """``b2Min``: ``a < b ? a : b``."""
    return a if a < b else b


@borrowing_kernel
def b2max(a, b):
    """``b2Max``: ``a > b ? a : b``."""
    return a if a > b else b


@borrowing_kernel
def dot(ax, ay, bx, by):
    """``b2Dot(a, b)``."""
    return ax * bx + ay * by


@borrowing_kernel
def cross(ax, ay, bx, by):
    """``b2Cross(a, b)`` of two vectors."""
    return ax * by - ay * bx


@borrowing_kernel
def cross_vs(ax, ay, s):
    """``b2Cross(a, s)``: ``(s * a.y, -s * a.x)``."""
    return s * ay, -s * ax


@borrowing_kernel
def cross_sv(s, ax, ay):
    """``b2Cross(s, a)``: ``(-s * a.y, s * a.x)``."""
    return -s * ay, s * ax


@borrowing_kernel
def length(x, y):
    """``b2Vec2::Length``."""
    return sqrtf(x * x + y * y)


@borrowing_kernel
def normalize(x, y):
    """``b2Vec2::Normalize``: ``(x, y, length)``; a vector shorter than b2_epsilon stays as it is, length 0."""
    n = sqrtf(x * x + y * y)
    if n < np.float32(1.1920928955078125e-07):
        return x, y, _ZERO
    inv = _ONE / n
    return x * inv, y * inv, n


@borrowing_kernel
def sin_cos(angle):
    """``(sinf(angle), cosf(angle))``, without the calls for an angle of 0: a static body's, whose rotation every
    position iteration of its contacts sets again (a quarter of a BipedalWalker step's calls). ``sinf(±0)`` is ±0 and
    ``cosf(±0)`` is 1, as C requires."""
    if angle == _ZERO:
        return angle, _ONE
    return sinf(angle), cosf(angle)


@borrowing_kernel
def rot_set(angle):
    """``b2Rot::Set(angle)``: ``(s, c)``."""
    return sin_cos(angle)


@borrowing_kernel
def rot_mul(s, c, x, y):
    """``b2Mul(q, v)``."""
    return c * x - s * y, s * x + c * y


@borrowing_kernel
def rot_mul_t(s, c, x, y):
    """``b2MulT(q, v)``."""
    return c * x + s * y, -s * x + c * y


@borrowing_kernel
def xf_mul(xf, x, y):
    """``b2Mul(T, v)`` of a transform array."""
    s = xf[2]
    c = xf[3]
    return (c * x - s * y) + xf[0], (s * x + c * y) + xf[1]


@borrowing_kernel
def xf_mul_t(xf, x, y):
    """``b2MulT(T, v)`` of a transform array."""
    s = xf[2]
    c = xf[3]
    px = x - xf[0]
    py = y - xf[1]
    return c * px + s * py, -s * px + c * py


@borrowing_kernel
def xf_mul_xf(a, b, out):
    """``out = b2Mul(A, B)`` of transform arrays."""
    s = a[2] * b[3] + a[3] * b[2]
    c = a[3] * b[3] - a[2] * b[2]
    x, y = rot_mul(a[2], a[3], b[0], b[1])
    out[0] = x + a[0]
    out[1] = y + a[1]
    out[2] = s
    out[3] = c


@borrowing_kernel
def xf_mul_t_xf(a, b, out):
    """``out = b2MulT(A, B)`` of transform arrays."""
    s = a[3] * b[2] - a[2] * b[3]
    c = a[3] * b[3] + a[2] * b[2]
    x, y = rot_mul_t(a[2], a[3], b[0] - a[0], b[1] - a[1])
    out[0] = x
    out[1] = y
    out[2] = s
    out[3] = c


@borrowing_kernel
def xf_set(xf, px, py, angle):
    """``b2Transform::Set(p, angle)``."""
    xf[0] = px
    xf[1] = py
    xf[2] = sinf(angle)
    xf[3] = cosf(angle)


@borrowing_kernel
def sweep_get_transform(sweep, beta, xf):
    """``b2Sweep::GetTransform(xf, beta)`` into the transform array ``xf``."""
    xf[0], xf[1], xf[2], xf[3] = sweep_transform(sweep, beta)


@borrowing_kernel
def sweep_advance(sweep, alpha):
    """``b2Sweep::Advance(alpha)``."""
    beta = (alpha - sweep[8]) / (_ONE - sweep[8])
    w = _ONE - beta
    sweep[2] = w * sweep[2] + beta * sweep[4]
    sweep[3] = w * sweep[3] + beta * sweep[5]
    sweep[6] = w * sweep[6] + beta * sweep[7]
    sweep[8] = alpha


@borrowing_kernel
def sweep_normalize(sweep):
    """``b2Sweep::Normalize``: a0 into [0, 2 pi) by ``2 pi * floorf(a0 / 2 pi)``, a shifted alike."""
    normalized = sweep_normalized(sweep)
    sweep[6] = normalized[6]
    sweep[7] = normalized[7]


@borrowing_kernel
def sweep_transform(sweep, beta):
    """``b2Sweep::GetTransform(xf, beta)`` returned as a tuple ``(p.x, p.y, q.s, q.c)`` (usable as a transform)."""
    w = _ONE - beta
    px = w * sweep[2] + beta * sweep[4]
    py = w * sweep[3] + beta * sweep[5]
    angle = w * sweep[6] + beta * sweep[7]
    s, c = sin_cos(angle)
    rx, ry = rot_mul(s, c, sweep[0], sweep[1])
    return (px - rx, py - ry, s, c)


@borrowing_kernel
def sweep_normalized(sweep):
    """A copy of the sweep after ``b2Sweep::Normalize``, as a tuple of its 9 floats."""
    two_pi = np.float32(2.0) * np.float32(3.14159265359)
    d = two_pi * np.floor(sweep[6] / two_pi)
    return (sweep[0], sweep[1], sweep[2], sweep[3], sweep[4], sweep[5], sweep[6] - d, sweep[7] - d, sweep[8])


@borrowing_kernel
def copy_to(target, source):
    """``target[:] = source`` for 1-D arrays of one length, element by element: numba's slice assignment makes a
    temporary copy (the arrays might overlap), which a function that borrows its arrays cannot allocate."""
    for k in range(source.shape[0]):
        target[k] = source[k]
