"""Lists and dicts that gymnasium's environments expose and whose changes nbgym's kernels would not see.

gymnasium's code reads such an attribute as it steps (a toy-text env's transition table ``P``, Acrobot's
``AVAIL_TORQUE``), so a change made in place changes its dynamics; nbgym's kernels read their own parameters, so the
same change would be silently ignored. These containers are the values gymnasium's are (a ``list`` or ``dict``
subclass, equal to the plain one), and every change in place raises ``TypeError`` saying what to do instead. A copy
(``copy.copy``, ``copy.deepcopy``, ``list(...)``, ``dict(...)``) is the user's own plain, changeable list or dict.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

import numpy as np


class ReadOnlyList(list):
    """A list that refuses every change in place with ``TypeError(why)``."""

    def __init__(self, items: Iterable[Any] = (), why: str = "") -> None:
        super().__init__(items)
        self._why = why

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(self._why)

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = extend = insert = pop = remove = clear = _refuse
    sort = reverse = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (list(self), self._why)  # not list's, which fills the new list with append/extend

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(item, memo) for item in self]


class ReadOnlyDict(dict):
    """A dict that refuses every change in place with ``TypeError(why)``."""

    def __init__(self, items: Any = (), why: str = "") -> None:
        super().__init__(items)
        self._why = why

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(self._why)

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (dict(self), self._why)  # not dict's, which fills the new dict with __setitem__

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {copy.deepcopy(key, memo): copy.deepcopy(value, memo) for key, value in self.items()}


def read_only_transitions(table: dict[int, dict[int, list[tuple[Any, ...]]]], env_name: str, made_from: str) -> dict:
    """A toy-text transition table ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` that refuses changes.

    Args:
        table: The table, as gymnasium's env builds it.
        env_name: The env's class name, for the message.
        made_from: What the env's kernels compute their transitions from (the arguments to change instead).
    """
    why = (
        f"{env_name}.P is read-only in nbgym: its compiled kernels compute the transitions from {made_from}, not "
        f"from P, so a change of P would not change how the env steps. Make a new env with the arguments you want, "
        f"or copy P (copy.deepcopy(env.unwrapped.P)) for a table of your own."
    )
    return ReadOnlyDict(
        (
            (s, ReadOnlyDict(((a, ReadOnlyList(outcomes, why)) for a, outcomes in moves.items()), why))
            for s, moves in table.items()
        ),
        why,
    )


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that refuses writes (numpy's ``ValueError: assignment destination is read-only``)."""
    view = array.view()
    view.flags.writeable = False
    return view
