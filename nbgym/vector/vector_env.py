"""The base class of vector environments and of their wrappers."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from typing_extensions import TypeVar

from nbgym.core import ActType, ObsType, RenderFrame, WrapperActType, WrapperObsType, gymnasium_conversion_hint
from nbgym.logger import warn
from nbgym.utils import _pickling, seeding

if TYPE_CHECKING:
    from typing_extensions import Self

    from nbgym.registration import EnvSpec
    from nbgym.spaces import Space

__all__ = [
    "VectorEnv",
    "VectorWrapper",
    "VectorObservationWrapper",
    "VectorActionWrapper",
    "VectorRewardWrapper",
    "ArrayType",
    "AutoresetMode",
]

ArrayType = TypeVar("ArrayType", default=Any)

# Info values of these exact types (and numpy numbers) are batched into a typed array; any other
# non-array value goes into an object array.
_SCALAR_INFO_TYPES = (int, float, bool)


class AutoresetMode(Enum):
    """When a vector environment resets a sub-environment whose episode has ended.

    - ``NEXT_STEP``: on the next ``step``, which ignores that env's action and returns its reset
      observation and info, reward 0 and no termination or truncation.
    - ``SAME_STEP``: in the same ``step``, which returns the reset observation with the step's
      reward and flags; the step's own observation and info are in ``info["final_obs"]`` and
      ``info["final_info"]``.
    - ``DISABLED``: never; the user resets ended sub-environments with
      ``reset(options={"reset_mask": mask})``.

    A member equals gymnasium's member of its name (``gymnasium.vector.AutoresetMode``), either way round and in sets
    and dicts, so that code moved from gymnasium which compares ``envs.metadata["autoreset_mode"]`` with gymnasium's
    members takes the branch it took there; ``is`` and ``isinstance`` tell the two apart.
    """

    NEXT_STEP = "NextStep"
    SAME_STEP = "SameStep"
    DISABLED = "Disabled"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AutoresetMode):
            return self is other
        kind = type(other)
        if isinstance(other, Enum) and kind.__name__ == "AutoresetMode" and kind.__module__.startswith("gymnasium."):
            return other.name == self.name and other.value == self.value
        return NotImplemented

    __hash__ = Enum.__hash__  # the member's name's, as gymnasium's members hash


class VectorEnv(Generic[ObsType, ActType, ArrayType]):
    """Base class of environments that run several independent copies of an environment as one.

    ``reset`` and ``step`` return batches: observations batched as ``observation_space`` (see
    :func:`nbgym.vector.utils.batch_space`), rewards, terminations and truncations as arrays of shape
    ``(num_envs,)``, and one info dict in which every key ``k`` maps to an array over the
    sub-environments, with a boolean mask ``_k`` telling which sub-environments gave that key.

    Sub-environments whose episode ended are reset automatically as ``metadata["autoreset_mode"]``
    (an :class:`AutoresetMode`) says.

    Attributes:
        num_envs: The number of sub-environments.
        observation_space: The batched observation space.
        action_space: The batched action space.
        single_observation_space: The observation space of one sub-environment.
        single_action_space: The action space of one sub-environment.
        metadata: The environment's metadata, including ``"autoreset_mode"``.
        spec: The spec the environment was made from with :func:`nbgym.make_vec`, if any.
        render_mode: The render mode of the sub-environments.
        closed: Whether :meth:`close` has been called.
    """

    metadata: dict[str, Any] = {}
    spec: EnvSpec | None = None
    render_mode: str | None = None
    closed: bool = False

    observation_space: Space[Any]
    action_space: Space[Any]
    single_observation_space: Space[Any]
    single_action_space: Space[Any]

    num_envs: int

    _np_random: np.random.Generator | None = None
    _np_random_seed: int | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:  # type: ignore[return]
        """Reset every sub-environment and return the batched initial observations and info.

        The base implementation only seeds :attr:`np_random` when ``seed`` is given; subclasses
        call it (or seed their sub-environments) and return the batch.

        Args:
            seed: The seed of the reset.
            options: Options for the reset of each sub-environment.

        Returns:
            The batched observations and the merged info.
        """
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)

    def step(self, actions: ActType) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Take one step in every sub-environment.

        Args:
            actions: A batch of actions, an element of :attr:`action_space`.

        Returns:
            The batched ``(observations, rewards, terminations, truncations, infos)``.

        Raises:
            NotImplementedError: If the subclass does not implement it.
        """
        raise NotImplementedError(f"{self.__str__()} step function is not implemented.")

    def render(self) -> tuple[RenderFrame, ...] | None:
        """The rendered frames of the sub-environments.

        Raises:
            NotImplementedError: If the subclass does not implement it.
        """
        raise NotImplementedError(f"{self.__str__()} render function is not implemented.")

    def close(self, **kwargs: Any) -> None:
        """Close the sub-environments and release every resource, once; later calls do nothing.

        The work is done by :meth:`close_extras`; then :attr:`closed` is set. It is also called
        when the environment is garbage collected unclosed.

        Args:
            **kwargs: Keyword arguments for :meth:`close_extras`.
        """
        if self.closed:
            return
        self.close_extras(**kwargs)
        self.closed = True

    def close_extras(self, **kwargs: Any) -> None:
        """Release the resources of the subclass (sub-environments, processes, ...)."""

    def __del__(self) -> None:
        """Close the environment if it is collected unclosed."""
        # `getattr` with a default: the instance may be half built if `__init__` raised.
        if not getattr(self, "closed", True):
            self.close()

    @property
    def np_random(self) -> np.random.Generator:
        """The vector environment's own random generator, seeded randomly on first use if unseeded."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._np_random = value
        # The seed that made a generator set from outside is unknown.
        self._np_random_seed = -1

    @property
    def np_random_seed(self) -> int | None:
        """The seed of :attr:`np_random` (-1 if the generator was set directly), seeding it if unseeded."""
        if self._np_random_seed is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random_seed

    @property
    def unwrapped(self) -> Self:
        """The base vector environment: this one."""
        return self

    def _add_info(self, vector_infos: dict[str, Any], env_info: dict[str, Any], env_num: int) -> dict[str, Any]:
        """Merge the info of sub-environment ``env_num`` into the batched info.

        Every key ``k`` becomes an array over the sub-environments plus a boolean mask ``_k``
        telling which of them gave it. Python ``int``/``float``/``bool`` and numpy numbers go into
        ``np.zeros(num_envs, type(value))``, arrays into ``(num_envs, *shape)`` arrays of their dtype,
        dicts are merged recursively, anything else (and ``final_obs``) into object arrays.

        Args:
            vector_infos: The batched info so far (updated in place).
            env_info: The info of one sub-environment.
            env_num: The index of that sub-environment.

        Returns:
            The updated batched info.
        """
        n = self.num_envs
        for key, value in env_info.items():
            if isinstance(value, dict) and key != "final_obs":
                batched = self._add_info(vector_infos.get(key, {}), value, env_num)
            else:
                batched = vector_infos.get(key)
                if batched is None:
                    batched = _new_info_array(key, value, n)
                batched[env_num] = value

            mask = vector_infos.get(f"_{key}")
            if mask is None:
                mask = np.zeros(n, dtype=np.bool_)
            mask[env_num] = True
            vector_infos[key] = batched
            vector_infos[f"_{key}"] = mask
        return vector_infos

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restores a pickled vector environment, with writable copies of the arrays an object store handed back read-only."""
        _pickling.restore(self, VectorEnv, state)

    def __repr__(self) -> str:
        """The class name, the spec's id (if any) and the number of sub-environments."""
        if self.spec is None:
            return f"{self.__class__.__name__}(num_envs={self.num_envs})"
        return f"{self.__class__.__name__}({self.spec.id}, num_envs={self.num_envs})"


