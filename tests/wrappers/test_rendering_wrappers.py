"""The rendering wrappers against gymnasium 1.4.0's: RenderCollection, RecordVideo (videos written and read
back), HumanRendering, AddRenderObservation, save_video and the video schedule, and the vector
HumanRendering and RecordVideo. Headless (SDL's dummy video driver)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"

import sys

import gymnasium
import gymnasium.utils.save_video as gym_save_video
import gymnasium.wrappers as gym_wrappers
import gymnasium.wrappers.vector as gym_vector_wrappers
import imageio.v3 as iio
import numpy as np
import pygame
import pytest

import nbgym
import nbgym.utils.save_video as nb_save_video
from nbgym import error
from nbgym.wrappers import AddRenderObservation, HumanRendering, RecordVideo, RenderCollection
from nbgym.wrappers import vector as nb_vector_wrappers

pytestmark = pytest.mark.filterwarnings("ignore:.*Overwriting existing videos.*")


def read_video(path) -> np.ndarray:
    """The frames of an mp4 file, ``(frames, height, width, 3)``."""
    return iio.imread(path)


def same_error(theirs, ours) -> None:
    with pytest.raises(Exception) as their_info:
        theirs()
    with pytest.raises(type(their_info.value)) as our_info:
        ours()
    assert str(our_info.value) == str(their_info.value)


# RenderCollection


@pytest.mark.parametrize("pop_frames", [True, False])
@pytest.mark.parametrize("reset_clean", [True, False])
def test_render_collection_collects_gymnasiums_frames(pop_frames, reset_clean):
    ours = RenderCollection(nbgym.make("CartPole-v1", render_mode="rgb_array"), pop_frames, reset_clean)
    theirs = gym_wrappers.RenderCollection(
        gymnasium.make("CartPole-v1", render_mode="rgb_array"), pop_frames, reset_clean
    )
    assert ours.render_mode == theirs.render_mode == "rgb_array_list"
    assert ours.metadata["render_modes"] == theirs.metadata["render_modes"]
    for env in (ours, theirs):
        env.reset(seed=1)
    for step in range(12):
        if step == 6:
            for env in (ours, theirs):
                env.reset(seed=2)
        for env in (ours, theirs):
            env.step(step % 2)
        if step % 4 == 3:
            our_frames, their_frames = ours.render(), theirs.render()
            assert len(our_frames) == len(their_frames) > 0
            for a, b in zip(our_frames, their_frames):
                np.testing.assert_array_equal(a, b)


def test_make_applies_render_collection_and_human_rendering():
    env = nbgym.make("CartPole-v1", render_mode="rgb_array_list")
    assert isinstance(env, RenderCollection) and env.render_mode == "rgb_array_list"
    theirs = gymnasium.make("CartPole-v1", render_mode="rgb_array_list")
    env.reset(seed=0)
    theirs.reset(seed=0)
    env.step(1)
    theirs.step(1)
    frames, their_frames = env.render(), theirs.render()
    assert len(frames) == len(their_frames) == 2
    for a, b in zip(frames, their_frames):
        np.testing.assert_array_equal(a, b)


def test_render_collection_errors_are_gymnasiums():
    for mode in (None, "rgb_array_list"):
        same_error(
            lambda: gym_wrappers.RenderCollection(gymnasium.make("CartPole-v1", render_mode=mode)),
            lambda: RenderCollection(nbgym.make("CartPole-v1", render_mode=mode)),
        )


# RecordVideo


def test_record_video_writes_episodes_of_the_schedule(tmp_path):
    """Default trigger (capped cubic): episodes 0, 1 and 8 of 10; each video holds its episode's frames
    (reset + steps), of the frame's size, at the env's fps; the same files as gymnasium's wrapper."""
    ours = RecordVideo(nbgym.make("CartPole-v1", render_mode="rgb_array"), str(tmp_path / "ours"))
    theirs = gym_wrappers.RecordVideo(gymnasium.make("CartPole-v1", render_mode="rgb_array"), str(tmp_path / "theirs"))
    lengths = {}
    for episode in range(10):
        for env in (ours, theirs):
            env.reset(seed=episode)
        steps = 0
        while True:
            steps += 1
            terminated, truncated = ours.step(steps % 2)[2:4]
            theirs.step(steps % 2)
            if terminated or truncated:
                break
        lengths[episode] = steps + 1
    ours.close()
    theirs.close()
    names = sorted(os.listdir(tmp_path / "ours"))
    assert names == sorted(os.listdir(tmp_path / "theirs"))
    assert names == ["rl-video-episode-0.mp4", "rl-video-episode-1.mp4", "rl-video-episode-8.mp4"]
    for name in names:
        frames = read_video(tmp_path / "ours" / name)
        their_frames = read_video(tmp_path / "theirs" / name)
        episode = int(name.rsplit("-", 1)[1][:-4])
        assert frames.shape == their_frames.shape == (lengths[episode], 400, 600, 3)
        # Same frames encoded the same way: the decoded videos agree.
        np.testing.assert_array_equal(frames, their_frames)
    meta = iio.immeta(tmp_path / "ours" / names[0])
    assert meta["fps"] == 50


