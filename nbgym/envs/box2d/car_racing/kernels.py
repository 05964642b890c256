"""CarRacing's compiled environment: the engine's ``Physics`` over ``physics``'s rows and the frames drawn
from them, which the single ``car_racing.CarRacing`` and the vector ``car_racing.CarRacingVectorEnv`` both run.

The physics is gymnasium 1.4.0's ``CarRacing.reset``/``step`` and ``car_dynamics.Car`` on ``nbgym._box2d``
(``physics``); the observation is gymnasium's ``_render("state_pixels")`` drawn by the compiled rasteriser
``raster`` (pygame-ce 2.5.8's gfxdraw, draw.polygon, draw.lines, the score text and smoothscale, pixel for pixel)
from the rows, inside the step kernel; ``draw_frame`` draws the ``"rgb_array"`` frame and the ``"human"`` window (with
the skid marks) from the same rows. No ``box2d`` wheel and no pygame are needed to step.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np
from numba.extending import overload

from nbgym._box2d import revolute_joint, shapes
from nbgym.error import InvalidAction
from nbgym.spaces import Box, Discrete
from nbgym._box2d import world as W
from nbgym.engine import OVERLOAD_OPTIONS, Physics, borrowing_njit, njit
from nbgym.envs.box2d.car_racing import raster as _raster
from nbgym.envs.box2d.car_racing import physics as P
from nbgym.envs.box2d.car_dynamics import rotated, rotation

__all__ = ["PHYSICS", "STATE_H", "STATE_W", "draw_colors", "draw_frame", "draw_state", "new_params", "spaces"]

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
            polygons.append(
                [
                    (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + 0),
                    (GRASS_DIM * x + 0, GRASS_DIM * y + 0),
                    (GRASS_DIM * x + 0, GRASS_DIM * y + GRASS_DIM),
                    (GRASS_DIM * x + GRASS_DIM, GRASS_DIM * y + GRASS_DIM),
                ]
            )
    return np.array(polygons, dtype=np.float64).reshape(-1, 2)


_BACKGROUND = _field_and_grass()
_BACKGROUND_POLYS = _BACKGROUND.shape[0] // 4
_FONT = _raster.load_score_font()
_GLYPHS, _GLYPH_LEFT, _GLYPH_RIGHT = _FONT.glyphs, _FONT.left, _FONT.right
_GLYPH_ADVANCE, _GLYPH_KERN = _FONT.advance, _FONT.kern
_MINUS = _FONT.chars.index("-")
_GLYPH_N, _GLYPH_A, _GLYPH_I, _GLYPH_F = (_FONT.chars.index(ch) for ch in "naif")
_HULL_COLOR = int(0.8 * 255) << 16  # Car.draw's int(c * 255) of the hull's (0.8, 0, 0); the wheels' are black
_WHEEL_WHITE = (77 << 16) | (77 << 8) | 77
_WHITE_X = np.float32(P.WHEEL_W * P.SIZE)
_CAR_POLYS = 4 + 4 * 2  # the hull's four polygons, and per wheel its polygon and its white mark
_NO_SKIDS = np.zeros((0, 2), np.float64)
_NO_SKID_STARTS = np.zeros(1, np.int64)
_NO_SKID_COLORS = np.zeros(0, np.int64)
_MUD_COLOR = (102 << 16) | (102 << 8)  # car_dynamics.MUD_COLOR; WHEEL_COLOR is black


@njit
def _decimal_digits(magnitude, digits):
    """Writes the decimal digits of ``magnitude``, a non-negative integral float64, least significant first, into
    ``digits`` (324 long) and returns how many: exactly, as Python's format writes every float (``1e300`` has 301
    digits, not 1 and zeros). Below 2**53 in int64; above, the float's integer mantissa shifted left in base-1e9
    limbs (int64 and ``math.floor(x / 10)`` would overflow past 9.2e18 and round past 2**53)."""
    if magnitude < 2.0**53:
        value = np.int64(magnitude)
        count = 0
        while True:
            digits[count] = value % 10
            value //= 10
            count += 1
            if value == 0:
                return count
    fraction, exponent = math.frexp(magnitude)  # magnitude = fraction * 2**exponent, 0.5 <= fraction < 1
    whole = np.int64(fraction * 2.0**53)  # exact: the 53-bit mantissa
    shift = exponent - 53  # >= 1 here
    limbs = np.zeros(36, np.int64)  # base 1e9, least significant first: 2**1024 has 309 digits, 35 limbs
    limbs[0] = whole % 1_000_000_000
    limbs[1] = whole // 1_000_000_000
    used = 2
    while shift > 0:
        bits = min(shift, 30)  # a limb (< 2**30) shifted by 30 plus its carry stays below 2**61
        carry = 0
        for k in range(used):
            value = (limbs[k] << bits) + carry
            limbs[k] = value % 1_000_000_000
            carry = value // 1_000_000_000
        while carry:
            limbs[used] = carry % 1_000_000_000
            carry //= 1_000_000_000
            used += 1
        shift -= bits
    count = 0
    for k in range(used):
        value = limbs[k]
        for _ in range(9):
            digits[count] = value % 10
            value //= 10
            count += 1
    while count > 1 and digits[count - 1] == 0:
        count -= 1
    return count


@njit
def _score_text(reward):
    """The glyph indices (``_FONT.chars``: digits, "-", then the letters of "nan" and "inf") of gymnasium's
    ``f"{reward:04.0f}"`` for every float64: the value rounded half to even, as Python's format rounds, with the
    sign of negative values and of -0, all its digits (see ``_decimal_digits``); ``0nan`` for any NaN, ``0inf`` and
    ``-inf`` for the infinities."""
    if math.isnan(reward):
        return np.array([0, _GLYPH_N, _GLYPH_A, _GLYPH_N], np.int64)
    if math.isinf(reward):
        return np.array([_MINUS if reward < 0.0 else 0, _GLYPH_I, _GLYPH_N, _GLYPH_F], np.int64)
    rounded = np.rint(reward)
    negative = math.copysign(1.0, rounded) < 0.0
    digits = np.zeros(324, np.int64)
    count = _decimal_digits(abs(rounded), digits)
    width = max(count, 3 if negative else 4)
    text = np.empty(width + (1 if negative else 0), np.int64)
    start = 0
    if negative:
        text[0] = _MINUS
        start = 1
    for k in range(width):
        text[start + k] = digits[width - 1 - k] if width - 1 - k < count else 0
    return text


@borrowing_njit
def _rgb(colors, at):
    """The XRGB pixel of the colour ``colors[at:at + 3]`` as gymnasium hands it to pygame: ``int()`` of each float
    component (a position, not a slice: ``_scene`` takes one for each road polygon)."""
    return (int(colors[at]) << 16) | (int(colors[at + 1]) << 8) | int(colors[at + 2])


FrameRows = namedtuple(
    "FrameRows",
    "body_i body_f fixture_i shape_i shape_f joint_i joint_f env_i env_f poly_xy poly_color part_i part_xy",
)
"""What a frame reads of one sub-environment: its rows of the world and state arrays (views).

