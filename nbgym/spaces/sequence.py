"""``nbgym.spaces.sequence``: the Sequence space, importable as from ``gymnasium.spaces.sequence`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Sequence

__all__ = ["Sequence"]
