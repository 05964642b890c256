"""Evolution strategies with a small numba MLP policy, on nbgym's compiled rollouts: CartPole-v1 and Pendulum-v1
solved on the CPU in seconds.

Each generation perturbs the policy's parameters ``theta`` with ``population`` Gaussian directions (in
antithetic pairs, each pair on the same start states), evaluates every perturbed policy on one episode
of its own sub-environment — all of them in one compiled call, ``nbgym.engine.rollout`` — and moves
``theta`` along the rank-weighted directions (OpenAI-ES, with Adam). Solved means the mean return of
``theta`` itself over ``eval_episodes`` fresh episodes reaches the target.

    python examples/evolution_strategies.py                 # both, prints the time to solve each
    python examples/evolution_strategies.py --png docs/images/evolution_strategies.png
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field

import numba
import numpy as np

import nbgym
from nbgym.engine import rollout


@numba.njit(cache=True)
def _mlp(obs, i, theta, hidden):
    """The output of a one-hidden-layer tanh MLP with flat parameters ``theta`` on row ``i`` of ``obs``."""
    obs_dim = obs.shape[1]
    bias = obs_dim * hidden
    out_weights = bias + hidden
    out = theta[out_weights + hidden]
    for h in range(hidden):
        value = theta[bias + h]
        for k in range(obs_dim):
            value += obs[i, k] * theta[k * hidden + h]
        out += math.tanh(value) * theta[out_weights + h]
    return out


@numba.njit
def cartpole_policy(obs, params):
    """Push right when the MLP's output is positive; sub-environment ``i`` uses the parameters ``thetas[i]``."""
    thetas, hidden = params
    actions = np.empty(obs.shape[0], dtype=np.int64)
    for i in range(obs.shape[0]):
        actions[i] = 1 if _mlp(obs, i, thetas[i], hidden) > 0.0 else 0
    return actions


@numba.njit
def pendulum_policy(obs, params):
    """A torque of ``2 tanh(output)``; sub-environment ``i`` uses the parameters ``thetas[i]``."""
    thetas, hidden = params
    actions = np.empty((obs.shape[0], 1), dtype=np.float32)
    for i in range(obs.shape[0]):
        actions[i, 0] = 2.0 * math.tanh(_mlp(obs, i, thetas[i], hidden))
    return actions


@dataclass
class Task:
    """An environment, its policy and the hyperparameters that solve it."""

    env_id: str
    policy: numba.core.registry.CPUDispatcher
    obs_dim: int
    episode_steps: int
    target: float
    hidden: int = 8
    population: int = 128
    sigma: float = 0.1
    learning_rate: float = 0.05


TASKS = {
    "CartPole-v1": Task(
        "CartPole-v1", cartpole_policy, 4, 500, target=475.0, hidden=4, population=64, learning_rate=0.1
    ),
    "Pendulum-v1": Task(
        "Pendulum-v1", pendulum_policy, 3, 200, target=-200.0, hidden=16, population=256, sigma=0.1, learning_rate=0.03
    ),
}
"""The targets: gymnasium's reward threshold for CartPole-v1; for Pendulum-v1 (which has none) a mean return of
-200, a pendulum swung up and held from any start."""


@dataclass
class Curve:
    """A training run's learning curve."""

    generations: list[int] = field(default_factory=list)
    env_steps: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    mean_returns: list[float] = field(default_factory=list)
    solved_after: float | None = None
    compile_seconds: float = 0.0


def evaluate(envs, task: Task, theta: np.ndarray, seed: int) -> float:
    """The mean return of ``theta`` over one episode of each sub-environment of ``envs``."""
    envs.reset(seed=seed)
    thetas = np.broadcast_to(theta, (envs.num_envs, theta.size))
    result = rollout(envs, task.policy, (np.ascontiguousarray(thetas), task.hidden), task.episode_steps)
    return float(result.episode_returns[:, 0].mean())


