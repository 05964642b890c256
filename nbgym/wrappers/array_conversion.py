"""Conversion of an environment's arrays between array frameworks (numpy, torch, jax.numpy, ...), as gymnasium 1.4.0's.

:func:`array_conversion` converts a value, recursively through mappings, tuples, lists and named
tuples, into arrays of a target framework: arrays cross through DLPack (``xp.from_dlpack``), so a
numpy array becomes a torch tensor (and back) without a copy when both live on the CPU; Python and
numpy numbers become 0-d arrays, ``None`` stays ``None``. :class:`ArrayConversion` applies it to an
environment's observations, infos and frames, and converts actions the other way.

An array framework is given as its module (``numpy``, ``torch``, ``jax.numpy`` or any module with
``asarray`` and ``from_dlpack``); nbgym imports none of them but numpy.
"""

from __future__ import annotations

import functools
import importlib
import numbers
from collections import abc
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any, SupportsFloat

import numpy as np

from nbgym.core import ActType, Env, ObsType, RenderFrame, Wrapper
from nbgym.utils import RecordConstructorArgs

__all__ = ["ArrayConversion", "array_conversion", "module_namespace", "module_name_to_namespace", "Device"]

Array = Any
Device = Any


def module_namespace(xp: ModuleType) -> ModuleType:
    """The Array API namespace of the array module ``xp``, as gymnasium's ``module_namespace`` gives it.

    With array-api-compat installed this is ``array_api_compat.array_namespace(xp.empty(0))``: the compat
    namespace for numpy and torch (``array_api_compat.numpy``, ``array_api_compat.torch``), the module itself
    for a native Array API library (``jax.numpy``). Without it (nbgym does not require it), ``xp`` itself once
    it is checked to have ``asarray`` and ``from_dlpack``, which is all the conversions call.

    Args:
        xp: The array framework's module, e.g. ``numpy``, ``torch`` or ``jax.numpy``.

    Returns:
        Its Array API namespace.

    Raises:
        ValueError: ``xp`` is not an Array API module (no ``empty``, or no ``asarray`` and ``from_dlpack``).
    """
    try:
        from array_api_compat import array_namespace
    except ImportError:
        array_namespace = None
    if array_namespace is not None:
        try:
            return array_namespace(xp.empty(0))
        except AttributeError as e:
            raise ValueError(f"Module {xp} is not an Array API compatible module.") from e
    if not (callable(getattr(xp, "asarray", None)) and callable(getattr(xp, "from_dlpack", None))):
        raise ValueError(f"Module {xp} is not an Array API compatible module.")
    return xp


def _module_name(xp: ModuleType) -> str:
    """The importable name of an array module or its compat namespace (``array_api_compat.numpy`` -> ``numpy``),
    as gymnasium pickles it: the unpickling process finds the namespace again with :func:`module_namespace`."""
    return xp.__name__.replace("array_api_compat.", "")


def module_name_to_namespace(name: str) -> ModuleType:
    """Imports the array module ``name`` (e.g. ``"jax.numpy"``) and checks it with :func:`module_namespace`."""
    return module_namespace(importlib.import_module(name))


@functools.singledispatch
def array_conversion(value: Any, xp: ModuleType, device: Device | None = None) -> Any:
    """Converts ``value`` into arrays of the array module ``xp`` (on ``device``, where ``xp`` has devices).

    Args:
        value: An array of any DLPack-capable framework, a number, ``None``, or a mapping, tuple,
            list or named tuple of those (converted recursively, keeping the container's type).
        xp: The target array module.
        device: The target device (``None``: the framework's default; numpy has only the CPU).

    Returns:
        The converted value.

    Raises:
        Exception: ``value`` is of a type that has no conversion (gymnasium's exception type).
    """
    raise Exception(
        f"No known conversion for ({type(value)}) to xp module ({xp}) registered. Convert it to an array, "
        "a number or a container of those first."
    )


@array_conversion.register(numbers.Number)
def _number_array_conversion(value: numbers.Number, xp: ModuleType, device: Device | None = None) -> Array:
    return xp.asarray(value, device=_target_device(xp, device))


@array_conversion.register(abc.Mapping)
def _mapping_array_conversion(
    value: Mapping[str, Any], xp: ModuleType, device: Device | None = None
) -> Mapping[str, Any]:
    return type(value)(**{key: array_conversion(item, xp, device) for key, item in value.items()})


@array_conversion.register(abc.Iterable)
def _iterable_array_conversion(value: Iterable[Any], xp: ModuleType, device: Device | None = None) -> Any:
    # Arrays are iterable: those of any framework are recognised by their DLPack export.
    if hasattr(value, "__dlpack__"):
        return _dlpack_array_conversion(value, xp, device)
    if hasattr(value, "_make"):  # a named tuple
        return type(value)._make(array_conversion(item, xp, device) for item in value)
    return type(value)(array_conversion(item, xp, device) for item in value)


@array_conversion.register(type(None))
def _none_array_conversion(value: None, xp: ModuleType, device: Device | None = None) -> None:
    return value


def _target_device(xp: ModuleType, device: Device | None) -> Device | None:
    # numpy arrays live on the CPU only; numpy names it "cpu" and refuses other framework's devices.
    return "cpu" if xp is np or xp.__name__ == "array_api_compat.numpy" else device