def test_record_video_step_trigger_and_length(tmp_path):
    """A step trigger with video_length records fixed-length videos across episodes, named by step."""
    kwargs = dict(step_trigger=lambda step: step % 30 == 0, video_length=12, name_prefix="clip", fps=10)
    ours = RecordVideo(nbgym.make("FrozenLake-v1", render_mode="rgb_array"), str(tmp_path / "ours"), **kwargs)
    theirs = gym_wrappers.RecordVideo(
        gymnasium.make("FrozenLake-v1", render_mode="rgb_array"), str(tmp_path / "theirs"), **kwargs
    )
    for env in (ours, theirs):
        env.reset(seed=0)
        env.action_space.seed(0)
        for _ in range(70):
            if any(env.step(env.action_space.sample())[2:4]):
                env.reset()
        env.close()
    names = sorted(os.listdir(tmp_path / "ours"))
    assert (
        names == sorted(os.listdir(tmp_path / "theirs")) == ["clip-step-0.mp4", "clip-step-30.mp4", "clip-step-60.mp4"]
    )
    for name in names:
        frames = read_video(tmp_path / "ours" / name)
        assert frames.shape == read_video(tmp_path / "theirs" / name).shape
    # A recording stops once it holds more than video_length frames, as gymnasium's.
    assert read_video(tmp_path / "ours" / names[0]).shape == (13, 256, 256, 3)
    assert not ours.recording and ours.recorded_frames == []


def test_record_video_episode_trigger_and_render_list(tmp_path):
    """An rgb_array_list env records through its collected frames; render() still returns them all."""
    env = RecordVideo(
        nbgym.make("CartPole-v1", render_mode="rgb_array_list"), str(tmp_path), episode_trigger=lambda e: e == 1
    )
    for episode in range(3):
        env.reset(seed=episode)
        for _ in range(5):
            env.step(0)
    env.close()
    assert os.listdir(tmp_path) == ["rl-video-episode-1.mp4"]
    assert read_video(tmp_path / "rl-video-episode-1.mp4").shape == (6, 400, 600, 3)


def test_record_video_errors_are_gymnasiums(tmp_path):
    for mode in (None, "human", "ansi"):
        env_id = "FrozenLake-v1"
        same_error(
            lambda: gym_wrappers.RecordVideo(gymnasium.make(env_id, render_mode=mode), str(tmp_path)),
            lambda: RecordVideo(nbgym.make(env_id, render_mode=mode), str(tmp_path)),
        )
    env = RecordVideo(nbgym.make("CartPole-v1", render_mode="rgb_array"), str(tmp_path))
    with pytest.raises(AssertionError, match="no recording was started"):
        env.stop_recording()


