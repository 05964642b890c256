"""Actions read as gymnasium's environments read them.

gymnasium's environments take whatever their first lines of ``step`` take: Acrobot indexes a list with the
action (``AVAIL_TORQUE[a]``: ``-1`` is its last torque, ``1.0`` a ``TypeError``), the toy-text envs look it up in
a dict (``P[s][a]``: ``1.0`` and ``np.float16(1)`` are the key ``1``, ``-1`` a ``KeyError``), Pendulum clips it
with numpy (``None`` is a ``TypeError``, a string a ``UFuncTypeError``), and each raises what those operations
raise for anything else.

A physics declares that reading once, as ``Physics(read_action=...)``: a Python function ``read(params, action)``
of the parameter record and one sub-environment's action that performs the operations gymnasium's ``step`` performs on it before anything
moves, raising what they raise, and returns the action as the kernels take it (for a discrete action, the int
it stands for; for a ``Box`` action, the action, which the engine then converts and checks as an array).
The engine runs it

- for an action that is not already the kernels' own (a Python or int64 int, an array of the action's shape
  and a float dtype): what it returns goes on to the kernels, and what it raises is refused before anything
  moves, as an ``nbgym.error.InvalidAction`` that is also an instance of the built-in type gymnasium raised
  (``error.invalid_action_like``);
- for a vector env's batch, as gymnasium's ``SyncVectorEnv.step`` reads one (``read_batch``);
- for an action the kernel's ``action_valid`` refused, to tell which exception gymnasium raises (``refusal``).

nbgym refuses more than gymnasium in one way only: what its compiled kernels cannot compute as gymnasium's
Python does (NaN where a kernel needs a number, float16, complex, object or string dtypes, and a ``Box``
action of another shape than its space's, which gymnasium would broadcast or index past) is an
``InvalidAction`` that says so, where gymnasium's env would carry on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


from nbgym import error

ActionReader = Callable[[Any, Any], Any]
"""gymnasium's reading of one sub-environment's action (see the module docstring)."""


class asserts_contains:  # noqa: N801 (a reader, named as the readers made by functions)
    """The reading of an env that asserts ``action_space.contains(action)`` (CartPole, MountainCar, Blackjack: the
    engine's default for a discrete env): ``AssertionError`` for anything else, such as ``np.uint64`` ints, whose
    dtype does not cast to the space's."""

    def __init__(self, space: Any) -> None:
        self.space = space

    def __call__(self, params: Any, action: Any) -> Any:
        if not self.space.contains(action):
            raise AssertionError(f"{action!r} ({type(action)}) invalid")
        return action


class indexes_a_list:  # noqa: N801
    """The reading of an env that indexes a Python list of ``n`` items with its action (Acrobot's
    ``AVAIL_TORQUE[a]``): ints and what has ``__index__`` (a 0-d integer array, ``True``), negative ones counting
    from the end; ``TypeError`` for anything else, ``IndexError`` out of range."""

    def __init__(self, n: int) -> None:
        self.items = range(n)

    def __call__(self, params: Any, action: Any) -> int:
        return self.items[action]


class keys_a_dict:  # noqa: N801
    """The reading of an env that looks its action up in a dict keyed by ``0 .. n - 1`` (the toy-text envs'
    ``P[s][a]``): whatever hashes and compares equal to a key (``1.0``, ``np.float16(1)``, ``True``);
    ``KeyError`` for other hashable values, ``TypeError`` for unhashable ones (lists, arrays)."""

    def __init__(self, n: int) -> None:
        self.keys = {key: key for key in range(n)}

    def __call__(self, params: Any, action: Any) -> int:
        return self.keys[action]


def _refusal(raised: Exception, described: str) -> error.InvalidAction:
    """The refusal of an action for which gymnasium's reading raised ``raised``: gymnasium's own message for its
    assertions and ``InvalidAction`` (the env's words), else ``described`` and what was raised."""
    if isinstance(raised, (AssertionError, error.InvalidAction)):
        return error.invalid_action_like(raised, str(raised))
    return error.invalid_action_like(
        raised, f"{described}: gymnasium's environment raises {type(raised).__name__} for it ({raised})"
    )


def _described(action: Any, space: Any) -> str:
    return f"{action!r} ({type(action).__name__}) is not an action of {space}"


def read(reader: ActionReader, params: Any, action: Any, space: Any) -> Any:
    """``reader(params, action)``, or the refusal of what it raised.

    Raises:
        InvalidAction: Of the built-in type ``reader`` raised, saying why.
    """
    try:
        return reader(params, action)
    except Exception as raised:
        raise _refusal(raised, _described(action, space)) from raised


def refusal(reader: ActionReader | None, params: Any, action: Any, message: str) -> error.InvalidAction:
    """The exception for ``action``, which the kernels' ``action_valid`` refused: of the type gymnasium's reading
    raises for it (``reader``), or a plain ``InvalidAction`` when that reading takes it (say a NaN, which the
    kernels cannot compute with).

    Args:
        reader: The physics' ``read_action`` (``None``: a plain ``InvalidAction``).
        params: The parameter record.
        action: The refused action of one sub-environment.
        message: What the env says of it.
    """
    if reader is not None:
        try:
            reader(params, action)
        except Exception as raised:
            if str(raised) in message:  # the env's message is gymnasium's
                return error.invalid_action_like(raised, message)
            return error.invalid_action_like(raised, f"{message} (gymnasium raises {type(raised).__name__}: {raised})")
    return error.InvalidAction(message)


def read_batch(
    reader: ActionReader, params: Any, actions: Any, num_envs: int, reads: Iterable[bool], space: Any
) -> tuple[list[Any], list[Any]]:
    """A vector env's batch, read as gymnasium's ``SyncVectorEnv.step`` reads it: ``iter(actions)`` (its
    ``iterate``), zipped strictly with the sub-environments, each reading its own element in turn.

    Args:
        reader: The physics' ``read_action``.
        params: The parameter record.
        actions: The batch.
        num_envs: The number of sub-environments.
        reads: For each sub-environment, whether its step reads its action (false for one that next-step
            autoreset resets instead: gymnasium's ``SyncVectorEnv`` does not look at its action).
        space: One sub-environment's action space, for the messages.

    Returns:
        The elements (``actions`` may be an iterator, read once), and what ``reader`` returned for each, ``None`` for
        the elements not read.

    Raises:
        InvalidAction: Of the type gymnasium raises: ``TypeError`` for a batch that is not iterable,
            ``ValueError`` for one of another length than ``num_envs``, the reader's for an element.
    """
    try:
        elements = iter(actions)
    except TypeError as raised:
        raise error.InvalidActionTypeError(
            f"A batch of actions is one action per sub-environment (an array of shape ({num_envs}, ...)), got "
            f"{actions!r}, which gymnasium's vector env cannot iterate over."
        ) from raised
    read_elements: list[Any] = []
    read_values: list[Any] = []
    for i, (read_it, element) in enumerate(zip(reads, elements)):  # reads first: no element consumed past num_envs
        if read_it:
            try:
                read_values.append(reader(params, element))
            except Exception as raised:
                raise _refusal(raised, f"Sub-environment {i}: {_described(element, space)}") from raised
        else:
            read_values.append(None)
        read_elements.append(element)
    count = len(read_values) + sum(1 for _ in elements)
    if count != num_envs:
        raise error.InvalidActionValueError(
            f"A batch of actions is one action per sub-environment: expected {num_envs}, got {count} in {actions!r}."
        )
    return read_elements, read_values
