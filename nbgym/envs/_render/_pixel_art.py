"""nbgym's own pixel art for the toy-text frames: sprites written as rows of characters, and a 3x5 font.

A sprite is a list of equally long strings, one character per art pixel, each character a colour
of a palette ("." is transparent); it is drawn with one rectangle per art pixel, ``pixel`` screen
pixels wide. Everything here is made at run time from these definitions, so no image files ship.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nbgym.engine import import_pygame

Color = tuple[int, int, int]

ART_PIXEL = 4
"""Screen pixels per art pixel of the toy-text sprites."""

INK: Color = (44, 46, 58)
"""The outline and text colour."""

GLYPHS: dict[str, tuple[str, ...]] = {
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("##.", "..#", ".#.", "#..", "###"),
    "3": ("##.", "..#", ".#.", "..#", "##."),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "##.", "..#", "##."),
    "6": (".##", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "##."),
    ":": ("...", ".#.", "...", ".#.", "..."),
    " ": ("...", "...", "...", "...", "..."),
}
"""The 3x5 font: capital letters (those the frames write), digits, a colon and a space."""


def sprite(rows: Sequence[str], palette: Mapping[str, Color], pixel: int = ART_PIXEL) -> Any:
    """The surface of a pixel-art sprite.

    Args:
        rows: The sprite, one string per row of art pixels, all of one length.
        palette: The colour of each character; ``"."`` is transparent.
        pixel: The side of an art pixel on screen.

    Returns:
        A surface with per-pixel alpha, ``len(rows[0]) * pixel`` wide and ``len(rows) * pixel`` high.
    """
    pygame = import_pygame()
    surface = pygame.Surface((len(rows[0]) * pixel, len(rows) * pixel), pygame.SRCALPHA)
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char != ".":
                surface.fill(palette[char], (x * pixel, y * pixel, pixel, pixel))
    return surface


def text(message: str, color: Color, pixel: int = ART_PIXEL, gap: int = 1) -> Any:
    """``message`` written in the 3x5 font, ``gap`` art pixels between letters.

    Raises:
        KeyError: For a character the font does not have.
    """
    rows = ["", "", "", "", ""]
    for k, char in enumerate(message):
        glyph = GLYPHS[char]
        for y in range(5):
            rows[y] += ("." * gap if k else "") + glyph[y]
    return sprite(rows, {"#": color}, pixel)


def scaled(surface: Any, factor: float) -> Any:
    """``surface`` scaled by ``factor`` (each side rounded, at least 1 pixel)."""
    width, height = surface.get_size()
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    return import_pygame().transform.scale(surface, size)


def cached(sprites: dict[str, Any], name: str, make: Any) -> Any:
    """``sprites[name]``, made by ``make()`` on first use (a frame's sprites are drawn once per environment)."""
    surface = sprites.get(name)
    if surface is None:
        surface = sprites[name] = make()
    return surface


AGENT_ROWS = (
    "...oooo...",
    "..owwwwo..",
    ".owkwwkwo.",
    ".owwwwwwo.",
    "..oooooo..",
    ".obbbbbbo.",
    "o.obbbbo.o",
    "..oboobo..",
    ".oo....oo.",
)
"""The walker of FrozenLake and CliffWalking (40x36 on screen): a round face over a blue coat."""

AGENT_PALETTE: dict[str, Color] = {"o": INK, "w": (244, 240, 230), "k": INK, "b": (72, 122, 196)}

FLAG_ROWS = (
    "orrr..",
    "orrrrr",
    "orrrr.",
    "o.....",
    "o.....",
    "o.....",
    "o.....",
    "oo....",
)
"""The goal's flag (24x32 on screen)."""

FLAG_PALETTE: dict[str, Color] = {"o": INK, "r": (218, 72, 60)}
