"""MountainCar on the compiled engine against gymnasium 1.4.0 (single and vector env, bit for bit) and against a
plain-NumPy reference of its physics."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.common import MODES
from helpers.classic_control_checks import (
    assert_same_error,
    compare_single,
    compare_vector,
    compare_vector_resets,
    setting,
)
from helpers.toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.envs.classic_control.mountain_car import MountainCarEnv, MountainCarVectorEnv

STEPS = 200 if INTERPRETED else 2000
VECTOR_STEPS = 300 if INTERPRETED else 1000


def momentum_policy(rng: np.random.Generator, observation: np.ndarray) -> int | np.int64:
    """Push along the velocity (reaches the flag in about 100 steps), with random pushes and action types."""
    action = 2 if observation[1] >= 0 else 0
    if rng.random() < 0.15:
        action = rng.integers(0, 3)
    return int(action) if rng.random() < 0.5 else np.int64(action)


def batch_momentum_policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
    actions = np.where(observations[:, 1] >= 0, 2, 0)
    noisy = rng.random(len(actions)) < 0.15
    actions[noisy] = rng.integers(0, 3, noisy.sum())
    return actions


@pytest.mark.parametrize("kwargs", [{}, {"goal_velocity": 0.02}])
def test_make_matches_gymnasium(kwargs):
    terminations = compare_single(
        "MountainCar-v0", momentum_policy, range(3), STEPS, kwargs, reset_options={"low": -1.1, "high": -0.9}
    )
    assert terminations > (0 if INTERPRETED else 10)


def test_bare_env_matches_gymnasium_with_random_actions():
    compare_single("MountainCar-v0", lambda rng, obs: int(rng.integers(0, 3)), [5], STEPS, bare=True)


@pytest.mark.jit_only
def test_make_matches_gymnasium_over_many_seeds():
    compare_single("MountainCar-v0", momentum_policy, range(10, 30), 1000, reset_options={"low": -1.2, "high": 0.4})


@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync(mode):
    terminations, truncations = compare_vector(
        "MountainCar-v0", batch_momentum_policy, 5, mode, 3, VECTOR_STEPS, {"max_episode_steps": 110}
    )
    assert terminations > 0 and truncations > 0


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_at_length(mode):
    compare_vector("MountainCar-v0", batch_momentum_policy, 16, mode, 100, 3000, {"goal_velocity": 0.01})


def test_vector_seeds_and_reset_options_match_gymnasium():
    sample = lambda rng, n: rng.integers(0, 3, n)  # noqa: E731
    vector = compare_vector_resets("MountainCar-v0", {"low": -0.2, "high": 0.3}, sample)
    assert isinstance(vector.unwrapped, MountainCarVectorEnv)


def test_spaces_metadata_and_attributes_match_gymnasium():
    env, reference = MountainCarEnv(goal_velocity=0.1), gymnasium.make("MountainCar-v0", goal_velocity=0.1).unwrapped
    assert repr(env.observation_space) == repr(reference.observation_space)
    assert env.action_space == nbgym.spaces.Discrete(3)
    assert env.metadata == reference.metadata
    for name in ["min_position", "max_position", "max_speed", "goal_position", "goal_velocity", "force", "gravity"]:
        assert getattr(env, name) == getattr(reference, name), name
    for name in ["low", "high"]:
        assert_same_value(getattr(env, name), getattr(reference, name))
    vector = MountainCarVectorEnv(4, goal_velocity=0.1)
    assert repr(vector.single_observation_space) == repr(reference.observation_space)
    assert repr(vector.action_space) == repr(gymnasium.make_vec("MountainCar-v0", 4).action_space)
    assert vector.goal_velocity == 0.1


@pytest.mark.parametrize(
    "changes", [{"force": 0.002, "gravity": 0.002}, {"max_speed": 0.03, "min_position": -0.8}, {"goal_position": 0.1}]
)
def test_changed_attributes_change_the_dynamics_as_in_gymnasium(changes):
    compare_single("MountainCar-v0", momentum_policy, [4], 300, setup=setting(changes))


def test_state_attribute_matches_gymnasium():
    env, reference = MountainCarEnv(), gymnasium.make("MountainCar-v0").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    assert_same_value(env.state, reference.state)
    env.state = reference.state = np.array([-1.19, -0.05])
    assert_same_value(env.step(0), reference.step(0))
    np.testing.assert_array_equal(env.state, reference.state)


@pytest.mark.parametrize("options", [{"low": -0.45}, {"high": "-0.5"}, {"low": -1, "high": 1}, {}, {"other": 1}])
def test_reset_options_match_gymnasium(options):
    env, reference = MountainCarEnv(), gymnasium.make("MountainCar-v0").unwrapped
    assert_same_value(env.reset(seed=3, options=options), reference.reset(seed=3, options=options))
    assert_same_value(env.reset(options=options), reference.reset(options=options))


@pytest.mark.parametrize(
    "options", [{"low": "x"}, {"high": None}, {"low": 0.0, "high": -0.1}, {"low": -np.inf}, {"high": np.nan}]
)
def test_bad_reset_options_raise_as_gymnasium(options):
    env, reference = MountainCarEnv(), gymnasium.make("MountainCar-v0").unwrapped
    assert_same_error(lambda: reference.reset(seed=1, options=options), lambda: env.reset(seed=1, options=options))


@pytest.mark.parametrize("action", [3, -1, 0.5, "1", None, np.array([1]), np.float32(1.0)])
def test_invalid_actions_raise_assertion_like_gymnasium(action):
    env, reference = MountainCarEnv(), gymnasium.make("MountainCar-v0").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    with pytest.raises(AssertionError):
        reference.step(action)
    with pytest.raises(error.InvalidAction, match="invalid"):
        env.step(action)
    assert_same_value(env.step(np.int64(1)), reference.step(np.int64(1)))


@pytest.mark.parametrize("actions", [np.array([0, 3, 1]), np.array([0, 1]), np.array([0.0, 1.0, 2.0])])
def test_vector_rejects_bad_batches_before_anything_moves(actions):
    vector = MountainCarVectorEnv(3)
    vector.reset(seed=0)
    before = vector._batch.state.copy()
    with pytest.raises(error.InvalidAction):
        vector.step(actions)
    np.testing.assert_array_equal(vector._batch.state, before)


def reference_step(
    state: np.ndarray, action: int, goal_velocity: float = 0.0
) -> tuple[tuple[np.float64, np.float64 | int], np.ndarray, float, bool]:
    """The mountain car's step in plain NumPy/Python floats."""
    position, velocity = float(state[0]), float(state[1])
    velocity = float(np.clip(velocity + ((action - 1) * 0.001 + np.cos(3 * position) * -0.0025), -0.07, 0.07))
    position = float(np.clip(position + velocity, -1.2, 0.6))
    stopped = position == -1.2 and velocity < 0
    if stopped:
        velocity = 0.0
    terminated = position >= 0.5 and velocity >= goal_velocity
    # gymnasium's step leaves `state` a tuple of two np.float64, or of one and the int 0 when the wall stops the car.
    state = (np.float64(position), 0 if stopped else np.float64(velocity))
    return state, np.array([position, velocity], dtype=np.float32), -1.0, terminated


