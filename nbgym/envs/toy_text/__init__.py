"""The toy-text environments, as gymnasium's ``gymnasium.envs.toy_text``: each module holds an
environment's compiled physics, its class and its compiled vector class.

The classes are loaded on first use, so that making one environment imports (and registers with numba)
only its own module.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

_MODULES = {
    "BlackjackEnv": "blackjack",
    "CliffWalkingEnv": "cliffwalking",
    "FrozenLakeEnv": "frozen_lake",
    "TaxiEnv": "taxi",
}

__all__ = list(_MODULES)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULES)
