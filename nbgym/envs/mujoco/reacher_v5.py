"""Reacher-v5: move a two-jointed arm's fingertip to a random target, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Final

import numpy as np

from nbgym.engine import njit
from nbgym.engine import rng as random
from nbgym.envs.mujoco import _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import ACTION, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco import _health
from nbgym.envs.mujoco._sim import QPOS, QVEL, XPOS, load, store

DEFAULT_CAMERA_CONFIG: Final[dict[str, float]] = {"trackbodyid": 0}

REWARD_DIST, REWARD_CTRL, GOAL = 0, 1, 2  # GOAL: the target drawn at the last reset (two columns)


def _observe(params, data, i, obs):
    qpos = data[QPOS]
    for k in range(2):
        angle = load(qpos, k)
        obs[i, k] = np.cos(angle)
        obs[i, 2 + k] = np.sin(angle)
    at = _sim.copy_out(obs, i, 4, qpos, 2, params._nq - 2)
    at = _sim.copy_out(obs, i, at, data[QVEL], 0, 2)
    xpos = data[XPOS]
    for k in range(params._observed_difference_size):
        obs[i, at + k] = load(xpos, 3 * params._fingertip + k) - load(xpos, 3 * params._target + k)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    qpos = data[QPOS]
    qvel = data[QVEL]
    nq, nv = params._nq, params._nv
    for k in range(nq):
        store(qpos, k, random.uniform(rng, i, -0.1, 0.1) + load(params._init_qpos, k))
    while True:
        goal_x = random.uniform(rng, i, -0.2, 0.2)
        goal_y = random.uniform(rng, i, -0.2, 0.2)
        if _sim.norm_2(goal_x, goal_y, params._norm_fuses) < 0.2:
            break
    store(qpos, nq - 2, goal_x)
    store(qpos, nq - 1, goal_y)
    _sim.set_uniform(qvel, params._init_qvel, nv, rng, i, -0.005, 0.005)
    store(qvel, nv - 2, 0.0)
    store(qvel, nv - 1, 0.0)
    _sim.forward(params, data, i)
    aux[i, GOAL] = goal_x
    aux[i, GOAL + 1] = goal_y


@njit
def _distance(params, data, i):
    return _sim.norm_of_difference(data[XPOS], 3 * params._fingertip, 3 * params._target, 3, params._norm_fuses)


def _step(params, data, i, actions, rng, aux):
    # v4 measures the distance before simulating, v5 after (xpos is then mj_step's kinematics of the state
    # before its last substep, as gymnasium reads it).
    distance = _distance(params, data, i) if params._reward_before_step else 0.0
    _sim.simulate(params, data, i, actions)
    if not params._reward_before_step:
        distance = _distance(params, data, i)
    reward_dist = -distance * params._reward_dist_weight
    reward_ctrl = -_sim.weighted_action_cost(
        params, params._reward_control_weight, params._reward_control_weight_makes_float64, actions, i
    )
    aux[i, REWARD_DIST] = reward_dist
    aux[i, REWARD_CTRL] = reward_ctrl
    return reward_dist + reward_ctrl, False


PHYSICS = _sim.physics(
    "Reacher_v5",
    carry=XPOS,  # read before the step: xpos of the state before the last substep
    params=[
        *_sim.COMMON_PARAMS,
        ("_reward_dist_weight", np.float64),
        *_sim.action_weight("_reward_control_weight"),
        ("_fingertip", np.int64),
        ("_target", np.int64),
        ("_observed_difference_size", np.int64),
        ("_reward_before_step", np.bool_),
    ],
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=4,
)


def configure(reward_dist_weight, reward_control_weight, version=5):
    """The observation size and parameters for a model; ``version`` 4 observes the fingertip-target
    difference in 3D (v5: x and y) and rewards the distance before the step (v5: after)."""

    def configure_model(model):
        _sim.require(model.nq >= 2, ValueError, "Reacher", "positions qpos[-2:] (the target)", model)
        model.body("fingertip"), model.body("target")  # KeyError (gymnasium's) without them
        # gymnasium's observation (cos, sin of qpos[:2], qpos[2:], qvel[:2], the fingertip-target vector) has the
        # shape of its observation space only for 4 positions and 2 or more velocities: refused otherwise.
        _sim.require(
            model.nq == 4 and model.nv >= 2,
            ValueError,
            "Reacher",
            "4 positions and 2 or more velocities (its observation space's shape)",
            model,
        )
        observed = 3 if version == 4 else 2
        return 8 + observed, {
            "_reward_dist_weight": reward_dist_weight,
            "_reward_control_weight": reward_control_weight,
            "_fingertip": model.body("fingertip").id,
            "_target": model.body("target").id,
            "_observed_difference_size": observed,
            "_reward_before_step": version == 4,
        }

    return configure_model


class _Reacher:
    _negates_square_sum = True
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = (
        InfoKey("reward_dist", REWARD_DIST),
        InfoKey("reward_ctrl", REWARD_CTRL, ACTION, "_reward_control_weight"),
    )
    _reset_info_keys = ()
    _aux_columns = 4

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(args.reward_dist_weight, args.reward_control_weight)


class ReacherEnv(_Reacher, CompiledMujocoEnv):
    """
    ## Description

    A two-jointed robot arm: move its fingertip close to a target drawn at random at each reset.

    ## Action Space

    `Box(-1, 1, (2,), float32)`: the torques of the two hinges.

    ## Observation Space

    `Box(-inf, inf, (10,), float64)`: the cosine and sine of both arm angles, the target's x and y
    (`qpos[2:]`), the arm's angular velocities (`qvel[:2]`) and the fingertip's position minus the
    target's (x, y).

    ## Rewards

    `reward_dist + reward_ctrl`: `-reward_dist_weight * |fingertip - target|` and
    `-reward_control_weight * sum(action**2)` (in the action's dtype). As in gymnasium, the distance is
    read from MuJoCo's body positions, which `mj_step` computes before its last substep.

    ## Starting State

    `qpos = uniform(-0.1, 0.1) + init_qpos`, the target drawn from `uniform(-0.2, 0.2, 2)` until within
    0.2 of the origin; `qvel = init_qvel + uniform(-0.005, 0.005)`, the target's velocity 0.

    ## Episode End

    Never terminates; truncated after 50 steps.

    ## Arguments

    `xml_file="reacher.xml"`, `frame_skip=2`, `default_camera_config`, `reward_dist_weight=1`,
    `reward_control_weight=1`, and `MujocoEnv`'s. `info`: `reward_dist`, `reward_ctrl`.

    ## Version History

    * v5: minimum mujoco 2.3.3; `xml_file`, weights and camera arguments; the unused `z` of the
      fingertip-target vector left out of the observation (gymnasium 1.0). v4, v2, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "reacher.xml",
        frame_skip: int = 2,
        default_camera_config: dict[str, float] = DEFAULT_CAMERA_CONFIG,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 1,
        **kwargs: Any,
    ) -> None:
        pass

    @property
    def goal(self) -> np.ndarray:
        """The target's position drawn at the last reset, read-only (a copy: the target is ``qpos[-2:]``)."""
        goal = self._batch.aux[0, GOAL : GOAL + 2].copy()
        goal.flags.writeable = False
        return goal

    # gymnasium's reward, computed again from the live data (see _health)
    _get_rew = _health.reacher_rewards


ReacherVectorEnv = vector_env_class(ReacherEnv)
