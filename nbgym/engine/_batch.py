"""A batch of sub-environments: its arrays, allocated once, and the kernel calls over them (``KernelBatch``), for the
env classes of ``_env``."""

from __future__ import annotations

import contextlib
import functools
import time
from typing import Any, Callable, Iterator, NamedTuple

import numba
import numpy as np

from nbgym import error, spaces
from nbgym.engine import _cache as cache
from nbgym.engine import _threads as threads
from nbgym.engine import atomic
from nbgym.engine import rng
from nbgym.engine._held import hold
from nbgym.engine._kernels import (
    NEXT_STEP,
    ROW_COLUMNS,
    ROW_FIRST,
    ROW_STOP,
    STEP_OK,
    Physics,
    check_step,
    observe_kernel,
    reset_kernel,
    step_chunks,
    step_kernel,
)
from nbgym.utils._pickling import writable_state

ACTION_FLOAT_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64)})
"""The float dtypes the kernels take Box actions in, computing with them as numpy does (others would change the
arithmetic): a batch array of one of them goes to the kernels as it is, and an env's own ``step`` may pass such an
array on without gymnasium's reading of the action."""


def kernel_float_dtype(dtype: np.dtype) -> np.dtype | None:
    """The dtype of :data:`ACTION_FLOAT_DTYPES` that holds the values of a float ``dtype`` as they are (``dtype``
    itself, or its native byte order's: a big-endian ``'>f4'`` is float32), else ``None``."""
    if dtype in ACTION_FLOAT_DTYPES:
        return dtype
    native = dtype.newbyteorder("=")
    return native if native in ACTION_FLOAT_DTYPES else None


def kernel_layout(array: np.ndarray) -> bool:
    """Whether ``array`` is laid out as the kernels' own arrays are (C-contiguous, aligned, writable; its dtype aside):
    another layout (a strided view, Fortran order, a read-only array) would be another kernel type for numba, one
    more kernel to compile and one some physics cannot take (``reshape`` of a non-contiguous array)."""
    return array.flags.num & _KERNEL_LAYOUT == _KERNEL_LAYOUT  # one attribute: this runs at every vector step


_KERNEL_LAYOUT = 0x1 | 0x100 | 0x400
"""numpy's flag bits C_CONTIGUOUS, ALIGNED and WRITEABLE (``ndarray.flags.num``)."""


class _RowsPost(NamedTuple):
    """A step of some rows in the calling thread (``KernelBatch.rows_post``), made once per rows and actions array."""

    post: threads.Post
    """The step: ``step_chunks``' arguments but the last three (``seq``, ``spin_rounds`` and ``one_chunk``), and its
    row of counters (``threads.PROGRESS_COUNTERS``, then the rows' bounds)."""
    counters: np.ndarray
    """The row's counters, zeroed before each step (``ndarray.fill``: a third of the time of assigning the row)."""
    actions: np.ndarray
    """The actions array its arguments hold (a run's buffer)."""
    run: tuple[int, int]
    """The autoreset mode and time limit it steps with."""


def _cache_misses(kernels: tuple[Any, ...]) -> int:
    """How many of ``kernels``' compilations in this process were compiled rather than loaded from numba's cache."""
    return sum(sum(kernel._cache_misses.values()) for kernel in kernels)


