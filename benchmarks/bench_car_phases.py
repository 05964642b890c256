"""CarRacing's vector step, per env-step, in the two phases of an episode: its first second (the camera zooms in from
the whole track: every grass square and tile is drawn, small) and the steps after it (the car's surroundings), for
nbgym's ``make_vec`` and, where it is installed, envpool (one thread each), in one process, alternately.

Why the phases apart: nbgym's frames of the first second cost more than later ones (its first steps' several times
more), and a sample of a few steps of a large batch (``bench_box2d.py --num-envs 1024`` times a handful of steps
after the reset) holds only first-second steps, where a sample of 16 sub-environments holds mostly later ones: the
throughput of a size is that of its phase, not of the batch's size. Both libraries take the same random continuous
actions from a reset (nbgym's seeded with the repeat's number; envpool's seeds are fixed when it is made)::

    python benchmarks/bench_car_phases.py --num-envs 16 128 --repeats 3
    python benchmarks/bench_car_phases.py --num-envs 1024 --later-steps 20 --repeats 1
"""

from __future__ import annotations

import argparse
import importlib.util
import time
import warnings
from typing import Any

import numpy as np

import nbgym

FIRST_SECOND = 50
"""The steps of the camera's zoom (gymnasium's ``zoom`` grows while ``t < 1``, at 50 steps a second)."""


def make_env(library: str, num_envs: int) -> Any:
    """``library``'s CarRacing-v3 vector env of ``num_envs`` sub-environments, stepping in one thread."""
    if library == "nbgym":
        return nbgym.make_vec("CarRacing-v3", num_envs=num_envs, vectorization_mode="vector_entry_point")
    import envpool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # envpool's gymnasium spaces warn about float32 casts
        return envpool.make_gymnasium("CarRacing-v3", num_envs=num_envs, num_threads=1, seed=0)


def phase_times(env: Any, actions: np.ndarray, seed: int, later_steps: int) -> tuple[float, float]:
    """Seconds per env-step of the first second's steps and of the ``later_steps`` after them, from a reset (with
    ``seed`` for nbgym; envpool's seeds are fixed when it is made)."""
    num_envs = actions.shape[1]
    if isinstance(env, nbgym.vector.VectorEnv):
        env.reset(seed=seed)
    else:
        env.reset()
    start = time.perf_counter()
    for k in range(FIRST_SECOND):
        env.step(actions[k])
    first = time.perf_counter() - start
    start = time.perf_counter()
    for k in range(FIRST_SECOND, FIRST_SECOND + later_steps):
        env.step(actions[k])
    later = time.perf_counter() - start
    return first / (FIRST_SECOND * num_envs), later / (later_steps * num_envs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--later-steps", type=int, default=100, help="steps timed after the first second")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    libraries = ["nbgym"] + (["envpool"] if importlib.util.find_spec("envpool") else [])
    for num_envs in args.num_envs:
        envs = {library: make_env(library, num_envs) for library in libraries}
        envs["nbgym"].reset(seed=0)
        envs["nbgym"].step(np.zeros((num_envs, 3), np.float32))  # compile or load the kernels
        samples: dict[str, list[tuple[float, float]]] = {library: [] for library in libraries}
        g = np.random.default_rng(0)
        for repeat in range(args.repeats):
            actions = g.uniform([-1, 0, 0], [1, 1, 0.2], size=(FIRST_SECOND + args.later_steps, num_envs, 3))
            for library in libraries if repeat % 2 == 0 else libraries[::-1]:
                samples[library].append(
                    phase_times(envs[library], actions.astype(np.float32), repeat, args.later_steps)
                )
        medians = {library: np.median(np.array(samples[library]), axis=0) for library in libraries}
        for library in libraries:
            first, later = medians[library]
            line = f"{num_envs:5d} envs {library:8s} first second {first * 1e6:7.1f} us, after {later * 1e6:7.1f} us"
            if library != "nbgym":
                ours_first, ours_later = medians["nbgym"]
                line += f"  (nbgym {first / ours_first:.2f}x, {later / ours_later:.2f}x)"
            print(line + " per env-step", flush=True)
        for env in envs.values():
            env.close()


if __name__ == "__main__":
    main()
