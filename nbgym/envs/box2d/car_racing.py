"""CarRacing: drive a top-down car around a random track from pixels, as gymnasium's ``CarRacing-v3``, on Box2D.

The observation is the 96x96 frame itself, drawn as gymnasium draws it. gymnasium spends most of its
step in Python, rotating, scaling and culling some 1000 road and grass polygons before pygame draws
the few on screen; here one compiled call transforms and culls them all, to the same doubles, and
pygame draws the visible ones with the same calls in the same order, so the pixels are identical.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym._engine.jit import kernel
from nbgym.core import Env
from nbgym.envs.box2d._common import Box2D, action_vector, close_window, frame, import_pygame, show, start_render
from nbgym.envs.box2d.car_dynamics import Car, rotate, rotated, rotation
from nbgym.utils import EzPickle

__all__ = ["CarRacing"]

pygame = import_pygame()  # the observation is a drawing: stepping needs pygame, as gymnasium's does

STATE_W = 96  # less than Atari 160x192
STATE_H = 96
VIDEO_W = 600
VIDEO_H = 400
WINDOW_W = 1000
WINDOW_H = 800

SCALE = 6.0  # track scale
TRACK_RAD = 900 / SCALE  # the track is a heavily morphed circle of this radius
PLAYFIELD = 2000 / SCALE  # game over beyond this boundary
FPS = 50
ZOOM = 2.7  # camera zoom
ZOOM_FOLLOW = True  # gymnasium's constant (its rendering follows the car regardless)

TRACK_DETAIL_STEP = 21 / SCALE
TRACK_TURN_RATE = 0.31
TRACK_WIDTH = 40 / SCALE
BORDER = 8 / SCALE
BORDER_MIN_COUNT = 4
GRASS_DIM = PLAYFIELD / 20.0
MAX_SHAPE_DIM = max(GRASS_DIM, TRACK_WIDTH, TRACK_DETAIL_STEP) * math.sqrt(2) * ZOOM * SCALE
"""The largest diagonal of anything drawn, in pixels: a polygon with no vertex within this margin of
the window is off screen."""

CHECKPOINTS = 12

FIELD_FILL_MARGIN = 8.0
"""Pixels by which the field must overlap the window on every side to be drawn by filling the window:
the polygon filler rounds vertices to whole pixels and the antialiased outline is one pixel wide."""

FIELD_POLY = [(PLAYFIELD, PLAYFIELD), (PLAYFIELD, -PLAYFIELD), (-PLAYFIELD, -PLAYFIELD), (-PLAYFIELD, PLAYFIELD)]
GRASS_POLYS = [
    [
        (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + 0),
        (GRASS_DIM * x + 0, GRASS_DIM * y + 0),
        (GRASS_DIM * x + 0, GRASS_DIM * y + GRASS_DIM),
        (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + GRASS_DIM),
    ]
    for x in range(-20, 20, 2)
    for y in range(-20, 20, 2)
]
"""The grass patches, a checkerboard over the playfield."""


FIELD_AND_GRASS_VERTICES = np.array([FIELD_POLY, *GRASS_POLYS], dtype=np.float64).reshape(-1, 2)
"""The vertices of the field and the grass patches, four each, in drawing order: drawn before the road."""


@kernel
def _transform_polygons(vertices, starts, cos, sin, quadrant, zoom, tx, ty, low, high_x, high_y, on_screen):  # pragma: no cover (compiled)
    """Rotates, scales and moves every vertex in place, as gymnasium does with ``Vector2.rotate_rad``.

    ``vertices`` is ``(m, 2)``, polygon ``k`` being the rows ``starts[k]:starts[k + 1]``: on return they hold
    screen coordinates, and ``on_screen[k]`` says whether some vertex of polygon ``k`` lies in
    ``[low, high_x] x [low, high_y]`` (gymnasium's cull). ``quadrant`` is -1 for a rotation by
    ``cos``/``sin``, else the exact quarter turn of :func:`~nbgym.envs.box2d.car_dynamics.rotation`.
    """
    for k in range(starts.shape[0] - 1):
        inside = False
        for j in range(starts[k], starts[k + 1]):
            rx, ry = rotated(vertices[j, 0], vertices[j, 1], cos, sin, quadrant)
            sx = rx * zoom + tx
            sy = ry * zoom + ty
            vertices[j, 0] = sx
            vertices[j, 1] = sy
            if low <= sx <= high_x and low <= sy <= high_y:
                inside = True
        on_screen[k] = inside


def _world_polygons(road_poly: Any) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The polygons a frame draws, read from ``road_poly`` as gymnasium's renderer reads it.

    Args:
        road_poly: ``(polygon, colour)`` pairs: a polygon is a sequence of points ``p`` (``p[0]``, ``p[1]``
            read), of any length.

    Returns:
        ``(vertices, starts, colors)``: the field's, the grass patches' and then the road's vertices as one
        ``(m, 2)`` float64 array, polygon ``k`` being the rows ``starts[k]:starts[k + 1]``, and the road
        polygons' colour objects themselves (a colour changed in place is what the next frame draws).
    """
    polygons = []
    colors = []
    for polygon, color in road_poly:
        polygons.append(polygon)
        colors.append(color)
    coordinates = [c for polygon in polygons for p in polygon for c in (p[0], p[1])]
    vertices = np.concatenate([FIELD_AND_GRASS_VERTICES, np.array(coordinates, dtype=np.float64).reshape(-1, 2)])
    counts = [4] * (1 + len(GRASS_POLYS)) + [len(polygon) for polygon in polygons]
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return vertices, starts, colors


@kernel
def _covers(polygon, low, high_x, high_y):  # pragma: no cover (compiled)
    """Whether the convex ``polygon`` (``(n, 2)``, screen coordinates) contains the rectangle
    ``[low, high_x] x [low, high_y]``: each corner is on the inner side of every edge."""
    n = polygon.shape[0]
    area = 0.0  # twice the signed area: its sign is the polygon's orientation
    for j in range(n):
        k = (j + 1) % n
        area += polygon[j, 0] * polygon[k, 1] - polygon[k, 0] * polygon[j, 1]
    for cx, cy in ((low, low), (high_x, low), (high_x, high_y), (low, high_y)):
        for j in range(n):
            k = (j + 1) % n
            cross = (polygon[k, 0] - polygon[j, 0]) * (cy - polygon[j, 1]) - (polygon[k, 1] - polygon[j, 1]) * (cx - polygon[j, 0])
            if cross * area <= 0.0:
                return False
    return True


class FrictionDetector(Box2D.b2.contactListener):
    """Counts the road tiles the car's wheels touch: a tile's first touch is worth 1000/N, and gives it the road's colour."""

    def __init__(self, env: CarRacing, lap_complete_percent: float) -> None:
        """Listens to the contacts of ``env``'s world.

        Args:
            env: The environment whose reward, visited tiles and lap the contacts update.
            lap_complete_percent: The share of tiles to visit before touching the first tile ends the lap.
        """
        Box2D.b2.contactListener.__init__(self)
        self.env = env
        self.lap_complete_percent = lap_complete_percent

    def BeginContact(self, contact: Any) -> None:
        """A wheel (or the hull) starts touching a tile."""
        self._contact(contact, True)

    def EndContact(self, contact: Any) -> None:
        """A wheel (or the hull) stops touching a tile."""
        self._contact(contact, False)

    def _contact(self, contact: Any, begin: bool) -> None:
        tile = None
        obj = None
        u1 = contact.fixtureA.body.userData
        u2 = contact.fixtureB.body.userData
        if u1 and "road_friction" in u1.__dict__:
            tile = u1
            obj = u2
        if u2 and "road_friction" in u2.__dict__:
            tile = u2
            obj = u1
        if not tile:
            return
        # A touched tile loses its shading: it takes the road's colour.
        tile.color[:] = self.env.road_color
        if not obj or "tiles" not in obj.__dict__:
            return
        if begin:
            obj.tiles.add(tile)
            if not tile.road_visited:
                tile.road_visited = True
                self.env.reward += 1000.0 / len(self.env.track)
                self.env.tile_visited_count += 1
                # The lap is complete when the first tile is touched after enough of the track.
                if tile.idx == 0 and self.env.tile_visited_count / len(self.env.track) > self.lap_complete_percent:
                    self.env.new_lap = True
        else:
            obj.tiles.remove(tile)


class CarRacing(Env, EzPickle):
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
            verbose: Print track generation messages.
            lap_complete_percent: The share of tiles to visit before the lap is complete.
            domain_randomize: Random background, grass and road colours.
            continuous: Continuous (``Box``) or discrete (``Discrete(5)``) actions.
        """
        EzPickle.__init__(self, render_mode, verbose, lap_complete_percent, domain_randomize, continuous)
        self.continuous = continuous
        self.domain_randomize = domain_randomize
        self.lap_complete_percent = lap_complete_percent
        self._init_colors()

        self.contactListener_keepref = FrictionDetector(self, self.lap_complete_percent)
        self.world = Box2D.b2World((0, 0), contactListener=self.contactListener_keepref)
        self.screen: Any = None
        self.surf: Any = None
        self.clock: Any = None
        self.isopen = True
        # gymnasium's attributes, unused by its rendering as by this one
        self.invisible_state_window = None
        self.invisible_video_window = None
        self.road: list[Any] | None = None
        self.car: Car | None = None
        self.reward = 0.0
        self.prev_reward = 0.0
        self.verbose = verbose
        self.new_lap = False
        self.fd_tile = Box2D.b2.fixtureDef(shape=Box2D.b2.polygonShape(vertices=[(0, 0), (1, 0), (1, -1), (0, -1)]))
        self._font: Any = None
        self._canvas: Any = None  # the surface the frames are drawn on, while the field covers the window
        # The polygons of the frames (see _world_polygons), built with the track from road_poly. Once
        # road_poly has been handed out or assigned, it may change in ways no one announces: the frames
        # then read it again, each time, as gymnasium's do.
        self._polygons = _world_polygons([])
        self._road_poly_exposed = False

        # The action space is not symmetric or normalised (the env checker warns): it cannot be.
        if self.continuous:
            self.action_space = spaces.Box(
                np.array([-1, 0, 0]).astype(np.float32), np.array([+1, +1, +1]).astype(np.float32)
            )  # steer, gas, brake
        else:
            self.action_space = spaces.Discrete(5)  # nothing, right, left, gas, brake
        self.observation_space = spaces.Box(low=0, high=255, shape=(STATE_H, STATE_W, 3), dtype=np.uint8)
        self.render_mode = render_mode

    def _destroy(self) -> None:
        if not self.road:
            return
        for tile in self.road:
            self.world.DestroyBody(tile)
        self.road = []
        self.car.destroy()

    @property
    def road_poly(self) -> list[tuple[Any, Any]]:
        """The road as the frames draw it: ``(polygon, colour)`` pairs, the tiles in track order, each followed
        by its kerb on hard turns, as gymnasium's. Live: the frames draw what it holds, changed in place or
        assigned (a new list every reset).

        Raises:
            AttributeError: Before the first :meth:`reset` (gymnasium has no road then).
        """
        if "_road_poly" not in self.__dict__:
            raise AttributeError("CarRacing has no road_poly before its first reset(): call env.reset() first")
        self._road_poly_exposed = True
        return self._road_poly

    @road_poly.setter
    def road_poly(self, road_poly: list[tuple[Any, Any]]) -> None:
        self._road_poly_exposed = True
        self._road_poly = road_poly

    def _draw_random_colors(self) -> None:
        self.road_color = self.np_random.uniform(0, 210, size=3)
        self.bg_color = self.np_random.uniform(0, 210, size=3)
        self.grass_color = np.copy(self.bg_color)
        idx = self.np_random.integers(3)
        self.grass_color[idx] += 20

    def _init_colors(self) -> None:
        if self.domain_randomize:
            self._draw_random_colors()
        else:
            self.road_color = np.array([102, 102, 102])
            self.bg_color = np.array([102, 204, 102])
            self.grass_color = np.array([102, 230, 102])

    def _reinit_colors(self, randomize: bool) -> None:
        assert self.domain_randomize, "domain_randomize must be True to use this function."
        if randomize:
            self._draw_random_colors()

    def _create_track(self) -> bool:
        """Generates a closed track through 12 random checkpoints and creates its tiles; False if it does not close."""
        checkpoints = []
        for c in range(CHECKPOINTS):
            noise = self.np_random.uniform(0, 2 * math.pi * 1 / CHECKPOINTS)
            alpha = 2 * math.pi * c / CHECKPOINTS + noise
            rad = self.np_random.uniform(TRACK_RAD / 3, TRACK_RAD)
            if c == 0:
                alpha = 0
                rad = 1.5 * TRACK_RAD
            if c == CHECKPOINTS - 1:
                alpha = 2 * math.pi * c / CHECKPOINTS
                self.start_alpha = 2 * math.pi * (-0.5) / CHECKPOINTS
                rad = 1.5 * TRACK_RAD
            checkpoints.append((alpha, rad * math.cos(alpha), rad * math.sin(alpha)))
        self.road = []

        # Drive from checkpoint to checkpoint, turning at a limited rate, for up to five laps.
        x, y, beta = 1.5 * TRACK_RAD, 0, 0
        dest_i = 0
        laps = 0
        track = []
        no_freeze = 2500
        visited_other_side = False
        while True:
            alpha = math.atan2(y, x)
            if visited_other_side and alpha > 0:
                laps += 1
                visited_other_side = False
            if alpha < 0:
                visited_other_side = True
                alpha += 2 * math.pi
            while True:  # the next checkpoint ahead
                failed = True
                while True:
                    dest_alpha, dest_x, dest_y = checkpoints[dest_i % len(checkpoints)]
                    if alpha <= dest_alpha:
                        failed = False
                        break
                    dest_i += 1
                    if dest_i % len(checkpoints) == 0:
                        break
                if not failed:
                    break
                alpha -= 2 * math.pi
            r1x = math.cos(beta)
            r1y = math.sin(beta)
            p1x = -r1y
            p1y = r1x
            dest_dx = dest_x - x
            dest_dy = dest_y - y
            proj = r1x * dest_dx + r1y * dest_dy  # the destination's offset across the heading
            while beta - alpha > 1.5 * math.pi:
                beta -= 2 * math.pi
            while beta - alpha < -1.5 * math.pi:
                beta += 2 * math.pi
            prev_beta = beta
            proj *= SCALE
            if proj > 0.3:
                beta -= min(TRACK_TURN_RATE, abs(0.001 * proj))
            if proj < -0.3:
                beta += min(TRACK_TURN_RATE, abs(0.001 * proj))
            x += p1x * TRACK_DETAIL_STEP
            y += p1y * TRACK_DETAIL_STEP
            track.append((alpha, prev_beta * 0.5 + beta * 0.5, x, y))
            if laps > 4:
                break
            no_freeze -= 1
            if no_freeze == 0:
                break

        # The closed loop i1..i2: the second pass through the start (the first lap is ignored).
        i1, i2 = -1, -1
        i = len(track)
        while True:
            i -= 1
            if i == 0:
                return False
            pass_through_start = track[i][0] > self.start_alpha and track[i - 1][0] <= self.start_alpha
            if pass_through_start and i2 == -1:
                i2 = i
            elif pass_through_start and i1 == -1:
                i1 = i
                break
        if self.verbose:
            print(f"Track generation: {i1}..{i2} -> {i2 - i1}-tiles track")
        assert i1 != -1
        assert i2 != -1

        track = track[i1 : i2 - 1]
        first_beta = track[0][1]
        first_perp_x = math.cos(first_beta)
        first_perp_y = math.sin(first_beta)
        # The perpendicular jump that joins the head and the tail.
        well_glued_together = np.sqrt(
            np.square(first_perp_x * (track[0][2] - track[-1][2])) + np.square(first_perp_y * (track[0][3] - track[-1][3]))
        )
        if well_glued_together > TRACK_DETAIL_STEP:
            return False

        # Red-white kerbs on hard turns: BORDER_MIN_COUNT sharp turns the same way in a row.
        border = [False] * len(track)
        for i in range(len(track)):
            good = True
            oneside = 0
            for neg in range(BORDER_MIN_COUNT):
                beta1 = track[i - neg - 0][1]
                beta2 = track[i - neg - 1][1]
                good &= abs(beta1 - beta2) > TRACK_TURN_RATE * 0.2
                oneside += np.sign(beta1 - beta2)
            good &= abs(oneside) == BORDER_MIN_COUNT
            border[i] = good
        for i in range(len(track)):
            for neg in range(BORDER_MIN_COUNT):
                border[i - neg] |= border[i]

        # The tiles, each followed (on hard turns) by its kerb.
        for i in range(len(track)):
            _, beta1, x1, y1 = track[i]
            _, beta2, x2, y2 = track[i - 1]
            road1_l = (x1 - TRACK_WIDTH * math.cos(beta1), y1 - TRACK_WIDTH * math.sin(beta1))
            road1_r = (x1 + TRACK_WIDTH * math.cos(beta1), y1 + TRACK_WIDTH * math.sin(beta1))
            road2_l = (x2 - TRACK_WIDTH * math.cos(beta2), y2 - TRACK_WIDTH * math.sin(beta2))
            road2_r = (x2 + TRACK_WIDTH * math.cos(beta2), y2 + TRACK_WIDTH * math.sin(beta2))
            vertices = [road1_l, road1_r, road2_r, road2_l]
            self.fd_tile.shape.vertices = vertices
            tile = self.world.CreateStaticBody(fixtures=self.fd_tile)
            tile.userData = tile
            shade = 0.01 * (i % 3) * 255
            tile.color = self.road_color + shade
            tile.road_visited = False
            tile.road_friction = 1.0
            tile.idx = i
            tile.fixtures[0].sensor = True
            self._road_poly.append(([road1_l, road1_r, road2_r, road2_l], tile.color))
            self.road.append(tile)
            if border[i]:
                side = np.sign(beta2 - beta1)
                b1_l = (x1 + side * TRACK_WIDTH * math.cos(beta1), y1 + side * TRACK_WIDTH * math.sin(beta1))
                b1_r = (
                    x1 + side * (TRACK_WIDTH + BORDER) * math.cos(beta1),
                    y1 + side * (TRACK_WIDTH + BORDER) * math.sin(beta1),
                )
                b2_l = (x2 + side * TRACK_WIDTH * math.cos(beta2), y2 + side * TRACK_WIDTH * math.sin(beta2))
                b2_r = (
                    x2 + side * (TRACK_WIDTH + BORDER) * math.cos(beta2),
                    y2 + side * (TRACK_WIDTH + BORDER) * math.sin(beta2),
                )
                self._road_poly.append(([b1_l, b1_r, b2_r, b2_l], (255, 255, 255) if i % 2 == 0 else (255, 0, 0)))
        self._polygons = _world_polygons(self._road_poly)
        self.track = track
        return True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Generates a new track (new colours with ``domain_randomize``), places the car and draws the first frame.

        Args:
            seed: The seed of :attr:`np_random` (``None`` keeps the stream going).
            options: ``{"randomize": bool}``: with ``domain_randomize``, whether to draw new colours (default True).

        Returns:
            ``(observation, {})``.
        """
        super().reset(seed=seed)
        self._destroy()
        self.world.contactListener_bug_workaround = FrictionDetector(self, self.lap_complete_percent)
        self.world.contactListener = self.world.contactListener_bug_workaround
        self.reward = 0.0
        self.prev_reward = 0.0
        self.tile_visited_count = 0
        self.t = 0.0
        self.new_lap = False
        self._road_poly: list[tuple[Any, Any]] = []
        self._road_poly_exposed = False

        if self.domain_randomize:
            randomize = True
            if isinstance(options, dict) and "randomize" in options:
                randomize = options["randomize"]
            self._reinit_colors(randomize)

        while not self._create_track():
            if self.verbose:
                print("retry to generate track (normal if there are not many instances of this message)")
        self.car = Car(self.world, *self.track[0][1:4])

        if self.render_mode == "human":
            self.render()
        return self.step(None)[0], {}

    def _apply_action(self, action: Any) -> None:
        if self.continuous:
            if not isinstance(action, np.ndarray):
                raise AttributeError(
                    f"CarRacing's continuous action is a numpy array [steering, gas, brake], got {action!r}"
                )
            action = action_vector(action, "CarRacing", "[steering, gas, brake]", 3).astype(np.float64)
            if math.isnan(action[1]):
                raise ValueError(f"CarRacing's gas is a number in [0, 1], not NaN: got {action!r}")
            self.car.steer(-action[0])
            self.car.gas(action[1])
            self.car.brake(action[2])
        else:
            if not self.action_space.contains(action):
                raise error.InvalidAction(
                    f"you passed the invalid action `{action}`. The supported action_space is `{self.action_space}`"
                )
            self.car.steer(-0.6 * (action == 1) + 0.6 * (action == 2))
            self.car.gas(0.2 * (action == 3))
            self.car.brake(0.8 * (action == 4))

    def step(self, action: np.ndarray | int | None) -> tuple[np.ndarray, Any, bool, bool, dict]:
        """Applies ``action`` to the car, advances the world by one frame (1/50 s) and draws the observation.

        Args:
            action: ``[steering, gas, brake]`` (continuous) or an int of ``Discrete(5)``; ``None`` (the
                reset's first frame) leaves the controls as they are and earns nothing.

        Returns:
            ``(observation, reward, terminated, False, info)``: ``info["lap_finished"]`` says, when the
            episode ends, whether the lap was completed (True) or the car left the playfield (False).

        Raises:
            InvalidAction: A discrete action outside ``Discrete(5)``.
            AttributeError: A continuous action that is not a numpy array (gymnasium's exception).
            IndexError: A continuous action of fewer than three numbers.
            ValueError: A continuous action of more than one dimension, or NaN gas (gymnasium fails
                drawing it, after the world moved).
        """
        assert self.car is not None
        if action is not None:
            self._apply_action(action)

        self.car.step(1.0 / FPS)
        self.world.Step(1.0 / FPS, 6 * 30, 2 * 30)
        self.t += 1.0 / FPS

        self.state = self._render("state_pixels")

        step_reward: Any = 0
        terminated = False
        truncated = False
        info: dict[str, Any] = {}
        if action is not None:  # the reset's first frame has no action
            self.reward -= 0.1
            # Fuel is not charged: the car should be fast.
            self.car.fuel_spent = 0.0
            step_reward = self.reward - self.prev_reward
            self.prev_reward = self.reward
            if self.tile_visited_count == len(self.track) or self.new_lap:
                terminated = True
                info["lap_finished"] = True
            x, y = self.car.hull.position
            if abs(x) > PLAYFIELD or abs(y) > PLAYFIELD:
                terminated = True
                info["lap_finished"] = False
                step_reward = -100

        if self.render_mode == "human":
            self.render()
        return self.state, step_reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        """Draws the game in :attr:`render_mode`.

        Returns:
            The frame as a uint8 array, ``(400, 600, 3)`` for ``"rgb_array"`` and ``(96, 96, 3)`` for
            ``"state_pixels"``; ``None`` for ``"human"`` (shown in a 1000x800 window).
        """
        if start_render(self, (WINDOW_W, WINDOW_H)) is None:
            return None
        return self._render(self.render_mode)

    def _render(self, mode: str) -> Any:
        assert mode in self.metadata["render_modes"]
        pygame.font.init()
        if self.screen is None and mode == "human":
            pygame.display.init()
            self.screen = pygame.display.set_mode((WINDOW_W, WINDOW_H))
        if self.clock is None:
            self.clock = pygame.time.Clock()
        if "t" not in self.__dict__:
            return None  # not reset yet

        # The view follows the car: rotated to its heading, zooming in during the first second.
        angle = -self.car.hull.angle
        zoom = 0.1 * SCALE * max(1 - self.t, 0) + ZOOM * SCALE * min(self.t, 1)
        scroll_x = -(self.car.hull.position[0]) * zoom
        scroll_y = -(self.car.hull.position[1]) * zoom
        turn = rotation(angle)
        trans_x, trans_y = rotate(scroll_x, scroll_y, turn)
        trans = (WINDOW_W / 2 + trans_x, WINDOW_H / 4 + trans_y)

        self.surf = self._render_road(zoom, trans, turn)
        self.car.draw(self.surf, zoom, trans, angle, mode not in ["state_pixels_list", "state_pixels"])
        self.surf = pygame.transform.flip(self.surf, False, True)

        self._render_indicators(WINDOW_W, WINDOW_H)
        text = self._score_text()
        text_rect = text.get_rect()
        text_rect.center = (60, WINDOW_H - WINDOW_H * 2.5 / 40.0)
        self.surf.blit(text, text_rect)

        if mode == "human":
            show(self, self.surf)
            return None
        if mode == "rgb_array":
            return self._create_image_array(self.surf, (VIDEO_W, VIDEO_H))
        return self._create_image_array(self.surf, (STATE_W, STATE_H))

    def _score_text(self) -> Any:
        """The score as gymnasium writes it, with a font made once (gymnasium makes one every frame)."""
        score = f"{self.reward:04.0f}"
        if self._font is not None:
            try:
                return self._font.render(score, True, (255, 255, 255), (0, 0, 0))
            except pygame.error:  # pygame quit since the font was made (any env's close does)
                pass
        self._font = pygame.font.Font(pygame.font.get_default_font(), 42)
        return self._font.render(score, True, (255, 255, 255), (0, 0, 0))

    def _render_road(self, zoom: float, translation: tuple[float, float], turn: tuple[float, float, int]) -> Any:
        """A new window-sized surface with the field, then the grass patches and road polygons on screen, drawn
        in gymnasium's order."""
        vertices, starts, road_colors = _world_polygons(self._road_poly) if self._road_poly_exposed else self._polygons
        vertices = vertices.copy()
        on_screen = np.empty(len(starts) - 1, dtype=np.bool_)
        cos, sin, quadrant = turn
        _transform_polygons(
            vertices, starts, cos, sin, quadrant, zoom, translation[0], translation[1],
            -MAX_SHAPE_DIM, WINDOW_W + MAX_SHAPE_DIM, WINDOW_H + MAX_SHAPE_DIM, on_screen,
        )  # fmt: skip
        aapolygon = pygame.gfxdraw.aapolygon
        filled_polygon = pygame.gfxdraw.filled_polygon
        field = vertices[starts[0] : starts[1]]
        if _covers(field, -FIELD_FILL_MARGIN, WINDOW_W + FIELD_FILL_MARGIN, WINDOW_H + FIELD_FILL_MARGIN):
            # The field covers the window with its edges well outside: filling the window sets the same
            # pixels as filling the polygon (gymnasium's call, 5x slower), and its outline touches none.
            if self._canvas is None:
                self._canvas = pygame.Surface((WINDOW_W, WINDOW_H))
            surface = self._canvas
            surface.fill(self.bg_color)
        else:
            surface = pygame.Surface((WINDOW_W, WINDOW_H))
            aapolygon(surface, field.tolist(), self.bg_color)
            filled_polygon(surface, field.tolist(), self.bg_color)
        on_screen[0] = False
        first_road = 1 + len(GRASS_POLYS)
        for k in np.flatnonzero(on_screen).tolist():
            # gymnasium's int() of each road colour component
            color = self.grass_color if k < first_road else [int(c) for c in road_colors[k - first_road]]
            polygon = vertices[starts[k] : starts[k + 1]].tolist()
            aapolygon(surface, polygon, color)
            filled_polygon(surface, polygon, color)
        return surface

    def _render_indicators(self, W: int, H: int) -> None:
        s = W / 40.0
        h = H / 40.0
        pygame.draw.polygon(self.surf, color=(0, 0, 0), points=[(W, H), (W, H - 5 * h), (0, H - 5 * h), (0, H)])

        def vertical_ind(place: float, val: float) -> list[tuple[float, float]]:
            return [
                (place * s, H - (h + h * val)),
                ((place + 1) * s, H - (h + h * val)),
                ((place + 1) * s, H - h),
                ((place + 0) * s, H - h),
            ]

        def horiz_ind(place: float, val: float) -> list[tuple[float, float]]:
            return [
                ((place + 0) * s, H - 4 * h),
                ((place + val) * s, H - 4 * h),
                ((place + val) * s, H - 2 * h),
                ((place + 0) * s, H - 2 * h),
            ]

        def render_if_min(value: float, points: list[tuple[float, float]], color: tuple[int, int, int]) -> None:
            if abs(value) > 1e-4:
                pygame.draw.polygon(self.surf, points=points, color=color)

        car = self.car
        velocity = car.hull.linearVelocity
        true_speed = np.sqrt(np.square(velocity[0]) + np.square(velocity[1]))
        render_if_min(true_speed, vertical_ind(5, 0.02 * true_speed), (255, 255, 255))
        # ABS sensors
        for place, wheel, color in zip((7, 8, 9, 10), car.wheels, ((0, 0, 255), (0, 0, 255), (51, 0, 255), (51, 0, 255))):
            render_if_min(wheel.omega, vertical_ind(place, 0.01 * wheel.omega), color)
        steering = car.wheels[0].joint.angle
        render_if_min(steering, horiz_ind(20, -10.0 * steering), (0, 255, 0))
        spin = car.hull.angularVelocity
        render_if_min(spin, horiz_ind(30, -0.8 * spin), (255, 0, 0))

    def _create_image_array(self, screen: Any, size: tuple[int, int]) -> np.ndarray:
        return frame(pygame.transform.smoothscale(screen, size))

    def close(self) -> None:
        """Closes the window of ``"human"`` mode."""
        close_window(self)


def _play() -> None:
    """Drives the car with the arrow keys in a window (Enter restarts, Escape quits)."""
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
