"""The learner's loop: a numpy MLP policy between steps, with nbgym's sync ``step`` and its deterministic async
``recv``/``send`` (batches of ``num_envs / 2``, or one of ``num_envs``: ``async-1-batch``), on every core the machine has (the script
``benchmarks/bench_learner_loop.py`` adds envpool's modes and the ideal)."""

from __future__ import annotations

import os

import numba

import nbgym
from nbgym import _bench

from ._common import FULL, SAMPLE_TIME, close


class LearnerLoop:
    """Env-steps per second of ``policy -> step`` (sync) and ``recv -> policy -> send`` (async, in two batches or
    one)."""

    params = (
        (["CartPole-v1", "LunarLander-v3", "HalfCheetah-v5"], ["sync", "async", "async-1-batch"])
        if FULL
        else (["CartPole-v1", "LunarLander-v3"], ["sync", "async", "async-1-batch"])
    )
    param_names = ("env_id", "mode")
    timeout = 600

    def setup(self, env_id: str, mode: str) -> None:
        num_envs = 256 if env_id == "CartPole-v1" else 64
        threads = min(os.cpu_count() or 1, numba.config.NUMBA_NUM_THREADS)
        batch_size = num_envs // 2 if mode == "async" else None
        self.envs = nbgym.make_vec(env_id, num_envs, num_threads=threads, batch_size=batch_size)
        self.policy = _bench.MlpPolicy(self.envs.single_observation_space, self.envs.single_action_space)
        self.asynchronous = mode != "sync"
        _bench.learner_loop_rate(self.envs, self.policy, self.asynchronous, 0.05)  # compiled or loaded, warm

    def teardown(self, env_id: str, mode: str) -> None:
        close(self, "envs")

    def track_steps_per_second(self, env_id: str, mode: str) -> float:
        """Env-steps per second over one sample of ~0.2 s."""
        return _bench.learner_loop_rate(self.envs, self.policy, self.asynchronous, SAMPLE_TIME)

    track_steps_per_second.unit = "env-steps/s"
