"""Differential tests of nbgym.wrappers.utils against gymnasium.wrappers.utils 1.4.0.

``rescale_box`` and the running statistics are compared on random inputs (hypothesis): the maps, the
new spaces and the statistics must be bit for bit gymnasium's, dtypes and Python types included.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import gymnasium.wrappers.utils as gym_utils
import numpy as np
import pytest
from helpers.core_test_envs import assert_data_equal, outcome
from hypothesis import given
from hypothesis import strategies as st
from helpers.wrappers_test_envs import SPACES, assert_spaces_equal
from helpers.common import FAST

import nbgym
import nbgym.wrappers.utils as nb_utils

# rescale_box builds Boxes of float64 bounds for float32 spaces, and so warn that the bounds lose
# precision; both libraries warn alike (the spaces tests check the warning itself).
pytestmark = pytest.mark.filterwarnings("ignore:.*Box (low|high)'s precision lowered by casting:UserWarning")

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def boxes_and_bounds(draw: st.DrawFn) -> tuple[Any, Any, Any, Any]:
    """A box (float32 or float64, some components unbounded) and new bounds that keep its infinities."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    size = draw(st.integers(1, 4))
    low = np.array([draw(finite) for _ in range(size)])
    high = low + np.array([draw(st.floats(1e-3, 1e3)) for _ in range(size)])
    new_low = np.array([draw(finite) for _ in range(size)])
    new_high = new_low + np.array([draw(st.floats(1e-3, 1e3)) for _ in range(size)])
    for i in range(size):
        if draw(st.booleans()) and draw(st.booleans()):
            low[i] = new_low[i] = -np.inf
        if draw(st.booleans()) and draw(st.booleans()):
            high[i] = new_high[i] = np.inf
    scalar_bounds = draw(st.booleans()) and np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    if scalar_bounds:
        return low.astype(dtype), high.astype(dtype), float(new_low.min()), float(new_low.min()) + 1.5
    return low.astype(dtype), high.astype(dtype), new_low, new_high


@FAST
@given(boxes_and_bounds(), st.integers(0, 2**32 - 1))
def test_rescale_box_matches_gymnasium(bounds: tuple[Any, Any, Any, Any], seed: int) -> None:
    low, high, new_low, new_high = bounds
    gym_box, gym_forward, gym_backward = gym_utils.rescale_box(gymnasium.spaces.Box(low, high), new_low, new_high)
    nb_box, nb_forward, nb_backward = nb_utils.rescale_box(nbgym.spaces.Box(low, high), new_low, new_high)
    assert_spaces_equal(nb_box, gym_box)
    gym_box.seed(seed)
    points = np.stack([gym_box.sample() for _ in range(8)])
    assert_data_equal(nb_forward(points), gym_forward(points))
    assert_data_equal(nb_backward(points), gym_backward(points))
    # One element at a time gives the same as the batch: the maps are elementwise.
    assert_data_equal(nb_backward(points[3]), gym_backward(points[3]))


def test_rescale_box_divides_in_extended_precision() -> None:
    """A float64 box whose gradient rounds differently in float64 than through numpy's long double."""
    box = (98.43357730717892, 100.0198253772771)
    new = (-2.580127763419262, 0.7636625626799303)
    _, gym_forward, _ = gym_utils.rescale_box(gymnasium.spaces.Box(*box, (1,), np.float64), *new)
    _, nb_forward, _ = nb_utils.rescale_box(nbgym.spaces.Box(*box, (1,), np.float64), *new)
    one = np.ones(1)
    assert_data_equal(nb_forward(one), gym_forward(one))


@pytest.mark.parametrize(
    "args",
    [
        ("not a box", 0.0, 1.0),
        ("box", "0", 1.0),
        ("box", 0.0, [1.0, 2.0]),
        ("box", np.zeros(2), 1.0),
        ("box", 1.0, 0.0),
        ("box", 0.0, np.array([1.0, 2.0, np.inf])),
        ("unbounded", -1.0, 1.0),
    ],
)
def test_rescale_box_errors(args: tuple[Any, Any, Any]) -> None:
    kind, new_min, new_max = args
    results = []
    for lib, utils in ((gymnasium, gym_utils), (nbgym, nb_utils)):
        spaces = lib.spaces
        box = {
            "box": spaces.Box(-1.0, 1.0, (3,)),
            "unbounded": spaces.Box(-np.inf, np.inf, (3,)),
            "not a box": spaces.Discrete(3),
        }[kind]
        results.append(outcome(lambda: utils.rescale_box(box, new_min, new_max)))
    assert results[0][0] is not None
    assert results[1] == results[0]


