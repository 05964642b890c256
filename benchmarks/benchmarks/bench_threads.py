"""Threaded stepping beside a busy learner: CartPole's compiled vector env with 1 and 2 threads, alone
and beside a loop of numpy matrix products in a thread of the same process (see also the script
``benchmarks/bench_threads.py``, which adds torch, other processes and gymnasium)."""

from __future__ import annotations

import numba

from nbgym import _bench

from ._common import FULL, SAMPLE_TIME, close


class ThreadedStep:
    """``step`` of ``make_vec("CartPole-v1", num_envs, num_threads=...)`` with precomputed random actions."""

    params = ([4096, 65536], [1, 2], ["none", "numpy-thread"]) if FULL else ([65536], [1, 2], ["none"])
    param_names = ("num_envs", "num_threads", "load")
    timeout = 300

    def setup(self, num_envs: int, num_threads: int, load: str) -> None:
        if num_threads > numba.config.NUMBA_NUM_THREADS:
            raise NotImplementedError(f"{num_threads} threads exceed NUMBA_NUM_THREADS on this machine")
        actions = _bench.action_pool("CartPole-v1", num_envs)
        self.runner = _bench.make_runner("nbgym", "CartPole-v1", num_envs, actions, threads=num_threads)
        self.load = _bench.MatmulLoad(load)

    def teardown(self, num_envs: int, num_threads: int, load: str) -> None:
        if hasattr(self, "load"):
            self.load.stop()
        close(self, "runner")

    def track_steps_per_second(self, num_envs: int, num_threads: int, load: str) -> float:
        """Env-steps per second over one sample of ~0.2 s."""
        return _bench.env_steps_per_second(self.runner, SAMPLE_TIME)

    track_steps_per_second.unit = "env-steps/s"
