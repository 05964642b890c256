"""nbgym's MuJoCo renderer against gymnasium 1.4.0's, on gymnasium's own MuJoCo models, headless.

Both renderers draw the same ``MjModel``/``MjData`` through the same OpenGL backend (nbgym's choice,
which it writes to ``MUJOCO_GL`` so that gymnasium's renderer, created after it, follows). Frames are
compared exactly: measured on EGL (Mesa's llvmpipe) and on OSMesa, rendering is deterministic (the
same frame, bit for bit, from both renderers and from frame to frame). Frames are small (64x64) and
few, because software rendering is slow: opening a viewer costs about 0.4-1 s here, a frame
0.01-0.2 s (the 4096x4096 shadow maps of gymnasium's models, drawn in software).
"""

from __future__ import annotations

import ctypes.util
import gc
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

mujoco = pytest.importorskip("mujoco")

from gymnasium.envs.mujoco import mujoco_rendering as gym_rendering  # noqa: E402

from nbgym.envs.mujoco.mujoco_rendering import GLBackendUnavailable, MujocoRenderer, OffScreenViewer  # noqa: E402
from helpers.env_ids import MUJOCO_V5_IDS
from helpers.paths import ROOT

ASSETS = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
SIZE = 64


def simulation(xml: str, seed: int = 0, steps: int = 30) -> tuple[Any, Any]:
    """``xml``'s model and a state reached by ``steps`` steps of random controls."""
    model = mujoco.MjModel.from_xml_path(str(ASSETS / xml))
    data = mujoco.MjData(model)
    advance(model, data, np.random.default_rng(seed), steps)
    return model, data


def advance(model: Any, data: Any, rng: np.random.Generator, steps: int) -> None:
    """Steps ``data`` ``steps`` times with random controls within the actuators' ranges."""
    low, high = model.actuator_ctrlrange.T
    for _ in range(steps):
        data.ctrl[:] = rng.uniform(low, high)
        mujoco.mj_step(model, data)


def rebuilt(model: Any, data: Any) -> Any:
    """A new ``MjData`` in ``data``'s state, as a sub-environment's is built from its state row."""
    kind = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mujoco.mj_stateSize(model, kind))
    mujoco.mj_getState(model, data, state, kind)
    copy = mujoco.MjData(model)
    mujoco.mj_setState(model, copy, state, kind)
    mujoco.mj_forward(model, copy)
    return copy


def assert_same_frame(ours: Any, theirs: Any) -> None:
    """Equal frames: the same type, shapes, dtypes and values (tuples compared item by item)."""
    assert type(ours) is type(theirs)
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for our_part, their_part in zip(ours, theirs):
            assert_same_frame(our_part, their_part)
        return
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def run_script(script: str, *args: str, display: bool = False) -> Any:
    """Runs ``script`` in a fresh Python process (under a virtual X display if ``display``).

    Returns:
        The JSON value the script prints last.
    """
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-c", script, *args]
    if display:
        command = ["xvfb-run", "-a", "-s", "-screen 0 320x240x24", *command]
    result = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


needs_xvfb = pytest.mark.skipif(
    shutil.which("xvfb-run") is None, reason="needs xvfb-run (apt-get install xvfb xauth), which .ci/run installs"
)


@pytest.fixture(scope="module", autouse=True)
def nbgym_chooses_the_backend() -> None:
    """nbgym's backend, chosen before any gymnasium renderer is made (which then reads ``MUJOCO_GL``)."""
    model, data = simulation("inverted_pendulum.xml", steps=0)
    renderer = MujocoRenderer(model, data, width=8, height=8)
    renderer.render("rgb_array")
    assert os.environ["MUJOCO_GL"] == renderer.viewer.backend
    renderer.close()


# The v5 environments' camera arguments (default_camera_config of Hopper, HalfCheetah, Reacher), a
# named and a numbered model camera, visual options, and every offscreen mode.
CASES = [
    (
        "hopper.xml",
        {
            "default_cam_config": {
                "trackbodyid": 2,
                "distance": 3.0,
                "lookat": np.array((0.0, 0.0, 1.15)),
                "elevation": -20.0,
            }
        },
        ("rgb_array", "depth_array"),
    ),
    ("half_cheetah.xml", {"default_cam_config": {"distance": 4.0}}, ("rgb_array", "depth_array")),
    ("reacher.xml", {"default_cam_config": {"trackbodyid": 0}}, ("rgb_array", "depth_array")),
    ("humanoid.xml", {"camera_name": "track"}, ("rgb_array", "depth_array")),
    (
        "walker2d_v5.xml",
        {
            "camera_id": 0,
            "visual_options": {mujoco.mjtVisFlag.mjVIS_CONTACTPOINT: True, mujoco.mjtVisFlag.mjVIS_TRANSPARENT: True},
        },
        ("rgb_array",),
    ),
    ("ant.xml", {"default_cam_config": {"distance": 4.0, "azimuth": 60.0}}, ("rgbd_tuple",)),
]


