"""BipedalWalker: teach a two-legged robot to walk, as gymnasium's ``BipedalWalker-v3`` (and its hardcore terrain),
on the compiled Box2D port (``nbgym._box2d``). No ``box2d`` wheel is needed.

The package is gymnasium's module ``gymnasium.envs.box2d.bipedal_walker`` (its constants, classes and heuristics), in
four parts:

- ``physics``: the compiled physics (the engine's ``Physics``: the terrain, the walker, the lidar on the port's rows);
- ``env``: ``BipedalWalker`` and ``BipedalWalkerVectorEnv``, made from one declaration, and gymnasium's heuristics;
- ``objects``: what gymnasium hands out of a world that is the port's rows (``fd_polygon``/``fd_edge``, the lidar
  rays, the terrain's and clouds' polygons; the bodies and joints the Box2D envs share are in
  ``nbgym.envs.box2d._port_objects``);
- ``rendering``: gymnasium's frames, drawn with pygame.
"""

from __future__ import annotations

from nbgym.envs.box2d.bipedal_walker.env import (
    BipedalWalker,
    BipedalWalkerHardcore,
    BipedalWalkerHeuristics,
    BipedalWalkerVectorEnv,
)
from nbgym.envs.box2d.bipedal_walker import physics
from nbgym.envs.box2d.bipedal_walker.objects import FixtureDef, LidarRay
from nbgym.envs.box2d.bipedal_walker.physics import (
    FPS,
    FRICTION,
    INITIAL_RANDOM,
    LEG_DOWN,
    LEG_H,
    LEG_W,
    LIDAR_RANGE,
    MOTORS_TORQUE,
    SCALE,
    SPEED_HIP,
    SPEED_KNEE,
    TERRAIN_GRASS,
    TERRAIN_HEIGHT,
    TERRAIN_LENGTH,
    TERRAIN_STARTPAD,
    TERRAIN_STEP,
    VIEWPORT_H,
    VIEWPORT_W,
)

HULL_POLY = list(physics.HULL_POLY)  # gymnasium's is a list of tuples

__all__ = [
    "FPS",
    "FRICTION",
    "HULL_POLY",
    "INITIAL_RANDOM",
    "LEG_DOWN",
    "LEG_H",
    "LEG_W",
    "LIDAR_RANGE",
    "MOTORS_TORQUE",
    "SCALE",
    "SPEED_HIP",
    "SPEED_KNEE",
    "TERRAIN_GRASS",
    "TERRAIN_HEIGHT",
    "TERRAIN_LENGTH",
    "TERRAIN_STARTPAD",
    "TERRAIN_STEP",
    "VIEWPORT_H",
    "VIEWPORT_W",
    "BipedalWalker",
    "BipedalWalkerHardcore",
    "BipedalWalkerHeuristics",
    "BipedalWalkerVectorEnv",
    "FixtureDef",
    "LidarRay",
]
