"""MuJoCo frames beyond the single env: the compiled vector env's ``render()`` against gymnasium's sync
vector env, and ``RecordVideo`` (videos read back), ``HumanRendering`` (single and vector) and
``nbgym record`` on MuJoCo environments. Headless: nbgym's renderer picks EGL or OSMesa and writes it to
``MUJOCO_GL``, so gymnasium's renderers, made afterwards in this process, draw with the same backend.
Frames are small (software rendering)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import gymnasium
import numpy as np
import pytest

pytest.importorskip("mujoco")
iio = pytest.importorskip("imageio.v3")
pygame = pytest.importorskip("pygame")

import gymnasium.wrappers as gym_wrappers  # noqa: E402
import gymnasium.wrappers.vector as gym_vector_wrappers  # noqa: E402

import nbgym  # noqa: E402
from nbgym.cli import main  # noqa: E402
from nbgym.envs.mujoco._compiled import CompiledMujocoVectorEnv  # noqa: E402
from nbgym.wrappers import HumanRendering, RecordVideo  # noqa: E402
from nbgym.wrappers import vector as nb_vector_wrappers  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*Overwriting existing videos.*")

SIZE = 32


@pytest.fixture(scope="module", autouse=True)
def nbgym_chooses_the_backend() -> None:
    """nbgym's renderer draws first, so that ``MUJOCO_GL`` is set before gymnasium makes a renderer."""
    env = nbgym.make("InvertedPendulum-v5", render_mode="rgb_array", width=8, height=8)
    env.reset(seed=0)
    env.render()
    env.close()
    assert os.environ["MUJOCO_GL"] in ("egl", "osmesa", "glfw")


def assert_same_frames(ours: tuple, theirs: tuple) -> None:
    assert type(ours) is tuple and len(ours) == len(theirs)
    for our_frame, their_frame in zip(ours, theirs):
        assert our_frame.dtype == their_frame.dtype and our_frame.shape == their_frame.shape
        np.testing.assert_array_equal(our_frame, their_frame)


@pytest.mark.parametrize("render_mode", ["rgb_array", "depth_array"])
@pytest.mark.parametrize(
    "env_id",
    [
        "Hopper-v5",  # a tracking camera
        # A free camera that looks where the geoms were at its first frame: each sub-env keeps its camera though
        # its MjData is built anew from its state row after each step.
        "Reacher-v5",
    ],
)
def test_vector_render_equals_gymnasium_sync(env_id: str, render_mode: str) -> None:
    """Every sub-env's frame, after reset, after steps and after an autoreset, is gymnasium's sync vector env's."""
    episodes = []
    for library, options in ((nbgym, {}), (gymnasium, {"vectorization_mode": "sync"})):
        envs = library.make_vec(env_id, 3, render_mode=render_mode, width=SIZE, height=SIZE, **options)
        envs.reset(seed=5)
        envs.action_space.seed(1)
        frames = [envs.render()]
        for _ in range(4):
            envs.step(envs.action_space.sample())
        frames.append(envs.render())
        envs.reset(seed=9, options={"reset_mask": np.array([True, False, True])})
        frames.append(envs.render())
        envs.close()
        episodes.append(frames)
    assert isinstance(nbgym.make_vec(env_id, 1, render_mode=render_mode).unwrapped, CompiledMujocoVectorEnv)
    for ours, theirs in zip(*episodes):
        assert_same_frames(ours, theirs)
    ours = episodes[0]
    assert not np.array_equal(ours[0][0], ours[0][1]) and not np.array_equal(ours[0][0], ours[1][0])


def test_vector_render_arguments_reach_the_renderer() -> None:
    """A named camera and a non-default camera configuration draw what gymnasium's sub-envs draw."""
    frames = []
    for library, options in ((nbgym, {}), (gymnasium, {"vectorization_mode": "sync"})):
        for arguments in ({"camera_name": "track"}, {"default_camera_config": {"distance": 2.0, "azimuth": 30.0}}):
            envs = library.make_vec(
                "Walker2d-v5", 2, render_mode="rgb_array", width=SIZE, height=SIZE, **arguments, **options
            )
            envs.reset(seed=2)
            frames.append(envs.render())
            envs.close()
    for ours, theirs in zip(frames[:2], frames[2:]):
        assert_same_frames(ours, theirs)
    assert not np.array_equal(frames[0][0], frames[1][0])


