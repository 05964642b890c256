"""Warnings and error messages shown to users, in gymnasium's format."""

from __future__ import annotations

import logging
import warnings

from nbgym.utils.colorize import colorize

WARN = 30
ERROR = 40

min_level = 30


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


_log = logging.getLogger("nbgym")


def info(msg: str, *args: object) -> None:
    """Tell the user something that is no problem (kernels being compiled, say), through Python's ``logging``.

    The message goes to the ``"nbgym"`` logger at ``INFO`` level. In a program that has configured no
    logging, it is printed to stderr as ``nbgym: <message>``; ``logging.getLogger("nbgym").setLevel(logging.WARNING)``
    silences it. (gymnasium's logger has no such level; its warnings stay ``warnings``, as here.)

    Args:
        msg: The message, formatted with ``msg % args``.
        *args: Values for the message's format fields.
    """
    if not _log.hasHandlers():
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("nbgym: %(message)s"))
        _log.addHandler(handler)
        if _log.level == logging.NOTSET:
            _log.setLevel(logging.INFO)
    _log.info(msg, *args)