@pytest.mark.parametrize(("xml", "kwargs", "modes"), CASES, ids=[case[0] for case in CASES])
def test_frames_equal_gymnasium(xml: str, kwargs: dict[str, Any], modes: tuple[str, ...]) -> None:
    model, data = simulation(xml)
    ours = MujocoRenderer(model, data, width=SIZE, height=SIZE, **kwargs)
    theirs = gym_rendering.MujocoRenderer(model, data, width=SIZE, height=SIZE, **kwargs)
    assert ours.camera_id == theirs.camera_id
    rng = np.random.default_rng(1)
    colour_frames = []
    for _ in range(2):  # the cameras follow the state from frame to frame as gymnasium's do
        for mode in modes:
            frame = ours.render(mode)
            assert_same_frame(frame, theirs.render(mode))
            if mode != "depth_array":
                colour_frames.append(frame[0] if mode == "rgbd_tuple" else frame)
        advance(model, data, rng, 10)
    # Frames of the simulation, not of an empty scene, that follow the state.
    assert np.unique(colour_frames[0]).size > 10
    assert not np.array_equal(*colour_frames)
    ours.close()
    theirs.close()


@pytest.fixture(scope="module")
def hopper_pair() -> tuple[Any, Any, MujocoRenderer, Any]:
    """Hopper's model and data, with an nbgym and a gymnasium renderer of them (rgb_array)."""
    model, data = simulation("hopper.xml", steps=0)
    ours = MujocoRenderer(model, data, {"distance": 3.0, "trackbodyid": 1}, SIZE, SIZE)
    theirs = gym_rendering.MujocoRenderer(model, data, {"distance": 3.0, "trackbodyid": 1}, SIZE, SIZE)
    yield model, data, ours, theirs
    ours.close()
    theirs.close()


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    qpos=st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6),
    camera_id=st.sampled_from([-1, 0]),
)
def test_states_and_cameras_equal_gymnasium(hopper_pair: tuple, qpos: list[float], camera_id: int) -> None:
    model, data, ours, theirs = hopper_pair
    data.qpos[:] = model.qpos0 + np.array(qpos)
    mujoco.mj_forward(model, data)
    ours.camera_id = theirs.camera_id = camera_id
    assert_same_frame(ours.render("rgb_array"), theirs.render("rgb_array"))


def test_sub_environments_keep_their_own_cameras() -> None:
    """One renderer over several MjData (the vector env's use) gives each one's own renderer's frames."""
    model, _ = simulation("half_cheetah.xml", steps=0)
    datas = [simulation("half_cheetah.xml", seed=seed, steps=20 * seed)[1] for seed in range(3)]
    ours = MujocoRenderer(model, datas[0], {"distance": 4.0}, SIZE, SIZE)
    theirs = [gym_rendering.MujocoRenderer(model, data, {"distance": 4.0}, SIZE, SIZE) for data in datas]
    rng = np.random.default_rng(2)
    for order in ([1, 0, 2], [2, 1, 0]):
        expected = [renderer.render("rgb_array") for renderer in theirs]
        for index in order:
            assert_same_frame(ours.render("rgb_array", data=datas[index]), expected[index])
        for data in datas:
            advance(model, data, rng, 15)
    # Assigning data makes it the default; frames differ between sub-environments.
    ours.data = datas[2]
    assert_same_frame(ours.render("rgb_array"), theirs[2].render("rgb_array"))
    assert not np.array_equal(ours.render("rgb_array", data=datas[0]), ours.render("rgb_array"))
    for renderer in [ours, *theirs]:
        renderer.close()


