"""What nbgym's Box2D environments share: Box2D itself (with the hint that installs it), pygame, and frames.

The environments drive the ``box2d`` 2.3.10 wheel through the same calls, in the same order and with
the same float values as gymnasium 1.4.0's, so that their simulations are identical; Box2D 2.3 is
deterministic for one binary.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from nbgym import error, logger
from nbgym.envs import _render

try:
    import Box2D
except ImportError as e:
    raise error.DependencyNotInstalled(
        'Box2D is not installed, you can install it by running `pip install "nbgym[box2d]"` (the box2d 2.3.10 wheel)'
    ) from e

__all__ = ["Box2D", "frame", "import_pygame", "warn_no_render_mode"]


def import_pygame() -> ModuleType:
    """``pygame`` (pygame-ce) with ``pygame.gfxdraw``, imported quietly (see :func:`nbgym.envs._render.import_pygame`).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed, with the command that installs it.
    """
    return _render.import_pygame("box2d")


def warn_no_render_mode(env: Any) -> None:
    """gymnasium's warning when ``render()`` is called on an environment made without a render mode."""
    env_id = env.spec.id if env.spec is not None else type(env).__name__
    logger.warn(
        "You are calling render method without specifying any render mode. "
        "You can specify the render_mode at initialization, "
        f'e.g. gym.make("{env_id}", render_mode="rgb_array")'
    )


def frame(surface: Any) -> np.ndarray:
    """The pixels of ``surface`` as a new ``(height, width, 3)`` uint8 array."""
    return np.transpose(np.array(import_pygame().surfarray.pixels3d(surface)), axes=(1, 0, 2))
