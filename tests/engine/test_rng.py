"""The kernels' random streams against numpy's Generator: same draws, same state, bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from nbgym.engine import rng

RANDOM, UNIFORM, INTEGERS = 0, 1, 2
# Integer ranges that take each of numpy's paths: no draw, 32-bit Lemire (buffered), full 32 bits,
# 64-bit Lemire, and wide ranges where rejection is likely.
SPANS = [1, 2, 3, 10, 13, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40 + 7, 2**62, 2**63 - 200]


@njit
def _draw_program(pcg, buf, row, kinds, float_args, int_args, float_out, int_out):
    stream = (pcg, buf)
    for k in range(kinds.shape[0]):
        if kinds[k] == RANDOM:
            float_out[k] = rng.random(stream, row)
        elif kinds[k] == UNIFORM:
            float_out[k] = rng.uniform(stream, row, float_args[k, 0], float_args[k, 1])
        else:
            int_out[k] = rng.integers(stream, row, int_args[k, 0], int_args[k, 1])


def _program(program_seed: int, length: int):
    r = np.random.default_rng(program_seed)
    kinds = r.integers(0, 3, length)
    float_args = np.zeros((length, 2))
    int_args = np.zeros((length, 2), dtype=np.int64)
    for k in range(length):
        low = r.uniform(-5, 5)
        float_args[k] = (low, low + r.uniform(0, 3))
        int_low = int(r.integers(-100, 100))
        int_args[k] = (int_low, int_low + SPANS[r.integers(0, len(SPANS))])
    return kinds, float_args, int_args


def _numpy_program(generator, kinds, float_args, int_args):
    float_out, int_out = np.zeros(len(kinds)), np.zeros(len(kinds), dtype=np.int64)
    for k, kind in enumerate(kinds):
        if kind == RANDOM:
            float_out[k] = generator.random()
        elif kind == UNIFORM:
            float_out[k] = generator.uniform(float_args[k, 0], float_args[k, 1])
        else:
            int_out[k] = generator.integers(int_args[k, 0], int_args[k, 1])
    return float_out, int_out


def _run(pcg, buf, row, kinds, float_args, int_args):
    float_out, int_out = np.zeros(len(kinds)), np.zeros(len(kinds), dtype=np.int64)
    _draw_program(pcg, buf, row, kinds, float_args, int_args, float_out, int_out)
    return float_out, int_out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), program_seed=st.integers(0, 2**32 - 1))
def test_draws_and_state_match_numpy(seed, program_seed):
    kinds, float_args, int_args = _program(program_seed, 300)
    generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    pcg, buf = rng.new_streams(3)
    pcg[1], buf[1] = rng.generator_rows(np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))))

    expected = _numpy_program(generator, kinds, float_args, int_args)
    got = _run(pcg, buf, 1, kinds, float_args, int_args)

    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert rng.generator_rows(generator) == (pcg[1].tolist(), buf[1].tolist())
    assert not pcg[0].any() and not pcg[2].any(), "a draw touched another sub-environment's stream"


def test_integers_uses_and_leaves_numpys_32_bit_buffer():
    generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(3)))
    pcg, buf = rng.generator_views(generator)
    kinds = np.array([INTEGERS])
    int_args = np.array([[0, 10]])
    _run(pcg, buf, 0, kinds, np.zeros((1, 2)), int_args)
    assert generator.bit_generator.state["has_uint32"] == 1
    _run(pcg, buf, 0, kinds, np.zeros((1, 2)), int_args)
    assert generator.bit_generator.state["has_uint32"] == 0


def test_generator_views_share_one_stream_with_python_draws():
    generator = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7)))
    reference = np.random.Generator(np.random.PCG64(np.random.SeedSequence(7)))
    pcg, buf = rng.generator_views(generator)
    kinds, float_args, int_args = _program(1, 50)

    got_kernel = _run(pcg, buf, 0, kinds, float_args, int_args)
    got_python = [generator.integers(0, 13), generator.random()]
    got_kernel_again = _run(pcg, buf, 0, kinds, float_args, int_args)

    expected = _numpy_program(reference, kinds, float_args, int_args)
    expected_python = [reference.integers(0, 13), reference.random()]
    expected_again = _numpy_program(reference, kinds, float_args, int_args)
    for got, want in [(got_kernel, expected), (got_kernel_again, expected_again)]:
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    assert got_python == expected_python


def test_generator_views_reject_other_bit_generators():
    with pytest.raises(TypeError, match="PCG64"):
        rng.generator_views(np.random.Generator(np.random.MT19937(0)))


def test_entropy_streams_are_seed_sequences_of_their_entropy():
    pcg, buf = rng.new_streams(64)
    buf[:] = 1
    words = rng.entropy_streams(pcg, buf)
    assert len({tuple(row) for row in pcg.tolist()}) == 64
    for i in (0, 63):
        entropy = int(words[i, 0]) | int(words[i, 1]) << 64
        expected = rng.generator_rows(np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy))))
        assert (pcg[i].tolist(), buf[i].tolist()) == expected


@settings(max_examples=50, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**128 - 1), min_size=1, max_size=20), mask_seed=st.integers(0, 2**16))
def test_seed_streams_is_numpys_seed_sequence(seeds, mask_seed):
    mask = np.random.default_rng(mask_seed).random(len(seeds)) < 0.7
    pcg, buf = rng.new_streams(len(seeds))
    buf[:] = 1
    rng.seed_streams(pcg, buf, rng.seed_words(seeds), mask)
    for i, seed in enumerate(seeds):
        if mask[i]:
            expected = rng.generator_rows(np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed))))
            assert (pcg[i].tolist(), buf[i].tolist()) == expected
        else:
            assert not pcg[i].any() and buf[i].tolist() == [1, 1]


def test_seed_streams_edge_seeds():
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 2**64, 2**96, 2**96 - 1, 2**128 - 1]
    pcg, buf = rng.new_streams(len(seeds))
    rng.seed_streams(pcg, buf, rng.seed_words(seeds), np.ones(len(seeds), dtype=bool))
    for i, seed in enumerate(seeds):
        assert (pcg[i].tolist(), buf[i].tolist()) == rng.generator_rows(
            np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        )