def test_a_camera_key_keeps_its_camera_across_new_mjdata() -> None:
    """A free camera set up at a sub-environment's first frame stays its camera when the sub-environment's
    state comes in a new ``MjData`` each time (state rows), as it stays in gymnasium's renderer of one data."""
    model, data = simulation("reacher.xml", steps=0)
    ours = MujocoRenderer(model, data, None, SIZE, SIZE)
    theirs = gym_rendering.MujocoRenderer(model, data, None, SIZE, SIZE)
    rng = np.random.default_rng(3)
    for _ in range(3):  # gymnasium's renderer first: it draws in whichever OpenGL context is current
        mujoco.mj_forward(model, data)  # the positions drawn are those of the state rebuilt
        expected = theirs.render("rgb_array")
        assert_same_frame(ours.render("rgb_array", data=rebuilt(model, data), camera_key=7), expected)
        advance(model, data, rng, 30)
    mujoco.mj_forward(model, data)
    # Without the key each new MjData gets a camera of its own, looking where its geoms are now.
    expected = theirs.render("rgb_array")
    assert not np.array_equal(ours.render("rgb_array", data=rebuilt(model, data)), expected)
    for renderer in (ours, theirs):
        renderer.close()


def test_renderers_of_different_models_take_turns() -> None:
    """Each frame is drawn in its own renderer's OpenGL context (gymnasium draws in the last one made)."""
    hopper, hopper_data = simulation("hopper.xml", steps=0)
    pusher, pusher_data = simulation("pusher_v5.xml", steps=0)
    ours = [
        MujocoRenderer(hopper, hopper_data, None, SIZE, SIZE),
        MujocoRenderer(pusher, pusher_data, None, SIZE, SIZE),
    ]
    first = [renderer.render("rgb_array") for renderer in ours]
    for renderer, frame in zip(ours, first):
        assert_same_frame(renderer.render("rgb_array"), frame)
    theirs = gym_rendering.MujocoRenderer(hopper, hopper_data, None, SIZE, SIZE)
    assert_same_frame(first[0], theirs.render("rgb_array"))
    for renderer in [*ours, theirs]:
        renderer.close()


def test_offscreen_viewer_markers_overlays_segmentation() -> None:
    model, data = simulation("reacher.xml")
    ours = OffScreenViewer(model, data, SIZE, SIZE)
    theirs = gym_rendering.OffScreenViewer(model, data, SIZE, SIZE)
    for viewer in (ours, theirs):
        viewer.add_marker(
            pos=np.array([0.1, 0.1, 0.05]), size=np.array([0.03, 0.03, 0.03]), rgba=np.array([1.0, 0, 0, 1])
        )
        viewer.add_overlay(mujoco.mjtGridPos.mjGRID_TOPLEFT, "nbgym", "1")
    with_marker = ours.render("rgb_array", camera_id=-1)
    assert_same_frame(with_marker, theirs.render("rgb_array", camera_id=-1))
    # Markers and overlays last one frame.
    assert not np.array_equal(with_marker, ours.render("rgb_array"))
    # gymnasium's segmentation overflows under NumPy 2 (uint8 * 256); decode its id colours here, with
    # the arithmetic it has under NumPy 1: segment id + 1 = r + 256 g + 65536 b, 0 for the background.
    segments = ours.render("rgb_array", segmentation=True)
    theirs.scn.flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = theirs.scn.flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = 1
    id_colours = theirs.render("rgb_array").astype(np.int64)
    segment_ids = id_colours[:, :, 0] + 256 * id_colours[:, :, 1] + 65536 * id_colours[:, :, 2]
    objects = {0: (-1, -1)}
    for i in range(theirs.scn.ngeom):
        geom = theirs.scn.geoms[i]
        if geom.segid != -1:
            objects[geom.segid + 1] = (geom.objtype, geom.objid)
    expected = np.array([[objects.get(int(s), (-1, -1)) for s in row] for row in segment_ids], dtype=np.int32)
    assert_same_frame(segments, expected)
    assert {int(mujoco.mjtObj.mjOBJ_GEOM), -1} <= set(np.unique(segments[:, :, 0]))
    ours.close()
    theirs.free()


def test_settings_reopen_viewers_and_close_is_final_for_the_viewers() -> None:
    model, data = simulation("swimmer.xml", steps=0)
    renderer = MujocoRenderer(model, data, width=SIZE, height=SIZE)
    assert renderer.render("rgb_array").shape == (SIZE, SIZE, 3)
    viewer = renderer.viewer
    renderer.width = 32
    assert viewer.opengl_context is None and renderer.viewer is None
    assert renderer.render("depth_array").shape == (SIZE, 32)
    renderer.close()
    with pytest.raises(RuntimeError, match="closed"):
        viewer.render("rgb_array")
    assert renderer.render("rgb_array").shape == (SIZE, 32, 3)
    # Another model: the viewers are rebuilt for it, and the data must follow.
    other_model, other_data = simulation("inverted_pendulum.xml", steps=0)
    renderer.model = other_model
    with pytest.raises(ValueError, match="not made for the renderer's model"):
        renderer.render("rgb_array")
    renderer.data = other_data
    expected = MujocoRenderer(other_model, other_data, None, 32, SIZE)
    assert_same_frame(renderer.render("rgb_array"), expected.render("rgb_array"))
    expected.close()
    renderer.close()


