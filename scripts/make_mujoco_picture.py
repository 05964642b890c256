"""Makes ``docs/images/mujoco.png``: gymnasium's MuJoCo models drawn by nbgym's renderer, and
``docs/images/mujoco_vector.png``: the frames of a compiled MuJoCo vector env (run from the repository root).

    python scripts/make_mujoco_picture.py

Each model (the XML files of gymnasium's MuJoCo environments) is simulated for a moment from a
slightly perturbed initial state under random controls, then rendered headless by
:class:`nbgym.envs.mujoco.mujoco_rendering.MujocoRenderer` with its v5 environment's camera
configuration. Needs ``nbgym[mujoco]``, gymnasium (for the model files and camera settings), imageio
and an OpenGL backend (EGL or OSMesa headless).
"""

from __future__ import annotations

import importlib
import pathlib

import imageio.v3 as iio
import mujoco
import numpy as np
from make_readme_frames import OUT, row_of

import gymnasium
import nbgym
from nbgym.envs.mujoco.mujoco_rendering import MujocoRenderer

ASSETS = pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
SIZE = 160
# (model file, the gymnasium v5 module whose DEFAULT_CAMERA_CONFIG frames it, simulated seconds)
MODELS = [
    ("ant.xml", "ant_v5", 0.5),
    ("half_cheetah.xml", "half_cheetah_v5", 0.5),
    ("hopper.xml", "hopper_v5", 0.3),
    ("walker2d_v5.xml", "walker2d_v5", 0.3),
    ("humanoid.xml", "humanoid_v5", 0.3),
    ("swimmer.xml", "swimmer_v5", 1.0),
    ("reacher.xml", "reacher_v5", 0.5),
    ("pusher_v5.xml", "pusher_v5", 0.5),
    ("inverted_pendulum.xml", "inverted_pendulum_v5", 0.2),
    ("inverted_double_pendulum.xml", "inverted_double_pendulum_v5", 0.2),
]


def frame_of(xml: str, module: str, seconds: float, seed: int = 0) -> np.ndarray:
    """``xml``'s model after ``seconds`` of random controls, seen by its v5 environment's camera."""
    model = mujoco.MjModel.from_xml_path(str(ASSETS / xml))
    data = mujoco.MjData(model)
    rng = np.random.default_rng(seed)
    data.qpos[:] = model.qpos0 + rng.uniform(-0.05, 0.05, model.nq)
    low, high = model.actuator_ctrlrange.T
    for _ in range(int(seconds / model.opt.timestep)):
        data.ctrl[:] = rng.uniform(low, high)
        mujoco.mj_step(model, data)
    camera = getattr(importlib.import_module(f"gymnasium.envs.mujoco.{module}"), "DEFAULT_CAMERA_CONFIG", None)
    renderer = MujocoRenderer(model, data, camera, SIZE, SIZE)
    frame = renderer.render("rgb_array")
    renderer.close()
    return frame


def vector_frames(env_id: str = "Ant-v5", num_envs: int = 4, steps: int = 40) -> list[np.ndarray]:
    """The frames ``envs.render()`` gives of ``env_id``'s compiled vector env after ``steps`` random steps."""
    envs = nbgym.make_vec(env_id, num_envs, render_mode="rgb_array", width=SIZE, height=SIZE)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    for _ in range(steps):
        envs.step(envs.action_space.sample())
    frames = list(envs.render())
    envs.close()
    return frames


def main() -> None:
    frames = [frame_of(*entry) for entry in MODELS]
    half = len(frames) // 2
    top, bottom = row_of(frames[:half]), row_of(frames[half:])
    gap = np.full((8, top.shape[1], 3), 255, dtype=np.uint8)
    iio.imwrite(OUT / "mujoco.png", np.concatenate([top, gap, bottom]), optimize=True)
    iio.imwrite(OUT / "mujoco_vector.png", row_of(vector_frames()), optimize=True)


if __name__ == "__main__":
    main()
