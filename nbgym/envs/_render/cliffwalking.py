"""CliffWalking's frame: the grass, the cliff, the start, the goal's flag and the walker, in nbgym's own pixel art.

The frame has gymnasium 1.4.0's size: 64-pixel cells, 12 wide and 4 high (768x256).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.engine import RenderState
from nbgym.envs._render._pixel_art import (
    AGENT_PALETTE,
    AGENT_ROWS,
    FLAG_PALETTE,
    FLAG_ROWS,
    INK,
    cached,
    sprite,
    text,
)
from nbgym.envs.toy_text._common import STATE

CAPTION = "CliffWalking"
CELL = 64
LETTER_OFFSET = (8, 8)
FLAG_OFFSET = (30, 18)
AGENT_OFFSET = (12, 20)

GRASS_ROWS = (
    *("gggggggggggggggl",) * 3,
    "ggggggggggtggggl",
    "gggggggggtgtgggl",
    *("gggggggggggggggl",) * 5,
    "ggtggggggggggggl",
    "gtgtgggggggggggl",
    *("gggggggggggggggl",) * 3,
    "llllllllllllllll",
)
_GRASS = {"g": (196, 218, 152), "t": (170, 200, 124), "l": (160, 188, 118)}

_CLIFF_BODY = (
    "eeeeeeeeeeeeeeee",
    "uuuuuuuuuuuuuuuu",
    "uuusuuuuuuuuuuuu",
    "uuuuuuuuuuusuuuu",
    "uuuuuuuuuuuuuuuu",
    "uuuuuusuuuuuuuuu",
    "uuuuuuuuuuuuuusu",
    "uusuuuuuuuuuuuuu",
    "uuuuuuuuusuuuuuu",
    "uuuuuuuuuuuuuuuu",
    "vvvvvvvvvvvvvvvv",
    "vvvvvvvvvvvvvvvv",
    "xxxxxxxxxxxxxxxx",
    "xxxxxxxxxxxxxxxx",
    "xxxxxxxxxxxxxxxx",
    "xxxxxxxxxxxxxxxx",
)
_CLIFF = {
    "e": (96, 66, 40),
    "u": (166, 116, 66),
    "s": (132, 92, 52),
    "v": (122, 84, 48),
    "x": (46, 46, 58),
    "p": (206, 160, 112),
}


def _cliff_rows(kind: str) -> tuple[str, ...]:
    """The cliff's tile: its left or right end has a lighter post, middle tiles alternate their stones."""
    if kind == "left":
        return tuple("p" + row[1:] for row in _CLIFF_BODY)
    if kind == "right":
        return tuple(row[:-1] + "p" for row in _CLIFF_BODY)
    if kind == "mid_b":
        return tuple(row[8:] + row[:8] for row in _CLIFF_BODY)
    return _CLIFF_BODY


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``: 64 pixels a cell."""
    rows, cols = env.shape
    return cols * CELL, rows * CELL


def _sprites(sprites: dict[str, Any]) -> dict[str, Any]:
    def make() -> dict[str, Any]:
        return {
            "grass": sprite(GRASS_ROWS, _GRASS),
            **{kind: sprite(_cliff_rows(kind), _CLIFF) for kind in ("left", "mid_a", "mid_b", "right")},
            "agent": sprite(AGENT_ROWS, AGENT_PALETTE),
            "flag": sprite(FLAG_ROWS, FLAG_PALETTE),
            "S": text("S", INK),
            "G": text("G", INK),
        }

    return cached(sprites, "cliff", make)


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s grid and walker onto ``surface``."""
    draw_grid(surface, state.sprites, env.shape, env._cliff, env.start_state_index, int(env._batch.state[index, STATE]))


def draw_grid(
    surface: Any, sprites: dict[str, Any], shape: tuple[int, int], cliff: np.ndarray, start: int, s: int
) -> None:
    """Draws a grid of ``shape`` onto ``surface``: ground, the ``cliff`` cells, the start and goal letters, the goal's
    flag and the walker on cell ``s`` (``sprites`` caches the drawn pieces)."""
    art = _sprites(sprites)
    rows, cols = shape
    cliff_cols = np.flatnonzero(cliff.any(axis=0))
    goal = rows * cols - 1
    for cell in range(rows * cols):
        row, col = divmod(cell, cols)
        x, y = col * CELL, row * CELL
        surface.blit(art["grass"], (x, y))
        if cliff[row, col]:
            if col == cliff_cols[0]:
                kind = "left"
            elif col == cliff_cols[-1]:
                kind = "right"
            else:
                kind = "mid_a" if col % 2 == 0 else "mid_b"
            surface.blit(art[kind], (x, y))
        letter = (x + LETTER_OFFSET[0], y + LETTER_OFFSET[1])
        if cell == start:
            surface.blit(art["S"], letter)
        if cell == goal:
            surface.blit(art["G"], letter)
            surface.blit(art["flag"], (x + FLAG_OFFSET[0], y + FLAG_OFFSET[1]))
        if cell == s:
            surface.blit(art["agent"], (x + AGENT_OFFSET[0], y + AGENT_OFFSET[1]))
