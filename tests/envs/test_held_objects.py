"""Objects held across a reset follow gymnasium: what gymnasium's reset replaces (LunarLander's world, BipedalWalker's
lidar rays, CarRacing's car and, with domain randomisation, its colours) keeps the last episode's values or refuses
with ``ReferenceError``; it never reads or writes the next episode. What gymnasium keeps across resets (BipedalWalker's
and CarRacing's worlds, CarRacing's colours without randomisation, MuJoCo's ``data``) stays live, as there."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import nbgym


def test_lunar_landers_world_held_across_a_reset_refuses():
    env = nbgym.make("LunarLander-v3")
    env.reset(seed=0)
    held = env.unwrapped.world
    held.gravity = (0, -4)  # this episode's
    assert env.unwrapped.world.gravity == (0, -4)
    env.reset(seed=1)
    with pytest.raises(ReferenceError, match="PortWorld belongs to an episode before the env's last reset"):
        held.gravity = (0, -5)  # gymnasium's held world is the discarded one: the new world must not change
    with pytest.raises(ReferenceError):
        held.bodies  # noqa: B018
    assert env.unwrapped.world.gravity == (0, -10)
    assert env.unwrapped.world != held
    body = env.unwrapped.lander
    env.reset(seed=2)
    with pytest.raises(ReferenceError):
        body.world  # noqa: B018 (a stale body's world is its episode's)


@pytest.mark.parametrize("env_id", ["BipedalWalker-v3", "CarRacing-v3"])
def test_worlds_gymnasium_keeps_stay_live_across_resets(env_id):
    """gymnasium's BipedalWalker and CarRacing make their world once: a held one is the env's world."""
    ours, theirs = nbgym.make(env_id), gymnasium.make(env_id)
    for env in (ours, theirs):
        env.reset(seed=0)
        held = env.unwrapped.world
        env.reset(seed=1)
        held.gravity = (0, -3)
    assert ours.unwrapped.world.gravity == theirs.unwrapped.world.gravity == (0, -3)


def test_bipedal_walkers_lidar_held_across_a_reset_refuses():
    env, theirs = nbgym.make("BipedalWalker-v3"), gymnasium.make("BipedalWalker-v3")
    for each in (env, theirs):
        each.reset(seed=0)
        each.step(np.zeros(4, np.float32))
    ray = env.unwrapped.lidar[3]
    for each in (env, theirs):
        each.reset(seed=1)
        each.step(np.ones(4, np.float32))
    for read in (lambda: ray.fraction, lambda: ray.p1, lambda: ray.p2):
        with pytest.raises(ReferenceError, match="LidarRay belongs to an episode before"):
            read()
    with pytest.raises(ReferenceError):
        ray.fraction = 0.5
    assert "earlier episode" in repr(ray)
    assert env.unwrapped.lidar[3].fraction == theirs.unwrapped.lidar[3].fraction  # the new rays read the new rows


def test_car_racings_car_held_across_a_reset_refuses():
    env = nbgym.make("CarRacing-v3")
    env.reset(seed=0)
    car = env.unwrapped.car
    env.reset(seed=1)
    with pytest.raises(ReferenceError, match="Car belongs to an episode before"):
        car.gas(1.0)
    with pytest.raises(ReferenceError):
        car.world  # noqa: B018


@pytest.mark.parametrize("domain_randomize", [False, True])
def test_car_racings_colours_held_across_resets_follow_gymnasium(domain_randomize):
    """gymnasium binds new colour arrays at a reset only with domain_randomize (and options randomize, the default):
    held arrays then keep their values; without, they are the env's, live. Assigning binds the value given."""
    envs = (
        nbgym.make("CarRacing-v3", domain_randomize=domain_randomize),
        gymnasium.make("CarRacing-v3", domain_randomize=domain_randomize),
    )
    held = {}
    for env in envs:
        env.reset(seed=0)
        held[env] = [env.unwrapped.road_color, env.unwrapped.bg_color, env.unwrapped.grass_color]
    for options in (None, {"randomize": False}):
        ours, theirs = (env.reset(seed=1, options=options)[0] for env in envs)
        np.testing.assert_array_equal(ours, theirs)
        for env in envs:
            for array in held[env]:
                array[1] = 50  # gymnasium's held arrays: the env's (no randomisation) or the last episode's
        ours, theirs = (env.step(np.array([0.0, 0.5, 0.0]))[0] for env in envs)
        np.testing.assert_array_equal(ours, theirs)
    for mine, theirs in zip(*held.values()):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)
    for env in envs:
        held[env] = env.unwrapped.bg_color
        env.unwrapped.bg_color = np.array([10.0, 20.0, 30.0])
        held[env][0] = 200  # no longer the env's
    ours, theirs = (env.step(np.array([0.0, 0.5, 0.0]))[0] for env in envs)
    np.testing.assert_array_equal(ours, theirs)


def test_mujocos_data_and_initial_state_stay_live_across_resets():
    """gymnasium's MuJoCo env resets its one MjData in place (mj_resetData) and keeps init_qpos: held, they are the
    env's, in nbgym too (the observations are new arrays at every step and reset in both)."""
    ours, theirs = nbgym.make("HalfCheetah-v5"), gymnasium.make("HalfCheetah-v5")
    held = {}
    for env in (ours, theirs):
        observation, _ = env.reset(seed=0)
        held[env] = (env.unwrapped.data, env.unwrapped.init_qpos, observation, observation.copy())
        env.reset(seed=1)
        env.step(np.full(6, 0.5))
    for env in (ours, theirs):
        data, init_qpos, observation, first = held[env]
        assert env.unwrapped.data is data and env.unwrapped.init_qpos is init_qpos
        np.testing.assert_array_equal(observation, first)
    np.testing.assert_array_equal(held[ours][0].qpos, held[theirs][0].qpos)
