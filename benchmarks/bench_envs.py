"""Env-steps per second of nbgym's compiled environments beside gymnasium's, one family of environments at a time.

For every environment of the chosen families: nbgym's compiled vector env (``make_vec``) against
gymnasium's ``SyncVectorEnv`` and, where it is installed, envpool at 1024 and 4096 sub-environments, and
nbgym's single env (``make``, with its wrappers) against ``gymnasium.make`` — in one process, timed in
alternation, with the same random actions (the measuring of ``nbgym bench``, see :mod:`nbgym._bench`: the
median of interleaved samples).
The ratios are nbgym's speed-ups::

    python benchmarks/bench_envs.py                      # every family
    python benchmarks/bench_envs.py classic-control --repeats 5

The numbers of one run are comparable with each other; runs on another machine, or while other
processes load this one, are not.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from nbgym._bench import BenchConfig, format_report, progress_stream, run_benchmark

FAMILIES: dict[str, list[str]] = {}
"""The environment ids benchmarked for each family (each family's engineer adds theirs here)."""

FAMILIES["classic-control"] = ["Pendulum-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1"]

FAMILIES["toy-text"] = [
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Blackjack-v1",
]

FAMILIES["box2d"] = [
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3",
    "CarRacing-v3",
]

NUM_ENVS = [1, 1024, 4096]
"""The sizes: 1 is the single env of ``make``, the others vector envs."""


def main(argv: Sequence[str] | None = None) -> int:
    """Measures the chosen families and prints one table per environment.

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("families", nargs="*", help=f"families to measure, of {', '.join(FAMILIES)} (default: all)")
    parser.add_argument("--num-envs", nargs="+", type=int, default=NUM_ENVS, help="sizes, 1 is the single env")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved samples of each library (default: 3)")
    parser.add_argument("--sample-time", type=float, default=0.3, help="seconds per sample (default: 0.3)")
    parser.add_argument("--env", nargs="+", default=None, help="only these env ids of the families (default: all)")
    parser.add_argument(
        "--warmup-steps", type=int, default=0, help="steps of each contender before it is timed (default: 0)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads of nbgym's compiled vector envs and of envpool (default: 1; gymnasium's sync env has one)",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.families) - set(FAMILIES))
    if unknown:
        parser.error(f"unknown families {unknown}; choose among {list(FAMILIES)}")
    env_ids = [env_id for family in (args.families or FAMILIES) for env_id in FAMILIES[family]]
    if args.env is not None:
        missing = sorted(set(args.env) - set(env_ids))
        if missing:
            parser.error(f"unknown env ids {missing}; the families chosen have {env_ids}")
        env_ids = [env_id for env_id in env_ids if env_id in args.env]
    config = BenchConfig(
        env_ids=env_ids,
        num_envs=args.num_envs,
        libraries=["nbgym", "gymnasium", "envpool"],
        repeats=args.repeats,
        sample_time=args.sample_time,
        warmup_steps=args.warmup_steps,
        threads=args.threads,
    )
    print(format_report(run_benchmark(config, progress_stream(None))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
