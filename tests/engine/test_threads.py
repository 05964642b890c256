"""Stepping threads (``num_threads``): results independent of the thread count, fork safety, failures.

The compiled vector envs split a step into chunks that the calling thread and the engine's workers
claim from an atomic counter (``nbgym.engine._threads``). Sizes straddle the chunk boundaries; the
fork tests fork this process after threaded steps, as multiprocessing and ``AsyncVectorEnv`` do.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
import threading
import time

import numba
import numpy as np
import pytest

import nbgym
from nbgym import _bench, error
from nbgym.engine import _threads as threads
from nbgym.engine import atomic
from nbgym.vector import AsyncVectorEnv, AutoresetMode
from helpers.paths import load_benchmark
from helpers.row_kernels import replace_step_chunks


needs_two_threads = pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="num_threads is capped by NUMBA_NUM_THREADS"
)


def feed(digest, value) -> None:
    """Add ``value`` (arrays, tuples, dicts of them, object arrays, scalars) to ``digest``, dtypes included."""
    if isinstance(value, dict):
        for key in sorted(value):
            digest.update(key.encode())
            feed(digest, value[key])
    elif isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.dtype == object):
        for item in value:
            feed(digest, item)
    elif isinstance(value, np.ndarray):
        digest.update(value.dtype.str.encode() + value.tobytes())
    else:
        digest.update(repr(value).encode())


def rollout(env_id: str, num_envs: int, num_threads: int, steps: int, **kwargs) -> str:
    """A digest of every observation, reward, flag and info of a seeded run with random actions."""
    envs = nbgym.make_vec(env_id, num_envs, num_threads=num_threads, **kwargs)
    digest = hashlib.sha256()
    feed(digest, envs.reset(seed=11))
    envs.action_space.seed(5)
    for _ in range(steps):
        results = envs.step(envs.action_space.sample())
        feed(digest, results)
        ended = results[2] | results[3]
        if envs.autoreset_mode == AutoresetMode.DISABLED and ended.any():
            feed(digest, envs.reset(options={"reset_mask": ended}))
    envs.close()
    return digest.hexdigest()


@pytest.mark.parametrize("num_envs", [1, 256, 511, 512, 513, 4097, 5000])
def test_split_covers_the_batch(num_envs):
    for num_threads in (1, 2, 3, 8):
        chunk_size, num_helpers = threads.split(num_envs, num_threads)
        num_chunks = -(-num_envs // chunk_size)
        assert chunk_size >= 256 and (num_chunks - 1) * chunk_size < num_envs <= num_chunks * chunk_size
        assert 0 <= num_helpers == min(num_threads, num_chunks) - 1


@pytest.mark.parametrize("num_envs", [1, 2, 3, 16, 1000])
def test_split_with_a_physics_minimum_chunk(num_envs):
    """A physics whose step is costly (MuJoCo: ``min_chunk_size=1``) shares even tiny batches."""
    for num_threads in (1, 2, 3):
        chunk_size, num_helpers = threads.split(num_envs, num_threads, min_chunk_size=1)
        num_chunks = -(-num_envs // chunk_size)
        assert chunk_size == max(1, -(-num_envs // (8 * num_threads)))
        assert num_helpers == min(num_threads, num_chunks) - 1


@pytest.mark.parametrize("env_id", ["CartPole-v1", "FrozenLake-v1", "HalfCheetah-v5"])
def test_every_parameter_sits_at_an_address_of_its_alignment(env_id):
    """The parameter record is laid out as a C struct: packed, the fields after MuJoCo's one-byte digest field sat
    at odd offsets, and its slot flags' atomic additions (``fetch_add``) locked the memory bus in the processes whose
    record straddled a cache line there: a fifth of them stepped HalfCheetah 5x slower, from their first step."""
    if env_id == "HalfCheetah-v5":
        pytest.importorskip("mujoco")
    envs = nbgym.make_vec(env_id, 2)
    params = envs.unwrapped._batch.params
    assert params.dtype.isalignedstruct
    for name, (field, offset, *_) in params.dtype.fields.items():
        assert (params.ctypes.data + offset) % field.base.alignment == 0, name
    envs.close()


def test_wait_for_sees_another_threads_addition_and_gives_up_after_its_rounds():
    from nbgym.engine.atomic import fetch_add, wait_for

    counter = np.zeros(2, dtype=np.int64)
    assert wait_for(counter, 1, 0, 0)  # already there
    assert not wait_for(counter, 1, 1, 1000)  # never added to: gives up
    if numba.config.DISABLE_JIT:
        return  # interpreted, it reads once (a spin would hold the GIL)
    adder = threading.Thread(target=lambda: (time.sleep(0.02), fetch_add(counter, 1, 3)))
    adder.start()
    assert wait_for(counter, 1, 3, 10**10)  # released the GIL for the adder, and saw its addition
    adder.join()
    assert threads._spin_rounds(threads.SPIN_SECONDS) > 0


# Interpreted (NUMBA_DISABLE_JIT=1), one batch that the threads share covers the chunk kernel and the
# interpreted atomic counter; the other cases are slow there.
ROLLOUT_CASES = [
    pytest.param(mode, num_envs, marks=() if (mode, num_envs) == ("SameStep", 513) else pytest.mark.jit_only)
    for num_envs in (255, 513, 3000)
    for mode in ("NextStep", "SameStep", "Disabled")
]


@needs_two_threads
@pytest.mark.parametrize(("mode", "num_envs"), ROLLOUT_CASES)
def test_results_do_not_depend_on_the_thread_count(mode, num_envs):
    kwargs = dict(autoreset_mode=mode, max_episode_steps=25)
    # Interpreted, 20 steps suffice: random actions end hundreds of the episodes by then, so chunks autoreset.
    steps = 20 if numba.config.DISABLE_JIT else 60
    assert rollout("CartPole-v1", num_envs, 2, steps, **kwargs) == rollout("CartPole-v1", num_envs, 1, steps, **kwargs)


@needs_two_threads
def test_the_first_claimer_takes_chunks_from_the_front_and_the_others_from_the_back(monkeypatch):
    """Each chunk is claimed once, from one end: the first claimer (nearly always the caller) the batch's first rows,
    the others its last ones, so each thread steps the same rows from step to step. (Which thread steps which chunk
    depends on timing, so results are compared across thread counts by the tests above.)"""
    num_envs = 4 * threads._MIN_CHUNK_SIZE  # four chunks, two threads
    envs = nbgym.make_vec("CartPole-v1", num_envs, num_threads=2)
    envs.reset(seed=3)
    counters = []
    real_step = threads.StepServer.step

    def step(server, actions):
        real_step(server, actions)
        counters.append(server.progress[server.seq % server.num_rows, : threads.PROGRESS_COUNTERS].copy())

    monkeypatch.setattr(threads.StepServer, "step", step)
    for _ in range(20):
        envs.step(np.ones(num_envs, dtype=np.int64))
    assert len(counters) == 20
    for claimed, completed, front, back in counters:
        assert completed == num_envs and front + back == 4 and claimed >= 4
        assert front >= 1  # the first claim is always from the front


@needs_two_threads
def test_a_caller_asleep_is_woken_by_the_serving_worker_that_completes_its_step(monkeypatch):
    """The caller leaves every chunk to the worker, which starts each step ten times later than the caller's spin
    lasts: the caller sleeps on the job's lock, and the serving call that completes the step returns to release it
    (a missed wake-up hangs here). Every step is stepped once: the results equal one thread's. (A caller descheduled
    through its whole spin, on a loaded machine, may find a step complete and not sleep: at least one sleep is
    asserted, not five.)"""
    from nbgym.engine import _batch as engine_batch

    num_envs = 4 * threads._MIN_CHUNK_SIZE
    real = engine_batch.step_chunks

    def kernel(*args):
        if threading.current_thread() is threading.main_thread():
            return False
        time.sleep(10 * threads.CALLER_SPIN_SECONDS)
        return real(*args)

    envs = nbgym.make_vec("CartPole-v1", num_envs, num_threads=2)
    reference = nbgym.make_vec("CartPole-v1", num_envs)
    envs.reset(seed=4)
    reference.reset(seed=4)
    replace_step_chunks(monkeypatch, kernel)
    slept = 0
    for k in range(5):
        actions = np.full(num_envs, k % 2, dtype=np.int64)
        for got, expected in zip(envs.step(actions)[:4], reference.step(actions)[:4]):
            np.testing.assert_array_equal(got, expected)
        server = envs._batch._server
        slept += server.control[threads.SERVE_SLEEPER] == server.seq  # the step's caller slept
    assert server.seq == 5 and slept >= 1


@pytest.mark.jit_only  # interpreted, a wait reads the counter once
@pytest.mark.parametrize(
    ("claimed", "worker_ends", "steals"),
    [(0, True, True), (1, True, True), (2, True, False), (3, True, False), (2, False, True)],
)
def test_a_waiting_caller_steps_later_chunks_only_when_the_workers_are_behind(claimed, worker_ends, steals):
    """``join`` steps chunks of the steps sent after its own (``_step_later_chunks``) only if the workers had not
    claimed every chunk of its own step when it came for it, or do not end it within ``STEAL_AFTER_SECONDS``: a
    worker that keeps up ends the step within a chunk, and a chunk stolen meanwhile would only return the caller late
    (a LunarLander chunk is half a batch). Here a stand-in worker ends the step 10 ms after the caller comes, within
    its wait (made long), or never (the wait made short); it is started from the caller's own kernel call, so that
    it cannot end the step before ``join`` looks at it."""
    import types

    num_envs, chunk_size = 32, 16  # two chunks
    control = np.zeros(8, dtype=np.int64)
    progress = np.zeros(threads.PROGRESS_COUNTERS, dtype=np.int64)
    progress[0] = claimed
    stolen, waited = [], []
    server = types.SimpleNamespace(
        chunk_size=chunk_size,
        control=control,
        job=None,
        workers=types.SimpleNamespace(caller_rounds=0, steal_rounds=10**10 if worker_ends else 100),
        _step_later_chunks=lambda post: stolen.append(post),
        _wait=lambda job, post, rounds: waited.append(post),
    )

    worker = threading.Timer(0.01, atomic.fetch_add, (progress, 1, num_envs))

    def kernel(*args: object) -> bool:  # the caller's call: steps nothing here
        if worker_ends:
            worker.start()
        return False

    post = types.SimpleNamespace(
        published=True, progress=progress, num_envs=num_envs, args=(), seq=1, control=control, kernel=kernel
    )
    threads.StepServer._join(server, post)
    if worker_ends:
        worker.join()
    assert waited == [post] and stolen == ([post] if steals else [])


@needs_two_threads
def test_a_step_prepared_and_never_posted_is_dropped():
    """An interrupt between ``prepare`` and the post (here: the post never made) leaves the step unstepped, and the
    next step must not post it too: the batch steps once."""

    num_envs = 4 * threads._MIN_CHUNK_SIZE
    envs = nbgym.make_vec("CartPole-v1", num_envs, num_threads=2)
    reference = nbgym.make_vec("CartPole-v1", num_envs)
    envs.reset(seed=6)
    reference.reset(seed=6)
    actions = np.ones(num_envs, dtype=np.int64)
    envs.step(actions)
    reference.step(actions)
    server = envs._batch._server
    server.prepare(0, num_envs)  # its step interrupted here
    for got, expected in zip(envs.step(actions)[:4], reference.step(actions)[:4]):
        np.testing.assert_array_equal(got, expected)
    assert server.seq == 1  # on fresh counters


@needs_two_threads
def test_closing_or_rebinding_lets_the_serving_workers_go():
    envs = nbgym.make_vec("CartPole-v1", 4 * threads._MIN_CHUNK_SIZE, num_threads=2)
    envs.reset(seed=0)
    envs.step(np.zeros(envs.num_envs, dtype=np.int64))
    server = envs._batch._server
    envs.num_threads = 2  # bound again: a new server
    assert server.control[threads.SERVE_QUIT] > 0 and envs._batch._server is not server
    server = envs._batch._server
    envs.close()
    assert server.control[threads.SERVE_QUIT] > 0


@needs_two_threads
def test_an_env_collected_while_the_interpreter_exits_closes(monkeypatch):
    """Python clears modules' globals to None as it exits, and an env still alive then is closed by ``__del__``
    after that: its calls must not read the engine's module globals (they raised "'NoneType' object is not
    callable", printed as an ignored exception at exit)."""
    from nbgym.engine import _in_use

    envs = nbgym.make_vec("CartPole-v1", 4 * threads._MIN_CHUNK_SIZE, num_threads=2)
    envs.reset(seed=0)
    envs.step(np.zeros(envs.num_envs, dtype=np.int64))
    server = envs._batch._server
    monkeypatch.setattr(_in_use, "_get_ident", None)
    monkeypatch.setattr(_in_use, "_SLOT", None)
    envs.__del__()
    assert envs.closed and server.control[threads.SERVE_QUIT] > 0


