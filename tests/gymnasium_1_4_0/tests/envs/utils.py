# Vendored from gymnasium 1.4.0 (https://github.com/Farama-Foundation/Gymnasium, commit 95a790e1 "Update to v1.4.0"),
# MIT License, Copyright (c) 2016 OpenAI, Copyright (c) 2022 Farama Foundation: the full licence text is in
# tests/gymnasium_1_4_0/LICENSE, next to these files.
# Changed for nbgym (marked NBGYM): the entry points named are nbgym's (nbgym registers its own modules), and
# NBGYM_TEST_IDS (comma-separated ids), when set, limits the environments made to those.
"""Finds all the specs that we can test with"""

import os  # NBGYM

import gymnasium as gym
from gymnasium import logger
from gymnasium.envs.registration import EnvSpec


def try_make_env(env_spec: EnvSpec) -> gym.Env | None:
    """Tries to make the environment showing if it is possible.

    Warning the environments have no wrappers, including time limit and order enforcing.
    """
    # To avoid issues with registered environments during testing, we check that the spec entry points are from gymnasium.envs.
    if (
        isinstance(env_spec.entry_point, str)
        and "nbgym.envs." in env_spec.entry_point  # NBGYM
    ):
        try:
            return env_spec.make(disable_env_checker=True).unwrapped
        except (
            ImportError,
            AttributeError,
            gym.error.DependencyNotInstalled,
            gym.error.MissingArgument,
        ) as e:
            logger.warn(f"Not testing {env_spec.id} due to error: {e}")
    return None


# NBGYM: the ids of NBGYM_TEST_IDS only, when set.
_ids = os.environ.get("NBGYM_TEST_IDS")
_ids = None if _ids is None else set(_ids.split(","))

# Tries to make all environment to test with
all_testing_initialised_envs: list[gym.Env | None] = [
    try_make_env(env_spec)
    for env_spec in gym.envs.registry.values()
    if _ids is None or env_spec.id in _ids  # NBGYM
]
all_testing_initialised_envs: list[gym.Env] = [
    env for env in all_testing_initialised_envs if env is not None
]

# All testing, mujoco and gymnasium environment specs
all_testing_env_specs: list[EnvSpec] = [
    env.spec for env in all_testing_initialised_envs
]
mujoco_testing_env_specs: list[EnvSpec] = [
    env_spec
    for env_spec in all_testing_env_specs
    if "nbgym.envs.mujoco" in env_spec.entry_point  # NBGYM
]
gym_testing_env_specs: list[EnvSpec] = [
    env_spec
    for env_spec in all_testing_env_specs
    if any(
        f"nbgym.envs.{ep}" in env_spec.entry_point  # NBGYM
        for ep in ["box2d", "classic_control", "toy_text"]
    )
]
