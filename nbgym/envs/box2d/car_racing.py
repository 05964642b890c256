"""CarRacing: drive a top-down car around a random track from pixels, as gymnasium's ``CarRacing-v3``, on the compiled
Box2D port: the kernels of ``_car_racing_kernels`` (``car_racing_physics``'s track, car and game, and the frames drawn
by the compiled rasteriser ``_raster``), which the vector env runs too. No ``box2d`` wheel is needed, nor pygame to
step or to draw ``"rgb_array"``/``"state_pixels"`` frames.

The environment hands out what gymnasium's has (``car`` with its ``hull`` and ``wheels``, ``road``, ``road_poly``,
``track``, ``world``, the rewards, the colours...) as objects that read and write the kernels' rows.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Iterable

import numpy as np

from nbgym import error, spaces
from nbgym._box2d import world as W
from nbgym.engine.state_views import NO_VALUE, StateRows, StateView
from nbgym.engine import ACTION_FLOAT_DTYPES, KernelEnv, declares_arguments, vector_env_class
import nbgym.engine.actions as reading
from nbgym.envs.box2d import _car_racing_kernels as K
from nbgym.envs.box2d import car_racing_physics as P
from nbgym.envs.box2d._port_objects import (
    EpisodeObject,
    FixedList,
    PortBody,
    PortWorld,
    RevoluteJoint,
    fixed_world_row,
)
from nbgym.envs.box2d._window import close_window, show, start_render
from nbgym.envs.box2d.car_dynamics import MUD_COLOR, WHEEL_COLOR, Particle
from nbgym.utils import EzPickle

__all__ = ["CarRacing", "CarRacingVectorEnv"]

# gymnasium's module constants
STATE_W = K.STATE_W  # less than Atari 160x192
STATE_H = K.STATE_H
VIDEO_W = 600
VIDEO_H = 400
WINDOW_W = 1000
WINDOW_H = 800
SCALE = P.SCALE  # track scale
TRACK_RAD = P.TRACK_RAD  # the track is a heavily morphed circle of this radius
PLAYFIELD = P.PLAYFIELD  # game over beyond this boundary
FPS = P.FPS
ZOOM = K.ZOOM  # camera zoom
ZOOM_FOLLOW = True  # gymnasium's constant (its rendering follows the car regardless)
TRACK_DETAIL_STEP = P.TRACK_DETAIL_STEP
TRACK_TURN_RATE = P.TRACK_TURN_RATE
TRACK_WIDTH = P.TRACK_WIDTH
BORDER = P.BORDER
BORDER_MIN_COUNT = P.BORDER_MIN_COUNT
GRASS_DIM = K.GRASS_DIM
MAX_SHAPE_DIM = max(GRASS_DIM, TRACK_WIDTH, TRACK_DETAIL_STEP) * math.sqrt(2) * ZOOM * SCALE
CHECKPOINTS = P.CHECKPOINTS

_GYMNASIUMS = "gymnasium.make('CarRacing-v3') runs gymnasium's own environment on the box2d wheel"
_NO_FRAME = np.zeros((0, 0, 3), np.uint8)
_COLORS = (("road_color", P.ROAD_COLOR), ("bg_color", P.BG_COLOR), ("grass_color", P.GRASS_COLOR))
"""The colour attributes and their columns in the kernels' float rows."""
_LIGHTEST_TILE = 0.01 * 2 * 255
"""What a new track adds to ``road_color`` for its lightest tiles (gymnasium's ``0.01 * (i % 3) * 255``)."""


def _checked_color(name: str, value: Any) -> np.ndarray:
    """``value`` as the array ``name`` holds: a numeric numpy array is held itself (as gymnasium's attribute holds
    it: changes in place reach the next steps), anything else as a float64 array.

    Raises:
        ValueError: If ``value`` is not three numbers that pygame takes as a colour (``int()`` of each in 0-255:
            each in (-1, 256); NaN and infinities are not), which gymnasium's frames would fail on.
    """
    if type(value) is np.ndarray and value.dtype.kind in "biuf" and value.shape == (3,):
        # the colours as a reset leaves them, checked before every step: as three Python numbers several times faster
        # than as the numpy array below
        if all(-1 < number < 256 for number in value.tolist()):
            return value
    try:
        numbers = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        numbers = np.zeros(0)
    if numbers.shape != (3,) or not np.all((numbers > -1) & (numbers < 256)):
        raise ValueError(
            f"CarRacing.{name} is three numbers, each in (-1, 256) (pygame draws int() of each, 0-255), got {value!r}"
        )
    return value if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" else numbers


