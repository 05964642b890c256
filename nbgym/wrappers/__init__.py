"""Wrappers: modular changes of an environment's ``step``, ``reset`` and ``render`` without editing its code.

A wrapper takes the environment (or another wrapper) to wrap, plus its own parameters::

    >>> import nbgym
    >>> from nbgym.wrappers import TimeLimit
    >>> env = nbgym.make("CartPole-v1")
    >>> env
    <TimeLimit<OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>>
    >>> env.env
    <OrderEnforcing<PassiveEnvChecker<CartPoleEnv<CartPole-v1>>>>

``env.env`` is the layer under the outermost wrapper and ``env.unwrapped`` the bare environment.
Custom wrappers subclass :class:`nbgym.Wrapper`, :class:`nbgym.ObservationWrapper`,
:class:`nbgym.ActionWrapper` or :class:`nbgym.RewardWrapper`.

Each wrapper is imported from its module on first access, so ``import nbgym.wrappers`` stays cheap.
The vector wrappers live in :mod:`nbgym.wrappers.vector`.
"""

from __future__ import annotations

import importlib
from typing import Any

from nbgym._lazy import import_submodule

# The module (under `nbgym.wrappers`) that defines each wrapper; a new wrapper module adds its names here.
_wrapper_to_module: dict[str, str] = {
    "TimeLimit": "common",
    "Autoreset": "common",
    "PassiveEnvChecker": "common",
    "OrderEnforcing": "common",
    "RecordEpisodeStatistics": "common",
    "TransformObservation": "transform_observation",
    "FilterObservation": "transform_observation",
    "FlattenObservation": "transform_observation",
    "GrayscaleObservation": "transform_observation",
    "ResizeObservation": "transform_observation",
    "ReshapeObservation": "transform_observation",
    "RescaleObservation": "transform_observation",
    "DtypeObservation": "transform_observation",
    "DiscretizeObservation": "transform_observation",
    "DelayObservation": "stateful_observation",
    "TimeAwareObservation": "stateful_observation",
    "FrameStackObservation": "stateful_observation",
    "NormalizeObservation": "stateful_observation",
    "MaxAndSkipObservation": "stateful_observation",
    "TransformAction": "transform_action",
    "ClipAction": "transform_action",
    "RescaleAction": "transform_action",
    "DiscretizeAction": "transform_action",
    "StickyAction": "stateful_action",
    "RepeatAction": "stateful_action",
    "TransformReward": "transform_reward",
    "ClipReward": "transform_reward",
    "NormalizeReward": "stateful_reward",
    "AddWhiteNoise": "rendering",
    "ObstructView": "rendering",
    "RenderCollection": "rendering",
    "RecordVideo": "rendering",
    "HumanRendering": "rendering",
    "AddRenderObservation": "rendering",
    "AtariPreprocessing": "atari_preprocessing",
    # Array frameworks: imported (with torch or jax) only when used.
    "ArrayConversion": "array_conversion",
    "NumpyToTorch": "numpy_to_torch",
    "JaxToNumpy": "jax_to_numpy",
    "JaxToTorch": "jax_to_torch",
}

# Old names of wrappers that gymnasium renamed: accessing one says what it is called now.
_renamed_wrapper: dict[str, str] = {
    "AutoResetWrapper": "Autoreset",
    "FrameStack": "FrameStackObservation",
    "PixelObservationWrapper": "AddRenderObservation",
    "VectorListInfo": "vector.DictInfoToList",
}

_SUBMODULES = ("vector",)

__all__ = [*_SUBMODULES, *_wrapper_to_module]


def __getattr__(wrapper_name: str) -> Any:
    """Loads a wrapper (or the ``vector`` submodule) on first access.

    Args:
        wrapper_name: The name of a wrapper.

    Returns:
        The wrapper class, or the submodule of that name (``vector``, ``common``, ...).

    Raises:
        AttributeError: No wrapper or submodule has that name, or it is an old name of a renamed wrapper.
    """
    if wrapper_name in _wrapper_to_module:
        module = importlib.import_module(f"{__name__}.{_wrapper_to_module[wrapper_name]}")
        value = getattr(module, wrapper_name)
    elif wrapper_name in _renamed_wrapper:
        raise AttributeError(f"{wrapper_name!r} has been renamed with `wrappers.{_renamed_wrapper[wrapper_name]}`")
    else:
        value = import_submodule(__name__, wrapper_name)
    globals()[wrapper_name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
