"""Crossing between nbgym and gymnasium: environments, vector environments, spaces and specs, both ways.

Importing this package imports gymnasium (nothing else in nbgym does):

- :func:`to_gymnasium` presents nbgym objects as gymnasium's (real ``gymnasium.Env``,
  ``gymnasium.vector.VectorEnv``, ``gymnasium.spaces`` instances), for gymnasium's wrappers,
  ``check_env``, Stable-Baselines3 and any code that checks gymnasium types;
- :func:`from_gymnasium` presents gymnasium objects (third-party environments included) as nbgym's,
  for nbgym's wrappers and vector environments.

Results are unchanged by the crossing, bit for bit, and nothing is copied per step.
``import nbgym.gymnasium`` registers nbgym's environments in gymnasium's registry (see
:mod:`nbgym.gymnasium`).
"""

from nbgym.interop.envs import (
    AsGymnasiumEnv,
    AsGymnasiumVectorEnv,
    FromGymnasiumEnv,
    FromGymnasiumVectorEnv,
    convert_spec,
    from_gymnasium,
    to_gymnasium,
)
from nbgym.interop.spaces import convert_space

__all__ = [
    "to_gymnasium",
    "from_gymnasium",
    "AsGymnasiumEnv",
    "AsGymnasiumVectorEnv",
    "FromGymnasiumEnv",
    "FromGymnasiumVectorEnv",
    "convert_space",
    "convert_spec",
]
