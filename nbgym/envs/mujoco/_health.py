"""The public health, cost and termination members of gymnasium's MuJoCo walkers (``is_healthy``, ``healthy_reward``,
``control_cost(action)``, ``contact_forces``, ``contact_cost`` and v4's ``terminated``) and v5's rewards and reset
info (``_get_rew(...)``, ``_get_reset_info()``), for the single envs.

The kernels compute these for each step; these compute them again from the env's live ``data`` and parameters, as
gymnasium's envs do when they are read (after ``set_state`` or a write to ``data.qpos``, say), with the same numpy
operations on the same float64 values, so the numbers and their types are gymnasium's. They are the single envs'
only: a compiled vector env has no ``data`` of its own (``data_of(i)`` is each sub-environment's).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def control_cost(env: Any, action: Any) -> Any:
    """The weighted squared norm of ``action``."""
    return env._ctrl_cost_weight * np.sum(np.square(action))


def control_cost_of_ctrl(env: Any, action: Any) -> Any:
    """The weighted squared norm of the controls in ``data`` (Humanoid's; ``action`` is not read)."""
    return env._ctrl_cost_weight * np.sum(np.square(env.data.ctrl))


def healthy_reward(env: Any) -> Any:
    """v5: the healthy reward while healthy, else 0."""
    return env.is_healthy * env._healthy_reward


def healthy_reward_v4(env: Any) -> Any:
    """v4: the healthy reward while healthy or while an unhealthy state ends the episode."""
    return float(env.is_healthy or env._terminate_when_unhealthy) * env._healthy_reward


def terminated_v4(env: Any) -> Any:
    """v4: whether the episode ends for an unhealthy state."""
    return (not env.is_healthy) if env._terminate_when_unhealthy else False


def hopper_is_healthy(env: Any) -> bool:
    """Hopper: every observed state value but the height and angle, the height and the angle within their ranges."""
    height, angle = env.data.qpos[1:3]
    rest = env.state_vector()[2:]
    low_state, high_state = env._healthy_state_range
    low_z, high_z = env._healthy_z_range
    low_angle, high_angle = env._healthy_angle_range
    return all(
        (
            np.all(np.logical_and(low_state < rest, rest < high_state)),
            low_z < height < high_z,
            low_angle < angle < high_angle,
        )
    )


def walker_is_healthy(env: Any) -> Any:
    """Walker2d: the height and the angle within their ranges."""
    height, angle = env.data.qpos[1:3]
    low_z, high_z = env._healthy_z_range
    low_angle, high_angle = env._healthy_angle_range
    return (low_z < height < high_z) and (low_angle < angle < high_angle)


def humanoid_is_healthy(env: Any) -> Any:
    """Humanoid: the torso's height within its range."""
    low_z, high_z = env._healthy_z_range
    return low_z < env.data.qpos[2] < high_z


def ant_is_healthy(env: Any) -> Any:
    """Ant: every state value finite, the torso's height within its (closed) range."""
    state = env.state_vector()
    low_z, high_z = env._healthy_z_range
    return np.isfinite(state).all() and low_z <= state[2] <= high_z


def ant_contact_forces(env: Any) -> np.ndarray:
    """Ant: the external forces on the bodies, clipped to the contact force range."""
    low, high = env._contact_force_range
    return np.clip(env.data.cfrc_ext, low, high)


def ant_contact_cost(env: Any) -> Any:
    """Ant: the weighted squared norm of the clipped contact forces."""
    return env._contact_cost_weight * np.sum(np.square(env.contact_forces))


def humanoid_contact_cost(env: Any) -> Any:
    """Humanoid v5: the weighted squared norm of the external forces, clipped to the contact cost range."""
    cost = env._contact_cost_weight * np.sum(np.square(env.data.cfrc_ext))
    low, high = env._contact_cost_range
    return np.clip(cost, low, high)


def forward_reset_info(env: Any) -> dict[str, Any]:
    """HalfCheetah v5's reset info: the position along x."""
    return {"x_position": env.data.qpos[0]}


def planar_reset_info(env: Any) -> dict[str, Any]:
    """Hopper's and Walker2d's v5 reset info: the position along x, the height from the initial one."""
    return {
        "x_position": env.data.qpos[0],
        "z_distance_from_origin": env.data.qpos[1] - env.init_qpos[1],
    }


def plane_reset_info(env: Any) -> dict[str, Any]:
    """Swimmer's and Ant's v5 reset info: the position in the plane and its distance from the origin."""
    return {
        "x_position": env.data.qpos[0],
        "y_position": env.data.qpos[1],
        "distance_from_origin": np.linalg.norm(env.data.qpos[0:2], ord=2),
    }


def humanoid_reset_info(env: Any) -> dict[str, Any]:
    """Humanoid v5's reset info: the position in the plane, the tendons' lengths and velocities, the distance from
    the origin."""
    return {
        "x_position": env.data.qpos[0],
        "y_position": env.data.qpos[1],
        "tendon_length": env.data.ten_length.copy(),
        "tendon_velocity": env.data.ten_velocity.copy(),
        "distance_from_origin": np.linalg.norm(env.data.qpos[0:2], ord=2),
    }


def standup_reset_info(env: Any) -> dict[str, Any]:
    """HumanoidStandup v5's reset info: the position in the plane, the height from the initial one, the tendons'
    lengths and velocities."""
    return {
        "x_position": env.data.qpos[0],
        "y_position": env.data.qpos[1],
        "z_distance_from_origin": env.data.qpos[2] - env.init_qpos[2],
        "tendon_length": env.data.ten_length.copy(),
        "tendon_velocity": env.data.ten_velocity.copy(),
    }


def forward_rewards(env: Any, x_velocity: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """HalfCheetah's and Swimmer's v5 ``_get_rew``: the forward reward less the control cost."""
    forward_reward = env._forward_reward_weight * x_velocity
    ctrl_cost = env.control_cost(action)
    return forward_reward - ctrl_cost, {"reward_forward": forward_reward, "reward_ctrl": -ctrl_cost}


def walker_rewards(env: Any, x_velocity: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """Hopper's and Walker2d's v5 ``_get_rew``: the forward and healthy rewards less the control cost."""
    forward_reward = env._forward_reward_weight * x_velocity
    healthy_reward = env.healthy_reward
    ctrl_cost = env.control_cost(action)
    info = {"reward_forward": forward_reward, "reward_ctrl": -ctrl_cost, "reward_survive": healthy_reward}
    return forward_reward + healthy_reward - ctrl_cost, info


def _contact_rewards(env: Any, x_velocity: Any, action: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Ant's and Humanoid's v5 reward and its terms: the forward and healthy rewards less the control and contact
    costs."""
    forward_reward = x_velocity * env._forward_reward_weight
    healthy_reward = env.healthy_reward
    ctrl_cost = env.control_cost(action)
    contact_cost = env.contact_cost
    reward = (forward_reward + healthy_reward) - (ctrl_cost + contact_cost)
    return reward, forward_reward, healthy_reward, ctrl_cost, contact_cost


def ant_rewards(env: Any, x_velocity: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """Ant v5's ``_get_rew``."""
    reward, forward, healthy, ctrl, contact = _contact_rewards(env, x_velocity, action)
    info = {"reward_forward": forward, "reward_ctrl": -ctrl, "reward_contact": -contact, "reward_survive": healthy}
    return reward, info


def humanoid_rewards(env: Any, x_velocity: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """Humanoid v5's ``_get_rew``."""
    reward, forward, healthy, ctrl, contact = _contact_rewards(env, x_velocity, action)
    info = {"reward_survive": healthy, "reward_forward": forward, "reward_ctrl": -ctrl, "reward_contact": -contact}
    return reward, info


def standup_rewards(env: Any, pos_after: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """HumanoidStandup v5's ``_get_rew``: the height's rate less the control and impact costs, plus 1 (``action`` is
    not read: the controls in ``data`` are)."""
    uph_cost = (pos_after - 0) / env.model.opt.timestep
    quad_ctrl_cost = env._ctrl_cost_weight * np.square(env.data.ctrl).sum()
    low, high = env._impact_cost_range
    quad_impact_cost = np.clip(env._impact_cost_weight * np.square(env.data.cfrc_ext).sum(), low, high)
    info = {"reward_linup": uph_cost, "reward_quadctrl": -quad_ctrl_cost, "reward_impact": -quad_impact_cost}
    return uph_cost - quad_ctrl_cost - quad_impact_cost + 1, info


def reacher_rewards(env: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """Reacher v5's ``_get_rew``: the fingertip's distance to the target and the control, weighted."""
    reward_dist = -np.linalg.norm(env.get_body_com("fingertip") - env.get_body_com("target")) * env._reward_dist_weight
    reward_ctrl = -np.square(action).sum() * env._reward_control_weight
    return reward_dist + reward_ctrl, {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl}


def pusher_rewards(env: Any, action: Any) -> tuple[Any, dict[str, Any]]:
    """Pusher v5's ``_get_rew``: the object's distances to the arm's tip and to the goal and the control, weighted."""
    to_object = env.get_body_com("object") - env.get_body_com("tips_arm")
    to_goal = env.get_body_com("object") - env.get_body_com("goal")
    reward_near = -np.linalg.norm(to_object) * env._reward_near_weight
    reward_dist = -np.linalg.norm(to_goal) * env._reward_dist_weight
    reward_ctrl = -np.square(action).sum() * env._reward_control_weight
    info = {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl, "reward_near": reward_near}
    return reward_dist + reward_ctrl + reward_near, info


def double_pendulum_rewards(env: Any, x: Any, y: Any, terminated: Any) -> tuple[Any, dict[str, Any]]:
    """InvertedDoublePendulum v5's ``_get_rew``: the alive bonus less the tip's distance and velocity penalties."""
    v1, v2 = env.data.qvel[1:3]
    dist_penalty = 0.01 * x**2 + (y - 2) ** 2
    vel_penalty = 1e-3 * v1**2 + 5e-3 * v2**2
    alive_bonus = env._healthy_reward * int(not terminated)
    info = {"reward_survive": alive_bonus, "distance_penalty": -dist_penalty, "velocity_penalty": -vel_penalty}
    return alive_bonus - dist_penalty - vel_penalty, info
