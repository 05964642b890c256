"""Asynchronous stepping (``async_reset``/``send``/``recv``, ``step_async``/``step_wait``) is deterministic: each
sub-environment's results are bit for bit those of stepping it synchronously with the same seeds and actions, and
``recv`` returns the batches in the order of their ids, whatever the threads and the machine's load. Misuse is
refused before anything moves; an interrupted ``recv`` leaves every sub-environment stepped whole or not at all."""

from __future__ import annotations

import copy
import pickle
import re
import threading
import time

import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.row_kernels import replace_step_chunks

import nbgym
from nbgym import error
from nbgym.engine import _batch as engine_batch
from nbgym.engine import _threads as threads
from nbgym.engine import atomic
from nbgym.engine._kernels import ROW_FIRST, ROW_STOP, SERVE_QUIT

CARTPOLE_SHARED = 8 if INTERPRETED else 1024
"""Sub-environments of a CartPole run whose batches (half of them, from 512) may go to the stepping threads."""


@pytest.fixture(autouse=True)
def _batches_handed_over(monkeypatch):
    """Every batch that may go to the stepping threads goes from the first ``send``: CartPole's steps are shorter than
    ``threads.POST_MIN_SECONDS``, so ``send`` would step them itself, and these tests are of the threads."""
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", 0.0)


def _async_run(envs, num_rounds: int, seed: int, policy) -> dict[int, list]:
    """Each sub-environment's sequence of ``(obs, reward, terminated, truncated, infos, action)`` in an async run."""
    trajectories: dict[int, list] = {i: [] for i in range(envs.num_envs)}
    envs.async_reset(seed=seed)
    for _ in range(num_rounds):
        obs, rewards, terminations, truncations, infos = envs.recv()
        ids = infos["env_id"]
        actions = policy(obs)
        for j, i in enumerate(ids):
            row_infos = _row(infos, j)
            trajectories[int(i)].append(
                (obs[j].copy(), rewards[j], terminations[j], truncations[j], row_infos, actions[j])
            )
        envs.send(actions, ids)
    return trajectories


def _row(infos: dict, j: int) -> dict:
    """Sub-environment ``j``'s entries of batched infos (``final_info`` included)."""
    return {
        key: _row(value, j) if isinstance(value, dict) else value[j] for key, value in infos.items() if key != "env_id"
    }


def _given(infos: dict) -> dict:
    """The entries a sub-environment gives (its mask ``_key`` true): a batch of other sub-environments holds other
    keys, absent or masked out for this one, as gymnasium's ``SyncVectorEnv`` merges them."""
    return {
        key: _given(value) if isinstance(value, dict) else value
        for key, value in infos.items()
        if not key.startswith("_") and infos.get(f"_{key}", True)
    }


def _same_info(got, want) -> bool:
    if isinstance(want, dict):
        return got.keys() == want.keys() and all(_same_info(got[key], want[key]) for key in want)
    return np.array_equal(got, want)


