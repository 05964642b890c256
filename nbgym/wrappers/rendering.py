"""Wrappers that change what ``render()`` returns, or that use its frames.

* :class:`RenderCollection` - collects the frames of every step, so that ``render()`` returns a list.
* :class:`RecordVideo` - records mp4 videos of chosen episodes or steps.
* :class:`HumanRendering` - shows the frames of an ``"rgb_array"`` environment in a window.
* :class:`AddRenderObservation` - puts the rendered frame into the observation.
* :class:`AddWhiteNoise` - replaces random pixels of the frame with white noise.
* :class:`ObstructView` - covers random square patches of the frame with white noise.

AddWhiteNoise and ObstructView draw from the environment's ``np_random``, in gymnasium's order, so
that an environment rendered through them gives the same frames (and leaves the same random stream)
as gymnasium's wrappers.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from copy import deepcopy
from typing import Any, SupportsFloat, cast

import numpy as np

from nbgym import logger, spaces
from nbgym.core import ActType, Env, ObsType, RenderFrame, Wrapper
from nbgym.error import InvalidProbability
from nbgym.utils.record_constructor import RecordConstructorArgs
from nbgym.wrappers.transform_observation import TransformObservation

__all__ = [
    "RenderCollection",
    "RecordVideo",
    "HumanRendering",
    "AddRenderObservation",
    "AddWhiteNoise",
    "ObstructView",
]

# The upper bounds of the red, green and blue noise of a grayscale noise pixel (the sum of the three).
_GRAYSCALE_NOISE_HIGH = 255 * np.array([0.2989, 0.5870, 0.1140])


def _white_noise(rng: np.random.Generator, shape: tuple[int, ...], grayscale: bool) -> np.ndarray:
    """Random pixels of an RGB frame of ``shape``: uniform per channel, or one random gray per pixel."""
    if grayscale:
        channels = rng.integers((0, 0, 0), _GRAYSCALE_NOISE_HIGH, size=shape, dtype=np.uint8)
        return channels.sum(-1, keepdims=True).repeat(3, -1)
    return rng.integers(0, 255, size=shape, dtype=np.uint8)


class AddWhiteNoise(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Replaces each pixel of the rendered frame with white noise with probability ``probability_of_noise_per_pixel``.

    The environment must render RGB arrays (``render_mode="rgb_array"``). Each ``render()`` draws the
    noise of every pixel first, then the mask of the pixels it replaces.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import AddWhiteNoise
        >>> env = AddWhiteNoise(nbgym.make("CartPole-v1", render_mode="rgb_array"), 0.5)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape  # doctest: +SKIP
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        probability_of_noise_per_pixel: float,
        is_noise_grayscale: bool = False,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; it must render RGB arrays.
            probability_of_noise_per_pixel: The probability, in ``[0, 1)``, that a pixel is replaced.
            is_noise_grayscale: Whether the noise pixels are gray (else each channel is random).

        Raises:
            InvalidProbability: ``probability_of_noise_per_pixel`` is outside ``[0, 1)``.
        """
        if not 0 <= probability_of_noise_per_pixel < 1:
            raise InvalidProbability(
                "probability_of_noise_per_pixel should be in the interval [0,1). "
                f"Received {probability_of_noise_per_pixel}"
            )
        RecordConstructorArgs.__init__(
            self,
            probability_of_noise_per_pixel=probability_of_noise_per_pixel,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.probability_of_noise_per_pixel = probability_of_noise_per_pixel
        self.is_noise_grayscale = is_noise_grayscale

    def render(self) -> np.ndarray:
        """Renders the environment and replaces random pixels with noise."""
        frame = cast(np.ndarray, super().render())
        noise = _white_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        mask = self.np_random.random(frame.shape[0:2]) < self.probability_of_noise_per_pixel
        return np.where(mask[..., None], noise, frame)


class ObstructView(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Covers random square patches of the rendered frame with white noise.

    Each ``render()`` draws ``int(height * width * obstructed_pixels_ratio / obstruction_width**2)``
    patch centres uniformly among the pixels, then the noise of every pixel; a patch is the
    ``obstruction_width`` square around its centre, cut at the frame's edges (so patches may overlap and
    cover fewer pixels than the ratio). The environment must render RGB arrays.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import ObstructView
        >>> env = ObstructView(nbgym.make("CartPole-v1", render_mode="rgb_array"), 0.5, obstruction_width=50)
        >>> _ = env.reset(seed=123)
        >>> env.render().shape  # doctest: +SKIP
        (400, 600, 3)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        obstructed_pixels_ratio: float,
        obstruction_width: int,
        is_noise_grayscale: bool = False,
    ):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; it must render RGB arrays.
            obstructed_pixels_ratio: The fraction, in ``[0, 1)``, of the pixels that the patches would
                cover if they neither overlapped nor crossed an edge.
            obstruction_width: The side of a square patch, in pixels (at least 1).
            is_noise_grayscale: Whether the noise pixels are gray (else each channel is random).

        Raises:
            ValueError: ``obstructed_pixels_ratio`` is outside ``[0, 1)`` or ``obstruction_width`` is below 1.
        """
        if not 0 <= obstructed_pixels_ratio < 1:
            raise ValueError(
                f"obstructed_pixels_ratio should be in the interval [0,1). Received {obstructed_pixels_ratio}"
            )
        if obstruction_width < 1:
            raise ValueError(f"obstruction_width should be larger or equal than 1. Received {obstruction_width}")
        RecordConstructorArgs.__init__(
            self,
            obstructed_pixels_ratio=obstructed_pixels_ratio,
            obstruction_width=obstruction_width,
            is_noise_grayscale=is_noise_grayscale,
        )
        Wrapper.__init__(self, env)
        self.obstruction_centers_ratio = obstructed_pixels_ratio / obstruction_width**2
        self.obstruction_width = obstruction_width
        self.is_noise_grayscale = is_noise_grayscale

    def _patch_mask(self, height: int, width: int) -> np.ndarray:
        """Draws the patch centres and returns the ``(height, width)`` mask of the covered pixels."""
        n_pixels = height * width
        centers = self.np_random.integers(0, n_pixels, int(n_pixels * self.obstruction_centers_ratio))
        rows, cols = np.unravel_index(centers, (height, width))
        before = self.obstruction_width // 2
        after = self.obstruction_width - before
        # Each patch adds +1 at its top-left corner and -1 past its other corners of a (height+1, width+1)
        # grid; the 2-D prefix sum of that grid counts the patches covering each pixel.
        top, bottom = np.maximum(rows - before, 0), np.minimum(rows + after, height)
        left, right = np.maximum(cols - before, 0), np.minimum(cols + after, width)
        corners = np.zeros((height + 1, width + 1), dtype=np.int64)
        np.add.at(corners, (top, left), 1)
        np.add.at(corners, (top, right), -1)
        np.add.at(corners, (bottom, left), -1)
        np.add.at(corners, (bottom, right), 1)
        return corners.cumsum(axis=0).cumsum(axis=1)[:height, :width] > 0

    def render(self) -> RenderFrame:
        """Renders the environment and covers random patches with noise."""
        frame = cast(np.ndarray, super().render())
        mask = self._patch_mask(frame.shape[0], frame.shape[1])
        noise = _white_noise(self.np_random, frame.shape, self.is_noise_grayscale)
        return np.where(mask[..., None], noise, frame)


class RenderCollection(Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Collects the frame of every ``reset`` and ``step``, so that ``render()`` returns a list of frames.

    ``render_mode`` becomes ``"<mode>_list"`` (``make(id, render_mode="rgb_array_list")`` applies this
    wrapper to an ``"rgb_array"`` environment). No vector version exists.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import RenderCollection
        >>> env = RenderCollection(nbgym.make("CartPole-v1", render_mode="rgb_array"))
        >>> _ = env.reset(seed=123)
        >>> for _ in range(5):
        ...     _ = env.step(env.action_space.sample())
        >>> len(env.render())
        6
        >>> len(env.render())
        0
    """

    def __init__(self, env: Env[ObsType, ActType], pop_frames: bool = True, reset_clean: bool = True):
        """Wraps ``env``.

        Args:
            env: The environment to wrap; its ``render_mode`` must be set and not end with ``"_list"``.
            pop_frames: Whether ``render()`` empties the collection after returning it.
            reset_clean: Whether ``reset()`` empties the collection before collecting its frame.

        Raises:
            ValueError: If ``env.render_mode`` is ``None`` or already ends with ``"_list"``.
        """
        RecordConstructorArgs.__init__(self, pop_frames=pop_frames, reset_clean=reset_clean)
        Wrapper.__init__(self, env)
        if env.render_mode is None:
            raise ValueError("Expected env.render_mode to be not None")
        if env.render_mode.endswith("_list"):
            raise ValueError(f"Expected env.render_mode to not end with '_list', got '{env.render_mode}'")
        self.frame_list: list[RenderFrame] = []
        self.pop_frames = pop_frames
        self.reset_clean = reset_clean
        self.metadata = deepcopy(self.env.metadata)
        if f"{self.env.render_mode}_list" not in self.metadata["render_modes"]:
            self.metadata["render_modes"].append(f"{self.env.render_mode}_list")

    @property
    def render_mode(self) -> str:
        """The wrapped environment's render mode followed by ``"_list"``."""
        return f"{self.env.render_mode}_list"

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment and collects the frame of the new state."""
        output = super().step(action)
        self.frame_list.append(super().render())
        return output

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment, empties the collection if ``reset_clean``, and collects the first frame."""
        output = super().reset(seed=seed, options=options)
        if self.reset_clean:
            self.frame_list = []
        self.frame_list.append(super().render())
        return output

    def render(self) -> list[RenderFrame]:
        """The collected frames (the collection is emptied if ``pop_frames``)."""
        frames = self.frame_list
        if self.pop_frames:
            self.frame_list = []
        return frames


