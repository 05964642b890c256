"""CarRacing against gymnasium 1.4.0, bit for bit: observations (the 96x96 pixels), rewards, flags and infos of
single and vector envs, every render mode's frames, bad actions; and the compiled transforms against pygame's.

Episodes are cut short with ``max_episode_steps`` (a lap takes a thousand steps of some milliseconds each);
``lap_complete_percent=0`` finishes the lap at the first step, which exercises termination and autoreset.
"""

from __future__ import annotations

import math
import pickle
from typing import Any

import gymnasium
import numpy as np
import pygame
import pytest
from helpers.box2d_checks import (
    assert_checked,
    assert_every_window_update_is_gymnasiums,
    assert_registered_as_gymnasium,
    compare_frames,
    raises_as_gymnasium,
)
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.envs.box2d import car_racing
from nbgym.envs.box2d.car_dynamics import rotate, rotation
from helpers.jit import INTERPRETED


"""CI's interpreted pass runs the compiled vector env's physics and frames as Python (about a second a sub-environment
step): short runs, for coverage."""


def driving_policy(rng: np.random.Generator, observation: np.ndarray) -> np.ndarray:
    """Random steering with mostly gas (the car leaves the road, skids, comes back), float32 as the space's."""
    return np.array([rng.uniform(-1, 1), rng.uniform(0, 1) ** 0.3, rng.uniform(0, 0.3)], dtype=np.float32)


def discrete_policy(rng: np.random.Generator, observation: np.ndarray) -> int | np.int64:
    action = rng.choice(5, p=[0.1, 0.2, 0.2, 0.4, 0.1])
    return int(action) if rng.random() < 0.5 else np.int64(action)


@pytest.mark.jit_only
def test_make_matches_gymnasium():
    """Two truncated episodes: the first second's zoom, the road, the grass, tiles visited."""
    compare_single("CarRacing-v3", driving_policy, [0], 100, kwargs={"max_episode_steps": 60})


@pytest.mark.jit_only
def test_discrete_matches_gymnasium():
    compare_single("CarRacing-v3", discrete_policy, [3], 100, kwargs={"continuous": False, "max_episode_steps": 60})


@pytest.mark.jit_only
def test_domain_randomize_and_its_reset_option_match_gymnasium():
    """Random colours at each reset, kept with options={"randomize": False} (every other reset)."""
    compare_single(
        "CarRacing-v3",
        driving_policy,
        [4],
        120,
        kwargs={"domain_randomize": True, "max_episode_steps": 30},
        reset_options={"randomize": False},
    )


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_finished_lap_terminates_with_gymnasiums_info():
    """lap_complete_percent=0: touching the first tile completes the lap, at the first step."""
    terminations = compare_single("CarRacing-v3", driving_policy, [5, 6], 6, kwargs={"lap_complete_percent": 0.0})
    assert terminations == 12
    env = nbgym.make("CarRacing-v3", lap_complete_percent=0.0)
    env.reset(seed=5)
    assert env.step(env.action_space.sample())[4] == {"lap_finished": True}


def test_leaving_the_playfield_costs_100():
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
    for env in (ours, theirs):  # the whole car, beyond the playfield's right edge
        car = env.unwrapped.car
        shift = car_racing.PLAYFIELD + 1 - car.hull.position[0]
        for body in car.drawlist:
            body.position = (body.position[0] + shift, body.position[1])
    action = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    result = ours.step(action)
    assert_same_value(result, theirs.step(action))
    assert result[1] == -100 and result[2] and result[4] == {"lap_finished": False}


