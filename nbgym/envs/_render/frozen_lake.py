"""FrozenLake's frame: the lake's tiles, the start, the goal's flag and the walker, in nbgym's own pixel art.

The frame has gymnasium 1.4.0's size, ``(min(64 * ncol, 512), min(64 * nrow, 512))``, cut into equal
cells; tiles fill a cell, and the walker, the flag and the letters keep their 64-pixel-cell
proportions. As in gymnasium, a walker in a hole is hidden by it, and frozen tiles show cracks at
places fixed by their position.
"""

from __future__ import annotations

from typing import Any

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._pixel_art import (
    AGENT_PALETTE,
    AGENT_ROWS,
    FLAG_PALETTE,
    FLAG_ROWS,
    INK,
    cached,
    scaled,
    sprite,
    text,
)
from nbgym.envs.toy_text._common import STATE

CAPTION = "Frozen Lake"
ART_CELL = 64
GRID_COLOR = (176, 198, 226)

_ICE = {"i": (210, 232, 247), "h": (236, 247, 253)}
ICE_ROWS = (
    "iiiiiiiiiiiiiiii",
    "ihhiiiiiiiiiiiii",
    "ihiiiiiiiiiiiiii",
    *("iiiiiiiiiiiiiiii",) * 10,
    "iiiiiiiiiiiiihii",
    "iiiiiiiiiiiihhii",
    "iiiiiiiiiiiiiiii",
)
HOLE_ROWS = (
    "iiiiiiiiiiiiiiii",
    "iiiiiiiiiiiiiiii",
    "iiiiieeeeeeiiiii",
    "iiieeddddddeeiii",
    "iieddddddddddeii",
    "iedddmmmddddddei",
    "ieddddddddddddei",
    "ieddddddddmmmdei",
    "ieddddddddddddei",
    "iedddmmmmdddddei",
    "ieddddddddddddei",
    "iieddddddddddeii",
    "iiieeddddddeeiii",
    "iiiiieeeeeeiiiii",
    "iiiiiiiiiiiiiiii",
    "iiiiiiiiiiiiiiii",
)
_HOLE = {**_ICE, "e": (34, 74, 124), "d": (48, 102, 166), "m": (96, 150, 210)}
CRACK_ROWS = (
    (
        *("................",) * 3,
        "..........c.....",
        ".........c......",
        "........cc......",
        "......cc........",
        ".....c..........",
        *("................",) * 8,
    ),
    (
        *("................",) * 9,
        "...c............",
        "....cc..........",
        "......c...c.....",
        ".......cc.c.....",
        "..........c.....",
        *("................",) * 2,
    ),
)
_CRACK = {"c": (172, 202, 230)}
LETTER_COLOR = INK


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``: 64 pixels a cell, at most 512 a side."""
    return min(ART_CELL * env.ncol, 512), min(ART_CELL * env.nrow, 512)


def _sprites(sprites: dict[str, Any], cell: tuple[int, int]) -> dict[str, Any]:
    """The tiles (one cell each) and overlays (scaled as the cell is to 64 pixels) of a lake's cells."""

    def make() -> dict[str, Any]:
        pygame = import_pygame()
        factor = min(cell) / ART_CELL
        return {
            "ice": pygame.transform.scale(sprite(ICE_ROWS, _ICE), cell),
            "hole": pygame.transform.scale(sprite(HOLE_ROWS, _HOLE), cell),
            "cracks": [pygame.transform.scale(sprite(rows, _CRACK), cell) for rows in CRACK_ROWS],
            "agent": scaled(sprite(AGENT_ROWS, AGENT_PALETTE), factor),
            "flag": scaled(sprite(FLAG_ROWS, FLAG_PALETTE), factor),
            "S": scaled(text("S", LETTER_COLOR), factor),
            "G": scaled(text("G", LETTER_COLOR), factor),
        }

    return cached(sprites, f"lake{cell}", make)


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s lake and walker onto ``surface``."""
    pygame = import_pygame()
    width, height = frame_size(env)
    cell = (width // env.ncol, height // env.nrow)
    art = _sprites(state.sprites, cell)
    margin = round(cell[0] * 0.06)

    def place(image: Any, col: int, row: int, where: str) -> None:
        x, y = col * cell[0], row * cell[1]
        w, h = image.get_size()
        if where == "corner":
            surface.blit(image, (x + margin, y + margin))
        elif where == "planted":  # bottom-centred, a little above the cell's edge
            surface.blit(image, (x + (cell[0] - w) / 2, y + cell[1] - h - round(cell[1] * 0.12)))
        else:
            surface.blit(image, (x + (cell[0] - w) / 2, y + (cell[1] - h) / 2))

    desc = env.desc
    for row in range(env.nrow):
        for col in range(env.ncol):
            corner = (col * cell[0], row * cell[1])
            tile = desc[row, col]
            if tile == b"H":
                surface.blit(art["hole"], corner)
            else:
                surface.blit(art["ice"], corner)
                crack = (col * 3 + row * 5) % 7
                if tile == b"F" and crack < len(art["cracks"]):
                    surface.blit(art["cracks"][crack], corner)
                elif tile == b"S":
                    place(art["S"], col, row, "corner")
                elif tile == b"G":
                    place(art["flag"], col, row, "planted")
                    place(art["G"], col, row, "corner")
            pygame.draw.rect(surface, GRID_COLOR, (*corner, *cell), 1)

    s = int(env._batch.state[index, STATE])
    row, col = divmod(s, env.ncol)
    if desc[row, col] != b"H":
        place(art["agent"], col, row, "centre")
