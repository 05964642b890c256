"""nbgym: the Gymnasium API rebuilt around Numba.

Classic-control and toy-text dynamics are compiled kernels over batched state arrays, so
``nbgym.make_vec("CartPole-v1", num_envs=4096)`` steps every sub-environment in one compiled call,
bit for bit identical to gymnasium 1.4.0 for the same seeds and actions.

Importing nbgym is cheap: the public names below are loaded on first use, and no environment module
(nor numba) is imported until an environment is made.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY_NAMES = {
    "Env": "nbgym.core",
    "Wrapper": "nbgym.core",
    "ObservationWrapper": "nbgym.core",
    "ActionWrapper": "nbgym.core",
    "RewardWrapper": "nbgym.core",
    "Space": "nbgym.spaces",
    "make": "nbgym.registration",
    "make_vec": "nbgym.registration",
    "spec": "nbgym.registration",
    "register": "nbgym.registration",
    "registry": "nbgym.registration",
    "pprint_registry": "nbgym.registration",
    "register_envs": "nbgym.registration",
    "VectorizeMode": "nbgym.registration",
}
_SUBMODULES = ("envs", "spaces", "utils", "vector", "wrappers", "error", "logger", "registration", "core", "engine")

__all__ = [*_LAZY_NAMES, *_SUBMODULES]


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"nbgym.{name}")
    else:
        raise AttributeError(f"module 'nbgym' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
