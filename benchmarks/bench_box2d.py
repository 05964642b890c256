"""Env-steps per second of nbgym's Box2D environments beside gymnasium's (``bench_envs.py box2d`` with its sizes).

For each Box2D environment: nbgym's single env (``make``, with its wrappers) against ``gymnasium.make``,
and nbgym's vector env (``make_vec``: a ``SyncVectorEnv``, as Box2D worlds are objects, not batched
kernels) against gymnasium's ``SyncVectorEnv`` at 16 sub-environments, in one process, timed in
alternation, with the same random actions. Other arguments are ``bench_envs.py``'s::

    python benchmarks/bench_box2d.py
    python benchmarks/bench_box2d.py --num-envs 1 --repeats 5

The numbers of one run are comparable with each other; runs on another machine, or while other
processes load this one, are not.
"""

from __future__ import annotations

import sys

from bench_envs import main

DEFAULTS = ["--num-envs", "1", "16", "--sample-time", "1.0"]
"""The single env and 16 sub-environments; a CarRacing step takes milliseconds, hence longer samples."""

if __name__ == "__main__":
    sys.exit(main(["box2d", *DEFAULTS, *sys.argv[1:]]))
