"""Warnings and error messages shown to users, in gymnasium's format."""

from __future__ import annotations

import warnings

from nbgym.utils.colorize import colorize

WARN = 30
ERROR = 40

min_level = 30

warnings.filterwarnings("once", "", DeprecationWarning, module=r"^nbgym\.")


def warn(msg: str, *args: object, category: type[Warning] | None = None, stacklevel: int = 1) -> None:
    """Warn the user, if ``min_level <= WARN``.

    Args:
        msg: The message, formatted with ``msg % args``.
        *args: Values for the message's format fields.
        category: The warning category (``UserWarning`` when ``None``).
        stacklevel: The stack level to attribute the warning to, counted from the caller.
    """
    if min_level <= WARN:
        warnings.warn(colorize(f"WARN: {msg % args}", "yellow"), category=category, stacklevel=stacklevel + 1)


def deprecation(msg: str, *args: object) -> None:
    """Warn the user of a deprecation."""
    warn(msg, *args, category=DeprecationWarning, stacklevel=2)


def error(msg: str, *args: object) -> None:
    """Show an error message, if ``min_level <= ERROR``."""
    if min_level <= ERROR:
        warnings.warn(colorize(f"ERROR: {msg % args}", "red"), stacklevel=3)
