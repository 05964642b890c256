"""Showing and recording the frames of vector environments.

* :class:`HumanRendering` - shows the sub-environments' frames, tiled, in one window.
* :class:`RecordVideo` - records mp4 videos of the sub-environments' frames, tiled into one picture.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from nbgym import logger
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.vector.vector_env import AutoresetMode, VectorEnv, VectorWrapper
from nbgym.wrappers.rendering import VideoRecorder, WindowDisplay

__all__ = ["HumanRendering", "RecordVideo"]


class HumanRendering(WindowDisplay, VectorWrapper, RecordConstructorArgs):
    """Shows the frames of a vector environment's sub-environments in one window, after every ``reset`` and ``step``.

    The frames are scaled to fit a grid of ``num_rows`` x ``num_cols`` tiles in a window of
    ``screen_size`` (the size of one frame by default), the grid's shape chosen as gymnasium chooses
    it. Frames are scaled with pygame (gymnasium uses OpenCV), so only pygame-ce is needed
    (``pip install "nbgym[render]"``).

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers.vector import HumanRendering
        >>> envs = HumanRendering(nbgym.make_vec("CartPole-v1", num_envs=4, render_mode="rgb_array"))
        >>> _ = envs.reset(seed=0)  # doctest: +SKIP
    """

    def __init__(self, env: VectorEnv, screen_size: tuple[int, int] | None = None):
        """Wraps ``env``.

        Args:
            env: The vector environment; it must render RGB arrays.
            screen_size: The window's ``(width, height)``; ``None``: a sub-environment's frame size.

        Raises:
            ValueError: If its render mode is not one of ``ACCEPTED_RENDER_MODES`` or its metadata has no
                ``"render_fps"``.
        """
        VectorWrapper.__init__(self, env)
        RecordConstructorArgs.__init__(self, screen_size=screen_size)
        self.screen_size = screen_size
        self.scaled_subenv_size: tuple[int, int] | None = None
        self.num_rows: int | None = None
        self.num_cols: int | None = None
        self._setup_window()

    def _layout(self, frame_size: tuple[int, int]) -> None:
        """Chooses the grid (rows, columns) and the tiles' size for frames of ``frame_size`` (width, height)."""
        if self.screen_size is None:
            self.screen_size = frame_size
        width_ratio = frame_size[0] / self.screen_size[0]
        height_ratio = frame_size[1] / self.screen_size[1]
        rows, cols = 1, 1
        # Grow the grid on the side whose tiles are relatively smaller, both when they are equal.
        while rows * cols < self.num_envs:
            row_ratio, col_ratio = rows * height_ratio, cols * width_ratio
            if row_ratio == col_ratio:
                rows, cols = rows + 1, cols + 1
            elif row_ratio > col_ratio:
                cols += 1
            else:
                rows += 1
        factor = min(self.screen_size[0] / (cols * frame_size[0]), self.screen_size[1] / (rows * frame_size[1]))
        self.num_rows, self.num_cols = rows, cols
        self.scaled_subenv_size = (int(frame_size[0] * factor), int(frame_size[1] * factor))

    def _render_frame(self) -> None:
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        frames = self.env.render()
        # As gymnasium: only a "*_last" mode's render gives a list whose last element is the frames; a "*_list"
        # mode gives each sub-environment's list of frames, which the check below refuses, as gymnasium's does.
        if self.env.render_mode.endswith("_last"):
            assert isinstance(frames, list)
            frames = frames[-1]
        assert frames is not None and len(frames) == self.num_envs
        assert all(isinstance(frame, np.ndarray) for frame in frames), (
            f"Expected `env.render()` to return a numpy array, actually returned {[type(frame) for frame in frames]}"
        )
        height, width = frames[0].shape[:2]
        if self.scaled_subenv_size is None:
            self._layout((width, height))
        tile_width, tile_height = self.scaled_subenv_size
        screen_width, screen_height = self.screen_size
        merged = np.zeros((screen_height, screen_width, 3), dtype=np.uint8)
        for i, frame in enumerate(frames):
            row, col = divmod(i, self.num_cols)
            tile = pygame.transform.scale(
                pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2))), (tile_width, tile_height)
            )
            top, left = row * tile_height, col * tile_width
            merged[top : top + tile_height, left : left + tile_width] = np.transpose(
                pygame.surfarray.array3d(tile), (1, 0, 2)
            )
        self.window.show(merged, self.metadata["render_fps"])


