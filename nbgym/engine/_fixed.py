"""Attributes of an environment that are set when it is made and then fixed (``fixed_property``): its compiled kernels
were built for them, so another value assigned later is refused rather than silently ignored."""

from __future__ import annotations

from typing import Any


def fixed_slot(name: str) -> str:
    """The instance attribute that holds the value of ``fixed_property(name, ...)``."""
    return f"_fixed_{name}"


def fixed_property(name: str, why: str) -> property:
    """An attribute set when the env is made and then fixed: later assignments of an equal value are taken (a
    wrapper may set the same space again), of another refused with ``AttributeError`` saying ``why``."""
    slot = fixed_slot(name)

    def get(self: Any) -> Any:
        try:
            return self.__dict__[slot]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no {name} before it is made") from None

    def set(self: Any, value: Any) -> None:
        if slot in self.__dict__ and not (value is self.__dict__[slot] or value == self.__dict__[slot]):
            raise AttributeError(f"{name} of {type(self).__name__} cannot be assigned another value: {why}")
        self.__dict__[slot] = value

    return property(get, set, doc=f"{why[0].upper()}{why[1:]}")


NUM_ENVS_SLOT = fixed_slot("num_envs")
"""Where a compiled vector env holds ``num_envs`` (its ``recv`` sees itself as one batch's env by writing it)."""