The functions that draw a frame allocate, so they count references: each counted a reference to every array of a
``state`` it was passed (~60), in and out, at each call, ~900 atomic operations a frame (and the scene's calls per
world polygon ~10,000 more: see ``raster._world_to_screen``), together 6.8% of a 16-env step's ``perf`` samples, the
counts out of the cache after the frame was drawn. They take these 13 views instead."""


def frame_rows(state, i):
    """Row ``i``'s ``FrameRows``: views of ``state``'s arrays, which live as long as ``state``. Compiled into each
    caller as the caller counts references (an overload): a function that borrows them passes them on borrowed."""
    w = state.w
    return FrameRows(
        w.body_i[i],
        w.body_f[i],
        w.fixture_i[i],
        w.shape_i[i],
        w.shape_f[i],
        w.joint_i[i],
        w.joint_f[i],
        state.env_i[i],
        state.env_f[i],
        state.poly_xy[i],
        state.poly_color[i],
        state.part_i[i],
        state.part_xy[i],
    )


@overload(frame_rows, jit_options=OVERLOAD_OPTIONS)
def _frame_rows(state, i):
    return frame_rows


@borrowing_njit
def _screen_point(body_f, b, lx, ly, view, out, k):
    """``out[k]``: the body-local float32 point ``(lx, ly)`` of body ``b`` as ``Car.draw`` puts it on screen:
    pybox2d's ``transform * v`` in float32, then ``Vector2.rotate_rad``, the zoom and the translation in float64."""
    xf = body_f[b]
    x = np.float64((xf[W.BF_QC] * lx - xf[W.BF_QS] * ly) + xf[W.BF_PX])
    y = np.float64((xf[W.BF_QS] * lx + xf[W.BF_QC] * ly) + xf[W.BF_PY])
    rx, ry = rotated(x, y, view[0], view[1], int(view[2]))
    out[k, 0] = rx * view[3] + view[4]
    out[k, 1] = ry * view[3] + view[5]