class VideoRecorder:
    """The recording logic that :class:`RecordVideo` and its vector version share.

    A recording starts when a trigger accepts an episode or a step, takes one frame per ``reset`` and
    ``step``, and stops when it holds more than ``video_length`` frames, when the next episode starts
    (for whole-episode recordings), or at ``close()``; it is then written as
    ``{video_folder}/{video_name}.mp4``.
    """

    recording: bool
    recorded_frames: list[Any]
    env: Any
    metadata: dict[str, Any]

    def _setup_recording(
        self,
        video_folder: str,
        episode_trigger: Callable[[int], bool] | None,
        step_trigger: Callable[[int], bool] | None,
        video_length: int,
        name_prefix: str,
        fps: int | None,
        disable_logger: bool,
        gc_trigger: Callable[[int], bool] | None,
    ) -> None:
        from nbgym.utils.save_video import capped_cubic_video_schedule, check_video_dependency

        if self.env.render_mode in {None, "human", "ansi"}:
            raise ValueError(
                f"Render mode is {self.env.render_mode}, which is incompatible with RecordVideo. "
                "Initialize your environment with a render_mode that returns an image, such as rgb_array."
            )
        if episode_trigger is None and step_trigger is None:
            episode_trigger = capped_cubic_video_schedule
        self.episode_trigger = episode_trigger
        self.step_trigger = step_trigger
        self.disable_logger = disable_logger
        self.gc_trigger = gc_trigger

        self.video_folder = os.path.abspath(video_folder)
        if os.path.isdir(self.video_folder):
            logger.warn(
                f"Overwriting existing videos at {self.video_folder} folder "
                f"(try specifying a different `video_folder` for the `RecordVideo` wrapper if this is not desired)"
            )
        os.makedirs(self.video_folder, exist_ok=True)

        self.frames_per_sec: int = self.metadata.get("render_fps", 30) if fps is None else fps
        self.name_prefix = name_prefix
        self._video_name: str | None = None
        self.video_length: float = video_length if video_length != 0 else float("inf")
        self.recording = False
        self.recorded_frames = []
        self.render_history: list[Any] = []
        self.step_id = -1
        self.episode_id = -1
        check_video_dependency()

    def _new_episode(self) -> None:
        """Counts an episode: ends a whole-episode recording and starts one if the episode trigger accepts."""
        self.episode_id += 1
        if self.recording and self.video_length == float("inf"):
            self.stop_recording()
        if self.episode_trigger and self.episode_trigger(self.episode_id):
            self.start_recording(f"{self.name_prefix}-episode-{self.episode_id}")

    def _new_step(self) -> None:
        """Counts a step: starts a recording if the step trigger accepts."""
        self.step_id += 1
        if self.step_trigger and self.step_trigger(self.step_id):
            self.start_recording(f"{self.name_prefix}-step-{self.step_id}")

    def _record(self) -> None:
        """Captures the current frame if recording, and stops a recording that has its length."""
        if self.recording:
            self._capture_frame()
            if len(self.recorded_frames) > self.video_length:
                self.stop_recording()

    def _capture_frame(self) -> None:
        """Appends the current frame to ``recorded_frames`` (the wrapper class knows how to get it)."""
        raise NotImplementedError

    def start_recording(self, video_name: str) -> None:
        """Starts recording the video ``video_name`` (saving the one under way first, if any)."""
        if self.recording:
            self.stop_recording()
        self.recording = True
        self._video_name = video_name

    def stop_recording(self) -> None:
        """Stops the recording and saves its video (nothing is saved without frames).

        Raises:
            AssertionError: If no recording is under way.
        """
        from nbgym.utils.save_video import write_mp4

        assert self.recording, "stop_recording was called, but no recording was started"
        if len(self.recorded_frames) == 0:
            logger.warn("Ignored saving a video as there were zero frames to save.")
        else:
            path = os.path.join(self.video_folder, f"{self._video_name}.mp4")
            write_mp4(self.recorded_frames, path, None if self.disable_logger else "bar", fps=self.frames_per_sec)
        self.recorded_frames = []
        self.recording = False
        self._video_name = None
        if self.gc_trigger and self.gc_trigger(self.episode_id):
            gc.collect()

    def _render_with_history(self, render_out: Any) -> Any:
        """``render()``'s frames, after the frames a capture took from a list-rendering environment."""
        if self.recording and isinstance(render_out, list):
            self.recorded_frames += render_out
        if len(self.render_history) > 0:
            history = self.render_history
            self.render_history = []
            return history + render_out
        return render_out

    def __del__(self) -> None:
        # `__init__` may have raised before the recording state existed.
        if getattr(self, "recorded_frames", None):
            logger.warn("Unable to save last video! Did you call close()?")


