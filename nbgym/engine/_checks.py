"""Checks of an environment's physics that turn numba's failures, and silent wrong answers, into errors that teach.

A physics function is compiled into nbgym's kernels, where a mistake either stops numba with a long
traceback that names the kernels rather than the function, or — worse — compiles into something
that runs and gives wrong answers: an index past a state row writes another sub-environment's
memory, ``np.random`` inside a kernel draws from one stream that every sub-environment and thread
shares (results follow neither the seeds nor the thread count), object mode calls back into Python
for every sub-environment. These checks run when a ``Physics`` is defined (signatures, draws, object
mode, literal indices past the state row) and when it is first compiled for an environment
(numba's errors, re-raised naming the physics function and its line).
"""

from __future__ import annotations

import builtins
import contextlib
import dis
import inspect
import linecache
import os
import random as stdlib_random
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numba.core.errors import NumbaError
from numba.core.extending import _Intrinsic
from numba.core.registry import CPUDispatcher

from nbgym import error

PROTOCOL: dict[str, tuple[tuple[str, ...], str]] = {
    "reset": (("params", "state", "i", "rng", "aux"), "returns nothing: writes state[i] (and aux[i])"),
    "step": (("params", "state", "i", "actions", "rng", "aux"), "returns (reward, terminated)"),
    "observe": (("params", "state", "i", "obs"), "returns nothing: writes obs[i]"),
    "action_valid": (("params", "actions", "i"), "returns whether actions[i] is valid"),
    "act": (("params", "state", "i", "actions", "rng", "aux"), "returns nothing: applies actions[i] before advance"),
    "advance": (
        ("params", "state", "first", "stop", "resting"),
        "returns nothing: moves rows first to stop - 1 whose resting[i] is false",
    ),
}
"""Each physics function's arguments and what it returns (the protocol of ``nbgym.engine.Physics``)."""


@dataclass(frozen=True)
class _Code:
    """A function whose bytecode the checks read: its name, code, globals and closure (its free variables'
    values by name)."""

    name: str
    code: types.CodeType
    globals: dict
    closure: dict


def physics_function(physics: str, role: str, function: Callable) -> types.FunctionType:
    """The plain Python function of a physics function, checked against the protocol.

    Args:
        physics: The physics' name, for messages.
        role: ``"reset"``, ``"step"``, ``"observe"``, ``"action_valid"``, ``"act"`` or ``"advance"``.
        function: The function (a plain function, or one decorated with ``@njit``).

    Returns:
        The plain Python function (numba compiles it into the kernels itself).

    Raises:
        PhysicsError: If ``function`` is not a Python function, is compiled in object mode, or does not
            take the protocol's arguments.
    """
    expected, returns = PROTOCOL[role]
    usage = f"{role}({', '.join(expected)}) that {returns}"
    if isinstance(function, CPUDispatcher):
        _refuse_object_mode(physics, role, function)
        function = function.py_func
    if not isinstance(function, types.FunctionType):
        raise error.PhysicsError(f"Physics {physics!r}: {role} must be a Python function {usage}; got {function!r}.")
    parameters = list(inspect.signature(function).parameters.values())
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if (
        len(parameters) != len(expected)
        or len(positional) != len(expected)
        or any(p.default is not p.empty for p in parameters)
    ):
        raise error.PhysicsError(
            f"Physics {physics!r}: {role} must be {usage}; {function.__name__} is defined as "
            f"{function.__name__}{inspect.signature(function)} (the kernels call it with {len(expected)} "
            f"positional arguments, without defaults)."
        )
    return function


def _refuse_object_mode(physics: str, where: str, dispatcher: CPUDispatcher) -> None:
    options = dispatcher.targetoptions
    if options.get("forceobj") or options.get("nopython") is False:
        raise error.PhysicsError(
            f"Physics {physics!r}: {where} uses {dispatcher.py_func.__name__}, compiled in numba's object mode: "
            f"every call would go back to the Python interpreter (and hold the GIL). Compile it in "
            f"nopython mode with `@nbgym.engine.njit`."
        )


