"""numpy's scalar math, bit for bit, inside compiled physics: where writing the Python expression is not enough.

- ``square(x)``: numpy's ``x ** 2`` (the C library's ``pow``, which numba would compile to ``x * x``);
- ``sincos(x)``: ``(np.sin(x), np.cos(x))`` of a float64, with one argument reduction;
- ``remainder(x, y)``: numpy's ``x % y`` of floats;
- ``clip(x, low, high)``: ``np.clip`` of a scalar (NaN passes through, as in numpy);
- ``cos32(x, simd)``, ``sin32(x, simd)``: numpy's float32 ``np.cos``/``np.sin``, with
  ``simd=float32_trig_is_simd()`` (computed in Python, passed in the parameter record).
"""

from nbgym._engine.npmath import clip, cos32, float32_trig_is_simd, remainder, sin32, sincos, square

__all__ = ["clip", "cos32", "float32_trig_is_simd", "remainder", "sin32", "sincos", "square"]