class RecordVideo(VideoRecorder, Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Records mp4 videos of chosen episodes (or stretches of steps) from the environment's frames.

    ``episode_trigger(episode_id)`` starts a recording at an episode's reset, ``step_trigger(step_id)``
    at a step (counted over all episodes). Without either, episodes are chosen by
    :func:`nbgym.utils.save_video.capped_cubic_video_schedule` (0, 1, 8, 27, ..., 729, then every
    1000th). A recording holds its whole episode, or ``video_length`` frames (possibly over several
    episodes) when that is positive. Videos are named ``{name_prefix}-episode-{id}.mp4`` or
    ``{name_prefix}-step-{id}.mp4``; the last one is saved by ``close()``. Needs MoviePy
    (``pip install "nbgym[video]"``).

    Example:
        >>> import os, nbgym
        >>> from nbgym.wrappers import RecordVideo
        >>> env = nbgym.make("CartPole-v1", render_mode="rgb_array")
        >>> env = RecordVideo(env, video_folder="videos", episode_trigger=lambda e: e % 10 == 0)  # doctest: +SKIP
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        video_folder: str,
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
            env: The environment to wrap; it must render images (``"rgb_array"`` or ``"rgb_array_list"``).
            video_folder: The folder of the videos (created if needed; existing videos may be overwritten).
            episode_trigger: Whether to start recording at the reset of an episode index.
            step_trigger: Whether to start recording at a step index.
            video_length: Frames per video; 0 records whole episodes.
            name_prefix: The start of the videos' file names.
            fps: The videos' frame rate; ``None``: ``metadata["render_fps"]``, else 30.
            disable_logger: Whether to silence MoviePy's progress bar.
            gc_trigger: Whether to run the garbage collector after saving a video, by episode index.

        Raises:
            ValueError: If the environment's render mode does not give images.
            DependencyNotInstalled: If MoviePy is not installed.
        """
        RecordConstructorArgs.__init__(
            self,
            video_folder=video_folder,
            episode_trigger=episode_trigger,
            step_trigger=step_trigger,
            video_length=video_length,
            name_prefix=name_prefix,
            fps=fps,
            disable_logger=disable_logger,
            gc_trigger=gc_trigger,
        )
        Wrapper.__init__(self, env)
        self._setup_recording(
            video_folder, episode_trigger, step_trigger, video_length, name_prefix, fps, disable_logger, gc_trigger
        )

    def _capture_frame(self) -> None:
        assert self.recording, "Cannot capture a frame, recording wasn't started."
        frame = self.env.render()
        if isinstance(frame, list):
            if len(frame) == 0:
                logger.warn(
                    "Trying to capture render frame but 'env.render()' has just been called. The frame cannot be captured."
                )
                return
            self.render_history += frame
            frame = frame[-1]
        if isinstance(frame, np.ndarray):
            self.recorded_frames.append(frame)
        else:
            self.stop_recording()
            logger.warn(
                f"Recording stopped: expected type of frame returned by render to be a numpy array, got instead {type(frame)}."
            )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Resets the environment; a new episode may end or start a recording, which takes the first frame."""
        obs, info = super().reset(seed=seed, options=options)
        self._new_episode()
        self._record()
        return obs, info

    def step(self, action: ActType) -> tuple[ObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Steps the environment and records the new frame while a recording is under way."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._new_step()
        self._record()
        return obs, reward, terminated, truncated, info

    def render(self) -> RenderFrame | list[RenderFrame]:
        """The environment's frames (with those a recording took from a list-rendering environment)."""
        return self._render_with_history(super().render())

    def close(self) -> None:
        """Closes the environment, then saves the recording under way."""
        super().close()
        if self.recording:
            self.stop_recording()


class Window:
    """A pygame window that shows RGB frames at a frame rate: the display of the ``HumanRendering`` wrappers."""

    def __init__(self) -> None:
        self.surface: Any = None
        self.clock: Any = None
        self.size: tuple[int, int] | None = None

    def show(self, frame: np.ndarray, fps: int) -> None:
        """Shows ``frame`` (``(height, width, 3)``), then waits to keep ``fps`` frames per second.

        Raises:
            AssertionError: If the frame's size differs from the first frame's.
        """
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        columns = np.transpose(frame, axes=(1, 0, 2))
        if self.size is None:
            self.size = columns.shape[:2]
        assert self.size == columns.shape[:2], (
            f"The shape of the rgb array has changed from {self.size} to {columns.shape[:2]}"
        )
        if self.surface is None:
            pygame.display.init()
            self.surface = pygame.display.set_mode(self.size)
        if self.clock is None:
            self.clock = pygame.time.Clock()
        self.surface.blit(pygame.surfarray.make_surface(columns), (0, 0))
        pygame.event.pump()
        self.clock.tick(fps)
        pygame.display.flip()

    def close(self) -> None:
        """Closes the window, if it was opened."""
        if self.surface is not None:
            from nbgym.engine import import_pygame

            import_pygame().display.quit()
            self.surface = None


class WindowDisplay:
    """What the ``HumanRendering`` wrappers share: the checks of the wrapped environment, the ``"human"``
    render mode, and a frame shown after every ``reset`` and ``step`` (by the class's ``_render_frame``)."""

    ACCEPTED_RENDER_MODES = ["rgb_array", "rgb_array_list", "depth_array", "depth_array_list"]

    env: Any
    metadata: dict[str, Any]

    def _setup_window(self) -> None:
        self.window = Window()
        if self.env.render_mode not in self.ACCEPTED_RENDER_MODES:
            raise ValueError(
                f"Expected env.render_mode to be one of {self.ACCEPTED_RENDER_MODES} but got '{self.env.render_mode}'"
            )
        if "render_fps" not in self.env.metadata:
            raise ValueError(
                "The base environment must specify 'render_fps' to be used with the HumanRendering wrapper"
            )
        if "human" not in self.metadata["render_modes"]:
            self.metadata = deepcopy(self.env.metadata)
            self.metadata["render_modes"].append("human")

    @property
    def render_mode(self) -> str:
        """Always ``"human"``."""
        return "human"

    def step(self, action: Any) -> Any:
        """Steps the environment and shows the new frame."""
        result = super().step(action)  # type: ignore[misc]
        self._render_frame()
        return result

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        """Resets the environment and shows its first frame."""
        result = super().reset(seed=seed, options=options)  # type: ignore[misc]
        self._render_frame()
        return result

    def _render_frame(self) -> None:
        """Shows the wrapped environment's current frame in the window."""
        raise NotImplementedError

    def close(self, **kwargs: Any) -> None:
        """Closes the window, then the environment."""
        self.window.close()
        super().close(**kwargs)  # type: ignore[misc]


class HumanRendering(WindowDisplay, Wrapper[ObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Shows the frames of an environment that renders RGB arrays in a window, after every ``reset`` and ``step``.

    ``make(id, render_mode="human")`` applies it to environments without a ``"human"`` mode of their
    own. The environment's metadata must have ``"render_fps"``. With an ``"rgb_array_list"``
    environment, the wrapper takes its frames, so ``env.render()`` of that environment returns ``[]``.
    Needs pygame-ce (``pip install "nbgym[render]"``).

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import HumanRendering
        >>> env = HumanRendering(nbgym.make("CartPole-v1", render_mode="rgb_array"))
        >>> obs, _ = env.reset()  # doctest: +SKIP
    """

    def __init__(self, env: Env[ObsType, ActType]):
        """Wraps ``env``.

        Args:
            env: The environment to show.

        Raises:
            ValueError: If its render mode is not one of ``ACCEPTED_RENDER_MODES`` or its metadata has no
                ``"render_fps"``.
        """
        RecordConstructorArgs.__init__(self)
        Wrapper.__init__(self, env)
        self._setup_window()

    def render(self) -> None:
        """Nothing to return: the frames are shown by ``reset`` and ``step``."""
        return None

    def _render_frame(self) -> None:
        frame = self.env.render()
        if self.env.render_mode.endswith("_list"):
            assert isinstance(frame, list)
            frame = frame[-1]
        assert isinstance(frame, np.ndarray), (
            f"Expected `env.render()` to return a numpy array, actually returned {type(frame)}"
        )
        self.window.show(frame, self.metadata["render_fps"])


class AddRenderObservation(TransformObservation[Any, ActType, ObsType], RecordConstructorArgs):
    """Puts the rendered frame into the observation: as the observation, or beside it in a ``Dict``.

    The environment must render arrays (not ``"human"``); it is reset once here to learn the frame's
    shape, which gives the pixels' space ``Box(0, 255, shape, uint8)``. This was called
    ``PixelObservationWrapper`` before gymnasium 1.0. No vector version exists.

    Example:
        >>> import nbgym
        >>> from nbgym.wrappers import AddRenderObservation
        >>> env = AddRenderObservation(nbgym.make("CartPole-v1", render_mode="rgb_array"))
        >>> env.observation_space
        Box(0, 255, (400, 600, 3), uint8)
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        render_only: bool = True,
        render_key: str = "pixels",
        obs_key: str = "state",
    ):
        """Wraps ``env``.

        Args:
            env: The environment; its render mode must give arrays.
            render_only: Whether the observation is the frame alone; otherwise a ``Dict`` of the frame
                under ``render_key`` and the observation under ``obs_key`` (or, for an environment with
                ``Dict`` observations, the frame added to them).
            render_key: The key of the frame.
            obs_key: The key of the environment's observation.

        Raises:
            ValueError: If the render mode is ``None`` or ``"human"``, or ``render_key`` is a key of the
                environment's ``Dict`` observations.
            TypeError: If ``render()`` does not return a numpy array.
        """
        RecordConstructorArgs.__init__(self, render_only=render_only, render_key=render_key, obs_key=obs_key)
        if env.render_mode is None or env.render_mode == "human":
            raise ValueError(
                f"AddRenderObservation requires render_mode to be not None and not 'human', got {env.render_mode}"
            )
        env.reset()
        pixels = env.render()
        if pixels is None or not isinstance(pixels, np.ndarray):
            raise TypeError(f"AddRenderObservation expects env.render() to return a numpy array, got {type(pixels)}")
        pixel_space = spaces.Box(low=0, high=255, shape=pixels.shape, dtype=np.uint8)

        if render_only:
            TransformObservation.__init__(self, env=env, func=lambda _: self.render(), observation_space=pixel_space)
        elif isinstance(env.observation_space, spaces.Dict):
            if render_key in env.observation_space.spaces.keys():
                raise ValueError(
                    f"AddRenderObservation render_key '{render_key}' already exists in the observation space"
                )
            observation_space = spaces.Dict(
                {render_key: pixel_space, **env.observation_space.spaces}, sort_keys=env.observation_space.sort_keys
            )
            TransformObservation.__init__(
                self, env=env, func=lambda obs: {render_key: self.render(), **obs}, observation_space=observation_space
            )
        else:
            observation_space = spaces.Dict({obs_key: env.observation_space, render_key: pixel_space})
            TransformObservation.__init__(
                self,
                env=env,
                func=lambda obs: {obs_key: obs, render_key: self.render()},
                observation_space=observation_space,
            )
