"""The one place where a value a user assigns to an env attribute is stored into the kernels' arrays.

gymnasium's environments hold their parameters and game numbers in plain attributes that take any object; nbgym
serves them from typed arrays the compiled kernels read (a parameter record, state rows). numpy's own assignment
would coerce silently what those arrays cannot hold as given: ``None`` into a float becomes NaN, ``2.5`` into an
int64 becomes 2, ``1e300`` into a float32 becomes inf, ``True`` anywhere becomes 1. :func:`store` stores a value only
when the array holds it exactly, and otherwise raises before anything is written, saying what was given and what is
accepted.

A number also has a *kind*, which gymnasium's arithmetic follows (NumPy 2, NEP 50): a Python ``float``, ``int`` or
``bool`` takes the precision of the numpy value it meets (``0.001 * u`` of a float32 ``u`` is float32), a
``np.float64`` (or a 0-d float64 array) makes that float64, a ``np.float32`` computes in float32, a numpy integer in
numpy's wrapping integer arithmetic, a ``np.bool_`` refuses ``-value``, a subclass of ``float`` is a Python float to
Python's operators and a float64 to numpy's functions, an array of one element makes every result an array. So each
float parameter *follows* the kinds whose arithmetic its kernels reproduce (:data:`FOLLOWED`, or what the env
declares in ``written_kinds``) and refuses the others with a ``TypeError`` that says so; a parameter whose kernels
compute as numpy does with more than one kind declares a field ``_<name>_kind`` (int8) in its parameter record, which
:func:`store` sets to the written value's :data:`KIND_CODES` code for the kernels to read.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

PYTHON = "Python number"
"""A Python ``float``, ``int`` or ``bool`` (exactly these types): NumPy 2's weak scalars."""
FLOAT64 = "float64"
"""A ``np.float64``: float64 against anything."""
FLOAT64_0D = "0-d float64 array"
"""A 0-d float64 array: float64 against anything, as a ``np.float64``, but not a ``float`` to what converts its
arguments as Python floats (pybox2d's vectors)."""
FLOAT_SUBCLASS = "float subclass"
"""An instance of a subclass of ``float`` (not of ``np.float64``): a Python float to Python's own operators, a float64
to numpy's functions (``np.clip``)."""
FLOAT32 = "float32"
"""A ``np.float32``: float32 against itself and Python numbers."""
FLOAT32_0D = "0-d float32 array"
FLOAT16 = "float16"
LONGDOUBLE = "longdouble"
INTEGER = "numpy integer"
"""A numpy integer scalar or 0-d integer array: numpy's integer arithmetic, which wraps around."""
BOOL = "numpy bool"
"""A ``np.bool_`` or 0-d bool array: numpy's bool arithmetic (``-np.True_`` is a ``TypeError``)."""

FOLLOWED = (PYTHON, FLOAT64, FLOAT64_0D, FLOAT_SUBCLASS)
"""The kinds a float parameter follows unless its env declares otherwise: its kernels compute with it in float64,
as gymnasium does with each of these where the parameter meets no float32 value."""
WITH_KIND_FIELD = (PYTHON, FLOAT64, FLOAT64_0D, FLOAT32, FLOAT32_0D)
"""The kinds a float parameter with a ``_<name>_kind`` field follows unless its env declares otherwise."""
KIND_CODES = {PYTHON: 0, FLOAT64: 1, FLOAT64_0D: 1, FLOAT32: 2, FLOAT32_0D: 2}
"""The code of each kind in a ``_<name>_kind`` field (0, a zeroed record's, is a Python number: the defaults)."""


def zero_d(scalar_kind: str) -> str:
    """The kind of a 0-d array whose item is of ``scalar_kind`` (``zero_d(FLOAT64)`` is :data:`FLOAT64_0D`)."""
    return f"0-d {scalar_kind} array"


def kind_field(name: str) -> str:
    """The name of the record field that holds parameter ``name``'s kind code, when the physics declares one."""
    return f"_{name}_kind"