def _not_served(owner: str, name: str) -> AttributeError:
    return AttributeError(f"{owner}.{name} is not served by nbgym's compiled CarRacing ({_GYMNASIUMS}).")


class _Unserved:
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
    """gymnasium's contact listener, whose work the kernels do (``car_racing_physics._contact_events``): its ``env``
    and the ``lap_complete_percent`` the kernels read now (set ``env.lap_complete_percent``: a reset takes it)."""

    __slots__ = ("env",)

    def __init__(self, env: CarRacing) -> None:
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


class _CarBody(PortBody):
    """A body of the car (gymnasium's ``car.hull`` or a wheel): a port body whose ``color`` the frames draw from the
    kernels' constants."""

    _COLOR: tuple[float, float, float] = (0.8, 0.0, 0.0)

    def _color(self) -> tuple[float, float, float]:
        self._row()
        return self._COLOR

    color = property(_color, _refuse_setting("car body", "color", "the compiled frames draw gymnasium's car colours"))


class Wheel(_CarBody):
    """A wheel of the car (``env.car.wheels[k]``): a port body with gymnasium's ``gas``, ``brake``, ``steer`` (the
    controls, set by ``car.gas()``/``brake()``/``steer()``), ``phase`` and ``omega`` (its rotation), ``joint`` (its
    revolute joint to the hull) and ``wheel_rad``, all read and written in the kernels' rows."""

    _COLOR = WHEEL_COLOR

    def __init__(self, source: CarRacing, index: int, k: int) -> None:
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

    def __init__(self, source: CarRacing, index: int, k: int) -> None:
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

    def __init__(self, items: Iterable[Any], env: CarRacing) -> None:
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

    def __init__(self, env: CarRacing, hull: _CarBody, wheels: list[Wheel]) -> None:
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


def _track_entries(track: np.ndarray) -> list[tuple[float, float, float, float]]:
    """gymnasium's ``track`` entries from the rows: ``(alpha, beta, x, y)``, Python floats."""
    return [tuple(entry) for entry in track.tolist()]


def _road_entries(state: P.CarRows, tiles: int) -> list[tuple[list[tuple[Any, Any]], Any]]:
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


def _env_number(name: str, column: int, kind: type, doc: str, before_reset: Any = NO_VALUE) -> StateView:
    """gymnasium's CarRacing number ``name`` as the column of the env's row that the kernels keep it in."""
    ints = kind is not float

    def read(params: np.record, row: StateRows) -> Any:
        return kind((row.env_i if ints else row.env_f).item(column))

    def write(params: np.record, row: StateRows, value: Any) -> None:
        if ints:
            row.env_i[column] = bool(value) if kind is bool else operator.index(value)
        else:
            row.env_f[column] = float(value)

    return StateView(name, read, write, doc, before_reset=before_reset)


class _CarRacing:
    """What CarRacing's single and vector envs share: the kernels, their parameters of the arguments, the spaces,
    the game's numbers."""

    physics = K.PHYSICS
    asserts_action_in_space = True  # gymnasium's step checks action_space.contains(action): np.uint64 is refused
    state_views = (
        _env_number("reward", P.REWARD, float, "The episode's score: +1000/len(track) per new tile, -0.1 a step.", 0.0),
        _env_number(
            "prev_reward", P.PREV_REWARD, float, "The score at the last step (a step earns the difference).", 0.0
        ),
        _env_number("t", P.T, float, "The episode's time in seconds (the frames zoom in during the first one)."),
        _env_number("tile_visited_count", P.VISITED_COUNT, int, "The tiles visited this episode."),
        _env_number("new_lap", P.NEW_LAP, bool, "Whether the lap is complete (the next step terminates).", False),
    )

    def _configure(self, arguments: Any) -> np.ndarray:
        return K.new_params(arguments.continuous, arguments.domain_randomize, arguments.lap_complete_percent)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        return K.spaces(bool(self._params["continuous"][0]))


