"""``MujocoEnv``: the base class of MuJoCo environments, with gymnasium's API.

An environment written against ``gymnasium.envs.mujoco.MujocoEnv`` runs unchanged on this class (only
the import changes): the model and data, ``frame_skip``, ``dt``, ``init_qpos``/``init_qvel``,
``do_simulation``, ``set_state``, ``state_vector``, ``get_body_com``, ``reset_model`` and
``_get_reset_info`` behave as gymnasium's, through the same mujoco bindings, so such an env gives
gymnasium's numbers. nbgym's own MuJoCo environments are this class too, with their physics compiled
(see ``nbgym.envs.mujoco._compiled``).
"""

from __future__ import annotations

from os import path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nbgym import error, spaces
from nbgym.core import Env
from nbgym.spaces import Space

try:
    import mujoco
except ImportError as e:
    raise error.DependencyNotInstalled('MuJoCo is not installed, run `pip install "nbgym[mujoco]"`') from e

DEFAULT_SIZE = 480

ASSETS = path.join(path.dirname(__file__), "assets")
"""The directory of the models of nbgym's MuJoCo environments (gymnasium's models)."""


def expand_model_path(model_path: str) -> str:
    """The full path of a model: as given when it starts with ``.`` or ``/``, ``~`` expanded, and
    otherwise a file of nbgym's MuJoCo assets.

    Raises:
        OSError: If the file does not exist.
    """
    if model_path.startswith(".") or model_path.startswith("/"):
        fullpath = model_path
    elif model_path.startswith("~"):
        fullpath = path.expanduser(model_path)
    else:
        fullpath = path.join(ASSETS, model_path)
    if not path.exists(fullpath):
        raise OSError(f"File {fullpath} does not exist")
    return fullpath


def load_model(fullpath: str, width: int, height: int) -> mujoco.MjModel:
    """The model at ``fullpath``, its offscreen framebuffer grown (never shrunk) to ``width`` x ``height``.

    Raises:
        ValueError: If mujoco cannot parse or compile the file (mujoco's message says where).
    """
    model = mujoco.MjModel.from_xml_path(fullpath)
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    return model


def action_space_of(model: mujoco.MjModel) -> spaces.Box:
    """The float32 ``Box`` of the model's actuator control ranges, as gymnasium builds it."""
    low, high = model.actuator_ctrlrange.copy().astype(np.float32).T
    return spaces.Box(low=low, high=high, dtype=np.float32)


def check_one_camera(camera_id: int | None, camera_name: str | None) -> None:
    """Refuse a camera given both by id and by name, as gymnasium's ``MujocoRenderer`` does when it is made.

    Raises:
        ValueError: If both are given.
    """
    if camera_id is not None and camera_name is not None:
        raise ValueError("Both `camera_id` and `camera_name` cannot be specified at the same time.")


