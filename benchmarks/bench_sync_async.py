"""Steps per second of nbgym's and gymnasium's SyncVectorEnv and AsyncVectorEnv, side by side.

A plain script (not an asv benchmark): ``python benchmarks/bench_sync_async.py [--seconds S]``.
Two Python environments are measured with 2 sub-environments (2 worker processes for async): a
CPU-heavy one, where the work inside ``step`` dominates, and a light one, where the vector env's
own per-step overhead does. Every vector env runs the same environment code and the same actions.
"""

from __future__ import annotations

import argparse
import math
import time
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np

import nbgym

NUM_ENVS = 2


def env_class(lib: ModuleType, work: int) -> type:
    """A Python environment for ``lib`` whose ``step`` does ``work`` iterations of float arithmetic."""

    class ComputeEnv(lib.Env):
        def __init__(self) -> None:
            self.observation_space = lib.spaces.Box(-1.0, 1.0, shape=(4,), dtype=np.float32)
            self.action_space = lib.spaces.Discrete(2)
            self.t = 0

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
            super().reset(seed=seed)
            self.t = 0
            return self.np_random.uniform(-1, 1, 4).astype(np.float32), {}

        def step(self, action: Any) -> Any:
            x = float(action) + 0.5
            for i in range(work):
                x = math.sin(x) * 0.99 + math.sqrt(i + 1.0) * 1e-6
            self.t += 1
            observation = np.full(4, x, dtype=np.float32)
            return observation, x, False, self.t >= 200, {"t": self.t}

    return ComputeEnv


def steps_per_second(vector_env: Any, seconds: float) -> float:
    """Env steps per second of ``vector_env`` over about ``seconds`` seconds of stepping."""
    vector_env.reset(seed=0)
    actions = np.ones(vector_env.num_envs, dtype=np.int64)
    for _ in range(10):  # warm-up
        vector_env.step(actions)
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(20):
            vector_env.step(actions)
        calls += 20
    vector_env.close()
    return calls * vector_env.num_envs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="stepping time per measurement")
    args = parser.parse_args()

    print(f"{NUM_ENVS} sub-environments; env-steps per second (higher is better)")
    print(f"{'environment':<12} {'vectorizer':<10} {'gymnasium':>12} {'nbgym':>12} {'nbgym/gym':>10}")
    for label, work in (("cpu-heavy", 3000), ("light", 0)):
        for vectorizer in ("sync", "async"):
            rates = []
            for lib in (gymnasium, nbgym):
                cls = env_class(lib, work)
                fns = [cls] * NUM_ENVS
                if vectorizer == "sync":
                    vector_env = lib.vector.SyncVectorEnv(fns)
                else:
                    vector_env = lib.vector.AsyncVectorEnv(fns)
                rates.append(steps_per_second(vector_env, args.seconds))
            print(f"{label:<12} {vectorizer:<10} {rates[0]:>12,.0f} {rates[1]:>12,.0f} {rates[1] / rates[0]:>10.2f}")


if __name__ == "__main__":
    main()
