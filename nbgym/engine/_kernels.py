"""The generic batched kernels: every env's physics runs inside these, one compiled call per step.

An environment module describes its physics with four plain functions and registers them with
``Physics``; the kernels below call them through the stubs ``physics_*``, which numba resolves by
the *type* of the parameter record (each env has its own record dtype). That keeps the batching,
autoreset, time-limit and validation logic here, once, while each env's physics is compiled into
the kernel and inlined — passing functions as arguments would defeat both inlining and numba's disk
cache, type dispatch does neither.

The physics protocol (``i`` is the sub-environment's row, ``rng`` its random stream, see ``rng.py``):

- ``reset(params, state, i, rng, aux)``: write a fresh ``state[i]`` (and reset infos into ``aux[i]``).
- ``step(params, state, i, actions, rng, aux) -> (reward, terminated)``: apply ``actions[i]``.
- ``observe(params, state, i, obs)``: write the observation of ``state[i]`` into ``obs[i]``.
- ``action_valid(params, actions, i) -> bool``: whether ``actions[i]`` may be applied at all.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import pathlib
from typing import Any, Callable

import numpy as np
from numba import types
from numba.core.typing import templates

from nbgym import error
from nbgym.engine import _cache as cache
from nbgym.engine import _checks as checks
from nbgym.engine._held import held_rows
from nbgym.engine._jit import OVERLOAD_OPTIONS, kernel
from nbgym.engine.atomic import fetch_add, load, pause

NEXT_STEP, SAME_STEP, DISABLED, NO_AUTORESET = 0, 1, 2, 3
"""Autoreset modes of the kernels; ``NO_AUTORESET`` is the single env's (episodes end in Python)."""

STEP_OK = -1
"""The step kernel's status when every sub-environment stepped. Otherwise nothing moved, and the
status is ``i`` for an invalid action of sub-environment ``i``, or ``-2 - i`` for a step of
sub-environment ``i`` whose episode ended in ``DISABLED`` mode (see ``ended_index``). (One int, not a tuple: fewer objects
to box on the hot path.)"""

TERMINATED, TRUNCATED, NEEDS_RESET, WAS_RESET = 0, 1, 2, 3
"""Rows of a batch's ``flags`` array (4, num_envs): one array, one kernel argument, four contiguous rows."""


def ended_index(status: int) -> int:
    """The sub-environment that was stepped after its episode ended (``DISABLED``), from the step's status."""
    return -2 - status


# The stubs through which the kernels call an env's physics. Compiled, numba resolves each call by
# the parameter record's type (see ``_bind``); interpreted (NUMBA_DISABLE_JIT=1, the coverage pass
# of CI), the stubs themselves dispatch on the record's dtype.
_interpreted: dict[np.dtype, dict[str, Callable]] = {}


def physics_reset(params, state, i, rng, aux):
    return _interpreted[params.dtype]["reset"](params, state, i, rng, aux)


def physics_step(params, state, i, actions, rng, aux):
    return _interpreted[params.dtype]["step"](params, state, i, actions, rng, aux)


def physics_observe(params, state, i, obs):
    return _interpreted[params.dtype]["observe"](params, state, i, obs)


def physics_act(params, state, i, actions, rng, aux):
    return _interpreted[params.dtype]["act"](params, state, i, actions, rng, aux)


def physics_advance(params, state, first, stop, resting):
    return _interpreted[params.dtype]["advance"](params, state, first, stop, resting)


def physics_advances(params):
    return _interpreted[params.dtype]["advances"](params)


def physics_chunk_size(params):
    return _interpreted[params.dtype]["chunk_size"](params)


def physics_step_range(params, *args):
    """``_step_range`` compiled as the physics needs it: counting references, or borrowing the batch's arrays
    (``borrows_state``)."""
    return _step_range(params, *args)


def _acts_in_step(params, state, i, actions, rng, aux):
    """The ``act`` of a physics without ``advance``: its ``step`` does everything."""


def _advances_in_step(params, state, first, stop, resting):
    """The ``advance`` of a physics without one."""


def _returns(value: int | bool) -> Callable:
    """A physics function returning the constant ``value`` (numba compiles the closure's value in)."""

    def constant(params):
        return value

    return constant


def physics_action_valid(params, actions, i):
    return _interpreted[params.dtype]["action_valid"](params, actions, i)


_ENGINE_SOURCES = [
    pathlib.Path(__file__).with_name(name)
    for name in ("_kernels.py", "_held.py", "rng.py", "_jit.py", "npmath.py", "atomic.py", "_ziggurat.py")
]
_registered: dict[str, str] = {}


