"""InvertedPendulum-v4: balance a pole on a cart, as gymnasium's, on the compiled engine (InvertedPendulum-v5's
physics with v4's reward)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nbgym.engine import declares_arguments, vector_env_class
from nbgym.envs.mujoco._compiled import CompiledMujocoEnv, Configure
from nbgym.envs.mujoco.inverted_pendulum_v5 import DEFAULT_CAMERA_CONFIG, PHYSICS, configure

XML_FILE, FRAME_SKIP, RESET_NOISE_SCALE = "inverted_pendulum.xml", 2, 0.01


class _InvertedPendulum:
    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"]}
    default_camera_config = DEFAULT_CAMERA_CONFIG
    physics = PHYSICS
    _step_info_keys = ()
    _reset_info_keys = ()
    _aux_columns = 1
    _constant_arguments = {"xml_file": XML_FILE, "frame_skip": FRAME_SKIP}

    def _configure(self, args: SimpleNamespace) -> Configure:
        return configure(RESET_NOISE_SCALE, reward_terminating_step=True)


class InvertedPendulumEnv(_InvertedPendulum, CompiledMujocoEnv):
    """
    ## Description

    InvertedPendulum-v5's cart and pole (see `nbgym.envs.mujoco.inverted_pendulum_v5`) as gymnasium's v4
    has them.

    ## Action Space

    `Box(-3, 3, (1,), float32)`: the force on the cart.

    ## Observation Space

    `Box(-inf, inf, (4,), float64)`: the cart's position, the pole's angle, and their velocities.

    ## Rewards

    `1.0` (a Python `float`) on every step, the terminating one too.

    ## Starting State

    `init_qpos` and `init_qvel` plus `uniform(-0.01, 0.01)` noise.

    ## Episode End

    Terminates when the observation is not finite or the pole's angle exceeds 0.2 radians; truncated
    after 1000 steps.

    ## Arguments

    `MujocoEnv`'s rendering arguments (the model is `inverted_pendulum.xml`, `frame_skip` 2). `info`: none.

    ## Version History

    * v4: mujoco bindings. v5 (use it for new work): reward 0 on the terminating step; arguments.
      v2, v0: older.
    """

    _reward_type = float

    @declares_arguments
    def __init__(self, **kwargs: Any) -> None:
        pass


InvertedPendulumVectorEnv = vector_env_class(InvertedPendulumEnv)
