"""Differential tests of nbgym.spaces' flatten utilities against gymnasium 1.4.0's gymnasium.spaces.utils."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium.spaces as gs
import gymnasium.spaces.utils as gu
import numpy as np
import pytest
from test_spaces import CATALOG, COMPOSITE, EQUALITY_VARIANTS, SEEDS, assert_same, assert_same_outcome, both

import nbgym.spaces as ns
import nbgym.spaces.utils as nu

FLATTENABLE = [name for name in CATALOG if CATALOG[name](gs).is_np_flattenable]
NOT_FLATTENABLE = [name for name in CATALOG if name not in FLATTENABLE]


def utils_of(S: Any) -> Any:
    return nu if S is ns else gu


def test_flattenable_split_is_not_trivial() -> None:
    assert len(FLATTENABLE) > 20 and len(NOT_FLATTENABLE) >= 8


@pytest.mark.parametrize("name", list(CATALOG))
def test_flatdim_agrees(name: str) -> None:
    assert_same_outcome(lambda S: utils_of(S).flatdim(CATALOG[name](S)))


@pytest.mark.parametrize("name", list(CATALOG))
def test_flatten_space_agrees(name: str) -> None:
    def flat_space(S: Any) -> tuple[str, str, list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            flat = utils_of(S).flatten_space(CATALOG[name](S))
        return type(flat).__name__, repr(flat), [str(w.message) for w in caught]

    assert_same_outcome(flat_space)
    if name == "tuple_empty":
        return  # gymnasium cannot flatten an empty Tuple either (compared above)
    ours, theirs = nu.flatten_space(CATALOG[name](ns)), gu.flatten_space(CATALOG[name](gs))
    assert ours.dtype == theirs.dtype
    if isinstance(theirs, gs.Box):
        assert_same(ours.low, theirs.low)
        assert_same(ours.high, theirs.high)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name", list(CATALOG))
def test_flatten_and_unflatten_agree(name: str, seed: int) -> None:
    ours, theirs = both(CATALOG[name], seed=seed)
    for _ in range(3):
        ours_sample, theirs_sample = ours.sample(), theirs.sample()
        if name == "tuple_empty":
            assert_same_outcome(lambda S: utils_of(S).flatten(CATALOG[name](S), ()))
            continue
        ours_flat, theirs_flat = nu.flatten(ours, ours_sample), gu.flatten(theirs, theirs_sample)
        assert_same(ours_flat, theirs_flat)
        assert_same(nu.unflatten(ours, ours_flat), gu.unflatten(theirs, theirs_flat))
        if name in FLATTENABLE:
            assert ours_flat in nu.flatten_space(ours)
            assert ours_flat.shape == (nu.flatdim(ours),)


def test_discrete_flattens_one_hot() -> None:
    space = ns.Dict(vector=ns.Box(0, 1, shape=(3,)), discrete=ns.Discrete(4))
    assert nu.flatten_space(space).shape == (7,)
    assert nu.flatdim(space) == 7
    assert_same(nu.flatten(ns.Discrete(4), 2), np.array([0, 0, 1, 0]))
    assert_same(nu.flatten(ns.Discrete(3, start=-1), -1), np.array([1, 0, 0]))
    assert_same(nu.unflatten(ns.Discrete(3, start=5), np.array([0, 0, 1])), np.int64(7))


@pytest.mark.parametrize(
    ("builder", "value"),
    [
        (
            lambda S: S.Tuple((S.Box(0, 1, shape=(2,)), S.Box(0, 1, shape=(3,)), S.Discrete(3))),
            ((0.5, 0.25), (1.0, 0.0, 0.2), 1),
        ),
        (lambda S: S.Box(0, 1, shape=(2, 2)), [[0.1, 0.2], [0.3, 0.4]]),
        (lambda S: S.MultiDiscrete([3, 2], start=[1, 0]), np.array([3, 1])),
        (lambda S: S.MultiDiscrete(np.array([[2, 3], [4, 2]])), np.array([[1, 2], [3, 0]])),
        (lambda S: S.MultiBinary([2, 2]), [[1, 0], [0, 1]]),
        (lambda S: S.Text(5, charset="abc"), "cab"),
        (lambda S: S.Text(3, min_length=0, charset="ab"), ""),
        (lambda S: S.OneOf((S.Discrete(2), S.Box(-1, 1, shape=(3,)))), (np.int64(0), np.int64(1))),
        (lambda S: S.OneOf((S.Discrete(2), S.Box(-1, 1, shape=(3,)))), (1, np.array([0.5, -0.5, 0.25], np.float32))),
        (lambda S: S.OneOf((S.Box(0, 1, shape=(1,), dtype=bool), S.Discrete(2), S.Discrete(2))), (2, 1)),
        (lambda S: S.OneOf((S.MultiBinary(2),) * 200), (150, np.array([1, 0], np.int8))),
        (lambda S: S.OneOf((S.Text(2, charset="ab"), S.Box(-1, 1, shape=(1,), dtype=np.int8))), (0, "ba")),
        (
            lambda S: S.Dict({"b": S.Discrete(2), "a": S.Box(0, 3, shape=(1,), dtype=np.int32)}),
            {"a": np.array([2], np.int32), "b": 1},
        ),
        (lambda S: S.Tuple((S.Sequence(S.Discrete(2)), S.Discrete(3))), ((0, 1, 1), 2)),
        (lambda S: S.Sequence(S.Box(0, 1, shape=(2,)), stack=True), np.zeros((3, 2), np.float32)),
        (
            lambda S: S.Graph(S.Box(0, 1, shape=(2,)), S.Discrete(3)),
            ("graph", np.zeros((2, 2), np.float32), np.array([1, 2]), np.array([[0, 1], [1, 0]], np.int32)),
        ),
        (lambda S: S.Graph(S.Discrete(3), None), ("graph", np.array([0, 2, 1]), None, None)),
    ],
)
def test_flatten_examples_agree(builder: Any, value: Any) -> None:
    def run(S: Any) -> Any:
        x = S.GraphInstance(*value[1:]) if isinstance(value, tuple) and value and value[0] == "graph" else value
        space = builder(S)
        flat = utils_of(S).flatten(space, x)
        return flat, utils_of(S).unflatten(space, flat)

    assert_same_outcome(run)


@pytest.mark.parametrize(
    ("builder", "flat", "exc_type", "phrase"),
    [
        (lambda S: S.Discrete(3), np.zeros(3), ValueError, "is not a valid one-hot encoded vector"),
        (lambda S: S.MultiDiscrete([2, 2]), np.zeros(4), ValueError, "is not a concatenation of one-hot encoded"),
        (
            lambda S: S.Tuple((S.Discrete(2),)),
            (np.array([1, 0]),),
            AssertionError,
            "should only unflatten numpy arrays",
        ),
        (lambda S: S.Tuple((S.Sequence(S.Discrete(2)),)), np.zeros(2), AssertionError, "should only unflatten tuples"),
        (lambda S: S.Dict(a=S.Discrete(2)), {"a": np.array([1, 0])}, AssertionError, "x must be a numpy array"),
        (
            lambda S: S.Dict(a=S.Sequence(S.Discrete(2))),
            np.zeros(2),
            AssertionError,
            "should only unflatten dictionary",
        ),
    ],
)
def test_unflatten_bad_input_raises_alike(builder: Any, flat: Any, exc_type: type[Exception], phrase: str) -> None:
    with pytest.raises(exc_type, match=phrase):
        nu.unflatten(builder(ns), flat)
    assert_same_outcome(lambda S: utils_of(S).unflatten(builder(S), flat))


def test_not_flattenable_spaces_raise_alike() -> None:
    for name in NOT_FLATTENABLE:
        assert_same_outcome(lambda S, n=name: utils_of(S).flatdim(CATALOG[n](S)))
    with pytest.raises(ValueError, match="Graph Space has a dynamic size"):
        nu.flatdim(ns.Graph(ns.Discrete(2), None))
    with pytest.raises(ValueError, match="cannot be flattened to a numpy array"):
        nu.flatdim(ns.Sequence(ns.Discrete(2)))
    with pytest.raises(ValueError, match="cannot be flattened to a numpy array"):
        nu.flatdim(ns.Tuple([ns.Sequence(ns.Discrete(2))]))
    with pytest.raises(ValueError, match="cannot be flattened to a numpy array"):
        nu.flatdim(ns.Dict(a=ns.Graph(ns.Discrete(2), None)))
    assert_same_outcome(lambda S: utils_of(S).flatten(S.OneOf([S.Sequence(S.Discrete(2)), S.Discrete(2)]), (1, 0)))


def test_unknown_space_raises_not_implemented() -> None:
    class Custom(ns.Space[int]):
        @property
        def is_np_flattenable(self) -> bool:
            return True

    space = Custom()
    for call in (
        lambda: nu.flatdim(space),
        lambda: nu.flatten(space, 1),
        lambda: nu.unflatten(space, np.zeros(1)),
        lambda: nu.flatten_space(space),
    ):
        with pytest.raises(NotImplementedError, match="Unknown space"):
            call()

    class Unflattenable(Custom):
        @property
        def is_np_flattenable(self) -> bool:
            return False

    with pytest.raises(ValueError, match="cannot be flattened"):
        nu.flatdim(Unflattenable())


def test_utils_module_reexports() -> None:
    for name in ("flatdim", "flatten", "unflatten", "flatten_space", "is_space_dtype_shape_equiv"):
        assert getattr(nu, name) is getattr(ns, name)
    from nbgym.spaces.utils import flatten

    assert flatten is ns.flatten


EQUIV_SPACES = EQUALITY_VARIANTS + [
    lambda S: S.Box(-5, 5, shape=(3,), dtype=np.float32),
    lambda S: S.Box(0, 1, shape=(3,), dtype=np.float32),
    lambda S: S.Discrete(7, start=3),
    lambda S: S.Text(3, min_length=2),
    lambda S: S.Graph(S.Discrete(5), S.Discrete(7)),
    lambda S: S.Sequence(S.Discrete(5)),
    lambda S: S.OneOf([S.Discrete(5)]),
    lambda S: S.Tuple([S.Discrete(5), S.Discrete(3)]),
    lambda S: S.Dict(a=S.Discrete(5)),
]


def test_is_space_dtype_shape_equiv_agrees() -> None:
    results = []
    for first in EQUIV_SPACES:
        for second in EQUIV_SPACES:

            def call(S: Any, a: Any = first, b: Any = second) -> Any:
                return utils_of(S).is_space_dtype_shape_equiv(a(S), b(S))

            assert_same_outcome(call)
            results.append(call(ns))
    assert True in results and False in results


def test_is_space_dtype_shape_equiv_rejects_non_spaces() -> None:
    class Custom(ns.Space[int]):
        pass

    with pytest.raises(NotImplementedError, match="doesn't support Generic Gymnasium Spaces"):
        nu.is_space_dtype_shape_equiv(Custom(), ns.Discrete(2))
    with pytest.raises(TypeError):
        nu.is_space_dtype_shape_equiv(3, ns.Discrete(2))  # type: ignore[arg-type]


def test_flatten_space_keeps_dict_key_order_for_unflattenable_dicts() -> None:
    ours, theirs = both(COMPOSITE["dict_with_graph"])
    assert repr(nu.flatten_space(ours)) == repr(gu.flatten_space(theirs))
    unsorted = lambda S: S.Dict({"z": S.Sequence(S.Discrete(2)), "a": S.Discrete(2)}, sort_keys=False)  # noqa: E731
    assert repr(nu.flatten_space(unsorted(ns))) == repr(gu.flatten_space(unsorted(gs)))
    assert nu.flatten_space(unsorted(ns)).sort_keys is False