def _is_global_random(value: object) -> bool:
    """Whether ``value`` is numpy's or Python's global random state, or one of its functions."""
    if isinstance(value, types.ModuleType):
        return value.__name__ == "random" or value.__name__.startswith("numpy.random")
    owner = getattr(value, "__self__", None)
    if isinstance(owner, (np.random.RandomState, np.random.Generator, stdlib_random.Random)):
        return True
    module = getattr(value, "__module__", None) or ""
    return callable(value) and (module == "random" or module.startswith("numpy.random"))


def _instructions(code: types.CodeType) -> Iterator[tuple[dis.Instruction, int | None]]:
    """The instructions of ``code`` and of the code nested in it (comprehensions), with their line numbers.

    Read the same way on every supported Python: the line table (``dis.findlinestarts``) rather than
    ``Instruction.positions`` (3.11+) or ``starts_line`` (an int up to 3.12, a bool from 3.13); and
    the instructions that newer Pythons fuse are split back (``_plain``).
    """
    starts = dict(dis.findlinestarts(code))
    line = code.co_firstlineno
    for instruction in dis.get_instructions(code):
        if starts.get(instruction.offset) is not None:
            line = starts[instruction.offset]
        for plain in _plain(instruction):
            yield plain, line
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _instructions(constant)


_FAST_LOADS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW"}
"""Loads of a local variable: ``LOAD_FAST`` (all), ``LOAD_FAST_CHECK`` (3.12+), ``LOAD_FAST_BORROW`` (3.14)."""
_PAIRED_FAST_LOADS = {"LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW_LOAD_FAST_BORROW"}
"""Two local loads in one instruction (3.13+; the borrowing one 3.14), whose ``argval`` is the pair of names."""


def _plain(instruction: dis.Instruction) -> Iterator[dis.Instruction]:
    """``instruction`` in the forms of Python 3.10-3.12: a local load is ``LOAD_FAST``, a fused pair of local
    loads two of them, a small int ``LOAD_CONST``."""
    name = instruction.opname
    if name in _FAST_LOADS:
        yield instruction._replace(opname="LOAD_FAST")
    elif name in _PAIRED_FAST_LOADS:
        for argval in instruction.argval:
            yield instruction._replace(opname="LOAD_FAST", argval=argval, argrepr=argval)
    elif name == "LOAD_SMALL_INT":  # 3.14
        yield instruction._replace(opname="LOAD_CONST", argval=instruction.arg)
    else:
        yield instruction


def _globals_used(code: _Code) -> Iterator[tuple[object, str, int | None]]:
    """The objects that ``code`` loads from its globals or its closure, each attribute chain resolved to its
    end (``np.random.rand``), with its dotted path and line."""
    current: object = None
    path, start = "", None
    for instruction, line in _instructions(code.code):
        if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD") and current is not None:
            current = getattr(current, instruction.argval, None)
            path = f"{path}.{instruction.argval}"
            continue
        if current is not None:
            yield current, path, start
            current = None
        if instruction.opname == "LOAD_GLOBAL":
            name = instruction.argval
            current = code.globals.get(name, getattr(builtins, name, None))
            path, start = name, line
        elif instruction.opname == "LOAD_DEREF" and instruction.argval in code.closure:
            # numba freezes a closure variable as a constant: ``rnd = np.random`` outside the function is
            # ``np.random`` inside it.
            current = code.closure[instruction.argval]
            path, start = instruction.argval, line
    if current is not None:
        yield current, path, start


def _closure(function: types.FunctionType) -> dict:
    """The values of ``function``'s free variables, by name (those not yet bound left out)."""
    return {name: _cell_value(cell) for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ())}


