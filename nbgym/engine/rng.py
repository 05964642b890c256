"""numpy's random draws inside compiled physics, one stream per sub-environment.

Each draw takes the physics' ``rng`` argument and the sub-environment's row ``i``, and reproduces the
numpy ``Generator`` method of the same name bit for bit (the stream advances exactly as numpy's
does): an env seeded with ``reset(seed=s)`` draws what ``np.random.default_rng(s)`` would, and a
vector env's sub-environment ``i`` what ``default_rng(s + i)`` would — which is what makes nbgym's
environments equal to gymnasium's, and results independent of the thread count.

- ``random(rng, i)``: ``Generator.random()``, a float64 in [0, 1);
- ``uniform(rng, i, low, high)``: ``Generator.uniform(low, high)``;
- ``integers(rng, i, low, high)``: ``Generator.integers(low, high)`` (int64, ``high`` excluded);
  ``choice(n)`` of numpy is ``integers(rng, i, 0, n)``;
- ``standard_normal(rng, i)``: ``Generator.standard_normal()`` (numpy's ziggurat); numpy's
  ``normal(loc, scale)`` is ``loc + scale * standard_normal(rng, i)``. Its tables are read on first use;
- ``next_uint64(rng, i)``, ``next_uint32(rng, i)``: the raw bits.

A vector draw of numpy (``uniform(low, high, size=4)``) is that many scalar draws in order.

A stream is numpy's PCG64: what ``np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))`` holds: a
128-bit LCG state and increment, stored as four uint64 ``[state_lo, state_hi, inc_lo, inc_hi]`` in a
row of ``pcg``, and numpy's buffered half of a 64-bit draw, ``[has_uint32, uinteger]`` in a row of
``buf``. Every draw below reproduces the numpy ``Generator`` method of the same name bit for bit and
advances the stream exactly as numpy does, so a kernel env and a gymnasium env seeded alike draw
alike. The single env binds these rows to the memory of its own ``np.random.Generator``
(``generator_views``), so ``env.np_random`` and the kernels share one stream.

Kernels receive a stream as ``rng = (pcg, buf)`` and the index ``i`` of the row to draw from.

The rest of this module (``seed_streams``, ``new_streams``, ``generator_views``...) is how the engine seeds and
holds the streams; a physics only draws.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from nbgym.engine._jit import kernel

__all__ = ["integers", "next_uint32", "next_uint64", "random", "standard_normal", "uniform"]  # noqa: F822 (standard_normal: module __getattr__)

_MASK32 = np.uint64(0xFFFFFFFF)
_MULT_HI = np.uint64(0x2360ED051FC65DA4)
_MULT_LO = np.uint64(0x4385DF649FCCF645)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U11 = np.uint64(11)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_TWO_POW_MINUS_53 = 1.0 / 9007199254740992.0
_UINT32_MAX = np.uint64(0xFFFFFFFF)
_UINT64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


@kernel
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    a_lo = a & _MASK32
    a_hi = a >> _U32
    b_lo = b & _MASK32
    b_hi = b >> _U32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _U32) + (hi_lo & _MASK32) + lo_hi
    return hi_hi + (hi_lo >> _U32) + (cross >> _U32)


@kernel
def _lcg_step(s_lo, s_hi, inc_lo, inc_hi):
    """``state * MULT + inc`` modulo 2**128, as ``(low, high)`` words."""
    new_lo = s_lo * _MULT_LO
    new_hi = _mulhi(s_lo, _MULT_LO) + s_lo * _MULT_HI + s_hi * _MULT_LO
    sum_lo = new_lo + inc_lo
    carry = _ONE if sum_lo < new_lo else _ZERO
    return sum_lo, new_hi + inc_hi + carry


@kernel
def next_uint64(rng, i):
    """numpy's ``PCG64.random_raw()``: advance the LCG, then XSL-RR output of the new state."""
    pcg = rng[0]
    sum_lo, new_hi = _lcg_step(pcg[i, 0], pcg[i, 1], pcg[i, 2], pcg[i, 3])
    pcg[i, 0] = sum_lo
    pcg[i, 1] = new_hi
    value = new_hi ^ sum_lo
    rot = new_hi >> _U58
    return (value >> rot) | (value << ((_ZERO - rot) & _U63))


@kernel
def next_uint32(rng, i):
    """A 32-bit draw, using numpy's buffered upper half of the previous 64-bit draw first."""
    buf = rng[1]
    if buf[i, 0] != 0:
        buf[i, 0] = 0
        return np.uint64(buf[i, 1])
    value = next_uint64(rng, i)
    buf[i, 0] = 1
    buf[i, 1] = np.uint32(value >> _U32)
    return value & _MASK32


@kernel
def random(rng, i):
    """``Generator.random()``: a float64 in [0, 1) from the top 53 bits of a 64-bit draw."""
    return np.float64(next_uint64(rng, i) >> _U11) * _TWO_POW_MINUS_53


@kernel
def uniform(rng, i, low, high):
    """``Generator.uniform(low, high)``: ``low + (high - low) * random()``, as numpy computes it."""
    return low + (high - low) * random(rng, i)


