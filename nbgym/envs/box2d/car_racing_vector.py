"""CarRacing's compiled vector environment: every sub-environment's track, car and world are rows of the compiled
Box2D port, and one call steps them all and draws their 96x96 observations.

The physics is ``car_racing_physics`` (gymnasium 1.4.0's ``CarRacing.reset``/``step`` and ``car_dynamics.Car`` on
``nbgym._box2d``); the observation is gymnasium's ``_render("state_pixels")`` drawn by the compiled rasteriser
``_raster`` (pygame-ce 2.5.8's gfxdraw, draw.polygon, the score text and smoothscale, pixel for pixel) from the
rows, inside the step kernel. So observations, rewards, flags and infos are gymnasium's ``SyncVectorEnv``'s, bit
for bit, in every autoreset mode, without the ``box2d`` wheel or pygame.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym._box2d import revolute_joint, shapes
from nbgym._box2d import world as W
from nbgym.engine import KernelVectorEnv, Physics, njit
from nbgym.envs.box2d import _raster
from nbgym.envs.box2d import car_racing_physics as P
from nbgym.envs.box2d.car_dynamics import rotated, rotation

__all__ = ["CarRacingVectorEnv"]

STATE_W = 96
STATE_H = 96
ZOOM = 2.7
GRASS_DIM = P.PLAYFIELD / 20.0
_WINDOW_W = _raster.WINDOW_W
_WINDOW_H = _raster.WINDOW_H
_SMOOTHSCALE_BACKEND = _raster.SMOOTHSCALE_SSE2  # pygame-ce's x86-64 and ARM builds (see _raster)


def _field_and_grass() -> np.ndarray:
    """gymnasium's field, then its grass squares, in ``_render_road``'s order: ``(401 * 4, 2)`` world vertices."""
    bounds = P.PLAYFIELD
    polygons = [[(bounds, bounds), (bounds, -bounds), (-bounds, -bounds), (-bounds, bounds)]]
    for x in range(-20, 20, 2):
        for y in range(-20, 20, 2):
            polygons.append([(GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + 0), (GRASS_DIM * x + 0, GRASS_DIM * y + 0),
                             (GRASS_DIM * x + 0, GRASS_DIM * y + GRASS_DIM),
                             (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + GRASS_DIM)])
    return np.array(polygons, dtype=np.float64).reshape(-1, 2)


_BACKGROUND = _field_and_grass()
_BACKGROUND_POLYS = _BACKGROUND.shape[0] // 4
_FONT = _raster.load_score_font()
_GLYPHS, _GLYPH_LEFT, _GLYPH_RIGHT = _FONT.glyphs, _FONT.left, _FONT.right
_GLYPH_ADVANCE, _GLYPH_KERN = _FONT.advance, _FONT.kern
_MINUS = _FONT.chars.index("-")
_HULL_COLOR = int(0.8 * 255) << 16  # Car.draw's int(c * 255) of the hull's (0.8, 0, 0); the wheels' are black
_WHEEL_WHITE = (77 << 16) | (77 << 8) | 77
_WHITE_X = np.float32(P.WHEEL_W * P.SIZE)
_CAR_POLYS = 4 + 4 * 2  # the hull's four polygons, and per wheel its polygon and its white mark
_NO_SKIDS = np.zeros((0, 2), np.float64)
_NO_SKID_STARTS = np.zeros(1, np.int64)
_NO_SKID_COLORS = np.zeros(0, np.int64)


@njit
def _score_text(reward):
    """The glyph indices (``_FONT.chars``: digits, then "-") of gymnasium's ``f"{reward:04.0f}"``: the value rounded
    half to even, as Python's format rounds, with the sign of negative values and of -0."""
    if not math.isfinite(reward):
        raise ValueError("CarRacing: the reward shown on the frame must be finite")
    rounded = np.rint(reward)
    negative = math.copysign(1.0, rounded) < 0.0
    magnitude = abs(rounded)
    digits = np.zeros(24, np.int64)
    count = 0
    while True:
        digits[count] = int(np.fmod(magnitude, 10.0))
        magnitude = math.floor(magnitude / 10.0)
        count += 1
        if magnitude == 0.0:
            break
    width = max(count, 3 if negative else 4)
    text = np.empty(width + (1 if negative else 0), np.int64)
    start = 0
    if negative:
        text[0] = _MINUS
        start = 1
    for k in range(width):
        text[start + k] = digits[width - 1 - k] if width - 1 - k < count else 0
    return text


@njit
def _rgb(color):
    """The XRGB pixel of a colour as gymnasium hands it to pygame: ``int()`` of each float component."""
    return (int(color[0]) << 16) | (int(color[1]) << 8) | int(color[2])


@njit
def _screen_point(w, i, b, lx, ly, view, out, k):
    """``out[k]``: the body-local float32 point ``(lx, ly)`` of body ``b`` as ``Car.draw`` puts it on screen:
    pybox2d's ``transform * v`` in float32, then ``Vector2.rotate_rad``, the zoom and the translation in float64."""
    xf = w.body_f[i, b]
    x = np.float64((xf[W.BF_QC] * lx - xf[W.BF_QS] * ly) + xf[W.BF_PX])
    y = np.float64((xf[W.BF_QS] * lx + xf[W.BF_QC] * ly) + xf[W.BF_PY])
    rx, ry = rotated(x, y, view[0], view[1], int(view[2]))
    out[k, 0] = rx * view[3] + view[4]
    out[k, 1] = ry * view[3] + view[5]


