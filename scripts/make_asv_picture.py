"""Makes ``docs/images/asv.png``: the numbers of one ``asv run`` of the suite in ``benchmarks/``, plotted from asv's
results file (run from the repository root, after ``asv run`` in ``benchmarks/``).

    python scripts/make_asv_picture.py                       # the newest results file of benchmarks/results
    python scripts/make_asv_picture.py RESULTS.json --out picture.png --note "load average 12"

It is a plot of the results asv stores and ``asv publish`` shows, not a screenshot of the dashboard (whose
pages draw each benchmark's history over commits, one page at a time): the left panel is the headline ratios
(``bench_ratios``, one bar per parameter combination, as the dashboard lists them), the right one the
env-steps/s of CartPole-v1's scaling curve (``bench_step.ScalingCurve``) for each library. Parameters asv
skipped (not measured here) are left out. Needs matplotlib.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import pathlib
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
OUT = ROOT / "docs" / "images" / "asv.png"

RATIOS = {
    "bench_ratios.VersusLibrary.track_ratio": "nbgym / {against}",
    "bench_ratios.VersusMujocoBatch.track_ratio": "nbgym / mujoco.batch",
    "bench_ratios.RolloutVersusPythonLoop.track_ratio": "rollout / Python loop",
}
SCALING = "bench_step.ScalingCurve.track_steps_per_second"


def newest_results(results_dir: pathlib.Path = RESULTS) -> pathlib.Path:
    """The most recently written results file of any machine (asv's ``machine.json`` and
    ``benchmarks.json`` excluded)."""
    files = [path for path in results_dir.glob("*/*.json") if path.name != "machine.json"]
    if not files:
        raise SystemExit(f"no asv results in {results_dir}: run `asv run` in benchmarks/ first")
    return max(files, key=lambda path: path.stat().st_mtime)


def measured(results: dict[str, Any], name: str) -> list[tuple[tuple[Any, ...], float]]:
    """``(parameters, value)`` of every measured combination of benchmark ``name`` (skipped and failed ones left out).

    asv stores a parametrized benchmark's values flattened over the product of its parameter lists, with
    ``None`` where it skipped and NaN where it failed.
    """
    entry = results["results"].get(name)
    if entry is None:
        return []
    columns = results["result_columns"]
    values, params = entry[columns.index("result")], entry[columns.index("params")]
    combinations = list(itertools.product(*params)) if params else [()]
    return [
        (tuple(_plain(p) for p in combination), float(value))
        for combination, value in zip(combinations, values, strict=True)
        if value is not None and not math.isnan(value)
    ]


def _plain(param: str) -> Any:
    """asv keeps parameters as their repr: ``"'CartPole-v1'"`` -> ``CartPole-v1``, ``"4096"`` -> 4096."""
    try:
        return int(param)
    except ValueError:
        return param.strip("'\"")


def ratio_bars(results: dict[str, Any]) -> list[tuple[str, float]]:
    """``(label, ratio)`` of every measured headline ratio, labelled as in the README's tables."""
    bars = []
    for name, template in RATIOS.items():
        for params, value in measured(results, name):
            env_id, num_envs = params[0], params[1]
            size = "single env" if num_envs == 1 else f"{num_envs} envs"
            against = params[2] if len(params) > 2 else ""
            bars.append((f"{env_id} {size}: {template.format(against=against)}", value))
    return bars


def scaling_lines(results: dict[str, Any]) -> dict[str, dict[int, float]]:
    """env-steps/s of CartPole-v1's scaling curve: ``{library: {num_envs: rate}}``."""
    lines: dict[str, dict[int, float]] = {}
    for (_, num_envs, library), value in measured(results, SCALING):
        lines.setdefault(library, {})[num_envs] = value
    return lines


def plot(results: dict[str, Any], machine: dict[str, Any], out: pathlib.Path, note: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = ratio_bars(results)
    lines = scaling_lines(results)
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, max(4.0, 0.28 * len(bars) + 1.5)), width_ratios=(1.4, 1))
    labels, values = zip(*bars) if bars else ((), ())
    positions = range(len(bars))
    left.barh(positions, values, color=["#2a7ab9" if v >= 1 else "#d9822b" for v in values])
    left.set_yticks(list(positions), labels, fontsize=8)
    left.invert_yaxis()
    left.set_xscale("log")
    left.axvline(1.0, color="black", linewidth=0.8)
    for position, value in zip(positions, values):
        left.text(value, position, f" {value:.3g}x", va="center", fontsize=7)
    left.set_xlabel("ratio of env-steps per CPU second, measured in one process (log scale; 1 = as fast)")
    left.set_title("bench_ratios: track_ratio", fontsize=10)
    for library, points in sorted(lines.items()):
        sizes = sorted(points)
        right.plot(sizes, [points[size] for size in sizes], marker="o", label=library)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("num_envs")
    right.set_ylabel("env-steps/s")
    right.set_title("bench_step.ScalingCurve (CartPole-v1; elapsed time)", fontsize=10)
    right.legend()
    right.grid(True, which="major", alpha=0.3)
    commit = results.get("commit_hash", "")[:8]
    where = f"{machine.get('cpu', '')} ({machine.get('num_cpu', '?')} CPUs)".strip()
    figure.suptitle(f"asv run of nbgym {commit} on {where}" + (f"; {note}" if note else ""), fontsize=10)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=100)
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="?", type=pathlib.Path, help="an asv results file (default: the newest)")
    parser.add_argument(
        "--out", type=pathlib.Path, default=OUT, help=f"the PNG to write (default: {OUT.relative_to(ROOT)})"
    )
    parser.add_argument("--note", default="", help="conditions to print in the title, e.g. the load average")
    args = parser.parse_args(argv)
    path = args.results or newest_results()
    results = json.loads(path.read_text())
    machine_file = path.parent / "machine.json"
    machine = json.loads(machine_file.read_text()) if machine_file.exists() else {}
    if not ratio_bars(results) and not scaling_lines(results):
        print(f"{path} has no measured ratio or scaling curve", file=sys.stderr)
        return 1
    plot(results, machine, args.out, args.note)
    print(f"picture written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