def gymnasium_error(call: Any) -> tuple[type, str]:
    """The type and message of the exception ``call`` raises (holding no traceback, so what it made is freed)."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - any exception is the expected result here
        return type(e), str(e)
    raise AssertionError("gymnasium accepted it")


def test_bad_arguments_raise_gymnasium_errors() -> None:
    model, data = simulation("hopper.xml", steps=0)
    calls = [
        lambda renderer: renderer(model, data, None, SIZE, SIZE, camera_id=0, camera_name="track"),
        lambda renderer: renderer(model, data).render("rgb_array"),
        lambda renderer: renderer(model, data, None, SIZE, SIZE).render("video"),
    ]
    for call, expected_type in zip(calls, (ValueError, AssertionError, AttributeError)):
        expected = gymnasium_error(lambda: call(gym_rendering.MujocoRenderer))
        assert expected[0] is expected_type
        assert gymnasium_error(lambda: call(MujocoRenderer)) == expected


@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
def test_both_cameras_are_refused_when_the_env_is_made_as_in_gymnasium(render_mode: str | None) -> None:
    """gymnasium's env makes its renderer in ``__init__``; nbgym's on first use, so the refusal came at the first
    ``render()``, and never without a render mode."""
    import nbgym

    for make in (
        lambda library: library.make("Hopper-v5", render_mode=render_mode, camera_id=0, camera_name="track"),
        lambda library: library.make_vec("Hopper-v5", 2, render_mode=render_mode, camera_id=0, camera_name="track"),
    ):
        expected = gymnasium_error(lambda: make(gymnasium))
        assert expected[0] is ValueError
        assert gymnasium_error(lambda: make(nbgym)) == expected


def test_bad_arguments_gymnasium_lets_through_are_refused() -> None:
    model, data = simulation("hopper.xml", steps=0)
    # gymnasium falls back to the free camera without a word; MuJoCo ends the process on a bad id.
    assert gym_rendering.MujocoRenderer(model, data, None, SIZE, SIZE, camera_name="side").camera_id == -1
    with pytest.raises(ValueError, match=r"no camera named 'side'; its cameras are \['track'\]"):
        MujocoRenderer(model, data, None, SIZE, SIZE, camera_name="side")
    for camera_id in (1, -2, 0.5):
        with pytest.raises(ValueError, match="camera_id must be -1"):
            MujocoRenderer(model, data, None, SIZE, SIZE, camera_id=camera_id)
    renderer = MujocoRenderer(model, data, None, SIZE, SIZE)
    renderer.camera_id = 3
    with pytest.raises(ValueError, match="camera_id must be -1"):
        renderer.render("rgb_array")
    # gymnasium returns a frame whose columns beyond the offscreen buffer are garbage.
    with pytest.raises(ValueError, match="offwidth"):
        MujocoRenderer(model, data, None, model.vis.global_.offwidth + 1, SIZE).render("rgb_array")
    renderer.camera_id = -1
    other_model, other_data = simulation("ant.xml", steps=0)
    with pytest.raises(ValueError, match="not made for the renderer's model"):
        renderer.render("rgb_array", data=other_data)
    with pytest.raises(TypeError, match="MjData"):
        renderer.render("rgb_array", data=other_model)
    renderer.close()


# gymnasium's half-made viewer fails again in its __del__.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_unknown_mujoco_gl_is_gymnasiums_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    model, data = simulation("hopper.xml", steps=0)
    monkeypatch.setenv("MUJOCO_GL", "vulkan")
    assert (
        gymnasium_error(lambda: gym_rendering.MujocoRenderer(model, data, None, SIZE, SIZE).render("rgb_array"))[0]
        is RuntimeError
    )
    gc.collect()
    with pytest.raises(RuntimeError, match="MUJOCO_GL.*must be one of.*got 'vulkan'"):
        MujocoRenderer(model, data, None, SIZE, SIZE).render("rgb_array")


def test_human_mode_without_display_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    model, data = simulation("hopper.xml", steps=0)
    with pytest.raises(GLBackendUnavailable, match='needs a display.*render_mode="rgb_array"') as caught:
        MujocoRenderer(model, data).render("human")
    assert isinstance(caught.value, RuntimeError)


# In a fresh process (PyOpenGL binds its platform once per process): with every OpenGL library
# unloadable, each backend fails with the packages to install; then, with only EGL's libraries
# missing, the same process falls back to OSMesa headless (the failures did not bind PyOpenGL to a
# platform), and gymnasium's renderer, following the MUJOCO_GL nbgym set, draws the same frame.
MISSING_LIBRARIES_SCRIPT = """
import ctypes, json, os, pathlib
for name in ("MUJOCO_GL", "DISPLAY", "WAYLAND_DISPLAY", "PYOPENGL_PLATFORM"):
    os.environ.pop(name, None)
