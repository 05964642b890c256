"""Observation wrappers that transform each observation with a function of it alone.

* :class:`TransformObservation` - applies a function to the observation.
* :class:`FilterObservation` - keeps some keys of a ``Dict`` (indexes of a ``Tuple``) observation.
* :class:`FlattenObservation` - flattens the observation.
* :class:`GrayscaleObservation` - turns an RGB image observation to grayscale.
* :class:`ResizeObservation` - resizes an image observation (with OpenCV, as gymnasium does).
* :class:`ReshapeObservation` - reshapes an array observation.
* :class:`RescaleObservation` - affinely rescales a ``Box`` observation into new bounds.
* :class:`DtypeObservation` - casts the observation to another dtype.
* :class:`DiscretizeObservation` - maps a bounded ``Box`` observation to uniform bins.

Each has a batched counterpart in :mod:`nbgym.wrappers.vector` (except ``DiscretizeObservation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Final

import numpy as np

from nbgym import spaces
from nbgym.core import ActType, Env, ObservationWrapper, ObsType, WrapperObsType
from nbgym.error import DependencyNotInstalled
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.wrappers.utils import bin_counts, finite_flat_bounds, rescale_box

__all__ = [
    "TransformObservation",
    "FilterObservation",
    "FlattenObservation",
    "GrayscaleObservation",
    "ResizeObservation",
    "ReshapeObservation",
    "RescaleObservation",
    "DtypeObservation",
    "DiscretizeObservation",
]

# ITU-R 601-2 luma weights of the R, G and B channels.
LUMA_WEIGHTS: Final[np.ndarray] = np.array([0.2125, 0.7154, 0.0721])


class TransformObservation(ObservationWrapper[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Applies ``func`` to every observation of ``reset`` and ``step``.

    When the transformed observations leave the wrapped environment's observation space, pass the
    space they belong to as ``observation_space``. The batched counterpart is
    :class:`nbgym.wrappers.vector.TransformObservation`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import TransformObservation
        >>> env = TransformObservation(nbgym.make("CartPole-v1"), lambda obs: obs * 2, None)
        >>> env.reset(seed=42)[0]
        array([ 0.05479121, -0.01222431,  0.07171959,  0.0394736 ], dtype=float32)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[ObsType], Any],
        observation_space: spaces.Space[WrapperObsType] | None,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            func: The function applied to each observation.
            observation_space: The space of the transformed observations; ``None`` keeps the wrapped
                environment's.
        """
        RecordConstructorArgs.__init__(self, func=func, observation_space=observation_space)
        ObservationWrapper.__init__(self, env)
        if observation_space is not None:
            self.observation_space = observation_space
        self.func = func

    def observation(self, observation: ObsType) -> Any:
        """Returns ``func(observation)``."""
        return self.func(observation)


class FilterObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Keeps only the ``filter_keys`` of a ``Dict`` observation, or the ``filter_keys`` indexes of a ``Tuple`` one.

    The batched counterpart is :class:`nbgym.wrappers.vector.FilterObservation`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import FilterObservation, TimeAwareObservation
        >>> env = TimeAwareObservation(nbgym.make("CartPole-v1"), flatten=False)
        >>> env = FilterObservation(env, filter_keys=["time"])
        >>> env.reset(seed=42)
        ({'time': array([0], dtype=int32)}, {})

    Attributes:
        filter_keys: The kept keys (or indexes), in the order of the new observations.
    """

    def __init__(self, env: Env[ObsType, ActType], filter_keys: Sequence[str | int]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must be a ``Dict`` or a ``Tuple``.
            filter_keys: The keys to keep: strings for a ``Dict`` space, ints for a ``Tuple`` space.

        Raises:
            TypeError: ``filter_keys`` is not a sequence, or holds keys of the wrong type.
            ValueError: A key is not in the space, an index is repeated, nothing would be kept, or the
                space is neither a ``Dict`` nor a ``Tuple``.
        """
        if not isinstance(filter_keys, Sequence):
            raise TypeError(f"Expects `filter_keys` to be a Sequence, actual type: {type(filter_keys)}")
        RecordConstructorArgs.__init__(self, filter_keys=filter_keys)

        space = env.observation_space
        func: Callable[[Any], Any]
        if isinstance(space, spaces.Dict):
            if not all(isinstance(key, str) for key in filter_keys):
                raise TypeError(f"All filter keys must be strings for a Dict space, got {filter_keys}")
            missing_keys = [key for key in filter_keys if key not in space.spaces]
            if missing_keys:
                raise ValueError(
                    "All the `filter_keys` must be included in the observation space.\n"
                    f"Filter keys: {filter_keys}\n"
                    f"Observation keys: {list(space.spaces.keys())}\n"
                    f"Missing keys: {missing_keys}"
                )
            new_space: spaces.Space = spaces.Dict({key: space[key] for key in filter_keys}, sort_keys=space.sort_keys)
            if len(new_space) == 0:
                raise ValueError("The observation space is empty due to filtering all of the keys.")

            def func(obs: Any) -> dict[str, Any]:
                return {key: obs[key] for key in filter_keys}

        elif isinstance(space, spaces.Tuple):
            if not all(isinstance(key, int) for key in filter_keys):
                raise TypeError(f"All filter keys must be integers for a Tuple space, got {filter_keys}")
            if len(set(filter_keys)) != len(filter_keys):
                raise ValueError(f"Duplicate keys exist, filter_keys: {filter_keys}")
            # Negative indexes count from the end, as Python's do.
            missing_index = [key for key in filter_keys if 0 < key and key >= len(space)]
            if missing_index:
                raise ValueError(
                    "All the `filter_keys` must be included in the length of the observation space.\n"
                    f"Filter keys: {filter_keys}, length of observation: {len(space)}, "
                    f"missing indexes: {missing_index}"
                )
            new_space = spaces.Tuple(space[key] for key in filter_keys)
            if len(new_space) == 0:
                raise ValueError("The observation space is empty due to filtering all keys.")

            def func(obs: Any) -> tuple[Any, ...]:
                return tuple(obs[key] for key in filter_keys)

        else:
            raise ValueError(
                "FilterObservation wrapper is only usable with `Dict` and `Tuple` observations, "
                f"actual type: {type(space)}"
            )

        TransformObservation.__init__(self, env=env, func=func, observation_space=new_space)
        self.filter_keys: Final[Sequence[str | int]] = filter_keys


class FlattenObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Flattens the observation space and every observation with :func:`nbgym.spaces.flatten`.

    The batched counterpart is :class:`nbgym.wrappers.vector.FlattenObservation`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import FlattenObservation, TimeAwareObservation
        >>> env = FlattenObservation(TimeAwareObservation(nbgym.make("CartPole-v1"), flatten=False))
        >>> env.observation_space.shape
        (5,)
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must support ``flatten_space``.
        """
        RecordConstructorArgs.__init__(self)
        space = env.observation_space
        TransformObservation.__init__(
            self,
            env=env,
            func=lambda obs: spaces.flatten(space, obs),
            observation_space=spaces.flatten_space(space),
        )


def check_rgb_image_space(wrapper_name: str, space: spaces.Space) -> None:
    """Checks that ``space`` holds uint8 RGB images: a ``Box`` of shape ``(height, width, 3)`` in ``[0, 255]``.

    Raises:
        TypeError: ``space`` is not a ``Box``.
        ValueError: Its shape, bounds or dtype are not those of RGB images.
    """
    if not isinstance(space, spaces.Box):
        raise TypeError(f"{wrapper_name} requires a Box observation space, got {type(space)}")
    if len(space.shape) != 3 or space.shape[-1] != 3:
        raise ValueError(f"{wrapper_name} requires an image with 3 channels, got shape {space.shape}")
    if not (np.all(space.low == 0) and np.all(space.high == 255) and space.dtype == np.uint8):
        raise ValueError(f"{wrapper_name} requires observation bounds 0 to 255 and dtype uint8")


def to_grayscale(images: np.ndarray) -> np.ndarray:
    """The luma of RGB ``images`` (channels last), truncated to uint8; works on one image or a batch."""
    return np.sum(np.multiply(images, LUMA_WEIGHTS), axis=-1).astype(np.uint8)


class GrayscaleObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Converts RGB image observations to grayscale (the ITU-R 601-2 luma, truncated to uint8).

    The batched counterpart is :class:`nbgym.wrappers.vector.GrayscaleObservation`.

    Attributes:
        keep_dim: Whether the observation keeps a channel axis of size 1.
    """

    def __init__(self, env: Env[ObsType, ActType], keep_dim: bool = False):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observations must be uint8 RGB images ``(height, width, 3)``.
            keep_dim: Whether to keep the channel axis (shape ``(height, width, 1)``) or drop it.

        Raises:
            TypeError: The observation space is not a ``Box``.
            ValueError: It is not a space of uint8 RGB images.
        """
        check_rgb_image_space("GrayscaleObservation", env.observation_space)
        RecordConstructorArgs.__init__(self, keep_dim=keep_dim)

        self.keep_dim: Final[bool] = keep_dim
        image_shape = env.observation_space.shape[:2]
        if keep_dim:
            new_space = spaces.Box(low=0, high=255, shape=(*image_shape, 1), dtype=np.uint8)
            func: Callable[[Any], np.ndarray] = lambda obs: np.expand_dims(to_grayscale(obs), axis=-1)  # noqa: E731
        else:
            new_space = spaces.Box(low=0, high=255, shape=image_shape, dtype=np.uint8)
            func = to_grayscale
        TransformObservation.__init__(self, env=env, func=func, observation_space=new_space)


def import_cv2() -> Any:
    """Imports OpenCV.

    Raises:
        DependencyNotInstalled: OpenCV is not installed.
    """
    try:
        import cv2
    except ImportError as e:
        raise DependencyNotInstalled('opencv (cv2) is not installed, run `pip install "nbgym[other]"`') from e
    return cv2


class ResizeObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Resizes image observations to ``shape`` with OpenCV's area interpolation (``cv2.INTER_AREA``).

    OpenCV is needed (``pip install "nbgym[other]"``), as it is for gymnasium's wrapper: its rounding is
    what makes the resized images identical to gymnasium's. The batched counterpart is
    :class:`nbgym.wrappers.vector.ResizeObservation`.

    Attributes:
        shape: The ``(height, width)`` of the resized images.
    """

    def __init__(self, env: Env[ObsType, ActType], shape: tuple[int, int]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observations must be uint8 images ``(height, width[, channels])``
                in ``[0, 255]``.
            shape: The ``(height, width)`` of the resized images.

        Raises:
            TypeError: The observation space is not a ``Box``, or ``shape`` is not a tuple of ints.
            ValueError: The observations are not uint8 images, or ``shape`` is not two positive ints.
            DependencyNotInstalled: OpenCV is not installed.
        """
        space = env.observation_space
        if not isinstance(space, spaces.Box):
            raise TypeError(f"ResizeObservation requires a Box observation space, got {type(space)}")
        if len(space.shape) not in {2, 3}:
            raise ValueError(f"ResizeObservation requires a 2D or 3D image, got shape {space.shape}")
        if not (np.all(space.low == 0) and np.all(space.high == 255)):
            raise ValueError("ResizeObservation requires observation bounds 0 to 255")
        if space.dtype != np.uint8:
            raise ValueError(f"ResizeObservation requires observation dtype uint8, got {space.dtype}")
        if not isinstance(shape, tuple):
            raise TypeError(f"ResizeObservation requires shape to be a tuple, got {type(shape)}")
        if len(shape) != 2:
            raise ValueError(f"ResizeObservation requires shape tuple of length 2, got {shape}")
        if not all(np.issubdtype(type(elem), np.integer) for elem in shape):
            raise TypeError(f"ResizeObservation requires shape elements to be integers, got {shape}")
        if not all(x > 0 for x in shape):
            raise ValueError(f"ResizeObservation requires shape elements to be greater than 0, got {shape}")
        cv2 = import_cv2()

        self.shape: Final[tuple[int, int]] = tuple(shape)
        # OpenCV takes the size as (width, height).
        self.cv2_shape: Final[tuple[int, int]] = (shape[1], shape[0])
        new_space = spaces.Box(low=0, high=255, shape=self.shape + space.shape[2:], dtype=np.uint8)

        RecordConstructorArgs.__init__(self, shape=shape)
        TransformObservation.__init__(
            self,
            env=env,
            # OpenCV drops a channel axis of size 1: the reshape puts it back.
            func=lambda obs: cv2.resize(obs, self.cv2_shape, interpolation=cv2.INTER_AREA).reshape(new_space.shape),
            observation_space=new_space,
        )


class ReshapeObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Reshapes array observations to ``shape``.

    The batched counterpart is :class:`nbgym.wrappers.vector.ReshapeObservation`.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import ReshapeObservation
        >>> env = ReshapeObservation(nbgym.make("CartPole-v1"), (2, 2))
        >>> env.reset(seed=42)[0].shape
        (2, 2)

    Attributes:
        shape: The shape of the new observations.
    """

    def __init__(self, env: Env[ObsType, ActType], shape: int | tuple[int, ...]):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must be a ``Box``.
            shape: The new shape, with as many elements as the old one (one entry may be -1).

        Raises:
            TypeError: The observation space is not a ``Box``, or ``shape`` is not a tuple of ints.
            ValueError: ``shape`` has a different number of elements, or entries that are neither
                positive nor -1.
        """
        space = env.observation_space
        if not isinstance(space, spaces.Box):
            raise TypeError(f"ReshapeObservation requires a Box observation space, got {type(space)}")
        if np.prod(shape) != np.prod(space.shape):
            raise ValueError("ReshapeObservation requires the product of the new shape to match the original shape")
        if not isinstance(shape, tuple):
            raise TypeError(f"ReshapeObservation requires shape to be a tuple, got {type(shape)}")
        if not all(np.issubdtype(type(elem), np.integer) for elem in shape):
            raise TypeError(f"ReshapeObservation requires shape elements to be integers, got {shape}")
        if not all(x > 0 or x == -1 for x in shape):
            raise ValueError(f"ReshapeObservation requires shape elements to be greater than 0 or -1, got {shape}")

        new_space = spaces.Box(
            low=np.reshape(np.ravel(space.low), shape),
            high=np.reshape(np.ravel(space.high), shape),
            shape=shape,
            dtype=space.dtype,
        )
        self.shape = shape

        RecordConstructorArgs.__init__(self, shape=shape)
        TransformObservation.__init__(
            self, env=env, func=lambda obs: np.reshape(obs, shape), observation_space=new_space
        )


class RescaleObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Affinely rescales a ``Box`` observation space, and every observation, into ``[min_obs, max_obs]``.

    Unbounded components must keep their infinite bounds. The batched counterpart is
    :class:`nbgym.wrappers.vector.RescaleObservation`.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers import RescaleObservation
        >>> env = nbgym.make("CartPole-v1")
        >>> low = np.array([-1.0, -np.inf, -1.0, -np.inf], dtype=np.float32)
        >>> RescaleObservation(env, low, -low).observation_space
        Box([ -1. -inf  -1. -inf], [ 1. inf  1. inf], (4,), float32)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_obs: np.floating | np.integer | np.ndarray,
        max_obs: np.floating | np.integer | np.ndarray,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must be a ``Box``.
            min_obs: The new lower bound: a number, or an array of the space's shape.
            max_obs: The new upper bound: a number, or an array of the space's shape.

        Raises:
            TypeError: The observation space is not a ``Box``, or a bound is neither a number nor an array.
            ValueError: A bound has the wrong shape, does not keep an infinite bound, or ``min_obs > max_obs``.
        """
        if not isinstance(env.observation_space, spaces.Box):
            raise TypeError(f"RescaleObservation requires a Box observation space, got {type(env.observation_space)}")
        RecordConstructorArgs.__init__(self, min_obs=min_obs, max_obs=max_obs)

        new_space, forward, _ = rescale_box(env.observation_space, min_obs, max_obs)
        TransformObservation.__init__(self, env=env, func=forward, observation_space=new_space)


def dtype_space(space: spaces.Space, dtype: Any) -> spaces.Space:
    """The space of the elements of ``space`` cast to ``dtype``.

    Raises:
        TypeError: ``space`` is not a ``Box``, ``Discrete``, ``MultiDiscrete`` or ``MultiBinary``.
    """
    if isinstance(space, spaces.Box):
        return spaces.Box(low=space.low, high=space.high, shape=space.shape, dtype=dtype)
    if isinstance(space, spaces.Discrete):
        return spaces.Box(low=space.start, high=space.start + space.n - 1, shape=(), dtype=dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return spaces.MultiDiscrete(space.nvec, dtype=dtype, start=space.start)
    if isinstance(space, spaces.MultiBinary):
        return spaces.Box(low=0, high=1, shape=space.shape, dtype=dtype)
    raise TypeError(
        f"DtypeObservation requires a Box, Discrete, MultiDiscrete, or MultiBinary space, got {type(space)}"
    )


class DtypeObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Casts every observation to ``dtype``.

    Only for ``Box``, ``Discrete``, ``MultiDiscrete`` and ``MultiBinary`` observation spaces; the new
    space is a ``Box`` (a ``MultiDiscrete`` for a ``MultiDiscrete``) of the new dtype. The batched
    counterpart is :class:`nbgym.wrappers.vector.DtypeObservation`.

    Attributes:
        dtype: The dtype given to the constructor.
    """

    def __init__(self, env: Env[ObsType, ActType], dtype: Any):
        """Wraps ``env``.

        Args:
            env: The environment to wrap.
            dtype: The new dtype: a numpy scalar type, a dtype or its name.

        Raises:
            TypeError: The observation space is of another type.
        """
        new_space = dtype_space(env.observation_space, dtype)
        self.dtype = dtype
        RecordConstructorArgs.__init__(self, dtype=dtype)
        scalar_type = new_space.dtype.type
        TransformObservation.__init__(self, env=env, func=lambda obs: scalar_type(obs), observation_space=new_space)


class DiscretizeObservation(TransformObservation[WrapperObsType, ActType, ObsType], RecordConstructorArgs):
    """Maps a bounded ``Box`` observation to uniform bins: one ``Discrete`` index, or ``MultiDiscrete`` bins.

    Each dimension ``i`` of the (flattened) box is cut into ``bins[i]`` equal intervals between its
    bounds. A value on the upper bound belongs to the last bin.

    Example:
        >>> import numpy as np
        >>> import nbgym
        >>> from nbgym.wrappers import DiscretizeObservation
        >>> env = nbgym.make("CartPole-v1")
        >>> env = nbgym.wrappers.TransformObservation(
        ...     env, lambda obs: np.clip(obs, -1, 1), nbgym.spaces.Box(-1, 1, (4,), np.float32)
        ... )
        >>> env = DiscretizeObservation(env, bins=4)
        >>> env.observation_space
        Discrete(256)

    Attributes:
        bins: The number of bins of each dimension.
        multidiscrete: Whether the observations are ``MultiDiscrete`` (else one ``Discrete`` index).
    """

    def __init__(self, env: Env[ObsType, ActType], bins: int | tuple[int, ...], multidiscrete: bool = False):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its observation space must be a ``Box`` with finite bounds.
            bins: The number of bins of every dimension, or one number per dimension.
            multidiscrete: Whether to return the bin of each dimension (``MultiDiscrete``) instead of
                their row-major flat index (``Discrete``).

        Raises:
            TypeError: The observation space is not a ``Box``.
            ValueError: A bound is infinite, or ``bins`` has the wrong length.
        """
        self.low, self.high = finite_flat_bounds(env.observation_space, "observation", "DiscretizeObservation")
        self.n_dims = int(self.low.size)
        self.multidiscrete = multidiscrete
        RecordConstructorArgs.__init__(self, bins=bins, multidiscrete=multidiscrete)
        ObservationWrapper.__init__(self, env)
        self.bins = bin_counts(bins, self.n_dims)
        # The inner edges of each dimension's bins.
        self.bin_edges = [self._edges(i)[1:-1] for i in range(self.n_dims)]

        if multidiscrete:
            self.observation_space = spaces.MultiDiscrete(self.bins)
        else:
            self.observation_space = spaces.Discrete(np.prod(self.bins))

    def _edges(self, dim: int) -> np.ndarray:
        """All ``bins[dim] + 1`` edges of dimension ``dim``'s bins."""
        return np.linspace(self.low[dim], self.high[dim], self.bins[dim] + 1)

    def observation(self, observation: ObsType) -> Any:
        """Returns the bin index (or indexes) of ``observation``."""
        # An observation on the upper bound would land past the last edge: clip it just below.
        clipped = np.clip(np.ravel(observation), self.low, self.high - 1e-8)
        indices = [int(np.digitize(clipped[i], self.bin_edges[i])) for i in range(self.n_dims)]
        if self.multidiscrete:
            return np.array(indices, dtype=np.int64)
        return int(np.ravel_multi_index(indices, self.bins))

    def revert_observation(self, obs: Any) -> tuple[np.ndarray, np.ndarray]:
        """The lower and upper edges of the bin (or bins) of the discrete observation ``obs``."""
        indices = np.asarray(obs, dtype=int) if self.multidiscrete else np.unravel_index(obs, self.bins)
        lows, highs = [], []
        for i, index in enumerate(indices):
            edges = self._edges(i)
            lows.append(edges[index])
            highs.append(edges[index + 1])
        dtype = self.env.observation_space.dtype
        return np.array(lows, dtype=dtype), np.array(highs, dtype=dtype)
