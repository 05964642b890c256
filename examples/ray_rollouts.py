"""Evolution strategies over Ray actors that each step a compiled vector env: CartPole-v1 solved across processes or machines.

Each Ray actor (a ``Worker``) holds one compiled vector env (``nbgym.make_vec``) with its share of the
population, one sub-environment per member, and evaluates them all in one compiled call
(``nbgym.engine.rollout``). Per generation only the policy's parameters ``theta`` go out (put once in
the object store, shared by every actor of a node) with one integer seed, and only the episode returns
come back: each actor finds its members' perturbation directions in a noise table every process draws
alike, at offsets drawn from the seed, and the driver finds all of them to combine the returns (OpenAI-ES:
shared noise table, antithetic pairs on the same start states, rank-weighted, Adam). The result does not depend on how the population is split: ``--workers 0`` runs
the same computation in one process and ends on the same ``theta``, bit for bit.

    python examples/ray_rollouts.py                        # a local Ray with 2 worker processes
    python examples/ray_rollouts.py --address auto --workers 8    # an existing cluster (ray start ...)
    python examples/ray_rollouts.py --workers 0            # no Ray: one process, the same result
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import nbgym
from nbgym.engine import rollout


def linear_policy(obs, thetas):
    """The action whose linear score is highest; sub-environment ``i`` uses the parameters ``thetas[i]``
    (``(obs_dim + 1) * num_actions`` values: weights then biases). numba compiles it into the rollout."""
    num_actions = thetas.shape[1] // (obs.shape[1] + 1)
    actions = np.empty(obs.shape[0], dtype=np.int64)
    for i in range(obs.shape[0]):
        best, best_score = 0, -np.inf
        for a in range(num_actions):
            score = thetas[i, obs.shape[1] * num_actions + a]
            for k in range(obs.shape[1]):
                score += obs[i, k] * thetas[i, k * num_actions + a]
            if score > best_score:
                best, best_score = a, score
        actions[i] = best
    return actions


def policy() -> Any:
    """``linear_policy`` from an importable module, as ``rollout`` needs (numba's disk cache names the policy's
    module): this file imported as ``ray_rollouts`` where it runs as a script, or in a Ray worker, which gets
    the classes of a script by value and this directory as its ``working_dir``."""
    if __name__ != "__main__" and sys.modules.get(__name__) is not None:
        return linear_policy
    return importlib.import_module("ray_rollouts").linear_policy


NOISE_TABLE_SIZE = 1 << 20
"""Gaussian numbers every process draws alike (8 MB): a member's direction is a slice of them (OpenAI-ES)."""

_noise_table: np.ndarray | None = None


def noise_table() -> np.ndarray:
    """The shared noise table, drawn once per process from a fixed seed."""
    global _noise_table
    if _noise_table is None:
        _noise_table = np.random.default_rng(20_250_101).standard_normal(NOISE_TABLE_SIZE)
    return _noise_table