class RecordVideo(VideoRecorder, VectorWrapper, RecordConstructorArgs):
    """Records mp4 videos of a vector environment: each video frame tiles the sub-environments' frames.

    The same as :class:`nbgym.wrappers.RecordVideo`, with episodes counted by the first
    sub-environment (its autoresets start new episodes). The tiles form the grid of ``n`` frames
    (or only the first with ``record_first_only``) whose aspect ratio is closest to
    ``video_aspect_ratio``. In ``SAME_STEP`` autoreset mode the last frame of an episode is never
    seen (the step returns the next episode's first), so videos miss it.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers.vector import RecordVideo
        >>> envs = nbgym.make_vec("CartPole-v1", num_envs=4, render_mode="rgb_array")
        >>> envs = RecordVideo(envs, "videos", episode_trigger=lambda e: e % 5 == 0)  # doctest: +SKIP
    """

    def __init__(
        self,
        env: VectorEnv,
        video_folder: str,
        video_aspect_ratio: tuple[int, int] = (1, 1),
        record_first_only: bool = False,
        episode_trigger: Callable[[int], bool] | None = None,
        step_trigger: Callable[[int], bool] | None = None,
        video_length: int = 0,
        name_prefix: str = "rl-video",
        fps: int | None = None,
        disable_logger: bool = True,
        gc_trigger: Callable[[int], bool] | None = lambda episode: True,
    ):
        """Wraps ``env``.

        Args:
            env: The vector environment; it must render images.
            video_folder: The folder of the videos (created if needed; existing videos may be overwritten).
            video_aspect_ratio: The ``(width, height)`` proportions the tiled frames come closest to.
            record_first_only: Whether to record only the first sub-environment.
            episode_trigger: Whether to start recording at an episode index (of the first sub-environment).
            step_trigger: Whether to start recording at a step index.
            video_length: Frames per video; 0 records whole episodes.
            name_prefix: The start of the videos' file names.
            fps: The videos' frame rate; ``None``: ``metadata["render_fps"]``, else 30.
            disable_logger: Whether to silence MoviePy's progress bar.
            gc_trigger: Whether to run the garbage collector after saving a video, by episode index.

        Raises:
            ValueError: If the render mode does not give images.
            DependencyNotInstalled: If MoviePy is not installed.
        """
        VectorWrapper.__init__(self, env)
        RecordConstructorArgs.__init__(
            self,
            video_folder=video_folder,
            episode_trigger=episode_trigger,
            step_trigger=step_trigger,
            video_length=video_length,
            name_prefix=name_prefix,
            disable_logger=disable_logger,
        )
        self._setup_recording(
            video_folder, episode_trigger, step_trigger, video_length, name_prefix, fps, disable_logger, gc_trigger
        )
        autoreset_mode = env.metadata.get("autoreset_mode", None)
        if autoreset_mode is None:
            logger.warn(
                f"{env} metadata doesn't specify its autoreset mode ({env.metadata!r}), therefore, defaulting to next step."
            )
            autoreset_mode = AutoresetMode.NEXT_STEP
        self.autoreset_mode = autoreset_mode
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            logger.warn(
                "Vector environment's autoreset mode is same-step (https://farama.org/Vector-Autoreset-Mode). "
                "Recorded episodes will not contain the last frame of the episode."
            )
        self.has_autoreset = False
        self.record_first_only = record_first_only
        self.video_aspect_ratio = video_aspect_ratio
        self.frame_cols = -1
        self.frame_rows = -1

    def _get_concat_frame_shape(self, n_frames: int, h: int, w: int) -> None:
        """Chooses ``frame_rows`` x ``frame_cols`` (a divisor pair of ``n_frames``) closest to the aspect ratio."""
        target = self.video_aspect_ratio[0] / self.video_aspect_ratio[1]
        best_rows, best_cols = 1, n_frames
        best_diff = np.inf
        for rows in range(1, int(n_frames**0.5) + 1):
            if n_frames % rows == 0:
                cols = n_frames // rows
                diff = abs(cols * w / (rows * h) - target)
                if diff < best_diff:
                    best_diff, best_rows, best_cols = diff, rows, cols
        self.frame_rows, self.frame_cols = best_rows, best_cols

    def _concat_frames(self, frames: Sequence[np.ndarray]) -> np.ndarray:
        """The frames tiled row by row into one picture of ``frame_rows`` x ``frame_cols`` tiles."""
        frames = np.array(frames)
        n_frames, h, w, c = frames.shape
        grid = np.zeros((self.frame_rows * h, self.frame_cols * w, c), dtype=frames.dtype)
        for idx in range(n_frames):
            row, col = divmod(idx, self.frame_cols)
            grid[row * h : (row + 1) * h, col * w : (col + 1) * w] = frames[idx]
        return grid

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frames = self.env.render()
        assert isinstance(frames, Sequence), type(frames)
        assert len(frames) == self.num_envs
        if self.record_first_only:
            frames = [frames[0]]
        if self.frame_cols == -1 or self.frame_rows == -1:
            h, w, _ = frames[0].shape
            self._get_concat_frame_shape(len(frames), h, w)
        self.recorded_frames.append(self._concat_frames(frames))

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets the sub-environments; a reset of the first one is a new episode, which may end or start a recording."""
        if options is None or "reset_mask" not in options or options["reset_mask"][0]:
            self._new_episode()
        obs, info = super().reset(seed=seed, options=options)
        self._record()
        self.has_autoreset = False
        return obs, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps the sub-environments; the first one's autoreset is a new episode. Records the new frames."""
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        ended = terminations[0] or truncations[0]
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            if self.has_autoreset:
                self._new_episode()
            self.has_autoreset = ended
        elif self.autoreset_mode == AutoresetMode.SAME_STEP and ended:
            self._new_episode()
        self._new_step()
        self._record()
        return obs, rewards, terminations, truncations, infos

    def render(self) -> Any:
        """The sub-environments' frames."""
        return self._render_with_history(super().render())

    def close(self, **kwargs: Any) -> None:
        """Closes the vector environment, then saves the recording under way."""
        super().close(**kwargs)
        if self.recording:
            self.stop_recording()
