"""Worlds stepped side by side against one after another: the Box2D port's ``world_step.step_rows`` (the velocity
iterations of the worlds' joint islands in vector lanes, ``joint_lanes``) against ``world_step.step`` on each world
alone, on the worlds of a LunarLander or BipedalWalker vector env after ``--after`` random steps (each sample steps
copies of those worlds ``--steps`` times, without the env's actions: a lander left alone lands and falls asleep, so
few steps; both sides must end with the same bits).

Per world-step, median of interleaved rounds, in process CPU time::

    python benchmarks/bench_box2d_lanes.py --env LunarLander-v3 BipedalWalker-v3 --worlds 1 16 64

The first run compiles the port's step functions as entry points (a minute or two).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import nbgym
from nbgym._box2d import world as W
from nbgym._box2d import world_step as S
from nbgym.engine._jit import borrowing_kernel

_DT = np.float32(1.0 / 50)


@borrowing_kernel(entry=True)
def _each_alone(w, dt, velocity_iterations, position_iterations):
    for r in range(w.world_i.shape[0]):
        S.step(w, r, dt, velocity_iterations, position_iterations)


def _worlds(env_id: str, count: int, seed: int, steps: int) -> W.World:
    """The worlds of a ``count``-env vector env after ``steps`` random steps."""
    env = nbgym.make_vec(env_id, num_envs=count)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(steps):
        env.step(env.action_space.sample())
    w = W.World(*[array.copy() for array in env._batch.state.w])
    env.close()
    return w


def _time(step, start: W.World, steps: int) -> tuple[float, W.World]:
    """The CPU time per world-step of ``steps`` steps of a copy of ``start``, and the copy."""
    w = W.World(*[array.copy() for array in start])
    begin = time.process_time()
    for _ in range(steps):
        step(w)
    return (time.process_time() - begin) / steps / w.world_i.shape[0], w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", nargs="+", default=["LunarLander-v3", "BipedalWalker-v3"])
    parser.add_argument("--worlds", nargs="+", type=int, default=[1, 16, 64])
    parser.add_argument("--after", type=int, default=20, help="random env steps before the worlds are copied")
    parser.add_argument("--steps", type=int, default=5, help="world steps per sample")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (the median is reported)")
    args = parser.parse_args()
    print("env, worlds: us per world-step, one after another / side by side (ratio)")
    for env_id in args.env:
        for count in args.worlds:
            start = _worlds(env_id, count, seed=count, steps=args.after)
            resting = np.zeros(count, np.bool_)

            def step_alone(w):
                _each_alone(w, _DT, 180, 60)

            def step_lanes(w):
                S.step_rows(w, 0, count, resting, _DT, 180, 60)

            times: dict[str, list[float]] = {"alone": [], "lanes": []}
            for _ in range(args.rounds):
                seconds, alone = _time(step_alone, start, args.steps)
                times["alone"].append(seconds)
                seconds, lanes = _time(step_lanes, start, args.steps)
                times["lanes"].append(seconds)
            for field in ("body_f", "joint_f", "contact_f", "man_f", "world_f"):
                if getattr(alone, field).tobytes() != getattr(lanes, field).tobytes():
                    raise SystemExit(f"{env_id} x{count}: the worlds' {field} differ after the same steps")
            t_alone = statistics.median(times["alone"]) * 1e6
            t_lanes = statistics.median(times["lanes"]) * 1e6
            print(f"{env_id}, {count}: {t_alone:.2f} / {t_lanes:.2f} ({t_alone / t_lanes:.2f}x)")


if __name__ == "__main__":
    main()
