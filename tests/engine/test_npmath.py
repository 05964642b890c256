"""nbgym.engine.npmath against what numpy computes: sincos against the separate sin and cos, remainder
against ``%`` (numpy's ``np.remainder``)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from nbgym.engine import npmath


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


@njit
def _remainder_many(values, divisor, out):
    for k in range(values.shape[0]):
        out[k] = npmath.remainder(values[k], divisor)


def _check_remainder(values: np.ndarray, divisor: float) -> None:
    out = np.empty_like(values)
    # numpy warns of NaN results; so does the kernel when interpreted (NUMBA_DISABLE_JIT=1), where it is numpy's %.
    with np.errstate(invalid="ignore", divide="ignore"):
        _remainder_many(values, divisor, out)
        expected = np.remainder(values, divisor)
    # Bit patterns: the sign of a zero remainder counts, and NaN equals NaN.
    np.testing.assert_array_equal(out.view(np.int64), expected.view(np.int64))


def test_remainder_is_numpys_bit_for_bit():
    rng = np.random.default_rng(0)
    # Pendulum's angle normalisation, near multiples of the divisor (where the quotient rounds up), and
    # every special value.
    multiples = np.arange(-60, 60) * (2 * np.pi)
    values = np.concatenate(
        [
            rng.uniform(-100, 100, 20000),
            np.nextafter(multiples, np.inf),
            np.nextafter(multiples, -np.inf),
            multiples,
            rng.uniform(-1e18, 1e18, 2000),
            [0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308, np.inf, -np.inf, np.nan],
        ]
    )
    for divisor in (2 * np.pi, -2 * np.pi, 1.0, 0.1, -3.3, 1e-300, 5e-324, 0.0, -0.0, 7e22, np.inf, -np.inf, np.nan):
        _check_remainder(values, divisor)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=50),
    st.floats(allow_nan=True, allow_infinity=True),
)
def test_remainder_of_any_doubles(values, divisor):
    _check_remainder(np.array(values, dtype=np.float64), divisor)
