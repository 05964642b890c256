"""CarRacing's frames drawn by compiled kernels, bit-identical to what gymnasium draws with pygame-ce 2.5.8.

gymnasium draws a CarRacing frame on a 1000x800 pygame surface (32-bit XRGB) and shrinks it with
``pygame.transform.smoothscale``. Every routine it calls is integer arithmetic (with a few float32
steps), ported here from the C sources of pygame-ce 2.5.8:

- ``pygame.gfxdraw.aapolygon`` and ``filled_polygon`` (pygame's copy of SDL_gfx: Wu-style antialiased edges
  blended into the 32-bit pixels, a scanline fill in 16.16 fixed point; coordinates truncated to Sint16),
- ``pygame.draw.polygon`` filled (``draw.c``'s ``draw_fillpoly``, float32 edge intersections, and
  ``draw_filltri`` for triangles; coordinates truncated to C ``int``),
- ``pygame.draw.lines`` with ``width >= 2`` (``draw_line_width``: the skid marks of the ``rgb_array`` frame),
- ``pygame.transform.flip`` (vertical): drawing with rows mirrored writes the flipped surface directly,
- the score text (``pygame.font.Font(freesansbold.ttf, 42).render(..., True, white, black)``: SDL_ttf 2.24
  lays out glyphs with harfbuzz kerning in 26.6 fixed point and ORs their 8-bit coverage into a black
  box; the glyphs and kerning are tabulated in ``assets/car_racing_score_font.npz``),
- ``pygame.transform.smoothscale``'s area-averaging shrink, in both of pygame's variants: the SSE2 filters
  (``simd_transform_sse2.c``, 14-bit fractions and 16-bit multiplies) that x86-64 builds select ("SSE2") and
  ARM builds run through sse2neon ("NEON", the same arithmetic), and the generic C filters (``transform.c``,
  16-bit fractions) of builds without SIMD or ``set_smoothscale_backend("GENERIC")``. The two give different
  pixels. The MMX/SSE filters of 32-bit x86 builds are not ported.

Surfaces are ``(height, width)`` uint32 arrays of XRGB8888 pixels (X = 0), the layout of
``pygame.Surface(size)``: a colour is one store. The state frame is ``smoothscale``'s result in ``(row, column, channel)``
order, which is what gymnasium's ``np.transpose(pixels3d(...), (1, 0, 2))`` returns.

A frame is computed once as a :class:`Scene` (its polygons on screen, culled) and drawn by :func:`_draw_scene`
into a surface holding any band of the window's rows: CarRacing's environments (``car_racing.CarRacing`` and
``car_racing.CarRacingVectorEnv``) draw their observations and ``"rgb_array"`` frames band by band, each band
shrunk while it is in the cache (:func:`_render_bands`), and their ``"human"`` window as one band, the whole window,
inside their kernels (``car_racing.kernels``); :func:`draw_frame` is the same drawing called from Python (the
whole window, then :func:`smoothscale`'s ``_smoothscale_shrink``, when given a surface).
``tests/envs/box2d/test_box2d_car_raster.py`` holds each routine and whole frames to pygame-ce's and gymnasium's
pixels.
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import numpy as np

from nbgym.engine import borrowing_njit, njit
from nbgym.envs.box2d.car_dynamics import rotated

__all__ = [
    "WINDOW_W",
    "WINDOW_H",
    "SMOOTHSCALE_SSE2",
    "SMOOTHSCALE_GENERIC",
    "ScoreFont",
    "load_score_font",
    "score_glyphs",
    "gfx_polygon",
    "draw_polygon",
    "draw_lines",
    "pack_rgb",
    "unpack_rgb",
    "smoothscale",
    "blit_score",
    "draw_frame",
]

WINDOW_W = 1000
WINDOW_H = 800
MAX_SHAPE_DIM = max(2000 / 6.0 / 20.0, 40 / 6.0, 21 / 6.0) * math.sqrt(2) * 2.7 * 6.0
"""gymnasium's cull margin: a road or grass polygon is drawn when a vertex is within this many pixels of the window."""

SMOOTHSCALE_SSE2 = 0
"""``smoothscale`` as pygame-ce's SSE2 backend computes it (x86-64 builds: ``get_smoothscale_backend() == "SSE2"``)."""
SMOOTHSCALE_GENERIC = 1
"""``smoothscale`` as pygame-ce's generic C filters compute it (``set_smoothscale_backend("GENERIC")``)."""

_INT32_MIN = -(2**31)
BAND_ROWS = 50
"""The window rows a state frame is drawn and shrunk in at a time: 50 rows of 1000 uint32 pixels (200 KB) stay in a
core's L2 cache (2 MB here) from their fills to their shrink, where a whole window (3.2 MB) does not. Smaller bands
keep the pixels closer still but pay each polygon's setup (its edges clipped, its fill's edges) once per band it
crosses: a zoomed-in frame drew and shrank in 565 us in bands of 50 rows, 593-610 us in bands of 32, 64 or 100,
697 us in bands of 8 and 655 us whole (``benchmarks/bench_car_raster.py``-style timing, 2026-12-03)."""
POLYGON_SCRATCH_ROWS = 7
"""Rows of the ``(POLYGON_SCRATCH_ROWS, n)`` int64 scratch a polygon fill of ``n`` vertices works in: its crossings
(row ``_CROSSINGS``), the merge sort's buffer (``_MERGED``), and gfxdraw's edges (``_EDGES`` on: x1, y1, y2,
x2 - x1, the 16.16 x1). The fills allocate nothing: the frame's polygons are drawn without reference counting."""
_CROSSINGS, _MERGED, _EDGES = 0, 1, 2


# ----------------------------------------------------------------------------------------------------------------
# C integer conversions


@njit
def _wrap16(value):  # pragma: no cover (compiled)
    """``(Sint16)value``: the low 16 bits, signed."""
    return ((value + 32768) & 0xFFFF) - 32768


@njit
def _wrap32(value):  # pragma: no cover (compiled)
    """``(int)value`` for an integer: the low 32 bits, signed (what x86 leaves after a C int overflows)."""
    return ((value + 2147483648) & 0xFFFFFFFF) - 2147483648


@njit
def _float_to_int32(value):  # pragma: no cover (compiled)
    """``(int)value`` for a float or double on x86-64: truncation, and INT_MIN ("integer indefinite") when the
    value is NaN or out of range."""
    if not (-2147483648.0 <= value < 2147483648.0):
        return _INT32_MIN
    return int(value)


