"""Saving rendered frames as mp4 videos (with MoviePy, as gymnasium does).

MoviePy (and the ffmpeg binary that its ``imageio-ffmpeg`` dependency ships) is imported when a
video is written, not when this module is: ``pip install "nbgym[video]"`` installs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from nbgym import error, logger

__all__ = ["capped_cubic_video_schedule", "save_video", "write_mp4"]


def capped_cubic_video_schedule(episode_id: int) -> bool:
    r"""The default episode trigger of :class:`~nbgym.wrappers.RecordVideo` and :func:`save_video`.

    Records the episodes :math:`\{0, 1, 8, 27, ..., k^3, ..., 729\}` (the cubes below 1000), then
    every 1000th: 1000, 2000, 3000, ...

    Args:
        episode_id: The episode's index (from 0).

    Returns:
        Whether the episode is recorded.
    """
    if episode_id < 1000:
        return int(round(episode_id ** (1.0 / 3))) ** 3 == episode_id
    return episode_id % 1000 == 0


def _image_sequence_clip() -> Any:
    try:
        from moviepy.video.io.ImageSequenceClip import ImageSequenceClip
    except ImportError as e:
        raise error.DependencyNotInstalled(
            'MoviePy is not installed, run `pip install "nbgym[video]"` (or `pip install moviepy`)'
        ) from e
    return ImageSequenceClip


def check_video_dependency() -> None:
    """Raises ``DependencyNotInstalled`` now, rather than when a first video is saved, if MoviePy is missing."""
    _image_sequence_clip()


def write_mp4(frames: Sequence[Any], path: str, save_logger: str | None = None, **clip_kwargs: Any) -> None:
    """Writes ``frames`` (``(height, width, 3)`` uint8 arrays) as the mp4 video ``path``.

    Args:
        frames: The frames, all of one size.
        path: The file to write.
        save_logger: MoviePy's progress logger: ``"bar"`` for a progress bar, ``None`` for silence.
        **clip_kwargs: Arguments of MoviePy's ``ImageSequenceClip``: ``fps`` or ``durations``.

    Raises:
        DependencyNotInstalled: If MoviePy is not installed.
    """
    clip = _image_sequence_clip()(list(frames), **clip_kwargs)
    clip.write_videofile(path, logger=save_logger)
    clip.close()


def save_video(
    frames: list,
    video_folder: str,
    episode_trigger: Callable[[int], bool] | None = None,
    step_trigger: Callable[[int], bool] | None = None,
    video_length: int | None = None,
    name_prefix: str = "rl-video",
    episode_index: int = 0,
    step_starting_index: int = 0,
    save_logger: str | None = None,
    **kwargs: Any,
) -> None:
    """Saves videos of an episode's rendered frames, as chosen by the triggers.

    With ``episode_trigger(episode_index)`` true, the episode's frames (the first ``video_length``)
    become ``{video_folder}/{name_prefix}-episode-{episode_index}.mp4``. With a ``step_trigger``, each
    step index ``i`` it accepts starts a video ``{name_prefix}-step-{i}.mp4`` of ``video_length`` frames
    (to the episode's end without one); step ``step_starting_index`` is the frame after the reset's.
    With neither trigger, episodes are chosen by :func:`capped_cubic_video_schedule`.

    Args:
        frames: The episode's frames (e.g. ``env.render()`` of ``render_mode="rgb_array_list"``).
        video_folder: The folder of the videos (created if needed).
        episode_trigger: Whether to save the episode of an index.
        step_trigger: Whether to start a video at a step index.
        video_length: The number of frames of a video; ``None``: to the end of the episode.
        name_prefix: The start of the videos' file names.
        episode_index: The index of the episode of ``frames``.
        step_starting_index: The step index of ``frames[1]``.
        save_logger: MoviePy's progress logger (``"bar"`` to show one).
        **kwargs: Arguments of MoviePy's ``ImageSequenceClip``: give ``fps`` (or ``durations``).

    Raises:
        DependencyNotInstalled: If MoviePy is not installed.

    Example:
        >>> import nbgym
        >>> from nbgym.utils.save_video import save_video
        >>> env = nbgym.make("FrozenLake-v1", render_mode="rgb_array_list")
        >>> _ = env.reset(seed=0)
        >>> for step_index in range(199):  # doctest: +SKIP
        ...     _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        ...     if terminated or truncated:
        ...         save_video(env.render(), "videos", fps=env.metadata["render_fps"])
        ...         break
    """
    if not isinstance(frames, list):
        logger.error(f"Expected a list of frames, got a {type(frames)} instead.")
    if episode_trigger is None and step_trigger is None:
        episode_trigger = capped_cubic_video_schedule

    video_folder = os.path.abspath(video_folder)
    os.makedirs(video_folder, exist_ok=True)
    path_prefix = f"{video_folder}/{name_prefix}"

    if episode_trigger is not None and episode_trigger(episode_index):
        write_mp4(frames[:video_length], f"{path_prefix}-episode-{episode_index}.mp4", save_logger, **kwargs)

    if step_trigger is not None:
        # frames[0] is the reset's: step `step_starting_index` shows in frames[1].
        for step_index, first in enumerate(range(1, len(frames)), start=step_starting_index):
            if step_trigger(step_index):
                last = first + video_length if video_length is not None else None
                write_mp4(frames[first:last], f"{path_prefix}-step-{step_index}.mp4", save_logger, **kwargs)
