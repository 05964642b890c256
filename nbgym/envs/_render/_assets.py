"""Makes the image files of ``nbgym/envs/_render/assets/`` (run ``python -m nbgym.envs._render._assets``).

The images are nbgym's own drawings, made here so that they can be remade and checked: a test
draws them again and compares them with the shipped files.

- ``clockwise.png``: the arrow Pendulum's frame shows around its axle, sized by the last torque: a
  black circular arrow turning clockwise, on a transparent background.
"""

from __future__ import annotations

import math
import pathlib
from typing import Any

from nbgym.engine import import_pygame

ASSETS = pathlib.Path(__file__).with_name("assets")

_ARROW_SIZE = 256
_SUPERSAMPLING = 4  # drawn this many times larger, then smoothly scaled down: antialiased edges
_ARC_FROM, _ARC_TO = math.radians(-60.0), math.radians(210.0)  # counterclockwise angles, y up
_ARC_WIDTH = 0.07  # of the image's side
_HEAD_LENGTH, _HEAD_WIDTH = 0.2, 0.22


def clockwise_arrow() -> Any:
    """The clockwise arrow as a ``256x256`` RGBA surface: an arc of 270 degrees whose head points clockwise."""
    pygame = import_pygame()
    side = _ARROW_SIZE * _SUPERSAMPLING
    big = pygame.Surface((side, side), pygame.SRCALPHA)
    center = side / 2
    radius = side * 0.36
    width = side * _ARC_WIDTH
    # The arc as a strip of quadrilaterals (pygame.draw.arc leaves gaps between thick strokes).
    steps = 180
    angles = [_ARC_FROM + (_ARC_TO - _ARC_FROM) * k / steps for k in range(steps + 1)]
    for start, stop in zip(angles, angles[1:]):
        quad = [
            _polar(center, radius - width / 2, start),
            _polar(center, radius + width / 2, start),
            _polar(center, radius + width / 2, stop),
            _polar(center, radius - width / 2, stop),
        ]
        pygame.draw.polygon(big, (0, 0, 0, 255), quad)
    # The head sits at the arc's start: travelling from the end back to the start is clockwise on screen.
    tip_angle = _ARC_FROM - _HEAD_LENGTH * side / radius
    head = [
        _polar(center, radius - _HEAD_WIDTH * side / 2, _ARC_FROM),
        _polar(center, radius + _HEAD_WIDTH * side / 2, _ARC_FROM),
        _polar(center, radius, tip_angle),
    ]
    pygame.draw.polygon(big, (0, 0, 0, 255), head)
    return pygame.transform.smoothscale(big, (_ARROW_SIZE, _ARROW_SIZE))


def _polar(center: float, radius: float, angle: float) -> tuple[float, float]:
    """The point at ``radius`` and counterclockwise ``angle`` (y up) from the image's centre, in screen coordinates."""
    return center + radius * math.cos(angle), center - radius * math.sin(angle)


MAKERS = {"clockwise.png": clockwise_arrow}
"""Each asset file and the function that draws it."""


def main() -> None:
    """Draws every asset and writes it into ``ASSETS``."""
    pygame = import_pygame()
    ASSETS.mkdir(exist_ok=True)
    for name, make in MAKERS.items():
        pygame.image.save(make(), str(ASSETS / name))
        print(f"wrote {ASSETS / name}")


if __name__ == "__main__":
    main()
