"""The one place where a value a user assigns to an env attribute is stored into the kernels' arrays.

gymnasium's environments hold their parameters and game numbers in plain attributes that take any object; nbgym
serves them from typed arrays the compiled kernels read (a parameter record, state rows). numpy's own assignment
would coerce silently what those arrays cannot hold as given: ``None`` into a float becomes NaN, ``2.5`` into an
int64 becomes 2, ``1e300`` into a float32 becomes inf, ``True`` anywhere becomes 1. :func:`store` stores a value only
when the array holds it exactly, and otherwise raises before anything is written, saying what was given and what is
accepted.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def _real(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, (np.datetime64, np.timedelta64))


def exact(value: Any, dtype: np.dtype, shape: tuple[int, ...], name: str) -> Any:
    """``value`` as ``dtype`` numbers of ``shape``, when they hold it exactly.

    Args:
        value: What the user assigned.
        dtype: The kernels' type for it (bool: any number, taken for its truth, as gymnasium's ``if value:``).
        shape: ``()`` for one number, ``(n,)`` for a sequence of ``n``.
        name: The attribute's name, for the messages.

    Raises:
        TypeError: If ``value`` is not a real number (or a sequence of ``n`` of them).
        ValueError: If an integer attribute is given a number that is not an integer.
        OverflowError: If the number is out of the kernels' range for it.
    """
    what = "a real number" if not shape else f"{shape[0]} real numbers"
    if shape:
        items = list(value) if isinstance(value, (tuple, list, np.ndarray)) and np.ndim(value) == 1 else None
        if items is None or len(items) != shape[0]:
            raise TypeError(f"{name} must be {what} (a tuple, list or array of shape {shape}), got {value!r}.")
        return np.array([exact(item, dtype, (), name) for item in items], dtype=dtype)
    if not _real(value):
        raise TypeError(f"{name} must be {what}, got {value!r} ({type(value).__name__}).")
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise ValueError(f"{name} must be an integer in [{info.min}, {info.max}], got {value!r}.")
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"{name} must be an integer in [{info.min}, {info.max}], got {value!r}.")
        return int(value)
    try:
        number = float(value)
    except OverflowError:
        raise OverflowError(f"{name} must be a float64 number (of magnitude below 1.8e308), got {value!r}.") from None
    converted = dtype.type(number)
    if not (converted == number or np.isnan(number)):
        raise OverflowError(
            f"{name} is a {dtype} number in the kernels (up to {np.finfo(dtype).max:.4g}), got {value!r}."
        )
    return number


def store(array: np.ndarray, index: Any, value: Any, name: str) -> None:
    """Stores ``value`` at ``array[index]`` (a field name of a parameter record, or a row and column) when the array
    holds it exactly (see :func:`exact`), else raises before anything is written."""
    if isinstance(index, str):
        dtype = array.dtype[index]
        target_dtype, shape = dtype.base, dtype.shape
    else:
        target_dtype, shape = array.dtype, np.shape(array[index])
    array[index] = exact(value, target_dtype, shape, name)


def float64_array(value: Any, name: str) -> np.ndarray:
    """``value`` (a number, or nested sequences or an array of them) as a float64 array, when every item is a real
    number other than a bool (numpy would make ``None`` NaN and ``True`` 1.0, where gymnasium's arithmetic fails or
    keeps bools) that float64 holds.

    Raises:
        TypeError: If an item is not a real number, or is a bool.
        OverflowError: If an item is an integer beyond float64's range.
    """
    array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    if array.dtype.kind not in "iuf":
        items = array.ravel().tolist() if array.dtype.kind == "O" else None
        if items is None or not all(_real(item) and not isinstance(item, (bool, np.bool_)) for item in items):
            raise TypeError(f"{name} must hold real numbers (not bools or None), got {value!r}.")
    try:
        return array.astype(np.float64)
    except OverflowError:
        raise OverflowError(f"{name} must hold float64 numbers (of magnitude below 1.8e308), got {value!r}.") from None
