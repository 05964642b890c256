"""Unpickled state whose arrays can be written: object stores hand arrays back read-only.

Ray's object store (and ``pickle.loads`` of protocol-5 out-of-band buffers from any shared memory)
rebuilds numpy arrays over memory they may not write. nbgym's environments write their arrays in place
(the compiled kernels' state rows and buffers, parameters, seed records, running statistics), and numba
refuses a read-only array where its kernels write. :func:`writable_state` is what the ``__setstate__``
of ``Env``, ``Wrapper``, ``VectorEnv``, ``VectorWrapper`` and the kernel batch apply to the state they
are given: every read-only array in it (and in the dicts, lists, tuples and deques it holds) is
replaced by a writable copy, so an unpickled environment continues exactly where it was. Namedtuples are
searched too and rebuilt as their own type: the compiled Box2D and MuJoCo batches keep their arrays in
namedtuples (a world's rows, a state of several arrays), which numba types field by field.

One array reached from several places (say the parameter record an env shares with its kernel batch)
becomes one copy, shared as the original was: the copy of each read-only array is remembered while the
original lives.
"""

from __future__ import annotations

import collections
import weakref
from typing import Any

import numpy as np

__all__ = ["writable", "writable_state"]

_copies: dict[int, tuple[weakref.ref, weakref.ref]] = {}
"""The writable copy made of each read-only array still alive, by the original's ``id``."""


def _forget(key: int, original: weakref.ref) -> None:
    entry = _copies.get(key)
    if entry is not None and entry[0] is original:
        del _copies[key]


def writable(value: Any, _searched: set[int] | None = None) -> Any:
    """``value``, or for a read-only ndarray a writable copy of it (the same copy each time while both live).

    Args:
        value: Anything; dicts, lists, tuples, namedtuples and deques are searched (lists, dicts and deques in
            place; a tuple or namedtuple with a read-only array is rebuilt, as its own type).

    Returns:
        ``value`` with every read-only ndarray in it replaced by its writable copy.
    """
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            return value
        key = id(value)
        entry = _copies.get(key)
        if entry is not None and entry[0]() is value:
            copy = entry[1]()
            if copy is not None:
                return copy
        copy = value.copy()
        original = weakref.ref(value, lambda ref, key=key: _forget(key, ref))
        _copies[key] = (original, weakref.ref(copy))
        return copy
    if type(value) not in _CONTAINERS and not _is_namedtuple(value):
        return value
    searched = set() if _searched is None else _searched
    if id(value) in searched:  # a container that holds itself
        return value
    searched.add(id(value))
    if type(value) is dict:
        for key, item in value.items():
            replaced = writable(item, searched)
            if replaced is not item:
                value[key] = replaced
    elif type(value) is list or type(value) is collections.deque:
        for index, item in enumerate(value):
            replaced = writable(item, searched)
            if replaced is not item:
                value[index] = replaced
    else:
        replaced = tuple(writable(item, searched) for item in value)
        if any(new is not old for new, old in zip(replaced, value)):
            return replaced if type(value) is tuple else type(value)._make(replaced)
    return value


_CONTAINERS = (dict, list, tuple, collections.deque)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_make") and hasattr(type(value), "_fields")


def writable_state(state: Any) -> Any:
    """The ``__setstate__`` argument ``state`` with every read-only array in it replaced by a writable copy.

    Args:
        state: What ``__getstate__`` returned (usually the object's ``__dict__``), as unpickled.

    Returns:
        ``state``, changed in place where it is a dict.
    """
    return writable(state)


def restore(obj: Any, cls: type, state: Any) -> None:
    """Restores ``obj`` from ``state`` as pickle would, with writable arrays: the ``__setstate__`` of ``cls``.

    The next class after ``cls`` in ``obj``'s method order that has a ``__setstate__`` (a mixin such as
    ``EzPickle``) is given the state; without one, it is set as pickle sets it (the ``__dict__``, and
    the slots of a ``(dict, slots)`` pair).

    Args:
        obj: The object being unpickled.
        cls: The class whose ``__setstate__`` calls this.
        state: The unpickled state.
    """
    state = writable_state(state)
    inherited = getattr(super(cls, obj), "__setstate__", None)
    if inherited is not None:
        inherited(state)
        return
    slots = None
    if type(state) is tuple and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    for name, value in (slots or {}).items():
        setattr(obj, name, value)