def _check_against_sync(sync_envs, trajectories: dict[int, list], seed: int) -> int:
    """Replays each sub-environment's actions on a sync vector env and compares every result exactly."""
    length = min(len(steps) for steps in trajectories.values())
    obs, infos = sync_envs.reset(seed=seed)
    rewards = np.zeros(sync_envs.num_envs)
    terminations = truncations = np.zeros(sync_envs.num_envs, dtype=bool)
    for k in range(length):
        for i, steps in trajectories.items():
            got_obs, got_reward, got_terminated, got_truncated, got_infos, _ = steps[k]
            assert got_obs.dtype == obs.dtype and np.array_equal(got_obs, obs[i]), (i, k)
            assert (got_reward, got_terminated, got_truncated) == (rewards[i], terminations[i], truncations[i]), (i, k)
            want_infos = _given(_row(infos, i))
            assert _same_info(_given(got_infos), want_infos), (i, k, got_infos, want_infos)
        actions = np.array([trajectories[i][k][5] for i in range(sync_envs.num_envs)])
        obs, rewards, terminations, truncations, infos = sync_envs.step(actions)
    return length


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("num_envs", [8, CARTPOLE_SHARED], ids=["stepped-in-send", "stepped-by-threads"])
def test_cartpole_async_equals_sync(num_envs, mode, num_threads):
    kwargs = dict(autoreset_mode=mode, max_episode_steps=20)
    envs = nbgym.make_vec("CartPole-v1", num_envs, batch_size=num_envs // 2, num_threads=num_threads, **kwargs)
    rng = np.random.default_rng(1)
    trajectories = _async_run(envs, 60, 7, lambda obs: rng.integers(0, 2, len(obs)))
    assert _check_against_sync(nbgym.make_vec("CartPole-v1", num_envs, **kwargs), trajectories, 7) == 30
    envs.close()


@pytest.mark.jit_only  # batches worth a thread: 512 CartPoles, seconds a step as Python
def test_send_steps_short_batches_itself_until_their_steps_take_long_enough_to_hand_over(monkeypatch):
    """``send`` steps the batches a thread could take itself while their steps are short (no worker is woken), times
    them, and hands them over once the median of the last ``TIMED_SENDS`` reaches ``POST_MIN_SECONDS``: the results
    stay those of sync stepping throughout."""
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", 1.0)
    half = CARTPOLE_SHARED // 2
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, batch_size=half, num_threads=2)
    rng = np.random.default_rng(2)
    trajectories = _async_run(envs, 2 * threads.TIMED_SENDS, 5, lambda obs: rng.integers(0, 2, len(obs)))
    server = envs._batch.async_server(half)
    assert (server.sends.posts, server.seq, server.sends.timed) == (False, 0, 2 * threads.TIMED_SENDS)
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", 1e-9)  # every step from now on is long enough
    steps_here = len(trajectories[0])
    for _ in range(6):
        obs, rewards, terminations, truncations, infos = envs.recv()
        actions = rng.integers(0, 2, len(obs))
        for j, i in enumerate(infos["env_id"]):
            row = (obs[j].copy(), rewards[j], terminations[j], truncations[j], _row(infos, j), actions[j])
            trajectories[int(i)].append(row)
        envs.send(actions, infos["env_id"])
    # Timed here until most of the last TIMED_SENDS steps were long enough, the rest handed over.
    assert server.sends.posts and server.seq == 6 - (threads.TIMED_SENDS // 2 + 1)
    for _ in range(envs._batches.count):
        envs.recv()
    assert len(trajectories[0]) == steps_here + 3
    assert _check_against_sync(nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED), trajectories, 5) == steps_here + 3
    envs.close()


