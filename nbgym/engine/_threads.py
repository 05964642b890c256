"""The engine's stepping threads: plain Python threads that run ``nogil`` kernels beside the caller.

Why not numba's ``parallel=True``: its threading layer here is GNU OpenMP, whose threads spin at the
end of every parallel region and wait for each other. Beside another busy process, or torch's own
threads in the same process, a descheduled OpenMP thread holds the whole step up for a time slice
(2-thread steps fell to 0.03-0.6x of gymnasium at 4096 envs), and a process forked after a parallel
step is killed by libgomp when it runs one. Its settings (``OMP_WAIT_POLICY``, the threading layer)
are process-wide and would change the user's own OpenMP code too.

Here a step is split into chunks that threads claim from a shared atomic counter (``step_chunks``):
the calling thread always works, ``num_threads - 1`` workers help when the OS runs them, and the
caller waits only for a chunk a worker is still stepping: awake for up to ``CALLER_SPIN_SECONDS``, then asleep on a
lock. The workers stay in the kernel from one step to the next, a sync step's or an async batch's
(``StepServer``), so that they need no GIL to begin the next one; an idle worker spins ``SPIN_SECONDS`` for the
next job before it sleeps on the queue. A worker that wakes up late finds nothing left and goes back to sleep. The
workers are created on first use, shared by every vector env of the process, and created afresh in a forked child.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
import time
from typing import Callable

import numba
import numpy as np

from nbgym.engine import atomic
from nbgym.engine._kernels import (
    ROW_COLUMNS,
    ROW_FIRST,
    ROW_STOP,
    SERVE_CALLS,
    SERVE_QUIT,
    SERVE_SEQ,
    SERVE_SLEEPER,
    SERVE_USERS,
)

_CHUNKS_PER_THREAD = 8
"""Chunks per thread and step: small enough that a worker stalled mid-chunk holds up little, large
enough that claiming a chunk (one atomic addition) costs nothing next to stepping it."""
_MIN_CHUNK_SIZE = 256
"""Waking a worker costs tens of microseconds: a batch of fewer than two such chunks steps in the caller."""

SPIN_SECONDS = 200e-6
"""How long a thread that waits for a step's chunks, or a worker for its next job, spins awake before it sleeps. Waking
a sleeping thread costs the operating system tens of microseconds (a round trip between two Python threads took 68 us
on the 2-core virtual machine), twice a threaded step: a LunarLander x64 step on 2 threads lost ~60 us of its ~400 to
it. Bounded, unlike OpenMP's spin: at most this much of a core is taken from other work per step."""

CALLER_SPIN_SECONDS = 1e-3
"""How long a caller that has stepped its share spins for the chunks its workers still step before it sleeps: longer
than a worker's spin, because the core it spins on is its own and a sleep costs its step a wake-up, and a claim can
outlast ``SPIN_SECONDS`` (BipedalWalker's 16 worlds, ~500 us): the learner loop, BipedalWalker x64 in batches of 32,
stepped 53.1k env-steps/s with the caller asleep after 200 us, 54.3k after 1 ms (3 rounds each; beside a matmul load
in a thread or a process, ``bench_threads.py`` showed no difference beyond its noise). It waits only for chunks a
worker has claimed (it steps the others itself), so a spin outlasts a claim only while a worker is descheduled."""

STEAL_AFTER_SECONDS = 100e-6
"""How long a caller whose workers claimed every chunk of its step waits for them before it steps chunks of the steps
sent after its own (``StepServer._step_later_chunks``): longer than a LunarLander chunk (16 worlds, ~40 us), so that
a worker that keeps up ends the step first, as it nearly always does; a worker that takes longer is descheduled or
steps a long chunk (BipedalWalker's ~200 us, a slow MuJoCo world), and the caller has time to use."""

PROGRESS_COUNTERS = 4
"""The int64 counters that begin a step's row of ``progress`` (``step_chunks``): chunks claimed, sub-environments
completed, chunks taken from the batch's front and from its back (see ``_kernels._step_range``)."""


SMALLEST_SHARED_BATCH = 2 * _MIN_CHUNK_SIZE
"""The fewest sub-environments whose steps are shared between threads (smaller batches step in the caller)."""


