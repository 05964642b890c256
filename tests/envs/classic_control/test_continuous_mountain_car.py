"""MountainCarContinuous on the compiled engine against gymnasium 1.4.0 (single and vector env, bit for bit) and
against a plain-NumPy reference of its physics in NumPy 2's scalar precision."""

from __future__ import annotations

import math

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
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nbgym import error
from nbgym.envs.classic_control.continuous_mountain_car import (
    Continuous_MountainCarEnv,
    Continuous_MountainCarVectorEnv,
)

ENV_ID = "MountainCarContinuous-v0"
STEPS = 200 if INTERPRETED else 2000
VECTOR_STEPS = 300 if INTERPRETED else 1000


def as_kind(force: float, kind: int) -> object:
    """The force as a float32 array, a float64 array, or a list of one Python float."""
    return [np.array([force], dtype=np.float32), np.array([force]), [force]][kind]


def momentum_policy(rng: np.random.Generator, observation: np.ndarray) -> object:
    """Push along the velocity (reaches the goal), sometimes against it, often beyond the clipping bounds."""
    force = rng.uniform(0.2, 1.6) * (1.0 if observation[1] >= 0 else -1.0)
    if rng.random() < 0.2:
        force = -force
    return as_kind(float(force), int(rng.integers(0, 3)))


def batch_policy(dtype: type) -> object:
    def policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
        forces = rng.uniform(0.2, 1.6, len(observations)) * np.where(observations[:, 1] >= 0, 1.0, -1.0)
        forces[rng.random(len(forces)) < 0.1] *= -1.0
        return forces[:, None].astype(dtype)

    return policy


@pytest.mark.parametrize("kwargs", [{}, {"goal_velocity": 0.02}])
def test_make_matches_gymnasium(kwargs):
    options = {"low": -1.0, "high": -0.3}
    terminations = compare_single(ENV_ID, momentum_policy, range(3), STEPS, kwargs, reset_options=options)
    assert terminations > (0 if INTERPRETED else 10)


def test_bare_env_matches_gymnasium_with_random_forces():
    policy = lambda rng, obs: as_kind(float(rng.uniform(-1.5, 1.5)), int(rng.integers(0, 3)))  # noqa: E731
    compare_single(ENV_ID, policy, [5], STEPS, bare=True)


@pytest.mark.jit_only
def test_make_matches_gymnasium_over_many_seeds():
    compare_single(ENV_ID, momentum_policy, range(10, 30), 1000, reset_options={"low": -1.2, "high": 0.4})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_matches_gymnasium_sync(mode, dtype):
    terminations, truncations = compare_vector(
        ENV_ID, batch_policy(dtype), 5, mode, 3, VECTOR_STEPS, {"max_episode_steps": 130}
    )
    assert terminations > 0 and truncations > 0


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_at_length(mode):
    compare_vector(ENV_ID, batch_policy(np.float32), 16, mode, 100, 3000, {"goal_velocity": 0.01})


def test_vector_seeds_and_reset_options_match_gymnasium():
    sample = lambda rng, n: rng.uniform(-2.0, 2.0, (n, 1)).astype(np.float32)  # noqa: E731
    vector = compare_vector_resets(ENV_ID, {"low": -0.2, "high": 0.3}, sample)
    assert isinstance(vector.unwrapped, Continuous_MountainCarVectorEnv)


def test_spaces_metadata_and_attributes_match_gymnasium():
    env, reference = Continuous_MountainCarEnv(goal_velocity=0.1), gymnasium.make(ENV_ID, goal_velocity=0.1).unwrapped
    assert repr(env.observation_space) == repr(reference.observation_space)
    assert repr(env.action_space) == repr(reference.action_space)
    assert env.metadata == reference.metadata
    names = [
        "min_action",
        "max_action",
        "min_position",
        "max_position",
        "max_speed",
        "goal_position",
        "goal_velocity",
        "power",
    ]
    for name in names:
        assert getattr(env, name) == getattr(reference, name), name
    for name in ["low_state", "high_state"]:
        assert_same_value(getattr(env, name), getattr(reference, name))
    vector = Continuous_MountainCarVectorEnv(4, goal_velocity=0.1)
    assert repr(vector.single_action_space) == repr(reference.action_space)
    assert repr(vector.observation_space) == repr(gymnasium.make_vec(ENV_ID, 4).observation_space)
    assert vector.goal_velocity == 0.1


