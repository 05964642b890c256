"""Plot and tabulate the output of ``nbgym bench --json``.

Usage::

    nbgym bench --json > cartpole.json
    python benchmarks/plot_results.py cartpole.json --png cartpole.png --markdown cartpole.md

Several JSON files may be given (e.g. runs with ``--threads 1`` and ``--threads 2``): the plot has one
panel per environment with a line per library (and thread count), env-steps/s against the number of
sub-environments on log-log axes, the single environment of ``make`` as its own point; the Markdown
has the tables of ``nbgym bench`` (median samples and nbgym's ratios) for each run, after a line
describing the machine. The PNG needs matplotlib (``pip install matplotlib``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from nbgym._bench import Report, format_markdown, size_label


def load(paths: Sequence[pathlib.Path]) -> list[tuple[Report, dict[str, Any]]]:
    """The reports of ``nbgym bench --json`` files, each with the machine it was measured on."""
    reports = []
    for path in paths:
        data = json.loads(path.read_text())
        reports.append((Report.from_json(data), data["machine"]))
    return reports


def series_label(library: str, threads: int) -> str:
    """The legend of a library's line: its name, and its threads when it used more than one."""
    return library if threads == 1 else f"{library}, {threads} threads"


def series(reports: Sequence[Report]) -> dict[str, dict[str, dict[int, float]]]:
    """The median env-steps/s per environment, per line (library and threads) and per size.

    A line measured in several runs (gymnasium beside nbgym at each thread count) keeps its highest median.
    """
    lines: dict[str, dict[str, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for report in reports:
        for m in report.measurements:
            points = lines[m.env_id][series_label(m.library, m.threads)]
            points[m.num_envs] = max(points.get(m.num_envs, 0.0), m.median)
    return lines


def markdown(reports: Sequence[tuple[Report, dict[str, Any]]]) -> str:
    """The tables of every report, each after a line describing its machine and versions."""
    blocks = []
    for report, machine in reports:
        versions = ", ".join(
            f"{library} {machine[library]}"
            for library in ("numpy", "numba", "gymnasium", "envpool")
            if machine.get(library)
        )
        blocks.append(
            f"Measured on {machine['cpu_count']} CPU cores ({machine['platform']}), Python {machine['python']}, "
            f"{versions}.\n\n{format_markdown(report)}"
        )
    return "\n\n".join(blocks) + "\n"


def plot(reports: Sequence[Report], path: pathlib.Path) -> None:
    """Writes the PNG (with matplotlib): one panel per environment, env-steps/s against num_envs, a line per library."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines = series(reports)
    fig, axes = plt.subplots(1, len(lines), figsize=(6.4 * len(lines), 4.8), squeeze=False)
    for ax, (env_id, by_label) in zip(axes[0], lines.items(), strict=True):
        sizes = sorted({n for points in by_label.values() for n in points})
        for label, points in by_label.items():
            xs = sorted(points)
            ax.plot(xs, [points[n] for n in xs], marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sizes, [size_label(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("num_envs (single: make() with its wrappers)")
        ax.set_ylabel("env-steps/s (median sample)")
        ax.set_title(env_id)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """Reads the JSON files, writes the PNG and prints (or writes) the Markdown tables.

    Returns:
        The exit status: 1 if the PNG was asked for and matplotlib is not installed.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=pathlib.Path, help="output files of `nbgym bench --json`")
    parser.add_argument(
        "--png", type=pathlib.Path, help="where to write the plot (default: the first file's name, .png)"
    )
    parser.add_argument("--no-png", action="store_true", help="write no plot (needs no matplotlib)")
    parser.add_argument("--markdown", type=pathlib.Path, help="where to write the Markdown tables (default: stdout)")
    args = parser.parse_args(argv)

    reports = load(args.results)
    text = markdown(reports)
    if args.markdown is None:
        sys.stdout.write(text)
    else:
        args.markdown.write_text(text)
    if not args.no_png:
        if importlib.util.find_spec("matplotlib") is None:
            print(
                "plot_results.py: error: the plot needs matplotlib (pip install matplotlib), or pass --no-png",
                file=sys.stderr,
            )
            return 1
        png = args.png or args.results[0].with_suffix(".png")
        plot([report for report, _ in reports], png)
        print(f"plot written to {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
