"""End-to-end training throughput, nbgym against gymnasium: CleanRL-style PPO and Stable-Baselines3 PPO.

A plain script (not an asv benchmark)::

    python benchmarks/bench_training.py [--num-envs 4 64 1024] [--updates 3] [--env-seconds 1]

For each number of sub-environments it trains CartPole-v1 with

- CleanRL-style PPO (``examples/ppo_cleanrl.py``): on nbgym's compiled ``make_vec`` and on
  gymnasium's ``SyncVectorEnv`` (what CleanRL uses), each under its vector RecordEpisodeStatistics;
- SB3 PPO (``examples/sb3_ppo.py``'s model): on ``nbgym.interop.sb3.SB3VecEnv`` and on SB3's
  ``DummyVecEnv`` of ``gymnasium.make`` envs;

and prints the steps per second (SPS) of training, the share of the time spent stepping the
environments, and beside them the env-only SPS of the same vector envs under random actions. Each
configuration runs one warm-up update first (kernel loading, torch's first calls), then timed ones
(``--updates``, and at least ``--min-steps`` env steps; both trainers collect 32 steps per env per update); the two libraries run in alternation ``--repeats`` times in one process and
each one's median run (by training SPS) is shown, with that run's other figures. torch uses one thread.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.vec_env import DummyVecEnv

import nbgym
from nbgym.interop.sb3 import SB3VecEnv

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str) -> ModuleType:
    """Imports ``examples/<name>.py``."""
    sys.path.insert(0, str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def env_only_sps(envs: Any, seconds: float) -> float:
    """Env-steps per second of ``envs`` under pre-drawn random actions (after a warm-up)."""
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, (64, envs.num_envs))
    envs.reset(seed=0)
    for batch in actions[:8]:
        envs.step(batch)
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for batch in actions:
            envs.step(batch)
        calls += len(actions)
    return calls * envs.num_envs / elapsed


def cleanrl_ppo(
    ppo: ModuleType, library: str, num_envs: int, num_steps: int, updates: int, seconds: float
) -> tuple[float, float, float]:
    """CleanRL-style PPO's training SPS, its env share and the env-only SPS, for one library."""

    def run(update_count: int) -> Any:
        envs = ppo.make_envs(library, "CartPole-v1", num_envs)
        args = ppo.arguments_parser().parse_args(
            ["--num-steps", str(num_steps), "--total-timesteps", str(update_count * num_envs * num_steps)]
        )
        training = ppo.train(envs, args, report=lambda line: None)
        return envs, training

    run(1)  # warm-up
    envs, training = run(updates)
    return training.steps / training.seconds, training.env_seconds / training.seconds, env_only_sps(envs, seconds)


def sb3_ppo(example: ModuleType, library: str, num_envs: int, updates: int, seconds: float) -> tuple[float, float]:
    """SB3 PPO's training SPS and the env-only SPS of its VecEnv, for one library."""

    def make() -> Any:
        if library == "nbgym":
            return SB3VecEnv(nbgym.make_vec("CartPole-v1", num_envs, autoreset_mode="SameStep"))
        return DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * num_envs)

    model = example.make_model(make(), seed=0)
    rollout = model.n_steps * num_envs
    model.learn(total_timesteps=rollout)  # warm-up
    model = example.make_model(make(), seed=0)
    start = time.perf_counter()
    model.learn(total_timesteps=updates * rollout)
    sps = model.num_timesteps / (time.perf_counter() - start)

    venv = make()
    rng = np.random.default_rng(0)
    actions = rng.integers(0, 2, (64, num_envs))
    venv.reset()
    calls, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for batch in actions:
            venv.step(batch)
        calls += len(actions)
    return sps, calls * num_envs / elapsed


def main() -> None:
    """Runs every configuration and prints a Markdown table."""
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--num-envs", type=int, nargs="+", default=[4, 64, 1024])
    arguments.add_argument("--num-steps", type=int, default=32, help="CleanRL PPO's steps per env per update")
    arguments.add_argument("--updates", type=int, default=3, help="timed PPO updates per configuration (at least)")
    arguments.add_argument("--min-steps", type=int, default=16_384, help="timed env steps per configuration (at least)")
    arguments.add_argument("--env-seconds", type=float, default=1.0, help="duration of each env-only measurement")
    arguments.add_argument(
        "--repeats", type=int, default=3, help="alternated runs of each library; the median is shown"
    )
    args = arguments.parse_args()
    torch.set_num_threads(1)
    ppo, sb3 = load_example("ppo_cleanrl"), load_example("sb3_ppo")

    print(
        "| num_envs | trainer | nbgym SPS | gymnasium SPS | nbgym / gymnasium | env share of the time, nbgym / gymnasium | env-only SPS, nbgym / gymnasium |"
    )
    print("|---|---|---|---|---|---|---|")
    for num_envs in args.num_envs:
        # Enough updates that few envs are timed over as many steps as many envs.
        updates = max(args.updates, -(-args.min_steps // (num_envs * args.num_steps)))
        ours, theirs = median_of(
            args.repeats,
            lambda: cleanrl_ppo(ppo, "nbgym", num_envs, args.num_steps, updates, args.env_seconds),
            lambda: cleanrl_ppo(ppo, "gymnasium", num_envs, args.num_steps, updates, args.env_seconds),
        )
        print(
            f"| {num_envs} | CleanRL-style PPO | {ours[0]:,.0f} | {theirs[0]:,.0f} | {ours[0] / theirs[0]:.2f}x | "
            f"{100 * ours[1]:.1f}% / {100 * theirs[1]:.1f}% | {ours[2]:,.0f} / {theirs[2]:,.0f} ({ours[2] / theirs[2]:.1f}x) |",
            flush=True,
        )
        ours, theirs = median_of(
            args.repeats,
            lambda: sb3_ppo(sb3, "nbgym", num_envs, updates, args.env_seconds),
            lambda: sb3_ppo(sb3, "gymnasium", num_envs, updates, args.env_seconds),
        )
        print(
            f"| {num_envs} | SB3 PPO | {ours[0]:,.0f} | {theirs[0]:,.0f} | {ours[0] / theirs[0]:.2f}x | - | "
            f"{ours[1]:,.0f} / {theirs[1]:,.0f} ({ours[1] / theirs[1]:.1f}x) |",
            flush=True,
        )


def median_of(repeats: int, ours: Callable[[], tuple], theirs: Callable[[], tuple]) -> tuple[tuple, tuple]:
    """Runs the two measurements in alternation ``repeats`` times (which goes first alternating too); the median run
    of each by training SPS (of an even number, the slower of the middle two)."""
    runs: tuple[list[tuple], list[tuple]] = ([], [])
    for repeat in range(repeats):
        for k in (0, 1) if repeat % 2 == 0 else (1, 0):
            runs[k].append((ours, theirs)[k]())
    return tuple(sorted(side, key=lambda run: run[0])[(len(side) - 1) // 2] for side in runs)


if __name__ == "__main__":
    main()
