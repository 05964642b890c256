"""InvertedDoublePendulum-v5: balance two poles on a cart, as gymnasium's, on the compiled engine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from nbgym.engine import npmath
from nbgym.envs.mujoco import _sim
from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import F64, FLOAT, INT, CompiledMujocoEnv, Configure, InfoKey
from nbgym.envs.mujoco import _health
from nbgym.envs.mujoco._sim import QFRC_CONSTRAINT, QPOS, QVEL, SITE_XPOS, load

DEFAULT_CAMERA_CONFIG = {"trackbodyid": 0, "distance": 4.1225, "lookat": np.array((0.0, 0.0, 0.12250000000000005))}

REWARD_SURVIVE, DISTANCE_PENALTY, VELOCITY_PENALTY = range(3)


def _observe(params, data, i, obs):
    qpos = data[QPOS]
    nq = params._nq
    obs[i, 0] = load(qpos, 0)
    for k in range(1, nq):
        angle = load(qpos, k)
        obs[i, k] = np.sin(angle)
        obs[i, nq - 1 + k] = np.cos(angle)
    at = _sim.copy_out_clipped(obs, i, 2 * nq - 1, data[QVEL], 0, params._nv, -10.0, 10.0)
    _sim.copy_out_clipped(obs, i, at, data[QFRC_CONSTRAINT], 0, params._observed_constraint_forces, -10.0, 10.0)


def _reset(params, data, i, rng, aux):
    _sim.reset_data(params, data, i)
    scale = params._reset_noise_scale
    _sim.set_uniform(data[QPOS], params._init_qpos, params._nq, rng, i, -scale, scale)
    _sim.set_normal(data[QVEL], params._init_qvel, params._nv, rng, i, scale)
    _sim.forward(params, data, i)


def _step(params, data, i, actions, rng, aux):
    _sim.simulate(params, data, i, actions)
    x = load(data[SITE_XPOS], 0)
    y = load(data[SITE_XPOS], 2)
    terminated = y <= 1
    v1 = load(data[QVEL], 1)
    v2 = load(data[QVEL], 2)
    # numpy's ** on float64 scalars is libm's pow, which npmath.square reproduces.
    dist_penalty = 0.01 * npmath.square(x) + npmath.square(y - 2)
    vel_penalty = 1e-3 * npmath.square(v1) + 5e-3 * npmath.square(v2)
    # v4 gives the bonus on the terminating step too, v5 does not.
    alive_bonus = params._healthy_reward * (1.0 if params._reward_terminating_step or not terminated else 0.0)
    aux[i, REWARD_SURVIVE] = alive_bonus
    aux[i, DISTANCE_PENALTY] = -dist_penalty
    aux[i, VELOCITY_PENALTY] = -vel_penalty
    return alive_bonus - dist_penalty - vel_penalty, terminated


PHYSICS = _sim.physics(
    "InvertedDoublePendulum_v5",
    params=[
        *_sim.COMMON_PARAMS,
        ("_healthy_reward", np.float64),
        ("_reset_noise_scale", np.float64),
        ("_observed_constraint_forces", np.int64),
        ("_reward_terminating_step", np.bool_),
    ],
    source=__file__,
    reset=_reset,
    step=_step,
    observe=_observe,
    aux_width=3,
)


def configure(healthy_reward, reset_noise_scale, version=5):
    """The observation size and parameters for a model; ``version`` 4 observes every constraint force (v5:
    the cart's) and gives the healthy reward on the terminating step too."""

    def configure_model(model):
        _sim.require(model.nsite >= 1, IndexError, "InvertedDoublePendulum", "a site (site_xpos[0]: the tip)", model)
        _sim.require(model.nv >= 3, ValueError, "InvertedDoublePendulum", "velocities qvel[1:3]", model)
        observed = model.nv if version == 4 else 1
        return 2 * model.nq - 1 + model.nv + observed, {
            "_healthy_reward": healthy_reward,
            "_reset_noise_scale": reset_noise_scale,
            "_observed_constraint_forces": observed,
            "_reward_terminating_step": version == 4,
        }

    return configure_model


def _step_info_keys(healthy_reward: Any) -> tuple[InfoKey, ...]:
    """The step infos; ``reward_survive`` (``healthy_reward * int(not terminated)`` in gymnasium) is a Python
    ``int`` for an integer ``healthy_reward``, a ``np.float64`` for a numpy one, a Python ``float`` otherwise."""
    if isinstance(healthy_reward, (bool, int)):
        survive_kind = INT
    else:
        survive_kind = F64 if isinstance(healthy_reward, np.floating) else FLOAT
    return (
        InfoKey("reward_survive", REWARD_SURVIVE, survive_kind),
        InfoKey("distance_penalty", DISTANCE_PENALTY),
        InfoKey("velocity_penalty", VELOCITY_PENALTY),
    )


class _InvertedDoublePendulum:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    physics = PHYSICS
    _step_info_keys = _step_info_keys(10.0)
    _reset_info_keys = ()
    _aux_columns = 3

    def _configure(self, args: SimpleNamespace) -> Configure:
        self._step_info_keys = _step_info_keys(args.healthy_reward)
        return configure(args.healthy_reward, args.reset_noise_scale)


class InvertedDoublePendulumEnv(_InvertedDoublePendulum, CompiledMujocoEnv):
    """
    ## Description

    A cart carrying two poles hinged one on the other: keep the top of the second pole high by pushing
    the cart.

    ## Action Space

    `Box(-1, 1, (1,), float32)`: the force on the cart.

    ## Observation Space

    `Box(-inf, inf, (9,), float64)`: the cart's position, the sines then cosines of the two hinge
    angles, `clip(qvel, -10, 10)` (3) and the cart's constraint force `clip(qfrc_constraint, -10, 10)[0]`.

    ## Rewards

    `alive_bonus - distance_penalty - velocity_penalty`: `healthy_reward` unless terminated,
    `0.01 * x**2 + (y - 2)**2` of the tip (site) position and `1e-3 * v1**2 + 5e-3 * v2**2` of the hinge
    velocities.

    ## Starting State

    `init_qpos + uniform(-reset_noise_scale, reset_noise_scale)`, `init_qvel + standard_normal * reset_noise_scale`.

    ## Episode End

    Terminates when the tip's height `y <= 1`; truncated after 1000 steps.

    ## Arguments

    `xml_file="inverted_double_pendulum.xml"`, `frame_skip=5`, `default_camera_config`,
    `healthy_reward=10.0`, `reset_noise_scale=0.1`, and `MujocoEnv`'s. `info`: `reward_survive`,
    `distance_penalty`, `velocity_penalty`.

    ## Version History

    * v5: minimum mujoco 2.3.3; `qfrc_constraint` observed again (only the cart's); healthy reward 0 on
      the terminating step; more arguments (gymnasium 1.0). v4, v2, v0: older.
    """

    @declares_arguments
    def __init__(
        self,
        xml_file: str = "inverted_double_pendulum.xml",
        frame_skip: int = 5,
        default_camera_config: dict[str, float | np.ndarray] | None = None,
        healthy_reward: float = 10.0,
        reset_noise_scale: float = 0.1,
        **kwargs: Any,
    ) -> None:
        pass

    # gymnasium's reward, computed again from the live data (see _health)
    _get_rew = _health.double_pendulum_rewards


InvertedDoublePendulumVectorEnv = vector_env_class(InvertedDoublePendulumEnv)
