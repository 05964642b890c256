"""``nbgym.spaces.text``: the Text space, importable as from ``gymnasium.spaces.text`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Text, alphanumeric

__all__ = ["Text", "alphanumeric"]