def test_a_hull_moved_across_the_track_overflows_the_contacts_then_a_reset_recovers():
    """Box2D's broad phase stretches a moved body's box along its move: the hull moved 300 m in one assignment
    overlaps the track's tiles on its way, more contacts than the world row holds. gymnasium makes them all; nbgym
    raises PhysicsCapacityError (it raised a ValueError, and every reset raised it again: the env was lost for good),
    refuses to step, and a reset starts a new world, which steps as gymnasium's new env."""
    ours = nbgym.make("CarRacing-v3")
    ours.reset(seed=1)
    action = np.array([0.0, 0.5, 0.0], dtype=np.float32)
    for _ in range(10):
        ours.step(action)
    ours.unwrapped.car.hull.position = (0.0, 300.0)
    with pytest.raises(error.PhysicsCapacityError, match="ran out of contact rows"):
        ours.step(action)
    with pytest.raises(error.ResetNeeded, match="PhysicsCapacityError"):
        ours.step(action)
    theirs = gymnasium.make("CarRacing-v3")
    assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
    for _ in range(3):
        assert_same_value(ours.step(action), theirs.step(action))


def vector_driving(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
    return np.stack([driving_policy(rng, None) for _ in observations])


def vector_discrete(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
    return np.array([discrete_policy(rng, None) for _ in observations], dtype=np.int64)


@pytest.mark.parametrize("mode", MODES)
def test_compiled_vector_env_matches_gymnasium_sync(mode):
    """make_vec's CarRacingVectorEnv (physics and frames compiled): laps that finish at the first step, so
    terminations, ``lap_finished`` infos (``final_info`` in SameStep) and autoresets all along."""
    assert type(nbgym.make_vec("CarRacing-v3", 2)).__name__ == "CarRacingVectorEnv"
    steps = 3 if INTERPRETED else 6
    terminations, _ = compare_vector("CarRacing-v3", vector_driving, 3, mode, 3, steps, {"lap_complete_percent": 0.0})
    assert terminations >= 6


@pytest.mark.skipif(INTERPRETED, reason="275 steps of two sub-environments: too long interpreted")
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_compiled_vector_env_leaving_the_playfield_costs_100(mode):
    """Straight on at half gas, both sub-environments leave the playfield (seed 0 at its 271st step): -100,
    ``lap_finished`` False (in ``final_info`` in SameStep), then they go on after their autoresets."""

    def straight_on(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.0, 0.5, 0.0], np.float32), (len(observations), 1))

    terminations, _ = compare_vector("CarRacing-v3", straight_on, 2, mode, 0, 275, {"max_episode_steps": None})
    assert terminations == 2


@pytest.mark.parametrize(
    ("continuous", "steps"),
    [(True, 40), pytest.param(False, 40, marks=pytest.mark.slow), pytest.param(True, 400, marks=pytest.mark.slow)],
)
def test_compiled_vector_env_drives_in_threads_as_gymnasium(continuous, steps):
    """Driving (tiles visited, grass, the first second's zoom, the score), time limits, two stepping threads."""
    policy = vector_driving if continuous else vector_discrete
    if INTERPRETED:
        steps, limit = 8, 5
    else:
        limit = 25 if steps < 100 else 150
    _, truncations = compare_vector(
        "CarRacing-v3",
        policy,
        2,
        "NextStep",
        11,
        steps,
        {"continuous": continuous, "max_episode_steps": limit},
        nbgym_kwargs={"num_threads": 2},
    )
    assert truncations >= 2


def test_compiled_vector_env_domain_randomize_and_its_reset_option():
    """Colours drawn at each reset from each sub-environment's stream, kept by ``options={"randomize": False}``."""
    kwargs = {"domain_randomize": True, "max_episode_steps": 4}
    ours = nbgym.make_vec("CarRacing-v3", 2, **kwargs)
    theirs = gymnasium.make_vec("CarRacing-v3", 2, vectorization_mode="sync", **kwargs)
    for seed, options in [(5, None), (None, {"randomize": False}), (None, None)]:
        assert_same_value(ours.reset(seed=seed, options=options), theirs.reset(seed=seed, options=options))
        for t in range(5 if INTERPRETED else 6):  # an autoreset (randomizing) at step 4
            actions = vector_driving(np.random.default_rng(t), np.zeros(2))
            assert_same_value(ours.step(actions), theirs.step(actions), f"step {t}")


