"""CarRacing's physics step alone (no drawing): nbgym's compiled rows (nbgym/envs/box2d/car_racing/physics.py)
against gymnasium 1.4.0's ``CarRacing.step`` minus its render.

gymnasium's side is its env with ``_render`` replaced by a no-op, so a step is the action, ``Car.step``, the
wheel's ``b2World.Step`` (180 velocity and 60 position iterations), the listener's Python callbacks and the
reward: what a step costs before its frame. The full step (with the ``state_pixels`` frame) is timed too, for
scale. nbgym's side is one ``step_rows`` call over ``n`` rows (the same physics, bit for bit), per sub-env
step. Both run the same random continuous actions from ``reset(seed=s + k)``, ``n`` gymnasium envs stepped in
turn against ``n`` rows (the cars' states, on or off the road, change a step's cost); ended episodes are reset
untimed::

    python benchmarks/bench_car_racing_physics.py --rows 1 16 --steps 500 --repeats 3

Each figure is the median of ``--repeats`` rounds, gymnasium's and nbgym's run in turn.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gymnasium.envs.box2d.car_racing import CarRacing

from nbgym import _bench
from nbgym.engine import rng as engine_rng
from nbgym.envs.box2d.car_racing import physics as P


def actions(steps: int, n: int, seed: int) -> np.ndarray:
    """Random continuous actions ``(steps, n, 3)``: gas, brakes off 70% of the time, any steering."""
    g = np.random.default_rng(seed)
    a = g.uniform([-1, 0, 0], [1, 1, 1], size=(steps, n, 3)).astype(np.float32)
    a[..., 2] *= g.random((steps, n)) >= 0.7
    return a


def time_gymnasium(n: int, steps: int, seed: int, render: bool) -> float:
    """Seconds per ``step`` of ``n`` gymnasium envs (seeds ``seed + k``, stepped in turn; without their frames
    unless ``render``), on the actions ``time_rows`` gives its rows."""
    envs = [CarRacing() for _ in range(n)]
    for k, env in enumerate(envs):
        if not render:
            env._render = lambda mode: None
        env.reset(seed=seed + k)
    acts = actions(steps, n, seed)
    total = 0.0
    for t in range(steps):
        for k, env in enumerate(envs):
            start = time.perf_counter()
            _, _, terminated, _, _ = env.step(acts[t, k])
            total += time.perf_counter() - start
            if terminated:
                env.reset()
    for env in envs:
        env.close()
    return total / (steps * n)


def time_gymnasium_reset(resets: int, seed: int) -> float:
    """Seconds per ``reset()`` of one gymnasium env without its frame (the track, its tiles, the car, a step)."""
    env = CarRacing()
    env._render = lambda mode: None
    env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(resets):
        env.reset()
    return (time.perf_counter() - start) / resets


def reset_rows(n: int, seed: int) -> tuple:
    """``n`` rows reset with seeds ``seed + i``: ``(state, stream, params, aux)``."""
    state = P.new_rows(n)
    stream = engine_rng.new_streams(n)
    engine_rng.seed_streams(*stream, engine_rng.seed_words([seed + i for i in range(n)]), np.ones(n, np.bool_))
    params = P.new_params()
    aux = np.zeros((n, P.AUX_WIDTH))
    P.reset_rows(params, state, stream, np.ones(n, np.bool_), aux)
    return state, stream, params, aux


def time_rows_reset(n: int, resets: int, seed: int) -> float:
    """Seconds per sub-env reset of ``reset_rows`` over ``n`` rows."""
    state, stream, params, aux = reset_rows(n, seed)
    mask = np.ones(n, np.bool_)
    start = time.perf_counter()
    for _ in range(resets):
        P.reset_rows(params, state, stream, mask, aux)
    return (time.perf_counter() - start) / (resets * n)


def time_rows(n: int, steps: int, seed: int) -> float:
    """Seconds per sub-env step of ``step_rows`` over ``n`` rows."""
    state, stream, params, aux = reset_rows(n, seed)
    rewards = np.zeros(n)
    terminated = np.zeros(n, np.bool_)
    acts = actions(steps, n, seed)
    total = 0.0
    for t in range(steps):
        start = time.perf_counter()
        P.step_rows(params, state, acts[t], stream, rewards, terminated, aux)
        total += time.perf_counter() - start
        if terminated.any():
            P.reset_rows(params, state, stream, terminated.copy(), aux)
    return total / (steps * n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    time_rows(1, 2, args.seed)  # compile or load the kernels
    gym_full = _bench.interleaved_medians(
        {"gymnasium": lambda: time_gymnasium(1, max(50, args.steps // 5), args.seed, True)}, args.repeats
    )["gymnasium"]
    print(f"gymnasium step with its frame (1 env)      {gym_full * 1e6:9.1f} us")
    for n in args.rows:
        gym_physics, port = _bench.interleaved_medians(
            {
                "gymnasium": lambda: time_gymnasium(n, args.steps, args.seed, False),
                "nbgym": lambda: time_rows(n, args.steps, args.seed),
            },
            args.repeats,
        ).values()
        print(
            f"{n:3d} sub-envs: gymnasium step minus its render {gym_physics * 1e6:7.1f} us, nbgym rows "
            f"{port * 1e6:7.1f} us per sub-env step ({gym_physics / port:.2f}x)"
        )
    resets = 20
    for n in args.rows:
        gym_reset, port = _bench.interleaved_medians(
            {
                "gymnasium": lambda: time_gymnasium_reset(resets, args.seed),
                "nbgym": lambda: time_rows_reset(n, max(1, resets // n), args.seed),
            },
            args.repeats,
        ).values()
        print(
            f"{n:3d} rows: gymnasium reset minus its render {gym_reset * 1e6:8.1f} us, nbgym rows "
            f"{port * 1e6:9.1f} us per sub-env reset ({gym_reset / port:.2f}x)"
        )


if __name__ == "__main__":
    main()
