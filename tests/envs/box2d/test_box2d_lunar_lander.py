"""LunarLander (discrete and continuous, wind, gravity) against gymnasium 1.4.0, bit for bit: single env, vector
envs in every autoreset mode, frames, bad actions, and the registry's ids."""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
import warnings
from types import SimpleNamespace
from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from helpers.box2d_checks import (
    assert_checked,
    assert_every_window_update_is_gymnasiums,
    assert_human_mode_shows_the_frames,
    assert_registered_as_gymnasium,
    compare_frames,
    raises_as_gymnasium,
)
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.toy_text_checks import assert_same_value

import nbgym
from nbgym import error
from nbgym._box2d import broad_phase
from nbgym._box2d import world as port_world
from nbgym.envs.box2d.lunar_lander import LunarLanderContinuous, demo_heuristic_lander, heuristic
from helpers.jit import INTERPRETED
from helpers.paths import TESTS

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
    steps, ended = run_length(1200, 6)
    assert compare_single("LunarLander-v3", lander_policy, range(3), steps) >= ended


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
    steps, ended = run_length(600, 1)
    assert compare_single("LunarLander-v3", policy, range(2), steps, kwargs=kwargs) >= ended


def test_continuous_id_matches_gymnasium():
    steps, ended = run_length(600, 1)
    assert compare_single("LunarLanderContinuous-v3", throttle_policy, [5], steps) >= ended


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
            return np.array(
                [
                    throttle_policy(rng, obs) if rng.random() < 0.65 else rng.uniform(-1.2, 1.2, 2)
                    for obs in observations
                ],
                dtype=np.float32,
            )
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
    terminations, truncations = compare_vector(
        env_id, vector_policy(continuous), 5, "NextStep", 3, steps, kwargs, nbgym_kwargs={"num_threads": 2}
    )
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
    terminations, _ = compare_vector(
        "LunarLander-v3", vector_policy(continuous), 8, MODES[seed % 3], seed, 3000, kwargs
    )
    assert terminations >= 10


def test_async_vector_env_matches_gymnasium_sync():
    terminations, _ = compare_vector(
        "LunarLander-v3",
        lambda rng, obs: rng.integers(0, 4, len(obs)),
        2,
        "NextStep",
        1,
        150,
        vectorization_mode="async",
    )
    assert terminations >= 1


@pytest.mark.parametrize("continuous", [False, True])
def test_frames_are_gymnasiums(continuous):
    """Frames with flame particles (they live while frames are drawn), legs on the ground and the flags."""
    policy = throttle_policy if continuous else lander_policy
    steps = run_length(250, 0)[0]
    assert compare_frames("LunarLander-v3", policy, 3, steps, 3, {"continuous": continuous}) >= steps // 3


def test_human_mode_shows_the_frames():
    assert_human_mode_shows_the_frames("LunarLander-v3", 30)


def test_human_mode_shows_every_frame_of_gymnasiums_resets(monkeypatch):
    """Flames included: the main and side engines fire, and their particles are drawn (and aged) in every update."""
    assert_every_window_update_is_gymnasiums(monkeypatch, "LunarLander-v3", [2, 2, 1, 3, 2, 0], 2 + 6 + 2)


def test_check_env_passes():
    assert_checked("LunarLander-v3")
    assert_checked("LunarLander-v3", continuous=True)


def test_bad_discrete_actions_are_assertion_errors_as_in_gymnasium():
    for action in (4, -1, 1.0, "2", np.array([1, 2])):
        caught = raises_as_gymnasium("LunarLander-v3", action, AssertionError)
        assert isinstance(caught, error.InvalidAction) and "invalid" in str(caught)  # gymnasium's message


@pytest.mark.parametrize(
    ("action", "expected"),
    [(np.array([0.5]), IndexError), (0.5, IndexError), (np.ones((2, 2)), ValueError)],
)
def test_misshapen_continuous_actions_raise_gymnasiums_exceptions(action, expected):
    caught = raises_as_gymnasium("LunarLanderContinuous-v3", action, expected)
    assert "is not an action of Box" in str(caught)


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
    for old in (
        "LunarLander-v2",
        "LunarLanderContinuous-v2",
        "BipedalWalker-v2",
        "BipedalWalkerHardcore-v2",
        "CarRacing-v2",
    ):
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