class KernelBatch:
    """The arrays of a batch of sub-environments, allocated once, and the kernel calls over them.

    Args:
        physics: The environment's compiled physics.
        params: Its one-element parameter record array (shared with the owning env, which may change it).
        num_envs: The number of sub-environments.
        observation_space: The space of one sub-environment's observation (gives the buffer's shape and
            dtype, unless ``physics.observation`` does).
        action_space: The space of one sub-environment's action (``Discrete`` or ``Box``).
        refuse_unsafe_integers: Whether discrete actions of an integer dtype that does not cast safely to int64
            (``np.uint64``) are refused, as gymnasium's ``action_space.contains`` refuses them.
    """

    def __init__(
        self,
        physics: Physics,
        params: np.ndarray,
        num_envs: int,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        refuse_unsafe_integers: bool = False,
    ) -> None:
        self.physics = physics
        self.params = params
        self.num_envs = num_envs
        self.state = physics.new_state(num_envs)
        self.pcg, self.buf = rng.new_streams(num_envs)
        obs_shape, obs_dtype = _observation_layout(physics, observation_space)
        # Buffers of one dtype are stacked on a leading axis (each row stays contiguous): every array
        # is one more argument for numba's dispatcher to check on each step.
        self.observations = np.zeros((2, num_envs, *obs_shape), dtype=obs_dtype)
        self.rewards = np.zeros(num_envs, dtype=np.float64)
        self.flags = np.zeros((4, num_envs), dtype=np.bool_)
        self.elapsed = np.zeros(num_envs, dtype=np.int64)
        self.auxes = np.zeros((2, num_envs, physics.aux_width), dtype=np.float64)
        self._make_views()
        self.all_envs = np.ones(num_envs, dtype=np.bool_)
        self.discrete_actions = isinstance(action_space, spaces.Discrete)
        self.refuse_unsafe_integers = refuse_unsafe_integers
        if not self.discrete_actions and not (
            isinstance(action_space, spaces.Box) and action_space.dtype.kind in "fiu"
        ):
            raise error.PhysicsError(
                f"Physics {physics.name!r}: the kernels take Discrete or numeric Box actions, got the action space "
                f"{action_space}."
            )
        self.action_shape = (num_envs,) if self.discrete_actions else (num_envs, *action_space.shape)
        self.action_dtype = (
            np.dtype(np.int64)
            if self.discrete_actions
            else (action_space.dtype if action_space.dtype in ACTION_FLOAT_DTYPES else np.dtype(np.float64))
        )
        self._action_buffers: dict[tuple[np.dtype, tuple[int, ...]], np.ndarray] = {}
        """The kernels' own action arrays (by dtype) that actions of another layout or byte order are copied into."""
        self.num_threads = 1

    _VIEWS = ("obs", "final_obs", "terminated", "truncated", "needs_reset", "was_reset", "aux", "final_aux")

    def _make_views(self) -> None:
        self.obs, self.final_obs = self.observations
        self.terminated, self.truncated, self.needs_reset, self.was_reset = self.flags
        self.aux, self.final_aux = self.auxes
        self._rows = {}
        self._row_posts: dict[tuple[int, int], _RowsPost] = {}
        self._row_kernels: dict[np.dtype, tuple[Callable[..., int], Callable[..., bool]]] = {}

    @property
    def state(self) -> Any:
        """The sub-environments' state: a ``(num_envs, width)`` array, or a physics' namedtuple of arrays."""
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        # The kernels get the state held in one reference (see ``_held``); whoever replaces the state binds
        # the step again (``bind_step``), since a bound step holds the old one.
        self._state = state
        self._kernel_state = hold(state)
        self._rows: dict[tuple[int, int], BatchRows] = {}
        self._row_posts = {}
        self._row_kernels = {}

    def __getstate__(self) -> dict[str, Any]:
        # A copy or a pickle would turn the views into independent arrays, and cannot hold a compiled struct:
        # rebuild them instead.
        return {
            name: value
            for name, value in self.__dict__.items()
            if name
            not in (*self._VIEWS, "_kernel_state", "_rows", "_row_posts", "_row_kernels", "_server", "_async_servers")
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = writable_state(state)  # the kernels write every array of the batch
        self.__dict__.update({name: value for name, value in state.items() if name != "_state"})
        self.state = state["_state"]
        self._make_views()

    def reset(self, mask: np.ndarray, params: np.ndarray) -> None:
        """Reset the sub-environments where ``mask`` is true, with ``params`` (the env's, or a copy
        carrying reset options)."""
        reset_kernel(
            params,
            self._kernel_state,
            self.pcg,
            self.buf,
            mask,
            self.observations,
            self.flags,
            self.elapsed,
            self.auxes,
        )

    def observe(self, params: np.ndarray) -> np.ndarray:
        """Each sub-environment's observation of its state as it is now (the physics' ``observe``), in a new
        ``(num_envs, *shape)`` array; nothing of the batch is written. Its kernel is compiled (or loaded from the
        cache) at the first call, not at ``make``: gymnasium's observation helpers, which call it, are seldom used.

        Raises:
            nbgym.error.PhysicsError: If numba cannot compile the physics' ``observe`` into the kernel.
        """
        observations = np.zeros((1, *self.observations.shape[1:]), dtype=self.observations.dtype)
        with self._compiling((observe_kernel,)):
            observe_kernel(params, self._kernel_state, observations)
        return observations[0]

    @contextlib.contextmanager
    def _compiling(self, kernels: tuple[Any, ...]) -> Iterator[None]:
        """A context in which ``kernels`` are compiled for this batch's physics, or loaded from numba's cache: numba's
        errors name the physics' function and line, and a compilation (not a load) is announced with its time, since
        the user waited for it (``cache.notice_compile``)."""
        misses = 0 if numba.config.DISABLE_JIT else _cache_misses(kernels)
        start = time.perf_counter()
        with self.physics.compile_errors(), cache.compiling(self.physics.name, self.physics.name):
            yield
        if not numba.config.DISABLE_JIT and _cache_misses(kernels) > misses:
            cache.notice_compile(self.physics.name, time.perf_counter() - start, kernels[-1])

    def compile(self) -> None:
        """Compiles the kernels this batch calls (or loads them from numba's cache) before its first use.

        Done at construction, so that a physics numba cannot compile fails at ``make`` with an error
        that names its function and line, rather than at some later step. (The threaded step's kernels
        compile the same physics functions for the same types.)

        Raises:
            nbgym.error.PhysicsError: If numba cannot compile the physics into the kernels.
        """
        if numba.config.DISABLE_JIT:
            return
        actions = np.zeros(self.action_shape, dtype=self.action_dtype)
        reset_args = (
            self.params,
            self._kernel_state,
            self.pcg,
            self.buf,
            self.all_envs,
            self.observations,
            self.flags,
            self.elapsed,
            self.auxes,
        )
        with self._compiling((reset_kernel, step_kernel)):
            reset_kernel.compile(tuple(numba.typeof(arg) for arg in reset_args))
            step_kernel.compile(tuple(numba.typeof(arg) for arg in (*self._step_args(NEXT_STEP, 0), actions)))

    def _step_args(self, mode: int, max_steps: int) -> tuple:
        return (
            self.params,
            self._kernel_state,
            self.pcg,
            self.buf,
            mode,
            max_steps,
            self.observations,
            self.rewards,
            self.flags,
            self.elapsed,
            self.auxes,
        )

    def bind_step(self, mode: int, max_steps: int) -> Callable[[np.ndarray], int]:
        """The step with every argument but the actions bound: ``step(actions) -> status``, in ``num_threads``.

        Binding once keeps a step to one call with one argument from Python. Bind again after
        replacing any array of the batch (the random stream views) or changing ``num_threads``.
        """
        self.end_threads()
        self._server = self._async_servers = None
        self._row_posts = {}
        self._bound = (mode, max_steps)
        chunk_size, num_helpers = threads.split(
            self.num_envs, self.num_threads, self.physics.min_chunk_size, self.physics.max_chunk_size
        )
        if num_helpers == 0:
            return functools.partial(step_kernel, *self._step_args(mode, max_steps))
        self.row_kernels(self.action_dtype)
        self._server = threads.StepServer(
            self._step_args(mode, max_steps), self.action_shape, chunk_size, num_helpers, self._chunks_kernel
        )
        return functools.partial(self._step_in_threads, mode, self._server)

    def async_server(self, batch_size: int) -> threads.StepServer | None:
        """The server that steps an async run's batches of ``batch_size`` sub-environments in the engine's threads
        (bound as the step is: ``bind_step``), or ``None`` for batches fewer than a chunk worth a thread
        (``threads.smallest_chunk``), which the caller steps itself when it sends them: waking a thread would cost
        more than stepping them. A batch goes to ``num_threads - 1`` workers, as a sync step does (the caller steps
        what they have not claimed when it comes back for the results), and at least to one, which steps while the
        caller computes. Two rows per batch: see ``StepServer``."""
        servers = self.__dict__.get("_async_servers") or {}
        if batch_size in servers:
            return servers[batch_size]
        server = None
        if batch_size >= threads.smallest_chunk(self.physics.min_chunk_size, self.physics.max_chunk_size):
            mode, max_steps = self._bound
            self.row_kernels(self.action_dtype)  # here, not in the first worker that steps a batch
            chunk_size, helpers = threads.split(
                batch_size, self.num_threads, self.physics.min_chunk_size, self.physics.max_chunk_size
            )
            server = threads.StepServer(
                self._step_args(mode, max_steps),
                self.action_shape,
                chunk_size,
                max(1, helpers),
                self._chunks_kernel,
                num_rows=2 * (self.num_envs // batch_size),
            )
        servers[batch_size] = server
        self._async_servers = servers
        return server

    def end_threads(self) -> None:
        """Let the workers that serve the bound threaded steps go now (the env is closing, or binds again)."""
        servers = [self.__dict__.get("_server"), *(self.__dict__.get("_async_servers") or {}).values()]
        for server in servers:
            if server is not None:
                server.end()

    def row_kernels(self, action_dtype: np.dtype) -> tuple[Callable[..., int], Callable[..., bool]]:
        """The compiled entry points of ``check_step`` and ``step_chunks`` for this batch's arguments with actions of
        ``action_dtype``, which step rows of the batch in threads: compiled (or loaded) on first use, under the
        cache's lock, not in the first stepping thread; the Python functions, interpreted.

        An entry point skips numba's dispatcher, which types each of the ~20 arguments at every call: a few
        microseconds of each ``send`` and ``recv``, more than a CartPole batch's step. Only the batch's own arrays, of
        the types compiled for, may be passed to them (a buffer of ``action_dtype`` for the actions).
        """
        kernels = self._row_kernels.get(action_dtype)
        if kernels is not None:
            return kernels
        if numba.config.DISABLE_JIT:
            kernels = (check_step, step_chunks)
        else:
            actions = np.zeros(self.action_shape, dtype=action_dtype)
            counters = np.zeros(1, dtype=np.int64)
            with cache.compiling(f"{self.physics.name}'s threaded step", self.physics.name):
                atomic.load_kernels()  # what the threads call between chunks: never loaded inside a step
                check = check_step.compile(
                    tuple(numba.typeof(arg) for arg in (self.params, actions, 0, self.needs_reset, 0, 0))
                )
                chunks = step_chunks.compile(
                    tuple(
                        numba.typeof(arg)
                        for arg in (
                            *self._step_args(0, 0),  # the mode and time limit: ints, whatever their values
                            actions,
                            1,
                            np.zeros((1, ROW_COLUMNS), dtype=np.int64),
                            counters,
                            counters,
                            0,
                            0,
                            False,
                        )
                    )
                )
            kernels = (check, chunks)
        self._row_kernels[action_dtype] = kernels
        return kernels

    def _step_in_threads(self, mode: int, server: threads.StepServer, actions: np.ndarray) -> int:
        status = self.row_kernels(actions.dtype)[0](self.params, actions, mode, self.needs_reset, 0, self.num_envs)
        if status == STEP_OK:
            server.step(actions)
        return status

    def check_rows(self, mode: int, actions: np.ndarray, first: int, stop: int) -> int:
        """The status of a step of sub-environments ``first`` to ``stop - 1`` with their rows of ``actions`` (a whole
        batch's array of the kernels' layout), before anything moves: ``STEP_OK``, or as ``step_kernel``'s."""
        return self.row_kernels(actions.dtype)[0](self.params, actions, mode, self.needs_reset, first, stop)

    def rows_post(self, mode: int, max_steps: int, actions: np.ndarray, first: int, stop: int) -> threads.Post:
        """A step of sub-environments ``first`` to ``stop - 1`` (checked by ``check_rows``) with their rows of
        ``actions`` (a whole batch's array) that ``step_rows_here`` steps in the calling thread, in one chunk.

        Its counters and arguments are made once per rows and actions array, and reused by their next step (a send
        of these rows comes only once their last step was stepped and received) until the step is bound again, as
        it is whenever an array of the batch is replaced (``bind_step``)."""
        made = self._row_posts.get((first, stop))
        kernel = self.row_kernels(actions.dtype)[1]
        if (
            made is None
            or made.actions is not actions
            or made.run != (mode, max_steps)
            or made.post.kernel is not kernel
        ):
            row = np.zeros((2, ROW_COLUMNS), dtype=np.int64)  # its step's, and the caller's own (unused here)
            row[0, ROW_FIRST], row[0, ROW_STOP] = first, stop
            unused = np.zeros(1, dtype=np.int64)  # a single step (seq 0) reads no serving counters
            args = (*self._step_args(mode, max_steps), actions, max(1, stop - first), row, unused, unused)
            post = threads.Post(0, row[0], args, stop - first, unused, kernel)  # never posted: the same for each step
            counters = row[0, : threads.PROGRESS_COUNTERS]
            made = self._row_posts[first, stop] = _RowsPost(post, counters, actions, (mode, max_steps))
        made.counters.fill(0)
        return made.post

    def step_rows_here(self, post: threads.Post) -> None:
        """Steps ``post`` (``rows_post``'s) in the calling thread."""
        post.kernel(*post.args, post.seq, 0, False)

    def _chunks_kernel(self, action_dtype: np.dtype) -> Callable[..., bool]:
        """``step_chunks``' entry point for actions of ``action_dtype`` (a ``threads.StepServer``'s kernel)."""
        return self.row_kernels(action_dtype)[1]

    def bind_step_entry(self, mode: int, max_steps: int, actions: np.ndarray) -> Callable[[], int]:
        """The serial step kernel's compiled entry point with every argument bound, ``actions`` included.

        Calling the entry point skips numba's dispatcher (the type of each argument, the signature
        lookup): about half the cost of a small step. That is only safe because every argument is an
        array of this batch's own, whose type never changes; bind again after replacing one.
        """
        args = (*self._step_args(mode, max_steps), actions)
        if numba.config.DISABLE_JIT:
            return functools.partial(step_kernel, *args)
        with cache.compiling(f"{self.physics.name}'s step of {actions.dtype} actions", self.physics.name):
            entry = step_kernel.compile(tuple(numba.typeof(arg) for arg in args))
        return functools.partial(entry, *args)

    def actions_array(self, actions: Any, num_rows: int | None = None) -> np.ndarray:
        """``actions`` as the array the kernels read: itself when it already is one (C-contiguous, native, writable,
        int64 or a float dtype of ``ACTION_FLOAT_DTYPES``), else its values copied into the batch's own array of
        that dtype (see ``kernel_actions``), so that no layout or byte order makes numba compile another kernel.

        Args:
            actions: The actions of every sub-environment, or of ``num_rows`` of them.
            num_rows: How many sub-environments' actions ``actions`` holds (``None``: every one's).

        Raises:
            InvalidAction: If ``actions`` has the wrong shape, or a dtype that would change its values.
        """
        array = np.asarray(actions)
        shape = self.action_shape if num_rows is None else (num_rows, *self.action_shape[1:])
        if array.shape != shape:
            raise error.InvalidAction(f"Expected actions of shape {shape}, got {array.shape} from {actions!r}.")
        if self.discrete_actions:
            if array.dtype.kind not in "iu":
                raise error.InvalidAction(
                    f"Expected integer actions, got dtype {array.dtype} from {actions!r}; "
                    f"cast them with `.astype(np.int64)` if the values are whole numbers."
                )
            if self.refuse_unsafe_integers and not np.can_cast(array.dtype, np.int64):
                raise error.InvalidAction(f"{actions!r} ({type(actions)}) invalid")
            return self.kernel_actions(array, np.dtype(np.int64))
        dtype = kernel_float_dtype(array.dtype) if array.dtype.kind == "f" else None
        if dtype is not None:
            return self.kernel_actions(array, dtype)
        if array.dtype.kind == "f":
            raise error.InvalidAction(
                f"Expected float32 or float64 actions, got dtype {array.dtype} from {actions!r}: the compiled "
                f"kernels cannot reproduce {array.dtype} arithmetic; cast the actions with `.astype(np.float32)`."
            )
        if array.dtype.kind not in "iub":
            raise error.InvalidAction(f"Expected numeric actions, got dtype {array.dtype} from {actions!r}.")
        return self.kernel_actions(array, np.dtype(np.float64))

    def kernel_actions(self, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """``array`` (of the batch's action shape, or a send's rows of it) as an array of the kernels' own type for
        ``dtype``: itself when it is one, else its values (converted as numpy's assignment converts them) in the
        batch's array of ``dtype`` and that shape, allocated once and overwritten by the next such call."""
        if array.dtype == dtype and kernel_layout(array):
            return array
        buffer = self._action_buffers.get((dtype, array.shape))
        if buffer is None:
            buffer = self._action_buffers[dtype, array.shape] = np.empty(array.shape, dtype=dtype)
        np.copyto(buffer, array, casting="unsafe")
        return buffer

    def rows(self, first: int, stop: int) -> BatchRows:
        """Sub-environments ``first`` to ``stop - 1`` of the batch, as a batch of their own (views of its arrays, made
        once: every ``recv`` reads a batch's; made again when the arrays are, see ``_make_views`` and ``state``)."""
        rows = self._rows.get((first, stop))
        if rows is None:
            rows = self._rows[first, stop] = BatchRows(self, first, stop)
        return rows


class BatchRows:
    """Views of some consecutive sub-environments' rows of a ``KernelBatch``'s arrays, under the batch's names:
    what a vector env's infos read, for the sub-environments that one ``recv`` returns."""

    def __init__(self, batch: KernelBatch, first: int, stop: int) -> None:
        self.physics, self.params, self.num_envs = batch.physics, batch.params, stop - first
        for name in (*KernelBatch._VIEWS, "rewards", "elapsed", "all_envs"):
            setattr(self, name, getattr(batch, name)[first:stop])
        state = batch.state
        self.state = (
            state[first:stop] if isinstance(state, np.ndarray) else type(state)(*(a[first:stop] for a in state))
        )


def _observation_layout(physics: Physics, observation_space: spaces.Space) -> tuple[tuple[int, ...], np.dtype]:
    """``(shape, dtype)`` of one sub-environment's row of the observation buffer.

    Raises:
        nbgym.error.PhysicsError: If the physics' declared layout does not fit a ``Box`` observation space, the
            space has no layout of its own and the physics declares none, or ``observe`` writes a literal
            column past the row.
    """
    if physics.observation is not None:
        shape, dtype = tuple(physics.observation[0]), np.dtype(physics.observation[1])
        if isinstance(observation_space, spaces.Box) and (shape, dtype) != (
            observation_space.shape,
            observation_space.dtype,
        ):
            raise error.PhysicsError(
                f"Physics {physics.name!r} declares observations of shape {shape} and dtype {dtype}, but the "
                f"observation space is {observation_space}: make them agree (or leave `observation` out: the "
                f"buffer then takes the space's shape and dtype)."
            )
    elif isinstance(observation_space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        shape, dtype = observation_space.shape, observation_space.dtype
    else:
        raise error.PhysicsError(
            f"Physics {physics.name!r}: the observation space {observation_space} has no array layout of its own; "
            f"declare the buffer row that observe writes with Physics(..., observation=(shape, dtype)) and convert "
            f"it in the env's _observation (see Blackjack)."
        )
    width = shape[0] if shape else 0
    for column, line in physics.observation_columns:
        if not 0 <= column < width:
            raise error.PhysicsError(
                f"Physics {physics.name!r}: observe (line {line}) writes column {column} of an observation row of "
                f"shape {shape}, from the observation space {observation_space}: this would write another sub-environment's "
                f"row (or raise IndexError at every step, with bounds checks). Make the space and observe agree."
            )
    return shape, dtype
