"""BipedalWalker (normal and hardcore) against gymnasium 1.4.0, bit for bit: single env, vector envs in every
autoreset mode (make_vec's compiled BipedalWalkerVectorEnv on the Box2D port, and the sync vector env of single
envs), frames, bad actions; and its compiled lidar against Box2D's own ray casts."""

from __future__ import annotations

import math
from typing import Any

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
from _classic_control_checks import INTERPRETED, MODES, compare_single, compare_vector, compare_vector_resets
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


def vector_policy(walk: float = 0.7) -> callable:
    """Per sub-environment, gymnasium's heuristic walker (with probability ``walk``) or random motor speeds
    beyond [-1, 1]; float32 batches, with a float64 one now and then (float64 rewards)."""
    walkers: dict[int, BipedalWalkerHeuristics] = {}

    def policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
        rows = []
        for k, observation in enumerate(observations):
            heuristics = walkers.setdefault(k, BipedalWalkerHeuristics())
            action = heuristics.step_heuristic(observation)
            rows.append(action if rng.random() < walk else rng.uniform(-1.3, 1.3, 4))
        actions = np.array(rows)
        return actions if rng.random() < 0.1 else actions.astype(np.float32)

    return policy


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hardcore", [False, True])
def test_compiled_vector_env_matches_gymnasium_sync(mode, hardcore):
    """make_vec's BipedalWalkerVectorEnv (the compiled Box2D port) is gymnasium's sync vector env, bit for bit:
    walking over the (hardcore) terrain, falling, resets in the same worlds."""
    assert type(nbgym.make_vec("BipedalWalker-v3", 2)).__name__ == "BipedalWalkerVectorEnv"
    steps = 150 if INTERPRETED else 400
    terminations, _ = compare_vector("BipedalWalker-v3", vector_policy(0.6), 4, mode, 7, steps, {"hardcore": hardcore})
    assert terminations >= (0 if INTERPRETED else 3)


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_compiled_vector_env_in_threads_and_with_time_limits(env_id):
    """Two stepping threads and a short time limit (truncations): the same as gymnasium's sync vector env."""
    terminations, truncations = compare_vector(env_id, vector_policy(0.9), 5, "NextStep", 3, 120 if INTERPRETED else 300,
                                               {"max_episode_steps": 70}, nbgym_kwargs={"num_threads": 2})
    assert truncations >= 5


def test_compiled_vector_env_takes_int_float64_and_signed_zero_actions_as_gymnasium():
    """Int and float64 batches compute in float64 (float64 rewards), float32 ones in float32; -0.0 drives no
    motor, as np.sign(-0.0) is 0.0; speeds beyond [-1, 1] are clipped torques."""
    ours = nbgym.make_vec("BipedalWalker-v3", 2, hardcore=True)
    theirs = gymnasium.make_vec("BipedalWalker-v3", 2, vectorization_mode="sync", hardcore=True)
    assert_same_value(ours.reset(seed=3), theirs.reset(seed=3))
    rng = np.random.default_rng(1)
    for t in range(120):
        kind = t % 4
        if kind == 0:
            actions = rng.integers(-2, 3, (2, 4))
        elif kind == 1:
            actions = rng.uniform(-2, 2, (2, 4))
        elif kind == 2:
            actions = rng.uniform(-2, 2, (2, 4)).astype(np.float32)
        else:
            actions = np.array([[0.0, -0.0, 1.0, -1.0], [-0.0] * 4], dtype=np.float32)
        assert_same_value(ours.step(actions), theirs.step(actions), f"step {t}")


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_compiled_vector_env_seeds_and_masked_resets_are_gymnasiums(env_id):
    compare_vector_resets(env_id, {}, lambda rng, n: rng.uniform(-1, 1, (n, 4)).astype(np.float32))


def test_compiled_vector_env_worlds_stay_within_their_capacities():
    """Hardcore terrains of many seeds (the most obstacles), fallen walkers: no port capacity runs out."""
    from nbgym._box2d import world as W
    from nbgym.envs.box2d import bipedal_walker_vector as BV

    num_envs, steps = (8, 5) if INTERPRETED else (32, 40)
    env = nbgym.make_vec("BipedalWalker-v3", num_envs, hardcore=True)
    state = env._batch.state
    rng = np.random.default_rng(0)
    most = 0
    for seed in range(8):
        env.reset(seed=seed * 100)
        most = max(most, int(state.env_i[:, BV.TERRAIN_COUNT].max()))
        for _ in range(steps):
            env.step(rng.uniform(-1, 1, (num_envs, 4)).astype(np.float32))
        assert (state.w.world_i[:, W.WI_ERROR] == 0).all()
    assert 215 <= most < BV._MAX_TERRAIN - 40  # 199 edges and their obstacles


