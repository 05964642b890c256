"""Named views of a sub-environment's state row: the attributes gymnasium's envs hold as state.

gymnasium's environments keep their state in plain attributes (CartPole's ``state``, the toy-text
``s``, Blackjack's ``player``) that users read, assign and change in place. An nbgym environment
keeps that state in the rows of its batch, where the kernels read it. A :class:`StateView` names
one such attribute and says how to read it from a row and write it into one; the engine then makes
it an attribute of the single env (a ``KernelEnv``) and an attribute of ``get_attr``/``set_attr`` on the
vector env (a ``KernelVectorEnv``), with gymnasium's semantics: the value read (or assigned) stays the
env's own until the next step or reset, so in-place changes to it (``env.unwrapped.state[0] = 1.0``)
reach the next step, and after that step it is a snapshot of the past, as gymnasium's replaced
attribute is (or, for an attribute gymnasium's step changes in place, the same object, updated).

Set a class's ``state_views`` to a tuple of :class:`StateView`:

- ``StateView(name, read, write, doc=..., before_reset=...)``: one attribute;
- ``float64_state(name, start, stop)``: a float64 array over columns ``start:stop`` of the row;
- ``float_values(value, width, name)``: a value checked and converted as gymnasium's arithmetic sees it,
  with its precision (``FLOAT32``, ``PYTHON`` or ``FLOAT64``);
- ``NO_VALUE``: the ``before_reset`` of an attribute that does not exist before the first reset.

A view reads and writes one sub-environment's row: ``state[i]`` of a state array, or, for a state made of several
arrays (a named tuple of arrays whose first axis is the sub-environment, as the Box2D envs' worlds), a
:class:`StateRows` whose attributes are those arrays' rows (``row.env_f`` is ``state.env_f[i]``).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

__all__ = ["FLOAT32", "FLOAT64", "NO_VALUE", "PYTHON", "StateRows", "StateView", "float64_state", "float_values"]

NO_VALUE = object()
"""A view's ``before_reset`` when the attribute does not exist before the first reset."""

FLOAT32, PYTHON, FLOAT64 = "float32", "python", "float64"
"""The precisions in which gymnasium's arithmetic treats a state value (see :func:`float_values`)."""


class StateRows:
    """Sub-environment ``index``'s rows of a state made of several arrays: a named tuple of arrays (or of named tuples
    of them) whose first axis is the sub-environment. ``rows.env_f`` is ``state.env_f[index]``, a view (writes reach
    the kernels' arrays); ``rows.w.body_i`` is ``state.w.body_i[index]``."""

    __slots__ = ("_state", "_index")

    def __init__(self, state: Any, index: int) -> None:
        self._state = state
        self._index = index

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._state, name)
        return value[self._index] if isinstance(value, np.ndarray) else StateRows(value, self._index)

    def copy(self) -> StateRows:
        """The rows copied, as one sub-environment's state of its own (what a write may be tried on first)."""
        fields = (
            value[self._index : self._index + 1].copy()
            if isinstance(value, np.ndarray)
            else StateRows(value, self._index).copy()._state
            for value in self._state
        )
        return StateRows(type(self._state)(*fields), 0)


class StateView:
    """A named attribute of an environment over its state row.

    Args:
        name: The attribute's name, as gymnasium's environment has it.
        read: ``read(params, row) -> value``: a new object holding the attribute's value, of the type
            gymnasium's attribute has in that state (``params``: the env's parameter record).
        write: ``write(params, row, value)``: stores ``value`` into ``row`` so that the next step is gymnasium's
            from that value, or raises ``ValueError``/``TypeError`` saying what is expected when the
            kernels cannot step from it exactly as gymnasium would. It must accept what ``read``
            returns, unchanged (the engine writes values back before each step).
        doc: The attribute's documentation.
        before_reset: The attribute's value before the first reset (CartPole's ``state`` is ``None``);
            by default reading it then raises ``AttributeError``, as gymnasium's envs have no such
            attribute until they reset.
        changed_in_place: Whether gymnasium's step changes the attribute's object in place (Blackjack's
            ``list.append`` to a hand) rather than replacing it: a value read or assigned then stays the
            env's across steps, updated in place, until a reset replaces it. Its ``write`` must accept
            only values that can be updated in place as gymnasium's step updates them.
        replaced_at_reset: For an attribute gymnasium's ``__init__`` binds and its steps leave alone (CarRacing's
            colours): ``replaced_at_reset(params) -> bool`` says whether a reset with the parameter record
            ``params`` (the reset's: its options applied) binds a new object. The value read or assigned then
            stays the env's across steps and the resets that keep it, so in-place changes reach every step and
            reset after them; the attribute is read from the row before the first reset too (``before_reset``
            is not used).
    """

    def __init__(
        self,
        name: str,
        read: Callable[[np.record, np.ndarray], Any],
        write: Callable[[np.record, np.ndarray, Any], None],
        doc: str,
        *,
        before_reset: Any = NO_VALUE,
        changed_in_place: bool = False,
        replaced_at_reset: Callable[[np.record], bool] | None = None,
    ) -> None:
        self.name = name
        self.read = read
        self.write = write
        self.doc = doc
        self.before_reset = before_reset
        self.changed_in_place = changed_in_place
        self.replaced_at_reset = replaced_at_reset


