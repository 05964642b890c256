"""CleanRL-style DQN on a compiled nbgym vector environment in SameStep autoreset mode.

With ``autoreset_mode="SameStep"`` a sub-environment whose episode ends is reset within the same
``step``: the observation returned is the next episode's first, and the true next observation of
the transition is in ``infos["final_obs"]``. The replay buffer stores that one, so a truncated
episode still bootstraps from its real last state. Every ``--eval-frequency`` steps the greedy
policy is evaluated and the best weights are kept (DQN's greedy policy swings from one evaluation to
the next). Learns CartPole-v1 (greedy return 500) in its default budget and prints SPS.

    python examples/dqn_same_step.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import evaluate, parser, plot_learning_curve  # noqa: E402

import nbgym  # noqa: E402
from nbgym.wrappers.vector import RecordEpisodeStatistics  # noqa: E402


class ReplayBuffer:
    """A ring buffer of transitions ``(obs, action, reward, next_obs, terminated)`` in preallocated arrays."""

    def __init__(self, capacity: int, observation_size: int) -> None:
        self.obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.next_obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.terminated = np.zeros(capacity, dtype=np.float32)
        self.capacity, self.size, self.position = capacity, 0, 0

    def add(
        self, obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray, next_obs: np.ndarray, terminated: np.ndarray
    ) -> None:
        """Stores one transition per sub-environment."""
        rows = (self.position + np.arange(len(actions))) % self.capacity
        self.obs[rows], self.actions[rows], self.rewards[rows] = obs, actions, rewards
        self.next_obs[rows], self.terminated[rows] = next_obs, terminated
        self.position = int(rows[-1] + 1) % self.capacity
        self.size = min(self.size + len(actions), self.capacity)

    def sample(self, rng: np.random.Generator, batch_size: int) -> tuple[torch.Tensor, ...]:
        """A uniform minibatch as tensors (sharing the sampled copies' memory)."""
        rows = rng.integers(0, self.size, batch_size)
        return tuple(
            torch.from_numpy(array[rows])
            for array in (self.obs, self.actions, self.rewards, self.next_obs, self.terminated)
        )


def q_network(observation_size: int, num_actions: int) -> nn.Module:
    """CleanRL's DQN network for CartPole: 120-84 ReLU."""
    return nn.Sequential(
        nn.Linear(observation_size, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, num_actions)
    )


def main(argv: list[str] | None = None) -> float:
    """Trains, prints SPS and the evaluation, and returns the greedy evaluation's mean return.

    Args:
        argv: Command-line arguments (``None``: ``sys.argv``).

    Returns:
        The mean return of ``--eval-episodes`` greedy episodes after training.
    """
    arguments = parser(__doc__.splitlines()[0], total_timesteps=200_000, num_envs=4)
    arguments.add_argument("--learning-rate", type=float, default=5e-4)
    arguments.add_argument("--buffer-size", type=int, default=50_000)
    arguments.add_argument("--batch-size", type=int, default=128)
    arguments.add_argument("--learning-starts", type=int, default=5_000, help="env steps before training")
    arguments.add_argument("--train-frequency", type=int, default=8, help="env steps per gradient step")
    arguments.add_argument("--target-frequency", type=int, default=2_000, help="env steps per target network copy")
    arguments.add_argument("--eval-frequency", type=int, default=10_000, help="env steps per greedy evaluation")
    args = arguments.parse_args(argv)
    gamma, start_epsilon, end_epsilon, exploration_fraction = 0.99, 1.0, 0.05, 0.4

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    rng = np.random.default_rng(args.seed)
    envs = RecordEpisodeStatistics(nbgym.make_vec(args.env_id, args.num_envs, autoreset_mode="SameStep"))
    observation_size = int(np.prod(envs.single_observation_space.shape))
    num_actions = int(envs.single_action_space.n)
    q, target = q_network(observation_size, num_actions), q_network(observation_size, num_actions)
    target.load_state_dict(q.state_dict())
    optimizer = torch.optim.Adam(q.parameters(), lr=args.learning_rate)
    buffer = ReplayBuffer(args.buffer_size, observation_size)

    def act_greedily(batch: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return q(torch.from_numpy(batch)).argmax(-1).numpy()

    def snapshot() -> dict[str, torch.Tensor]:
        return {name: tensor.clone() for name, tensor in q.state_dict().items()}

    best_return, best_weights = -np.inf, snapshot()
    obs, _ = envs.reset(seed=args.seed)
    episode_steps: list[int] = []
    episode_returns: list[float] = []
    n = args.num_envs
    env_time, start = 0.0, time.perf_counter()
    for iteration in range(args.total_timesteps // n):
        global_step = (iteration + 1) * n
        progress = min(1.0, global_step / (exploration_fraction * args.total_timesteps))
        epsilon = start_epsilon + progress * (end_epsilon - start_epsilon)
        with torch.no_grad():
            greedy = q(torch.from_numpy(obs)).argmax(-1).numpy()
        explore = rng.random(n) < epsilon
        actions = np.where(explore, rng.integers(0, num_actions, n), greedy)

        env_start = time.perf_counter()
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        env_time += time.perf_counter() - env_start
        # The transition's true next observation: the final one where the episode ended (SameStep).
        real_next_obs = next_obs.copy()
        for index in np.flatnonzero(infos.get("_final_obs", ())):
            real_next_obs[index] = infos["final_obs"][index]
        buffer.add(obs, actions, rewards, real_next_obs, terminations)
        obs = next_obs
        for index in np.flatnonzero(infos.get("_episode", ())):
            episode_steps.append(global_step)
            episode_returns.append(float(infos["episode"]["r"][index]))

        if global_step > args.learning_starts and global_step % args.train_frequency < n:
            batch_obs, batch_actions, batch_rewards, batch_next_obs, batch_terminated = buffer.sample(
                rng, args.batch_size
            )
            with torch.no_grad():
                next_values = target(batch_next_obs).max(-1).values
                td_target = batch_rewards + gamma * next_values * (1.0 - batch_terminated)
            predicted = q(batch_obs).gather(1, batch_actions[:, None]).squeeze(-1)
            loss = nn.functional.mse_loss(predicted, td_target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if global_step % args.target_frequency < n:
            target.load_state_dict(q.state_dict())
        if global_step % args.eval_frequency < n:
            greedy_return = evaluate(args.env_id, act_greedily, args.eval_episodes, seed=args.seed + global_step)
            if greedy_return >= best_return:
                best_return, best_weights = greedy_return, snapshot()
            elapsed = time.perf_counter() - start
            recent = np.mean(episode_returns[-20:]) if episode_returns else float("nan")
            print(
                f"step {global_step:>8}  return(last 20) {recent:6.1f}  greedy {greedy_return:6.1f}  epsilon {epsilon:.2f}  "
                f"SPS {global_step / elapsed:8.0f}  env {100 * env_time / elapsed:4.1f}% of the time"
            )
    envs.close()
    q.load_state_dict(best_weights)
    mean_return = evaluate(args.env_id, act_greedily, args.eval_episodes, seed=args.seed + 10_000)
    elapsed = time.perf_counter() - start
    total = (args.total_timesteps // n) * n
    print(f"SPS {total / elapsed:.0f} ({total} steps in {elapsed:.1f} s); greedy return {mean_return:.1f}")
    if args.plot:
        plot_learning_curve(args.plot, episode_steps, episode_returns, f"DQN on nbgym {args.env_id}, {n} envs")
    return mean_return


if __name__ == "__main__":
    main()
