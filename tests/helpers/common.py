"""Constants shared by the test modules: the two libraries compared, the seeds, autoreset modes and hypothesis
settings most differential tests use (where the checkout is: ``helpers.paths``)."""

from __future__ import annotations

import gymnasium
from hypothesis import settings

import nbgym

LIBS = (gymnasium, nbgym)
SEEDS = (0, 1, 7, 123, 2**31 + 5)
MODES = ("NextStep", "SameStep", "Disabled")
"""The autoreset modes of vector envs."""

FAST = settings(max_examples=50, deadline=None)
"""The hypothesis settings of the property tests in the default run."""

JAX_IDS = [
    "phys2d/CartPole-v0",
    "phys2d/CartPole-v1",
    "phys2d/Pendulum-v0",
    "tabular/Blackjack-v0",
    "tabular/CliffWalking-v0",
]
"""gymnasium's functional (JAX) environment ids that nbgym registers."""
