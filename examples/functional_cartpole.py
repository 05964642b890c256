"""CartPole written as a functional environment (``FuncEnv``) with numba, compiled into a vector environment.

gymnasium's functional API (``nbgym.experimental.functional.FuncEnv``) writes an environment as pure functions
of an explicit state; gymnasium turns them into JAX environments with ``transform(jax.jit)``. Here the
functions are static methods that numba compiles, drawing from nbgym's numpy-exact random streams, and
``NumbaFuncVectorEnv`` steps every sub-environment in one compiled call, with gymnasium's vector semantics
(seeds ``s + i``, next-step autoreset, a time limit). CartPole's dynamics written this way give exactly the
numbers of ``gymnasium.make_vec("CartPole-v1", n, vectorization_mode="sync")``, which ``main`` checks:

    python examples/functional_cartpole.py --num-envs 256 --steps 300
"""

from __future__ import annotations

import argparse
import math
import time
from typing import NamedTuple

import numpy as np

import nbgym
from nbgym import spaces
from nbgym.engine import npmath, rng
from nbgym.experimental.functional import FuncEnv, NumbaFuncVectorEnv


class CartPoleParams(NamedTuple):
    """gymnasium's CartPole constants (numba reads a named tuple's fields as attributes)."""

    gravity: float = 9.8
    masspole: float = 0.1
    total_mass: float = 0.1 + 1.0
    length: float = 0.5
    polemass_length: float = 0.1 * 0.5
    force_mag: float = 10.0
    tau: float = 0.02
    theta_threshold_radians: float = 12 * 2 * math.pi / 360
    x_threshold: float = 2.4


class NumbaCartPole(FuncEnv):
    """CartPole's functions over a float64 state ``(x, x_dot, theta, theta_dot)``, compiled by numba."""

    observation_space = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)
    action_space = spaces.Discrete(2)

    @staticmethod
    def initial(key, params):
        # numpy's uniform(-0.05, 0.05, size=4): four draws in order.
        state = np.empty(4)
        for k in range(4):
            state[k] = rng.uniform(key, 0, -0.05, 0.05)
        return state

    @staticmethod
    def transition(state, action, key, params):
        x, x_dot, theta, theta_dot = state[0], state[1], state[2], state[3]
        force = params.force_mag if action == 1 else -params.force_mag
        sintheta, costheta = npmath.sincos(theta)
        temp = (force + params.polemass_length * (theta_dot * theta_dot) * sintheta) / params.total_mass
        thetaacc = (params.gravity * sintheta - costheta * temp) / (
            params.length * (4.0 / 3.0 - params.masspole * (costheta * costheta) / params.total_mass)
        )
        xacc = temp - params.polemass_length * thetaacc * costheta / params.total_mass
        return np.array(
            [
                x + params.tau * x_dot,
                x_dot + params.tau * xacc,
                theta + params.tau * theta_dot,
                theta_dot + params.tau * thetaacc,
            ]
        )

    @staticmethod
    def observation(state, key, params):
        return state.astype(np.float32)

    @staticmethod
    def reward(state, action, next_state, key, params):
        return 1.0

    @staticmethod
    def terminal(state, key, params):
        x, theta = state[0], state[2]
        return (
            x < -params.x_threshold
            or x > params.x_threshold
            or theta < -params.theta_threshold_radians
            or theta > params.theta_threshold_radians
        )

    def get_default_params(self, **kwargs) -> CartPoleParams:
        return CartPoleParams(**kwargs)


def make(num_envs: int) -> NumbaFuncVectorEnv:
    """The compiled vector env of the functional CartPole, with CartPole-v1's time limit."""
    return NumbaFuncVectorEnv(NumbaCartPole(), num_envs, max_episode_steps=500)


def main(num_envs: int = 64, steps: int = 300, seed: int = 0) -> dict[str, float]:
    """Steps the functional CartPole beside nbgym's (and gymnasium's, if installed) CartPole-v1 and checks that
    every observation, reward and flag is the same; returns steps per second."""
    functional = make(num_envs)
    references = {"nbgym": nbgym.make_vec("CartPole-v1", num_envs)}
    try:
        import gymnasium

        references["gymnasium"] = gymnasium.make_vec("CartPole-v1", num_envs, vectorization_mode="sync")
    except ImportError:
        pass
    actions = np.random.default_rng(seed).integers(0, 2, size=(steps, num_envs))
    ours = functional.reset(seed=seed)
    for name, env in references.items():
        assert np.array_equal(env.reset(seed=seed)[0], ours[0]), name
    for t in range(steps):
        ours = functional.step(actions[t])
        for name, env in references.items():
            theirs = env.step(actions[t])
            assert all(np.array_equal(a, b) for a, b in zip(ours[:4], theirs[:4])), (name, t)
    start = time.perf_counter()
    for t in range(steps):
        functional.step(actions[t])
    speed = {"functional": steps * num_envs / (time.perf_counter() - start)}
    references["nbgym"].reset(seed=seed)
    start = time.perf_counter()
    for t in range(steps):
        references["nbgym"].step(actions[t])
    speed["nbgym"] = steps * num_envs / (time.perf_counter() - start)
    print(
        f"{num_envs} envs x {steps} steps: identical to {', '.join(references)}; "
        f"functional {speed['functional']:.3g} steps/s, nbgym CartPole-v1 {speed['nbgym']:.3g} steps/s"
    )
    return speed


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    arguments = parser.parse_args()
    main(arguments.num_envs, arguments.steps)
