"""The README's CartPole benchmark: nbgym beside gymnasium (and envpool) at every size, serial and threaded.

Runs ``nbgym bench`` CartPole-v1 with longer and more samples than the command's default, once per
thread count, then writes for each run the JSON of ``nbgym bench --json``, and for all of them
together the plot and the Markdown tables of ``plot_results.py``::

    python benchmarks/bench_cartpole.py --out cartpole-bench
    # cartpole-bench/threads-1.json, threads-2.json, cartpole.png, cartpole.md

The numbers of one run are comparable with each other (same process, interleaved samples); runs on
another machine, or while other processes load this one, are not.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Sequence

import numba
import plot_results  # beside this script: the script's directory is first on sys.path

from nbgym._bench import (
    DEFAULT_NUM_ENVS,
    BenchConfig,
    format_report,
    installed_libraries,
    progress_stream,
    run_benchmark,
)


def main(argv: Sequence[str] | None = None) -> int:
    """Measures, prints the tables, and writes the JSON, the plot and the Markdown.

    Returns:
        The exit status.
    """
    max_threads = numba.config.NUMBA_NUM_THREADS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("cartpole-bench"), help="output directory")
    parser.add_argument(
        "--threads",
        nargs="+",
        type=int,
        default=sorted({1, max_threads}),
        help=f"thread counts of nbgym's vector env and envpool, one run each (default: 1 and {max_threads})",
    )
    parser.add_argument(
        "--num-envs", nargs="+", type=int, default=list(DEFAULT_NUM_ENVS), help="sizes, 1 is the single env"
    )
    parser.add_argument("--repeats", type=int, default=7, help="interleaved samples of each library (default: 7)")
    parser.add_argument("--sample-time", type=float, default=0.5, help="seconds per sample (default: 0.5)")
    args = parser.parse_args(argv)
    if max(args.threads) > max_threads:
        parser.error(f"--threads above numba's maximum of {max_threads} (set NUMBA_NUM_THREADS)")

    args.out.mkdir(parents=True, exist_ok=True)
    paths = []
    for threads in args.threads:
        config = BenchConfig(
            env_ids=["CartPole-v1"],
            num_envs=args.num_envs,
            libraries=installed_libraries(),
            threads=threads,
            repeats=args.repeats,
            sample_time=args.sample_time,
        )
        report = run_benchmark(config, progress_stream(None))
        print(format_report(report), end="\n\n", flush=True)
        path = args.out / f"threads-{threads}.json"
        path.write_text(json.dumps(report.to_json(), indent=2))
        paths.append(path)
    outputs = ["--png", str(args.out / "cartpole.png"), "--markdown", str(args.out / "cartpole.md")]
    return plot_results.main([*map(str, paths), *outputs])


if __name__ == "__main__":
    sys.exit(main())
