"""Observation buffers in shared memory, written by worker processes and read by the main process.

Each sub-environment owns one contiguous slice of every buffer, so the workers write without locking.
"""

from __future__ import annotations

import multiprocessing as mp
from array import typecodes
from collections.abc import Mapping
from ctypes import c_bool, c_uint8
from functools import singledispatch
from multiprocessing.sharedctypes import SynchronizedArray
from types import ModuleType
from typing import Any, NoReturn, Union

import numpy as np

from nbgym.error import CustomSpaceError
from nbgym.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
    flatten,
)

__all__ = ["create_shared_memory", "read_from_shared_memory", "write_to_shared_memory"]

SharedMemory = Union[SynchronizedArray, tuple[Any, ...], dict[str, Any]]

# Text samples are stored as int32 character indices; OneOf stores the chosen subspace as int64.
_TEXT_DTYPE = np.dtype(np.int32)
_ONE_OF_INDEX_DTYPE = np.dtype(np.int64)


def _not_registered(function: str, space: Any) -> NoReturn:
    if isinstance(space, Space):
        raise CustomSpaceError(
            f"Space of type `{type(space)}` doesn't have an registered `{function}` function. "
            f"Register `{type(space)}` for `{function}` to support it."
        )
    raise TypeError(
        f"The space provided to `{function}` is not a gymnasium Space instance, type: {type(space)}, {space}"
    )


def _as_array(shared_memory: SynchronizedArray, dtype: np.dtype) -> np.ndarray:
    # A flat numpy view of the shared buffer (no copy), whatever ctypes type it was allocated with.
    return np.frombuffer(shared_memory.get_obj(), dtype=dtype)


# ---------------------------------------------------------------------------------------------------
# create_shared_memory
# ---------------------------------------------------------------------------------------------------


@singledispatch
def create_shared_memory(space: Space[Any], n: int = 1, ctx: ModuleType | Any = mp) -> SharedMemory:
    """Allocate shared memory for the observations of ``n`` sub-environments.

    Args:
        space: The observation space of one sub-environment.
        n: The number of sub-environments.
        ctx: The multiprocessing module or context that allocates the memory.

    Returns:
        A ``multiprocessing`` array for array spaces, a tuple or dict of them for ``Tuple`` and ``Dict``.

    Raises:
        CustomSpaceError: If ``space`` is a space type without a registered implementation.
        TypeError: If ``space`` is not a space, or its samples have no fixed size (``Graph``, ``Sequence``).
    """
    _not_registered("create_shared_memory", space)


@create_shared_memory.register(Box)
@create_shared_memory.register(Discrete)
@create_shared_memory.register(MultiDiscrete)
@create_shared_memory.register(MultiBinary)
def _create_array(space: Space[Any], n: int = 1, ctx: ModuleType | Any = mp) -> SynchronizedArray:
    size = n * int(np.prod(space.shape))
    code = space.dtype.char
    if code == "?":
        return ctx.Array(c_bool, size)
    if code in typecodes:
        return ctx.Array(code, size)
    # dtypes without an `array` typecode (float16, complex, ...) get raw bytes: reads and writes
    # reinterpret the buffer with the space's dtype.
    return ctx.Array(c_uint8, size * space.dtype.itemsize)


@create_shared_memory.register(Tuple)
def _create_tuple(space: Tuple, n: int = 1, ctx: ModuleType | Any = mp) -> tuple[Any, ...]:
    return tuple(create_shared_memory(subspace, n=n, ctx=ctx) for subspace in space.spaces)


@create_shared_memory.register(Dict)
def _create_dict(space: Dict, n: int = 1, ctx: ModuleType | Any = mp) -> dict[str, Any]:
    return {key: create_shared_memory(subspace, n=n, ctx=ctx) for key, subspace in space.spaces.items()}


@create_shared_memory.register(Text)
def _create_text(space: Text, n: int = 1, ctx: ModuleType | Any = mp) -> SynchronizedArray:
    return ctx.Array(_TEXT_DTYPE.char, n * space.max_length)


@create_shared_memory.register(OneOf)
def _create_one_of(space: OneOf, n: int = 1, ctx: ModuleType | Any = mp) -> tuple[Any, ...]:
    subspace_memories = tuple(create_shared_memory(subspace, n=n, ctx=ctx) for subspace in space.spaces)
    return (ctx.Array(_ONE_OF_INDEX_DTYPE.char, n), *subspace_memories)


@create_shared_memory.register(Graph)
@create_shared_memory.register(Sequence)
def _create_dynamic(space: Graph | Sequence, n: int = 1, ctx: ModuleType | Any = mp) -> NoReturn:
    raise TypeError(
        f"As {space} has a dynamic shape so its not possible to make a static shared memory. "
        "For `AsyncVectorEnv`, disable `shared_memory`."
    )


# ---------------------------------------------------------------------------------------------------
# read_from_shared_memory
# ---------------------------------------------------------------------------------------------------


