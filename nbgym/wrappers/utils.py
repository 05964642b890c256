"""Helpers of the wrappers: running statistics, zero samples of a space, and affine rescaling of a ``Box``.

* :class:`RunningMeanStd` - the mean, variance and count of the values seen so far.
* :func:`update_mean_var_count_from_moments` - merges a batch's moments into running moments.
* :func:`create_zero_array` - the sample of a space closest to zero.
* :func:`rescale_box` - a ``Box`` rescaled to new bounds, with the forward and backward maps.

The arithmetic follows gymnasium 1.4.0 operation by operation (same dtypes, same order), so that the
statistics of the normalisation wrappers are bit for bit the same as gymnasium's.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any, Callable, TypeVar

import numpy as np

from nbgym.error import CustomSpaceError
from nbgym.spaces import (
    Box,
    Dict,
    Discrete,
    Graph,
    GraphInstance,
    MultiBinary,
    MultiDiscrete,
    OneOf,
    Sequence,
    Space,
    Text,
    Tuple,
)

__all__ = ["RunningMeanStd", "update_mean_var_count_from_moments", "create_zero_array", "rescale_box"]

_T = TypeVar("_T")

# The differences of Box bounds are taken in extended precision where numpy has it (as gymnasium does),
# so a rescaling gradient rounds the same way.
_WIDE_FLOAT = getattr(np, "float128", np.float64)


class RunningMeanStd:
    """The running mean, variance and count of the values of batches (Chan et al.'s parallel algorithm).

    Attributes:
        mean: The mean of the values seen so far.
        var: Their (population) variance.
        count: How many values were seen, plus the initial ``epsilon``.
    """

    def __init__(self, epsilon: float = 1e-4, shape: tuple[int, ...] = (), dtype: Any = np.float64):
        """Starts with mean 0, variance 1 and a count of ``epsilon``.

        Args:
            epsilon: The initial count; keeps the first update from dividing by zero.
            shape: The shape of one value.
            dtype: The dtype of the mean and variance arrays.
        """
        self.mean = np.zeros(shape, dtype=dtype)
        self.var = np.ones(shape, dtype=dtype)
        self.count = epsilon

    def update(self, x: np.ndarray) -> None:
        """Adds the batch ``x`` (values stacked along axis 0) to the statistics."""
        self.update_from_moments(np.mean(x, axis=0), np.var(x, axis=0), x.shape[0])

    def update_from_moments(self, batch_mean: Any, batch_var: Any, batch_count: int) -> None:
        """Adds a batch given by its mean, variance and number of values to the statistics."""
        self.mean, self.var, self.count = update_mean_var_count_from_moments(
            self.mean, self.var, self.count, batch_mean, batch_var, batch_count
        )


class RunningStatisticsSwitch:
    """The ``update_running_mean`` switch of the normalisation wrappers (stored in ``_update_running_mean``)."""

    _update_running_mean: bool

    @property
    def update_running_mean(self) -> bool:
        """Whether new values update the running statistics (``False`` freezes them, e.g. for evaluation)."""
        return self._update_running_mean

    @update_running_mean.setter
    def update_running_mean(self, setting: bool) -> None:
        self._update_running_mean = setting


def update_mean_var_count_from_moments(
    mean: Any, var: Any, count: Any, batch_mean: Any, batch_var: Any, batch_count: Any
) -> tuple[Any, Any, Any]:
    """Merges the moments of a batch into running moments.

    Args:
        mean: The running mean.
        var: The running variance.
        count: The running count.
        batch_mean: The batch's mean.
        batch_var: The batch's variance.
        batch_count: The number of values in the batch.

    Returns:
        The merged ``(mean, var, count)``.
    """
    delta = batch_mean - mean
    total = count + batch_count
    merged_mean = mean + delta * batch_count / total
    sum_of_squares = var * count + batch_var * batch_count + np.square(delta) * count * batch_count / total
    return merged_mean, sum_of_squares / total, total


@singledispatch
def create_zero_array(space: Space[_T]) -> _T:
    """The sample of ``space`` closest to zero: zeros, moved into a ``Box``'s bounds where they exclude zero.

    Unlike ``nbgym.vector.utils.create_empty_array``, the result is always an element of the space.

    Args:
        space: The space.

    Returns:
        The zero sample.

    Raises:
        CustomSpaceError: ``space`` is a custom space with no registered ``create_zero_array``.
        TypeError: ``space`` is not a space.
    """
    if isinstance(space, Space):
        raise CustomSpaceError(
            f"Space of type `{type(space)}` doesn't have an registered `create_zero_array` function. "
            f"Register `{type(space)}` for `create_zero_array` to support it."
        )
    raise TypeError(
        f"The space provided to `create_zero_array` is not a gymnasium Space instance, type: {type(space)}, {space}"
    )


@create_zero_array.register(Box)
def _zero_box(space: Box) -> np.ndarray:
    zeros = np.zeros(space.shape, dtype=space.dtype)
    zeros = np.where(space.low > 0, space.low, zeros)
    return np.where(space.high < 0, space.high, zeros)


@create_zero_array.register(Discrete)
def _zero_discrete(space: Discrete) -> Any:
    return space.start


@create_zero_array.register(MultiDiscrete)
def _zero_multi_discrete(space: MultiDiscrete) -> np.ndarray:
    return np.array(space.start, copy=True, dtype=space.dtype)


@create_zero_array.register(MultiBinary)
def _zero_multi_binary(space: MultiBinary) -> np.ndarray:
    return np.zeros(space.shape, dtype=space.dtype)


@create_zero_array.register(Tuple)
def _zero_tuple(space: Tuple) -> tuple[Any, ...]:
    return tuple(create_zero_array(subspace) for subspace in space.spaces)


@create_zero_array.register(Dict)
def _zero_dict(space: Dict) -> dict[str, Any]:
    return {key: create_zero_array(subspace) for key, subspace in space.spaces.items()}


@create_zero_array.register(Sequence)
def _zero_sequence(space: Sequence) -> Any:
    return create_zero_array(space.stacked_feature_space) if space.stack else ()


@create_zero_array.register(Text)
def _zero_text(space: Text) -> str:
    return space.characters[0] * space.min_length


@create_zero_array.register(Graph)
def _zero_graph(space: Graph) -> GraphInstance:
    from nbgym.vector.utils import batch_space

    # A graph of one node (and, with an edge space, one edge from node 0 to itself).
    nodes = create_zero_array(batch_space(space.node_space, 1))
    if space.edge_space is None:
        return GraphInstance(nodes=nodes, edges=None, edge_links=None)
    edges = create_zero_array(batch_space(space.edge_space, 1))
    return GraphInstance(nodes=nodes, edges=edges, edge_links=np.zeros((1, 2), dtype=np.int64))


@create_zero_array.register(OneOf)
def _zero_one_of(space: OneOf) -> tuple[int, Any]:
    return 0, create_zero_array(space.spaces[0])


def finite_flat_bounds(box: Space, space_name: str, wrapper_name: str) -> tuple[np.ndarray, np.ndarray]:
    """The flattened bounds of a ``Box`` to discretise.

    Args:
        box: The space.
        space_name: ``"action"`` or ``"observation"``, for the messages.
        wrapper_name: The discretising wrapper, for the messages.

    Raises:
        TypeError: ``box`` is not a ``Box``.
        ValueError: A bound is infinite.
    """
    if not isinstance(box, Box):
        raise TypeError(f"{wrapper_name} is only compatible with Box continuous {space_name}s.")
    low, high = np.ravel(box.low), np.ravel(box.high)
    if np.any(np.isinf(low)) or np.any(np.isinf(high)):
        raise ValueError(f"Discretization requires {space_name} space to be finite. Found: low={low}, high={high}")
    return low, high


def bin_counts(bins: int | tuple[int, ...], n_dims: int) -> np.ndarray:
    """The number of bins of each of ``n_dims`` dimensions: ``bins`` for all, or one count per dimension.

    Raises:
        ValueError: ``bins`` is a sequence of another length.
    """
    if isinstance(bins, int):
        return np.array([bins] * n_dims)
    if len(bins) != n_dims:
        raise ValueError(f"bins must match action dimensions: expected {n_dims}, got {len(bins)}")
    return np.array(bins)


def _bound_array(name: str, bound: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``bound`` (a number or an array) as an array of ``shape``."""
    if not isinstance(bound, np.ndarray):
        if not (np.issubdtype(type(bound), np.integer) or np.issubdtype(type(bound), np.floating)):
            raise TypeError(f"Expected {name} to be an integer, float, or numpy array, got {type(bound)}")
        bound = np.full(shape, bound)
    if bound.shape != shape:
        raise ValueError(f"Expected {name}.shape to be {shape}, got {bound.shape}")
    return bound


def rescale_box(
    box: Box, new_min: float | int | np.ndarray, new_max: float | int | np.ndarray
) -> tuple[Box, Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """The affine map of ``box`` onto ``[new_min, new_max]``, and its inverse.

    Unbounded components must keep their infinite bounds: an infinite bound of ``box`` needs the same
    infinite target bound, and the other way round.

    Args:
        box: The space to rescale.
        new_min: The new lower bound: a number, or an array of the box's shape.
        new_max: The new upper bound: a number, or an array of the box's shape.

    Returns:
        ``(rescaled_box, forward, backward)``: ``forward`` maps an element of ``box`` into the rescaled
        box, ``backward`` maps it back. Both also work elementwise on a batch (leading axis).

    Raises:
        TypeError: ``box`` is not a ``Box``, or a bound is neither a number nor an array.
        ValueError: A bound has the wrong shape, does not keep an infinite bound as it is, or
            ``new_min > new_max`` somewhere.
    """
    if not isinstance(box, Box):
        raise TypeError(f"Expected box to be a Box space, got {type(box)}")
    new_min = _bound_array("new_min", new_min, box.shape)
    new_max = _bound_array("new_max", new_max, box.shape)

    infinite_bound_message = "For unbounded components, the target bounds must match the original infinity bounds."
    if not np.all((new_min == box.low)[np.isinf(new_min) | np.isinf(box.low)]):
        raise ValueError(infinite_bound_message)
    if not np.all((new_max == box.high)[np.isinf(new_max) | np.isinf(box.high)]):
        raise ValueError(infinite_bound_message)
    if not np.all(new_min <= new_max):
        raise ValueError(f"Expected new_min to be less than or equal to new_max, got {new_min} and {new_max}")
    if not np.all(box.low <= box.high):
        raise ValueError(f"Expected box.low to be less than or equal to box.high, got {box.low} and {box.high}")

    min_finite = np.isfinite(new_min)
    max_finite = np.isfinite(new_max)
    both_finite = min_finite & max_finite

    # y = gradient * x + intercept; an infinite component is only shifted (gradient 1), and where both
    # bounds are finite the intercept is fixed by the lower bound.
    gradient = np.ones_like(new_min, dtype=box.dtype)
    old_width = np.array(box.high[both_finite], dtype=_WIDE_FLOAT) - np.array(box.low[both_finite], dtype=_WIDE_FLOAT)
    gradient[both_finite] = (new_max[both_finite] - new_min[both_finite]) / old_width
    intercept = np.zeros_like(new_min, dtype=box.dtype)
    intercept[max_finite] = new_max[max_finite] - box.high[max_finite]
    intercept[min_finite] = gradient[min_finite] * -box.low[min_finite] + new_min[min_finite]

    rescaled = Box(low=new_min, high=new_max, shape=box.shape, dtype=box.dtype)

    def forward(x: np.ndarray) -> np.ndarray:
        return gradient * x + intercept

    def backward(y: np.ndarray) -> np.ndarray:
        return (y - intercept) / gradient

    return rescaled, forward, backward
