"""A threaded step interrupted anywhere (Ctrl-C) never returns while a worker still steps the batch.

``threads.run_chunks`` hands the step to the workers and steps beside them. A ``KeyboardInterrupt`` is raised
between any two bytecodes of the calling thread: once it landed between handing out the job and the ``try``
that waits for the workers, and ``step()`` returned while a worker still stepped; the next step raced it (40-61
of 64 BipedalWalker sub-environments wrong from then on). Here the interrupt is injected deterministically at
each point: as the job is handed out (before and after each ``put``), before and after the caller's own kernel
call, and while it waits for the last chunk; the worker is held back so that it is still stepping when the
interrupt lands. Afterwards no worker may run, and the batch must be exactly as before the step or as after
it, and continue as gymnasium's would from there.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap
import threading
import time

import numba
import numpy as np
import pytest
from helpers.paths import ROOT
from helpers.row_kernels import replace_step_chunks

import nbgym
from nbgym import error
from nbgym.engine import _batch as engine_batch
from nbgym.engine import _threads as threads
from nbgym.engine._kernels import SERVE_CALLS

NUM_ENVS = 2048  # 8 chunks of 256: the calling thread and one worker share the step


def _snapshot(envs) -> tuple[np.ndarray, ...]:
    batch = envs._batch
    return (
        np.array(batch.state, copy=True),
        batch.elapsed.copy(),
        batch.observations.copy(),
        batch.flags.copy(),
        batch.pcg.copy(),
    )


def _same(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=x.dtype.kind == "f") for x, y in zip(a, b))


class _Injected:
    """Counts calls at the injection points and raises ``KeyboardInterrupt`` at the chosen one; holds the workers'
    kernel calls back so that a worker is mid-step when the interrupt lands, and counts the running ones."""

    def __init__(self, point: str, nth: int) -> None:
        self.point, self.nth = point, nth
        self.calls: dict[str, int] = {}
        self.running = 0
        self.lock = threading.Lock()
        self.worker_entered = threading.Event()

    def hit(self, point: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self.calls[point] = self.calls.get(point, 0) + 1
        if point == self.point and self.calls[point] == self.nth:
            if point != "before-put":  # the job is out: let a worker take it, so that it steps when interrupted
                self.worker_entered.wait(2.0)
            raise KeyboardInterrupt(f"injected at {point} #{self.nth}")

    def kernel(self, real):
        def wrapped(*args):
            main = threading.current_thread() is threading.main_thread()
            if main and self.point == "wait":  # the worker claims every chunk: the caller sleeps on its lock
                self.worker_entered.wait(2.0)
                return False
            if main:
                self.hit("before-kernel")
            else:
                with self.lock:
                    self.running += 1
                self.worker_entered.set()
                time.sleep(0.05)  # still stepping when the caller is interrupted
            try:
                return real(*args)
            finally:
                if main:
                    self.hit("after-kernel")
                else:
                    with self.lock:
                        self.running -= 1

        return wrapped


class _Queue:
    def __init__(self, real, injected: _Injected) -> None:
        self.real, self.injected = real, injected

    def put(self, job) -> None:
        self.injected.hit("before-put")
        self.real.put(job)
        self.injected.hit("after-put")


class _Workers:
    def __init__(self, real, injected: _Injected) -> None:
        self.real, self.jobs = real, _Queue(real.jobs, injected)
        self.posted, self.spin_rounds, self.caller_rounds = real.posted, real.spin_rounds, real.caller_rounds

    def post(self, job, count: int) -> None:  # the real post, through the queue that interrupts
        self.real.posted[0] += 1
        for _ in range(count):
            self.jobs.put(job)


POINTS = [("before-put", 1), ("after-put", 1), ("before-kernel", 1), ("after-kernel", 1), ("wait", 1)]


@pytest.mark.parametrize(("point", "nth"), POINTS, ids=[f"{p}-{n}" for p, n in POINTS])
def test_an_interrupted_threaded_step_leaves_no_worker_and_a_whole_step(monkeypatch, point, nth):
    envs = nbgym.make_vec("CartPole-v1", NUM_ENVS, num_threads=2)
    reference = nbgym.make_vec("CartPole-v1", NUM_ENVS)
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, NUM_ENVS) for _ in range(4)]
    envs.reset(seed=5)
    reference.reset(seed=5)
    for k in range(2):
        envs.step(actions[k])
        reference.step(actions[k])
    states = [_snapshot(reference)]
    reference.step(actions[2])
    states.append(_snapshot(reference))

    injected = _Injected(point, nth)
    real_workers = threads._shared_workers
    monkeypatch.setattr(threads, "_shared_workers", lambda count: _Workers(real_workers(count), injected))
    replace_step_chunks(monkeypatch, injected.kernel(engine_batch.step_chunks))
    if point == "wait":
        real_job = threads.Job

        class Job(real_job):
            __slots__ = ()

            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                real_done = self.done
                self.done = _InterruptedLock(real_done, injected)

        monkeypatch.setattr(threads, "Job", Job)

    # The interrupted step posts a new job (through the injected queue, with the injected lock) only once no worker
    # serves the last one: a worker descheduled in its spin, on a loaded machine, may still be serving.
    server = envs._batch._server
    deadline = time.monotonic() + 5
    while threads.atomic.load(server.control, SERVE_CALLS) != 0 and time.monotonic() < deadline:
        time.sleep(0.001)
    with pytest.raises(KeyboardInterrupt):
        envs.step(actions[2])
    assert injected.running == 0, "step() returned while a worker was stepping the batch"
    time.sleep(0.1)  # a worker left running would step the batch now
    after = _snapshot(envs)
    assert _same(after, states[0]) or _same(after, states[1]), "the batch was left partly stepped"
    monkeypatch.undo()
    if _same(after, states[0]):  # as before the step: step again
        envs.step(actions[2])
    obs, rewards, terminated, truncated, _ = envs.step(actions[3])
    expected = reference.step(actions[3])
    np.testing.assert_array_equal(obs, expected[0])
    np.testing.assert_array_equal(rewards, expected[1])
    np.testing.assert_array_equal(terminated, expected[2])
    envs.close()
    reference.close()


class _InterruptedLock:
    """The caller's wake-up lock, interrupted while the caller sleeps on it (a lock's acquire hears signals)."""

    def __init__(self, real, injected: _Injected) -> None:
        self.real, self.injected = real, injected

    def acquire(self, *args):
        self.injected.hit("wait")
        return self.real.acquire(*args)

    def release(self):
        return self.real.release()


def test_a_worker_that_does_not_end_is_abandoned_and_the_env_refuses(monkeypatch):
    """A physics that loops forever in a worker: an interrupt still ends the step within ``STOP_GRACE``, and the
    env refuses every call while the worker may write its arrays."""
    envs = nbgym.make_vec("CartPole-v1", NUM_ENVS, num_threads=2)
    envs.reset(seed=1)
    release, entered = threading.Event(), threading.Event()
    stuck: list[threading.Thread] = []
    real = engine_batch.step_chunks

    def kernel(*args):
        if threading.current_thread() is threading.main_thread():
            entered.wait(5)
            raise KeyboardInterrupt("injected")
        stuck.append(threading.current_thread())
        entered.set()
        release.wait(30)  # a stuck worker
        return real(*args)

    replace_step_chunks(monkeypatch, kernel)
    monkeypatch.setattr(threads, "STOP_GRACE", 0.3)
    reference = nbgym.make_vec("CartPole-v1", NUM_ENVS)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt, match="did not end"):
            envs.step(np.zeros(NUM_ENVS, dtype=np.int64))
        assert time.monotonic() - start < 5
        refused = {
            "reset": lambda: envs.reset(seed=1),
            "step": lambda: envs.step(np.zeros(NUM_ENVS, dtype=np.int64)),
            "set_attr": lambda: envs.set_attr("gravity", 9.0),
            "get_attr": lambda: envs.get_attr("state"),
            "num_threads": lambda: setattr(envs, "num_threads", 1),
            "a parameter": lambda: setattr(envs, "gravity", 9.0),
            "pickle": lambda: pickle.dumps(envs),
            "deepcopy": lambda: copy.deepcopy(envs),
            "close": envs.close,
        }
        for call in refused.values():
            with pytest.raises(error.EnvInUse, match="did not end"):
                call()
        # The stuck worker is retired: later threaded steps (of another env) get workers of their own and leave no
        # job behind for it.
        monkeypatch.undo()
        others = nbgym.make_vec("CartPole-v1", NUM_ENVS, num_threads=2)
        others.reset(seed=3)
        for _ in range(50):
            others.step(np.zeros(NUM_ENVS, dtype=np.int64))
        for _ in range(100):  # a worker woken late finds its job done: the queue drains
            if threads._workers.jobs.qsize() == 0:
                break
            time.sleep(0.05)
        assert threads._workers.jobs.qsize() == 0
        assert not set(stuck) & set(threads._workers.threads)
    finally:
        release.set()
    for _ in range(100):  # the worker ends its call, and hands the env back
        if not envs._in_use.handed_over:
            break
        time.sleep(0.05)
    copy.deepcopy(envs)
    pickle.loads(pickle.dumps(envs))
    with pytest.raises(error.ResetNeeded):
        envs.step(np.zeros(NUM_ENVS, dtype=np.int64))
    envs.reset(seed=1)
    reference.reset(seed=1)
    for k in range(3):
        actions = np.full(NUM_ENVS, k % 2, dtype=np.int64)
        np.testing.assert_array_equal(envs.step(actions)[0], reference.step(actions)[0])
    envs.close()


@pytest.mark.parametrize("num_threads", [2, 3, 4])
def test_a_failing_worker_never_leaves_another_stepping(monkeypatch, num_threads):
    """A physics that raises in one worker's chunk: ``step()`` raises only once every other worker has ended its
    chunks, so the ``reset()`` that its message asks for is not overwritten by a worker still stepping."""
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", max(4, numba.config.NUMBA_NUM_THREADS))
    num_envs = 512 * num_threads  # two chunks of 256 per thread: every worker gets some
    envs = nbgym.make_vec("CartPole-v1", num_envs, num_threads=num_threads)
    reference = nbgym.make_vec("CartPole-v1", num_envs)
    envs.reset(seed=2)
    real = engine_batch.step_chunks
    arrived = threading.Barrier(num_threads - 1, timeout=5)
    turn = iter(range(num_threads))
    running = [0]
    lock = threading.Lock()

    def kernel(*args):
        if threading.current_thread() is threading.main_thread():
            return False  # the workers step every chunk
        arrived.wait()  # every worker is inside the step
        with lock:
            first = next(turn) == 0
            running[0] += 1
        try:
            if first:
                raise IndexError("injected in one worker's chunk")
            time.sleep(0.2)  # the others are still stepping when it fails
            return real(*args)
        finally:
            with lock:
                running[0] -= 1

    replace_step_chunks(monkeypatch, kernel)
    with pytest.raises(error.PhysicsIndexError):
        envs.step(np.ones(num_envs, dtype=np.int64))
    assert running[0] == 0, "step() raised while a worker was still stepping the batch"
    replace_step_chunks(monkeypatch, real)
    envs.reset(seed=2)
    reference.reset(seed=2)
    time.sleep(0.1)  # a worker left running would step the batch now
    for k in range(3):
        actions = np.full(num_envs, k % 2, dtype=np.int64)
        np.testing.assert_array_equal(envs.step(actions)[0], reference.step(actions)[0])


class _Held:
    """Holds a call on an env in another thread at a Python point inside it, until released."""

    def __init__(self, env, method: str) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        real = getattr(env, method)

        def held(*args):
            self.entered.set()
            self.release.wait(5)
            return real(*args)

        setattr(env, method, held)


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_one_env_takes_one_caller(vector):
    """A second thread's call on an env that a first thread is inside is refused at once, and moves nothing."""
    if vector:
        env = nbgym.make_vec("CartPole-v1", 4)
        inside = _Held(env, "_step_infos")
        calls = {
            "step": lambda: env.step(np.zeros(4, dtype=np.int64)),
            "reset": lambda: env.reset(seed=0),
            "set_attr": lambda: env.set_attr("state", [np.zeros(4)] * 4),
            "get_attr": lambda: env.get_attr("state"),
            "a parameter": lambda: setattr(env, "gravity", 1.0),
            "max_episode_steps": lambda: setattr(env, "max_episode_steps", 3),
            "render": env.render,
            "pickle": lambda: pickle.dumps(env),
        }
        step = lambda: env.step(np.ones(4, dtype=np.int64))  # noqa: E731
    else:
        env = nbgym.make("CartPole-v1").unwrapped
        inside = _Held(env, "_step_info")
        calls = {
            "step": lambda: env.step(0),
            "reset": lambda: env.reset(seed=0),
            "state": lambda: setattr(env, "state", np.zeros(4)),
            "a parameter": lambda: setattr(env, "gravity", 1.0),
            "read of a parameter": lambda: env.gravity,
            "np_random": lambda: setattr(env, "np_random", np.random.default_rng(0)),
            "deepcopy": lambda: copy.deepcopy(env),
        }
        step = lambda: env.step(1)  # noqa: E731
    env.reset(seed=0)
    before = env._batch.state.copy()
    stepper = threading.Thread(target=step)
    stepper.start()
    try:
        assert inside.entered.wait(5)
        for call in calls.values():
            with pytest.raises(error.EnvInUse, match=r"another thread \(Thread-"):
                call()
    finally:
        inside.release.set()
        stepper.join(5)
    reference = nbgym.make_vec("CartPole-v1", 4) if vector else nbgym.make("CartPole-v1").unwrapped
    reference.reset(seed=0)
    np.testing.assert_array_equal(before, reference._batch.state)
    reference.step(np.ones(4, dtype=np.int64) if vector else 1)
    np.testing.assert_array_equal(env._batch.state, reference._batch.state)  # stepped once, by the first caller
    env.step(np.zeros(4, dtype=np.int64) if vector else 0)  # the env is free again