@singledispatch
def read_from_shared_memory(space: Space[Any], shared_memory: SharedMemory, n: int = 1) -> Any:
    """The batch of observations held in shared memory.

    Array spaces give numpy arrays that *share* the memory: later writes by the workers show
    through them (copy them to keep a snapshot).

    Args:
        space: The observation space of one sub-environment.
        shared_memory: The memory from :func:`create_shared_memory`.
        n: The number of sub-environments.

    Returns:
        The batched observations: arrays shaped ``(n, *space.shape)``, nested as the space is.

    Raises:
        CustomSpaceError: If ``space`` is a space type without a registered implementation.
        TypeError: If ``space`` is not a space.
    """
    _not_registered("read_from_shared_memory", space)


@read_from_shared_memory.register(Box)
@read_from_shared_memory.register(Discrete)
@read_from_shared_memory.register(MultiDiscrete)
@read_from_shared_memory.register(MultiBinary)
def _read_array(space: Space[Any], shared_memory: SynchronizedArray, n: int = 1) -> np.ndarray:
    return _as_array(shared_memory, space.dtype).reshape((n, *space.shape))


@read_from_shared_memory.register(Tuple)
def _read_tuple(space: Tuple, shared_memory: tuple[Any, ...], n: int = 1) -> tuple[Any, ...]:
    return tuple(
        read_from_shared_memory(subspace, memory, n=n)
        for subspace, memory in zip(space.spaces, shared_memory, strict=True)
    )


@read_from_shared_memory.register(Dict)
def _read_dict(space: Dict, shared_memory: Mapping[str, Any], n: int = 1) -> dict[str, Any]:
    return {key: read_from_shared_memory(subspace, shared_memory[key], n=n) for key, subspace in space.spaces.items()}


@read_from_shared_memory.register(Text)
def _read_text(space: Text, shared_memory: SynchronizedArray, n: int = 1) -> tuple[str, ...]:
    codes = _as_array(shared_memory, _TEXT_DTYPE).reshape((n, space.max_length))
    characters = space.character_list
    # Indices past the character set are the padding of strings shorter than max_length.
    padding = len(space.character_set)
    return tuple("".join(characters[code] for code in row if code < padding) for row in codes)


@read_from_shared_memory.register(OneOf)
def _read_one_of(space: OneOf, shared_memory: tuple[Any, ...], n: int = 1) -> tuple[Any, ...]:
    chosen = _as_array(shared_memory[0], _ONE_OF_INDEX_DTYPE)
    samples = tuple(
        read_from_shared_memory(subspace, memory, n=n)
        for subspace, memory in zip(space.spaces, shared_memory[1:], strict=True)
    )
    return tuple((subspace_index, samples[subspace_index][env]) for env, subspace_index in enumerate(chosen))


# ---------------------------------------------------------------------------------------------------
# write_to_shared_memory
# ---------------------------------------------------------------------------------------------------


@singledispatch
def write_to_shared_memory(space: Space[Any], index: int, value: Any, shared_memory: SharedMemory) -> None:
    """Write the observation of sub-environment ``index`` into shared memory.

    Args:
        space: The observation space of one sub-environment.
        index: The sub-environment's index, in ``[0, n)``.
        value: The observation (an element of ``space``).
        shared_memory: The memory from :func:`create_shared_memory`.

    Raises:
        CustomSpaceError: If ``space`` is a space type without a registered implementation.
        TypeError: If ``space`` is not a space.
    """
    _not_registered("write_to_shared_memory", space)


@write_to_shared_memory.register(Box)
@write_to_shared_memory.register(Discrete)
@write_to_shared_memory.register(MultiDiscrete)
@write_to_shared_memory.register(MultiBinary)
def _write_array(space: Space[Any], index: int, value: Any, shared_memory: SynchronizedArray) -> None:
    size = int(np.prod(space.shape))
    destination = _as_array(shared_memory, space.dtype)[index * size : (index + 1) * size]
    np.copyto(destination, np.asarray(value, dtype=space.dtype).reshape(-1))


@write_to_shared_memory.register(Tuple)
def _write_tuple(space: Tuple, index: int, value: tuple[Any, ...], shared_memory: tuple[Any, ...]) -> None:
    for subspace, item, memory in zip(space.spaces, value, shared_memory, strict=True):
        write_to_shared_memory(subspace, index, item, memory)


@write_to_shared_memory.register(Dict)
def _write_dict(space: Dict, index: int, value: Mapping[str, Any], shared_memory: Mapping[str, Any]) -> None:
    for key, subspace in space.spaces.items():
        write_to_shared_memory(subspace, index, value[key], shared_memory[key])


@write_to_shared_memory.register(Text)
def _write_text(space: Text, index: int, value: str, shared_memory: SynchronizedArray) -> None:
    size = space.max_length
    destination = _as_array(shared_memory, _TEXT_DTYPE)[index * size : (index + 1) * size]
    np.copyto(destination, flatten(space, value))


@write_to_shared_memory.register(OneOf)
def _write_one_of(space: OneOf, index: int, value: tuple[int, Any], shared_memory: tuple[Any, ...]) -> None:
    subspace_index, sample = value
    _as_array(shared_memory[0], _ONE_OF_INDEX_DTYPE)[index] = subspace_index
    # Only the chosen subspace's memory is written: the others may hold stale data for this env,
    # which reading ignores.
    write_to_shared_memory(space.spaces[subspace_index], index, sample, shared_memory[1 + subspace_index])
