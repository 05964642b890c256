"""What the training examples share: argument parsing of the budget and seed, the greedy evaluation, the plot."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import numpy as np

import nbgym


def parser(description: str, total_timesteps: int, num_envs: int) -> argparse.ArgumentParser:
    """An argument parser with the options every example takes.

    Args:
        description: The example's one-line description.
        total_timesteps: The default training budget in environment steps.
        num_envs: The default number of sub-environments.

    Returns:
        The parser (examples add their own options).
    """
    arguments = argparse.ArgumentParser(description=description)
    arguments.add_argument("--env-id", default="CartPole-v1")
    arguments.add_argument("--total-timesteps", type=int, default=total_timesteps, help="training budget in env steps")
    arguments.add_argument("--num-envs", type=int, default=num_envs)
    arguments.add_argument("--seed", type=int, default=1)
    arguments.add_argument("--eval-episodes", type=int, default=10)
    arguments.add_argument("--plot", default=None, help="write the learning curve to this PNG file")
    # One thread: these networks are small, and a second thread on a busy machine makes each step ~10x slower.
    arguments.add_argument("--torch-threads", type=int, default=1)
    return arguments


def evaluate(env_id: str, act: Callable[[np.ndarray], np.ndarray], episodes: int, seed: int) -> float:
    """The mean return of ``episodes`` greedy episodes, one per sub-environment of a compiled vector env.

    Args:
        env_id: The environment.
        act: The greedy policy: a batch of observations to a batch of actions.
        episodes: How many episodes (and sub-environments).
        seed: The evaluation seed (sub-environment ``i`` gets ``seed + i``).

    Returns:
        The mean episodic return.
    """
    envs = nbgym.make_vec(env_id, episodes, autoreset_mode="Disabled")
    obs, _ = envs.reset(seed=seed)
    returns = np.zeros(episodes)
    running = np.ones(episodes, dtype=bool)
    while running.any():
        obs, rewards, terminations, truncations, _ = envs.step(act(obs))
        returns += rewards * running
        ended = terminations | truncations
        running &= ~ended
        if ended.any():  # reset what ended, so that the batch keeps stepping; later returns do not count
            obs, _ = envs.reset(options={"reset_mask": ended})
    envs.close()
    return float(returns.mean())


def plot_learning_curve(path: str, steps: Sequence[int], returns: Sequence[float], title: str) -> None:
    """Saves episodic return against environment steps as a PNG.

    Args:
        path: The image file.
        steps: The environment step at which each episode ended.
        returns: Each episode's return.
        title: The plot's title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.2), dpi=100)
    axes.plot(steps, returns, ".", markersize=2, alpha=0.4, label="episode")
    if len(returns) >= 20:
        window = np.ones(20) / 20
        axes.plot(steps[19:], np.convolve(returns, window, mode="valid"), label="mean of 20")
    axes.set_xlabel("environment steps")
    axes.set_ylabel("episodic return")
    axes.set_title(title)
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
