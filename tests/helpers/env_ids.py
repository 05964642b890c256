"""The env ids on nbgym's compiled engine, as the tests that run every one of them take them (every env id against
gymnasium, bad actions, written values)."""

from __future__ import annotations

import importlib.util

import pytest

import nbgym

FAMILY_EXTRAS = {"mujoco": "mujoco", "box2d": "Box2D"}
"""The module an env family's gymnasium oracle needs (gymnasium's Box2D envs need the box2d wheel)."""


def compiled_ids() -> list[str]:
    """The ids whose vector env is nbgym's compiled one (a vector entry point), but the jax functional envs."""
    ids = []
    for env_id, spec in sorted(nbgym.registry.items()):
        if spec.vector_entry_point is None or "/" in env_id:
            continue
        ids.append(env_id)
    return ids


def _needs(env_id: str) -> str | None:
    entry = str(nbgym.registry[env_id].entry_point)
    for family, module in FAMILY_EXTRAS.items():
        if f".{family}" in entry and importlib.util.find_spec(module) is None:
            return module
    return None


IDS = [
    pytest.param(env_id, marks=pytest.mark.skipif(_needs(env_id) is not None, reason=f"needs {_needs(env_id)}"))
    for env_id in compiled_ids()
]
"""``compiled_ids()`` as test parameters, each skipped where its family's oracle is not installed."""

MUJOCO_V5_IDS = [
    "Ant-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Humanoid-v5",
    "HumanoidStandup-v5",
    "InvertedDoublePendulum-v5",
    "InvertedPendulum-v5",
    "Pusher-v5",
    "Reacher-v5",
    "Swimmer-v5",
    "Walker2d-v5",
]
MUJOCO_V4_IDS = [
    "Ant-v4",
    "HalfCheetah-v4",
    "Hopper-v4",
    "Humanoid-v4",
    "HumanoidStandup-v4",
    "InvertedDoublePendulum-v4",
    "InvertedPendulum-v4",
    "Reacher-v4",
    "Swimmer-v4",
    "Walker2d-v4",
]
"""The v4 MuJoCo ids: the v5 ones but Pusher (gymnasium 1.4's Pusher-v4 needs mujoco < 3)."""
