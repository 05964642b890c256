"""CleanRL-style PPO on a compiled nbgym vector environment, with nbgym's vector RecordEpisodeStatistics.

One file, as CleanRL writes them: ``nbgym.make_vec`` instead of ``gymnasium.vector.SyncVectorEnv``,
the rest is plain PyTorch. Learns CartPole-v1 (greedy return 500) in its default budget and prints
the steps per second (SPS) and how much of the time the environment took.

    python examples/ppo_cleanrl.py                       # 8 envs, 150k steps
    python examples/ppo_cleanrl.py --num-envs 64 --plot ppo.png
    python examples/ppo_cleanrl.py --library gymnasium   # the same on gymnasium's SyncVectorEnv
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import evaluate, parser, plot_learning_curve  # noqa: E402

import nbgym  # noqa: E402
import nbgym.wrappers.vector  # noqa: E402


def layer(inputs: int, outputs: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with orthogonal weights of gain ``std`` and zero biases (PPO's usual initialisation)."""
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    """Separate actor and critic MLPs (64-64, tanh) over a flat observation, for a discrete action space."""

    def __init__(self, observation_size: int, num_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(observation_size, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, 1, 1.0))
        self.actor = nn.Sequential(
            layer(observation_size, 64), nn.Tanh(), layer(64, 64), nn.Tanh(), layer(64, num_actions, 0.01)
        )

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The critic's state values, shape ``(batch,)``."""
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, action: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
        """Samples (or scores the given) actions: ``(action, log_prob, entropy, value)``."""
        distribution = Categorical(logits=self.actor(obs))
        if action is None:
            action = distribution.sample()
        return action, distribution.log_prob(action), distribution.entropy(), self.value(obs)


@dataclass
class Training:
    """What a training run produced, and where its time went."""

    agent: Agent
    steps: int
    seconds: float
    env_seconds: float
    episode_steps: list[int] = field(default_factory=list)
    episode_returns: list[float] = field(default_factory=list)


def arguments_parser() -> argparse.ArgumentParser:
    """The example's command-line options (the benchmark reuses them)."""
    arguments = parser(__doc__.splitlines()[0], total_timesteps=150_000, num_envs=8)
    arguments.add_argument(
        "--library", choices=["nbgym", "gymnasium"], default="nbgym", help="whose vector env to train on"
    )
    arguments.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    arguments.add_argument("--learning-rate", type=float, default=2.5e-3)
    arguments.add_argument("--num-minibatches", type=int, default=4)
    arguments.add_argument("--update-epochs", type=int, default=4)
    return arguments


def make_envs(library: str, env_id: str, num_envs: int) -> Any:
    """The vector env to train on, with its library's vector RecordEpisodeStatistics.

    Args:
        library: ``"nbgym"`` (its compiled vector env) or ``"gymnasium"`` (``SyncVectorEnv``, as CleanRL uses).
        env_id: The environment.
        num_envs: The number of sub-environments.

    Returns:
        The wrapped vector environment.
    """
    if library == "nbgym":
        return nbgym.wrappers.vector.RecordEpisodeStatistics(nbgym.make_vec(env_id, num_envs))
    import gymnasium

    return gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.make_vec(env_id, num_envs, vectorization_mode="sync")
    )


