"""Space conversion between nbgym and gymnasium, in both directions.

nbgym's spaces have gymnasium's class names and constructor arguments, so one function converts
either way: it rebuilds the space (nested spaces included) in the other library from the same
parameters. The converted space shares the original's random generator object (and each subspace
its subspace's), so sampling either one continues the same stream; seeding one afterwards gives it a
new generator of its own, as seeding any space does.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import gymnasium.spaces
import numpy as np

import nbgym.spaces

__all__ = ["convert_space"]

_LIBRARIES = {gymnasium.spaces: "gymnasium", nbgym.spaces: "nbgym"}


def convert_space(space: Any, target: ModuleType) -> Any:
    """Rebuilds ``space`` as a space of ``target`` (``gymnasium.spaces`` or ``nbgym.spaces``).

    A space that already belongs to ``target`` is returned as it is.

    Args:
        space: A space of the other library: ``Box``, ``Discrete``, ``MultiDiscrete``, ``MultiBinary``,
            ``Text``, ``Tuple``, ``Dict``, ``Sequence``, ``OneOf`` or ``Graph``, nested as deep as wanted.
        target: The space module of the library to convert to.

    Returns:
        The equal space of ``target``, sharing ``space``'s random generator.

    Raises:
        TypeError: ``space`` is not one of the space classes above (a subclass or a custom space has
            behaviour that its parameters do not describe, so it cannot be rebuilt).
    """
    if target not in _LIBRARIES:
        raise TypeError(f"target must be gymnasium.spaces or nbgym.spaces, got {target!r}.")
    if isinstance(space, target.Space):
        return space
    (source,) = (module for module in _LIBRARIES if module is not target)
    kind = type(space).__name__
    if getattr(source, kind, None) is not type(space) or kind not in _REBUILDERS:
        raise TypeError(
            f"Cannot convert {type(space)} to a {_LIBRARIES[target]} space: only the {_LIBRARIES[source]} "
            f"space classes {sorted(_REBUILDERS)} (not subclasses) can be converted. Convert a custom space "
            f"by building the {_LIBRARIES[target]} space that matches it."
        )
    # Read the generator before the subspaces are converted: a composite space's first use of
    # `np_random` seeds its subspaces, which must happen before their generators are shared.
    generator = space.np_random
    converted = _REBUILDERS[kind](space, target)
    converted._np_random = generator
    return converted


def _box(space: Any, target: ModuleType) -> Any:
    return target.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)


def _discrete(space: Any, target: ModuleType) -> Any:
    if space.dtype == np.int64 and "dtype" not in inspect.signature(target.Discrete).parameters:
        return target.Discrete(space.n, start=space.start)  # gymnasium before 1.2: Discrete is int64 only
    return target.Discrete(space.n, start=space.start, dtype=space.dtype)


def _multi_discrete(space: Any, target: ModuleType) -> Any:
    return target.MultiDiscrete(space.nvec, dtype=space.dtype, start=space.start)


def _multi_binary(space: Any, target: ModuleType) -> Any:
    return target.MultiBinary(space.n)


def _text(space: Any, target: ModuleType) -> Any:
    # The character list in its own order: it fixes which character each sampled index means.
    return target.Text(space.max_length, min_length=space.min_length, charset="".join(space.character_list))


def _tuple(space: Any, target: ModuleType) -> Any:
    return target.Tuple([convert_space(subspace, target) for subspace in space.spaces])


def _dict(space: Any, target: ModuleType) -> Any:
    # (key, space) pairs keep the key order exactly as it is, whatever the sort rules.
    return target.Dict([(key, convert_space(subspace, target)) for key, subspace in space.spaces.items()])


def _sequence(space: Any, target: ModuleType) -> Any:
    return target.Sequence(convert_space(space.feature_space, target), stack=space.stack)


def _one_of(space: Any, target: ModuleType) -> Any:
    return target.OneOf([convert_space(subspace, target) for subspace in space.spaces])


def _graph(space: Any, target: ModuleType) -> Any:
    edge_space = None if space.edge_space is None else convert_space(space.edge_space, target)
    return target.Graph(node_space=convert_space(space.node_space, target), edge_space=edge_space)


_REBUILDERS = {
    "Box": _box,
    "Discrete": _discrete,
    "MultiDiscrete": _multi_discrete,
    "MultiBinary": _multi_binary,
    "Text": _text,
    "Tuple": _tuple,
    "Dict": _dict,
    "Sequence": _sequence,
    "OneOf": _one_of,
    "Graph": _graph,
}
