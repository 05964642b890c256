"""The public health, cost and termination members of gymnasium's MuJoCo walkers (``is_healthy``, ``healthy_reward``,
``control_cost(action)``, ``contact_forces``, ``contact_cost`` and v4's ``terminated``) and v5's reset info
(``_get_reset_info()``), for the single envs.

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
