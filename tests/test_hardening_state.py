"""Silent wrong results found by the hardening review (issue 13), each compared with gymnasium 1.4.0.

Seeds of the compiled vector envs (``np_random_seed``), reset options rejected before any stream
moves, live state attributes (single and vector), NaN propagation and overflow in the kernels, and
Python-list actions of the vector envs.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import nbgym

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def sync_vector_pair(env_id: str, num_envs: int, **kwargs: Any) -> tuple[Any, Any]:
    """nbgym's compiled vector env and gymnasium's sync vector env of ``env_id`` (``kwargs``: the env's)."""
    ours = nbgym.make_vec(env_id, num_envs, **kwargs)
    theirs = gymnasium.make_vec(env_id, num_envs, vectorization_mode="sync", **kwargs)
    return ours, theirs


# --- np_random_seed of a compiled vector env ---------------------------------------------------------


def test_vector_np_random_seed_follows_seeded_resets_like_sync() -> None:
    ours, theirs = sync_vector_pair("Pendulum-v1", 3)
    for seed in (42, [1, None, 3], None, [None, None, None], 2**64 - 2, [2**100, 5, 2**130]):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert ours.np_random_seed == theirs.np_random_seed, seed
    ours.reset(seed=7, options={"reset_mask": np.array([True, False, True])})
    theirs.reset(seed=7, options={"reset_mask": np.array([True, False, True])})
    assert ours.np_random_seed == theirs.np_random_seed == (7, 5, 9)
    ours.step(np.zeros((3, 1), dtype=np.float32))
    theirs.step(np.zeros((3, 1), dtype=np.float32))
    assert ours.np_random_seed == theirs.np_random_seed  # autoreset and steps keep the seeds


def test_vector_np_random_seed_of_unseeded_streams_is_their_entropy() -> None:
    # gymnasium reports the OS entropy of an unseeded env's SeedSequence: reseeding with it replays the stream.
    ours = nbgym.make_vec("CartPole-v1", 2)
    seeds = ours.np_random_seed
    assert all(type(seed) is int and 0 <= seed < 2**128 for seed in seeds) and seeds[0] != seeds[1]
    first_obs, _ = ours.reset()
    assert ours.np_random_seed == seeds  # an unseeded reset keeps them, as gymnasium's sync env does
    replayed, _ = nbgym.make_vec("CartPole-v1", 2).reset(seed=list(seeds))
    np.testing.assert_array_equal(first_obs, replayed)


# --- reset options are validated before anything is reseeded ---------------------------------------


@pytest.mark.parametrize(
    ("env_id", "options", "exception"),
    [
        ("CartPole-v1", {"low": 1.0, "high": -1.0}, ValueError),
        ("Pendulum-v1", {"x_init": "left"}, ValueError),
        ("MountainCar-v0", {"low": -np.inf}, OverflowError),
    ],
)
def test_rejected_reset_options_reseed_nothing(env_id: str, options: dict[str, Any], exception: type) -> None:
    vector = nbgym.make_vec(env_id, 2)
    vector.reset(seed=1)
    seeds, streams = vector.np_random_seed, vector._batch.pcg.copy()
    with pytest.raises(exception):
        vector.reset(seed=99, options=dict(options))
    assert vector.np_random_seed == seeds
    np.testing.assert_array_equal(vector._batch.pcg, streams)

    single = nbgym.make(env_id).unwrapped
    single.reset(seed=1)
    state = single.np_random.bit_generator.state
    with pytest.raises(exception):
        single.reset(seed=99, options=dict(options))
    assert single.np_random.bit_generator.state == state and single.np_random_seed == 1


# --- NaN goes through the clips as through numpy's ---------------------------------------------------


def _same_steps(ours: Any, theirs: Any, actions: list[Any]) -> None:
    for action in actions:
        expected = theirs.step(action)
        result = ours.step(action)
        for mine, their in zip(result[:4], expected[:4]):
            assert type(mine) is type(their)
            np.testing.assert_array_equal(mine, their)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "state", "actions"),
    [
        ("Pendulum-v1", {"g": float("nan")}, None, [np.array([0.5], dtype=np.float32)] * 3),
        ("Pendulum-v1", {}, np.array([0.3, np.nan]), [np.array([0.5], dtype=np.float32)] * 3),
        ("Pendulum-v1", {}, np.array([np.nan, 1.0]), [np.array([-2.5], dtype=np.float32)] * 2),
        ("MountainCar-v0", {}, np.array([-0.5, np.nan]), [2, 0]),
        ("MountainCar-v0", {}, np.array([np.nan, 0.01]), [1, 1]),
        ("MountainCarContinuous-v0", {}, np.array([-0.5, np.nan]), [np.array([0.5], dtype=np.float32)] * 2),
        ("Acrobot-v1", {}, np.array([0.1, 0.2, np.nan, 0.0]), [0, 2]),
    ],
)
def test_nan_state_or_parameter_propagates_like_gymnasium(env_id, kwargs, state, actions) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours, theirs = nbgym.make(env_id, **kwargs).unwrapped, gymnasium.make(env_id, **kwargs).unwrapped
        ours.reset(seed=3)
        theirs.reset(seed=3)
        if state is not None:
            ours.state = state.copy()
            theirs.state = state.copy()
        _same_steps(ours, theirs, actions)
        assert np.isnan(ours.state).any()


