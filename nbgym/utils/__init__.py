"""Utilities for environment authors: seeding, environment checkers, pickling and constructor-argument records.

``nbgym.utils.seeding``, ``nbgym.utils.env_checker`` and ``nbgym.utils.passive_env_checker`` are
imported as submodules; the names below are light and loaded with the package.
"""

from nbgym.utils.colorize import colorize
from nbgym.utils.ezpickle import EzPickle
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["colorize", "EzPickle", "RecordConstructorArgs"]