@pytest.mark.parametrize(
    "changes", [{"power": 0.003}, {"max_speed": 0.03, "min_position": -0.8}, {"max_action": 0.5, "goal_position": 0.2}]
)
def test_changed_attributes_change_the_dynamics_as_in_gymnasium(changes):
    compare_single(ENV_ID, momentum_policy, [4], 300, setup=setting(changes))


def test_state_attribute_has_gymnasiums_dtypes():
    env, reference = Continuous_MountainCarEnv(), gymnasium.make(ENV_ID).unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    assert_same_value(env.state, reference.state)  # float64 after a reset
    action = np.array([0.7], dtype=np.float32)
    assert_same_value(env.step(action), reference.step(action))
    assert_same_value(env.state, reference.state)  # float32 after a step
    for state in [np.array([-0.5, 0.01]), np.array([-1.1, -0.06], dtype=np.float32)]:
        env.state, reference.state = state, state.copy()
        assert_same_value(env.step(action), reference.step(action))


@pytest.mark.parametrize("options", [{"low": -0.45}, {"high": "-0.5"}, {"low": -1, "high": 1}, {}, {"other": 1}])
def test_reset_options_match_gymnasium(options):
    env, reference = Continuous_MountainCarEnv(), gymnasium.make(ENV_ID).unwrapped
    assert_same_value(env.reset(seed=3, options=options), reference.reset(seed=3, options=options))
    assert_same_value(env.reset(options=options), reference.reset(options=options))


@pytest.mark.parametrize(
    "options", [{"low": "x"}, {"high": None}, {"low": 0.0, "high": -0.1}, {"low": -np.inf}, {"high": np.nan}]
)
def test_bad_reset_options_raise_as_gymnasium(options):
    env, reference = Continuous_MountainCarEnv(), gymnasium.make(ENV_ID).unwrapped
    assert_same_error(lambda: reference.reset(seed=1, options=options), lambda: env.reset(seed=1, options=options))


@pytest.mark.parametrize("action", [np.array([np.nan], dtype=np.float32), np.array([np.nan]), [float("nan")]])
def test_nan_force_is_refused_and_changes_nothing(action):
    env = Continuous_MountainCarEnv()
    env.reset(seed=0)
    state = env.state
    with pytest.raises(error.InvalidAction, match="invalid"):
        env.step(action)
    assert_same_value(env.state, state)
    vector = Continuous_MountainCarVectorEnv(3)
    vector.reset(seed=0)
    before = vector._batch.state.copy()
    batch = np.zeros((3, 1), dtype=np.asarray(action).dtype)
    batch[1] = action
    with pytest.raises(error.InvalidAction, match="Sub-environment 1"):
        vector.step(batch)
    np.testing.assert_array_equal(vector._batch.state, before)


@pytest.mark.parametrize("action", [np.zeros(2), np.zeros((1, 1)), np.array(["a"]), [[0.5]], []])
def test_badly_shaped_or_typed_actions_raise(action):
    env = Continuous_MountainCarEnv()
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)


def test_integer_and_python_number_forces_match_gymnasium():
    env, reference = Continuous_MountainCarEnv(), gymnasium.make(ENV_ID).unwrapped
    env.reset(seed=2)
    reference.reset(seed=2)
    # Float arrays take the single env's direct path, lists its Python-number path: alternate them.
    actions = [np.array([1]), [1], [True], (0.25,), np.array([-3], dtype=np.int8), [np.float32(0.3)], [2]]
    actions += [np.array([0.4], dtype=np.float32), [0.25], np.array([0.6]), (0.1,), np.array([-2.0], dtype=np.float32)]
    for action in actions * 3:
        assert_same_value(env.step(action), reference.step(action))


