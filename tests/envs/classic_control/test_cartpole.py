"""CartPole on the compiled engine against gymnasium 1.4.0: single env and vector env, bit for bit."""

import copy
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from helpers.toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.engine._threads import SMALLEST_SHARED_BATCH
from nbgym.envs.classic_control.cartpole import CartPoleEnv, CartPoleVectorEnv
from helpers.jit import INTERPRETED
from helpers.common import MODES


def assert_same_step(got, expected):
    obs, reward, terminated, truncated, info = got
    g_obs, g_reward, g_terminated, g_truncated, g_info = expected
    assert obs.dtype == g_obs.dtype and obs.shape == g_obs.shape
    np.testing.assert_array_equal(obs, g_obs)
    assert type(reward) is type(g_reward) and reward == g_reward
    assert type(terminated) is type(g_terminated) and terminated == g_terminated
    assert type(truncated) is type(g_truncated) and truncated == g_truncated
    assert info == g_info


def assert_same_infos(info, expected):
    assert info.keys() == expected.keys()
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_same_infos(info[key], value)
            continue
        got = info[key]
        assert got.dtype == value.dtype and got.shape == value.shape, key
        if value.dtype == object:
            for a, b in zip(got, value):
                assert (a is None and b is None) or (a.dtype == b.dtype and np.array_equal(a, b)), key
        else:
            np.testing.assert_array_equal(got, value)


def assert_same_batch(got, expected):
    for a, b in zip(got[:4], expected[:4]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    assert_same_infos(got[4], expected[4])


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40])
@pytest.mark.parametrize("kwargs", [{}, {"sutton_barto_reward": True}])
def test_make_matches_gymnasium(seed, kwargs):
    env, reference = nbgym.make("CartPole-v1", **kwargs), gymnasium.make("CartPole-v1", **kwargs)
    assert str(env) == str(reference).replace("gymnasium", "nbgym")
    obs, info = env.reset(seed=seed)
    g_obs, g_info = reference.reset(seed=seed)
    np.testing.assert_array_equal(obs, g_obs)
    assert obs.dtype == g_obs.dtype and info == g_info
    actions = np.random.default_rng(seed % 2**32).integers(0, 2, 1500 if not INTERPRETED else 300)
    for action in actions:
        result, expected = env.step(int(action)), reference.step(int(action))
        assert_same_step(result, expected)
        if result[2] or result[3]:
            np.testing.assert_array_equal(env.reset()[0], reference.reset()[0])


def test_spaces_metadata_and_attributes_match_gymnasium():
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    assert repr(env.observation_space) == repr(reference.observation_space)
    np.testing.assert_array_equal(env.observation_space.high, reference.observation_space.high)
    assert env.action_space == nbgym.spaces.Discrete(2)
    assert env.metadata == reference.metadata
    for name in [
        "gravity",
        "masscart",
        "masspole",
        "total_mass",
        "length",
        "polemass_length",
        "force_mag",
        "tau",
        "theta_threshold_radians",
        "x_threshold",
        "kinematics_integrator",
    ]:
        assert getattr(env, name) == getattr(reference, name), name
        assert type(getattr(env, name)) is type(getattr(reference, name)), name


@pytest.mark.parametrize(
    "changes", [{"gravity": 20.0, "length": 1.5}, {"kinematics_integrator": "semi-implicit euler"}, {"force_mag": 3.0}]
)
# The fixed actions run past the pole's fall on purpose: both libraries then warn once per env.
@pytest.mark.filterwarnings("ignore:.*You are calling 'step\\(\\)' even though this environment has already returned")
def test_changed_attributes_change_the_dynamics_as_in_gymnasium(changes):
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    for name, value in changes.items():
        setattr(env, name, value)
        setattr(reference, name, value)
    env.reset(seed=5)
    reference.reset(seed=5)
    for action in [1, 1, 0, 1, 0, 0, 1, 1, 1, 0] * 3:
        assert_same_step(env.step(action), reference.step(action))


def test_reset_options_match_gymnasium():
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    for options in [{"low": -0.2, "high": 0.3}, {"low": 0.01}, {"high": "0.1"}, {}, {"unrelated": 1}]:
        obs, _ = env.reset(seed=3, options=options)
        np.testing.assert_array_equal(obs, reference.reset(seed=3, options=options)[0])
    for bad in [{"low": 1.0, "high": 0.0}, {"low": "x"}]:
        with pytest.raises(ValueError) as expected:
            reference.reset(options=bad)
        with pytest.raises(ValueError, match=str(expected.value).split("(")[0]):
            env.reset(options=bad)


