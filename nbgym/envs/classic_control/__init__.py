"""The classic-control environments, as gymnasium's ``gymnasium.envs.classic_control``: each module holds an
environment's compiled physics, its class and its compiled vector class.

The classes are loaded on first use, so that making one environment imports (and registers with numba)
only its own module.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

_MODULES = {
    "AcrobotEnv": "acrobot",
    "CartPoleEnv": "cartpole",
    "Continuous_MountainCarEnv": "continuous_mountain_car",
    "MountainCarEnv": "mountain_car",
    "PendulumEnv": "pendulum",
}

__all__ = list(_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULES)
