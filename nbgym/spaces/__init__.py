"""Spaces: the sets that observations and actions belong to, with gymnasium 1.4.0's semantics.

Every space of ``gymnasium.spaces`` lives here, in one module: the base class :class:`Space`, the
fundamental spaces (:class:`Box`, :class:`Discrete`, :class:`MultiDiscrete`, :class:`MultiBinary`,
:class:`Text`), the composite spaces (:class:`Tuple`, :class:`Dict`, :class:`Sequence`, :class:`OneOf`,
:class:`Graph`), and the flattening utilities (:func:`flatdim`, :func:`flatten_space`, :func:`flatten`,
:func:`unflatten`, :func:`is_space_dtype_shape_equiv`).

Sampling makes the same numpy draws, in the same order, as gymnasium does, so that a space built with
the same arguments and seed gives bit-identical samples. Validation raises the exception types that
gymnasium raises (``AssertionError`` for malformed sample masks, as gymnasium's asserts do).

Example:
    >>> from nbgym.spaces import Box, Dict, Discrete
    >>> space = Dict({"position": Box(-1, 1, shape=(2,)), "color": Discrete(3)}, seed=42)
    >>> space.sample()
    {'color': np.int64(0), 'position': array([-0.3991573 ,  0.21649833], dtype=float32)}
"""

from __future__ import annotations

import collections.abc as cabc
import copy
import importlib
import operator
import sys
import types
import typing
from collections import OrderedDict
from functools import reduce, singledispatch
from typing import Any, Generic, Literal, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from nbgym import error, logger
from nbgym._lazy import import_submodule
from nbgym.utils import seeding

