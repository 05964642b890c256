"""Hypothesis property tests of nbgym.spaces, differential against gymnasium 1.4.0 where it is the oracle.

Spaces are drawn as *recipes* (nested tuples) that build the same space with either library.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from typing import Any

import gymnasium.spaces as gs
import gymnasium.spaces.utils as gu
import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_spaces import assert_same, assert_same_outcome, outcome

import nbgym.spaces as ns
import nbgym.spaces.utils as nu
from helpers.common import FAST


FLOAT_DTYPES = (np.float16, np.float32, np.float64)
INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
SHAPES = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def box_recipes(draw: st.DrawFn) -> tuple[Any, ...]:
    """A valid Box: bounds within the dtype's range (infinite where the dtype allows), low <= high."""
    dtype = np.dtype(draw(st.sampled_from(FLOAT_DTYPES + INT_DTYPES + (np.bool_,))))
    shape = draw(SHAPES)
    size = int(np.prod(shape))
    if dtype.kind == "f":
        # Keep finite spans inside float64 so that a uniform draw over [low, high] is defined.
        limit = min(float(np.finfo(dtype).max), 1e300)
        value = st.floats(-limit, limit, allow_nan=False, allow_infinity=False, width=64)
        bound = st.one_of(value, st.just(np.inf))
    elif dtype.kind == "b":
        bound = st.integers(0, 1)
    else:
        info = np.iinfo(dtype)
        # Integer Boxes sample floor(uniform(low, high + 1)) in float64: beyond 2**53 a draw can round up to
        # high + 1 (in gymnasium too), so the magnitudes stay where float64 is exact.
        bound = st.integers(max(int(info.min), -(2**40)), min(int(info.max), 2**40))
        # An infinite bound becomes the dtype's limit through a float64 array, which is exact below int64.
        if dtype.kind == "i" and dtype != np.int64:
            bound = st.one_of(bound, st.just(np.inf))
    pairs = draw(st.lists(st.tuples(bound, bound), min_size=size, max_size=size))
    lows, highs = [], []
    for a, b in pairs:
        if a == np.inf:
            lows.append(-np.inf)
            highs.append(b)
        else:
            lows.append(min(a, b) if b != np.inf else a)
            highs.append(max(a, b) if b != np.inf else b)
    if dtype.kind in "iub" and all(np.isfinite(v) for v in lows + highs):
        low = np.array(lows, dtype=dtype).reshape(shape)
        high = np.array(highs, dtype=dtype).reshape(shape)
    else:
        low = np.array(lows, dtype=np.float64).reshape(shape)
        high = np.array(highs, dtype=np.float64).reshape(shape)
    return ("Box", low, high, dtype)


leaf_recipes = st.one_of(
    box_recipes(),
    st.tuples(
        st.just("Discrete"),
        st.integers(1, 20),
        st.integers(-5, 5),
        st.sampled_from((np.int64, np.int32, np.int16)),
    ),
    st.tuples(
        st.just("MultiDiscrete"),
        st.lists(st.integers(1, 6), min_size=1, max_size=4),
        st.integers(-3, 3),
    ),
    st.tuples(
        st.just("MultiBinary"), st.one_of(st.integers(1, 5), st.lists(st.integers(1, 3), min_size=1, max_size=2))
    ),
    st.tuples(
        st.just("Text"),
        st.integers(0, 4),
        st.integers(0, 4),
        st.text(alphabet="abcdefXYZ019", min_size=1, max_size=6),
    ),
)

space_recipes = st.recursive(
    leaf_recipes,
    lambda children: st.one_of(
        st.tuples(st.just("Tuple"), st.lists(children, max_size=3)),
        st.tuples(st.just("Dict"), st.dictionaries(st.sampled_from("abcdef"), children, max_size=3)),
        st.tuples(st.just("OneOf"), st.lists(children, min_size=1, max_size=3)),
        st.tuples(st.just("Sequence"), children),
    ),
    max_leaves=5,
)


def build(recipe: tuple[Any, ...], S: Any) -> Any:
    """The space of ``recipe`` built with ``S`` (gymnasium.spaces or nbgym.spaces)."""
    kind = recipe[0]
    if kind == "Box":
        _, low, high, dtype = recipe
        # Bounds are copied: gymnasium writes the dtype limit over infinite bounds in place.
        return S.Box(low.copy(), high.copy(), dtype=dtype)
    if kind == "Discrete":
        _, n, start, dtype = recipe
        return S.Discrete(n, start=start, dtype=dtype)
    if kind == "MultiDiscrete":
        _, nvec, start = recipe
        return S.MultiDiscrete(nvec, start=[start] * len(nvec))
    if kind == "MultiBinary":
        return S.MultiBinary(recipe[1])
    if kind == "Text":
        _, a, b, charset = recipe
        return S.Text(max(a, b), min_length=min(a, b), charset=charset)
    if kind == "Tuple":
        return S.Tuple([build(child, S) for child in recipe[1]])
    if kind == "Dict":
        return S.Dict({key: build(child, S) for key, child in recipe[1].items()})
    if kind == "OneOf":
        return S.OneOf([build(child, S) for child in recipe[1]])
    if kind == "Sequence":
        return S.Sequence(build(recipe[1], S))
    raise AssertionError(f"unknown recipe {recipe!r}")


