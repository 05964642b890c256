"""Taxi's frame: the walled 5x5 city, its four coloured stands, the destination, the passenger and the taxi,
in nbgym's own pixel art.

The frame has gymnasium 1.4.0's size and grid (536x456, 88x56 cells from (48, 128)). The taxi faces
its last move (south, north, east or west); a pick-up or drop-off keeps the heading of the move
before it, as gymnasium keeps it, remembered here from frame to frame (south after a reset). The
destination is framed in magenta and the waiting passenger stands on their stand, as the ANSI
rendering colours them.
"""

from __future__ import annotations

from typing import Any

from nbgym.engine import RenderState, import_pygame
from nbgym.envs._render._pixel_art import INK, cached, sprite, text
from nbgym.envs.toy_text._common import LAST_ACTION, STATE
from nbgym.envs.toy_text.taxi import MAP, decode

CAPTION = "Taxi"
WINDOW_SIZE = (536, 456)
GRID_ORIGIN = (48, 128)
CELL = (88, 56)
SIDE = 5
CANVAS_COLOR = (246, 245, 238)
ROAD_COLOR = (228, 226, 218)
LANE_COLOR = (214, 211, 202)
WALL = 8
DESTINATION_COLOR = (196, 58, 196)
STAND_COLORS = ((212, 84, 74), (112, 176, 84), (230, 192, 66), (84, 128, 206))
STAND_LETTERS = "RGYB"
HOUSE_POS = (403, 36)

_CAR = {"o": INK, "y": (240, 198, 60), "w": (170, 214, 236), "k": (30, 30, 36), "p": (236, 190, 150), "h": (92, 60, 40)}
TAXI_ROWS = (
    "...ooo...",
    "..oyyyo..",
    ".oyyyyyo.",
    "oywwwwwyo",
    "oywwwwwyo",
    "kyyyyyyyk",
    "kyyyyyyyk",
    "oyyyyyyyo",
    "oyyyyyyyo",
    "oywwwwwyo",
    "kywwwwwyk",
    "kyyyyyyyk",
    ".oyyyyyo.",
    "..ooooo..",
)
"""The empty taxi seen from above, facing north (36x56 on screen)."""

FULL_TAXI_ROWS = (*TAXI_ROWS[:9], "oywhhhwyo", "kywpppwyk", *TAXI_ROWS[11:])
"""The taxi with the passenger in the back seat."""

PASSENGER_ROWS = (".hh.", ".pp.", "ommo", "ommo", ".mm.", ".oo.")
_PASSENGER = {"o": INK, "h": (92, 60, 40), "p": (236, 190, 150), "m": (122, 84, 170)}

_HOUSE = {"r": (200, 82, 70), "o": INK, "t": (214, 170, 98), "w": (176, 214, 238), "d": (120, 80, 48)}
_WALL_ROW = ".o" + "t" * 16 + "o."
_WINDOW_EDGE = ".ott" + "oooo" + "tttt" + "oooo" + "tto."
_WINDOW_PANE = ".ott" + "owwo" + "tttt" + "owwo" + "tto."
_WINDOWS = (_WINDOW_EDGE, _WINDOW_PANE, _WINDOW_PANE, _WINDOW_EDGE)
HOUSE_ROWS = (
    "........oooo........",
    "......oorrrroo......",
    "....oorrrrrrrroo....",
    "..oorrrrrrrrrrrroo..",
    "oorrrrrrrrrrrrrrrroo",
    "o" * 20,
    _WALL_ROW,
    *_WINDOWS,
    _WALL_ROW,
    *_WINDOWS,
    _WALL_ROW,
    _WALL_ROW,
    ".o" + "t" * 7 + "oooo" + "t" * 5 + "o.",
    *(".o" + "t" * 7 + "oddo" + "t" * 5 + "o.",) * 4,
    "o" * 20,
)
"""The house behind the northeast corner (80x96 on screen)."""

# Headings of the move actions (south, north, east, west), by the rotation of the north-facing taxi.
_HEADING_ANGLES = (180, 0, -90, 90)


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return WINDOW_SIZE