def scan(physics: str, role: str, function: types.FunctionType) -> list[types.FunctionType]:
    """Refuses draws that are not per sub-environment, and object mode, in ``function`` and its helpers.

    Args:
        physics: The physics' name, for messages.
        role: The physics function's role, for messages.
        function: The plain Python function of the physics function.

    Returns:
        ``function`` and the Python functions of every compiled helper it calls, directly or not (the
        code in which numba's errors are looked up).

    Raises:
        PhysicsError: If the code draws from ``np.random`` or Python's ``random``, uses ``numba.objmode``,
            or calls a helper compiled in object mode.
    """
    import numba

    seen: dict[types.CodeType, types.FunctionType] = {}
    pending = [function]
    while pending:
        current = pending.pop()
        if current.__code__ in seen:
            continue
        seen[current.__code__] = current
        where = role if current is function else f"{role} (through {current.__name__})"
        for value, path, line in _globals_used(
            _Code(current.__name__, current.__code__, current.__globals__, _closure(current))
        ):
            location = f"{current.__code__.co_filename}, line {line}"
            if _is_global_random(value):
                raise error.PhysicsError(
                    f"Physics {physics!r}: {where} draws from a global random state (`{path}`, {location}): "
                    f"all sub-environments and threads would share one stream, so results would follow neither "
                    f"the seeds nor the thread count. Draw from the sub-environment's own stream instead, "
                    f"e.g. `nbgym.engine.rng.random(rng, i)` (also uniform, integers, next_uint64)."
                )
            if value is numba.objmode:
                raise error.PhysicsError(
                    f"Physics {physics!r}: {where} uses numba.objmode (`{path}`, {location}): an object-mode "
                    f"block goes back to the Python interpreter for every sub-environment and step, and holds "
                    f"the GIL. Write the block in nopython code, or compute the value outside the kernels "
                    f"and pass it in the parameter record."
                )
            if isinstance(value, CPUDispatcher):
                _refuse_object_mode(physics, where, value)
                pending.append(value.py_func)
            elif isinstance(value, _Intrinsic):
                # Its code generator (and the operators its module overloads) is compiled in too: its file joins
                # the kernels' cache key.
                pending.append(value._defn)
    return list(seen.values())


def with_checked_helpers(function: types.FunctionType, options: dict, copies: dict) -> types.FunctionType:
    """``function``, calling copies of its compiled helpers that numba compiles with ``options`` (bounds checks).

    numba compiles each ``@njit`` helper with the helper's own options, whatever its caller's: a physics
    compiled with bounds checks would still index unchecked inside its helpers. The copy of ``function``
    sees each helper (in its globals or closure) replaced by a dispatcher of the helper's Python function,
    itself a copy calling checked helpers, compiled with ``options``; the copies are compiled into the
    kernels, which keep them in numba's cache.

    Args:
        function: A physics function or helper (a plain Python function).
        options: The numba options of the copies.
        copies: The copies made so far, by helper (shared between the functions of one physics).
    """

    def checked(value: object) -> object:
        if not isinstance(value, CPUDispatcher):
            return value
        helper = value.py_func
        if helper not in copies:
            copies[helper] = value  # a helper that calls itself keeps calling the original below
            import numba

            from nbgym.engine._jit import HelperDispatcher

            copy = numba.njit(**options)(with_checked_helpers(helper, options, copies))
            copy.__class__ = HelperDispatcher  # a helper, as the original: typed and checked as nbgym's helpers are
            copies[helper] = copy
        return copies[helper]

    names = {
        instruction.argval for instruction, _ in _instructions(function.__code__) if instruction.opname == "LOAD_GLOBAL"
    }
    replaced = {name: checked(function.__globals__[name]) for name in names if name in function.__globals__}
    replaced = {name: value for name, value in replaced.items() if value is not function.__globals__[name]}
    closure = function.__closure__
    if closure is not None:
        closure = tuple(
            types.CellType(checked(value)) if isinstance(value := _cell_value(cell), CPUDispatcher) else cell
            for cell in closure
        )
    if not replaced and closure == function.__closure__:
        return function
    namespace = {**function.__globals__, **replaced}
    copy = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__, closure)
    copy.__qualname__, copy.__module__ = function.__qualname__, function.__module__
    return copy