class Latch:
    """A flag set once, by any thread, that the calling thread waits for while Ctrl-C may interrupt it.

    ``threading.Event`` cannot serve: an exception that a signal handler raises inside ``Event.wait`` or ``Event.set``
    (``KeyboardInterrupt`` between two of its bytecodes) can leave the Event's inner lock held (Python 3.10 to 3.13),
    and every later ``wait`` or ``set``, in any thread, then blocks forever: a rollout interrupted so hung its process.
    Here the flag is the truth and a bare lock only wakes the waiter: ``set`` raises the flag before it releases the
    lock, and ``acquire`` either takes the lock or raises without it, so an interrupt anywhere leaves a raised flag
    seen at once and an unraised one still waited for.
    """

    __slots__ = ("_flag", "_wake")

    def __init__(self) -> None:
        self._flag = False
        self._wake = threading.Lock()
        self._wake.acquire()

    def is_set(self) -> bool:
        return self._flag

    def set(self) -> None:
        self._flag = True
        with contextlib.suppress(RuntimeError):  # set before, and not taken by a waiter since
            self._wake.release()

    def wait(self, timeout: float) -> bool:
        """Whether the flag is raised, waiting up to ``timeout`` seconds for it."""
        if self._flag:
            return True
        if self._wake.acquire(timeout=timeout):
            with contextlib.suppress(RuntimeError):  # the next waiter's wake-up (a second ``set`` may have given it)
                self._wake.release()
        return self._flag

    def wait_through_interrupts(self, timeout: float) -> bool:
        """``wait``, going on through any exception raised meanwhile (a further Ctrl-C) until ``timeout`` seconds have
        passed; the caller is handling the first one."""
        deadline = None
        while True:
            try:
                if deadline is None:
                    deadline = time.monotonic() + timeout
                return self.wait(max(0.0, deadline - time.monotonic()))
            except BaseException:  # noqa: BLE001 - a further interrupt: wait on, the first one goes on after
                continue