@njit
def _c_div(a, b):  # pragma: no cover (compiled)
    """C integer division: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@njit
def _polygon_scratch(n):  # pragma: no cover (compiled)
    """The scratch of a polygon fill of up to ``n`` vertices (see ``POLYGON_SCRATCH_ROWS``)."""
    return np.empty((POLYGON_SCRATCH_ROWS, n), dtype=np.int64)


@borrowing_njit
def _glibc_sort(values, n, merged):  # pragma: no cover (compiled)
    """Sorts ``values[:n]`` as glibc 2.36's ``qsort`` does (its top-down merge sort, ``msort_with_tmp``) with
    pygame's and SDL_gfx's comparator ``a - b``, whose 32-bit overflow can misorder values more than 2**31
    apart. A run of ``m`` is split into ``m // 2`` and ``m - m // 2``; a merge takes from the left run while
    ``cmp(left, right) <= 0``, into ``merged`` (scratch of at least ``n``).

    The recursion is walked in its order without a stack (numba cannot cache recursion, and a stack would be an
    allocation): a run is named by the left (0) and right (1) turns from the whole (``path``, ``depth`` of them),
    and its bounds are found again from the whole."""
    if n == 2:  # a convex polygon's row: one comparison (and a function small enough for LLVM to inline)
        if _wrap32(values[0] - values[1]) > 0:
            values[0], values[1] = values[1], values[0]
    elif n > 2:
        _merge_sort(values, n, merged)


@borrowing_njit
def _merge_sort(values, n, merged):  # pragma: no cover (compiled)
    """:func:`_glibc_sort` of more than two values."""
    path, depth = _leftmost_run(0, 0, n)
    while depth > 0:
        if path & 1 == 0:  # a left run is sorted: sort its right sibling
            path, depth = _leftmost_run(path | 1, depth, n)
        else:  # both runs of the parent are sorted: merge them
            path >>= 1
            depth -= 1
            start, size = _run(path, depth, n)
            _merge(values, start, size // 2, size, merged)


@njit
def _run(path, depth, n):  # pragma: no cover (compiled)
    """``(start, size)`` of the run that the turns ``path`` (``depth`` of them, the first the highest bit) lead to."""
    start = 0
    size = n
    for d in range(depth - 1, -1, -1):
        n1 = size // 2
        if (path >> d) & 1:
            start += n1
            size -= n1
        else:
            size = n1
    return start, size


@njit
def _leftmost_run(path, depth, n):  # pragma: no cover (compiled)
    """The turns to the first run of at most one value within the run ``path`` leads to (taking left turns)."""
    while _run(path, depth, n)[1] > 1:
        path <<= 1
        depth += 1
    return path, depth


@borrowing_njit
def _merge(values, start, n1, size, scratch):  # pragma: no cover (compiled)
    """glibc ``msort_with_tmp``'s merge of the sorted runs ``values[start:start + n1]`` and the rest of
    ``values[start:start + size]``."""
    i = start
    j = start + n1
    end1 = start + n1
    end2 = start + size
    k = 0
    while i < end1 and j < end2:
        if _wrap32(values[i] - values[j]) <= 0:
            scratch[k] = values[i]
            i += 1
        else:
            scratch[k] = values[j]
            j += 1
        k += 1
    while i < end1:
        scratch[k] = values[i]
        i += 1
        k += 1
    for m in range(k):
        values[start + m] = scratch[m]


# ----------------------------------------------------------------------------------------------------------------
# SDL_gfx (pygame.gfxdraw) on a 32-bit XRGB8888 surface


@njit
def _row(surface, top, height, y, flipped):  # pragma: no cover (compiled)
    """The row of ``surface`` that holds row ``y`` (``0 <= y < height``) of the window, or -1 if it holds none.

    ``surface`` holds the window's array rows ``top .. top + surface.shape[0] - 1`` (all of them for a whole
    window: ``top = 0``, ``height = surface.shape[0]``). Array rows are mirrored (``height - 1 - y``) when drawing
    what ``pygame.transform.flip(s, False, True)`` will show."""
    row = (height - 1 - y if flipped else y) - top
    return row if 0 <= row < surface.shape[0] else -1


@njit
def _band_rows(surface, top, height, flipped):  # pragma: no cover (compiled)
    """The window rows ``(first, last)`` that ``surface`` holds (see :func:`_row`), in drawing coordinates."""
    if flipped:
        return height - top - surface.shape[0], height - 1 - top
    return top, top + surface.shape[0] - 1


@njit
def _blend(dest, color, alpha):  # pragma: no cover (compiled)
    """SDL_gfx's ``_putPixelAlpha`` on a 32-bit XRGB pixel (its ``DEFAULT_ALPHA_PIXEL_ROUTINE``), ``alpha < 255``.

    SDL_gfx computes, per channel in unsigned 32-bit arithmetic, ``((dc & m) + ((((c & m) - (dc & m)) >> s) * alpha
    >> 8 << s)) & m``: the wrap of a negative difference makes it ``d + floor((c - d) * alpha / 256)`` for channel
    values ``d`` of ``dest`` and ``c`` of ``color``, that is ``(d * (256 - alpha) + c * alpha) >> 8`` (the tests check
    every channel value and alpha). Each such sum is below 2**16, so the three channels are blended at once in
    16-bit lanes of one integer. Blending a colour over itself gives it back."""
    lanes = ((dest & 0xFF) | ((dest & 0xFF00) << 8) | ((dest & 0xFF0000) << 16)) * (256 - alpha) + (
        (color & 0xFF) | ((color & 0xFF00) << 8) | ((color & 0xFF0000) << 16)
    ) * alpha
    lanes = (lanes >> 8) & 0xFF00FF00FF
    return (lanes & 0xFF) | ((lanes >> 8) & 0xFF00) | ((lanes >> 16) & 0xFF0000)


@njit
def _put_alpha(surface, row, x, color, alpha):  # pragma: no cover (compiled)
    """SDL_gfx ``_putPixelAlpha`` at pixel ``x`` of array row ``row`` (both in range): stores ``color`` at alpha 255,
    else blends it in. A pixel that holds ``color`` already is left alone (the blend would give it back): the frame
    draws a polygon's antialiased outline over its fill (see :func:`_draw_scene`), and half of an outline's pixels
    fall on the fill."""
    if alpha == 255:
        surface[row, x] = color
    else:
        dest = np.int64(surface[row, x])
        if dest != color:
            surface[row, x] = _blend(dest, color, alpha)


@njit
def _gfx_pixel(surface, top, height, x, y, color, alpha, flipped):  # pragma: no cover (compiled)
    """SDL_gfx ``_putPixelAlpha`` (:func:`_put_alpha`) clipped to the window (of ``height`` rows; ``surface``
    holds its rows from ``top``: see :func:`_row`)."""
    if x < 0 or x >= surface.shape[1] or y < 0 or y >= height:
        return
    row = _row(surface, top, height, y, flipped)
    if row >= 0:
        _put_alpha(surface, row, x, color, alpha)


@njit
def _fill_span(surface, row, x1, x2, color):  # pragma: no cover (compiled)
    """Stores ``color`` in columns ``x1..x2`` (inclusive, already clipped) of array row ``row``."""
    surface[row, x1 : x2 + 1] = color


@njit
def _gfx_axis_line(surface, top, height, a1, a2, fixed, vertical, color, flipped):  # pragma: no cover (compiled)
    """SDL_gfx ``hlineColor(a1, a2, y=fixed)`` or, if ``vertical``, ``vlineColor(x=fixed, a1, a2)``, for an opaque
    colour: Sint16 arguments, ends swapped into order, clipped to the window, stored (the rows ``surface`` holds)."""
    a1 = _wrap16(a1)
    a2 = _wrap16(a2)
    fixed = _wrap16(fixed)
    if a1 > a2:
        a1, a2 = a2, a1
    along = height if vertical else surface.shape[1]
    across = surface.shape[1] if vertical else height
    if a2 < 0 or a1 > along - 1 or fixed < 0 or fixed > across - 1:
        return
    if not vertical:
        row = _row(surface, top, height, fixed, flipped)
        if row >= 0:
            _fill_span(surface, row, max(a1, 0), min(a2, along - 1), color)
    else:
        first, last = _band_rows(surface, top, height, flipped)
        for y in range(max(a1, 0, first), min(a2, along - 1, last) + 1):
            surface[_row(surface, top, height, y, flipped), fixed] = color


@njit
def _clip_code(x, y, right, bottom):  # pragma: no cover (compiled)
    """SDL_gfx ``_clipEncode`` against ``[0, right] x [0, bottom]``: left 1, right 2, bottom 4, top 8."""
    code = 0
    if x < 0:
        code |= 1
    elif x > right:
        code |= 2
    if y < 0:
        code |= 8
    elif y > bottom:
        code |= 4
    return code


@njit
def _float_to_sint16(value):  # pragma: no cover (compiled)
    """``(Sint16)value`` for a float: x86's truncation to int, then its low 16 bits."""
    return _wrap16(_float_to_int32(value))


@njit
def _gfx_clip_line(x1, y1, x2, y2, right, bottom):  # pragma: no cover (compiled)
    """SDL_gfx ``_clipLine`` (Cohen-Sutherland with a float32 slope, Sint16 results).

    Returns:
        ``(draw, x1, y1, x2, y2)``: whether any of the segment is inside, and the clipped ends (possibly swapped).
    """
    while True:
        code1 = _clip_code(x1, y1, right, bottom)
        code2 = _clip_code(x2, y2, right, bottom)
        if (code1 | code2) == 0:
            return True, x1, y1, x2, y2
        if code1 & code2:
            return False, x1, y1, x2, y2
        if code1 == 0:
            x1, x2 = x2, x1
            y1, y2 = y2, y1
            code1, code2 = code2, code1
        if x2 != x1:
            m = np.float32(np.float32(y2 - y1) / np.float32(x2 - x1))
        else:
            m = np.float32(1.0)
        if code1 & 1:
            y1 = _wrap16(y1 + _float_to_sint16(np.float32(np.float32(0 - x1) * m)))
            x1 = 0
        elif code1 & 2:
            y1 = _wrap16(y1 + _float_to_sint16(np.float32(np.float32(right - x1) * m)))
            x1 = right
        elif code1 & 4:
            if x2 != x1:
                x1 = _wrap16(x1 + _float_to_sint16(np.float32(np.float32(bottom - y1) / m)))
            y1 = bottom
        elif code1 & 8:
            if x2 != x1:
                x1 = _wrap16(x1 + _float_to_sint16(np.float32(np.float32(0 - y1) / m)))
            y1 = 0


@njit
def _gfx_aaline(surface, top, height, x1, y1, x2, y2, color, flipped):  # pragma: no cover (compiled)
    """SDL_gfx ``_aalineColor(..., draw_endpoint=0)`` for an opaque colour: the first end's pixel stored, the
    pixels between the ends as pairs weighted by an 8-bit error accumulator, the last end not drawn. Clipped to
    the window of ``height`` rows; only the pixels in the rows ``surface`` holds (see :func:`_row`) are walked."""
    width = surface.shape[1]
    draw, x1, y1, x2, y2 = _gfx_clip_line(x1, y1, x2, y2, width - 1, height - 1)
    if not draw:
        return
    xx0, yy0, xx1, yy1 = x1, y1, x2, y2
    if yy0 > yy1:
        xx0, yy0, xx1, yy1 = xx1, yy1, xx0, yy0
    dx = xx1 - xx0
    dy = yy1 - yy0
    if dx == 0:
        if dy > 0:
            _gfx_axis_line(surface, top, height, yy0, yy0 + dy, x1, True, color, flipped)
        else:
            _gfx_pixel(surface, top, height, x1, y1, color, 255, flipped)
        return
    if dy == 0:
        _gfx_axis_line(surface, top, height, xx0, xx0 + dx, y1, False, color, flipped)
        return
    xdir = 1
    if dx < 0:
        xdir = -1
        dx = -dx
    _gfx_pixel(surface, top, height, x1, y1, color, 255, flipped)
    # Along the major axis one pixel per step; the minor axis advances when the 32-bit error accumulator
    # rolls over, and its top 8 bits weigh the pixel pair straddling the line. After ``j`` steps the accumulator
    # holds ``j * erradj`` modulo 2**32 and has rolled over ``(j * erradj) >> 32`` times (every step when
    # ``erradj`` is 0: SDL_gfx counts a roll-over when the sum does not grow), so the walk starts at the first
    # step that reaches the surface's rows.
    y_major = dy > dx
    major_len, minor_len = (dy, dx) if y_major else (dx, dy)
    erradj = ((_c_div(_wrap32(minor_len << 16), major_len) & 0xFFFFFFFF) << 16) & 0xFFFFFFFF
    first_row, last_row = _band_rows(surface, top, height, flipped)
    if y_major:  # step j draws row yy0 + j
        first = max(1, first_row - yy0)
        last = min(major_len - 1, last_row - yy0)
    else:  # step j draws rows yy0 + rolls and the one below
        below = first_row - 1 - yy0  # the rolls the first step drawing into the surface's rows has made
        if below <= 0:
            first = 1
        elif erradj == 0:
            first = below
        else:
            first = ((below << 32) + erradj - 1) // erradj
        last = major_len - 1
    for j in range(first, last + 1):
        total = j * erradj
        rolls = j if erradj == 0 else total >> 32
        wgt = ((total & 0xFFFFFFFF) >> 24) & 255
        # SDL_gfx's pixelColorWeightNolock: alpha (255 * weight) >> 8. The clipped ends are in the window, so is
        # every pixel between them; only the pixel beside them may be one past its edge (or the surface's rows).
        if y_major:
            minor = xx0 + rolls * xdir
            row = _row(surface, top, height, yy0 + j, flipped)
            _put_alpha(surface, row, minor, color, (255 * (255 - wgt)) >> 8)
            if 0 <= minor + xdir < width:
                _put_alpha(surface, row, minor + xdir, color, (255 * wgt) >> 8)
        else:
            minor = yy0 + rolls
            if minor > last_row:
                break
            major = xx0 + j * xdir
            row = _row(surface, top, height, minor, flipped)
            if row >= 0:
                _put_alpha(surface, row, major, color, (255 * (255 - wgt)) >> 8)
            if minor + 1 < height:
                row = _row(surface, top, height, minor + 1, flipped)
                if row >= 0:
                    _put_alpha(surface, row, major, color, (255 * wgt) >> 8)