@borrowing_njit
def _car_polygons(rows, view, screen, starts, colors, fixtures):
    """``Car.draw`` without its particles: each wheel's polygon and white mark, then the hull's polygons, in
    screen coordinates, bounds and colours (``fixtures``: room for a body's fixtures). Returns the number of
    polygons."""
    env_i = rows.env_i
    polygons = 0
    points = 0
    starts[0] = 0
    for obj in range(5):
        b = env_i[P.WHEELS + obj] if obj < 4 else env_i[P.HULL]
        listed = 0
        f = rows.body_i[b, W.BI_FIXTURES]
        while f >= 0:
            fixtures[listed] = f
            listed += 1
            f = rows.fixture_i[f, W.FI_NEXT]
        for n in range(listed - 1, -1, -1):  # pybox2d's body.fixtures: the reverse of Box2D's list
            f = fixtures[n]
            for v in range(rows.shape_i[f, shapes.COUNT]):
                vertex = rows.shape_f[f, shapes.VERTICES + v]
                _screen_point(rows.body_f, b, vertex[0], vertex[1], view, screen, points)
                points += 1
            colors[polygons] = _HULL_COLOR if obj == 4 else 0
            polygons += 1
            starts[polygons] = points
            if obj == 4:
                continue
            a1 = rows.env_f[P.PHASE + obj]
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
            _screen_point(rows.body_f, b, -_WHITE_X, y1, view, screen, points)
            _screen_point(rows.body_f, b, _WHITE_X, y1, view, screen, points + 1)
            _screen_point(rows.body_f, b, _WHITE_X, y2, view, screen, points + 2)
            _screen_point(rows.body_f, b, -_WHITE_X, y2, view, screen, points + 3)
            points += 4
            colors[polygons] = _WHEEL_WHITE
            polygons += 1
            starts[polygons] = points
    return polygons


@borrowing_njit
def _view(rows, view):
    """gymnasium's ``_render`` camera into ``view``: ``(cos, sin, quadrant, zoom, tx, ty)`` (the rotation as
    ``rotation`` gives it), following the hull and zooming in during the first second."""
    hull = rows.body_f[rows.env_i[P.HULL]]
    angle = -np.float64(hull[W.BF_A])
    t = rows.env_f[P.T]
    zoom = 0.1 * P.SCALE * max(1 - t, 0.0) + ZOOM * P.SCALE * min(t, 1.0)
    cos, sin, quadrant = rotation(angle)
    scroll_x, scroll_y = rotated(
        -np.float64(hull[W.BF_PX]) * zoom, -np.float64(hull[W.BF_PY]) * zoom, cos, sin, quadrant
    )
    view[0], view[1], view[2], view[3] = cos, sin, quadrant, zoom
    view[4] = _WINDOW_W / 2 + scroll_x
    view[5] = _WINDOW_H / 4 + scroll_y
    for k in range(6):
        # The rasteriser's coordinates stay within C's int (pygame raises for a NaN: gymnasium's frame fails too).
        if not abs(view[k]) <= 1e9:
            raise ValueError("CarRacing's frame: the car is not at a finite position within 1e9 of the track")


