"""Domain randomisation on a compiled MuJoCo vector env: every episode of every sub-environment runs with
body masses of its own, drawn when the episode starts.

``envs.model_field("body_mass")`` is a live ``(num_envs, nbody)`` array: one row per sub-environment, which
that sub-environment simulates with from its next reset or step. Here the masses of the sub-environments
whose episode just ended are redrawn (``autoreset_mode="SameStep"``: the step that ends an episode resets
it, so its new episode starts on the next step, with the new masses). The other model fields stay one
shared ``mjModel``; a randomised field costs only its values per sub-environment.

With ``--check``, the same run goes through gymnasium's sync vector env, editing each sub-environment's
``model.body_mass`` the same way, and the results are compared bit for bit::

    python examples/mujoco_domain_randomisation.py --env-id Hopper-v5 --num-envs 64 --steps 300
    python examples/mujoco_domain_randomisation.py --num-envs 4 --steps 60 --check
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nbgym


def scales(rng: np.random.Generator, count: int, nbody: int) -> np.ndarray:
    """Mass scales for ``count`` sub-environments: each body of each within +-30% of its nominal mass."""
    return rng.uniform(0.7, 1.3, (count, nbody))


def run(envs, nominal: np.ndarray, steps: int, seed: int, set_masses) -> list[tuple]:
    """Steps ``envs`` with random actions, redrawing the masses of each episode that ends; the results."""
    rng = np.random.default_rng(seed)
    set_masses(np.arange(envs.num_envs), nominal * scales(rng, envs.num_envs, nominal.size))
    results = [envs.reset(seed=seed)[:1]]
    for _ in range(steps):
        actions = rng.uniform(-1, 1, envs.action_space.shape).astype(np.float32)
        observations, rewards, terminated, truncated, _ = envs.step(actions)
        results.append((observations, rewards, terminated, truncated))
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            set_masses(ended, nominal * scales(rng, ended.size, nominal.size))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-id", default="HalfCheetah-v5")
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--max-episode-steps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="compare with gymnasium's sync vector env")
    args = parser.parse_args(argv)

    envs = nbgym.make_vec(
        args.env_id, args.num_envs, autoreset_mode="SameStep", max_episode_steps=args.max_episode_steps
    )
    nominal = envs.unwrapped.model.body_mass.copy()
    masses = envs.unwrapped.model_field("body_mass")  # (num_envs, nbody), live

    def set_masses(indices: np.ndarray, values: np.ndarray) -> None:
        masses[indices] = values

    start = time.perf_counter()
    ours = run(envs, nominal, args.steps, args.seed, set_masses)
    elapsed = time.perf_counter() - start
    print(
        f"{args.env_id}: {args.num_envs} sub-environments x {args.steps} steps with per-episode masses "
        f"in {elapsed:.2f} s; mean reward {np.mean([step[1] for step in ours[1:]]):.3f}"
    )
    if args.check:
        import gymnasium

        theirs_envs = gymnasium.make_vec(
            args.env_id,
            args.num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
            max_episode_steps=args.max_episode_steps,
        )
        models = theirs_envs.get_attr("model")

        def set_gymnasium_masses(indices: np.ndarray, values: np.ndarray) -> None:
            for index, value in zip(indices, values):
                models[index].body_mass[:] = value

        theirs = run(theirs_envs, nominal, args.steps, args.seed, set_gymnasium_masses)
        same = all(np.array_equal(a, b) for mine, gyms in zip(ours, theirs) for a, b in zip(mine, gyms))
        print("same as gymnasium's sync vector env:", same)
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
