"""``nbgym.spaces.tuple``: the Tuple space, importable as from ``gymnasium.spaces.tuple`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Tuple

__all__ = ["Tuple"]