class Physics:
    """An environment's compiled physics: its parameter record type and its four kernel functions.

    Args:
        name: A name unique among registered physics (the env's class name).
        params: The fields ``(name, dtype)`` of the parameter record shared by all sub-environments.
        state: ``(width, dtype)`` of one sub-environment's state row (any numeric dtype); or, for a physics
            whose state is several arrays (a physics engine's world: bodies, contacts...), a function
            ``new_state(num_envs)`` returning a namedtuple of arrays whose first dimension is the
            sub-environment (the functions then get that namedtuple as ``state`` and touch row ``i`` of
            each array; nothing else in the engine looks into it).
        reset, step, observe, action_valid: The physics functions (see the module docstring); plain
            Python functions, which numba compiles into the kernels.
        act, advance: For a physics whose sub-environments advance together (a Box2D world's solver runs several
            worlds in vector lanes), a step in three parts: ``act(params, state, i, actions, rng, aux)`` for each
            sub-environment of a chunk (what its step does before its world moves: the action's forces),
            ``advance(params, state, first, stop, resting)`` once for the chunk's rows ``first`` to ``stop - 1``
            (each ``i`` whose ``resting[i]`` is false moves; the others were reset at this step), then ``step`` for
            each, which returns the reward and termination of what moved. Both or neither (``None``: ``step`` does
            it all).
        aux_width: The number of float64 slots per sub-environment for infos written by the kernels.
        observation: ``(shape, dtype)`` of one sub-environment's row in the observation buffer, when
            the observation space has no such shape (e.g. Blackjack's ``Tuple``); by default the
            observation space's own shape and dtype.
        min_chunk_size: The fewest sub-environments worth handing to a stepping thread (see
            ``threads.split``); ``None`` for the engine's default, made for steps of nanoseconds.
        max_chunk_size: The most sub-environments a thread claims at a time, and the chunks of a step in one
            thread (``None``: no bound beyond the engine's split; a step in one thread steps the batch at once):
            small for steps long enough that claiming each alone costs nothing, so that no thread waits long for
            another; 1 only where neighbouring sub-environments' rows do not share cache lines that every step
            writes (MuJoCo's rows are kilobytes; a Box2D world's velocities are 48 bytes).
        source: The file defining the physics (default: the file of ``step``); its content is part of
            the record type, so an edit of the module (or of the engine) compiles fresh kernels instead
            of loading stale ones from numba's cache.
        read_action: gymnasium's reading of one sub-environment's action: a Python function ``(params, action)`` that performs what
            the gymnasium env's ``step`` does with its action before anything moves, raising what that raises,
            and returns the action as the kernels take it (see ``nbgym.engine.actions``; e.g.
            ``actions.keys_a_dict(4)`` for an env that looks its action up in a dict). ``None`` (the default):
            the action space's ``contains``, refused as an ``AssertionError`` (gymnasium's ``assert``).
        boundscheck: Whether the physics functions, and the compiled helpers they call, check every
            index (numba's ``boundscheck``): an index past an array raises ``nbgym.error.PhysicsIndexError``
            (an ``IndexError``) instead of reading or writing another sub-environment's memory, or memory
            outside the arrays. ``None`` (the default) checks every physics except nbgym's own (defined
            inside the ``nbgym`` package, whose tests run every kernel as Python, where numpy checks every
            index). ``False`` trades the check for speed (measured in ``docs/custom_environments.md``).
        borrows_state: Whether ``step``, ``observe`` and ``action_valid`` borrow their arrays from the kernels,
            which keep them alive for the call: compiled without numba's reference counting. numba counts a
            reference to every array of ``state`` at each call of a physics function, per sub-environment, in
            and out (one atomic operation each): with a state of many arrays (LunarLander's ~50) that was a
            seventh of a step. Such functions, and the compiled helpers they call, may not allocate an array
            (numba refuses to compile one that does: ``reset`` may) nor return one (nbgym refuses a helper that
            does): decorate the helpers they call with the state ``borrowing_njit``. ``False`` (the default)
            counts references.

    Raises:
        nbgym.error.PhysicsError: If a function does not take the protocol's arguments, draws from a
            global random state, uses object mode, or indexes a literal column past the state row or
            the info slots; or if ``name`` is already registered from another source.
    """

    def __init__(
        self,
        name: str,
        *,
        params: list[tuple[str, type]],
        state: tuple[int, type] | Callable[[int], tuple],
        reset: Callable,
        step: Callable,
        observe: Callable,
        action_valid: Callable,
        aux_width: int = 0,
        observation: tuple[tuple[int, ...], type] | None = None,
        min_chunk_size: int | None = None,
        max_chunk_size: int | None = None,
        source: str | None = None,
        read_action: Callable[[Any], Any] | None = None,
        boundscheck: bool | None = None,
        borrows_state: bool = False,
        act: Callable | None = None,
        advance: Callable | None = None,
    ) -> None:
        if (act is None) != (advance is None):
            raise error.PhysicsError(
                f"Physics {name!r}: act and advance go together (a step in three parts: act per sub-environment, "
                f"advance per chunk, step per sub-environment); got only {'act' if advance is None else 'advance'}."
            )
        roles = {"reset": reset, "step": step, "observe": observe, "action_valid": action_valid}
        if advance is not None:
            roles.update(act=act, advance=advance)
        functions = {role: checks.physics_function(name, role, function) for role, function in roles.items()}
        self.code = {role: checks.code_spans(checks.scan(name, role, function)) for role, function in functions.items()}
        """Where the code of each physics function, and of the compiled helpers it calls, is."""
        self.name = name
        if callable(state):
            self.new_state: Callable[[int], Any] = state
            """The state of ``num_envs`` fresh sub-environments: ``new_state(num_envs)``."""
            self.state_width, self.state_dtype = None, None
        else:
            width, state_dtype = state
            if not isinstance(width, (int, np.integer)) or width < 1 or np.dtype(state_dtype).kind not in "biuf":
                raise error.PhysicsError(
                    f"Physics {name!r}: state must be (width, dtype) with a positive int width and a numeric dtype, "
                    f"or a function of num_envs returning a namedtuple of arrays, got {state!r}."
                )
            self.state_width, self.state_dtype = int(width), np.dtype(state_dtype)
            self.new_state = functools.partial(_zero_rows, self.state_width, self.state_dtype)
        self.aux_width = aux_width
        self.read_action = read_action
        self.min_chunk_size = min_chunk_size
        self.max_chunk_size = max_chunk_size
        self.observation = observation
        if self.state_width is not None:
            self._check_columns(functions, "state", 1, self.state_width, f"the state row's width ({self.state_width})")
        self._check_columns({"reset": functions["reset"]}, "aux", 4, aux_width, f"aux_width ({aux_width})")
        self._check_columns({"step": functions["step"]}, "aux", 5, aux_width, f"aux_width ({aux_width})")
        self.observation_columns = checks.literal_columns(functions["observe"], _argument(functions["observe"], 3))
        """The literal columns ``observe`` writes, checked against the observation buffer at make."""
        source = source if source is not None else functions["step"].__code__.co_filename
        if boundscheck is None:
            boundscheck = not _inside_nbgym(source)
        self.boundscheck = bool(boundscheck)
        """Whether the compiled physics checks its indices (see the ``boundscheck`` argument)."""
        if _registered.get(name, source) != source:
            raise error.PhysicsError(f"Physics {name!r} is already registered from {_registered[name]}.")
        _registered[name] = source
        # numba's cache does not notice an edit of a called helper in another file, so every file whose
        # code the kernels compile in (the physics', its compiled helpers', the engine's) is part of the key.
        helper_files = {span.filename for spans in self.code.values() for span in spans}
        digest = hashlib.sha1()
        for path in sorted({source, *helper_files}) + [str(path) for path in _ENGINE_SOURCES]:
            if pathlib.Path(path).is_file():
                digest.update(pathlib.Path(path).read_bytes())
        if not pathlib.Path(
            source
        ).is_file():  # defined interactively (a notebook's cell): its bytecode stands for the file
            for function in functions.values():
                digest.update(function.__code__.co_code)
        digest.update(b"boundscheck" if self.boundscheck else b"unchecked")
        self.borrows_state = bool(borrows_state)
        """Whether step, observe and action_valid are compiled without reference counting (``borrows_state``)."""
        digest.update(b"borrowing" if self.borrows_state else b"counting")
        # The chunk is compiled into the serial step (``physics_chunk_size``), and a physics outside nbgym may set it
        # in a file not hashed above. nbgym's own set it in those files, or to the vector width of the processor numba
        # compiles for (``simd.LANES``: the processor keys every cached kernel), so that an env pickled where the
        # other width runs has this record, and steps there.
        if not _inside_nbgym(source):
            digest.update(f"max_chunk_size={max_chunk_size}".encode())
        tag = (f"_{name}_{digest.hexdigest()[:16]}", np.uint64)
        # A np.record dtype: interpreted kernels read ``params.gravity`` as compiled ones do. Aligned as a C struct:
        # packed, a field after a bool sat at an odd offset, and an atomic addition on a counter that straddles
        # two cache lines locks the memory bus (MuJoCo's slot flags: a process whose record landed so stepped
        # 5x slower, a fifth of runs).
        self.params_dtype = np.dtype((np.record, np.dtype([tag, *params], align=True)))
        self.advances = advance is not None
        """Whether the sub-environments of a chunk advance together (``act``, ``advance``, ``step``)."""
        if not self.advances:
            functions.update(act=_acts_in_step, advance=_advances_in_step)
        functions["advances"] = _returns(self.advances)
        functions["chunk_size"] = _returns(max_chunk_size or 0)
        _interpreted[self.params_dtype] = functions
        cache.register_record(self.params_dtype, frozenset({source, *helper_files}))
        options = OVERLOAD_OPTIONS
        if self.boundscheck:
            # Checks are compiled into the function that numba compiles, with its own options: the physics
            # functions are compiled on their own (an inlined step would take the unchecked kernel's), and
            # so are copies of their helpers, compiled with checks too.
            options = {**OVERLOAD_OPTIONS, "boundscheck": True}
            copies: dict = {}
            functions = {
                role: checks.with_checked_helpers(function, options, copies) for role, function in functions.items()
            }
        # numba's own inlining of a step compiles it with the kernel's reference counting: a borrowing step is
        # compiled on its own, without it, and LLVM inlines it.
        inline_step = "never" if self.boundscheck or self.borrows_state else "always"
        borrowing = {**options, "_nrt": False} if self.borrows_state else options
        # numba compiles a function without its own ``_nrt`` as its caller is compiled: reset, which may allocate,
        # counts references even where a borrowing ``_step_range`` calls it.
        counting = {**options, "_nrt": True}
        step_range_options = borrowing if self.borrows_state else counting
        _bind(physics_step_range, self.params_dtype, _step_range, "never", step_range_options, prefer_literal=True)
        for stub, role, inline, role_options in (
            (physics_reset, "reset", "never", counting),
            (physics_step, "step", inline_step, borrowing),
            (physics_observe, "observe", "never", borrowing),
            (physics_action_valid, "action_valid", "never", borrowing),
            (physics_act, "act", inline_step, borrowing),
            (physics_advance, "advance", "never", borrowing),
            (physics_advances, "advances", "always", options),
            (physics_chunk_size, "chunk_size", "always", options),
        ):
            _bind(stub, self.params_dtype, functions[role], inline, role_options)

    def _check_columns(self, functions: dict[str, Callable], what: str, position: int, width: int, bound: str) -> None:
        for role, function in functions.items():
            for column, line in checks.literal_columns(function, _argument(function, position)):
                if not 0 <= column < width:
                    raise error.PhysicsError(
                        f"Physics {self.name!r}: {role} ({function.__code__.co_filename}, line {line}) indexes "
                        f"column {column} of {what}, beyond {bound}: it would read or write another sub-environment's "
                        f"memory (or raise IndexError at every call, with bounds checks). Widen the {what} or fix the "
                        f"index."
                    )

    def compile_errors(self) -> contextlib.AbstractContextManager[None]:
        """A context in which numba's errors compiling this physics become ``PhysicsError`` naming its function and line."""
        return checks.compile_errors(self.name, self.code)

    def new_params(self, **values: float) -> np.ndarray:
        """A one-element parameter record array holding ``values``.

        Raises:
            nbgym.error.PhysicsError: If a name is not a field of the parameter record.
        """
        params = np.zeros(1, dtype=self.params_dtype)
        for field, value in values.items():
            if field not in self.params_dtype.names[1:]:
                raise error.PhysicsError(
                    f"Physics {self.name!r} has no parameter {field!r}; its parameters are {list(self.params_dtype.names[1:])}."
                )
            params[field] = value
        return params


