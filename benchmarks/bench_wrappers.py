"""Throughput of the vector statistics wrappers, nbgym against gymnasium, side by side in one process.

A plain script (not an asv benchmark): ``python benchmarks/bench_wrappers.py [--num-envs N] [--seconds S]``.

Measured, in env-steps per second (``num_envs`` sub-environment steps per ``step()`` call):

- nbgym's compiled ``make_vec("CartPole-v1", N)``, bare and wrapped in
  ``NormalizeReward(NormalizeObservation(RecordEpisodeStatistics(env)))``;
- gymnasium's native ``CartPoleVectorEnv`` (``vectorization_mode="vector_entry_point"``), bare and
  under gymnasium's same wrapper stack.

It prints the four rates and two ratios: how much of its bare throughput nbgym keeps under the
wrappers, and nbgym wrapped against gymnasium wrapped. Every env gets the same pre-drawn actions.
"""

from __future__ import annotations

import argparse
import time
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np

import nbgym


def bare(lib: ModuleType, num_envs: int) -> Any:
    """The library's fastest CartPole vector env: nbgym's compiled one, gymnasium's native one."""
    if lib is nbgym:
        return nbgym.make_vec("CartPole-v1", num_envs)
    return gymnasium.make_vec("CartPole-v1", num_envs, vectorization_mode="vector_entry_point")


def wrapped(lib: ModuleType, num_envs: int) -> Any:
    """``bare`` under RecordEpisodeStatistics, NormalizeObservation and NormalizeReward."""
    vector_wrappers = lib.wrappers.vector
    return vector_wrappers.NormalizeReward(
        vector_wrappers.NormalizeObservation(vector_wrappers.RecordEpisodeStatistics(bare(lib, num_envs)))
    )


def steps_per_second(envs: Any, actions: np.ndarray, seconds: float) -> float:
    """Env-steps per second of ``envs`` over about ``seconds`` (after a warm-up that compiles/loads kernels)."""
    envs.reset(seed=0)
    for batch in actions[:50]:
        envs.step(batch)
    calls = 0
    start = time.perf_counter()
    while True:
        for batch in actions:
            envs.step(batch)
        calls += len(actions)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return calls * envs.num_envs / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=2.0, help="measuring time per configuration")
    args = parser.parse_args()

    actions = np.random.default_rng(0).integers(0, 2, size=(200, args.num_envs))
    rates = {}
    for lib in (nbgym, gymnasium):
        for kind, build in (("bare", bare), ("wrapped", wrapped)):
            envs = build(lib, args.num_envs)
            rates[lib.__name__, kind] = steps_per_second(envs, actions, args.seconds)
            envs.close()

    print(f"CartPole-v1, {args.num_envs} sub-environments, env-steps/s")
    print("wrapped = NormalizeReward(NormalizeObservation(RecordEpisodeStatistics(env)))")
    print(f"{'':>10} {'bare':>12} {'wrapped':>12} {'kept':>7}")
    for name in ("nbgym", "gymnasium"):
        kept = rates[name, "wrapped"] / rates[name, "bare"]
        print(f"{name:>10} {rates[name, 'bare']:>12.3e} {rates[name, 'wrapped']:>12.3e} {kept:>7.0%}")
    ratio = rates["nbgym", "wrapped"] / rates["gymnasium", "wrapped"]
    print(f"nbgym wrapped / gymnasium wrapped: {ratio:.2f}x")


if __name__ == "__main__":
    main()