@pytest.mark.jit_only
@needs_two_threads
@pytest.mark.parametrize("env_id", ["Acrobot-v1", "Blackjack-v1", "MountainCarContinuous-v0"])
def test_other_envs_do_not_depend_on_the_thread_count(env_id):
    kwargs = dict(autoreset_mode="SameStep", max_episode_steps=20)
    assert rollout(env_id, 1100, 2, 30, **kwargs) == rollout(env_id, 1100, 1, 30, **kwargs)


@needs_two_threads
def test_an_invalid_action_moves_no_sub_environment():
    envs = nbgym.make_vec("MountainCarContinuous-v0", 2000, num_threads=2)
    envs.reset(seed=0)
    before = envs._batch.state.copy()
    actions = np.zeros((2000, 1), dtype=np.float32)
    actions[1700] = np.nan
    with pytest.raises(error.InvalidAction, match="Sub-environment 1700"):
        envs.step(actions)
    assert np.array_equal(envs._batch.state, before)


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_num_threads_must_be_a_positive_int(bad):
    envs = nbgym.make_vec("CartPole-v1", 4)
    with pytest.raises(ValueError, match="num_threads must be a positive int"):
        envs.num_threads = bad
    with pytest.raises(ValueError, match="exceeds NUMBA_NUM_THREADS"):
        envs.num_threads = numba.config.NUMBA_NUM_THREADS + 1
    assert envs.num_threads == 1


