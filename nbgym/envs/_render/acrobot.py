"""Acrobot's frame: the two links, their joints and the target line, as gymnasium 1.4.0 draws them (500x500).

gymnasium's Acrobot state is float32 right after a reset and float64 after a step (the env marks which
in its state), and the drawing's arithmetic follows that dtype; so do the frames here, to stay identical.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._classic import disc, finish, new_canvas, polygon, rotated
from nbgym.envs.classic_control.acrobot import _FRESH

CAPTION = None
SCREEN_DIM = 500
LINK_COLOR = (0, 204, 204)
JOINT_COLOR = (204, 204, 0)


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return SCREEN_DIM, SCREEN_DIM


def _state(env: Any, index: int) -> np.ndarray:
    """Sub-environment ``index``'s ``[theta1, theta2, dtheta1, dtheta2]`` in gymnasium's dtype (float32 after a reset)."""
    row = env._batch.state[index]
    return np.array(row[:4], dtype=np.float32 if row[_FRESH] else np.float64)


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s acrobot onto ``surface``."""
    pygame = import_pygame()
    s = _state(env, index)
    length_1, length_2 = env.LINK_LENGTH_1, env.LINK_LENGTH_2
    canvas = new_canvas(SCREEN_DIM, SCREEN_DIM)
    scale = SCREEN_DIM / ((length_1 + length_2 + 0.2) * 2)
    offset = SCREEN_DIM / 2

    elbow = [-length_1 * np.cos(s[0]) * scale, length_1 * np.sin(s[0]) * scale]
    # The joints' (x, y): the pivot at the origin and the elbow, from (y, x) pairs as gymnasium builds them.
    joints = np.array([[0, 0], elbow])[:, ::-1]
    angles = [s[0] - np.pi / 2, s[0] + s[1] - np.pi / 2]
    lengths = [length_1 * scale, length_2 * scale]

    pygame.draw.line(
        canvas,
        start_pos=(-2.2 * scale + offset, 1 * scale + offset),
        end_pos=(2.2 * scale + offset, 1 * scale + offset),
        color=(0, 0, 0),
    )
    for (x, y), angle, length in zip(joints, angles, lengths, strict=True):
        x = x + offset
        y = y + offset
        left, right, top, bottom = 0, length, 0.1 * scale, -0.1 * scale
        corners = [(left, bottom), (left, top), (right, top), (right, bottom)]
        polygon(canvas, [(c[0] + x, c[1] + y) for c in rotated(corners, angle)], LINK_COLOR)
        disc(canvas, int(x), int(y), int(0.1 * scale), JOINT_COLOR)
    finish(surface, canvas)