@njit
def _skid_marks(rows, view):
    """``Car.draw``'s particles (oldest first): their points in screen coordinates (``Vector2.rotate_rad``, the zoom
    and the translation in float64), their bounds and colours (mud on grass, black on the road)."""
    env_i = rows.env_i
    made = env_i[P.PARTICLES_MADE]
    first = max(0, made - P.PARTICLES)
    total = 0
    for s in range(first, made):
        total += rows.part_i[s % P.PARTICLES, P.PART_POINTS]
    points = np.empty((total, 2))
    starts = np.empty(made - first + 1, np.int64)
    colors = np.empty(made - first, np.int64)
    starts[0] = 0
    k = 0
    for n, s in enumerate(range(first, made)):
        slot = s % P.PARTICLES
        for p in range(rows.part_i[slot, P.PART_POINTS]):
            rx, ry = rotated(rows.part_xy[slot, p, 0], rows.part_xy[slot, p, 1], view[0], view[1], int(view[2]))
            points[k, 0] = rx * view[3] + view[4]
            points[k, 1] = ry * view[3] + view[5]
            # pygame's draw.lines walks a wide line pixel by pixel: a point this far off comes from a car moved there
            if not (abs(points[k, 0]) < 2.0**24 and abs(points[k, 1]) < 2.0**24):
                raise ValueError("CarRacing's frame: a skid mark lies beyond 2**24 pixels (the car was moved too far)")
            k += 1
        starts[n + 1] = k
        colors[n] = _MUD_COLOR if rows.part_i[slot, P.PART_GRASS] else 0
    return points, starts, colors


@njit
def _scene(rows, skids, reward):
    """gymnasium's ``_render`` of a sub-environment's ``FrameRows`` up to its smoothscale as a ``raster.Scene`` of its
    1000x800 window: the field, grass and road, the skid marks when ``skids`` (gymnasium's "rgb_array" and "human"
    frames), the car, the indicators and ``reward`` as the score."""
    env_f = rows.env_f
    roads = rows.env_i[P.POLY_COUNT]
    polygons = _BACKGROUND_POLYS + roads
    world = np.empty((4 * polygons, 2))
    world[: _BACKGROUND.shape[0]] = _BACKGROUND
    for k in range(roads):
        for v in range(4):
            world[4 * (_BACKGROUND_POLYS + k) + v, 0] = rows.poly_xy[k, v, 0]
            world[4 * (_BACKGROUND_POLYS + k) + v, 1] = rows.poly_xy[k, v, 1]
    starts = np.arange(0, 4 * polygons + 1, 4)
    colors = np.empty(polygons, np.int64)
    colors[0] = _rgb(env_f, P.BG_COLOR)
    colors[1:_BACKGROUND_POLYS] = _rgb(env_f, P.GRASS_COLOR)
    road_colors = rows.poly_color.reshape(-1)
    for k in range(roads):
        colors[_BACKGROUND_POLYS + k] = _rgb(road_colors, 3 * k)
    view = np.empty(6)
    _view(rows, view)

    car_screen = np.empty((4 * 8 + 4 * 8, 2))
    car_starts = np.empty(_CAR_POLYS + 1, np.int64)
    car_colors = np.empty(_CAR_POLYS, np.int64)
    car = _car_polygons(rows, view, car_screen, car_starts, car_colors, np.empty(8, np.int64))

    hull = rows.body_f[rows.env_i[P.HULL]]
    vx = np.float64(hull[W.BF_VX])
    vy = np.float64(hull[W.BF_VY])
    dashboard = np.empty(7)
    dashboard[0] = math.sqrt(vx * vx + vy * vy)
    for k in range(4):
        dashboard[1 + k] = env_f[P.OMEGA + k]
    dashboard[5] = np.float64(
        revolute_joint.row_joint_angle(rows.body_f, rows.joint_i, rows.joint_f, rows.env_i[P.JOINTS])
    )
    dashboard[6] = np.float64(hull[W.BF_W])

    if skids:
        skid_points, skid_starts, skid_colors = _skid_marks(rows, view)
    else:
        skid_points, skid_starts, skid_colors = _NO_SKIDS, _NO_SKID_STARTS, _NO_SKID_COLORS
    return _raster._scene(
        _WINDOW_H,
        _WINDOW_W,
        world,
        starts,
        colors,
        1,
        view,
        -_raster.MAX_SHAPE_DIM,
        _WINDOW_W + _raster.MAX_SHAPE_DIM,
        _WINDOW_H + _raster.MAX_SHAPE_DIM,
        skid_points,
        skid_starts,
        skid_colors,
        car_screen[: car_starts[car]],
        car_starts[: car + 1],
        car_colors[:car],
        dashboard,
        _score_text(reward),
        _GLYPHS,
        _GLYPH_LEFT,
        _GLYPH_RIGHT,
        _GLYPH_ADVANCE,
        _GLYPH_KERN,
    )