@st.composite
def batches(draw: st.DrawFn) -> np.ndarray:
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    shape = (draw(st.integers(1, 40)), *draw(st.sampled_from([(), (1,), (3,), (2, 2)])))
    scale = draw(st.floats(1e-3, 1e3))
    seed = draw(st.integers(0, 2**32 - 1))
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@FAST
@given(st.lists(batches(), min_size=1, max_size=4), st.sampled_from([np.float32, np.float64]))
def test_running_mean_std_matches_gymnasium(updates: list[np.ndarray], dtype: Any) -> None:
    shape = updates[0].shape[1:]
    gym_rms = gym_utils.RunningMeanStd(shape=shape, dtype=dtype)
    nb_rms = nb_utils.RunningMeanStd(shape=shape, dtype=dtype)
    for batch in updates:
        if batch.shape[1:] != shape:
            continue
        gym_rms.update(batch)
        nb_rms.update(batch)
        assert_data_equal((nb_rms.mean, nb_rms.var, nb_rms.count), (gym_rms.mean, gym_rms.var, gym_rms.count))


def test_update_from_moments_keeps_numpy_types() -> None:
    """A 0-d float64 state and float32 batch moments give numpy float64 scalars, as in gymnasium."""
    args = (np.zeros(()), np.ones(()), 1e-4, np.float32(0.25), np.float32(2.5), 7)
    assert_data_equal(
        nb_utils.update_mean_var_count_from_moments(*args), gym_utils.update_mean_var_count_from_moments(*args)
    )


EXTRA_SPACES = {
    "box_positive": lambda s: s.Box(2.0, 5.0, (2,), np.float32),
    "box_negative": lambda s: s.Box(np.array([-5, -3]), np.array([-1, 4]), dtype=np.int32),
    "text": lambda s: s.Text(8, min_length=3, charset="xyz"),
    "sequence": lambda s: s.Sequence(s.Discrete(3)),
    "sequence_stacked": lambda s: s.Sequence(s.Box(-1.0, 1.0, (2,)), stack=True),
    "graph": lambda s: s.Graph(node_space=s.Box(1.0, 2.0, (3,)), edge_space=s.Discrete(4, start=2)),
    "graph_no_edges": lambda s: s.Graph(node_space=s.Discrete(4), edge_space=None),
    "one_of": lambda s: s.OneOf((s.Discrete(3, start=5), s.Box(-1.0, 1.0, (2,)))),
}


@pytest.mark.parametrize("name", sorted({**SPACES, **EXTRA_SPACES}))
def test_create_zero_array_matches_gymnasium(name: str) -> None:
    factory = {**SPACES, **EXTRA_SPACES}[name]
    gym_zero = gym_utils.create_zero_array(factory(gymnasium.spaces))
    nb_zero = nb_utils.create_zero_array(factory(nbgym.spaces))
    if name.startswith("graph"):
        assert type(nb_zero).__name__ == type(gym_zero).__name__ == "GraphInstance"
        assert_data_equal(tuple(nb_zero), tuple(gym_zero))
    else:
        assert_data_equal(nb_zero, gym_zero)
    assert nb_zero in factory(nbgym.spaces)


def test_create_zero_array_errors() -> None:
    class Custom(nbgym.spaces.Space):
        pass

    class GymCustom(gymnasium.spaces.Space):
        pass

    for zero, custom in ((nb_utils.create_zero_array, Custom()), (gym_utils.create_zero_array, GymCustom())):
        assert outcome(lambda: zero(custom))[0][0] == "CustomSpaceError"
        assert outcome(lambda: zero("box"))[0][0] == "TypeError"
