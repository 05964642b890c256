"""Stable-Baselines3 PPO on a compiled nbgym vector environment, through nbgym.interop.sb3.SB3VecEnv.

``SB3VecEnv`` gives SB3 its ``VecEnv`` interface over one compiled vector env in SameStep autoreset
mode: SB3 trains on it exactly as on ``DummyVecEnv`` of gymnasium's envs (same seeds, same final
weights), with the environments stepped in one call. Learns CartPole-v1 (greedy return 500) in its
default budget (RL Zoo's CartPole hyperparameters) and prints SPS.

    python examples/sb3_ppo.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import evaluate, parser, plot_learning_curve  # noqa: E402

import nbgym  # noqa: E402
from nbgym.interop.sb3 import SB3VecEnv  # noqa: E402


class EpisodeLog(BaseCallback):
    """Collects the episodic returns that VecMonitor reports, with the step each episode ended at."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[int] = []
        self.returns: list[float] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self.steps.append(self.num_timesteps)
                self.returns.append(float(info["episode"]["r"]))
        return True


def make_model(envs: VecEnv, seed: int) -> PPO:
    """SB3 PPO with RL Zoo's CartPole hyperparameters (linear schedules of the learning rate and clip range).

    Args:
        envs: The SB3 vector environment.
        seed: The seed of the model (and of ``envs``, at the first reset).

    Returns:
        The model, not yet trained.
    """
    return PPO(
        "MlpPolicy",
        envs,
        n_steps=32,
        batch_size=min(256, 32 * envs.num_envs),  # a whole number of minibatches per rollout
        gae_lambda=0.8,
        gamma=0.98,
        n_epochs=20,
        ent_coef=0.0,
        learning_rate=lambda remaining: 1e-3 * remaining,
        clip_range=lambda remaining: 0.2 * remaining,
        seed=seed,
        device="cpu",
    )


def main(argv: list[str] | None = None) -> float:
    """Trains, prints SPS and the evaluation, and returns the greedy evaluation's mean return.

    Args:
        argv: Command-line arguments (``None``: ``sys.argv``).

    Returns:
        The mean return of ``--eval-episodes`` greedy episodes after training.
    """
    args = parser(__doc__.splitlines()[0], total_timesteps=100_000, num_envs=8).parse_args(argv)
    torch.set_num_threads(args.torch_threads)
    envs = VecMonitor(SB3VecEnv(nbgym.make_vec(args.env_id, args.num_envs, autoreset_mode="SameStep")))
    model = make_model(envs, args.seed)
    log = EpisodeLog()
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps, callback=log)
    elapsed = time.perf_counter() - start
    envs.close()

    def greedy(batch: np.ndarray) -> np.ndarray:
        return model.predict(batch, deterministic=True)[0]

    mean_return = evaluate(args.env_id, greedy, args.eval_episodes, seed=args.seed + 10_000)
    steps = model.num_timesteps
    print(f"SPS {steps / elapsed:.0f} ({steps} steps in {elapsed:.1f} s); greedy return {mean_return:.1f}")
    if args.plot:
        plot_learning_curve(args.plot, log.steps, log.returns, f"SB3 PPO on nbgym {args.env_id}, {args.num_envs} envs")
    return mean_return


if __name__ == "__main__":
    main()
