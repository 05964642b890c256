"""The compiled CarRacing rasteriser (``nbgym/envs/box2d/_raster.py``) against pygame-ce 2.5.8, bit for bit.

Each primitive is drawn by pygame-ce and by the kernels on the same random surface: gfxdraw's antialiased and
filled polygons and draw.polygon (random, degenerate, off-surface and huge coordinates, which pygame truncates
to Sint16 or int), smoothscale with both of pygame's backends, the score text. Whole frames are compared with
the observations gymnasium's ``CarRacing-v3`` returns at every step of episodes (reset and the start-of-episode
zoom included), the scene being read from the gymnasium env at the moment it renders.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium
import numpy as np
import pygame
import pygame.gfxdraw
import pytest
from gymnasium.envs.box2d import car_racing as gym_car_racing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nbgym.engine import njit
from nbgym.envs.box2d.car_racing import raster
from nbgym.envs.box2d.car_dynamics import rotation


BACKENDS = {"SSE2": raster.SMOOTHSCALE_SSE2, "GENERIC": raster.SMOOTHSCALE_GENERIC}


def to_surface(pixels: np.ndarray) -> pygame.Surface:
    """A 32-bit pygame surface (XRGB, as ``pygame.Surface(size)`` makes) holding ``(h, w, 3)`` pixels."""
    surface = pygame.Surface((pixels.shape[1], pixels.shape[0]))
    assert surface.get_bitsize() == 32 and surface.get_masks() == (0xFF0000, 0xFF00, 0xFF, 0)
    pygame.surfarray.blit_array(surface, np.transpose(pixels, (1, 0, 2)))
    return surface


def pixels_of(surface: pygame.Surface) -> np.ndarray:
    return np.transpose(pygame.surfarray.array3d(surface), (1, 0, 2)).copy()


def assert_same_pixels(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    differ = np.argwhere((ours != theirs).any(axis=-1))
    assert len(differ) == 0, (
        f"{len(differ)} pixels differ, first {differ[:5].tolist()}: ours {ours[tuple(differ[0])]}, pygame {theirs[tuple(differ[0])]}"
    )


PRIMITIVES = {
    "gfxdraw.aapolygon": (pygame.gfxdraw.aapolygon, lambda s, p, c: raster.gfx_polygon(s, p, c, filled=False)),
    "gfxdraw.filled_polygon": (pygame.gfxdraw.filled_polygon, lambda s, p, c: raster.gfx_polygon(s, p, c, filled=True)),
    "draw.polygon": (lambda s, p, c: pygame.draw.polygon(s, c, p), raster.draw_polygon),
}


@st.composite
def polygons(draw: Any) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int]]:
    """A random background, a polygon over or off it (3 to 8 vertices, some repeated or sharing a row or
    column, coordinates up to 1e5 beyond the surface, past Sint16; or x up to 1e12, past C int, with y
    within 60: pygame fills every row between the extreme y, so huge y would take it hours) and a colour."""
    width = draw(st.integers(1, 48))
    height = draw(st.integers(1, 48))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    background = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    spread = draw(st.sampled_from([2.0, 10.0, 60.0, 500.0, 4e4, 1e5]))
    n = draw(st.integers(3, 8))
    points = rng.uniform(-spread, spread, (n, 2)) + (width / 2, height / 2)
    kind = draw(st.sampled_from(["free", "repeat", "same_row", "same_column", "integers", "huge_x"]))
    if kind == "repeat":
        points[rng.integers(n)] = points[rng.integers(n)]
    elif kind == "same_row":
        points[:, 1] = points[0, 1]
    elif kind == "same_column":
        points[:, 0] = points[0, 0]
    elif kind == "integers":
        points = np.round(points)
    elif kind == "huge_x":
        points[:, 0] = rng.uniform(-1e12, 1e12, n)
        points[:, 1] = rng.uniform(-60, 60, n) + height / 2
    color = tuple(int(c) for c in rng.integers(0, 256, 3))
    return background, points, color


@pytest.mark.parametrize("name", list(PRIMITIVES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=polygons())
def test_polygon_primitives_match_pygame(name, case):
    background, points, color = case
    theirs_draw, ours_draw = PRIMITIVES[name]
    surface = to_surface(background)
    theirs_draw(surface, [tuple(p) for p in points.tolist()], color)
    ours = raster.pack_rgb(background)
    ours_draw(ours, points, color)
    assert_same_pixels(raster.unpack_rgb(ours), pixels_of(surface))


@pytest.mark.parametrize("name", list(PRIMITIVES))
def test_polygon_primitives_draw_something(name):
    """The comparison above is not vacuous: a polygon inside the surface changes pixels, identically."""
    background = np.full((40, 50, 3), 17, dtype=np.uint8)
    points = np.array([[3.5, 4.2], [45.9, 9.1], [30.2, 36.7], [8.8, 30.0]])
    theirs_draw, ours_draw = PRIMITIVES[name]
    surface = to_surface(background)
    theirs_draw(surface, [tuple(p) for p in points.tolist()], (200, 30, 90))
    ours = raster.pack_rgb(background)
    ours_draw(ours, points, (200, 30, 90))
    assert (raster.unpack_rgb(ours) != background).any(axis=-1).sum() > 40
    assert_same_pixels(raster.unpack_rgb(ours), pixels_of(surface))


def _band_primitives(points: np.ndarray, color: int):
    """Each primitive the frame draws, as ``draw(surface, top, height, flipped)`` on rows ``top..`` of a window of
    ``height`` rows (Sint16 vertices for gfxdraw, C ints for draw.c, as the frame kernel converts them)."""
    vx, vy = raster._sint16_points(points)
    inside = np.abs(points) < 2.0**31
    ints = np.where(inside, np.trunc(np.where(inside, points, 0.0)), -(2**31)).astype(np.int64)
    xs, ys = np.ascontiguousarray(ints[:, 0]), np.ascontiguousarray(ints[:, 1])
    n = len(points)
    scratch = raster._polygon_scratch(n)
    near = np.clip(ints, -3000, 3000)  # draw_line_width walks every pixel of the line
    return {
        "gfxdraw.aapolygon": lambda s, t, h, f: raster._gfx_aapolygon(s, t, h, vx, vy, n, color, f),
        "gfxdraw.filled_polygon": lambda s, t, h, f: raster._gfx_filled_polygon(s, t, h, vx, vy, n, color, scratch, f),
        "draw.polygon": lambda s, t, h, f: raster._draw_polygon(s, t, h, xs, ys, n, color, scratch, f),
        "draw.lines": lambda s, t, h, f: [
            raster._draw_line_width(s, t, h, *near[k - 1], *near[k], 2 + k % 3, color, f) for k in range(1, n)
        ],
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=polygons(), band_rows=st.integers(1, 20), flipped=st.booleans())
def test_primitives_drawn_in_bands_draw_the_whole_surface(case, band_rows, flipped):
    """Each primitive drawn band by band (a surface holding ``band_rows`` rows of the window at a time, mirrored
    or not) stores exactly what it stores drawing the whole surface at once: the state frames are drawn so."""
    background, points, color = case
    height = background.shape[0]
    for name, draw in _band_primitives(points, int(raster.pack_rgb(np.array(color)))).items():
        whole = raster.pack_rgb(background)
        draw(whole, 0, height, flipped)
        banded = raster.pack_rgb(background)
        for top in range(0, height, band_rows):
            band = banded[top : top + band_rows].copy()
            draw(band, top, height, flipped)
            banded[top : top + band_rows] = band
        assert np.array_equal(banded, whole), name


@pytest.mark.parametrize("top", [-32768, -32000, -20000])
@pytest.mark.parametrize("bottom", [32767, 30000, 20])
def test_filled_polygon_with_rows_far_apart_matches_pygame(top, bottom):
    """gfxdraw's fill of an edge whose ends are more than 32767 rows apart: SDL_gfx's ``65536 * (y - y1)``
    overflows its int there (the kernels' general division), below it not (their plain quotient)."""
    background = np.full((50, 60, 3), 40, dtype=np.uint8)
    points = np.array([[-300.0, top], [20.0, 10.0], [500.0, bottom], [45.0, 30.0]])
    surface = to_surface(background)
    pygame.gfxdraw.filled_polygon(surface, points.tolist(), (200, 30, 90))
    ours = raster.pack_rgb(background)
    raster.gfx_polygon(ours, points, (200, 30, 90), filled=True)
    assert (raster.unpack_rgb(ours) != background).any()
    assert_same_pixels(raster.unpack_rgb(ours), pixels_of(surface))


@njit
def _blend_mismatches(shift, others):  # pragma: no cover (compiled)
    """``raster._blend`` against SDL_gfx's per-channel formula for every value ``d``, ``c`` of the channel at bit
    ``shift`` and every alpha below 255 (the other channels of pixel and colour from ``others``): the mismatches."""
    mismatches = 0
    k = 0
    for d in range(256):
        for c in range(256):
            dest = (d << shift) | others[k % others.shape[0], 0]
            color = (c << shift) | others[k % others.shape[0], 1]
            k += 1
            for alpha in range(255):
                expected = 0
                for s in (16, 8, 0):
                    mask = 0xFF << s
                    difference = ((color & mask) - (dest & mask)) & 0xFFFFFFFF
                    step = (((difference >> s) * alpha) & 0xFFFFFFFF) >> 8
                    expected |= (((dest & mask) + ((step << s) & 0xFFFFFFFF)) & 0xFFFFFFFF) & mask
                mismatches += raster._blend(dest, color, alpha) != expected
    return mismatches


@pytest.mark.parametrize("shift", [0, 8, 16])
def test_blend_is_sdl_gfx_arithmetic_for_every_channel_value_and_alpha(shift):
    """``_blend``'s lanes against SDL_gfx's per-channel unsigned 32-bit formula, for every destination and colour
    value of one channel at every alpha below 255 (the other channels random)."""
    others = np.random.default_rng(shift).integers(0, 2**24, (4099, 2)) & (0xFFFFFF & ~(0xFF << shift))
    assert _blend_mismatches(shift, others) == 0


@pytest.mark.parametrize("flipped", [False, True])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=polygons())
def test_an_outline_drawn_over_its_fill_is_pygames_outline_then_fill(case, flipped):
    """The frame fills each road and grass polygon before drawing its antialiased outline (skipping the outline's
    pixels that hold the colour already): the pixels of pygame's ``aapolygon`` then ``filled_polygon``."""
    background, points, color = case
    surface = to_surface(background)
    pygame.gfxdraw.aapolygon(surface, points.tolist(), color)
    pygame.gfxdraw.filled_polygon(surface, points.tolist(), color)
    theirs = pixels_of(pygame.transform.flip(surface, False, True)) if flipped else pixels_of(surface)
    ours = raster.pack_rgb(background[::-1].copy() if flipped else background)
    vx, vy = raster._sint16_points(points)
    n, height, packed = len(points), background.shape[0], int(raster.pack_rgb(np.array(color)))
    raster._gfx_filled_polygon(ours, 0, height, vx, vy, n, packed, raster._polygon_scratch(n), flipped)
    raster._gfx_aapolygon(ours, 0, height, vx, vy, n, packed, flipped)
    assert_same_pixels(raster.unpack_rgb(ours), theirs)


