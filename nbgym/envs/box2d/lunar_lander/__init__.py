"""LunarLander: land a rocket on a pad, as gymnasium's ``LunarLander-v3`` (discrete or continuous), on the compiled
Box2D port. No ``box2d`` wheel is needed.

The package is gymnasium's module ``gymnasium.envs.box2d.lunar_lander``, in four parts:

- ``physics``: the compiled physics (the engine's ``Physics``: reset, step, observe on the port's rows);
- ``env``: ``LunarLander`` and ``LunarLanderVectorEnv``, made from one declaration, and gymnasium's ``heuristic``;
- ``objects``: what gymnasium hands out of a world that is the port's rows (the flame particles; the bodies the
  Box2D envs share are in ``nbgym.envs.box2d._port_objects``);
- ``rendering``: gymnasium's frames, drawn with pygame.
"""

from __future__ import annotations

from nbgym.envs.box2d.lunar_lander.env import (
    CHUNKS,
    FPS,
    INITIAL_RANDOM,
    LANDER_POLY,
    LEG_AWAY,
    LEG_DOWN,
    LEG_H,
    LEG_SPRING_TORQUE,
    LEG_W,
    MAIN_ENGINE_POWER,
    MAIN_ENGINE_Y_LOCATION,
    SCALE,
    SIDE_ENGINE_AWAY,
    SIDE_ENGINE_HEIGHT,
    SIDE_ENGINE_POWER,
    VIEWPORT_H,
    VIEWPORT_W,
    LunarLander,
    LunarLanderContinuous,
    LunarLanderVectorEnv,
    demo_heuristic_lander,
    heuristic,
)

__all__ = [
    "CHUNKS",
    "FPS",
    "INITIAL_RANDOM",
    "LANDER_POLY",
    "LEG_AWAY",
    "LEG_DOWN",
    "LEG_H",
    "LEG_SPRING_TORQUE",
    "LEG_W",
    "MAIN_ENGINE_POWER",
    "MAIN_ENGINE_Y_LOCATION",
    "SCALE",
    "SIDE_ENGINE_AWAY",
    "SIDE_ENGINE_HEIGHT",
    "SIDE_ENGINE_POWER",
    "VIEWPORT_H",
    "VIEWPORT_W",
    "LunarLander",
    "LunarLanderContinuous",
    "LunarLanderVectorEnv",
    "demo_heuristic_lander",
    "heuristic",
]
