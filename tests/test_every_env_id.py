"""Every environment id on nbgym's compiled engine, single and vector in every autoreset mode, side by side with
gymnasium 1.4.0 for a short run of random actions: bit for bit the same observations, rewards, flags and infos.

This is the differential run that CI repeats on every supported Python and at the lowest versions pyproject.toml
declares (``.ci/run``): it compiles every env's kernels there (what differs by Python, numba and numpy version is
whether and how they compile) and checks their results, in a few minutes. The family test files hold the long,
targeted comparisons (terminations reached on purpose, every argument, rendering) on the main Python.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.env_ids import IDS, compiled_ids

import nbgym
from nbgym import spaces


def random_actions(space: spaces.Space, batch: int | None = None):
    """A policy of uniform random actions in ``space`` (``batch`` of them for a vector env), drawn from the test's
    generator, so both libraries see the same ones."""

    def policy(rng: np.random.Generator, observation) -> object:
        shape = () if batch is None else (batch,)
        if isinstance(space, spaces.Discrete):
            actions = space.start + rng.integers(0, space.n, size=shape)
            return int(actions) if batch is None else actions
        low = np.where(np.isfinite(space.low), space.low, -1.0)
        high = np.where(np.isfinite(space.high), space.high, 1.0)
        return rng.uniform(low, high, size=shape + space.shape).astype(space.dtype)

    return policy


def test_the_ids_cover_every_family():
    families = {str(nbgym.registry[env_id].entry_point).split(".")[2] for env_id in compiled_ids()}
    assert families == {"classic_control", "toy_text", "box2d", "mujoco"}, families


@pytest.mark.parametrize("env_id", IDS)
def test_single_env_matches_gymnasium(env_id):
    space = nbgym.make(env_id).action_space
    compare_single(env_id, random_actions(space), seeds=[3], steps=60)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", IDS)
def test_vector_env_matches_gymnasium_sync(env_id, mode):
    space = nbgym.make(env_id).action_space
    compare_vector(env_id, random_actions(space, batch=3), num_envs=3, mode=mode, seed=5, steps=25)


def test_gymnasium_makes_the_same_ids():
    """The oracle has every id compared here (a renamed or dropped id would otherwise compare nothing)."""
    missing = [env_id for env_id in compiled_ids() if env_id not in gymnasium.registry]
    assert not missing, missing
