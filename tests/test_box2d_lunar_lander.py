"""LunarLander (discrete and continuous, wind, gravity) against gymnasium 1.4.0, bit for bit: single env, vector
envs in every autoreset mode, frames, bad actions, and the registry's ids."""

from __future__ import annotations

import importlib
import os
import pickle
import sys
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest
from _box2d_checks import (
    assert_checked,
    assert_human_mode_shows_the_frames,
    assert_registered_as_gymnasium,
    compare_frames,
    raises_as_gymnasium,
)
from _classic_control_checks import MODES, compare_single, compare_vector
from _toy_text_checks import assert_same_value

import nbgym
from nbgym import error
from nbgym.envs.box2d.lunar_lander import LunarLanderContinuous, demo_heuristic_lander, heuristic

INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"
"""CI's interpreted pass runs the compiled vector env's physics as Python: short runs, for coverage."""


def run_length(steps: int, episodes: int) -> tuple[int, int]:
    """The steps of a differential run and the episodes it must see ended (interpreted: 30 steps, any)."""
    return (30, 0) if INTERPRETED else (steps, episodes)


DISCRETE = SimpleNamespace(unwrapped=SimpleNamespace(continuous=False))
CONTINUOUS = SimpleNamespace(unwrapped=SimpleNamespace(continuous=True))


def lander_policy(rng: np.random.Generator, observation: np.ndarray) -> int | np.int64:
    """The heuristic (it lands: the at-rest ending with +100) with random engines (crashes, leaving the view)."""
    action = heuristic(DISCRETE, observation) if rng.random() < 0.8 else rng.integers(0, 4)
    return int(action) if rng.random() < 0.5 else np.int64(action)


def throttle_policy(rng: np.random.Generator, observation: np.ndarray) -> np.ndarray | list[float]:
    """The continuous heuristic with noise, as float32 or float64 arrays, sometimes beyond [-1, 1], or lists."""
    action = heuristic(CONTINUOUS, observation) + rng.normal(0, 0.4, 2)
    kind = rng.integers(0, 3)
    return action.astype(np.float32) if kind == 0 else action if kind == 1 else action.tolist()


def test_make_matches_gymnasium():
    terminations = compare_single("LunarLander-v3", lander_policy, range(3), 1200)
    assert terminations >= 6


@pytest.mark.parametrize(
    "kwargs",
    [
        {"continuous": True},
        {"enable_wind": True},
        {"continuous": True, "enable_wind": True, "wind_power": 19.0, "turbulence_power": 1.9, "gravity": -7.5},
        {"gravity": -11.9},
    ],
)
def test_kwargs_match_gymnasium(kwargs):
    policy = throttle_policy if kwargs.get("continuous") else lander_policy
    assert compare_single("LunarLander-v3", policy, range(2), 600, kwargs=kwargs) >= 1


def test_continuous_id_matches_gymnasium():
    assert compare_single("LunarLanderContinuous-v3", throttle_policy, [5], 600) >= 1


def test_landing_rewards_100_and_the_observation_shows_both_legs():
    """The heuristic lands seed 3 as in gymnasium: the last step is the lander at rest, +100 (an int)."""
    env = nbgym.make("LunarLander-v3")
    observation, _ = env.reset(seed=3)
    for _ in range(1000):
        observation, reward, terminated, truncated, _ = env.step(heuristic(env, observation))
        if terminated or truncated:
            break
    assert terminated and type(reward) is int and reward == 100
    assert observation[6] == observation[7] == 1.0


def vector_policy(continuous: bool):
    """The noisy heuristics of each sub-environment (landings, crashes, flights out of view)."""

    def policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
        if continuous:  # random throttles a third of the time: crashes and flights out of view
            return np.array([throttle_policy(rng, obs) if rng.random() < 0.65 else rng.uniform(-1.2, 1.2, 2)
                             for obs in observations], dtype=np.float32)
        return np.array([lander_policy(rng, obs) for obs in observations], dtype=np.int64)

    return policy


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("continuous", [False, True])
def test_compiled_vector_env_matches_gymnasium_sync(mode, continuous):
    """make_vec's LunarLanderVectorEnv (the compiled Box2D port) is gymnasium's sync vector env, bit for bit."""
    assert type(nbgym.make_vec("LunarLander-v3", 2)).__name__ == "LunarLanderVectorEnv"
    kwargs = {"continuous": continuous, "enable_wind": continuous, "gravity": -9.0 if continuous else -10.0}
    steps, ended = run_length(700, 3)
    terminations, _ = compare_vector("LunarLander-v3", vector_policy(continuous), 4, mode, 7, steps, kwargs)
    assert terminations >= ended


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_compiled_vector_env_in_threads_and_with_time_limits(env_id):
    """Two stepping threads, a short time limit (truncations), wind: the same as gymnasium's sync vector env."""
    continuous = "Continuous" in env_id
    kwargs = {"enable_wind": True, "wind_power": 19.0, "turbulence_power": 1.9, "max_episode_steps": 60}
    steps, ended = run_length(250, 5)
    terminations, truncations = compare_vector(env_id, vector_policy(continuous), 5, "NextStep", 3, steps, kwargs,
                                               nbgym_kwargs={"num_threads": 2})
    assert truncations >= ended


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("continuous", [False, True])
def test_sync_vector_env_matches_gymnasium_sync(mode, continuous):
    """make_vec(vectorization_mode="sync") vectorizes the single envs, exactly as gymnasium's sync vector env."""

    def policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
        if continuous:
            return rng.uniform(-1, 1, (len(observations), 2)).astype(np.float32)
        return rng.integers(0, 4, len(observations))

    kwargs = {"continuous": continuous, "enable_wind": True}
    terminations, _ = compare_vector("LunarLander-v3", policy, 3, mode, 7, 200, kwargs, vectorization_mode="sync")
    assert terminations >= 3


