"""Compiled rollouts (``nbgym.engine.rollout``) equal stepping the same vector env from Python with the same policy,
bit for bit, at 1 and 2 threads, in both autoreset modes that reset by themselves."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys
from types import ModuleType

import helpers.custom_envs  # noqa: F401  (registers the test envs)
import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.engine import Trajectory, rollout
from helpers.paths import ROOT, TESTS


def _bench_rollout() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_rollout", ROOT / "benchmarks" / "bench_rollout.py")
    module = importlib.util.module_from_spec(spec)
    # Importable by name, as numba's cache refers to the policies' module by it.
    sys.modules.setdefault("bench_rollout", module)
    spec.loader.exec_module(module)
    return sys.modules["bench_rollout"]


_bench = _bench_rollout()
linear_discrete, linear_box = _bench.linear_discrete, _bench.linear_box

CASES = {
    "CartPole-v1": (linear_discrete, lambda weights: weights, (4, 2)),
    "test/Drift-v0": (linear_box, lambda weights: (weights, 1.0), (3, 2)),
}
"""Each env's policy (the benchmark's), how its parameters wrap the weights, and the weights' shape."""


def python_rollout(envs, policy, weights, num_steps, max_episodes):
    """The rollout stepped from Python: trajectory and episode statistics."""
    num_envs = envs.num_envs
    obs = envs._batch.obs.copy()
    returns = np.full((num_envs, max_episodes), np.nan)
    lengths = np.zeros((num_envs, max_episodes), dtype=np.int64)
    episodes = np.zeros(num_envs, dtype=np.int64)
    running_return, running_length = np.zeros(num_envs), np.zeros(num_envs, dtype=np.int64)
    was_done = np.zeros(num_envs, dtype=bool)
    steps = []
    next_step = envs.autoreset_mode.value == "NextStep"
    for _ in range(num_steps):
        actions = policy(obs, weights)
        new_obs, rewards, terminated, truncated, _ = envs.step(actions)
        steps.append((obs, actions, rewards, terminated, truncated))
        for i in range(num_envs):
            if next_step and was_done[i]:
                continue
            running_return[i] += rewards[i]
            running_length[i] += 1
            if terminated[i] or truncated[i]:
                if episodes[i] < max_episodes:
                    returns[i, episodes[i]], lengths[i, episodes[i]] = running_return[i], running_length[i]
                episodes[i] += 1
                running_return[i], running_length[i] = 0.0, 0
        was_done = terminated | truncated
        obs = new_obs
    return steps, returns, lengths, episodes


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
@pytest.mark.parametrize("env_id", CASES)
def test_rollout_equals_python_stepping(env_id, mode, num_threads):
    if num_threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("numba has one thread here")
    policy, wrap, shape = CASES[env_id]
    weights = wrap(np.random.default_rng(1).normal(size=shape))
    # Two threads share batches of 512 sub-environments or more (smaller ones step in the calling thread).
    num_envs, num_steps, max_episodes = (37 if num_threads == 1 else 600), 120, 4
    compiled = nbgym.make_vec(env_id, num_envs, autoreset_mode=mode, num_threads=num_threads, max_episode_steps=45)
    stepped = nbgym.make_vec(env_id, num_envs, autoreset_mode=mode, max_episode_steps=45)
    compiled.reset(seed=11)
    stepped.reset(seed=11)
    trajectory = Trajectory.new(compiled, num_steps, np.int64 if policy is linear_discrete else np.float32)
    result = rollout(compiled, policy, weights, num_steps, max_episodes=max_episodes, trajectory=trajectory)
    steps, returns, lengths, episodes = python_rollout(stepped, policy, weights, num_steps, max_episodes)
    for t, (obs, actions, rewards, terminated, truncated) in enumerate(steps):
        np.testing.assert_array_equal(trajectory.observations[t], obs, err_msg=f"step {t}")
        np.testing.assert_array_equal(trajectory.actions[t], actions, err_msg=f"step {t}")
        np.testing.assert_array_equal(trajectory.rewards[t], rewards, err_msg=f"step {t}")
        np.testing.assert_array_equal(trajectory.terminations[t], terminated, err_msg=f"step {t}")
        np.testing.assert_array_equal(trajectory.truncations[t], truncated, err_msg=f"step {t}")
    np.testing.assert_array_equal(result.episode_returns, returns)
    np.testing.assert_array_equal(result.episode_lengths, lengths)
    np.testing.assert_array_equal(result.episodes, episodes)
    assert episodes.sum() > num_envs  # episodes ended, several per sub-environment
    assert compiled._batch.num_threads == num_threads
    for name in ("state", "pcg", "buf", "obs", "flags", "elapsed"):
        np.testing.assert_array_equal(getattr(compiled._batch, name), getattr(stepped._batch, name), err_msg=name)
    # The env goes on from Python as the stepped one does.
    actions = policy(stepped._batch.obs, weights)
    np.testing.assert_array_equal(compiled.step(actions)[0], stepped.step(actions)[0])


