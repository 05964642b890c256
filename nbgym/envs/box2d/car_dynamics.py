"""CarRacing's car, as gymnasium's ``car_dynamics`` names it: its constants, its skid traces (``Particle``), and how
pygame's ``Vector2.rotate_rad`` turns the view (``rotation``, ``rotate``, ``rotated``), which the frames use.

The car itself (gymnasium's ``Car``: the hull, the wheels, the tyre model of Chris Campbell's top-down car tutorial,
http://www.iforce2d.net/b2dtut/top-down-car) is simulated by the compiled kernels of ``car_racing.physics``; a
``CarRacing`` environment's ``car`` attribute reads and writes it there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbgym.engine import njit

__all__ = ["Particle", "rotate", "rotated", "rotation"]

SIZE = 0.02
ENGINE_POWER = 100000000 * SIZE * SIZE
WHEEL_MOMENT_OF_INERTIA = 4000 * SIZE * SIZE
FRICTION_LIMIT = 1000000 * SIZE * SIZE  # friction ~ mass ~ size^2 (the mass follows from the density)
WHEEL_R = 27
WHEEL_W = 14
WHEELPOS = [(-55, +80), (+55, +80), (-55, -82), (+55, -82)]
HULL_POLY1 = [(-60, +130), (+60, +130), (+60, +110), (-60, +110)]
HULL_POLY2 = [(-15, +120), (+15, +120), (+20, +20), (-20, 20)]
HULL_POLY3 = [(+25, +20), (+50, -10), (+50, -40), (+20, -90), (-20, -90), (-50, -40), (-50, -10), (-25, +20)]
HULL_POLY4 = [(-50, -120), (+50, -120), (+50, -90), (-50, -90)]
WHEEL_COLOR = (0, 0, 0)
WHEEL_WHITE = (77, 77, 77)
MUD_COLOR = (102, 102, 0)

BRAKE_FORCE = 15  # radians per second
TYRE_GRIP = 205000 * SIZE * SIZE
"""The tyre force per unit of slip speed."""
SKID_TRACE_POINTS = 30
"""A skid trace's longest polyline; a longer skid starts a new trace."""


@dataclass(frozen=True, slots=True)
class Particle:
    """A skid trace left by a wheel: a polyline in world coordinates (a copy of the kernels' trace, which refuses
    changes: see ``CarRacing.car.particles``).

    Attributes:
        color: Its colour (mud on grass, black on the road).
        poly: Its points.
        grass: Whether it was left on grass.
        ttl: Unused (kept from gymnasium).
    """

    color: tuple[int, int, int]
    poly: list[tuple[float, float]]
    grass: Any
    ttl: int = 1


@njit
def rotation(angle: float) -> tuple[float, float, int]:
    """How ``pygame.math.Vector2.rotate_rad(angle)`` rotates: ``(cos, sin, quadrant)`` (compiled: the vector
    env's frames call it in their kernel).

    pygame reduces the angle to [0, 2 pi) with ``fmod`` and, within 1e-6 of a multiple of pi/2, swaps
    and negates coordinates exactly instead of multiplying by the sine and cosine; ``quadrant`` is that
    multiple (0 to 3), or -1 when the sine and cosine of the reduced angle are used.
    """
    angle = np.fmod(angle, 2.0 * math.pi)  # C fmod, as math.fmod (which numba lacks)
    if angle < 0:
        angle += 2.0 * math.pi
    epsilon = 1e-6
    if np.fmod(angle + epsilon, math.pi / 2.0) < 2 * epsilon:
        return 1.0, 0.0, int((angle + epsilon) / (math.pi / 2.0)) % 4
    return math.cos(angle), math.sin(angle), -1


def rotate(x: float, y: float, turn: tuple[float, float, int]) -> tuple[float, float]:
    """``(x, y)`` rotated as ``pygame.math.Vector2((x, y)).rotate_rad(angle)``, with ``turn = rotation(angle)``."""
    cos, sin, quadrant = turn
    if quadrant == -1:
        return cos * x - sin * y, sin * x + cos * y
    return ((x, y), (-y, x), (-x, -y), (y, -x))[quadrant]


@njit
def rotated(x, y, cos, sin, quadrant):  # pragma: no cover (compiled)
    """Compiled :func:`rotate`: ``(x, y)`` rotated by ``(cos, sin, quadrant) = rotation(angle)``."""
    if quadrant == -1:
        return cos * x - sin * y, sin * x + cos * y
    if quadrant == 0:
        return x, y
    if quadrant == 1:
        return -y, x
    if quadrant == 2:
        return -x, -y
    return y, -x
