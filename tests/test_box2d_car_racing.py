"""CarRacing against gymnasium 1.4.0, bit for bit: observations (the 96x96 pixels), rewards, flags and infos of
single and vector envs, every render mode's frames, bad actions; and the compiled transforms against pygame's.

Episodes are cut short with ``max_episode_steps`` (a lap takes a thousand steps of some milliseconds each);
``lap_complete_percent=0`` finishes the lap at the first step, which exercises termination and autoreset.
"""

from __future__ import annotations

import math
import os
import pickle
from typing import Any

import gymnasium
import numpy as np
import pygame
import pytest
from _box2d_checks import assert_checked, assert_registered_as_gymnasium, compare_frames, raises_as_gymnasium
from _classic_control_checks import MODES, compare_single, compare_vector
from _toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.envs.box2d import car_racing
from nbgym.envs.box2d.car_dynamics import rotate, rotation


INTERPRETED = os.environ.get("NUMBA_DISABLE_JIT", "0") == "1"
"""CI's interpreted pass runs the compiled vector env's physics and frames as Python (about a second a sub-environment
step): short runs, for coverage."""


def driving_policy(rng: np.random.Generator, observation: np.ndarray) -> np.ndarray:
    """Random steering with mostly gas (the car leaves the road, skids, comes back), float32 as the space's."""
    return np.array([rng.uniform(-1, 1), rng.uniform(0, 1) ** 0.3, rng.uniform(0, 0.3)], dtype=np.float32)


def discrete_policy(rng: np.random.Generator, observation: np.ndarray) -> int | np.int64:
    action = rng.choice(5, p=[0.1, 0.2, 0.2, 0.4, 0.1])
    return int(action) if rng.random() < 0.5 else np.int64(action)


@pytest.mark.slow
def test_make_matches_gymnasium():
    """Two truncated episodes: the first second's zoom, the road, the grass, tiles visited."""
    compare_single("CarRacing-v3", driving_policy, [0], 100, kwargs={"max_episode_steps": 60})


@pytest.mark.slow
def test_discrete_matches_gymnasium():
    compare_single("CarRacing-v3", discrete_policy, [3], 100, kwargs={"continuous": False, "max_episode_steps": 60})


@pytest.mark.slow
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
    ("continuous", "steps"), [(True, 40), pytest.param(False, 40, marks=pytest.mark.slow),
                              pytest.param(True, 400, marks=pytest.mark.slow)]
)
def test_compiled_vector_env_drives_in_threads_as_gymnasium(continuous, steps):
    """Driving (tiles visited, grass, the first second's zoom, the score), time limits, two stepping threads."""
    policy = vector_driving if continuous else vector_discrete
    if INTERPRETED:
        steps, limit = 8, 5
    else:
        limit = 25 if steps < 100 else 150
    _, truncations = compare_vector("CarRacing-v3", policy, 2, "NextStep", 11, steps,
                                    {"continuous": continuous, "max_episode_steps": limit},
                                    nbgym_kwargs={"num_threads": 2})
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
    from nbgym.envs.box2d import _raster, car_racing_vector

    font = _raster.load_score_font()
    assert "".join(font.chars[k] for k in car_racing_vector._score_text(reward)) == f"{reward:04.0f}"


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


@pytest.mark.slow
@pytest.mark.parametrize("render_mode", ["rgb_array", "state_pixels"])
def test_frames_are_gymnasiums(render_mode):
    """The 600x400 frame with the skid marks, and the 96x96 state frame, through the first second's zoom."""
    compare_frames("CarRacing-v3", driving_policy, 7, 80, 9, {"render_mode": render_mode, "max_episode_steps": 40})


def test_frames_after_pygame_quit_are_gymnasiums():
    """Closing a window quits pygame (and its fonts); the next frames are drawn as before."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    action = np.array([0.1, 0.5, 0.0], dtype=np.float32)
    for seed in (1, 2):
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        assert_same_value(ours.step(action), theirs.step(action))
        pygame.quit()


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


def test_play_with_gymnasiums_documented_keys(monkeypatch):
    """`nbgym play CarRacing-v3` drives with the keys of gymnasium's play documentation (gas, then left turn)."""
    from nbgym.cli import main

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    steps = []
    original_step = car_racing.CarRacing.step
    monkeypatch.setattr(car_racing.CarRacing, "step", lambda self, action: steps.append(action) or original_step(self, action))
    down = [pygame.event.Event(pygame.KEYDOWN, key=ord(key)) for key in "wa"]
    events = iter([[], down[:1], [], down[1:], [], [pygame.event.Event(pygame.QUIT)]])
    monkeypatch.setattr(pygame.event, "get", lambda: next(events))
    assert main(["play", "CarRacing-v3", "--fps", "1000"]) == 0
    played = [action.tolist() for action in steps if action is not None]
    assert played[0] == [0.0, 0.0, 0.0]
    assert [0.0, np.float32(0.7), 0.0] in played and [-1.0, np.float32(0.7), 0.0] in played


def test_check_env_passes():
    assert_checked("CarRacing-v3", max_episode_steps=5)
    assert_checked("CarRacing-v3", continuous=False, max_episode_steps=5)


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
    assert "CarRacing's" in str(caught)


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
ANGLES = st.one_of(st.floats(-20.0, 20.0), QUARTER_TURNS, QUARTER_TURNS.map(lambda a: a + 5e-7), QUARTER_TURNS.map(lambda a: a - 2e-6))
COORDINATES = st.floats(-400.0, 400.0)


