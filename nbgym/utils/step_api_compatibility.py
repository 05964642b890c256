"""Conversion of ``step`` results between the old ``done`` API and the ``terminated``/``truncated`` API.

The old API returned ``(obs, reward, done, info)`` and marked a time-limit end with
``info["TimeLimit.truncated"]``; the current API returns ``(obs, reward, terminated, truncated, info)``.
"""

from __future__ import annotations

from typing import Any, SupportsFloat, Union

import numpy as np
from typing_extensions import TypeAlias

DoneStepType: TypeAlias = tuple[Any, Union[SupportsFloat, np.ndarray], Union[bool, np.ndarray], Union[dict, list]]
TerminatedTruncatedStepType: TypeAlias = tuple[
    Any, Union[SupportsFloat, np.ndarray], Union[bool, np.ndarray], Union[bool, np.ndarray], Union[dict, list]
]

_TRUNCATED_KEY = "TimeLimit.truncated"


def _infos_type_error(infos: Any) -> TypeError:
    return TypeError(
        "Unexpected value of infos, as is_vector_envs=False, expects `info` to be a list or dict, "
        f"actual type: {type(infos)}"
    )


def convert_to_terminated_truncated_step_api(
    step_returns: DoneStepType | TerminatedTruncatedStepType, is_vector_env: bool = False
) -> TerminatedTruncatedStepType:
    """Returns ``step_returns`` in the ``(obs, reward, terminated, truncated, info)`` API, whichever API it is in.

    An old-API ``done`` is split with ``info["TimeLimit.truncated"]``, which is removed from the info.

    Args:
        step_returns: ``(obs, reward, done, info)`` or ``(obs, reward, terminated, truncated, info)``.
        is_vector_env: Whether the results are a vector environment's (arrays of flags; a list of infos
            or a dict of arrays).

    Returns:
        The five-element step result.

    Raises:
        AssertionError: ``step_returns`` has neither four nor five elements.
        TypeError: Vector infos that are neither a list nor a dict.
    """
    if len(step_returns) == 5:
        return step_returns
    assert len(step_returns) == 4
    observations, rewards, dones, infos = step_returns

    if is_vector_env is False:  # gymnasium's test: any other value takes the vector branch
        truncated = infos.pop(_TRUNCATED_KEY, False)
        return observations, rewards, dones and not truncated, dones and truncated, infos
    if isinstance(infos, list):
        truncated = np.array([info.pop(_TRUNCATED_KEY, False) for info in infos])
    elif isinstance(infos, dict):
        truncated = infos.pop(_TRUNCATED_KEY, np.zeros(len(dones), dtype=bool))
    else:
        raise _infos_type_error(infos)
    return (
        observations,
        rewards,
        np.logical_and(dones, np.logical_not(truncated)),
        np.logical_and(dones, truncated),
        infos,
    )


def convert_to_done_step_api(
    step_returns: TerminatedTruncatedStepType | DoneStepType, is_vector_env: bool = False
) -> DoneStepType:
    """Returns ``step_returns`` in the ``(obs, reward, done, info)`` API, whichever API it is in.

    ``done`` is ``terminated or truncated``; when the episode ended, ``info["TimeLimit.truncated"]``
    records whether it was truncated without terminating.

    Args:
        step_returns: ``(obs, reward, terminated, truncated, info)`` or ``(obs, reward, done, info)``.
        is_vector_env: Whether the results are a vector environment's.

    Returns:
        The four-element step result.

    Raises:
        AssertionError: ``step_returns`` has neither four nor five elements.
        TypeError: Vector infos that are neither a list nor a dict.
    """
    if len(step_returns) == 4:
        return step_returns
    assert len(step_returns) == 5
    observations, rewards, terminated, truncated, infos = step_returns

    if is_vector_env is False:  # gymnasium's test: any other value takes the vector branch
        if truncated or terminated:
            infos[_TRUNCATED_KEY] = truncated and not terminated
        return observations, rewards, terminated or truncated, infos
    if isinstance(infos, list):
        for info, env_truncated, env_terminated in zip(infos, truncated, terminated, strict=True):
            if env_truncated or env_terminated:
                info[_TRUNCATED_KEY] = env_truncated and not env_terminated
    elif isinstance(infos, dict):
        if np.any(truncated) or np.any(terminated):
            infos[_TRUNCATED_KEY] = np.logical_and(truncated, np.logical_not(terminated))
    else:
        raise _infos_type_error(infos)
    return observations, rewards, np.logical_or(terminated, truncated), infos


def step_api_compatibility(
    step_returns: TerminatedTruncatedStepType | DoneStepType,
    output_truncation_bool: bool = True,
    is_vector_env: bool = False,
) -> TerminatedTruncatedStepType | DoneStepType:
    """Returns ``step_returns`` in the API chosen by ``output_truncation_bool``, whichever API it is in.

    Example:
        >>> step_returns = env.step(0)  # doctest: +SKIP
        >>> obs, reward, done, info = step_api_compatibility(step_returns, False)  # doctest: +SKIP

    Args:
        step_returns: A four- or five-element step result.
        output_truncation_bool: ``True`` for ``(obs, reward, terminated, truncated, info)``, ``False`` for
            ``(obs, reward, done, info)``.
        is_vector_env: Whether the results are a vector environment's.

    Returns:
        The converted step result.
    """
    if output_truncation_bool:
        return convert_to_terminated_truncated_step_api(step_returns, is_vector_env)
    return convert_to_done_step_api(step_returns, is_vector_env)