def _dlpack_array_conversion(value: Array, xp: ModuleType, device: Device | None) -> Array:
    """One array into ``xp`` through DLPack: no copy when the memory can be shared."""
    device = _target_device(xp, device)
    try:
        return xp.from_dlpack(value, device=device)
    except BufferError:
        # A read-only numpy array: torch refuses to share it, so it is copied once, writable.
        if not isinstance(value, np.ndarray):
            raise
        return xp.from_dlpack(np.array(value), device=device)
    except (RuntimeError, ValueError):
        # An array on an accelerator, exported to a framework that cannot read that device
        # directly: it goes through the CPU.
        if not hasattr(value, "cpu"):
            raise
        return xp.from_dlpack(value.cpu(), device=device)


class ArrayConversion(Wrapper[Any, Any, ObsType, ActType], RecordConstructorArgs):
    """Lets an environment of one array framework be used through another (``numpy``, ``torch``, ``jax.numpy``, ...).

    Actions are converted to the environment's framework, and observations, infos and rendered
    frames to the target framework, without copies where DLPack can share the memory. Rewards
    become Python floats and ``terminated``/``truncated`` Python bools.
    A vector version exists: :class:`nbgym.wrappers.vector.ArrayConversion`.

    Example:
        >>> import torch                                                    # doctest: +SKIP
        >>> import numpy as np, nbgym
        >>> env = ArrayConversion(nbgym.make("CartPole-v1"), env_xp=np, target_xp=torch)  # doctest: +SKIP
        >>> obs, _ = env.reset(seed=123)                                    # doctest: +SKIP
        >>> type(obs)                                                       # doctest: +SKIP
        <class 'torch.Tensor'>

    Args:
        env: The environment to wrap.
        env_xp: The array module the environment takes and returns.
        target_xp: The array module to convert to.
        env_device: The device of the environment's arrays.
        target_device: The device on which arrays are returned.

    Raises:
        ValueError: ``env_xp`` or ``target_xp`` is not an array module.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        env_xp: ModuleType,
        target_xp: ModuleType,
        env_device: Device | None = None,
        target_device: Device | None = None,
    ) -> None:
        # Modules cannot be deep-copied: the arguments are recorded as they are.
        RecordConstructorArgs.__init__(
            self,
            _disable_deepcopy=True,
            env_xp=env_xp,
            target_xp=target_xp,
            env_device=env_device,
            target_device=target_device,
        )
        Wrapper.__init__(self, env)
        self._env_xp = module_namespace(env_xp)
        self._target_xp = module_namespace(target_xp)
        self._env_device: Device | None = env_device
        self._target_device: Device | None = target_device

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment with ``action`` converted to its framework.

        Args:
            action: An action as arrays of the target framework.

        Returns:
            The observation and info in the target framework, the reward as a float, the flags as bools.
        """
        action = array_conversion(action, xp=self._env_xp, device=self._env_device)
        obs, reward, terminated, truncated, info = self.env.step(action)
        return (
            array_conversion(obs, xp=self._target_xp, device=self._target_device),
            float(reward),
            bool(terminated),
            bool(truncated),
            array_conversion(info, xp=self._target_xp, device=self._target_device),
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Resets the environment, with ``options`` converted to its framework.

        Args:
            seed: The reset seed.
            options: Reset options (arrays of the target framework are converted).

        Returns:
            The observation and info in the target framework.
        """
        if options:
            options = array_conversion(options, self._env_xp, self._env_device)
        return array_conversion(self.env.reset(seed=seed, options=options), self._target_xp, self._target_device)

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """The environment's frame(s) as arrays of the target framework."""
        return array_conversion(self.env.render(), self._target_xp, self._target_device)

    def __getstate__(self) -> dict[str, Any]:
        """The pickled state, with the array modules by name (modules do not pickle)."""
        return picklable_state(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores a pickled wrapper, importing its array modules."""
        restore_state(self, state)


def picklable_state(wrapper: Any) -> dict[str, Any]:
    """A conversion wrapper's ``__dict__`` with its array modules replaced by their names (modules do not
    pickle), those of its recorded constructor arguments included.

    Args:
        wrapper: An :class:`ArrayConversion` (single or vector).

    Returns:
        The state to pickle.
    """
    state = {
        **wrapper.__dict__,
        "_env_xp": _module_name(wrapper._env_xp),
        "_target_xp": _module_name(wrapper._target_xp),
    }
    if "_saved_kwargs" in state:
        state["_saved_kwargs"] = {
            key: _PickledModule(_module_name(value)) if isinstance(value, ModuleType) else value
            for key, value in state["_saved_kwargs"].items()
        }
    return state


def restore_state(wrapper: Any, state: dict[str, Any]) -> None:
    """Restores the state of :func:`picklable_state`, importing the array modules.

    Args:
        wrapper: The wrapper being unpickled.
        state: Its pickled state.
    """
    state = {
        **state,
        "_env_xp": module_name_to_namespace(state["_env_xp"]),
        "_target_xp": module_name_to_namespace(state["_target_xp"]),
    }
    if "_saved_kwargs" in state:
        state["_saved_kwargs"] = {
            key: importlib.import_module(value.name) if isinstance(value, _PickledModule) else value
            for key, value in state["_saved_kwargs"].items()
        }
    wrapper.__dict__.update(state)


class _PickledModule:
    """A module argument in a pickled wrapper's recorded arguments, by name."""

    def __init__(self, name: str) -> None:
        self.name = name