def directions(generation_seed: int, members: range, population: int, size: int) -> np.ndarray:
    """The perturbation direction of each member: pair ``m // 2`` takes a slice of the noise table at an offset
    drawn from the generation's seed, its two members take it with opposite signs. Any process computes any
    member's direction in O(size), the same everywhere: only the seed crosses the network."""
    pair_offsets = np.random.default_rng(generation_seed).integers(0, NOISE_TABLE_SIZE - size, population // 2)
    member_array = np.arange(members.start, members.stop)
    rows = noise_table()[pair_offsets[member_array // 2, None] + np.arange(size)]
    return np.where(member_array % 2 == 0, 1.0, -1.0)[:, None] * rows


class Worker:
    """Evaluates the members ``first_member .. first_member + num_members - 1`` of the population, each on
    one episode of its own sub-environment of one compiled vector env. A Ray actor, or a plain object."""

    def __init__(
        self, env_id: str, first_member: int, num_members: int, population: int, sigma: float, episode_steps: int
    ) -> None:
        self.envs = nbgym.make_vec(env_id, num_members)
        self.members = range(first_member, first_member + num_members)
        self.population = population
        self.sigma = sigma
        self.episode_steps = episode_steps

    def evaluate(self, theta: np.ndarray, generation_seed: int) -> np.ndarray:
        """The return of each of this worker's members for ``theta`` perturbed (float64, one per member)."""
        # Both members of a pair start from the same states: the env seed is the pair's.
        self.envs.reset(seed=[generation_seed * 100_003 + member // 2 for member in self.members])
        thetas = theta + self.sigma * directions(generation_seed, self.members, self.population, theta.size)
        result = rollout(self.envs, policy(), thetas, self.episode_steps)
        return result.episode_returns[:, 0].copy()


def split(population: int, workers: int) -> list[tuple[int, int]]:
    """``(first_member, num_members)`` of each worker: the population in contiguous, nearly equal shares."""
    bounds = np.linspace(0, population, workers + 1).round().astype(int)
    return [(int(start), int(stop - start)) for start, stop in zip(bounds[:-1], bounds[1:])]


def train(
    env_id: str = "CartPole-v1",
    workers: int = 2,
    generations: int = 100,
    population: int = 64,
    sigma: float = 0.1,
    learning_rate: float = 0.1,
    episode_steps: int = 500,
    seed: int = 0,
    eval_every: int = 5,
    target: float | None = None,
    log: Any = print,
) -> np.ndarray:
    """Runs evolution strategies with ``workers`` Ray actors (0: in this process) and returns the final ``theta``.

    Call ``ray.init`` first for ``workers > 0``. Stops after ``generations``, or once the mean return of
    ``theta`` over 100 evaluation episodes reaches ``target`` (default: the env's reward threshold).
    """
    probe = nbgym.make(env_id)
    obs_dim, num_actions = probe.observation_space.shape[0], int(probe.action_space.n)
    target = probe.spec.reward_threshold if target is None else target
    size = (obs_dim + 1) * num_actions
    shares = split(population, max(workers, 1))
    if workers > 0:
        import ray

        actor = ray.remote(num_cpus=1)(Worker)
        pool = [actor.remote(env_id, first, count, population, sigma, episode_steps) for first, count in shares]
    else:
        pool = [Worker(env_id, first, count, population, sigma, episode_steps) for first, count in shares]
    evaluation = nbgym.make_vec(env_id, 100)
    rng = np.random.default_rng(seed)
    theta = np.zeros(size)
    adam_m, adam_v = np.zeros(size), np.zeros(size)
    centered = np.linspace(-0.5, 0.5, population)
    start = time.perf_counter()
    for generation in range(1, generations + 1):
        generation_seed = int(rng.integers(2**31))
        if workers > 0:
            theta_ref = ray.put(theta)  # one copy in the object store, read by every actor of a node
            returns = np.concatenate(ray.get([w.evaluate.remote(theta_ref, generation_seed) for w in pool]))
        else:
            returns = np.concatenate([w.evaluate(theta, generation_seed) for w in pool])
        weights = np.empty(population)
        weights[np.argsort(returns, kind="stable")] = centered
        gradient = weights @ directions(generation_seed, range(population), population, size) / (population * sigma)
        adam_m = 0.9 * adam_m + 0.1 * gradient
        adam_v = 0.999 * adam_v + 0.001 * gradient**2
        step = adam_m / (1 - 0.9**generation) / (np.sqrt(adam_v / (1 - 0.999**generation)) + 1e-8)
        theta = theta + learning_rate * step
        if generation % eval_every == 0 or generation == generations:
            evaluation.reset(seed=10**6 + generation)
            thetas = np.ascontiguousarray(np.broadcast_to(theta, (evaluation.num_envs, size)))
            mean_return = float(rollout(evaluation, policy(), thetas, episode_steps).episode_returns[:, 0].mean())
            log(
                f"generation {generation}: mean return {mean_return:.1f} over 100 episodes "
                f"({time.perf_counter() - start:.1f} s, {population * episode_steps * generation:,} env-steps at most)"
            )
            if target is not None and mean_return >= target:
                break
    return theta


def digest(theta: np.ndarray) -> str:
    """A short fingerprint of ``theta``'s exact bytes, to compare runs."""
    return hashlib.sha256(np.ascontiguousarray(theta, dtype=np.float64).tobytes()).hexdigest()[:16]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="CartPole-v1", help="an env with a Box observation and Discrete actions")
    parser.add_argument("--workers", type=int, default=2, help="Ray actors (0: no Ray, one process)")
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: start a local Ray)")
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--population", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.workers > 0:
        import ray

        # The workers import this file (see `policy`): Ray ships its directory to them.
        ray.init(
            address=args.address,
            num_cpus=None if args.address else args.workers,
            include_dashboard=False,
            runtime_env={"working_dir": str(Path(__file__).resolve().parent)},
        )
    final = train(args.env, args.workers, args.generations, args.population, seed=args.seed)
    print(f"theta digest {digest(final)}")