class Job:
    """One threaded call: the kernel, its arguments, the shared counters, and the caller's wake-up lock."""

    __slots__ = (
        "kernel",
        "args",
        "done",
        "error",
        "failures",
        "started",
        "finished",
        "cancelled",
        "finished_lock",
        "idle",
        "runners",
        "ended_callbacks",
    )

    def __init__(self, kernel: Callable[..., bool], args: tuple) -> None:
        self.kernel = kernel
        self.args = args
        self.done = threading.Lock()
        self.done.acquire()
        self.error: BaseException | None = None
        self.failures = 0
        """Worker kernel calls that raised (each leaves the chunk it was stepping uncompleted)."""
        self.started = 0
        """Worker kernel calls that have begun (under ``finished_lock``, and only while not ``cancelled``)."""
        self.finished = 0
        """Worker kernel calls that have returned or raised: none of them steps this batch any more."""
        self.cancelled = False
        """Set by an interrupted caller: a worker that takes the job from the queue later leaves it alone."""
        self.finished_lock = threading.Lock()
        self.idle: Latch | None = None
        """Made by ``cancel`` (a job that is never cancelled, nearly every one, makes none), and set once every worker
        call that started the job has finished."""
        self.runners: set[threading.Thread] = set()
        """The worker threads inside the kernel now (under ``finished_lock``)."""
        self.ended_callbacks: list[Callable[[], None]] = []
        """Called once ``idle`` is set (see ``when_idle``)."""

    def run_in_worker(self) -> bool:
        """Run the kernel in a worker; whether the caller is to be woken: the serving call completed a step whose
        caller sleeps (run it again: it serves on), or it failed, which ends the job too (the caller would otherwise
        wait forever for the chunk that failed). A cancelled job is not run: the caller, interrupted, no longer waits
        for it."""
        worker = threading.current_thread()
        with self.finished_lock:
            if self.cancelled:
                return False
            self.started += 1
            self.runners.add(worker)
        try:
            return self.kernel(*self.args)
        except Exception as failure:  # noqa: BLE001 - handed to the caller, who raises it
            self.error = failure
            self.failures += 1
            return True
        finally:
            with self.finished_lock:
                self.finished += 1
                self.runners.discard(worker)
                if self.cancelled and self.finished == self.started:
                    self._set_idle()

    def cancel(self) -> None:
        """No worker starts the job from now on; ``idle`` is set when those that started it have finished."""
        with self.finished_lock:
            if self.idle is None:
                self.idle = Latch()
            self.cancelled = True
            if self.finished == self.started:
                self._set_idle()

    def _set_idle(self) -> None:  # under finished_lock, once cancelled
        self.idle.set()
        callbacks, self.ended_callbacks = self.ended_callbacks, []
        for callback in callbacks:
            callback()

    def when_idle(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (in the thread that ends the job's last worker call, or now) once ``idle`` is set (the
        job is cancelled)."""
        with self.finished_lock:
            if not self.idle.is_set():
                self.ended_callbacks.append(callback)
                return
        callback()

    def wake_caller(self) -> None:
        """Release the caller waiting for the last chunk (once: only a second failing worker could try twice)."""
        with contextlib.suppress(RuntimeError):
            self.done.release()


class StepAbandoned(KeyboardInterrupt):
    """An interrupted or failed threaded step whose workers did not end within ``STOP_GRACE`` seconds (a physics
    that loops forever?): raised so that the process stays interruptible. A worker may still write the batch's
    arrays until they end; ``when_ended(callback)`` calls ``callback`` then (the env refuses every call until
    then: see ``InUse.hand_over``). The stuck workers are retired: later steps get workers of their own."""

    def __init__(self, message: str, when_ended: Callable[[Callable[[], None]], None]) -> None:
        super().__init__(message)
        self.when_ended = when_ended


STOP_GRACE = 2.0
"""Seconds an interrupted step waits for its workers' kernel calls (each a few chunks long) to end."""

EXIT_GRACE = 10.0
"""Seconds the interpreter's exit waits for the workers to step the batches still queued and end."""


class _Workers:
    """Daemon threads that take jobs from one queue; grows to the most workers any call has asked for."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        """Each job once per worker asked to help with it; ``None`` ends the worker that takes it."""
        self.posted = np.zeros(1, dtype=np.int64)
        """Grows as jobs are put (under the GIL; an increment lost to another putting thread still changes it): an
        idle worker spins on it for ``SPIN_SECONDS`` before it sleeps on the queue, and a serving call returns when it
        changes (another job waits)."""
        self.spin_rounds = _spin_rounds(SPIN_SECONDS)
        self.caller_rounds = _spin_rounds(CALLER_SPIN_SECONDS)
        self.steal_rounds = _spin_rounds(STEAL_AFTER_SECONDS)
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

        self.started = 0

    def ensure(self, count: int) -> None:
        with self.lock:
            while len(self.threads) < count:
                thread = threading.Thread(target=self._work, name=f"nbgym-step-{self.started}", daemon=True)
                self.started += 1
                thread.start()
                self.threads.append(thread)

    def retire(self, stuck: set[threading.Thread]) -> None:
        """Stop counting ``stuck`` threads (inside an abandoned job) as workers: ``ensure`` starts others, and each
        of them ends once its call returns, instead of taking jobs it would hold up."""
        with self.lock:
            self.threads = [thread for thread in self.threads if thread not in stuck]

    def post(self, job: Job, count: int) -> None:
        """Give ``job`` to ``count`` workers. ``posted`` grows first: a serving call (``StepServer``) that took an
        earlier job and reads it afterwards must not take this post for a later one and leave."""
        self.posted[0] += 1
        for _ in range(count):
            self.jobs.put(job)

    def _next_job(self, spin: bool) -> Job | None:
        """The next job: taken at once, or after a spin if ``spin`` (a job put then takes no wake-up: after a step,
        the next one may be posted soon), or after sleeping."""
        seen = int(self.posted[0])  # read before looking: a job put after the look grows it
        try:
            return self.jobs.get_nowait()
        except queue.Empty:
            pass
        if spin:
            atomic.wait_for(self.posted, 0, seen + 1, self.spin_rounds)  # releases the GIL
        return self.jobs.get()

    def _work(self) -> None:
        me = threading.current_thread()
        spin = False
        while True:
            job = self._next_job(spin)
            if job is None:
                return
            while job.run_in_worker():  # it woke a sleeping caller (and serves on), or failed
                job.wake_caller()
                if job.error is not None:
                    break
            spin = True
            job = None  # an idle worker keeps no batch's arrays alive
            with self.lock:
                if me not in self.threads:
                    return


_workers: _Workers | None = None
_workers_lock = threading.Lock()


def _forget_workers() -> None:
    """In a forked child: the parent's worker threads do not exist here, and its queue may be locked."""
    global _workers, _workers_lock
    _workers = None
    _workers_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_workers)


