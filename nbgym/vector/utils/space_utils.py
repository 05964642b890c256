"""Batching of spaces and of their samples for vector environments.

- :func:`batch_space`: the space of ``n`` samples of one space, shaped for neural networks.
- :func:`batch_differing_spaces`: the same for compatible spaces with different parameters.
- :func:`iterate`: the per-environment items of a batched sample.
- :func:`concatenate`: the batched sample of per-environment items, written into a buffer.
- :func:`create_empty_array`: that buffer.

Every function is a :func:`functools.singledispatch` function: a custom space type can be supported by
registering an implementation, e.g. ``batch_space.register(MySpace)(my_batch_fn)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Sequence as PySequence
from copy import deepcopy
from functools import singledispatch
from typing import Any, NoReturn

import numpy as np

from nbgym.error import CustomSpaceError
from nbgym.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    GraphInstance,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
)

__all__ = ["batch_space", "batch_differing_spaces", "iterate", "concatenate", "create_empty_array"]

# Seeds drawn for the copies of a space that cannot be batched into one array (Text, Graph, ...).
_COPY_SEED_BOUND = 10**8


def _rng_copy(space: Space[Any]) -> np.random.Generator:
    # The batched space draws from a copy of the single space's generator: the two then produce the
    # same stream, and sampling one does not advance the other.
    return deepcopy(space.np_random)


def _repeat(array: np.ndarray, n: int) -> np.ndarray:
    return np.tile(array, (n,) + (1,) * array.ndim)


# ---------------------------------------------------------------------------------------------------
# batch_space
# ---------------------------------------------------------------------------------------------------


@singledispatch
def batch_space(space: Space[Any], n: int = 1) -> Space[Any]:
    """The space of ``n`` samples of ``space``, batched along a new leading axis where possible.

    ``Box`` -> ``Box`` with shape ``(n, *shape)``; ``Discrete`` -> ``MultiDiscrete``; ``MultiDiscrete``
    and ``MultiBinary`` -> ``Box``; ``Tuple`` and ``Dict`` batch each subspace; any other space
    (``Text``, ``Graph``, ``Sequence``, ``OneOf``, custom) -> a ``Tuple`` of ``n`` seeded copies.
    The batched space is seeded from a copy of ``space.np_random``.

    Args:
        space: The space of one sub-environment.
        n: The number of sub-environments.

    Returns:
        The batched space.

    Raises:
        TypeError: If ``space`` is not a :class:`nbgym.spaces.Space`.

    Example:
        >>> from nbgym.spaces import Box, Dict
        >>> space = Dict({"position": Box(0, 1, (3,)), "velocity": Box(0, 1, (2,))})
        >>> batch_space(space, n=5)
        Dict('position': Box(0.0, 1.0, (5, 3), float32), 'velocity': Box(0.0, 1.0, (5, 2), float32))
    """
    raise TypeError(
        f"The space provided to `batch_space` is not a gymnasium Space instance, type: {type(space)}, {space}"
    )


@batch_space.register(Box)
def _batch_box(space: Box, n: int = 1) -> Box:
    return Box(low=_repeat(space.low, n), high=_repeat(space.high, n), dtype=space.dtype, seed=_rng_copy(space))


@batch_space.register(Discrete)
def _batch_discrete(space: Discrete, n: int = 1) -> MultiDiscrete:
    return MultiDiscrete(
        np.full((n,), space.n, dtype=space.dtype),
        dtype=space.dtype,
        seed=_rng_copy(space),
        start=np.full((n,), space.start, dtype=space.dtype),
    )


@batch_space.register(MultiDiscrete)
def _batch_multi_discrete(space: MultiDiscrete, n: int = 1) -> Box:
    low = _repeat(space.start, n)
    return Box(low=low, high=low + _repeat(space.nvec, n) - 1, dtype=space.dtype, seed=_rng_copy(space))


@batch_space.register(MultiBinary)
def _batch_multi_binary(space: MultiBinary, n: int = 1) -> Box:
    return Box(low=0, high=1, shape=(n, *space.shape), dtype=space.dtype, seed=_rng_copy(space))


@batch_space.register(Tuple)
def _batch_tuple(space: Tuple, n: int = 1) -> Tuple:
    subspaces = tuple(batch_space(subspace, n=n) for subspace in space.spaces)
    return Tuple(subspaces, seed=_rng_copy(space))


@batch_space.register(Dict)
def _batch_dict(space: Dict, n: int = 1) -> Dict:
    subspaces = {key: batch_space(subspace, n=n) for key, subspace in space.items()}
    return Dict(subspaces, seed=_rng_copy(space), sort_keys=space.sort_keys)


@batch_space.register(Space)
@batch_space.register(Graph)
@batch_space.register(Text)
@batch_space.register(Sequence)
@batch_space.register(OneOf)
def _batch_as_copies(space: Space[Any], n: int = 1) -> Tuple:
    # Each copy gets its own seed (drawn from a copy of the space's generator), so the copies do not
    # all produce the same samples and do not share the original space's generator.
    copies = tuple(deepcopy(space) for _ in range(n))
    batched = Tuple(copies, seed=_rng_copy(space))
    batched.seed([int(seed) for seed in _rng_copy(space).integers(0, _COPY_SEED_BOUND, n)])
    return batched


# ---------------------------------------------------------------------------------------------------
# batch_differing_spaces
# ---------------------------------------------------------------------------------------------------


@singledispatch
def batch_differing_spaces(spaces: PySequence[Space[Any]]) -> Space[Any]:
    """Batch a sequence of spaces of one type that differ in their parameters (e.g. bounds).

    Args:
        spaces: A non-empty sequence of spaces of the same type, sharing shape and dtype.

    Returns:
        The batched space, seeded from a copy of ``spaces[0].np_random``.

    Raises:
        ValueError: If ``spaces`` is empty, or the spaces' shapes, dtypes or keys differ.
        TypeError: If the spaces are not all of one type, or that type has no registered
            implementation.

    Example:
        >>> from nbgym.spaces import Discrete
        >>> batch_differing_spaces([Discrete(3), Discrete(5), Discrete(4), Discrete(8)])
        MultiDiscrete([3 5 4 8])
    """
    # Dispatch is on the type of the elements, not of the sequence: the registered implementations
    # are looked up by hand, and only an exact type match counts.
    if len(spaces) == 0:
        raise ValueError("Expects a non-empty list of spaces")
    first_type = type(spaces[0])
    if not all(isinstance(space, first_type) for space in spaces):
        raise TypeError(f"Expects all spaces to be of the same type, actual types: {[type(space) for space in spaces]}")
    if first_type not in batch_differing_spaces.registry:
        raise TypeError(
            "Requires the Space type to have a registered `batch_differing_space`, "
            f"current list: {batch_differing_spaces.registry}"
        )
    return batch_differing_spaces.registry[first_type](spaces)


def _require_equal(spaces: PySequence[Any], attribute: Callable[[Any], Any], message: str) -> None:
    values = [attribute(space) for space in spaces]
    if any(value != values[0] for value in values):
        raise ValueError(f"{message}, actually {values}")


@batch_differing_spaces.register(Box)
def _differing_box(spaces: PySequence[Box]) -> Box:
    _require_equal(spaces, lambda s: s.dtype, "Expected all dtypes to be equal")
    _require_equal(spaces, lambda s: s.low.shape, "Expected all Box.low shape to be equal")
    _require_equal(spaces, lambda s: s.high.shape, "Expected all Box.high shape to be equal")
    return Box(
        low=np.array([space.low for space in spaces]),
        high=np.array([space.high for space in spaces]),
        dtype=spaces[0].dtype,
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(Discrete)
def _differing_discrete(spaces: PySequence[Discrete]) -> MultiDiscrete:
    # The widest integer dtype holds every space's values (the first one wins a tie).
    widest = max((space.dtype for space in spaces), key=lambda dtype: np.dtype(dtype).itemsize)
    return MultiDiscrete(
        nvec=np.array([space.n for space in spaces]),
        dtype=widest,
        start=np.array([space.start for space in spaces]),
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(MultiDiscrete)
def _differing_multi_discrete(spaces: PySequence[MultiDiscrete]) -> Box:
    _require_equal(spaces, lambda s: s.dtype, "Expected all dtypes to be equal")
    _require_equal(spaces, lambda s: s.nvec.shape, "Expects all MultiDiscrete.nvec shape")
    _require_equal(spaces, lambda s: s.start.shape, "Expects all MultiDiscrete.start shape")
    return Box(
        low=np.array([space.start for space in spaces]),
        high=np.array([space.start + space.nvec for space in spaces]) - 1,
        dtype=spaces[0].dtype,
        seed=_rng_copy(spaces[0]),
    )


@batch_differing_spaces.register(MultiBinary)
def _differing_multi_binary(spaces: PySequence[MultiBinary]) -> Box:
    _require_equal(spaces, lambda s: s.shape, "Expected all MultiBinary shapes to be equal")
    return Box(low=0, high=1, shape=(len(spaces), *spaces[0].shape), dtype=spaces[0].dtype, seed=_rng_copy(spaces[0]))


@batch_differing_spaces.register(Tuple)
def _differing_tuple(spaces: PySequence[Tuple]) -> Tuple:
    columns = zip(*(space.spaces for space in spaces), strict=True)
    return Tuple(tuple(batch_differing_spaces(column) for column in columns), seed=_rng_copy(spaces[0]))


@batch_differing_spaces.register(Dict)
def _differing_dict(spaces: PySequence[Dict]) -> Dict:
    if any(space.keys() != spaces[0].keys() for space in spaces):
        raise ValueError(
            f"Expected all Dict spaces to have the same keys, actually {[list(space.keys()) for space in spaces]}"
        )
    subspaces = {key: batch_differing_spaces([space[key] for space in spaces]) for key in spaces[0].keys()}
    return Dict(subspaces, seed=_rng_copy(spaces[0]), sort_keys=spaces[0].sort_keys)


@batch_differing_spaces.register(Graph)
@batch_differing_spaces.register(Text)
@batch_differing_spaces.register(Sequence)
@batch_differing_spaces.register(OneOf)
def _differing_as_copies(spaces: PySequence[Space[Any]]) -> Tuple:
    return Tuple([deepcopy(space) for space in spaces], seed=_rng_copy(spaces[0]))


# ---------------------------------------------------------------------------------------------------
# iterate
# ---------------------------------------------------------------------------------------------------


@singledispatch
def iterate(space: Space[Any], items: Any) -> Iterator[Any]:
    """Iterate over the per-environment items of a batched sample.

    Args:
        space: The batched space (e.g. a vector env's ``action_space``).
        items: A sample of ``space``.

    Returns:
        An iterator over the items, one per sub-environment.

    Raises:
        CustomSpaceError: If ``space`` is a space type without a registered implementation.
        TypeError: If ``space`` is not a space, is ``Discrete`` (not a batched space), or ``items``
            cannot be iterated.

    Example:
        >>> from nbgym.spaces import Box
        >>> space = Box(0, 1, shape=(2, 3), seed=42)
        >>> [item.shape for item in iterate(space, space.sample())]
        [(3,), (3,)]
    """
    if isinstance(space, Space):
        raise CustomSpaceError(
            f"Space of type `{type(space)}` doesn't have an registered `iterate` function. "
            f"Register `{type(space)}` for `iterate` to support it."
        )
    raise TypeError(f"The space provided to `iterate` is not a gymnasium Space instance, type: {type(space)}, {space}")


@iterate.register(Discrete)
def _iterate_discrete(space: Discrete, items: Any) -> NoReturn:
    raise TypeError("Unable to iterate over a space of type `Discrete`.")


@iterate.register(Box)
@iterate.register(MultiDiscrete)
@iterate.register(MultiBinary)
def _iterate_array(space: Box | MultiDiscrete | MultiBinary, items: np.ndarray) -> Iterator[Any]:
    try:
        return iter(items)
    except TypeError as e:
        raise TypeError(f"Unable to iterate over the following elements: {items}") from e


@iterate.register(Tuple)
def _iterate_tuple(space: Tuple, items: tuple[Any, ...]) -> Iterator[Any]:
    if all(type(subspace) in iterate.registry for subspace in space):
        return zip(*(iterate(subspace, items[i]) for i, subspace in enumerate(space)), strict=True)

    # A Tuple holding unregistered subspaces is a batch of copies (see `batch_space`): one item each.
    try:
        return iter(items)
    except Exception as e:
        unregistered = [type(subspace) for subspace in space if type(subspace) not in iterate.registry]
        raise CustomSpaceError(
            f"Could not iterate through {space} as no custom iterate function is registered for {unregistered} "
            f"and `iter(items)` raised the following error: {e}."
        ) from e


@iterate.register(Dict)
def _iterate_dict(space: Dict, items: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    keys = list(space.spaces)
    columns = [iterate(space.spaces[key], items[key]) for key in keys]
    for row in zip(*columns, strict=True):
        yield dict(zip(keys, row))


# ---------------------------------------------------------------------------------------------------
# concatenate
# ---------------------------------------------------------------------------------------------------


@singledispatch
def concatenate(space: Space[Any], items: Iterable[Any], out: Any) -> Any:
    """Batch per-environment samples of ``space`` into ``out``.

    Args:
        space: The space of one sub-environment (e.g. ``single_observation_space``).
        items: One sample of ``space`` per sub-environment.
        out: The buffer to write into, from :func:`create_empty_array` (``None`` for spaces
            batched as tuples).

    Returns:
        The batched sample: ``out`` itself for array spaces, a new tuple or dict of the filled
        buffers for ``Tuple`` and ``Dict``, a tuple of the items for the other spaces.

    Raises:
        TypeError: If ``space`` is not a :class:`nbgym.spaces.Space`.

    Example:
        >>> import numpy as np
        >>> from nbgym.spaces import Box
        >>> space = Box(0, 1, shape=(3,), seed=42)
        >>> out = np.zeros((2, 3), dtype=np.float32)
        >>> concatenate(space, [space.sample() for _ in range(2)], out).shape
        (2, 3)
    """
    raise TypeError(
        f"The space provided to `concatenate` is not a gymnasium Space instance, type: {type(space)}, {space}"
    )


@concatenate.register(Box)
@concatenate.register(Discrete)
@concatenate.register(MultiDiscrete)
@concatenate.register(MultiBinary)
def _concatenate_array(space: Space[Any], items: Iterable[Any], out: np.ndarray) -> np.ndarray:
    return np.stack(list(items), axis=0, out=out)


@concatenate.register(Tuple)
def _concatenate_tuple(space: Tuple, items: Iterable[Any], out: tuple[Any, ...]) -> tuple[Any, ...]:
    items = list(items)
    return tuple(concatenate(subspace, [item[i] for item in items], out[i]) for i, subspace in enumerate(space.spaces))


@concatenate.register(Dict)
def _concatenate_dict(space: Dict, items: Iterable[Any], out: Mapping[str, Any]) -> dict[str, Any]:
    items = list(items)
    return {key: concatenate(subspace, [item[key] for item in items], out[key]) for key, subspace in space.items()}


@concatenate.register(Space)
@concatenate.register(Graph)
@concatenate.register(Text)
@concatenate.register(Sequence)
@concatenate.register(OneOf)
def _concatenate_as_tuple(space: Space[Any], items: Iterable[Any], out: None) -> tuple[Any, ...]:
    return tuple(items)


# ---------------------------------------------------------------------------------------------------
# create_empty_array
# ---------------------------------------------------------------------------------------------------


@singledispatch
def create_empty_array(space: Space[Any], n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> Any:
    """Create the buffer that :func:`concatenate` writes ``n`` samples of ``space`` into.

    The buffer is not necessarily an element of the batched space (e.g. zeros below a Box's low).

    Args:
        space: The space of one sub-environment.
        n: The number of sub-environments.
        fn: The array constructor, called as ``fn(shape, dtype=dtype)`` (e.g. ``np.zeros``, ``np.empty``).

    Returns:
        An array of shape ``(n, *space.shape)`` for array spaces, a tuple or dict of buffers for
        ``Tuple`` and ``Dict``, a tuple of ``n`` placeholder samples for ``Text``, ``Graph``,
        ``Sequence`` and ``OneOf``, ``None`` for custom spaces.

    Raises:
        TypeError: If ``space`` is not a :class:`nbgym.spaces.Space`.

    Example:
        >>> import numpy as np
        >>> from nbgym.spaces import Box
        >>> create_empty_array(Box(0, 1, shape=(3,)), n=2, fn=np.zeros)
        array([[0., 0., 0.],
               [0., 0., 0.]], dtype=float32)
    """
    raise TypeError(
        f"The space provided to `create_empty_array` is not a gymnasium Space instance, type: {type(space)}, {space}"
    )


@create_empty_array.register(Box)
@create_empty_array.register(Discrete)
@create_empty_array.register(MultiDiscrete)
@create_empty_array.register(MultiBinary)
def _empty_array(space: Space[Any], n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> np.ndarray:
    return fn((n, *space.shape), dtype=space.dtype)


@create_empty_array.register(Tuple)
def _empty_tuple(space: Tuple, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> tuple[Any, ...]:
    return tuple(create_empty_array(subspace, n=n, fn=fn) for subspace in space.spaces)


@create_empty_array.register(Dict)
def _empty_dict(space: Dict, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> dict[str, Any]:
    return {key: create_empty_array(subspace, n=n, fn=fn) for key, subspace in space.items()}


@create_empty_array.register(Graph)
def _empty_graph(space: Graph, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> tuple[GraphInstance, ...]:
    def one_graph() -> GraphInstance:
        if space.edge_space is None:
            return GraphInstance(nodes=create_empty_array(space.node_space, n=1, fn=fn), edges=None, edge_links=None)
        return GraphInstance(
            nodes=create_empty_array(space.node_space, n=1, fn=fn),
            edges=create_empty_array(space.edge_space, n=1, fn=fn),
            edge_links=fn((1, 2), dtype=np.int64),
        )

    return tuple(one_graph() for _ in range(n))


@create_empty_array.register(Text)
def _empty_text(space: Text, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> tuple[str, ...]:
    return tuple(space.characters[0] * space.min_length for _ in range(n))


@create_empty_array.register(Sequence)
def _empty_sequence(space: Sequence, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> tuple[Any, ...]:
    if space.stack:
        return tuple(create_empty_array(space.feature_space, n=1, fn=fn) for _ in range(n))
    return tuple(() for _ in range(n))


@create_empty_array.register(OneOf)
def _empty_one_of(space: OneOf, n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> tuple[tuple[()], ...]:
    return tuple(() for _ in range(n))


@create_empty_array.register(Space)
def _empty_custom(space: Space[Any], n: int = 1, fn: Callable[..., np.ndarray] = np.zeros) -> None:
    return None