def test_stepping_after_termination_warns_once_and_rewards_zero():
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(40):
            assert_same_step(env.step(1), reference.step(1))
    ours = [str(w.message) for w in caught if "already returned terminated" in str(w.message)]
    assert len(ours) == 2  # one from each library, once each
    assert env.steps_beyond_terminated == reference.steps_beyond_terminated


def test_np_random_is_the_kernels_stream():
    """Draws from env.np_random in Python (as StickyAction makes) move the stream the kernels use."""
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    env.reset(seed=9)
    reference.reset(seed=9)
    assert env.np_random.integers(0, 10) == reference.np_random.integers(0, 10)
    np.testing.assert_array_equal(env.reset()[0], reference.reset()[0])
    env.np_random = np.random.default_rng(4)
    reference.np_random = np.random.default_rng(4)
    np.testing.assert_array_equal(env.reset()[0], reference.reset()[0])
    assert env.np_random_seed == reference.np_random_seed == -1


def test_unseeded_reset_draws_fresh_entropy():
    first, second = CartPoleEnv().reset()[0], CartPoleEnv().reset()[0]
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("action", [2, -1, 0.5, "1", None, np.array([1]), np.float32(1.0)])
def test_invalid_actions_raise_assertion_like_gymnasium(action):
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    with pytest.raises(AssertionError):
        reference.step(action)
    with pytest.raises(error.InvalidAction, match="invalid"):
        env.step(action)
    assert_same_step(env.step(np.int64(1)), reference.step(np.int64(1)))