def test_flipped_drawing_is_pygame_flip():
    """Drawing with rows mirrored (what the frame kernel does before gymnasium's flip) equals drawing then
    ``pygame.transform.flip(surface, False, True)``."""
    rng = np.random.default_rng(5)
    background = rng.integers(0, 256, (60, 70, 3), dtype=np.uint8)
    points = np.array([[-5.3, 10.1], [50.6, -3.2], [74.9, 40.4], [20.2, 66.6]])
    color = (10 << 16) | (250 << 8) | 120
    surface = to_surface(background[::-1].copy())
    pygame.gfxdraw.aapolygon(surface, points.tolist(), (10, 250, 120))
    pygame.gfxdraw.filled_polygon(surface, points.tolist(), (10, 250, 120))
    pygame.draw.polygon(surface, (1, 2, 3), (points * 0.5 + 8).tolist())
    theirs = pixels_of(pygame.transform.flip(surface, False, True))
    ours = raster.pack_rgb(background)
    vx, vy = raster._sint16_points(points)
    height = ours.shape[0]
    raster._gfx_aapolygon(ours, 0, height, vx, vy, 4, color, True)
    raster._gfx_filled_polygon(ours, 0, height, vx, vy, 4, color, raster._polygon_scratch(4), True)
    small = np.trunc(points * 0.5 + 8).astype(np.int64)
    raster._draw_polygon(
        ours, 0, height, small[:, 0].copy(), small[:, 1].copy(), 4, 0x010203, raster._polygon_scratch(4), True
    )
    assert_same_pixels(raster.unpack_rgb(ours), theirs)


