"""Reward wrappers of vector environments that transform each reward with a function of it alone.

* :class:`TransformReward` - applies a function to the batched rewards.
* :class:`VectorizeTransformReward` - applies a single-environment transform wrapper to every reward.
* :class:`ClipReward` - the batched counterpart of :class:`nbgym.wrappers.ClipReward`.

As in gymnasium, ``VectorizeTransformReward`` and ``ClipReward`` write the new rewards into the
reward array that the environment returned.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from nbgym.core import ActType, Env, ObsType
from nbgym.vector.vector_env import ArrayType, VectorEnv, VectorRewardWrapper
from nbgym.wrappers import transform_reward

__all__ = ["TransformReward", "VectorizeTransformReward", "ClipReward"]


class TransformReward(VectorRewardWrapper[ObsType, ActType, ArrayType]):
    """Applies ``func`` to the batched rewards of every ``step``.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers.vector import TransformReward
        >>> envs = TransformReward(nbgym.make_vec("CartPole-v1", num_envs=2), lambda rewards: rewards * 0.5)
        >>> _ = envs.reset(seed=123)
        >>> envs.step(np.array([0, 1]))[1]
        array([0.5, 0.5])
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], func: Callable[[ArrayType], ArrayType]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            func: The function applied to each batch of rewards.
        """
        super().__init__(env)
        self.func = func

    def rewards(self, rewards: ArrayType) -> ArrayType:
        """Returns ``func(rewards)``."""
        return self.func(rewards)


class VectorizeTransformReward(VectorRewardWrapper[ObsType, ActType, np.ndarray]):
    """Applies a single-environment transform-reward wrapper to every sub-environment's reward.

    ``wrapper`` (a :class:`nbgym.wrappers.TransformReward` subclass) is built with ``kwargs``; its
    ``func`` is applied to each reward, and the result is written back into the reward array.

    Attributes:
        wrapper: The single-environment wrapper.
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, np.ndarray],
        wrapper: type[transform_reward.TransformReward],
        **kwargs: Any,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            wrapper: The single-environment wrapper class.
            **kwargs: The wrapper's arguments.
        """
        super().__init__(env)
        self.wrapper = wrapper(Env(), **kwargs)

    def rewards(self, rewards: np.ndarray) -> np.ndarray:
        """Applies the wrapper's ``func`` to each reward, in place."""
        batched = self._transform_batch(rewards)
        if batched is not None:
            rewards[...] = batched
            return rewards
        for i, reward in enumerate(rewards):
            rewards[i] = self.wrapper.func(reward)
        return rewards

    def _transform_batch(self, rewards: np.ndarray) -> np.ndarray | None:
        """The transformed rewards as an array, or ``None`` when the transformation has no batched form."""
        return None


class ClipReward(VectorizeTransformReward[ObsType, ActType]):
    """Clips every reward of the batch into ``[min_reward, max_reward]`` (a ``None`` bound does not clip).

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers.vector import ClipReward
        >>> envs = ClipReward(nbgym.make_vec("CartPole-v1", num_envs=2), 0.0, 0.5)
        >>> _ = envs.reset(seed=123)
        >>> envs.step(np.array([0, 1]))[1]
        array([0.5, 0.5])
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, np.ndarray],
        min_reward: float | np.ndarray | None = None,
        max_reward: float | np.ndarray | None = None,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            min_reward: The lower bound, or ``None`` for none.
            max_reward: The upper bound, or ``None`` for none.

        Raises:
            InvalidBound: Both bounds are ``None``, or ``min_reward > max_reward``.
        """
        super().__init__(env, transform_reward.ClipReward, min_reward=min_reward, max_reward=max_reward)
        self._bounds = (min_reward, max_reward)

    def _transform_batch(self, rewards: np.ndarray) -> np.ndarray:
        """The clipped rewards.

        Raises:
            ValueError: A bound is an array (clipping one reward with it would give an array, which a
                reward slot cannot hold; gymnasium fails there too).
        """
        min_reward, max_reward = self._bounds
        if np.ndim(min_reward) or np.ndim(max_reward):
            raise ValueError(
                f"ClipReward of a vector environment clips every reward with scalar bounds, got min_reward="
                f"{min_reward!r} and max_reward={max_reward!r}; for bounds per sub-environment use "
                "`TransformReward(env, lambda rewards: np.clip(rewards, min_reward, max_reward))`."
            )
        return np.clip(rewards, min_reward, max_reward)