def _cell_corner(row: int, col: int) -> tuple[int, int]:
    return GRID_ORIGIN[0] + col * CELL[0], GRID_ORIGIN[1] + row * CELL[1]


def _city(sprites: dict[str, Any]) -> Any:
    """The still part of the frame: the canvas, the house, the roads, the walls and the stands."""

    def make() -> Any:
        pygame = import_pygame()
        city = pygame.Surface(WINDOW_SIZE)
        city.fill(CANVAS_COLOR)
        for row in range(SIDE):
            for col in range(SIDE):
                x, y = _cell_corner(row, col)
                city.fill(LANE_COLOR, (x, y, *CELL))
                city.fill(ROAD_COLOR, (x + 2, y + 2, CELL[0] - 4, CELL[1] - 4))
        for (row, col), color, letter in zip(
            ((0, 0), (0, 4), (4, 0), (4, 3)), STAND_COLORS, STAND_LETTERS, strict=True
        ):
            x, y = _cell_corner(row, col)
            city.fill(color, (x + 6, y + 6, CELL[0] - 12, CELL[1] - 12))
            label = text(letter, (255, 255, 255))
            city.blit(label, (x + (CELL[0] - label.get_width()) // 2, y + (CELL[1] - label.get_height()) // 2))
        left, top = GRID_ORIGIN
        width, height = SIDE * CELL[0], SIDE * CELL[1]
        pygame.draw.rect(city, INK, (left - WALL // 2, top - WALL // 2, width + WALL, height + WALL), WALL)
        for row, line in enumerate(MAP[1:-1]):
            for col in range(SIDE - 1):
                if line[2 * col + 2] == "|":
                    x, y = _cell_corner(row, col + 1)
                    city.fill(INK, (x - WALL // 2, y, WALL, CELL[1]))
        city.blit(sprite(HOUSE_ROWS, _HOUSE), HOUSE_POS)
        return city

    return cached(sprites, "city", make)


def _taxis(sprites: dict[str, Any]) -> dict[tuple[bool, int], Any]:
    """The taxi sprites by (passenger on board, heading)."""

    def make() -> dict[tuple[bool, int], Any]:
        rotate = import_pygame().transform.rotate
        return {
            (full, heading): rotate(sprite(FULL_TAXI_ROWS if full else TAXI_ROWS, _CAR), angle)
            for full in (False, True)
            for heading, angle in enumerate(_HEADING_ANGLES)
        }

    return cached(sprites, "taxis", make)


def _heading(env: Any, index: int, state: RenderState) -> int:
    """The taxi's heading: its last move, kept through pick-ups and drop-offs; south (0) after a reset."""
    last = int(env._batch.state[index, LAST_ACTION])
    if last < 0:
        heading = 0
    elif last < 4:
        heading = last
    else:
        heading = state.memory.get(("heading", index), 0)
    state.memory[("heading", index)] = heading
    return heading


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s city, passenger and taxi onto ``surface``."""
    pygame = import_pygame()
    surface.blit(_city(state.sprites), (0, 0))
    taxi_row, taxi_col, passenger, destination = decode(int(env._batch.state[index, STATE]))
    locs = env.locs

    x, y = _cell_corner(*locs[destination])
    pygame.draw.rect(surface, DESTINATION_COLOR, (x + 2, y + 2, CELL[0] - 4, CELL[1] - 4), 4)
    if passenger < 4:
        person = cached(state.sprites, "passenger", lambda: sprite(PASSENGER_ROWS, _PASSENGER))
        x, y = _cell_corner(*locs[passenger])
        surface.blit(person, (x + 10, y + (CELL[1] - person.get_height()) // 2))

    taxi = _taxis(state.sprites)[passenger == 4, _heading(env, index, state)]
    x, y = _cell_corner(taxi_row, taxi_col)
    surface.blit(taxi, (x + (CELL[0] - taxi.get_width()) // 2, y + (CELL[1] - taxi.get_height()) // 2))