@settings(max_examples=300, deadline=None)
@given(case=polygons(), width=st.integers(2, 7))
def test_draw_lines_matches_pygame(case, width):
    """``pygame.draw.lines(..., width)`` (gymnasium draws the skid marks with width 2), on points within 4e4."""
    background, points, color = case
    points = np.clip(points, -4e4, 4e4)
    surface = to_surface(background)
    pygame.draw.lines(surface, color, False, points.tolist(), width)
    ours = raster.pack_rgb(background)
    raster.draw_lines(ours, points, color, width)
    assert_same_pixels(raster.unpack_rgb(ours), pixels_of(surface))


@pytest.fixture
def smoothscale_backend():
    """Restores pygame's smoothscale backend after a test that changes it."""
    before = pygame.transform.get_smoothscale_backend()
    yield
    pygame.transform.set_smoothscale_backend(before)


def test_pygame_is_the_ported_version():
    """The rasteriser ports pygame-ce 2.5.8 (SDL_ttf 2.24 for the score); its default smoothscale is the SSE2
    filters', which x86-64 builds select ("SSE2") and ARM builds run through sse2neon ("NEON")."""
    assert pygame.version.ver == "2.5.8" and pygame.font.get_sdl_ttf_version() == (2, 24, 0)
    assert pygame.transform.get_smoothscale_backend() in ("SSE2", "NEON")


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("size", [(96, 96), (600, 400), (999, 1), (1, 799), (37, 55)])
def test_smoothscale_matches_pygame(backend, size, smoothscale_backend):
    rng = np.random.default_rng(size[0] * 1000 + size[1])
    source = rng.integers(0, 256, (800, 1000, 3), dtype=np.uint8)
    source[:100] = 255  # saturated areas: the SSE2 filter's 16-bit sums are packed with saturation
    pygame.transform.set_smoothscale_backend(backend)
    theirs = pixels_of(pygame.transform.smoothscale(to_surface(source), size))
    assert_same_pixels(raster.smoothscale(raster.pack_rgb(source), size, BACKENDS[backend]), theirs)


