"""One caller at a time for an environment's batch: a second thread's call is refused, not raced.

Two threads stepping one env would step the same sub-environments at once (the kernels release the GIL) and
corrupt them; a stepping thread of an interrupted step that did not end may still write them. ``InUse`` is held by
the thread inside a call on the env (a step, reset, render, attribute read or write, pickling), or by such a
stepping thread until it ends; any other call meanwhile raises ``nbgym.error.EnvInUse`` at once, saying who holds
it. A call made by the holding thread itself (a step that renders a window) nests.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, ClassVar, TypeVar

from nbgym import error

_SLOT = 0
_get_ident = threading.get_ident


class _HandedOver:
    """The holder while a thread that no call waits for any more may still write the batch."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class InUse:
    """Who is inside a call on one environment: a thread's ident, or a ``_HandedOver`` stepping thread.

    Taking it is one ``dict.setdefault``, atomic under the GIL: of two threads that try at once, one gets it.
    A copy or a pickle of the env gets a free one.
    """

    __slots__ = ("_holder",)

    def __init__(self) -> None:
        self._holder: dict[int, Any] = {}

    def __reduce__(self) -> tuple[type, tuple]:
        return InUse, ()

    def enter(self, call: str) -> bool:
        """Take the env for ``call``; whether this call took it (``False``: this thread holds it already, and the
        outer call gives it back).

        Raises:
            nbgym.error.EnvInUse: If another thread, or a stepping thread that may still write, holds it.
        """
        me = threading.get_ident()
        if self._holder.get(_SLOT) == me:
            return False
        holder = self._holder.setdefault(_SLOT, me)
        if holder != me:
            raise error.EnvInUse(_refusal(holder, call))
        return True

    def leave(self) -> None:
        """Give the env back, unless it was handed over meanwhile."""
        if self._holder.get(_SLOT) == threading.get_ident():
            del self._holder[_SLOT]

    def hand_over(self, reason: str) -> Callable[[], None]:
        """From the holding thread: the env stays taken after its call returns, by a thread that may still write it
        (``reason`` says which); every call is refused with ``reason`` until the returned function is called, by
        that thread once it has ended."""
        marker = _HandedOver(reason)
        self._holder[_SLOT] = marker

        def release() -> None:
            if self._holder.get(_SLOT) is marker:  # nobody else can replace the marker: only its ender removes it
                del self._holder[_SLOT]

        return release

    @property
    def handed_over(self) -> bool:
        """Whether a stepping thread that no call waits for may still write the batch."""
        return isinstance(self._holder.get(_SLOT), _HandedOver)


def _refusal(holder: Any, call: str) -> str:
    if isinstance(holder, _HandedOver):
        return f"Cannot call {call}: {holder.reason}."
    name = next((thread.name for thread in threading.enumerate() if thread.ident == holder), f"ident {holder}")
    return (
        f"Cannot call {call}: another thread ({name}) is inside a call on this environment, and an environment takes "
        f"one caller at a time (its kernels step without the GIL: two callers would step the same sub-environments "
        f"at once). Give each thread an environment of its own, or serialise the calls with a lock."
    )


Method = TypeVar("Method", bound=Callable[..., Any])


def exclusive(call: str) -> Callable[[Method], Method]:
    """Decorates an env method that reads or writes its batch: it runs holding the env's ``_in_use``.

    ``InUse.enter`` and ``leave`` written out: a step of a single env is a few microseconds, and two method calls
    more would cost a tenth of it. A method of one argument named ``action`` (``step``) gets a wrapper of that one
    argument: passing ``*args, **kwargs`` on cost ~140 ns a call, ~7% of a single CartPole step."""

    # The wrappers read these from their closure, not from the module: an env collected while the interpreter exits
    # is closed (``__del__``) after the module's globals may already have been cleared to None.
    get_ident, slot = _get_ident, _SLOT

    def decorate(method: Method) -> Method:
        if _takes_one_action(method):

            def held(self, action: Any) -> Any:
                holder = self._in_use._holder
                me = get_ident()
                if holder.get(slot) == me:  # a call of this thread's call: the outer one gives the env back
                    return method(self, action)
                if holder.setdefault(slot, me) != me:
                    raise error.EnvInUse(_refusal(holder.get(slot), call))
                try:
                    return method(self, action)
                finally:
                    if holder.get(slot) == me:  # not handed over meanwhile
                        del holder[slot]

        else:

            def held(self, *args: Any, **kwargs: Any) -> Any:
                holder = self._in_use._holder
                me = get_ident()
                if holder.get(slot) == me:
                    return method(self, *args, **kwargs)
                if holder.setdefault(slot, me) != me:
                    raise error.EnvInUse(_refusal(holder.get(slot), call))
                try:
                    return method(self, *args, **kwargs)
                finally:
                    if holder.get(slot) == me:
                        del holder[slot]

        functools.update_wrapper(held, method)
        held._exclusive = True  # type: ignore[attr-defined]
        return held  # type: ignore[return-value]

    return decorate


def _takes_one_action(method: Callable[..., Any]) -> bool:
    """Whether ``method``'s parameters are ``self, action`` (positional or keyword, no default)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    return (
        len(parameters) == 2
        and parameters[1].name == "action"
        and all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters)
    )


class _OwnInUse:
    """The ``_in_use`` of an env: its own ``InUse``, made at its first use (``dict.setdefault``: one, even if two
    threads ask at once), so that methods called before (or without) the env's ``__init__`` hold it too."""

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        if env is None:
            return self
        return env.__dict__.setdefault("_in_use", InUse())


class Exclusive:
    """Makes the methods named in ``exclusive_calls`` run holding the env's ``_in_use``: in the class that declares
    them and in every subclass, whichever class of its MRO (a mixin's ``reset``, say) defines them there; a
    property's setter is held. The outermost call takes the env, the calls it makes nest."""

    _in_use = _OwnInUse()

    exclusive_calls: ClassVar[dict[str, str]] = {}
    """Method or property name -> the call it is named as in a refusal (``"env.step()"``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, call in cls.exclusive_calls.items():
            member = getattr(cls, name, None)
            if isinstance(member, property):
                if member.fset is not None and not getattr(member.fset, "_exclusive", False):
                    setattr(cls, name, member.setter(exclusive(call)(member.fset)))
            elif callable(member) and not getattr(member, "_exclusive", False):
                setattr(cls, name, exclusive(call)(member))