def test_send_timing_hands_over_once_the_median_of_its_last_steps_is_long_enough(monkeypatch):
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", 1.0)
    timing = threads.SendTiming()
    for _ in range(threads.TIMED_SENDS - 1):
        timing.record(9.0)
    assert not timing.posts  # not before TIMED_SENDS steps were timed
    timing = threads.SendTiming()
    for seconds in [9.0] * (threads.TIMED_SENDS // 2) + [0.1] * threads.TIMED_SENDS:
        timing.record(seconds)  # a few slow steps (the first ones, say) do not make the median
    assert not timing.posts
    for _ in range(threads.TIMED_SENDS // 2):
        timing.record(2.0)
    assert not timing.posts
    timing.record(1.0)  # the median of the last ones reaches it
    assert timing.posts
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", 0.0)
    assert threads.SendTiming().posts  # hands every batch over from the first send


def test_recv_returns_the_batches_in_order_of_their_ids():
    envs = nbgym.make_vec("CartPole-v1", 6, batch_size=2)
    envs.async_reset(seed=0)
    seen = []
    for _ in range(7):
        *_, infos = envs.recv()
        assert infos["env_id"].dtype == np.int32
        seen.append(infos["env_id"].tolist())
        envs.send(np.zeros(2, dtype=np.int64), infos["env_id"][::-1])  # ids in any order
    assert seen == [[0, 1], [2, 3], [4, 5], [0, 1], [2, 3], [4, 5], [0, 1]]


def test_the_ids_recv_returns_are_one_read_only_array_per_batch_and_send_reads_any_other_by_value():
    """``send`` knows a recv's ``infos["env_id"]`` by identity (the same read-only array each time its batch comes
    back, which cannot be made writable); a view of it in another order, or ids of another dtype, are read value by
    value, and actions in another layout are read as before: the same results every way."""
    num_envs = 8
    envs = nbgym.make_vec("CartPole-v1", num_envs, batch_size=4)
    sync = nbgym.make_vec("CartPole-v1", num_envs)
    envs.async_reset(seed=6)
    sync.reset(seed=6)
    rng = np.random.default_rng(6)
    first_ids = []
    for k in range(12):
        actions = rng.integers(0, 2, num_envs)
        received = [envs.recv() for _ in range(2)]
        for (*_, infos), half in zip(received, (slice(0, 4), slice(4, 8))):
            ids = infos["env_id"]
            assert not ids.flags.writeable
            with pytest.raises(ValueError):
                ids.flags.writeable = True
            if k < 2:
                first_ids.append(ids)
            else:
                assert ids is first_ids[half.start // 4]
            way = k % 3
            if way == 0:  # the recv's array and the kernels' dtype: the fast paths
                envs.send(actions[half], ids)
            elif way == 1:  # reversed: views of the recv's array and of the actions
                envs.send(actions[half][::-1], ids[::-1])
            else:  # a copy of the ids in int64, actions of a strided view
                envs.send(np.repeat(actions[half], 2)[::2], ids.astype(np.int64))
        want = sync.step(actions)
        got = [envs.recv() for _ in range(2)]
        for i in range(4):  # obs, rewards, terminations, truncations
            np.testing.assert_array_equal(np.concatenate([got[0][i], got[1][i]]), want[i])
        for (*_, infos), half in zip(got, (slice(0, 4), slice(4, 8))):
            envs.send(actions[half], infos["env_id"])  # back in flight: the next round receives them first
        sync.step(actions)


def test_send_in_any_id_order_moves_each_action_to_its_id():
    envs = nbgym.make_vec("Pendulum-v1", 4, batch_size=4)
    sync = nbgym.make_vec("Pendulum-v1", 4)
    envs.async_reset(seed=2)
    sync.reset(seed=2)
    envs.recv()
    actions = np.array([[-2.0], [-1.0], [1.0], [2.0]], dtype=np.float32)
    envs.send(actions[[3, 1, 0, 2]], np.array([3, 1, 0, 2]))
    obs, rewards, *_ = envs.recv()
    want_obs, want_rewards, *_ = sync.step(actions)
    np.testing.assert_array_equal(obs, want_obs)
    np.testing.assert_array_equal(rewards, want_rewards)


@pytest.mark.skipif(INTERPRETED, reason="the MuJoCo and Box2D kernels take minutes as Python")
@pytest.mark.parametrize(
    "post_min_seconds", [0.0, 1e-9, 1.0], ids=["handed-over", "stepped-in-send-then-handed-over", "stepped-in-send"]
)
@pytest.mark.parametrize("env_id", ["HalfCheetah-v5", "LunarLander-v3"])
def test_other_families_async_equal_sync(env_id, post_min_seconds, monkeypatch):
    """Whichever thread steps a batch (a MuJoCo one in ``send`` takes the caller's ``MjData`` slot), and when ``send``
    starts to hand them over."""
    monkeypatch.setattr(threads, "POST_MIN_SECONDS", post_min_seconds)
    num_envs = 32 if env_id == "LunarLander-v3" else 4  # LunarLander's batches worth a thread: a lane group of 16
    envs = nbgym.make_vec(env_id, num_envs, batch_size=num_envs // 2, num_threads=2)
    rng = np.random.default_rng(3)
    space = envs.single_action_space
    trajectories = _async_run(envs, 24, 11, lambda obs: _sample(rng, space, len(obs)))
    assert _check_against_sync(nbgym.make_vec(env_id, num_envs), trajectories, 11) == 12
    assert envs._batch.async_server(num_envs // 2).sends.posts == (post_min_seconds < 1.0)


def _sample(rng, space, count):
    if isinstance(space, nbgym.spaces.Discrete):
        return rng.integers(0, space.n, count)
    return rng.uniform(space.low, space.high, (count, *space.shape)).astype(space.dtype)


def test_step_async_and_step_wait_equal_step():
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, num_threads=2)
    sync = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED)
    envs.reset(seed=4)
    sync.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(20):
        actions = rng.integers(0, 2, CARTPOLE_SHARED)
        envs.step_async(actions)
        got = envs.step_wait()
        want = sync.step(actions)
        for a, b in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(error.NoAsyncCallError):
        envs.step_wait()
    envs.step_async(np.zeros(CARTPOLE_SHARED, dtype=np.int64))
    with pytest.raises(error.AlreadyPendingCallError):
        envs.step_async(np.zeros(CARTPOLE_SHARED, dtype=np.int64))
    with pytest.raises(error.AlreadyPendingCallError):
        envs.step(np.zeros(CARTPOLE_SHARED, dtype=np.int64))
    envs.step_wait()


def test_step_with_env_id_is_send_then_recv():
    envs = nbgym.make_vec("CartPole-v1", 4, batch_size=2)
    envs.async_reset(seed=0)
    *_, infos = envs.recv()
    obs, rewards, terminations, truncations, infos = envs.step(np.ones(2, dtype=np.int64), infos["env_id"])
    assert infos["env_id"].tolist() == [2, 3] and rewards.tolist() == [0.0, 0.0]  # batch 1's reset comes next


def test_misuse_is_refused_and_moves_nothing():
    envs = nbgym.make_vec("CartPole-v1", 6, batch_size=2)
    with pytest.raises(error.ResetNeeded, match="async_reset"):
        envs.recv()
    with pytest.raises(error.ResetNeeded, match="async_reset"):
        envs.send(np.zeros(2, dtype=np.int64), np.array([0, 1]))
    envs.async_reset(seed=0)
    with pytest.raises(ValueError, match="recv"):  # batch 0 was not received yet
        envs.send(np.zeros(2, dtype=np.int64), np.array([0, 1]))
    *_, infos = envs.recv()
    before = envs._batch.state.copy()
    for ids, match in [
        (np.array([0, 0]), "each once"),
        (np.array([0, 1, 2]), "2 int ids"),
        (np.array([1, 2]), "one batch"),
        (np.array([2, 3]), "has not returned"),
        (np.array([-2, -1]), "one batch"),
        (np.array([6, 7]), "one batch"),
        (np.array([0.0, 1.0]), "int ids"),
    ]:
        with pytest.raises(ValueError, match=match):
            envs.send(np.zeros(2, dtype=np.int64), ids)
    with pytest.raises(error.InvalidAction, match="shape"):
        envs.send(np.zeros(3, dtype=np.int64), infos["env_id"])
    with pytest.raises(error.InvalidAction):
        envs.send(np.array([0, 5]), infos["env_id"])  # outside Discrete(2)
    with pytest.raises(error.InvalidActionTypeError, match="numpy array of 2 actions, got a list"):
        envs.send([0, 1], infos["env_id"])  # step() reads a list's numbers one by one; a run shares one dtype
    np.testing.assert_array_equal(envs._batch.state, before)
    envs.send(np.zeros(2, dtype=np.int64), infos["env_id"])
    envs.recv()
    with pytest.raises(error.InvalidAction, match="dtype of its first send"):
        envs.send(np.zeros(2, dtype=np.int32), np.array([2, 3]))
    envs.send(np.zeros(2, dtype=np.int64), np.array([2, 3]))
    *_, infos = envs.recv()
    envs.send(np.zeros(2, dtype=np.int64))  # env_id=None: the last recv's
    with pytest.raises(error.AlreadyPendingCallError):
        envs.send(np.zeros(2, dtype=np.int64))
    obs, *_, infos = envs.recv()
    assert infos["env_id"].tolist() == [0, 1]
    envs.recv()
    envs.recv()
    with pytest.raises(error.NoAsyncCallError, match="send"):
        envs.recv()  # batch 0 comes next, and was received and not sent back


def test_whole_batch_calls_refuse_or_wait_while_batches_are_in_flight():
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, batch_size=CARTPOLE_SHARED // 2, num_threads=2)
    half = CARTPOLE_SHARED // 2
    envs.async_reset(seed=5)
    *_, infos = envs.recv()
    envs.send(np.ones(half, dtype=np.int64), infos["env_id"])
    for call in (lambda: envs.step(np.ones(CARTPOLE_SHARED, dtype=np.int64)), lambda: envs.reset(seed=1)):
        with pytest.raises(error.AlreadyPendingCallError, match="in flight"):
            call()
    states = envs.get_attr("state")  # waits for the batch in flight: it has stepped
    assert not envs._batches.in_flight()
    sync = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED)
    reset_obs, _ = sync.reset(seed=5)
    sync.step(np.ones(CARTPOLE_SHARED, dtype=np.int64))
    np.testing.assert_array_equal(np.array(states[:half]), sync._batch.state[:half])
    clone = pickle.loads(pickle.dumps(envs))
    with pytest.raises(error.ResetNeeded, match="async_reset"):
        clone.recv()
    copy.deepcopy(envs)
    obs, *_ = envs.recv()
    np.testing.assert_array_equal(obs, reset_obs[half:])  # batch 1's reset observations
    obs, rewards, *_ = envs.recv()  # batch 0's step, received after the waits
    np.testing.assert_array_equal(obs, sync._batch.obs[:half])
    envs.close()


@pytest.mark.parametrize("num_envs", [8, CARTPOLE_SHARED], ids=["stepped-in-send", "stepped-by-threads"])
def test_disabled_autoreset_refuses_an_ended_sub_environment_and_moves_nothing(num_envs):
    envs = nbgym.make_vec("CartPole-v1", num_envs, batch_size=num_envs // 2, autoreset_mode="Disabled")
    envs.async_reset(seed=0)
    half = num_envs // 2
    ended = False
    for _ in range(200):
        obs, rewards, terminations, truncations, infos = envs.recv()
        ids = infos["env_id"]
        if terminations.any():
            before = envs._batch.state[ids].copy()  # the other batch may be in flight
            with pytest.raises(AssertionError, match="DISABLED"):
                envs.send(np.ones(half, dtype=np.int64), ids)
            np.testing.assert_array_equal(envs._batch.state[ids], before)
            ended = True
            break
        envs.send(np.ones(half, dtype=np.int64), ids)
    assert ended


class _InterruptedWait:
    """The lock ``recv`` sleeps on, interrupted once (a lock's acquire hears Ctrl-C) while a worker steps."""

    def __init__(self, real, worker_inside: threading.Event, interrupted: list) -> None:
        self.real, self.worker_inside, self.interrupted = real, worker_inside, interrupted

    def acquire(self, *args):
        if not self.interrupted and threading.current_thread() is threading.main_thread():
            self.interrupted.append(True)
            self.worker_inside.wait(5)
            raise KeyboardInterrupt("injected")
        return self.real.acquire(*args)

    def release(self):
        return self.real.release()

    def locked(self):
        return self.real.locked()


@pytest.mark.skipif(INTERPRETED, reason="a batch of 512 CartPoles takes its worker seconds as Python")
def test_an_interrupted_recv_leaves_every_sub_environment_stepped_whole_or_not_at_all(monkeypatch):
    """recv waits for batch 0, which a worker holds (its call stays until the serving is stopped, whatever the
    caller's speed), and is interrupted: it raises only once the worker has left, batch 0 not stepped (the worker had
    claimed none of it: as before its send) and batch 1, posted to the server's stopped counters, stepped whole by its
    own recv."""
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, batch_size=CARTPOLE_SHARED // 2, num_threads=1)
    half = CARTPOLE_SHARED // 2
    rng = np.random.default_rng(9)
    actions = [rng.integers(0, 2, half) for _ in range(8)]
    inside, running, interrupted = threading.Event(), [0], []
    real_kernel, real_job = engine_batch.step_chunks, threads.Job

    def slow_kernel(*args):
        progress, seq = args[-6], args[-3]  # (..., chunk_size, progress, control, posted, seq, spin_rounds, one_chunk)
        if threading.current_thread() is threading.main_thread():
            if progress[seq % (len(progress) - 1), ROW_FIRST] != 0 or interrupted:  # batch 1, or the interrupt's end
                return real_kernel(*args)
            return False  # recv's own call leaves every chunk to the worker, so that recv waits and is interrupted
        running[0] += 1
        inside.set()
        control = args[-5]
        deadline = time.monotonic() + 10
        while control[SERVE_QUIT] == 0 and time.monotonic() < deadline:
            time.sleep(0.001)  # in its call, having claimed nothing, until the interrupted recv stops the serving
        try:
            return real_kernel(*args)
        finally:
            running[0] -= 1

    class Job(real_job):
        __slots__ = ()

        def __init__(self, kernel, args) -> None:
            super().__init__(kernel, args)
            self.done = _InterruptedWait(self.done, inside, interrupted)

    envs.async_reset(seed=3)
    *_, infos = envs.recv()
    envs._batch.async_server(half)  # made, its kernel compiled, before the kernel is replaced
    monkeypatch.setattr(threads, "Job", Job)
    replace_step_chunks(monkeypatch, slow_kernel)
    envs.send(actions[0], infos["env_id"])
    with pytest.raises(KeyboardInterrupt):
        while True:  # batch 1's reset, then batch 0's step, interrupted
            *_, infos = envs.recv()
            envs.send(actions[1], infos["env_id"])
    assert running[0] == 0, "recv() raised while a worker was stepping its batch"
    monkeypatch.undo()
    assert envs._batches.states == ["received", "in flight"]  # batch 0 as before its send
    with pytest.raises(error.NoAsyncCallError):
        envs.recv()
    envs.send(actions[0], np.arange(half))
    received = [envs.recv()[:2] for _ in range(2)]  # batch 0 (recv's next), then batch 1
    sync = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED)
    sync.reset(seed=3)
    want = sync.step(np.concatenate([actions[0], actions[1]]))
    for k in range(2):  # observations, rewards
        np.testing.assert_array_equal(np.concatenate([received[0][k], received[1][k]]), want[k])


@pytest.mark.parametrize("receive", ["recv", "step_wait"])
def test_the_caller_steps_what_no_worker_has_claimed_when_it_receives(monkeypatch, receive):
    """recv and step_wait step the chunks of their batch that no worker has claimed yet (here: no worker ever takes
    one), beside the workers, rather than sleep while a core may be idle: the results are the sync step's."""
    monkeypatch.setattr(threads._Workers, "post", lambda workers, job, count: None)
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, batch_size=CARTPOLE_SHARED // 2, num_threads=2)
    sync = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED)
    actions = np.random.default_rng(4).integers(0, 2, CARTPOLE_SHARED)
    received: list = []

    def stepped() -> None:
        if receive == "recv":
            envs.async_reset(seed=5)
            for _ in range(2):
                *_, infos = envs.recv()
                envs.send(actions[infos["env_id"]], infos["env_id"])
            received.extend(np.concatenate(arrays) for arrays in zip(envs.recv()[:2], envs.recv()[:2]))
        else:
            envs.reset(seed=5)
            envs.step_async(actions)
            received.extend(envs.step_wait()[:2])

    receiver = threading.Thread(target=stepped, daemon=True)  # waiting for a worker, it would never end
    receiver.start()
    receiver.join(30)
    assert received, f"{receive}() waited for chunks that no worker claimed"
    sync.reset(seed=5)
    want = sync.step(actions)
    np.testing.assert_array_equal(received[0], want[0])
    np.testing.assert_array_equal(received[1], want[1])


def _two_batches_in_flight_the_first_held(monkeypatch, seed: int):
    """A CartPole run whose two batches were sent, with no worker: every chunk of batch 0 claimed as by a worker that
    holds them (``_step_held_batch`` steps them), none of batch 1's. Returns the env, the actions, and the posts."""
    monkeypatch.setattr(threads._Workers, "post", lambda workers, job, count: None)  # a stand-in is the only worker
    half = CARTPOLE_SHARED // 2
    envs = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED, batch_size=half, num_threads=2)
    actions = np.random.default_rng(seed).integers(0, 2, CARTPOLE_SHARED)
    envs.async_reset(seed=seed)
    for _ in range(2):
        *_, infos = envs.recv()
        envs.send(actions[infos["env_id"]], infos["env_id"])
    first, second = envs._batches.posts
    num_chunks = -(-half // envs._batch.async_server(half).chunk_size)
    assert num_chunks >= 2 and second.seq > first.seq
    atomic.fetch_add(first.progress, 0, num_chunks)
    return envs, actions, first, second


def _replace_posts_kernel(envs, kernel) -> None:
    """Makes the batches in flight step with ``kernel`` (a post keeps the kernel of its ``prepare``)."""
    for post in envs._batches.posts:
        if post is not None:
            post.kernel = kernel


def _step_held_batch(step_chunks, post) -> None:
    """Steps the held batch of ``post`` on counters of its own (its chunks are claimed), then counts it complete."""
    counters = np.zeros((2, post.progress.size), dtype=np.int64)
    counters[0, ROW_FIRST], counters[0, ROW_STOP] = post.progress[ROW_FIRST], post.progress[ROW_STOP]
    step_chunks(*post.args[:-3], counters, *post.args[-2:], 0, 0, False)
    atomic.fetch_add(post.progress, 1, post.num_envs)


def _assert_sync_results(received: list, actions: np.ndarray, seed: int) -> None:
    """The two batches' observations and rewards are one sync step's from the same reset."""
    sync = nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED)
    sync.reset(seed=seed)
    want = sync.step(actions)
    for k in range(2):
        np.testing.assert_array_equal(np.concatenate([received[0][k], received[1][k]]), want[k])


