"""Scaling of nbgym rollouts over Ray actors: env-steps/s with 1 and 2 workers, and the cost of a round trip.

The workload is examples/ray_rollouts.py's: each round trip sends an ES worker the policy's parameters
(``theta``, through the object store) and a seed, the worker evaluates its ``members`` perturbed policies
for ``steps`` steps each in one compiled call (``nbgym.engine.rollout`` over its compiled vector env), and
only the returns (8 bytes a member) come back. Measured:

- ``local``: the same worker as a plain object in this process (no Ray): the compute of one round trip;
- ``ray, W workers``: W actors evaluating concurrently (each its own ``members``: weak scaling);
- ``round trip``: a worker with 1 member and 1 step, i.e. Ray's cost per call (submit, run, fetch).

    pip install "nbgym[ray]"
    python benchmarks/bench_ray.py --members 256 --steps 500 --rounds 20

Say the machine's load (``uptime``) with the numbers: on a shared machine workers compete for cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
import ray_rollouts  # noqa: E402  (the actors import it from the same directory: Ray's working_dir)


class TimedWorker(ray_rollouts.Worker):
    """The example's worker, also telling the CPU time of its last evaluation (its own process's)."""

    def evaluate(self, theta: np.ndarray, generation_seed: int) -> np.ndarray:
        start = time.process_time()
        returns = super().evaluate(theta, generation_seed)
        self.cpu_seconds = time.process_time() - start
        return returns

    def last_cpu_seconds(self) -> float:
        return self.cpu_seconds


def timed_rounds(call, rounds: int) -> list[float]:
    """The seconds of each of ``rounds`` calls of ``call()`` (after one untimed warm-up call)."""
    call()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def main(members: int, steps: int, rounds: int, max_workers: int) -> None:
    import ray

    size = 10  # CartPole's linear policy: (4 observations + 1) x 2 actions
    theta = np.zeros(size)
    local = TimedWorker("CartPole-v1", 0, members, members, 0.1, steps)
    seconds = statistics.median(timed_rounds(lambda: local.evaluate(theta, 1), rounds))
    local_rate = members * steps / seconds
    cpu_rate = members * steps / local.last_cpu_seconds()
    print(f"load: {os.getloadavg()[0]:.1f} (1-minute average, {os.cpu_count()} cores)")
    print(
        f"local (no Ray):       {local_rate / 1e6:7.2f} M env-steps/s  ({seconds * 1e3:.1f} ms per {members} x {steps} steps; "
        f"{cpu_rate / 1e6:.2f} M per CPU-second)"
    )

    for nodes in (1, 100, 1000):
        population = nodes * members
        returns = np.random.default_rng(0).standard_normal(population)

        def combine() -> None:
            weights = np.empty(population)
            weights[np.argsort(returns, kind="stable")] = np.linspace(-0.5, 0.5, population)
            weights @ ray_rollouts.directions(1, range(population), population, size)

        driver = statistics.median(timed_rounds(combine, 5))
        print(
            f"driver's share of a generation for {nodes:4d} workers of {members} members: {driver * 1e3:8.2f} ms "
            f"(ranking {population:,} returns and combining their directions)"
        )

    ray.init(
        num_cpus=max_workers, include_dashboard=False, log_to_driver=False, runtime_env={"working_dir": str(EXAMPLES)}
    )
    try:
        actor = ray.remote(num_cpus=1)(TimedWorker)
        tiny = actor.remote("CartPole-v1", 0, 1, 2, 0.1, 1)
        theta_ref = ray.put(theta)
        trips = timed_rounds(lambda: ray.get(tiny.evaluate.remote(theta_ref, 1)), max(rounds * 5, 50))
        local_tiny = ray_rollouts.Worker("CartPole-v1", 0, 1, 2, 0.1, 1)
        tiny_compute = statistics.median(timed_rounds(lambda: local_tiny.evaluate(theta, 1), 50))
        print(
            f"round trip (1 member, 1 step): median {statistics.median(trips) * 1e3:.2f} ms, "
            f"of which the call itself {tiny_compute * 1e3:.2f} ms in a process of its own; "
            f"{theta.nbytes} bytes out, 8 back"
        )
        ray.kill(tiny)
        for workers in range(1, max_workers + 1):
            pool = [
                actor.remote("CartPole-v1", w * members, members, workers * members, 0.1, steps) for w in range(workers)
            ]

            def generation() -> None:
                ref = ray.put(theta)
                ray.get([w.evaluate.remote(ref, 1) for w in pool])

            seconds = statistics.median(timed_rounds(generation, rounds))
            rate = workers * members * steps / seconds
            cpu = max(ray.get([w.last_cpu_seconds.remote() for w in pool]))
            print(
                f"ray, {workers} worker{'s' if workers > 1 else ' '}:        {rate / 1e6:7.2f} M env-steps/s  "
                f"({seconds * 1e3:.1f} ms per generation, of which {cpu * 1e3:.1f} ms CPU in the busiest worker; "
                f"{rate / local_rate:.2f}x local)"
            )
            for w in pool:
                ray.kill(w)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=256, help="population members (sub-environments) per worker")
    parser.add_argument("--steps", type=int, default=500, help="steps per member per round trip")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="measure 1 .. this many workers")
    args = parser.parse_args()
    main(args.members, args.steps, args.rounds, args.workers)
