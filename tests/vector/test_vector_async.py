"""Differential and robustness tests of nbgym.vector.AsyncVectorEnv.

gymnasium's AsyncVectorEnv (and nbgym's SyncVectorEnv) are the oracles for results, attributes and
error types/messages. Beyond gymnasium: a worker that raises or dies gives a clear error without
hanging, and ``close()`` always leaves no process behind.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.vector_test_envs import (
    CustomSpaceEnv,
    OBS_KINDS,
    assert_same,
    different_space_env_class,
    env_fns,
    queue_reporting_worker,
    rollout,
    same_error,
    sorted_keys,
    toy_env_class,
)
from helpers.paths import ROOT, TESTS

import nbgym
from nbgym.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from nbgym.vector import AsyncVectorEnv, SyncVectorEnv
from nbgym.vector.async_vector_env import AsyncState

pytestmark = pytest.mark.filterwarnings("ignore:.*(ERROR|WARN).*:UserWarning")

ZEROS = np.zeros(2, dtype=np.int64)


@pytest.fixture(autouse=True)
def stop_leftover_workers() -> Iterator[None]:
    """Stop the workers a test leaves behind, then collect the objects that own them, now.

    gymnasium's ``AsyncVectorEnv`` leaves its workers running when its constructor fails, and the
    half-built object's ``__del__`` later waits for them forever: if the garbage collector gets to
    it during another test, that test hangs. (nbgym's stops its workers; the tests check that.)
    """
    yield
    for process in multiprocessing.active_children():
        process.kill()  # SIGTERM can be caught: forked workers inherit the test runner's handlers
        process.join(5)
    gc.collect()


class Hung(BaseException):
    """A block under :func:`deadline` ran out of time (not an ``Exception``, which the code under test may catch)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging) if the block takes longer than ``seconds``."""

    def on_alarm(signum: int, frame: Any) -> None:
        raise Hung(f"the block hung for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def assert_no_worker_left(env: AsyncVectorEnv) -> None:
    for process in env.processes:
        process.join(5)
        assert not process.is_alive(), f"{process.name} is still alive"


# ---------------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", OBS_KINDS)
def test_rollout_matches_gymnasium_and_sync(kind: str, mode: str) -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 3, kind), autoreset_mode=mode)
    nb_env = AsyncVectorEnv(env_fns(nbgym, 3, kind), autoreset_mode=mode)
    expected = rollout(gym_env, seed=7, steps=20, action_seed=1)
    assert_same(expected, rollout(nb_env, seed=7, steps=20, action_seed=1))
    assert_same(gym_env.get_attr("log"), nb_env.get_attr("log"))
    sync_env = SyncVectorEnv(env_fns(nbgym, 3, kind), autoreset_mode=mode)
    assert_same(sorted_keys(expected), sorted_keys(rollout(sync_env, seed=7, steps=20, action_seed=1)))
    gym_env.close()
    nb_env.close()
    assert_no_worker_left(nb_env)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["tuple", "dict"])
def test_rollout_without_shared_memory_matches_gymnasium(kind: str, mode: str) -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 2, kind), shared_memory=False, autoreset_mode=mode)
    nb_env = AsyncVectorEnv(env_fns(nbgym, 2, kind), shared_memory=False, autoreset_mode=mode)
    assert_same(rollout(gym_env, 3, 15, 4), rollout(nb_env, 3, 15, 4))
    gym_env.close()
    nb_env.close()


def test_reset_after_an_episode_end_clears_the_autoreset_without_shared_memory() -> None:
    # gymnasium's worker forgets this without shared memory (its next step is a spurious reset);
    # nbgym's async env behaves as the sync env does either way.
    for shared_memory in (True, False):
        envs = [
            AsyncVectorEnv(env_fns(nbgym, 1), shared_memory=shared_memory),
            SyncVectorEnv(env_fns(nbgym, 1)),
        ]
        results = []
        for env in envs:
            env.reset(seed=0)
            ended = False
            while not ended:
                _, _, terminated, truncated, _ = env.step(np.zeros(1, dtype=np.int64))
                ended = bool(terminated[0] or truncated[0])
            env.reset(seed=5)
            results.append(env.step(np.zeros(1, dtype=np.int64)))
            env.close()
        assert_same(results[1], results[0])
        assert results[0][1][0] != 0.0


@pytest.mark.parametrize("context", ["spawn", "forkserver", "fork"])
def test_start_methods(context: str) -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, "dict"), context=context)
    expected = rollout(SyncVectorEnv(env_fns(nbgym, 2, "dict")), 1, 6, 2)
    assert_same(expected, rollout(env, 1, 6, 2))
    pids = env.call("pid")
    assert len(set(pids)) == 2 and os.getpid() not in pids
    env.close()
    assert_no_worker_left(env)


def test_reset_mask_and_seeds_match_gymnasium() -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 3, "box"), shared_memory=False)
    nb_env = AsyncVectorEnv(env_fns(nbgym, 3, "box"), shared_memory=False)
    assert_same(gym_env.reset(seed=[3, 1, 2]), nb_env.reset(seed=[3, 1, 2]))
    for _ in range(2):
        assert_same(gym_env.step(np.array([0, 1, 2])), nb_env.step(np.array([0, 1, 2])))
    options = {"reset_mask": np.array([False, True, False]), "extra": 1.5}
    assert_same(gym_env.reset(options=dict(options)), nb_env.reset(options=dict(options)))
    assert_same(gym_env.step(np.array([2, 2, 2])), nb_env.step(np.array([2, 2, 2])))
    assert nb_env.np_random_seed == gym_env.np_random_seed == (3, 1, 2)
    for mask in (np.array([True, False]), np.zeros(3, dtype=bool), [True, True, True]):
        same_error(
            lambda: gym_env.reset(options={"reset_mask": mask}), lambda: nb_env.reset(options={"reset_mask": mask})
        )
    same_error(lambda: gym_env.reset(seed=[1]), lambda: nb_env.reset(seed=[1]))
    gym_env.close()
    nb_env.close()


def test_disabled_mode_refuses_to_step_ended_envs_without_stopping_workers() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2), autoreset_mode="Disabled")
    env.reset(seed=0)
    ended = np.zeros(2, dtype=bool)
    while not ended.any():
        _, _, terminated, truncated, _ = env.step(ZEROS)
        ended = terminated | truncated
    with pytest.raises(AssertionError, match="DISABLED"):
        env.step(ZEROS)
    env.reset(options={"reset_mask": ended})
    env.step(ZEROS)
    env.close()


# ---------------------------------------------------------------------------------------------------
# Attributes, calls, spaces
# ---------------------------------------------------------------------------------------------------


def test_attributes_calls_and_render_match_gymnasium() -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 2, "tuple", render_mode="rgb_array"))
    nb_env = AsyncVectorEnv(env_fns(nbgym, 2, "tuple", render_mode="rgb_array"))
    assert repr(nb_env) == repr(gym_env) == "AsyncVectorEnv(num_envs=2)"
    assert repr(nb_env.observation_space) == repr(gym_env.observation_space)
    assert repr(nb_env.action_space) == repr(gym_env.action_space)
    assert nb_env.render_mode == "rgb_array" and nb_env.metadata["render_fps"] == 7
    assert nb_env.metadata["autoreset_mode"] is nbgym.vector.AutoresetMode.NEXT_STEP
    gym_env.reset(seed=4)
    nb_env.reset(seed=4)
    assert_same(gym_env.render(), nb_env.render())
    assert_same(gym_env.call("add", 1, b=2), nb_env.call("add", 1, b=2))
    assert_same(gym_env.get_attr("kind"), nb_env.get_attr("kind"))
    gym_env.set_attr("steps", [7, 8])
    nb_env.set_attr("steps", [7, 8])
    assert nb_env.get_attr("steps") == gym_env.get_attr("steps") == (7, 8)
    nb_env.set_attr("steps", 1)
    assert nb_env.get_attr("steps") == (1, 1)
    same_error(lambda: gym_env.set_attr("steps", [1]), lambda: nb_env.set_attr("steps", [1]))
    assert [g.bit_generator.state for g in nb_env.np_random] == [g.bit_generator.state for g in gym_env.np_random]
    # `call` of a protocol command is refused in the main process: the workers keep running.
    with pytest.raises(ValueError, match="Trying to call function `step` with `call`, use `step` directly instead."):
        nb_env.call("step", ZEROS)
    assert nb_env.get_attr("idx") == (0, 1)
    gym_env.close()
    nb_env.close()


def test_observation_modes_and_space_errors_match_gymnasium() -> None:
    gym_fns = [lambda i=i: different_space_env_class(gymnasium)(idx=i) for i in range(2)]
    nb_fns = [lambda i=i: different_space_env_class(nbgym)(idx=i) for i in range(2)]
    gym_env = gymnasium.vector.AsyncVectorEnv(gym_fns, observation_mode="different")
    nb_env = AsyncVectorEnv(nb_fns, observation_mode="different")
    assert repr(nb_env.observation_space) == repr(gym_env.observation_space)
    assert_same(gym_env.reset(seed=9), nb_env.reset(seed=9))
    gym_env.close()
    nb_env.close()

    same_error(lambda: gymnasium.vector.AsyncVectorEnv(gym_fns), lambda: AsyncVectorEnv(nb_fns))
    nb_bad = (nbgym.spaces.Box(-5, 5, (2, 3)), nbgym.spaces.Box(-5, 5, (3,)))
    gym_bad = (gymnasium.spaces.Box(-5, 5, (2, 3)), gymnasium.spaces.Box(-5, 5, (3,)))
    same_error(
        lambda: gymnasium.vector.AsyncVectorEnv(gym_fns, observation_mode=gym_bad),
        lambda: AsyncVectorEnv(nb_fns, observation_mode=nb_bad),
    )

    def mixed_actions(lib: Any) -> list[Any]:
        cls = toy_env_class(lib)
        return [lambda: cls(action="discrete"), lambda: cls(action="box")]

    same_error(
        lambda: gymnasium.vector.AsyncVectorEnv(mixed_actions(gymnasium)), lambda: AsyncVectorEnv(mixed_actions(nbgym))
    )
    # gymnasium leaves the workers of a failed construction running; nbgym stops them.
    before = set(multiprocessing.active_children())
    with pytest.raises(RuntimeError):
        AsyncVectorEnv(mixed_actions(nbgym))
    assert set(multiprocessing.active_children()) <= before


def test_custom_space_needs_shared_memory_off() -> None:
    with pytest.raises(ValueError, match="shared_memory=True"):
        AsyncVectorEnv([CustomSpaceEnv])
    env = AsyncVectorEnv([CustomSpaceEnv, CustomSpaceEnv], shared_memory=False)
    assert env.reset() == ((0, 0), {})
    env.close()


def test_argument_errors_match_gymnasium() -> None:
    for value in (0, 1.5):
        same_error(
            lambda: gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 1), max_concurrency=value),
            lambda: AsyncVectorEnv(env_fns(nbgym, 1), max_concurrency=value),
        )
    with pytest.raises(ValueError, match="A custom `worker` must accept 8 arguments"):
        AsyncVectorEnv(env_fns(nbgym, 1), worker=lambda a, b: None)
    same_error(
        lambda: gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 1), observation_mode="bogus"),
        lambda: AsyncVectorEnv(env_fns(nbgym, 1), observation_mode="bogus"),
    )


def test_max_concurrency_gives_the_same_results() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 3, "box"), max_concurrency=1)
    assert_same(rollout(SyncVectorEnv(env_fns(nbgym, 3, "box")), 2, 10, 3), rollout(env, 2, 10, 3))
    env.close()


# ---------------------------------------------------------------------------------------------------
# Asynchronous calls, timeouts, state errors
# ---------------------------------------------------------------------------------------------------


def test_pending_call_errors_match_gymnasium() -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 2))
    nb_env = AsyncVectorEnv(env_fns(nbgym, 2))
    same_error(gym_env.step_wait, nb_env.step_wait)
    same_error(gym_env.reset_wait, nb_env.reset_wait)
    same_error(gym_env.call_wait, nb_env.call_wait)
    for env in (gym_env, nb_env):
        env.reset_async(seed=1)
    error = same_error(lambda: gym_env.reset_async(), lambda: nb_env.reset_async())
    assert isinstance(error, AlreadyPendingCallError) and error.name == "reset"
    same_error(lambda: gym_env.step_async(ZEROS), lambda: nb_env.step_async(ZEROS))
    same_error(lambda: gym_env.call_async("render"), lambda: nb_env.call_async("render"))
    same_error(lambda: gym_env.set_attr("steps", 1), lambda: nb_env.set_attr("steps", 1))
    same_error(gym_env.step_wait, nb_env.step_wait)
    assert_same(gym_env.reset_wait(), nb_env.reset_wait())
    for env in (gym_env, nb_env):
        env.step_async(ZEROS)
    assert_same(gym_env.step_wait(), nb_env.step_wait())
    gym_env.call_async("add", 3)
    nb_env.call_async("add", 3)
    assert_same(gym_env.call_wait(), nb_env.call_wait())

    gym_env.close()
    nb_env.close()
    error = same_error(lambda: gym_env.step(ZEROS), lambda: nb_env.step(ZEROS))
    assert isinstance(error, ClosedEnvironmentError)
    same_error(gym_env.reset, nb_env.reset)
    with pytest.raises(NoAsyncCallError):
        AsyncVectorEnv(env_fns(nbgym, 1)).step_wait()


def test_timeout_keeps_the_call_pending() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, step_delay=0.3))
    env.reset(seed=0)
    env.step_async(ZEROS)
    with pytest.raises(multiprocessing.TimeoutError, match="The call to `step_wait` has timed out after 0.01"):
        env.step_wait(timeout=0.01)
    assert env._state is AsyncState.WAITING_STEP
    with pytest.raises(AlreadyPendingCallError):
        env.step_async(ZEROS)
    # Waiting again gets this step's results, not stale ones.
    sync = SyncVectorEnv(env_fns(nbgym, 2))
    sync.reset(seed=0)
    assert_same(sync.step(ZEROS), env.step_wait(timeout=5))
    env.close()


def test_timeout_error_type_matches_gymnasium() -> None:
    gym_env = gymnasium.vector.AsyncVectorEnv(env_fns(gymnasium, 1, step_delay=0.3))
    nb_env = AsyncVectorEnv(env_fns(nbgym, 1, step_delay=0.3))
    for env in (gym_env, nb_env):
        env.reset(seed=0)
        env.step_async(np.zeros(1, dtype=np.int64))
    same_error(lambda: gym_env.step_wait(timeout=0.01), lambda: nb_env.step_wait(timeout=0.01))
    for process in gym_env.processes:
        process.kill()  # gymnasium's close() sends SIGTERM and then waits without a limit
    gym_env.close(terminate=True)
    with deadline(5):
        nb_env.close(timeout=0.01)
    assert_no_worker_left(nb_env)


@pytest.mark.parametrize("hung_call", ["step", "reset"])
def test_close_after_a_timed_out_wait_does_not_wait_for_the_hung_workers(hung_call: str) -> None:
    """gymnasium's close() then waits forever; nbgym's waits as long as the timed-out wait did, then
    terminates the workers."""
    env = AsyncVectorEnv(env_fns(nbgym, 2, **{f"{hung_call}_delay": 600.0}))
    if hung_call == "step":
        env.reset(seed=0)
        env.step_async(ZEROS)
    else:
        env.reset_async(seed=0)
    with pytest.raises(multiprocessing.TimeoutError):
        getattr(env, f"{hung_call}_wait")(timeout=0.2)
    with deadline(10), pytest.warns(UserWarning, match=f"pending call to `{hung_call}` to complete"):
        env.close()
    assert env.closed
    assert_no_worker_left(env)


def test_close_waits_for_a_pending_call_that_did_not_time_out() -> None:
    """Without a timed-out wait, close() lets a slow call finish and the workers close their environments."""
    env = AsyncVectorEnv(env_fns(nbgym, 2, step_delay=0.5))
    env.reset(seed=0)
    env.step_async(ZEROS)
    with pytest.warns(UserWarning, match="pending call to `step` to complete"):
        env.close()
    assert [process.exitcode for process in env.processes] == [0, 0]


# ---------------------------------------------------------------------------------------------------
# Failing and dying workers
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fail_on", ["reset", "step"])
def test_worker_error_reaches_the_caller(fail_on: str) -> None:
    def fns(lib: Any) -> list[Any]:
        # Only the second sub-environment fails.
        return [env_fns(lib, 2)[0], env_fns(lib, 2, fail_on=fail_on)[1]]

    env = AsyncVectorEnv(fns(nbgym))
    gym_env = gymnasium.vector.AsyncVectorEnv(fns(gymnasium))

    def run(vector_env: Any) -> None:
        vector_env.reset(seed=0)
        vector_env.step(ZEROS)
        vector_env.step(ZEROS)

    error = same_error(lambda: run(gym_env), lambda: run(env))
    assert isinstance(error, ValueError) and str(error) == f"Error in {fail_on} of env 1"
    # The worker's traceback text is the exception's cause.
    cause = str(error.__cause__)
    assert "Traceback (most recent call last)" in cause and f"in {fail_on}" in cause
    assert f"ValueError: Error in {fail_on} of env 1" in cause
    # The failed workers stopped; the env says so, and close() cleans up.
    with pytest.raises(ClosedEnvironmentError, match=r"workers \[1\] .* have stopped after an error"):
        env.step(ZEROS)
    with deadline(10):
        env.close()
    assert_no_worker_left(env)
    gym_env.close()


def test_error_while_making_the_env_in_the_worker() -> None:
    calls = {"n": 0}

    def make() -> Any:
        if calls["n"] > 0:
            raise RuntimeError("cannot make this env here")
        calls["n"] += 1
        return toy_env_class(nbgym)()

    # The first call (the dummy env in this process) succeeds, the workers' calls fail.
    before = set(multiprocessing.active_children())
    with deadline(10), pytest.raises(RuntimeError, match="cannot make this env here"):
        AsyncVectorEnv([make, make])
    assert set(multiprocessing.active_children()) <= before


def test_unpicklable_exception_and_info() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, fail_on="unpicklable-error"))
    env.reset(seed=0)
    env.step(ZEROS)
    with pytest.raises(RuntimeError, match=r"toy_env_class\.<locals>\.ToyEnv\.step\.<locals>\.LocalError: local error"):
        env.step(ZEROS)
    env.close()
    failures = []  # the worker's pickling error, as gymnasium's raises it (Python 3.13 no longer says "pickle")
    for library, vector_class in ((nbgym, AsyncVectorEnv), (gymnasium, gymnasium.vector.AsyncVectorEnv)):
        env = vector_class(env_fns(library, 1, fail_on="unpicklable-info"))
        env.reset(seed=0)
        env.step(np.zeros(1, dtype=np.int64))
        with pytest.raises(Exception, match="pickle|Can't get local object") as raised:
            env.step(np.zeros(1, dtype=np.int64))
        failures.append((type(raised.value), str(raised.value)))
        env.close()
        assert_no_worker_left(env)
    assert failures[0] == failures[1]


def test_error_queue_protocol_of_custom_workers() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, fail_on="step"), worker=queue_reporting_worker, shared_memory=False)
    env.reset(seed=0)
    env.step(ZEROS)
    with deadline(10), pytest.raises(ValueError, match="Error in step of env [01]"):
        env.step(ZEROS)
    env.close()
    assert_no_worker_left(env)


def test_killed_worker_gives_a_clear_error() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2))
    env.reset(seed=0)
    os.kill(env.processes[1].pid, signal.SIGKILL)
    with (
        deadline(10),
        pytest.raises(EOFError, match=r"Worker-1 \(pid \d+\) of `AsyncVectorEnv` was killed by signal SIGKILL"),
    ):
        env.step(ZEROS)
    with pytest.raises(ClosedEnvironmentError, match=r"workers \[1\]"):
        env.reset()
    with deadline(10):
        env.close()
    assert_no_worker_left(env)


def test_worker_killed_during_a_step() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, step_delay=0.5))
    env.reset(seed=0)
    env.step_async(ZEROS)
    time.sleep(0.1)
    os.kill(env.processes[0].pid, signal.SIGKILL)
    with deadline(10), pytest.raises(EOFError, match="Worker-0 .* killed by signal SIGKILL during `step_wait`"):
        env.step_wait()
    with deadline(10):
        env.close()
    assert_no_worker_left(env)


def test_worker_that_exits() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, fail_on="exit"))
    env.reset(seed=0)
    env.step(ZEROS)
    with deadline(10), pytest.raises(EOFError, match="exited with code 3"):
        env.step(ZEROS)
    with deadline(10):
        env.close()
    assert_no_worker_left(env)


# ---------------------------------------------------------------------------------------------------
# Closing
# ---------------------------------------------------------------------------------------------------


def test_close_with_a_pending_call_and_terminate() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2, step_delay=0.2))
    env.reset(seed=0)
    env.step_async(ZEROS)
    with pytest.warns(UserWarning, match="Calling `close` while waiting for a pending call to `step` to complete"):
        env.close()
    assert env.closed
    assert_no_worker_left(env)

    env = AsyncVectorEnv(env_fns(nbgym, 2, step_delay=5.0))
    env.reset(seed=0)
    env.step_async(ZEROS)
    with deadline(5):
        env.close(terminate=True)
    assert_no_worker_left(env)
    env.close()  # a second close does nothing


def test_garbage_collection_terminates_the_workers() -> None:
    env = AsyncVectorEnv(env_fns(nbgym, 2))
    processes = env.processes
    del env
    gc.collect()
    for process in processes:
        process.join(5)
        assert not process.is_alive()


def test_workers_exit_when_the_main_process_is_killed() -> None:
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path[:0] = [{str(TESTS)!r}, {str(ROOT)!r}]
        import nbgym
        from helpers.vector_test_envs import env_fns
        env = nbgym.vector.AsyncVectorEnv(env_fns(nbgym, 3), context="fork")
        env.reset(seed=0)
        print(*[p.pid for p in env.processes], flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    pids = [int(pid) for pid in result.stdout.split()]
    assert len(pids) == 3

    def running(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
        except FileNotFoundError:
            return False

    end = time.monotonic() + 10
    while any(running(pid) for pid in pids) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids)