@pytest.mark.jit_only  # batches worth a thread: 512 CartPoles, seconds a step as Python
def test_a_caller_that_waits_for_a_workers_last_chunk_steps_the_batches_sent_after_its_own(monkeypatch):
    """recv waits for a batch whose every chunk a worker has claimed (here a stand-in that holds them for 0.3 s, then
    steps them): meanwhile it steps the chunks of the batch sent after it, which no worker has claimed, instead of
    waiting idle; the results are the sync step's."""
    envs, actions, first, second = _two_batches_in_flight_the_first_held(monkeypatch, 8)
    step_chunks = envs._batch.row_kernels(actions.dtype)[1]
    stepped_by_caller: list[int] = []

    def stand_in() -> None:
        time.sleep(0.3)
        stepped_by_caller.append(int(atomic.load(second.progress, 1)))  # what the waiting caller stepped meanwhile
        _step_held_batch(step_chunks, first)
        envs._batch.async_server(first.num_envs).job.wake_caller()

    worker = threading.Thread(target=stand_in, daemon=True)
    worker.start()
    received = [envs.recv()[:2], envs.recv()[:2]]
    worker.join()
    assert stepped_by_caller == [second.num_envs], "recv() waited idle beside chunks that no worker had claimed"
    _assert_sync_results(received, actions, 8)


