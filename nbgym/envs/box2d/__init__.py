"""The Box2D environments, as gymnasium's ``gymnasium.envs.box2d``: LunarLander, BipedalWalker and CarRacing.

They run on nbgym's compiled Box2D port (``nbgym._box2d``): no ``box2d`` wheel is needed. The classes are loaded
on first use, so that importing this package compiles nothing and imports no pygame.
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