def train(envs: Any, args: argparse.Namespace, report: Callable[[str], None] = print) -> Training:
    """Trains a PPO agent on ``envs`` for ``args.total_timesteps`` steps.

    Args:
        envs: A vector env (next-step autoreset) whose infos carry RecordEpisodeStatistics' ``"episode"``.
        args: The options of :func:`arguments_parser`.
        report: Receives a progress line after each update.

    Returns:
        The trained agent, the step count, the wall time and the part of it spent in ``envs.step``.
    """
    gamma, gae_lambda, clip, entropy_coef, value_coef, max_grad_norm = 0.99, 0.95, 0.2, 0.01, 0.5, 0.5
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    observation_size = int(np.prod(envs.single_observation_space.shape))
    agent = Agent(observation_size, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, steps = envs.num_envs, args.num_steps
    obs_buffer = torch.zeros((steps, n, observation_size))
    actions = torch.zeros((steps, n), dtype=torch.long)
    log_probs, rewards, dones, values = (torch.zeros((steps, n)) for _ in range(4))
    # With next-step autoreset, the step after an episode's end only resets that env (its action is
    # ignored): those steps are left out of the loss.
    autoreset = torch.zeros((steps, n), dtype=torch.bool)

    obs, _ = envs.reset(seed=args.seed)
    next_obs, next_done = torch.from_numpy(obs), torch.zeros(n)
    training = Training(agent, 0, 0.0, 0.0)
    start = time.perf_counter()
    num_updates = args.total_timesteps // (n * steps)
    for update in range(num_updates):
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - update / num_updates)
        for t in range(steps):
            training.steps += n
            obs_buffer[t], dones[t], autoreset[t] = next_obs, next_done, next_done.bool()
            with torch.no_grad():
                action, log_prob, _, value = agent.act(next_obs)
            actions[t], log_probs[t], values[t] = action, log_prob, value
            env_start = time.perf_counter()
            obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            training.env_seconds += time.perf_counter() - env_start
            rewards[t] = torch.from_numpy(reward)
            next_obs = torch.from_numpy(obs)
            next_done = torch.from_numpy(terminations | truncations).float()
            if "episode" in infos:
                for index in np.flatnonzero(infos["_episode"]):
                    training.episode_steps.append(training.steps)
                    training.episode_returns.append(float(infos["episode"]["r"][index]))

        with torch.no_grad():  # generalised advantage estimation
            advantages = torch.zeros_like(rewards)
            last_advantage = torch.zeros(n)
            next_value = agent.value(next_obs)
            for t in reversed(range(steps)):
                not_done = 1.0 - (next_done if t == steps - 1 else dones[t + 1])
                following = next_value if t == steps - 1 else values[t + 1]
                delta = rewards[t] + gamma * following * not_done - values[t]
                last_advantage = delta + gamma * gae_lambda * not_done * last_advantage
                advantages[t] = last_advantage
            returns = advantages + values

        valid = torch.flatten(~autoreset).nonzero().squeeze(-1).numpy()
        b_obs, b_actions = obs_buffer.reshape(-1, observation_size), actions.reshape(-1)
        b_log_probs, b_advantages = log_probs.reshape(-1), advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        for _ in range(args.update_epochs):
            np.random.shuffle(valid)
            for minibatch in np.array_split(valid, args.num_minibatches):
                batch = torch.from_numpy(minibatch)
                _, new_log_prob, entropy, new_value = agent.act(b_obs[batch], b_actions[batch])
                ratio = (new_log_prob - b_log_probs[batch]).exp()
                advantage = b_advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(-advantage * ratio, -advantage * ratio.clamp(1 - clip, 1 + clip)).mean()
                value_loss = 0.5 * ((new_value - b_returns[batch]) ** 2).mean()
                loss = policy_loss - entropy_coef * entropy.mean() + value_coef * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
                optimizer.step()

        training.seconds = time.perf_counter() - start
        recent = np.mean(training.episode_returns[-20:]) if training.episode_returns else float("nan")
        report(
            f"step {training.steps:>8}  return(last 20) {recent:6.1f}  SPS {training.steps / training.seconds:8.0f}  "
            f"env {100 * training.env_seconds / training.seconds:4.1f}% of the time"
        )
    return training


def main(argv: list[str] | None = None) -> float:
    """Trains, prints SPS and the evaluation, and returns the greedy evaluation's mean return.

    Args:
        argv: Command-line arguments (``None``: ``sys.argv``).

    Returns:
        The mean return of ``--eval-episodes`` greedy episodes after training.
    """
    args = arguments_parser().parse_args(argv)
    envs = make_envs(args.library, args.env_id, args.num_envs)
    training = train(envs, args)
    envs.close()

    def greedy(batch: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return training.agent.actor(torch.from_numpy(batch)).argmax(-1).numpy()

    mean_return = evaluate(args.env_id, greedy, args.eval_episodes, seed=args.seed + 10_000)
    print(
        f"SPS {training.steps / training.seconds:.0f} ({training.steps} steps in {training.seconds:.1f} s, "
        f"{100 * training.env_seconds / training.seconds:.1f}% in the env); greedy return {mean_return:.1f}"
    )
    if args.plot:
        title = f"PPO on {args.library} {args.env_id}, {args.num_envs} envs"
        plot_learning_curve(args.plot, training.episode_steps, training.episode_returns, title)
    return mean_return


if __name__ == "__main__":
    main()