@njit
def _gfx_aapolygon(surface, top, height, vx, vy, n, color, flipped):  # pragma: no cover (compiled)
    """SDL_gfx ``aapolygonColor``: the antialiased edges ``i -> i + 1`` and the closing one, each without its
    last end. ``vx``, ``vy`` hold Sint16 values."""
    for i in range(1, n):
        _gfx_aaline(surface, top, height, vx[i - 1], vy[i - 1], vx[i], vy[i], color, flipped)
    _gfx_aaline(surface, top, height, vx[n - 1], vy[n - 1], vx[0], vy[0], color, flipped)


@njit
def _upward_edge(xs, ys, n, i):  # pragma: no cover (compiled)
    """The edge from vertex ``i - 1`` (``n - 1`` for ``i == 0``) to vertex ``i``, ends ordered by y (the scanline
    fills of SDL_gfx and draw.c both walk edges so): ``(x1, y1, x2, y2)`` with ``y1 <= y2``."""
    previous = n - 1 if i == 0 else i - 1
    if ys[previous] <= ys[i]:
        return xs[previous], ys[previous], xs[i], ys[i]
    return xs[i], ys[i], xs[previous], ys[previous]


@njit
def _gfx_filled_polygon(surface, top, height, vx, vy, n, color, scratch, flipped):  # pragma: no cover (compiled)
    """SDL_gfx ``filledPolygonColorMT``: each row from the lowest to the highest vertex is filled between
    pairs of sorted 16.16 edge crossings, rounded inward. ``vx``, ``vy`` hold Sint16 values; ``scratch`` is
    ``(POLYGON_SCRATCH_ROWS, >= n)`` int64. Clipped to the window of ``height`` rows; only the rows ``surface``
    holds (see :func:`_row`) are scanned.

    Returns:
        Whether the fill stored every pixel of ``surface`` (each of its rows within one span).
    """
    width = surface.shape[1]
    first_row, last_row = _band_rows(surface, top, height, flipped)
    miny = vy[0]
    maxy = vy[0]
    for i in range(1, n):
        if vy[i] < miny:
            miny = vy[i]
        elif vy[i] > maxy:
            maxy = vy[i]
    covered = miny <= first_row and maxy >= last_row
    # The edges ordered by y, horizontal ones left out (they cross no row), read once rather than in every row:
    # x1, y1, y2, x2 - x1 and the 16.16 x1.
    ints = scratch[_CROSSINGS]
    edge_y1, edge_y2, edge_dx, edge_x1 = (
        scratch[_EDGES + 1],
        scratch[_EDGES + 2],
        scratch[_EDGES + 3],
        scratch[_EDGES + 4],
    )
    count_edges = 0
    for i in range(n):
        x1, y1, x2, y2 = _upward_edge(vx, vy, n, i)
        if y1 != y2:
            edge_y1[count_edges], edge_y2[count_edges] = y1, y2
            edge_dx[count_edges], edge_x1[count_edges] = x2 - x1, _wrap32(65536 * x1)
            count_edges += 1
    # Rows off the window draw nothing (hlineColor clips them): only the surface's rows are scanned.
    for y in range(max(miny, first_row), min(maxy, last_row) + 1):
        count = 0
        for e in range(count_edges):
            y1, y2 = edge_y1[e], edge_y2[e]
            if (y >= y1 and y < y2) or (y == maxy and y > y1 and y <= y2):
                ints[count] = _wrap32(_wrap32(_gfx_edge_step(y - y1, y2 - y1) * edge_dx[e]) + edge_x1[e])
                count += 1
        _glibc_sort(ints, count, scratch[_MERGED])
        row_covered = False
        row = _row(surface, top, height, y, flipped)
        for i in range(0, count - 1, 2):
            # hlineColor(xa, xb, y): Sint16 ends put in order and clipped (y is a surface row already)
            xa = _wrap32(ints[i] + 1)
            xa = _wrap16((xa >> 16) + ((xa & 32768) >> 15))
            xb = _wrap32(ints[i + 1] - 1)
            xb = _wrap16((xb >> 16) + ((xb & 32768) >> 15))
            if xa > xb:
                xa, xb = xb, xa
            if xb >= 0 and xa <= width - 1:
                _fill_span(surface, row, max(xa, 0), min(xb, width - 1), color)
                row_covered |= xa <= 0 and xb >= width - 1
        covered &= row_covered
    return covered


@njit
def _gfx_edge_step(rise, height):  # pragma: no cover (compiled)
    """SDL_gfx's ``(65536 * (y - y1)) / (y2 - y1)`` in C ints, ``rise = y - y1 >= 0``, ``height = y2 - y1 > 0``: a
    plain quotient unless the product overflows (Sint16 ends more than 32767 rows apart)."""
    product = 65536 * rise
    if product < 2**31:
        return product // height
    return _c_div(_wrap32(product), height)


# ----------------------------------------------------------------------------------------------------------------
# pygame.draw.polygon (draw.c)


@njit
def _draw_span(surface, top, height, x1, y, x2, color, flipped):  # pragma: no cover (compiled)
    """draw.c ``drawhorzlineclipbounding``: ends put in order, clipped to the window, stored (in the rows
    ``surface`` holds: see :func:`_row`)."""
    width = surface.shape[1]
    if y < 0 or y >= height:
        return
    row = _row(surface, top, height, y, flipped)
    if row < 0:
        return
    if x2 < x1:
        x1, x2 = x2, x1
    x1 = max(x1, 0)
    x2 = min(x2, width - 1)
    if x2 < 0 or x1 >= width:
        return
    _fill_span(surface, row, x1, x2, color)


@njit
def _draw_fillpoly(surface, top, height, xs, ys, n, color, scratch, flipped):  # pragma: no cover (compiled)
    """draw.c ``draw_fillpoly``: rows between the extreme vertices filled between sorted edge crossings (the
    float32 crossing floored for the even ones and ceiled for the odd ones in edge order), then the
    horizontal edges strictly between the extremes. ``scratch`` is ``(POLYGON_SCRATCH_ROWS, >= n)`` int64."""
    crossings = scratch[_CROSSINGS]
    miny = ys[0]
    maxy = ys[0]
    for i in range(1, n):
        miny = min(miny, ys[i])
        maxy = max(maxy, ys[i])
    if miny == maxy:
        minx = xs[0]
        maxx = xs[0]
        for i in range(1, n):
            minx = min(minx, xs[i])
            maxx = max(maxx, xs[i])
        _draw_span(surface, top, height, minx, miny, maxx, color, flipped)
        return
    # Rows off the window draw nothing (drawhorzlineclipbounding clips them): only the surface's rows are scanned.
    first_row, last_row = _band_rows(surface, top, height, flipped)
    for y in range(max(miny, first_row), min(maxy, last_row) + 1):
        count = 0
        for i in range(n):
            x1, y1, x2, y2 = _upward_edge(xs, ys, n, i)
            if y1 == y2:
                continue
            if (y >= y1 and y < y2) or (y == maxy and y2 == maxy):
                product = np.float32(_wrap32(_wrap32(y - y1) * _wrap32(x2 - x1)))
                intersect = np.float32(product / np.float32(_wrap32(y2 - y1)))
                if count % 2 == 0:
                    intersect = np.float32(math.floor(intersect))
                else:
                    intersect = np.float32(math.ceil(intersect))
                crossings[count] = _wrap32(_float_to_int32(intersect) + x1)
                count += 1
        _glibc_sort(crossings, count, scratch[_MERGED])
        for i in range(0, count - 1, 2):
            _draw_span(surface, top, height, crossings[i], y, crossings[i + 1], color, flipped)
    for i in range(n):
        previous = n - 1 if i == 0 else i - 1
        y = ys[i]
        if miny < y and ys[previous] == y and y < maxy:
            _draw_span(surface, top, height, xs[i], y, xs[previous], color, flipped)


@njit
def _draw_filltri(surface, top, height, xs, ys, color, flipped):  # pragma: no cover (compiled)
    """draw.c ``draw_filltri``: vertices sorted by y, each row spanned between the long edge and the
    short ones, slopes as float32 of a double quotient (each row's span a function of the row alone: only the
    rows ``surface`` holds are spanned)."""
    p0x, p1x, p2x = xs[0], xs[1], xs[2]
    p0y, p1y, p2y = ys[0], ys[1], ys[2]
    if p1y < p0y:
        p1x, p1y, p0x, p0y = p0x, p0y, p1x, p1y
    if p2y < p1y:
        p1x, p1y, p2x, p2y = p2x, p2y, p1x, p1y
        if p1y < p0y:
            p1x, p1y, p0x, p0y = p0x, p0y, p1x, p1y
    if p0y == p1y and p1y == p2y and p0x == p1x and p1x != p2x:
        p1x, p1y, p2x, p2y = p2x, p2y, p1x, p1y
    d1 = np.float32(_wrap32(p2x - p0x) / (_wrap32(p2y - p0y) + 1e-17))
    d2 = np.float32(_wrap32(p1x - p0x) / (_wrap32(p1y - p0y) + 1e-17))
    d3 = np.float32(_wrap32(p2x - p1x) / (_wrap32(p2y - p1y) + 1e-17))
    first_row, last_row = _band_rows(surface, top, height, flipped)
    for y in range(max(p0y, first_row), min(p2y, last_row) + 1):
        x1 = _wrap32(p0x + _float_to_int32(np.float32(np.float32(_wrap32(y - p0y)) * d1)))
        if y < p1y:
            x2 = _wrap32(p0x + _float_to_int32(np.float32(np.float32(_wrap32(y - p0y)) * d2)))
        else:
            x2 = _wrap32(p1x + _float_to_int32(np.float32(np.float32(_wrap32(y - p1y)) * d3)))
        _draw_span(surface, top, height, x1, y, x2, color, flipped)


