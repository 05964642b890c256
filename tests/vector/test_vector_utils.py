"""Differential tests of nbgym.vector.utils against gymnasium.vector.utils, for every space type.

The same spaces, seeded the same, are batched, iterated, concatenated and written to and read from
shared memory by both libraries; batched spaces must print the same and sample the same values.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import utils as gym_utils
from hypothesis import given
from hypothesis import strategies as st
from helpers.vector_test_envs import CustomSpace, assert_same
from helpers.common import FAST

import nbgym
from nbgym.error import CustomSpaceError
from nbgym.vector import utils as nb_utils

UTILS = {gymnasium: gym_utils, nbgym: nb_utils}


def space_catalogue(lib: ModuleType) -> dict[str, Any]:
    """One space of every type (and several variants), built from ``lib.spaces``."""
    s = lib.spaces
    return {
        "box": s.Box(-1.0, 1.0, (3,), np.float32),
        "box-2d-bounds": s.Box(
            np.array([[0.0, -1.0], [2.0, -3.0]]), np.array([[1.0, 0.0], [5.0, 3.0]]), dtype=np.float64
        ),
        "box-uint8": s.Box(0, 255, (2, 2), np.uint8),
        "box-float16": s.Box(-1.0, 1.0, (2,), np.float16),
        "box-unbounded": s.Box(-np.inf, np.inf, (2,), np.float64),
        "box-scalar": s.Box(0.0, 1.0, (), np.float32),
        "discrete": s.Discrete(5),
        "discrete-start-int32": s.Discrete(7, start=-3, dtype=np.int32),
        "multidiscrete": s.MultiDiscrete([3, 4]),
        "multidiscrete-2d": s.MultiDiscrete([[2, 3], [4, 5]], start=[[0, -1], [2, 0]], dtype=np.int32),
        "multibinary": s.MultiBinary(4),
        "multibinary-2d": s.MultiBinary([2, 3]),
        "tuple": s.Tuple((s.Discrete(3), s.Box(0.0, 1.0, (2,)))),
        "dict": s.Dict({"b": s.Box(0.0, 1.0, (2,)), "a": s.Discrete(3)}),
        "dict-unsorted-nested": s.Dict(
            {"z": s.Tuple((s.MultiBinary(2), s.Discrete(2))), "a": s.Dict({"x": s.Box(-1, 1, (1,))})},
            sort_keys=False,
        ),
        "text": s.Text(5),
        "text-charset": s.Text(4, min_length=2, charset="abc"),
        "graph": s.Graph(node_space=s.Box(0.0, 1.0, (3,)), edge_space=s.Discrete(3)),
        "graph-no-edges": s.Graph(node_space=s.Discrete(4), edge_space=None),
        "sequence": s.Sequence(s.Discrete(3)),
        "sequence-stack": s.Sequence(s.Box(0.0, 1.0, (2,)), stack=True),
        "oneof": s.OneOf((s.Discrete(3), s.Box(0.0, 1.0, (2,)))),
        "tuple-of-text": s.Tuple((s.Text(3), s.Discrete(2))),
    }


NAMES = list(space_catalogue(gymnasium))
FIXED_SIZE = [name for name in NAMES if not name.startswith(("graph", "sequence"))]


def both(name: str, seed: int | None = 42) -> tuple[Any, Any]:
    """The catalogue space ``name`` of gymnasium and of nbgym, seeded with ``seed``."""
    spaces = space_catalogue(gymnasium)[name], space_catalogue(nbgym)[name]
    if seed is not None:
        for space in spaces:
            space.seed(seed)
    return spaces


def normalise(value: Any) -> Any:
    """``value`` with each library's GraphInstance turned into a plain tuple, so the two compare."""
    if type(value).__name__ == "GraphInstance":
        return ("GraphInstance", *(normalise(field) for field in value))
    if isinstance(value, dict):
        return {key: normalise(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(normalise(item) for item in value)
    return value


def same_outcome(gym_call: Callable[[], Any], nb_call: Callable[[], Any], compare_message: bool = True) -> None:
    """Both calls return the same value, or raise the same exception type (and message)."""
    outcomes = []
    for call in (gym_call, nb_call):
        try:
            outcomes.append(("ok", normalise(call())))
        except Exception as e:  # noqa: BLE001 - the outcome is compared
            outcomes.append(("error", type(e).__name__, str(e) if compare_message else ""))
    if outcomes[0][0] == "ok" and outcomes[1][0] == "ok":
        assert_same(outcomes[0][1], outcomes[1][1])
    else:
        assert outcomes[1] == outcomes[0]


# ---------------------------------------------------------------------------------------------------
# batch_space / batch_differing_spaces
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [1, 3])
def test_batch_space_matches_gymnasium(name: str, n: int) -> None:
    gym_space, nb_space = both(name)
    gym_batched, nb_batched = gym_utils.batch_space(gym_space, n), nb_utils.batch_space(nb_space, n)
    assert repr(nb_batched) == repr(gym_batched)
    assert type(nb_batched).__name__ == type(gym_batched).__name__
    for _ in range(3):
        assert_same(normalise(gym_batched.sample()), normalise(nb_batched.sample()))
    # The single space's stream is untouched by batching and by sampling the batched space.
    assert_same(normalise(gym_space.sample()), normalise(nb_space.sample()))


def test_batched_space_does_not_share_the_generator() -> None:
    space = nbgym.spaces.Box(0, 1, (2,), seed=3)
    batched = nb_utils.batch_space(space, 2)
    assert batched.np_random is not space.np_random
    copies = nb_utils.batch_space(nbgym.spaces.Text(3, seed=1), 3)
    generators = [subspace.np_random for subspace in copies.spaces]
    assert len({id(g) for g in generators}) == 3 and all(g is not copies.np_random for g in generators)


def test_batch_space_of_a_non_space_matches_gymnasium() -> None:
    same_outcome(lambda: gym_utils.batch_space(3, 2), lambda: nb_utils.batch_space(3, 2))


@FAST
@given(
    shape=st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple),
    dtype=st.sampled_from([np.float32, np.float64, np.int8, np.uint8, np.int64]),
    n=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_batch_box_property(shape: tuple[int, ...], dtype: type, n: int, seed: int) -> None:
    low, high = (-5, 5) if np.dtype(dtype).kind != "u" else (0, 9)
    gym_space = gymnasium.spaces.Box(low, high, shape, dtype, seed=seed)
    nb_space = nbgym.spaces.Box(low, high, shape, dtype, seed=seed)
    gym_batched, nb_batched = gym_utils.batch_space(gym_space, n), nb_utils.batch_space(nb_space, n)
    assert repr(nb_batched) == repr(gym_batched)
    assert_same(gym_batched.sample(), nb_batched.sample())
    assert_same(
        list(gym_utils.iterate(gym_batched, gym_batched.low)), list(nb_utils.iterate(nb_batched, nb_batched.low))
    )


@FAST
@given(
    nvec=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    n=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    use_start=st.booleans(),
)
def test_batch_multi_discrete_and_discrete_property(nvec: list[int], n: int, seed: int, use_start: bool) -> None:
    start = [-v for v in nvec] if use_start else None
    gym_space = gymnasium.spaces.MultiDiscrete(nvec, start=start, seed=seed)
    nb_space = nbgym.spaces.MultiDiscrete(nvec, start=start, seed=seed)
    gym_batched, nb_batched = gym_utils.batch_space(gym_space, n), nb_utils.batch_space(nb_space, n)
    assert repr(nb_batched) == repr(gym_batched)
    assert_same(gym_batched.sample(), nb_batched.sample())
    gym_discrete = gym_utils.batch_space(
        gymnasium.spaces.Discrete(nvec[0], start=start[0] if start else 0, seed=seed), n
    )
    nb_discrete = nb_utils.batch_space(nbgym.spaces.Discrete(nvec[0], start=start[0] if start else 0, seed=seed), n)
    assert repr(nb_discrete) == repr(gym_discrete)
    assert_same(gym_discrete.sample(), nb_discrete.sample())


def differing_catalogue(lib: ModuleType) -> dict[str, list[Any]]:
    """Lists of compatible spaces that differ in their parameters."""
    s = lib.spaces
    return {
        "box": [s.Box(-i, i + 1, (2,), np.float32) for i in range(3)],
        "discrete": [s.Discrete(3, start=1), s.Discrete(5, dtype=np.int32), s.Discrete(2, start=-2, dtype=np.int8)],
        "multidiscrete": [s.MultiDiscrete([2, 3]), s.MultiDiscrete([4, 5], start=[1, -1])],
        "multibinary": [s.MultiBinary(3), s.MultiBinary(3)],
        "tuple": [s.Tuple((s.Discrete(i + 2), s.Box(0, i + 1, (2,)))) for i in range(2)],
        "dict": [s.Dict({"a": s.Discrete(i + 2), "b": s.MultiBinary(2)}) for i in range(3)],
        "text": [s.Text(3), s.Text(5, charset="xyz")],
        "graph": [s.Graph(s.Box(0, 1, (2,)), None), s.Graph(s.Box(0, 2, (2,)), s.Discrete(2))],
        "sequence": [s.Sequence(s.Discrete(2)), s.Sequence(s.Discrete(3))],
        "oneof": [s.OneOf((s.Discrete(2), s.Discrete(3))), s.OneOf((s.Discrete(4),))],
        "box-dtypes": [s.Box(0, 1, (2,), np.float32), s.Box(0, 1, (2,), np.float64)],
        "box-shapes": [s.Box(0, 1, (2,)), s.Box(0, 1, (3,))],
        "multidiscrete-shapes": [s.MultiDiscrete([2, 3]), s.MultiDiscrete([2])],
        "multidiscrete-dtypes": [s.MultiDiscrete([2], dtype=np.int32), s.MultiDiscrete([2])],
        "multibinary-shapes": [s.MultiBinary(2), s.MultiBinary(3)],
        "dict-keys": [s.Dict({"a": s.Discrete(2)}), s.Dict({"b": s.Discrete(2)})],
        "mixed-types": [s.Discrete(2), s.Box(0, 1, (1,))],
        "empty": [],
    }


@pytest.mark.parametrize("name", list(differing_catalogue(gymnasium)))
def test_batch_differing_spaces_matches_gymnasium(name: str) -> None:
    gym_spaces, nb_spaces = differing_catalogue(gymnasium)[name], differing_catalogue(nbgym)[name]
    for i, (gym_space, nb_space) in enumerate(zip(gym_spaces, nb_spaces)):
        gym_space.seed(10 + i)
        nb_space.seed(10 + i)

    def batch_and_sample(utils: Any, spaces: list[Any]) -> Any:
        batched = utils.batch_differing_spaces(spaces)
        return repr(batched), [batched.sample() for _ in range(3)]

    # The message of mixed types names each library's classes.
    same_outcome(
        lambda: batch_and_sample(gym_utils, gym_spaces),
        lambda: batch_and_sample(nb_utils, nb_spaces),
        compare_message=name != "mixed-types",
    )


def test_batch_differing_spaces_of_unregistered_type() -> None:
    with pytest.raises(TypeError, match="Requires the Space type to have a registered `batch_differing_space`"):
        nb_utils.batch_differing_spaces([CustomSpace(), CustomSpace()])


# ---------------------------------------------------------------------------------------------------
# iterate / concatenate / create_empty_array
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_iterate_batched_samples_matches_gymnasium(name: str) -> None:
    gym_space, nb_space = both(name)
    gym_batched, nb_batched = gym_utils.batch_space(gym_space, 3), nb_utils.batch_space(nb_space, 3)
    gym_sample, nb_sample = gym_batched.sample(), nb_batched.sample()
    same_outcome(
        lambda: list(gym_utils.iterate(gym_batched, gym_sample)), lambda: list(nb_utils.iterate(nb_batched, nb_sample))
    )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fn", [np.zeros, np.ones])
def test_concatenate_and_create_empty_array_match_gymnasium(name: str, fn: Callable[..., np.ndarray]) -> None:
    gym_space, nb_space = both(name)
    assert_same(
        normalise(gym_utils.create_empty_array(gym_space, 3, fn)),
        normalise(nb_utils.create_empty_array(nb_space, 3, fn)),
    )
    gym_items, nb_items = [gym_space.sample() for _ in range(3)], [nb_space.sample() for _ in range(3)]
    gym_out = gym_utils.create_empty_array(gym_space, 3, fn)
    nb_out = nb_utils.create_empty_array(nb_space, 3, fn)
    gym_result = gym_utils.concatenate(gym_space, gym_items, gym_out)
    nb_result = nb_utils.concatenate(nb_space, nb_items, nb_out)
    assert_same(normalise(gym_result), normalise(nb_result))
    if isinstance(nb_out, np.ndarray):
        assert nb_result is nb_out  # written in place
    # The concatenated batch is an element of the batched space (fixed-size spaces).
    if name in FIXED_SIZE and not name.startswith(("text", "oneof", "tuple-of-text")):
        assert nb_utils.batch_space(nb_space, 3).contains(nb_result)


def test_create_empty_array_with_empty_has_the_layout() -> None:
    out = nb_utils.create_empty_array(both("dict-unsorted-nested")[1], 4, np.empty)
    assert list(out) == ["z", "a"]
    assert out["z"][0].shape == (4, 2) and out["z"][0].dtype == np.int8 and out["a"]["x"].shape == (4, 1)


class GymCustomSpace(gymnasium.spaces.Space):
    """gymnasium's counterpart of :class:`CustomSpace`."""


def test_custom_and_invalid_spaces_match_gymnasium() -> None:
    gym_custom, nb_custom = GymCustomSpace(), CustomSpace()
    # gymnasium's CustomSpaceError is another class: compare by name (the messages name the classes).
    same_outcome(
        lambda: list(gym_utils.iterate(gym_custom, [1])),
        lambda: list(nb_utils.iterate(nb_custom, [1])),
        compare_message=False,
    )
    with pytest.raises(CustomSpaceError, match="doesn't have an registered `iterate` function"):
        nb_utils.iterate(nb_custom, [1])
    for function in ("iterate", "concatenate", "create_empty_array", "batch_space"):
        args = {
            "iterate": ("x", [1]),
            "concatenate": ("x", [1], None),
            "create_empty_array": ("x",),
            "batch_space": ("x",),
        }
        same_outcome(
            lambda: getattr(gym_utils, function)(*args[function]),
            lambda: getattr(nb_utils, function)(*args[function]),
        )
    gym_discrete, nb_discrete = both("discrete")
    same_outcome(lambda: gym_utils.iterate(gym_discrete, [1]), lambda: nb_utils.iterate(nb_discrete, [1]))
    gym_box, nb_box = both("box")
    same_outcome(lambda: gym_utils.iterate(gym_box, 3.0), lambda: nb_utils.iterate(nb_box, 3.0))
    assert nb_utils.concatenate(nb_custom, [1, 2], None) == (1, 2)
    assert nb_utils.create_empty_array(nb_custom, 2) is None
    copies = nb_utils.batch_space(nb_custom, 2)
    assert type(copies).__name__ == "Tuple" and len(copies) == 2
    # A Tuple of unregistered subspaces iterates over its items.
    assert list(nb_utils.iterate(copies, (5, 6))) == [5, 6]
    with pytest.raises(CustomSpaceError, match="Could not iterate through"):
        nb_utils.iterate(copies, 5)


# ---------------------------------------------------------------------------------------------------
# Shared memory
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXED_SIZE)
def test_shared_memory_round_trip_matches_gymnasium(name: str) -> None:
    gym_space, nb_space = both(name)
    gym_memory = gym_utils.create_shared_memory(gym_space, n=3)
    nb_memory = nb_utils.create_shared_memory(nb_space, n=3)
    assert type(nb_memory) is type(gym_memory)
    for index in (2, 0, 1):
        gym_utils.write_to_shared_memory(gym_space, index, gym_space.sample(), gym_memory)
        nb_utils.write_to_shared_memory(nb_space, index, nb_space.sample(), nb_memory)
    assert_same(
        gym_utils.read_from_shared_memory(gym_space, gym_memory, n=3),
        nb_utils.read_from_shared_memory(nb_space, nb_memory, n=3),
    )