def kind(value: Any) -> str | None:
    """The kind of a number in gymnasium's arithmetic (see the module docstring); ``None`` for what is not one real
    number (an array of one or more elements, a string, ``None``, a ``Decimal``, a complex number)."""
    if isinstance(value, np.ndarray):
        inner = kind(value[()]) if value.shape == () else None
        return None if inner is None else zero_d(inner)
    if type(value) in (float, int, bool):
        return PYTHON
    if isinstance(value, np.generic):
        dtype = value.dtype
        if dtype.kind == "b":
            return BOOL
        if dtype.kind in "iu":
            return INTEGER
        if dtype.kind == "f":
            return {8: FLOAT64, 4: FLOAT32, 2: FLOAT16}.get(dtype.itemsize, LONGDOUBLE)
        return None
    if isinstance(value, float):
        return FLOAT_SUBCLASS
    if isinstance(value, (int, numbers.Integral)) and not isinstance(value, bool):
        return PYTHON if isinstance(value, int) else None
    return None


def _real(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, (np.datetime64, np.timedelta64))


def _refuse_kind(value: Any, found: str | None, follows: tuple[str, ...], name: str) -> TypeError:
    if found is None:
        if isinstance(value, np.ndarray):
            reason = (
                f"an array of shape {value.shape}: gymnasium's arithmetic with it gives arrays (its reward, its "
                f"state), which the kernels' numbers are not"
            )
        else:
            reason = f"a {type(value).__name__}, not a real number the kernels compute with"
    else:
        reason = (
            f"a {found}: gymnasium computes with it in the arithmetic of a {found}, which nbgym's kernels do not "
            f"reproduce for {name}"
        )
    return TypeError(
        f"{name} takes {' or '.join(f'a {k}' for k in follows)}, got {value!r} ({type(value).__name__}), {reason}. "
        f"Write `float(value)` to compute with it as with a Python float."
    )


def exact(
    value: Any, dtype: np.dtype, shape: tuple[int, ...], name: str, follows: tuple[str, ...] | None = None
) -> Any:
    """``value`` as ``dtype`` numbers of ``shape``, when they hold it exactly.

    Args:
        value: What the user assigned.
        dtype: The kernels' type for it (bool: any number, taken for its truth, as gymnasium's ``if value:``).
        shape: ``()`` for one number, ``(n,)`` for a sequence of ``n``.
        name: The attribute's name, for the messages.
        follows: For a float ``dtype``: the kinds of number (see :func:`kind`) whose arithmetic the kernels follow
            (default :data:`FOLLOWED`); integer and bool parameters take any real number that holds their value.

    Raises:
        TypeError: If ``value`` is not a real number (or a sequence of ``n`` of them), or is of a kind the kernels
            do not follow.
        ValueError: If an integer attribute is given a number that is not an integer.
        OverflowError: If the number is out of the kernels' range for it.
    """
    what = "a real number" if not shape else f"{shape[0]} real numbers"
    if shape:
        items = list(value) if isinstance(value, (tuple, list, np.ndarray)) and np.ndim(value) == 1 else None
        if items is None or len(items) != shape[0]:
            raise TypeError(f"{name} must be {what} (a tuple, list or array of shape {shape}), got {value!r}.")
        return np.array([exact(item, dtype, (), name, follows) for item in items], dtype=dtype)
    if dtype.kind == "f":
        follows = FOLLOWED if follows is None else follows
        found = kind(value)
        if found not in follows:
            raise _refuse_kind(value, found, follows, name)
        if isinstance(value, np.ndarray):
            value = value[()]
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


def store(array: np.ndarray, index: Any, value: Any, name: str, follows: tuple[str, ...] | None = None) -> None:
    """Stores ``value`` at ``array[index]`` (a field name of a parameter record, or a row and column) when the array
    holds it exactly and the kernels follow its kind (see :func:`exact`), else raises before anything is written.
    A record's field ``_<index>_kind`` (:func:`kind_field`), when there is one, gets the value's kind code (and the
    field then follows :data:`WITH_KIND_FIELD` by default)."""
    if isinstance(index, str):
        dtype = array.dtype[index]
        target_dtype, shape = dtype.base, dtype.shape
        code_field = kind_field(index)
        if code_field not in (array.dtype.names or ()):
            code_field = None
        elif follows is None:
            follows = WITH_KIND_FIELD
    else:
        target_dtype, shape, code_field = array.dtype, np.shape(array[index]), None
    stored = exact(value, target_dtype, shape, name, follows)
    if code_field is not None:
        code = KIND_CODES.get(kind(value))
        if code is None:
            raise TypeError(f"{name}: the kernels follow the kinds {tuple(KIND_CODES)}, got {value!r}.")
        array[code_field] = code
    array[index] = stored


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
