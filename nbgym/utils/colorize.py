"""ANSI colour codes for terminal text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

color2num: Final[Mapping[str, int]] = {
    "gray": 30,
    "red": 31,
    "green": 32,
    "yellow": 33,
    "blue": 34,
    "magenta": 35,
    "cyan": 36,
    "white": 37,
    "crimson": 38,
}


def colorize(string: str, color: str, bold: bool = False, highlight: bool = False) -> str:
    """Returns ``string`` wrapped in the ANSI escape codes of a colour.

    Args:
        string: The text to colour.
        color: One of ``gray``, ``red``, ``green``, ``yellow``, ``blue``, ``magenta``, ``cyan``,
            ``white``, ``crimson``.
        bold: Whether to make the text bold too.
        highlight: Whether to colour the background instead of the text.

    Returns:
        The coloured text.

    Raises:
        KeyError: ``color`` is not one of the names above.
    """
    code = color2num[color] + (10 if highlight else 0)
    attributes = f"{code};1" if bold else str(code)
    return f"\x1b[{attributes}m{string}\x1b[0m"
