"""Adapters that present an environment of one library as an environment of the other.

:class:`AsGymnasiumEnv` and :class:`AsGymnasiumVectorEnv` are real ``gymnasium.Env`` and
``gymnasium.vector.VectorEnv`` subclasses around nbgym environments; :class:`FromGymnasiumEnv` and
:class:`FromGymnasiumVectorEnv` are ``nbgym.Env`` and ``nbgym.vector.VectorEnv`` subclasses around
gymnasium's. Each passes ``reset``/``step``/``render``/``close`` straight through and returns the
wrapped environment's own objects (no copy), so results are bit for bit those of the wrapped
environment. State is never duplicated: ``np_random``, ``np_random_seed``, ``render_mode``,
``metadata``, ``closed`` and the spaces read and write the wrapped environment; the spaces are
converted (and the conversion cached until the wrapped environment's space object changes); any
other public attribute is read from, and an existing one written to, the wrapped environment's
wrapper stack. ``spec`` is the wrapped environment's spec converted (entry points that rebuild the
adapter) until a spec is assigned to the adapter (``gymnasium.make`` assigns one).

To the library it presents, an adapter is a base environment: its ``unwrapped`` is itself, and the
environment it wraps is :attr:`inner`.
"""

from __future__ import annotations

import dataclasses
import functools
from enum import Enum
from types import ModuleType
from typing import Any, Callable

import gymnasium
import gymnasium.envs.registration
import gymnasium.spaces
import gymnasium.vector

import nbgym.registration
import nbgym.spaces
import nbgym.vector
from nbgym.core import Env
from nbgym.interop.spaces import convert_space

__all__ = [
    "AsGymnasiumEnv",
    "AsGymnasiumVectorEnv",
    "FromGymnasiumEnv",
    "FromGymnasiumVectorEnv",
    "to_gymnasium",
    "from_gymnasium",
    "convert_spec",
]


def _space_property(name: str) -> property:
    """A property reading and writing the wrapped environment's space ``name``, converted."""

    def get(self: _Adapter) -> Any:
        source = getattr(self.inner, name)
        cached = self._converted_spaces.get(name)
        if cached is None or cached[0] is not source:
            cached = (source, convert_space(source, self._target.spaces))
            self._converted_spaces[name] = cached
        return cached[1]

    def set_(self: _Adapter, space: Any) -> None:
        source = convert_space(space, self._source.spaces)
        setattr(self.inner, name, source)
        self._converted_spaces[name] = (source, space)

    return property(get, set_, doc=f"The wrapped environment's ``{name}``, as a space of the presented library.")


class _Library:
    """The modules of one library that the adapters convert to or from."""

    def __init__(self, name: str, spaces: ModuleType, registration: ModuleType, autoreset_mode: type[Enum]) -> None:
        self.name = name
        self.spaces = spaces
        self.registration = registration
        self.autoreset_mode = autoreset_mode


_GYMNASIUM = _Library("gymnasium", gymnasium.spaces, gymnasium.envs.registration, gymnasium.vector.AutoresetMode)
_NBGYM = _Library("nbgym", nbgym.spaces, nbgym.registration, nbgym.vector.AutoresetMode)


