"""``nbgym.spaces.discrete``: the Discrete space, importable as from ``gymnasium.spaces.discrete`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Discrete

__all__ = ["Discrete"]