@pytest.mark.parametrize("num_threads", [1, 2])
def test_the_rollouts_kernels_are_compiled_under_the_cache_lock(monkeypatch, num_threads):
    """Kernels filled into one cache by two processes at once must be compiled or loaded under ``cache.compiling``
    (see its docstring): the rollout's own kernels too, which a call would otherwise compile lazily."""
    import contextlib

    from nbgym.engine import _cache as cache
    from nbgym.engine import _rollout as rollout_module

    if num_threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("numba has one thread here")
    held = []
    compiled_while = []
    real_compiling = cache.compiling

    @contextlib.contextmanager
    def recording_compiling(*what):
        with real_compiling(*what):
            held.append(True)
            try:
                yield
            finally:
                held.pop()

    monkeypatch.setattr(cache, "compiling", recording_compiling)
    kernels = ["_policy_actions", "_rollout_loop"] if num_threads == 1 else ["_policy_actions", "_account"]
    for name in kernels:
        dispatcher = getattr(rollout_module, name)
        real_compile = dispatcher.compile

        def recording_compile(sig, name=name, real_compile=real_compile):
            compiled_while.append((name, bool(held)))
            return real_compile(sig)

        monkeypatch.setattr(dispatcher, "compile", recording_compile)
    envs = nbgym.make_vec("CartPole-v1", 600 if num_threads == 2 else 8, num_threads=num_threads)
    envs.reset(seed=0)
    rollout(envs, linear_discrete, np.zeros((4, 2)), 5)
    assert {name for name, _ in compiled_while} == set(kernels)
    assert all(locked for _, locked in compiled_while), compiled_while


def test_rollout_refuses_what_it_cannot_run():
    weights = np.zeros((4, 2))
    envs = nbgym.make_vec("CartPole-v1", 3)
    with pytest.raises(error.ResetNeeded):
        rollout(envs, linear_discrete, weights, 5)
    envs.reset(seed=0)
    with pytest.raises(TypeError, match=r"policy\(observations, params\) -> actions"):
        rollout(envs, len, weights, 5)
    with pytest.raises(TypeError, match="compiled vector env"):
        rollout(nbgym.make_vec("CartPole-v1", 3, vectorization_mode="sync"), linear_discrete, weights, 5)
    disabled = nbgym.make_vec("CartPole-v1", 3, autoreset_mode="Disabled")
    disabled.reset(seed=0)
    with pytest.raises(ValueError, match="'NextStep' or 'SameStep'"):
        rollout(disabled, linear_discrete, weights, 5)

    @numba.njit
    def int32_actions(obs, weights):
        return np.zeros(obs.shape[0], dtype=np.int32)

    with pytest.raises(error.InvalidAction, match="dtype int32; return int64"):
        rollout(envs, int32_actions, weights, 5)

    @numba.njit
    def too_few_actions(obs, weights):
        return np.zeros(obs.shape[0] - 1, dtype=np.int64)

    with pytest.raises(error.InvalidAction, match="shape"):
        rollout(envs, too_few_actions, weights, 5)
    with pytest.raises(ValueError, match="trajectory.rewards"):
        bad = Trajectory.new(envs, 5)
        bad.rewards = np.zeros((4, 3))
        rollout(envs, linear_discrete, weights, 5, trajectory=bad)


