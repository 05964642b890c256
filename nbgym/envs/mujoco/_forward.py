"""What HalfCheetah and Swimmer, v5 and v4, share: their parameters (a forward reward weight, a control cost
weight, the reset noise, whether the observation leaves out the leading positions) and their ``_configure``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import ClassVar

import numpy as np

from nbgym.envs.mujoco import _sim
from nbgym.envs.mujoco._compiled import Configure

PARAMS = [
    *_sim.COMMON_PARAMS,
    ("_forward_reward_weight", np.float64),
    *_sim.action_weight("_ctrl_cost_weight"),
    ("_reset_noise_scale", np.float64),
    ("_exclude_current_positions_from_observation", np.bool_),
]


class ForwardMover:
    """The env classes' shared part: a subclass names the leading positions (``qpos[:_positions]``: x, or x and
    y) that ``exclude_current_positions_from_observation`` leaves out, and ``_needs_positions`` (the env and
    what its model must have, for ``_sim.require``)."""

    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    _positions: ClassVar[int]
    _needs_positions: ClassVar[tuple[str, str]]

    def _configure(self, args: SimpleNamespace) -> Configure:
        exclude_current_positions_from_observation = args.exclude_current_positions_from_observation

        def configure_model(model):
            size = model.nq + model.nv - self._positions * exclude_current_positions_from_observation
            _sim.require_observation_size(size)
            _sim.require(model.nq >= self._positions, IndexError, *self._needs_positions, model)
            return size, {
                "_forward_reward_weight": args.forward_reward_weight,
                "_ctrl_cost_weight": args.ctrl_cost_weight,
                "_reset_noise_scale": args.reset_noise_scale,
                "_exclude_current_positions_from_observation": exclude_current_positions_from_observation,
            }

        return configure_model
