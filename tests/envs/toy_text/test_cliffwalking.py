"""CliffWalking on the compiled engine against gymnasium 1.4.0: single env and vector env, bit for bit."""

import copy

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.toy_text_checks import (
    assert_same_error,
    assert_same_value,
    compare_single,
    compare_vector,
    discrete_actions,
    steps,
    uniform_policy,
)
from gymnasium.envs.toy_text import cliffwalking as gym_cliffwalking

import nbgym
from nbgym import error
from nbgym.engine._threads import SMALLEST_SHARED_BATCH
from nbgym.envs.toy_text.cliffwalking import CliffWalkingEnv, CliffWalkingVectorEnv

ENV_IDS = ["CliffWalking-v1", "CliffWalkingSlippery-v1"]


def hiker(state, rng):
    """Climbs from the start, walks right along row 1 (away from the edge: slips stay on safe rows) and
    descends to the goal, with random steps: falls into the cliff, reaches the goal and wanders off."""
    row, col = divmod(int(state), 12)
    if rng.random() < 0.2:
        return rng.integers(0, 4)
    if col == 11:
        return 2
    if row == 1:
        return 1
    return 0 if row > 1 else 2


def edge_walker(rng, obs, info):
    return hiker(obs, rng)


def hikers(rng, num_envs, obs):
    return np.array([hiker(state, rng) for state in obs])


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("policy", [uniform_policy(4), edge_walker])
def test_make_matches_gymnasium(env_id, policy):
    results = compare_single(env_id, {}, range(3), steps(800), policy)
    if policy is edge_walker:
        assert any(result[1] == -100 for _, result in results) and any(result[2] for _, result in results)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bare_class_matches_gymnasium_after_the_end_too(env_id):
    """The goal is not absorbing: a step after termination moves on."""
    results = compare_single(env_id, {}, range(3), steps(800), edge_walker, bare=True)
    assert any(obs == 47 for obs, _ in results)


@pytest.mark.jit_only
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_make_matches_gymnasium_long(env_id):
    compare_single(env_id, {}, range(20), 3000, edge_walker, render=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_vector_matches_gymnasium_sync(mode, env_id):
    results = compare_vector(env_id, {"max_episode_steps": 25}, 6, mode, 5, steps(500), hikers)
    assert any(result[3].any() for result in results)
    assert any(result[2].any() for result in results) or env_id == "CliffWalkingSlippery-v1"


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_long(mode):
    compare_vector("CliffWalkingSlippery-v1", {"max_episode_steps": 100}, 64, mode, 7, 1500, hikers)


def test_vector_renders_ansi_as_gymnasium_sync():
    compare_vector("CliffWalking-v1", {}, 3, "SameStep", 2, steps(100), discrete_actions(4), render=True)


@pytest.mark.jit_only
def test_vector_results_do_not_depend_on_the_number_of_threads():
    num_envs = SMALLEST_SHARED_BATCH + 1  # the smallest batch the stepping threads share
    runs = []
    for num_threads in [1, 2]:
        env = CliffWalkingVectorEnv(num_envs, is_slippery=True, num_threads=num_threads, max_episode_steps=30)
        env.reset(seed=3)
        runs.append([env.step(a) for a in np.random.default_rng(0).integers(0, 4, (200, num_envs))])
    for a, b in zip(*runs):
        assert_same_value(a, b)


@pytest.mark.parametrize("is_slippery", [False, True])
def test_attributes_spaces_and_metadata_match_gymnasium(is_slippery):
    ours, theirs = CliffWalkingEnv(is_slippery=is_slippery), gym_cliffwalking.CliffWalkingEnv(is_slippery=is_slippery)
    for name in [
        "P",
        "shape",
        "start_state_index",
        "nS",
        "nA",
        "is_slippery",
        "_cliff",
        "initial_state_distrib",
        "metadata",
    ]:
        assert_same_value(getattr(ours, name), getattr(theirs, name), name)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    assert_same_value(CliffWalkingVectorEnv(2, is_slippery=is_slippery).P, theirs.P)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    ours.s = theirs.s = 35
    assert_same_value(ours.step(2), theirs.step(2))
    assert (ours.s, ours.lastaction) == (theirs.s, theirs.lastaction)


def test_v0_is_deprecated_and_entry_points():
    with pytest.warns(DeprecationWarning, match="CliffWalking-v0 is out of date") as warned:
        assert_same_error(lambda: nbgym.make("CliffWalking-v0"), lambda: gymnasium.make("CliffWalking-v0"))
    assert len(warned) == 2  # gymnasium's make warns so too
    env = nbgym.make_vec("CliffWalkingSlippery-v1", 2)
    assert isinstance(env, CliffWalkingVectorEnv) and env.is_slippery and env.max_episode_steps is None
    assert "## Observation Space" in CliffWalkingEnv.__doc__ and "## Version History" in CliffWalkingEnv.__doc__


@pytest.mark.parametrize("action", [4, -1, 0.5, None])  # 0.0 is the key 0 of gymnasium's P[s]
def test_invalid_actions_raise(action):
    env = nbgym.make("CliffWalking-v1")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)


def test_copies_continue_identically():
    env = CliffWalkingEnv(is_slippery=True)
    env.reset(seed=1)
    copied = copy.deepcopy(env)
    for action in np.random.default_rng(2).integers(0, 4, 50):
        assert_same_value(copied.step(action), env.step(action))
