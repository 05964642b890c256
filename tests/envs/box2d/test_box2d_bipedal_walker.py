"""BipedalWalker (normal and hardcore) against gymnasium 1.4.0, bit for bit: the single env and make_vec's
BipedalWalkerVectorEnv, both on the compiled Box2D port (one physics), and the sync vector env of single envs, in
every autoreset mode; frames; the Box2D objects gymnasium hands out (read and written mid-episode), pickling, bad
actions and attributes, world capacities, and running without the box2d wheel; the port's lidar against Box2D's own
ray casts."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
from typing import Any

import Box2D
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
from helpers.jit import INTERPRETED
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector, compare_vector_resets
from helpers.toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym._box2d import broad_phase
from nbgym._box2d.contact_lanes import SOURCE_LANES
from nbgym._box2d import world as W
from nbgym.envs.box2d.bipedal_walker import physics
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
    assert compare_single(env_id, motor_policy, range(3), 60 if INTERPRETED else 400) >= (0 if INTERPRETED else 3)


@pytest.mark.parametrize(("env_id", "seed"), [("BipedalWalker-v3", 2), ("BipedalWalkerHardcore-v3", 4)])
def test_walking_matches_gymnasium(env_id, seed):
    compare_single(env_id, walking_policy(), [seed], 60 if INTERPRETED else 600)


@pytest.mark.jit_only
@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_single_env_long_runs(env_id):
    """Whole episodes of the heuristic walker (truncated at the time limit) and of random motors (falls), many
    resets of the one world."""
    compare_single(env_id, walking_policy(), [11, 12], 2100)
    assert compare_single(env_id, motor_policy, range(20, 24), 1500) >= 4


def test_hardcore_kwarg_is_the_hardcore_id():
    ours = nbgym.make("BipedalWalker-v3", hardcore=True)
    assert_same_value(ours.reset(seed=1), gymnasium.make("BipedalWalkerHardcore-v3").reset(seed=1))
    polygons = [body for body in ours.unwrapped.terrain if len(body.fixtures[0].shape.vertices) == 4]
    assert len(polygons) > 10  # stumps, stairs and pits


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_matches_gymnasium_sync(mode):
    terminations, _ = compare_vector(
        "BipedalWalker-v3",
        lambda rng, observations: rng.uniform(-1, 1, (len(observations), 4)).astype(np.float32),
        3,
        mode,
        11,
        60 if INTERPRETED else 150,
        {"hardcore": True},
        vectorization_mode="sync",
    )
    assert terminations >= (0 if INTERPRETED else 1)


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
    terminations, truncations = compare_vector(
        env_id,
        vector_policy(0.9),
        5,
        "NextStep",
        3,
        120 if INTERPRETED else 300,
        {"max_episode_steps": 70},
        nbgym_kwargs={"num_threads": 2},
    )
    assert truncations >= 5


def test_compiled_vector_env_with_contacts_in_vectors_matches_gymnasium_sync():
    """17 sub-environments: a chunk of 16 worlds whose legs' contacts are solved side by side in vectors
    (``contact_lanes``) when they hold enough of them, and a world stepped alone; the same as gymnasium's sync vector
    env."""
    steps = 60 if INTERPRETED else 250
    terminations, _ = compare_vector("BipedalWalker-v3", vector_policy(0.8), 17, "NextStep", 5, steps)
    assert terminations >= (0 if INTERPRETED else 3)
    env = nbgym.make_vec("BipedalWalker-v3", 17)
    env.reset(seed=5)
    w = env._batch.state.w
    rng = np.random.default_rng(5)
    in_vectors = 0
    for _ in range(steps):
        w.contact_sources[0, 0, SOURCE_LANES, 0] = -2  # a mark the vectors overwrite
        env.step(rng.uniform(-1, 1, (17, 4)).astype(np.float32))
        in_vectors += w.contact_sources[0, 0, SOURCE_LANES, 0] != -2
    assert in_vectors > steps // 4


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
    BV = physics
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
    terminations, truncations = compare_vector(
        "BipedalWalker-v3", vector_policy(walk), 6, MODES[seed % 3], seed, 4000, {"hardcore": bool(seed % 2)}
    )
    assert terminations >= 10
    assert truncations >= (1 if walk > 0.9 else 0)


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_frames_are_gymnasiums(env_id):
    """Frames while walking: the scrolled terrain, clouds, one lidar ray at a time, the walker and the flag."""
    assert compare_frames(env_id, walking_policy(), 2, 40 if INTERPRETED else 300, 7) > 5


def move_lidar_render(t: int, env: Any) -> None:
    """Now and then, the same move of the lidar ray drawn next (gymnasium's ``lidar_render``, any of its 100 states)."""
    if t % 37 == 5:
        env.unwrapped.lidar_render = (t * 7919) % 100


@pytest.mark.parametrize(("env_id", "seed"), [("BipedalWalker-v3", 5), ("BipedalWalkerHardcore-v3", 8)])
def test_every_frame_of_an_episode_is_gymnasiums(env_id, seed):
    """Every frame of rendered episodes (each lidar ray drawn in turn, the pause, falls and resets), with
    lidar_render moved now and then as gymnasium's attribute."""
    walking = walking_policy()

    def policy(rng: np.random.Generator, observation: np.ndarray) -> np.ndarray:
        return walking(rng, observation) if rng.random() < 0.8 else rng.uniform(-1.5, 1.5, 4).astype(np.float32)

    steps = 50 if INTERPRETED else 260
    assert compare_frames(env_id, policy, seed, steps, 1, edit=move_lidar_render) == steps


def test_human_mode_shows_the_frames():
    assert_human_mode_shows_the_frames("BipedalWalker-v3", 30)


def test_human_mode_shows_every_frame_of_gymnasiums_resets(monkeypatch):
    actions = [np.full(4, 0.8 if t < 3 else -0.8, np.float32) for t in range(6)]
    assert_every_window_update_is_gymnasiums(monkeypatch, "BipedalWalkerHardcore-v3", actions, 2 + 6 + 2)


def test_check_env_passes():
    assert_checked("BipedalWalker-v3")
    assert_checked("BipedalWalker-v3", hardcore=True)


@pytest.mark.parametrize(
    ("action", "expected"),
    [(np.zeros(3), IndexError), (np.float64(0.5), IndexError), (0.5, TypeError), (np.zeros((1, 4)), TypeError)],
)
def test_misshapen_actions_raise_gymnasiums_exceptions(action, expected):
    caught = raises_as_gymnasium("BipedalWalker-v3", action, expected)
    assert "is not an action of Box" in str(caught)


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
def hardcore_worlds():
    """The hardcore terrain of one seed in nbgym's world (the port's row) and in gymnasium's (the wheel's)."""
    ours = bipedal_walker.BipedalWalker(hardcore=True)
    theirs = gymnasium.make("BipedalWalker-v3", hardcore=True).unwrapped
    ours.reset(seed=6)
    theirs.reset(seed=6)
    return ours, theirs


@settings(max_examples=60 if INTERPRETED else 300, deadline=None)
@given(
    x=st.floats(0.0, physics.TERRAIN_LENGTH * physics.TERRAIN_STEP),
    y=st.floats(0.5, 10.0),
    angle=st.floats(-math.pi, math.pi),
    reach=st.floats(0.1, 12.0),
)
def test_lidar_is_box2ds_ray_cast(hardcore_worlds, x, y, angle, reach):
    """Any ray over the hardcore ground (edges, stumps, stairs, pit walls; the walker's fixtures let it through)
    ends in the port's world where b2World.RayCast with gymnasium's callback ends it in the wheel's."""
    ours, theirs = hardcore_worlds
    x, y = np.float32(x), np.float32(y)
    end_x, end_y = np.float32(x + math.cos(angle) * reach), np.float32(y + math.sin(angle) * reach)
    if x == end_x and y == end_y:
        return  # Box2D asserts on a ray of length zero
    state = ours._batch.state
    w = state.w
    leaves = np.zeros_like(w.query_stack[0])
    box = (min(x, end_x), min(y, end_y), max(x, end_x), max(y, end_y))
    count = broad_phase.overlapping_leaves(w.tree_f[0], w.tree_i[0], w.tree_s[0], *box, state.accept[0], leaves)
    hit, fraction, point_x, point_y = broad_phase.ray_cast_closest(
        leaves,
        count,
        w.tree_f[0],
        w.tree_i[0],
        x,
        y,
        end_x,
        end_y,
        w.shape_i[0],
        w.shape_f[0],
        w.fixture_i[0, :, W.FI_BODY],
        w.body_f[0, :, W.BF_XF : W.BF_XF + 4],
    )
    callback = _NearestGround()
    callback.fraction, callback.p2 = 1.0, None
    theirs.world.RayCast(callback, (float(x), float(y)), (float(end_x), float(end_y)))
    assert hit == (callback.p2 is not None)
    if hit:
        assert float(fraction) == callback.fraction
        assert (float(point_x), float(point_y)) == (callback.p2[0], callback.p2[1])


def box2d_values(env: Any) -> dict[str, Any]:
    """What a user reads from the Box2D objects of a walker (gymnasium's SWIG objects or nbgym's port objects), as
    plain values."""
    u = env.unwrapped

    def body(b: Any) -> tuple:
        return (
            tuple(b.position),
            b.angle,
            tuple(b.linearVelocity),
            b.angularVelocity,
            tuple(b.worldCenter),
            b.awake,
            b.mass,
            b.color1,
            b.color2,
        )

    return {
        "hull": body(u.hull),
        "legs": [body(leg) for leg in u.legs],
        "ground_contact": [u.legs[1].ground_contact, u.legs[3].ground_contact],
        "joints": [
            (
                j.angle,
                j.speed,
                j.motorSpeed,
                j.limits,
                j.motorEnabled,
                j.limitEnabled,
                tuple(j.anchorA),
                tuple(j.anchorB),
                u.legs.index(j.bodyB),
            )
            for j in u.joints
        ],
        "lidar": [(ray.fraction, tuple(ray.p1), tuple(ray.p2)) for ray in u.lidar],
        "terrain": [(body.color1, [fixture.shape.vertices for fixture in body.fixtures]) for body in u.terrain[::23]],
        "world": (tuple(u.world.gravity), len(u.world.bodies)),
        "env": (u.game_over, u.prev_shaping, u.scroll, u.lidar_render, u.hardcore),
    }


def edit_walker(step: int, env: Any) -> None:
    """The same writes through gymnasium's attributes, for either environment."""
    u = env.unwrapped
    if step == 3:
        u.hull.linearVelocity = (2.5, 1.5)
        u.hull.angularVelocity = -0.75
    elif step == 5:
        u.legs[2].position = (u.legs[2].position[0] + 0.05, u.legs[2].position[1] + 0.1)
        u.legs[0].angle = 0.3
    elif step == 7:
        u.world.gravity = (0.5, -6.0)
        u.legs[1].ground_contact = True  # the next observation says so, until a contact of the leg begins or ends
        u.prev_shaping = u.prev_shaping - 1.25
    elif step == 9:
        u.joints[1].limits = (-1.2, 0.3)
        u.joints[2].upperLimit = 0.9
        u.joints[3].motorEnabled = False
        u.joints[0].limitEnabled = False
        u.lidar[3].fraction = 0.5
        u.lidar[4].p2 = (1.0, 2.0)
        u.scroll = 0.25
        u.lidar_render = 7
    elif step == 11:
        u.game_over = True  # the hull "touched the ground": the next step ends the episode


def test_box2d_objects_read_and_written_mid_episode_act_as_in_gymnasium():
    """hull, legs, joints, lidar, terrain and world read as gymnasium's after every step; the same writes
    (velocities, positions and angles, gravity, ground_contact, prev_shaping, joint limits and motor, lidar,
    scroll, game_over) give gymnasium's next steps and frames."""
    ours = nbgym.make("BipedalWalker-v3", render_mode="rgb_array")
    theirs = gymnasium.make("BipedalWalker-v3", render_mode="rgb_array")
    assert_same_value(ours.reset(seed=7), theirs.reset(seed=7))
    rng = np.random.default_rng(7)
    for step in range(13):
        assert_same_value(box2d_values(ours), box2d_values(theirs), f"step {step}")
        for env in (ours, theirs):
            edit_walker(step, env)
        assert_same_value(box2d_values(ours), box2d_values(theirs), f"step {step}, edited")
        assert_same_value(ours.render(), theirs.render(), f"frame {step}")
        action = rng.uniform(-1, 1, 4).astype(np.float32)
        result = theirs.step(action)
        assert_same_value(ours.step(action), result, f"step {step}")
        torques = [joint.maxMotorTorque for joint in ours.unwrapped.joints]  # pybox2d's cannot be read
        assert torques == (np.float32(80) * np.minimum(np.abs(action), 1)).tolist()
        if result[2]:
            break
    assert step == 11 and result[1] == -100
    assert_same_value(ours.reset(seed=8), theirs.reset(seed=8))  # the world (and its gravity) outlives the episode
    assert_same_value(box2d_values(ours), box2d_values(theirs), "reset")


def test_box2d_objects_refuse_what_the_port_cannot_do():
    """Replacing the world's objects, editing the lists the kernels keep, creating or destroying bodies: each
    refused, saying what to do instead; nothing moved."""
    env = bipedal_walker.BipedalWalker()
    env.reset(seed=1)
    for name in ("hull", "legs", "joints", "terrain", "lidar", "world"):
        with pytest.raises(AttributeError, match="cannot be replaced"):
            setattr(env, name, None)
    with pytest.raises(TypeError, match="cannot be changed"):
        env.terrain.remove(env.terrain[0])
    with pytest.raises(TypeError, match="cannot be changed"):
        env.legs.append(env.hull)
    with pytest.raises(AttributeError, match="create, step and destroy"):
        env.world.CreateStaticBody
    with pytest.raises(AttributeError, match="p1"):
        env.lidar[0].p1 = (0.0, 0.0)
    with pytest.raises(AttributeError, match="serves angle, speed"):
        env.joints[0].GetReactionForce
    with pytest.raises(TypeError, match="prev_shaping"):
        env.prev_shaping = np.float32(1.0)  # gymnasium would compute the next reward in float32
    with pytest.raises(AttributeError, match="not served"):
        env.fd_edge.shape
    with pytest.raises(ValueError, match="16-bit"):
        env.fd_edge.categoryBits = 0x10000
    theirs = gymnasium.make("BipedalWalker-v3").unwrapped
    theirs.reset(seed=1)
    action = np.array([0.2, -0.4, 0.6, 0.1], dtype=np.float32)
    assert_same_value(env.step(action), theirs.step(action))


def test_objects_of_an_ended_episode_are_not_the_new_ones():
    """A reset hands out new objects (gymnasium's are new bodies); the drawlist is a list of the env's own."""
    env = bipedal_walker.BipedalWalker()
    env.reset(seed=2)
    hull, drawlist = env.hull, env.drawlist
    assert drawlist[-1] is hull and drawlist[-5:-1] == env.legs
    env.reset(seed=3)
    assert env.hull is not hull and env.drawlist is not drawlist


def test_pickles_as_gymnasium():
    """A pickled environment is a new one made with the same arguments, as gymnasium's (EzPickle): it needs a reset,
    then runs as the original does."""
    env = nbgym.make("BipedalWalker-v3", render_mode="rgb_array", hardcore=True).unwrapped
    env.reset(seed=4)
    env.step(np.full(4, 0.5, np.float32))
    copy = pickle.loads(pickle.dumps(env))
    assert (copy.render_mode, copy.hardcore) == ("rgb_array", True)
    with pytest.raises(AssertionError, match="call env.reset"):
        copy.step(np.zeros(4, np.float32))
    assert_same_value(copy.reset(seed=5), env.reset(seed=5))
    rng = np.random.default_rng(4)
    for t in range(5):
        action = rng.uniform(-1, 1, 4).astype(np.float32)
        assert_same_value(copy.step(action), env.step(action), f"step {t}")
        assert_same_value(copy.render(), env.render(), f"frame {t}")


def test_runs_without_the_box2d_wheel():
    """The single env (stepping and drawing) and the vector env need no box2d wheel; nor does CarRacing, the last
    Box2D env to move onto the port."""
    code = (
        "import sys; sys.modules['Box2D'] = None\n"
        "import numpy as np, nbgym\n"
        "env = nbgym.make('BipedalWalker-v3', render_mode='rgb_array')\n"
        "env.reset(seed=0); env.step(np.zeros(4, np.float32)); assert env.render().shape == (400, 600, 3)\n"
        "assert env.unwrapped.hull.position[0] > 0\n"
        "vec = nbgym.make_vec('BipedalWalkerHardcore-v3', 2); vec.reset(seed=0); vec.step(np.zeros((2, 4), np.float32))\n"
        "car = nbgym.make('CarRacing-v3', render_mode='rgb_array')\n"
        "obs, _ = car.reset(seed=0); obs, *_ = car.step(np.array([0, 1, 0], np.float32))\n"
        "assert obs.shape == (96, 96, 3) and car.render().shape == (400, 600, 3)\n"
        "assert 'Box2D' not in sys.modules or sys.modules['Box2D'] is None\n"
        "print('ran')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ran"]


def choke_contacts(env: Any, index: int) -> None:
    """Leaves world row ``index`` of ``env`` without free contact rows: the next contact Box2D makes overflows."""
    env.unwrapped._batch.state.w.world_i[index, W.WI_FREE_CONTACT] = -1


@pytest.mark.parametrize("vector", [False, True])
def test_a_world_out_of_contacts_raises_until_reset(vector):
    """An overflow of a world's capacity raises PhysicsCapacityError (never a wrong result), then the env refuses
    to step until a reset, which starts a fresh world."""
    env = nbgym.make_vec("BipedalWalker-v3", 2) if vector else nbgym.make("BipedalWalker-v3")
    env.reset(seed=0)
    choke_contacts(env, 1 if vector else 0)
    action = np.full((2, 4) if vector else 4, 1.0, np.float32)
    with pytest.raises(error.PhysicsCapacityError, match="contact rows"):
        for _ in range(200):  # the walker's feet meet new ground as it moves
            env.step(action)
    with pytest.raises(error.ResetNeeded, match="PhysicsCapacityError"):
        env.step(action)
    env.reset(seed=1)
    theirs = gymnasium.make("BipedalWalker-v3")
    expected = theirs.reset(seed=2 if vector else 1)
    observations = env.reset(seed=1)[0]
    assert_same_value(observations[1] if vector else observations, expected[0])
    for _ in range(3):
        result = env.step(action)
        assert_same_value(result[0][1] if vector else result[0], theirs.step(action[0] if vector else action)[0])


def test_float16_actions_are_refused_clearly():
    env = nbgym.make("BipedalWalker-v3")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction, match="float16"):
        env.step(np.zeros(4, np.float16))


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
    action = np.array([0.2, 0.1, -0.3, 0.5], dtype=np.float32)
    for _ in range(3):
        assert_same_value(ours.step(action), theirs.step(action))