def test_compiled_vector_env_pickles_mid_episode():
    env = nbgym.make_vec("CarRacing-v3", 2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(2 if INTERPRETED else 5):
        env.step(vector_driving(rng, np.zeros(2)))
    copy = pickle.loads(pickle.dumps(env))
    for t in range(2 if INTERPRETED else 5):
        actions = vector_driving(rng, np.zeros(2))
        assert_same_value(copy.step(actions), env.step(actions), f"step {t} of the copy")


def test_compiled_vector_env_refuses_bad_actions_before_anything_moves():
    """A NaN gas (gymnasium's frame fails on it after the world moved) and a discrete action outside 0-4."""
    env = nbgym.make_vec("CarRacing-v3", 2)
    theirs = gymnasium.make_vec("CarRacing-v3", 2, vectorization_mode="sync")
    assert_same_value(env.reset(seed=0), theirs.reset(seed=0))
    with pytest.raises(ValueError, match="CarRacing's gas"):
        env.step(np.array([[0.0, 0.5, 0.0], [0.0, np.nan, 0.0]], dtype=np.float32))
    good = np.array([[0.1, 0.5, 0.0], [0.0, 1.0, 0.0]], dtype=np.float32)
    assert_same_value(env.step(good), theirs.step(good), "the step after the refused action")
    for actions in (np.array([1, 5]), np.array([1, 2], dtype=np.uint64)):
        theirs = gymnasium.make_vec("CarRacing-v3", 2, vectorization_mode="sync", continuous=False)
        theirs.reset(seed=0)
        with pytest.raises(gymnasium.error.InvalidAction) as expected:
            theirs.step(actions)
        discrete = nbgym.make_vec("CarRacing-v3", 2, continuous=False)
        discrete.reset(seed=0)
        with pytest.raises(error.InvalidAction) as caught:
            discrete.step(actions)
        if actions.dtype == np.int64:
            assert str(caught.value) == str(expected.value)
    for dtype in (np.uint32, np.int8):  # taken, as gymnasium's contains takes them
        actions = np.array([1, 3], dtype=dtype)
        assert_same_value(discrete.step(actions), theirs.step(actions), f"{dtype} actions")


@given(st.one_of(st.floats(-1e7, 1e7), st.sampled_from([0.0, -0.0, -0.04, 0.5, 1.5, 2.5, -2.5, -999.5, 9999.5, 1e5])))
@settings(max_examples=300, deadline=None)
def test_score_text_in_the_kernel_is_pythons_format(reward):
    """The frame's score: ``f"{reward:04.0f}"`` (half to even, "-000" for small negatives), as glyph indices."""
    from nbgym.envs.box2d.car_racing import kernels as _car_racing_kernels, raster as _raster

    font = _raster.load_score_font()
    assert "".join(font.chars[k] for k in _car_racing_kernels._score_text(reward)) == f"{reward:04.0f}"


@pytest.mark.parametrize("name", ["continuous", "domain_randomize", "lap_complete_percent"])
def test_compiled_vector_env_refuses_to_change_its_parameters(name):
    """gymnasium's env reads them at construction or at its next reset, the kernels at every step: refused."""
    env = nbgym.make_vec("CarRacing-v3", 2)
    with pytest.raises(AttributeError, match=f"{name} is fixed"):
        setattr(env, name, 1)
    with pytest.raises(AttributeError, match=f"{name} is fixed"):
        env.set_attr(name, 1)
    assert env.get_attr("lap_complete_percent") == (0.95, 0.95) and env.continuous and not env.domain_randomize


def test_rendered_vector_env_is_a_sync_vector_env_of_single_envs():
    env = nbgym.make_vec("CarRacing-v3", 2, render_mode="rgb_array")
    assert type(env).__name__ == "SyncVectorEnv"


@pytest.mark.parametrize("mode", MODES)
def test_vector_env_matches_gymnasium_sync(mode):
    """Laps that finish at the first step: autoresets all along."""
    terminations, _ = compare_vector(
        "CarRacing-v3",
        lambda rng, observations: np.stack([driving_policy(rng, None) for _ in observations]),
        2,
        mode,
        3,
        5,
        {"lap_complete_percent": 0.0},
        vectorization_mode="sync",
    )
    assert terminations >= 4


@pytest.mark.jit_only
@pytest.mark.parametrize("render_mode", ["rgb_array", "state_pixels"])
def test_frames_are_gymnasiums(render_mode):
    """The 600x400 frame with the skid marks, and the 96x96 state frame, through the first second's zoom."""
    compare_frames("CarRacing-v3", driving_policy, 7, 80, 9, {"render_mode": render_mode, "max_episode_steps": 40})


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_frames_after_pygame_quit_are_gymnasiums():
    """Closing a window quits pygame (and its fonts); the next frames are drawn as before."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    action = np.array([0.1, 0.5, 0.0], dtype=np.float32)
    for seed in (1, 2):
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        assert_same_value(ours.step(action), theirs.step(action))
        pygame.quit()


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_human_mode_draws_the_window_and_render_before_reset_is_none():
    env = car_racing.CarRacing(render_mode="human")
    env.metadata = {**env.metadata, "render_fps": 1000}  # keep the test fast
    assert env.render() is None  # not reset yet
    env.reset(seed=0)
    window = pygame.display.get_surface()
    assert window is not None and window.get_size() == (car_racing.WINDOW_W, car_racing.WINDOW_H)
    env.step(np.array([0.0, 1.0, 0.0], dtype=np.float32))
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_play_with_gymnasiums_documented_keys(monkeypatch):
    """`nbgym play CarRacing-v3` drives with the keys of gymnasium's play documentation (gas, then left turn)."""
    from nbgym.cli import main

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    steps = []
    original_step = car_racing.CarRacing.step
    monkeypatch.setattr(
        car_racing.CarRacing, "step", lambda self, action: steps.append(action) or original_step(self, action)
    )
    down = [pygame.event.Event(pygame.KEYDOWN, key=ord(key)) for key in "wa"]
    events = iter([[], down[:1], [], down[1:], [], [pygame.event.Event(pygame.QUIT)]])
    monkeypatch.setattr(pygame.event, "get", lambda: next(events))
    assert main(["play", "CarRacing-v3", "--fps", "1000"]) == 0
    played = [action.tolist() for action in steps if action is not None]
    assert played[0] == [0.0, 0.0, 0.0]
    assert [0.0, np.float32(0.7), 0.0] in played and [-1.0, np.float32(0.7), 0.0] in played


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_check_env_passes():
    assert_checked("CarRacing-v3", max_episode_steps=5)
    assert_checked("CarRacing-v3", continuous=False, max_episode_steps=5)


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ([0.0, 1.0, 0.0], AttributeError),
        (np.array([0.0, 1.0]), IndexError),
        (np.array(0.5), IndexError),
        (np.ones((3, 3)), ValueError),
        (np.array([0.0, np.nan, 0.0]), ValueError),
    ],
)
def test_bad_continuous_actions_raise_gymnasiums_exceptions(action, expected):
    """As gymnasium's env fails (NaN gas where it draws the indicators, after the world moved), before anything moves."""
    caught = raises_as_gymnasium("CarRacing-v3", action, expected, max_episode_steps=10)
    assert "is not an action of Box" in str(caught) or "not NaN" in str(caught)


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
@pytest.mark.parametrize("action", [5, -1, 1.5, np.array([1])])
def test_bad_discrete_actions_are_invalid_actions(action):
    theirs = gymnasium.make("CarRacing-v3", continuous=False)
    theirs.reset(seed=0)
    with pytest.raises(gymnasium.error.InvalidAction) as expected:
        theirs.step(action)
    ours = nbgym.make("CarRacing-v3", continuous=False)
    ours.reset(seed=0)
    with pytest.raises(error.InvalidAction) as caught:
        ours.step(action)
    assert str(caught.value) == str(expected.value)


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_actions_gymnasium_accepts_give_its_results():
    """NaN steering or braking and extra numbers, which gymnasium's env runs with."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    assert_same_value(ours.reset(seed=8), theirs.reset(seed=8))
    for t, action in enumerate(
        [np.array([np.nan, 0.5, 0.0]), np.array([0.2, 0.5, np.nan]), np.array([0.1, 0.9, 0.0, 7.0]), np.ones(3) * 5]
    ):
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")


def test_registry_is_gymnasiums():
    assert_registered_as_gymnasium("CarRacing-v3")


QUARTER_TURNS = st.integers(-8, 8).map(lambda k: k * math.pi / 2)
ANGLES = st.one_of(
    st.floats(-20.0, 20.0), QUARTER_TURNS, QUARTER_TURNS.map(lambda a: a + 5e-7), QUARTER_TURNS.map(lambda a: a - 2e-6)
)
COORDINATES = st.floats(-400.0, 400.0)


@settings(max_examples=300, deadline=None)
@given(angle=ANGLES, x=COORDINATES, y=COORDINATES)
def test_rotation_is_pygames_vector2_rotate_rad(angle, x, y):
    """pygame's reduction of the angle and its exact quarter turns within 1e-6, bit for bit."""
    expected = pygame.math.Vector2((x, y)).rotate_rad(angle)
    assert rotate(x, y, rotation(angle)) == (expected[0], expected[1])