@settings(max_examples=300, deadline=None)
@given(angle=ANGLES, x=COORDINATES, y=COORDINATES)
def test_rotation_is_pygames_vector2_rotate_rad(angle, x, y):
    """pygame's reduction of the angle and its exact quarter turns within 1e-6, bit for bit."""
    expected = pygame.math.Vector2((x, y)).rotate_rad(angle)
    assert rotate(x, y, rotation(angle)) == (expected[0], expected[1])


@settings(max_examples=100, deadline=None)
@given(
    angle=ANGLES,
    zoom=st.floats(0.5, 20.0),
    tx=st.floats(-3000.0, 3000.0),
    ty=st.floats(-3000.0, 3000.0),
    polygons=st.lists(st.lists(st.tuples(COORDINATES, COORDINATES), min_size=0, max_size=6), min_size=1, max_size=6),
)
def test_polygon_kernel_is_gymnasiums_transform_and_cull(angle, zoom, tx, ty, polygons):
    """The compiled transform gives the doubles of gymnasium's Python, and culls as its any(...) test, for
    polygons of any number of vertices."""
    vertices = np.array([point for poly in polygons for point in poly], dtype=np.float64).reshape(-1, 2)
    starts = np.cumsum([0] + [len(poly) for poly in polygons])
    on_screen = np.empty(len(polygons), dtype=np.bool_)
    cos, sin, quadrant = rotation(angle)
    low, high_x, high_y = -car_racing.MAX_SHAPE_DIM, 1000 + car_racing.MAX_SHAPE_DIM, 800 + car_racing.MAX_SHAPE_DIM
    car_racing._transform_polygons(vertices, starts, cos, sin, quadrant, zoom, tx, ty, low, high_x, high_y, on_screen)
    for k, poly in enumerate(polygons):
        rotated = [pygame.math.Vector2(c).rotate_rad(angle) for c in poly]
        expected = [(c[0] * zoom + tx, c[1] * zoom + ty) for c in rotated]
        assert vertices[starts[k] : starts[k + 1]].tolist() == [list(point) for point in expected]
        assert on_screen[k] == any(low <= x <= high_x and low <= y <= high_y for x, y in expected)


@pytest.mark.parametrize(
    ("corners", "covers"),
    [
        ([(-50, -50), (1100, -50), (1100, 900), (-50, 900)], True),
        ([(-50, -50), (-50, 900), (1100, 900), (1100, -50)], True),  # the other orientation
        ([(-5, -50), (1100, -50), (1100, 900), (-5, 900)], False),  # an edge within the margin
        ([(500, -2000), (3000, 400), (500, 2800), (-2000, 400)], True),  # rotated
        ([(100, 100), (200, 100), (200, 200), (100, 200)], False),
    ],
)
def test_field_covers_the_window_only_with_its_margin(corners, covers):
    margin = car_racing.FIELD_FILL_MARGIN
    assert car_racing._covers(np.array(corners, dtype=np.float64), -margin, 1000 + margin, 800 + margin) == covers


def edit_road(step: int, road_poly: list, env: Any) -> None:
    """The same edit of ``road_poly``, in place or by assignment, for step ``step`` of both environments."""
    if step == 1:  # a vertex of the first tile (under the car) moved
        (x, y) = road_poly[0][0][1]
        road_poly[0][0][1] = (x + 2.5, y - 1.0)
    elif step == 2:  # a tile's colour changed in place: an array, as gymnasium's tile colours
        road_poly[1][1][:] = (250.7, 10.2, 30.9)
    elif step == 3:  # a triangle and a pentagon added, the second tile removed
        (x, y) = road_poly[3][0][0]
        road_poly.append(([(x, y), (x + 4, y + 1), (x + 1, y + 5)], (0, 0, 255)))
        road_poly.append(([(x - 3 + math.cos(a), y + math.sin(a)) for a in range(5)], np.array([9.9, 99.9, 199.9])))
        del road_poly[2]
    elif step == 4:  # a new list assigned, then changed in place
        env.road_poly = list(reversed(road_poly[:40]))
        env.road_poly.insert(0, ([(0.0, 0.0), (3.0, 0.0), (3.0, 3.0)], (200, 200, 0)))
    elif step == 5:
        road_poly.clear()


def test_road_poly_is_live_as_gymnasiums():
    """Edits of road_poly after a reset (in place, or by assignment) change the next frames as gymnasium's."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    with pytest.raises(AttributeError, match="reset"):
        ours.unwrapped.road_poly
    assert_same_value(ours.reset(seed=7), theirs.reset(seed=7))
    action = np.array([0.1, 0.5, 0.0], dtype=np.float32)
    for step in range(1, 7):
        for env in (ours, theirs):
            edit_road(step, env.unwrapped.road_poly, env.unwrapped)
        assert_same_value(ours.step(action), theirs.step(action))
    ours.close()
    theirs.close()


def test_car_drawing_reads_its_bodies_every_frame_as_gymnasiums():
    """The car's drawlist, colours and fixtures changed after a reset are what the next frames draw."""
    ours, theirs = nbgym.make("CarRacing-v3"), gymnasium.make("CarRacing-v3")
    assert_same_value(ours.reset(seed=8), theirs.reset(seed=8))
    action = np.array([0.0, 0.3, 0.0], dtype=np.float32)
    for step in range(1, 4):
        for env in (ours, theirs):
            car = env.unwrapped.car
            if step == 1:  # a front wheel no longer drawn, the hull recoloured
                car.drawlist.remove(car.wheels[0])
                car.hull.color = (0.1, 0.2, 0.9)
            elif step == 2:  # a wide spoiler bolted onto the hull
                car.hull.CreatePolygonFixture(vertices=[(-3.0, -2.0), (3.0, -2.0), (3.0, -1.0), (-3.0, -1.0)], density=0.1)
        assert_same_value(ours.step(action), theirs.step(action))