def train(
    task: Task,
    max_seconds: float = 120.0,
    max_generations: int | None = None,
    seed: int = 0,
    eval_episodes: int = 100,
    eval_every: int = 5,
) -> Curve:
    """Runs evolution strategies on ``task`` until the mean evaluation return reaches its target or a budget runs out.

    For a given seed the run is deterministic (the rollouts are); only the time budget depends on the machine.

    Args:
        task: What to solve.
        max_seconds: The budget of training time.
        max_generations: The budget of generations (``None``: no limit but the time).
        seed: Seeds the perturbations and the environments.
        eval_episodes: Episodes of each evaluation.
        eval_every: Generations between evaluations.

    Returns:
        The learning curve (``solved_after`` is the time to solve, ``None`` if the budget ran out first).
    """
    rng = np.random.default_rng(seed)
    size = task.obs_dim * task.hidden + 2 * task.hidden + 1
    theta = rng.normal(0.0, 0.5, size)
    half = task.population // 2
    envs = nbgym.make_vec(task.env_id, 2 * half)
    evaluation = nbgym.make_vec(task.env_id, eval_episodes)
    adam_m, adam_v = np.zeros(size), np.zeros(size)
    centered = np.linspace(-0.5, 0.5, 2 * half)
    curve = Curve()
    compile_start = time.perf_counter()
    evaluate(evaluation, task, theta, seed=0)  # numba compiles the rollout of this policy, or loads it from its cache
    curve.compile_seconds = time.perf_counter() - compile_start
    env_steps, start = 0, time.perf_counter()
    generation = 0
    while time.perf_counter() - start < max_seconds and (max_generations is None or generation < max_generations):
        noise = rng.standard_normal((half, size))
        directions = np.concatenate([noise, -noise])
        seeds = [int(s) for s in rng.integers(0, 2**31, half)]
        envs.reset(seed=seeds + seeds)  # each antithetic pair starts from the same states
        result = rollout(envs, task.policy, (theta + task.sigma * directions, task.hidden), task.episode_steps)
        env_steps += envs.num_envs * task.episode_steps
        weights = np.empty(2 * half)
        weights[np.argsort(result.episode_returns[:, 0])] = centered
        gradient = weights @ directions / (2 * half * task.sigma)
        generation += 1
        adam_m = 0.9 * adam_m + 0.1 * gradient
        adam_v = 0.999 * adam_v + 0.001 * gradient**2
        step = adam_m / (1 - 0.9**generation) / (np.sqrt(adam_v / (1 - 0.999**generation)) + 1e-8)
        theta = theta + task.learning_rate * step
        if generation % eval_every == 0:
            mean_return = evaluate(evaluation, task, theta, seed=10**6 + generation)
            curve.generations.append(generation)
            curve.env_steps.append(env_steps)
            curve.seconds.append(time.perf_counter() - start)
            curve.mean_returns.append(mean_return)
            if mean_return >= task.target:
                curve.solved_after = curve.seconds[-1]
                break
    return curve


def plot(curves: dict[str, Curve], path: str) -> None:
    """Saves the learning curves (mean evaluation return against training time) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 3.4))
    for axis, (env_id, curve) in zip(np.atleast_1d(axes), curves.items()):
        axis.plot(curve.seconds, curve.mean_returns, marker=".")
        axis.axhline(TASKS[env_id].target, color="gray", linestyle="--", label="target")
        axis.set_title(f"{env_id}: solved in {curve.solved_after:.1f} s" if curve.solved_after else env_id)
        axis.set_xlabel(f"training time (s, one CPU thread; {TASKS[env_id].population} ES members)")
        axis.set_ylabel("mean return of theta (evaluation episodes)")
        axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main(env_ids: list[str], max_seconds: float, png: str | None, seed: int = 0) -> dict[str, Curve]:
    """Trains on each environment, prints the time to solve it, and optionally saves the learning curves."""
    curves = {}
    for env_id in env_ids:
        curve = train(TASKS[env_id], max_seconds=max_seconds, seed=seed)
        curves[env_id] = curve
        outcome = f"solved in {curve.solved_after:.1f} s" if curve.solved_after else "not solved within the budget"
        print(
            f"{env_id}: {outcome} ({curve.generations[-1]} generations, {curve.env_steps[-1]:,} env-steps; "
            f"mean return {curve.mean_returns[-1]:.1f}; compiling or loading the rollout took {curve.compile_seconds:.1f} s before)"
        )
    if png:
        plot(curves, png)
    return curves


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="*", default=list(TASKS), help=f"among {list(TASKS)} (default: both)")
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--png", default=None, help="where to save the learning curves")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    main(arguments.env_ids, arguments.max_seconds, arguments.png, arguments.seed)