def _end_workers_at_exit() -> None:
    """At the interpreter's exit, before it freezes daemon threads: the workers step what is queued (batches sent
    and never received) and end. A worker frozen by the exit inside a job would leave the env's ``close`` (from
    ``__del__``, during the exit) waiting for it forever, and a kernel must not run while the interpreter tears
    down. Waits ``EXIT_GRACE`` seconds at most (a physics that never ends then is left to the exit)."""
    global _workers
    with _workers_lock:
        workers, _workers = _workers, None
    if workers is None:
        return
    with workers.lock:
        running = list(workers.threads)
    for _ in running:
        workers.jobs.put(None)
    deadline = time.monotonic() + EXIT_GRACE
    for thread in running:
        thread.join(max(0.0, deadline - time.monotonic()))


atexit.register(_end_workers_at_exit)


def _spin_rounds(seconds: float) -> int:
    """The reads of ``atomic.wait_for`` that take ``seconds`` on this machine (its ``pause`` takes from a few to
    over a hundred cycles by processor), measured once: 0 interpreted, where a spin would hold the GIL."""
    if numba.config.DISABLE_JIT:
        return 0
    never = np.zeros(1, dtype=np.int64)
    rounds = 4096
    atomic.wait_for(never, 0, 1, 1)  # compiled or loaded outside the measurement
    start = time.perf_counter()
    atomic.wait_for(never, 0, 1, rounds)
    per_round = max((time.perf_counter() - start) / rounds, 1e-9)
    return int(seconds / per_round)


def _shared_workers(count: int) -> _Workers:
    """The process's workers, at least ``count`` of them (started here if fewer run)."""
    global _workers
    workers = _workers
    if workers is not None and len(workers.threads) >= count:
        return workers  # as every send finds them: the two locks cost ~1.3 us of a send (~16 us, LunarLander's)
    with _workers_lock:
        if _workers is None:
            _workers = _Workers()
    _workers.ensure(count)
    return _workers


def smallest_chunk(min_chunk_size: int | None, max_chunk_size: int | None) -> int:
    """The fewest sub-environments worth waking a thread for: a physics' ``min_chunk_size``, else
    ``_MIN_CHUNK_SIZE`` (tens of nanoseconds a sub-environment), or its ``max_chunk_size`` when that is smaller (a
    physics that shares its batches one sub-environment at a time steps each in microseconds)."""
    if min_chunk_size is not None:
        return min_chunk_size
    return min(_MIN_CHUNK_SIZE, max_chunk_size or _MIN_CHUNK_SIZE)