@kernel
def integers(rng, i, low, high):
    """``Generator.integers(low, high)`` (int64, ``high`` exclusive): numpy's Lemire bounded draw.

    Ranges below 2**32 draw 32-bit values (and so use the stream's buffered half); wider ranges
    draw 64-bit values, as numpy's ``random_bounded_uint64_fill`` does.
    """
    span = np.uint64(high - low - 1)
    if span == _ZERO:
        return low
    if span <= _UINT32_MAX:
        if span == _UINT32_MAX:
            return low + np.int64(next_uint32(rng, i))
        span_excl = span + _ONE
        product = next_uint32(rng, i) * span_excl
        leftover = product & _MASK32
        if leftover < span_excl:
            threshold = (_UINT32_MAX - span) % span_excl
            while leftover < threshold:
                product = next_uint32(rng, i) * span_excl
                leftover = product & _MASK32
        return low + np.int64(product >> _U32)
    if span == _UINT64_MAX:
        return low + np.int64(next_uint64(rng, i))
    span_excl = span + _ONE
    draw = next_uint64(rng, i)
    leftover = draw * span_excl
    if leftover < span_excl:
        threshold = (_UINT64_MAX - span) % span_excl
        while leftover < threshold:
            draw = next_uint64(rng, i)
            leftover = draw * span_excl
    return low + np.int64(_mulhi(draw, span_excl))


_LOW64 = (1 << 64) - 1

# numpy's SeedSequence constants (numpy/random/bit_generator.pyx).
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_U16 = np.uint64(16)
_POOL_SIZE = 4


@kernel
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix`` in 32-bit arithmetic; returns ``(value, next hash_const)``."""
    value = (value ^ hash_const) & _MASK32
    hash_const = (hash_const * _MULT_A) & _MASK32
    value = (value * hash_const) & _MASK32
    return value ^ (value >> _U16), hash_const


@kernel
def _mix(x, y):
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _U16)


@kernel(entry=True)
def seed_streams(pcg, buf, seeds, mask):
    """Row ``i`` becomes the stream of ``PCG64(SeedSequence(seed))`` where ``mask[i]``, as numpy seeds it;
    ``seeds[i]`` holds the seed's low and high 64 bits (see ``seed_words``).

    numpy's algorithm, for seeds below 2**128: the seed's 32-bit words are hash-mixed into a pool of
    four words, which yields four 64-bit words; the first two are the 128-bit initial state, the
    last two the stream selector, installed by PCG64's ``set_seed``. About a thousand times faster
    than building the numpy objects, for large batches.
    """
    entropy = np.zeros(_POOL_SIZE, dtype=np.uint64)
    pool = np.zeros(_POOL_SIZE, dtype=np.uint64)
    words = np.zeros(2 * _POOL_SIZE, dtype=np.uint64)
    for i in range(seeds.shape[0]):
        if not mask[i]:
            continue
        entropy[0] = seeds[i, 0] & _MASK32
        entropy[1] = seeds[i, 0] >> _U32
        entropy[2] = seeds[i, 1] & _MASK32
        entropy[3] = seeds[i, 1] >> _U32
        # SeedSequence takes an int's 32-bit words up to its highest non-zero one (at least one word).
        num_words = _POOL_SIZE
        while num_words > 1 and entropy[num_words - 1] == _ZERO:
            num_words -= 1
        hash_const = _INIT_A
        for k in range(_POOL_SIZE):
            pool[k], hash_const = _hashmix(entropy[k] if k < num_words else _ZERO, hash_const)
        for src in range(_POOL_SIZE):
            for dst in range(_POOL_SIZE):
                if src != dst:
                    mixed, hash_const = _hashmix(pool[src], hash_const)
                    pool[dst] = _mix(pool[dst], mixed)
        hash_const = _INIT_B
        for k in range(2 * _POOL_SIZE):
            value = (pool[k % _POOL_SIZE] ^ hash_const) & _MASK32
            hash_const = (hash_const * _MULT_B) & _MASK32
            value = (value * hash_const) & _MASK32
            words[k] = value ^ (value >> _U16)
        init_hi = words[0] | (words[1] << _U32)
        init_lo = words[2] | (words[3] << _U32)
        seq_hi = words[4] | (words[5] << _U32)
        seq_lo = words[6] | (words[7] << _U32)
        inc_hi = (seq_hi << _ONE) | (seq_lo >> _U63)
        inc_lo = (seq_lo << _ONE) | _ONE
        s_lo, s_hi = _lcg_step(_ZERO, _ZERO, inc_lo, inc_hi)
        sum_lo = s_lo + init_lo
        carry = _ONE if sum_lo < s_lo else _ZERO
        s_lo, s_hi = _lcg_step(sum_lo, s_hi + init_hi + carry, inc_lo, inc_hi)
        pcg[i, 0] = s_lo
        pcg[i, 1] = s_hi
        pcg[i, 2] = inc_lo
        pcg[i, 3] = inc_hi
        buf[i, 0] = 0
        buf[i, 1] = 0


def generator_rows(generator: np.random.Generator) -> tuple[list[int], list[int]]:
    """The ``pcg`` and ``buf`` rows holding a PCG64 generator's current state."""
    state = generator.bit_generator.state
    lcg, inc = state["state"]["state"], state["state"]["inc"]
    return [lcg & _LOW64, lcg >> 64, inc & _LOW64, inc >> 64], [state["has_uint32"], state["uinteger"]]


