"""Observation wrappers of vector environments that transform each observation with a function of it alone.

* :class:`TransformObservation` - applies a function to the batched observations.
* :class:`VectorizeTransformObservation` - applies a single-environment transform wrapper to every
  sub-environment's observation.
* :class:`FilterObservation`, :class:`FlattenObservation`, :class:`GrayscaleObservation`,
  :class:`ResizeObservation`, :class:`ReshapeObservation`, :class:`RescaleObservation`,
  :class:`DtypeObservation` - the batched counterparts of the wrappers of
  :mod:`nbgym.wrappers.transform_observation`.

The named wrappers transform the whole batch with array operations (no loop over sub-environments,
except ``ResizeObservation``, which resizes image by image with OpenCV) and give exactly the arrays
that gymnasium's wrappers build sub-environment by sub-environment. As in gymnasium, when the new
space equals the old one the result is written into the observation array it replaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from typing import Any, Callable

import numpy as np

from nbgym import spaces
from nbgym.core import ActType, Env, ObsType, WrapperObsType
from nbgym.logger import warn
from nbgym.vector.utils import batch_space, concatenate, create_empty_array, iterate
from nbgym.vector.vector_env import ArrayType, VectorEnv, VectorObservationWrapper
from nbgym.wrappers import transform_observation
from nbgym.wrappers.vector.common import autoreset_mode_of

__all__ = [
    "TransformObservation",
    "VectorizeTransformObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "ResizeObservation",
    "ReshapeObservation",
    "RescaleObservation",
    "DtypeObservation",
]


class TransformObservation(VectorObservationWrapper[WrapperObsType, ActType, ObsType, ArrayType]):
    """Applies ``func`` to the batched observations of ``reset`` and ``step``.

    ``func`` transforms the whole batch at once; to apply a function to each sub-environment's
    observation instead, use :class:`VectorizeTransformObservation` (or a named wrapper).

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers.vector import TransformObservation
        >>> envs = TransformObservation(nbgym.make_vec("CartPole-v1", num_envs=2), lambda obs: obs - obs.mean(0))
        >>> envs.reset(seed=123)[0].shape
        (2, 4)
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        func: Callable[[ObsType], WrapperObsType],
        observation_space: spaces.Space | None = None,
        single_observation_space: spaces.Space | None = None,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            func: The function applied to each batch of observations.
            observation_space: The batched space of the transformed observations; ``None`` batches
                ``single_observation_space`` (or keeps the environment's space when that is ``None`` too).
            single_observation_space: One sub-environment's space of the transformed observations;
                ``None`` keeps the environment's.
        """
        super().__init__(env)
        if observation_space is None:
            if single_observation_space is not None:
                self.single_observation_space = single_observation_space
                self.observation_space = batch_space(single_observation_space, self.num_envs)
        else:
            self.observation_space = observation_space
            if single_observation_space is not None:
                self.single_observation_space = single_observation_space

        if self.observation_space != batch_space(self.single_observation_space, self.num_envs):
            warn(
                f"For {env}, the observation space and the batched single observation space don't match as "
                f"expected, observation_space={env.observation_space}, batched single_observation_space="
                f"{batch_space(self.single_observation_space, self.num_envs)}"
            )
        self.func = func

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Returns ``func(observations)``."""
        return self.func(observations)


class _SingleObservationEnv(Env):
    """A stand-in environment with only an observation space, to build a single-environment wrapper on."""

    def __init__(self, observation_space: spaces.Space) -> None:
        self.observation_space = observation_space


class VectorizeTransformObservation(VectorObservationWrapper[WrapperObsType, ActType, ObsType, ArrayType]):
    """Applies a single-environment transform-observation wrapper to every sub-environment's observation.

    ``wrapper`` (a :class:`nbgym.wrappers.TransformObservation` subclass) is built with ``kwargs`` on a
    stand-in environment with one sub-environment's observation space; its ``func`` is applied to each
    sub-environment's observation, and the results are batched again.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import TransformObservation as SingleTransform
        >>> from nbgym.wrappers.vector import VectorizeTransformObservation
        >>> envs = VectorizeTransformObservation(
        ...     nbgym.make_vec("CartPole-v1", num_envs=2),
        ...     SingleTransform,
        ...     func=lambda obs: obs[:2],
        ...     observation_space=nbgym.spaces.Box(-5.0, 5.0, (2,)),
        ... )
        >>> envs.reset(seed=123)[0].shape
        (2, 2)

    Attributes:
        wrapper: The single-environment wrapper.
        same_out: Whether the new space equals the old one (the result is then written in place).
        out: The buffer that the transformed observations are batched into.
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        wrapper: type[transform_observation.TransformObservation],
        **kwargs: Any,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            wrapper: The single-environment wrapper class.
            **kwargs: The wrapper's arguments.

        Raises:
            TypeError: ``env.metadata["autoreset_mode"]`` is not an ``AutoresetMode``.
            ValueError: The environment autoresets in ``SAME_STEP`` mode.
        """
        super().__init__(env)
        self.autoreset_mode = autoreset_mode_of(
            env, f"Vector environment ({env}) is missing `autoreset_mode` metadata key."
        )
        self.wrapper = wrapper(_SingleObservationEnv(self.env.single_observation_space), **kwargs)
        self.single_observation_space = self.wrapper.observation_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.same_out = self.observation_space == self.env.observation_space
        self.out = create_empty_array(self.single_observation_space, self.num_envs)

    def observations(self, observations: ObsType) -> WrapperObsType:
        """Transforms every sub-environment's observation with the wrapper's ``func`` and batches the results."""
        batched = self._transform_batch(observations)
        if batched is None:
            return self._transform_each(observations)
        if self.same_out and isinstance(observations, np.ndarray):
            observations[...] = batched
            return observations
        return batched

    def _transform_each(self, observations: ObsType) -> WrapperObsType:
        """Applies ``func`` sub-environment by sub-environment (for functions with no batched form)."""
        if self.same_out:
            items = tuple(self.wrapper.func(obs) for obs in iterate(self.observation_space, observations))
            return concatenate(self.single_observation_space, items, observations)
        items = tuple(self.wrapper.func(obs) for obs in iterate(self.env.observation_space, observations))
        return deepcopy(concatenate(self.single_observation_space, items, self.out))

    def _transform_batch(self, observations: ObsType) -> WrapperObsType | None:
        """The transformed batch as new arrays, or ``None`` when the transformation has no batched form."""
        return None


class FilterObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Keeps only the ``filter_keys`` of ``Dict`` observations (indexes of ``Tuple`` ones), for a whole batch.

    The batched counterpart of :class:`nbgym.wrappers.FilterObservation`.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], filter_keys: Sequence[str | int]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observation space must be a ``Dict`` or a ``Tuple``.
            filter_keys: The keys to keep: strings for a ``Dict`` space, ints for a ``Tuple`` space.
        """
        super().__init__(env, transform_observation.FilterObservation, filter_keys=filter_keys)

    def _transform_batch(self, observations: Any) -> Any:
        filter_keys = self.wrapper.filter_keys
        if isinstance(self.single_observation_space, spaces.Dict):
            # In the order of the new space's keys (sorted, unless the old space kept its order).
            return {key: deepcopy(observations[key]) for key in self.single_observation_space.spaces}
        return tuple(deepcopy(observations[key]) for key in filter_keys)


def batch_flatten(space: spaces.Space, batch: Any, n: int) -> np.ndarray | None:
    """``flatten(space, x)`` of each of the ``n`` elements of ``batch``, stacked, as new arrays.

    Returns:
        An ``(n, flatdim)`` array, or ``None`` for spaces whose flattening is not an array (``Graph``,
        ``Sequence``, ``Text``, ``OneOf`` and composites of them).
    """
    if isinstance(space, (spaces.Box, spaces.MultiBinary)):
        return np.array(batch, dtype=space.dtype).reshape(n, -1)
    if isinstance(space, spaces.Discrete):
        onehot = np.zeros((n, space.n), dtype=space.dtype)
        onehot[np.arange(n), np.asarray(batch) - space.start] = 1
        return onehot
    if isinstance(space, spaces.MultiDiscrete):
        offsets = np.zeros((space.nvec.size + 1,), dtype=np.int32)
        offsets[1:] = np.cumsum(space.nvec.flatten())
        onehot = np.zeros((n, offsets[-1]), dtype=space.dtype)
        columns = offsets[:-1] + (np.asarray(batch) - space.start).reshape(n, -1)
        onehot[np.arange(n)[:, None], columns] = 1
        return onehot
    if isinstance(space, (spaces.Tuple, spaces.Dict)) and space.is_np_flattenable:
        if isinstance(space, spaces.Tuple):
            parts = [batch_flatten(sub, part, n) for sub, part in zip(space.spaces, batch, strict=True)]
        else:
            parts = [batch_flatten(sub, batch[key], n) for key, sub in space.spaces.items()]
        if all(part is not None for part in parts):
            return np.concatenate(parts, axis=1)
    return None


class FlattenObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Flattens the observation space and every observation of the batch.

    The batched counterpart of :class:`nbgym.wrappers.FlattenObservation`: ``Box``, ``MultiBinary``,
    ``Discrete`` and ``MultiDiscrete`` observations (and ``Tuple``/``Dict`` of them) are flattened as
    whole batches; other spaces are flattened sub-environment by sub-environment.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observation space must support ``flatten_space``.
        """
        super().__init__(env, transform_observation.FlattenObservation)

    def _transform_batch(self, observations: Any) -> np.ndarray | None:
        flat = batch_flatten(self.env.single_observation_space, observations, self.num_envs)
        return None if flat is None else flat.astype(self.single_observation_space.dtype, copy=False)


class GrayscaleObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Converts batches of RGB image observations to grayscale.

    The batched counterpart of :class:`nbgym.wrappers.GrayscaleObservation`.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], keep_dim: bool = False) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observations must be uint8 RGB images.
            keep_dim: Whether to keep the channel axis (of size 1).
        """
        super().__init__(env, transform_observation.GrayscaleObservation, keep_dim=keep_dim)

    def _transform_batch(self, observations: Any) -> np.ndarray:
        gray = transform_observation.to_grayscale(observations)
        return np.expand_dims(gray, axis=-1) if self.wrapper.keep_dim else gray


class ResizeObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Resizes image observations to ``shape`` with OpenCV's area interpolation, image by image.

    The batched counterpart of :class:`nbgym.wrappers.ResizeObservation` (OpenCV is needed).
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], shape: tuple[int, ...]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observations must be uint8 images.
            shape: The ``(height, width)`` of the resized images.
        """
        super().__init__(env, transform_observation.ResizeObservation, shape=shape)


class ReshapeObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Reshapes every observation of the batch to ``shape``.

    The batched counterpart of :class:`nbgym.wrappers.ReshapeObservation`.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], shape: int | tuple[int, ...]) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observation space must be a ``Box``.
            shape: The new shape of one observation.
        """
        super().__init__(env, transform_observation.ReshapeObservation, shape=shape)

    def _transform_batch(self, observations: Any) -> np.ndarray:
        return np.array(np.reshape(observations, (self.num_envs, *self.single_observation_space.shape)))


class RescaleObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Affinely rescales ``Box`` observations into ``[min_obs, max_obs]``, for a whole batch.

    The batched counterpart of :class:`nbgym.wrappers.RescaleObservation`.
    """

    def __init__(
        self,
        env: VectorEnv[ObsType, ActType, ArrayType],
        min_obs: float | np.floating | np.integer | np.ndarray,
        max_obs: float | np.floating | np.integer | np.ndarray,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap; its observation space must be a ``Box``.
            min_obs: The new lower bound: a number, or an array of one observation's shape.
            max_obs: The new upper bound: a number, or an array of one observation's shape.
        """
        super().__init__(env, transform_observation.RescaleObservation, min_obs=min_obs, max_obs=max_obs)

    def _transform_batch(self, observations: Any) -> np.ndarray:
        # The affine map is elementwise: it broadcasts over the leading sub-environment axis.
        return np.asarray(self.wrapper.func(observations)).astype(self.single_observation_space.dtype, copy=False)


class DtypeObservation(VectorizeTransformObservation[WrapperObsType, ActType, ObsType, ArrayType]):
    """Casts every observation of the batch to ``dtype``.

    The batched counterpart of :class:`nbgym.wrappers.DtypeObservation`.
    """

    def __init__(self, env: VectorEnv[ObsType, ActType, ArrayType], dtype: Any) -> None:
        """Wraps ``env``.

        Args:
            env: The vector environment to wrap.
            dtype: The new dtype of the observations.
        """
        super().__init__(env, transform_observation.DtypeObservation, dtype=dtype)

    def _transform_batch(self, observations: Any) -> np.ndarray:
        return np.array(observations, dtype=self.single_observation_space.dtype)
