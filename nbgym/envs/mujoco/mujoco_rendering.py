"""Rendering of MuJoCo simulations: gymnasium 1.4.0's ``MujocoRenderer``, headless by default.

:class:`MujocoRenderer` is what every MuJoCo environment renders with. It takes gymnasium's
arguments, in gymnasium's order, as ``MujocoEnv`` passes them::

    MujocoRenderer(model, data, default_camera_config, width, height, max_geom,
                   camera_id, camera_name, visual_options)

and ``render(render_mode)`` returns what gymnasium's returns: ``"rgb_array"`` a ``(height, width, 3)``
``uint8`` frame, ``"depth_array"`` a ``(height, width)`` ``float32`` depth buffer, ``"rgbd_tuple"``
both as a tuple, ``"human"`` draws into a window and returns ``None``. For the same model, state,
arguments and OpenGL backend, the frames are gymnasium's, bit for bit: the scene is built and drawn
by the same MuJoCo calls (``mjv_updateScene``, ``mjr_render``, ``mjr_readPixels``) with the same
camera. Each render mode has its own viewer (:class:`OffScreenViewer`, or :class:`WindowViewer`
for ``"human"``), created on its first frame, as in gymnasium.

Where gymnasium fails late or not at all, this renderer refuses with a message that says what to
do: an unknown camera name (gymnasium silently falls back to the free camera), a ``camera_id``
outside the model's cameras (MuJoCo ends the process), a frame larger than the model's offscreen
buffer (gymnasium returns a frame whose right part is garbage), an ``MjData`` of another model,
``"human"`` without a display (GLFW aborts the process), and no usable OpenGL library. And where
gymnasium goes wrong, this one does not: a renderer whose frame follows another renderer's (two
environments in one process) makes its own OpenGL context current, where gymnasium's draws with the
other one's; closing an offscreen viewer leaves GLFW running for the other renderers (gymnasium's
ends it); ``OffScreenViewer.render(..., segmentation=True)`` computes the segment ids in ``int32``
(gymnasium's overflows ``uint8`` under NumPy 2).

OpenGL backend
--------------
``MUJOCO_GL`` chooses the backend as in gymnasium: ``"glfw"`` (a window system), ``"egl"``
(headless; GPU or Mesa's software rasteriser) or ``"osmesa"`` (software). Unset, the first one that
works is used: glfw, egl, osmesa with a display, and egl, osmesa without one (on Linux, neither
``DISPLAY`` nor ``WAYLAND_DISPLAY`` is set), so rendering works headless without configuration.
PyOpenGL binds one platform per process, so the backend chosen is kept for the process and written
to ``os.environ["MUJOCO_GL"]`` (if unset): gymnasium's and other MuJoCo renderers in the same process
then use it too. A backend whose system libraries are missing raises :class:`GLBackendUnavailable`
naming the Debian/Ubuntu packages to install (EGL: ``libegl1 libegl-mesa0 libgl1-mesa-dri
libopengl0``; OSMesa: ``libosmesa6``).

Many simulations: the vector environment
----------------------------------------
A vector environment renders all of its sub-environments with one renderer (one OpenGL context per
render mode, not one per sub-environment) by passing each sub-environment's ``MjData``::

    frames = tuple(renderer.render("rgb_array", data=sub_data) for sub_data in datas)

``render(render_mode, data=d)`` draws ``d`` instead of ``renderer.data``; assigning
``renderer.data = d`` makes ``d`` the default. Each ``MjData`` keeps its own camera (a free camera
looks at the middle of the geoms of the data it first rendered, then ``default_camera_config``
applies), so sub-environment *i*'s frame is the frame its own renderer would give: the frames of
``SyncVectorEnv``'s separate gymnasium renderers. Cameras are dropped with their ``MjData``. A vector
environment whose states live elsewhere (state rows, a ``mujoco.batch.Batch``) and builds an ``MjData``
for a sub-environment only when asked passes ``camera_key=i`` too: sub-environment *i* then keeps its
camera however many ``MjData`` it is drawn from::

    frames = tuple(renderer.render("rgb_array", data=data_of(i), camera_key=i) for i in range(num_envs))
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
import weakref
from typing import Any, Hashable

import numpy as np

from nbgym import error
from nbgym.envs.mujoco.mujoco_env import check_one_camera
from nbgym.logger import warn

try:
    import mujoco
except ImportError as e:
    raise error.DependencyNotInstalled('MuJoCo is not installed, run `pip install "nbgym[mujoco]"`') from e

__all__ = [
    "MUJOCO_GL_BACKENDS",
    "BaseRender",
    "GLBackendUnavailable",
    "MujocoRenderer",
    "OffScreenViewer",
    "WindowViewer",
]

MUJOCO_GL_BACKENDS = ("glfw", "egl", "osmesa")
"""The values of ``MUJOCO_GL`` that gymnasium's renderer accepts, in the order it tries them."""

OFFSCREEN_MODES = ("rgb_array", "depth_array", "rgbd_tuple")
"""The render modes drawn into an offscreen buffer and returned as arrays."""

