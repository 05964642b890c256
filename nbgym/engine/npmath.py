"""numpy's scalar math, bit for bit, inside compiled physics: where writing the Python expression is not enough.

- ``square(x)``: numpy's ``x ** 2`` (the C library's ``pow``, which numba would compile to ``x * x``);
- ``sincos(x)``: ``(np.sin(x), np.cos(x))`` of a float64, with one argument reduction;
- ``remainder(x, y)``: numpy's ``x % y`` of floats;
- ``clip(x, low, high)``: ``np.clip`` of a scalar (NaN passes through, as in numpy);
- ``cos32(x, simd)``, ``sin32(x, simd)``: numpy's float32 ``np.cos``/``np.sin``, with
  ``simd=float32_trig_is_simd()`` (computed in Python, passed in the parameter record).
- ``fma(x, y, z)``: ``x * y + z`` of float64s rounded once (a fused multiply-add), for a physics whose original
  computes in compiled code that fuses (MuJoCo's norms, summed by OpenBLAS with FMA on FMA hardware).

Two operations of the reference environments do not compile to what numpy computes:

- ``x ** 2`` on a numpy float (and on a Python float, and ``math.pow``) calls the C library's
  ``pow``/``powf``, which is not always correctly rounded: it differs from ``x * x`` in about one
  case in a thousand. numba (and LLVM, for a constant exponent) compile ``x ** 2`` to ``x * x``.
  ``square`` calls the C library's function itself, under a private symbol name that LLVM does not
  recognise and so cannot rewrite, whenever its result could differ from ``x * x`` (see ``square``).
- ``np.cos``/``np.sin`` of a float32 run numpy's own SIMD approximation on CPUs with fused
  multiply-add (x86-64 with AVX2 and FMA3, AArch64): a Cody-Waite range reduction and two
  polynomials evaluated with FMA, which differs from the correctly rounded ``cosf`` in about one
  case in a thousand near zero. ``cos32``/``sin32`` evaluate the same operations in the same order,
  with an exact FMA emulated in double precision, so they work in every kernel and without JIT.
  ``float32_trig_is_simd()`` tells whether this numpy uses that path (else it calls ``cosf``/``sinf``,
  which numba's ``np.cos`` of a float32 calls too).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from fractions import Fraction

import numpy as np
from llvmlite import binding, ir
from numba import types
from numba.extending import intrinsic, overload

from nbgym.engine._jit import OVERLOAD_OPTIONS, kernel

__all__ = ["clip", "cos32", "float32_trig_is_simd", "fma", "remainder", "sin32", "sincos", "square"]

_POW_SYMBOLS = {types.float64: "nbgym_libm_pow", types.float32: "nbgym_libm_powf"}


def _register_libm_symbols() -> bool:
    """Registers libm's functions under private names; returns whether ``sincos`` may replace sin and cos."""
    path = ctypes.util.find_library("m") or ctypes.util.find_library("c") or "ucrtbase"
    libm = ctypes.CDLL(path)
    for name, symbol in (("pow", "nbgym_libm_pow"), ("powf", "nbgym_libm_powf")):
        binding.add_symbol(symbol, ctypes.cast(getattr(libm, name), ctypes.c_void_p).value)
    libm_sincos = getattr(libm, "sincos", None)
    if libm_sincos is None:
        return False
    libm_sincos.restype = None
    libm_sincos.argtypes = [ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
    sine, cosine = ctypes.c_double(), ctypes.c_double()
    probe = np.random.default_rng(0)
    for x in [*probe.uniform(-1.0, 1.0, 2000), *probe.uniform(-1e3, 1e3, 2000), 1e22, -3e300, 5e-324]:
        libm_sincos(float(x), ctypes.byref(sine), ctypes.byref(cosine))
        if sine.value != math.sin(x) or cosine.value != math.cos(x):
            return False
    binding.add_symbol("nbgym_libm_sincos", ctypes.cast(libm_sincos, ctypes.c_void_p).value)
    return True


SINCOS_IS_SIN_AND_COS = _register_libm_symbols()
"""Whether this C library's ``sincos`` gives exactly its ``sin`` and ``cos`` (glibc's does: one argument
reduction instead of two); where it does not, or has none, ``sincos`` below calls both."""


@intrinsic
def _libm_pow(typingctx, x, y):
    if x in _POW_SYMBOLS and y == x:
        symbol = _POW_SYMBOLS[x]

        def codegen(context, builder, signature, args):
            float_type = args[0].type
            function = builder.module.globals.get(symbol)
            if function is None:
                function = ir.Function(builder.module, ir.FunctionType(float_type, [float_type, float_type]), symbol)
            return builder.call(function, args)

        return x(x, y), codegen
    return None


@intrinsic
def _fma(typingctx, x, y, z):
    if isinstance(x, types.Float) and x == y == z:

        def codegen(context, builder, signature, args):
            float_type = args[0].type
            fnty = ir.FunctionType(float_type, [float_type] * 3)
            return builder.call(builder.module.declare_intrinsic("llvm.fma", [float_type], fnty), args)

        return x(x, y, z), codegen
    return None


def fma(x, y, z):
    """``x * y + z`` for float64s, rounded once: a fused multiply-add (exact rational arithmetic in
    Python; the ``llvm.fma`` instruction compiled)."""
    return np.float64(Fraction(x) * Fraction(y) + Fraction(z))


@overload(fma, jit_options=OVERLOAD_OPTIONS)
def _fma_overload(x, y, z):
    if x == y == z == types.float64:
        return lambda x, y, z: _fma(x, y, z)
    return None


def square(x):
    """``x ** 2`` as numpy (and Python, and ``math.pow``) computes it for a float32 or float64 scalar:
    the C library's ``pow``/``powf``, never rewritten to a multiplication where that could differ.

    In compiled kernels a float64 square is ``x * x`` when that product's rounding error (exact, by a
    fused multiply-add) is below 0.45 units in the last place: ``pow`` returns the same double then, as
    long as its own error before rounding stays below 0.05 units (glibc's and musl's ``pow``, accurate
    to 0.52 units after rounding, are within 0.0002). Near a rounding tie, and for extreme magnitudes,
    ``pow`` itself is called. float32 squares always call ``powf`` unless the square is exact.
    """
    return x**2


_TIE_MARGIN = 0.45  # in units in the last place: products nearer a rounding tie go to libm
_THREE_QUARTERS_ULP = 0.75 * 2.0**-52  # times a double: 0.75 to 1.5 units in its last place


@overload(square, jit_options=OVERLOAD_OPTIONS)
def _square_overload(x):
    if x == types.float64:

        def square_float64(x):
            product = x * x
            if 1e-150 < abs(x) < 1e150:
                # The unit in the last place of product, exactly: product plus 0.75 to 1.5 of them
                # rounds to the next double.
                ulp = (product + product * _THREE_QUARTERS_ULP) - product
                if abs(_fma(x, x, -product)) < _TIE_MARGIN * ulp:
                    return product
            return _libm_pow(x, 2.0)

        return square_float64
    if x == types.float32:

        def square_float32(x):
            exact = np.float64(x) * np.float64(x)
            rounded = np.float32(exact)
            if rounded == exact:
                return rounded
            return _libm_pow(x, np.float32(2.0))

        return square_float32
    return None


def sincos(x):
    """``(math.sin(x), math.cos(x))`` of a float64, bit for bit, for about the price of one of them."""
    return math.sin(x), math.cos(x)


@intrinsic
def _libm_sincos(typingctx, x):
    if x == types.float64:

        def codegen(context, builder, signature, args):
            double = ir.DoubleType()
            function = builder.module.globals.get("nbgym_libm_sincos")
            if function is None:
                function = ir.Function(
                    builder.module,
                    ir.FunctionType(ir.VoidType(), [double, double.as_pointer(), double.as_pointer()]),
                    "nbgym_libm_sincos",
                )
            sine = builder.alloca(double)
            cosine = builder.alloca(double)
            builder.call(function, [args[0], sine, cosine])
            return context.make_tuple(builder, signature.return_type, [builder.load(sine), builder.load(cosine)])

        return types.UniTuple(types.float64, 2)(x), codegen
    return None


@overload(sincos, jit_options=OVERLOAD_OPTIONS)
def _sincos_overload(x):
    if x == types.float64:
        if SINCOS_IS_SIN_AND_COS:
            return lambda x: _libm_sincos(x)
        return lambda x: (math.sin(x), math.cos(x))
    return None


@kernel
def clip(x, low, high):
    """``np.clip`` of a scalar, bit for bit: a NaN (``x`` or a bound) gives NaN, ``high`` wins over a ``low``
    above it, and ``x`` is kept when it equals a bound (the sign of a zero).

    The shorter ``x if x > low else low`` would turn a NaN ``x`` into the bound: numpy's clip propagates it.
    """
    if x < low or low != low:
        x = low
    if x > high or high != high:
        x = high
    return x


_DIRECT_QUOTIENT_LIMIT = 2.0**52  # beyond, x / y may not hold the integer quotient
_DIRECT_DIVISOR_MIN = 2.0**-960  # below, x - q * y could fall into subnormals


def remainder(x, y):
    """``x % y`` of two float64 (numpy's ``np.remainder``, and Python's ``%``), bit for bit.

    Compiled, it avoids the C library's ``fmod`` that ``%`` calls, which is slow: the truncated
    remainder ``x - n * y`` is exactly representable, so one fused multiply-add computes it exactly
    once the integer quotient ``n`` is known. ``trunc(x / y)`` is ``n``, or one unit further from zero
    when the division rounds up to the next integer, which the remainder's sign then shows. Outside
    the range where that holds (and for infinities, NaN, zero divisors) it is ``%`` itself.
    """
    return x % y


@overload(remainder, jit_options=OVERLOAD_OPTIONS)
def _remainder_overload(x, y):
    if x == types.float64 and y == types.float64:

        def remainder_float64(x, y):
            quotient = x / y
            if not (
                abs(quotient) < _DIRECT_QUOTIENT_LIMIT and _DIRECT_DIVISOR_MIN < abs(y) < math.inf and abs(x) < math.inf
            ):
                return x % y
            whole = float(math.trunc(quotient))
            mod = _fma(-whole, y, x)
            if mod != 0.0 and (mod < 0.0) != (x < 0.0):
                whole -= math.copysign(1.0, quotient)
                mod = _fma(-whole, y, x)
            # numpy's (and Python's) adjustment of fmod to the sign of the divisor, rounding included.
            if mod == 0.0:
                return math.copysign(0.0, y)
            if (y < 0.0) != (mod < 0.0):
                return mod + y
            return mod

        return remainder_float64
    return None


def _f32(hex_literal: str) -> np.float32:
    return np.float32(float.fromhex(hex_literal))


# numpy's constants (numpy/_core/src/umath/loops_trigonometric.dispatch.cpp), exact float32 values.
_TWO_OVER_PI = _f32("0x1.45f306p-1")
_PIO2_HIGH = _f32("-0x1.921fb0p+00")
_PIO2_MED = _f32("-0x1.5110b4p-22")
_PIO2_LOW = _f32("-0x1.846988p-48")
_RINT_MAGIC = _f32("0x1.800000p+23")
_COS_8, _COS_6, _COS_4, _COS_2, _COS_0 = (
    _f32(h) for h in ("0x1.98e616p-16", "-0x1.6c06dcp-10", "0x1.55553cp-05", "-0x1.000000p-01", "0x1.000000p+00")
)
_SIN_9, _SIN_7, _SIN_5, _SIN_3 = (
    _f32(h) for h in ("0x1.7d3bbcp-19", "-0x1.a06bbap-13", "0x1.11119ap-07", "-0x1.555556p-03")
)
_ZERO = np.float32(0.0)
# Beyond these magnitudes numpy calls the C library instead: the reduction loses too much there.
_COS_REDUCTION_LIMIT = np.float32(71476.0625)
_SIN_REDUCTION_LIMIT = np.float32(117435.992)
_TWO_POW_53 = 9007199254740992.0


@kernel
def _fma32(a, b, c):
    """The float32 fused multiply-add ``a * b + c`` rounded once.

    The product of two float32 is exact in float64; the sum is rounded to float64 "to odd" (the
    neighbour with an odd last bit when inexact), which makes the final rounding to float32 the
    correct rounding of the exact result.
    """
    product = np.float64(a) * np.float64(b)
    addend = np.float64(c)
    total = product + addend
    virtual = total - product
    error = (product - (total - virtual)) + (addend - virtual)
    if error != 0.0:
        mantissa, _ = math.frexp(total)
        if np.int64(mantissa * _TWO_POW_53) & 1 == 0:
            total = np.nextafter(total, math.inf if error > 0.0 else -math.inf)
    return np.float32(total)


@kernel(entry=True)
def _simd_sincos32(x, cosine):
    if x != x:
        return x
    if abs(x) > (_COS_REDUCTION_LIMIT if cosine else _SIN_REDUCTION_LIMIT):
        return np.cos(x) if cosine else np.sin(x)
    # The compiler fuses numpy's multiply and add of the rounding into one FMA.
    quadrant = _fma32(x, _TWO_OVER_PI, _RINT_MAGIC) - _RINT_MAGIC
    reduced = _fma32(quadrant, _PIO2_HIGH, x)
    reduced = _fma32(quadrant, _PIO2_MED, reduced)
    reduced = _fma32(quadrant, _PIO2_LOW, reduced)
    squared = reduced * reduced
    cos = _fma32(_COS_8, squared, _COS_6)
    cos = _fma32(cos, squared, _COS_4)
    cos = _fma32(cos, squared, _COS_2)
    cos = _fma32(cos, squared, _COS_0)
    sin = _fma32(_SIN_9, squared, _SIN_7)
    sin = _fma32(sin, squared, _SIN_5)
    sin = _fma32(sin, squared, _SIN_3)
    sin = _fma32(sin, squared, _ZERO)
    sin = _fma32(sin, reduced, reduced)
    octant = np.int64(quadrant) + (1 if cosine else 0)
    result = sin if octant & 1 == 0 else cos
    if octant & 2 == 2:
        result = _ZERO - result
    return result


@kernel
def cos32(x, simd):
    """``np.cos`` of the float32 ``x``: numpy's SIMD approximation if ``simd``, else the C library's ``cosf``."""
    return _simd_sincos32(x, True) if simd else np.cos(x)


@kernel
def sin32(x, simd):
    """``np.sin`` of the float32 ``x``: numpy's SIMD approximation if ``simd``, else the C library's ``sinf``."""
    return _simd_sincos32(x, False) if simd else np.sin(x)


@functools.cache
def float32_trig_is_simd() -> bool:
    """Whether this numpy computes ``np.cos``/``np.sin`` of float32 with its SIMD approximation (pass the
    result to ``cos32``/``sin32``); probed once on values where it and ``cosf`` disagree often."""
    probe = np.random.default_rng(0).uniform(-4.0, 4.0, 256).astype(np.float32)
    emulated = np.array([_simd_sincos32(x, True) for x in probe], dtype=np.float32)
    return bool(np.array_equal(np.cos(probe), emulated))
