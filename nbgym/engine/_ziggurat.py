"""numpy's ``Generator.standard_normal()`` per random stream, drawn inside compiled kernels.

numpy draws normals with a 256-layer ziggurat (``random_standard_normal`` in numpy's
``distributions.c``): one 64-bit draw picks a layer (8 bits), a sign (1 bit) and a 52-bit magnitude;
the rare draws outside a layer's rectangle fall back to the wedge or tail test, which draw more. The
layers' tables (``ki``: acceptance thresholds, ``wi``: widths, ``fi``: densities) must be numpy's to
the bit, and numpy does not export them; so this module computes the tables from their definition
(Marsaglia and Tsang's recursion, which lands within a few units in the last place of numpy's) and
takes numpy's own exact values from the compiled ``numpy.random._generator`` module, where they are
the only arrays of 256 values that close to the computed ones. A kernel then reproduces numpy's draws
bit for bit, for the numpy that is installed.

Kept apart from ``rng.py`` so that only environments that draw normals pay for reading the tables.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from nbgym.engine._jit import kernel
from nbgym.engine.rng import next_uint64, random

_LAYERS = 256
_TAIL_START = 3.6541528853610088  # numpy's ziggurat_nor_r: where the tail beyond the last layer begins
_TAIL_START_INVERSE = 0.27366123732975828  # numpy's ziggurat_nor_inv_r
_TWO_POW_52 = 2.0**52


def _computed_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ziggurat's tables from their definition, in float64 (within a few ulps of numpy's).

    Layer ``i`` spans ``[0, x_i)``; every layer, and the base strip with the tail, has the area ``v``.
    """
    r = _TAIL_START
    area = r * math.exp(-0.5 * r * r) + math.sqrt(math.pi / 2) * math.erfc(r / math.sqrt(2))
    base_width = area / math.exp(-0.5 * r * r)
    ki = np.zeros(_LAYERS, dtype=np.uint64)
    wi = np.zeros(_LAYERS)
    fi = np.zeros(_LAYERS)
    ki[0] = int(r / base_width * _TWO_POW_52)
    wi[0] = base_width / _TWO_POW_52
    wi[-1] = r / _TWO_POW_52
    fi[0] = 1.0
    fi[-1] = math.exp(-0.5 * r * r)
    edge = upper = r
    for i in range(_LAYERS - 2, 0, -1):
        edge = math.sqrt(-2.0 * math.log(area / edge + math.exp(-0.5 * edge * edge)))
        ki[i + 1] = int(edge / upper * _TWO_POW_52)
        upper = edge
        fi[i] = math.exp(-0.5 * edge * edge)
        wi[i] = edge / _TWO_POW_52
    return ki, wi, fi


def _find_table(words: np.ndarray, approximation: np.ndarray, close: callable) -> np.ndarray:
    """The one run of ``len(approximation)`` consecutive ``words`` that ``close`` accepts, as a copy."""
    size = len(approximation)
    starts = np.flatnonzero(close(words[: len(words) - size + 1], approximation[0]))
    found = [start for start in starts if close(words[start : start + size], approximation).all()]
    if len(found) != 1:
        raise RuntimeError(
            f"nbgym could not find numpy's ziggurat tables in numpy.random._generator (numpy {np.__version__}): "
            f"found {len(found)} candidates. Please report this with your numpy version."
        )
    return words[found[0] : found[0] + size].copy()


def numpy_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """numpy's ziggurat tables ``(ki uint64, wi float64, fi float64)``, read from its compiled module.

    Raises:
        RuntimeError: If the tables cannot be identified unambiguously.
    """
    from numpy.random import _generator

    content = pathlib.Path(_generator.__file__).read_bytes()
    content = content[: len(content) - len(content) % 8]  # static tables of 8-byte values are 8-byte aligned
    as_uint64 = np.frombuffer(content, dtype="<u8")
    with np.errstate(invalid="ignore", over="ignore"):
        as_float64 = np.frombuffer(content, dtype="<f8")
    ki_approx, wi_approx, fi_approx = _computed_tables()

    def close_int(words, approx):
        return np.abs(words.astype(np.int64) - approx.astype(np.int64)) <= 1024

    def close_float(words, approx):
        with np.errstate(invalid="ignore", over="ignore"):
            return np.abs(words - approx) <= 1e-9 * np.abs(approx)

    return (
        _find_table(as_uint64, ki_approx, close_int),
        _find_table(as_float64, wi_approx, close_float),
        _find_table(as_float64, fi_approx, close_float),
    )


_KI, _WI, _FI = numpy_tables()
_MASK_52 = np.uint64(0x000FFFFFFFFFFFFF)
_U1 = np.uint64(1)
_U8 = np.uint64(8)
_U255 = np.uint64(0xFF)


@kernel
def standard_normal(rng, i):
    """``Generator.standard_normal()``: numpy's ziggurat, drawing from stream ``i`` exactly as numpy draws."""
    while True:
        bits = next_uint64(rng, i)
        layer = np.int64(bits & _U255)
        bits >>= _U8
        negative = (bits & _U1) != 0
        magnitude = (bits >> _U1) & _MASK_52
        x = np.float64(magnitude) * _WI[layer]
        if negative:
            x = -x
        if magnitude < _KI[layer]:
            return x
        if layer == 0:
            while True:
                # numpy draws 1 - U (log1p(-U)) so that log never sees 0.
                xx = -_TAIL_START_INVERSE * math.log1p(-random(rng, i))
                yy = -math.log1p(-random(rng, i))
                if yy + yy > xx * xx:
                    if ((magnitude >> _U8) & _U1) != 0:
                        return -(_TAIL_START + xx)
                    return _TAIL_START + xx
        else:
            if (_FI[layer - 1] - _FI[layer]) * random(rng, i) + _FI[layer] < math.exp(-0.5 * x * x):
                return x