def generator_of_rows(pcg: np.ndarray, buf: np.ndarray) -> np.random.Generator:
    """A new PCG64 generator in the state of the ``pcg`` and ``buf`` rows (``generator_rows``' inverse): a copy."""
    lcg = int(pcg[0]) | int(pcg[1]) << 64
    inc = int(pcg[2]) | int(pcg[3]) << 64
    bit_generator = np.random.PCG64()
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": lcg, "inc": inc},
        "has_uint32": int(buf[0]),
        "uinteger": int(buf[1]),
    }
    return np.random.Generator(bit_generator)


MAX_KERNEL_SEED = 2**128
"""Seeds below this are seeded by ``seed_streams``; numpy takes any non-negative int (see ``generator_rows``)."""


def seed_words(seeds: list[int]) -> np.ndarray:
    """The ``(len(seeds), 2)`` uint64 array of each seed's low and high 64 bits, as ``seed_streams`` reads them.

    Args:
        seeds: Non-negative ints below ``MAX_KERNEL_SEED``.
    """
    return np.array([(seed & _LOW64, seed >> 64) for seed in seeds], dtype=np.uint64).reshape(len(seeds), 2)


def entropy_streams(pcg: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """Seed every row from fresh OS entropy, as an unseeded ``np.random.SeedSequence()`` does.

    Returns:
        The 128-bit entropy of each row, as ``seed_streams`` reads it: ``SeedSequence(entropy)`` is the
        row's stream, as ``SeedSequence().entropy`` is the seed gymnasium reports for an unseeded env.
    """
    words = np.random.default_rng().integers(0, 2**64, size=(pcg.shape[0], 2), dtype=np.uint64, endpoint=False)
    seed_streams(pcg, buf, words, np.ones(pcg.shape[0], dtype=np.bool_))
    return words


def new_streams(num_envs: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed ``pcg`` (num_envs, 4) uint64 and ``buf`` (num_envs, 2) uint32 arrays."""
    return np.zeros((num_envs, 4), dtype=np.uint64), np.zeros((num_envs, 2), dtype=np.uint32)


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _Memory:
    """Raw memory presented to numpy through the array interface (no copy; numpy keeps this alive)."""

    __slots__ = ("__array_interface__",)

    def __init__(self, address: int, shape: tuple[int, ...], typestr: str) -> None:
        self.__array_interface__ = {"data": (address, False), "shape": shape, "typestr": typestr, "version": 3}


_layout_checked = False


def generator_views(generator: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``pcg`` (1, 4) and ``buf`` (1, 2) arrays that are live views of a PCG64 generator's memory.

    Kernels drawing through these views advance ``generator`` itself, and draws made from
    ``generator`` in Python are seen by the kernels: there is one stream, not two to keep in sync.
    The caller must keep ``generator`` alive as long as the views. (numpy's ``bitgen_t`` starts with
    a pointer to its ``pcg64_state``: a pointer to the 128-bit state and increment, then
    ``has_uint32`` and ``uinteger``.)

    Raises:
        TypeError: If ``generator`` is not driven by a ``PCG64`` bit generator.
        RuntimeError: If numpy's PCG64 memory layout is not the one these views assume.
    """
    global _layout_checked
    bit_generator = generator.bit_generator
    if type(bit_generator) is not np.random.PCG64:
        raise TypeError(
            f"nbgym's compiled environments draw numpy's PCG64 streams; np_random must be a Generator over "
            f"np.random.PCG64, got one over {type(bit_generator).__name__}."
        )
    bitgen_address = _capsule_pointer(bit_generator.capsule, b"BitGenerator")
    state_address = ctypes.c_void_p.from_address(bitgen_address).value
    lcg_address = ctypes.c_void_p.from_address(state_address).value
    pcg = np.asarray(_Memory(lcg_address, (1, 4), "<u8"))
    buf = np.asarray(_Memory(state_address + 8, (1, 2), "<u4"))
    if not _layout_checked:
        # The layout is the numpy build's: checking it once per process is enough.
        if (pcg[0].tolist(), buf[0].tolist()) != generator_rows(generator):
            raise RuntimeError(
                "numpy's PCG64 state is not laid out as nbgym expects (128-bit words, low half first); "
                "please report this with your platform and numpy version."
            )
        _layout_checked = True
    return pcg, buf


def __getattr__(name: str) -> Any:
    # standard_normal's module reads numpy's ziggurat tables: only environments that draw normals pay for it.
    if name == "standard_normal":
        from nbgym.engine._ziggurat import standard_normal

        return standard_normal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