def test_objects_of_an_earlier_episode_refuse_to_be_read():
    """The walker's world lives on across resets, and its rows are reused by the new episode's bodies and joints: an
    object handed out before the reset refuses rather than reading another item."""
    env = nbgym.make("BipedalWalker-v3").unwrapped
    env.reset(seed=0)
    hull, joint, leg = env.hull, env.joints[0], env.legs[1]
    env.reset(seed=1)
    for read in (lambda: hull.position, lambda: joint.speed, lambda: leg.ground_contact):
        with pytest.raises(ReferenceError, match="read the env's attribute again"):
            read()
    assert env.hull.position == env.hull.position


def test_a_nan_prev_shaping_makes_the_next_reward_nan_as_in_gymnasium():
    """The row kept gymnasium's ``prev_shaping = None`` as NaN, so a NaN stepped as ``None`` (a reward of 0.0, and it
    was refused for that); a flag keeps None, and a NaN gives gymnasium's NaN reward."""
    ours, theirs = nbgym.make("BipedalWalker-v3").unwrapped, gymnasium.make("BipedalWalker-v3").unwrapped
    action = np.array([0.2, -0.4, 0.6, 0.1], dtype=np.float32)
    for env in (ours, theirs):
        env.reset(seed=1)
        env.step(action)
        env.prev_shaping = math.nan
    ours_reward, theirs_reward = ours.step(action)[1], theirs.step(action)[1]
    assert type(ours_reward) is type(theirs_reward) and math.isnan(ours_reward) and math.isnan(theirs_reward)
    assert_same_value(ours.step(action), theirs.step(action))  # measured from the new shaping again
