"""Pusher-v5: push a cylinder to a goal with a seven-joint arm, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.engine import rng as random
from nbgym.envs.mujoco import _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco import _health
from nbgym.envs.mujoco._sim import QPOS, QVEL, XPOS, load, store

DEFAULT_CAMERA_CONFIG = {"trackbodyid": -1, "distance": 4.0}

REWARD_DIST, REWARD_CTRL, REWARD_NEAR, CYLINDER = 0, 1, 2, 3  # CYLINDER: drawn at the last reset (two columns)


def _observe(params, data, i, obs):
    at = _sim.copy_out(obs, i, 0, data[QPOS], 0, 7)
    at = _sim.copy_out(obs, i, at, data[QVEL], 0, 7)
    at = _sim.copy_out(obs, i, at, data[XPOS], 3 * params._tips_arm, 3)
    at = _sim.copy_out(obs, i, at, data[XPOS], 3 * params._object, 3)
    _sim.copy_out(obs, i, at, data[XPOS], 3 * params._goal, 3)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    qpos = data[QPOS]
    qvel = data[QVEL]
    nq, nv = params._nq, params._nv
    while True:
        cylinder_x = random.uniform(rng, i, -0.3, 0.0)
        cylinder_y = random.uniform(rng, i, -0.2, 0.2)
        if _sim.norm_2(cylinder_x, cylinder_y, params._norm_fuses) > 0.17:  # the goal is at the origin
            break
    # gymnasium writes these into init_qpos itself (qpos aliases it); sub-environments share init_qpos
    # here, so they go to qpos only (the single env mirrors them into init_qpos).
    for k in range(nq - 4):
        store(qpos, k, load(params._init_qpos, k))
    store(qpos, nq - 4, cylinder_x)
    store(qpos, nq - 3, cylinder_y)
    store(qpos, nq - 2, 0.0)
    store(qpos, nq - 1, 0.0)
    _sim.set_uniform(qvel, params._init_qvel, nv, rng, i, -0.005, 0.005)
    for k in range(nv - 4, nv):
        store(qvel, k, 0.0)
    _sim.forward(params, data, i)
    aux[i, CYLINDER] = cylinder_x
    aux[i, CYLINDER + 1] = cylinder_y


def _step(params, data, i, actions, rng, aux):
    _sim.simulate(params, data, i, actions)
    # xpos is mj_step's kinematics of the state before its last substep, as gymnasium reads it.
    xpos = data[XPOS]
    fused = params._norm_fuses
    reward_near = (
        -_sim.norm_of_difference(xpos, 3 * params._object, 3 * params._tips_arm, 3, fused) * params._reward_near_weight
    )
    reward_dist = (
        -_sim.norm_of_difference(xpos, 3 * params._object, 3 * params._goal, 3, fused) * params._reward_dist_weight
    )
    reward_ctrl = -_sim.weighted_action_cost(
        params, params._reward_control_weight, params._reward_control_weight_makes_float64, actions, i
    )
    aux[i, REWARD_DIST] = reward_dist
    aux[i, REWARD_CTRL] = reward_ctrl
    aux[i, REWARD_NEAR] = reward_near
    return reward_dist + reward_ctrl + reward_near, False


PHYSICS = _sim.physics(
    "Pusher_v5",
    params=[
        *_sim.COMMON_PARAMS,
        ("_reward_near_weight", np.float64),
        ("_reward_dist_weight", np.float64),
        *_sim.action_weight("_reward_control_weight"),
        ("_tips_arm", np.int64),
        ("_object", np.int64),
        ("_goal", np.int64),
    ],
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=5,
)


def _configure(reward_near_weight, reward_dist_weight, reward_control_weight):
    def configure(model):
        _sim.require(model.nq >= 4, ValueError, "Pusher", "positions qpos[-4:-2] (the cylinder)", model)
        model.body("tips_arm"), model.body("object"), model.body("goal")  # KeyError (gymnasium's) without them
        # gymnasium's observation (qpos[:7], qvel[:7], three body positions) has the shape of its observation
        # space only for 7 or more positions and velocities: refused otherwise.
        _sim.require(
            model.nq >= 7 and model.nv >= 7,
            ValueError,
            "Pusher",
            "7 or more positions and velocities (its observation space's shape)",
            model,
        )
        return 23, {
            "_reward_near_weight": reward_near_weight,
            "_reward_dist_weight": reward_dist_weight,
            "_reward_control_weight": reward_control_weight,
            "_tips_arm": model.body("tips_arm").id,
            "_object": model.body("object").id,
            "_goal": model.body("goal").id,
        }

    return configure


class _Pusher:
    _negates_square_sum = True
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("reward_dist", REWARD_DIST),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_reward_control_weight"),
        InfoKey("reward_near", REWARD_NEAR),
    )
    _reset_info_keys = ()
    _aux_columns = 5

    def _configure(self, args: SimpleNamespace) -> Configure:
        return _configure(args.reward_near_weight, args.reward_dist_weight, args.reward_control_weight)


class PusherEnv(_Pusher, CompiledMujocoEnv):
    """
    ## Description

    A seven-joint robot arm (shoulder, elbow, forearm, wrist) must push a cylinder on a table to a goal.

    ## Action Space

    `Box(-2, 2, (7,), float32)`: the torques of the seven joints.

    ## Observation Space

    `Box(-inf, inf, (23,), float64)`: the arm's joint angles `qpos[:7]` and velocities `qvel[:7]`, then
    the positions of the fingertip, the cylinder and the goal (3 each).

    ## Rewards

    `reward_dist + reward_ctrl + reward_near`: `-reward_dist_weight * |object - goal|`,
    `-reward_control_weight * sum(action**2)` (in the action's dtype) and
    `-reward_near_weight * |object - fingertip|`, from MuJoCo's body positions as gymnasium reads them.

    ## Starting State

    The arm at `init_qpos`; the cylinder drawn from `uniform(-0.3, 0)` (x) and `uniform(-0.2, 0.2)` (y)
    until more than 0.17 from the goal at the origin; `qvel = init_qvel + uniform(-0.005, 0.005)`, the
    cylinder's and the goal's velocities 0.

    ## Episode End

    Never terminates; truncated after 100 steps.

    ## Arguments

    `xml_file="pusher_v5.xml"`, `frame_skip=5`, `default_camera_config`, `reward_near_weight=0.5`,
    `reward_dist_weight=1`, `reward_control_weight=0.1`, and `MujocoEnv`'s. `info`: `reward_dist`,
    `reward_ctrl`, `reward_near`.

    ## Version History

    * v5: minimum mujoco 3.0.0 (`pusher_v5.xml`); `xml_file`, weights and camera arguments; the
      `reward_near` info (gymnasium 1.0). v4, v2, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "pusher_v5.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | int] = DEFAULT_CAMERA_CONFIG,
        reward_near_weight: float = 0.5,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 0.1,
        **kwargs: Any,
    ) -> None:
        self.goal_pos = np.asarray([0, 0])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        result = super().reset(seed=seed, options=options)
        self._init_qpos[-4:] = self.data.qpos[-4:]  # gymnasium's reset writes the drawn positions into init_qpos
        return result

    @property
    def cylinder_pos(self) -> np.ndarray:
        """The cylinder's position drawn at the last reset."""
        return self._batch.aux[0, CYLINDER : CYLINDER + 2].copy()

    # gymnasium's reward, computed again from the live data (see _health)
    _get_rew = _health.pusher_rewards


PusherVectorEnv = vector_env_class(PusherEnv)