@borrowing_njit
def _draw_polygon(surface, top, height, xs, ys, n, color, scratch, flipped):  # pragma: no cover (compiled)
    """``pygame.draw.polygon(surface, color, points)`` (filled) on C-int vertices. Compiled without reference
    counting, as what it calls: the fill's row views of ``scratch`` counted references per row."""
    if n == 3:
        _draw_filltri(surface, top, height, xs, ys, color, flipped)
    else:
        _draw_fillpoly(surface, top, height, xs, ys, n, color, scratch, flipped)


@njit
def _draw_line_width(surface, top, height, x1, y1, x2, y2, width, color, flipped):  # pragma: no cover (compiled)
    """draw.c ``draw_line_width`` for ``width >= 2`` (``pygame.draw.lines(..., width=width)``, one segment):
    Bresenham from end to end, each step a span of ``width`` pixels across the line's minor direction,
    clipped to the window (a segment wholly off it is skipped) and stored in the rows ``surface`` holds."""
    surface_w = surface.shape[1]
    end_x = surface_w - 1
    end_y = height - 1
    extra_width = 1 - (width % 2)
    width = width // 2
    xinc = abs(x1 - x2) <= abs(y1 - y2)
    if xinc:
        left, right, upper, lower = min(x1, x2) - width, max(x1, x2) + width, min(y1, y2), max(y1, y2)
    else:
        left, right, upper, lower = min(x1, x2), max(x1, x2), min(y1, y2) - width, max(y1, y2) + width
    if 0 > right or 0 > lower or surface_w <= left or height <= upper:
        return
    if x1 == x2 and y1 == y2:
        start_draw = max(x1 - width + extra_width, 0)
        end_draw = min(end_x, x1 + width)
        if start_draw <= end_draw:
            _draw_span(surface, top, height, start_draw, y1, end_draw, color, flipped)
        return
    dx = abs(x2 - x1)
    dy = abs(y2 - y1)
    sx = 1 if x2 > x1 else -1
    sy = 1 if y2 > y1 else -1
    err = _c_div(dx if dx > dy else -dy, 2)
    while (y1 != y2 + sy) if xinc else (x1 != x2 + sx):
        if xinc:
            if 0 <= y1 <= end_y:
                start_draw = max(x1 - width + extra_width, 0)
                end_draw = min(end_x, x1 + width)
                if start_draw <= end_draw:
                    _draw_span(surface, top, height, start_draw, y1, end_draw, color, flipped)
        elif 0 <= x1 <= end_x:
            for y in range(max(y1 - width + extra_width, 0), min(end_y, y1 + width) + 1):
                row = _row(surface, top, height, y, flipped)
                if row >= 0:
                    surface[row, x1] = color
        e2 = err
        if e2 > -dx:
            err -= dy
            x1 += sx
        if e2 < dy:
            err += dx
            y1 += sy


# ----------------------------------------------------------------------------------------------------------------
# pygame.transform.smoothscale, shrinking (transform.c and simd_transform_sse2.c)


@njit
def _shrink_unit(backend):  # pragma: no cover (compiled)
    """One source pixel in the filter's fixed point: 14 bits in the SSE2 filters, 16 in the generic ones."""
    return 0x4000 if backend == SMOOTHSCALE_SSE2 else 0x10000


