"""Argument handling and copying shared by :class:`SyncVectorEnv` and :class:`AsyncVectorEnv`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from copy import deepcopy
from enum import Enum
from typing import Any

import numpy as np

from nbgym.spaces import Space
from nbgym.vector.utils import batch_differing_spaces, batch_space
from nbgym.vector.vector_env import AutoresetMode


def copy_batch(batch: Any) -> Any:
    """A deep copy of a batch of observations, fast for the (nested) numpy arrays that batches mostly are.

    Args:
        batch: A batched observation: an array, a tuple or dict of batches, or any other object.

    Returns:
        A copy sharing no memory with ``batch``.
    """
    if type(batch) is np.ndarray and batch.dtype != object:
        return batch.copy(order="K")
    if type(batch) is tuple:
        return tuple(copy_batch(item) for item in batch)
    if type(batch) is dict:
        return {key: copy_batch(value) for key, value in batch.items()}
    return deepcopy(batch)


def resolve_autoreset_mode(autoreset_mode: str | Enum) -> AutoresetMode:
    """The :class:`AutoresetMode` named by ``autoreset_mode``: a mode, its value (e.g. ``"SameStep"``), or another
    library's member of that value (``gymnasium.vector.AutoresetMode.SAME_STEP``, from code that moved to nbgym).

    Raises:
        ValueError: If ``autoreset_mode`` names no mode (gymnasium's error).
    """
    if isinstance(autoreset_mode, AutoresetMode):
        return autoreset_mode
    return AutoresetMode(autoreset_mode.value if isinstance(autoreset_mode, Enum) else autoreset_mode)


def resolve_observation_spaces(
    observation_mode: str | tuple[Space[Any], Space[Any]],
    num_envs: int,
    first_space: Callable[[], Space[Any]],
    all_spaces: Callable[[], list[Space[Any]]],
) -> tuple[Space[Any], Space[Any]]:
    """The ``(single, batched)`` observation spaces that ``observation_mode`` asks for.

    Args:
        observation_mode: ``"same"`` (batch ``num_envs`` copies of the first space), ``"different"``
            (batch every sub-environment's own space) or a ``(batched, single)`` tuple of spaces.
        num_envs: The number of sub-environments.
        first_space: Returns the first sub-environment's observation space.
        all_spaces: Returns every sub-environment's observation space.

    Returns:
        The single and the batched observation space.

    Raises:
        TypeError: If a tuple ``observation_mode`` does not hold two spaces.
        ValueError: If ``observation_mode`` is none of the above.
    """
    if isinstance(observation_mode, tuple) and len(observation_mode) == 2:
        batched, single = observation_mode
        if not isinstance(batched, Space) or not isinstance(single, Space):
            raise TypeError(
                f"Expected both elements of observation_mode to be Spaces, got {type(batched)} and {type(single)}"
            )
        return single, batched
    if observation_mode == "same":
        single = first_space()
        return single, batch_space(single, num_envs)
    if observation_mode == "different":
        spaces = all_spaces()
        return spaces[0], batch_differing_spaces(spaces)
    raise ValueError(
        "Invalid `observation_mode`, expected: 'same' or 'different' or tuple of single and batch observation "
        f"space, actual got {observation_mode}"
    )


def seeds_for(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """The reset seed of each sub-environment: ``seed + i`` for an int, the list itself for a list.

    Raises:
        ValueError: If a list of seeds does not have one seed per sub-environment.
    """
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, int):
        return [seed + i for i in range(num_envs)]
    if len(seed) != num_envs:
        raise ValueError(
            f"If seeds are passed as a list the length must match num_envs={num_envs} but got length={len(seed)}."
        )
    return list(seed)


def check_reset_mask(reset_mask: Any, num_envs: int) -> None:
    """Check ``options["reset_mask"]`` of a vector reset, with gymnasium's errors.

    Raises:
        TypeError: If the mask is not a numpy array of ``np.bool_``.
        ValueError: If it does not have shape ``(num_envs,)`` or selects no sub-environment.
    """
    if not isinstance(reset_mask, np.ndarray):
        raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(reset_mask)}")
    if reset_mask.shape != (num_envs,):
        raise ValueError(f"`options['reset_mask']` must have shape `({num_envs},)`, got {reset_mask.shape}")
    if reset_mask.dtype != np.bool_:
        raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {reset_mask.dtype}")
    if not np.any(reset_mask):
        raise ValueError(
            "`options['reset_mask']` must contain a boolean array with at least one True value, "
            f"got reset_mask={reset_mask}"
        )


def pop_reset_mask(options: dict[str, Any] | None, num_envs: int) -> np.ndarray | None:
    """Remove ``"reset_mask"`` from ``options`` and return it, checked (``None`` if absent).

    Raises:
        TypeError: If the mask is not a numpy array of ``np.bool_``.
        ValueError: If it does not have shape ``(num_envs,)`` or selects no sub-environment.
    """
    if options is None or "reset_mask" not in options:
        return None
    reset_mask = options.pop("reset_mask")
    check_reset_mask(reset_mask, num_envs)
    return reset_mask


def per_env_values(values: Any, num_envs: int) -> Sequence[Any]:
    """The value of ``set_attr`` for each sub-environment: ``values`` itself if a list or tuple, else repeated.

    Raises:
        ValueError: If a list or tuple does not have one value per sub-environment.
    """
    if not isinstance(values, (list, tuple)):
        return [values] * num_envs
    if len(values) != num_envs:
        raise ValueError(
            "Values must be a list or tuple with length equal to the number of environments. "
            f"Got `{len(values)}` values for {num_envs} environments."
        )
    return values
