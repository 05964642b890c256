"""CarRacing's compiled vector environment: every sub-environment's track, car and world are rows of the compiled
Box2D port, and one call steps them all and draws their 96x96 observations.

The kernels are ``_car_racing_kernels``'s, which the single ``CarRacing`` runs too: the physics of
``car_racing_physics`` (gymnasium 1.4.0's ``CarRacing.reset``/``step`` and ``car_dynamics.Car`` on ``nbgym._box2d``)
and gymnasium's ``_render("state_pixels")`` drawn by the compiled rasteriser ``_raster`` from the rows, inside the step
kernel. So observations, rewards, flags and infos are gymnasium's ``SyncVectorEnv``'s, bit for bit, in every
autoreset mode, without the ``box2d`` wheel or pygame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym import error, spaces
from nbgym.engine import KernelVectorEnv
from nbgym.envs.box2d import _car_racing_kernels as K
from nbgym.envs.box2d import car_racing_physics as P

__all__ = ["CarRacingVectorEnv"]


class CarRacingVectorEnv(KernelVectorEnv):
    """CarRacing's compiled vector environment: every sub-environment's car and track stepped, and its 96x96 frame
    drawn, in one call.

    The same results, bit for bit, as ``gymnasium.make_vec("CarRacing-v3", num_envs, vectorization_mode="sync")``
    for the same seeds and actions, in every autoreset mode: the observations' pixels, the rewards, the flags and
    the ``lap_finished`` infos. See ``nbgym.envs.box2d.car_racing.CarRacing`` for the environment and
    ``KernelVectorEnv`` for the vector arguments.

    It draws no ``render()`` frames: ``make_vec`` with a ``render_mode`` makes a ``SyncVectorEnv`` of single
    environments.
    """

    metadata = {"render_modes": [], "render_fps": P.FPS}
    physics = K.PHYSICS
    asserts_action_in_space = True  # gymnasium's step checks action_space.contains(action): np.uint64 is refused

    def __init__(
        self,
        num_envs: int = 1,
        lap_complete_percent: float = 0.95,
        domain_randomize: bool = False,
        continuous: bool = True,
        max_episode_steps: int | None = 1000,
        **vector_options: Any,
    ) -> None:
        params = K.new_params(continuous, domain_randomize, lap_complete_percent)
        super().__init__(num_envs, params, max_episode_steps=max_episode_steps, **vector_options)
        if domain_randomize:  # gymnasium's __init__ draws colours from each env's (unseeded) stream
            K.draw_colors(self._batch.state, self._batch.pcg, self._batch.buf)

    @property
    def continuous(self) -> bool:
        """Whether actions are ``(steer, gas, brake)`` (``Box``) rather than one of five (``Discrete(5)``)."""
        return bool(self._params["continuous"][0])

    @continuous.setter
    def continuous(self, value: Any) -> None:
        _refuse_assignment("continuous")

    @property
    def domain_randomize(self) -> bool:
        """Whether each reset draws new road and grass colours (unless reset with ``options={"randomize": False}``)."""
        return bool(self._params["domain_randomize"][0])

    @domain_randomize.setter
    def domain_randomize(self, value: Any) -> None:
        _refuse_assignment("domain_randomize")

    @property
    def lap_complete_percent(self) -> float:
        """The share of the tiles to visit before the start tile completes the lap."""
        return float(self._params["lap_complete_percent"][0])

    @lap_complete_percent.setter
    def lap_complete_percent(self, value: Any) -> None:
        _refuse_assignment("lap_complete_percent")

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        """A NaN gas is a ``ValueError`` (as the single env's); a discrete action outside 0-4 gymnasium's
        ``InvalidAction``."""
        if self.continuous:
            return ValueError(f"CarRacing's gas is a number in [0, 1], not NaN: got {action!r}")
        return error.InvalidAction(
            f"you passed the invalid action `{action}`. The supported action_space is `{self.single_action_space}`"
        )

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        """gymnasium's ``options["randomize"]``: whether this reset draws new colours (with ``domain_randomize``);
        autoresets always do."""
        if not options or "randomize" not in options:
            return self._params
        params = self._params.copy()
        params["randomize"] = bool(options["randomize"])
        return params

    def _infos(self, aux: np.ndarray, obs: np.ndarray, contributing: np.ndarray | None) -> dict[str, Any]:
        """gymnasium's ``lap_finished`` info (given by a step that ends the lap, True, or leaves the playfield,
        False), batched as ``SyncVectorEnv`` batches it: absent when no sub-environment gives it."""
        given = aux[:, 0] != P.LAP_UNSET
        if contributing is not None:
            given &= contributing
        if not given.any():
            return {}
        return {"lap_finished": (aux[:, 0] == P.LAP_FINISHED) & given, "_lap_finished": given}

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Space]:
        return K.spaces(self.continuous)


def _refuse_assignment(name: str) -> None:
    """Refuses an assignment of a parameter the kernels read at every step, where gymnasium's env reads it at
    construction or at its next reset (the action space, the contact listener a reset makes): no value serves both.

    Raises:
        AttributeError: Always, saying how to get another value.
    """
    raise AttributeError(
        f"{name} is fixed when the compiled vector env is made: make another one, nbgym.make_vec('CarRacing-v3', "
        f"num_envs, {name}=...), or vectorization_mode='sync' for single envs whose attributes change."
    )