import gymnasium, mujoco, numpy as np
from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer as GymnasiumRenderer
from nbgym.envs.mujoco import mujoco_rendering

load_library = ctypes.CDLL.__init__
def without(libraries):
    def load(self, name, *args, **kwargs):
        if name is not None and any(library in str(name) for library in libraries):
            raise OSError(f"{name}: cannot open shared object file: No such file or directory")
        load_library(self, name, *args, **kwargs)
    return load

model = mujoco.MjModel.from_xml_path(str(pathlib.Path(gymnasium.__file__).parent / "envs/mujoco/assets/hopper.xml"))
data = mujoco.MjData(model)
mujoco.mj_forward(model, data)
report = {}
egl_libraries = ("libEGL", "libOpenGL", "libGL.so")
ctypes.CDLL.__init__ = without(egl_libraries + ("libOSMesa",))
for requested in (None, "egl", "osmesa"):
    if requested is not None:
        os.environ["MUJOCO_GL"] = requested
    try:
        mujoco_rendering.MujocoRenderer(model, data, width=8, height=8).render("rgb_array")
    except mujoco_rendering.GLBackendUnavailable as e:
        report[str(requested)] = [str(e), isinstance(e, RuntimeError)]
ctypes.CDLL.__init__ = without(egl_libraries)
del os.environ["MUJOCO_GL"]
renderer = mujoco_rendering.MujocoRenderer(model, data, width=32, height=32)
try:
    frame = renderer.render("rgb_array")
except mujoco_rendering.GLBackendUnavailable as e:
    report["fallback"] = str(e)
else:
    ctypes.CDLL.__init__ = load_library
    report["fallback"] = [renderer.viewer.backend, os.environ["MUJOCO_GL"], np.unique(frame).size,
                          bool(np.array_equal(frame, GymnasiumRenderer(model, data, None, 32, 32).render("rgb_array")))]
print(json.dumps(report))
"""


def test_missing_gl_libraries_name_the_packages_and_egl_falls_back_to_osmesa() -> None:
    report = run_script(MISSING_LIBRARIES_SCRIPT)
    headless, egl, osmesa = report["None"], report["egl"], report["osmesa"]
    assert headless[1] and egl[1] and osmesa[1]
    assert "MUJOCO_GL unset" in headless[0] and "egl: cannot load libEGL.so.1" in headless[0]
    assert "apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri libopengl0" in headless[0]
    assert "apt-get install libosmesa6" in headless[0] and "glfw:" not in headless[0]
    assert "MUJOCO_GL='egl'" in egl[0] and "libegl1" in egl[0] and "libosmesa6" not in egl[0]
    assert "libosmesa6" in osmesa[0] and "libegl1" not in osmesa[0]
    if ctypes.util.find_library("OSMesa") is None:  # .ci/run installs libosmesa6, so CI takes the other branch
        assert "libosmesa6" in report["fallback"]
    else:
        backend, mujoco_gl, colours, equal_to_gymnasium = report["fallback"]
        assert backend == mujoco_gl == "osmesa" and colours > 10 and equal_to_gymnasium


# With a display and MUJOCO_GL unset, gymnasium's renderer tries GLFW first, and so does nbgym's.
GLFW_SCRIPT = """
import json, os, pathlib, gymnasium, mujoco, numpy as np
os.environ.pop("MUJOCO_GL", None)
from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer as GymnasiumRenderer
from nbgym.envs.mujoco.mujoco_rendering import MujocoRenderer
model = mujoco.MjModel.from_xml_path(str(pathlib.Path(gymnasium.__file__).parent / "envs/mujoco/assets/hopper.xml"))
data = mujoco.MjData(model)
mujoco.mj_forward(model, data)
ours, theirs = MujocoRenderer(model, data, None, 32, 32), GymnasiumRenderer(model, data, None, 32, 32)
frames = [renderer.render("rgbd_tuple") for renderer in (ours, theirs)]
backends = [ours.viewer.backend, theirs.viewer.backend]
other = MujocoRenderer(model, data, None, 32, 32)
other.render("rgbd_tuple")
other.close()  # leaves GLFW running for the other renderers (gymnasium's close ends it)
frames.append(ours.render("rgbd_tuple"))
print(json.dumps([*backends, np.unique(frames[0][0]).size,
                  all(np.array_equal(a, b) and np.array_equal(a, c) for a, b, c in zip(*frames))]))