def test_rendered_vector_env_is_a_sync_vector_env():
    """The compiled vector env draws no frames: with a render mode make_vec vectorizes the single envs."""
    env = nbgym.make_vec("BipedalWalker-v3", 2, render_mode="rgb_array")
    assert type(env).__name__ == "SyncVectorEnv"
    env.reset(seed=1)
    env.step(np.zeros((2, 4), np.float32))
    assert len(env.render()) == 2


def test_compiled_vector_env_refuses_nan_actions_before_anything_moves():
    ours = nbgym.make_vec("BipedalWalker-v3", 3)
    theirs = gymnasium.make_vec("BipedalWalker-v3", 3, vectorization_mode="sync")
    assert_same_value(ours.reset(seed=0), theirs.reset(seed=0))
    bad = np.zeros((3, 4), np.float32)
    bad[1, 2] = np.nan
    with pytest.raises(error.InvalidAction):
        ours.step(bad)
    actions = np.full((3, 4), 0.25, np.float32)
    assert_same_value(ours.step(actions), theirs.step(actions))


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "walk"), [(0, 0.8), (1, 0.8), (2, 1.0), (3, 1.0), (4, 0.99), (5, 0.99)])
def test_compiled_vector_env_long_runs(seed, walk):
    """Long runs of 6 sub-environments: thousands of steps of walking (whole 1600- and 2000-step episodes
    of the heuristic walker, truncated) and falling on both terrains, many resets of each world, in every
    autoreset mode."""
    terminations, truncations = compare_vector("BipedalWalker-v3", vector_policy(walk), 6, MODES[seed % 3], seed,
                                               4000, {"hardcore": bool(seed % 2)})
    assert terminations >= 10
    assert truncations >= (1 if walk > 0.9 else 0)


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


def edit_ground(step: int, env: Any) -> None:
    """The same change of the ground (through the world, the terrain list or the hull), for both environments."""
    if step == 2:  # a wall just ahead of the walker, in the lidar's reach
        x, y = env.hull.position
        wall = Box2D.b2.fixtureDef(shape=Box2D.b2.polygonShape(box=(0.2, 3.0, (x + 2.0, y - 1.0), 0.0)), categoryBits=1)
        env.world.CreateStaticBody(fixtures=wall)
    elif step == 4:  # the walls and edges under the walker destroyed, through the terrain list
        x = env.hull.position[0]
        for body in [body for body in env.terrain if abs(body.fixtures[0].shape.vertices[0][0] - x) < 3.0]:
            env.world.DestroyBody(body)
            env.terrain.remove(body)  # reset destroys what the list holds
    elif step == 6:  # the new wall moved, reached through the world
        for body in env.world.bodies:
            if body.type == Box2D.b2.staticBody and body not in env.terrain:
                body.position = (body.position[0] - 0.7, body.position[1] + 0.5)


def test_ground_changed_after_reset_is_what_the_lidar_sees_as_in_gymnasium():
    """Bodies created, destroyed or moved after a reset change the lidar's readings as gymnasium's; stepping
    without touching the world keeps the compiled lidar."""
    ours, theirs = nbgym.make("BipedalWalker-v3"), gymnasium.make("BipedalWalker-v3")
    assert_same_value(ours.reset(seed=3), theirs.reset(seed=3))
    action = np.array([0.3, -0.2, 0.1, 0.4], dtype=np.float32)
    assert_same_value(ours.step(action), theirs.step(action))
    assert not ours.unwrapped._world_handed_out
    for step in range(2, 9):
        for env in (ours, theirs):
            edit_ground(step, env.unwrapped)
        assert_same_value(ours.step(action), theirs.step(action))
    assert ours.unwrapped._world_handed_out
    assert_same_value(ours.reset(seed=4), theirs.reset(seed=4))  # the world outlives the episode
    assert_same_value(ours.step(action), theirs.step(action))


def test_ground_attributes_before_reset_are_gymnasiums():
    ours, theirs = bipedal_walker.BipedalWalker(), gymnasium.make("BipedalWalker-v3").unwrapped
    assert (ours.terrain, ours.hull) == (theirs.terrain, theirs.hull) == ([], None)
    with pytest.raises(AttributeError, match="reset"):
        ours.drawlist


def test_fixture_definitions_changed_before_reset_act_as_in_gymnasium():
    """fd_edge out of the lidar's category: the rays pass through the ground's edges, as gymnasium's."""
    ours, theirs = nbgym.make("BipedalWalker-v3"), gymnasium.make("BipedalWalker-v3")
    for env in (ours, theirs):
        env.unwrapped.fd_edge.categoryBits = 0x0002
        env.unwrapped.fd_edge.maskBits = 0x0020  # the legs still stand on it
    assert_same_value(ours.reset(seed=6), theirs.reset(seed=6))
    assert not ours.unwrapped._world_handed_out  # the compiled lidar
    action = np.array([0.2, 0.1, -0.3, 0.5], dtype=np.float32)
    for _ in range(3):
        assert_same_value(ours.step(action), theirs.step(action))
