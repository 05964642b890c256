"""InvertedDoublePendulum-v4: balance two poles on a cart, as gymnasium's, on the compiled engine
(InvertedDoublePendulum-v5's physics with v4's observation and reward)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv, Configure
from nbgym.envs.mujoco.inverted_double_pendulum_v5 import DEFAULT_CAMERA_CONFIG, PHYSICS, configure

XML_FILE, FRAME_SKIP = "inverted_double_pendulum.xml", 5
HEALTHY_REWARD, RESET_NOISE_SCALE = 10.0, 0.1


class _InvertedDoublePendulum:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = ()
    _reset_info_keys = ()
    _aux_columns = 3
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(HEALTHY_REWARD, RESET_NOISE_SCALE, version=4)


class InvertedDoublePendulumEnv(_InvertedDoublePendulum, CompiledMujocoEnv):
    """
    ## Description

    InvertedDoublePendulum-v5's cart and poles (see `nbgym.envs.mujoco.inverted_double_pendulum_v5`) as
    gymnasium's v4 has them.

    ## Action Space

    `Box(-1, 1, (1,), float32)`: the force on the cart.

    ## Observation Space

    `Box(-inf, inf, (11,), float64)`: the cart's position, the sines then cosines of the two hinge
    angles, `clip(qvel, -10, 10)` (3) and `clip(qfrc_constraint, -10, 10)` (3).

    ## Rewards

    `10 - distance_penalty - velocity_penalty` on every step (the terminating one too):
    `0.01 * x**2 + (y - 2)**2` of the tip (site) position and `1e-3 * v1**2 + 5e-3 * v2**2` of the hinge
    velocities.

    ## Starting State

    `init_qpos + uniform(-0.1, 0.1)`, `init_qvel + standard_normal * 0.1`.

    ## Episode End

    Terminates when the tip's height `y <= 1`; truncated after 1000 steps.

    ## Arguments

    `MujocoEnv`'s rendering arguments (the model is `inverted_double_pendulum.xml`, `frame_skip` 5).
    `info`: none.

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): only the cart's constraint force observed; no bonus
      on the terminating step; arguments and infos. v2, v0: older.
    """

    @declares_arguments
    def __init__(self, **kwargs: Any) -> None:
        pass


InvertedDoublePendulumVectorEnv = vector_env_class(InvertedDoublePendulumEnv)