class CarRacing(_CarRacing, KernelEnv, EzPickle):
    """
    ## Description
    The easiest control task to learn from pixels: a top-down racing game. The track is random in every
    episode.

    Indicators at the bottom of the window show, from left to right: the true speed, four ABS sensors,
    the steering wheel's position and a gyroscope. To drive yourself (it is rather fast for humans):
    `python -m nbgym.envs.box2d.car_racing`. It is a powerful rear-wheel-drive car: do not accelerate
    and turn at the same time.

    ## Action Space
    Continuous (`Box([-1, 0, 0], [1, 1, 1], float32)`): steering (-1 full left, +1 full right), gas,
    braking.

    Discrete (`continuous=False`, `Discrete(5)`): 0 do nothing, 1 steer right, 2 steer left, 3 gas, 4 brake.

    ## Observation Space
    A top-down 96x96 RGB image of the car and the track (`Box(0, 255, (96, 96, 3), uint8)`).

    ## Rewards
    -0.1 every frame and +1000/N for every track tile visited, N being the number of tiles in the track:
    finishing in 732 frames scores 1000 - 0.1*732 = 926.8 points.

    ## Starting State
    The car starts at rest in the centre of the road.

    ## Episode Termination
    The episode ends when all the tiles are visited (the lap is complete), or when the car leaves the
    playfield, with a reward of -100.

    ## Arguments
    ```python
    >>> import nbgym
    >>> env = nbgym.make("CarRacing-v3", render_mode="rgb_array", lap_complete_percent=0.95,
    ...                  domain_randomize=False, continuous=False)
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<CarRacing<CarRacing-v3>>>>>

    ```
    * `lap_complete_percent=0.95`: the share of tiles the agent must visit before the lap counts as complete.
    * `domain_randomize=False`: random background and track colours at every reset.
    * `continuous=True`: continuous (true) or discrete (false) actions.

    ## Reset Arguments
    With `domain_randomize=True`, `options={"randomize": False}` keeps the current colours at a reset;
    `{"randomize": True}` (the default) draws new ones.
    ```python
    >>> env = nbgym.make("CarRacing-v3", domain_randomize=True)
    >>> obs, _ = env.reset()                                        # new colours
    >>> randomize_obs, _ = env.reset(options={"randomize": True})   # new colours
    >>> non_random_obs, _ = env.reset(options={"randomize": False})  # the same colours

    ```

    The dynamics and the frames are compiled (nbgym's Box2D port and rasteriser; the kernels of `make_vec`'s
    `CarRacingVectorEnv`), and no `box2d` wheel is needed. gymnasium's objects are there, reading and writing the
    compiled rows: `car` (`hull` and `wheels` as Box2D bodies: position, angle, velocities...; the wheels' `gas`,
    `brake`, `steer`, `omega`, `phase`, `joint`; `gas()`, `brake()`, `steer()`; the skid `particles`, read),
    `road` (the tiles: `road_visited`, `color`), `road_poly` (vertices and colours changed in place), `track` (its
    length sets each tile's reward), `world`, `reward`, `prev_reward`, `t`, `tile_visited_count`, `new_lap` and
    the colours. What the port cannot do (adding bodies or polygons, say) raises, saying so.

    ## Version History
    - v3: a finished lap terminates the episode instead of truncating it (gymnasium 1.0.0).
    - v2: track completion and domain randomisation (gymnasium 0.24.0).
    - v1, v0: original versions.

    ## References
    - Chris Campbell (2014), http://www.iforce2d.net/b2dtut/top-down-car.

    ## Credits
    Created by Oleg Klimov.
    """

    metadata = {"render_modes": ["human", "rgb_array", "state_pixels"], "render_fps": FPS}
    _port_world_per_episode = False  # gymnasium's CarRacing makes its world once, in __init__

    @declares_arguments
    def __init__(
        self,
        render_mode: str | None = None,
        verbose: bool = False,
        lap_complete_percent: float = 0.95,
        domain_randomize: bool = False,
        continuous: bool = True,
    ) -> None:
        """Creates the environment; the track and car are built at each reset.

        Args:
            render_mode: ``None``, ``"human"``, ``"rgb_array"`` (600x400) or ``"state_pixels"`` (96x96).
            verbose: gymnasium prints a message when a track is drawn again; the kernels draw again silently.
            lap_complete_percent: The share of tiles to visit before the lap is complete.
            domain_randomize: Random background, grass and road colours.
            continuous: Continuous (``Box``) or discrete (``Discrete(5)``) actions.
        """
        EzPickle.__init__(self, render_mode, verbose, lap_complete_percent, domain_randomize, continuous)
        self._continuous = bool(continuous)
        self._lap_complete_percent = float(lap_complete_percent)
        if domain_randomize:  # gymnasium's __init__ draws colours from np_random (seeded from the OS here)
            self.np_random  # noqa: B018 (binds the kernels' stream to the new generator)
            K.draw_colors(self._batch.state, self._batch.pcg, self._batch.buf)
            self._colors = self._drawn_colors()
        else:  # gymnasium's integer arrays
            self._colors = {name: array.astype(np.int64) for name, array in self._drawn_colors().items()}
        self.verbose = verbose
        self.screen: Any = None
        self.surf: Any = None
        self.clock: Any = None
        self.isopen = True
        self.invisible_state_window = None  # gymnasium's attributes, unused by its rendering as by this one
        self.invisible_video_window = None
        self.state: np.ndarray | None = None
        self.contactListener_keepref = FrictionDetector(self)  # noqa: N815 (gymnasium's name)
        self.fd_tile = _Unserved("fd_tile")
        self._surface = np.empty((WINDOW_H, WINDOW_W), np.uint32)
        self._idle_action: Any = np.zeros(3) if self._continuous else 0
        self._episode: dict[str, Any] = {}
        """The objects of this episode built from the rows at their first read since the reset (``car``, ``road``,
        ``track``, ``road_poly``, the bodies by index): gymnasium builds them at reset; nbgym only for a user who
        reads them, so that stepping costs nothing in Python."""
        self._road_written: np.ndarray | None = None
        """The ``road_poly`` colours last written into the rows (see ``_push_road``)."""
        self._port_generation = 0

    # gymnasium's env pickles as its constructor's arguments (a new env, to be reset), not mid-episode.
    __getstate__ = EzPickle.__getstate__
    __setstate__ = EzPickle.__setstate__

    # -- parameters -------------------------------------------------------------------------------------------

    @property
    def continuous(self) -> bool:
        """Whether actions are ``(steer, gas, brake)`` (``Box``) rather than one of five (``Discrete(5)``)."""
        return self._continuous

    @continuous.setter
    def continuous(self, value: Any) -> None:
        raise AttributeError(
            "continuous is fixed with the action space when the env is made: make another one, "
            "nbgym.make('CarRacing-v3', continuous=...)."
        )

    @property
    def lap_complete_percent(self) -> float:
        """The share of the tiles to visit before the start tile completes the lap; a change counts from the next
        reset, as gymnasium's contact listener takes it at reset."""
        return self._lap_complete_percent

    @lap_complete_percent.setter
    def lap_complete_percent(self, value: Any) -> None:
        self._lap_complete_percent = float(value)

    @property
    def domain_randomize(self) -> bool:
        """Whether each reset draws new road and grass colours (unless reset with ``options={"randomize": False}``)."""
        return bool(self._params["domain_randomize"][0])

    @domain_randomize.setter
    def domain_randomize(self, value: Any) -> None:
        self._params["domain_randomize"] = bool(value)

    # -- the game's numbers -----------------------------------------------------------------------------------

    def _after_reset(self, name: str) -> None:
        if not self._state_was_reset:
            raise AttributeError(f"CarRacing has no {name!r} before its first reset(): call env.reset().")

    # The colours are arrays of the env's own, as gymnasium's attributes: a reset that draws new colours
    # (domain_randomize) binds new arrays, so an array held from before keeps its values, and assigning binds the
    # value given. The kernels read the rows, which _push_colors fills from the arrays bound now before each reset,
    # step and frame.

    def _color(name: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: CarRacing) -> np.ndarray:
            return self._colors[name]

        def set(self: CarRacing, value: Any) -> None:
            self._colors[name] = _checked_color(name, value)

        return property(
            get,
            set,
            doc=f"gymnasium's ``{name}``: three numbers in (-1, 256), an array the next reset, "
            f"steps and frames read (changed in place or assigned).",
        )

    road_color = _color("road_color")
    bg_color = _color("bg_color")
    grass_color = _color("grass_color")
    del _color

    def _drawn_colors(self) -> dict[str, np.ndarray]:
        """The colours in the kernels' rows (drawn there by domain randomisation), as new float64 arrays."""
        env_f = self._batch.state.env_f
        return {name: env_f[0, column : column + 3].copy() for name, column in _COLORS}

    def _push_colors(self, new_track: bool = False) -> None:
        """Before the kernels read the colours (a reset, a step, a frame): the arrays bound now into the rows.

        Args:
            new_track: Whether a reset is to build a track with this ``road_color`` (one that draws no new colours).

        Raises:
            ValueError: If a colour was changed in place to what pygame cannot draw, or, with ``new_track``, if the
                track's lightest tiles (``road_color + 5.1``) would be; the rows are left as they were.
        """
        colors = [(column, _checked_color(name, self._colors[name])) for name, column in _COLORS]
        if new_track and not np.all(np.asarray(self._colors["road_color"]) + _LIGHTEST_TILE < 256):
            raise ValueError(
                f"CarRacing.road_color {self._colors['road_color']!r} colours a new track's tiles up to "
                f"{_LIGHTEST_TILE:g} lighter, which pygame cannot draw: at a reset each of its numbers must be in "
                f"(-1, {256 - _LIGHTEST_TILE:.1f})."
            )
        env_f = self._batch.state.env_f
        for column, color in colors:
            env_f[0, column : column + 3] = color

    # -- the episode's objects --------------------------------------------------------------------------------

    def _port_world(self, moved_proxies: int = 0) -> tuple[W.World, int]:
        """The world the kernels step and this env's row of it (``PortSource``)."""
        return fixed_world_row(self._batch.state.w, "CarRacing", moved_proxies)

    def _port_body(self, index: int) -> PortBody:
        """The object that stands for body ``index`` (``PortSource``): the hull, a wheel or a tile."""
        role = int(self._batch.state.env_i[0, P.BODY_ROLE + index])
        if role >= 0:
            return self.road[role]
        car = self.car
        if role <= P.ROLE_WHEEL:
            return car.wheels[P.ROLE_WHEEL - role]
        if index == car.hull._index:
            return car.hull
        return PortBody(self, index)

    def _episode_objects(self) -> dict[str, Any]:
        episode = self._episode
        if episode or not self._state_was_reset:
            return episode
        state = self._batch.state
        env_i = state.env_i[0].tolist()
        tiles = env_i[P.TILE_COUNT]
        wheels = [Wheel(self, env_i[P.WHEELS + k], k) for k in range(4)]
        road = [Tile(self, int(b), k) for k, b in enumerate(state.tile_i[0, :tiles, P.TILE_BODY].tolist())]
        episode.update(
            car=Car(self, _CarBody(self, env_i[P.HULL]), wheels),
            road=FixedList(road, "CarRacing.road"),
            track=TrackList(_track_entries(state.track[0, :tiles]), self),
        )
        return episode

    def _episode_attribute(name: str, doc: str) -> property:  # noqa: N805 (a class-body helper)
        def get(self: CarRacing) -> Any:
            episode = self._episode_objects()
            if not episode:
                if name in ("car", "road"):
                    return None  # gymnasium's before its first reset
                self._after_reset(name)
            return episode[name]

        def set(self: CarRacing, value: Any) -> None:
            raise AttributeError(
                f"CarRacing.{name} is the kernels' (made at each reset): change what it holds instead "
                f"({'its bodies and controls' if name == 'car' else 'its entries in place'})."
            )

        return property(get, set, doc=doc)

    car = _episode_attribute("car", "The car of this episode (``None`` before the first reset): see ``Car``.")
    road = _episode_attribute(
        "road",
        "The tiles of this episode, in track order (``Tile``; a list that refuses "
        "changes; ``None`` before the first reset).",
    )
    track = _episode_attribute(
        "track", "``(alpha, beta, x, y)`` per tile: its length sets each tile's reward (see ``TrackList``)."
    )
    del _episode_attribute

    @property
    def road_poly(self) -> FixedList:
        """The road as the frames draw it: ``(vertices, colour)`` per tile (the tile's own colour array), each tile
        followed by its kerb on hard turns (a tuple colour), as gymnasium's. The list refuses changes; its vertices
        (four ``(x, y)`` each) and tile colours may be changed in place: the next step and frame draw them.

        Raises:
            AttributeError: Before the first reset (gymnasium has no road then).
        """
        episode = self._episode_objects()
        if not episode:
            self._after_reset("road_poly")
        road_poly = episode.get("road_poly")
        if road_poly is None:
            state = self._batch.state
            road_poly = episode["road_poly"] = FixedList(
                _road_entries(state, int(state.env_i[0, P.TILE_COUNT])), "CarRacing.road_poly"
            )
            self._road_written = state.poly_color[0, : len(road_poly)].copy()
        return road_poly

    @road_poly.setter
    def road_poly(self, value: Any) -> None:
        raise AttributeError("CarRacing.road_poly is the kernels' road: change its vertices and colours in place.")

    def _pull_road(self) -> None:
        """Brings the tile colours the kernels changed since ``road_poly`` was last written (a wheel's touch) into its
        colour arrays, in place, as gymnasium's contact listener changes them."""
        written = self._road_written
        rows = self._batch.state.poly_color[0, : len(written)]
        for k in np.flatnonzero((rows != written).any(axis=1)).tolist():
            self._episode["road_poly"][k][1][:] = rows[k]
            written[k] = rows[k]

    def _push_road(self) -> None:
        """Before the kernels read the road (a step, a frame): ``road_poly``'s vertices and colours into the rows.

        Raises:
            ValueError: If a polygon no longer has four ``(x, y)`` vertices, or a colour is not three numbers that
                pygame takes (``int()`` of each in 0-255); the rows are left as they were.
        """
        road_poly = self._episode.get("road_poly")
        if road_poly is None:
            return
        self._pull_road()
        try:
            vertices = np.array([polygon for polygon, _ in road_poly], dtype=np.float64)
            colors = np.array([color for _, color in road_poly], dtype=np.float64)
        except (TypeError, ValueError):
            vertices = colors = np.zeros(0)
        n = len(road_poly)
        if vertices.shape != (n, 4, 2) or not np.all(np.abs(vertices) <= 1e9):
            raise ValueError(
                "CarRacing's compiled frames draw road_poly's polygons as quadrilaterals: each needs four (x, y) "
                "vertices, finite and within 1e9."
            )
        if colors.shape != (n, 3) or not np.all((colors > -1) & (colors < 256)):
            raise ValueError("road_poly's colours are three numbers each, each in [0, 256) (pygame's int() of it).")
        state = self._batch.state
        state.poly_xy[0, :n] = vertices
        state.poly_color[0, :n] = colors
        self._road_written = colors

    @property
    def world(self) -> PortWorld:
        """The Box2D world (the port's row): gravity, its bodies, its counts (see ``PortWorld``)."""
        return PortWorld(self)

    @world.setter
    def world(self, value: Any) -> None:
        raise AttributeError(
            "CarRacing's world is the compiled port's row that its kernels step: it cannot be replaced."
        )

    # -- reset and step ---------------------------------------------------------------------------------------

    @staticmethod
    def _randomizes(options: dict[str, Any] | None) -> bool:
        """Whether a reset with ``options`` draws new colours when ``domain_randomize`` is on."""
        return bool(options["randomize"] if isinstance(options, dict) and "randomize" in options else True)

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        params = self._params
        params["randomize"] = self._randomizes(options)
        params["lap_complete_percent"] = self._lap_complete_percent  # gymnasium's reset makes a listener with it
        params["_idle_step"] = self.render_mode != "human"
        return params

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Generates a new track (new colours with ``domain_randomize``), places the car and takes one step with no
        action (in ``"human"`` mode the window shows the car before that step, then after it, as gymnasium's).

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: ``{"randomize": bool}``: with ``domain_randomize``, whether to draw new colours (default True).

        Returns:
            ``(observation, {})``.
        """
        keeps_colors = not (self.domain_randomize and self._randomizes(options))
        self._push_colors(new_track=keeps_colors)
        self._port_generation += 1  # the objects of the last episode refuse to be read
        self._episode = {}
        self._road_written = None
        observation, info = super().reset(seed=seed, options=options)
        if not keeps_colors:
            self._colors = self._drawn_colors()  # gymnasium's reset binds new arrays: held ones keep their values
        self.start_alpha = P.START_ALPHA  # gymnasium's track generation sets it (the start line's angle) and reads it
        if self.render_mode == "human":
            observation = self.step(None)[0]  # gymnasium's reset ends with step(None)
        self.state = observation
        return observation, info

    def step(self, action: np.ndarray | int | None) -> tuple[np.ndarray, Any, bool, bool, dict]:
        """Applies ``action`` to the car, advances the world by one frame (1/50 s) and draws the observation.

        Args:
            action: ``[steering, gas, brake]`` (continuous) or an int of ``Discrete(5)``; ``None`` (gymnasium's
                reset's last step) leaves the controls as they are and earns nothing.

        Returns:
            ``(observation, reward, terminated, False, info)``: ``info["lap_finished"]`` says, when the
            episode ends, whether the lap was completed (True) or the car left the playfield (False, reward -100).

        Raises:
            AssertionError: Before the first reset (gymnasium's).
            InvalidAction: A discrete action outside ``Discrete(5)``.
            AttributeError: A continuous action that is not a numpy array (gymnasium's exception).
            IndexError: A continuous action of fewer than three numbers.
            ValueError: A continuous action of more than one dimension, or NaN gas (gymnasium fails
                drawing it, after the world moved).
        """
        assert self._state_was_reset, "CarRacing builds its track and car in reset(): call env.reset() first."
        self._push_colors()
        self._push_road()
        if action is None:
            self._params["_act"] = False
            try:
                observation = super().step(self._idle_action)[0]
            finally:
                self._params["_act"] = True
            result = observation, 0, False, False, {}
        else:
            result = super().step(self._checked_action(action))
        if self._road_written is not None:
            self._pull_road()
        self.state = result[0]
        return result

    def _checked_action(self, action: Any) -> Any:
        """``action`` as the kernels take it, refused as gymnasium's env would refuse it (before anything moves)."""
        if self._continuous:
            if not (type(action) is np.ndarray and action.shape == (3,) and action.dtype in ACTION_FLOAT_DTYPES):
                reading.read(K.PHYSICS.read_action, self._params[0], action, self.action_space)
                action = action[:3].astype(np.float64)
            if math.isnan(action[1]):
                raise ValueError(f"CarRacing's gas is a number in [0, 1], not NaN: got {action!r}")
            return action
        if (type(action) is int or type(action) is np.int64) and 0 <= action < 5:
            return action
        reading.read(K.PHYSICS.read_action, self._params[0], action, self.action_space)
        return int(action)

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        if self._continuous:
            return ValueError(f"CarRacing's gas is a number in [0, 1], not NaN: got {action!r}")
        return error.InvalidAction(
            f"you passed the invalid action `{action}`. The supported action_space is `{self.action_space}`"
        )

    def _terminal_reward(self, reward: float) -> Any:
        return -100 if self._batch.aux[0, 1] else reward  # leaving the playfield: gymnasium's int

    def _step_info(self) -> dict[str, Any]:
        lap = self._batch.aux[0, 0]
        return {} if lap == P.LAP_UNSET else {"lap_finished": bool(lap == P.LAP_FINISHED)}

    def _reset_info(self) -> dict[str, Any]:
        return {}

    # -- frames -----------------------------------------------------------------------------------------------

    def render(self) -> np.ndarray | None:
        """Draws the game in :attr:`render_mode` (with the skid marks in ``"rgb_array"`` and ``"human"``).

        Returns:
            The frame as a uint8 array, ``(400, 600, 3)`` for ``"rgb_array"`` and ``(96, 96, 3)`` for
            ``"state_pixels"``; ``None`` for ``"human"`` (shown in a 1000x800 window) and before the first reset.

        Raises:
            AssertionError: For a render mode not in ``metadata["render_modes"]`` (gymnasium's).
            DependencyNotInstalled: In ``"human"`` mode, if pygame-ce is not installed.
        """
        mode = self.render_mode
        if mode is None or mode == "human":
            pygame = start_render(self, (WINDOW_W, WINDOW_H))
            if pygame is None:
                return None
        assert mode in self.metadata["render_modes"]
        if not self._state_was_reset:
            return None
        self._push_colors()
        self._push_road()
        state = self._batch.state
        if mode == "human":
            K.draw_frame(state, 0, self._surface, _NO_FRAME, True)
            self.surf = pygame.Surface((WINDOW_W, WINDOW_H))
            pygame.surfarray.blit_array(self.surf, self._surface.T)
            show(self, self.surf)
            return None
        frame = np.empty((VIDEO_H, VIDEO_W, 3) if mode == "rgb_array" else (STATE_H, STATE_W, 3), np.uint8)
        K.draw_frame(state, 0, self._surface, frame, mode == "rgb_array")
        return frame

    def close(self) -> None:
        """Closes the window of ``"human"`` mode (the env may still step, as gymnasium's)."""
        close_window(self)


class CarRacingVectorEnv(vector_env_class(CarRacing)):
    """CarRacing's compiled vector environment: every sub-environment's car and track (rows of the compiled Box2D
    port) stepped, and its 96x96 frame drawn by the compiled rasteriser, in one call, with the kernels the single env
    runs.

    The same results, bit for bit, as ``gymnasium.make_vec("CarRacing-v3", num_envs, vectorization_mode="sync")``
    for the same seeds and actions, in every autoreset mode: the observations' pixels, the rewards, the flags and
    the ``lap_finished`` infos, without the ``box2d`` wheel or pygame. See ``CarRacing`` for the environment and
    ``KernelVectorEnv`` for the vector options (``verbose`` is taken and ignored: the kernels draw a track again
    silently).

    It draws no ``render()`` frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single
    environments.
    """

    def _build_vector(
        self, num_envs: int, arguments: Any, max_episode_steps: int | None, vector_options: dict[str, Any]
    ) -> None:
        super()._build_vector(num_envs, arguments, max_episode_steps, vector_options)
        if arguments.domain_randomize:  # gymnasium's __init__ draws colours from each env's (unseeded) stream
            K.draw_colors(self._batch.state, self._batch.pcg, self._batch.buf)

    @property
    def continuous(self) -> bool:
        """Whether actions are ``(steer, gas, brake)`` (``Box``) rather than one of five (``Discrete(5)``)."""
        return bool(self._params["continuous"][0])

    @continuous.setter
    def continuous(self, value: Any) -> None:
        _refuse_assignment("continuous")

    @property
    def domain_randomize(self) -> bool:
        """Whether each reset draws new road and grass colours (unless reset with ``options={"randomize": False}``)."""
        return bool(self._params["domain_randomize"][0])

    @domain_randomize.setter
    def domain_randomize(self, value: Any) -> None:
        _refuse_assignment("domain_randomize")

    @property
    def lap_complete_percent(self) -> float:
        """The share of the tiles to visit before the start tile completes the lap."""
        return float(self._params["lap_complete_percent"][0])

    @lap_complete_percent.setter
    def lap_complete_percent(self, value: Any) -> None:
        _refuse_assignment("lap_complete_percent")

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        """A NaN gas is a ``ValueError`` (as the single env's); a discrete action outside 0-4 gymnasium's
        ``InvalidAction``."""
        if self.continuous:
            return ValueError(f"CarRacing's gas is a number in [0, 1], not NaN: got {action!r}")
        return error.InvalidAction(
            f"you passed the invalid action `{action}`. The supported action_space is `{self.single_action_space}`"
        )

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        """gymnasium's ``options["randomize"]``: whether this reset draws new colours (with ``domain_randomize``);
        autoresets always do."""
        if not options or "randomize" not in options:
            return self._params
        params = self._params.copy()
        params["randomize"] = bool(options["randomize"])
        return params

    def _infos(self, aux: np.ndarray, obs: np.ndarray, contributing: np.ndarray | None) -> dict[str, Any]:
        """gymnasium's ``lap_finished`` info (given by a step that ends the lap, True, or leaves the playfield,
        False), batched as ``SyncVectorEnv`` batches it: absent when no sub-environment gives it."""
        given = aux[:, 0] != P.LAP_UNSET
        if contributing is not None:
            given &= contributing
        if not given.any():
            return {}
        return {"lap_finished": (aux[:, 0] == P.LAP_FINISHED) & given, "_lap_finished": given}


def _refuse_assignment(name: str) -> None:
    """Refuses an assignment of a parameter the kernels read at every step, where gymnasium's env reads it at
    construction or at its next reset (the action space, the contact listener a reset makes): no value serves both.

    Raises:
        AttributeError: Always, saying how to get another value.
    """
    raise AttributeError(
        f"{name} is fixed when the compiled vector env is made: make another one, nbgym.make_vec('CarRacing-v3', "
        f"num_envs, {name}=...), or vectorization_mode='sync' for single envs whose attributes change."
    )


def _play() -> None:
    """Drives the car with the arrow keys in a window (Enter restarts, Escape quits)."""
    from nbgym.envs.box2d._window import import_pygame

    pygame = import_pygame()
    action = np.array([0.0, 0.0, 0.0])
    env = CarRacing(render_mode="human")
    quit_game = False
    while not quit_game:
        env.reset()
        total_reward = 0.0
        steps = 0
        restart = False
        while True:
            for event in pygame.event.get():
                if event.type == pygame.KEYDOWN:
                    if event.key == pygame.K_LEFT:
                        action[0] = -1.0
                    if event.key == pygame.K_RIGHT:
                        action[0] = +1.0
                    if event.key == pygame.K_UP:
                        action[1] = +1.0
                    if event.key == pygame.K_DOWN:
                        action[2] = +0.8  # 1.0 would block the wheels
                    if event.key == pygame.K_RETURN:
                        restart = True
                    if event.key == pygame.K_ESCAPE:
                        quit_game = True
                if event.type == pygame.KEYUP:
                    if event.key in (pygame.K_LEFT, pygame.K_RIGHT):
                        action[0] = 0
                    if event.key == pygame.K_UP:
                        action[1] = 0
                    if event.key == pygame.K_DOWN:
                        action[2] = 0
                if event.type == pygame.QUIT:
                    quit_game = True
            _, reward, terminated, truncated, _ = env.step(action)
            total_reward += reward
            if steps % 200 == 0 or terminated or truncated:
                print(f"step {steps} total_reward {total_reward:+0.2f}")
            steps += 1
            if terminated or truncated or restart or quit_game:
                break
    env.close()


if __name__ == "__main__":
    _play()
