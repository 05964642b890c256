"""The core API: ``Env``, ``Wrapper`` and the ``ObservationWrapper``/``ActionWrapper``/``RewardWrapper`` bases.

These classes follow gymnasium 1.4.0's ``gymnasium.core`` to the letter of its behaviour: the same
seeding rules, the same attribute forwarding of wrappers (spaces, metadata, ``render_mode``,
``np_random`` and ``spec`` point down the wrapper stack unless a wrapper sets its own) and the same
exceptions.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, Callable, Generic, SupportsFloat, Union

import numpy as np
from typing_extensions import TypeAlias, TypeVar

from nbgym import logger
from nbgym.utils import RecordConstructorArgs, _pickling, seeding

if TYPE_CHECKING:
    from typing_extensions import Self

    from nbgym.registration import EnvSpec, WrapperSpec
    from nbgym.spaces import Space

__all__ = [
    "Env",
    "Wrapper",
    "ObservationWrapper",
    "RewardWrapper",
    "ActionWrapper",
    "ObsType",
    "ActType",
    "WrapperObsType",
    "WrapperActType",
    "RenderFrame",
]

# Every type variable defaults to `Any`, so that `Env[np.ndarray]` is a valid partial subscription.
ObsType = TypeVar("ObsType", default=Any)
ActType = TypeVar("ActType", default=Any)
WrapperObsType = TypeVar("WrapperObsType", default=Any)
WrapperActType = TypeVar("WrapperActType", default=Any)

RenderFrame: TypeAlias = Union[str, np.ndarray, tuple[np.ndarray, np.ndarray]]


def gymnasium_conversion_hint(obj: object) -> str:
    """The advice to convert ``obj`` with :func:`nbgym.interop.from_gymnasium` when it is a gymnasium object, else ``""``.

    Args:
        obj: What was given where an nbgym environment (or vector environment) was expected.

    Returns:
        A sentence ending an error message (``". It is a gymnasium object: ..."``), or an empty string.
    """
    if any(cls.__module__.split(".")[0] == "gymnasium" for cls in type(obj).__mro__):
        return ". It is a gymnasium object: convert it with `nbgym.interop.from_gymnasium(env)`."
    return ""


class Env(Generic[ObsType, ActType]):
    """A reinforcement-learning environment: ``reset`` starts an episode, ``step`` advances it.

    Subclasses set :attr:`action_space` and :attr:`observation_space` (and, to render, :attr:`metadata`
    ``"render_modes"``/``"render_fps"`` and :attr:`render_mode`), implement :meth:`step` and
    :meth:`reset`, and call ``super().reset(seed=seed)`` first in ``reset`` so that :attr:`np_random`
    is seeded exactly as gymnasium seeds it.

    The random number generator is read and written only through the :attr:`np_random` property
    (never through ``_np_random`` directly) by this class and by :class:`Wrapper`, so a subclass may
    override the property, e.g. to keep the stream in arrays that compiled code shares.

    Attributes:
        metadata: The environment's metadata, e.g. ``{"render_modes": ["rgb_array"], "render_fps": 30}``.
        render_mode: The render mode chosen at construction, ``None`` for no rendering.
        spec: The :class:`~nbgym.registration.EnvSpec` the environment was made from, if any.
        action_space: The space that every valid action belongs to.
        observation_space: The space that every valid observation belongs to.
    """

    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None
    spec: EnvSpec | None = None

    action_space: Space[ActType]
    observation_space: Space[ObsType]

    _np_random: np.random.Generator | None = None
    # -1 once a generator of unknown seed has been set through the `np_random` setter.
    _np_random_seed: int | None = None

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Runs one timestep of the environment's dynamics with ``action``.

        Args:
            action: An action of :attr:`action_space`.

        Returns:
            ``(observation, reward, terminated, truncated, info)``: the next observation, the reward of
            the action, whether a terminal state of the MDP was reached, whether the episode was cut
            short (e.g. by a time limit), and auxiliary diagnostic information. Each call returns new
            observation and info objects, never a buffer that an earlier call returned.

        Raises:
            NotImplementedError: When a subclass does not implement it.
        """
        raise NotImplementedError

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment to an initial state; subclasses call ``super().reset(seed=seed)`` first.

        Args:
            seed: When an int, :attr:`np_random` is replaced by a generator seeded with it (and
                :attr:`np_random_seed` becomes ``seed``). When ``None``, an existing generator is kept.
            options: Environment-specific reset options.

        Returns:
            ``(observation, info)`` of the initial state (the base class returns ``None``; it only seeds).

        Raises:
            nbgym.error.Error: ``seed`` is not a non-negative Python int.
        """
        if seed is not None:
            generator, np_seed = seeding.np_random(seed)
            self.np_random = generator
            self._np_random_seed = np_seed

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Renders the environment as chosen by :attr:`render_mode` at construction.

        Returns:
            ``None`` for ``None`` and ``"human"``, an ``np.uint8`` array of shape ``(height, width, 3)``
            for ``"rgb_array"``, a string for ``"ansi"``, and lists of those for the ``*_list`` modes.

        Raises:
            NotImplementedError: When a subclass does not implement it.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Releases the environment's resources (windows, files); calling it twice is allowed."""

    @property
    def unwrapped(self) -> Env[ObsType, ActType]:
        """The environment under all wrappers: itself for a bare environment."""
        return self

    @property
    def np_random_seed(self) -> int:
        """The seed of :attr:`np_random`, or -1 when the generator was set directly and its seed is unknown.

        When no generator exists yet, one is created from fresh entropy and that entropy is returned.
        """
        if self._np_random_seed is None:
            generator, np_seed = seeding.np_random()
            self.np_random = generator
            self._np_random_seed = np_seed
        return self._np_random_seed

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's random number generator, created from fresh entropy on first use."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        # A seed cannot be recovered from a generator: -1 marks it unknown (and is no valid seed).
        self._np_random = value
        self._np_random_seed = -1

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores a pickled environment, with writable copies of the arrays an object store handed back read-only."""
        _pickling.restore(self, Env, state)

    def __str__(self) -> str:
        """``<ClassName instance>``, or ``<ClassName<env-id>>`` when the environment has a spec."""
        if self.spec is None:
            return f"<{type(self).__name__} instance>"
        return f"<{type(self).__name__}<{self.spec.id}>>"

    def __enter__(self) -> Self:
        """Returns the environment itself for a ``with`` block."""
        return self

    def __exit__(self, *args: object) -> bool:
        """Closes the environment at the end of a ``with`` block; exceptions propagate."""
        self.close()
        return False

    def has_wrapper_attr(self, name: str) -> bool:
        """Whether the environment has the attribute ``name``."""
        return hasattr(self, name)

    def get_wrapper_attr(self, name: str) -> Any:
        """Returns the attribute ``name`` of the environment.

        Raises:
            AttributeError: The environment has no attribute ``name``.
        """
        return getattr(self, name)

    def set_wrapper_attr(self, name: str, value: Any, *, force: bool = True) -> bool:
        """Sets the attribute ``name`` to ``value`` if it exists or ``force`` is true.

        Args:
            name: The attribute's name.
            value: Its new value.
            force: Whether to create the attribute when the environment does not have it.

        Returns:
            Whether the attribute was set.
        """
        if force or hasattr(self, name):
            setattr(self, name, value)
            return True
        return False


class Wrapper(Env[WrapperObsType, WrapperActType], Generic[WrapperObsType, WrapperActType, ObsType, ActType]):
    """Wraps an :class:`Env` to change its ``step``/``reset``/``render`` behaviour without changing its code.

    :attr:`action_space`, :attr:`observation_space` and :attr:`metadata` are the wrapped environment's
    until the wrapper assigns its own; :attr:`render_mode`, :attr:`np_random`, :attr:`np_random_seed`
    and :attr:`spec` always come from the wrapped environment (the spec with this wrapper appended to
    ``additional_wrappers``). Other attributes are not forwarded: use :meth:`get_wrapper_attr`.

    Subclasses must call ``super().__init__(env)``.
    """

    env: Env[WrapperObsType, WrapperActType]

    def __init__(self, env: Env[WrapperObsType, WrapperActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.

        Raises:
            TypeError: ``env`` is not an :class:`Env`.
        """
        if not isinstance(env, Env):
            raise TypeError(f"Expected env to be a `nbgym.Env` but got {type(env)}{gymnasium_conversion_hint(env)}")
        self.env = env

        self._action_space: Space[WrapperActType] | None = None
        self._observation_space: Space[WrapperObsType] | None = None
        self._metadata: dict[str, Any] | None = None
        self._cached_spec: EnvSpec | None = None

    def step(self, action: WrapperActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the wrapped environment."""
        return self.env.step(action)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Resets the wrapped environment."""
        return self.env.reset(seed=seed, options=options)

    def render(self) -> RenderFrame | list[RenderFrame] | None:
        """Renders the wrapped environment."""
        return self.env.render()

    def close(self) -> None:
        """Closes the wrapped environment."""
        return self.env.close()

    @property
    def np_random_seed(self) -> int | None:
        """The wrapped environment's :attr:`np_random_seed`."""
        return self.env.np_random_seed

    @property
    def unwrapped(self) -> Env[ObsType, ActType]:
        """The bare environment under every layer of wrappers."""
        return self.env.unwrapped

    @property
    def spec(self) -> EnvSpec | None:
        """The wrapped environment's spec with this wrapper's :class:`WrapperSpec` appended to ``additional_wrappers``.

        The wrapper's kwargs are the ones recorded by :class:`~nbgym.utils.RecordConstructorArgs`, or
        ``None`` when the wrapper does not record them (such a spec cannot be re-made).
        """

        def add_wrapper(spec: EnvSpec) -> None:
            from nbgym.registration import WrapperSpec

            if isinstance(self, RecordConstructorArgs):
                kwargs: dict[str, Any] | None = self._saved_kwargs
                if "env" in kwargs:
                    kwargs = {key: deepcopy(value) for key, value in kwargs.items() if key != "env"}
            else:
                kwargs = None
            spec.additional_wrappers += (
                WrapperSpec(
                    name=self.class_name(), entry_point=f"{self.__module__}:{type(self).__name__}", kwargs=kwargs
                ),
            )

        return self._derived_spec(add_wrapper)

    def _derived_spec(self, modify: Callable[[EnvSpec], None]) -> EnvSpec | None:
        """Returns (and caches) a copy of the wrapped environment's spec changed by ``modify``.

        Args:
            modify: Changes the copied spec in place.

        Returns:
            The changed copy, or ``None`` when the wrapped environment has no spec or its spec cannot
            be copied (a warning says why).
        """
        if self._cached_spec is not None:
            return self._cached_spec

        env_spec = self.env.spec
        if env_spec is not None:
            # A copy, so that the spec of the wrapped environment is left as it is.
            try:
                env_spec = deepcopy(env_spec)
                modify(env_spec)
            except Exception as e:
                logger.warn(f"An exception occurred ({e}) while copying the environment spec={env_spec}")
                return None

        self._cached_spec = env_spec
        return env_spec

    @classmethod
    def wrapper_spec(cls, **kwargs: Any) -> WrapperSpec:
        """Returns a :class:`WrapperSpec` of this wrapper class with ``kwargs``."""
        from nbgym.registration import WrapperSpec

        return WrapperSpec(name=cls.class_name(), entry_point=f"{cls.__module__}:{cls.__name__}", kwargs=kwargs)

    def has_wrapper_attr(self, name: str) -> bool:
        """Whether this wrapper or an environment under it has the attribute ``name``."""
        if hasattr(self, name):
            return True
        return self.env.has_wrapper_attr(name)

    def get_wrapper_attr(self, name: str) -> Any:
        """Returns the attribute ``name`` of the outermost layer (this wrapper or one below it) that has it.

        Raises:
            AttributeError: No layer has the attribute.
        """
        if hasattr(self, name):
            return getattr(self, name)
        try:
            return self.env.get_wrapper_attr(name)
        except AttributeError as e:
            raise AttributeError(f"wrapper {self.class_name()} has no attribute {name!r}") from e

    def set_wrapper_attr(self, name: str, value: Any, *, force: bool = True) -> bool:
        """Sets the attribute ``name`` on the outermost layer that has it.

        Args:
            name: The attribute's name.
            value: Its new value.
            force: Whether to create the attribute on this wrapper when no layer has it.

        Returns:
            Whether the attribute was set.
        """
        if hasattr(self, name):
            setattr(self, name, value)
            return True
        if self.env.set_wrapper_attr(name, value, force=False):
            return True
        if force:
            setattr(self, name, value)
            return True
        return False

    def __str__(self) -> str:
        """``<WrapperName<inner env>>``."""
        return f"<{type(self).__name__}{self.env}>"

    def __repr__(self) -> str:
        """The same as :meth:`__str__`."""
        return str(self)

    @classmethod
    def class_name(cls) -> str:
        """The wrapper's class name."""
        return cls.__name__

    @property
    def action_space(self) -> Space[ActType] | Space[WrapperActType]:
        """This wrapper's action space if it set one, else the wrapped environment's."""
        if self._action_space is None:
            return self.env.action_space
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[WrapperActType]) -> None:
        self._action_space = space

    @property
    def observation_space(self) -> Space[ObsType] | Space[WrapperObsType]:
        """This wrapper's observation space if it set one, else the wrapped environment's."""
        if self._observation_space is None:
            return self.env.observation_space
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[WrapperObsType]) -> None:
        self._observation_space = space

    @property
    def metadata(self) -> dict[str, Any]:
        """This wrapper's metadata if it set one, else the wrapped environment's."""
        if self._metadata is None:
            return self.env.metadata
        return self._metadata

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self._metadata = value

    @property
    def render_mode(self) -> str | None:
        """The wrapped environment's render mode."""
        return self.env.render_mode

    @property
    def np_random(self) -> np.random.Generator:
        """The wrapped environment's random number generator."""
        return self.env.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.env.np_random = value

    @property
    def _np_random(self) -> np.random.Generator:
        """A wrapper has no generator of its own: this attribute always raises.

        Raises:
            AttributeError: Always; the message points to ``np_random`` or ``unwrapped._np_random``.
        """
        raise AttributeError("Can't access `_np_random` of a wrapper, use `.unwrapped._np_random` or `.np_random`.")