def test_step_before_reset_and_after_close():
    env = CartPoleEnv()
    with pytest.raises(error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    env.step(0)
    env.close()
    with pytest.raises(error.ResetNeeded):
        env.step(0)
    with pytest.raises(error.ResetNeeded):
        nbgym.make("CartPole-v1").step(0)


def _vector_pair(num_envs, mode, max_episode_steps=60, num_threads=1, **kwargs):
    env = nbgym.make_vec(
        "CartPole-v1",
        num_envs,
        autoreset_mode=mode,
        max_episode_steps=max_episode_steps,
        num_threads=num_threads,
        **kwargs,
    )
    reference = gymnasium.make_vec(
        "CartPole-v1",
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        max_episode_steps=max_episode_steps,
        **kwargs,
    )
    return env, reference


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("num_envs", [1, 5])
@pytest.mark.parametrize("num_threads", [1] if INTERPRETED else [1, 2])
def test_vector_matches_gymnasium_sync(mode, num_envs, num_threads):
    env, reference = _vector_pair(num_envs, mode, num_threads=num_threads)
    assert isinstance(env.unwrapped, CartPoleVectorEnv)
    assert env.metadata["autoreset_mode"].value == reference.metadata["autoreset_mode"].value
    assert repr(env.observation_space) == repr(reference.observation_space)
    assert repr(env.action_space) == repr(reference.action_space)
    got, expected = env.reset(seed=11), reference.reset(seed=11)
    np.testing.assert_array_equal(got[0], expected[0])
    assert_same_infos(got[1], expected[1])
    actions = np.random.default_rng(num_envs).integers(0, 2, (600 if not INTERPRETED else 150, num_envs))
    for step_actions in actions:
        got, expected = env.step(step_actions), reference.step(step_actions)
        assert_same_batch(got, expected)
        ended = got[2] | got[3]
        if mode == "Disabled" and ended.any():
            got = env.reset(options={"reset_mask": ended.copy()})
            expected = reference.reset(options={"reset_mask": ended.copy()})
            np.testing.assert_array_equal(got[0], expected[0])


@pytest.mark.jit_only
def test_results_do_not_depend_on_the_number_of_threads():
    num_envs = SMALLEST_SHARED_BATCH + 1  # the smallest batch the stepping threads share
    runs = []
    for num_threads in [1, 2]:
        env = CartPoleVectorEnv(num_envs, num_threads=num_threads)
        env.reset(seed=3)
        actions = np.random.default_rng(0).integers(0, 2, (300, num_envs))
        runs.append([env.step(a)[0] for a in actions])
    np.testing.assert_array_equal(np.array(runs[0]), np.array(runs[1]))


def test_vector_seeds_list_partial_reset_and_options_match_gymnasium():
    env, reference = _vector_pair(4, "NextStep")
    for seed in [[1, 2, 3, 4], [5, None, 7, None]]:
        np.testing.assert_array_equal(env.reset(seed=seed)[0], reference.reset(seed=seed)[0])
    mask = np.array([True, False, True, False])
    got = env.reset(seed=[8, 9, 10, 11], options={"reset_mask": mask.copy(), "low": -0.3, "high": 0.3})
    expected = reference.reset(seed=[8, 9, 10, 11], options={"reset_mask": mask.copy(), "low": -0.3, "high": 0.3})
    np.testing.assert_array_equal(got[0], expected[0])
    for step_actions in np.random.default_rng(1).integers(0, 2, (100, 4)):
        assert_same_batch(env.step(step_actions), reference.step(step_actions))


def test_vector_reset_errors_match_gymnasium():
    env, reference = _vector_pair(3, "NextStep")
    bad_calls = [
        {"seed": [1, 2]},
        {"options": {"reset_mask": [True, False, True]}},
        {"options": {"reset_mask": np.ones(2, dtype=bool)}},
        {"options": {"reset_mask": np.ones(3, dtype=int)}},
        {"options": {"reset_mask": np.zeros(3, dtype=bool)}},
        {"seed": -1},
    ]
    for kwargs in bad_calls:
        with pytest.raises(Exception) as expected:
            reference.reset(**copy.deepcopy(kwargs))
        expected_type = error.Error if isinstance(expected.value, gymnasium.error.Error) else type(expected.value)
        with pytest.raises(expected_type) as got:
            env.reset(**copy.deepcopy(kwargs))
        assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(
    "actions, match",
    [
        (np.array([0, 1]), "expected 3, got 2"),  # gymnasium's zip(strict=True): ValueError
        (np.array([[0, 1, 0]]), "invalid"),
        (np.array([0.0, 1.0, 0.0]), "invalid"),
        (np.array([0, 2, 0]), "Sub-environment 1"),
        (np.array([0, 1, -1]), "Sub-environment 2"),
        (["0", 1, 0], "invalid"),  # gymnasium's assert; True and False are ints to its contains
    ],
)
def test_vector_rejects_bad_batches_before_anything_moves(actions, match):
    env = CartPoleVectorEnv(3)
    env.reset(seed=0)
    state = env._batch.state.copy()
    with pytest.raises(error.InvalidAction, match=match):
        env.step(actions)
    np.testing.assert_array_equal(env._batch.state, state)


def test_vector_accepts_integer_lists_and_dtypes():
    env, reference = _vector_pair(3, "NextStep")
    env.reset(seed=0)
    reference.reset(seed=0)
    for actions in [[0, 1, 1], np.array([1, 0, 1], dtype=np.int32), np.array([1, 1, 0], dtype=np.uint8)]:
        assert_same_batch(env.step(actions), reference.step(actions))


def test_vector_takes_integer_batches_of_any_layout_or_byte_order_as_gymnasium():
    """Strided, read-only and big-endian int64 batches (gymnasium takes them) step through the kernels' own array
    (issue 51); a single env takes 0-d arrays, big-endian too, where an int is meant."""
    env, reference = _vector_pair(3, "NextStep")
    env.reset(seed=0)
    reference.reset(seed=0)
    read_only = np.array([1, 0, 1])
    read_only.setflags(write=False)
    for actions in [np.array([1, 0, 0, 1, 1, 0])[::2], read_only, np.array([0, 1, 1], dtype=">i8")]:
        assert_same_batch(env.step(actions), reference.step(actions))
    single, gymnasiums = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    single.reset(seed=1)
    gymnasiums.reset(seed=1)
    for action in [np.array(1), np.array(0, dtype=">i8"), np.array(1, dtype=np.int8)]:
        assert_same_step(single.step(action), gymnasiums.step(action))


def test_vector_disabled_mode_refuses_to_step_an_ended_env():
    env = CartPoleVectorEnv(2, autoreset_mode="Disabled")
    env.reset(seed=0)
    while True:
        _, _, terminated, truncated, _ = env.step(np.array([1, 1]))
        if (terminated | truncated).any():
            break
    with pytest.raises(AssertionError, match="reset_mask"):
        env.step(np.array([1, 1]))


def test_vector_step_before_reset_and_after_close():
    env = CartPoleVectorEnv(2)
    with pytest.raises(error.ResetNeeded):
        env.step(np.array([0, 1]))
    env.reset(seed=0)
    env.close()
    with pytest.raises(error.ClosedEnvironmentError):
        env.step(np.array([0, 1]))
    with pytest.raises(error.ClosedEnvironmentError):
        env.reset()


def test_vector_copy_false_returns_live_buffers():
    env = CartPoleVectorEnv(2, copy=False)
    obs, _ = env.reset(seed=0)
    next_obs = env.step(np.array([0, 1]))[0]
    assert next_obs is obs


@pytest.mark.parametrize(
    "bad",
    [
        {"num_envs": 0},
        {"num_envs": 2.5},
        {"max_episode_steps": -3},
        {"num_threads": 0},
        {"autoreset_mode": "Sometimes"},
    ],
)
def test_vector_bad_arguments(bad):
    with pytest.raises(ValueError):
        CartPoleVectorEnv(**{"num_envs": 2, **bad})


@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_copies_continue_like_the_original(duplicate):
    """Copies must not keep stale views of the original's buffers or of its generator's memory."""
    env, reference = nbgym.make("CartPole-v1"), gymnasium.make("CartPole-v1")
    env.reset(seed=1)
    reference.reset(seed=1)
    env.step(1)
    reference.step(1)
    twin = duplicate(env)
    for action in [0, 1, 1, 0, 0, 1]:
        expected = reference.step(action)
        assert_same_step(env.step(action), expected)
        assert_same_step(twin.step(action), expected)
    np.testing.assert_array_equal(twin.reset()[0], reference.reset()[0])

    vector, vector_reference = _vector_pair(3, "SameStep")
    vector.reset(seed=2)
    vector_reference.reset(seed=2)
    vector_twin = duplicate(vector)
    for actions in np.random.default_rng(0).integers(0, 2, (80, 3)):
        expected = vector_reference.step(actions)
        assert_same_batch(vector_twin.step(actions), expected)


@pytest.mark.jit_only
@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    action_seed=st.integers(0, 2**32 - 1),
    num_envs=st.integers(1, 9),
    mode=st.sampled_from(MODES),
)
def test_long_random_runs_match_gymnasium(seed, action_seed, num_envs, mode):
    env, reference = _vector_pair(num_envs, mode, max_episode_steps=200)
    np.testing.assert_array_equal(env.reset(seed=seed)[0], reference.reset(seed=seed)[0])
    for step_actions in np.random.default_rng(action_seed).integers(0, 2, (2000, num_envs)):
        got, expected = env.step(step_actions), reference.step(step_actions)
        assert_same_batch(got, expected)
        ended = got[2] | got[3]
        if mode == "Disabled" and ended.any():
            np.testing.assert_array_equal(
                env.reset(options={"reset_mask": ended.copy()})[0],
                reference.reset(options={"reset_mask": ended.copy()})[0],
            )


