"""CarRacing's environment classes: ``CarRacing`` and ``CarRacingVectorEnv``, made from one declaration and run on the
kernels of ``kernels`` (``physics``'s track, car and game, and the frames ``raster`` draws); gymnasium's constants.

The environment hands out what gymnasium's has (``car`` with its ``hull`` and ``wheels``, ``road``, ``road_poly``,
``track``, ``world``, the rewards, the colours...) as objects that read and write the kernels' rows (``objects``).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym._box2d import world as W
from nbgym.engine import written
from nbgym.engine.state_views import NO_VALUE, StateRows, StateView
from nbgym.engine import ACTION_FLOAT_DTYPES, KernelEnv, declares_arguments, vector_env_class
import nbgym.engine.actions as reading
from nbgym.envs.box2d.car_racing import kernels as K
from nbgym.envs.box2d.car_racing import physics as P
from nbgym.envs.box2d._port_objects import (
    compile_port_calls,
    FixedList,
    PortBody,
    PortWorld,
    fixed_world_row,
)
from nbgym.engine import close_window
from nbgym.envs.box2d.car_racing import rendering
from nbgym.envs.box2d.car_racing.rendering import WINDOW_H, WINDOW_W
from nbgym.envs.box2d.car_racing.objects import (
    Car,
    CarBody,
    FrictionDetector,
    Tile,
    TrackList,
    Unserved,
    Wheel,
    road_entries,
    track_entries,
)
from nbgym.utils import EzPickle

__all__ = ["CarRacing", "CarRacingVectorEnv"]

# gymnasium's module constants
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
_COLORS = (("road_color", P.ROAD_COLOR), ("bg_color", P.BG_COLOR), ("grass_color", P.GRASS_COLOR))
"""The colour attributes and their columns in the kernels' float rows."""
_LIGHTEST_TILE = 0.01 * 2 * 255
"""What a new track adds to ``road_color`` for its lightest tiles (gymnasium's ``0.01 * (i % 3) * 255``)."""


def _checked_color(name: str, value: Any, bound: float = 256) -> np.ndarray:
    """``value``'s three numbers, as an array the kernels' row takes.

    Raises:
        ValueError: If ``value`` is not three numbers that pygame takes as a colour (``int()`` of each in 0-255:
            each in (-1, 256); NaN and infinities are not), which gymnasium's frames would fail on, or if one is not
            below ``bound``.
    """
    if type(value) is np.ndarray and value.dtype.kind in "biuf" and value.shape == (3,):
        # the colours as a reset leaves them, checked before every step: as three Python numbers several times faster
        # than as the numpy array below
        if all(-1 < number < bound for number in value.tolist()):
            return value
    try:
        numbers = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        numbers = np.zeros(0)
    if numbers.shape != (3,) or not np.all((numbers > -1) & (numbers < bound)):
        raise ValueError(
            f"CarRacing.{name} is three numbers, each in (-1, {bound:g}) (pygame draws int() of each, 0-255"
            + (", and a new track's tiles are up to 5.1 lighter" if bound < 256 else "")
            + f"), got {value!r}"
        )
    return numbers


def _draws_colors(params: np.record) -> bool:
    """Whether a reset with ``params`` draws new colours (gymnasium's reset then binds new arrays)."""
    return bool(params["domain_randomize"] and params["randomize"])


def _color_view(name: str, column: int, bound: float) -> StateView:
    """gymnasium's colour ``name``: an array the env binds at construction and keeps until a reset draws new
    colours, whose in-place changes reach every step, reset and frame after them (the kernels read the row, which
    the engine fills from the bound array before each). Colours drawn by domain randomisation are float64, the
    default ones int64, as gymnasium's.

    ``bound``: the values must be below it. pygame draws ``int()`` of each number, 0-255; a track built with
    ``road_color`` colours its tiles up to 5.1 lighter (checked at the single env's reset; a vector env's
    sub-environments start new tracks at any step, so there it is the attribute's bound).
    """

    def read(params: np.record, row: StateRows) -> np.ndarray:
        color = row.env_f[column : column + 3].copy()
        drawn = params["domain_randomize"] or not np.array_equal(color, np.trunc(color))
        return color if drawn else color.astype(np.int64)

    def write(params: np.record, row: StateRows, value: Any) -> None:
        row.env_f[column : column + 3] = _checked_color(name, value, bound)

    return StateView(
        name,
        read,
        write,
        f"gymnasium's ``{name}``: three numbers, each in (-1, {bound:g}), an array the next steps, resets and frames "
        f"read (changed in place or assigned).",
        replaced_at_reset=_draws_colors,
    )