def _threaded_steps(envs, actions: list[np.ndarray]) -> str:
    digest = hashlib.sha256()
    for action in actions:
        obs, rewards, terminations, truncations, _ = envs.step(action)
        digest.update(obs.tobytes() + rewards.tobytes() + terminations.tobytes() + truncations.tobytes())
    return digest.hexdigest()


@pytest.mark.jit_only
@needs_two_threads
def test_a_forked_child_steps_with_threads():
    """GNU OpenMP killed a child forked after a parallel step; the engine's threads are re-created there."""
    envs = nbgym.make_vec("CartPole-v1", 4096, num_threads=2)
    envs.reset(seed=1)
    actions = [np.random.default_rng(k).integers(0, 2, 4096) for k in range(20)]
    _threaded_steps(envs, actions[:10])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: step on, report, and leave without running the parent's cleanup
        status = 1
        try:
            os.write(write, _threaded_steps(envs, actions[10:]).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write)
    parent_digest = _threaded_steps(envs, actions[10:])
    with os.fdopen(read) as pipe:
        child_digest = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert child_digest == parent_digest


def _step_in_a_forked_worker(seed: int) -> str:
    envs = nbgym.make_vec("CartPole-v1", 3000, num_threads=2, max_episode_steps=30)
    envs.reset(seed=seed)
    return _threaded_steps(envs, [np.full(3000, k % 2) for k in range(40)])


