"""nbgym._engine.npmath.sincos against the separate sin and cos that numpy and gymnasium compute."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from nbgym._engine import npmath


@njit
def _sincos_many(values, sines, cosines):
    for k in range(values.shape[0]):
        sines[k], cosines[k] = npmath.sincos(values[k])


def _check(values: np.ndarray) -> None:
    sines, cosines = np.empty_like(values), np.empty_like(values)
    _sincos_many(values, sines, cosines)
    np.testing.assert_array_equal(sines, np.sin(values))
    np.testing.assert_array_equal(cosines, np.cos(values))
    np.testing.assert_array_equal(cosines, [math.cos(v) for v in values])


def test_sincos_is_numpys_sin_and_cos_bit_for_bit():
    rng = np.random.default_rng(0)
    _check(np.concatenate([rng.uniform(-0.5, 0.5, 20000), rng.uniform(-100, 100, 20000), [0.0, -0.0, 1e-320, 1e22]]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=50))
def test_sincos_of_any_double(values):
    _check(np.array(values, dtype=np.float64))