@settings(max_examples=50, deadline=None)
@given(
    position=st.floats(-1.3, 0.7),
    velocity=st.floats(-0.1, 0.1),
    action=st.integers(0, 2),
    goal_velocity=st.sampled_from([0.0, 0.01, -0.01]),
)
def test_kernel_matches_numpy_reference(position, velocity, action, goal_velocity):
    env = MountainCarEnv(goal_velocity=goal_velocity)
    env.reset(seed=0)
    env.state = np.array([position, velocity])
    observation, reward, terminated, truncated, info = env.step(action)
    expected_state, expected_observation, expected_reward, expected_terminated = reference_step(
        np.array([position, velocity]), action, goal_velocity
    )
    assert_same_value(env.state, expected_state)
    assert_same_value(observation, expected_observation)
    assert_same_value((reward, terminated, truncated, info), (expected_reward, expected_terminated, False, {}))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), low=st.floats(-2.0, 0.0), span=st.floats(0.0, 2.0))
def test_reset_draws_as_numpy(seed, low, span):
    env = MountainCarEnv()
    env.reset(seed=seed, options={"low": low, "high": low + span})
    assert_same_value(env.state, np.array([np.random.default_rng(seed).uniform(low, low + span), 0.0]))


def test_keys_to_action_are_gymnasiums():
    reference = gymnasium.make("MountainCar-v0").unwrapped
    assert MountainCarEnv().get_keys_to_action() == reference.get_keys_to_action()