def _zero_rows(width: int, dtype: np.dtype, num_envs: int) -> np.ndarray:
    return np.zeros((num_envs, width), dtype=dtype)


def _argument(function: Callable, position: int) -> str:
    """The name of ``function``'s argument at ``position``."""
    return function.__code__.co_varnames[position]


def _inside_nbgym(source: str) -> bool:
    """Whether the file ``source`` is part of the nbgym package (one of nbgym's own environments)."""
    package = pathlib.Path(__file__).resolve().parent.parent
    return pathlib.Path(source).resolve().is_relative_to(package)


def dispatch_on_params(stub: Callable, params_dtype: np.dtype, function: Callable, *, inline: str = "never") -> None:
    """Makes a compiled call of ``stub(params, ...)`` whose ``params`` is a record of ``params_dtype`` a call of
    ``function`` (compiled as ``njit`` compiles): how one compiled function shared by several environments reaches
    each one's own function, found by the type of its parameter record, as the engine's kernels reach each
    physics' functions. Nothing is captured, so numba's disk cache keeps the kernels that call ``stub``. Called
    from Python, ``stub`` itself runs: it should look ``function`` up by ``params.dtype`` the same way.

    Args:
        stub: A plain Python function, ``params`` first, that compiled code calls.
        params_dtype: The parameter record's dtype (``Physics.params_dtype``).
        function: A plain Python function of ``stub``'s signature, compiled where the call is.
        inline: numba's ``inline`` option of the call: ``"never"`` (LLVM decides) or ``"always"``.
    """
    _bind(stub, params_dtype, function, inline, OVERLOAD_OPTIONS)


