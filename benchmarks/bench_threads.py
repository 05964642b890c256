"""Threaded stepping beside a busy learner: nbgym with 1 and N threads (and gymnasium), under a matmul load.

A plain script (not an asv benchmark; the asv suite has ``bench_threads.ThreadedStep``)::

    python benchmarks/bench_threads.py [--env-id CartPole-v1] [--num-envs 4096 65536] [--threads 2]
        [--loads none numpy-thread torch-thread numpy-process torch-process] [--repeats 7] [--json FILE]

For each load (``nbgym._bench.LOADS``: nothing, or a loop of 256x256 matrix products with numpy or
torch in a thread of this process or in another process) and each size, the contenders are sampled
in alternation, the order rotated each round: nbgym's compiled vector env with 1 thread and with N,
N independent vector envs of ``num_envs / N`` sub-environments, each stepped on one thread by a process
of its own (``IndependentParts``: the same work with nothing shared, not even the GIL, the machine's own
ceiling for N threads' stepping), and gymnasium's vector env. Each round gives the
ratios N threads / 1 thread and N independent / 1 thread from adjacent samples; the table shows their
medians and the ranges over rounds (how noisy the machine was), the median env-steps/s of each
contender, and the learner's matrix products per second while each nbgym variant was stepping
(whether the threads slow the learner down).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
from typing import Any

import numpy as np

from nbgym import _bench


class IndependentParts:
    """``parts`` compiled vector envs of ``num_envs / parts`` sub-environments each, on one thread each, each stepped by
    a process of its own (this script, ``--step-part``), side by side: what the machine gives ``parts`` cores of this
    stepping when nothing is shared (no claims, no waits for another thread's chunk, no GIL), its own ceiling for
    ``parts`` threads. A runner of ``nbgym._bench``'s kind: ``run(steps)`` and ``close()``.

    Args:
        env_id: The environment id.
        num_envs: The sub-environments of all the parts together.
        parts: The parts, and the processes that step them.

    Raises:
        ValueError: If ``parts`` does not divide ``num_envs``.
        RuntimeError: If a part's process ends before it is closed (its error is on stderr).
    """

    def __init__(self, env_id: str, num_envs: int, parts: int) -> None:
        if num_envs % parts:
            raise ValueError(f"{parts} parts of {num_envs} sub-environments: choose a num_envs that {parts} divides.")
        self.num_envs = num_envs
        self.processes = [
            subprocess.Popen(
                [sys.executable, __file__, "--step-part", env_id, str(num_envs // parts), str(seed)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for seed in range(parts)
        ]
        try:
            self._replies("ready")  # made and warmed up
        except RuntimeError:
            self.close()
            raise

    def run(self, steps: int) -> None:
        """Steps every part ``steps`` times, side by side, and returns when all have."""
        for process in self.processes:
            process.stdin.write(f"{steps}\n")
            process.stdin.flush()
        self._replies("stepped")

    def _replies(self, expected: str) -> None:
        """Waits for each part's ``expected`` line; other lines on its stdout (a library's own warnings: MuJoCo's
        print there) go on to stderr."""
        for process in self.processes:
            while (line := process.stdout.readline()) != f"{expected}\n":
                if not line:
                    raise RuntimeError(f"a part's process ended with status {process.wait()} (its error is above)")
                sys.stderr.write(line)

    def close(self) -> None:
        for process in self.processes:
            with contextlib.suppress(BrokenPipeError):  # a part that ended already
                process.stdin.close()  # the part steps no more and ends
            process.wait()
            process.stdout.close()


def _step_part(env_id: str, num_envs: int, seed: int) -> None:
    """An ``IndependentParts`` process: says it is ready, then steps its env as many times as each line of stdin says,
    answering each, until stdin closes."""
    runner = _bench.make_runner(
        "nbgym", env_id, num_envs, _bench.action_pool(env_id, num_envs, seed), single=False, seed=seed
    )
    print("ready", flush=True)
    for line in sys.stdin:
        runner.run(int(line))
        print("stepped", flush=True)
    runner.close()


def measure(
    env_id: str, num_envs: int, threads: int, load: _bench.MatmulLoad, repeats: int, sample_time: float
) -> dict:
    """Alternating samples of nbgym (1 and ``threads`` threads) and gymnasium beside ``load``."""
    actions = _bench.action_pool(env_id, num_envs)
    runners = {
        "nbgym, 1 thread": _bench.make_runner("nbgym", env_id, num_envs, actions, threads=1),
        f"nbgym, {threads} threads": _bench.make_runner("nbgym", env_id, num_envs, actions, threads=threads),
    }
    independent = f"nbgym, {threads} independent"
    if num_envs % threads == 0 and num_envs >= 2 * threads:
        runners[independent] = IndependentParts(env_id, num_envs, threads)
    if "gymnasium" in _bench.installed_libraries():
        try:
            runners["gymnasium"] = _bench.make_runner("gymnasium", env_id, num_envs, actions)
        except _bench.Unavailable as reason:
            print(f"gymnasium skipped: {reason}", file=sys.stderr)
    steps = {name: _bench.calibrate(runner, sample_time) for name, runner in runners.items()}
    rates: dict[str, list[float]] = {name: [] for name in runners}
    learner: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    for repeat in range(repeats):
        for name in np.roll(names, -repeat):
            before = load.products()
            elapsed = _bench.time_steps(runners[name], steps[name])
            rates[name].append(steps[name] * num_envs / elapsed)
            learner[name].append((load.products() - before) / elapsed)
    for runner in runners.values():
        runner.close()
    one, many = names[0], names[1]
    ratios = [n / o for n, o in zip(rates[many], rates[one])]
    apart = [n / o for n, o in zip(rates[independent], rates[one])] if independent in rates else []
    return {
        "load": load.load,
        "num_envs": num_envs,
        "threads": threads,
        "median_rates": {name: statistics.median(samples) for name, samples in rates.items()},
        "ratio_median": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "independent_ratios": apart,
        "learner_products_per_second": {name: statistics.median(samples) for name, samples in learner.items()},
        "rates": rates,
    }


def table(results: list[dict]) -> str:
    """The results as a Markdown table."""
    lines = [
        "| load | num_envs | gymnasium | nbgym 1 thread | nbgym N threads | N / 1 thread (median, range) "
        "| N independent / 1 thread (median, range) | N threads / gymnasium | learner products/s beside 1 / N threads |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        rates = result["median_rates"]
        one, many = "nbgym, 1 thread", f"nbgym, {result['threads']} threads"
        gymnasium = rates.get("gymnasium")
        learner = result["learner_products_per_second"]
        learner_cell = "-" if result["load"] == "none" else f"{learner[one]:.0f} / {learner[many]:.0f}"
        apart = result["independent_ratios"]
        apart_cell = f"{statistics.median(apart):.2f}x ({min(apart):.2f}-{max(apart):.2f})" if apart else "-"
        lines.append(
            f"| {result['load']} | {result['num_envs']} | {_bench.format_rate(gymnasium) if gymnasium else '-'} "
            f"| {_bench.format_rate(rates[one])} | {_bench.format_rate(rates[many])} ({result['threads']}) "
            f"| {result['ratio_median']:.2f}x ({result['ratio_min']:.2f}-{result['ratio_max']:.2f}) | {apart_cell} "
            f"| {f'{rates[many] / gymnasium:.2f}x' if gymnasium else '-'} | {learner_cell} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measures every load and size, prints the table, and writes the JSON if asked.

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-id", default="CartPole-v1")
    parser.add_argument("--num-envs", nargs="+", type=int, default=[4096, 65536])
    parser.add_argument("--threads", type=int, default=2, help="the thread count compared with 1 (default: 2)")
    parser.add_argument("--loads", nargs="+", choices=_bench.LOADS, default=list(_bench.LOADS))
    parser.add_argument("--repeats", type=int, default=7, help="alternating rounds (default: 7)")
    parser.add_argument("--sample-time", type=float, default=0.2, help="seconds per sample (default: 0.2)")
    parser.add_argument("--json", help="also write the results, every sample included, to this file")
    parser.add_argument("--step-part", nargs=3, metavar=("ENV_ID", "NUM_ENVS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step_part:
        env_id, num_envs, seed = args.step_part
        _step_part(env_id, int(num_envs), int(seed))
        return 0
    results: list[dict[str, Any]] = []
    for load_name in args.loads:
        try:
            load = _bench.MatmulLoad(load_name)
        except _bench.Unavailable as reason:
            print(f"load {load_name} skipped: {reason}", file=sys.stderr)
            continue
        try:
            for num_envs in args.num_envs:
                results.append(measure(args.env_id, num_envs, args.threads, load, args.repeats, args.sample_time))
                print(table(results[-1:]).splitlines()[-1], file=sys.stderr)
        finally:
            load.stop()
    print(table(results))
    if args.json:
        with open(args.json, "w") as file:
            json.dump({"machine": _bench.machine_info(), "results": results}, file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
