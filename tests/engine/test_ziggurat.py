"""numpy's ``Generator.standard_normal`` drawn per stream in compiled kernels (nbgym.engine._ziggurat), bit for bit."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbgym.engine import rng, _ziggurat as ziggurat


@numba.njit
def _draw(pcg, buf, out, uniform_every):
    stream = (pcg, buf)
    for k in range(out.shape[0]):
        if uniform_every and k % uniform_every == 0:
            out[k] = rng.random(stream, 0)
        else:
            out[k] = ziggurat.standard_normal(stream, 0)


def _numpy_draws(seed: int, count: int, uniform_every: int) -> tuple[np.ndarray, dict]:
    generator = np.random.default_rng(seed)
    out = np.array(
        [
            generator.random() if uniform_every and k % uniform_every == 0 else generator.standard_normal()
            for k in range(count)
        ]
    )
    return out, generator.bit_generator.state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), count=st.integers(1, 3000), uniform_every=st.integers(0, 7))
def test_standard_normal_matches_numpy(seed, count, uniform_every):
    generator = np.random.default_rng(seed)
    pcg, buf = rng.generator_views(generator)
    out = np.empty(count)
    _draw(pcg, buf, out, uniform_every)
    expected, state = _numpy_draws(seed, count, uniform_every)
    assert np.array_equal(out.view(np.uint64), expected.view(np.uint64))
    assert generator.bit_generator.state == state


@pytest.mark.jit_only
def test_a_million_draws_cover_the_wedges_and_the_tail():
    """Draws outside the layers' rectangles (wedge and tail tests, ~1%) draw more from the stream."""
    generator = np.random.default_rng(2024)
    pcg, buf = rng.generator_views(generator)
    out = np.empty(1_000_000)
    _draw(pcg, buf, out, 0)
    expected = np.random.default_rng(2024).standard_normal(1_000_000)
    assert np.array_equal(out.view(np.uint64), expected.view(np.uint64))
    assert np.abs(out).max() > ziggurat._TAIL_START  # the tail was drawn


def test_tables_are_numpys():
    ki, wi, fi = ziggurat.numpy_tables()
    approx_ki, approx_wi, approx_fi = ziggurat._computed_tables()
    assert ki.dtype == np.uint64 and wi.dtype == fi.dtype == np.float64
    assert ki[1] == 0 and fi[0] == 1.0 and np.all(np.diff(fi) < 0)
    assert np.allclose(wi, approx_wi, rtol=1e-9, atol=0) and np.allclose(fi, approx_fi, rtol=1e-9, atol=0)
