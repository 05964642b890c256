"""The MuJoCo environments, as gymnasium's ``gymnasium.envs.mujoco``: ``MujocoEnv`` (the base class of
your own MuJoCo envs), the v5 environments, each in its module ``<name>_v5`` with its compiled physics,
its class and its compiled vector class, and their renderer (:mod:`nbgym.envs.mujoco.mujoco_rendering`).

The classes load on first use: ``import nbgym.envs.mujoco`` imports neither mujoco nor numba.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

_MODULES = {
    "MujocoEnv": "mujoco_env",
}

__all__ = list(_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULES)
