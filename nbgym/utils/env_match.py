"""``check_environments_match``: checks that two environments behave identically for the same seed and actions."""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym.core import Env
from nbgym.utils.env_checker import data_equivalence

_INFO_COMPARISONS = ("equivalence", "superset", "skip", "keys-equivalence", "keys-superset")


def _assert_infos_match(info_a: dict, info_b: dict, info_comparison: str, call: str, where: str) -> None:
    """Asserts that two infos match as ``info_comparison`` asks; ``call`` and ``where`` word the messages."""
    if info_comparison == "equivalence":
        assert data_equivalence(info_a, info_b), (
            f"{call} info is not equivalent{where}, info_a = {info_a}, info_b = {info_b}"
        )
    elif info_comparison == "superset":
        for key in info_a:
            assert data_equivalence(info_a[key], info_b[key]), (
                f"{call} info is not a superset{where}, key {key} present in info_a with value = {info_a[key]}, "
                f"in info_b with value = {info_b[key]}"
            )
    elif info_comparison == "keys-equivalence":
        assert info_a.keys() == info_b.keys(), (
            f"{call} info keys are not equivalent{where}, info_a's keys are {info_a.keys()}, "
            f"info_b's keys are {info_b.keys()}"
        )
    elif info_comparison == "keys-superset":
        assert info_b.keys() >= info_a.keys(), (
            f"{call} info keys are not a superset{where}, "
            f"keys not present in info_b are: {info_b.keys() - info_a.keys()}"
        )


def check_environments_match(
    env_a: Env,
    env_b: Env,
    num_steps: int,
    seed: int = 0,
    skip_obs: bool = False,
    skip_rew: bool = False,
    skip_terminal: bool = False,
    skip_truncated: bool = False,
    skip_render: bool = False,
    info_comparison: str = "equivalence",
) -> None:
    """Checks that ``env_a`` and ``env_b`` give equivalent results for the same seed and actions.

    Both are reset with ``seed``, then stepped ``num_steps`` times with actions sampled from ``env_a``'s
    action space (seeded with ``seed``), and reset with ``seed`` again whenever either episode ends.

    Args:
        env_a: The first environment.
        env_b: The second environment.
        num_steps: The number of steps (0 checks the reset only).
        seed: The seed of the resets and of the action space.
        skip_obs: Whether to skip comparing observation spaces and observations.
        skip_rew: Whether to skip comparing rewards.
        skip_terminal: Whether to skip comparing ``terminated``.
        skip_truncated: Whether to skip comparing ``truncated``.
        skip_render: Whether to skip comparing renders (always skipped when either render mode is
            ``None`` or ``"human"``).
        info_comparison: ``"equivalence"`` (equal infos), ``"superset"`` (``info_b`` holds ``info_a``'s
            items), ``"keys-equivalence"`` (equal keys), ``"keys-superset"`` (``info_b``'s keys include
            ``info_a``'s) or ``"skip"``.

    Raises:
        AssertionError: The environments differ (the message says where), or ``info_comparison`` is unknown.
    """
    skip_render = (
        skip_render or env_a.unwrapped.render_mode in (None, "human") or env_b.unwrapped.render_mode in (None, "human")
    )
    assert info_comparison in _INFO_COMPARISONS
    assert env_a.action_space == env_b.action_space
    assert skip_obs or env_a.observation_space == env_b.observation_space

    def check_reset(where: str) -> None:
        obs_a, info_a = env_a.reset(seed=seed)
        obs_b, info_b = env_b.reset(seed=seed)
        assert skip_obs or data_equivalence(obs_a, obs_b), (
            f"resetting observation is not equivalent{where}, observation_a = {obs_a}, observation_b = {obs_b}"
        )
        _assert_infos_match(info_a, info_b, info_comparison, "resetting", where)
        if not skip_render:
            assert np.all(env_a.render() == env_b.render()), f"resetting render is not equivalent{where}"

    env_a.action_space.seed(seed)
    check_reset("")

    for step in range(num_steps):
        where = f" in step = {step}"
        action: Any = env_a.action_space.sample()
        obs_a, rew_a, terminal_a, truncated_a, info_a = env_a.step(action)
        obs_b, rew_b, terminal_b, truncated_b, info_b = env_b.step(action)
        assert skip_obs or data_equivalence(obs_a, obs_b), (
            f"stepping observation is not equivalent{where}, observation_a = {obs_a}, observation_b = {obs_b}"
        )
        assert skip_rew or data_equivalence(rew_a, rew_b), (
            f"stepping reward is not equivalent{where}, reward_a = {rew_a}, reward_b = {rew_b}"
        )
        assert skip_terminal or terminal_a == terminal_b, (
            f"stepping terminal is not equivalent{where}, terminal_a = {terminal_a}, terminal_b = {terminal_b}"
        )
        assert skip_truncated or truncated_a == truncated_b, (
            f"stepping truncated is not equivalent{where}, truncated_a = {truncated_a}, truncated_b = {truncated_b}"
        )
        _assert_infos_match(info_a, info_b, info_comparison, "stepping", where)
        if not skip_render:
            assert np.all(env_a.render() == env_b.render()), f"stepping render is not equivalent{where}"

        if terminal_a or truncated_a or terminal_b or truncated_b:
            check_reset(where)
