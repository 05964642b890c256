"""Pusher-v4, which gymnasium 1.4.0 registers but refuses on mujoco >= 3 (its model does not simulate as it
did on mujoco 2: https://github.com/Farama-Foundation/Gymnasium/issues/950); nbgym refuses it the same way.
Use Pusher-v5 (``nbgym.envs.mujoco.pusher_v5``)."""

from __future__ import annotations

from typing import Any

from nbgym.envs.mujoco.mujoco_env import MujocoEnv, mujoco


def _mujoco_major_version() -> int:
    return int(mujoco.__version__.split(".")[0])


class PusherEnv(MujocoEnv):
    """Pusher-v4: refused, as gymnasium refuses it on mujoco >= 3 (nbgym's other MuJoCo environments need
    the compiled engine's mujoco, so nbgym has no mujoco 2 version of it either); use Pusher-v5.

    Raises:
        ImportError: Always: gymnasium's error on mujoco >= 3, and on mujoco 2 the same advice.
    """

    metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"], "render_fps": 20}

    def __init__(self, **kwargs: Any) -> None:
        if _mujoco_major_version() >= 3:
            raise ImportError(
                "`Pusher-v4` is only supported on `mujoco<3`, for more information "
                "https://github.com/Farama-Foundation/Gymnasium/issues/950"
            )
        raise ImportError(
            "nbgym does not provide `Pusher-v4`: use `Pusher-v5`, or gymnasium's Pusher-v4 with mujoco<3."
        )