def float_values(value: Any, width: int, name: str) -> tuple[np.ndarray, str]:
    """``value`` as ``width`` float64 numbers, and the precision gymnasium's arithmetic gives them.

    NumPy 2 computes with a float32 array's elements in float32 (against Python floats too), with
    Python numbers in the precision of the numpy value they meet, and with float64 or integer
    elements in float64.

    Args:
        value: An array, a numpy scalar sequence or a list/tuple of numbers.
        width: The number of values expected.
        name: The attribute's name, for the messages.

    Returns:
        The values (float32 ones exactly) and ``FLOAT32``, ``PYTHON`` or ``FLOAT64``.

    Raises:
        ValueError: If ``value`` is not ``width`` real numbers, has a float precision other than
            16/32/64 bits that gymnasium's arithmetic would keep, or holds integers whose square wraps in their
            dtype (see below).
    """
    if isinstance(value, (list, tuple)) and any(isinstance(item, np.ndarray) for item in value):
        raise ValueError(
            f"{name} must be {width} numbers, got arrays among them ({value!r}): gymnasium's step computes with each "
            f"item as it is (an array's arithmetic, which changes a 0-d array in place), which nbgym does not "
            f"reproduce. Write numbers (`[float(v) for v in value]`) or one array."
        )
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as reason:  # ragged sequences
        raise ValueError(f"{name} must be {width} numbers, got {value!r}.") from reason
    if array.shape != (width,) or array.dtype.kind not in "iuf":
        raise ValueError(
            f"{name} must be {width} real numbers (shape ({width},)), got {value!r}"
            + (
                ": gymnasium would compute the next step in numpy's bool arithmetic."
                if array.dtype.kind == "b"
                else "."
            )
        )
    if array.dtype == np.float32:
        precision = FLOAT32
    elif array.dtype.kind == "f" and array.dtype != np.float64:
        raise ValueError(
            f"{name} must be float64 or float32 numbers, got dtype {array.dtype}: gymnasium would compute the "
            f"next step in {array.dtype}. Cast it with `.astype(np.float64)`."
        )
    else:
        first = value[0] if isinstance(value, (list, tuple)) else None
        precision = PYTHON if type(first) in (float, int, bool) else FLOAT64
    if array.dtype.kind in "iu":
        computed = np.cos(np.zeros(1, array.dtype)).dtype
        if computed != np.float64:
            raise ValueError(
                f"{name} must be float64 numbers or integers of 32 or 64 bits, got dtype {array.dtype}: numpy's "
                f"functions (np.cos, np.sin) take {array.dtype} values as {computed}, so gymnasium would compute the "
                f"next step in {computed}. Cast it with `.astype(np.float64)`."
            )
        # gymnasium's steps take integer state values in numpy's integer arithmetic where they meet integers
        # (CartPole's np.square(theta_dot), Pendulum's thdot**2, the mountain cars' 3 * position), which wraps
        # around where the kernels' float64 does not: a square that fits the dtype is exact in both (and so is
        # 3 * v, at most v * v from 3 up).
        bound = math.isqrt(int(np.iinfo(array.dtype).max))
        largest = max(abs(int(v)) for v in array)
        if largest > bound:
            raise ValueError(
                f"{name} holds {array.dtype} integers up to {largest} in magnitude, got {value!r}: gymnasium's step "
                f"computes with integer state values in numpy's {array.dtype} arithmetic (their squares, their "
                f"multiples), which wraps around beyond {bound}. Write floats (`np.asarray(value, dtype=np.float64)`)."
            )
    return array.astype(np.float64), precision


def float64_state(
    name: str, start: int, stop: int, *, python_numbers: bool = True, before_reset: Any = NO_VALUE
) -> StateView:
    """The view of an environment whose gymnasium original keeps ``state`` as a float64 array of the row's
    columns ``[start, stop)`` (float32 values would make its next step float32 arithmetic: refused).

    Args:
        name: The attribute's name.
        start, stop: The columns.
        python_numbers: Whether a list of Python numbers steps as float64 numbers do (it does unless a
            Python float would meet a float32 value in the step, as in Pendulum's cost).
        before_reset: See :class:`StateView`.
    """
    width = stop - start

    def read(params: np.record, row: np.ndarray) -> np.ndarray:
        return row[start:stop].copy()

    def write(params: np.record, row: np.ndarray, value: Any) -> None:
        values, precision = float_values(value, width, name)
        if precision == FLOAT32 or (precision == PYTHON and not python_numbers):
            kind = "float32 numbers" if precision == FLOAT32 else "Python numbers"
            raise ValueError(
                f"{name} must be float64 numbers, got {kind} ({value!r}): gymnasium would compute the next step "
                f"with them in float32, which nbgym does not reproduce. Pass `np.array(..., dtype=np.float64)`."
            )
        row[start:stop] = values

    doc = f"The ``{name}`` array of gymnasium's environment: the kernels' own state."
    return StateView(name, read, write, doc, before_reset=before_reset)
