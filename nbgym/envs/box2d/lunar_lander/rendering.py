"""LunarLander's frames: gymnasium's ``render``, drawn with pygame from the port's rows."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym._box2d.math import cosf, sinf
from nbgym.engine import import_pygame, show_in_window, start_render, surface_pixels
from nbgym.envs.box2d._port_objects import CircleShape, Transform
from nbgym.envs.box2d.lunar_lander import physics as P
from nbgym.envs.box2d.lunar_lander.physics import LEG_AWAY, SCALE, VIEWPORT_H, VIEWPORT_W


def _lander_at_rest() -> list[Transform]:
    """The transforms of the lander and its two legs as reset creates them (``CreateDynamicBody(position, angle)``),
    before its idle step: what gymnasium's "human" frame drawn at reset shows."""
    initial_x, initial_y = VIEWPORT_W / SCALE / 2, VIEWPORT_H / SCALE

    def created(x: float, angle: float) -> Transform:
        a = np.float32(angle)
        return Transform(np.array([np.float32(x), np.float32(initial_y), sinf(a), cosf(a)], np.float32))

    return [created(initial_x, 0.0), *(created(initial_x - side * LEG_AWAY / SCALE, side * 0.05) for side in (-1, 1))]


def render(env: Any) -> np.ndarray | None:
    """``env.render()`` (see ``LunarLander.render``)."""
    pygame = start_render(env, (VIEWPORT_W, VIEWPORT_H), "box2d")
    if pygame is None:
        return None

    env.surf = surface = pygame.Surface((VIEWPORT_W, VIEWPORT_H))
    pygame.draw.rect(surface, (255, 255, 255), surface.get_rect())

    if env._state_was_reset:
        state = env._batch.state
        for particle in env.particles:
            ttl = state.ttl[0, particle._index] - P.PARTICLE_TTL_DECAY
            particle.color1 = particle.color2 = (
                int(max(0.2, 0.15 + ttl) * 255),
                int(max(0.2, 0.5 * ttl) * 255),
                int(max(0.2, 0.5 * ttl) * 255),
            )
        P.decay_particles(state, 0)

    gfxdraw = pygame.gfxdraw
    for poly in env.sky_polys:
        scaled_poly = [(x * SCALE, y * SCALE) for x, y in poly]
        pygame.draw.polygon(surface, (0, 0, 0), scaled_poly)
        gfxdraw.aapolygon(surface, scaled_poly, (0, 0, 0))

    at_rest = env._take_reset_frame()
    created = dict(zip(env.drawlist, _lander_at_rest())) if at_rest else {}
    for body in env.particles + env.drawlist:
        for fixture in body.fixtures:
            transform = created.get(body) or body.transform
            shape = fixture.shape
            if type(shape) is CircleShape:
                center = transform * shape.pos * SCALE
                pygame.draw.circle(surface, color=body.color1, center=center, radius=shape.radius * SCALE)
                pygame.draw.circle(surface, color=body.color2, center=center, radius=shape.radius * SCALE)
            else:
                path = [transform * v * SCALE for v in shape.vertices]
                pygame.draw.polygon(surface, color=body.color1, points=path)
                gfxdraw.aapolygon(surface, path, body.color1)
                pygame.draw.aalines(surface, color=body.color2, points=path, closed=True)
            # The flags are drawn again after every fixture: their antialiased edges blend each time.
            _draw_flags(env, surface)

    env.surf = pygame.transform.flip(surface, False, True)
    if env.render_mode == "human":
        show_in_window(env, env.surf)
        return None
    return surface_pixels(env.surf)


def _draw_flags(env: Any, surface: Any) -> None:
    pygame = import_pygame("box2d")
    for x in (env.helipad_x1, env.helipad_x2):
        x = x * SCALE
        pole_bottom = env.helipad_y * SCALE
        pole_top = pole_bottom + 50
        pygame.draw.line(surface, color=(255, 255, 255), start_pos=(x, pole_bottom), end_pos=(x, pole_top), width=1)
        flag = [(x, pole_top), (x, pole_top - 10), (x + 25, pole_top - 5)]
        pygame.draw.polygon(surface, color=(204, 204, 0), points=flag)
        pygame.gfxdraw.aapolygon(surface, flag, (204, 204, 0))