def _cell_value(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def literal_columns(function: types.FunctionType, argument: str) -> list[tuple[int, int | None]]:
    """The literal columns ``k`` of the subscripts ``argument[i, k]`` in ``function``, with their lines.

    ``k`` is a literal or a global int (``state[i, VELOCITY]``); other subscripts are not read.
    """
    found = []
    window: list[dis.Instruction] = []
    for instruction, line in _instructions(function.__code__):
        window = [*window[-3:], instruction]
        if len(window) < 4 or instruction.opname != "BUILD_TUPLE" or instruction.arg != 2:
            continue
        array, index, column = window[:3]
        if array.opname != "LOAD_FAST" or array.argval != argument or index.opname != "LOAD_FAST":
            continue
        value = None
        if column.opname == "LOAD_CONST":
            value = column.argval
        elif column.opname == "LOAD_GLOBAL":
            value = function.__globals__.get(column.argval)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            found.append((int(value), line))
    return found


_LOCATION = re.compile(r'File "([^"]+)", line (\d+)|at (\S+\.py) \((\d+)\)')
"""numba's two ways of naming a source line: ``File "path", line N`` and ``at path (N)``; paths may be relative
to the working directory."""


@dataclass(frozen=True)
class CodeSpan:
    """Where a function's code is: what numba's error locations are matched against (plain data: picklable)."""

    name: str
    filename: str
    first_line: int
    last_line: int


def code_spans(functions: list[types.FunctionType]) -> tuple[CodeSpan, ...]:
    """The spans of ``functions`` (a physics function first, then its helpers)."""
    spans = []
    for function in functions:
        code = function.__code__
        lines = [line for _, line in dis.findlinestarts(code) if line is not None]
        spans.append(
            CodeSpan(function.__name__, code.co_filename, code.co_firstlineno, max(lines, default=code.co_firstlineno))
        )
    return tuple(spans)


@contextlib.contextmanager
def compile_errors(physics_name: str, spans: dict[str, tuple[CodeSpan, ...]]) -> Iterator[None]:
    """Re-raises numba's errors while compiling a physics into the kernels as ``PhysicsError``.

    The error names the physics function (or its helper) and the line that numba could not compile,
    and carries numba's own message.

    Args:
        physics_name: The physics' name.
        spans: The code of each physics function and of the helpers it calls (``code_spans``).

    Raises:
        PhysicsError: From numba's ``NumbaError`` (typing, lowering, unsupported features).
    """
    try:
        yield
    except NumbaError as numba_error:
        raise error.PhysicsError(_explain(physics_name, spans, str(numba_error))) from numba_error


_BORROWED_ALLOCATION = "Only accept returning of array passed into the function as argument"
"""numba's message for an array allocated where references are not counted (``Physics(borrows_state=True)``)."""


def _explain(physics_name: str, spans: dict[str, tuple[CodeSpan, ...]], message: str) -> str:
    for match in _LOCATION.finditer(message):
        filename = os.path.realpath(match.group(1) or match.group(3))
        line = int(match.group(2) or match.group(4))
        for role, role_spans in spans.items():
            for span in role_spans:
                if os.path.realpath(span.filename) == filename and span.first_line <= line <= span.last_line:
                    name = span.name if span is role_spans[0] else f"{span.name} (called by {role})"
                    source = linecache.getline(span.filename, line).strip()
                    hint = ""
                    if "Untyped global name" in message:
                        hint = (
                            " A function called from the physics must be compiled as well: decorate it with "
                            "`@nbgym.engine.njit`."
                        )
                    elif _BORROWED_ALLOCATION in message:
                        hint = (
                            " A physics declared with `Physics(..., borrows_state=True)` may not allocate an array in "
                            "step, observe or action_valid, nor in the helpers they call: write into the state's arrays, "
                            "or declare it without borrows_state."
                        )
                    return (
                        f"Physics {physics_name!r}: numba cannot compile {role} function {name}, "
                        f"{span.filename}, line {line}: `{source}`.{hint} Run with NUMBA_DISABLE_JIT=1 to debug it as "
                        f"Python.\n\nnumba's message:\n{message}"
                    )
    protocol = "; ".join(f"{role}({', '.join(args)}) {returns}" for role, (args, returns) in PROTOCOL.items())
    return (
        f"Physics {physics_name!r} cannot be compiled into nbgym's kernels. Check that its functions follow the "
        f"protocol ({protocol}) and that the parameter record, state, observation and action dtypes are those "
        f"the functions expect.\n\nnumba's message:\n{message}"
    )
