"""The space utilities, importable as ``nbgym.spaces.utils`` as they are from ``gymnasium.spaces.utils``."""

from nbgym.spaces import FlatType, flatdim, flatten, flatten_space, is_space_dtype_shape_equiv, unflatten

__all__ = ["FlatType", "flatdim", "flatten_space", "flatten", "unflatten", "is_space_dtype_shape_equiv"]
