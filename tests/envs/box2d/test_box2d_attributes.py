"""gymnasium's Box2D environments' attributes in nbgym's: after a reset and a step, every name of gymnasium's
``vars(env.unwrapped)`` exists in nbgym's environment, and those holding plain data (numbers, strings,
arrays and their lists, tuples and dicts) hold the same values, of the same types."""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
import pytest
from helpers.toy_text_checks import assert_same_value

import nbgym

PLAIN = (bool, int, float, str, type(None), np.ndarray, np.generic)


def is_plain(value: Any) -> bool:
    """Whether ``value`` is data compared by value (not a Box2D, pygame or space object)."""
    if isinstance(value, (list, tuple)):
        return all(is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(is_plain(item) for item in value.values())
    return isinstance(value, PLAIN)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("LunarLander-v3", {}),
        ("LunarLander-v3", {"continuous": True, "enable_wind": True}),
        ("BipedalWalker-v3", {"hardcore": True}),
        ("CarRacing-v3", {"domain_randomize": True}),
    ],
)
def test_gymnasiums_attributes_exist_with_its_values(env_id, kwargs):
    ours, theirs = nbgym.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    assert_same_value(ours.reset(seed=5), theirs.reset(seed=5))
    theirs.action_space.seed(5)
    action = theirs.action_space.sample()
    assert_same_value(ours.step(action), theirs.step(action))
    compared = 0
    for name, value in vars(theirs.unwrapped).items():
        assert hasattr(ours.unwrapped, name), f"{env_id} has no {name}"
        if is_plain(value):
            mine = getattr(ours.unwrapped, name)
            if isinstance(mine, list) and type(mine) is not list:
                mine = list(mine)  # a list of the kernels' objects, which refuses changes (FixedList) or makes them
            assert_same_value(mine, value, name)
            compared += 1
    assert compared >= 8
    ours.close()
    theirs.close()


def changed(value: Any) -> Any:
    """Another value of ``value``'s type: a flipped bool, a number moved, an array's elements moved."""
    if isinstance(value, (bool, np.bool_)):
        return type(value)(not value)
    if isinstance(value, np.ndarray):
        return (value * 0.5 + 7).astype(value.dtype)
    if isinstance(value, (int, np.integer)):
        return type(value)(value + 3)
    return type(value)(value * 0.5 + 0.25)


NUMBERS = (bool, int, float, np.ndarray, np.generic)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "steps"),
    [
        ("LunarLander-v3", {"continuous": True, "enable_wind": True}, 2),
        ("BipedalWalker-v3", {}, 2),
        pytest.param(
            "CarRacing-v3",
            {"domain_randomize": True},
            1,
            marks=pytest.mark.skipif(
                os.environ.get("NUMBA_DISABLE_JIT", "0") == "1",
                reason="a reset, a step and a frame per number: minutes as Python in the interpreted pass",
            ),
        ),
    ],
)
def test_numbers_written_after_reset_act_as_in_gymnasium(env_id, kwargs, steps):
    """Each number or array attribute of gymnasium's, changed after a reset, gives gymnasium's next steps and frames.

    Both environments live the same history: a Box2D world's results depend on the bodies it held before."""
    ours = nbgym.make(env_id, render_mode="rgb_array", **kwargs)
    theirs = gymnasium.make(env_id, render_mode="rgb_array", **kwargs)
    probe = gymnasium.make(env_id, **kwargs).unwrapped  # a world's history is part of its results: not theirs
    probe.reset(seed=0)
    names = [
        name for name, value in vars(probe).items()
        if isinstance(value, NUMBERS) and not name.startswith("_") and name not in ("continuous", "domain_randomize")
    ]  # fmt: skip
    assert len(names) >= 4
    theirs.action_space.seed(0)
    actions = [theirs.action_space.sample() for _ in range(steps)]
    for name in names:
        assert_same_value(ours.reset(seed=1), theirs.reset(seed=1))
        for env in (ours, theirs):
            setattr(env.unwrapped, name, changed(getattr(env.unwrapped, name)))
        for action in actions:
            assert_same_value(ours.step(action), theirs.step(action), name)
        assert_same_value(ours.render(), theirs.render(), name)
    ours.close()
    theirs.close()