def test_record_video_without_moviepy_names_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "moviepy.video.io.ImageSequenceClip", None)
    with pytest.raises(error.DependencyNotInstalled, match=r'pip install "nbgym\[video\]"'):
        RecordVideo(nbgym.make("CartPole-v1", render_mode="rgb_array"), str(tmp_path))


# save_video and the schedule


def test_capped_cubic_video_schedule_is_gymnasiums():
    for episode in range(5000):
        assert nb_save_video.capped_cubic_video_schedule(episode) == gym_save_video.capped_cubic_video_schedule(episode)


def test_save_video_writes_gymnasiums_files(tmp_path):
    env = nbgym.make("FrozenLake-v1", render_mode="rgb_array_list")
    env.reset(seed=0)
    for _ in range(9):
        env.step(1)
    frames = env.render()
    kwargs = dict(fps=4, step_trigger=lambda s: s % 4 == 0, video_length=3, episode_index=8, step_starting_index=1)
    nb_save_video.save_video(frames, str(tmp_path / "ours"), **kwargs)
    gym_save_video.save_video(frames, str(tmp_path / "theirs"), **kwargs)
    names = sorted(os.listdir(tmp_path / "ours"))
    assert names == sorted(os.listdir(tmp_path / "theirs")) == ["rl-video-step-4.mp4", "rl-video-step-8.mp4"]
    for name in names:
        np.testing.assert_array_equal(read_video(tmp_path / "ours" / name), read_video(tmp_path / "theirs" / name))
    nb_save_video.save_video(frames, str(tmp_path / "default"), fps=4, episode_index=8)  # 8 is a cube
    assert os.listdir(tmp_path / "default") == ["rl-video-episode-8.mp4"]
    assert read_video(tmp_path / "default" / "rl-video-episode-8.mp4").shape == (len(frames), 256, 256, 3)


# HumanRendering


def test_human_rendering_shows_the_frames(monkeypatch):
    env = HumanRendering(nbgym.make("Acrobot-v1", render_mode="rgb_array"))
    assert env.render_mode == "human" and "human" in env.metadata["render_modes"]
    env.reset(seed=0)
    window = pygame.display.get_surface()
    assert window.get_size() == (500, 500)
    env.step(0)
    np.testing.assert_array_equal(pygame.surfarray.array3d(window).transpose(1, 0, 2), env.env.render())
    assert env.render() is None
    env.close()
    assert not pygame.display.get_init()


def test_human_rendering_errors_are_gymnasiums():
    same_error(
        lambda: gym_wrappers.HumanRendering(gymnasium.make("FrozenLake-v1", render_mode="ansi")),
        lambda: HumanRendering(nbgym.make("FrozenLake-v1", render_mode="ansi")),
    )


# AddRenderObservation


@pytest.mark.parametrize("render_only", [True, False])
def test_add_render_observation_is_gymnasiums(render_only):
    ours = AddRenderObservation(nbgym.make("CartPole-v1", render_mode="rgb_array"), render_only=render_only)
    theirs = gym_wrappers.AddRenderObservation(
        gymnasium.make("CartPole-v1", render_mode="rgb_array"), render_only=render_only
    )
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    observations = [ours.reset(seed=3)[0]], [theirs.reset(seed=3)[0]]
    for t in range(10):
        observations[0].append(ours.step(t % 2)[0])
        observations[1].append(theirs.step(t % 2)[0])
    for obs, their_obs in zip(*observations):
        if render_only:
            np.testing.assert_array_equal(obs, their_obs)
            assert obs.dtype == their_obs.dtype and obs in ours.observation_space
        else:
            assert list(obs) == list(their_obs)
            for key in their_obs:
                np.testing.assert_array_equal(obs[key], their_obs[key])