def test_a_second_interrupt_while_stopping_the_workers_keeps_waiting(monkeypatch):
    """Ctrl-C twice: the second lands inside ``_stop_workers`` (here in its first clock read), which still waits
    for the worker before the first interrupt goes on."""
    caller = threading.current_thread()
    entered = threading.Event()
    running = [0]

    def kernel(*args):
        if threading.current_thread() is caller:
            entered.wait(5)
            raise KeyboardInterrupt("first")
        running[0] += 1
        entered.set()
        time.sleep(0.2)
        running[0] -= 1
        return False

    class Clock:
        reads = 0

        @classmethod
        def monotonic(cls):
            cls.reads += 1
            if cls.reads == 1:
                raise KeyboardInterrupt("second")
            return time.monotonic()

    monkeypatch.setattr(threads, "time", Clock)
    with pytest.raises(KeyboardInterrupt, match="first"):
        threads.StepServer((), (1,), 1, 1, lambda dtype: kernel).step(np.zeros(1))
    assert Clock.reads >= 2
    assert running[0] == 0, "step raised while a worker was still running"


class _Alarm(Exception):
    """What the storm's signal handler raises (as Ctrl-C raises ``KeyboardInterrupt``)."""


def test_a_latch_waited_for_and_set_through_a_storm_of_interrupts_still_wakes_its_waiter():
    """Exceptions raised by a signal handler every ~10 us, wherever they land in ``Latch.wait`` and ``Latch.set``,
    leave it working: a latch waited for wakes when another thread sets it, and one set is seen as set. A
    ``threading.Event`` in its place is left locked for good within a few interrupts (the rollout's Ctrl-C hung once
    so), and this test's waiting threads then never end."""
    import signal

    armed = [False]

    def raise_once_armed(signum, frame):
        if armed[0]:
            armed[0] = False
            raise _Alarm

    waited, set_here = threads.Latch(), [threads.Latch() for _ in range(2000)]
    landed = 0
    previous = signal.signal(signal.SIGALRM, raise_once_armed)
    signal.setitimer(signal.ITIMER_REAL, 1e-5, 1e-5)
    try:
        deadline = time.monotonic() + 5.0  # a loaded machine runs fewer handlers in a given time
        while landed < 300 and time.monotonic() < deadline:
            try:
                armed[0] = True
                waited.wait(1e-5)
                armed[0] = False
            except _Alarm:
                landed += 1
        for latch in set_here:
            try:
                armed[0] = True
                latch.set()
                armed[0] = False
            except _Alarm:
                landed += 1
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert landed > 100, f"only {landed} interrupts landed: the storm did not test the latch"

    woken: list[bool] = []
    waiter = threading.Thread(target=lambda: woken.append(waited.wait(10.0)), daemon=True)
    waiter.start()
    time.sleep(0.05)
    setter = threading.Thread(target=waited.set, daemon=True)
    setter.start()
    setter.join(5.0)
    waiter.join(5.0)
    assert not setter.is_alive() and woken == [True], "a latch waited for through interrupts did not wake"
    unset = [i for i, latch in enumerate(set_here) if not (latch.is_set() or latch.set() or latch.is_set())]
    assert unset == []
    seen: list[bool] = []
    checker = threading.Thread(target=lambda: seen.extend(latch.wait(1.0) for latch in set_here), daemon=True)
    checker.start()
    checker.join(5.0)
    assert seen == [True] * len(set_here), "a latch set through interrupts was not seen as set"


