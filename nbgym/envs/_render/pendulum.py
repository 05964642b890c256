"""Pendulum's frame: the rod, its axle and an arrow sized by the last torque, as gymnasium 1.4.0 draws them (500x500).

Everything but the arrow is pixel-identical to gymnasium's frame. The arrow is nbgym's own image
(``assets/clockwise.png``, made by ``_assets.py``), scaled, flipped and placed as gymnasium places
its own: where the torque is drawn, the pixels differ by the drawing, not by its size or position.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._assets import ASSETS
from nbgym.envs._render._classic import disc, finish, new_canvas, polygon, rotated
from nbgym.envs.classic_control.pendulum import read_last_u

CAPTION = None
SCREEN_DIM = 500
BOUND = 2.2
ROD_COLOR = (204, 77, 77)


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return SCREEN_DIM, SCREEN_DIM


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s pendulum onto ``surface``."""
    pygame = import_pygame()
    theta = env._batch.state[index, 0]
    canvas = new_canvas(SCREEN_DIM, SCREEN_DIM)
    scale = SCREEN_DIM / (BOUND * 2)
    offset = SCREEN_DIM // 2

    rod_length = 1 * scale
    rod_width = 0.2 * scale
    left, right, top, bottom = 0, rod_length, rod_width / 2, -rod_width / 2
    corners = [(left, bottom), (left, top), (right, top), (right, bottom)]
    polygon(canvas, [(c[0] + offset, c[1] + offset) for c in rotated(corners, theta + np.pi / 2)], ROD_COLOR)
    disc(canvas, offset, offset, int(rod_width / 2), ROD_COLOR)
    (rod_end,) = rotated([(rod_length, 0)], theta + np.pi / 2)
    disc(canvas, int(rod_end[0] + offset), int(rod_end[1] + offset), int(rod_width / 2), ROD_COLOR)

    # gymnasium computes the arrow's size in the torque's own type (np.float32 for a float32 action).
    torque = read_last_u(None, env._batch.state[index])
    if torque is not None:
        arrow = state.sprites.get("clockwise")
        if arrow is None:
            arrow = state.sprites["clockwise"] = pygame.image.load(str(ASSETS / "clockwise.png"))
        side = float(scale * np.abs(torque) / 2)
        arrow = pygame.transform.flip(pygame.transform.smoothscale(arrow, (side, side)), bool(torque > 0), True)
        canvas.blit(arrow, (offset - arrow.get_rect().centerx, offset - arrow.get_rect().centery))

    disc(canvas, offset, offset, int(0.05 * scale), (0, 0, 0))
    finish(surface, canvas)