def test_an_invalid_action_mid_rollout_stops_before_that_step_moves():
    """A policy that turns invalid at some step: the rollout raises naming the step and sub-environment; the
    steps before it happened, that one did not."""

    @numba.njit
    def invalid_when_far(obs, weights):
        actions = np.zeros(obs.shape[0], dtype=np.int64)
        for i in range(obs.shape[0]):
            actions[i] = 1 if obs[i, 1] < weights[0] else 7  # the cart's speed: reached before the pole falls
        return actions

    compiled, stepped = nbgym.make_vec("CartPole-v1", 4), nbgym.make_vec("CartPole-v1", 4)
    compiled.reset(seed=0)
    stepped.reset(seed=0)
    limit = np.array([0.5])
    with pytest.raises(
        error.InvalidAction,
        match=r"Step (\d+) of the rollout: Sub-environment \d: np.int64\(7\) is not in the action space",
    ) as raised:
        rollout(compiled, invalid_when_far, limit, 200)
    failing_step = int(re.search(r"Step (\d+) ", str(raised.value)).group(1))
    assert failing_step > 0
    for _ in range(failing_step):
        stepped.step(invalid_when_far(stepped._batch.obs, limit))
    with pytest.raises(error.InvalidAction):
        stepped.step(invalid_when_far(stepped._batch.obs, limit))
    np.testing.assert_array_equal(compiled._batch.state, stepped._batch.state)
    np.testing.assert_array_equal(compiled._batch.pcg, stepped._batch.pcg)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_envs=st.integers(1, 9),
    num_steps=st.integers(0, 60),
    seed=st.integers(0, 2**32),
    mode=st.sampled_from(["NextStep", "SameStep"]),
    max_episode_steps=st.integers(1, 30),
)
def test_rollout_equals_python_stepping_for_any_batch(num_envs, num_steps, seed, mode, max_episode_steps):
    """Any batch size, length, seed, autoreset mode and time limit: the rollout's episodes, trajectory and final
    state are those of Python stepping."""
    policy, wrap, shape = CASES["CartPole-v1"]
    weights = wrap(np.random.default_rng(seed).normal(size=shape))
    compiled, stepped = (
        nbgym.make_vec("CartPole-v1", num_envs, autoreset_mode=mode, max_episode_steps=max_episode_steps)
        for _ in range(2)
    )
    compiled.reset(seed=seed)
    stepped.reset(seed=seed)
    trajectory = Trajectory.new(compiled, num_steps)
    result = rollout(compiled, policy, weights, num_steps, max_episodes=2, trajectory=trajectory)
    steps, returns, lengths, episodes = python_rollout(stepped, policy, weights, num_steps, 2)
    np.testing.assert_array_equal(result.episode_returns, returns)
    np.testing.assert_array_equal(result.episode_lengths, lengths)
    np.testing.assert_array_equal(result.episodes, episodes)
    np.testing.assert_array_equal(trajectory.rewards, np.array([s[2] for s in steps]).reshape(num_steps, num_envs))
    np.testing.assert_array_equal(compiled._batch.state, stepped._batch.state)
    np.testing.assert_array_equal(compiled._batch.pcg, stepped._batch.pcg)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="nothing is compiled with NUMBA_DISABLE_JIT=1")
def test_the_rollout_of_a_policy_is_loaded_from_numbas_cache_in_a_new_process(tmp_path):
    """The loop, compiled with the policy inside, is kept on disk (a policy passed as an argument would not be).

    Two fresh processes share a cache of their own: the first compiles and saves, the second must load
    (the test session's cache is shared by parallel workers, whose saves could race with this check).
    """
    code = (
        "import sys, numpy as np, nbgym; sys.path[:0] = sys.argv[1:]; import test_rollout as t\n"
        "from nbgym.engine._rollout import _rollout_loop\n"
        "envs = nbgym.make_vec('CartPole-v1', 3); envs.reset(seed=0)\n"
        "t.rollout(envs, t.linear_discrete, np.ones((4, 2)), 3)\n"
        "print(sum(_rollout_loop.stats.cache_hits.values()), sum(_rollout_loop.stats.cache_misses.values()))"
    )
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def hits_and_misses() -> list[str]:
        command = [sys.executable, "-c", code, str(pathlib.Path(__file__).parent), str(TESTS)]
        return subprocess.run(command, capture_output=True, text=True, check=True, env=environment).stdout.split()

    assert hits_and_misses() == ["0", "1"]
    assert hits_and_misses() == ["1", "0"]


@numba.njit
def shrinking_box(obs, state):
    """Two-wide Drift actions, then one-wide from the third call on (``state[0]`` counts the calls; rollout() calls
    the policy once to check it, then once per step: step 1 gets the one-wide actions)."""
    state[0] += 1
    width = 2 if state[0] < 3 else 1
    return np.zeros((obs.shape[0], width), dtype=np.float32)


@numba.njit
def list_actions(obs, weights):
    return [0 for _ in range(obs.shape[0])]