def _new_info_array(key: str, value: Any, n: int) -> np.ndarray:
    # Final observations stay unbatched (one object per sub-environment), as they are easier to use
    # that way and may not fit the observation buffer's layout.
    if key == "final_obs":
        return np.full(n, None, dtype=object)
    if type(value) in _SCALAR_INFO_TYPES or isinstance(value, np.number):
        return np.zeros(n, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((n, *value.shape), dtype=value.dtype)
    return np.full(n, None, dtype=object)


class VectorWrapper(
    VectorEnv[WrapperObsType, WrapperActType, ArrayType],
    Generic[WrapperObsType, WrapperActType, ObsType, ActType, ArrayType],
):
    """Base class of the wrappers of vector environments, the vector counterpart of :class:`nbgym.Wrapper`.

    Every attribute and method forwards to the wrapped environment unless the subclass overrides
    it; the spaces and metadata can be overridden by assigning them.

    Note:
        A subclass that overrides ``__init__`` must call ``super().__init__(env)``.
    """

    env: VectorEnv[ObsType, ActType, ArrayType]

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        """Wrap ``env``.

        Args:
            env: The vector environment to wrap.

        Raises:
            TypeError: If ``env`` is not a :class:`VectorEnv`.
        """
        self.env = env
        if not isinstance(env, VectorEnv):
            raise TypeError(
                f"Expected env to be an `nbgym.vector.VectorEnv` but got {type(env)}{gymnasium_conversion_hint(env)}"
            )

        self._observation_space: Space[Any] | None = None
        self._action_space: Space[Any] | None = None
        self._single_observation_space: Space[Any] | None = None
        self._single_action_space: Space[Any] | None = None
        self._metadata: dict[str, Any] | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the wrapped environment."""
        return self.env.reset(seed=seed, options=options)  # type: ignore[return-value]

    def step(self, actions: WrapperActType) -> tuple[WrapperObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the wrapped environment."""
        return self.env.step(actions)  # type: ignore[arg-type, return-value]

    def render(self) -> tuple[RenderFrame, ...] | None:
        """Render the wrapped environment."""
        return self.env.render()

    def close(self, **kwargs: Any) -> None:
        """Close the wrapped environment."""
        return self.env.close(**kwargs)

    def close_extras(self, **kwargs: Any) -> None:
        """Release the wrapped environment's extra resources."""
        return self.env.close_extras(**kwargs)

    def __del__(self) -> None:
        """Do nothing: a wrapper holds no resources, and the wrapped env may outlive it."""

    @property
    def unwrapped(self) -> VectorEnv[Any, Any, Any]:
        """The innermost, unwrapped vector environment."""
        return self.env.unwrapped

    def __repr__(self) -> str:
        """The wrapper's class name and the wrapped environment."""
        return f"<{self.__class__.__name__}, {self.env}>"

    @property
    def observation_space(self) -> Space[Any]:
        """The batched observation space (the wrapped env's unless assigned)."""
        if self._observation_space is None:
            return self.env.observation_space
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[Any]) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> Space[Any]:
        """The batched action space (the wrapped env's unless assigned)."""
        if self._action_space is None:
            return self.env.action_space
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[Any]) -> None:
        self._action_space = space

    @property
    def single_observation_space(self) -> Space[Any]:
        """The observation space of one sub-environment (the wrapped env's unless assigned)."""
        if self._single_observation_space is None:
            return self.env.single_observation_space
        return self._single_observation_space

    @single_observation_space.setter
    def single_observation_space(self, space: Space[Any]) -> None:
        self._single_observation_space = space

    @property
    def single_action_space(self) -> Space[Any]:
        """The action space of one sub-environment (the wrapped env's unless assigned)."""
        if self._single_action_space is None:
            return self.env.single_action_space
        return self._single_action_space

    @single_action_space.setter
    def single_action_space(self, space: Space[Any]) -> None:
        self._single_action_space = space

    @property
    def num_envs(self) -> int:
        """The number of sub-environments of the wrapped environment."""
        return self.env.num_envs

    @property
    def np_random(self) -> np.random.Generator:
        """The wrapped environment's :attr:`VectorEnv.np_random`."""
        return self.env.np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.env.np_random = value

    @property
    def np_random_seed(self) -> int | None:
        """The wrapped environment's :attr:`VectorEnv.np_random_seed`."""
        return self.env.np_random_seed

    @property
    def metadata(self) -> dict[str, Any]:
        """The metadata (the wrapped env's unless assigned)."""
        if self._metadata is not None:
            return self._metadata
        return self.env.metadata

    @metadata.setter
    def metadata(self, value: dict[str, Any]) -> None:
        self._metadata = value

    @property
    def spec(self) -> EnvSpec | None:
        """The wrapped environment's spec."""
        return self.env.spec

    @property
    def render_mode(self) -> str | None:
        """The wrapped environment's render mode."""
        return self.env.render_mode

    @property
    def closed(self) -> bool:
        """Whether the wrapped environment is closed."""
        return self.env.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.env.closed = value


