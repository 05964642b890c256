"""``nbgym.spaces.multi_discrete``: the MultiDiscrete space, importable as from ``gymnasium.spaces.multi_discrete`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import MultiDiscrete

__all__ = ["MultiDiscrete"]
