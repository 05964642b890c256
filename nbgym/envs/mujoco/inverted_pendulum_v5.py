"""InvertedPendulum-v5: balance a pole on a cart, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.envs.mujoco import _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import INT, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco._sim import QPOS, QVEL, load

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 0, "distance": 2.04}

REWARD_SURVIVE = 0


def _observe(params, data, i, obs):
    at = _sim.copy_out(obs, i, 0, data[QPOS], 0, params._nq)
    _sim.copy_out(obs, i, at, data[QVEL], 0, params._nv)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_uniform(data[QVEL], params._init_qvel, params._nv, rng, i, -scale, scale)
    _sim.forward(params, data, i)


def _step(params, data, i, actions, rng, aux):
    _sim.simulate(params, data, i, actions)
    # gymnasium: not np.isfinite(observation).all() or np.abs(observation[1]) > 0.2
    terminated = abs(_sim.state_vector_value(params, data, i, 1)) > 0.2  # gymnasium's obs[1]
    for k in range(params._nq):
        terminated = terminated or not np.isfinite(load(data[QPOS], k))
    for k in range(params._nv):
        terminated = terminated or not np.isfinite(load(data[QVEL], k))
    # v4 rewards the terminating step too, v5 does not.
    reward = 1.0 if params._reward_terminating_step or not terminated else 0.0
    aux[i, REWARD_SURVIVE] = reward
    return reward, terminated


PHYSICS = _sim.physics(
    "InvertedPendulum_v5",
    params=[*_sim.COMMON_PARAMS, ("_reset_noise_scale", np.float64), ("_reward_terminating_step", np.bool_)],
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=1,
)


def configure(reset_noise_scale, reward_terminating_step=False):
    """The observation size and parameters for a model (``reward_terminating_step``: v4's reward, 1 on
    every step)."""

    def configure_model(model):
        _sim.require(model.nq + model.nv >= 2, IndexError, "InvertedPendulum", "an observation obs[1]", model)
        return model.nq + model.nv, {
            "_reset_noise_scale": reset_noise_scale,
            "_reward_terminating_step": reward_terminating_step,
        }

    return configure_model


class _InvertedPendulum:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (InfoKey("reward_survive", REWARD_SURVIVE, INT),)
    _reset_info_keys = ()
    _aux_columns = 1

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(args.reset_noise_scale)


class InvertedPendulumEnv(_InvertedPendulum, CompiledMujocoEnv):
    """
    ## Description

    The cart-pole of classic control in MuJoCo: a cart moves along a line, a pole hinged on it must be
    kept upright by pushing the cart.

    ## Action Space

    `Box(-3, 3, (1,), float32)`: the force on the cart.

    ## Observation Space

    `Box(-inf, inf, (4,), float64)`: the cart's position, the pole's angle, and their velocities.

    ## Rewards

    `1` (a Python `int`) for every step in which the pole stays upright, `0` for the terminating one.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-reset_noise_scale, reset_noise_scale)` noise.

    ## Episode End

    Terminates when the observation is not finite or the pole's angle exceeds 0.2 radians; truncated
    after 1000 steps.

    ## Arguments

    `xml_file="inverted_pendulum.xml"`, `frame_skip=2`, `default_camera_config`,
    `reset_noise_scale=0.01`, and `MujocoEnv`'s. `info`: `reward_survive`.

    ## Version History

    * v5: minimum mujoco 2.3.3; reward 0 on the terminating step; `xml_file`, `reset_noise_scale` and
      camera arguments (gymnasium 1.0). v4, v2, v0: older.
    """

    _reward_type = int

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "inverted_pendulum.xml",
        frame_skip: int = 2,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        reset_noise_scale: float = 0.01,
        **kwargs: Any,
    ) -> None:
        self.observation_structure = {"qpos": self.model.nq, "qvel": self.model.nv}


InvertedPendulumVectorEnv = vector_env_class(InvertedPendulumEnv)