@st.composite
def shrink_sources(draw: Any) -> tuple[np.ndarray, tuple[int, int]]:
    """A source and a shrunk size: CarRacing's window (1000x800 to its 96x96 state frame or 600x400 video frame)
    or a small random one. The pixels are what the row pass's reuse of the row above must get right: flat areas and
    rectangles (rows equal to the one above, or equal but for a few pixels), noise patches, rows copied from
    above with single pixels changed (in any channel, at footprint ends and inside), saturated areas."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        height, width = 800, 1000
        size = draw(st.sampled_from([(96, 96), (600, 400)]))
    else:
        height, width = draw(st.integers(2, 120)), draw(st.integers(2, 160))
        size = (draw(st.integers(1, width - 1)), draw(st.integers(1, height - 1)))
    pixels = np.empty((height, width, 3), dtype=np.uint8)
    pixels[:] = rng.integers(0, 256, 3)
    for _ in range(draw(st.integers(0, 40))):
        y0, x0 = rng.integers(0, height), rng.integers(0, width)
        y1, x1 = y0 + rng.integers(1, height + 1), x0 + rng.integers(1, width + 1)
        pixels[y0:y1, x0:x1] = rng.choice([0, 255, *rng.integers(0, 256, 2)], 3)
    for _ in range(draw(st.integers(0, 4))):
        y0, x0 = rng.integers(0, height), rng.integers(0, width)
        patch = pixels[y0 : y0 + rng.integers(1, 60), x0 : x0 + rng.integers(1, 60)]
        patch[:] = rng.integers(0, 256, patch.shape)
    for _ in range(draw(st.integers(0, 200))):
        y, x, c = rng.integers(0, height), rng.integers(0, width), rng.integers(0, 3)
        pixels[y, x, c] = rng.integers(0, 256)
    return pixels, size


@pytest.mark.parametrize("backend", list(BACKENDS))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # each example sets the backend
@given(case=shrink_sources())
def test_smoothscale_of_any_picture_matches_pygame(backend, case, smoothscale_backend):
    pixels, size = case
    pygame.transform.set_smoothscale_backend(backend)
    try:
        ours = raster.smoothscale(raster.pack_rgb(pixels), size, BACKENDS[backend])
    except ValueError as refused:  # the sizes where pygame's filter would write past its line
        assert "one pixel per destination pixel" in str(refused)
        return
    assert_same_pixels(ours, pixels_of(pygame.transform.smoothscale(to_surface(pixels), size)))


def test_smoothscale_backends_differ():
    """The two backends give different frames: matching one says nothing of the other."""
    rng = np.random.default_rng(1)
    source = rng.integers(0, 256, (800, 1000, 3), dtype=np.uint8)
    sse2 = raster.smoothscale(raster.pack_rgb(source), (96, 96), raster.SMOOTHSCALE_SSE2)
    generic = raster.smoothscale(raster.pack_rgb(source), (96, 96), raster.SMOOTHSCALE_GENERIC)
    assert (sse2 != generic).any()


def score_rewards(count: int) -> list[float]:
    rng = np.random.default_rng(count)
    return (
        [-0.4, -0.5, -0.6, 0.5, 1.5, 2.5, 99999.7, -99999.7]
        + list(np.arange(-1500, 1500, 3000 / count))
        + list(rng.uniform(-2000, 2000, 50))
        + EXTREME_REWARDS
    )


# What a user may write into CarRacing's reward: f"{r:04.0f}" writes all of a huge float's digits, "0nan", "0inf", "-inf".
EXTREME_REWARDS = [
    1e19,
    9.3e18,
    2.0**53 + 2,
    2.0**63,
    1e20,
    -1e20,
    1e23,
    1e30,
    -1e300,
    1e300,
    1.7976931348623157e308,
    5e-324,
    math.nan,
    -math.nan,
    math.inf,
    -math.inf,
]


@pytest.mark.parametrize("count", [300, pytest.param(30000, marks=pytest.mark.slow)])
def test_score_text_matches_pygame(count):
    """gymnasium's ``font.render(f"{reward:04.0f}", True, white, black)`` blitted centred at (60, 750), over
    a random surface, for many rewards (kerning pairs, widths, a box cut by the surface's edge)."""
    pygame.font.init()  # again: an env's close() in this worker may have run pygame.quit()
    font = pygame.font.Font(pygame.font.get_default_font(), 42)
    rng = np.random.default_rng(0)
    background = rng.integers(0, 256, (800, 140, 3), dtype=np.uint8)
    for k, reward in enumerate(score_rewards(count)):
        center = (60, 750) if k % 7 else (int(rng.integers(-20, 160)), int(rng.integers(-30, 830)))
        text = font.render(f"{reward:04.0f}", True, (255, 255, 255), (0, 0, 0))
        rect = text.get_rect()
        rect.center = center
        surface = to_surface(background)
        surface.blit(text, rect)
        ours = raster.pack_rgb(background)
        raster.blit_score(ours, reward, center)
        assert_same_pixels(raster.unpack_rgb(ours), pixels_of(surface))


@settings(max_examples=300, deadline=None)
@given(reward=st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(EXTREME_REWARDS))
def test_kernels_score_text_is_formats_for_every_float(reward):
    """The step kernel's own score text (the observation's) is ``f"{reward:04.0f}"`` for every float64: all the
    digits of a huge one (an int64 overflowed past 9.2e18 and wrote past its digit buffer: a segfault), NaN, inf."""
    from nbgym.envs.box2d.car_racing import kernels as _car_racing_kernels

    font = raster.load_score_font()
    text = "".join(font.chars[g] for g in _car_racing_kernels._score_text(reward))
    assert text == f"{reward:04.0f}"


# ----------------------------------------------------------------------------------------------------------------
# Whole frames against gymnasium's CarRacing-v3


def vector2_screen(
    points: list[tuple[float, float]], angle: float, zoom: float, translation: tuple[float, float]
) -> list[tuple[float, float]]:
    """Screen coordinates as gymnasium computes them (pygame's ``Vector2.rotate_rad``, zoom, translation)."""
    out = []
    for x, y in points:
        v = pygame.math.Vector2((x, y)).rotate_rad(angle)
        out.append((v[0] * zoom + translation[0], v[1] * zoom + translation[1]))
    return out


def color_ints(color: Any) -> list[int]:
    return [int(c) for c in color]


def scene_of(env: Any, mode: str = "state_pixels") -> dict[str, Any]:
    """The numbers of the frame gymnasium's ``_render(mode)`` is about to draw, read from its env as it reads them."""
    car = env.car
    angle = -car.hull.angle
    zoom = 0.1 * gym_car_racing.SCALE * max(1 - env.t, 0) + gym_car_racing.ZOOM * gym_car_racing.SCALE * min(env.t, 1)
    scroll = pygame.math.Vector2((-(car.hull.position[0]) * zoom, -(car.hull.position[1]) * zoom)).rotate_rad(angle)
    translation = (gym_car_racing.WINDOW_W / 2 + scroll[0], gym_car_racing.WINDOW_H / 4 + scroll[1])
    bounds = gym_car_racing.PLAYFIELD
    polygons = [
        ([(bounds, bounds), (bounds, -bounds), (-bounds, -bounds), (-bounds, bounds)], color_ints(env.bg_color))
    ]
    dim = gym_car_racing.GRASS_DIM
    for x in range(-20, 20, 2):
        for y in range(-20, 20, 2):
            square = [
                (dim * x + dim, dim * y + 0),
                (dim * x + 0, dim * y + 0),
                (dim * x + 0, dim * y + dim),
                (dim * x + dim, dim * y + dim),
            ]
            polygons.append((square, color_ints(env.grass_color)))
    for poly, color in env.road_poly:
        polygons.append(([(p[0], p[1]) for p in poly], color_ints(color)))
    skid_marks = []
    if mode != "state_pixels":
        skid_marks = [(vector2_screen(p.poly, angle, zoom, translation), list(p.color)) for p in car.particles]
    car_polygons = []
    from gymnasium.envs.box2d.car_dynamics import SIZE, WHEEL_R, WHEEL_W, WHEEL_WHITE

    for obj in car.drawlist:
        for f in obj.fixtures:
            trans = f.body.transform
            path = [(v[0], v[1]) for v in (trans * v for v in f.shape.vertices)]
            car_polygons.append(
                (vector2_screen(path, angle, zoom, translation), color_ints(c * 255 for c in obj.color))
            )
            if "phase" not in obj.__dict__:
                continue
            a1, a2 = obj.phase, obj.phase + 1.2
            s1, s2, c1, c2 = math.sin(a1), math.sin(a2), math.cos(a1), math.cos(a2)
            if s1 > 0 and s2 > 0:
                continue
            if s1 > 0:
                c1 = np.sign(c1)
            if s2 > 0:
                c2 = np.sign(c2)
            white = [(-WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE), (+WHEEL_W * SIZE, +WHEEL_R * c1 * SIZE),
                     (+WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE), (-WHEEL_W * SIZE, +WHEEL_R * c2 * SIZE)]  # fmt: skip
            white = [(v[0], v[1]) for v in (trans * v for v in white)]
            car_polygons.append((vector2_screen(white, angle, zoom, translation), list(WHEEL_WHITE)))
    velocity = car.hull.linearVelocity
    dashboard = [np.sqrt(np.square(velocity[0]) + np.square(velocity[1]))]
    dashboard += [w.omega for w in car.wheels] + [car.wheels[0].joint.angle, car.hull.angularVelocity]
    return {
        "world": np.array([p for poly, _ in polygons for p in poly], dtype=np.float64),
        "starts": np.cumsum([0] + [len(poly) for poly, _ in polygons]),
        "colors": np.array([c for _, c in polygons]),
        "view": (*rotation(angle), zoom, translation[0], translation[1]),
        "skid_points": np.array([p for line, _ in skid_marks for p in line], dtype=np.float64).reshape(-1, 2),
        "skid_starts": np.cumsum([0] + [len(line) for line, _ in skid_marks]),
        "skid_colors": np.array([c for _, c in skid_marks], dtype=np.int64).reshape(-1, 3),
        "car_screen": np.array([p for poly, _ in car_polygons for p in poly], dtype=np.float64),
        "car_starts": np.cumsum([0] + [len(poly) for poly, _ in car_polygons]),
        "car_colors": np.array([c for _, c in car_polygons]),
        "dashboard": np.array(dashboard, dtype=np.float64),
        "reward": env.reward,
        "size": (gym_car_racing.STATE_W, gym_car_racing.STATE_H)
        if mode == "state_pixels"
        else (gym_car_racing.VIDEO_W, gym_car_racing.VIDEO_H),
    }


def compare_episode(seed: int, steps: int, **kwargs: Any) -> tuple[int, int]:
    """Runs gymnasium's CarRacing-v3 for ``steps`` random actions from ``reset(seed=seed)`` (resetting when an
    episode ends) and checks every state frame it draws (and, with ``render_mode="rgb_array"``, the frame of
    each ``render()``) against the kernel's frame of the same scene.

    Returns:
        The number of frames compared, and of those with skid marks drawn.
    """
    wrapped = gymnasium.make("CarRacing-v3", **kwargs)
    env = wrapped.unwrapped
    captured: list[tuple[dict[str, Any], np.ndarray]] = []
    render = env._render

    def capturing(mode: str) -> Any:
        scene = scene_of(env, mode) if "t" in env.__dict__ else None
        out = render(mode)
        if mode in ("state_pixels", "rgb_array"):
            captured.append((scene, out))
        return out

    env._render = capturing
    wrapped.action_space.seed(seed)
    wrapped.reset(seed=seed)
    surface = np.empty((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    compared = with_skids = 0
    for step in range(steps + 1):
        if step:
            _, _, terminated, truncated, _ = wrapped.step(wrapped.action_space.sample())
            if terminated or truncated:
                wrapped.reset()
            if kwargs.get("render_mode") == "rgb_array":
                wrapped.render()
        for scene, theirs in captured:
            # the whole window, as the "human" window shows it, and in bands, as the observations are drawn
            for ours in (raster.draw_frame(**scene, surface=surface), raster.draw_frame(**scene)):
                if not np.array_equal(ours, theirs):
                    differ = np.argwhere((ours != theirs).any(axis=-1))
                    raise AssertionError(
                        f"seed {seed} step {step}: {len(differ)} pixels differ, first {differ[:5].tolist()}"
                    )
            compared += 1
            with_skids += len(scene["skid_starts"]) > 1
        captured.clear()
    wrapped.close()
    return compared, with_skids


CONFIGS = [
    {"continuous": True, "domain_randomize": False},
    {"continuous": False, "domain_randomize": False},
    {"continuous": True, "domain_randomize": True},
    {"continuous": False, "domain_randomize": True, "lap_complete_percent": 0.0},
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_frames_match_gymnasium(config):
    """70 steps: the reset's frame and the first second's zoom animation, then the zoomed view."""
    assert compare_episode(seed=3, steps=70, **config)[0] >= 71


@pytest.mark.parametrize("seed,steps", [(2, 80), pytest.param(7, 700, marks=pytest.mark.slow)])
def test_rgb_array_frames_match_gymnasium(seed, steps):
    """``render()`` in ``"rgb_array"`` mode: 600x400, with the skid marks (the car brakes hard and slides)."""
    compared, with_skids = compare_episode(seed=seed, steps=steps, render_mode="rgb_array")
    assert compared >= 2 * steps + 1 and with_skids >= steps // 4


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_long_episodes_match_gymnasium(seed, config):
    """1100 steps: episodes truncated at 500 steps (or ended by the lap or by leaving the playfield) and reset."""
    assert compare_episode(seed=seed, steps=1100, max_episode_steps=500, **config)[0] >= 1101


@pytest.fixture(scope="module")
def posed_env():
    """A gymnasium CarRacing-v3 after ``reset(seed=11)``, whose car the test below moves around."""
    env = gymnasium.make("CarRacing-v3", domain_randomize=True).unwrapped
    env.reset(seed=11)
    yield env
    env.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    x=st.floats(-360, 360),
    y=st.floats(-360, 360),
    angle=st.one_of(
        st.sampled_from([0.0, math.pi / 2, -math.pi / 2, math.pi, 2 * math.pi, -3 * math.pi / 2]), st.floats(-7, 7)
    ),
    t=st.sampled_from([0.0, 0.02, 0.37, 0.98, 1.0, 4.2]),
    reward=st.floats(-3000, 3000),
)
def test_frames_of_any_view_match_gymnasium(posed_env, x, y, angle, t, reward):
    """The car anywhere on or beyond the playfield (its edge, where the field's polygon ends, in view), at any
    heading (quarter turns, which pygame rotates exactly), at any point of the zoom animation, any score."""
    env = posed_env
    env.car.hull.position = (x, y)
    env.car.hull.angle = angle
    env.t = t
    env.reward = reward
    scene = scene_of(env)
    theirs = env._render("state_pixels")
    assert_same_pixels(raster.draw_frame(**scene), theirs)


@pytest.mark.parametrize(
    ("x", "y", "t", "covers"),
    [(0.0, 0.0, 4.2, True), (330.0, -100.0, 4.2, False), (0.0, 0.0, 0.0, False)],
    ids=["field-covers-the-window", "playfield-edge-in-view", "zoomed-out-start"],
)
def test_frames_do_not_depend_on_what_the_surface_held(posed_env, x, y, t, covers):
    """Where the field's fill stores every pixel of the window it replaces the clear; elsewhere (the playfield's
    edge in view, the zoomed-out first frame) the surface is cleared first: either way a scratch surface holding
    other pixels gives gymnasium's frame."""
    env = posed_env
    env.car.hull.position = (x, y)
    env.car.hull.angle = 0.3
    env.t = t
    scene = scene_of(env)
    theirs = env._render("state_pixels")
    vx, vy = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    view = np.array(scene["view"], dtype=np.float64)
    field = np.ascontiguousarray(scene["world"][:4], dtype=np.float64)
    assert raster._world_to_screen(field, 0, 4, view, False, 0.0, 0.0, 0.0, vx, vy, 0)
    surface = np.zeros((raster.WINDOW_H, raster.WINDOW_W), dtype=np.uint32)
    scratch = raster._polygon_scratch(4)
    assert raster._gfx_filled_polygon(surface, 0, raster.WINDOW_H, vx, vy, 4, 1, scratch, True) == covers
    for held in (0, 0xFFFFFF, 0x123456):
        surface[:] = held
        assert_same_pixels(raster.draw_frame(**scene, surface=surface), theirs)
    # A band's scratch holds whatever the last band left: a field that covers some bands and not others
    assert_same_pixels(raster.draw_frame(**scene, band_rows=3), theirs)


def test_draw_frame_refuses_what_pygame_would_not_draw_or_would_overrun():
    """Bad bounds, colours, lengths, coordinates, scratch and bands are refused before any kernel runs."""
    scene = {
        "world": np.zeros((4, 2)), "starts": [0, 4], "colors": [[1, 2, 3]], "view": (1.0, 0.0, -1, 1.0, 0.0, 0.0),
        "skid_points": np.zeros((0, 2)), "skid_starts": [0], "skid_colors": np.zeros((0, 3)),
        "car_screen": np.zeros((4, 2)), "car_starts": [0, 4], "car_colors": [[0, 0, 0]], "dashboard": np.zeros(7),
        "reward": 0.0,
    }  # fmt: skip
    assert raster.draw_frame(**scene).shape == (96, 96, 3)
    bad = [
        {"starts": [0, 5]},
        {"starts": [0, 2, 4], "colors": [[1, 2, 3], [1, 2, 3]]},
        {"colors": [[1, 2, 256]]},
        {"car_starts": [0, 3]},
        {"car_colors": [[-1, 0, 0]]},
        {"dashboard": np.zeros(6)},
        {"view": (1.0, 0.0, -1)},
        {"world": np.full((4, 2), np.nan)},
        {"view": (1.0, 0.0, -1, 1.0, 0.0, np.inf)},
        {"skid_points": np.zeros((1, 2)), "skid_starts": [0, 1], "skid_colors": [[0, 0, 0]]},
        {"skid_points": np.full((2, 2), 1e8), "skid_starts": [0, 2], "skid_colors": [[0, 0, 0]]},
        {"surface": np.zeros((800, 1000, 3), dtype=np.uint8)},
        {"size": (1000, 96)},
        {"band_rows": 0},
        {"band_rows": 801},
    ]  # fmt: skip  (any reward is drawn, NaN and the infinities too, as gymnasium's f"{reward:04.0f}")
    for change in bad:
        with pytest.raises(ValueError):
            raster.draw_frame(**{**scene, **change})


def test_smoothscale_refuses_a_filter_that_would_write_past_its_line():
    """pygame's filter closes one pixel per destination pixel only when the span is large enough; where it would
    close more (and write past the line), the port raises."""
    with pytest.raises(ValueError, match="one pixel per destination pixel"):
        raster.smoothscale(np.zeros((10, 20000), dtype=np.uint32), (19999, 5))


def _glibc_msort(values: list[int]) -> list[int]:
    """glibc 2.36's ``msort_with_tmp``, recursive as written, with pygame's comparator ``a - b`` in C ints."""
    if len(values) <= 1:
        return values
    n1 = len(values) // 2
    left, right = _glibc_msort(values[:n1]), _glibc_msort(values[n1:])
    merged = []
    while left and right:
        merged.append(left.pop(0) if ((left[0] - right[0] + 2**31) & 0xFFFFFFFF) - 2**31 <= 0 else right.pop(0))
    return merged + left + right


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(2**31), 2**31 - 1) | st.sampled_from([-(2**31), 2**31 - 1, 0, 1, -1]), max_size=40))
def test_the_crossings_sort_orders_as_glibcs_recursive_merge_sort(values):
    # Values more than 2**31 apart compare wrongly in C ints: the order depends on the recursion's every merge.
    ours = np.array(values + [7], dtype=np.int64)  # a value past n stays where it is
    merged = np.empty(len(values), dtype=np.int64)
    raster._glibc_sort(ours, len(values), merged)
    assert ours.tolist() == _glibc_msort(list(values)) + [7]