__all__ = [
    "Space",
    "Box",
    "Discrete",
    "Text",
    "MultiDiscrete",
    "MultiBinary",
    "Graph",
    "GraphInstance",
    "Tuple",
    "Sequence",
    "Dict",
    "OneOf",
    "flatdim",
    "flatten_space",
    "flatten",
    "unflatten",
    "is_space_dtype_shape_equiv",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")

MaskNDArray = npt.NDArray[np.int8]
"""The type of a binary sample mask (``1`` = may be sampled, ``0`` = may not)."""

FlatType = typing.Union[npt.NDArray[Any], dict, tuple, "GraphInstance"]
"""What :func:`flatten` returns: an array, or a dict / tuple / GraphInstance for spaces that cannot be a Box."""

alphanumeric: frozenset[str] = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
"""The default character set of :class:`Text`: latin letters in both cases and digits."""

# Composite spaces derive their subspaces' seeds from draws below this bound (int32 max), as gymnasium does.
_SUBSEED_BOUND = int(np.iinfo(np.int32).max)


def _check_mask_xor_probability(mask: Any, probability: Any) -> None:
    """Raises ``ValueError`` when both a sample mask and a probability mask are given."""
    if mask is not None and probability is not None:
        raise ValueError(
            "Only one of `mask` or `probability` can be provided, "
            f"actual values: mask={mask}, probability={probability}"
        )


def _subspace_tuple(spaces: cabc.Iterable[Any]) -> tuple[Space[Any], ...]:
    """``spaces`` as a tuple, checking that each is a :class:`Space` (for Tuple and OneOf)."""
    subspaces = tuple(spaces)
    for space in subspaces:
        if not isinstance(space, Space):
            raise TypeError(f"{space} does not inherit from `gymnasium.Space`. Actual Type: {type(space)}")
    return subspaces


def _check_sub_masks(masks: Any, n_spaces: int, name: str, verb: str) -> None:
    """Checks that ``masks`` is a tuple with one entry per subspace (``verb`` words gymnasium's message)."""
    if not isinstance(masks, tuple):
        raise AssertionError(f"Expected type of `{name}` {verb} tuple, actual type: {type(masks)}")
    if len(masks) != n_spaces:
        raise AssertionError(f"Expected length of `{name}` {verb} {n_spaces}, actual length: {len(masks)}")


class Space(Generic[T_co]):
    """The base class of observation and action spaces.

    A space defines what valid actions / observations look like (:meth:`contains`), how to draw random
    elements (:meth:`sample`, reproducible through :meth:`seed`) and, through the flatten utilities, how
    to turn structured elements into flat arrays. Custom spaces may subclass it; the batching and
    flattening utilities only know the spaces of this module.
    """

    dtype: np.dtype | None
    _shape: tuple[int, ...] | None
    _np_random: np.random.Generator | None

    def __init__(
        self,
        shape: cabc.Sequence[int] | None = None,
        dtype: npt.DTypeLike | None = None,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        """Constructor of :class:`Space`.

        Args:
            shape: The shape of the space's elements, if they are numpy arrays.
            dtype: The dtype of the space's elements, if they are numpy arrays.
            seed: A seed for the space's random number generator, or a generator to use as it is.
        """
        self._shape = None if shape is None else tuple(shape)
        self.dtype = None if dtype is None else np.dtype(dtype)
        self._np_random = None
        if seed is not None:
            if isinstance(seed, np.random.Generator):
                self._np_random = seed
            else:
                self.seed(seed)

    @property
    def np_random(self) -> np.random.Generator:
        """The space's random number generator, seeded randomly on first use if :meth:`seed` was not called."""
        if self._np_random is None:
            self.seed()
        # A composite space's seed() seeds its subspaces and need not set its own generator.
        if self._np_random is None:
            self._np_random, _ = seeding.np_random()
        return self._np_random

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The shape of the space's elements (``None`` if they are not arrays of a fixed shape)."""
        return self._shape

    @property
    def is_np_flattenable(self) -> bool:
        """Whether the space can be flattened to a :class:`Box`."""
        raise NotImplementedError

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> T_co:
        """Draws a random element of the space.

        Args:
            mask: A binary mask restricting what may be sampled (see the subclass for its form).
            probability: A probability mask to sample by (see the subclass for its form).

        Returns:
            An element of the space.
        """
        raise NotImplementedError

    def seed(self, seed: Any | None = None) -> Any:
        """Seeds the space's random number generator (and, for composite spaces, those of the subspaces).

        Args:
            seed: A non-negative Python int, or ``None`` for a random seed. Composite spaces accept more forms.

        Returns:
            The seed used (for composite spaces, a structure of the seeds used).

        Raises:
            Error: If the seed is not a non-negative Python int.
        """
        self._np_random, np_random_seed = seeding.np_random(seed)
        return np_random_seed

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an element of the space (also available as ``x in space``)."""
        raise NotImplementedError

    def __contains__(self, x: Any) -> bool:
        """Whether ``x`` is an element of the space."""
        return self.contains(x)

    def __setstate__(self, state: cabc.Iterable[tuple[str, Any]] | cabc.Mapping[str, Any]) -> None:
        """Restores a pickled space, renaming the attributes of older pickles (``shape``, ``np_random``)."""
        state = dict(state)
        if "shape" in state:
            state["_shape"] = state.pop("shape")
        if "np_random" in state:
            state["_np_random"] = state.pop("np_random")
        self.__dict__.update(state)

    def to_jsonable(self, sample_n: cabc.Iterable[T_co]) -> list[Any] | Any:
        """Converts a batch of samples to a JSON-serialisable form."""
        return list(sample_n)

    def from_jsonable(self, sample_n: list[Any]) -> list[Any]:
        """Converts the JSON-serialisable form of a batch of samples back to samples."""
        return sample_n


# ----------------------------------------------------------------------------------------------------
# Box


def _array_short_repr(arr: npt.NDArray[Any]) -> str:
    """The scalar when every entry of ``arr`` is the same, else the array."""
    if arr.size != 0 and np.min(arr) == np.max(arr):
        return str(np.min(arr))
    return str(arr)


def _is_float_integer(value: object) -> bool:
    """Whether ``value`` is a Python or numpy real scalar (bool excluded)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


class Box(Space[npt.NDArray[Any]]):
    r"""A (possibly unbounded) box in :math:`\mathbb{R}^n`: the product of n closed intervals.

    Each interval is :math:`[a, b]`, :math:`(-\infty, b]`, :math:`[a, \infty)` or :math:`(-\infty, \infty)`.

    Example:
        >>> Box(low=-1.0, high=2.0, shape=(3, 4), dtype=np.float32)
        Box(-1.0, 2.0, (3, 4), float32)
        >>> Box(low=np.array([-1.0, -2.0]), high=np.array([2.0, 4.0]), dtype=np.float32)
        Box([-1. -2.], [2. 4.], (2,), float32)
    """

    dtype: np.dtype
    _shape: tuple[int, ...]
    low: npt.NDArray[Any]
    high: npt.NDArray[Any]
    bounded_below: npt.NDArray[np.bool_]
    bounded_above: npt.NDArray[np.bool_]
    low_repr: str | None
    high_repr: str | None

    def __init__(
        self,
        low: int | float | np.integer | np.floating | npt.NDArray[Any],
        high: int | float | np.integer | np.floating | npt.NDArray[Any],
        shape: cabc.Sequence[int] | None = None,
        dtype: npt.DTypeLike = np.float32,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        """Constructor of :class:`Box`.

        Args:
            low: The lower bounds: a scalar for every dimension, or an array. ``-np.inf`` means unbounded below.
            high: The upper bounds: a scalar for every dimension, or an array. ``np.inf`` means unbounded above.
            shape: The shape of the elements; inferred from ``low`` / ``high`` arrays when ``None``, and
                ``(1,)`` when both bounds are scalars.
            dtype: An integer, floating or bool dtype.
            seed: A seed for sampling, or a generator to use.

        Raises:
            ValueError: On a ``None`` or non-numeric dtype, a shape that cannot be inferred or does not match
                the bounds, NaN bounds, bounds out of the dtype's range, infinite bounds for unsigned or bool
                dtypes, or some ``low > high``.
            TypeError: If ``shape`` is not an iterable of integers.
        """
        if dtype is None:
            raise ValueError("Box dtype must be explicitly provided, cannot be None.")
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in ("i", "u", "f", "b"):
            raise ValueError(f"Invalid Box dtype ({self.dtype}), must be an integer, floating, or bool dtype")

        if shape is not None:
            if not isinstance(shape, cabc.Iterable):
                raise TypeError(f"Expected Box shape to be an iterable, actual type={type(shape)}")
            if not all(isinstance(dim, (int, np.integer)) for dim in shape):
                raise TypeError(
                    f"Expected all Box shape elements to be integer, actual type={tuple(type(dim) for dim in shape)}"
                )
            shape = tuple(int(dim) for dim in shape)
        elif isinstance(low, np.ndarray) and isinstance(high, np.ndarray):
            if low.shape != high.shape:
                raise ValueError(
                    f"Box low.shape and high.shape don't match, low.shape={low.shape}, high.shape={high.shape}"
                )
            shape = low.shape
        elif isinstance(low, np.ndarray):
            shape = low.shape
        elif isinstance(high, np.ndarray):
            shape = high.shape
        elif _is_float_integer(low) and _is_float_integer(high):
            shape = (1,)
        else:
            raise ValueError(
                "Box shape is not specified, therefore inferred from low and high. Expected low and high to be "
                f"np.ndarray, integer, or float.Actual types low={type(low)}, high={type(high)}"
            )
        self._shape = shape

        if self.dtype.kind == "b":
            dtype_min, dtype_max = 0, 1
        elif self.dtype.kind == "f":
            finfo = np.finfo(self.dtype)
            dtype_min, dtype_max = float(finfo.min), float(finfo.max)
        else:
            iinfo = np.iinfo(self.dtype)
            dtype_min, dtype_max = int(iinfo.min), int(iinfo.max)

        self.low, self.bounded_below = self._cast_bound(low, dtype_min, "low")
        self.high, self.bounded_above = self._cast_bound(high, dtype_max, "high")

        if self.low.shape != shape:
            raise ValueError(
                f"Box low.shape doesn't match provided shape, low.shape={self.low.shape}, shape={self.shape}"
            )
        if self.high.shape != shape:
            raise ValueError(
                f"Box high.shape doesn't match provided shape, high.shape={self.high.shape}, shape={self.shape}"
            )
        if np.any(self.low > self.high):
            raise ValueError(
                "Box all low values must be less than or equal to high (some values break this), "
                f"low={self.low}, high={self.high}"
            )

        self.low_repr = None
        self.high_repr = None
        self._set_sampling_constants()
        super().__init__(self.shape, self.dtype, seed)

    def _cast_bound(
        self, bound: Any, dtype_limit: float, side: Literal["low", "high"]
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
        """Casts ``low`` or ``high`` to an array of the Box's dtype and shape, with where it is bounded.

        An infinite bound of a signed-integer Box becomes the dtype's limit (the dimension stays unbounded).

        Args:
            bound: The bound as given to the constructor.
            dtype_limit: The dtype's minimum (for ``low``) or maximum (for ``high``).
            side: Which bound this is.

        Returns:
            The bound as an array of the Box's dtype, and the boolean array of the bounded dimensions.
        """
        is_low = side == "low"
        inf_name = "-np.inf" if is_low else "np.inf"
        if _is_float_integer(bound):
            bounded = np.full(self.shape, (-np.inf < bound) if is_low else (bound < np.inf))
            if np.isnan(bound):
                raise ValueError(f"No {side} value can be equal to `np.nan`, {side}={bound}")
            if np.isinf(bound) and (bound < 0) == is_low:
                if self.dtype.kind == "i":
                    bound = dtype_limit
                elif self.dtype.kind in ("u", "b"):
                    raise ValueError(f"Box unsigned int dtype don't support `{inf_name}`, {side}={bound}")
            elif (bound < dtype_limit) if is_low else (bound > dtype_limit):
                bound_name = "min" if is_low else "max"
                raise ValueError(
                    f"Box {side} is out of bounds of the dtype range, {side}={bound}, {bound_name} dtype={dtype_limit}"
                )
            return np.full(self.shape, bound, dtype=self.dtype), bounded

        if not isinstance(bound, np.ndarray):
            raise ValueError(f"Box {side} must be a np.ndarray, integer, or float, actual type={type(bound)}")
        if bound.dtype.kind not in ("f", "i", "u", "b"):
            kinds = "floating, integer, or bool" if is_low else "floating or integer"
            raise ValueError(f"Box {side} must be a {kinds} dtype, actual dtype={bound.dtype}")
        if np.any(np.isnan(bound)):
            raise ValueError(f"No {side} value can be equal to `np.nan`, {side}={bound}")

        bounded = (-np.inf < bound) if is_low else (bound < np.inf)
        infinite = np.isneginf(bound) if is_low else np.isposinf(bound)
        if np.any(infinite):
            if self.dtype.kind == "i":
                # Replace in a copy: the caller's array is theirs.
                bound = bound.copy()
                bound[infinite] = dtype_limit
            elif self.dtype.kind in ("u", "b"):
                raise ValueError(f"Box unsigned int dtype don't support `{inf_name}`, {side}={bound}")
        elif bound.dtype != self.dtype and np.any(bound < dtype_limit if is_low else dtype_limit < bound):
            bound_name = "min" if is_low else "max"
            raise ValueError(
                f"Box {side} is out of bounds of the dtype range, {side}={bound}, {bound_name} dtype={dtype_limit}"
            )

        if (
            bound.dtype.kind == "f"
            and self.dtype.kind == "f"
            and np.finfo(self.dtype).precision < np.finfo(bound.dtype).precision
        ):
            logger.warn(
                f"Box {side}'s precision lowered by casting to {self.dtype}, current {side}.dtype={bound.dtype}"
            )
        return bound.astype(self.dtype), bounded

    def _sampling_high(self) -> npt.NDArray[Any]:
        """The upper end of the uniform draws: ``high``, or ``high + 1`` (in int64) for integer and bool Boxes."""
        return self.high if self.dtype.kind == "f" else self.high.astype(np.int64) + 1

    def _set_sampling_constants(self) -> None:
        """Precomputes what :meth:`sample` needs on every call from the boundedness, dtype and bounds."""
        all_bounded = bool(np.all(self.bounded_below) and np.all(self.bounded_above))
        # The flags' bytes when every coordinate is bounded: sample() takes its uniform path only while they hold
        # (gymnasium reads bounded_below / bounded_above at every draw, which a user may change in place).
        self._all_bounded_flags = self._bounded_flags() if all_bounded else None
        # numpy's uniform() is several times faster with scalar bounds than with arrays, and makes the same
        # draws with the same arithmetic. The bytes of the bounds they were taken from detect later in-place
        # changes of low / high, for which sample() goes back to the arrays (kept only then: a copy of both
        # bounds, which for a batched observation space of unbounded floats would double its memory).
        self._bounds_bytes: tuple[bytes, bytes] | None = None
        self._uniform_scalars: tuple[float, float] | None = None
        if all_bounded and self.low.size > 0:
            high = self._sampling_high()
            low_0, high_0 = self.low.flat[0], high.flat[0]
            if np.all(self.low == low_0) and np.all(high == high_0):
                low_f, high_f = float(low_0), float(high_0)
                # A span that overflows float64 raises, with the message of the array path.
                if np.isfinite(high_f - low_f):
                    self._uniform_scalars = (low_f, high_f)
                    self._bounds_bytes = (self.low.tobytes(), self.high.tobytes())
        if self.dtype.kind in ("i", "u"):
            iinfo = np.iinfo(self.dtype)
            clip_min, clip_max = iinfo.min, iinfo.max
            if self.dtype == np.int64:
                # float64 cannot represent the int64 limits exactly: keep a margin inside the dtype range.
                clip_min, clip_max = clip_min + 2, clip_max - 2
            self._sample_clip: tuple[int, int] | None = (clip_min, clip_max)
        else:
            self._sample_clip = None

    def _bounded_flags(self) -> tuple[bytes, bytes]:
        return self.bounded_below.tobytes(), self.bounded_above.tobytes()

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the Box's elements."""
        return self._shape

    @property
    def is_np_flattenable(self) -> Literal[True]:
        """A Box can always be flattened."""
        return True

    def is_bounded(self, manner: Literal["both", "below", "above"] = "both") -> bool:
        """Whether the Box is bounded in every dimension.

        Args:
            manner: ``"both"``, ``"below"`` or ``"above"``.

        Returns:
            Whether every dimension is bounded in that manner.

        Raises:
            ValueError: If ``manner`` is not one of the three.
        """
        below = bool(np.all(self.bounded_below))
        above = bool(np.all(self.bounded_above))
        if manner == "both":
            return below and above
        if manner == "below":
            return below
        if manner == "above":
            return above
        raise ValueError(f"manner is not in {{'below', 'above', 'both'}}, actual value: {manner}")

    def sample(self, mask: None = None, probability: None = None) -> npt.NDArray[Any]:
        r"""Draws a random element of the Box.

        Each coordinate is drawn according to its interval: :math:`[a, b]` uniformly, :math:`[a, \infty)` as
        ``a`` plus an exponential, :math:`(-\infty, b]` as ``b`` minus an exponential, and
        :math:`(-\infty, \infty)` from a standard normal. Integer Boxes floor a draw over ``[low, high + 1)``.

        Args:
            mask: Not supported by Box; must be ``None``.
            probability: Not supported by Box; must be ``None``.

        Returns:
            An array of the Box's shape and dtype.

        Raises:
            Error: If a mask or a probability mask is given.
        """
        if mask is not None:
            raise error.Error(f"Box.sample cannot be provided a mask, actual value: {mask}")
        if probability is not None:
            raise error.Error(f"Box.sample cannot be provided a probability mask, actual value: {probability}")

        if self._all_bounded_flags is not None and self._bounded_flags() == self._all_bounded_flags:
            # One uniform draw over the whole shape makes the same draws, in the same (C) order, as the
            # per-interval-kind draws of the general path do when every coordinate is bounded.
            scalars = self._uniform_scalars
            if scalars is not None and (self.low.tobytes(), self.high.tobytes()) == self._bounds_bytes:
                sample = self.np_random.uniform(scalars[0], scalars[1], self.shape)
            else:
                sample = self.np_random.uniform(self.low, self._sampling_high(), self.shape)
        else:
            sample = self._sample_by_interval_kind(self._sampling_high())

        if self.dtype.kind == "f":
            return sample.astype(self.dtype, copy=False)
        np.floor(sample, out=sample)
        if self._sample_clip is not None:
            sample.clip(*self._sample_clip, out=sample)
        if sample.ndim == 0:
            # gymnasium's integer samples of shape () are numpy scalars, not 0-d arrays.
            sample = sample[()]
        sample = sample.astype(self.dtype)
        if self.dtype == np.int64:
            # Near the int64 limits float64 is coarser than an integer: the cast may leave [low, high].
            sample = sample.clip(min=self.low, max=self.high)
        return sample

    def _sample_by_interval_kind(self, high: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        """Draws each coordinate from the distribution of its interval kind, in gymnasium's order."""
        rng = self.np_random
        below, above = self.bounded_below, self.bounded_above
        unbounded = ~below & ~above
        upp_bounded = ~below & above
        low_bounded = below & ~above
        bounded = below & above

        sample = np.empty(self.shape)
        sample[unbounded] = rng.normal(size=np.count_nonzero(unbounded))
        sample[low_bounded] = rng.exponential(size=np.count_nonzero(low_bounded)) + self.low[low_bounded]
        sample[upp_bounded] = -rng.exponential(size=np.count_nonzero(upp_bounded)) + high[upp_bounded]
        sample[bounded] = rng.uniform(low=self.low[bounded], high=high[bounded], size=np.count_nonzero(bounded))
        return sample

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an array of the Box's shape, of a dtype safely castable to it, within the bounds.

        A value that is not an ndarray is converted first (with a warning).
        """
        if not isinstance(x, np.ndarray):
            logger.warn("Casting input x to numpy array.")
            try:
                x = np.asarray(x, dtype=self.dtype)
            except (ValueError, TypeError, OverflowError):
                return False
        return bool(
            x.shape == self.shape
            and np.can_cast(x.dtype, self.dtype)
            and (x >= self.low).all()
            and (x <= self.high).all()
        )

    def to_jsonable(self, sample_n: cabc.Iterable[npt.NDArray[Any]]) -> list[list]:
        """Converts a batch of samples to nested lists."""
        return [sample.tolist() for sample in sample_n]

    def from_jsonable(self, sample_n: cabc.Iterable[float | list]) -> list[npt.NDArray[Any]]:
        """Converts nested lists back to arrays of the Box's dtype."""
        return [np.asarray(sample, dtype=self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        """``Box(low, high, shape, dtype)``, a bound shown as a scalar when it is the same everywhere."""
        if self.low_repr is None:
            self.low_repr = _array_short_repr(self.low)
        if self.high_repr is None:
            self.high_repr = _array_short_repr(self.high)
        return f"Box({self.low_repr}, {self.high_repr}, {self.shape}, {self.dtype})"

    def __eq__(self, other: object) -> bool:
        """Equal shape and dtype, and bounds equal up to ``np.allclose``."""
        return (
            isinstance(other, Box)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and np.allclose(self.low, other.low)
            and np.allclose(self.high, other.high)
        )

    def __setstate__(self, state: cabc.Iterable[tuple[str, Any]] | cabc.Mapping[str, Any]) -> None:
        """Restores a pickled Box, filling in attributes that older pickles lack."""
        super().__setstate__(state)
        if not hasattr(self, "low_repr"):
            self.low_repr = _array_short_repr(self.low)
        if not hasattr(self, "high_repr"):
            self.high_repr = _array_short_repr(self.high)
        if not hasattr(self, "_all_bounded_flags"):
            self._set_sampling_constants()


# ----------------------------------------------------------------------------------------------------
# Discrete


class Discrete(Space[Any]):
    r"""The integers :math:`\{ \text{start}, \text{start} + 1, \dots, \text{start} + n - 1 \}`.

    Example:
        >>> Discrete(2, seed=42).sample()
        np.int64(0)
        >>> Discrete(3, start=-1, seed=42).sample()
        np.int64(-1)
    """

    dtype: np.dtype
    n: np.integer
    start: np.integer

    def __init__(
        self,
        n: int | np.integer,
        seed: int | np.random.Generator | None = None,
        start: int | np.integer = 0,
        dtype: npt.DTypeLike = np.int64,
    ) -> None:
        """Constructor of :class:`Discrete`.

        Args:
            n: The number of elements (positive).
            seed: A seed for sampling, or a generator to use.
            start: The smallest element.
            dtype: An integer dtype of the samples.

        Raises:
            TypeError: If ``n`` or ``start`` is not an integer, or ``dtype`` is ``None`` or not an integer dtype.
            ValueError: If ``n`` is not positive.
        """
        if not np.issubdtype(type(n), np.integer):
            raise TypeError(f"Expects `n` to be an integer, actual dtype: {type(n)}")
        if n <= 0:
            raise ValueError(f"n (counts) have to be positive, actual value: {n}")
        if not np.issubdtype(type(start), np.integer):
            raise TypeError(f"Expects `start` to be an integer, actual type: {type(start)}")
        if dtype is None:
            raise TypeError(f"Invalid Discrete dtype, cannot be {dtype}.")
        self.dtype = np.dtype(dtype)
        if not np.issubdtype(self.dtype, np.integer):
            raise TypeError(f"Invalid Discrete dtype ({self.dtype}), must be an integer dtype")

        self.n = self.dtype.type(n)
        self.start = self.dtype.type(start)
        super().__init__((), self.dtype, seed)

    @property
    def is_np_flattenable(self) -> Literal[True]:
        """A Discrete space flattens to a one-hot Box."""
        return True

    def sample(self, mask: MaskNDArray | None = None, probability: npt.NDArray[np.float64] | None = None) -> Any:
        """Draws a random element, uniformly, among the mask's allowed elements, or by a probability mask.

        Args:
            mask: An int8 array of shape ``(n,)``, ``1`` for the elements that may be sampled and ``0`` for
                the others. If no element is allowed, ``start`` is returned.
            probability: A float64 array of shape ``(n,)`` of probabilities in ``[0, 1]`` summing to 1.

        Returns:
            A numpy integer scalar of the space's dtype.

        Raises:
            ValueError: If both a mask and a probability mask are given.
            AssertionError: If the mask / probability mask has the wrong type, dtype, shape or values.
        """
        if mask is None and probability is None:
            return self.start + self.np_random.integers(self.n, dtype=self.dtype.type)
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            if not isinstance(mask, np.ndarray):
                raise AssertionError(f"The expected type of the sample mask is np.ndarray, actual type: {type(mask)}")
            if mask.dtype != np.int8:
                raise AssertionError(f"The expected dtype of the sample mask is np.int8, actual dtype: {mask.dtype}")
            if mask.shape != (self.n,):
                raise AssertionError(
                    f"The expected shape of the sample mask is {(int(self.n),)}, actual shape: {mask.shape}"
                )
            allowed = mask == 1
            if not np.all(np.logical_or(mask == 0, allowed)):
                raise AssertionError(f"All values of the sample mask should be 0 or 1, actual values: {mask}")
            if np.any(allowed):
                return self.start + self.dtype.type(self.np_random.choice(np.flatnonzero(allowed)))
            return self.start
        if not isinstance(probability, np.ndarray):
            raise AssertionError(
                f"The expected type of the sample probability is np.ndarray, actual type: {type(probability)}"
            )
        if probability.dtype != np.float64:
            raise AssertionError(
                f"The expected dtype of the sample probability is np.float64, actual dtype: {probability.dtype}"
            )
        if probability.shape != (self.n,):
            raise AssertionError(
                f"The expected shape of the sample probability is {(int(self.n),)}, actual shape: {probability.shape}"
            )
        if not np.all(np.logical_and(probability >= 0, probability <= 1)):
            raise AssertionError(
                f"All values of the sample probability should be between 0 and 1, actual values: {probability}"
            )
        if not np.isclose(np.sum(probability), 1):
            raise AssertionError(
                f"The sum of the sample probability should be equal to 1, actual sum: {np.sum(probability)}"
            )
        return self.start + self.np_random.choice(np.arange(self.n, dtype=self.dtype), p=probability)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is an integer (Python, or a numpy scalar / 0-d array castable to the dtype) in range."""
        if isinstance(x, int):
            dtype_info = np.iinfo(self.dtype)
            if not dtype_info.min <= x <= dtype_info.max:
                return False
            as_np = self.dtype.type(x)
        elif isinstance(x, (np.generic, np.ndarray)) and np.issubdtype(x.dtype, np.integer) and x.shape == ():
            as_np = x
        else:
            return False
        start = int(self.start)
        return start <= int(as_np) < start + int(self.n) and bool(np.can_cast(as_np.dtype, self.dtype))

    def __repr__(self) -> str:
        """``Discrete(n)``, with ``start`` and ``dtype`` when they are not the defaults."""
        info = [str(self.n)]
        if self.start != 0:
            info.append(f"start={self.start}")
        if self.dtype != np.int64:
            info.append(f"dtype={self.dtype}")
        return f"Discrete({', '.join(info)})"

    def __eq__(self, other: object) -> bool:
        """Equal ``n``, ``start`` and dtype."""
        return (
            isinstance(other, Discrete)
            and self.n == other.n
            and self.start == other.start
            and self.dtype == other.dtype
        )

    def __setstate__(self, state: cabc.Iterable[tuple[str, Any]] | cabc.Mapping[str, Any]) -> None:
        """Restores a pickled Discrete; pickles from before ``start`` existed start at 0."""
        state = dict(state)
        state.setdefault("start", np.int64(0))
        super().__setstate__(state)

    def to_jsonable(self, sample_n: cabc.Iterable[int | np.integer]) -> list[int]:
        """Converts a batch of samples to Python ints."""
        return [int(x) for x in sample_n]

    def from_jsonable(self, sample_n: list[int]) -> list[Any]:
        """Converts Python ints back to numpy scalars of the space's dtype."""
        return [self.dtype.type(x) for x in sample_n]


# ----------------------------------------------------------------------------------------------------
# MultiDiscrete


class MultiDiscrete(Space[npt.NDArray[Any]]):
    """The cartesian product of :class:`Discrete` spaces, as an integer array of ``nvec``'s shape.

    Example:
        >>> MultiDiscrete(np.array([[1, 2], [3, 4]]), seed=42).sample()
        array([[0, 0],
               [2, 2]])
    """

    dtype: np.dtype
    nvec: npt.NDArray[Any]
    start: npt.NDArray[Any]

    def __init__(
        self,
        nvec: npt.NDArray[np.integer] | list[int],
        dtype: npt.DTypeLike = np.int64,
        seed: int | np.random.Generator | None = None,
        start: npt.NDArray[np.integer] | list[int] | None = None,
    ) -> None:
        """Constructor of :class:`MultiDiscrete`.

        Args:
            nvec: The number of values of each categorical variable (positive); its shape is the space's shape.
            dtype: An integer dtype.
            seed: A seed for sampling, or a generator to use.
            start: The smallest value of each variable (zeros by default), of ``nvec``'s shape.

        Raises:
            ValueError: If ``dtype`` is ``None`` or not an integer dtype, ``start`` and ``nvec`` differ in shape,
                or some count is not positive.
        """
        if dtype is None:
            raise ValueError("MultiDiscrete dtype must be explicitly provided, cannot be None.")
        self.dtype = np.dtype(dtype)
        if not np.issubdtype(self.dtype, np.integer):
            raise ValueError(f"Invalid MultiDiscrete dtype ({self.dtype}), must be an integer dtype")

        self.nvec = np.array(nvec, dtype=dtype, copy=True)
        if start is not None:
            self.start = np.array(start, dtype=dtype, copy=True)
        else:
            self.start = np.zeros(self.nvec.shape, dtype=dtype)
        if self.start.shape != self.nvec.shape:
            raise ValueError(
                f"start and nvec (counts) should have the same shape, got {self.start.shape} and {self.nvec.shape}"
            )
        if not (self.nvec > 0).all():
            raise ValueError("nvec (counts) have to be positive")
        super().__init__(self.nvec.shape, self.dtype, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``nvec``."""
        return self._shape  # type: ignore[return-value]

    @property
    def is_np_flattenable(self) -> Literal[True]:
        """A MultiDiscrete space flattens to concatenated one-hot vectors."""
        return True

    def sample(
        self,
        mask: tuple[MaskNDArray, ...] | None = None,
        probability: tuple[npt.NDArray[np.float64], ...] | None = None,
    ) -> npt.NDArray[Any]:
        """Draws a random element.

        Args:
            mask: Nested tuples following ``nvec``'s axes, with an int8 array of shape ``(n,)`` for each
                variable (``1`` = allowed); a variable with no allowed value takes its ``start``.
            probability: The same structure with float64 probability arrays, each summing to 1.

        Returns:
            An array of the space's shape and dtype.

        Raises:
            ValueError: If both a mask and a probability mask are given.
            AssertionError: If the mask structure, dtypes, lengths or values are wrong.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            return np.array(self._sample_masked(mask, self.nvec, self.start, "mask"), dtype=self.dtype)
        if probability is not None:
            return np.array(self._sample_masked(probability, self.nvec, self.start, "probability"), dtype=self.dtype)
        return (self.np_random.random(self.nvec.shape) * self.nvec).astype(self.dtype) + self.start

    def _sample_masked(
        self,
        sub_mask: Any,
        sub_nvec: npt.NDArray[Any] | np.integer,
        sub_start: npt.NDArray[Any] | np.integer,
        mask_type: Literal["mask", "probability"],
    ) -> Any:
        """Samples the variables under ``sub_nvec`` by their (probability) masks, recursing over the axes."""
        if isinstance(sub_nvec, np.ndarray):
            if not isinstance(sub_mask, tuple):
                raise AssertionError(
                    f"Expects the mask to be a tuple for sub_nvec ({sub_nvec}), actual type: {type(sub_mask)}"
                )
            if len(sub_mask) != len(sub_nvec):
                raise AssertionError(
                    "Expects the mask length to be equal to the number of actions, "
                    f"mask length: {len(sub_mask)}, nvec length: {len(sub_nvec)}"
                )
            return [
                self._sample_masked(m, n, s, mask_type)
                for m, n, s in zip(sub_mask, sub_nvec, sub_start, strict=True)  # type: ignore[call-overload]
            ]

        if not np.issubdtype(type(sub_nvec), np.integer):
            raise AssertionError(f"Expects the sub_nvec to be an action, actually: {sub_nvec}, {type(sub_nvec)}")
        if not isinstance(sub_mask, np.ndarray):
            raise AssertionError(f"Expects the sub mask to be np.ndarray, actual type: {type(sub_mask)}")
        if len(sub_mask) != sub_nvec:
            raise AssertionError(
                "Expects the mask length to be equal to the number of actions, "
                f"mask length: {len(sub_mask)}, action: {sub_nvec}"
            )

        if mask_type == "mask":
            if sub_mask.dtype != np.int8:
                raise AssertionError(f"Expects the mask dtype to be np.int8, actual dtype: {sub_mask.dtype}")
            allowed = sub_mask == 1
            if not np.all(np.logical_or(sub_mask == 0, allowed)):
                raise AssertionError(f"Expects all masks values to 0 or 1, actual values: {sub_mask}")
            if np.any(allowed):
                return self.np_random.choice(np.flatnonzero(allowed)) + sub_start
            return sub_start

        if sub_mask.dtype != np.float64:
            raise AssertionError(f"Expects the mask dtype to be np.float64, actual dtype: {sub_mask.dtype}")
        allowed = np.logical_and(sub_mask > 0, sub_mask <= 1)
        if not np.all(np.logical_or(sub_mask == 0, allowed)):
            raise AssertionError(f"Expects all masks values to be between 0 and 1, actual values: {sub_mask}")
        total = np.sum(sub_mask)
        if not np.isclose(total, 1):
            raise AssertionError(f"Expects the sum of all mask values to be 1, actual sum: {total}")
        normalized = sub_mask / total
        return self.np_random.choice(np.flatnonzero(allowed), p=normalized[allowed]) + sub_start

    def contains(self, x: Any) -> bool:
        """Whether ``x`` (an array, or a sequence promoted to one) has the space's shape, a castable dtype, and is in range."""
        if isinstance(x, cabc.Sequence):
            x = np.array(x)
        # Compare with the largest element rather than computing x - start, which can overflow the dtype.
        return bool(
            isinstance(x, np.ndarray)
            and x.shape == self.shape
            and np.can_cast(x.dtype, self.dtype)
            and np.all(self.start <= x)
            and np.all(x <= self.start + (self.nvec - 1))
        )

    def to_jsonable(self, sample_n: cabc.Iterable[npt.NDArray[Any]]) -> list[cabc.Sequence[int]]:
        """Converts a batch of samples to nested lists."""
        return [sample.tolist() for sample in sample_n]

    def from_jsonable(self, sample_n: list[cabc.Sequence[int]]) -> list[npt.NDArray[Any]]:
        """Converts nested lists back to arrays of the space's dtype."""
        return [np.array(sample, dtype=self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        """``MultiDiscrete(nvec)``, with ``start`` when it is not all zeros."""
        if np.any(self.start != 0):
            return f"MultiDiscrete({self.nvec}, start={self.start})"
        return f"MultiDiscrete({self.nvec})"

    def __getitem__(self, index: int | tuple[int, ...] | slice) -> Discrete | MultiDiscrete:
        """The subspace at ``index``: a Discrete for one variable, else a MultiDiscrete.

        The subspace's generator starts from this space's current generator state.
        """
        nvec = self.nvec[index]
        start = self.start[index]
        rng = copy.deepcopy(self.np_random)
        if nvec.ndim == 0:
            return Discrete(nvec, start=start, dtype=self.dtype, seed=rng)
        return MultiDiscrete(nvec, start=start, dtype=self.dtype, seed=rng)

    def __len__(self) -> int:
        """The length of the first axis of ``nvec`` (warns if ``nvec`` has several axes)."""
        if self.nvec.ndim >= 2:
            logger.warn("Getting the length of a multi-dimensional MultiDiscrete space.")
        return len(self.nvec)

    def __eq__(self, other: object) -> bool:
        """Equal dtype, shape, ``nvec`` and ``start``."""
        return bool(
            isinstance(other, MultiDiscrete)
            and self.dtype == other.dtype
            and self.shape == other.shape
            and np.all(self.nvec == other.nvec)
            and np.all(self.start == other.start)
        )

    def __setstate__(self, state: cabc.Iterable[tuple[str, Any]] | cabc.Mapping[str, Any]) -> None:
        """Restores a pickled MultiDiscrete; pickles from before ``start`` existed start at 0."""
        state = dict(state)
        if "start" not in state:
            state["start"] = np.zeros(state["_shape"], dtype=state["dtype"])
        super().__setstate__(state)


# ----------------------------------------------------------------------------------------------------
# MultiBinary


class MultiBinary(Space[npt.NDArray[np.int8]]):
    """Binary (int8 ``0`` / ``1``) arrays of a fixed shape.

    Example:
        >>> MultiBinary(5, seed=42).sample()
        array([1, 0, 1, 0, 1], dtype=int8)
    """

    dtype: np.dtype
    n: int | tuple[int, ...]

    def __init__(
        self,
        n: npt.NDArray[np.integer] | cabc.Sequence[int] | int,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        """Constructor of :class:`MultiBinary`.

        Args:
            n: The shape of the elements: an int for a flat space, or a sequence / array of ints.
            seed: A seed for sampling, or a generator to use.

        Raises:
            ValueError: If ``n`` is not an int or a sequence of ints, or some dimension is not positive.
        """
        if isinstance(n, int):
            self.n = n = int(n)
            input_n: tuple[int, ...] = (n,)
        elif isinstance(n, (cabc.Sequence, np.ndarray)):
            self.n = input_n = tuple(int(i) for i in n)
        else:
            raise ValueError(f"Expected n to be an int or a sequence of ints, actual type: {type(n)}")
        if not (np.asarray(input_n) > 0).all():
            raise ValueError(f"n (counts) have to be positive, got {n}")
        super().__init__(input_n, np.int8, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the elements."""
        return self._shape  # type: ignore[return-value]

    @property
    def is_np_flattenable(self) -> Literal[True]:
        """A MultiBinary space can always be flattened."""
        return True

    def sample(
        self, mask: MaskNDArray | None = None, probability: npt.NDArray[np.float64] | None = None
    ) -> npt.NDArray[np.int8]:
        """Draws a random element by independent fair coin tosses.

        Args:
            mask: An int8 array of the space's shape: ``0`` / ``1`` force that value, ``2`` draws it randomly.
            probability: A float64 array of the space's shape: each entry's probability of being 1.

        Returns:
            An int8 array of the space's shape.

        Raises:
            ValueError: If both a mask and a probability mask are given.
            AssertionError: If the mask / probability mask has the wrong type, dtype, shape or values.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            if not isinstance(mask, np.ndarray):
                raise AssertionError(f"The expected type of the mask is np.ndarray, actual type: {type(mask)}")
            if mask.dtype != np.int8:
                raise AssertionError(f"The expected dtype of the mask is np.int8, actual dtype: {mask.dtype}")
            if mask.shape != self.shape:
                raise AssertionError(f"The expected shape of the mask is {self.shape}, actual shape: {mask.shape}")
            if not np.all((mask == 0) | (mask == 1) | (mask == 2)):
                raise AssertionError(f"All values of a mask should be 0, 1 or 2, actual values: {mask}")
            return np.where(
                mask == 2,
                self.np_random.integers(low=0, high=2, size=self.n, dtype=self.dtype),
                mask.astype(self.dtype),
            )
        if probability is not None:
            if not isinstance(probability, np.ndarray):
                raise AssertionError(
                    f"The expected type of the probability is np.ndarray, actual type: {type(probability)}"
                )
            if probability.dtype != np.float64:
                raise AssertionError(
                    f"The expected dtype of the probability is np.float64, actual dtype: {probability.dtype}"
                )
            if probability.shape != self.shape:
                raise AssertionError(
                    f"The expected shape of the probability is {self.shape}, actual shape: {probability}"
                )
            if not np.all(np.logical_and(probability >= 0, probability <= 1)):
                raise AssertionError(
                    f"All values of the sample probability should be between 0 and 1, actual values: {probability}"
                )
            return (self.np_random.random(size=self.shape) <= probability).astype(self.dtype)
        return self.np_random.integers(low=0, high=2, size=self.n, dtype=self.dtype)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` (an array, or a sequence promoted to one) has the space's shape and only 0s and 1s."""
        if isinstance(x, cabc.Sequence):
            x = np.array(x)
        return bool(isinstance(x, np.ndarray) and self.shape == x.shape and np.all(np.logical_or(x == 0, x == 1)))

    def to_jsonable(self, sample_n: cabc.Iterable[npt.NDArray[np.int8]]) -> list[cabc.Sequence[int]]:
        """Converts a batch of samples to nested lists."""
        return np.array(list(sample_n)).tolist()

    def from_jsonable(self, sample_n: list[cabc.Sequence[int]]) -> list[npt.NDArray[np.int8]]:
        """Converts nested lists back to int8 arrays."""
        return [np.asarray(sample, self.dtype) for sample in sample_n]

    def __repr__(self) -> str:
        """``MultiBinary(n)``."""
        return f"MultiBinary({self.n})"

    def __eq__(self, other: object) -> bool:
        """Equal ``n``."""
        return isinstance(other, MultiBinary) and self.n == other.n


# ----------------------------------------------------------------------------------------------------
# Text


class Text(Space[str]):
    r"""Strings of ``min_length`` to ``max_length`` characters from a character set.

    Example:
        >>> Text(5)
        Text(1, 5, charset=0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz)
        >>> Text(min_length=1, max_length=10, charset="0123456789")
        Text(1, 10, charset=0123456789)
    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 1,
        charset: frozenset[str] | str = alphanumeric,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        """Constructor of :class:`Text`.

        Args:
            max_length: The maximum length (inclusive).
            min_length: The minimum length (inclusive, non-negative).
            charset: The characters: a set (used in sorted order) or an ordered string / sequence of
                single characters (duplicates dropped).
            seed: A seed for sampling, or a generator to use.

        Raises:
            TypeError: If a length is not an integer.
            ValueError: If ``min_length`` is negative or above ``max_length``, or a charset element is not a
                single character.
        """
        if not np.issubdtype(type(min_length), np.integer):
            raise TypeError(f"Expects the min_length to be an integer, actual type: {type(min_length)}")
        if not np.issubdtype(type(max_length), np.integer):
            raise TypeError(f"Expects the max_length to be an integer, actual type: {type(max_length)}")
        if min_length < 0:
            raise ValueError(f"Minimum text length must be non-negative, actual value: {min_length}")
        if min_length > max_length:
            raise ValueError(
                "The min_length must be less than or equal to the max_length, "
                f"min_length: {min_length}, max_length: {max_length}"
            )
        self.min_length: int = int(min_length)
        self.max_length: int = int(max_length)

        # A set's iteration order depends on hash randomisation: sort it so that sampling and flattening
        # agree across processes. Any other charset keeps its order.
        char_list = sorted(charset) if isinstance(charset, (set, frozenset)) else list(dict.fromkeys(charset))
        invalid_chars = [char for char in char_list if len(char) != 1]
        if invalid_chars:
            raise ValueError(
                f"Expects all charset elements to be a single character, actual invalid elements: {invalid_chars}"
            )

        self._char_set: frozenset[str] = frozenset(char_list)
        self._char_list: tuple[str, ...] = tuple(char_list)
        self._char_index: dict[str, np.int32] = {char: np.int32(i) for i, char in enumerate(char_list)}
        self._char_str: str = "".join(sorted(char_list))
        super().__init__(dtype=str, seed=seed)

    def sample(
        self,
        mask: tuple[int | None, MaskNDArray | None] | None = None,
        probability: tuple[int | None, npt.NDArray[np.float64] | None] | None = None,
    ) -> str:
        """Draws a random string: a uniform length in ``[min_length, max_length]``, then its characters.

        Args:
            mask: ``(length, charset_mask)``: a fixed length (or ``None``) and an int8 array over the
                character list (``1`` = allowed, or ``None``). An all-zero mask gives ``""`` when
                ``min_length`` is 0.
            probability: ``(length, charset_probability)``: a fixed length (or ``None``) and a float64
                probability array over the character list summing to 1 (or ``None``).

        Returns:
            A string of the space.

        Raises:
            ValueError: If both masks are given, or no character may be sampled while ``min_length > 0``.
            AssertionError: If the mask / probability mask is malformed.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            length, char_probability = self._validate_mask(mask, np.int8, "mask")
            if char_probability is not None:
                if not np.all(np.logical_or(char_probability == 0, char_probability == 1)):
                    raise AssertionError(f"Expects all mask values to 0 or 1, actual values: {char_probability}")
                total = np.sum(char_probability)
                if total > 0:
                    char_probability = char_probability / total
        elif probability is not None:
            length, char_probability = self._validate_mask(probability, np.float64, "probability")
            if char_probability is not None:
                if not np.all(np.logical_and(char_probability >= 0, char_probability <= 1)):
                    raise AssertionError(
                        f"Expects all probability mask values to be within 0 and 1, actual values: {char_probability}"
                    )
                if not np.isclose(np.sum(char_probability), 1):
                    raise AssertionError(
                        f"Expects the sum of the probability mask to be 1, actual sum: {np.sum(char_probability)}"
                    )
        else:
            length = char_probability = None

        if length is None:
            length = self.np_random.integers(self.min_length, self.max_length + 1)
        n_chars = len(self._char_list)
        if char_probability is None:
            char_probability = np.ones(n_chars) / n_chars
        if np.all(char_probability == 0):
            if self.min_length == 0:
                return ""
            raise ValueError(
                f"Trying to sample with a minimum length > 0 (actual minimum length={self.min_length}) but the "
                "character mask is all zero meaning that no character could be sampled."
            )
        # Drawing indices makes the same draws as choosing from the character list itself.
        indices = self.np_random.choice(n_chars, size=length, p=char_probability)
        chars = self._char_list
        # gymnasium chooses from the character list as a numpy unicode array, whose elements drop
        # trailing NUL characters: a sampled "\x00" comes out as "" and the string is shorter.
        return "".join([chars[i] for i in indices]).replace("\x00", "")

    def _validate_mask(
        self, mask: Any, expected_dtype: type[np.generic], mask_type: str
    ) -> tuple[int | None, npt.NDArray[Any] | None]:
        """Checks a ``(length, charset_mask)`` pair and returns it."""
        if not isinstance(mask, tuple):
            raise AssertionError(f"Expects the `{mask_type}` type to be a tuple, actual type: {type(mask)}")
        if len(mask) != 2:
            raise AssertionError(f"Expects the `{mask_type}` length to be two, actual length: {len(mask)}")
        length, char_mask = mask
        if length is not None:
            if not np.issubdtype(type(length), np.integer):
                raise AssertionError(f"Expects the Text sample length to be an integer, actual type: {type(length)}")
            if not self.min_length <= length <= self.max_length:
                raise AssertionError(
                    f"Expects the Text sample length be between {self.min_length} and {self.max_length}, "
                    f"actual length: {length}"
                )
        if char_mask is not None:
            if not isinstance(char_mask, np.ndarray):
                raise AssertionError(
                    f"Expects the Text sample `{mask_type}` to be an np.ndarray, actual type: {type(char_mask)}"
                )
            if char_mask.dtype != expected_dtype:
                raise AssertionError(
                    f"Expects the Text sample `{mask_type}` to be type {expected_dtype}, "
                    f"actual dtype: {char_mask.dtype}"
                )
            if char_mask.shape != (len(self._char_set),):
                raise AssertionError(
                    f"expects the Text sample `{mask_type}` to be {(len(self._char_set),)}, "
                    f"actual shape: {char_mask.shape}"
                )
        return length, char_mask

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a string of an allowed length made of the character set."""
        if isinstance(x, str) and self.min_length <= len(x) <= self.max_length:
            return all(c in self._char_set for c in x)
        return False

    def __repr__(self) -> str:
        """``Text(min_length, max_length, charset=<sorted characters>)``."""
        return f"Text({self.min_length}, {self.max_length}, charset={self.characters})"

    def __eq__(self, other: object) -> bool:
        """Equal lengths and character set."""
        return (
            isinstance(other, Text)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
            and self.character_set == other.character_set
        )

    @property
    def character_set(self) -> frozenset[str]:
        """The set of characters."""
        return self._char_set

    @property
    def character_list(self) -> tuple[str, ...]:
        """The characters in sampling / flattening order."""
        return self._char_list

    def character_index(self, char: str) -> np.int32:
        """The index of ``char`` in :attr:`character_list`."""
        return self._char_index[char]

    @property
    def characters(self) -> str:
        """The characters, sorted, as one string."""
        return self._char_str

    @property
    def is_np_flattenable(self) -> bool:
        """Text flattens to character indices padded to ``max_length``."""
        return True


# ----------------------------------------------------------------------------------------------------
# Tuple


class Tuple(Space[tuple], cabc.Sequence):
    """The cartesian product of spaces: elements are tuples of the subspaces' elements.

    Example:
        >>> Tuple((Discrete(2), Box(-1, 1, shape=(2,))), seed=42).sample()
        (np.int64(0), array([-0.3991573 ,  0.21649833], dtype=float32))
    """

    spaces: tuple[Space[Any], ...]

    def __init__(
        self, spaces: cabc.Iterable[Space[Any]], seed: int | cabc.Sequence[Any] | np.random.Generator | None = None
    ) -> None:
        """Constructor of :class:`Tuple`.

        Args:
            spaces: The subspaces.
            seed: A seed for the subspaces (see :meth:`seed`), or a generator for the Tuple itself.

        Raises:
            TypeError: If a subspace is not a :class:`Space`.
        """
        self.spaces = _subspace_tuple(spaces)
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every subspace can be flattened to a Box."""
        return all(space.is_np_flattenable for space in self.spaces)

    def seed(self, seed: int | cabc.Sequence[Any] | None = None) -> tuple[Any, ...]:
        """Seeds the subspaces.

        Args:
            seed: ``None`` seeds every subspace randomly; an int seeds the Tuple's generator, which draws a
                seed for each subspace; a list / tuple gives each subspace its seed (possibly composite).

        Returns:
            The subspaces' seeds.

        Raises:
            ValueError: If a list / tuple seed's length differs from the number of subspaces.
            TypeError: For any other seed type.
        """
        if seed is None:
            return tuple(space.seed(None) for space in self.spaces)
        if isinstance(seed, int):
            super().seed(seed)
            subseeds = self.np_random.integers(_SUBSEED_BOUND, size=len(self.spaces))
            return tuple(space.seed(int(subseed)) for space, subseed in zip(self.spaces, subseeds, strict=True))
        if isinstance(seed, (tuple, list)):
            if len(seed) != len(self.spaces):
                raise ValueError(
                    "Expects that the subspaces of seeds equals the number of subspaces. "
                    f"Actual length of seeds: {len(seed)}, length of subspaces: {len(self.spaces)}"
                )
            return tuple(space.seed(subseed) for subseed, space in zip(seed, self.spaces, strict=True))
        raise TypeError(f"Expected seed type: list, tuple, int or None, actual type: {type(seed)}")

    def sample(self, mask: tuple[Any, ...] | None = None, probability: tuple[Any, ...] | None = None) -> tuple:
        """Draws an element: independent samples of the subspaces.

        Args:
            mask: A tuple with a mask (or ``None``) for each subspace.
            probability: A tuple with a probability mask (or ``None``) for each subspace.

        Returns:
            A tuple of the subspaces' samples.

        Raises:
            ValueError: If both masks are given.
            AssertionError: If a mask is not a tuple of one entry per subspace.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            _check_sub_masks(mask, len(self.spaces), "mask", "to be")
            return tuple(space.sample(mask=sub) for space, sub in zip(self.spaces, mask, strict=True))
        if probability is not None:
            _check_sub_masks(probability, len(self.spaces), "probability", "to be")
            return tuple(space.sample(probability=sub) for space, sub in zip(self.spaces, probability, strict=True))
        return tuple(space.sample() for space in self.spaces)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` (a tuple, or a list / array promoted to one) has an element of each subspace."""
        if isinstance(x, (list, np.ndarray)):
            x = tuple(x)
        return (
            isinstance(x, tuple)
            and len(x) == len(self.spaces)
            and all(space.contains(part) for space, part in zip(self.spaces, x, strict=True))
        )

    def __repr__(self) -> str:
        """``Tuple(subspace, ...)``."""
        return "Tuple(" + ", ".join([str(s) for s in self.spaces]) + ")"

    def to_jsonable(self, sample_n: cabc.Sequence[tuple]) -> list[list[Any]]:
        """Converts a batch of samples to one JSON batch per subspace."""
        return [space.to_jsonable([sample[i] for sample in sample_n]) for i, space in enumerate(self.spaces)]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[tuple]:
        """Converts one JSON batch per subspace back to a batch of tuples."""
        return list(zip(*[space.from_jsonable(sample_n[i]) for i, space in enumerate(self.spaces)], strict=True))

    @typing.overload
    def __getitem__(self, index: int) -> Space[Any]: ...

    @typing.overload
    def __getitem__(self, index: slice) -> tuple[Space[Any], ...]: ...

    def __getitem__(self, index: int | slice) -> Space[Any] | tuple[Space[Any], ...]:
        """The subspace(s) at ``index``."""
        return self.spaces[index]

    def __len__(self) -> int:
        """The number of subspaces."""
        return len(self.spaces)

    def __eq__(self, other: object) -> bool:
        """Equal subspaces, in order."""
        return isinstance(other, Tuple) and self.spaces == other.spaces


# ----------------------------------------------------------------------------------------------------
# Dict


class Dict(Space[dict], cabc.Mapping):
    """A dictionary of spaces: elements are dicts of the subspaces' elements.

    A plain mapping's keys are sorted (when comparable); an ``OrderedDict`` or a sequence of pairs keeps its order.

    Example:
        >>> Dict({"position": Box(-1, 1, shape=(2,)), "color": Discrete(3)}, seed=42).sample()
        {'color': np.int64(0), 'position': array([-0.3991573 ,  0.21649833], dtype=float32)}
    """

    spaces: dict[Any, Space[Any]]
    sort_keys: bool

    def __init__(
        self,
        spaces: cabc.Mapping[Any, Space[Any]] | cabc.Sequence[tuple[Any, Space[Any]]] | None = None,
        seed: int | dict[Any, Any] | np.random.Generator | None = None,
        *,
        sort_keys: bool = True,
        **spaces_kwargs: Space[Any],
    ) -> None:
        """Constructor of :class:`Dict`.

        Args:
            spaces: A mapping or a sequence of ``(key, space)`` pairs.
            seed: A seed for the subspaces (see :meth:`seed`), or a generator for the Dict itself.
            sort_keys: Whether to sort the keys of a plain mapping.
            **spaces_kwargs: More subspaces by keyword.

        Raises:
            TypeError: If ``spaces`` is of another type, or a value is not a :class:`Space`.
            ValueError: If a keyword repeats a key of ``spaces``.
        """
        self.sort_keys = sort_keys
        if isinstance(spaces, OrderedDict):
            spaces_dict = dict(spaces.items())
        elif isinstance(spaces, cabc.Mapping):
            spaces_dict = dict(spaces.items())
            if sort_keys:
                try:
                    spaces_dict = dict(sorted(spaces_dict.items(), key=operator.itemgetter(0)))
                except TypeError:
                    pass  # incomparable keys keep their insertion order
        elif isinstance(spaces, cabc.Sequence):
            spaces_dict = dict(spaces)
        elif spaces is None:
            spaces_dict = {}
        else:
            raise TypeError(
                f"Unexpected Dict space input, expecting dict, OrderedDict or Sequence, actual type: {type(spaces)}"
            )

        for key, space in spaces_kwargs.items():
            if key in spaces_dict:
                raise ValueError(f"Dict space keyword '{key}' already exists in the spaces dictionary.")
            spaces_dict[key] = space

        self.spaces = spaces_dict
        for key, space in self.spaces.items():
            if not isinstance(space, Space):
                raise TypeError(f"Dict space element is not an instance of Space: key='{key}', space={space}")
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every subspace can be flattened to a Box."""
        return all(space.is_np_flattenable for space in self.spaces.values())

    def seed(self, seed: int | dict[Any, Any] | None = None) -> dict[Any, Any]:
        """Seeds the subspaces.

        Args:
            seed: ``None`` seeds every subspace randomly; an int seeds the Dict's generator, which draws a seed
                for each subspace; a dict with exactly the space's keys gives each subspace its seed.

        Returns:
            The subspaces' seeds, by key.

        Raises:
            ValueError: If a dict seed's keys differ from the space's keys.
            TypeError: For any other seed type.
        """
        if seed is None:
            return {key: space.seed(None) for key, space in self.spaces.items()}
        if isinstance(seed, int):
            super().seed(seed)
            subseeds = self.np_random.integers(_SUBSEED_BOUND, size=len(self.spaces))
            return {
                key: space.seed(int(subseed))
                for (key, space), subseed in zip(self.spaces.items(), subseeds, strict=True)
            }
        if isinstance(seed, dict):
            if seed.keys() != self.spaces.keys():
                raise ValueError(f"The seed keys: {seed.keys()} are not identical to space keys: {self.spaces.keys()}")
            return {key: self.spaces[key].seed(seed[key]) for key in seed}
        raise TypeError(f"Expected seed type: dict, int or None, actual type: {type(seed)}")

    def sample(self, mask: dict[Any, Any] | None = None, probability: dict[Any, Any] | None = None) -> dict:
        """Draws an element: independent samples of the subspaces, by key.

        Args:
            mask: A dict with a mask (or ``None``) for each key.
            probability: A dict with a probability mask (or ``None``) for each key.

        Returns:
            A dict of the subspaces' samples.

        Raises:
            ValueError: If both masks are given.
            AssertionError: If a mask is not a dict with the space's keys.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            if not isinstance(mask, dict):
                raise AssertionError(f"Expected sample mask to be a dict, actual type: {type(mask)}")
            if mask.keys() != self.spaces.keys():
                raise AssertionError(
                    "Expected sample mask keys to be same as space keys, "
                    f"mask keys: {mask.keys()}, space keys: {self.spaces.keys()}"
                )
            return {key: space.sample(mask=mask[key]) for key, space in self.spaces.items()}
        if probability is not None:
            if not isinstance(probability, dict):
                raise AssertionError(f"Expected sample probability mask to be a dict, actual type: {type(probability)}")
            if probability.keys() != self.spaces.keys():
                raise AssertionError(
                    "Expected sample probability mask keys to be same as space keys, "
                    f"mask keys: {probability.keys()}, space keys: {self.spaces.keys()}"
                )
            return {key: space.sample(probability=probability[key]) for key, space in self.spaces.items()}
        return {key: space.sample() for key, space in self.spaces.items()}

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a dict with the space's keys and an element of each subspace."""
        if isinstance(x, dict) and x.keys() == self.spaces.keys():
            return all(x[key] in space for key, space in self.spaces.items())
        return False

    def __getitem__(self, key: Any) -> Space[Any]:
        """The subspace at ``key``."""
        return self.spaces[key]

    def keys(self) -> cabc.KeysView:
        """The keys of the subspaces."""
        return cabc.KeysView(self.spaces)

    def __setitem__(self, key: Any, value: Space[Any]) -> None:
        """Sets the subspace at ``key``.

        Raises:
            TypeError: If ``value`` is not a :class:`Space`.
        """
        if not isinstance(value, Space):
            raise TypeError(
                f"Trying to set {key} to Dict space with value that is not a gymnasium space, "
                f"actual type: {type(value)}"
            )
        self.spaces[key] = value

    def __iter__(self) -> cabc.Iterator[Any]:
        """The keys of the subspaces."""
        yield from self.spaces

    def __len__(self) -> int:
        """The number of subspaces."""
        return len(self.spaces)

    def __repr__(self) -> str:
        """``Dict('key': subspace, ...)``."""
        return "Dict(" + ", ".join([f"{k!r}: {s}" for k, s in self.spaces.items()]) + ")"

    def __eq__(self, other: object) -> bool:
        """Equal subspaces by key."""
        return isinstance(other, Dict) and self.spaces == other.spaces

    def to_jsonable(self, sample_n: cabc.Sequence[dict]) -> dict[Any, list[Any]]:
        """Converts a batch of samples to one JSON batch per key."""
        return {key: space.to_jsonable([sample[key] for sample in sample_n]) for key, space in self.spaces.items()}

    def from_jsonable(self, sample_n: dict[Any, list[Any]]) -> list[dict]:  # type: ignore[override]
        """Converts one JSON batch per key back to a batch of dicts."""
        per_key = {key: space.from_jsonable(sample_n[key]) for key, space in self.spaces.items()}
        n_elements = len(next(iter(per_key.values())))
        return [{key: values[i] for key, values in per_key.items()} for i in range(n_elements)]


# ----------------------------------------------------------------------------------------------------
# Sequence


class Sequence(Space[Any]):
    r"""Finite sequences :math:`(a_0, \dots, a_n)` of elements of a feature space, of any length.

    With ``stack=True`` a sequence is one stacked (batched) element instead of a tuple.

    Example:
        >>> Sequence(Box(0, 1), seed=0).sample()
        (array([0.6822636], dtype=float32), array([0.18933342], dtype=float32), array([0.19049619], dtype=float32))
    """

    feature_space: Space[Any]
    stack: bool
    stacked_feature_space: Space[Any]

    def __init__(
        self,
        space: Space[Any],
        seed: int | cabc.Sequence[Any] | np.random.Generator | None = None,
        stack: bool = False,
    ) -> None:
        """Constructor of :class:`Sequence`.

        Args:
            space: The feature space of the sequence's elements.
            seed: A seed (see :meth:`seed`), or a generator for the Sequence itself.
            stack: Whether samples are stacked into one batched element.

        Raises:
            TypeError: If ``space`` is not a :class:`Space`.
        """
        if not isinstance(space, Space):
            raise TypeError(f"Expects the feature space to be instance of a gym Space, actual type: {type(space)}")
        self.feature_space = space
        self.stack = stack
        if self.stack:
            from nbgym.vector.utils import batch_space

            self.stacked_feature_space = batch_space(self.feature_space, 1)
        super().__init__(None, None, seed)

    def seed(self, seed: int | cabc.Sequence[Any] | None = None) -> tuple[Any, Any]:
        """Seeds the Sequence's generator (which draws lengths) and the feature space.

        Args:
            seed: ``None`` seeds both randomly; an int seeds the Sequence, whose generator draws the feature
                space's seed (and is then re-seeded with the int); a pair gives both seeds.

        Returns:
            The Sequence's and the feature space's seeds.

        Raises:
            ValueError: If a list / tuple seed does not have two elements.
            TypeError: For any other seed type.
        """
        if seed is None:
            return super().seed(None), self.feature_space.seed(None)
        if isinstance(seed, int):
            super_seed = super().seed(seed)
            feature_seed = int(self.np_random.integers(_SUBSEED_BOUND))
            # Re-seed so that int seeding leaves the Sequence's generator as (seed, feature_seed) seeding does.
            super().seed(seed)
            return super_seed, self.feature_space.seed(feature_seed)
        if isinstance(seed, (tuple, list)):
            if len(seed) != 2:
                raise ValueError(
                    "Expects the seed to have two elements for the Sequence and feature space, "
                    f"actual length: {len(seed)}"
                )
            return super().seed(seed[0]), self.feature_space.seed(seed[1])
        raise TypeError(f"Expected None, int, tuple of ints, actual type: {type(seed)}")

    @property
    def is_np_flattenable(self) -> Literal[False]:
        """A Sequence has no fixed size, so it cannot be flattened to a Box."""
        return False

    def sample(self, mask: tuple[Any, Any] | None = None, probability: tuple[Any, Any] | None = None) -> Any:
        """Draws a sequence: a geometric(0.25) length (unless masked), then that many feature samples.

        Args:
            mask: ``(length_mask, feature_mask)``: the length is drawn when ``length_mask`` is ``None``,
                fixed when it is an int, and chosen from it when it is an integer array; ``feature_mask``
                is passed to every feature sample.
            probability: As ``mask``, with a probability mask for the feature samples.

        Returns:
            A tuple of feature samples, or their stack when ``stack`` is set.

        Raises:
            ValueError: If both masks are given.
            TypeError: If the length mask is neither an integer nor an array.
            AssertionError: If the length mask has negative values or the wrong shape / dtype.
        """
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            length = self.generate_sample_length(mask[0], "mask")
            values = tuple(self.feature_space.sample(mask=mask[1]) for _ in range(length))
        elif probability is not None:
            length = self.generate_sample_length(probability[0], "probability")
            values = tuple(self.feature_space.sample(probability=probability[1]) for _ in range(length))
        else:
            length = self.np_random.geometric(0.25)
            values = tuple(self.feature_space.sample() for _ in range(length))

        if self.stack:
            from nbgym.vector.utils import concatenate, create_empty_array

            out = create_empty_array(self.feature_space, len(values))
            return concatenate(self.feature_space, values, out)
        return values

    def generate_sample_length(self, length_mask: Any, mask_type: str | None) -> Any:
        """The length of a sample for the length mask (see :meth:`sample`).

        Raises:
            TypeError: If the length mask is neither ``None``, an integer nor an array.
            AssertionError: If it has negative values, or is an array of the wrong shape / dtype.
        """
        if length_mask is None:
            return self.np_random.geometric(0.25)
        if np.issubdtype(type(length_mask), np.integer):
            if not 0 <= length_mask:
                raise AssertionError(
                    f"Expects the length mask of `{mask_type}` to be greater than or equal to zero, "
                    f"actual value: {length_mask}"
                )
            return length_mask
        if isinstance(length_mask, np.ndarray):
            if len(length_mask.shape) != 1:
                raise AssertionError(
                    f"Expects the shape of the length mask of `{mask_type}` to be 1-dimensional, "
                    f"actual shape: {length_mask.shape}"
                )
            if not np.all(0 <= length_mask):
                raise AssertionError(
                    f"Expects all values in the length_mask of `{mask_type}` to be greater than or equal to "
                    f"zero, actual values: {length_mask}"
                )
            if not np.issubdtype(length_mask.dtype, np.integer):
                raise AssertionError(
                    f"Expects the length mask array of `{mask_type}` to have dtype of np.integer, "
                    f"actual type: {length_mask.dtype}"
                )
            return self.np_random.choice(length_mask)
        raise TypeError(
            f"Expects the type of length_mask of `{mask_type}` to be an integer or a np.ndarray, "
            f"actual type: {type(length_mask)}"
        )

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a tuple of feature elements (or, stacked, a batch of them)."""
        if self.stack:
            from nbgym.vector.utils import iterate

            return all(item in self.feature_space for item in iterate(self.stacked_feature_space, x))
        return isinstance(x, tuple) and all(self.feature_space.contains(item) for item in x)

    def __repr__(self) -> str:
        """``Sequence(feature_space, stack=...)``."""
        return f"Sequence({self.feature_space}, stack={self.stack})"

    def to_jsonable(self, sample_n: cabc.Iterable[Any]) -> list[list[Any]]:
        """Converts a batch of sequences to JSON form."""
        if self.stack:
            return self.stacked_feature_space.to_jsonable(sample_n)
        return [self.feature_space.to_jsonable(sample) for sample in sample_n]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[Any]:
        """Converts the JSON form back to a batch of sequences."""
        if self.stack:
            return self.stacked_feature_space.from_jsonable(sample_n)
        return [tuple(self.feature_space.from_jsonable(sample)) for sample in sample_n]

    def __eq__(self, other: object) -> bool:
        """Equal feature spaces and ``stack``."""
        return isinstance(other, Sequence) and self.feature_space == other.feature_space and self.stack == other.stack


# ----------------------------------------------------------------------------------------------------
# OneOf


class OneOf(Space[tuple[Any, Any]]):
    """The direct sum of spaces: an element is ``(index, element of spaces[index])``.

    Example:
        >>> space = OneOf((Discrete(2), Box(-1, 1, shape=(2,))), seed=123)
        >>> space.sample()
        (np.int64(0), np.int64(0))
    """

    spaces: tuple[Space[Any], ...]

    def __init__(
        self, spaces: cabc.Iterable[Space[Any]], seed: int | cabc.Sequence[Any] | np.random.Generator | None = None
    ) -> None:
        """Constructor of :class:`OneOf`.

        Args:
            spaces: The subspaces (at least one).
            seed: A seed (see :meth:`seed`), or a generator for the OneOf itself.

        Raises:
            TypeError: If ``spaces`` is not iterable, or a subspace is not a :class:`Space`.
            ValueError: If there is no subspace.
        """
        if not isinstance(spaces, cabc.Iterable):
            raise TypeError(f"{spaces} is not an iterable")
        self.spaces = tuple(spaces)
        if len(self.spaces) == 0:
            raise ValueError("Empty `OneOf` spaces are not supported.")
        self.spaces = _subspace_tuple(self.spaces)
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Whether every subspace can be flattened to a Box."""
        return all(space.is_np_flattenable for space in self.spaces)

    def seed(self, seed: int | cabc.Sequence[Any] | None = None) -> tuple[Any, ...]:
        """Seeds the OneOf's generator (which draws the index) and the subspaces.

        Args:
            seed: ``None`` seeds all randomly; an int seeds the OneOf, whose generator draws the subspaces'
                seeds (and is then re-seeded with the int); a list / tuple gives the OneOf's seed followed
                by one per subspace.

        Returns:
            The OneOf's seed followed by the subspaces' seeds.

        Raises:
            ValueError: If a list / tuple seed's length is not the number of subspaces + 1.
            TypeError: For any other seed type.
        """
        if seed is None:
            return (super().seed(None), *(space.seed(None) for space in self.spaces))
        if isinstance(seed, int):
            super_seed = super().seed(seed)
            subseeds = self.np_random.integers(_SUBSEED_BOUND, size=len(self.spaces))
            # Re-seed so that int seeding leaves the OneOf's generator as sequence seeding does.
            super().seed(seed)
            return (super_seed, *(space.seed(int(s)) for space, s in zip(self.spaces, subseeds, strict=True)))
        if isinstance(seed, (tuple, list)):
            if len(seed) != len(self.spaces) + 1:
                raise ValueError(
                    "Expects that the subspaces of seeds equals the number of subspaces + 1. "
                    f"Actual length of seeds: {len(seed)}, length of subspaces: {len(self.spaces)}"
                )
            return (
                super().seed(seed[0]),
                *(space.seed(s) for space, s in zip(self.spaces, seed[1:], strict=True)),
            )
        raise TypeError(f"Expected None, int, or tuple of ints, actual type: {type(seed)}")

    def sample(
        self, mask: tuple[Any, ...] | None = None, probability: tuple[Any, ...] | None = None
    ) -> tuple[Any, Any]:
        """Draws a uniform subspace index, then a sample of that subspace.

        Args:
            mask: A tuple with a mask (or ``None``) for each subspace; the drawn subspace's is used.
            probability: A tuple with a probability mask (or ``None``) for each subspace.

        Returns:
            ``(index, sample)``, the index an ``np.int64``.

        Raises:
            ValueError: If both masks are given.
            AssertionError: If a mask is not a tuple of one entry per subspace.
        """
        # The index is drawn before the arguments are checked, as gymnasium does.
        index = self.np_random.integers(0, len(self.spaces), dtype=np.int64)
        subspace = self.spaces[index]
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            _check_sub_masks(mask, len(self.spaces), "mask", "is")
            return index, subspace.sample(mask=mask[index])
        if probability is not None:
            _check_sub_masks(probability, len(self.spaces), "probability", "is")
            return index, subspace.sample(probability=probability[index])
        return index, subspace.sample()

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is ``(index, value)`` with a valid int index and a value of that subspace."""
        return (
            isinstance(x, tuple)
            and len(x) == 2
            and isinstance(x[0], (np.int64, int))
            and 0 <= x[0] < len(self.spaces)
            and self.spaces[x[0]].contains(x[1])
        )

    def __repr__(self) -> str:
        """``OneOf(subspace, ...)``."""
        return "OneOf(" + ", ".join([str(s) for s in self.spaces]) + ")"

    def to_jsonable(self, sample_n: cabc.Iterable[tuple[Any, Any]]) -> list[list[Any]]:
        """Converts a batch of samples to ``[index, JSON value]`` pairs."""
        return [[int(i), self.spaces[i].to_jsonable([sub])[0]] for i, sub in sample_n]

    def from_jsonable(self, sample_n: list[list[Any]]) -> list[tuple[Any, Any]]:
        """Converts ``[index, JSON value]`` pairs back to samples."""
        return [(np.int64(i), self.spaces[i].from_jsonable([sub])[0]) for i, sub in sample_n]

    def __getitem__(self, index: int) -> Space[Any]:
        """The subspace at ``index``."""
        return self.spaces[index]

    def __len__(self) -> int:
        """The number of subspaces."""
        return len(self.spaces)

    def __eq__(self, other: object) -> bool:
        """Equal subspaces, in order."""
        return isinstance(other, OneOf) and self.spaces == other.spaces


# ----------------------------------------------------------------------------------------------------
# Graph


class GraphInstance(NamedTuple):
    """An element of a :class:`Graph` space.

    Attributes:
        nodes: An ``(n, ...)`` array of the features of n nodes (``...`` the node space's shape).
        edges: An ``(m, ...)`` array of the features of m edges, or ``None``.
        edge_links: An ``(m, 2)`` integer array of the node indices each edge connects, or ``None``.
    """

    nodes: Any
    edges: Any | None
    edge_links: npt.NDArray[Any] | None


class Graph(Space[GraphInstance]):
    """Graphs: nodes with features in a node space, connected by edges with features in an edge space.

    Example:
        >>> space = Graph(node_space=Box(low=-100, high=100, shape=(3,)), edge_space=Discrete(3), seed=123)
        >>> sample = space.sample(num_nodes=4, num_edges=8)
    """

    node_space: Space[Any]
    edge_space: Space[Any] | None

    def __init__(
        self,
        node_space: Space[Any],
        edge_space: Space[Any] | None,
        seed: int | cabc.Sequence[Any] | np.random.Generator | None = None,
    ) -> None:
        """Constructor of :class:`Graph`.

        Args:
            node_space: The space of a node's features.
            edge_space: The space of an edge's features, or ``None`` for graphs without edges.
            seed: A seed (see :meth:`seed`), or a generator for the Graph itself.
        """
        from nbgym.vector.utils import batch_space

        self.node_space = node_space
        self.edge_space = edge_space
        self.batch_node_space = batch_space(node_space, n=1)
        self.batch_edge_space = batch_space(edge_space, n=1) if edge_space is not None else None
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> Literal[False]:
        """A Graph has no fixed size, so it cannot be flattened to a Box."""
        return False

    def seed(self, seed: int | cabc.Sequence[Any] | None = None) -> tuple[Any, ...]:
        """Seeds the Graph's generator (which draws edge counts and links) and the node / edge spaces.

        Args:
            seed: ``None`` seeds all randomly; an int seeds the Graph, whose generator draws the node (and
                edge) space seeds (and is then re-seeded with the int); a list / tuple gives the Graph's
                seed, the node space's and, if there is an edge space, the edge space's.

        Returns:
            The Graph's, node space's and (if any) edge space's seeds.

        Raises:
            ValueError: If a list / tuple seed has the wrong length.
            TypeError: For any other seed type.
        """
        if seed is None:
            if self.edge_space is None:
                return super().seed(None), self.node_space.seed(None)
            return super().seed(None), self.node_space.seed(None), self.edge_space.seed(None)
        if isinstance(seed, int):
            super_seed = super().seed(seed)
            if self.edge_space is None:
                node_seed = int(self.np_random.integers(_SUBSEED_BOUND))
                # Re-seed so that int seeding leaves the Graph's generator as sequence seeding does.
                super().seed(seed)
                return super_seed, self.node_space.seed(node_seed)
            node_seed, edge_seed = self.np_random.integers(_SUBSEED_BOUND, size=(2,))
            super().seed(seed)
            return super_seed, self.node_space.seed(int(node_seed)), self.edge_space.seed(int(edge_seed))
        if isinstance(seed, (list, tuple)):
            if self.edge_space is None:
                if len(seed) != 2:
                    raise ValueError(
                        f"Expects a tuple of two values for Graph and node space, actual length: {len(seed)}"
                    )
                return super().seed(seed[0]), self.node_space.seed(seed[1])
            if len(seed) != 3:
                raise ValueError(
                    f"Expects a tuple of three values for Graph, node and edge space, actual length: {len(seed)}"
                )
            return super().seed(seed[0]), self.node_space.seed(seed[1]), self.edge_space.seed(seed[2])
        raise TypeError(f"Expects `None`, int or tuple of ints, actual type: {type(seed)}")

    def sample(
        self,
        mask: tuple[Any, Any] | None = None,
        probability: tuple[Any, Any] | None = None,
        num_nodes: int = 10,
        num_edges: int | None = None,
    ) -> GraphInstance:
        """Draws a graph of ``num_nodes`` nodes and ``num_edges`` edges (random in ``[0, n(n-1))`` if ``None``).

        Args:
            mask: ``(node_mask, edge_mask)`` for the node / edge space samples (each may be ``None``); without
                ``num_edges`` the edge mask is repeated for every edge.
            probability: ``(node_probability, edge_probability)``, as ``mask``.
            num_nodes: The number of nodes (positive).
            num_edges: The number of edges, or ``None`` to draw it.

        Returns:
            A :class:`GraphInstance`.

        Raises:
            ValueError: If both masks are given.
            AssertionError: If ``num_nodes`` is not positive or ``num_edges`` is negative.
        """
        from nbgym.vector.utils import batch_space

        if not num_nodes > 0:
            raise AssertionError(f"The number of nodes is expected to be greater than 0, actual value: {num_nodes}")
        _check_mask_xor_probability(mask, probability)
        if mask is not None:
            node_mask, edge_mask = mask
            mask_type: str | None = "mask"
        elif probability is not None:
            node_mask, edge_mask = probability
            mask_type = "probability"
        else:
            node_mask = edge_mask = mask_type = None

        if num_edges is None:
            # At most n(n-1) edges; self loops and both directions are allowed.
            num_edges = int(self.np_random.integers(num_nodes * (num_nodes - 1))) if num_nodes > 1 else 0
            if edge_mask is not None:
                edge_mask = tuple(edge_mask for _ in range(num_edges))
        else:
            if self.edge_space is None:
                logger.warn(f"The number of edges is set ({num_edges}) but the edge space is None.")
            if not num_edges >= 0:
                raise AssertionError(f"Expects the number of edges to be greater than 0, actual value: {num_edges}")

        node_kwargs = {mask_type: node_mask} if mask_type is not None else {}
        edge_kwargs = {mask_type: edge_mask} if mask_type is not None else {}

        # The batched space samples from a copy of the node space's generator; advance the original so
        # that the next sample differs.
        nodes = batch_space(self.node_space, num_nodes).sample(**node_kwargs)
        self.node_space.np_random.random()

        edges = None
        if num_edges >= 1 and self.edge_space is not None:
            edges = batch_space(self.edge_space, num_edges).sample(**edge_kwargs)
            self.edge_space.np_random.random()

        edge_links = None
        if edges is not None:
            edge_links = self.np_random.integers(low=0, high=num_nodes, size=(num_edges, 2), dtype=np.int32)
        return GraphInstance(nodes, edges, edge_links)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a GraphInstance of valid nodes and, if present, valid edges and edge links."""
        from nbgym.vector.utils import iterate

        if not isinstance(x, GraphInstance) or x.nodes is None:
            return False
        nodes = list(iterate(self.batch_node_space, x.nodes))
        if not all(node in self.node_space for node in nodes):
            return False
        if x.edges is None or x.edge_links is None:
            return x.edges is None and x.edge_links is None
        if self.edge_space is None or not isinstance(x.edge_links, np.ndarray):
            return False
        edges = list(iterate(self.batch_edge_space, x.edges))
        return bool(
            all(edge in self.edge_space for edge in edges)
            and np.issubdtype(x.edge_links.dtype, np.integer)
            and x.edge_links.shape == (len(edges), 2)
            and np.all(np.logical_and(x.edge_links >= 0, x.edge_links < len(nodes)))
        )

    def __repr__(self) -> str:
        """``Graph(node_space, edge_space)``."""
        return f"Graph({self.node_space}, {self.edge_space})"

    def __eq__(self, other: object) -> bool:
        """Equal node and edge spaces."""
        return isinstance(other, Graph) and self.node_space == other.node_space and self.edge_space == other.edge_space

    def to_jsonable(self, sample_n: cabc.Iterable[GraphInstance]) -> list[dict[str, list[Any]]]:
        """Converts a batch of graphs to dicts of ``nodes`` (and ``edges``, ``edge_links``) lists."""
        result = []
        for sample in sample_n:
            entry = {"nodes": self.batch_node_space.to_jsonable([sample.nodes])}
            if sample.edges is not None and sample.edge_links is not None:
                entry["edges"] = self.batch_edge_space.to_jsonable([sample.edges])
                entry["edge_links"] = sample.edge_links.tolist()
            result.append(entry)
        return result

    def from_jsonable(self, sample_n: cabc.Sequence[dict[str, list[Any]]]) -> list[GraphInstance]:
        """Converts the dicts of :meth:`to_jsonable` back to graphs."""
        result = []
        for sample in sample_n:
            nodes = self.batch_node_space.from_jsonable(sample["nodes"])[0]
            if "edges" in sample:
                if self.edge_space is None:
                    raise AssertionError("A graph with edges needs an edge space")
                edges = self.batch_edge_space.from_jsonable(sample["edges"])[0]
                result.append(GraphInstance(nodes, edges, np.asarray(sample["edge_links"], dtype=np.int32)))
            else:
                result.append(GraphInstance(nodes, None, None))
        return result


# ----------------------------------------------------------------------------------------------------
# Flattening utilities

_NOT_FLATTENABLE = (
    "{} cannot be flattened to a numpy array, probably because it contains a `Graph` or `Sequence` subspace"
)


@singledispatch
def _flat_dtype(space: Space[Any]) -> np.dtype:
    """The dtype of the Box that ``space`` flattens to, without building the flattened space.

    Raises:
        ValueError: If the space has no dtype (it contains a Graph or Sequence).
    """
    if space.dtype is None:
        raise ValueError(
            f"{space} does not have a dtype, therefore, it cannot be flattened to a numpy array, "
            "probably because it contains a `Graph` or `Sequence` subspace."
        )
    return space.dtype


@_flat_dtype.register(Text)
def _flat_dtype_text(space: Text) -> np.dtype:
    return np.dtype(np.int32)


@_flat_dtype.register(Tuple)
def _flat_dtype_tuple(space: Tuple) -> np.dtype:
    return np.result_type(*(_flat_dtype(sub) for sub in space.spaces))


@_flat_dtype.register(Dict)
def _flat_dtype_dict(space: Dict) -> np.dtype:
    return np.result_type(*(_flat_dtype(sub) for sub in space.spaces.values()))


@_flat_dtype.register(OneOf)
def _flat_dtype_oneof(space: OneOf) -> np.dtype:
    # The flattened subspaces' common dtype, widened if it cannot hold the largest subspace index.
    dtype = np.result_type(*(_flat_dtype(sub) for sub in space.spaces))
    max_index = len(space.spaces) - 1
    if (dtype.kind == "b" and max_index > 1) or (dtype.kind in "iu" and max_index > np.iinfo(dtype).max):
        dtype = np.result_type(dtype, np.min_scalar_type(max_index))
    return dtype


@singledispatch
def flatdim(space: Space[Any]) -> int:
    """The number of dimensions of the flattened space.

    Args:
        space: The space.

    Returns:
        The size of the Box that the space flattens to.

    Raises:
        ValueError: If the space cannot be flattened to a Box (it contains a Graph or Sequence).
        NotImplementedError: For a space type this module does not know.

    Example:
        >>> flatdim(Dict({"position": Discrete(2), "velocity": Discrete(3)}))
        5
    """
    if space.is_np_flattenable is False:
        raise ValueError(_NOT_FLATTENABLE.format(space))
    raise NotImplementedError(f"Unknown space: `{space}`")


@flatdim.register(Box)
@flatdim.register(MultiBinary)
def _flatdim_box_multibinary(space: Box | MultiBinary) -> int:
    return reduce(operator.mul, space.shape, 1)


@flatdim.register(Discrete)
def _flatdim_discrete(space: Discrete) -> int:
    return int(space.n)


@flatdim.register(MultiDiscrete)
def _flatdim_multidiscrete(space: MultiDiscrete) -> int:
    return int(np.sum(space.nvec))


@flatdim.register(Tuple)
def _flatdim_tuple(space: Tuple) -> int:
    if space.is_np_flattenable:
        return sum(flatdim(sub) for sub in space.spaces)
    raise ValueError(_NOT_FLATTENABLE.format(space))


@flatdim.register(Dict)
def _flatdim_dict(space: Dict) -> int:
    if space.is_np_flattenable:
        return sum(flatdim(sub) for sub in space.spaces.values())
    raise ValueError(_NOT_FLATTENABLE.format(space))


@flatdim.register(Graph)
def _flatdim_graph(space: Graph) -> int:
    raise ValueError("Cannot get flattened size as the Graph Space has a dynamic size.")


@flatdim.register(Text)
def _flatdim_text(space: Text) -> int:
    return space.max_length


@flatdim.register(OneOf)
def _flatdim_oneof(space: OneOf) -> int:
    return 1 + max(flatdim(sub) for sub in space.spaces)


@singledispatch
def flatten(space: Space[T], x: T) -> FlatType:
    """Flattens an element of ``space``.

    Box and MultiBinary elements become flat arrays, Discrete and MultiDiscrete ones (concatenated)
    one-hot vectors, Text one character indices padded with ``len(charset)``, OneOf ones the index followed
    by the padded flat sample, and Tuple / Dict ones the concatenation of their parts. Spaces that
    contain a Graph or Sequence keep their structure (a tuple, dict or :class:`GraphInstance` of flattened
    parts).

    Args:
        space: The space ``x`` belongs to.
        x: The element.

    Returns:
        The flattened element.

    Raises:
        NotImplementedError: For a space type this module does not know.

    Example:
        >>> flatten(Discrete(4), 2)
        array([0, 0, 1, 0])
    """
    raise NotImplementedError(f"Unknown space: `{space}`")


@flatten.register(Box)
@flatten.register(MultiBinary)
def _flatten_box_multibinary(space: Box | MultiBinary, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.asarray(x, dtype=space.dtype).flatten()


@flatten.register(Discrete)
def _flatten_discrete(space: Discrete, x: Any) -> npt.NDArray[Any]:
    onehot = np.zeros(space.n, dtype=space.dtype)
    onehot[x - space.start] = 1
    return onehot


@flatten.register(MultiDiscrete)
def _flatten_multidiscrete(space: MultiDiscrete, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    offsets = np.zeros((space.nvec.size + 1,), dtype=np.int32)
    offsets[1:] = np.cumsum(space.nvec.flatten())
    onehot = np.zeros((offsets[-1],), dtype=space.dtype)
    onehot[offsets[:-1] + (x - space.start).flatten()] = 1
    return onehot


@flatten.register(Tuple)
def _flatten_tuple(space: Tuple, x: tuple) -> tuple | npt.NDArray[Any]:
    if space.is_np_flattenable:
        return np.concatenate([np.asarray(flatten(sub, part)) for part, sub in zip(x, space.spaces, strict=True)])
    return tuple(flatten(sub, part) for part, sub in zip(x, space.spaces, strict=True))


@flatten.register(Dict)
def _flatten_dict(space: Dict, x: dict) -> dict | npt.NDArray[Any]:
    if space.is_np_flattenable:
        return np.concatenate([np.asarray(flatten(sub, x[key])) for key, sub in space.spaces.items()])
    return {key: flatten(sub, x[key]) for key, sub in space.spaces.items()}


def _flatten_batch(space: Space[Any], batch_space: Space[Any], batch: Any) -> Any:
    """Flattens every element of a batch of ``space`` elements into one batch of the flattened space."""
    from nbgym.vector.utils import concatenate, create_empty_array, iterate

    flat_space = flatten_space(space)
    flat_items = [flatten(space, item) for item in iterate(batch_space, batch)]
    return concatenate(flat_space, flat_items, create_empty_array(flat_space, n=len(flat_items)))


def _unflatten_batch(space: Space[Any], flat_batch: Any) -> Any:
    """Unflattens every element of a batch of flattened ``space`` elements into one batch of ``space``."""
    from nbgym.vector.utils import concatenate, create_empty_array, iterate

    items = [unflatten(space, item) for item in iterate(flatten_space(space), flat_batch)]
    return concatenate(space, items, create_empty_array(space, n=len(items)))


@flatten.register(Graph)
def _flatten_graph(space: Graph, x: GraphInstance) -> GraphInstance:
    nodes = _flatten_batch(space.node_space, space.batch_node_space, x.nodes)
    edges = None
    if x.edges is not None:
        if space.edge_space is None:
            raise AssertionError("A graph with edges needs an edge space")
        edges = _flatten_batch(space.edge_space, space.batch_edge_space, x.edges)
    return GraphInstance(nodes, edges, x.edge_links)


@flatten.register(Text)
def _flatten_text(space: Text, x: str) -> npt.NDArray[np.int32]:
    arr = np.full(shape=(space.max_length,), fill_value=len(space.character_set), dtype=np.int32)
    for i, char in enumerate(x):
        arr[i] = space.character_index(char)
    return arr


@flatten.register(Sequence)
def _flatten_sequence(space: Sequence, x: Any) -> Any:
    if space.stack:
        return _flatten_batch(space.feature_space, space.stacked_feature_space, x)
    return tuple(flatten(space.feature_space, item) for item in x)


@flatten.register(OneOf)
def _flatten_oneof(space: OneOf, x: tuple[Any, Any]) -> npt.NDArray[Any]:
    index, sample = x
    flat_sample = flatten(space.spaces[index], sample)
    width = flatdim(space) - 1
    if flat_sample.size < width:
        # Pad with the sample's first entry up to the widest subspace.
        padding = np.full(width - flat_sample.size, flat_sample[0], dtype=flat_sample.dtype)
        flat_sample = np.concatenate([flat_sample, padding])
    # The index must not promote the dtype, or the result would not be in flatten_space(space).
    dtype = _flat_dtype(space)
    return np.concatenate([np.array([index], dtype=dtype), flat_sample.astype(dtype, copy=False)])


@singledispatch
def unflatten(space: Space[T], x: FlatType) -> T:
    """Reverses :func:`flatten`: rebuilds an element of ``space`` from its flattened form.

    Args:
        space: The space that was used to flatten ``x``.
        x: The flattened element.

    Returns:
        The element, structured as the space's elements are.

    Raises:
        ValueError: If a Discrete / MultiDiscrete part is not a one-hot encoding.
        NotImplementedError: For a space type this module does not know.
    """
    raise NotImplementedError(f"Unknown space: `{space}`")


@unflatten.register(Box)
@unflatten.register(MultiBinary)
def _unflatten_box_multibinary(space: Box | MultiBinary, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.asarray(x, dtype=space.dtype).reshape(space.shape)


@unflatten.register(Discrete)
def _unflatten_discrete(space: Discrete, x: npt.NDArray[Any]) -> Any:
    nonzero = np.nonzero(x)
    if len(nonzero[0]) == 0:
        raise ValueError(
            f"{x} is not a valid one-hot encoded vector and can not be unflattened to space {space}. "
            "Not all valid samples in a flattened space can be unflattened."
        )
    return space.start + nonzero[0][0].astype(space.dtype)


@unflatten.register(MultiDiscrete)
def _unflatten_multidiscrete(space: MultiDiscrete, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    offsets = np.zeros((space.nvec.size + 1,), dtype=space.dtype)
    offsets[1:] = np.cumsum(space.nvec.flatten())
    (indices,) = np.nonzero(x)
    if len(indices) == 0:
        raise ValueError(
            f"{x} is not a concatenation of one-hot encoded vectors and can not be unflattened to space {space}. "
            "Not all valid samples in a flattened space can be unflattened."
        )
    return np.asarray(indices - offsets[:-1], dtype=space.dtype).reshape(space.shape) + space.start


def _split_flat(x: npt.NDArray[Any], subspaces: cabc.Iterable[Space[Any]]) -> list[npt.NDArray[Any]]:
    """Splits a flat array into the flattened parts of ``subspaces``."""
    dims = np.asarray([flatdim(sub) for sub in subspaces], dtype=np.int_)
    return np.split(x, np.cumsum(dims[:-1]))


@unflatten.register(Tuple)
def _unflatten_tuple(space: Tuple, x: npt.NDArray[Any] | tuple) -> tuple:
    if space.is_np_flattenable:
        if not isinstance(x, np.ndarray):
            raise AssertionError(
                f"{space} is numpy-flattenable. Thus, you should only unflatten numpy arrays for this space. "
                f"Got a {type(x)}"
            )
        parts = _split_flat(x, space.spaces)
    else:
        if not isinstance(x, tuple):
            raise AssertionError(
                f"{space} is not numpy-flattenable. Thus, you should only unflatten tuples for this space. "
                f"Got a {type(x)}"
            )
        parts = list(x)
    return tuple(unflatten(sub, part) for part, sub in zip(parts, space.spaces, strict=True))


@unflatten.register(Dict)
def _unflatten_dict(space: Dict, x: npt.NDArray[Any] | dict) -> dict:
    if space.is_np_flattenable:
        if not isinstance(x, np.ndarray):
            raise AssertionError("x must be a numpy array when unflattening a numpy-flattenable space")
        parts = _split_flat(x, space.spaces.values())
        return {key: unflatten(sub, part) for part, (key, sub) in zip(parts, space.spaces.items(), strict=True)}
    if not isinstance(x, dict):
        raise AssertionError(
            f"{space} is not numpy-flattenable. Thus, you should only unflatten dictionary for this space. "
            f"Got a {type(x)}"
        )
    return {key: unflatten(sub, x[key]) for key, sub in space.spaces.items()}


@unflatten.register(Graph)
def _unflatten_graph(space: Graph, x: GraphInstance) -> GraphInstance:
    nodes = _unflatten_batch(space.node_space, x.nodes)
    edges = None
    if x.edges is not None:
        if space.edge_space is None:
            raise AssertionError("A graph with edges needs an edge space")
        edges = _unflatten_batch(space.edge_space, x.edges)
    return GraphInstance(nodes, edges, x.edge_links)


@unflatten.register(Text)
def _unflatten_text(space: Text, x: npt.NDArray[np.int32]) -> str:
    n_chars = len(space.character_set)
    return "".join([space.character_list[i] for i in x if i < n_chars])


@unflatten.register(Sequence)
def _unflatten_sequence(space: Sequence, x: Any) -> Any:
    if space.stack:
        return _unflatten_batch(space.feature_space, x)
    return tuple(unflatten(space.feature_space, item) for item in x)


@unflatten.register(OneOf)
def _unflatten_oneof(space: OneOf, x: npt.NDArray[Any]) -> tuple[Any, Any]:
    index = np.int64(x[0])
    subspace = space.spaces[index]
    # Restore the subspace's own flat dtype: x has the dtype shared by all subspaces.
    flat_sample = x[1 : 1 + flatdim(subspace)].astype(_flat_dtype(subspace))
    return index, unflatten(subspace, flat_sample)


@singledispatch
def flatten_space(space: Space[Any]) -> Box | Dict | Sequence | Tuple | Graph:
    """The flattened version of ``space``: a flat :class:`Box` when possible.

    A space that contains a Graph or Sequence keeps that structure: a Graph flattens to a Graph of
    flattened node / edge spaces, a Sequence to a Sequence of the flattened feature space, and a Tuple or
    Dict containing them to a Tuple / Dict of flattened subspaces. ``flatten(space, x)`` is an element of
    ``flatten_space(space)``; sampling the flattened space is not the same as flattening samples.

    Args:
        space: The space to flatten.

    Returns:
        The flattened space.

    Raises:
        NotImplementedError: For a space type this module does not know.

    Example:
        >>> flatten_space(Box(0.0, 1.0, shape=(3, 4, 5)))
        Box(0.0, 1.0, (60,), float32)
        >>> flatten_space(Discrete(5))
        Box(0, 1, (5,), int64)
    """
    raise NotImplementedError(f"Unknown space: `{space}`")


@flatten_space.register(Box)
def _flatten_space_box(space: Box) -> Box:
    return Box(space.low.flatten(), space.high.flatten(), dtype=space.dtype)


@flatten_space.register(Discrete)
@flatten_space.register(MultiBinary)
@flatten_space.register(MultiDiscrete)
def _flatten_space_binary(space: Discrete | MultiBinary | MultiDiscrete) -> Box:
    return Box(low=0, high=1, shape=(flatdim(space),), dtype=space.dtype)


def _concatenate_boxes(boxes: list[Box]) -> Box:
    """One flat Box whose bounds are the concatenated bounds of flat ``boxes``."""
    return Box(
        low=np.concatenate([box.low for box in boxes]),
        high=np.concatenate([box.high for box in boxes]),
        dtype=np.result_type(*[box.dtype for box in boxes]),
    )


@flatten_space.register(Tuple)
def _flatten_space_tuple(space: Tuple) -> Box | Tuple:
    flat_subspaces = [flatten_space(sub) for sub in space.spaces]
    if space.is_np_flattenable:
        return _concatenate_boxes(flat_subspaces)  # type: ignore[arg-type]
    return Tuple(spaces=flat_subspaces)


@flatten_space.register(Dict)
def _flatten_space_dict(space: Dict) -> Box | Dict:
    if space.is_np_flattenable:
        return _concatenate_boxes([flatten_space(sub) for sub in space.spaces.values()])  # type: ignore[misc]
    return Dict(spaces={key: flatten_space(sub) for key, sub in space.spaces.items()}, sort_keys=space.sort_keys)


@flatten_space.register(Graph)
def _flatten_space_graph(space: Graph) -> Graph:
    return Graph(
        node_space=flatten_space(space.node_space),
        edge_space=flatten_space(space.edge_space) if space.edge_space is not None else None,
    )


@flatten_space.register(Text)
def _flatten_space_text(space: Text) -> Box:
    return Box(low=0, high=len(space.character_set), shape=(space.max_length,), dtype=np.int32)


@flatten_space.register(Sequence)
def _flatten_space_sequence(space: Sequence) -> Sequence:
    return Sequence(flatten_space(space.feature_space), stack=space.stack)


@flatten_space.register(OneOf)
def _flatten_space_oneof(space: OneOf) -> Box:
    width = max(flatdim(sub) for sub in space.spaces) + 1
    flat_subspaces = [flatten_space(sub) for sub in space.spaces]
    overall_low = np.min(np.array([np.min(sub.low) for sub in flat_subspaces]))
    overall_high = np.max(np.array([np.max(sub.high) for sub in flat_subspaces]))
    low = np.concatenate([[0], np.full(width - 1, overall_low)])
    high = np.concatenate([[len(space.spaces) - 1], np.full(width - 1, overall_high)])
    return Box(low=low, high=high, shape=(width,), dtype=_flat_dtype(space))


@singledispatch
def is_space_dtype_shape_equiv(space_1: Space[Any], space_2: Space[Any]) -> bool:
    """Whether two spaces share their dtype and shape (and what else batching their elements needs).

    Vector environments use this to check that sub-environments' spaces can be batched together.

    Args:
        space_1: A space.
        space_2: A space.

    Returns:
        Whether the two spaces are equivalent in dtype and shape.

    Raises:
        NotImplementedError: For a space type this module does not know.
        TypeError: If ``space_1`` is not a space.
    """
    if isinstance(space_1, Space) and isinstance(space_2, Space):
        raise NotImplementedError("`check_dtype_shape_equivalence` doesn't support Generic Gymnasium Spaces, ")
    raise TypeError()


@is_space_dtype_shape_equiv.register(Box)
@is_space_dtype_shape_equiv.register(Discrete)
@is_space_dtype_shape_equiv.register(MultiDiscrete)
@is_space_dtype_shape_equiv.register(MultiBinary)
def _is_fundamental_space_dtype_shape_equiv(space_1: Space[Any], space_2: Space[Any]) -> bool:
    # singledispatch dispatches on the first argument only: check the second's exact type here.
    return type(space_1) is type(space_2) and space_1.shape == space_2.shape and space_1.dtype == space_2.dtype


@is_space_dtype_shape_equiv.register(Text)
def _is_text_dtype_shape_equiv(space_1: Text, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Text)
        and space_1.max_length == space_2.max_length
        and space_1.character_set == space_2.character_set
    )


@is_space_dtype_shape_equiv.register(Dict)
def _is_dict_dtype_shape_equiv(space_1: Dict, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Dict)
        and space_1.keys() == space_2.keys()
        and all(is_space_dtype_shape_equiv(space_1[key], space_2[key]) for key in space_1.keys())
    )


@is_space_dtype_shape_equiv.register(Tuple)
@is_space_dtype_shape_equiv.register(OneOf)
def _is_indexed_dtype_shape_equiv(space_1: Tuple | OneOf, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, type(space_1))
        and len(space_1) == len(space_2)  # type: ignore[arg-type]
        and all(is_space_dtype_shape_equiv(a, b) for a, b in zip(space_1.spaces, space_2.spaces, strict=True))  # type: ignore[attr-defined]
    )


@is_space_dtype_shape_equiv.register(Graph)
def _is_graph_dtype_shape_equiv(space_1: Graph, space_2: Space[Any]) -> bool:
    if not isinstance(space_2, Graph) or not is_space_dtype_shape_equiv(space_1.node_space, space_2.node_space):
        return False
    if space_1.edge_space is None or space_2.edge_space is None:
        return space_1.edge_space is None and space_2.edge_space is None
    return is_space_dtype_shape_equiv(space_1.edge_space, space_2.edge_space)


@is_space_dtype_shape_equiv.register(Sequence)
def _is_sequence_dtype_shape_equiv(space_1: Sequence, space_2: Space[Any]) -> bool:
    return (
        isinstance(space_2, Sequence)
        and space_1.stack is space_2.stack
        and is_space_dtype_shape_equiv(space_1.feature_space, space_2.feature_space)
    )


# ----------------------------------------------------------------------------------------------------
# gymnasium's module paths: `nbgym.spaces.box`, ..., `nbgym.spaces.dict`, `nbgym.spaces.tuple`


def __getattr__(name: str) -> types.ModuleType:
    """Imports a submodule (``nbgym.spaces.box``, ...) on first access, as an attribute of the package."""
    return import_submodule(__name__, name)


class _SpacesPackage(types.ModuleType):
    """The type of this package's module object: it keeps the submodules ``dict`` and ``tuple`` out of the
    package's globals, where the import system would otherwise store them (``setattr(package, "dict", module)``)
    in place of the builtins ``dict`` and ``tuple`` that the code above uses; ``__getattr__`` serves them."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("dict", "tuple") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # cloudpickle pickles a module by name, recognising it by its exact type: this one says the same here.
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _SpacesPackage
