"""LunarLander's compiled vector environment: every sub-environment's Box2D world is a row of the compiled Box2D
port (``nbgym._box2d``), and one call steps them all, with the physics of ``_lunar_lander_physics`` (which the
single env runs too). Bit for bit gymnasium's ``SyncVectorEnv`` in every autoreset mode; no ``box2d`` wheel needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelVectorEnv
from nbgym.envs.box2d import _lunar_lander_physics as P

__all__ = ["LunarLanderVectorEnv"]


class LunarLanderVectorEnv(KernelVectorEnv):
    """LunarLander's compiled vector environment: every sub-environment's Box2D world stepped in one call.

    The same results, bit for bit, as ``gymnasium.make_vec("LunarLander-v3", num_envs,
    vectorization_mode="sync")`` (or ``LunarLanderContinuous-v3``) for the same seeds and actions, in every
    autoreset mode, and without the ``box2d`` wheel. See ``nbgym.envs.box2d.lunar_lander.LunarLander`` for the
    environment and ``KernelVectorEnv`` for the vector arguments.

    It draws no frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single environments
    (whose flame particles exist only when rendered, as in gymnasium).
    """

    metadata = {"render_modes": [], "render_fps": P.FPS}
    physics = P.PHYSICS
    continuous = P.CONTINUOUS
    asserts_action_in_space = True  # gymnasium's step asserts action_space.contains(action): np.uint64 is refused

    def __init__(
        self,
        num_envs: int = 1,
        continuous: bool = False,
        gravity: float = -10.0,
        enable_wind: bool = False,
        wind_power: float = 15.0,
        turbulence_power: float = 1.5,
        max_episode_steps: int | None = 1000,
        **vector_options: Any,
    ) -> None:
        P.check_arguments(gravity, wind_power, turbulence_power)
        params = P.new_params(continuous, gravity, enable_wind, wind_power, turbulence_power, with_particles=False)
        super().__init__(num_envs, params, max_episode_steps=max_episode_steps, **vector_options)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps every sub-environment with its action (see ``KernelVectorEnv.step``).

        Raises:
            AttributeError: As gymnasium's sub-environment, when ``enable_wind`` was set after a reset without wind
                and a sub-environment that is not being reset would blow it (nothing moves).
        """
        if not self.continuous:
            P.note_action_dtype(
                self._params, actions.dtype if isinstance(actions, np.ndarray) else np.asarray(actions).dtype
            )
        if self._ready and self._params["enable_wind"][0]:
            P.refuse_undrawn_wind(self._params, self._batch.state, self.stepping_envs())
        return super().step(actions)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        return P.observation_and_action_spaces(self.continuous)
