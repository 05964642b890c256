"""``nbgym.spaces.multi_binary``: the MultiBinary space, importable as from ``gymnasium.spaces.multi_binary`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import MultiBinary

__all__ = ["MultiBinary"]