class _Adapter:
    """What the four adapters share; listed first among their bases, so its properties win."""

    _source: _Library
    _target: _Library
    _wraps: tuple[type, str]  # the class of the environments it wraps, and how messages name it
    inner: Any

    observation_space = _space_property("observation_space")
    action_space = _space_property("action_space")

    def __init__(self, env: Any) -> None:
        """Wraps ``env``.

        Args:
            env: An environment of the library this adapter converts from.

        Raises:
            TypeError: ``env`` is not one.
        """
        accepted, description = self._wraps
        if not isinstance(env, accepted):
            raise TypeError(f"Expected {description}, got {type(env)}.")
        object.__setattr__(self, "inner", env)
        object.__setattr__(self, "_converted_spaces", {})
        object.__setattr__(self, "_own_spec", None)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Resets the wrapped environment.

        Args:
            seed: The wrapped environment's reset seed.
            options: The wrapped environment's reset options.

        Returns:
            The wrapped environment's ``(observation, info)``.
        """
        return self.inner.reset(seed=seed, options=options)

    def render(self) -> Any:
        """Renders the wrapped environment.

        Returns:
            The wrapped environment's frame(s), or ``None``.
        """
        return self.inner.render()

    @property
    def np_random(self) -> Any:
        """The wrapped environment's random generator (assigning sets the wrapped environment's)."""
        return self.inner.np_random

    @np_random.setter
    def np_random(self, value: Any) -> None:
        self.inner.np_random = value

    @property
    def _np_random(self) -> Any:
        # Environment checkers read `env.unwrapped._np_random`: the wrapped environment's generator,
        # or None while it has none.
        return getattr(self.inner.unwrapped, "_np_random", None)

    @_np_random.setter
    def _np_random(self, value: Any) -> None:
        self.inner.np_random = value

    @property
    def np_random_seed(self) -> int | None:
        """The wrapped environment's ``np_random_seed``."""
        return self.inner.np_random_seed

    @property
    def render_mode(self) -> str | None:
        """The wrapped environment's render mode."""
        return self.inner.render_mode

    @property
    def metadata(self) -> dict[str, Any]:
        """A copy of the wrapped environment's metadata with its ``"autoreset_mode"`` as the presented library's enum.

        Assigning converts the other way and sets the wrapped environment's metadata.
        """
        return _convert_metadata(self.inner.metadata, self._target)

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self.inner.metadata = _convert_metadata(value, self._source)

    @property
    def spec(self) -> Any:
        """The spec assigned to the adapter, else the wrapped environment's spec converted (``None`` if it has none)."""
        if self._own_spec is not None:
            return self._own_spec
        return convert_spec(self.inner.spec, self._target)

    @spec.setter
    def spec(self, value: Any) -> None:
        object.__setattr__(self, "_own_spec", value)

    def __getattr__(self, name: str) -> Any:
        """Reads a public attribute that the adapter lacks from the wrapped environment."""
        if name.startswith("_") or "inner" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        inner = self.inner
        if hasattr(inner, "get_wrapper_attr"):
            return inner.get_wrapper_attr(name)
        return getattr(inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        """Writes the adapter's own attributes on it, and an attribute that the wrapped environment has on that."""
        inner = self.__dict__.get("inner")
        if name.startswith("_") or hasattr(type(self), name) or inner is None or not _has_attr(inner, name):
            object.__setattr__(self, name, value)
        elif hasattr(inner, "set_wrapper_attr"):
            inner.set_wrapper_attr(name, value)
        else:
            setattr(inner, name, value)

    def __repr__(self) -> str:
        """The adapter's class name and the wrapped environment."""
        return f"<{type(self).__name__}, {self.inner}>"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        # Rebuilt from the wrapped environment, so that pickling (AsyncVectorEnv, SubprocVecEnv)
        # never goes through the forwarding `__getattr__` on a half-built object.
        return _rebuild_adapter, (type(self), self.inner, self._own_spec)


def _rebuild_adapter(cls: type[_Adapter], inner: Any, own_spec: Any) -> _Adapter:
    adapter = cls(inner)
    object.__setattr__(adapter, "_own_spec", own_spec)
    return adapter


def _has_attr(env: Any, name: str) -> bool:
    if hasattr(env, "has_wrapper_attr"):
        return env.has_wrapper_attr(name)
    return hasattr(env, name)


def _convert_metadata(metadata: dict[str, Any], target: _Library) -> dict[str, Any]:
    mode = metadata.get("autoreset_mode")
    if isinstance(mode, Enum) and not isinstance(mode, target.autoreset_mode):
        return {**metadata, "autoreset_mode": target.autoreset_mode(mode.value)}
    return metadata


class _SingleAdapter(_Adapter):
    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Steps the wrapped environment.

        Args:
            action: An action of the wrapped environment.

        Returns:
            The wrapped environment's ``(observation, reward, terminated, truncated, info)``, unchanged.
        """
        return self.inner.step(action)

    def close(self) -> None:
        """Closes the wrapped environment."""
        self.inner.close()


class _VectorAdapter(_Adapter):
    single_observation_space = _space_property("single_observation_space")
    single_action_space = _space_property("single_action_space")

    @property
    def num_envs(self) -> int:
        """The wrapped vector environment's number of sub-environments."""
        return self.inner.num_envs

    @property
    def closed(self) -> bool:
        """Whether the wrapped vector environment is closed."""
        return self.inner.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.inner.closed = value

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Steps the wrapped vector environment.

        Args:
            actions: A batch of actions of the wrapped environment.

        Returns:
            The wrapped environment's batched ``(observations, rewards, terminations, truncations, infos)``.
        """
        return self.inner.step(actions)

    def close(self, **kwargs: Any) -> None:
        """Closes the wrapped vector environment.

        Args:
            **kwargs: The wrapped environment's ``close`` arguments.
        """
        self.inner.close(**kwargs)

    def close_extras(self, **kwargs: Any) -> None:
        """Releases the wrapped vector environment's extra resources.

        Args:
            **kwargs: The wrapped environment's ``close_extras`` arguments.
        """
        self.inner.close_extras(**kwargs)

    def __del__(self) -> None:
        """Does nothing: like a wrapper, the adapter owns nothing, and the wrapped env may outlive it."""


class AsGymnasiumEnv(_SingleAdapter, gymnasium.Env):
    """An nbgym environment as a ``gymnasium.Env``: for gymnasium's wrappers and checkers, SB3 and other gymnasium code.

    Args:
        env: An nbgym environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not an ``nbgym.Env``.

    Example:
        >>> import gymnasium, nbgym
        >>> from nbgym.interop import to_gymnasium
        >>> env = to_gymnasium(nbgym.make("CartPole-v1"))
        >>> isinstance(env, gymnasium.Env), isinstance(env.action_space, gymnasium.spaces.Discrete)
        (True, True)
    """

    _source, _target, _wraps = _NBGYM, _GYMNASIUM, (Env, "an nbgym.Env")


class AsGymnasiumVectorEnv(_VectorAdapter, gymnasium.vector.VectorEnv):
    """An nbgym vector environment as a ``gymnasium.vector.VectorEnv`` (for gymnasium's vector wrappers and code).

    Args:
        env: An nbgym vector environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not an ``nbgym.vector.VectorEnv``.
    """

    _source, _target, _wraps = _NBGYM, _GYMNASIUM, (nbgym.vector.VectorEnv, "an nbgym.vector.VectorEnv")


class FromGymnasiumEnv(_SingleAdapter, Env):
    """A gymnasium environment (a third-party one, say) as an ``nbgym.Env``, for nbgym's wrappers and vector envs.

    Args:
        env: A gymnasium environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not a ``gymnasium.Env``.
    """

    _source, _target, _wraps = _GYMNASIUM, _NBGYM, (gymnasium.Env, "a gymnasium.Env")


class FromGymnasiumVectorEnv(_VectorAdapter, nbgym.vector.VectorEnv):
    """A gymnasium vector environment as an ``nbgym.vector.VectorEnv``, for nbgym's vector wrappers.

    Args:
        env: A gymnasium vector environment (wrapped or not).

    Raises:
        TypeError: ``env`` is not a ``gymnasium.vector.VectorEnv``.
    """

    _source, _target, _wraps = _GYMNASIUM, _NBGYM, (gymnasium.vector.VectorEnv, "a gymnasium.vector.VectorEnv")


def convert_spec(spec: Any, target: _Library | ModuleType) -> Any:
    """Rebuilds an ``EnvSpec`` as the other library's, with entry points that make converted environments.

    ``make`` of the converted spec builds the environment with the original entry point, converts it
    (e.g. the bare nbgym ``CartPoleEnv`` as an :class:`AsGymnasiumEnv`) and applies the target
    library's own wrappers as the spec's fields say (time limit, order enforcing, checker).

    Args:
        spec: An ``EnvSpec`` of either library, or ``None``.
        target: The library to convert to: ``gymnasium`` or ``nbgym`` (the module, or its registration module).

    Returns:
        The target library's ``EnvSpec`` (``spec`` itself if it already is one; ``None`` for ``None``).
    """
    library = _library(target)
    if spec is None or isinstance(spec, library.registration.EnvSpec):
        return spec
    conversion = "to_gymnasium" if library is _GYMNASIUM else "from_gymnasium"
    fields = {field.name: getattr(spec, field.name) for field in dataclasses.fields(spec) if field.init}
    for name in ("entry_point", "vector_entry_point"):
        if fields[name] is not None:
            fields[name] = functools.partial(_make_converted, fields[name], conversion)
    fields["additional_wrappers"] = tuple(
        library.registration.WrapperSpec(wrapper.name, wrapper.entry_point, wrapper.kwargs)
        for wrapper in spec.additional_wrappers
    )
    return library.registration.EnvSpec(**fields)


def _library(target: _Library | ModuleType) -> _Library:
    if isinstance(target, _Library):
        return target
    for library in (_GYMNASIUM, _NBGYM):
        if target.__name__ in (library.name, library.registration.__name__):
            return library
    raise TypeError(f"target must be the gymnasium or nbgym module, got {target!r}.")


def _make_converted(entry_point: Any, conversion: str, **kwargs: Any) -> Any:
    """Makes an environment with the other library's entry point and converts it (an entry point of converted specs)."""
    source = _NBGYM if conversion == "to_gymnasium" else _GYMNASIUM
    creator = entry_point if callable(entry_point) else source.registration.load_env_creator(entry_point)
    # gymnasium's vector creators refuse nbgym's enum (nbgym's take gymnasium's): the value string suits both.
    if isinstance(kwargs.get("autoreset_mode"), Enum):
        kwargs["autoreset_mode"] = kwargs["autoreset_mode"].value
    return _CONVERSIONS[conversion](creator(**kwargs))


def to_gymnasium(obj: Any) -> Any:
    """Presents an nbgym environment, vector environment, space or spec as gymnasium's.

    An adapter made by :func:`from_gymnasium` gives back the gymnasium object it wraps; a gymnasium
    object is returned as it is.

    Args:
        obj: An ``nbgym.Env``, ``nbgym.vector.VectorEnv``, ``nbgym.spaces.Space`` or nbgym ``EnvSpec``.

    Returns:
        An :class:`AsGymnasiumEnv`, :class:`AsGymnasiumVectorEnv`, the equal ``gymnasium.spaces`` space
        (see :func:`~nbgym.interop.spaces.convert_space`) or gymnasium ``EnvSpec``.

    Raises:
        TypeError: ``obj`` is none of these.
    """
    return _convert(obj, _GYMNASIUM)


def from_gymnasium(obj: Any) -> Any:
    """Presents a gymnasium environment, vector environment, space or spec as nbgym's.

    An adapter made by :func:`to_gymnasium` gives back the nbgym object it wraps; an nbgym object is
    returned as it is.

    Args:
        obj: A ``gymnasium.Env``, ``gymnasium.vector.VectorEnv``, ``gymnasium.spaces.Space`` or gymnasium ``EnvSpec``.

    Returns:
        A :class:`FromGymnasiumEnv`, :class:`FromGymnasiumVectorEnv`, the equal ``nbgym.spaces`` space
        or nbgym ``EnvSpec``.

    Raises:
        TypeError: ``obj`` is none of these.
    """
    return _convert(obj, _NBGYM)


def _convert(obj: Any, target: _Library) -> Any:
    gymnasium_bound = target is _GYMNASIUM
    single, vector = (
        (AsGymnasiumEnv, AsGymnasiumVectorEnv) if gymnasium_bound else (FromGymnasiumEnv, FromGymnasiumVectorEnv)
    )
    undone = (FromGymnasiumEnv, FromGymnasiumVectorEnv) if gymnasium_bound else (AsGymnasiumEnv, AsGymnasiumVectorEnv)
    source_env, source_vector = (
        (Env, nbgym.vector.VectorEnv) if gymnasium_bound else (gymnasium.Env, gymnasium.vector.VectorEnv)
    )
    if isinstance(obj, undone):
        return obj.inner
    if isinstance(obj, source_env):
        return single(obj)
    if isinstance(obj, source_vector):
        return vector(obj)
    source = _NBGYM if gymnasium_bound else _GYMNASIUM
    if isinstance(obj, (source.spaces.Space, target.spaces.Space)):
        return convert_space(obj, target.spaces)
    if isinstance(obj, (source.registration.EnvSpec, target.registration.EnvSpec)):
        return convert_spec(obj, target)
    if isinstance(obj, (gymnasium.Env, gymnasium.vector.VectorEnv, Env, nbgym.vector.VectorEnv)):
        return obj  # already one of the target library's
    raise TypeError(
        f"Cannot convert {type(obj)} to {target.name}: expected a {source.name} environment, vector environment, "
        "space or EnvSpec."
    )


_CONVERSIONS: dict[str, Callable[[Any], Any]] = {"to_gymnasium": to_gymnasium, "from_gymnasium": from_gymnasium}