def _color_views(vector: bool) -> tuple[StateView, ...]:
    """The three colours' views (``vector``: a vector env's, whose ``road_color`` must be one a new track can be
    drawn with)."""
    return tuple(
        _color_view(name, column, 256 - _LIGHTEST_TILE if vector and name == "road_color" else 256)
        for name, column in _COLORS
    )


_FLOAT_KINDS = {
    # gymnasium's step returns reward - prev_reward: a np.float64 score would make the reward a np.float64 (a float32
    # one float32 arithmetic), where nbgym's is a Python float.
    "reward": (written.PYTHON, written.FLOAT_SUBCLASS),
    "prev_reward": (written.PYTHON, written.FLOAT_SUBCLASS),
    "t": written.FOLLOWED,
}
"""The kinds of number (``nbgym.engine.written``) each float game number follows."""


def _env_number(name: str, column: int, kind: type, doc: str, before_reset: Any = NO_VALUE) -> StateView:
    """gymnasium's CarRacing number ``name`` as the column of the env's row that the kernels keep it in."""
    ints = kind is not float
    follows = _FLOAT_KINDS.get(name)

    def read(params: np.record, row: StateRows) -> Any:
        return kind((row.env_i if ints else row.env_f).item(column))

    def write(params: np.record, row: StateRows, value: Any) -> None:
        if ints:
            row.env_i[column] = bool(value) if kind is bool else operator.index(value)
        else:
            row.env_f[column] = written.exact(value, np.dtype(np.float64), (), name, follows)

    return StateView(name, read, write, doc, before_reset=before_reset)


class _CarRacing:
    """What CarRacing's single and vector envs share: the kernels, their parameters of the arguments, the spaces,
    the game's numbers."""

    physics = K.PHYSICS
    asserts_action_in_space = True  # gymnasium's step checks action_space.contains(action): np.uint64 is refused
    state_views = (
        *_color_views(vector=False),
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

    gymnasium_hooks = {
        "_init_colors": ("__init__",),
        "_reinit_colors": ("reset",),
        "_destroy": ("reset",),
        "_create_track": ("reset",),
        **{
            name: ("step", "reset", "render")
            for name in (
                "_render",
                "_render_road",
                "_render_indicators",
                "_draw_colored_polygon",
                "_create_image_array",
            )
        },
    }

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
        self.verbose = verbose
        self.screen: Any = None
        self.surf: Any = None
        self.clock: Any = None
        self.isopen = True
        self.invisible_state_window = None  # gymnasium's attributes, unused by its rendering as by this one
        self.invisible_video_window = None
        self.state: np.ndarray | None = None
        self.contactListener_keepref = FrictionDetector(self)  # noqa: N815 (gymnasium's name)
        self.fd_tile = Unserved("fd_tile")
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
        # gymnasium compares tile_visited_count / len(track) > lap_complete_percent (a string raises TypeError there)
        self._lap_complete_percent = written.exact(value, np.dtype(np.float64), (), "lap_complete_percent")

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
            car=Car(self, CarBody(self, env_i[P.HULL]), wheels),
            road=FixedList(road, "CarRacing.road"),
            track=TrackList(track_entries(state.track[0, :tiles]), self),
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
                road_entries(state, int(state.env_i[0, P.TILE_COUNT])), "CarRacing.road_poly"
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
        self._write_back_kept()  # a colour changed in place into one pygame cannot draw is refused here
        if not (self.domain_randomize and self._randomizes(options)):
            road_color = self.road_color
            if not np.all(np.asarray(road_color, dtype=np.float64) + _LIGHTEST_TILE < 256):
                raise ValueError(
                    f"CarRacing.road_color {road_color!r} colours a new track's tiles up to {_LIGHTEST_TILE:g} "
                    f"lighter, which pygame cannot draw: at a reset each of its numbers must be in "
                    f"(-1, {256 - _LIGHTEST_TILE:.1f})."
                )
        self._port_generation += 1  # the objects of the last episode refuse to be read
        self._episode = {}
        self._road_written = None
        observation, info = super().reset(seed=seed, options=options)
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
        return -100 if self._batch.aux[0, P.AUX_OUT] else reward  # leaving the playfield: gymnasium's int

    def _step_info(self) -> dict[str, Any]:
        lap = self._batch.aux[0, P.AUX_LAP]
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
        return rendering.render(self)

    def _compile_python_calls(self) -> None:
        compile_port_calls(self)

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

    # A sub-environment starts a new track at any step (autoreset): its road_color must be one a track can have.
    state_views = (*_color_views(vector=True), *_CarRacing.state_views[len(_COLORS) :])

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
        given = aux[:, P.AUX_LAP] != P.LAP_UNSET
        if contributing is not None:
            given &= contributing
        if not given.any():
            return {}
        return {"lap_finished": (aux[:, P.AUX_LAP] == P.LAP_FINISHED) & given, "_lap_finished": given}


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