def test_every_call_of_the_policy_is_checked_and_the_message_says_what_it_returned():
    """A Box width that shrinks after the first call stops the rollout before that step moves (it would read past
    the actions); a list is named as a list."""
    for num_threads in (1, 2):
        envs = nbgym.make_vec("test/Drift-v0", 600, num_threads=num_threads)  # 600: the threaded loop at 2
        envs.reset(seed=0)
        with pytest.raises(
            error.InvalidAction,
            match=r"Step 1 of the rollout: the policy returned actions of shape \(600, 1\); the batch takes \(600, 2\)",
        ):
            rollout(envs, shrinking_box, np.zeros(1), 10)
        envs.step(np.zeros((600, 2), dtype=np.float32))  # still consistent and usable
    envs = nbgym.make_vec("CartPole-v1", 3)
    envs.reset(seed=0)
    with pytest.raises(
        error.InvalidAction, match="returned a list, not a numpy array; return a int64 array of shape \\(3,\\)"
    ):
        rollout(envs, list_actions, np.zeros(1), 5)


INTERRUPTED = r"""
import os, signal, sys, threading, time
import numpy as np
sys.path[:0] = sys.argv[2:]
import nbgym
from nbgym import error
from nbgym import spaces
from nbgym.engine import KernelVectorEnv, Physics, rollout

def reset(params, state, i, rng, aux):
    state[i, 0] = 0.0

def step(params, state, i, actions, rng, aux):
    state[i, 0] += 1.0
    while params.forever and state[i, 0] > 0.0:
        state[i, 1] += 1.0
    return 1.0, False

def observe(params, state, i, obs):
    obs[i, 0] = state[i, 0]

def action_valid(params, actions, i):
    return True

class Counting(KernelVectorEnv):
    physics = Physics("InterruptProbe", params=[("forever", np.bool_)], state=(2, np.float64), reset=reset, step=step,
                      observe=observe, action_valid=action_valid)

    def __init__(self):
        super().__init__(4, self.physics.new_params(forever=False))

    def _single_spaces(self):
        return spaces.Box(-np.inf, np.inf, (1,), np.float64), spaces.Discrete(2)

def policy(obs, params):
    return np.zeros(obs.shape[0], dtype=np.int64)

# Python turns SIGINT into KeyboardInterrupt only if SIGINT was not ignored when it started, and a process
# started in the background by a non-interactive shell (a CI script's `&`) ignores it: handle it as a terminal does.
signal.signal(signal.SIGINT, signal.default_int_handler)
envs = Counting()
envs.reset(seed=0)
rollout(envs, policy, 0, 1)  # compiled here, before the signal
envs._params["forever"] = sys.argv[1] == "forever"

def announce_once_stepping():  # "ready" once the rollout has stepped, however long a loaded machine takes to start it
    while envs._batch.state[0, 0] <= 1.0:
        time.sleep(0.001)
    print("ready", flush=True)

threading.Thread(target=announce_once_stepping, daemon=True).start()
try:
    rollout(envs, policy, 0, 10**12)
except KeyboardInterrupt:
    stopped = time.monotonic()
counts = envs._batch.state[:, 0].copy()
try:
    envs.reset(seed=0)
    outcome = "reset"
except RuntimeError as refused:
    outcome = "refused: " + str(refused)
print(repr(stopped), len(set(counts.tolist())), counts[0] > 1, outcome, flush=True)
"""


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="an interpreted rollout hears Ctrl-C by itself")
@pytest.mark.parametrize("physics", ["counting", "forever"])
def test_ctrl_c_stops_a_rollout_within_a_fraction_of_a_second(tmp_path, physics):
    """SIGINT during a rollout of 10**12 steps: ``KeyboardInterrupt`` within a fraction of a second, every
    sub-environment stepped the same number of times; a step that never returns leaves the env refusing a reset."""
    import signal
    import time

    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    process = subprocess.Popen(
        [sys.executable, str(script), physics, str(ROOT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        time.sleep(0.2)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:  # a rollout that did not hear the signal would count on for the rest of the test run
        process.kill()
        process.wait()
    assert process.returncode == 0, err
    stopped, distinct, moved, outcome = out.split(" ", 3)
    assert float(stopped) - sent < 1.0  # the grace for a step that does not end is 0.5 s
    if physics == "counting":
        assert distinct == "1" and moved == "True" and outcome.strip() == "reset"
    else:
        assert outcome.startswith("refused: ") and "did not end" in outcome