def edit_lists(env: Any) -> None:
    """The same edit of the lists the steps and frames read, in place, for one of the three environments."""
    if hasattr(env, "sky_polys"):  # LunarLander: a mountain flattened, the lander's drawing without its legs
        env.sky_polys[4] = [(x, 0.0) for x, _ in env.sky_polys[4]]
        del env.drawlist[1:]
    elif hasattr(env, "terrain_poly"):  # BipedalWalker: ground drawn red from its tenth polygon, no clouds
        env.terrain_poly[10:] = [(poly, (255, 0, 0)) for poly, _ in env.terrain_poly[10:]]
        env.cloud_poly.clear()
    else:  # CarRacing: a shorter track is worth more per tile
        del env.track[len(env.track) // 2 :]


@pytest.mark.parametrize(
    ("env_id", "action", "steps"),
    [("LunarLander-v3", 2, 3), ("BipedalWalker-v3", [0.5] * 4, 3), ("CarRacing-v3", [0, 1, 0], 25)],  # 2 new tiles
)
def test_lists_changed_in_place_act_as_in_gymnasium(env_id, action, steps):
    ours, theirs = nbgym.make(env_id, render_mode="rgb_array"), gymnasium.make(env_id, render_mode="rgb_array")
    assert_same_value(ours.reset(seed=2), theirs.reset(seed=2))
    action = np.array(action, dtype=np.float32) if isinstance(action, list) else action
    for env in (ours, theirs):
        edit_lists(env.unwrapped)
    for _ in range(steps):
        assert_same_value(ours.step(action), theirs.step(action))
    assert_same_value(ours.render(), theirs.render())
    ours.close()
    theirs.close()


@pytest.mark.parametrize(
    ("env_id", "kwargs", "names"),
    [
        ("LunarLander-v3", {"enable_wind": True}, ("game_over", "prev_shaping", "helipad_y", "wind_idx", "torque_idx")),
        ("BipedalWalker-v3", {}, ("game_over", "prev_shaping", "scroll")),
        ("CarRacing-v3", {}, ("reward", "prev_reward", "t", "tile_visited_count", "new_lap")),
    ],
)
def test_state_attributes_of_the_vector_env_are_gymnasiums_sync_ones(env_id, kwargs, names):
    """The state attributes are StateViews shared by the single and the vector env: ``get_attr`` gives each
    sub-environment's, as gymnasium's ``SyncVectorEnv`` does, and ``set_attr`` writes what the next step reads."""
    ours = nbgym.make_vec(env_id, 2, **kwargs)
    theirs = gymnasium.make_vec(env_id, 2, vectorization_mode="sync", **kwargs)
    assert_same_value(ours.reset(seed=3)[0], theirs.reset(seed=3)[0])
    actions = {
        "LunarLander-v3": np.array([2, 0]),
        "BipedalWalker-v3": np.array([[0.5, -0.5, 0.5, -0.5]] * 2, dtype=np.float32),
        "CarRacing-v3": np.array([[0.0, 1.0, 0.0]] * 2, dtype=np.float32),
    }[env_id]
    for _ in range(3):
        assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])
    for name in names:
        assert_same_value(ours.get_attr(name), theirs.get_attr(name))
    name = names[1]  # prev_shaping or prev_reward: the next reward is measured from it
    ours.set_attr(name, [0.0, 1.0])
    theirs.set_attr(name, [0.0, 1.0])
    assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])


@pytest.mark.parametrize("domain_randomize", [False, True])
def test_carracing_colours_of_the_vector_env_are_gymnasiums_sync_ones(domain_randomize):
    """CarRacing's colours are StateViews too, held as gymnasium's env holds its arrays: ``get_attr`` gives each
    sub-environment's (int64 by default, float64 drawn), the same array across steps and the resets that draw no
    colours (a new one after a reset that does); changed in place or set, they colour the next steps and tracks."""
    ours = nbgym.make_vec("CarRacing-v3", 2, domain_randomize=domain_randomize)
    theirs = gymnasium.make_vec("CarRacing-v3", 2, vectorization_mode="sync", domain_randomize=domain_randomize)
    assert_same_value(ours.reset(seed=4)[0], theirs.reset(seed=4)[0])
    actions = np.array([[0.0, 1.0, 0.0], [0.3, 0.5, 0.0]], dtype=np.float32)
    names = ("road_color", "bg_color", "grass_color")
    for name in names:
        assert_same_value(ours.get_attr(name), theirs.get_attr(name), name)
    held = ours.get_attr("grass_color")[1]
    for env in (ours, theirs):
        env.get_attr("grass_color")[1][1] = 40  # in place: the grass drawn in the next observations
        env.set_attr("road_color", [np.array([90.0, 60.5, 30.0]), np.array([10, 20, 30])])
    assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])
    assert ours.get_attr("grass_color")[1] is held
    assert_same_value(
        ours.reset(seed=5, options={"randomize": False})[0], theirs.reset(seed=5, options={"randomize": False})[0]
    )
    assert ours.get_attr("grass_color")[1] is held  # a reset that draws no colours keeps the arrays
    assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])
    assert_same_value(ours.reset(seed=6)[0], theirs.reset(seed=6)[0])
    assert (ours.get_attr("grass_color")[1] is held) == (not domain_randomize)
    for name in names:
        assert_same_value(ours.get_attr(name), theirs.get_attr(name), name)


def test_carracing_vector_colours_refuse_what_a_new_track_cannot_draw():
    """A vector env's sub-environment may start a new track at any step (autoreset), whose tiles are up to 5.1 lighter
    than road_color: a road_color pygame could not draw them with is refused when set, or changed in place, at the
    next step, before anything moves."""
    env = nbgym.make_vec("CarRacing-v3", 2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"CarRacing\.road_color is three numbers, each in \(-1, 250\.9\)"):
        env.set_attr("road_color", [np.array([252.0, 0.0, 0.0])] * 2)
    env.set_attr("grass_color", [np.array([255.5, 0.0, 0.0])] * 2)  # not a track's: drawable
    env.get_attr("road_color")[0][0] = 251
    before = env.unwrapped._batch.state.w.body_f.copy()
    with pytest.raises(ValueError, match=r"road_color is three numbers, each in \(-1, 250\.9\)"):
        env.step(np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(env.unwrapped._batch.state.w.body_f, before)
    env.get_attr("road_color")[0][0] = 250
    env.step(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("module", ["lunar_lander", "bipedal_walker", "car_racing"])
def test_module_constants_are_gymnasiums(module):
    """The Box2D packages' module constants are gymnasium's modules' own: the same values, of the same types."""
    import importlib

    ours = importlib.import_module(f"nbgym.envs.box2d.{module}")
    theirs = importlib.import_module(f"gymnasium.envs.box2d.{module}")
    names = [name for name in vars(theirs) if name.isupper() and not name.startswith("_") and name != "TYPE_CHECKING"]
    compared = 0
    for name in names:
        value = getattr(theirs, name)
        if is_plain(value):
            assert_same_value(getattr(ours, name), value, name)
            compared += 1
    assert compared >= 10
