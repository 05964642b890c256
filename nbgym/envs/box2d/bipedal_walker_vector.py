"""BipedalWalker's compiled vector environment: every sub-environment's Box2D world is a row of the compiled
Box2D port (``nbgym._box2d``), and one call steps them all.

The physics is ``_bipedal_walker_physics``'s, which the single environment runs too: gymnasium 1.4.0's ``BipedalWalker.reset``/``step``
written against the port (see that module). No ``box2d`` wheel is needed to run it.
"""

from __future__ import annotations

from typing import Any

from nbgym import spaces
from nbgym.engine import KernelVectorEnv
from nbgym.envs.box2d._bipedal_walker_physics import FPS, PHYSICS, walker_params, walker_spaces

__all__ = ["BipedalWalkerVectorEnv"]


class BipedalWalkerVectorEnv(KernelVectorEnv):
    """BipedalWalker's compiled vector environment: every sub-environment's Box2D world stepped in one call.

    The same results, bit for bit, as ``gymnasium.make_vec("BipedalWalker-v3", num_envs,
    vectorization_mode="sync")`` (or ``BipedalWalkerHardcore-v3``) for the same seeds and actions, in every
    autoreset mode, and without the ``box2d`` wheel. See ``nbgym.envs.box2d.bipedal_walker.BipedalWalker`` for
    the environment and ``KernelVectorEnv`` for the vector arguments.

    It draws no frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single environments.
    """

    metadata = {"render_modes": [], "render_fps": FPS}
    physics = PHYSICS

    def __init__(
        self,
        num_envs: int = 1,
        hardcore: bool = False,
        max_episode_steps: int | None = 1600,
        **vector_options: Any,
    ) -> None:
        super().__init__(num_envs, walker_params(hardcore), max_episode_steps=max_episode_steps, **vector_options)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Box]:
        return walker_spaces()
