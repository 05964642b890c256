"""BipedalWalker's frames: gymnasium's ``render``, drawn with pygame from the port's rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym import error
from nbgym._box2d.math import cosf, sinf
from nbgym.engine import show_in_window, start_render, surface_pixels
from nbgym.envs.box2d._port_objects import Transform
from nbgym.envs.box2d.bipedal_walker.physics import (
    _INIT_X,
    _INIT_Y,
    LEG_DOWN,
    LEG_H,
    SCALE,
    TERRAIN_HEIGHT,
    TERRAIN_STEP,
    VIEWPORT_H,
    VIEWPORT_W,
)


def _walker_at_rest() -> list[Transform]:
    """The transforms of the hull and the four legs as reset creates them (``CreateDynamicBody(position, angle)``),
    before its idle step: what gymnasium's "human" frame drawn at reset shows."""

    def created(y: float, angle: float) -> Transform:
        a = np.float32(angle)
        return Transform(np.array([np.float32(_INIT_X), np.float32(y), sinf(a), cosf(a)], np.float32))

    legs = []
    for side in (-1, 1):
        legs.append(created(_INIT_Y - LEG_H / 2 - LEG_DOWN, side * 0.05))
        legs.append(created(_INIT_Y - LEG_H * 3 / 2 - LEG_DOWN, side * 0.05))
    return [created(_INIT_Y, 0.0), *legs]


def render(env: Any) -> np.ndarray | None:
    """``env.render()`` (see ``BipedalWalker.render``)."""
    pygame = start_render(env, (VIEWPORT_W, VIEWPORT_H), "box2d")
    if pygame is None:
        return None
    if not env._state_was_reset:
        raise error.ResetNeeded("BipedalWalker draws its terrain and walker from reset(): call env.reset() first.")
    gfxdraw = pygame.gfxdraw
    at_rest = env._take_reset_frame()

    scroll = 0.0 if at_rest else env.scroll  # gymnasium's reset sets it to 0 before it draws
    # The surface spans the terrain from x = 0 to the viewport's right edge.
    env.surf = surface = pygame.Surface((VIEWPORT_W + max(0.0, scroll) * SCALE, VIEWPORT_H))
    sky = [
        (scroll * SCALE, 0),
        (scroll * SCALE + VIEWPORT_W, 0),
        (scroll * SCALE + VIEWPORT_W, VIEWPORT_H),
        (scroll * SCALE, VIEWPORT_H),
    ]
    pygame.draw.polygon(surface, color=(215, 215, 255), points=sky)

    # Clouds move at half the walker's speed.
    for poly, x1, x2 in env.cloud_poly:
        if x2 < scroll / 2 or x1 > scroll / 2 + VIEWPORT_W / SCALE:
            continue
        points = [(p[0] * SCALE + scroll * SCALE / 2, p[1] * SCALE) for p in poly]
        pygame.draw.polygon(surface, color=(255, 255, 255), points=points)
        gfxdraw.aapolygon(surface, points, (255, 255, 255))

    for poly, color in env.terrain_poly:
        if poly[1][0] < scroll or poly[0][0] > scroll + VIEWPORT_W / SCALE:
            continue
        scaled_poly = [[x * SCALE, y * SCALE] for x, y in poly]
        pygame.draw.polygon(surface, color=color, points=scaled_poly)
        gfxdraw.aapolygon(surface, scaled_poly, color)

    # One lidar ray per frame, sweeping forth and back, then a pause.
    env.lidar_render = (env.lidar_render + 1) % 100
    i = env.lidar_render
    lidar = env.lidar
    if i < 2 * len(lidar) and not at_rest:  # at reset, gymnasium's rays have not been cast
        ray = lidar[i] if i < len(lidar) else lidar[len(lidar) - i - 1]
        p1, p2 = ray.p1, ray.p2
        pygame.draw.line(
            surface,
            color=(255, 0, 0),
            start_pos=(p1[0] * SCALE, p1[1] * SCALE),
            end_pos=(p2[0] * SCALE, p2[1] * SCALE),
            width=1,
        )

    created = dict(zip([env.hull, *env.legs], _walker_at_rest())) if at_rest else {}
    for body in env.drawlist:
        # Box2D's float32 b2Mul, then the float32 product by SCALE, as pybox2d's.
        transform = created.get(body) or body.transform
        for fixture in body.fixtures:
            path = [transform * v * SCALE for v in fixture.shape.vertices]
            if len(path) > 2:
                pygame.draw.polygon(surface, color=body.color1, points=path)
                gfxdraw.aapolygon(surface, path, body.color1)
                path.append(path[0])
                pygame.draw.polygon(surface, color=body.color2, points=path, width=1)
                gfxdraw.aapolygon(surface, path, body.color2)
            else:
                pygame.draw.aaline(surface, start_pos=path[0], end_pos=path[1], color=body.color1)

    pole_bottom = TERRAIN_HEIGHT * SCALE
    pole_top = pole_bottom + 50
    x = TERRAIN_STEP * 3 * SCALE
    pygame.draw.aaline(surface, color=(0, 0, 0), start_pos=(x, pole_bottom), end_pos=(x, pole_top))
    flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
    pygame.draw.polygon(surface, color=(230, 51, 0), points=flag)
    pygame.draw.lines(surface, color=(0, 0, 0), points=flag + [flag[0]], width=1, closed=False)

    env.surf = pygame.transform.flip(surface, False, True)
    if env.render_mode == "human":
        show_in_window(env, env.surf, (-scroll * SCALE, 0))
        return None
    if env.render_mode == "rgb_array":
        return surface_pixels(env.surf)[:, -VIEWPORT_W:]
    return None  # another mode (gymnasium's env draws, and returns nothing)