def _bind(
    stub: Callable, params_dtype: np.dtype, function: Callable, inline: str, options: dict, prefer_literal: bool = False
) -> None:
    def typing(params, *args):
        if isinstance(params, types.Record) and params.dtype == params_dtype:
            return function

    # numba requires the typing function's signature to be the implementation's.
    typing.__signature__ = inspect.signature(function)
    # ``inline="always"`` has numba inline the function itself rather than leave it to LLVM: a step LLVM
    # declines to inline (MountainCarContinuous's, Pendulum's) costs a call and a reference-count update
    # per array argument per env (1.3-1.6x the kernel). The other functions are small enough for LLVM, and
    # inlining them too would lengthen compiles by another 10%.
    # ``prefer_literal`` types the call by its constants' values, which it passes on (``_step_range``'s bounds).
    # What ``numba.extending.overload`` registers, with ``_OneImplementation`` where ``options`` set reference counting.
    template = templates.make_overload_template(
        stub, typing, {"nopython": True, **options}, True, inline, prefer_literal
    )
    if "_nrt" in options:
        template = type(template)(template.__name__, (_OneImplementation, template), {})
    templates.infer(template)
    templates.infer_global(stub, types.Function(template))


class _OneImplementation(templates._OverloadFunctionTemplate):
    """An overload's typing that compiles its implementation once for every caller.

    numba compiles an overload's implementation once per caller's compile options, as the callee inherits the ones
    its options leave unset (reference counting; the error model and fastmath, which every nbgym kernel sets). A
    physics' reset, called by the counting ``reset_kernel`` and by a borrowing ``_step_range``, was compiled twice,
    and with it everything it calls (LunarLander's: 2.5 s of a cold compile). With reference counting set in the
    options, the implementations are the same.
    """

    def _get_impl(self, args: tuple, kws: dict) -> tuple:
        key = self.context, tuple(args), tuple(kws.items())
        if key in self._impl_cache:
            return self._impl_cache[key]
        return self._build_impl(key, args, kws)


