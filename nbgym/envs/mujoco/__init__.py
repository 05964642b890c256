"""The MuJoCo environments, as gymnasium's ``gymnasium.envs.mujoco``: ``MujocoEnv`` (the base class of
your own MuJoCo envs), the v5 and v4 environments, each in its module ``<name>_v5``/``<name>_v4`` with its
class and its compiled vector class (a v4 env runs its v5 env's compiled physics with v4's options), their
renderer (``MujocoRenderer``, :mod:`nbgym.envs.mujoco.mujoco_rendering`) and ``utils``.

The classes load on first use: ``import nbgym.envs.mujoco`` imports neither mujoco nor numba.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

_MODULES = {
    "MujocoEnv": "mujoco_env",
    "MujocoRenderer": "mujoco_rendering",
}

__all__ = list(_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULES)