def test_add_render_observation_errors_are_gymnasiums():
    same_error(
        lambda: gym_wrappers.AddRenderObservation(gymnasium.make("CartPole-v1")),
        lambda: AddRenderObservation(nbgym.make("CartPole-v1")),
    )
    same_error(
        lambda: gym_wrappers.AddRenderObservation(gymnasium.make("Taxi-v4", render_mode="ansi")),
        lambda: AddRenderObservation(nbgym.make("Taxi-v4", render_mode="ansi")),
    )


# Vector wrappers


@pytest.mark.filterwarnings("ignore:.*autoreset mode is same-step.*")
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_record_video_is_gymnasiums(tmp_path, mode):
    """Videos of the tiled sub-environment frames: the same files, frame counts, sizes and frames."""
    kwargs = dict(episode_trigger=lambda e: e % 2 == 0, video_aspect_ratio=(16, 9))
    ours = nb_vector_wrappers.RecordVideo(
        nbgym.make_vec("CartPole-v1", 4, render_mode="rgb_array", autoreset_mode=mode), str(tmp_path / "ours"), **kwargs
    )
    theirs = gym_vector_wrappers.RecordVideo(
        gymnasium.make_vec(
            "CartPole-v1", 4, vectorization_mode="sync", render_mode="rgb_array", vector_kwargs={"autoreset_mode": mode}
        ),
        str(tmp_path / "theirs"),
        **kwargs,
    )
    for env in (ours, theirs):
        env.reset(seed=5)
        for t in range(60):
            env.step(np.array([1, t % 2, 0, (t // 3) % 2]))  # the first sub-env falls every ~10 steps
        env.close()
    names = sorted(os.listdir(tmp_path / "ours"))
    assert names == sorted(os.listdir(tmp_path / "theirs")) and len(names) >= 3
    for name in names:
        frames = read_video(tmp_path / "ours" / name)
        assert frames.shape[1:] == (800, 1200, 3)  # a 2x2 grid of 600x400 frames is closest to 16:9
        np.testing.assert_array_equal(frames, read_video(tmp_path / "theirs" / name))


def test_vector_record_video_first_env_only(tmp_path):
    envs = nb_vector_wrappers.RecordVideo(
        nbgym.make_vec("Taxi-v4", 3, render_mode="rgb_array"),
        str(tmp_path),
        record_first_only=True,
        video_length=5,
        step_trigger=lambda s: s == 0,
    )
    envs.reset(seed=0)
    for _ in range(8):
        envs.step(envs.action_space.sample())
    envs.close()
    assert os.listdir(tmp_path) == ["rl-video-step-0.mp4"]
    assert read_video(tmp_path / "rl-video-step-0.mp4").shape == (6, 456, 536, 3)


def test_vector_human_rendering_tiles_the_frames():
    envs = nb_vector_wrappers.HumanRendering(nbgym.make_vec("CartPole-v1", 3, render_mode="rgb_array"))
    assert envs.render_mode == "human"
    envs.reset(seed=0)
    envs.step(np.array([0, 1, 0]))
    window = pygame.display.get_surface()
    assert window.get_size() == (600, 400)
    assert (envs.num_rows, envs.num_cols, envs.scaled_subenv_size) == (2, 2, (300, 200))
    shown = pygame.surfarray.array3d(window).transpose(1, 0, 2)
    assert np.all(shown[200:, 300:] == 0) and not np.all(shown[:200, :300] == 0)  # three tiles, one empty corner
    envs.close()
    assert not pygame.display.get_init()


def test_vector_wrapper_errors_are_gymnasiums(tmp_path):
    same_error(
        lambda: gym_vector_wrappers.HumanRendering(gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="sync")),
        lambda: nb_vector_wrappers.HumanRendering(nbgym.make_vec("CartPole-v1", 2)),
    )
    same_error(
        lambda: gym_vector_wrappers.RecordVideo(
            gymnasium.make_vec("CartPole-v1", 2, vectorization_mode="sync"), str(tmp_path)
        ),
        lambda: nb_vector_wrappers.RecordVideo(nbgym.make_vec("CartPole-v1", 2), str(tmp_path)),
    )