def edit_road(step: int, env: Any) -> None:
    """The same edit of ``road_poly`` (in place: vertices and colours) or of a tile, for step ``step`` of both
    environments."""
    road_poly = env.road_poly
    if step == 1:  # a vertex of the first tile (under the car) moved
        (x, y) = road_poly[0][0][1]
        road_poly[0][0][1] = (x + 2.5, y - 1.0)
    elif step == 2:  # a tile's colour changed in place (an array, as gymnasium's tile colours)
        road_poly[1][1][:] = (250.7, 10.2, 30.9)
    elif step == 3:  # the same array, through the tile; and a tile ahead no longer counts as visited
        env.road[3].color[:] = (9.9, 99.9, 199.9)
        env.road[0].road_visited = False
    elif step == 4:  # a whole polygon's vertices replaced in place
        road_poly[2][0][:] = [(x + 1.0, y) for x, y in road_poly[2][0]]


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_road_poly_and_tiles_are_live_as_gymnasiums():
    """Edits of road_poly's vertices and colours, and of the tiles, after a reset change the next steps and frames as
    gymnasium's; a wheel's touch recolours the tile's very array."""
    ours = nbgym.make("CarRacing-v3", render_mode="rgb_array")
    theirs = gymnasium.make("CarRacing-v3", render_mode="rgb_array")
    with pytest.raises(AttributeError, match="reset"):
        ours.unwrapped.road_poly
    assert_same_value(ours.reset(seed=7), theirs.reset(seed=7))
    action = np.array([0.1, 0.5, 0.0], dtype=np.float32)
    for step in range(1, 8):
        for env in (ours, theirs):
            edit_road(step, env.unwrapped)
        assert_same_value(ours.step(action), theirs.step(action), f"step {step}")
        assert_same_value(ours.render(), theirs.render(), f"frame {step}")
        assert_same_value(list(ours.unwrapped.road_poly), theirs.unwrapped.road_poly, f"road_poly {step}")
        assert ours.unwrapped.road[1].color is ours.unwrapped.road_poly[1][1]


