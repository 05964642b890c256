"""Env-steps per second of nbgym's Box2D environments beside gymnasium's and envpool's (``bench_envs.py box2d``
with its sizes).

For each Box2D environment: nbgym's single env (``make``, with its wrappers) against ``gymnasium.make``, and
nbgym's compiled vector env (``make_vec``) against gymnasium's ``SyncVectorEnv`` and, where it is installed,
envpool (one thread each) at 16 sub-environments, in one process, timed in alternation (the order rotated from
round to round), with the same random actions. Each library's figure is the median of its interleaved samples and
a ratio is the quotient of two medians (``nbgym bench``'s measuring, :mod:`nbgym._bench`). Every contender first
steps 50 times past its warm-up: CarRacing's first second of an episode draws the whole track zoomed out, and a
large batch sampled a few steps at a time would otherwise time nothing else (``benchmarks/bench_car_phases.py``
times that second apart). Other arguments are ``bench_envs.py``'s::

    python benchmarks/bench_box2d.py
    python benchmarks/bench_box2d.py --env CarRacing-v3 --num-envs 16 256 --repeats 5
    python benchmarks/bench_box2d.py --num-envs 256 --threads 2  # nbgym and envpool on 2 threads each

The numbers of one run are comparable with each other; runs on another machine, or while other
processes load this one, are not.
"""

from __future__ import annotations

import sys

from bench_envs import main

DEFAULTS = ["--num-envs", "1", "16", "--sample-time", "1.0", "--repeats", "5", "--warmup-steps", "50"]
"""The single env and 16 sub-environments, 5 interleaved rounds; a CarRacing step takes milliseconds, hence
longer samples."""

if __name__ == "__main__":
    sys.exit(main(["box2d", *DEFAULTS, *sys.argv[1:]]))
