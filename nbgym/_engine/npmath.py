"""numpy's scalar math, bit for bit, inside compiled kernels: where writing the Python expression is not enough.

Two operations of the reference environments do not compile to what numpy computes:

- ``x ** 2`` on a numpy float (and on a Python float, and ``math.pow``) calls the C library's
  ``pow``/``powf``, which is not always correctly rounded: it differs from ``x * x`` in about one
  case in a thousand. numba (and LLVM, for a constant exponent) compile ``x ** 2`` to ``x * x``.
  ``power`` calls the C library's function itself, under a private symbol name that LLVM does not
  recognise and so cannot rewrite.
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

import numpy as np
from llvmlite import binding, ir
from numba import types
from numba.extending import intrinsic, overload

from nbgym._engine.jit import KERNEL_OPTIONS, kernel

_POW_SYMBOLS = {types.float64: "nbgym_libm_pow", types.float32: "nbgym_libm_powf"}


def _register_libm_symbols() -> None:
    path = ctypes.util.find_library("m") or ctypes.util.find_library("c") or "ucrtbase"
    libm = ctypes.CDLL(path)
    for name, symbol in (("pow", "nbgym_libm_pow"), ("powf", "nbgym_libm_powf")):
        binding.add_symbol(symbol, ctypes.cast(getattr(libm, name), ctypes.c_void_p).value)


_register_libm_symbols()


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


def power(x, y):
    """``x ** y`` as numpy computes it for two numpy floats of one dtype: the C library's ``pow``
    (float64) or ``powf`` (float32), never rewritten to multiplications."""
    return x**y


@overload(power, jit_options=KERNEL_OPTIONS)
def _power_overload(x, y):
    if x in _POW_SYMBOLS and y == x:
        return lambda x, y: _libm_pow(x, y)
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
_SIN_9, _SIN_7, _SIN_5, _SIN_3 = (_f32(h) for h in ("0x1.7d3bbcp-19", "-0x1.a06bbap-13", "0x1.11119ap-07", "-0x1.555556p-03"))
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


@kernel
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