def test_vector_render_without_a_mode_warns_and_returns_nones() -> None:
    envs = nbgym.make_vec("Swimmer-v5", 2)
    envs.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert envs.render() == (None, None)
    envs.close()


def test_record_video_equals_gymnasiums(tmp_path) -> None:
    """A recorded episode (through termination) reads back as gymnasium's recording of the same episode."""
    videos = []
    for name, library, wrapper in (("ours", nbgym, RecordVideo), ("theirs", gymnasium, gym_wrappers.RecordVideo)):
        env = wrapper(
            library.make("InvertedPendulum-v5", render_mode="rgb_array", width=SIZE, height=SIZE), str(tmp_path / name)
        )
        env.reset(seed=4)
        terminated = False
        while not terminated:
            _, _, terminated, _, _ = env.step(np.array([3.0], dtype=np.float32))
        env.close()
        videos.append(iio.imread(tmp_path / name / "rl-video-episode-0.mp4"))
    assert videos[0].shape[1:] == (SIZE, SIZE, 3) and videos[0].shape[0] > 2
    np.testing.assert_array_equal(*videos)


def test_vector_record_video_equals_gymnasiums(tmp_path) -> None:
    videos = []
    for name, envs, wrapper in (
        (
            "ours",
            nbgym.make_vec("HalfCheetah-v5", 2, render_mode="rgb_array", width=SIZE, height=SIZE),
            nb_vector_wrappers.RecordVideo,
        ),
        (
            "theirs",
            gymnasium.make_vec(
                "HalfCheetah-v5", 2, vectorization_mode="sync", render_mode="rgb_array", width=SIZE, height=SIZE
            ),
            gym_vector_wrappers.RecordVideo,
        ),
    ):
        envs = wrapper(envs, str(tmp_path / name), step_trigger=lambda step: step == 0, video_length=5)
        envs.reset(seed=1)
        for step in range(6):
            envs.step(np.full((2, 6), 0.1 * step, dtype=np.float32))
        envs.close()
        videos.append(iio.imread(tmp_path / name / "rl-video-step-0.mp4"))
    assert videos[0].shape[0] == 6  # the reset frame and five steps
    np.testing.assert_array_equal(*videos)


def test_human_rendering_shows_the_frames() -> None:
    env = HumanRendering(nbgym.make("Hopper-v5", render_mode="rgb_array", width=SIZE, height=SIZE))
    env.reset(seed=0)
    env.step(env.action_space.sample())
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
    np.testing.assert_array_equal(shown, env.env.render())
    env.close()


def test_vector_human_rendering_tiles_gymnasiums_frames() -> None:
    """The window has gymnasium's vector ``HumanRendering`` layout, over the sub-envs' frames of gymnasium's
    sync env (the tiles are scaled with pygame where gymnasium uses OpenCV, so the pixels are not compared)."""
    shown = []
    for envs, wrapper in (
        (
            nbgym.make_vec("Hopper-v5", 3, render_mode="rgb_array", width=SIZE, height=SIZE),
            nb_vector_wrappers.HumanRendering,
        ),
        (
            gymnasium.make_vec(
                "Hopper-v5", 3, vectorization_mode="sync", render_mode="rgb_array", width=SIZE, height=SIZE
            ),
            gym_vector_wrappers.HumanRendering,
        ),
    ):
        envs = wrapper(envs)
        envs.reset(seed=0)
        envs.step(np.full((3, 3), 0.5, dtype=np.float32))
        window = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
        shown.append((envs.num_rows, envs.num_cols, envs.scaled_subenv_size, window, envs.env.render()))
        envs.close()
    (*our_layout, our_window, our_frames), (*their_layout, their_window, their_frames) = shown
    assert our_layout == their_layout and our_window.shape == their_window.shape
    assert_same_frames(our_frames, their_frames)
    tile_width, tile_height = our_layout[2]
    assert np.all(our_window[tile_height:, tile_width:] == 0)  # three tiles, the fourth empty
    assert not np.all(our_window[:tile_height, :tile_width] == 0)


def test_record_command_writes_a_mujoco_video(tmp_path, capsys) -> None:
    out = tmp_path / "pendulum.mp4"
    assert main(["record", "InvertedPendulum-v5", "--out", str(out), "--max-steps", "3"]) == 0
    assert "InvertedPendulum-v5, 3 random steps" in capsys.readouterr().out
    assert iio.imread(out).shape == (4, 480, 480, 3)
