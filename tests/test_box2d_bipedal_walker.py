"""BipedalWalker (normal and hardcore) against gymnasium 1.4.0, bit for bit: single env, vector envs in every
autoreset mode, frames, bad actions; and its compiled lidar against Box2D's own ray casts."""

from __future__ import annotations

import math

import Box2D
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
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.envs.box2d import bipedal_walker
from nbgym.envs.box2d.bipedal_walker import BipedalWalkerHardcore, BipedalWalkerHeuristics


def motor_policy(rng: np.random.Generator, observation: np.ndarray) -> np.ndarray | list[float]:
    """Random motor speeds, mostly float32 (the rewards are then float32), some float64, beyond [-1, 1] or lists."""
    action = rng.uniform(-1.3, 1.3, 4)
    kind = rng.integers(0, 4)
    return action.astype(np.float32) if kind < 2 else action if kind == 2 else action.tolist()


def walking_policy() -> callable:
    """gymnasium's heuristic walker (it walks far enough to bring the hardcore obstacles into its lidar)."""
    heuristics = BipedalWalkerHeuristics()
    return lambda rng, observation: heuristics.step_heuristic(observation).copy()


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_make_matches_gymnasium(env_id):
    assert compare_single(env_id, motor_policy, range(3), 400) >= 3


@pytest.mark.parametrize(("env_id", "seed"), [("BipedalWalker-v3", 2), ("BipedalWalkerHardcore-v3", 4)])
def test_walking_matches_gymnasium(env_id, seed):
    compare_single(env_id, walking_policy(), [seed], 600)


def test_hardcore_kwarg_is_the_hardcore_id():
    ours = nbgym.make("BipedalWalker-v3", hardcore=True)
    assert_same_value(ours.reset(seed=1), gymnasium.make("BipedalWalkerHardcore-v3").reset(seed=1))
    assert len(ours.unwrapped._ground[2]) > 0  # stumps, stairs and pits


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_matches_gymnasium_sync(mode):
    terminations, _ = compare_vector(
        "BipedalWalker-v3",
        lambda rng, observations: rng.uniform(-1, 1, (len(observations), 4)).astype(np.float32),
        3,
        mode,
        11,
        150,
        {"hardcore": True},
        vectorization_mode="sync",
    )
    assert terminations >= 1


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_frames_are_gymnasiums(env_id):
    """Frames while walking: the scrolled terrain, clouds, one lidar ray at a time, the walker and the flag."""
    assert compare_frames(env_id, walking_policy(), 2, 300, 7) > 40


def test_human_mode_shows_the_frames():
    assert_human_mode_shows_the_frames("BipedalWalker-v3", 30)


def test_check_env_passes():
    assert_checked("BipedalWalker-v3")
    assert_checked("BipedalWalker-v3", hardcore=True)


@pytest.mark.parametrize(
    ("action", "expected"),
    [(np.zeros(3), IndexError), (np.float64(0.5), IndexError), (0.5, TypeError), (np.zeros((1, 4)), TypeError)],
)
def test_misshapen_actions_raise_gymnasiums_exceptions(action, expected):
    caught = raises_as_gymnasium("BipedalWalker-v3", action, expected)
    assert "of shape (4,)" in str(caught)


def test_nan_action_is_refused_before_the_world_moves():
    """gymnasium's Box2D stops on an assertion (after the NaN reached the world); nbgym refuses the action first."""
    action = np.array([0.1, np.nan, 0.2, 0.3], dtype=np.float32)
    caught = raises_as_gymnasium("BipedalWalker-v3", action, AssertionError)
    assert isinstance(caught, error.InvalidAction) and "not NaN" in str(caught)


def test_actions_gymnasium_accepts_give_its_results():
    """Extra numbers (they cost torque in the reward but move no joint), ints and lists, as in gymnasium."""
    ours, theirs = nbgym.make("BipedalWalker-v3"), gymnasium.make("BipedalWalker-v3")
    assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
    for t, action in enumerate([np.array([0.5, -1, 1, 0.2, 0.9]), np.array([1, 0, -1, 1]), [0.3, 0.3, -0.3, 2.0]]):
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")


def test_registry_and_classes_are_gymnasiums():
    assert_registered_as_gymnasium("BipedalWalker-v3")
    assert_registered_as_gymnasium("BipedalWalkerHardcore-v3")
    with pytest.raises(error.Error, match='nbgym.make\\("BipedalWalker-v3", hardcore=True\\)'):
        BipedalWalkerHardcore()


class _NearestGround(Box2D.b2.rayCastCallback):
    """gymnasium's lidar callback: the nearest fixture of category 1 (the ground)."""

    def ReportFixture(self, fixture, point, normal, fraction):
        if (fixture.filterData.categoryBits & 1) == 0:
            return -1
        self.p2 = point
        self.fraction = fraction
        return fraction


@pytest.fixture(scope="module")
def hardcore_world():
    env = bipedal_walker.BipedalWalker(hardcore=True)
    env.reset(seed=6)
    return env


@settings(max_examples=300, deadline=None)
@given(
    x=st.floats(0.0, bipedal_walker.TERRAIN_LENGTH * bipedal_walker.TERRAIN_STEP),
    y=st.floats(0.5, 10.0),
    angle=st.floats(-math.pi, math.pi),
    reach=st.floats(0.1, 12.0),
)
def test_lidar_is_box2ds_ray_cast(hardcore_world, x, y, angle, reach):
    """Any ray over the hardcore ground (edges, stumps, stairs, pit walls) ends where b2World.RayCast ends it."""
    end = (x + math.cos(angle) * reach, y + math.sin(angle) * reach)
    fractions = np.empty(1, dtype=np.float32)
    points = np.empty((1, 2), dtype=np.float32)
    env = hardcore_world
    bipedal_walker._cast_lidar(x, y, np.array([end]), *env._ground, fractions, points)
    callback = _NearestGround()
    callback.fraction, callback.p2 = 1.0, None
    if np.float32(x) == np.float32(end[0]) and np.float32(y) == np.float32(end[1]):
        return  # Box2D asserts on a ray of length zero
    env.world.RayCast(callback, (x, y), end)
    if callback.p2 is None:
        assert fractions[0] > 1
    else:
        assert float(fractions[0]) == callback.fraction
        assert points[0].tolist() == [callback.p2[0], callback.p2[1]]