@njit
def _car_polygons(state, i, view, screen, starts, colors):
    """``Car.draw`` without its particles: each wheel's polygon and white mark, then the hull's polygons, in
    screen coordinates, bounds and colours. Returns the number of polygons."""
    w = state.w
    env_i = state.env_i[i]
    fixtures = np.empty(8, np.int64)
    polygons = 0
    points = 0
    starts[0] = 0
    for obj in range(5):
        b = env_i[P.WHEELS + obj] if obj < 4 else env_i[P.HULL]
        listed = 0
        f = w.body_i[i, b, W.BI_FIXTURES]
        while f >= 0:
            fixtures[listed] = f
            listed += 1
            f = w.fixture_i[i, f, W.FI_NEXT]
        for n in range(listed - 1, -1, -1):  # pybox2d's body.fixtures: the reverse of Box2D's list
            f = fixtures[n]
            for v in range(w.shape_i[i, f, shapes.COUNT]):
                vertex = w.shape_f[i, f, shapes.VERTICES + v]
                _screen_point(w, i, b, vertex[0], vertex[1], view, screen, points)
                points += 1
            colors[polygons] = _HULL_COLOR if obj == 4 else 0
            polygons += 1
            starts[polygons] = points
            if obj == 4:
                continue
            a1 = state.env_f[i, P.PHASE + obj]
            a2 = a1 + 1.2
            s1, s2, c1, c2 = math.sin(a1), math.sin(a2), math.cos(a1), math.cos(a2)
            if s1 > 0 and s2 > 0:
                continue
            if s1 > 0:
                c1 = np.sign(c1)
            if s2 > 0:
                c2 = np.sign(c2)
            y1 = np.float32(P.WHEEL_R * c1 * P.SIZE)
            y2 = np.float32(P.WHEEL_R * c2 * P.SIZE)
            _screen_point(w, i, b, -_WHITE_X, y1, view, screen, points)
            _screen_point(w, i, b, _WHITE_X, y1, view, screen, points + 1)
            _screen_point(w, i, b, _WHITE_X, y2, view, screen, points + 2)
            _screen_point(w, i, b, -_WHITE_X, y2, view, screen, points + 3)
            points += 4
            colors[polygons] = _WHEEL_WHITE
            polygons += 1
            starts[polygons] = points
    return polygons


@njit
def _view(state, i):
    """gymnasium's ``_render`` camera: ``(cos, sin, quadrant, zoom, tx, ty)`` (the rotation as ``rotation`` gives
    it), following the hull and zooming in during the first second."""
    hull = state.w.body_f[i, state.env_i[i, P.HULL]]
    angle = -np.float64(hull[W.BF_A])
    t = state.env_f[i, P.T]
    zoom = 0.1 * P.SCALE * max(1 - t, 0.0) + ZOOM * P.SCALE * min(t, 1.0)
    cos, sin, quadrant = rotation(angle)
    scroll_x, scroll_y = rotated(-np.float64(hull[W.BF_PX]) * zoom, -np.float64(hull[W.BF_PY]) * zoom, cos, sin,
                                 quadrant)
    view = np.empty(6)
    view[0], view[1], view[2], view[3] = cos, sin, quadrant, zoom
    view[4] = _WINDOW_W / 2 + scroll_x
    view[5] = _WINDOW_H / 4 + scroll_y
    for k in range(6):
        # The rasteriser's coordinates stay within C's int (pygame raises for a NaN: gymnasium's frame fails too).
        if not abs(view[k]) <= 1e9:
            raise ValueError("CarRacing's frame: the car is not at a finite position within 1e9 of the track")
    return view


