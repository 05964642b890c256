"""CarRacing's gymnasium-facing objects: the car and its wheels, the tiles, the track and road lists and the contact
listener, read from and written into the kernels' rows (the bodies the Box2D envs share are in
``nbgym.envs.box2d._port_objects``)."""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np

from nbgym.envs.box2d._port_objects import EpisodeObject, FixedList, PortBody, PortWorld, RevoluteJoint
from nbgym.envs.box2d.car_dynamics import MUD_COLOR, WHEEL_COLOR, Particle
from nbgym.envs.box2d.car_racing import physics as P

_GYMNASIUMS = "gymnasium.make('CarRacing-v3') runs gymnasium's own environment on the box2d wheel"


def _not_served(owner: str, name: str) -> AttributeError:
    return AttributeError(f"{owner}.{name} is not served by nbgym's compiled CarRacing ({_GYMNASIUMS}).")


class Unserved:
    """A gymnasium object nbgym's kernels have no counterpart of (``fd_tile``): present, as gymnasium's attribute,
    but every attribute of it refused, saying so."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise _not_served(self._name, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise _not_served(self._name, name)

    def __repr__(self) -> str:
        return f"<{self._name}: not served by nbgym's compiled CarRacing>"


class FrictionDetector:
    """gymnasium's contact listener, whose work the kernels do (``physics._contact_events``): its ``env``
    and the ``lap_complete_percent`` the kernels read now (set ``env.lap_complete_percent``: a reset takes it)."""

    __slots__ = ("env",)

    def __init__(self, env: Any) -> None:
        object.__setattr__(self, "env", env)

    @property
    def lap_complete_percent(self) -> float:
        return self.env._params["lap_complete_percent"].item()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"CarRacing's contact listener is compiled: set env.lap_complete_percent (the next reset takes it), not "
            f"the listener's {name}."
        )


def _refuse_setting(owner: str, name: str, how: str) -> Any:
    def set(self: Any, value: Any) -> None:
        raise AttributeError(f"{owner}.{name} cannot be set on nbgym's compiled CarRacing: {how}.")

    return set


class CarBody(PortBody):
    """A body of the car (gymnasium's ``car.hull`` or a wheel): a port body whose ``color`` the frames draw from the
    kernels' constants."""

    _COLOR: tuple[float, float, float] = (0.8, 0.0, 0.0)

    def _color(self) -> tuple[float, float, float]:
        self._row()
        return self._COLOR

    color = property(_color, _refuse_setting("car body", "color", "the compiled frames draw gymnasium's car colours"))


class Wheel(CarBody):
    """A wheel of the car (``env.car.wheels[k]``): a port body with gymnasium's ``gas``, ``brake``, ``steer`` (the
    controls, set by ``car.gas()``/``brake()``/``steer()``), ``phase`` and ``omega`` (its rotation), ``joint`` (its
    revolute joint to the hull) and ``wheel_rad``, all read and written in the kernels' rows."""

    _COLOR = WHEEL_COLOR

    def __init__(self, source: Any, index: int, k: int) -> None:
        super().__init__(source, index)
        self._k = k

    def _column(base: int, name: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: Wheel) -> float:
            self._row()
            return self._source._batch.state.env_f.item(0, base + self._k)

        def set(self: Wheel, value: Any) -> None:
            self._row()
            self._source._batch.state.env_f[0, base + self._k] = float(value)

        return property(get, set, doc=f"gymnasium's ``wheel.{name}`` (the kernels read and write it every step).")

    gas = _column(P.GAS, "gas")
    brake = _column(P.BRAKE, "brake")
    steer = _column(P.STEER, "steer")
    phase = _column(P.PHASE, "phase")
    omega = _column(P.OMEGA, "omega")
    del _column

    @property
    def joint(self) -> RevoluteJoint:
        """The revolute joint between the hull and this wheel (its motor steers the front wheels)."""
        self._row()
        return RevoluteJoint(self._source, int(self._source._batch.state.env_i[0, P.JOINTS + self._k]))

    @property
    def wheel_rad(self) -> float:
        """The wheel's radius (the tyre model's; a constant of the kernels)."""
        return P.WHEEL_RAD

    def _unserved(name: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: Wheel) -> Any:
            raise AttributeError(
                f"wheel.{name} is not served: the kernels keep only what the tyre model needs (the number of tiles a "
                f"wheel touches, its skid trace's length) ({_GYMNASIUMS})."
            )

        return property(get, _refuse_setting("wheel", name, "the kernels keep it"))

    tiles = _unserved("tiles")
    skid_start = _unserved("skid_start")
    skid_particle = _unserved("skid_particle")
    del _unserved


class Tile(PortBody):
    """A road tile (``env.road[k]``): a static sensor body with gymnasium's ``color`` (the array of its ``road_poly``
    entry, changed in place), ``road_visited`` (whether a wheel touched it: the next touch of a visited tile earns
    nothing), ``road_friction`` and ``idx``."""

    def __init__(self, source: Any, index: int, k: int) -> None:
        super().__init__(source, index)
        self._k = k

    def _tile_row(self) -> np.ndarray:
        self._row()
        return self._source._batch.state.tile_i[0, self._k]

    def _idx(self) -> int:
        """The tile's place along the track (tile 0 completes a lap)."""
        self._row()
        return self._k

    def _road_friction(self) -> float:
        """The grip of the road (1.0; the grass's is 0.6), a constant of the tyre model in the kernels."""
        self._row()
        return 1.0

    def _color(self) -> np.ndarray:
        """The tile's colour, the very array of its ``road_poly`` entry: change it in place (``tile.color[:] = ...``);
        a wheel's touch sets it to the road's colour."""
        return self._source.road_poly[int(self._tile_row()[P.TILE_POLY])][1]

    idx = property(_idx, _refuse_setting("tile", "idx", "it is the tile's place in the kernels' track"))
    road_friction = property(
        _road_friction, _refuse_setting("tile", "road_friction", "the kernels' tyre model takes every tile's as 1.0")
    )
    color = property(_color, _refuse_setting("tile", "color", "change the array in place: tile.color[:] = ..."))

    @property
    def road_visited(self) -> bool:
        """Whether a wheel touched the tile this episode (a visited tile earns nothing more)."""
        return bool(self._tile_row()[P.TILE_VISITED])

    @road_visited.setter
    def road_visited(self, value: Any) -> None:
        self._tile_row()[P.TILE_VISITED] = 1 if value else 0


class TrackList(EpisodeObject, list):
    """gymnasium's ``track``: ``(alpha, beta, x, y)`` per tile, in order. Its length is what the rewards and the lap
    read (1000/len(track) per tile): removing or adding entries changes them from the next step, as in gymnasium
    (the entries themselves are read at reset only). A list of an earlier episode no longer counts."""

    def __init__(self, items: Iterable[Any], env: Any) -> None:
        super().__init__(items)
        self._source = env
        self._generation = env._port_generation

    def _changed(self) -> None:
        if self._is_current():
            self._source._batch.state.env_i[0, P.TRACK_LENGTH] = len(self)

    def _changing(name: str) -> Any:  # noqa: N805 (a class-body helper)
        method = getattr(list, name)

        def change(self: TrackList, *args: Any, **kwargs: Any) -> Any:
            result = method(self, *args, **kwargs)
            self._changed()
            return result

        change.__name__ = name
        return change

    __setitem__ = _changing("__setitem__")
    __delitem__ = _changing("__delitem__")
    __iadd__ = _changing("__iadd__")
    __imul__ = _changing("__imul__")
    append = _changing("append")
    extend = _changing("extend")
    insert = _changing("insert")
    pop = _changing("pop")
    remove = _changing("remove")
    clear = _changing("clear")
    del _changing

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return list, (list(self),)  # a copy is a plain list (it belongs to no env)


class Car(EpisodeObject):
    """gymnasium's ``Car`` of this episode (``env.car``), over the kernels' rows: ``hull``, ``wheels`` (front left,
    front right, rear left, rear right), ``drawlist``, ``particles`` (the skid traces, read), ``fuel_spent``, ``world``,
    and the controls ``gas()``, ``brake()``, ``steer()`` (as gymnasium's: an action sets them, the next step reads
    them). Moving its bodies, setting their velocities or the wheels' ``omega`` changes the next step."""

    __slots__ = ("_source", "_generation", "hull", "wheels", "drawlist")

    def __init__(self, env: Any, hull: CarBody, wheels: list[Wheel]) -> None:
        for name, value in (
            ("_source", env),
            ("_generation", env._port_generation),
            ("hull", hull),
            ("wheels", FixedList(wheels, "CarRacing.car.wheels")),
            ("drawlist", FixedList([*wheels, hull], "CarRacing.car.drawlist")),
        ):
            object.__setattr__(self, name, value)

    def _state(self) -> P.CarRows:
        return self._episode_source()._batch.state

    def gas(self, gas: Any) -> None:
        """Presses the accelerator (rear-wheel drive): the rear wheels' gas rises by at most 0.1, falls at once.

        Args:
            gas: How much gas, clipped to [0, 1].

        Raises:
            ValueError: If ``gas`` is NaN (gymnasium's frame fails on it after the world moved).
        """
        gas = float(gas)
        if math.isnan(gas):
            raise ValueError("CarRacing's gas is a number in [0, 1], not NaN")
        P.car_gas(self._state(), 0, gas)

    def brake(self, b: Any) -> None:
        """Brakes every wheel (0 to 1; 0.9 or more blocks them)."""
        P.car_brake(self._state(), 0, float(b))

    def steer(self, s: Any) -> None:
        """Sets the front wheels' steering target (-1 to 1); their joints' motors turn them towards it."""
        P.car_steer(self._state(), 0, float(s))

    @property
    def fuel_spent(self) -> float:
        """The engine's work since the last step (each step sets it to 0 after counting, as gymnasium's)."""
        return self._state().env_f.item(0, P.FUEL_SPENT)

    @fuel_spent.setter
    def fuel_spent(self, value: Any) -> None:
        self._state().env_f[0, P.FUEL_SPENT] = float(value)

    @property
    def particles(self) -> FixedList:
        """The last 30 skid traces, oldest first: copies (``Particle``: ``color``, ``poly``, ``grass``) in a list that
        refuses changes; the kernels make and grow them."""
        state = self._state()
        made = int(state.env_i[0, P.PARTICLES_MADE])
        traces = []
        for s in range(max(0, made - P.PARTICLES), made):
            slot = s % P.PARTICLES
            count, grass = state.part_i[0, slot].tolist()
            poly = FixedList((tuple(point) for point in state.part_xy[0, slot, :count].tolist()), "Particle.poly")
            traces.append(Particle(MUD_COLOR if grass else WHEEL_COLOR, poly, bool(grass)))
        return FixedList(traces, "CarRacing.car.particles")

    @property
    def world(self) -> PortWorld:
        return PortWorld(self._episode_source())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(
            f"CarRacing's car serves hull, wheels, drawlist, particles, fuel_spent, world and gas/brake/steer, not "
            f"{name!r}: the kernels step and draw it ({_GYMNASIUMS})."
        )

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(getattr(type(self), name, None), property) and getattr(type(self), name).fset is not None:
            object.__setattr__(self, name, value)
            return
        raise AttributeError(
            f"CarRacing's car has no settable {name!r}: its bodies are the kernels' (change their attributes: position, "
            f"linearVelocity, a wheel's omega...)."
        )

    def __repr__(self) -> str:
        return f"<Car hull={self.hull!r}>"


def track_entries(track: np.ndarray) -> list[tuple[float, float, float, float]]:
    """gymnasium's ``track`` entries from the rows: ``(alpha, beta, x, y)``, Python floats."""
    return [tuple(entry) for entry in track.tolist()]


def road_entries(state: P.CarRows, tiles: int) -> list[tuple[list[tuple[Any, Any]], Any]]:
    """gymnasium's ``road_poly`` from the rows: each tile's four vertices (Python floats) with its colour (a float64
    array, the tile's own), then its border's if any (vertices ``np.float64``, gymnasium's ``np.sign`` in them; colour
    a tuple of ints)."""
    n = int(state.env_i[0, P.POLY_COUNT])
    is_tile = np.zeros(n, np.bool_)
    is_tile[state.tile_i[0, :tiles, P.TILE_POLY]] = True
    entries = []
    for k, (vertices, color) in enumerate(zip(state.poly_xy[0, :n].tolist(), state.poly_color[0, :n])):
        if is_tile[k]:
            entries.append(([(x, y) for x, y in vertices], color.copy()))
        else:
            entries.append(([(np.float64(x), np.float64(y)) for x, y in vertices], tuple(int(c) for c in color)))
    return entries
