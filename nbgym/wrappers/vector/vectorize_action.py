"""Action wrappers of vector environments that transform each action with a function of it alone.

* :class:`TransformAction` - applies a function to the batched actions.
* :class:`VectorizeTransformAction` - applies a single-environment transform wrapper to every
  sub-environment's action.
* :class:`ClipAction`, :class:`RescaleAction` - the batched counterparts of the wrappers of
  :mod:`nbgym.wrappers.transform_action`, computed with array operations over the whole batch.

As in gymnasium, the transformed actions are batched into the environment's action dtype, and written
into the given action array when the wrapper's action space equals the environment's.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Callable

import numpy as np

from nbgym.core import ActType, Env, ObsType, WrapperActType
from nbgym.logger import warn
from nbgym.spaces import Space
from nbgym.vector.utils import batch_space, concatenate, create_empty_array, iterate
from nbgym.vector.vector_env import ArrayType, VectorActionWrapper, VectorEnv
from nbgym.wrappers import transform_action

__all__ = ["TransformAction", "VectorizeTransformAction", "ClipAction", "RescaleAction"]


class TransformAction(VectorActionWrapper[ObsType, WrapperActType, ActType, ArrayType]):
    """Applies ``func`` to the batched actions before the environment's ``step``.

    ``func`` transforms the whole batch at once; to apply a function to each sub-environment's action
    instead, use :class:`VectorizeTransformAction`.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers.vector import TransformAction
        >>> envs = TransformAction(nbgym.make_vec("CartPole-v1", num_envs=2), lambda actions: 1 - actions)
        >>> _ = envs.reset(seed=123)
        >>> envs.step(np.array([0, 1]))[0].shape
        (2, 4)
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        func: Callable[[WrapperActType], ActType],
        action_space: Space | None = None,
        single_action_space: Space | None = None,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            func: The function applied to each batch of actions.
            action_space: The batched space of the actions this wrapper accepts; ``None`` batches
                ``single_action_space`` (or keeps the environment's space when that is ``None`` too).
            single_action_space: One sub-environment's space of the accepted actions; ``None`` keeps the
                environment's.
        """
        super().__init__(env)
        if action_space is None:
            if single_action_space is not None:
                self.single_action_space = single_action_space
                self.action_space = batch_space(single_action_space, self.num_envs)
        else:
            self.action_space = action_space
            if single_action_space is not None:
                self.single_action_space = single_action_space

        if self.action_space != batch_space(self.single_action_space, self.num_envs):
            warn(
                f"For {env}, the action space and the batched single action space don't match as expected, "
                f"action_space={env.action_space}, batched single_action_space="
                f"{batch_space(self.single_action_space, self.num_envs)}"
            )
        self.func = func

    def actions(self, actions: WrapperActType) -> ActType:
        """Returns ``func(actions)``."""
        return self.func(actions)


class _SingleActionEnv(Env):
    """A stand-in environment with only an action space, to build a single-environment wrapper on."""

    def __init__(self, action_space: Space) -> None:
        self.action_space = action_space


class VectorizeTransformAction(VectorActionWrapper[ObsType, WrapperActType, ActType, ArrayType]):
    """Applies a single-environment transform-action wrapper to every sub-environment's action.

    ``wrapper`` (a :class:`nbgym.wrappers.TransformAction` subclass) is built with ``kwargs`` on a
    stand-in environment with one sub-environment's action space; its ``func`` is applied to each
    sub-environment's action, and the results are batched into the environment's action dtype.

    Attributes:
        wrapper: The single-environment wrapper.
        same_out: Whether the wrapper's action space equals the environment's (the result is then
            written into the given actions).
        out: The buffer that the transformed actions are batched into.
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        wrapper: type[transform_action.TransformAction],
        **kwargs: Any,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            wrapper: The single-environment wrapper class.
            **kwargs: The wrapper's arguments.
        """
        super().__init__(env)
        self.wrapper = wrapper(_SingleActionEnv(self.env.single_action_space), **kwargs)
        self.single_action_space = self.wrapper.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.same_out = self.action_space == self.env.action_space
        self.out = create_empty_array(self.env.single_action_space, self.num_envs)

    def actions(self, actions: WrapperActType) -> ActType:
        """Transforms every sub-environment's action with the wrapper's ``func`` and batches the results."""
        batched = self._transform_batch(actions)
        if batched is None:
            return self._transform_each(actions)
        if self.same_out and isinstance(actions, np.ndarray):
            actions[...] = batched
            return actions
        return batched

    def _transform_each(self, actions: WrapperActType) -> ActType:
        """Applies ``func`` sub-environment by sub-environment (for functions with no batched form)."""
        items = tuple(self.wrapper.func(action) for action in iterate(self.action_space, actions))
        if self.same_out:
            return concatenate(self.env.single_action_space, items, actions)
        return deepcopy(concatenate(self.env.single_action_space, items, self.out))

    def _transform_batch(self, actions: WrapperActType) -> np.ndarray | None:
        """The transformed batch as a new array, or ``None`` when the transformation has no batched form."""
        return None


class ClipAction(VectorizeTransformAction[ObsType, WrapperActType, ActType, ArrayType]):
    """Clips every action of the batch into the bounds of the ``Box`` action space.

    The batched counterpart of :class:`nbgym.wrappers.ClipAction`.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.spaces import Box
        >>> from nbgym.wrappers.vector import ClipAction, TransformAction
        >>> envs = TransformAction(
        ...     nbgym.make_vec("CartPole-v1", num_envs=2),
        ...     lambda a: (a[:, 0] > 0).astype(np.int64),
        ...     single_action_space=Box(-1.0, 1.0, (1,)),
        ... )
        >>> ClipAction(envs).action_space
        Box(-inf, inf, (2, 1), float32)
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its single action space must be a ``Box``.
        """
        super().__init__(env, transform_action.ClipAction)

    def _transform_batch(self, actions: Any) -> np.ndarray:
        space = self.env.single_action_space
        return np.clip(actions, space.low, space.high).astype(space.dtype, copy=False)


class RescaleAction(VectorizeTransformAction[ObsType, WrapperActType, ActType, ArrayType]):
    """Accepts batches of actions in ``[min_action, max_action]`` and maps them affinely onto the ``Box`` action space.

    The batched counterpart of :class:`nbgym.wrappers.RescaleAction`.
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        min_action: float | int | np.ndarray,
        max_action: float | int | np.ndarray,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its single action space must be a ``Box``.
            min_action: The lowest action: a number, or an array of one action's shape.
            max_action: The highest action: a number, or an array of one action's shape.
        """
        super().__init__(env, transform_action.RescaleAction, min_action=min_action, max_action=max_action)

    def _transform_batch(self, actions: Any) -> np.ndarray:
        # The inverse affine map is elementwise: it broadcasts over the leading sub-environment axis.
        rescaled = self.wrapper.func(np.asarray(actions))
        return np.asarray(rescaled).astype(self.env.single_action_space.dtype, copy=False)