@kernel(entry=True)
def reset_kernel(params_array, state, pcg, buf, mask, observations, flags, elapsed, auxes):
    """Reset the sub-environments where ``mask`` is true and write their observations."""
    state = held_rows(state)
    params = params_array[0]
    rng = (pcg, buf)
    obs = observations[0]
    aux = auxes[0]
    for i in range(mask.shape[0]):
        if mask[i]:
            physics_reset(params, state, i, rng, aux)
            elapsed[i] = 0
            for row in range(4):
                flags[row, i] = False
            physics_observe(params, state, i, obs)


@kernel(entry=True)
def observe_kernel(params_array, state, observations):
    """Write the observation of each sub-environment's state as it is now into ``observations[0]``: the physics'
    ``observe`` outside a step, for gymnasium's observation helpers (a MuJoCo env's ``_get_obs`` after
    ``set_state``). Nothing else is written."""
    state = held_rows(state)
    params = params_array[0]
    obs = observations[0]
    for i in range(obs.shape[0]):
        physics_observe(params, state, i, obs)


@kernel(entry=True)
def check_step(params_array, actions, mode, needs_reset, first, stop):
    """The status of a step of sub-environments ``first`` to ``stop - 1`` before anything moves: a bad batch changes
    no sub-environment."""
    params = params_array[0]
    for i in range(first, stop):
        # In gymnasium's SyncVectorEnv order: a sub-environment that next-step autoreset resets does not read
        # its action; one whose episode ended under DISABLED fails its assertion before reading it.
        if needs_reset[i]:
            if mode == NEXT_STEP:
                continue
            if mode == DISABLED:
                return -2 - i
        if not physics_action_valid(params, actions, i):
            return i
    return STEP_OK


