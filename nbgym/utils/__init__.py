"""Utilities for environment authors: seeding, environment checkers, pickling and constructor-argument records.

``nbgym.utils.seeding``, ``nbgym.utils.env_checker``, ``nbgym.utils.passive_env_checker`` and the other
submodules are imported on first access; the names below are light and loaded with the package.
"""

from typing import Any

from nbgym._lazy import import_submodule
from nbgym.utils.colorize import colorize
from nbgym.utils.ezpickle import EzPickle
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["colorize", "EzPickle", "RecordConstructorArgs"]


def __getattr__(name: str) -> Any:
    """Imports a submodule (``nbgym.utils.passive_env_checker``, ...) on first access."""
    return import_submodule(__name__, name)
