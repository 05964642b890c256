"""BipedalWalker's own gymnasium-facing objects: the terrain's fixture definitions, the lidar rays and the episode's
polygons, read from and written into the port's rows (the bodies and joints the Box2D envs share are in
``nbgym.envs.box2d._port_objects``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym.envs.box2d._port_objects import EpisodeObject
from nbgym.envs.box2d.bipedal_walker.physics import (
    CLOUD_VERTICES,
    CLOUD_WIDTH,
    CLOUDS,
    GROUND_COLOR,
    LIDAR_P2,
    SCALE,
    STATE,
    TERRAIN_LENGTH,
    TERRAIN_STEP,
    VIEWPORT_H,
)


def terrain_xs() -> list[float]:
    """gymnasium's ``terrain_x``: each terrain point's x (Python floats)."""
    return [k * TERRAIN_STEP for k in range(TERRAIN_LENGTH)]


def terrain_poly(
    terrain_x: list[float], terrain_y: list[Any]
) -> list[tuple[list[tuple[Any, Any]], tuple[int, int, int]]]:
    """gymnasium's ``terrain_poly``: below each edge of the ground, the quad down to y = 0, in the ground's colour."""
    polys = []
    for k in range(TERRAIN_LENGTH - 1):
        poly = [(terrain_x[k], terrain_y[k]), (terrain_x[k + 1], terrain_y[k + 1])]
        poly += [(poly[1][0], 0), (poly[0][0], 0)]
        polys.append((poly, GROUND_COLOR))
    return polys


def cloud_poly(draws: np.ndarray) -> list[tuple[list[tuple[float, float]], float, float]]:
    """gymnasium's ``cloud_poly`` from the clouds' draws (see ``physics._generate_clouds``): per cloud, its pentagon and
    its extent in x."""
    clouds = []
    for row in draws.reshape(CLOUDS, CLOUD_WIDTH).tolist():
        x = row[0] * TERRAIN_STEP
        y = VIEWPORT_H / SCALE * 3 / 4
        poly = [
            (
                x + 15 * TERRAIN_STEP * math.sin(3.14 * 2 * a / 5) + row[1 + 2 * a],
                y + 5 * TERRAIN_STEP * math.cos(3.14 * 2 * a / 5) + row[2 + 2 * a],
            )
            for a in range(CLOUD_VERTICES)
        ]
        clouds.append((poly, min(p[0] for p in poly), max(p[0] for p in poly)))
    return clouds


class FixtureDef:
    """gymnasium's ``fd_polygon``/``fd_edge``: the fixture definition each terrain body of one kind is made with at
    reset (the obstacles' polygons, the ground's edges). Its numbers are parameters of the compiled reset: setting
    ``categoryBits``, ``maskBits``, ``groupIndex``, ``friction``, ``density`` or ``restitution`` changes the terrain of
    the following resets, as in gymnasium. The shape is made by the kernels from the terrain's draws."""

    _FIELDS = {
        "categoryBits": int,
        "maskBits": int,
        "groupIndex": int,
        "friction": float,
        "density": float,
        "restitution": float,
    }

    def __init__(self, env: Any, kind: str) -> None:
        object.__setattr__(self, "_env", env)
        object.__setattr__(self, "_kind", kind)

    def _field(self, name: str) -> str:
        if name not in self._FIELDS:
            raise AttributeError(
                f"fd_{self._kind}.{name} is not served: the compiled reset takes the fixture definition's numbers "
                f"({', '.join(self._FIELDS)}); its shape is made from the terrain's draws."
            )
        return f"_{self._kind}_{name}"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = self._env._params[self._field(name)][0].item()
        return self._FIELDS[name](value)

    def __setattr__(self, name: str, value: Any) -> None:
        field = self._field(name)
        kind = self._FIELDS[name]
        if kind is int:
            low, high = (-0x8000, 0x7FFF) if name == "groupIndex" else (0, 0xFFFF)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not low <= value <= high:
                raise ValueError(f"fd_{self._kind}.{name} is a 16-bit int in [{low}, {high}], got {value!r}")
            self._env._params[field] = int(value)
        else:
            self._env._params[field] = float(np.float32(value))  # Box2D keeps a float32

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"<FixtureDef fd_{self._kind}: {fields}>"


class LidarRay(EpisodeObject):
    """One lidar ray of the last step, as gymnasium's ``LidarCallback`` holds it: ``p1`` (where it starts: the hull's
    position), ``p2`` (where it ends: the nearest ground point hit, else its full reach) and ``fraction`` (how far
    along the ray that end is, 1.0 for no hit). ``fraction`` and ``p2`` may be assigned, as gymnasium's attributes
    (the frames draw ``p1``-``p2``; the next step casts the ray again). gymnasium's reset makes new rays: one held
    across a reset refuses (``EpisodeObject``)."""

    __slots__ = ("_source", "_generation", "_index")

    def __init__(self, env: Any, index: int) -> None:
        self._source = env
        self._generation = env._port_generation
        self._index = index

    def _env_f(self) -> np.ndarray:
        return self._episode_source()._batch.state.env_f

    @property
    def fraction(self) -> float:
        return self._env_f().item(0, STATE + 14 + self._index)

    @fraction.setter
    def fraction(self, value: Any) -> None:
        self._env_f()[0, STATE + 14 + self._index] = float(value)

    @property
    def p1(self) -> Any:
        return self._episode_source().hull.position

    @p1.setter
    def p1(self, value: Any) -> None:
        raise AttributeError("A lidar ray starts at the hull's position (its p1): move the hull (env.hull.position).")

    @property
    def p2(self) -> tuple[float, float]:
        env_f = self._env_f()
        k = LIDAR_P2 + 2 * self._index
        return env_f.item(0, k), env_f.item(0, k + 1)

    @p2.setter
    def p2(self, value: Any) -> None:
        x, y = value
        k = LIDAR_P2 + 2 * self._index
        self._env_f()[0, k : k + 2] = float(x), float(y)

    def __repr__(self) -> str:
        if not self._is_current():
            return f"<LidarRay {self._index} of an earlier episode>"
        return f"<LidarRay {self._index} fraction={self.fraction:g}>"
