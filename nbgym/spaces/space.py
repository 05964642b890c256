"""``nbgym.spaces.space``: the base class of every space, importable as from ``gymnasium.spaces.space`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Space, MaskNDArray

__all__ = ["Space", "MaskNDArray"]