def test_road_poly_refuses_what_the_frames_cannot_draw():
    """The compiled frames draw a fixed list of quadrilaterals: adding, removing or replacing polygons is refused at
    once; a polygon given another number of vertices, or a colour pygame refuses, at the next step, before anything
    moves."""
    env = nbgym.make("CarRacing-v3").unwrapped
    env.reset(seed=7)
    road_poly = env.road_poly
    for change in (
        lambda: road_poly.append(road_poly[0]),
        lambda: road_poly.__delitem__(2),
        road_poly.clear,
        lambda: road_poly.__setitem__(0, road_poly[1]),
    ):
        with pytest.raises(TypeError, match="cannot be changed"):
            change()
    with pytest.raises(AttributeError, match="in place"):
        env.road_poly = []
    with pytest.raises(AttributeError, match="in place"):
        env.road[0].color = (1, 2, 3)
    action = np.array([0.0, 0.5, 0.0], dtype=np.float32)
    before = env._batch.state.w.body_f.copy()
    for edit, undo in (
        (lambda: road_poly[0][0].append((0.0, 0.0)), lambda: road_poly[0][0].pop()),
        (lambda: road_poly[5][1].__setitem__(0, 256.0), lambda: road_poly[5][1].__setitem__(0, 102.0)),
        (lambda: road_poly[5][1].__setitem__(0, np.nan), lambda: road_poly[5][1].__setitem__(0, 102.0)),
    ):
        edit()
        with pytest.raises(ValueError, match="road_poly"):
            env.step(action)
        np.testing.assert_array_equal(env._batch.state.w.body_f, before)  # nothing moved
        undo()
    env.step(action)


