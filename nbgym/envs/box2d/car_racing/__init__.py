"""CarRacing: drive a top-down car around a random track from pixels, as gymnasium's ``CarRacing-v3``, on the compiled
Box2D port. No ``box2d`` wheel is needed, nor pygame to step or to draw ``"rgb_array"``/``"state_pixels"`` frames.

The package is gymnasium's module ``gymnasium.envs.box2d.car_racing`` (its constants and classes), in parts:

- ``physics``: the track, the car (``nbgym.envs.box2d.car_dynamics``'s, on the port) and the game, on the kernels' rows;
- ``kernels``: the engine's ``Physics`` over them, whose observation is the 96x96 frame;
- ``raster``: the compiled rasteriser those frames are drawn with, pixel for pixel as pygame-ce 2.5.8 draws;
- ``env``: ``CarRacing`` and ``CarRacingVectorEnv``, made from one declaration;
- ``objects``: what gymnasium hands out of the game (``car`` with its ``hull`` and ``wheels``, ``road``,
  ``road_poly``, ``track``...), as objects that read and write the kernels' rows;
- ``rendering``: gymnasium's ``render`` in each of its modes.
"""

from __future__ import annotations

from nbgym.envs.box2d.car_racing.env import (
    BORDER,
    BORDER_MIN_COUNT,
    CHECKPOINTS,
    CarRacing,
    CarRacingVectorEnv,
    FPS,
    GRASS_DIM,
    MAX_SHAPE_DIM,
    PLAYFIELD,
    SCALE,
    TRACK_DETAIL_STEP,
    TRACK_RAD,
    TRACK_TURN_RATE,
    TRACK_WIDTH,
    ZOOM,
    ZOOM_FOLLOW,
)
from nbgym.envs.box2d.car_racing.objects import Car, FrictionDetector, Tile, TrackList, Wheel
from nbgym.envs.box2d.car_racing.rendering import STATE_H, STATE_W, VIDEO_H, VIDEO_W, WINDOW_H, WINDOW_W

__all__ = [
    "BORDER",
    "BORDER_MIN_COUNT",
    "CHECKPOINTS",
    "FPS",
    "GRASS_DIM",
    "MAX_SHAPE_DIM",
    "PLAYFIELD",
    "SCALE",
    "STATE_H",
    "STATE_W",
    "TRACK_DETAIL_STEP",
    "TRACK_RAD",
    "TRACK_TURN_RATE",
    "TRACK_WIDTH",
    "VIDEO_H",
    "VIDEO_W",
    "WINDOW_H",
    "WINDOW_W",
    "ZOOM",
    "ZOOM_FOLLOW",
    "CarRacing",
    "CarRacingVectorEnv",
    "Car",
    "FrictionDetector",
    "Tile",
    "TrackList",
    "Wheel",
]