@pytest.mark.jit_only  # batches worth a thread: 512 CartPoles, seconds a step as Python
def test_an_interrupt_while_the_caller_steps_a_later_batch_leaves_every_batch_stepped_whole(monkeypatch):
    """An interrupt that lands right after recv stepped a chunk of a later batch (waiting for a stand-in worker that
    holds its own batch's chunks for 0.3 s): recv raises once the worker's call has ended, its batch stays in flight,
    and the next recv calls return both batches stepped exactly once: the results are the sync step's."""
    envs, actions, first, _ = _two_batches_in_flight_the_first_held(monkeypatch, 11)
    step_chunks = envs._batch.row_kernels(actions.dtype)[1]
    job = envs._batch.async_server(first.num_envs).job

    def hold_then_step() -> bool:  # the stand-in's call, as a worker's: the interrupted recv waits for it to end
        time.sleep(0.3)
        _step_held_batch(step_chunks, first)
        return False

    def stand_in() -> None:
        job.run_in_worker()
        job.wake_caller()  # a recv that never stepped a later chunk sleeps until then

    job.kernel, job.args = hold_then_step, ()
    worker = threading.Thread(target=stand_in, daemon=True)

    def interrupted_after_a_later_chunk(*args):
        stepped = step_chunks(*args)
        if args[-1] and stepped:  # one_chunk: a chunk of batch 1 stepped while recv waits for batch 0
            _replace_posts_kernel(envs, step_chunks)
            raise KeyboardInterrupt
        return stepped

    _replace_posts_kernel(envs, interrupted_after_a_later_chunk)
    worker.start()
    with pytest.raises(KeyboardInterrupt):
        envs.recv()
    assert not worker.is_alive(), "recv() raised while the worker was still stepping its batch"
    assert envs._batches.states == ["in flight", "in flight"]
    _assert_sync_results([envs.recv()[:2], envs.recv()[:2]], actions, 11)