@pytest.mark.jit_only  # interpreted, nothing is compiled
def test_no_threaded_step_compiles_or_loads_a_kernel():
    """Every kernel a threaded step may call is loaded when its env is made, none inside a step, in a fresh process.
    A load inside a step can take a Ctrl-C inside llvmlite, which then frees a string twice and aborts the process: a
    caller's first sleep on its workers loaded ``atomic.store_then_load`` (7 of 56 runs of the MuJoCo test
    ``test_ctrl_c_during_threaded_step_never_leaves_a_helper_stepping`` aborted, three at a time, and one in CI). Here
    the workers take every chunk, each after a delay, so that the caller sleeps in each step."""
    code = """
        import threading, time
        import numpy as np, nbgym
        from numba.core import dispatcher
        from nbgym.engine import _batch, _threads, atomic

        envs = nbgym.make_vec("CartPole-v1", 2048, num_threads=2)
        envs.reset(seed=0)
        real_row_kernels, real_store_then_load = _batch.KernelBatch.row_kernels, atomic.store_then_load
        real_compile = dispatcher.Dispatcher._compile_for_args
        loads, sleeps = [], []

        def row_kernels(self, action_dtype):
            check, chunks = real_row_kernels(self, action_dtype)

            def workers_only(*args):  # the caller claims nothing; a worker claims each chunk late
                if threading.current_thread() is threading.main_thread():
                    return False
                time.sleep(10 * _threads.CALLER_SPIN_SECONDS)
                return chunks(*args)

            return check, workers_only

        def store_then_load(*args):
            sleeps.append(1)
            return real_store_then_load(*args)

        def compile_for_args(self, *args, **kwargs):
            loads.append(self.py_func.__qualname__)
            return real_compile(self, *args, **kwargs)

        _batch.KernelBatch.row_kernels = row_kernels
        atomic.store_then_load = store_then_load
        dispatcher.Dispatcher._compile_for_args = compile_for_args
        for k in range(5):
            envs.step(np.full(2048, k % 2, dtype=np.int64))
        print(len(sleeps), loads)
    """
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-3000:]
    sleeps, loads = result.stdout.split(maxsplit=1)
    assert int(sleeps) >= 1 and loads.strip() == "[]", result.stdout