class MujocoEnv(Env):
    """Superclass of MuJoCo environments, as gymnasium's ``MujocoEnv``.

    Subclasses implement ``step`` (usually with ``do_simulation``), ``reset_model`` (usually with
    ``set_state``) and optionally ``_get_reset_info``.

    Args:
        model_path: The model's XML file (see :func:`expand_model_path`).
        frame_skip: MuJoCo steps (``mj_step``) per environment step.
        observation_space: The observation space (``None``: the subclass sets it).
        render_mode: ``"human"``, ``"rgb_array"``, ``"depth_array"`` or ``"rgbd_tuple"``.
        width, height: The size of rendered frames (the model's offscreen buffer grows to fit).
        camera_id, camera_name: The camera to render from (at most one of them).
        default_camera_config: Attributes of the free camera (``distance``, ``lookat``, ...).
        max_geom: The most geoms rendered.
        visual_options: ``mjtVisFlag`` render flags.

    Raises:
        OSError: If ``model_path`` does not exist.
        ValueError: If mujoco cannot load the model.
        nbgym.error.DependencyNotInstalled: When mujoco is not installed (on import of this module).
    """

    def __init__(
        self,
        model_path: str,
        frame_skip: int,
        observation_space: Space | None,
        render_mode: str | None = None,
        width: int = DEFAULT_SIZE,
        height: int = DEFAULT_SIZE,
        camera_id: int | None = None,
        camera_name: str | None = None,
        default_camera_config: dict[str, float] | None = None,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        self.fullpath = expand_model_path(model_path)
        self.width = width
        self.height = height
        self.model, self.data = self._initialize_simulation()
        self.init_qpos = self.data.qpos.ravel().copy()
        self.init_qvel = self.data.qvel.ravel().copy()
        self.frame_skip = frame_skip
        if "render_fps" in self.metadata:
            assert int(np.round(1.0 / self.dt)) == self.metadata["render_fps"], (
                f"Expected value: {int(np.round(1.0 / self.dt))}, Actual value: {self.metadata['render_fps']}"
            )
        if observation_space is not None:
            self.observation_space = observation_space
        self._set_action_space()
        self.render_mode = render_mode
        self.camera_name = camera_name
        self.camera_id = camera_id
        check_one_camera(camera_id, camera_name)  # where gymnasium's MujocoEnv makes its renderer, which refuses both
        self._renderer_arguments = (
            default_camera_config,
            width,
            height,
            max_geom,
            camera_id,
            camera_name,
            visual_options,
        )
        self._mujoco_renderer = None

    def _set_action_space(self) -> spaces.Box:
        self.action_space = action_space_of(self.model)
        return self.action_space

    def _initialize_simulation(self) -> tuple[mujoco.MjModel, mujoco.MjData]:
        """The ``MjModel`` of ``self.fullpath`` and its ``MjData``."""
        model = load_model(self.fullpath, self.width, self.height)
        return model, mujoco.MjData(model)

    @property
    def mujoco_renderer(self) -> Any:
        """The ``MujocoRenderer`` of this env (``nbgym.envs.mujoco.mujoco_rendering``), created on first use."""
        if self._mujoco_renderer is None:
            from nbgym.envs.mujoco.mujoco_rendering import MujocoRenderer

            default_camera_config, width, height, max_geom, camera_id, camera_name, visual_options = (
                self._renderer_arguments
            )
            self._mujoco_renderer = MujocoRenderer(
                self.model,
                self.data,
                default_camera_config,
                width,
                height,
                max_geom,
                camera_id,
                camera_name,
                visual_options,
            )
        return self._mujoco_renderer

    def set_state(self, qpos: NDArray[np.float64], qvel: NDArray[np.float64]) -> None:
        """Set the joint positions ``qpos`` and velocities ``qvel``, then ``mj_forward``.

        Raises:
            AssertionError: If the shapes are not ``(model.nq,)`` and ``(model.nv,)``.
        """
        assert qpos.shape == (self.model.nq,) and qvel.shape == (self.model.nv,)
        self.data.qpos[:] = np.copy(qpos)
        self.data.qvel[:] = np.copy(qvel)
        if self.model.na == 0:
            self.data.act[:] = None
        mujoco.mj_forward(self.model, self.data)

    def _step_mujoco_simulation(self, ctrl: Any, n_frames: int) -> None:
        self.data.ctrl[:] = ctrl
        mujoco.mj_step(self.model, self.data, nstep=n_frames)
        # Force-related quantities (cfrc_ext, ...) are computed only on request since MuJoCo 2.0.
        mujoco.mj_rnePostConstraint(self.model, self.data)

    def render(self) -> Any:
        """A frame of the simulation in ``render_mode``."""
        return self.mujoco_renderer.render(self.render_mode)

    def close(self) -> None:
        """Close the rendering contexts."""
        if self._mujoco_renderer is not None:
            self._mujoco_renderer.close()

    def get_body_com(self, body_name: str) -> NDArray[np.float64]:
        """The cartesian position of a body's frame."""
        return self.data.body(body_name).xpos

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        mujoco.mj_resetData(self.model, self.data)
        ob = self.reset_model()
        info = self._get_reset_info()
        if self.render_mode == "human":
            self.render()
        return ob, info

    @property
    def dt(self) -> float:
        """The duration of one environment step: ``model.opt.timestep * frame_skip``."""
        return self.model.opt.timestep * self.frame_skip

    def do_simulation(self, ctrl: Any, n_frames: int) -> None:
        """Apply ``ctrl`` and step the simulation ``n_frames`` times.

        Raises:
            ValueError: If ``ctrl`` does not have the shape ``(model.nu,)``.
        """
        if np.array(ctrl).shape != (self.model.nu,):
            raise ValueError(f"Action dimension mismatch. Expected {(self.model.nu,)}, found {np.array(ctrl).shape}")
        self._step_mujoco_simulation(ctrl, n_frames)

    def state_vector(self) -> NDArray[np.float64]:
        """The joint positions and velocities, concatenated (not the full MuJoCo state)."""
        return np.concatenate([self.data.qpos.flat, self.data.qvel.flat])

    def step(self, action: NDArray[np.float32]) -> tuple[NDArray[np.float64], np.float64, bool, bool, dict]:
        raise NotImplementedError

    def reset_model(self) -> NDArray[np.float64]:
        """Reset the robot's degrees of freedom (``qpos``, ``qvel``); subclasses implement it."""
        raise NotImplementedError

    def _get_reset_info(self) -> dict[str, Any]:
        """The info returned by ``reset()``."""
        return {}
