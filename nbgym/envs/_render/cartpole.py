"""CartPole's frame: the cart on its track and the pole on its axle, as gymnasium 1.4.0 draws them (600x400)."""

from __future__ import annotations

from typing import Any

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._classic import disc, finish, new_canvas, polygon, rotated

CAPTION = None
SCREEN_WIDTH, SCREEN_HEIGHT = 600, 400
POLE_WIDTH = 10.0
CART_WIDTH, CART_HEIGHT = 50.0, 30.0
CART_TOP = 100
CART_COLOR = (0, 0, 0)
POLE_COLOR = (202, 152, 101)
AXLE_COLOR = (129, 132, 203)


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return SCREEN_WIDTH, SCREEN_HEIGHT


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s cart and pole onto ``surface``."""
    x = env._batch.state[index]
    params = env._params[0]
    scale = SCREEN_WIDTH / (params["x_threshold"].item() * 2)
    pole_length = scale * (2 * params["length"].item())

    canvas = new_canvas(SCREEN_WIDTH, SCREEN_HEIGHT)
    left, right, top, bottom = -CART_WIDTH / 2, CART_WIDTH / 2, CART_HEIGHT / 2, -CART_HEIGHT / 2
    axle_offset = CART_HEIGHT / 4.0
    cart_x = x[0] * scale + SCREEN_WIDTH / 2.0
    corners = [(left, bottom), (left, top), (right, top), (right, bottom)]
    polygon(canvas, [(cx + cart_x, cy + CART_TOP) for cx, cy in corners], CART_COLOR)

    left, right, top, bottom = -POLE_WIDTH / 2, POLE_WIDTH / 2, pole_length - POLE_WIDTH / 2, -POLE_WIDTH / 2
    corners = [(left, bottom), (left, top), (right, top), (right, bottom)]
    polygon(canvas, [(c[0] + cart_x, c[1] + CART_TOP + axle_offset) for c in rotated(corners, -x[2])], POLE_COLOR)

    disc(canvas, int(cart_x), int(CART_TOP + axle_offset), int(POLE_WIDTH / 2), AXLE_COLOR)
    import_pygame().gfxdraw.hline(canvas, 0, SCREEN_WIDTH, CART_TOP, (0, 0, 0))
    finish(surface, canvas)