def reference_step(state: np.ndarray, action: object, goal_velocity: float = 0) -> tuple[np.ndarray, float, bool]:
    """The car's step on NumPy scalars of the state's dtype and the action's own element type.

    NumPy 2's promotion makes float32 arithmetic of a float32 scalar and a Python float, and float64
    arithmetic of float32 and float64 scalars.
    """
    position, velocity = state[0], state[1]
    force = action[0]
    if force < -1.0:
        force = -1.0
    if force > 1.0:
        force = 1.0
    velocity = velocity + (force * 0.0015 - 0.0025 * math.cos(3 * position))
    if velocity > 0.07:
        velocity = 0.07
    if velocity < -0.07:
        velocity = -0.07
    position = position + velocity
    if position > 0.6:
        position = 0.6
    if position < -1.2:
        position = -1.2
    if position == -1.2 and velocity < 0:
        velocity = 0
    terminated = bool(position >= 0.45 and velocity >= goal_velocity)
    reward = (100.0 if terminated else 0.0) - math.pow(action[0], 2) * 0.1
    return np.array([position, velocity], dtype=np.float32), reward, terminated


forces = st.one_of(st.floats(-3.0, 3.0), st.sampled_from([np.inf, -np.inf, -0.0, 1.0, -1.0]))


@settings(max_examples=50, deadline=None)
@given(
    position=st.floats(-1.3, 0.7),
    velocity=st.floats(-0.1, 0.1),
    float32_state=st.booleans(),
    force=forces,
    action_kind=st.integers(0, 2),
    goal_velocity=st.sampled_from([0, 0.01, -0.01]),
)
@example(position=-1.2, velocity=-0.01, float32_state=True, force=-1.0, action_kind=0, goal_velocity=0)
@example(position=0.45, velocity=0.07, float32_state=True, force=2.0, action_kind=2, goal_velocity=0)
@example(position=0.46, velocity=0.0, float32_state=False, force=-0.0, action_kind=1, goal_velocity=0)
def test_kernel_matches_numpy_reference(position, velocity, float32_state, force, action_kind, goal_velocity):
    env = Continuous_MountainCarEnv(goal_velocity=goal_velocity)
    env.reset(seed=0)
    state = np.array([position, velocity], dtype=np.float32 if float32_state else np.float64)
    action = as_kind(force, action_kind)
    env.state = state
    observation, reward, terminated, truncated, info = env.step(action)
    expected_observation, expected_reward, expected_terminated = reference_step(state, action, goal_velocity)
    assert_same_value(observation, expected_observation)
    assert_same_value(env.state, expected_observation)
    assert_same_value((reward, terminated, truncated, info), (expected_reward, expected_terminated, False, {}))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), low=st.floats(-2.0, 0.0), span=st.floats(0.0, 2.0))
def test_reset_draws_as_numpy(seed, low, span):
    env = Continuous_MountainCarEnv()
    env.reset(seed=seed, options={"low": low, "high": low + span})
    assert_same_value(env.state, np.array([np.random.default_rng(seed).uniform(low, low + span), 0.0]))


def test_reward_squares_with_libm_pow_not_a_product():
    """The reward's ``math.pow(action[0], 2)`` is libm ``pow``, which is not always ``x * x``."""
    candidates = np.random.default_rng(0).uniform(-1.5, 1.5, 100_000)
    forces = [f for f in candidates if math.pow(f, 2) != f * f][:20]
    env, reference = Continuous_MountainCarEnv(), gymnasium.make(ENV_ID).unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    for k, force in enumerate(forces):
        action = np.array([force]) if k % 2 else [float(force)]
        assert_same_value(env.step(action), reference.step(action))
