"""``nbgym.spaces.dict``: the Dict space, importable as from ``gymnasium.spaces.dict`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Dict

__all__ = ["Dict"]