def split(
    num_envs: int, num_threads: int, min_chunk_size: int | None = None, max_chunk_size: int | None = None
) -> tuple[int, int]:
    """How a step of ``num_envs`` sub-environments is spread over up to ``num_threads`` threads.

    Args:
        num_envs: The sub-environments of the batch.
        num_threads: The threads that may step them.
        min_chunk_size: The fewest sub-environments worth a chunk (default ``_MIN_CHUNK_SIZE``, for
            sub-environments of tens of nanoseconds; a physics whose step takes microseconds, as
            MuJoCo's, shares far smaller batches).
        max_chunk_size: The most sub-environments per chunk (``None``: ``num_envs`` over ``_CHUNKS_PER_THREAD``
            chunks per thread).

    Returns:
        The sub-environments per chunk, and the number of workers worth waking to help the calling
        thread (fewer than ``num_threads - 1`` when there are too few chunks to share).
    """
    smallest = _MIN_CHUNK_SIZE if min_chunk_size is None else min_chunk_size
    chunk_size = max(smallest, -(-num_envs // (_CHUNKS_PER_THREAD * num_threads)))
    if max_chunk_size is not None:
        chunk_size = max(1, min(chunk_size, max_chunk_size))
    num_chunks = -(-num_envs // chunk_size)
    return chunk_size, min(num_threads, num_chunks) - 1


def _stop_workers(job: Job) -> None:
    """Cancel ``job`` and wait, through any further interrupts, until every worker call that started it has
    returned or raised (a worker that takes it later leaves it alone): none of them touches the batch once
    this returns. Counting the calls started, not the jobs handed out or the chunks, leaves no window: an
    interrupt may land between any two bytecodes of the caller, and a worker may fail.

    Raises:
        StepAbandoned: If they have not ended within ``STOP_GRACE`` seconds (the stuck workers are retired).
    """
    deadline = None
    while True:
        try:  # everything inside: a further interrupt anywhere keeps waiting
            if deadline is None:
                deadline = time.monotonic() + STOP_GRACE
            job.cancel()
            if job.idle.wait(max(0.0, deadline - time.monotonic())):
                return
            break
        except BaseException:  # noqa: BLE001 - a further interrupt: keep waiting, the first one is raised
            continue
    with job.finished_lock:
        stuck = set(job.runners)
    if _workers is not None:
        _workers.retire(stuck)
    raise StepAbandoned(
        f"a threaded step was stopped and a stepping thread did not end within {STOP_GRACE} s (a physics that "
        f"loops forever?): it may still write the batch",
        job.when_idle,
    )


POST_MIN_SECONDS = 75e-6
"""The shortest step of an async batch worth handing to the stepping threads (``SendTiming``); a shorter one is stepped
by ``send`` itself. A worker sleeps while the caller computes for longer than ``SPIN_SECONDS`` (a policy does), so
handing it a batch wakes it: ``send`` and ``recv`` then took ~17 us each of the caller's time, where stepping 256
CartPole sub-environments takes ~5 us. In the learner loop (``bench_learner_loop.py``'s policy, ``num_envs`` in two
batches, 2 threads, medians of interleaved rounds) stepping in ``send`` was the faster up to steps of ~60-90 us:
CartPole in batches of 256 1.11-1.18x, 512 (~11 us) 1.07x, 2048 (~45 us) 1.03x, 4096 (~90 us) 1.01x; Pendulum's 256
(~19 us) 1.14x, 1024 (~76 us) 1.00x; Acrobot's 128 (~32 us) 1.02x, 256 (~63 us) 1.00x. Handing over was the faster
from ~130 us: Acrobot's 512 1.10x, CartPole's 8192 1.02x. Set it to 0 to hand every batch over from the first
``send``."""

TIMED_SENDS = 5
"""The steps of a batch size that ``send`` takes itself and times before it may hand them over (``SendTiming``): an
odd number, whose median is the middle one."""


class SendTiming:
    """Whether an async run's batches of one size are handed to the stepping threads (``posts``), from the time their
    steps take in ``send``: ``send`` steps them itself and times each step (``record``), and hands them over for good
    once the median of its last ``TIMED_SENDS`` steps reaches ``POST_MIN_SECONDS``. The results are the same either
    way (a sub-environment's step does not depend on the thread that runs it); only who steps them changes."""

    __slots__ = ("timed", "long", "posts")

    def __init__(self) -> None:
        self.timed = 0
        """The steps taken in ``send`` so far."""
        self.long = 0
        """Which of the last ``TIMED_SENDS`` steps took ``POST_MIN_SECONDS`` or more, a bit each (the latest lowest)."""
        self.posts = POST_MIN_SECONDS <= 0
        """Whether ``send`` hands the batches to the threads."""

    def record(self, seconds: float) -> None:
        """Note a step taken in ``send``, which took ``seconds``: the median of the last ``TIMED_SENDS`` (an odd
        number) reaches ``POST_MIN_SECONDS`` when most of them do."""
        self.long = (self.long << 1 | (seconds >= POST_MIN_SECONDS)) & ((1 << TIMED_SENDS) - 1)
        self.timed += 1
        if self.timed >= TIMED_SENDS and self.long.bit_count() > TIMED_SENDS // 2:
            self.posts = True


SYNC_ROWS = 2
"""A sync ``StepServer``'s rows: its steps use them in turn, one in flight at a time."""


class Post:
    """A step of a ``StepServer`` (``prepare``): its number, its row of counters, the kernel's arguments (with the
    server's counters when it was prepared), its sub-environments' count, the kernel that steps it, and whether it was
    posted."""

    __slots__ = ("seq", "progress", "args", "num_envs", "control", "kernel", "published")

    def __init__(
        self,
        seq: int,
        progress: np.ndarray,
        args: tuple,
        num_envs: int,
        control: np.ndarray,
        kernel: Callable[..., bool],
    ) -> None:
        self.seq, self.progress, self.args, self.num_envs = seq, progress, args, num_envs
        self.kernel = kernel
        self.control = control
        """The serving counters of the server's generation that it was posted to (``StepServer._restart``)."""
        self.published = False


class StepServer:
    """Threaded steps of one bound batch, stepped by workers that stay in the kernel between steps.

    A worker that returns to Python after each step needs the GIL to come back for the next one, and the caller holds
    it from the end of one step until its kernel starts the next: the worker began each LunarLander x64 sync step
    ~16 us after the caller, and a worker that ended its part of an async batch waited for the GIL through the
    caller's Python before it began the next batch (HalfCheetah x64 in async batches of 32 with a policy between
    steps: 60.5k env-steps/s with the workers back in Python after each batch, 69.3k serving).
    Here the job handed to the workers serves (``step_chunks`` with ``seq < 0``): each call steps every step the
    caller posts, in order, by following ``control[SERVE_SEQ]``, spinning in between up to ``SPIN_SECONDS``, and
    returns only when none comes, another job is posted, the caller sleeps on its lock, or the server stops it. The
    kernel's arguments stay those of the bound batch, with the actions in the server's own array; a new job is handed
    out only when no call serves.

    A sync step (``step``) is posted and joined at once. Async batches (``post``, later ``join``) are posted while
    others are in flight: the server has two rows per batch that may be in flight, so that a row is zeroed for a step
    only once the step that used it before has been received, and a serving call never finds the row of a step in
    flight zeroed. The caller's ``join`` steps the chunks that no worker has claimed, then, while a worker steps the
    last ones, those of the steps posted after it if the workers are behind (``_step_later_chunks``), then waits:
    awake, then asleep.

    An interrupt or a failure ends the steps as before: no serving call goes on, no worker call of the job is left,
    the step being joined is stepped whole or not at all; the server then starts again on fresh counters (steps in
    flight keep the old ones, and their ``join`` steps what no worker stepped).
    """

    def __init__(
        self,
        head: tuple,
        action_shape: tuple,
        chunk_size: int,
        num_helpers: int,
        kernel_of: Callable[[np.dtype], Callable[..., bool]],
        num_rows: int = SYNC_ROWS,
    ) -> None:
        """
        Args:
            head: The kernel's arguments before the actions.
            action_shape: The shape of the batch's actions.
            chunk_size: The sub-environments of a chunk.
            num_helpers: The workers that serve beside the caller.
            kernel_of: The kernel (``step_chunks``' entry point) that steps actions of a dtype.
            num_rows: The rows of counters: twice the steps that may be in flight at once.
        """
        self.head, self.action_shape, self.chunk_size = head, action_shape, chunk_size
        self.kernel_of = kernel_of
        self.sends = SendTiming()
        """Whether an async run's ``send`` hands its batches to this server (kept when the counters restart)."""
        self.num_helpers, self.num_rows = num_helpers, num_rows
        self.actions: np.ndarray | None = None
        self.control = np.zeros(SERVE_USERS + num_rows, dtype=np.int64)
        self._restart()

    def _restart(self) -> None:
        """Fresh counters: calls that still serve the old ones return and never touch these."""
        atomic.fetch_add(self.control, SERVE_QUIT, 1)
        self.control = np.zeros(SERVE_USERS + self.num_rows, dtype=np.int64)
        self.progress = np.zeros((self.num_rows + 1, ROW_COLUMNS), dtype=np.int64)  # and the caller's own row
        self.posts: list[Post | None] = [None] * self.num_rows
        self.seq = 0
        self.job: Job | None = None
        self.workers: _Workers | None = None
        self._args: tuple | None = None
        """The kernel's arguments of every step of these counters, of these workers and actions (``prepare``)."""

    def end(self) -> None:
        """Let the serving calls return now (the batch was bound again, or closed)."""
        atomic.fetch_add(self.control, SERVE_QUIT, 1)

    def actions_of(self, dtype: np.dtype) -> np.ndarray:
        """The array the kernels read the actions from, of ``dtype``: write a step's rows of it before ``post``. A
        new one for another dtype (with fresh counters: nothing may be in flight then)."""
        if self.actions is None or self.actions.dtype != dtype:
            self._restart()
            self.actions = np.zeros(self.action_shape, dtype=dtype)
        return self.actions

    def step(self, actions: np.ndarray) -> None:
        """Step the batch once with ``actions`` (checked by the caller), in this thread and the serving workers.

        Raises:
            RuntimeError: If the kernel failed in a worker thread.
            StepAbandoned: If interrupted and a worker did not end within ``STOP_GRACE`` seconds.
        """
        np.copyto(self.actions_of(actions.dtype), actions)  # no step is in flight: the last one was joined
        self.join(self.prepare(0, len(actions)))  # posted by join, inside its guard

    def prepare(self, first: int, stop: int) -> Post:
        """The next step, of sub-environments ``first`` to ``stop - 1`` (their actions written in ``actions_of``'s
        array, checked), in its zeroed row, with the kernel of the actions' dtype; no thread steps it before ``post``.
        Returns at once, unless the row's earlier step is still in flight (not with the rows a server is made with),
        which it joins first."""
        earlier = self.posts[(self.seq + 1) % self.num_rows]
        if earlier is not None and atomic.load(earlier.progress, 1) < earlier.num_envs:
            self.join(earlier)  # the row's step is still in flight
        latest = self.posts[self.seq % self.num_rows]
        if latest is not None and not latest.published and latest.control is self.control:
            # Interrupted before it was posted: no thread has stepped it. Dropped with these counters (a row is zeroed
            # only after the step before was posted); sent in flight, its join steps it alone.
            self._restart()
        workers = _shared_workers(self.num_helpers)
        if workers is not self.workers:  # the first step, or a forked child's (the parent's calls do not exist)
            if self.workers is not None:
                self._restart()
            self.workers = workers
        seq = self.seq + 1
        row = seq % self.num_rows
        control, progress = self.control, self.progress[row]
        while atomic.load(control, SERVE_USERS + row) != 0:  # a call that came late for the row's earlier step
            time.sleep(0)
        progress[:] = 0
        progress[ROW_FIRST], progress[ROW_STOP] = first, stop
        args = self._args
        if args is None:  # new counters (a new workers' or actions' array restarts them)
            args = self._args = (*self.head, self.actions, self.chunk_size, self.progress, control, workers.posted)
        post = Post(seq, progress, args, stop - first, control, self.kernel_of(self.actions.dtype))
        self.posts[row], self.seq = post, seq
        return post

    def post(self, post: Post) -> None:
        """Hand ``post`` (from ``prepare``) to the serving workers and return at once: ``join`` returns its results.
        Interrupted, it is stepped whole (in this thread) if a worker claimed a chunk, else not at all.

        Raises:
            StepAbandoned: If interrupted and a worker did not end within ``STOP_GRACE`` seconds.
        """
        try:
            self._publish(post)
        except BaseException:
            self._stop(post, interrupted=True)
            raise

    def join(self, post: Post) -> None:
        """Return once ``post`` is stepped: steps the chunks no worker has claimed, then waits for the workers'.
        Interrupted, it is stepped whole or not at all; a failure stops every worker first.

        Raises:
            RuntimeError: If the kernel failed in a worker thread.
            StepAbandoned: If interrupted, or a kernel failed, and a worker did not end within ``STOP_GRACE`` seconds.
        """
        try:
            self._join(post)
        except Exception:
            self._stop(post, interrupted=False)
            raise
        except BaseException:
            self._stop(post, interrupted=True)
            raise
        self._raise_failure(post)

    def _publish(self, post: Post) -> None:
        control = self.control
        if post.control is not control:  # counters renewed since prepare (an interrupt): join steps it here
            return
        if post.seq > control[SERVE_SEQ]:  # posted: served from now (a later post may be out first)
            # The caller alone writes it: a plain store, as ``atomic.fetch_add`` is from Python (under a lock that only
            # Python threads take), without the lock's ~0.3 us.
            control[SERVE_SEQ] = post.seq
        post.published = True
        if atomic.load(control, SERVE_CALLS) == 0:
            workers = self.workers
            serving = -2 - int(workers.posted[0])  # -1 - posted[0] once this job is posted
            job = Job(post.kernel, (*post.args, serving, workers.spin_rounds, False))
            atomic.fetch_add(control, SERVE_CALLS, self.num_helpers)
            self.job = job
            workers.post(job, self.num_helpers)

    def _join(self, post: Post) -> None:
        if not post.published:  # a sync step's, or an async one's interrupted between prepare and post
            self._publish(post)
        workers_behind = atomic.load(post.progress, 0) < -(-post.num_envs // self.chunk_size)  # chunks unclaimed
        if post.kernel(*post.args, post.seq, 0, False) or atomic.load(post.progress, 1) >= post.num_envs:
            return
        if post.control is not self.control:
            # No call serves these counters any more: every chunk a worker claimed was completed before its call
            # ended, unless it failed.
            raise RuntimeError("A step kernel failed in a thread: a stopped worker left its chunk unstepped")
        if workers_behind or not atomic.wait_for(post.progress, 1, post.num_envs, self.workers.steal_rounds):
            self._step_later_chunks(post)
        self._wait(self.job, post, self.workers.caller_rounds)

    def _step_later_chunks(self, post: Post) -> None:
        """While workers step the last chunks of ``post``: step the chunks that no worker has claimed of the steps
        posted after it (an async run's batches sent since), one at a time, until ``post`` is complete or none is
        left, rather than wait idle. The workers would step them next; a step's results do not depend on which
        thread steps its chunks.

        With a policy between ``recv`` and ``send`` (``bench_learner_loop.py``'s loop, x64 in two batches of 32), the
        caller came back to a batch whose last chunk the worker was stepping and waited ~55 us of each ~130 us
        LunarLander batch, ~570 us of each BipedalWalker one, stepping a chunk itself in one batch of four or less
        (a chunk is the solver's 16 lanes of worlds; 8-world chunks stepped LunarLander's loop 9% slower). Stepping
        the later batch's chunks meanwhile: BipedalWalker 1.07x as many env-steps/s (medians of 11 interleaved runs),
        LunarLander 0.98x (11), HalfCheetah 1.01x, Humanoid 1.00x (7 each).

        Only when the workers are behind, though: ``join`` calls this if it found chunks of ``post`` that no worker
        had claimed yet, or if they have not ended ``post`` within ``STEAL_AFTER_SECONDS``. Otherwise the workers keep
        up with the caller, and a stolen chunk only makes the caller return late: it finishes a chunk of the later step
        after ``post`` is done. A LunarLander chunk (16 worlds, ~40 us) is half of a batch of 32. The caller came back
        ~12 us before the worker ended the batch, and a chunk stolen then held it ~30 us past that. Learner loop, x64
        in two batches of 32, 2026-12-05, medians of 7 interleaved rounds (HalfCheetah's of 5):

        | env | always stealing | only when behind | never stealing |
        |---|---|---|---|
        | LunarLander | 327k | 379k | 372k |
        | BipedalWalker | 122k | 117k | 120k |
        | HalfCheetah | 77.1k | 76.3k | 77.1k |

        BipedalWalker's rounds ranged over ±15%, so its three figures are equal within the noise."""
        for seq in range(post.seq + 1, self.seq + 1):
            later = self.posts[seq % self.num_rows]
            if later is None or not later.published or later.control is not self.control:
                continue
            while later.kernel(*later.args, later.seq, 0, True):  # stepped one of its chunks
                if atomic.load(post.progress, 1) >= post.num_envs:
                    return

    def _wait(self, job: Job, post: Post, rounds: int) -> None:
        """Until the step's last sub-environment is completed (or a worker failed): awake for ``rounds`` reads, then
        asleep on the lock of the job that serves now, which the call that completes the step releases once it sees
        ``SERVE_SLEEPER``."""
        if atomic.wait_for(post.progress, 1, post.num_envs, rounds):
            return
        completed = atomic.store_then_load(self.control, SERVE_SLEEPER, post.seq, post.progress, 1)
        while completed < post.num_envs and job.error is None:
            job.done.acquire()  # released by the call that completes the step, or a failing one
            completed = atomic.load(post.progress, 1)

    def _raise_failure(self, post: Post) -> None:
        job = self.job
        if job is not None and job.error is not None:
            self._stop(post, interrupted=False)
            raise RuntimeError(f"A step kernel failed in a thread: {job.error!r}") from job.error

    def _stop(self, post: Post, interrupted: bool) -> None:
        """After an interrupt or a failure: no serving call goes on, every worker call of the serving job has ended
        (see ``_stop_workers``), and, interrupted, ``post`` is stepped whole in this thread if a chunk of it was
        claimed."""
        job = self.job
        self._restart()
        if job is not None:
            _stop_workers(job)
        if not interrupted:
            return
        while True:
            try:
                if post.progress[0] > 0 and (job is None or job.error is None):
                    post.kernel(*post.args, post.seq, 0, False)  # claims what is left; returns at once when nothing is
                break
            except Exception:
                break  # the kernel's own failure: the interrupt goes on, as the step was already failing
            except BaseException:  # noqa: BLE001 - a further interrupt before the call: finish anyway
                continue
