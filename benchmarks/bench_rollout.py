"""Rollout throughput with a linear policy: nbgym's compiled rollout, nbgym stepped from Python with a numpy
policy, and gymnax's jitted ``lax.scan`` rollout on JAX's CPU backend — same env, same policy, one process.

    pip install gymnax jax     # for the gymnax column (only this benchmark needs them)
    python benchmarks/bench_rollout.py --num-envs 4096 --steps 200 --threads 1 2

Each contender is compiled (or jitted) and run once first; then they are sampled in turn (the order rotated from
round to round) and each one's median sample counts. Env-steps per second = num_envs * steps / seconds.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numba
import numpy as np

import nbgym
from nbgym import _bench
from nbgym.engine import rollout


@numba.njit(nogil=True)
def linear_discrete(obs, weights):
    """argmax over actions of ``obs @ weights``."""
    actions = np.empty(obs.shape[0], dtype=np.int64)
    for i in range(obs.shape[0]):
        best, best_value = 0, -np.inf
        for a in range(weights.shape[1]):
            value = 0.0
            for k in range(obs.shape[1]):
                value += obs[i, k] * weights[k, a]
            if value > best_value:
                best, best_value = a, value
        actions[i] = best
    return actions


@numba.njit(nogil=True)
def linear_box(obs, params):
    """``clip(obs @ weights, -bound, bound)`` as float32, for ``params = (weights, bound)``."""
    weights, bound = params
    actions = np.empty((obs.shape[0], weights.shape[1]), dtype=np.float32)
    for i in range(obs.shape[0]):
        for a in range(weights.shape[1]):
            value = 0.0
            for k in range(obs.shape[1]):
                value += obs[i, k] * weights[k, a]
            actions[i, a] = min(max(value, -bound), bound)
    return actions


POLICIES = {
    "CartPole-v1": (linear_discrete, (4, 2), lambda obs, w: np.argmax(obs @ w, axis=1)),
    "Pendulum-v1": (linear_box, (3, 1), lambda obs, w: np.clip(obs @ w, -2.0, 2.0).astype(np.float32)),
}
"""Each env's compiled policy, weight shape and numpy policy (Pendulum's torque is bounded by 2)."""


def policy_params(env_id: str) -> object:
    """The parameters of ``env_id``'s compiled policy: random weights (and Pendulum's torque bound)."""
    weights = np.random.default_rng(0).normal(size=POLICIES[env_id][1])
    return weights if env_id == "CartPole-v1" else (weights, 2.0)


def nbgym_rollout(env_id: str, num_envs: int, steps: int, threads: int) -> Callable[[], float]:
    policy = POLICIES[env_id][0]
    params = policy_params(env_id)
    envs = nbgym.make_vec(env_id, num_envs, num_threads=threads)
    envs.reset(seed=0)
    rollout(envs, policy, params, 2)

    def sample() -> float:
        start = time.perf_counter()
        rollout(envs, policy, params, steps)
        return time.perf_counter() - start

    return sample


def nbgym_python(env_id: str, num_envs: int, steps: int, threads: int) -> Callable[[], float]:
    _, shape, numpy_policy = POLICIES[env_id]
    weights = np.random.default_rng(0).normal(size=shape)
    envs = nbgym.make_vec(env_id, num_envs, num_threads=threads, copy=False)
    obs, _ = envs.reset(seed=0)
    envs.step(numpy_policy(obs, weights))

    def sample() -> float:
        obs = envs._batch.obs
        start = time.perf_counter()
        for _ in range(steps):
            obs = envs.step(numpy_policy(obs, weights))[0]
        return time.perf_counter() - start

    return sample


def gymnax_rollout(env_id: str, num_envs: int, steps: int, threads: int) -> Callable[[], float]:
    import gymnax
    import jax
    import jax.numpy as jnp

    env, env_params = gymnax.make(env_id)
    _, shape, _ = POLICIES[env_id]
    weights = jnp.asarray(np.random.default_rng(0).normal(size=shape), dtype=jnp.float32)
    if env_id == "CartPole-v1":

        def policy(obs, w):
            return jnp.argmax(obs @ w)
    else:

        def policy(obs, w):
            return jnp.clip(obs @ w, -2.0, 2.0)

    @jax.jit
    def run(key, w):
        key, reset_key = jax.random.split(key)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), env_params)

        def body(carry, _):
            obs, state, key, total = carry
            key, step_key = jax.random.split(key)
            actions = jax.vmap(policy, in_axes=(0, None))(obs, w)
            # gymnax's step gives (obs, state, reward, done, ...) and resets ended envs itself.
            obs, state, reward = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(step_key, num_envs), state, actions, env_params
            )[:3]
            return (obs, state, key, total + reward.sum()), None

        carry, _ = jax.lax.scan(body, (obs, state, key, jnp.float32(0.0)), None, length=steps)
        return carry[3]

    key = jax.random.PRNGKey(0)
    run(key, weights).block_until_ready()

    def sample() -> float:
        start = time.perf_counter()
        run(key, weights).block_until_ready()
        return time.perf_counter() - start

    return sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="*", default=list(POLICIES))
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--samples", type=int, default=5)
    arguments = parser.parse_args()
    try:
        import gymnax  # noqa: F401
    except ImportError:
        print("gymnax is not installed (pip install gymnax jax): its column is left out")
        with_gymnax = False
    else:
        with_gymnax = True
    print(
        "| env | num_threads | nbgym rollout | nbgym from Python (numpy policy) | gymnax lax.scan | "
        "rollout / Python | rollout / gymnax |"
    )
    print("|---|---|---|---|---|---|---|")
    for env_id in arguments.env_ids:
        gymnax_sample = gymnax_rollout(env_id, arguments.num_envs, arguments.steps, 1) if with_gymnax else None
        for threads in arguments.threads:
            contenders = {
                "rollout": nbgym_rollout(env_id, arguments.num_envs, arguments.steps, threads),
                "python": nbgym_python(env_id, arguments.num_envs, arguments.steps, threads),
            }
            if gymnax_sample is not None:
                contenders["gymnax"] = gymnax_sample
            medians = _bench.interleaved_medians(contenders, arguments.samples)
            rate = {name: arguments.num_envs * arguments.steps / seconds for name, seconds in medians.items()}
            gymnax_rate = rate.get("gymnax")
            gymnax_column = "-" if gymnax_rate is None else f"{gymnax_rate / 1e6:.1f}M"
            against_gymnax = "-" if gymnax_rate is None else f"{rate['rollout'] / gymnax_rate:.1f}x"
            print(
                f"| {env_id} | {threads} | {rate['rollout'] / 1e6:.1f}M | {rate['python'] / 1e6:.1f}M | {gymnax_column} | "
                f"{rate['rollout'] / rate['python']:.1f}x | {against_gymnax} |"
            )


if __name__ == "__main__":
    main()
