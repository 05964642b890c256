"""``nbgym.spaces.box``: the Box space and its helpers, importable as from ``gymnasium.spaces.box`` (defined in :mod:`nbgym.spaces`)."""

from nbgym.spaces import Box, _array_short_repr as array_short_repr, _is_float_integer as is_float_integer

__all__ = ["Box", "array_short_repr", "is_float_integer"]