def _quiet(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@FAST
@given(recipe=space_recipes, seed=st.integers(0, 2**64))
def test_samples_match_gymnasium(recipe: tuple[Any, ...], seed: int) -> None:
    ours, theirs = _quiet(lambda: build(recipe, ns)), _quiet(lambda: build(recipe, gs))
    assert repr(ours) == repr(theirs)
    assert_same(ours.seed(seed), theirs.seed(seed))
    for _ in range(3):
        ours_sample, theirs_sample = ours.sample(), theirs.sample()
        assert_same(ours_sample, theirs_sample)
        assert _quiet(lambda s=ours_sample: ours.contains(s))


@FAST
@given(recipe=space_recipes, seed=st.integers(0, 2**32))
def test_flatten_round_trip(recipe: tuple[Any, ...], seed: int) -> None:
    ours, theirs = _quiet(lambda: build(recipe, ns)), _quiet(lambda: build(recipe, gs))
    ours.seed(seed)
    theirs.seed(seed)
    sample, theirs_sample = ours.sample(), theirs.sample()

    def flat(S: Any) -> Any:
        space, x = (ours, sample) if S is ns else (theirs, theirs_sample)
        utils = nu if S is ns else gu
        flattened = _quiet(lambda: utils.flatten(space, x))
        return flattened, utils.unflatten(space, flattened)

    assert_same_outcome(flat)
    status, result = outcome(flat, ns)
    # An empty Tuple / Dict cannot be flattened (nor can it in gymnasium, as compared above).
    if status == "ok" and ours.is_np_flattenable and "OneOf" not in repr(recipe):
        # Without OneOf (whose shared dtype may be lossy) unflatten gives back an element that flattens alike.
        flattened, restored = result
        assert flattened.shape == (nu.flatdim(ours),)
        assert _quiet(lambda: flattened in nu.flatten_space(ours))
        assert _quiet(lambda: ours.contains(restored))
        assert_same(nu.flatten(ours, restored), flattened)


@FAST
@given(recipe=space_recipes, seed=st.integers(0, 2**32))
def test_pickle_round_trip(recipe: tuple[Any, ...], seed: int) -> None:
    space = _quiet(lambda: build(recipe, ns))
    space.seed(seed)
    restored = pickle.loads(pickle.dumps(space))
    assert restored == space and repr(restored) == repr(space)
    expected = copy.deepcopy(space)
    assert_same(restored.sample(), expected.sample())


bound_values = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([np.inf, -np.inf, np.nan, 0, 1, -1, 255, 256, -129, 2**63, -(2**63) - 1]),
)


@FAST
@given(
    low=st.one_of(bound_values, st.lists(bound_values, min_size=1, max_size=3)),
    high=st.one_of(bound_values, st.lists(bound_values, min_size=1, max_size=3)),
    shape=st.one_of(st.none(), st.sampled_from([(1,), (2,), (3,), ()])),
    dtype=st.sampled_from((*FLOAT_DTYPES, *INT_DTYPES, np.bool_)),
    seed=st.integers(0, 2**32),
)
def test_box_constructor_and_samples_match_gymnasium(low: Any, high: Any, shape: Any, dtype: Any, seed: int) -> None:
    def as_bound(value: Any) -> Any:
        return np.array(value, dtype=np.float64) if isinstance(value, list) else value

    def run(S: Any) -> Any:
        space = S.Box(as_bound(low), as_bound(high), shape=shape, dtype=dtype)
        space.seed(seed)
        return repr(space), space.low, space.high, space.bounded_below, space.bounded_above, space.sample()

    with np.errstate(all="ignore"):
        assert_same_outcome(run)


@FAST
@given(
    n=st.one_of(st.integers(-3, 40), st.floats(-1, 5), st.just(np.int32(4))),
    start=st.one_of(st.integers(-50, 50), st.just(np.int64(-2))),
    seed=st.integers(0, 2**32),
    data=st.data(),
)
def test_discrete_masks_match_gymnasium(n: Any, start: Any, seed: int, data: st.DataObject) -> None:
    size = int(n) if isinstance(n, (int, np.integer)) and n > 0 else 1
    mask = np.array(data.draw(st.lists(st.integers(0, 1), min_size=size, max_size=size)), dtype=np.int8)
    weights = np.array(data.draw(st.lists(st.floats(0, 1), min_size=size, max_size=size)), dtype=np.float64)
    probability = weights / weights.sum() if weights.sum() > 0 else weights

    def run(S: Any) -> Any:
        space = S.Discrete(n, start=start, seed=seed)
        return space.sample(mask=mask), space.sample(probability=probability), space.sample(), space.contains(start)

    assert_same_outcome(run)
