"""Helpers for MuJoCo environments, as gymnasium's ``gymnasium.envs.mujoco.utils``: read and write a
simulation's full state, and check that a seeded reset does not depend on the steps before it."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.envs.mujoco.mujoco_env import mujoco


def get_state(env: Any, state_type: Any = mujoco.mjtState.mjSTATE_FULLPHYSICS) -> np.ndarray:
    """The state of ``env``'s simulation (``mj_getState``).

    Args:
        env: A MuJoCo environment (or a wrapper of one): ``env.unwrapped.model`` and ``.data`` are read.
        state_type: The ``mujoco.mjtState`` components to read (``mjSTATE_INTEGRATION`` for a state that
            makes the following steps reproducible).

    Returns:
        A float64 array of ``mj_stateSize(model, state_type)`` values.
    """
    model, data = env.unwrapped.model, env.unwrapped.data
    state = np.empty(mujoco.mj_stateSize(model, state_type))
    mujoco.mj_getState(model, data, state, state_type)
    return state


def set_state(env: Any, state: np.ndarray, state_type: Any = mujoco.mjtState.mjSTATE_FULLPHYSICS) -> np.ndarray:
    """Writes ``state`` (from :func:`get_state` with the same ``state_type``) into ``env``'s simulation.

    Args:
        env: A MuJoCo environment (or a wrapper of one).
        state: The state to write.
        state_type: The ``mujoco.mjtState`` components ``state`` holds.

    Returns:
        ``state``.

    Raises:
        ValueError: If ``state`` does not have ``mj_stateSize(model, state_type)`` values (mujoco's check).
    """
    # Positional: mujoco >= 3.3 renamed the keyword (spec -> sig), on which gymnasium's call fails.
    mujoco.mj_setState(env.unwrapped.model, env.unwrapped.data, state, state_type)
    return state


def check_mujoco_reset_state(env: Any, seed: int = 1234, state_type: Any = mujoco.mjtState.mjSTATE_INTEGRATION) -> None:
    """Checks that ``env.reset(seed=seed)`` gives the same simulation state before and after a step.

    Args:
        env: A MuJoCo environment whose seeded resets are otherwise reproducible.
        seed: The seed of both resets and of the sampled action.
        state_type: The ``mujoco.mjtState`` components compared.

    Raises:
        AssertionError: If the two reset states differ.
    """
    env.action_space.seed(seed)
    action = env.action_space.sample()
    env.reset(seed=seed)
    first = get_state(env, state_type)
    env.step(action)
    env.reset(seed=seed)
    second = get_state(env, state_type)
    assert np.all(first == second), "reset is not deterministic"
