"""Drawing steps the classic-control frames share, each the pygame calls gymnasium 1.4.0 makes for it.

Coordinates are computed by the callers, in gymnasium's order of operations: these helpers only
issue the calls, so that the frames stay pixel-identical.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nbgym.engine import import_pygame

WHITE = (255, 255, 255)


def new_canvas(width: int, height: int) -> Any:
    """A white surface to draw a frame on, in the y-up coordinates that :func:`finish` flips."""
    canvas = import_pygame().Surface((width, height))
    canvas.fill(WHITE)
    return canvas


def rotated(corners: Sequence[tuple[float, float]], angle: Any) -> list[Any]:
    """``corners`` rotated by ``angle`` radians about the origin, as ``pygame.math.Vector2``."""
    vector = import_pygame().math.Vector2
    return [vector(corner).rotate_rad(angle) for corner in corners]


def polygon(surface: Any, points: Sequence[Any], color: tuple[int, int, int]) -> None:
    """A filled polygon with an antialiased outline."""
    gfxdraw = import_pygame().gfxdraw
    gfxdraw.aapolygon(surface, points, color)
    gfxdraw.filled_polygon(surface, points, color)


def disc(surface: Any, x: int, y: int, radius: int, color: tuple[int, int, int]) -> None:
    """A filled circle with an antialiased outline."""
    gfxdraw = import_pygame().gfxdraw
    gfxdraw.aacircle(surface, x, y, radius, color)
    gfxdraw.filled_circle(surface, x, y, radius, color)


def finish(surface: Any, canvas: Any) -> None:
    """Puts the y-up ``canvas`` onto the frame ``surface``, flipped upside down."""
    surface.blit(import_pygame().transform.flip(canvas, False, True), (0, 0))