@njit
def draw_state(state, i, frame):
    """gymnasium's ``_render("state_pixels")`` of row ``i`` into ``frame`` (``(96, 96, 3)`` uint8)."""
    env_f = state.env_f[i]
    roads = state.env_i[i, P.POLY_COUNT]
    polygons = _BACKGROUND_POLYS + roads
    world = np.empty((4 * polygons, 2))
    world[: _BACKGROUND.shape[0]] = _BACKGROUND
    for k in range(roads):
        for v in range(4):
            world[4 * (_BACKGROUND_POLYS + k) + v, 0] = state.poly_xy[i, k, v, 0]
            world[4 * (_BACKGROUND_POLYS + k) + v, 1] = state.poly_xy[i, k, v, 1]
    starts = np.arange(0, 4 * polygons + 1, 4)
    colors = np.empty(polygons, np.int64)
    colors[0] = _rgb(env_f[P.BG_COLOR:P.BG_COLOR + 3])
    colors[1:_BACKGROUND_POLYS] = _rgb(env_f[P.GRASS_COLOR:P.GRASS_COLOR + 3])
    for k in range(roads):
        colors[_BACKGROUND_POLYS + k] = _rgb(state.poly_color[i, k])
    view = _view(state, i)

    car_screen = np.empty((4 * 8 + 4 * 8, 2))
    car_starts = np.empty(_CAR_POLYS + 1, np.int64)
    car_colors = np.empty(_CAR_POLYS, np.int64)
    car = _car_polygons(state, i, view, car_screen, car_starts, car_colors)

    w = state.w
    hull = w.body_f[i, state.env_i[i, P.HULL]]
    vx = np.float64(hull[W.BF_VX])
    vy = np.float64(hull[W.BF_VY])
    dashboard = np.empty(7)
    dashboard[0] = math.sqrt(vx * vx + vy * vy)
    for k in range(4):
        dashboard[1 + k] = env_f[P.OMEGA + k]
    dashboard[5] = np.float64(revolute_joint.joint_angle(w, i, state.env_i[i, P.JOINTS]))
    dashboard[6] = np.float64(hull[W.BF_W])

    surface = np.empty((_WINDOW_H, _WINDOW_W), np.uint32)
    rows = np.empty((_WINDOW_H, frame.shape[1], 3), np.uint8)
    accumulate = np.empty((frame.shape[1], 3), np.int64)
    _raster._render_frame(
        surface, world, starts, colors, 1, view, -_raster.MAX_SHAPE_DIM, _WINDOW_W + _raster.MAX_SHAPE_DIM,
        _WINDOW_H + _raster.MAX_SHAPE_DIM, _NO_SKIDS, _NO_SKID_STARTS, _NO_SKID_COLORS,
        car_screen[: car_starts[car]], car_starts[: car + 1], car_colors[:car], dashboard,
        _score_text(env_f[P.SHOWN_REWARD]), _GLYPHS, _GLYPH_LEFT, _GLYPH_RIGHT, _GLYPH_ADVANCE, _GLYPH_KERN,
        frame, rows, accumulate, _SMOOTHSCALE_BACKEND,
    )


def _reset(params, state, i, stream, aux):
    P.reset_row(params, state, i, stream, aux)


def _step(params, state, i, actions, stream, aux):
    return P.step_row(params, state, i, actions, stream, aux)


def _observe(params, state, i, obs):
    draw_state(state, i, obs[i])


def _action_valid(params, actions, i):
    rows = actions.reshape((actions.shape[0], -1))  # one shape for Discrete's (n,) and Box's (n, 3) actions
    if params.continuous:
        # gymnasium takes any float (the steering and brake as given, the gas clipped) but a NaN gas, which fails
        # where its frame draws the car after the world moved: refused here before anything moves.
        return not math.isnan(rows[i, 1])
    return 0 <= rows[i, 0] < 5


PHYSICS = Physics(
    "CarRacing",
    params=[
        ("continuous", np.bool_),
        ("domain_randomize", np.bool_),
        ("lap_complete_percent", np.float64),
        ("randomize", np.bool_),
    ],
    state=P.new_rows,
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    aux_width=P.AUX_WIDTH,
    max_chunk_size=1,
)


@njit
def _draw_colors(state, pcg, buf):
    stream = (pcg, buf)
    for i in range(state.env_i.shape[0]):
        P.draw_colors(state, i, stream)


class CarRacingVectorEnv(KernelVectorEnv):
    """CarRacing's compiled vector environment: every sub-environment's car and track stepped, and its 96x96 frame
    drawn, in one call.

    The same results, bit for bit, as ``gymnasium.make_vec("CarRacing-v3", num_envs, vectorization_mode="sync")``
    for the same seeds and actions, in every autoreset mode: the observations' pixels, the rewards, the flags and
    the ``lap_finished`` infos. See ``nbgym.envs.box2d.car_racing.CarRacing`` for the environment and
    ``KernelVectorEnv`` for the vector arguments.

    It draws no ``render()`` frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single
    environments.
    """

    metadata = {"render_modes": [], "render_fps": P.FPS}
    physics = PHYSICS
    asserts_action_in_space = True  # gymnasium's step checks action_space.contains(action): np.uint64 is refused

    def __init__(
        self,
        num_envs: int = 1,
        lap_complete_percent: float = 0.95,
        domain_randomize: bool = False,
        continuous: bool = True,
        max_episode_steps: int | None = 1000,
        **vector_options: Any,
    ) -> None:
        params = PHYSICS.new_params(continuous=continuous, domain_randomize=domain_randomize,
                                    lap_complete_percent=lap_complete_percent, randomize=True)
        super().__init__(num_envs, params, max_episode_steps=max_episode_steps, **vector_options)
        if domain_randomize:  # gymnasium's __init__ draws colours from each env's (unseeded) stream
            _draw_colors(self._batch.state, self._batch.pcg, self._batch.buf)

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

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        observation_space = spaces.Box(low=0, high=255, shape=(STATE_H, STATE_W, 3), dtype=np.uint8)
        if self.continuous:
            action_space = spaces.Box(np.array([-1, 0, 0]).astype(np.float32), np.array([+1, +1, +1]).astype(np.float32))
        else:
            action_space = spaces.Discrete(5)
        return observation_space, action_space


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