def _step_range(
    params,
    state,
    pcg,
    buf,
    mode,
    max_steps,
    observations,
    rewards,
    flags,
    elapsed,
    auxes,
    actions,
    first,
    stop,
    chunk_size,
    progress,
):
    """One step of the sub-environments ``first`` to ``stop - 1``, in chunks of ``chunk_size``: act, integrate,
    reward, time limit, autoreset, observe. Each sub-environment owns its state row and random stream, so the
    results do not depend on how the batch is split between threads.

    With ``progress`` (``threads.PROGRESS_COUNTERS`` int64 counters that threads share: chunks claimed,
    sub-environments completed, chunks taken from the front, chunks taken from the back), the call steps the chunks it
    claims, each claimed and counted atomically, until none is left; with ``None`` (numba compiles the branch away),
    every chunk. The call that claims first takes chunks from the front, the others from the back: each thread's
    chunks are then the same rows from step to step (the caller, nearly always first, the batch's first rows; a
    worker its last), so a world's rows stay in one core's cache. Rows that move between cores each step are slower:
    32 LunarLander worlds stepped in 148-177 us when two threads swapped halves every step, 136-148 us when each kept
    its half. Claimed in turn (the next chunk to whoever is free: the caller's and a worker's chunks interleaved, and
    moving with each step's timing), two threads stepped LunarLander x64 at 331k env-steps/s; from both ends, 341k
    (medians of 5 interleaved runs). Counting sub-environments, not chunks, leaves the chunks' layout to this
    function alone. Claiming here rather than in the caller keeps this function one call per thread and step.

    ``state`` is as the kernels are passed it (``held_rows``). Kernels call each physics' own copy
    (``physics_step_range``, bound in ``Physics``): counting references, or, for a physics that ``borrows_state``,
    borrowing every array from its caller, which holds them for the call. (Bound to this function itself, not to one
    that passes its arguments on to it: LLVM optimises each compiled function's module again with everything it
    links, and that one function cost LunarLander 2 s of its cold compile.) A counting call that LLVM does not inline
    (a Box2D env's) takes and gives back a reference to each of its ~60 arrays, one atomic operation each, which two
    threads count on at the same moment: borrowing, a single LunarLander stepped in 15.6 us instead of 16.9 us
    (medians of 9 interleaved runs); 64 of them on two threads 0.99-1.05x as fast, across four such A/B runs.

    The per-env body must sit in this loop: a helper called per env is either not inlined by LLVM (a
    17-argument call per env) or inlined by numba with a reference-count update per array argument per
    env — each about 3x slower.

    Returns:
        Whether this call completed the batch's last sub-environment (with ``progress``; else true).
    """
    state = held_rows(state)
    obs, final_obs = observations[0], observations[1]
    aux, final_aux = auxes[0], auxes[1]
    rng = (pcg, buf)
    count = stop - first
    num_chunks = (count + chunk_size - 1) // chunk_size
    next_chunk = 0
    completed_batch = progress is None
    from_back = -1  # unknown until this call's first claim
    while True:
        if progress is None:
            chunk = next_chunk
            next_chunk += 1
            if chunk >= num_chunks:
                return completed_batch
        else:
            claim = fetch_add(progress, 0, 1)
            if claim >= num_chunks:
                return completed_batch
            if from_back < 0:
                from_back = 1 if claim > 0 else 0
            # ``claim < num_chunks`` claims in all: the front's and the back's chunks never meet
            if from_back:
                chunk = num_chunks - 1 - fetch_add(progress, 3, 1)
            else:
                chunk = fetch_add(progress, 2, 1)
        chunk_start = first + chunk * chunk_size
        chunk_stop = min(chunk_start + chunk_size, stop)
        advances = physics_advances(params)
        if advances:
            # act on each sub-environment (a next-step autoreset resets it instead), then advance the chunk at once;
            # the loop below then ends each one's step. ``WAS_RESET`` marks the rows reset here.
            for i in range(chunk_start, chunk_stop):
                reset_now = mode == NEXT_STEP and flags[NEEDS_RESET, i]
                flags[WAS_RESET, i] = reset_now
                if reset_now:
                    physics_reset(params, state, i, rng, aux)
                else:
                    physics_act(params, state, i, actions, rng, aux)
            physics_advance(params, state, chunk_start, chunk_stop, flags[WAS_RESET])
        for i in range(chunk_start, chunk_stop):
            if mode == NEXT_STEP and (flags[WAS_RESET, i] if advances else flags[NEEDS_RESET, i]):
                if not advances:
                    physics_reset(params, state, i, rng, aux)
                elapsed[i] = 0
                rewards[i] = 0.0
                terminated = False
                truncated = False
                was_reset = True
            else:
                reward, terminated = physics_step(params, state, i, actions, rng, aux)
                elapsed[i] += 1
                rewards[i] = reward
                truncated = max_steps > 0 and elapsed[i] >= max_steps
                was_reset = False
                if mode == SAME_STEP and (terminated or truncated):
                    physics_observe(params, state, i, final_obs)
                    for k in range(aux.shape[1]):
                        final_aux[i, k] = aux[i, k]
                    physics_reset(params, state, i, rng, aux)
                    elapsed[i] = 0
                    was_reset = True
            flags[TERMINATED, i] = terminated
            flags[TRUNCATED, i] = truncated
            flags[NEEDS_RESET, i] = terminated or truncated
            flags[WAS_RESET, i] = was_reset
            physics_observe(params, state, i, obs)
        if progress is not None:
            completed_batch = fetch_add(progress, 1, chunk_stop - chunk_start) == count - (chunk_stop - chunk_start)