"""


@needs_xvfb
def test_with_a_display_glfw_renders_offscreen_as_in_gymnasium() -> None:
    our_backend, their_backend, colours, equal = run_script(GLFW_SCRIPT, display=True)
    assert our_backend == their_backend == "glfw" and colours > 10 and equal


# Under a virtual X display, one renderer per process (a second GLFW window in a process draws black
# on Xvfb, gymnasium's as well as nbgym's): the window takes key presses (hide the menu, whose FPS
# line depends on timing; the model camera; contact points; reference frames) and the pixels drawn
# into it are read back.
HUMAN_SCRIPT = """
import json, sys, glfw, mujoco, numpy as np, gymnasium, pathlib
if sys.argv[1] == "nbgym":
    from nbgym.envs.mujoco.mujoco_rendering import MujocoRenderer
else:
    from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer
model = mujoco.MjModel.from_xml_path(str(pathlib.Path(gymnasium.__file__).parent / "envs/mujoco/assets/hopper.xml"))
data = mujoco.MjData(model)
mujoco.mj_forward(model, data)
renderer = MujocoRenderer(model, data, {"distance": 3.0}, 64, 48)
returned = renderer.render("human")
viewer = renderer.viewer
for key in (glfw.KEY_H, glfw.KEY_TAB, glfw.KEY_C, glfw.KEY_E):
    viewer._key_callback(viewer.window, key, 0, glfw.RELEASE, 0)
renderer.render("human")
pixels = np.zeros((viewer.viewport.height, viewer.viewport.width, 3), np.uint8)
mujoco.mjr_readPixels(pixels, None, viewer.viewport, viewer.con)
print(json.dumps([returned, pixels.tolist(), viewer.cam.fixedcamid]))
renderer.close()
"""


@needs_xvfb
def test_human_windows_equal_gymnasium() -> None:
    reports = [run_script(HUMAN_SCRIPT, implementation, display=True) for implementation in ("nbgym", "gymnasium")]
    (ours, our_pixels, our_camera), (theirs, their_pixels, their_camera) = reports
    assert ours is None and theirs is None and our_camera == their_camera == 0
    assert np.array(our_pixels).shape == (48, 64, 3) and np.unique(our_pixels).size > 10
    assert our_pixels == their_pixels


def test_without_mujoco_the_module_says_how_to_install_it() -> None:
    script = (
        "import json, sys; sys.modules['mujoco'] = None\n"
        "from nbgym import error\n"
        "try:\n"
        "    import nbgym.envs.mujoco.mujoco_rendering\n"
        "except error.DependencyNotInstalled as e:\n"
        "    print(json.dumps(str(e)))\n"
    )
    assert 'pip install "nbgym[mujoco]"' in run_script(script)


@pytest.mark.parametrize("env_id", MUJOCO_V5_IDS)
def test_environments_render_as_gymnasium(env_id: str) -> None:
    """Each v5 environment's frames (colour and depth, after reset and after steps) are gymnasium's."""
    import nbgym

    if env_id not in nbgym.registry:
        pytest.skip(f"{env_id} is not registered in nbgym (the MuJoCo environments live on another branch)")
    frames = []
    for library in (nbgym, gymnasium):
        env = library.make(env_id, render_mode="rgbd_tuple", width=SIZE, height=SIZE)
        env.reset(seed=3)
        env.action_space.seed(3)
        episode = [env.render()]
        for _ in range(5):
            env.step(env.action_space.sample())
        episode.append(env.render())
        env.close()
        frames.append(episode)
    for ours, theirs in zip(*frames):
        assert_same_frame(ours, theirs)
    assert not np.array_equal(frames[0][0][0], frames[0][1][0])