def test_shared_memory_is_shared_and_uses_the_context() -> None:
    space = nbgym.spaces.Box(0, 1, (2,), np.float16, seed=0)
    memory = nb_utils.create_shared_memory(space, n=2, ctx=multiprocessing.get_context("spawn"))
    view = nb_utils.read_from_shared_memory(space, memory, n=2)
    value = space.sample()
    nb_utils.write_to_shared_memory(space, 1, value, memory)
    np.testing.assert_array_equal(view[1], value)  # the read view sees later writes
    assert view.dtype == np.float16 and view.shape == (2, 2)


@pytest.mark.parametrize("name", ["graph", "sequence"])
def test_dynamic_spaces_cannot_use_shared_memory(name: str) -> None:
    gym_space, nb_space = both(name)
    same_outcome(lambda: gym_utils.create_shared_memory(gym_space), lambda: nb_utils.create_shared_memory(nb_space))


def test_shared_memory_of_custom_and_invalid_spaces() -> None:
    for call in (
        lambda: nb_utils.create_shared_memory(CustomSpace()),
        lambda: nb_utils.read_from_shared_memory(CustomSpace(), None),
        lambda: nb_utils.write_to_shared_memory(CustomSpace(), 0, 1, None),
    ):
        with pytest.raises(CustomSpaceError, match="doesn't have an registered"):
            call()
    same_outcome(lambda: gym_utils.create_shared_memory("x"), lambda: nb_utils.create_shared_memory("x"))
    same_outcome(
        lambda: gym_utils.read_from_shared_memory("x", None), lambda: nb_utils.read_from_shared_memory("x", None)
    )
    same_outcome(
        lambda: gym_utils.write_to_shared_memory("x", 0, 1, None),
        lambda: nb_utils.write_to_shared_memory("x", 0, 1, None),
    )


# ---------------------------------------------------------------------------------------------------
# misc
# ---------------------------------------------------------------------------------------------------


def test_cloudpickle_wrapper_round_trips_closures() -> None:
    offset = 5
    wrapper = nb_utils.CloudpickleWrapper(lambda: offset + 1)
    restored = pickle.loads(pickle.dumps(wrapper))
    assert restored() == 6 and restored.fn() == 6


def test_clear_mpi_env_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("PMI_RANK", "1")
    monkeypatch.setenv("NBGYM_KEEP", "yes")
    with nb_utils.clear_mpi_env_vars():
        assert "OMPI_COMM_WORLD_SIZE" not in os.environ and "PMI_RANK" not in os.environ
        assert os.environ["NBGYM_KEEP"] == "yes"
    assert os.environ["OMPI_COMM_WORLD_SIZE"] == "4" and os.environ["PMI_RANK"] == "1"