def test_the_row_views_that_recv_reads_follow_replaced_arrays():
    envs = nbgym.make_vec("CartPole-v1", 4, batch_size=2)
    batch = envs._batch
    rows = batch.rows(2, 4)
    assert batch.rows(2, 4) is rows and np.shares_memory(rows.obs, batch.obs)
    batch.state = batch.state.copy()
    assert np.shares_memory(batch.rows(2, 4).state, batch.state)
    copied = copy.deepcopy(batch)
    assert np.shares_memory(copied.rows(2, 4).obs, copied.obs) and not np.shares_memory(
        copied.rows(2, 4).obs, batch.obs
    )


def test_batch_size_must_divide_num_envs():
    for bad in (0, 5, 7, 2.0, True):
        with pytest.raises(ValueError, match="batch_size"):
            nbgym.make_vec("CartPole-v1", 6, batch_size=bad)
    assert nbgym.make_vec("CartPole-v1", 6).batch_size == 6


@pytest.mark.skipif(INTERPRETED, reason="a benchmark: compiled")
def test_bench_learner_loop_script(capsys):
    from helpers.paths import load_benchmark

    script = load_benchmark("bench_learner_loop")
    script.main(["--env", "CartPole-v1", "--num-envs", "8", "--seconds", "0.02", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "ideal on" in out
    # each round's ratio, their median and range: rounds minutes apart on a drifting machine are not paired
    assert re.search(r"nbgym async / ideal: \d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)\n", out)
    # one contender per configuration: async with one thread steps as with two, and 8 CartPoles are one chunk
    assert "nbgym async, 1 thread" not in out
    assert "nbgym sync, 1 thread " in out and "1 thread's (the step is one chunk)" in out


@pytest.mark.skipif(INTERPRETED, reason="a benchmark: compiled")
def test_bench_core_contention_script(capsys):
    from helpers.paths import load_benchmark

    script = load_benchmark("bench_core_contention")
    assert script.main(["--env", "CartPole-v1", "--num-envs", "8", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # each half alone and beside the other, which ran in a process of its own
    assert [line.split()[0] for line in lines[1:]] == ["policy", "step"]
    assert all(
        re.search(r"beside the other +\d+\.\d us: \d+\.\d\dx \(\d+\.\d\d-\d+\.\d\d\)$", line) for line in lines[1:]
    )


@pytest.mark.jit_only  # batches worth a thread: 512 CartPoles, seconds a step as Python
def test_the_steps_in_flight_never_share_their_chunk_counters():
    """A serving worker that comes late for a batch's step must not claim the chunks of another step that reuses its
    counters (its caller would wait for a completion that never comes: a hang seen with HalfCheetah x64): each step in
    flight has a row of counters of its own, zeroed for it only once the row's earlier step was complete."""
    envs = nbgym.make_vec("CartPole-v1", 2 * CARTPOLE_SHARED, batch_size=CARTPOLE_SHARED // 2, num_threads=2)
    half = CARTPOLE_SHARED // 2
    envs.async_reset(seed=0)
    server = envs._batch.async_server(half)
    assert server.num_rows == 2 * envs._batches.count
    for _ in range(12):
        *_, infos = envs.recv()
        envs.send(np.ones(half, dtype=np.int64), infos["env_id"])
        in_flight = [post for post in envs._batches.posts if post is not None]
        assert len(in_flight) >= 1
        for k, post in enumerate(in_flight):
            assert post.progress[ROW_STOP] - post.progress[ROW_FIRST] == half
            assert not any(np.shares_memory(post.progress, other.progress) for other in in_flight[k + 1 :])
    for _ in range(envs._batches.count):
        envs.recv()


@pytest.mark.parametrize("closed_by", ["exit", "gc"])
def test_the_interpreter_exits_with_batches_in_flight(closed_by, tmp_path):
    """Batches sent and never received when the program ends: the workers step them before the exit freezes daemon
    threads, so the env's ``close`` from ``__del__`` during the exit has nothing to wait for (it waited forever for
    a worker frozen before it had taken the job)."""
    import os
    import subprocess
    import sys

    from helpers.paths import ROOT

    code = (
        "import numpy as np, nbgym\n"
        "from nbgym.engine import _threads\n"
        "_threads.POST_MIN_SECONDS = 0.0\n"
        "envs = nbgym.make_vec('CartPole-v1', num_envs=4096, batch_size=1024, num_threads=2)\n"
        "envs.async_reset(seed=0)\n"
        "for _ in range(4):\n"
        "    obs, *_, infos = envs.recv()\n"
        "    envs.send(np.zeros(1024, dtype=np.int64), infos['env_id'])\n"
        + ("del envs\n" if closed_by == "gc" else "")
        + "print('sent', flush=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert (result.returncode, result.stdout) == (0, "sent\n"), result.stderr


def test_an_env_collected_after_the_exit_cleared_the_modules_closes_quietly(tmp_path):
    """An env kept alive until the interpreter's exit has cleared nbgym's modules (here by a compiled function of the
    program's that was given its state) is closed by ``__del__`` then without a traceback: the engine's module no
    longer has ``sys`` to ask whether the exit is under way."""
    import os
    import subprocess
    import sys

    from helpers.paths import ROOT

    code = (
        "import nbgym\n"
        "from nbgym.engine import njit\n"
        "envs = nbgym.make_vec('CartPole-v1', num_envs=8, num_threads=2)\n"
        "envs.reset(seed=0)\n"
        "@njit\n"
        "def reads(state):\n"
        "    return 0\n"
        "reads(envs._batch.state)\n"
        "print('made', flush=True)\n"
    )
    program = tmp_path / "program.py"  # (numba compiles a function from its file)
    program.write_text(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, str(program)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert (result.returncode, result.stdout) == (0, "made\n"), result.stderr
    assert "Exception ignored" not in result.stderr, result.stderr


@pytest.mark.jit_only  # batches worth a thread: 512 CartPoles, seconds a step as Python
def test_a_failure_in_a_chunk_of_a_later_batch_that_recv_steps_faults_the_env_once_every_worker_ended(monkeypatch):
    """The physics fails in a chunk of batch 1 that recv steps while it waits for a stand-in worker's chunks of batch 0:
    that recv raises the failure, once the worker's call has ended; the env then refuses to step until an
    ``async_reset``, after which a run is the sync run's."""
    envs, actions, first, _ = _two_batches_in_flight_the_first_held(monkeypatch, 13)
    step_chunks = envs._batch.row_kernels(actions.dtype)[1]
    job = envs._batch.async_server(first.num_envs).job

    def hold_then_step() -> bool:
        time.sleep(0.3)
        _step_held_batch(step_chunks, first)
        return False

    def stand_in() -> None:
        job.run_in_worker()
        job.wake_caller()

    job.kernel, job.args = hold_then_step, ()
    worker = threading.Thread(target=stand_in, daemon=True)

    def failing_in_a_later_chunk(*args):
        stepped = step_chunks(*args)
        if args[-1] and stepped:  # one_chunk: a chunk of batch 1, stepped while recv waits for batch 0
            raise ZeroDivisionError("the physics failed")
        return stepped

    _replace_posts_kernel(envs, failing_in_a_later_chunk)
    worker.start()
    with pytest.raises(ZeroDivisionError, match="the physics failed"):
        envs.recv()
    assert not worker.is_alive(), "recv() raised while the worker was still stepping its batch"
    for call in (envs.recv, lambda: envs.send(actions[: first.num_envs], np.arange(first.num_envs))):
        with pytest.raises(error.ResetNeeded):
            call()
    rng = np.random.default_rng(4)
    trajectories = _async_run(envs, 8, 13, lambda obs: rng.integers(0, 2, len(obs)))
    assert _check_against_sync(nbgym.make_vec("CartPole-v1", CARTPOLE_SHARED), trajectories, 13) == 4
    envs.close()