@pytest.mark.jit_only
@needs_two_threads
def test_multiprocessing_fork_pool_beside_a_threaded_parent():
    _step_in_a_forked_worker(0)  # the parent has stepped with threads before it forks
    with multiprocessing.get_context("fork").Pool(2) as pool:
        in_children = pool.map(_step_in_a_forked_worker, [0, 1])
    assert in_children == [_step_in_a_forked_worker(0), _step_in_a_forked_worker(1)]


@pytest.mark.jit_only
@needs_two_threads
def test_async_vector_env_forks_beside_a_threaded_parent():
    threaded = nbgym.make_vec("CartPole-v1", 2048, num_threads=2)
    threaded.reset(seed=2)
    threaded_actions = [np.random.default_rng(k).integers(0, 2, 2048) for k in range(10)]
    async_envs = AsyncVectorEnv([lambda: nbgym.make("CartPole-v1")] * 2, context="fork")
    sync_envs = nbgym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    try:
        _threaded_steps(threaded, threaded_actions)
        async_obs, _ = async_envs.reset(seed=4)
        sync_obs, _ = sync_envs.reset(seed=4)
        assert np.array_equal(async_obs, sync_obs)
        for k in range(30):
            action = np.array([k % 2, (k // 3) % 2])
            for got, want in zip(async_envs.step(action)[:4], sync_envs.step(action)[:4]):
                assert np.array_equal(got, want)
        single = nbgym.make_vec("CartPole-v1", 2048, num_threads=1)
        single.reset(seed=2)
        threaded.reset(seed=2)
        assert _threaded_steps(threaded, threaded_actions) == _threaded_steps(single, threaded_actions)
    finally:
        async_envs.close()
        sync_envs.close()


def test_a_failure_in_a_worker_reaches_the_caller():
    caller = threading.current_thread()

    def kernel(*args) -> bool:
        if threading.current_thread() is caller:
            return False  # the caller leaves the last chunk to the worker, which fails on it
        raise ZeroDivisionError("in the worker")

    with pytest.raises(RuntimeError, match="failed in a thread") as info:
        threads.StepServer((), (1,), 1, 1, lambda dtype: kernel).step(np.zeros(1))
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_a_failure_in_the_caller_propagates_as_it_is():
    caller = threading.current_thread()

    def kernel(*args) -> bool:
        if threading.current_thread() is caller:
            raise KeyError("in the caller")
        return False

    with pytest.raises(KeyError, match="in the caller"):
        threads.StepServer((), (1,), 1, 1, lambda dtype: kernel).step(np.zeros(1))


# The benchmark of threads beside a busy learner
# ----------------------------------------


@pytest.mark.parametrize("load", ["numpy-thread", "numpy-process"])
def test_matmul_load_keeps_busy_until_stopped(load):
    busy = _bench.MatmulLoad(load)
    try:
        first = busy.products()
        assert first > 0  # busy before anything is measured
        deadline = time.monotonic() + 60
        while busy.products() == first and time.monotonic() < deadline:
            time.sleep(0.01)
        assert busy.products() > first
    finally:
        busy.stop()
    assert busy.products() == 0


def test_matmul_load_names():
    assert _bench.MatmulLoad("none").products() == 0
    with pytest.raises(ValueError, match="Unknown load 'gpu'"):
        _bench.MatmulLoad("gpu")


@pytest.mark.jit_only
@needs_two_threads
def test_bench_envs_script_steps_nbgym_on_the_threads_asked(capsys):
    script = load_benchmark("bench_envs")
    arguments = ["classic-control", "--env", "Pendulum-v1", "--num-envs", "600", "--threads", "2", "--repeats", "1"]
    assert script.main([*arguments, "--sample-time", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "median of 1 interleaved samples, 2 threads" in out and "PendulumVectorEnv, 2 threads" in out


@pytest.mark.jit_only
@needs_two_threads
def test_bench_threads_script(capsys):
    script = load_benchmark("bench_threads")
    arguments = ["--num-envs", "600", "--loads", "none", "numpy-thread", "--repeats", "2", "--sample-time", "0.01"]
    assert script.main(arguments) == 0
    rows = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("| none") or line.startswith("| numpy")
    ]
    assert [row.split(" | ")[:2] for row in rows] == [["| none", "600"], ["| numpy-thread", "600"]]
    # N threads / 1 thread, then N independent envs / 1 thread: each a median and a range
    assert all(len(re.findall(r"\| \d+\.\d\dx \(\d+\.\d\d-\d+\.\d\d\) (?=\|)", row)) == 2 for row in rows)


def test_bench_threads_independent_parts_that_fail_raise_instead_of_waiting():
    """A part's process that ends (here: an unknown id) fails the benchmark at once, saying so; it would otherwise wait
    forever for the part's answer. A split that leaves sub-environments over is refused."""
    script = load_benchmark("bench_threads")
    with pytest.raises(RuntimeError, match="a part's process ended with status 1"):
        script.IndependentParts("NoSuchEnv-v9", 4, 2)
    with pytest.raises(ValueError, match="choose a num_envs that 2 divides"):
        script.IndependentParts("CartPole-v1", 5, 2)