def test_nan_parameter_propagates_in_the_vector_env() -> None:
    ours, theirs = sync_vector_pair("Pendulum-v1", 2, g=float("nan"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(ours.reset(seed=5)[0], theirs.reset(seed=5)[0])
        actions = np.full((2, 1), 0.25, dtype=np.float32)
        for _ in range(2):
            expected, result = theirs.step(actions), ours.step(actions)
            for mine, their in zip(result[:4], expected[:4]):
                np.testing.assert_array_equal(mine, their)
        assert np.isnan(result[0][:, 2]).all()


# --- overflow raises where gymnasium's does ---------------------------------------------------------


@pytest.mark.parametrize("action", [np.array([1e200]), [1e200], np.array([-2e154]), [-1.5e154]])
def test_continuous_mountain_car_overflowing_action_raises_like_gymnasium(action: Any) -> None:
    ours, theirs = nbgym.make("MountainCarContinuous-v0").unwrapped, gymnasium.make("MountainCarContinuous-v0").unwrapped
    ours.reset(seed=0)
    theirs.reset(seed=0)
    with pytest.raises(OverflowError):
        theirs.step(action)
    state = ours.state
    with pytest.raises(OverflowError, match="action space's bounds"):
        ours.step(action)
    np.testing.assert_array_equal(ours.state, state)  # nothing moved
    # Just below the overflow, and an infinite action (math.pow(inf, 2) is inf), step as in gymnasium.
    _same_steps(ours, theirs, [np.array([1.3e154]), np.array([np.inf], dtype=np.float32), [-1e150]])


def test_continuous_mountain_car_vector_overflowing_action_raises() -> None:
    ours, theirs = sync_vector_pair("MountainCarContinuous-v0", 2)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    actions = np.array([[0.5], [1e200]])
    with pytest.raises(OverflowError):
        theirs.step(actions)
    with pytest.raises(OverflowError, match="Sub-environment 1"):
        ours.step(actions)
    with pytest.raises(nbgym.error.InvalidAction):
        ours.step(np.array([[0.5], [np.nan]]))


# --- Python-list actions of a vector env: each sub-env sees its element, as in gymnasium's sync env --


def _list_actions(rng: np.random.Generator, kind: str) -> Any:
    values = rng.uniform(-1.2, 1.2, size=2)
    if kind == "lists":
        return [[float(values[0])], [float(values[1])]]
    if kind == "tuples":
        return ((float(values[0]),), (float(values[1]),))
    if kind == "ints":
        return [[int(values[0] > 0)], [-1]]
    if kind == "float32 rows":
        return [values[:1].astype(np.float32), values[1:].astype(np.float32)]
    return [[np.float64(values[0])], [np.float64(values[1])]]


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("kind", ["lists", "tuples", "ints", "float32 rows", "numpy scalars"])
def test_vector_python_list_actions_match_gymnasium(mode: str, kind: str) -> None:
    env_id = "MountainCarContinuous-v0"
    ours = nbgym.make_vec(env_id, 2, autoreset_mode=mode, max_episode_steps=40)
    theirs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(env_id, max_episode_steps=40)] * 2, autoreset_mode=gymnasium.vector.AutoresetMode(mode)
    )
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(ours.reset(seed=4)[0], theirs.reset(seed=4)[0])
    for t in range(90):
        actions = _list_actions(rng, kind)
        expected, result = theirs.step(actions), ours.step(actions)
        for mine, their in zip(result[:4], expected[:4]):
            assert mine.dtype == their.dtype
            np.testing.assert_array_equal(mine, their, err_msg=f"step {t}")
        if mode == "Disabled" and (expected[2] | expected[3]).any():
            mask = expected[2] | expected[3]
            np.testing.assert_array_equal(
                ours.reset(options={"reset_mask": mask.copy()})[0], theirs.reset(options={"reset_mask": mask.copy()})[0]
            )
    # A float64 array after the lists is float64 arithmetic again, in both.
    for _ in range(3):
        actions = rng.uniform(-1, 1, size=(2, 1))
        np.testing.assert_array_equal(ours.step(actions)[0], theirs.step(actions)[0])


def test_vector_actions_of_mixed_kinds_are_refused() -> None:
    ours = nbgym.make_vec("Pendulum-v1", 2)
    ours.reset(seed=0)
    with pytest.raises(nbgym.error.InvalidAction, match="one kind"):
        ours.step([np.array([0.1], dtype=np.float32), [0.2]])