class VectorObservationWrapper(VectorWrapper[WrapperObsType, ActType, ObsType, ActType, ArrayType]):
    """A vector wrapper that transforms the batched observations with :meth:`observations`.

    Only for ``NEXT_STEP`` or ``DISABLED`` autoreset: in ``SAME_STEP`` mode the final observations in
    the info would not be transformed.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        """Wrap ``env``.

        Args:
            env: The vector environment to wrap.

        Raises:
            ValueError: If ``env`` autoresets in ``SAME_STEP`` mode.
        """
        super().__init__(env)
        if "autoreset_mode" not in env.metadata:
            warn(f"Vector environment ({env}) is missing `autoreset_mode` metadata key.")
        elif env.metadata["autoreset_mode"] not in (AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED):
            raise ValueError(
                f"Expected autoreset_mode to be NEXT_STEP or DISABLED, got {env.metadata['autoreset_mode']}"
            )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Reset the wrapped environment and transform its observations."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return self.observations(observations), infos

    def step(self, actions: ActType) -> tuple[WrapperObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the wrapped environment and transform its observations."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return self.observations(observations), rewards, terminations, truncations, infos

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Transform a batch of observations.

        Args:
            observations: The wrapped environment's batched observations.

        Returns:
            The transformed observations.
        """
        raise NotImplementedError


class VectorActionWrapper(VectorWrapper[ObsType, WrapperActType, ObsType, ActType, ArrayType]):
    """A vector wrapper that transforms the batched actions with :meth:`actions` before stepping."""

    def step(self, actions: WrapperActType) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the wrapped environment with the transformed actions."""
        return self.env.step(self.actions(actions))

    def actions(self, actions: WrapperActType) -> ActType:
        """Transform a batch of actions.

        Args:
            actions: The batched actions given to this wrapper.

        Returns:
            The actions for the wrapped environment.
        """
        raise NotImplementedError


class VectorRewardWrapper(VectorWrapper[ObsType, ActType, ObsType, ActType, ArrayType]):
    """A vector wrapper that transforms the batched rewards with :meth:`rewards`."""

    def step(self, actions: ActType) -> tuple[ObsType, ArrayType, ArrayType, ArrayType, dict[str, Any]]:
        """Step the wrapped environment and transform its rewards."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return observations, self.rewards(rewards), terminations, truncations, infos

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Transform a batch of rewards.

        Args:
            rewards: The wrapped environment's rewards.

        Returns:
            The transformed rewards.
        """
        raise NotImplementedError