def test_single_env_needs_no_box2d_wheel(monkeypatch):
    """nbgym.make's LunarLander runs on nbgym's own Box2D port: without the box2d wheel (any import of it raises) it
    steps and draws as gymnasium's."""
    theirs = gymnasium.make("LunarLander-v3", render_mode="rgb_array")
    monkeypatch.setitem(sys.modules, "Box2D", None)
    for name in [name for name in sys.modules if name.startswith("nbgym.envs.box2d")]:
        monkeypatch.delitem(sys.modules, name)
    env = nbgym.make("LunarLander-v3", render_mode="rgb_array")
    assert_same_value(env.reset(seed=4), theirs.reset(seed=4))
    for t in range(run_length(20, 0)[0] // 2):
        assert_same_value(env.step(2), theirs.step(2), f"step {t}")
        assert_same_value(env.render(), theirs.render(), f"frame {t}")


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


def test_a_vector_env_pickled_where_vectors_are_16_wide_steps_the_same_where_they_are_8(tmp_path):
    """The Box2D port's vectors are one register of the processor numba compiles for (``simd.LANES``: 16 with
    AVX-512, 8 without), and each lane computes its world's floats alone: an env pickled on one kind of machine
    unpickles on the other (the physics' record is the same, the worlds' arrays hold room for 16 lanes) and steps to
    the same floats as it would have where it was made. Interpreted, in processes of their own, where
    ``NUMBA_CPU_NAME`` only chooses the width."""
    script, path = str(TESTS / "helpers" / "lane_width_pickle.py"), str(tmp_path / "envs.pickle")
    widths = {"16": {"NUMBA_CPU_NAME": "x86-64-v4", "NUMBA_CPU_FEATURES": ""}, "8": {"NUMBA_CPU_NAME": "generic"}}
    printed = {}
    for mode, width in (("make", "16"), ("load", "8")):
        environment = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(TESTS), **widths[width]}
        done = subprocess.run([sys.executable, script, mode, path], env=environment, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        printed[mode] = done.stdout.split()
    assert printed["make"][0] == "16" and printed["load"][0] == "8"
    assert printed["load"][1] == printed["make"][1]


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


def test_nbgym_record_writes_a_video(tmp_path, monkeypatch):
    from nbgym.cli import main

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    out = tmp_path / "lander.mp4"
    assert main(["record", "LunarLander-v3", "--out", str(out), "--max-steps", "20"]) == 0
    assert out.stat().st_size > 1000


def engines_on(rng: np.random.Generator, continuous: bool) -> Any:
    """Heavy engine use: both engines of the continuous lander at random throttles, the main or a side engine of
    the discrete one (every step throws flame particles)."""
    if continuous:
        return rng.uniform(-1.0, 1.0, 2) * np.array([1.0, 1.0]) + np.array([0.6, 0.0])
    return int(rng.choice([1, 2, 2, 3]))


def compare_rendered(continuous: bool, seed: int, steps: int, drawn: Callable[[int], bool], **kwargs: Any) -> Any:
    """Steps rendered envs of nbgym and gymnasium side by side with heavy engine use, drawing a frame when
    ``drawn(t)``: every step's results and every frame identical, the particles alike. Returns our env."""
    ours = nbgym.make("LunarLander-v3", render_mode="rgb_array", continuous=continuous, **kwargs)
    theirs = gymnasium.make("LunarLander-v3", render_mode="rgb_array", continuous=continuous, **kwargs)
    assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    for t in range(steps):
        action = engines_on(rng, continuous)
        expected = theirs.step(action)
        assert_same_value(ours.step(action), expected, f"step {t}")
        if drawn(t):
            assert_same_value(ours.render(), theirs.render(), f"frame {t}")
        assert len(ours.unwrapped.particles) == len(theirs.unwrapped.particles)
        if expected[2] or expected[3]:
            assert_same_value(ours.reset(), theirs.reset(), f"step {t} reset")
    for mine, gyms in zip(ours.unwrapped.particles, theirs.unwrapped.particles):
        assert (mine.ttl, tuple(mine.position), mine.angle) == (gyms.ttl, tuple(gyms.position), gyms.angle)
    theirs.close()
    return ours


@pytest.mark.parametrize("continuous", [False, True])
def test_rendered_env_frames_and_particles_are_gymnasiums_at_every_step(continuous):
    """A frame every step: the particles live a few frames, as gymnasium's (created in the step, aged by render)."""
    compare_rendered(continuous, 2, run_length(120, 0)[0], lambda t: True, enable_wind=continuous)


@pytest.mark.parametrize("continuous", [False, True])
def test_particles_pile_up_without_frames_and_the_world_grows_exactly(continuous):
    """Particles age only when frames are drawn: without frames they pile up (each a body colliding with the moon),
    and the world's rows grow past every capacity (bodies, fixtures, contacts, tree nodes, moves, pairs) while
    every step stays gymnasium's; then frames age them away. Frames at first make particles die, so that the
    world grows with freed rows and tree nodes on its free lists (Box2D hands freed nodes out first)."""
    steps = run_length(160, 0)[0]
    ours = compare_rendered(continuous, 5, steps, lambda t: (t < steps // 4 and t % 3 == 0) or t >= steps - 12)
    grown = port_world.capacities(ours.unwrapped._batch.state.w)
    assert grown["bodies"] > 4 + steps // 2 and grown["tree_nodes"] > 32
    # the pair buffer holds the pairs a step finds, as Box2D's: not every moved proxy times every proxy (quadratic)
    assert grown["pairs"] <= 4 * grown["fixtures"]


def test_a_short_pair_buffer_takes_its_pairs_in_batches_and_grows():
    """A world whose pair buffer holds two pairs steps as gymnasium's (the broad phase hands the pairs over in
    batches, in Box2D's order), and grows it to the pairs its steps found."""
    ours = nbgym.make("LunarLander-v3", render_mode="rgb_array")
    theirs = gymnasium.make("LunarLander-v3", render_mode="rgb_array")
    assert_same_value(ours.reset(seed=3), theirs.reset(seed=3))
    env = ours.unwrapped
    state = env._batch.state
    env._batch.state = state._replace(w=state.w._replace(pair_buffer=np.zeros((1, 2, 2), np.int32)))
    env._bind(env.np_random)
    rng = np.random.default_rng(3)
    for t in range(run_length(40, 0)[0]):
        action = engines_on(rng, False)
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")
    w = env._batch.state.w
    assert 2 < port_world.capacities(w)["pairs"] <= max(4, 2 * int(w.bp_i[0, broad_phase.PAIR_COUNT]))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_rendered_env_long_runs(seed):
    """Long runs: frames drawn at random, so the particles pile up and age in every mix."""
    rng = np.random.default_rng(seed)
    draws = rng.random(1500) < 0.3
    compare_rendered(bool(seed % 2), seed, 1500, lambda t: bool(draws[t]), enable_wind=seed == 2)


def set_both(ours: Any, theirs: Any, edit: Callable[[Any], None]) -> None:
    edit(ours.unwrapped)
    edit(theirs.unwrapped)


EDITS = {
    "position": lambda env: setattr(env.lander, "position", (env.lander.position[0] + 0.5, env.lander.position.y)),
    "angle": lambda env: setattr(env.lander, "angle", 0.3),
    "transform": lambda env: setattr(env.legs[0], "transform", ((9.0, 8.0), -0.2)),
    "linearVelocity": lambda env: setattr(env.lander, "linearVelocity", (1.5, -2.0)),
    "angularVelocity": lambda env: setattr(env.lander, "angularVelocity", 0.7),
    "asleep": lambda env: setattr(env.lander, "awake", False),
    "gravity": lambda env: setattr(env.world, "gravity", (0.5, -3.0)),
    "force": lambda env: env.lander.ApplyForceToCenter((300.0, 50.0), True),
    "point force": lambda env: env.legs[1].ApplyForce((30.0, 5.0), env.legs[1].worldCenter + (0.1, 0.0), True),
    "impulse": lambda env: env.lander.ApplyLinearImpulse((2.0, 1.0), env.lander.position, True),
    "torque": lambda env: env.lander.ApplyTorque(40.0, True),
    "angular impulse": lambda env: env.lander.ApplyAngularImpulse(3.0, True),
    "damping": lambda env: setattr(env.lander, "linearDamping", 0.8),
    "friction": lambda env: setattr(env.legs[0].fixtures[0], "friction", 0.9),
    "ground_contact": lambda env: setattr(env.legs[0], "ground_contact", True),
    "game_over": lambda env: setattr(env, "game_over", True),
    "prev_shaping": lambda env: setattr(env, "prev_shaping", None),
    "helipad_y": lambda env: setattr(env, "helipad_y", 3.0),
    "wind_idx": lambda env: setattr(env, "wind_idx", env.wind_idx + 100),
    "particle ttl": lambda env: setattr(env.particles[0], "ttl", -1.0),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_writes_mid_episode_act_as_on_gymnasiums_objects(name):
    """The same write on both envs' Box2D objects mid-episode (SetTransform, SetLinearVelocity, SetAwake, forces,
    the listener's flags...) gives the same steps and frames after it."""
    ours = nbgym.make("LunarLander-v3", render_mode="rgb_array", continuous=True, enable_wind=True)
    theirs = gymnasium.make("LunarLander-v3", render_mode="rgb_array", continuous=True, enable_wind=True)
    assert_same_value(ours.reset(seed=7), theirs.reset(seed=7))
    action = np.array([0.8, 0.7])
    for t in range(8):
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")
    set_both(ours, theirs, EDITS[name])
    for t in range(run_length(25, 0)[0] // 2):
        assert_same_value(ours.step(action), theirs.step(action), f"{name}: step {t}")
        assert_same_value(ours.render(), theirs.render(), f"{name}: frame {t}")
        if t == 0:
            assert_same_reads(ours.unwrapped, theirs.unwrapped)


def assert_same_reads(ours: Any, theirs: Any) -> None:
    """What the Box2D objects read: the same numbers (b2Vec2s as tuples), types and shapes."""
    for mine, gyms in [(ours.lander, theirs.lander), *zip(ours.legs, theirs.legs), (ours.moon, theirs.moon)]:
        for name in ("position", "linearVelocity", "worldCenter", "localCenter"):
            assert tuple(getattr(mine, name)) == tuple(getattr(gyms, name)), name
            assert getattr(mine, name).x == getattr(gyms, name).x
        for name in (
            "angle",
            "angularVelocity",
            "awake",
            "mass",
            "inertia",
            "linearDamping",
            "angularDamping",
            "gravityScale",
            "bullet",
            "active",
            "type",
            "fixedRotation",
            "sleepingAllowed",
        ):
            assert getattr(mine, name) == getattr(gyms, name), name
        assert tuple(mine.transform * (0.25, -0.5)) == tuple(gyms.transform * (0.25, -0.5))
        assert tuple(mine.GetWorldPoint((0.1, 0.2))) == tuple(gyms.GetWorldPoint((0.1, 0.2)))
        assert tuple(mine.GetLocalPoint((3.0, 4.0))) == tuple(gyms.GetLocalPoint((3.0, 4.0)))
        assert len(mine.fixtures) == len(gyms.fixtures)
        for fa, fb in zip(mine.fixtures, gyms.fixtures):
            assert (fa.density, fa.friction, fa.restitution, fa.sensor) == (
                fb.density,
                fb.friction,
                fb.restitution,
                fb.sensor,
            )
            assert fa.body == mine and fa.shape.radius == fb.shape.radius
            if hasattr(fb.shape, "vertices"):
                assert [tuple(v) for v in fa.shape.vertices] == [tuple(v) for v in fb.shape.vertices]
            else:
                assert tuple(fa.shape.pos) == tuple(fb.shape.pos)
    for mine, gyms in zip(ours.legs, theirs.legs):
        assert mine.ground_contact == gyms.ground_contact
    assert tuple(ours.world.gravity) == tuple(theirs.world.gravity)
    assert ours.world.bodyCount == len(theirs.world.bodies) and ours.world.contactCount == theirs.world.contactCount
    assert ours.lander in ours.world.bodies and ours.drawlist == [ours.lander, *ours.legs]
    assert (ours.game_over, ours.prev_shaping, ours.helipad_y) == (
        theirs.game_over,
        theirs.prev_shaping,
        theirs.helipad_y,
    )


def test_set_transform_of_an_unrendered_env_does_not_grow_its_world():
    env = nbgym.make("LunarLander-v3").unwrapped
    env.reset(seed=0)
    before = port_world.capacities(env._batch.state.w)
    env.lander.position = (5.0, 9.0)
    env.legs[1].angle = 0.5
    env.step(0)
    assert port_world.capacities(env._batch.state.w) == before
    with pytest.raises(ValueError, match="at least"):
        port_world.grown(env._batch.state.w, bodies=2)


def test_objects_refuse_what_the_compiled_world_does_not_serve():
    env = nbgym.make("LunarLander-v3").unwrapped
    assert env.lander is None and env.legs == [] and env.particles == []
    assert tuple(env.world.gravity) == (0.0, -10.0)
    env.reset(seed=0)
    with pytest.raises(AttributeError, match="gymnasium.make"):
        env.world.CreateDynamicBody(position=(1, 1))
    with pytest.raises(AttributeError, match="gravity"):
        env.world.contactListener = None
    with pytest.raises(AttributeError, match="massData"):
        env.lander.massData = None
    with pytest.raises(AttributeError, match="mass follows"):
        env.lander.mass = 3.0
    with pytest.raises(AttributeError, match="cannot change a fixture"):
        env.lander.fixtures[0].shape.radius = 1.0
    with pytest.raises(AttributeError, match="particle's ttl"):
        env.particles = []
    with pytest.raises(TypeError, match="two numbers"):
        env.lander.position = 3.0
    with pytest.raises(AttributeError, match="continuous is fixed"):
        env.continuous = True
    with pytest.raises(AttributeError, match="through its attributes"):
        env.lander = env.legs[0]
    legs = env.legs
    for change in (
        lambda: legs.__setitem__(0, env.lander),
        lambda: legs.append(env.lander),
        legs.clear,
        lambda: env.particles.append(env.lander),
        lambda: legs.__iadd__([env.lander]),
    ):
        with pytest.raises(TypeError, match="cannot be changed"):
            change()
    assert list(legs) == list(env.legs) and len(legs) == 2
    env.lander.tag = "mine"  # new attributes may be added, as on pybox2d's bodies
    assert env.lander.tag == "mine"
    rendered = nbgym.make("LunarLander-v3", render_mode="rgb_array").unwrapped
    rendered.reset(seed=0)
    rendered.step(2)
    (flame,) = rendered.particles
    flame.ttl = -1.0
    rendered.render()  # the expired particle is destroyed
    assert rendered.particles == []
    with pytest.raises(ReferenceError, match="destroyed"):
        flame.position


@pytest.mark.parametrize("vector", [False, True])
def test_wind_switched_on_without_its_offsets_raises_as_gymnasium(vector):
    """gymnasium's env has no wind_idx after a reset without wind: switching the wind on then fails at the next
    step (AttributeError), before anything moves. The next reset draws the offsets."""
    theirs = gymnasium.make("LunarLander-v3").unwrapped
    ours = nbgym.make_vec("LunarLander-v3", 2) if vector else nbgym.make("LunarLander-v3").unwrapped
    theirs.reset(seed=1)
    ours.reset(seed=1)
    theirs.enable_wind = True
    if vector:
        ours.set_attr("enable_wind", True)
    else:
        ours.enable_wind = True
    with pytest.raises(AttributeError, match="wind_idx"):
        theirs.step(0)
    with pytest.raises(AttributeError, match="wind_idx"):
        ours.step(np.zeros(2, np.int64) if vector else 0)
    if vector:
        ours.reset(seed=1)
        ours.step(np.zeros(2, np.int64))
    else:
        ours.wind_idx = 5
        with pytest.raises(AttributeError, match="torque_idx"):
            ours.step(0)
        assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
        assert_same_value(ours.step(2), theirs.step(2))
        assert ours.wind_idx == theirs.wind_idx


@pytest.mark.parametrize("vector", [False, True])
def test_a_world_capacity_error_raises_and_needs_a_reset(vector):
    """A capacity the port ran out of (it then creates nothing) stops the step: the env raises and needs a reset."""
    env = nbgym.make_vec("LunarLander-v3", 2) if vector else nbgym.make("LunarLander-v3").unwrapped
    env.reset(seed=0)
    env._batch.state.w.world_i[-1, port_world.WI_ERROR] = port_world.ERR_CONTACTS
    with pytest.raises(error.PhysicsCapacityError, match="ran out of contact rows"):
        env.step(np.zeros(2, np.int64) if vector else 0)
    with pytest.raises(error.ResetNeeded):
        env.step(np.zeros(2, np.int64) if vector else 0)
    env.reset(seed=0)
    env.step(np.zeros(2, np.int64) if vector else 0)


def test_pickled_env_starts_afresh_from_its_arguments():
    env = nbgym.make("LunarLander-v3", render_mode="rgb_array", enable_wind=True).unwrapped
    env.reset(seed=3)
    env.step(2)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.render_mode == "rgb_array" and copy.enable_wind and copy.lander is None
    assert_same_value(copy.reset(seed=3), env.reset(seed=3))
    for t in range(5):
        assert_same_value(copy.step(2), env.step(2), f"step {t}")
        assert_same_value(copy.render(), env.render(), f"frame {t}")


def test_bodies_of_an_earlier_episode_refuse_to_be_read():
    """After a reset the rows of the last episode's bodies hold the new episode's: an object handed out before it
    refuses (gymnasium's destroyed SWIG bodies are no longer usable either) rather than reading another body."""
    env = nbgym.make("LunarLander-v3").unwrapped
    env.reset(seed=0)
    lander, leg, fixture = env.lander, env.legs[0], env.lander.fixtures[0]
    env.reset(seed=1)
    for read in (
        lambda: lander.position,
        lambda: leg.ground_contact,
        lambda: fixture.friction,
        lambda: setattr(lander, "angle", 0.3),
    ):
        with pytest.raises(ReferenceError, match="read the env's attribute again"):
            read()
    assert env.lander.position == env.lander.position  # the new episode's objects read


def test_prev_shaping_refuses_what_gymnasiums_arithmetic_would_change():
    env = nbgym.make("LunarLander-v3").unwrapped
    env.reset(seed=0)
    env.step(0)
    before = env.prev_shaping
    for value in ("1.0", np.array([1.0]), np.longdouble(1.0)):
        with pytest.raises(TypeError, match="prev_shaping"):
            env.prev_shaping = value
    assert env.prev_shaping == before
    env.prev_shaping = None
    assert env.prev_shaping is None


@pytest.mark.parametrize("write", ["prev_shaping", "position", "linearVelocity"])
def test_a_nan_shaping_makes_the_rewards_nan_as_in_gymnasium(write):
    """The row kept gymnasium's ``prev_shaping = None`` as NaN, so a NaN shaping (of a NaN written into the lander's
    state, or into prev_shaping) stepped as ``None``: rewards of 0.0 where gymnasium's are NaN. A flag keeps None."""
    ours, theirs = nbgym.make("LunarLander-v3").unwrapped, gymnasium.make("LunarLander-v3").unwrapped
    for env in (ours, theirs):
        env.reset(seed=3)
        env.step(0)
        if write == "prev_shaping":
            env.prev_shaping = math.nan
        else:
            setattr(env.lander, write, (math.nan, 5.0))
    for t in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ours_reward, theirs_reward = ours.step(0)[1], theirs.step(0)[1]
        assert type(ours_reward) is type(theirs_reward)
        if write == "prev_shaping" and t > 0:  # measured from the new shaping again
            assert ours_reward == theirs_reward and ours.prev_shaping == theirs.prev_shaping
        else:
            assert math.isnan(ours_reward) and math.isnan(theirs_reward)
            assert math.isnan(ours.prev_shaping) == math.isnan(theirs.prev_shaping) == (write != "prev_shaping")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("prev_shaping", np.float32(1.0)),
        ("prev_shaping", np.int8(-3)),
        ("prev_shaping", np.array(2.5)),
        ("prev_shaping", np.True_),
        ("helipad_y", np.float64(3.5)),
        ("helipad_y", np.array(3.5)),
        ("helipad_y", 3),
    ],
    ids=repr,
)
def test_written_numbers_of_numpy_types_step_as_in_gymnasium(name, value):
    """gymnasium's arithmetic follows the type written (issue 51): ``shaping - prev_shaping`` of a float64 shaping is
    float64 with any numpy number, ``helipad_y`` meets the bodies' Python floats."""
    results = []
    for library in (nbgym, gymnasium):
        env = library.make("LunarLander-v3").unwrapped
        env.reset(seed=4)
        env.step(2)
        setattr(env, name, value)
        results.append([env.step(action)[:2] for action in (2, 0, 3)])
    for (obs, reward), (their_obs, their_reward) in zip(*results):
        np.testing.assert_array_equal(obs, their_obs)
        assert type(reward) is type(their_reward) and reward == their_reward


@pytest.mark.parametrize("value", ["3", np.float32(3.5), np.True_, np.array([3.5]), np.int64(3)], ids=repr)
def test_helipad_y_refuses_what_gymnasiums_step_fails_with_or_the_kernels_do_not_follow(value):
    """gymnasium's step fails with a string helipad_y (``TypeError``: ``'3' + float``) and computes a float32 one in
    float32: refused before anything moves."""
    env = nbgym.make("LunarLander-v3").unwrapped
    env.reset(seed=4)
    before = env.helipad_y
    with pytest.raises(TypeError, match="helipad_y"):
        env.helipad_y = value
    assert env.helipad_y == before
    if isinstance(value, str):
        theirs = gymnasium.make("LunarLander-v3").unwrapped
        theirs.reset(seed=4)
        theirs.helipad_y = value
        with pytest.raises(TypeError):
            theirs.step(0)


@pytest.mark.parametrize(
    ("env_id", "action"),
    [
        ("LunarLander-v3", 0),
        ("LunarLander-v3", 2),
        ("LunarLanderContinuous-v3", np.array([0.0, 0.0])),
        ("LunarLanderContinuous-v3", np.array([0.9, 0.0])),
    ],
)
def test_the_reward_after_prev_shaping_set_to_none_has_gymnasiums_type(env_id, action):
    """gymnasium's reward is the int 0 less the engines' power: a float, or a np.float64 through the shaping change or
    a continuous engine's numpy power (found by the written-values sweep)."""
    rewards = []
    for library in (nbgym, gymnasium):
        env = library.make(env_id).unwrapped
        env.reset(seed=1)
        env.step(action)
        env.prev_shaping = None
        rewards.append(env.step(action)[1])
    assert type(rewards[0]) is type(rewards[1]) and rewards[0] == rewards[1]


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_vector_steps_batches_of_any_layout_or_byte_order(env_id):
    """A strided, read-only or big-endian batch (which gymnasium takes) steps as its contiguous native copy: numba's
    ``reshape`` of a strided batch once raised a TypingError and the env then demanded a reset (issue 51)."""
    if env_id == "LunarLander-v3":
        batch = np.array([2, 0, 3], dtype=np.int64)
    else:
        batch = np.array([[0.9, 0.0], [-0.2, 0.8], [0.5, -0.7]], dtype=np.float32)
    read_only = batch.copy()
    read_only.setflags(write=False)
    layouts = {
        "strided": np.repeat(batch, 2, axis=0)[::2],
        "read-only": read_only,
        "big-endian": batch.astype(batch.dtype.newbyteorder(">")),
    }
    reference = nbgym.make_vec(env_id, 3)
    for name, actions in layouts.items():
        env = nbgym.make_vec(env_id, 3)
        for vector in (env, reference):
            vector.reset(seed=6)
        for _ in range(2):
            mine, wanted = env.step(actions), reference.step(batch)
            np.testing.assert_array_equal(mine[0], wanted[0], err_msg=name)
            np.testing.assert_array_equal(mine[1], wanted[1], err_msg=name)
