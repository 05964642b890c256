"""The Box2D environments, as gymnasium's ``gymnasium.envs.box2d``: LunarLander, BipedalWalker and CarRacing.

They run on the ``box2d`` wheel (``pip install "nbgym[box2d]"``). The classes are loaded on first use,
so that importing this package imports neither Box2D nor pygame.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

_MODULES = {
    "BipedalWalker": "bipedal_walker",
    "BipedalWalkerHardcore": "bipedal_walker",
    "CarRacing": "car_racing",
    "LunarLander": "lunar_lander",
    "LunarLanderContinuous": "lunar_lander",
}

__all__ = list(_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULES)