@njit
def _draw_in_bands(scene, frame):
    """The ``raster.Scene`` drawn and smoothscaled into ``frame`` in bands of ``raster.BAND_ROWS`` rows."""
    _raster._render_bands(
        scene,
        np.empty((_raster.BAND_ROWS + 1, _WINDOW_W), np.uint32),
        np.empty((_WINDOW_H, frame.shape[1], 3), np.uint8),
        frame,
        np.empty((frame.shape[1], 3), np.uint16),
        _SMOOTHSCALE_BACKEND,
    )


@njit(entry=True)
def draw_frame(state, i, surface, frame, skids):
    """gymnasium's ``render()`` of row ``i``, with the skid marks when ``skids``: smoothscaled into ``frame``
    (``(96, 96, 3)`` or ``(400, 600, 3)`` uint8, drawn in bands), or, when ``frame`` is empty, its whole window into
    ``surface`` (``(800, 1000)`` uint32: the ``"human"`` window). The score is the episode's reward (a step's own
    observation shows it before the step's -0.1: see ``draw_state``).

    Raises:
        ValueError: If ``surface`` is not the window's size or ``frame`` not smaller than it (before anything is drawn).
    """
    if surface.shape[0] != _WINDOW_H or surface.shape[1] != _WINDOW_W or frame.shape[2] != 3:
        raise ValueError("draw_frame: the surface is (800, 1000) and the frame (height, width, 3)")
    if frame.size and not (0 < frame.shape[0] < _WINDOW_H and 0 < frame.shape[1] < _WINDOW_W):
        raise ValueError("draw_frame: the frame must be smaller than the 1000x800 window")
    scene = _scene(frame_rows(state, i), skids, state.env_f[i, P.REWARD])
    if frame.size:
        _draw_in_bands(scene, frame)
    else:
        _raster._draw_scene(surface, 0, _WINDOW_H, scene)


@borrowing_njit
def draw_state(state, i, frame):
    """gymnasium's ``_render("state_pixels")`` of row ``i`` in its step (the score before the step's -0.1) into
    ``frame`` (``(96, 96, 3)`` uint8), drawn and shrunk in bands of ``raster.BAND_ROWS`` rows."""
    _draw_state_rows(frame_rows(state, i), state.env_f[i, P.SHOWN_REWARD], frame)


@njit(counts_references=True)
def _draw_state_rows(rows, reward, frame):
    """``draw_state``'s drawing, which allocates the scene and so counts references: to the frame's rows only."""
    _draw_in_bands(_scene(rows, False, reward), frame)