@kernel(entry=True)
def step_kernel(params_array, state, pcg, buf, mode, max_steps, observations, rewards, flags, elapsed, auxes, actions):
    """One step of every sub-environment: validate, then ``_step_range`` over the whole batch, in the chunks a
    stepping thread claims (the physics' ``max_chunk_size``; without one, the batch at once). A chunk's worlds are
    acted on, advanced and stepped before the next chunk's: 1024 BipedalWalker worlds (~270 KB each) swept whole
    by each phase left the caches between phases; in chunks of 16, one thread stepped them 1.11-1.20x as fast
    (LunarLander x1024 0.85-1.13x, within the machine's noise; BipedalWalker x64 1.01-1.16x; docs/box2d.md).

    ``actions`` comes last so that callers can bind every other argument once (``functools.partial``)
    and pass only the actions per step. ``observations`` holds the observations (row 0) and the final
    observations of ``SAME_STEP`` (row 1), ``auxes`` the kernels' infos likewise, ``flags`` the rows
    named by ``TERMINATED``...

    Returns:
        ``STEP_OK``, or the status of the sub-environment that stopped the step before anything moved.
    """
    status = check_step(params_array, actions, mode, flags[NEEDS_RESET], 0, elapsed.shape[0])
    if status == STEP_OK:
        count = elapsed.shape[0]
        chunk_size = physics_chunk_size(params_array[0])
        if chunk_size == 0 or chunk_size > count:
            chunk_size = max(count, 1)
        physics_step_range(
            params_array[0],
            state,
            pcg,
            buf,
            mode,
            max_steps,
            observations,
            rewards,
            flags,
            elapsed,
            auxes,
            actions,
            0,
            count,
            chunk_size,
            None,
        )
    return status


SERVE_SEQ = 0
"""``control``'s counters (``step_chunks``): the latest step posted (1, 2, ...)."""
SERVE_SLEEPER = 1
"""The step whose caller sleeps on its job's lock (a worker that completes it returns to wake it)."""
SERVE_QUIT = 2
"""Non-zero: serving calls return (an interrupted or failed step, or a rebound batch)."""
SERVE_CALLS = 3
"""Serving calls handed out and not yet returned."""
SERVE_USERS = 4
"""From here, one per ``progress`` row: serving calls that may claim from that row now."""
ROW_FIRST = 4
"""A ``progress`` row's columns after its counters (``threads.PROGRESS_COUNTERS``): the first sub-environment of its
step ..."""
ROW_STOP = 5
"""... and one past its last."""
ROW_COLUMNS = 6


@kernel
def _claim_one_chunk(row, counters, chunk_size):
    """Claims one chunk of the step of ``row``, from the back (the claims of ``_step_range`` and these never meet: they
    count their claims in ``row[0]`` together), and makes ``counters`` (zeroed) a step of that chunk alone; false when
    every chunk was claimed. From the back, the rows a waiting caller steps of a later batch are the same from step
    to step (a worker that comes first takes the front): LunarLander's stolen 16 worlds stepped in a median 82-86 us,
    95 us when the first to claim took the front, as ``_step_range``'s calls do."""
    first, stop = row[ROW_FIRST], row[ROW_STOP]
    num_chunks = (stop - first + chunk_size - 1) // chunk_size
    claim = fetch_add(row, 0, 1)
    if claim >= num_chunks:
        return False
    chunk = num_chunks - 1 - fetch_add(row, 3, 1)
    counters[:] = 0
    counters[ROW_FIRST] = first + chunk * chunk_size
    counters[ROW_STOP] = min(first + (chunk + 1) * chunk_size, stop)
    return True


