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

import threading
import time

import numpy as np
import pytest

import nbgym
from nbgym.engine import _batch as engine_batch
from nbgym.engine import _threads as threads

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
        self.jobs = _Queue(real.jobs, injected)


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
    monkeypatch.setattr(engine_batch, "step_chunks", injected.kernel(engine_batch.step_chunks))
    if point == "wait":
        real_job = threads._Job

        class Job(real_job):
            __slots__ = ()

            def __init__(self, *args) -> None:
                super().__init__(*args)
                real_done = self.done
                self.done = _InterruptedLock(real_done, injected)

        monkeypatch.setattr(threads, "_Job", Job)

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
    real = engine_batch.step_chunks

    def kernel(*args):
        if threading.current_thread() is threading.main_thread():
            entered.wait(5)
            raise KeyboardInterrupt("injected")
        entered.set()
        release.wait(30)  # a stuck worker
        return real(*args)

    monkeypatch.setattr(engine_batch, "step_chunks", kernel)
    monkeypatch.setattr(threads, "STOP_GRACE", 0.3)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt, match="did not end"):
            envs.step(np.zeros(NUM_ENVS, dtype=np.int64))
        assert time.monotonic() - start < 5
        with pytest.raises(RuntimeError, match="did not end"):
            envs.reset(seed=1)
        with pytest.raises(RuntimeError, match="did not end"):
            envs.step(np.zeros(NUM_ENVS, dtype=np.int64))
    finally:
        release.set()