# mjv_moveCamera lost its scene argument in MuJoCo 3.11.
_MUJOCO_CAMERA_LEGACY_MODE = tuple(int(part) for part in mujoco.__version__.split(".")[:2]) < (3, 11)

# System libraries each headless backend loads through PyOpenGL (Linux sonames; each entry lists
# alternatives, any one of which does), and the Debian/Ubuntu packages that provide them.
_BACKEND_LIBRARIES: dict[str, tuple[tuple[str, ...], ...]] = {
    "egl": (("libEGL.so.1",), ("libOpenGL.so.0", "libGL.so.1")),
    "osmesa": (("libOSMesa.so.8", "libOSMesa.so.6"),),
}
_BACKEND_INSTALL_HINTS = {
    "glfw": "a display (an X11 or Wayland session; headless, use egl or osmesa)",
    "egl": "`apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libopengl0`",
    "osmesa": "`apt-get install libosmesa6`",
}

# The backend this process renders with, once one worked (PyOpenGL cannot switch platforms).
_process_backend: str | None = None


class GLBackendUnavailable(error.DependencyNotInstalled, RuntimeError):
    """No OpenGL backend can render: its system libraries are missing, or it needs a display.

    A ``RuntimeError``, as gymnasium's "No OpenGL backend could be imported".
    """