def test_colours_refuse_what_pygame_cannot_draw():
    """bg_color, grass_color and road_color written with NaN, infinities, 1e300 or out of pygame's range are refused
    with ValueError naming the colour and the range: at assignment, or at the next step, frame or reset when changed
    in place, before anything moves; at a reset, a road_color whose new tiles (up to 5.1 lighter) pygame cannot
    draw too (gymnasium's frames raise on each, after its world moved)."""
    env = nbgym.make("CarRacing-v3", render_mode="rgb_array").unwrapped
    env.reset(seed=7)
    action = np.array([0.0, 0.5, 0.0], dtype=np.float32)
    before = env._batch.state.w.body_f.copy()
    rows = env._batch.state.env_f.copy()
    for name in ("bg_color", "grass_color", "road_color"):
        for bad in (np.nan, np.inf, -np.inf, 1e300, -1e300, 256.0, -1.0):
            with pytest.raises(ValueError, match=rf"CarRacing\.{name} is three numbers, each in \(-1, 256\)"):
                setattr(env, name, (bad, 100.0, 100.0))
            held = getattr(env, name)
            kept = held[0]
            held[0] = bad if held.dtype.kind == "f" else -1
            for move in (lambda: env.step(action), env.render, lambda: env.reset(seed=8)):
                with pytest.raises(ValueError, match=rf"CarRacing\.{name} is three numbers"):
                    move()
                np.testing.assert_array_equal(env._batch.state.w.body_f, before)  # nothing moved
                np.testing.assert_array_equal(env._batch.state.env_f, rows)
            held[0] = kept
    env.road_color = (252.0, 0.0, 0.0)  # drawable now, not for a new track's lightest tiles
    env.step(action)
    before = env._batch.state.w.body_f.copy()
    with pytest.raises(ValueError, match=r"road_color .* must be in \(-1, 250\.9\)"):
        env.reset(seed=8)
    np.testing.assert_array_equal(env._batch.state.w.body_f, before)
    env.road_color = (250.8, 0.0, 0.0)
    env.reset(seed=8)


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_car_is_live_as_gymnasiums():
    """The hull's velocity, a wheel's gas, omega and phase, the car's gas()/steer()/brake(), the world's gravity and
    the game's numbers, written after a reset, give gymnasium's next steps and frames."""
    ours = nbgym.make("CarRacing-v3", render_mode="rgb_array")
    theirs = gymnasium.make("CarRacing-v3", render_mode="rgb_array")
    assert_same_value(ours.reset(seed=3), theirs.reset(seed=3))
    action = np.array([0.0, 0.4, 0.0], dtype=np.float32)

    def edit(step: int, env: Any) -> None:
        car = env.car
        if step == 1:
            car.hull.linearVelocity = (3.0, -4.5)
            car.hull.angularVelocity = 0.7
        elif step == 2:
            car.wheels[2].gas = 0.9
            car.wheels[0].omega = 12.5
            car.wheels[1].phase += 1.0
        elif step == 3:
            car.gas(0.8)
            car.steer(-0.5)
            car.brake(0.3)
        elif step == 4:
            car.wheels[3].position = (car.wheels[3].position[0] + 0.2, car.wheels[3].position[1])
            env.world.gravity = (0.0, -2.0)
        elif step == 5:
            env.t = 0.25  # the frames zoom as at a quarter second
            env.reward = 123.4
            env.new_lap = True

    for step in range(1, 6):
        for env in (ours, theirs):
            edit(step, env.unwrapped)
        assert_same_value(ours.render(), theirs.render(), f"frame {step}")
        result = theirs.step(action)
        assert_same_value(ours.step(action), result, f"step {step}")
        assert_same_value(ours.unwrapped.car.wheels[0].joint.angle, theirs.unwrapped.car.wheels[0].joint.angle)
        for k in range(4):
            for name in ("gas", "brake", "steer", "omega", "phase"):  # floats (gymnasium's mix numpy's and Python's)
                assert getattr(ours.unwrapped.car.wheels[k], name) == getattr(theirs.unwrapped.car.wheels[k], name)
    assert result[2] and result[4] == {"lap_finished": True}


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_skid_particles_are_gymnasiums():
    """Hard braking on grass and road leaves gymnasium's skid traces (colours, points, grass)."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    assert_same_value(ours.reset(seed=0), theirs.reset(seed=0))
    for t in range(40):
        action = np.array([0.8 if t % 10 < 5 else -0.8, 1.0, 0.0], dtype=np.float32)
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")
    particles = ours.unwrapped.car.particles
    assert len(particles) > 0
    for mine, gymnasiums in zip(particles, theirs.unwrapped.car.particles, strict=True):
        assert (mine.color, mine.poly, mine.grass) == (gymnasiums.color, gymnasiums.poly, gymnasiums.grass)
    with pytest.raises(TypeError, match="cannot be changed"):
        particles.clear()


def test_car_refuses_what_the_kernels_cannot_do():
    env = nbgym.make("CarRacing-v3").unwrapped
    assert env.car is None and env.road is None
    env.reset(seed=8)
    car = env.car
    with pytest.raises(TypeError, match="cannot be changed"):
        car.drawlist.remove(car.wheels[0])
    with pytest.raises(AttributeError, match="gymnasium"):
        car.hull.color = (0.1, 0.2, 0.9)
    with pytest.raises(AttributeError, match="gymnasium.make"):
        car.step(0.02)
    with pytest.raises(AttributeError, match="settable"):
        car.hull = car.wheels[0]
    with pytest.raises(AttributeError, match="gymnasium.make"):
        car.wheels[0].tiles
    with pytest.raises(AttributeError, match="reset"):
        env.car = None
    with pytest.raises(AttributeError, match="gymnasium.make"):
        env.fd_tile.friction
    with pytest.raises(AttributeError, match="continuous is fixed"):
        env.continuous = False
    with pytest.raises(ValueError, match="NaN"):
        car.gas(np.nan)
    assert env.road[5].idx == 5 and env.road[5].road_friction == 1.0 and env.car.wheels[0].wheel_rad == 1.0 * 27 * 0.02


def test_objects_of_an_earlier_episode_refuse_to_be_read():
    """After a reset the rows of the last episode's car and tiles hold the new episode's: an object handed out before
    it refuses rather than reading another body; an old track list no longer counts."""
    env = nbgym.make("CarRacing-v3").unwrapped
    env.reset(seed=0)
    car, hull, wheel, tile, joint, track = (
        env.car,
        env.car.hull,
        env.car.wheels[1],
        env.road[3],
        env.car.wheels[0].joint,
        env.track,
    )
    env.reset(seed=1)
    for read in (
        lambda: hull.position,
        lambda: wheel.omega,
        lambda: tile.road_visited,
        lambda: joint.angle,
        lambda: car.gas(0.5),
        lambda: car.particles,
        lambda: setattr(wheel, "gas", 0.3),
    ):
        with pytest.raises(ReferenceError, match="again"):
            read()
    length = len(env.track)
    del track[:10]
    assert env._batch.state.env_i[0, car_racing.physics.TRACK_LENGTH] == length
    del env.track[:10]
    assert env._batch.state.env_i[0, car_racing.physics.TRACK_LENGTH] == length - 10
    assert env.car.hull.position == env.car.hull.position  # the new episode's objects read


def test_human_mode_window_updates_are_gymnasiums(monkeypatch):
    """Each window update: the reset's two (the car as created, then after the idle step), every step's."""
    action = np.array([0.3, 0.6, 0.1], dtype=np.float32)
    steps = 1 if INTERPRETED else 4
    assert_every_window_update_is_gymnasiums(monkeypatch, "CarRacing-v3", [action] * steps, 2 + steps + 2)


@pytest.mark.jit_only  # the single env's steps and frames run as Python there (seconds each)
def test_pickled_env_starts_afresh_from_its_arguments():
    env = nbgym.make("CarRacing-v3", render_mode="rgb_array", domain_randomize=True, continuous=False).unwrapped
    env.reset(seed=3)
    env.step(3)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.render_mode == "rgb_array" and copy.domain_randomize and not copy.continuous and copy.car is None
    assert_same_value(copy.reset(seed=3), env.reset(seed=3))
    for t in range(4):
        assert_same_value(copy.step(3), env.step(3), f"step {t}")
        assert_same_value(copy.render(), env.render(), f"frame {t}")


def test_step_without_action_is_gymnasiums():
    """gymnasium's step(None) (its reset's last step): the world moves, nothing is scored."""
    ours, theirs = nbgym.make("CarRacing-v3").unwrapped, gymnasium.make("CarRacing-v3").unwrapped
    assert_same_value(ours.reset(seed=4), theirs.reset(seed=4))
    action = np.array([0.2, 1.0, 0.0], dtype=np.float32)
    for act in (None, action, None):
        assert_same_value(ours.step(act), theirs.step(act))


@pytest.mark.jit_only  # the TypingError was numba's; interpreted, a track takes ~10 s to build
def test_compiled_vector_env_steps_a_strided_or_big_endian_batch():
    """A strided batch (``a[::2]``, which gymnasium takes) once made numba raise a TypingError (``reshape()`` of a
    non-contiguous array) and the env demand a reset; it steps as its contiguous copy, as a big-endian one does (issue
    51)."""
    batch = np.array([[0.2, 0.6, 0.0]], dtype=np.float32)
    env, reference = nbgym.make_vec("CarRacing-v3", 1), nbgym.make_vec("CarRacing-v3", 1)
    for vector in (env, reference):
        vector.reset(seed=7)
    for actions in (np.repeat(batch, 2, axis=1)[:, ::2], batch.astype(">f4")):
        assert not actions.flags.c_contiguous or not actions.dtype.isnative
        mine, wanted = env.step(actions), reference.step(batch)
        np.testing.assert_array_equal(mine[0], wanted[0])
        np.testing.assert_array_equal(mine[1], wanted[1])
