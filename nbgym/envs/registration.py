"""``nbgym.envs.registration``: the registry API under gymnasium's module path (see :mod:`nbgym.registration`).

Other names of :mod:`nbgym.registration` (e.g. ``current_namespace``, which changes) are forwarded
live on access.
"""

from __future__ import annotations

from typing import Any

import nbgym.registration as _registration
from nbgym.registration import (
    EnvSpec,
    VectorizeMode,
    WrapperSpec,
    find_highest_version,
    get_env_id,
    load_env_creator,
    make,
    make_vec,
    namespace,
    parse_env_id,
    pprint_registry,
    register,
    register_envs,
    registry,
    spec,
)

__all__ = [
    "EnvSpec",
    "VectorizeMode",
    "WrapperSpec",
    "find_highest_version",
    "get_env_id",
    "load_env_creator",
    "make",
    "make_vec",
    "namespace",
    "parse_env_id",
    "pprint_registry",
    "register",
    "register_envs",
    "registry",
    "spec",
]


def __getattr__(name: str) -> Any:
    try:
        return getattr(_registration, name)
    except AttributeError:
        raise AttributeError(f"module 'nbgym.envs.registration' has no attribute {name!r}") from None