@kernel(entry=True)
def step_chunks(
    params_array,
    state,
    pcg,
    buf,
    mode,
    max_steps,
    observations,
    rewards,
    flags,
    elapsed,
    auxes,
    actions,
    chunk_size,
    progress,
    control,
    posted,
    seq,
    spin_rounds,
    one_chunk,
):
    """Step the sub-environments of posted steps in chunks of ``chunk_size`` until none is left; threads call it side
    by side.

    A step is a row of ``progress``: its counters (chunks claimed, sub-environments completed, chunks taken from the
    front and from the back: see ``_step_range``) and its sub-environments ``row[ROW_FIRST]`` to ``row[ROW_STOP] - 1``,
    validated by the caller (``check_step``). Each call claims the next chunk atomically, so a thread that the OS
    does not schedule simply claims fewer chunks instead of holding the others up.

    ``progress`` has ``R + 1`` rows: ``R`` for the steps, and the caller's own (``one_chunk``). With ``seq >= 0`` the
    call steps once, the step of row ``seq % R``. With ``seq = -1 - posted[0]`` (its job's post) it serves: it steps
    each step that ``control[SERVE_SEQ]`` posts (1, 2, ...: step ``s`` in row ``s % R``), in order, and waits for the
    next one awake for up to ``spin_rounds`` reads, without returning to Python in between (a worker that returned
    needed the GIL, which the caller holds between its kernel calls: it began each sync LunarLander x64 step ~16 us
    late, and an async batch sent while the caller computed waited for the caller's Python). It returns when no step
    comes within the spin, when ``control[SERVE_QUIT]`` is set, when another job is posted to the workers
    (``posted[0]`` changes), or when it completed a step whose caller sleeps (``control[SERVE_SLEEPER]``: its worker
    then wakes the caller and calls again, still counted in ``control[SERVE_CALLS]``, which every other return
    decrements). The caller zeroes a row for step ``s`` only after posting ``s - 1`` and once no serving call may
    claim from it (``control[SERVE_USERS + row]``); a call joins step ``s`` only if, once it has announced itself
    there, step ``s + R - 1`` is not posted yet: so no call claims from a row being zeroed, and the steps of the last
    ``R - 1`` posts can always be joined.

    With ``one_chunk`` (and ``seq >= 0``), the call claims at most one chunk of step ``seq`` (``_claim_one_chunk``)
    and steps it with the last row of ``progress`` as that chunk's own counters: a caller that waits for the last
    chunks of one async batch steps the chunks no worker has claimed of the batches sent after it, one at a time, so
    that it can return as soon as its batch is done (``threads.StepServer``). Claimed, stepped and counted in one
    call: an interrupt, which reaches Python only between calls, never leaves a claimed chunk unstepped.

    Returns:
        With ``seq >= 0``, whether this call completed the step's last sub-environment (``one_chunk``: whether it
        stepped a chunk); serving, whether it returned to wake a sleeping caller (and is to be called again).
    """
    rows = progress.shape[0] - 1  # the last: the caller's own, for ``one_chunk``
    serving = seq < 0
    seen_posted = -seq - 1  # serving: the workers' ``posted`` once its job was posted
    if serving:
        seq = max(1, load(control, SERVE_SEQ) - rows + 2)
    while True:
        if serving:
            if load(control, SERVE_QUIT) != 0 or load(posted, 0) != seen_posted:
                break
            latest = load(control, SERVE_SEQ)
            if seq > latest:
                for _ in range(spin_rounds):
                    if load(control, SERVE_SEQ) >= seq or load(control, SERVE_QUIT) != 0:
                        break
                    if load(posted, 0) != seen_posted:
                        break
                    pause()
                if load(control, SERVE_SEQ) < seq:
                    break
                continue
            if seq + rows - 1 <= latest:  # its row may be zeroed for a later step: join the oldest one still safe
                seq = latest - rows + 2
                continue
            fetch_add(control, SERVE_USERS + seq % rows, 1)
            if load(control, SERVE_SEQ) >= seq + rows - 1:
                fetch_add(control, SERVE_USERS + seq % rows, -1)
                continue
        row = progress[seq % rows]
        counters = row
        if one_chunk:
            counters = progress[rows]
            if not _claim_one_chunk(row, counters, chunk_size):
                return False
        completed = physics_step_range(
            params_array[0],
            state,
            pcg,
            buf,
            mode,
            max_steps,
            observations,
            rewards,
            flags,
            elapsed,
            auxes,
            actions,
            counters[ROW_FIRST],
            counters[ROW_STOP],
            chunk_size,
            counters,
        )
        if one_chunk:
            stepped = counters[ROW_STOP] - counters[ROW_FIRST]
            fetch_add(row, 1, stepped)
            return True
        if not serving:
            return completed
        fetch_add(control, SERVE_USERS + seq % rows, -1)
        if completed and load(control, SERVE_SLEEPER) == seq:
            return True  # still counted in SERVE_CALLS: its worker wakes the caller and calls again
        seq += 1
    fetch_add(control, SERVE_CALLS, -1)
    return False
