"""MountainCar's and MountainCarContinuous' frame: the hill, the car and the flag, as gymnasium 1.4.0 draws them (600x400).

gymnasium's continuous car keeps its state in float32 after a step (float64 after a reset), and the
drawing's arithmetic follows that dtype; the frames here do the same, so that they stay identical.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._classic import disc, finish, new_canvas, polygon, rotated

CAPTION = None
SCREEN_WIDTH, SCREEN_HEIGHT = 600, 400
CAR_WIDTH, CAR_HEIGHT = 40, 20
CLEARANCE = 10
FLAG_COLOR = (204, 204, 0)
WHEEL_COLOR = (128, 128, 128)


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return SCREEN_WIDTH, SCREEN_HEIGHT


def _height(xs: Any) -> Any:
    """The hill's height at ``xs``."""
    return np.sin(3 * xs) * 0.45 + 0.55


def _position(env: Any, index: int) -> Any:
    """The car's position as gymnasium's state holds it: float32 after a step of the continuous car."""
    row = env._batch.state[index]
    if env.physics.name == "Continuous_MountainCar":
        from nbgym.envs.classic_control.continuous_mountain_car import _FLOAT32

        # The continuous car's kernel keeps the kind of gymnasium's state values in its third column.
        if row[2] == _FLOAT32:
            return np.float32(row[0])
    return row[0]


def _hill(min_position: float, max_position: float, scale: float) -> list[tuple[Any, Any]]:
    xs = np.linspace(min_position, max_position, 100)
    return list(zip((xs - min_position) * scale, _height(xs) * scale, strict=True))


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s car on the hill onto ``surface``."""
    pygame = import_pygame()
    params = env._params[0]
    min_position = params["min_position"].item()
    max_position = params["max_position"].item()
    goal_position = params["goal_position"].item()
    scale = SCREEN_WIDTH / (max_position - min_position)
    pos = _position(env, index)

    canvas = new_canvas(SCREEN_WIDTH, SCREEN_HEIGHT)
    hill_key = ("hill", min_position, max_position)
    hill = state.sprites.get(hill_key)
    if hill is None:
        hill = state.sprites[hill_key] = _hill(min_position, max_position, scale)
    pygame.draw.aalines(canvas, points=hill, closed=False, color=(0, 0, 0))

    left, right, top, bottom = -CAR_WIDTH / 2, CAR_WIDTH / 2, CAR_HEIGHT, 0
    corners = [(left, bottom), (left, top), (right, top), (right, bottom)]
    tilt = math.cos(3 * pos)
    car = [
        (c[0] + (pos - min_position) * scale, c[1] + CLEARANCE + _height(pos) * scale) for c in rotated(corners, tilt)
    ]
    polygon(canvas, car, (0, 0, 0))
    for c in rotated([(CAR_WIDTH / 4, 0), (-CAR_WIDTH / 4, 0)], tilt):
        wheel_x = int(c[0] + (pos - min_position) * scale)
        wheel_y = int(c[1] + CLEARANCE + _height(pos) * scale)
        disc(canvas, wheel_x, wheel_y, int(CAR_HEIGHT / 2.5), WHEEL_COLOR)

    flag_x = int((goal_position - min_position) * scale)
    flag_bottom = int(_height(goal_position) * scale)
    flag_top = flag_bottom + 50
    pygame.gfxdraw.vline(canvas, flag_x, flag_bottom, flag_top, (0, 0, 0))
    polygon(canvas, [(flag_x, flag_top), (flag_x, flag_top - 10), (flag_x + 25, flag_top - 5)], FLAG_COLOR)
    finish(surface, canvas)
