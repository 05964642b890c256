"""``nbgym.spaces.oneof``: the OneOf space, importable as from ``gymnasium.spaces.oneof`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import OneOf

__all__ = ["OneOf"]