def test_vector_seeds_beyond_64_bits_match_gymnasium():
    env, reference = _vector_pair(2, "NextStep")
    for seed in [2**64 - 1, 2**70, [2**80, 3]]:
        np.testing.assert_array_equal(env.reset(seed=seed)[0], reference.reset(seed=seed)[0])


def test_reset_bounds_of_infinite_range_raise_as_gymnasium():
    with pytest.raises(OverflowError) as expected:
        gymnasium.make("CartPole-v1").reset(options={"low": -np.inf, "high": 0.0})
    with pytest.raises(OverflowError, match=str(expected.value)):
        nbgym.make("CartPole-v1").reset(options={"low": -np.inf, "high": 0.0})


def test_vector_reset_checks_the_seed_list_before_the_mask_as_gymnasium():
    env, reference = _vector_pair(3, "NextStep")
    bad = {"seed": [1, 2], "options": {"reset_mask": np.zeros(3, dtype=bool)}}
    with pytest.raises(ValueError) as expected:
        reference.reset(**copy.deepcopy(bad))
    with pytest.raises(ValueError) as got:
        env.reset(**copy.deepcopy(bad))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("action", [2**70, np.uint64(2**63), -(2**70)])
def test_integer_actions_beyond_int64_are_invalid_actions(action):
    env, reference = CartPoleEnv(), gymnasium.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    with pytest.raises((AssertionError, OverflowError)):
        reference.step(action)
    with pytest.raises(error.InvalidAction, match="invalid"):
        env.step(action)


def test_a_subclass_attribute_that_gymnasiums_init_sets_is_hidden_on_its_instances():
    """gymnasium's CartPole sets ``gravity`` in ``__init__``, which hides a subclass's class attribute of that name:
    the class reads the subclass's value, the instances (and their dynamics) gymnasium's, as nbgym's do."""
    from gymnasium.envs.classic_control.cartpole import CartPoleEnv as GymnasiumCartPole

    ours = type("Ours", (CartPoleEnv,), {"gravity": 20.0, "state": (1, 2, 3, 4)})()
    theirs = type("Theirs", (GymnasiumCartPole,), {"gravity": 20.0, "state": (1, 2, 3, 4)})()
    assert type(ours).gravity == type(theirs).gravity == 20.0 and type(ours).state == (1, 2, 3, 4)
    assert ours.gravity == theirs.gravity == 9.8 and ours.state is None and theirs.state is None
    assert_same_value(ours.reset(seed=1), theirs.reset(seed=1))
    for action in [0, 1, 1, 0, 1]:
        assert_same_value(ours.step(action), theirs.step(action))
    ours.gravity = 12.0  # the instance's attribute, as gymnasium's
    assert ours.gravity == 12.0 and type(ours).gravity == 20.0
