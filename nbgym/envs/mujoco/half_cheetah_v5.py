"""HalfCheetah-v5: make a 2D cheetah run forward, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from typing import Any


from nbgym.envs.mujoco import _forward, _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, InfoKey
from nbgym.envs.mujoco._sim import QPOS, QVEL, load
from nbgym.envs.mujoco import _health

DEFAULT_CAMERA_CONFIG = {"distance": 4.0}

X_POSITION, X_VELOCITY, REWARD_FORWARD, REWARD_CTRL = range(4)


def _observe(params, data, i, obs):
    skipped = 1 if params._exclude_current_positions_from_observation else 0
    at = _sim.copy_out(obs, i, 0, data[QPOS], skipped, params._nq - skipped)
    _sim.copy_out(obs, i, at, data[QVEL], 0, params._nv)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_normal(data[QVEL], params._init_qvel, params._nv, rng, i, scale)
    _sim.forward(params, data, i)
    aux[i, X_POSITION] = load(data[QPOS], 0)


def _step(params, data, i, actions, rng, aux):
    before = load(data[QPOS], 0)
    _sim.simulate(params, data, i, actions)
    after = load(data[QPOS], 0)
    x_velocity = (after - before) / _sim.dt(params, data)
    forward_reward = params._forward_reward_weight * x_velocity
    # gymnasium computes the control cost on the action: float32 for a float32 action (NEP 50), unless
    # the weight is a np.float64.
    ctrl_cost = _sim.weighted_action_cost(
        params, params._ctrl_cost_weight, params._ctrl_cost_weight_makes_float64, actions, i
    )
    aux[i, X_POSITION] = after
    aux[i, X_VELOCITY] = x_velocity
    aux[i, REWARD_FORWARD] = forward_reward
    aux[i, REWARD_CTRL] = -ctrl_cost
    return forward_reward - ctrl_cost, False


PHYSICS = _sim.physics(
    "HalfCheetah_v5",
    params=_forward.PARAMS,
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=4,
)


class _HalfCheetah(_forward.ForwardMover):
    _positions = 1
    _needs_positions = ("HalfCheetah", "a position qpos[0] (x)")
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("x_position", X_POSITION),
        InfoKey("x_velocity", X_VELOCITY),
        InfoKey("reward_forward", REWARD_FORWARD),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_ctrl_cost_weight"),
    )
    _reset_info_keys = (InfoKey("x_position", X_POSITION),)
    _aux_columns = 4


class HalfCheetahEnv(_HalfCheetah, CompiledMujocoEnv):
    """
    ## Description

    The HalfCheetah is a 2-dimensional robot of 9 body parts and 8 joints connecting them (two paws).
    The goal is to apply torques to the joints to make the cheetah run forward (right) as fast as
    possible, with a positive reward for distance moved forward and a negative one for moving
    backward. The torso and head are fixed; torques act on the other 6 joints (thighs, shins, feet).

    ## Action Space

    `Box(-1, 1, (6,), float32)`: the torques of the back thigh, back shin, back foot, front thigh,
    front shin and front foot rotors.

    ## Observation Space

    `Box(-inf, inf, (17,), float64)`: `qpos[1:]` (8 positions: the rootz and rooty of the front tip,
    then the angles of the six joints) and `qvel` (9 velocities). With
    `exclude_current_positions_from_observation=False` the x-coordinate `qpos[0]` comes first (18 values).

    ## Rewards

    `reward = forward_reward - ctrl_cost`: `forward_reward_weight * dx/dt` (`dt = frame_skip * 0.01` =
    0.05 by default) and `ctrl_cost_weight * sum(action**2)` (computed on the action as given: a float32
    action gives a float32 cost). `info` holds `reward_forward` and `reward_ctrl`.

    ## Starting State

    `qpos = init_qpos + uniform(-reset_noise_scale, reset_noise_scale, nq)` and
    `qvel = init_qvel + reset_noise_scale * standard_normal(nv)`.

    ## Episode End

    Never terminates; truncated after 1000 steps by `make`'s `TimeLimit`.

    ## Arguments

    | Parameter | Type | Default |
    |---|---|---|
    | `xml_file` | str | `"half_cheetah.xml"` |
    | `frame_skip` | int | `5` |
    | `default_camera_config` | dict | `{"distance": 4.0}` |
    | `forward_reward_weight` | float | `1` |
    | `ctrl_cost_weight` | float | `0.1` |
    | `reset_noise_scale` | float | `0.1` |
    | `exclude_current_positions_from_observation` | bool | `True` |

    plus `MujocoEnv`'s `render_mode`, `width`, `height`, `camera_id`, `camera_name`, `max_geom`,
    `visual_options`. `info`: `x_position`, `x_velocity`, `reward_forward`, `reward_ctrl` (reset:
    `x_position`).

    The physics runs in nbgym's compiled kernels (the same libmujoco calls as gymnasium's, so the same
    numbers); `nbgym.make_vec("HalfCheetah-v5", num_envs)` steps all sub-environments in one call.

    ## Version History

    * v5: minimum mujoco version 2.3.3; `default_camera_config`, `reset_noise_scale`, `xml_file` arguments;
      `info["reward_ctrl"]` sign fixed (gymnasium 1.0).
    * v4: mujoco bindings. v3: `xml_file` and weights. v2: mujoco-py >= 1.50. v1: 1000 steps. v0: initial.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "half_cheetah.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 0.1,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        skipped = 1 * exclude_current_positions_from_observation
        self.observation_structure = {"skipped_qpos": skipped, "qpos": self.model.nq - skipped, "qvel": self.model.nv}

    # gymnasium's public health and cost members, rewards and reset info, computed again from the live data (see _health)
    _get_rew = _health.forward_rewards
    _get_reset_info = _health.forward_reset_info
    control_cost = _health.control_cost


HalfCheetahVectorEnv = vector_env_class(HalfCheetahEnv)