def test_rendered_vector_env_is_a_sync_vector_env():
    """The compiled vector env draws no frames: with a render mode make_vec vectorizes the single envs (whose
    flame particles exist only when rendered), as gymnasium does."""
    env = nbgym.make_vec("LunarLander-v3", 2, render_mode="rgb_array")
    assert type(env).__name__ == "SyncVectorEnv"
    env.reset(seed=1)
    env.step(np.array([2, 2]))
    assert len(env.render()) == 2


def test_compiled_vector_env_refuses_bad_actions_before_anything_moves():
    env = nbgym.make_vec("LunarLander-v3", 3)
    observations, _ = env.reset(seed=0)
    for bad in (np.array([0, 4, 1]), np.array([-1, 0, 0]), np.array([0.5, 1, 2])):
        with pytest.raises(AssertionError):
            env.step(bad)
    np.testing.assert_array_equal(env.step(np.array([0, 0, 0]))[0], gymnasium_step_after_reset(0))


def gymnasium_step_after_reset(seed: int) -> np.ndarray:
    theirs = gymnasium.make_vec("LunarLander-v3", 3, vectorization_mode="sync")
    theirs.reset(seed=seed)
    return theirs.step(np.array([0, 0, 0]))[0]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_compiled_vector_env_long_runs(seed):
    """Long runs of 8 sub-environments: thousands of episodes' steps, landings and crashes, wind, both action kinds."""
    continuous = bool(seed % 2)
    kwargs = {"continuous": continuous, "enable_wind": seed >= 2, "gravity": -10.0 + seed * 0.3}
    terminations, _ = compare_vector("LunarLander-v3", vector_policy(continuous), 8, MODES[seed % 3], seed, 3000, kwargs)
    assert terminations >= 10


def test_async_vector_env_matches_gymnasium_sync():
    terminations, _ = compare_vector(
        "LunarLander-v3", lambda rng, obs: rng.integers(0, 4, len(obs)), 2, "NextStep", 1, 150, vectorization_mode="async"
    )
    assert terminations >= 1


@pytest.mark.parametrize("continuous", [False, True])
def test_frames_are_gymnasiums(continuous):
    """Frames with flame particles (they live while frames are drawn), legs on the ground and the flags."""
    policy = throttle_policy if continuous else lander_policy
    assert compare_frames("LunarLander-v3", policy, 3, 250, 3, {"continuous": continuous}) > 50


def test_human_mode_shows_the_frames():
    assert_human_mode_shows_the_frames("LunarLander-v3", 30)


def test_check_env_passes():
    assert_checked("LunarLander-v3")
    assert_checked("LunarLander-v3", continuous=True)


def test_bad_discrete_actions_are_assertion_errors_as_in_gymnasium():
    for action in (4, -1, 1.0, "2", np.array([1, 2])):
        caught = raises_as_gymnasium("LunarLander-v3", action, AssertionError)
        assert isinstance(caught, error.InvalidAction) and "0 (nothing), 1 (left engine)" in str(caught)


@pytest.mark.parametrize(
    ("action", "expected"),
    [(np.array([0.5]), IndexError), (0.5, IndexError), (np.ones((2, 2)), ValueError)],
)
def test_misshapen_continuous_actions_raise_gymnasiums_exceptions(action, expected):
    caught = raises_as_gymnasium("LunarLanderContinuous-v3", action, expected)
    assert "of shape (2,)" in str(caught)


@pytest.mark.parametrize("action", [np.array([np.nan, np.nan]), np.array([0.7, -0.8, 5.0]), [2.0, -3.0]])
def test_continuous_actions_gymnasium_accepts_give_its_results(action):
    """NaN throttles fire nothing and extra numbers are ignored, as in gymnasium (whose results must be kept)."""
    ours, theirs = nbgym.make("LunarLanderContinuous-v3"), gymnasium.make("LunarLanderContinuous-v3")
    assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
    for t in range(5):
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")