def _reset(params, state, i, stream, aux):
    if params._idle_step:
        P.reset_row(params, state, i, stream, aux)
    else:  # the single env's "human" reset: its window shows the car as created, then it steps with no action
        P.create_row(params, state, i, stream)
        aux[i, P.AUX_LAP] = P.LAP_UNSET
        aux[i, P.AUX_OUT] = 0.0


def _step(params, state, i, actions, stream, aux):
    if params._act:
        return P.step_row(params, state, i, actions, stream, aux)
    return P.advance(params, state, i, False, aux)  # gymnasium's step(None): no action, no reward


def _observe(params, state, i, obs):
    draw_state(state, i, obs[i])


def _action_valid(params, actions, i):
    rows = actions.reshape((actions.shape[0], -1))  # one shape for Discrete's (n,) and Box's (n, 3) actions
    if params.continuous:
        # gymnasium takes any float (the steering and brake as given, the gas clipped) but a NaN gas, which fails
        # where its frame draws the car after the world moved: refused here before anything moves.
        return not math.isnan(rows[i, 1])
    return 0 <= rows[i, 0] < 5


_DISCRETE_ACTIONS = Discrete(5)


def _read_action(params: Any, action: Any) -> Any:
    """gymnasium's reading of an action: ``None`` steps without one; a continuous action is
    ``action.astype(np.float64)``, steered by ``-[0]``, its gas ``np.clip([1], 0, 1)``, its brake ``[2]``; a discrete
    one outside ``Discrete(5)`` raises ``InvalidAction``.

    Returns:
        The action, as given.
    """
    if action is None:
        return None
    if not params.continuous:
        if not _DISCRETE_ACTIONS.contains(action):
            raise InvalidAction(
                f"you passed the invalid action `{action}`. The supported action_space is `{_DISCRETE_ACTIONS}`"
            )
        return action
    controls = action.astype(np.float64)
    -controls[0]
    bool(np.clip(controls[1], 0, 1) - 0.0 > 0.1)  # Car.gas: `if gas - wheel.gas > 0.1`
    controls[2]
    return action


PHYSICS = Physics(
    "CarRacing",
    params=[
        ("continuous", np.bool_),
        ("domain_randomize", np.bool_),
        ("lap_complete_percent", np.float64),
        ("randomize", np.bool_),
        ("_idle_step", np.bool_),  # whether a reset ends with gymnasium's step(None) (all but the single "human")
        ("_act", np.bool_),  # whether a step applies its action and scores (not for the single env's step(None))
    ],
    state=P.new_rows,
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=_read_action,
    aux_width=P.AUX_WIDTH,
    max_chunk_size=1,
    borrows_state=True,
)


def spaces(continuous: bool) -> tuple[Box, Box | Discrete]:
    """gymnasium's observation space (the 96x96 frame) and action space: ``(steer, gas, brake)`` or one of five (nothing,
    right, left, gas, brake). Neither is symmetric or normalised (the env checker warns): they cannot be."""
    observation_space = Box(low=0, high=255, shape=(STATE_H, STATE_W, 3), dtype=np.uint8)
    if continuous:
        return observation_space, Box(
            np.array([-1, 0, 0]).astype(np.float32), np.array([+1, +1, +1]).astype(np.float32)
        )
    return observation_space, Discrete(5)


def new_params(continuous: bool, domain_randomize: bool, lap_complete_percent: float) -> np.ndarray:
    """The parameter record of an environment with gymnasium's arguments."""
    return PHYSICS.new_params(
        continuous=continuous,
        domain_randomize=domain_randomize,
        lap_complete_percent=lap_complete_percent,
        randomize=True,
        _idle_step=True,
        _act=True,
    )


@njit
def draw_colors(state, pcg, buf):
    """gymnasium's ``_init_colors`` with ``domain_randomize``: each row's colours from its (unseeded) stream."""
    stream = (pcg, buf)
    for i in range(state.env_i.shape[0]):
        P.draw_colors(state, i, stream)