def _has_display() -> bool:
    """Whether a window system is reachable (always assumed off Linux, where GLFW needs none)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _missing_libraries(backend: str) -> list[str]:
    """The system libraries of ``backend`` that cannot be loaded (none off Linux, where we cannot tell).

    Checked before PyOpenGL is imported for the backend: PyOpenGL fixes its platform on import, so a
    failed attempt would otherwise block the next backend.
    """
    if not sys.platform.startswith("linux"):
        return []
    missing = []
    for alternatives in _BACKEND_LIBRARIES.get(backend, ()):
        for soname in alternatives:
            try:
                ctypes.CDLL(soname)
                break
            except OSError:
                continue
        else:
            missing.append(" or ".join(alternatives))
    return missing


def _open_context(backend: str, width: int, height: int) -> Any:
    """A new OpenGL context of ``backend``, made current.

    Raises:
        GLBackendUnavailable: If the backend's libraries or display are missing.
        ImportError, RuntimeError: If the backend fails to create or bind the context.
    """
    missing = _missing_libraries(backend)
    if missing:
        raise GLBackendUnavailable(f"cannot load {', '.join(missing)}")
    if backend == "glfw":
        import glfw

        if not _has_display() or not glfw.init():
            raise GLBackendUnavailable("GLFW cannot open a window: no display")
        from mujoco.glfw import GLContext
    elif backend == "egl":
        from mujoco.egl import GLContext
    else:
        from mujoco.osmesa import GLContext
    context = GLContext(width, height)
    context.make_current()
    if backend == "glfw" and not glfw.get_current_context():
        # GLFW reports a window it could not make (no GLX on the display, say) as a warning only.
        raise GLBackendUnavailable("GLFW could not create an OpenGL window on this display")
    return context


def _create_gl_context(width: int, height: int) -> tuple[str, Any]:
    """An OpenGL context for offscreen rendering, of the backend ``MUJOCO_GL`` names or the first that works.

    Args:
        width: The largest frame width the context will render.
        height: The largest frame height the context will render.

    Returns:
        The backend's name and its context (a ``mujoco.{glfw,egl,osmesa}.GLContext``), made current.

    Raises:
        RuntimeError: If ``MUJOCO_GL`` names no backend (gymnasium's error).
        GLBackendUnavailable: If no backend can render, naming the packages to install.
    """
    global _process_backend
    requested = os.environ.get("MUJOCO_GL")
    if requested is not None and requested not in MUJOCO_GL_BACKENDS:
        raise RuntimeError(
            f"Environment variable 'MUJOCO_GL' must be one of {MUJOCO_GL_BACKENDS!r}: got {requested!r}."
        )
    if _process_backend is not None:
        if requested not in (None, _process_backend):
            raise RuntimeError(
                f"This process already renders MuJoCo with {_process_backend!r} and PyOpenGL cannot switch "
                f"platforms within a process: set MUJOCO_GL={requested!r} before the first frame, in a new process."
            )
        candidates: tuple[str, ...] = (_process_backend,)
    elif requested is not None:
        candidates = (requested,)
    else:
        candidates = MUJOCO_GL_BACKENDS if _has_display() else ("egl", "osmesa")
    failures = []
    for backend in candidates:
        try:
            context = _open_context(backend, width, height)
        except Exception as e:  # noqa: BLE001 - every failure is reported below, backend by backend
            failures.append(f"{backend}: {e}")
            continue
        _process_backend = backend
        os.environ.setdefault("MUJOCO_GL", backend)
        return backend, context
    setting = "MUJOCO_GL unset" if requested is None else f"MUJOCO_GL={requested!r}"
    hints = "; ".join(f"{backend}: {_BACKEND_INSTALL_HINTS[backend]}" for backend in candidates)
    raise GLBackendUnavailable(
        f"MuJoCo rendering found no working OpenGL backend ({setting}; "
        f"{'; '.join(failures)}). Install one (Debian/Ubuntu) - {hints} - or set MUJOCO_GL to a "
        f"backend that works here, one of {MUJOCO_GL_BACKENDS}."
    )


def _check_data(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Refuses an ``MjData`` that was not made for ``model`` (MuJoCo would read out of bounds).

    Raises:
        TypeError: If ``data`` is not an ``MjData``.
        ValueError: If ``data``'s sizes are not ``model``'s.
    """
    if not isinstance(data, mujoco.MjData):
        raise TypeError(f"Expected a mujoco.MjData to render, got {type(data).__name__}.")
    if (data.qpos.shape[0], data.xpos.shape[0], data.geom_xpos.shape[0]) != (model.nq, model.nbody, model.ngeom):
        raise ValueError(
            "The MjData to render was not made for the renderer's model "
            f"(nq, nbody, ngeom = {data.qpos.shape[0]}, {data.xpos.shape[0]}, {data.geom_xpos.shape[0]}; "
            f"the model has {model.nq}, {model.nbody}, {model.ngeom}): pass mujoco.MjData(model)."
        )


class BaseRender:
    """What the offscreen and the window viewer share: scene, options, camera per ``MjData``, markers, overlays.

    Attributes:
        model, data: The simulation drawn (``data`` is the one last selected, see :meth:`select_data`).
        viewport: The ``MjrRect`` drawn into.
        scn, cam, vopt, pert, con: MuJoCo's scene, camera (of ``data``), options, perturbation and context.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int,
        height: int,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        """Builds the scene and the MuJoCo render context (the OpenGL context must exist already).

        Args:
            model: The model drawn.
            data: The state drawn.
            width: The viewport's width in pixels.
            height: The viewport's height in pixels.
            max_geom: The most geoms the scene holds.
            visual_options: ``mjtVisFlag`` -> on/off, set on :attr:`vopt`.
        """
        _check_data(model, data)
        self.model = model
        self.data = data
        self._markers: list[dict[str, Any]] = []
        self._overlays: dict[int, list[str]] = {}
        self.viewport = mujoco.MjrRect(0, 0, width, height)
        self.scn = mujoco.MjvScene(self.model, max_geom)
        self.cam = mujoco.MjvCamera()
        self._cameras: weakref.WeakKeyDictionary[mujoco.MjData, mujoco.MjvCamera] = weakref.WeakKeyDictionary()
        self._cameras[data] = self.cam
        self._keyed_cameras: dict[Hashable, mujoco.MjvCamera] = {}
        self._camera_key: Hashable | None = None
        self.vopt = mujoco.MjvOption()
        self.pert = mujoco.MjvPerturb()
        for flag, value in (visual_options or {}).items():
            self.vopt.flags[flag] = value
        self.make_context_current()
        self.con = mujoco.MjrContext(self.model, mujoco.mjtFontScale.mjFONTSCALE_150)
        self._set_mujoco_buffer()

    def _set_mujoco_buffer(self) -> None:
        raise NotImplementedError

    def _init_camera(self) -> None:
        """Sets :attr:`cam` up for :attr:`data` (called when an ``MjData`` gets its camera)."""

    def make_context_current(self) -> None:
        """Makes this viewer's OpenGL context the current one."""
        raise NotImplementedError

    def select_data(self, data: mujoco.MjData, camera_key: Hashable | None = None) -> bool:
        """Makes ``data`` the state drawn, with the camera (:attr:`cam`) of ``camera_key``, or of ``data``.

        Args:
            data: An ``MjData`` of :attr:`model`.
            camera_key: What the camera belongs to (a sub-environment's index), kept for the viewer's
                lifetime; ``None``: ``data``, whose camera is dropped with it.

        Returns:
            Whether a new camera was made (set up by :meth:`_init_camera` for ``data``; configure it further).

        Raises:
            TypeError, ValueError: If ``data`` is not an ``MjData`` of :attr:`model`.
        """
        if data is self.data and camera_key == self._camera_key:
            return False
        _check_data(self.model, data)
        self.data, self._camera_key = data, camera_key
        cameras, key = (self._cameras, data) if camera_key is None else (self._keyed_cameras, camera_key)
        camera = cameras.get(key)
        if camera is not None:
            self.cam = camera
            return False
        self.cam = cameras[key] = mujoco.MjvCamera()
        self._init_camera()
        return True

    def add_overlay(self, gridpos: int, text1: str, text2: str) -> None:
        """Adds a line of text at ``gridpos`` (an ``mjtGridPos``) to the next frame.

        Args:
            gridpos: The corner or edge of the frame.
            text1: The left column.
            text2: The right column.
        """
        column1, column2 = self._overlays.setdefault(gridpos, ["", ""])
        self._overlays[gridpos] = [column1 + text1 + "\n", column2 + text2 + "\n"]

    def add_marker(self, **marker_params: Any) -> None:
        """Adds a decorative geom to the next frame.

        Args:
            **marker_params: ``type`` (an ``mjtGeom``, a sphere by default), ``size``, ``pos``,
                ``mat`` (a flat 3x3 rotation) and ``rgba``, as ``mjv_initGeom`` takes them.
        """
        self._markers.append(marker_params)

    def _add_marker_to_scene(self, marker: dict[str, Any]) -> None:
        if self.scn.ngeom >= self.scn.maxgeom:
            raise RuntimeError(f"Ran out of geoms. maxgeom: {self.scn.maxgeom}")
        mujoco.mjv_initGeom(
            self.scn.geoms[self.scn.ngeom],
            marker.get("type", mujoco.mjtGeom.mjGEOM_SPHERE),
            size=marker.get("size", np.array([0.01, 0.01, 0.01])),
            pos=marker.get("pos", np.zeros(3)),
            mat=marker.get("mat", np.eye(3).flatten()),
            rgba=marker.get("rgba", np.ones(4)),
        )
        self.scn.ngeom += 1

    def _draw_scene(self, pert: mujoco.MjvPerturb) -> None:
        """Builds the scene of :attr:`data` seen by :attr:`cam`, adds the markers and draws it."""
        mujoco.mjv_updateScene(self.model, self.data, self.vopt, pert, self.cam, mujoco.mjtCatBit.mjCAT_ALL, self.scn)
        for marker in self._markers:
            self._add_marker_to_scene(marker)
        mujoco.mjr_render(self.viewport, self.scn, self.con)

    def _draw_overlays(self) -> None:
        for gridpos, (text1, text2) in self._overlays.items():
            mujoco.mjr_overlay(mujoco.mjtFontScale.mjFONTSCALE_150, gridpos, self.viewport, text1, text2, self.con)

    def close(self) -> None:
        """Frees this viewer's OpenGL resources."""
        raise NotImplementedError


class OffScreenViewer(BaseRender):
    """Renders into an offscreen buffer and reads the pixels back: ``rgb_array``, ``depth_array``, ``rgbd_tuple``.

    Attributes:
        backend: The OpenGL backend (``"glfw"``, ``"egl"`` or ``"osmesa"``).
        opengl_context: Its context.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int,
        height: int,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        """Opens an OpenGL context (see the module's notes on the backend) and a free camera.

        Args:
            model: The model drawn.
            data: The state drawn.
            width: The frame's width in pixels, at most ``model.vis.global_.offwidth``.
            height: The frame's height in pixels, at most ``model.vis.global_.offheight``.
            max_geom: The most geoms the scene holds.
            visual_options: ``mjtVisFlag`` -> on/off.

        Raises:
            ValueError: If the frame is larger than the model's offscreen buffer.
            GLBackendUnavailable: If no OpenGL backend can render.
        """
        self.opengl_context = None
        offwidth, offheight = model.vis.global_.offwidth, model.vis.global_.offheight
        if width > offwidth or height > offheight:
            raise ValueError(
                f"A {width}x{height} frame does not fit the model's {offwidth}x{offheight} offscreen buffer: "
                "set model.vis.global_.offwidth/offheight at least that large before rendering "
                "(MujocoEnv does so for its width and height), or render a smaller frame."
            )
        self.backend, self.opengl_context = _create_gl_context(width, height)
        super().__init__(model, data, width, height, max_geom, visual_options)
        self._init_camera()

    def _init_camera(self) -> None:
        # gymnasium's free camera: looking at the median of the geoms, from the model's extent.
        self.cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        self.cam.fixedcamid = -1
        self.cam.lookat[:] = np.median(self.data.geom_xpos, axis=0)
        self.cam.distance = self.model.stat.extent

    def _set_mujoco_buffer(self) -> None:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self.con)

    def make_context_current(self) -> None:
        """Makes this viewer's OpenGL context the current one."""
        self.opengl_context.make_current()

    def free(self) -> None:
        """Frees the OpenGL context (idempotent)."""
        if self.opengl_context is not None:
            self.opengl_context.free()
            self.opengl_context = None

    def __del__(self) -> None:
        self.free()

    def render(
        self,
        render_mode: str | None,
        camera_id: int | None = None,
        segmentation: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Draws :attr:`data` and reads the frame.

        Args:
            render_mode: ``"rgb_array"``, ``"depth_array"`` or ``"rgbd_tuple"``.
            camera_id: The model camera to look through (``-1``: the free camera); ``None`` keeps :attr:`cam`'s.
            segmentation: In ``rgb_array``, return ``(height, width, 2)`` ``int32`` (object type, object id)
                per pixel instead of colours (``-1`` for the background).

        Returns:
            ``(height, width, 3)`` ``uint8`` for ``"rgb_array"``, ``(height, width)`` ``float32`` for
            ``"depth_array"``, both for ``"rgbd_tuple"``.

        Raises:
            ValueError: If ``render_mode`` is not one of the three.
        """
        if render_mode not in OFFSCREEN_MODES:
            raise ValueError(f"OffScreenViewer renders {OFFSCREEN_MODES}, not {render_mode!r}.")
        if self.opengl_context is None:
            raise RuntimeError("This viewer is closed: make a new one (MujocoRenderer does so on its next render).")
        if camera_id is not None:
            self.cam.type = mujoco.mjtCamera.mjCAMERA_FREE if camera_id == -1 else mujoco.mjtCamera.mjCAMERA_FIXED
            self.cam.fixedcamid = camera_id
        if segmentation:
            self.scn.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = 1
            self.scn.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = 1
        try:
            self._draw_scene(self.pert)
            self._draw_overlays()
        finally:
            self._markers.clear()
            if segmentation:
                self.scn.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = 0
                self.scn.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = 0
        height, width = self.viewport.height, self.viewport.width
        rgb = np.zeros((height, width, 3), dtype=np.uint8)
        depth = np.zeros((height, width), dtype=np.float32)
        mujoco.mjr_readPixels(rgb, depth, self.viewport, self.con)
        # OpenGL's rows run bottom-up.
        rgb, depth = rgb[::-1], depth[::-1]
        if segmentation and render_mode != "depth_array":
            rgb = self._segment(rgb)
        if render_mode == "rgb_array":
            return rgb
        if render_mode == "depth_array":
            return depth
        return rgb, depth

    def _segment(self, id_colours: np.ndarray) -> np.ndarray:
        """(object type, object id) per pixel from a frame drawn in segment id colours."""
        segment = (
            id_colours[:, :, 0].astype(np.int32)
            + id_colours[:, :, 1].astype(np.int32) * 2**8
            + id_colours[:, :, 2].astype(np.int32) * 2**16
        )
        segment[segment >= self.scn.ngeom + 1] = 0
        objects = np.full((self.scn.ngeom + 1, 2), -1, dtype=np.int32)
        for i in range(self.scn.ngeom):
            geom = self.scn.geoms[i]
            if geom.segid != -1:
                objects[geom.segid + 1] = geom.objtype, geom.objid
        return objects[segment]

    def close(self) -> None:
        """Frees the OpenGL context."""
        self.free()


class WindowViewer(BaseRender):
    """Renders into a GLFW window, with gymnasium's mouse and keyboard controls (``"human"``).

    Keys: Tab switches camera, Space pauses, Right steps once while paused, S/F slower/faster,
    D renders every frame on/off, T saves a screenshot, C contact forces, E reference frames,
    H hides the menu, R transparency, 0-4 geom groups, Esc closes the window. Left drag rotates,
    right drag moves, the wheel zooms.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        width: int | None = None,
        height: int | None = None,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        """Opens a window (half the monitor's size by default).

        Args:
            model: The model drawn.
            data: The state drawn.
            width: The window's width, or ``None``.
            height: The window's height, or ``None``.
            max_geom: The most geoms the scene holds.
            visual_options: ``mjtVisFlag`` -> on/off.

        Raises:
            GLBackendUnavailable: If there is no display to open a window on.
        """
        import glfw

        # Kept for the methods, __del__ included (at interpreter exit an import would fail).
        self._glfw = glfw
        self.window = None
        if not _has_display() or not glfw.init():
            raise GLBackendUnavailable(
                'render_mode="human" opens a window and needs a display (DISPLAY/WAYLAND_DISPLAY are not set): '
                'use render_mode="rgb_array" headless, or run under a display server (e.g. `xvfb-run`).'
            )
        self._button_left_pressed = False
        self._button_right_pressed = False
        self._last_mouse_x = 0
        self._last_mouse_y = 0
        self._paused = False
        self._transparent = False
        self._contacts = False
        self._render_every_frame = True
        self._image_idx = 0
        self._image_path = "/tmp/frame_%07d.png"
        self._time_per_render = 1 / 60.0
        self._run_speed = 1.0
        self._loop_count = 0.0
        self._advance_by_one_step = False
        self._hide_menu = False

        monitor_width, monitor_height = glfw.get_video_mode(glfw.get_primary_monitor()).size
        width = monitor_width // 2 if width is None else width
        height = monitor_height // 2 if height is None else height
        glfw.window_hint(glfw.VISIBLE, 1)
        self.window = glfw.create_window(width, height, "mujoco", None, None)
        self.width, self.height = glfw.get_framebuffer_size(self.window)
        window_width, _ = glfw.get_window_size(self.window)
        self._scale = self.width / window_width
        glfw.set_cursor_pos_callback(self.window, self._cursor_pos_callback)
        glfw.set_mouse_button_callback(self.window, self._mouse_button_callback)
        glfw.set_scroll_callback(self.window, self._scroll_callback)
        glfw.set_key_callback(self.window, self._key_callback)
        super().__init__(model, data, width, height, max_geom, visual_options)
        glfw.swap_interval(1)

    def _set_mujoco_buffer(self) -> None:
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_WINDOW, self.con)

    def make_context_current(self) -> None:
        """Makes the window's OpenGL context the current one."""
        self._glfw.make_context_current(self.window)

    def free(self) -> None:
        """Destroys the window (idempotent)."""
        if getattr(self, "window", None) is None:
            return
        glfw = self._glfw
        try:
            if glfw.get_current_context() == self.window:
                glfw.make_context_current(None)
            glfw.destroy_window(self.window)
        except AttributeError:
            # At interpreter shutdown glfw's module may already be torn down.
            warn("The MuJoCo window was not closed with env.close(); its cleanup may be incomplete.")
        self.window = None

    def __del__(self) -> None:
        self.free()

    def render(self) -> None:
        """Draws :attr:`data` into the window (several times per call when slowed down; waits while paused)."""
        glfw = self._glfw

        def update() -> None:
            self._create_overlay()
            render_start = time.time()
            if self.window is None:
                return
            if glfw.window_should_close(self.window):
                self.close()
                return
            self.viewport.width, self.viewport.height = glfw.get_framebuffer_size(self.window)
            # gymnasium draws the window with a fresh perturbation each frame.
            self._draw_scene(mujoco.MjvPerturb())
            if not self._hide_menu:
                self._draw_overlays()
            glfw.swap_buffers(self.window)
            glfw.poll_events()
            self._time_per_render = 0.9 * self._time_per_render + 0.1 * (time.time() - render_start)

        if self._paused:
            while self._paused and self.window is not None:
                update()
                if self._advance_by_one_step:
                    self._advance_by_one_step = False
                    break
        else:
            self._loop_count += self.model.opt.timestep / (self._time_per_render * self._run_speed)
            if self._render_every_frame:
                self._loop_count = 1
            while self._loop_count > 0:
                update()
                self._loop_count -= 1
        self._overlays.clear()
        self._markers.clear()

    def close(self) -> None:
        """Destroys the window and ends GLFW."""
        glfw = self._glfw
        self.free()
        glfw.terminate()

    def _key_callback(self, window: Any, key: int, scancode: int, action: int, mods: int) -> None:
        glfw = self._glfw
        if action != glfw.RELEASE:
            return
        if key == glfw.KEY_TAB:
            self.cam.fixedcamid += 1
            self.cam.type = mujoco.mjtCamera.mjCAMERA_FIXED
            if self.cam.fixedcamid >= self.model.ncam:
                self.cam.fixedcamid = -1
                self.cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        elif key == glfw.KEY_SPACE:
            self._paused = not self._paused
        elif key == glfw.KEY_RIGHT:
            self._advance_by_one_step = True
            self._paused = True
        elif key == glfw.KEY_S:
            self._run_speed /= 2.0
        elif key == glfw.KEY_F:
            self._run_speed *= 2.0
        elif key == glfw.KEY_D:
            self._render_every_frame = not self._render_every_frame
        elif key == glfw.KEY_T:
            self._save_screenshot()
        elif key == glfw.KEY_C:
            self._contacts = not self._contacts
            self.vopt.flags[mujoco.mjtVisFlag.mjVIS_CONTACTPOINT] = self._contacts
            self.vopt.flags[mujoco.mjtVisFlag.mjVIS_CONTACTFORCE] = self._contacts
        elif key == glfw.KEY_E:
            self.vopt.frame = 1 - self.vopt.frame
        elif key == glfw.KEY_H:
            self._hide_menu = not self._hide_menu
        elif key == glfw.KEY_R:
            self._transparent = not self._transparent
            if self._transparent:
                self.model.geom_rgba[:, 3] /= 5.0
            else:
                self.model.geom_rgba[:, 3] *= 5.0
        elif glfw.KEY_0 <= key <= glfw.KEY_4:
            self.vopt.geomgroup[key - glfw.KEY_0] ^= 1
        elif key == glfw.KEY_ESCAPE:
            self.close()

    def _save_screenshot(self) -> None:
        import imageio

        glfw = self._glfw

        width, height = glfw.get_framebuffer_size(self.window)
        image = np.zeros((height, width, 3), dtype=np.uint8)
        mujoco.mjr_readPixels(image, None, self.viewport, self.con)
        imageio.imwrite(self._image_path % self._image_idx, np.flipud(image))
        self._image_idx += 1

    def _move_camera(self, action: int, rel_dx: float, rel_dy: float) -> None:
        if _MUJOCO_CAMERA_LEGACY_MODE:
            mujoco.mjv_moveCamera(self.model, action, rel_dx, rel_dy, self.scn, self.cam)
        else:
            mujoco.mjv_moveCamera(self.model, action, rel_dx, rel_dy, self.cam)

    def _cursor_pos_callback(self, window: Any, xpos: float, ypos: float) -> None:
        glfw = self._glfw
        if not (self._button_left_pressed or self._button_right_pressed):
            return
        shift = glfw.PRESS in (glfw.get_key(window, glfw.KEY_LEFT_SHIFT), glfw.get_key(window, glfw.KEY_RIGHT_SHIFT))
        if self._button_right_pressed:
            action = mujoco.mjtMouse.mjMOUSE_MOVE_H if shift else mujoco.mjtMouse.mjMOUSE_MOVE_V
        else:
            action = mujoco.mjtMouse.mjMOUSE_ROTATE_H if shift else mujoco.mjtMouse.mjMOUSE_ROTATE_V
        x, y = int(self._scale * xpos), int(self._scale * ypos)
        width, height = glfw.get_framebuffer_size(window)
        self._move_camera(action, (x - self._last_mouse_x) / width, (y - self._last_mouse_y) / height)
        self._last_mouse_x, self._last_mouse_y = x, y

    def _mouse_button_callback(self, window: Any, button: int, act: int, mods: int) -> None:
        glfw = self._glfw
        self._button_left_pressed = glfw.get_mouse_button(window, glfw.MOUSE_BUTTON_LEFT) == glfw.PRESS
        self._button_right_pressed = glfw.get_mouse_button(window, glfw.MOUSE_BUTTON_RIGHT) == glfw.PRESS
        x, y = glfw.get_cursor_pos(window)
        self._last_mouse_x, self._last_mouse_y = int(self._scale * x), int(self._scale * y)

    def _scroll_callback(self, window: Any, x_offset: float, y_offset: float) -> None:
        self._move_camera(mujoco.mjtMouse.mjMOUSE_ZOOM, 0, -0.05 * y_offset)

    def _create_overlay(self) -> None:
        topleft = mujoco.mjtGridPos.mjGRID_TOPLEFT
        bottomleft = mujoco.mjtGridPos.mjGRID_BOTTOMLEFT
        if self._render_every_frame:
            self.add_overlay(topleft, "", "")
        else:
            self.add_overlay(topleft, f"Run speed = {self._run_speed:.3f} x real time", "[S]lower, [F]aster")
        self.add_overlay(topleft, "Ren[d]er every frame", "On" if self._render_every_frame else "Off")
        self.add_overlay(
            topleft, f"Switch camera (#cams = {self.model.ncam + 1})", f"[Tab] (camera ID = {self.cam.fixedcamid})"
        )
        self.add_overlay(topleft, "[C]ontact forces", "On" if self._contacts else "Off")
        self.add_overlay(topleft, "T[r]ansparent", "On" if self._transparent else "Off")
        if self._paused:
            self.add_overlay(topleft, "Start", "[Space]")
            self.add_overlay(topleft, "Advance simulation by one step", "[right arrow]")
        else:
            self.add_overlay(topleft, "Stop", "[Space]")
        self.add_overlay(topleft, "Referenc[e] frames", "On" if self.vopt.frame == 1 else "Off")
        self.add_overlay(topleft, "[H]ide Menu", "")
        saved = f"Saved as {self._image_path % (self._image_idx - 1)}" if self._image_idx > 0 else ""
        self.add_overlay(topleft, "Cap[t]ure frame", saved)
        self.add_overlay(topleft, "Toggle geomgroup visibility", "0-4")
        self.add_overlay(bottomleft, "FPS", f"{int(1 / self._time_per_render)}")
        self.add_overlay(bottomleft, "Solver iterations", str(self.data.solver_niter[0] + 1))
        self.add_overlay(bottomleft, "Step", str(round(self.data.time / self.model.opt.timestep)))
        self.add_overlay(bottomleft, "timestep", f"{self.model.opt.timestep:.5f}")


def _viewer_setting(name: str, doc: str) -> property:
    """A renderer setting that its viewers are built with: changing it closes them, the next frame opens new ones."""

    def get(renderer: MujocoRenderer) -> Any:
        return renderer.__dict__[name]

    def set_(renderer: MujocoRenderer, value: Any) -> None:
        renderer.close()
        renderer.__dict__[name] = value

    return property(get, set_, doc=doc)


class MujocoRenderer:
    """Renders a MuJoCo simulation for an environment: gymnasium 1.4.0's ``MujocoRenderer``.

    ``render(render_mode)`` draws ``"human"`` (a window), ``"rgb_array"``, ``"depth_array"`` or
    ``"rgbd_tuple"``; each mode has its viewer, made on its first frame. See the module's notes for
    the OpenGL backend and for rendering several ``MjData`` (the vector environment).

    Attributes:
        data: The state drawn when ``render`` is given none.
        viewer: The viewer of the last render mode drawn, or ``None``.
        camera_id: The camera looked through: a model camera's id, or ``-1`` for the free camera.
        model, width, height, max_geom, default_cam_config: What the viewers are built with; setting
            one closes the viewers, so the next frame uses the new value.
    """

    model = _viewer_setting("model", "The model drawn (``data`` and ``camera_id`` must belong to it).")
    width = _viewer_setting("width", "The frame's width in pixels (``None``: half the monitor's, human only).")
    height = _viewer_setting("height", "The frame's height in pixels (``None``: half the monitor's, human only).")
    max_geom = _viewer_setting("max_geom", "The most geoms a scene holds.")
    default_cam_config = _viewer_setting(
        "default_cam_config", "``MjvCamera`` attribute -> value, set on each new camera, or ``None``."
    )

    def __init__(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        default_cam_config: dict[str, Any] | None = None,
        width: int | None = None,
        height: int | None = None,
        max_geom: int = 1000,
        camera_id: int | None = None,
        camera_name: str | None = None,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        """Resolves the camera; no OpenGL context is opened before the first frame.

        Args:
            model: The model drawn.
            data: The state drawn.
            default_cam_config: ``MjvCamera`` attribute -> value (``distance``, ``elevation``,
                ``azimuth``, ``lookat``, ``trackbodyid``, ``type``, ...), set on each new camera.
            width: The frame's width in pixels (required except for ``"human"``).
            height: The frame's height in pixels (required except for ``"human"``).
            max_geom: The most geoms a scene holds.
            camera_id: The model camera to look through, ``-1`` for the free camera.
            camera_name: The name of the model camera to look through (not with ``camera_id``).
                Neither given: the free camera, configured by ``default_cam_config``.
            visual_options: ``mjtVisFlag`` -> on/off, e.g. ``{mujoco.mjtVisFlag.mjVIS_CONTACTPOINT: True}``.

        Raises:
            ValueError: If both ``camera_id`` and ``camera_name`` are given, if the model has no
                camera ``camera_name``, or if ``camera_id`` is not one of the model's cameras or ``-1``.
        """
        self.data = data
        self._viewers: dict[str, BaseRender] = {}
        self.viewer: BaseRender | None = None
        self.__dict__.update(
            model=model, default_cam_config=default_cam_config, width=width, height=height, max_geom=max_geom
        )
        self._vopt = visual_options or {}
        check_one_camera(camera_id, camera_name)
        if camera_name is not None:
            self.camera_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera_name)
            if self.camera_id == -1:
                names = [model.camera(i).name for i in range(model.ncam)]
                raise ValueError(f"The model has no camera named {camera_name!r}; its cameras are {names}.")
        elif camera_id is not None:
            self.camera_id = camera_id
        else:
            # gymnasium looks up a "track" camera here and then uses the free camera either way, so
            # that default_cam_config (distance, elevation, trackbodyid, ...) takes effect.
            self.camera_id = -1
        self._check_camera_id()

    def _check_camera_id(self) -> None:
        if not isinstance(self.camera_id, (int, np.integer)) or not -1 <= self.camera_id < self.model.ncam:
            raise ValueError(
                f"camera_id must be -1 (the free camera) or a camera of the model, 0 to {self.model.ncam - 1}: "
                f"got {self.camera_id!r}."
            )

    def render(
        self, render_mode: str | None, data: mujoco.MjData | None = None, camera_key: Hashable | None = None
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray] | None:
        """Renders a frame of ``data`` (by default :attr:`data`) in ``render_mode``.

        Args:
            render_mode: ``"human"``, ``"rgb_array"``, ``"depth_array"`` or ``"rgbd_tuple"``.
            data: The ``MjData`` to draw, of :attr:`model`; each one keeps its own camera.
            camera_key: Whose camera to draw with instead of ``data``'s (a sub-environment's index, for
                sub-environments whose ``MjData`` is built anew on request): each key keeps its own camera.

        Returns:
            ``"rgb_array"``: ``(height, width, 3)`` ``uint8``; ``"depth_array"``: ``(height, width)``
            ``float32``; ``"rgbd_tuple"``: both; ``"human"``: ``None``.

        Raises:
            AssertionError: If ``width`` or ``height`` is ``None`` outside ``"human"`` (gymnasium's error).
            AttributeError: If ``render_mode`` is not one of the four (gymnasium's error).
            ValueError: If ``data`` is not of :attr:`model`, the frame does not fit the model's offscreen
                buffer, or :attr:`camera_id` is not a camera of the model.
            GLBackendUnavailable: If no OpenGL backend can render (or ``"human"`` has no display).
        """
        if render_mode != "human":
            assert self.width is not None and self.height is not None, (
                f"The width: {self.width} and height: {self.height} cannot be `None` when the render_mode is not `human`."
            )
        self._check_camera_id()
        viewer = self._get_viewer(render_mode)
        if viewer.select_data(self.data if data is None else data, camera_key):
            self._set_cam_config()
        if render_mode == "human":
            return viewer.render()
        return viewer.render(render_mode=render_mode, camera_id=self.camera_id)

    def _get_viewer(self, render_mode: str | None) -> BaseRender:
        """The viewer of ``render_mode``, made (with :attr:`data` and the camera configuration) on first use."""
        self.viewer = self._viewers.get(render_mode)
        if self.viewer is None:
            if render_mode == "human":
                self.viewer = WindowViewer(self.model, self.data, self.width, self.height, self.max_geom, self._vopt)
            elif render_mode in OFFSCREEN_MODES:
                self.viewer = OffScreenViewer(self.model, self.data, self.width, self.height, self.max_geom, self._vopt)
            else:
                raise AttributeError(
                    f"Unexpected mode: {render_mode}, expected modes: human, rgb_array, depth_array, or rgbd_tuple"
                )
            self._set_cam_config()
            self._viewers[render_mode] = self.viewer
        # One OpenGL context is current at a time, and another viewer's or renderer's may be: gymnasium
        # switches only between its own viewers, so a renderer drawn after another one's frame draws
        # with the wrong context's resources.
        self.viewer.make_context_current()
        return self.viewer

    def _set_cam_config(self) -> None:
        """Sets :attr:`default_cam_config` on the current viewer's camera."""
        for key, value in (self.default_cam_config or {}).items():
            if isinstance(value, np.ndarray):
                getattr(self.viewer.cam, key)[:] = value
            else:
                setattr(self.viewer.cam, key, value)

    def close(self) -> None:
        """Closes the viewers' OpenGL contexts and windows; a later ``render`` opens new ones."""
        for viewer in self._viewers.values():
            viewer.close()
        self._viewers.clear()
        self.viewer = None