class ObservationWrapper(Wrapper[WrapperObsType, ActType, ObsType, ActType]):
    """A wrapper that transforms the observations of ``reset`` and ``step`` with :meth:`observation`.

    A subclass implements :meth:`observation`, and sets :attr:`observation_space` in its constructor when
    the transformation changes the space.
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
        """
        Wrapper.__init__(self, env)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Resets the wrapped environment and transforms its observation."""
        obs, info = self.env.reset(seed=seed, options=options)
        return self.observation(obs), info

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the wrapped environment and transforms its observation."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self.observation(obs), reward, terminated, truncated, info

    def observation(self, observation: ObsType) -> WrapperObsType:
        """Returns the transformed ``observation``.

        Raises:
            NotImplementedError: When a subclass does not implement it.
        """
        raise NotImplementedError


class RewardWrapper(Wrapper[ObsType, ActType, ObsType, ActType]):
    """A wrapper that transforms the reward of ``step`` with :meth:`reward`."""

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
        """
        Wrapper.__init__(self, env)

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the wrapped environment and transforms its reward."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, self.reward(reward), terminated, truncated, info

    def reward(self, reward: SupportsFloat) -> SupportsFloat:
        """Returns the transformed ``reward``.

        Raises:
            NotImplementedError: When a subclass does not implement it.
        """
        raise NotImplementedError


class ActionWrapper(Wrapper[ObsType, WrapperActType, ObsType, ActType]):
    """A wrapper that transforms the action with :meth:`action` before the wrapped environment's ``step``.

    A subclass implements :meth:`action`, and sets :attr:`action_space` in its constructor when the
    actions it accepts differ from the wrapped environment's.
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
        """
        Wrapper.__init__(self, env)

    def step(self, action: WrapperActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the wrapped environment with the transformed action."""
        return self.env.step(self.action(action))

    def action(self, action: WrapperActType) -> ActType:
        """Returns the transformed ``action``.

        Raises:
            NotImplementedError: When a subclass does not implement it.
        """
        raise NotImplementedError