def test_constructor_checks_and_warnings_are_gymnasiums():
    with pytest.raises(AssertionError, match="must be between -12 and 0"):
        nbgym.make("LunarLander-v3", gravity=-12.5)
    with pytest.warns(UserWarning, match="wind_power value is recommended to be between 0.0 and 20.0"):
        nbgym.make("LunarLander-v3", wind_power=25.0)
    with pytest.warns(UserWarning, match="turbulence_power value is recommended to be between 0.0 and 2.0"):
        nbgym.make("LunarLander-v3", turbulence_power=-1.0)
    with pytest.raises(error.Error, match='nbgym.make\\("LunarLander-v3", continuous=True\\)'):
        LunarLanderContinuous()


def test_registry_entries_are_gymnasiums():
    assert_registered_as_gymnasium("LunarLander-v3")
    assert_registered_as_gymnasium("LunarLanderContinuous-v3")
    # The Box2D ids' older versions, all of them here.
    for old in ("LunarLander-v2", "LunarLanderContinuous-v2", "BipedalWalker-v2", "BipedalWalkerHardcore-v2", "CarRacing-v2"):
        with pytest.raises(error.DeprecatedEnv) as ours_error, pytest.warns(DeprecationWarning, match="out of date"):
            nbgym.make(old)
        with pytest.raises(gymnasium.error.DeprecatedEnv) as theirs_error, pytest.warns(DeprecationWarning):
            gymnasium.make(old)
        assert str(ours_error.value) == str(theirs_error.value)


def test_pickled_env_is_a_new_env_with_the_same_arguments():
    env = pickle.loads(pickle.dumps(nbgym.make("LunarLander-v3", continuous=True, gravity=-5.0).unwrapped))
    assert env.continuous and env.gravity == -5.0


def test_demo_lands(capsys):
    assert demo_heuristic_lander(nbgym.make("LunarLander-v3"), seed=3) > 200
    assert "total_reward" in capsys.readouterr().out


def test_without_box2d_the_error_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "Box2D", None)
    for name in [name for name in sys.modules if name.startswith("nbgym.envs.box2d.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(error.DependencyNotInstalled, match=r'pip install "nbgym\[box2d\]"'):
        importlib.import_module("nbgym.envs.box2d.lunar_lander")


def test_compiled_vector_env_pickles_mid_episode_and_names_what_it_serves():
    """A pickled copy carries every world row on, step for step; attributes it does not serve are refused, saying
    which vectorization serves them."""
    env = nbgym.make_vec("LunarLander-v3", 3, enable_wind=True)
    env.reset(seed=1)
    for _ in range(10):
        env.step(np.array([2, 1, 3]))
    copy = pickle.loads(pickle.dumps(env))
    for t in range(60):
        actions = np.array([t % 4, 2, 3])
        assert_same_value(copy.step(actions), env.step(actions), f"step {t} of the copy")
    assert env.get_attr("wind_power") == (15.0, 15.0, 15.0)
    with pytest.raises(AttributeError, match="vectorization_mode='sync'"):
        env.get_attr("lander")


def test_compiled_vector_env_refuses_to_change_its_action_kind():
    """continuous is fixed with the action space: the kernels never read Discrete actions as throttles."""
    env = nbgym.make_vec("LunarLander-v3", 2)
    with pytest.raises(AttributeError, match="continuous is fixed"):
        env.continuous = True
    with pytest.raises(AttributeError, match="continuous is fixed"):
        env.set_attr("continuous", True)
    assert env.get_attr("continuous") == (False, False) and not env.continuous
    theirs = gymnasium.make_vec("LunarLander-v3", 2, vectorization_mode="sync")
    for envs in (env, theirs):
        envs.set_attr("gravity", -5.0)  # read at the next reset, as gymnasium's env reads it
    assert env.get_attr("gravity") == (-5.0, -5.0)
    assert_same_value(env.reset(seed=3), theirs.reset(seed=3), "reset with the new gravity")
    for t in range(30):
        assert_same_value(env.step(np.array([0, 2])), theirs.step(np.array([0, 2])), f"step {t}")


def test_compiled_vector_env_needs_no_box2d_wheel(monkeypatch):
    """make_vec's LunarLander runs on nbgym's own Box2D port: without the box2d wheel it steps as with it."""
    expected = nbgym.make_vec("LunarLander-v3", 2)
    expected.reset(seed=4)
    monkeypatch.setitem(sys.modules, "Box2D", None)
    for name in [name for name in sys.modules if name.startswith("nbgym.envs.box2d")]:
        monkeypatch.delitem(sys.modules, name)
    env = nbgym.make_vec("LunarLander-v3", 2)
    env.reset(seed=4)
    for _ in range(20):
        assert_same_value(env.step(np.array([2, 3])), expected.step(np.array([2, 3])), "without the wheel")
    with pytest.raises(error.DependencyNotInstalled):  # the single env is still the wheel's
        nbgym.make("LunarLander-v3")


def test_nbgym_record_writes_a_video(tmp_path, monkeypatch):
    from nbgym.cli import main

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    out = tmp_path / "lander.mp4"
    assert main(["record", "LunarLander-v3", "--out", str(out), "--max-steps", "20"]) == 0
    assert out.stat().st_size > 1000
