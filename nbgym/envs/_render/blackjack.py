"""Blackjack's frame: the dealer's face-up card and hidden card, the player's sum and usable ace, on a card
table, in nbgym's own pixel art.

The frame has gymnasium 1.4.0's size (384x376) and shows what gymnasium's shows: the dealer's showing
value and card (rank and suit, a face letter for a ten, both drawn at reset), the face-down card,
the player's current sum and, when the player holds one, "USABLE ACE".
"""

from __future__ import annotations

from typing import Any

from nbgym.engine import RenderState
from nbgym.envs._render._pixel_art import ART_PIXEL, INK, cached, sprite, text
from nbgym.envs.toy_text.blackjack import _DEALER_CARD, _FACE, _FACES, _SUIT, _SUITS, observation_of

CAPTION = None
SCREEN_SIZE = (384, 376)
FELT_COLOR = (44, 118, 76)
LABEL_COLOR = (238, 234, 214)
DEALER_LABEL_POS = (40, 32)
DEALER_CARD_POS = (96, 72)
HIDDEN_CARD_POS = (208, 72)
PLAYER_LABEL_POS = (40, 208)
PLAYER_SUM_TOP = 248
USABLE_ACE_TOP = 328
BIG_PIXEL = 3 * ART_PIXEL

CARD_ROWS = (
    ".gggggggggggggggggg.",
    *("gwwwwwwwwwwwwwwwwwwg",) * 26,
    ".gggggggggggggggggg.",
)
"""A blank card (80x112 on screen): white, a grey edge, cut corners."""

BACK_ROWS = (
    ".gggggggggggggggggg.",
    "gbbbbbbbbbbbbbbbbbbg",
    "gbbbbbbbbbbbbbbbbbbg",
    *("gbbddddddddddddddbbg", *("gbbdbbbbbbbbbbbbdbbg",) * 18, "gbbddddddddddddddbbg"),
    "gbbbbbbbbbbbbbbbbbbg",
    "gbbbbbbbbbbbbbbbbbbg",
    ".gggggggggggggggggg.",
)
_CARD = {"g": (150, 152, 160), "w": (252, 252, 248), "b": (60, 86, 160), "d": (132, 160, 220)}

SUIT_ROWS = {
    "C": ("..#..", ".###.", "#.#.#", "#####", "..#.."),
    "D": ("..#..", ".###.", "#####", ".###.", "..#.."),
    "H": (".#.#.", "#####", "#####", ".###.", "..#.."),
    "S": ("..#..", ".###.", "#####", "#.#.#", "..#.."),
}
_SUIT_COLORS = {"C": INK, "S": INK, "D": (206, 54, 54), "H": (206, 54, 54)}


def frame_size(env: Any) -> tuple[int, int]:
    """The frame's ``(width, height)``."""
    return SCREEN_SIZE


def dealer_card(row: Any) -> tuple[str, str]:
    """The rank (``"A"``, ``"2"``...``"9"``, or a ten's face ``"J"``/``"Q"``/``"K"``) and suit of the dealer's face-up card."""
    value = int(row[_DEALER_CARD])
    rank = "A" if value == 1 else _FACES[int(row[_FACE])] if value == 10 else str(value)
    return rank, _SUITS[int(row[_SUIT])]


def _card(rank: str, suit: str) -> Any:
    card = sprite(CARD_ROWS, _CARD)
    color = _SUIT_COLORS[suit]
    card.blit(text(rank, color), (8, 8))
    card.blit(sprite(SUIT_ROWS[suit], {"#": color}), (8, 32))
    big_suit = sprite(SUIT_ROWS[suit], {"#": color}, 2 * ART_PIXEL)
    card.blit(big_suit, ((80 - big_suit.get_width()) // 2, 56))
    return card


def _centred_x(width: int) -> int:
    """The left edge that centres ``width`` pixels on the table, on the art pixels' grid."""
    return (SCREEN_SIZE[0] - width) // 2 // ART_PIXEL * ART_PIXEL


def draw(surface: Any, env: Any, index: int, state: RenderState) -> None:
    """Draws sub-environment ``index``'s table onto ``surface``."""
    player_sum, dealer_value, usable_ace = observation_of(env._batch.state[index])
    rank, suit = dealer_card(env._batch.state[index])
    draw_table(surface, state.sprites, player_sum, dealer_value, usable_ace, rank, suit)


def draw_table(
    surface: Any, sprites: dict[str, Any], player_sum: int, dealer_value: int, usable_ace: Any, rank: str, suit: str
) -> None:
    """Draws a table onto ``surface``: the dealer's face-up card (``rank``, ``suit``) and value, the player's sum
    and whether it holds a usable ace (``sprites`` caches the drawn pieces)."""
    surface.fill(FELT_COLOR)
    surface.blit(
        cached(sprites, f"dealer{dealer_value}", lambda: text(f"DEALER: {dealer_value}", LABEL_COLOR)), DEALER_LABEL_POS
    )
    surface.blit(cached(sprites, f"card{rank}{suit}", lambda: _card(rank, suit)), DEALER_CARD_POS)
    surface.blit(cached(sprites, "back", lambda: sprite(BACK_ROWS, _CARD)), HIDDEN_CARD_POS)
    surface.blit(cached(sprites, "player", lambda: text("PLAYER", LABEL_COLOR)), PLAYER_LABEL_POS)
    total = cached(sprites, f"sum{player_sum}", lambda: text(str(player_sum), LABEL_COLOR, BIG_PIXEL))
    surface.blit(total, (_centred_x(total.get_width()), PLAYER_SUM_TOP))
    if usable_ace:
        label = cached(sprites, "usable", lambda: text("USABLE ACE", LABEL_COLOR))
        surface.blit(label, (_centred_x(label.get_width()), USABLE_ACE_TOP))
