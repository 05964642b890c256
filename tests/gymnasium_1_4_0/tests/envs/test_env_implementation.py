# Vendored from gymnasium 1.4.0 (https://github.com/Farama-Foundation/Gymnasium, commit 95a790e1 "Update to v1.4.0"),
# MIT License, Copyright (c) 2016 OpenAI, Copyright (c) 2022 Farama Foundation: the full licence text is in
# tests/gymnasium_1_4_0/LICENSE, next to these files.
# Only test_carracing_domain_randomize of gymnasium's tests/envs/test_env_implementation.py, verbatim.

import gymnasium as gym
from gymnasium.envs.box2d import CarRacing


def test_carracing_domain_randomize():
    """Tests the CarRacing Environment domain randomization.

    CarRacing DomainRandomize should have different colours at every reset.
    However, it should have same colours when `options={"randomize": False}` is given to reset.
    """
    env: CarRacing = gym.make("CarRacing-v3", domain_randomize=True).unwrapped

    road_color = env.road_color
    bg_color = env.bg_color
    grass_color = env.grass_color

    env.reset(options={"randomize": False})

    assert (road_color == env.road_color).all(), (
        f"Have different road color after reset with randomize turned off. Before: {road_color}, after: {env.road_color}."
    )
    assert (bg_color == env.bg_color).all(), (
        f"Have different bg color after reset with randomize turned off. Before: {bg_color}, after: {env.bg_color}."
    )
    assert (grass_color == env.grass_color).all(), (
        f"Have different grass color after reset with randomize turned off. Before: {grass_color}, after: {env.grass_color}."
    )

    env.reset()

    assert (road_color != env.road_color).all(), (
        f"Have same road color after reset. Before: {road_color}, after: {env.road_color}."
    )
    assert (bg_color != env.bg_color).all(), (
        f"Have same bg color after reset. Before: {bg_color}, after: {env.bg_color}."
    )
    assert (grass_color != env.grass_color).all(), (
        f"Have same grass color after reset. Before: {grass_color}, after: {env.grass_color}."
    )