@njit
def _shrink_recip(space, backend):  # pragma: no cover (compiled)
    """The reciprocal of a destination pixel's span ``space``: 16 bits (``_mm_set1_epi16``) in SSE2, an int in C."""
    if backend == SMOOTHSCALE_SSE2:
        return (0x40000000 // space) & 0xFFFF
    return 0x100000000 // space


@njit
def _shrink_rest(value, frac, backend):  # pragma: no cover (compiled)
    """The accumulator's restart when the source ``value`` closes a destination pixel: the part ``frac`` of it that
    starts the next one. SSE2: ``mulhi_epu16(value << 2, frac)``; generic C: ``(value * frac) >> 16`` in Uint16."""
    if backend == SMOOTHSCALE_SSE2:
        return ((value << 2) * frac) >> 16
    return ((value * frac) >> 16) & 0xFFFF


@njit
def _shrink_emit(value, counter, frac, accumulate, recip, backend):  # pragma: no cover (compiled)
    """A destination value from the accumulated sum and the part ``counter`` of the source ``value`` that
    closes it, and the accumulator's restart from the rest ``frac``: ``(result, accumulate)``.

    SSE2: ``mulhi_epu16(value << 2, counter)``, a 16-bit add, ``mulhi_epu16`` by the reciprocal, and
    ``packus_epi16`` (saturation). Generic C: ``(acc + (value * counter >> 16)) * recip >> 16`` in int,
    truncated to Uint8."""
    if backend == SMOOTHSCALE_SSE2:
        total = ((((value << 2) * counter) >> 16) + accumulate) & 0xFFFF
        return min((total * recip) >> 16, 255), _shrink_rest(value, frac, backend)
    total = _wrap32((accumulate + ((value * counter) >> 16)) * recip)
    return (total >> 16) & 0xFF, _shrink_rest(value, frac, backend)


@njit
def _shrink_plan(src_len, dst_len, backend, plan):  # pragma: no cover (compiled)
    """Where the filter's counter closes each destination pixel along a line of ``src_len`` source pixels; the
    same for every line: ``plan[o] = (source pixel, counter, frac)`` (the part of that pixel that completes
    output ``o``, and the rest that starts output ``o + 1``).

    Raises:
        ValueError: If the filter would not close exactly ``dst_len`` pixels (it would write past its line), or a
            destination pixel spans more than 8000 source pixels (beyond what the packed sums hold).
    """
    unit = _shrink_unit(backend)
    space = unit * src_len // dst_len
    counter = space
    out = 0
    previous = -1
    for x in range(src_len):
        if counter > unit:
            counter -= unit
        else:
            frac = unit - counter
            if out < dst_len:
                plan[out, 0], plan[out, 1], plan[out, 2] = x, counter, frac
            if x - previous > 8000:
                raise ValueError("smoothscale: a destination pixel would span more than 8000 source pixels")
            previous = x
            out += 1
            counter = space - frac
    if out != dst_len:
        raise ValueError("smoothscale: the filter does not close exactly one pixel per destination pixel here")


@borrowing_njit
def _shrink_row_span(source, dest, y, plan, first, last, recip, backend):  # pragma: no cover (compiled)
    """``filter_shrink_X``'s outputs ``first..last`` of row ``y``: each from the rest of the pixel that closed the
    output before it, the pixels wholly inside it and the part of the pixel that closes it.

    The pixels wholly inside an output are summed with the three channels packed in 21-bit lanes of one
    integer: no carry crosses a lane, as a lane's sum is at most 8000 * 255 < 2**21 (``_shrink_plan`` refuses
    wider outputs). The filters' 16-bit accumulators wrap, hence the ``& 0xFFFF`` of each lane's sum."""
    if first == 0:
        red = green = blue = 0
        start = 0
    else:
        start = plan[first - 1, 0]
        pixel = np.int64(source[y, start])
        red = _shrink_rest((pixel >> 16) & 0xFF, plan[first - 1, 2], backend)
        green = _shrink_rest((pixel >> 8) & 0xFF, plan[first - 1, 2], backend)
        blue = _shrink_rest(pixel & 0xFF, plan[first - 1, 2], backend)
        start += 1
    for o in range(first, last + 1):
        end, counter, frac = plan[o, 0], plan[o, 1], plan[o, 2]
        lanes = 0
        for x in range(start, end):
            pixel = np.int64(source[y, x])
            lanes += (pixel & 0xFF) | ((pixel & 0xFF00) << 13) | ((pixel & 0xFF0000) << 26)
        red = (red + (lanes >> 42)) & 0xFFFF
        green = (green + ((lanes >> 21) & 0x1FFFFF)) & 0xFFFF
        blue = (blue + (lanes & 0x1FFFFF)) & 0xFFFF
        pixel = np.int64(source[y, end])
        dest[y, o, 0], red = _shrink_emit((pixel >> 16) & 0xFF, counter, frac, red, recip, backend)
        dest[y, o, 1], green = _shrink_emit((pixel >> 8) & 0xFF, counter, frac, green, recip, backend)
        dest[y, o, 2], blue = _shrink_emit(pixel & 0xFF, counter, frac, blue, recip, backend)
        start = end + 1


_FIRST_SET = np.array([0] + [(k & -k).bit_length() - 1 for k in range(1, 256)], dtype=np.int64)
"""The lowest set bit of each byte value (0 for none)."""
_LAST_SET = np.array([0] + [k.bit_length() - 1 for k in range(1, 256)], dtype=np.int64)
"""The highest set bit of each byte value (0 for none)."""


@njit
def _shrink_scratch(plan, width):  # pragma: no cover (compiled)
    """The scratch of :func:`_shrink_rows` on rows of ``width`` pixels shrunk along ``plan``: ``(changed, owners,
    blocks)``, a byte per pixel in whole 64-pixel blocks, the first and last outputs whose footprint holds each
    pixel (``owners[0, x]``, ``owners[1, x]``: the pixel closing an output also starts the next one's), and room for
    a row's changed blocks."""
    outputs = plan.shape[0]
    owners = np.empty((2, width), dtype=np.int64)
    o = 0
    for x in range(width):
        while o < outputs and plan[o, 0] < x:
            o += 1
        owners[0, x] = o
        owners[1, x] = o + 1 if o + 1 < outputs and plan[o, 0] == x else min(o, outputs - 1)
    blocks = (width + 63) // 64
    return np.zeros(64 * blocks, dtype=np.uint8), owners, np.empty(blocks, dtype=np.int64)


@njit
def _shrink_rows(source, dest, plan, backend, start, scratch):  # pragma: no cover (compiled)
    """``filter_shrink_X``: the rows ``start..`` of ``source`` (uint32 XRGB) averaged down to ``dest``'s width along
    ``plan`` (row ``start - 1``'s outputs already in ``dest`` when ``start > 0``). ``scratch`` is
    :func:`_shrink_scratch` of ``plan`` and the rows' width.

    An output is a function of the source pixels from the one that closed the output before it to the one that
    closes it (its footprint), the same function in every row. So a row starts as a copy of the row above's
    outputs, and only the outputs whose footprint holds a pixel that differs from the pixel above are computed
    again: in a CarRacing frame most rows differ from the one above only where a road edge, the car or a bar
    crosses them (about 2.5% of the footprints). The pixels that differ are found 64 at a time: a vectorised
    pass marks them with a byte each, read back as 8 words per 64 pixels, a word with a mark standing for all its 8
    pixels. (In the first second's frames, which show the whole track, about 12% of the footprints differ.) The
    blocks holding a change are listed, and their first and last changed words and those words' outputs looked up,
    without a branch on the pixels: the branches that searched for them mispredicted (~8% of a frame)."""
    height, width = source.shape[0], source.shape[1]
    outputs = dest.shape[1]
    recip = _shrink_recip(_shrink_unit(backend) * width // outputs, backend)
    reach = plan[outputs - 1, 0] + 1  # the pixels after the last closing one reach no output
    changed, owners, changed_blocks = scratch
    blocks = (reach + 63) // 64
    changed[64 * blocks - 64 :] = 0  # the marks past ``reach`` are read with their block's and stay 0
    words = changed.view(np.uint64)
    flat = dest.reshape(height, 3 * outputs)
    if start == 0:
        _shrink_row_span(source, dest, 0, plan, 0, outputs - 1, recip, backend)
    for y in range(max(start, 1), height):
        # (no flag of a difference is ORed here to skip unchanged rows: it slows this loop, and the blocks' words
        # tell an unchanged row as quickly)
        for x in range(reach):
            changed[x] = source[y, x] != source[y - 1, x]
        for i in range(3 * outputs):
            flat[y, i] = flat[y - 1, i]
        count = 0
        for block in range(blocks):
            any_changed = np.uint64(0)
            for k in range(8 * block, 8 * block + 8):
                any_changed |= words[k]
            changed_blocks[count] = block
            count += any_changed != 0
        # Outputs ``low..high`` wait to be computed; each block's first to last changed word joins them (their 8
        # pixels stand for the changed ones: an output whose footprint did not change is computed again to what
        # the copy holds).
        low, high = 0, -1
        for i in range(count):
            block = changed_blocks[i]
            held = 0
            for k in range(8):
                held |= (words[8 * block + k] != 0) << k
            first = 64 * block + 8 * _FIRST_SET[held]
            last = min(64 * block + 8 * _LAST_SET[held] + 7, reach - 1)
            owner, top = owners[0, first], owners[1, last]
            if owner > high + 1:
                if high >= low:
                    _shrink_row_span(source, dest, y, plan, low, high, recip, backend)
                low = owner
            high = top
        if high >= low:
            _shrink_row_span(source, dest, y, plan, low, high, recip, backend)


@njit
def _shrink_columns(source, dest, plan, accumulate, backend):  # pragma: no cover (compiled)
    """``filter_shrink_Y``: each column of ``source`` (``(rows, width, 3)`` uint8) averaged down to ``dest``'s
    height along ``plan``; ``accumulate`` is ``(width, 3)`` uint16 scratch (the filters' 16-bit accumulator line: its
    sums wrap as theirs do, and 16-bit lanes add several times more values per instruction than int64 ones). Each
    row is a flat line of ``3 * width`` values, which the loops run along."""
    count = source.shape[1] * source.shape[2]
    lines = source.reshape(source.shape[0], count)
    out = dest.reshape(dest.shape[0], count)
    sums = accumulate.reshape(count)
    recip = _shrink_recip(_shrink_unit(backend) * source.shape[0] // dest.shape[0], backend)
    sums[:] = 0
    start = 0
    for o in range(dest.shape[0]):
        end, counter, frac = plan[o, 0], plan[o, 1], plan[o, 2]
        for y in range(start, end):
            for i in range(count):
                sums[i] += lines[y, i]
        for i in range(count):
            out[o, i], sums[i] = _shrink_emit(np.int64(lines[end, i]), counter, frac, sums[i] & 0xFFFF, recip, backend)
        start = end + 1


@njit
def _smoothscale_shrink(source, dest, rows, accumulate, backend):  # pragma: no cover (compiled)
    """``scalesmooth`` shrinking both ways: rows first into ``rows`` (``(source height, dest width, 3)``),
    then columns into ``dest``."""
    row_plan = np.empty((dest.shape[1], 3), dtype=np.int64)
    column_plan = np.empty((dest.shape[0], 3), dtype=np.int64)
    _shrink_plan(source.shape[1], dest.shape[1], backend, row_plan)
    _shrink_plan(source.shape[0], dest.shape[0], backend, column_plan)
    _shrink_rows(source, rows, row_plan, backend, 0, _shrink_scratch(row_plan, source.shape[1]))
    _shrink_columns(rows, dest, column_plan, accumulate, backend)


def smoothscale(source: np.ndarray, size: tuple[int, int], backend: int = SMOOTHSCALE_SSE2) -> np.ndarray:
    """``pygame.transform.smoothscale(surface, size)`` for a shrink in both directions.

    Args:
        source: ``(height, width)`` uint32 XRGB pixels (see :func:`pack_rgb`).
        size: ``(width, height)`` of the result, each smaller than the source's.
        backend: :data:`SMOOTHSCALE_SSE2` or :data:`SMOOTHSCALE_GENERIC`.

    Returns:
        The ``(height, width, 3)`` uint8 RGB result, in gymnasium's ``np.transpose(pixels3d(...), (1, 0, 2))`` order.

    Raises:
        ValueError: If ``size`` does not shrink both directions, or the backend is unknown.
    """
    width, height = size
    if not (0 < width < source.shape[1] and 0 < height < source.shape[0]):
        raise ValueError(f"smoothscale here only shrinks both ways: {source.shape[1]}x{source.shape[0]} to {size}")
    if backend not in (SMOOTHSCALE_SSE2, SMOOTHSCALE_GENERIC):
        raise ValueError(f"unknown smoothscale backend {backend!r}")
    dest = np.empty((height, width, 3), dtype=np.uint8)
    rows = np.empty((source.shape[0], width, 3), dtype=np.uint8)
    accumulate = np.empty((width, 3), dtype=np.uint16)
    _smoothscale_shrink(np.ascontiguousarray(source, dtype=np.uint32), dest, rows, accumulate, backend)
    return dest


# ----------------------------------------------------------------------------------------------------------------
# The score text


class ScoreFont(NamedTuple):
    """freesansbold at size 42 as SDL_ttf 2.24 (harfbuzz layout) renders the score's characters.

    Attributes:
        chars: The characters tabulated, ``"0123456789-nafi"``: the digits (each its own index), the sign, and the
            letters of ``f"{x:04.0f}"`` for NaN (``0nan``) and the infinities (``0inf``, ``-inf``), which gymnasium draws.
        glyphs: ``(len(chars), height, max_width)`` uint8 coverage of each glyph's bitmap, from its left edge.
        left: Each bitmap's left bearing in pixels.
        right: ``left`` + each bitmap's width.
        advance: Each glyph's advance, 26.6 fixed point (hinted).
        kern: ``kern[a, b]``, the kerning harfbuzz applies between ``a`` and ``b``, 26.6.
    """

    chars: str
    glyphs: np.ndarray
    left: np.ndarray
    right: np.ndarray
    advance: np.ndarray
    kern: np.ndarray


_FONT_PATH = os.path.join(os.path.dirname(__file__), "assets", "car_racing_score_font.npz")
_font: ScoreFont | None = None


def load_score_font() -> ScoreFont:
    """The tabulated score font (read once from the package's asset).

    Returns:
        The :class:`ScoreFont`.
    """
    global _font
    if _font is None:
        with np.load(_FONT_PATH) as data:
            _font = ScoreFont(
                str(data["chars"]), data["glyphs"].copy(), data["left"].copy(), data["right"].copy(),
                data["advance"].copy(), data["kern"].copy(),
            )  # fmt: skip
    return _font


def score_glyphs(reward: float, font: ScoreFont) -> np.ndarray:
    """The glyph indices of gymnasium's score text ``f"{reward:04.0f}"``.

    Args:
        reward: The episode's reward so far.
        font: The score font.

    Returns:
        int64 indices into ``font.chars``.

    Raises:
        ValueError: If the text has a character the font does not tabulate (none of a float's, since the font
            has "nan" and "inf").
    """
    text = f"{reward:04.0f}"
    try:
        return np.array([font.chars.index(ch) for ch in text], dtype=np.int64)
    except ValueError:
        raise ValueError(f"the score {text!r} has characters other than {font.chars!r}") from None


@njit
def _score_layout(text, right, advance, kern, positions):  # pragma: no cover (compiled)
    """SDL_ttf's layout of the glyphs ``text`` (shaded mode): each glyph's pen position in ``positions`` (pixels),
    and the box's width, which spans the glyphs' bitmaps and the pen's end.

    harfbuzz splits a pair's kerning ``k`` into ``k >> 1`` on the first glyph's advance and the rest on the
    second glyph's advance and offset; a glyph is drawn at the floor of its pen position plus its bearing.
    """
    n = text.shape[0]
    pen = 0  # 26.6
    offset = 0  # the second half of the kerning with the previous glyph
    box_w = 0
    for k in range(n):
        g = text[k]
        positions[k] = (pen + offset) >> 6
        box_w = max(box_w, positions[k] + right[g])
        step = advance[g] + offset
        offset = 0
        if k + 1 < n:
            kerning = kern[g, text[k + 1]]
            step += kerning >> 1
            offset = kerning - (kerning >> 1)
        pen += step
    return max(box_w, pen >> 6)


@njit
def _blit_score(
    surface, top, height, text, glyphs, left, right, positions, box_w, center_x, center_y
):  # pragma: no cover (compiled)
    """Blits the glyphs ``text`` laid out by :func:`_score_layout` as SDL_ttf's shaded mode renders them (their
    8-bit coverage ORed into a black box, white on black) with the box centred at ``(center_x, center_y)``
    (pygame's ``Rect.center``: ``x = cx - w // 2``), clipped to the window of ``height`` rows; ``surface`` holds
    its rows from ``top`` (unmirrored: see :func:`_row`)."""
    glyph_h = glyphs.shape[1]
    width = surface.shape[1]
    x0 = center_x - box_w // 2
    y0 = center_y - glyph_h // 2
    first = max(y0, 0, top)
    stop = min(y0 + glyph_h, height, top + surface.shape[0])
    for y in range(first, stop):
        for x in range(max(x0, 0), min(x0 + box_w, width)):
            surface[y - top, x] = 0
    for k in range(text.shape[0]):
        g = text[k]
        gx = x0 + positions[k] + left[g]
        for j in range(right[g] - left[g]):
            x = gx + j
            if x < 0 or x >= width or x >= x0 + box_w:
                continue
            for y in range(first, stop):
                level = (surface[y - top, x] & 0xFF) | glyphs[g, y - y0, j]
                surface[y - top, x] = level * 0x010101


def blit_score(surface: np.ndarray, reward: float, center: tuple[int, int]) -> None:
    """gymnasium's score: ``font.render(f"{reward:04.0f}", True, white, black)`` blitted centred at ``center``.

    Args:
        surface: ``(height, width)`` uint32 XRGB pixels, drawn on in place.
        reward: The reward shown.
        center: The box's centre, ``(x, y)`` in pixels.
    """
    font = load_score_font()
    text = score_glyphs(reward, font)
    positions = np.empty(len(text), dtype=np.int64)
    box_w = _score_layout(text, font.right, font.advance, font.kern, positions)
    _blit_score(
        surface, 0, surface.shape[0], text, font.glyphs, font.left, font.right, positions, box_w, center[0], center[1]
    )


# ----------------------------------------------------------------------------------------------------------------
# Python entry points of the primitives (tests compare them with pygame-ce)


def _sint16_points(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gfxdraw's conversion of points: ``int()`` (truncation) and then the low 16 bits, signed."""
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2 or points.shape[0] < 3:
        raise ValueError("points must be an (n, 2) array with n >= 3")
    if not np.all(np.abs(points) < 2.0**63):
        raise ValueError("points must be finite and below 2**63 in magnitude (pygame raises for these)")
    truncated = np.trunc(points).astype(np.int64)
    wrapped = ((truncated + 32768) & 0xFFFF) - 32768
    return np.ascontiguousarray(wrapped[:, 0]), np.ascontiguousarray(wrapped[:, 1])


def _color(color: tuple[int, int, int]) -> int:
    """``(r, g, b)`` as the XRGB pixel ``SDL_MapRGBA`` gives for the surface."""
    values = np.asarray(color, dtype=np.int64)
    if values.shape != (3,) or values.min() < 0 or values.max() > 255:
        raise ValueError(f"color must be three integers in [0, 255], not {color!r}")
    return int(pack_rgb(values))


def pack_rgb(pixels: np.ndarray) -> np.ndarray:
    """RGB values (``(..., 3)``, 0 to 255) as the uint32 pixels of a 32-bit pygame surface (XRGB8888, X = 0).

    Args:
        pixels: ``(..., 3)`` integers.

    Returns:
        ``(...)`` uint32.
    """
    pixels = np.asarray(pixels).astype(np.uint32)
    return (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]


def unpack_rgb(surface: np.ndarray) -> np.ndarray:
    """The ``(..., 3)`` uint8 RGB of uint32 XRGB pixels.

    Args:
        surface: uint32 pixels.

    Returns:
        ``(..., 3)`` uint8.
    """
    return np.stack([(surface >> 16) & 0xFF, (surface >> 8) & 0xFF, surface & 0xFF], axis=-1).astype(np.uint8)


def gfx_polygon(surface: np.ndarray, points: np.ndarray, color: tuple[int, int, int], filled: bool) -> None:
    """``pygame.gfxdraw.filled_polygon(surface, points, color)`` if ``filled``, else ``pygame.gfxdraw.aapolygon``,
    for an opaque colour on a 32-bit surface.

    Args:
        surface: ``(height, width)`` uint32 XRGB pixels, drawn on in place.
        points: ``(n, 2)`` coordinates, ``n >= 3``.
        color: ``(r, g, b)``.
        filled: Fill the polygon (else outline it, antialiased).

    Raises:
        ValueError: For fewer than 3 points, coordinates pygame refuses, or a colour out of range.
    """
    vx, vy = _sint16_points(points)
    if filled:
        _gfx_filled_polygon(
            surface, 0, surface.shape[0], vx, vy, len(vx), _color(color), _polygon_scratch(len(vx)), False
        )
    else:
        _gfx_aapolygon(surface, 0, surface.shape[0], vx, vy, len(vx), _color(color), False)


def draw_polygon(surface: np.ndarray, points: np.ndarray, color: tuple[int, int, int]) -> None:
    """``pygame.draw.polygon(surface, color, points)`` (filled) on a 32-bit surface.

    Args:
        surface: ``(height, width)`` uint32 XRGB pixels, drawn on in place.
        points: ``(n, 2)`` float coordinates, ``n >= 3``; pygame truncates each to a C int (INT_MIN when
            out of range, as x86 converts).
        color: ``(r, g, b)``.

    Raises:
        ValueError: For fewer than 3 points or a colour out of range.
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2 or points.shape[0] < 3:
        raise ValueError("points must be an (n, 2) array with n >= 3")
    inside = (points >= -(2.0**31)) & (points < 2.0**31)
    ints = np.where(inside, np.trunc(np.where(inside, points, 0.0)), _INT32_MIN).astype(np.int64)
    scratch = _polygon_scratch(len(points))
    _draw_polygon(
        surface,
        0,
        surface.shape[0],
        np.ascontiguousarray(ints[:, 0]),
        np.ascontiguousarray(ints[:, 1]),
        len(points),
        _color(color),
        scratch,
        False,
    )


def draw_lines(surface: np.ndarray, points: np.ndarray, color: tuple[int, int, int], width: int) -> None:
    """``pygame.draw.lines(surface, color, False, points, width)`` for ``width >= 2`` on a 32-bit surface.

    Args:
        surface: ``(height, width)`` uint32 XRGB pixels, drawn on in place.
        points: ``(n, 2)`` float coordinates, ``n >= 2``, truncated to C ints; within 2**24 of the origin (the
            line is walked pixel by pixel, as pygame walks it, even off the surface).
        color: ``(r, g, b)``.
        width: The line's thickness, 2 or more.

    Raises:
        ValueError: For fewer than 2 points, coordinates out of range, a width below 2 or a colour out of range.
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] != 2 or points.shape[0] < 2:
        raise ValueError("points must be an (n, 2) array with n >= 2")
    if not np.all(np.abs(points) < 2.0**24):
        raise ValueError("points must be within 2**24 of the origin")
    if width < 2:
        raise ValueError(f"width must be 2 or more, not {width}")
    ints = np.trunc(points).astype(np.int64)
    pixel = _color(color)
    for k in range(1, len(ints)):
        _draw_line_width(
            surface, 0, surface.shape[0], ints[k - 1, 0], ints[k - 1, 1], ints[k, 0], ints[k, 1], width, pixel, False
        )


# ----------------------------------------------------------------------------------------------------------------
# A whole CarRacing frame


@borrowing_njit
def _world_to_screen(vertices, start, end, view, cull, low, high_x, high_y, vx, vy, at):  # pragma: no cover (compiled)
    """The world polygon ``vertices[start:end]`` rotated, scaled and moved (``view`` = cos, sin, quadrant, zoom, tx,
    ty) as pygame's ``Vector2.rotate_rad`` does, as gfxdraw's Sint16 vertices in ``vx[at:]``, ``vy[at:]``.

    It and ``_reach`` borrow their arrays, and take positions rather than slices: ``_scene`` calls them for each of a
    frame's ~700 world polygons, and a call that counted references (or a slice made for it) cost an atomic
    operation per array, in and out, ~10,000 a frame.

    Returns:
        Whether gymnasium draws it: not ``cull``, or a vertex within ``[low, high_x] x [low, high_y]``.
    """
    cos, sin, quadrant, zoom, tx, ty = view[0], view[1], int(view[2]), view[3], view[4], view[5]
    inside = not cull
    for j in range(end - start):
        rx, ry = rotated(vertices[start + j, 0], vertices[start + j, 1], cos, sin, quadrant)
        sx = rx * zoom + tx
        sy = ry * zoom + ty
        if low <= sx <= high_x and low <= sy <= high_y:
            inside = True
        vx[at + j] = _wrap16(int(sx))
        vy[at + j] = _wrap16(int(sy))
    return inside


@borrowing_njit
def _reach(ys, start, end, height, flipped):  # pragma: no cover (compiled)
    """The array rows ``(first, last)`` that a polygon whose window-row vertices are ``ys[start:end]`` may draw
    into, its antialiased outline included (an edge's pixel pairs reach a row past its lower end; two rows of
    margin), or the whole window for vertices far off it (whose clipped edges wrap Sint16 or C ints)."""
    low = ys[start]
    high = ys[start]
    for j in range(start + 1, end):
        low = min(low, ys[j])
        high = max(high, ys[j])
    if low < -16384 or high > 16384:
        return 0, height - 1
    low -= 2
    high += 2
    if flipped:
        return height - 1 - high, height - 1 - low
    return low, high


@njit
def _indicator(quad_x, quad_y, quad_colors, count, value, points, red, green, blue):  # pragma: no cover (compiled)
    """gymnasium's ``render_if_min``: the four ``points`` (``(x, y)`` pairs, flat) as ``pygame.draw.polygon``'s C
    ints, and the colour, kept as quad ``count`` when ``abs(value) > 1e-4``.

    Returns:
        The quads kept.
    """
    if not abs(value) > 1e-4:
        return count
    for j in range(4):
        quad_x[count, j] = _float_to_int32(points[2 * j])
        quad_y[count, j] = _float_to_int32(points[2 * j + 1])
    quad_colors[count] = (red << 16) | (green << 8) | blue
    return count + 1


@njit
def _set_quad(points, x0, y0, x1, y1, x2, y2, x3, y3):  # pragma: no cover (compiled)
    """Stores four points, flat, in ``points``."""
    points[0], points[1], points[2], points[3] = x0, y0, x1, y1
    points[4], points[5], points[6], points[7] = x2, y2, x3, y3


@njit
def _indicator_quads(width, height, dashboard, quad_x, quad_y, quad_colors):  # pragma: no cover (compiled)
    """gymnasium's ``_render_indicators(W, H)``, drawn after the flip: the quads it fills, in its order, as C-int
    points (``quad_x``, ``quad_y``, ``(8, 4)`` int64) and colours (``(8,)``). ``dashboard`` holds the
    hull's speed (``np.sqrt`` of the squared velocity components), the four wheels' ``omega``, the front left
    wheel's joint angle and the hull's angular velocity.

    Returns:
        The number of quads filled.
    """
    W = float(width)
    H = float(height)
    s = W / 40.0
    h = H / 40.0
    points = np.empty(8)
    _set_quad(points, W, H, W, H - 5 * h, 0.0, H - 5 * h, 0.0, H)
    count = _indicator(quad_x, quad_y, quad_colors, 0, 1.0, points, 0, 0, 0)  # the black bar, always drawn
    for k in range(5):  # speed, then the wheels' ABS sensors: vertical_ind(place, val)
        value = dashboard[k]
        place = 5.0 if k == 0 else 6.0 + k
        val = 0.02 * value if k == 0 else 0.01 * value
        top = H - (h + h * val)
        _set_quad(points, place * s, top, (place + 1) * s, top, (place + 1) * s, H - h, (place + 0) * s, H - h)
        if k == 0:
            count = _indicator(quad_x, quad_y, quad_colors, count, value, points, 255, 255, 255)
        else:
            count = _indicator(quad_x, quad_y, quad_colors, count, value, points, 0 if k < 3 else 51, 0, 255)
    for k in range(2):  # steering and spin: horiz_ind(place, val)
        value = dashboard[5 + k]
        place = 20.0 if k == 0 else 30.0
        val = -10.0 * value if k == 0 else -0.8 * value
        x0 = (place + 0) * s
        x1 = (place + val) * s
        _set_quad(points, x0, H - 4 * h, x1, H - 4 * h, x1, H - 2 * h, x0, H - 2 * h)
        if k == 0:
            count = _indicator(quad_x, quad_y, quad_colors, count, value, points, 0, 255, 0)
        else:
            count = _indicator(quad_x, quad_y, quad_colors, count, value, points, 255, 0, 0)
    return count


class Scene(NamedTuple):
    """A CarRacing frame in window coordinates, computed once and drawn in bands of rows (:func:`_draw_scene`).

    The world polygons gymnasium draws (culled ones left out) are ``polygon_x/y[polygon_starts[k]:polygon_starts[k
    + 1]]`` (Sint16 values) with ``polygon_colors[k]`` and the array rows ``polygon_rows[k]`` they may touch; the
    first is the field when ``field`` (else the window is cleared). The skid marks and the car's polygons are C
    ints; ``quad_x``, ``quad_y`` and ``quad_colors`` hold the indicators (:func:`_indicator_quads`); the score is ``text`` laid out at
    ``positions``."""

    field: bool
    polygon_x: np.ndarray
    polygon_y: np.ndarray
    polygon_starts: np.ndarray
    polygon_colors: np.ndarray
    polygon_rows: np.ndarray
    skid_points: np.ndarray
    skid_starts: np.ndarray
    skid_colors: np.ndarray
    car_x: np.ndarray
    car_y: np.ndarray
    car_starts: np.ndarray
    car_colors: np.ndarray
    car_rows: np.ndarray
    quad_x: np.ndarray
    quad_y: np.ndarray
    quad_colors: np.ndarray
    quad_rows: np.ndarray
    text: np.ndarray
    glyphs: np.ndarray
    left: np.ndarray
    right: np.ndarray
    positions: np.ndarray
    box_w: int
    scratch: np.ndarray


@njit
def _scene(
    height, width, world, starts, colors, cull_from, view, cull_low, cull_high_x, cull_high_y,
    skid_points, skid_starts, skid_colors, car_screen, car_starts, car_colors, dashboard, text, glyphs, left, right, advance, kern,
):  # pragma: no cover (compiled)  # fmt: skip
    """The :class:`Scene` of gymnasium's ``_render`` up to its smoothscale on a ``width`` x ``height`` window:
    world polygon ``k`` (the field, then the grass and road, ``world[starts[k]:starts[k + 1]]``) seen through
    ``view`` and culled from ``cull_from`` on, the skid marks (screen coordinates), the car's polygons (screen
    coordinates), the indicators of ``dashboard`` and the score's glyphs ``text``."""
    count = starts.shape[0] - 1
    polygon_x = np.empty(starts[count], dtype=np.int64)
    polygon_y = np.empty(starts[count], dtype=np.int64)
    polygon_starts = np.zeros(count + 1, dtype=np.int64)
    polygon_colors = np.empty(count, dtype=np.int64)
    polygon_rows = np.empty((count, 2), dtype=np.int64)
    field = False
    kept = 0
    most = 4
    for k in range(count):
        first = polygon_starts[kept]
        n = starts[k + 1] - starts[k]
        most = max(most, n)
        if _world_to_screen(
            world, starts[k], starts[k + 1], view, k >= cull_from, cull_low, cull_high_x, cull_high_y,
            polygon_x, polygon_y, first,
        ):  # fmt: skip
            field |= k == 0
            polygon_starts[kept + 1] = first + n
            polygon_colors[kept] = colors[k]
            polygon_rows[kept, 0], polygon_rows[kept, 1] = _reach(polygon_y, first, first + n, height, True)
            kept += 1
    skid_ints = np.empty((skid_points.shape[0], 2), dtype=np.int64)
    for j in range(skid_points.shape[0]):
        skid_ints[j, 0] = _float_to_int32(skid_points[j, 0])
        skid_ints[j, 1] = _float_to_int32(skid_points[j, 1])
    cars = car_starts.shape[0] - 1
    car_x = np.empty(car_screen.shape[0], dtype=np.int64)
    car_y = np.empty(car_screen.shape[0], dtype=np.int64)
    car_rows = np.empty((cars, 2), dtype=np.int64)
    for j in range(car_screen.shape[0]):
        car_x[j] = _float_to_int32(car_screen[j, 0])
        car_y[j] = _float_to_int32(car_screen[j, 1])
    for k in range(cars):
        most = max(most, car_starts[k + 1] - car_starts[k])
        car_rows[k, 0], car_rows[k, 1] = _reach(car_y, car_starts[k], car_starts[k + 1], height, True)
    quad_x = np.empty((8, 4), dtype=np.int64)
    quad_y = np.empty((8, 4), dtype=np.int64)
    quad_colors = np.empty(8, dtype=np.int64)
    quads = _indicator_quads(width, height, dashboard, quad_x, quad_y, quad_colors)
    quad_rows = np.empty((quads, 2), dtype=np.int64)
    for k in range(quads):
        quad_rows[k, 0], quad_rows[k, 1] = _reach(quad_y[k], 0, 4, height, False)
    positions = np.empty(text.shape[0], dtype=np.int64)
    box_w = _score_layout(text, right, advance, kern, positions)
    return Scene(
        field, polygon_x, polygon_y, polygon_starts[: kept + 1], polygon_colors[:kept], polygon_rows[:kept],
        skid_ints, skid_starts, skid_colors, car_x, car_y, car_starts, car_colors, car_rows,
        quad_x, quad_y, quad_colors[:quads], quad_rows, text, glyphs, left, right, positions, box_w, _polygon_scratch(most),
    )  # fmt: skip


@borrowing_njit
def _draw_scene(surface, top, height, scene):  # pragma: no cover (compiled)
    """Draws the window rows that ``surface`` holds (the array rows ``top .. top + surface.shape[0] - 1`` of a
    window of ``height`` rows: see :func:`_row`) of ``scene`` in gymnasium's order: the cleared window, the field,
    grass and road (``gfxdraw.aapolygon`` then ``filled_polygon`` each, on the surface that is flipped after), the
    skid marks and the car (``draw.lines`` and ``draw.polygon``, the same), then after the flip the indicators
    and the score. Only what reaches the rows held is walked.

    Each polygon's fill is drawn before its outline, which gives gymnasium's pixels: a pixel the fill covers holds
    the polygon's colour either way (the outline stores that colour or blends it over itself, which gives it back:
    :func:`_blend`), and one it does not is the outline's alone. So the outline's pixels on the fill are found
    holding the colour and skipped (:func:`_put_alpha`).

    Compiled without reference counting, as what it calls (numba compiles the helpers a borrowing function calls
    so), and allocates nothing: the polygons' views and the fills' scratch rows counted references per polygon and
    row, a quarter of a CarRacing step.

    The field is filled first: when its fill stores every pixel held, what the clear and its outline stored
    before is all overwritten, so only when it left some pixel unstored is the surface cleared and the field
    drawn (filled, then outlined, as every polygon below).
    """
    bottom = top + surface.shape[0] - 1
    xs, ys, starts, colors, reach = (
        scene.polygon_x, scene.polygon_y, scene.polygon_starts, scene.polygon_colors, scene.polygon_rows
    )  # fmt: skip
    scratch = scene.scratch
    if scene.field:
        if not _gfx_filled_polygon(surface, top, height, xs, ys, starts[1], colors[0], scratch, True):
            surface[:, :] = 0
            _gfx_filled_polygon(surface, top, height, xs, ys, starts[1], colors[0], scratch, True)
            _gfx_aapolygon(surface, top, height, xs, ys, starts[1], colors[0], True)
    else:
        surface[:, :] = 0
    for k in range(1 if scene.field else 0, colors.shape[0]):
        if reach[k, 0] <= bottom and reach[k, 1] >= top:
            first, n = starts[k], starts[k + 1] - starts[k]
            _gfx_filled_polygon(surface, top, height, xs[first:], ys[first:], n, colors[k], scratch, True)
            _gfx_aapolygon(surface, top, height, xs[first:], ys[first:], n, colors[k], True)
    points = scene.skid_points
    for k in range(scene.skid_starts.shape[0] - 1):
        for j in range(scene.skid_starts[k] + 1, scene.skid_starts[k + 1]):
            _draw_line_width(
                surface, top, height, points[j - 1, 0], points[j - 1, 1], points[j, 0], points[j, 1], 2,
                scene.skid_colors[k], True,
            )  # fmt: skip
    for k in range(scene.car_colors.shape[0]):
        if scene.car_rows[k, 0] <= bottom and scene.car_rows[k, 1] >= top:
            first, n = scene.car_starts[k], scene.car_starts[k + 1] - scene.car_starts[k]
            _draw_polygon(
                surface, top, height, scene.car_x[first:], scene.car_y[first:], n, scene.car_colors[k], scratch, True
            )
    for k in range(scene.quad_colors.shape[0]):
        if scene.quad_rows[k, 0] <= bottom and scene.quad_rows[k, 1] >= top:
            _draw_polygon(
                surface, top, height, scene.quad_x[k], scene.quad_y[k], 4, scene.quad_colors[k], scratch, False
            )
    _blit_score(
        surface, top, height, scene.text, scene.glyphs, scene.left, scene.right, scene.positions, scene.box_w, 60,
        int(height - height * 2.5 / 40.0),
    )  # fmt: skip


@njit
def _render_bands(scene, band, rows, frame, accumulate, backend):  # pragma: no cover (compiled)
    """``scene`` drawn and smoothscaled into ``frame`` band by band, each band's pixels shrunk along its rows while
    they are in the cache: the window (``rows.shape[0]`` rows) is never held whole.

    ``band`` holds a band of ``band.shape[0] - 1`` rows after the previous band's last row (which the row shrink
    compares the band's first row with); ``rows`` (``(window height, frame width, 3)`` uint8) takes the rows'
    shrink, ``accumulate`` is the column shrink's scratch (:func:`_shrink_columns`).
    """
    height = rows.shape[0]
    row_plan = np.empty((frame.shape[1], 3), dtype=np.int64)
    column_plan = np.empty((frame.shape[0], 3), dtype=np.int64)
    _shrink_plan(band.shape[1], frame.shape[1], backend, row_plan)
    _shrink_plan(height, frame.shape[0], backend, column_plan)
    scratch = _shrink_scratch(row_plan, band.shape[1])
    step = band.shape[0] - 1
    for top in range(0, height, step):
        count = min(step, height - top)
        _draw_scene(band[1 : 1 + count], top, height, scene)
        if top == 0:
            _shrink_rows(band[1 : 1 + count], rows[:count], row_plan, backend, 0, scratch)
        else:
            _shrink_rows(band[: 1 + count], rows[top - 1 : top + count], row_plan, backend, 1, scratch)
        band[0] = band[count]
    _shrink_columns(rows, frame, column_plan, accumulate, backend)


@njit
def _render_frame(
    surface, band, frame, rows, accumulate, backend, world, starts, colors, view, skid_points, skid_starts,
    skid_colors, car_screen, car_starts, car_colors, dashboard, text, glyphs, left, right, advance, kern,
):  # pragma: no cover (compiled)  # fmt: skip
    """:func:`draw_frame`'s drawing: the window into ``surface`` and its smoothscale into ``frame``, or, for an
    empty ``surface``, the frame drawn in bands (:func:`_render_bands`) of ``band.shape[0] - 1`` rows."""
    height = rows.shape[0]
    scene = _scene(
        height, WINDOW_W, world, starts, colors, 1, view, -MAX_SHAPE_DIM, WINDOW_W + MAX_SHAPE_DIM,
        height + MAX_SHAPE_DIM, skid_points, skid_starts, skid_colors, car_screen, car_starts, car_colors, dashboard,
        text, glyphs, left, right, advance, kern,
    )  # fmt: skip
    if surface.shape[0] == 0:
        _render_bands(scene, band, rows, frame, accumulate, backend)
    else:
        _draw_scene(surface, 0, height, scene)
        _smoothscale_shrink(surface, frame, rows, accumulate, backend)


def draw_frame(
    world: np.ndarray,
    starts: np.ndarray,
    colors: np.ndarray,
    view: tuple[float, float, int, float, float, float],
    skid_points: np.ndarray,
    skid_starts: np.ndarray,
    skid_colors: np.ndarray,
    car_screen: np.ndarray,
    car_starts: np.ndarray,
    car_colors: np.ndarray,
    dashboard: np.ndarray,
    reward: float,
    size: tuple[int, int] = (96, 96),
    backend: int = SMOOTHSCALE_SSE2,
    surface: np.ndarray | None = None,
    band_rows: int = BAND_ROWS,
) -> np.ndarray:
    """A CarRacing frame as gymnasium's ``_render("state_pixels")`` (``size`` 96x96, no skid marks) or
    ``_render("rgb_array")`` (600x400, the car's skid marks) draws it.

    Args:
        world: ``(m, 2)`` float64 world vertices: the field, then the grass patches, then the road polygons, polygon
            ``k`` being the rows ``starts[k]:starts[k + 1]``.
        starts: ``(k + 1,)`` int64 polygon bounds in ``world``.
        colors: ``(k, 3)`` int64 colours (gymnasium's ``int()`` of each road colour component).
        view: ``(cos, sin, quadrant, zoom, tx, ty)``: the rotation as
            :func:`~nbgym.envs.box2d.car_dynamics.rotation` gives it, the zoom and the translation.
        skid_points: ``(r, 2)`` float64 screen coordinates of the skid marks (``Car.particles``, polylines drawn
            with ``pygame.draw.lines(width=2)``), mark ``k`` being the rows ``skid_starts[k]:skid_starts[k + 1]``;
            none for a state frame.
        skid_starts: ``(s + 1,)`` int64 bounds of the marks in ``skid_points``.
        skid_colors: ``(s, 3)`` int64 their colours.
        car_screen: ``(p, 2)`` float64 screen vertices of the car's polygons (wheels, their white marks, the hull,
            in gymnasium's order), polygon ``k`` being the rows ``car_starts[k]:car_starts[k + 1]``.
        car_starts: ``(q + 1,)`` int64 polygon bounds in ``car_screen``.
        car_colors: ``(q, 3)`` int64 colours of the car's polygons.
        dashboard: The seven indicator values: the hull's speed, the wheels' ``omega``, the front left wheel's
            joint angle, the hull's angular velocity.
        reward: The reward shown.
        size: ``(width, height)`` of the frame, below the window's 1000x800.
        backend: :data:`SMOOTHSCALE_SSE2` or :data:`SMOOTHSCALE_GENERIC`.
        surface: ``(800, 1000)`` uint32 to draw the whole window into (as the ``"human"`` window shows it) before
            shrinking it, or None to draw and shrink the frame in bands of ``band_rows`` rows instead (as the
            environments draw their observations: the same pixels).
        band_rows: The rows of a band, 1 to 800, when ``surface`` is None.

    Returns:
        The ``(height, width, 3)`` uint8 frame.

    Raises:
        ValueError: If the polygons' or skid marks' bounds, colours or coordinates are out of range, ``view`` or
            ``dashboard`` has the wrong length, ``surface`` the wrong layout, or the score text cannot be drawn.
    """
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    car_starts = np.ascontiguousarray(car_starts, dtype=np.int64)
    world = np.ascontiguousarray(world, dtype=np.float64).reshape(-1, 2)
    car_screen = np.ascontiguousarray(car_screen, dtype=np.float64).reshape(-1, 2)
    view = np.asarray(view, dtype=np.float64)
    dashboard = np.asarray(dashboard, dtype=np.float64)
    if view.shape != (6,) or dashboard.shape != (7,):
        raise ValueError("view must hold 6 numbers and dashboard 7")
    # pygame refuses a NaN or a coordinate beyond 2**63 (gfxdraw's int()): CarRacing's are below 1e4.
    if not (np.all(np.abs(world) <= 1e9) and np.all(np.abs(view) <= 1e9)):
        raise ValueError("world vertices and view numbers must be finite and at most 1e9 in magnitude")
    colors = np.asarray(colors, dtype=np.int64).reshape(-1, 3)
    car_colors = np.asarray(car_colors, dtype=np.int64).reshape(-1, 3)
    skid_points = np.ascontiguousarray(skid_points, dtype=np.float64).reshape(-1, 2)
    skid_starts = np.ascontiguousarray(skid_starts, dtype=np.int64)
    skid_colors = np.asarray(skid_colors, dtype=np.int64).reshape(-1, 3)
    if (
        len(skid_starts) == 0
        or skid_starts[0] != 0
        or skid_starts[-1] != len(skid_points)
        or np.any(np.diff(skid_starts) < 2)
        or len(skid_colors) != len(skid_starts) - 1
    ):
        raise ValueError("skid mark bounds must run from 0 to the point count, 2 or more points each, one colour each")
    if skid_colors.size and (skid_colors.min() < 0 or skid_colors.max() > 255):
        raise ValueError("colours must be in [0, 255]")
    if not np.all(np.abs(skid_points) < 2.0**24):
        raise ValueError("skid marks must be within 2**24 pixels of the origin (pygame walks a line pixel by pixel)")
    for bounds, points, palette in ((starts, world, colors), (car_starts, car_screen, car_colors)):
        if (
            len(bounds) == 0
            or bounds[0] != 0
            or bounds[-1] != len(points)
            or np.any(np.diff(bounds) < 3)
            or len(palette) != len(bounds) - 1
        ):
            raise ValueError(
                "polygon bounds must run from 0 to the vertex count, 3 or more vertices each, one colour each"
            )
        if palette.size and (palette.min() < 0 or palette.max() > 255):
            raise ValueError("colours must be in [0, 255]")
    if surface is None:
        if not 1 <= band_rows <= WINDOW_H:
            raise ValueError(f"band_rows must be 1 to {WINDOW_H}, not {band_rows}")
        surface = np.empty((0, WINDOW_W), dtype=np.uint32)
        band = np.empty((band_rows + 1, WINDOW_W), dtype=np.uint32)
    elif surface.shape == (WINDOW_H, WINDOW_W) and surface.dtype == np.uint32 and surface.flags.c_contiguous:
        band = np.empty((0, WINDOW_W), dtype=np.uint32)
    else:
        raise ValueError(f"surface must be a C-contiguous ({WINDOW_H}, {WINDOW_W}) uint32 array")
    width, height = size
    if not (0 < width < WINDOW_W and 0 < height < WINDOW_H) or backend not in (SMOOTHSCALE_SSE2, SMOOTHSCALE_GENERIC):
        raise ValueError(f"the frame must be smaller than the window, not {size}, and the backend known")
    font = load_score_font()
    frame = np.empty((height, width, 3), dtype=np.uint8)
    rows = np.empty((WINDOW_H, width, 3), dtype=np.uint8)
    accumulate = np.empty((width, 3), dtype=np.uint16)
    _render_frame(
        surface, band, frame, rows, accumulate, backend, world, starts, pack_rgb(colors).astype(np.int64), view,
        skid_points, skid_starts, pack_rgb(skid_colors).astype(np.int64), car_screen, car_starts,
        pack_rgb(car_colors).astype(np.int64), dashboard,
        score_glyphs(reward, font), font.glyphs, font.left, font.right, font.advance, font.kern,
    )  # fmt: skip
    return frame
