"""The Atari 2600 preprocessing of Machado et al. (2018), with gymnasium 1.4.0's semantics."""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np

from nbgym import spaces
from nbgym.core import ActType, Env, ObsType, Wrapper, WrapperObsType
from nbgym.error import DependencyNotInstalled
from nbgym.utils.record_constructor import RecordConstructorArgs

__all__ = ["AtariPreprocessing"]


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and value > 0


class AtariPreprocessing(Wrapper[WrapperObsType, ActType, ObsType, ActType], RecordConstructorArgs):
    """Preprocesses an Atari environment as Machado et al. (2018) recommend (frame stacking excluded).

    "Revisiting the Arcade Learning Environment: Evaluation Protocols and Open Problems for General Agents":

    - No-op reset: after ``reset()``, a random number (1 to ``noop_max``) of no-op actions (action 0).
    - Frame skipping: each action is repeated ``frame_skip`` times; the rewards are summed.
    - Max-pooling: the observation is the pixel-wise maximum of the last two frames of those repetitions.
    - Life loss as termination (``terminal_on_life_loss``, off by default and not recommended by the paper).
    - Resizing to ``screen_size`` with OpenCV's area interpolation (84x84 by default).
    - Grayscale frames (by default), optionally with a channel axis (``grayscale_newaxis``).
    - Scaling to ``[0, 1]`` as float32 (``scale_obs``; off by default).

    Frames are read from the environment's ``ale`` (``env.unwrapped.ale``: ``lives()``,
    ``getScreenGrayscale(out)``, ``getScreenRGB(out)``), as ale-py's environments provide it; the environment
    must not skip frames itself (``env.unwrapped._frameskip == 1``, e.g. ``make("ALE/Pong-v5", frameskip=1)``).
    For frame stacking use :class:`nbgym.wrappers.FrameStackObservation`. There is no vector version.
    OpenCV is needed (``pip install "nbgym[other]"``): its area interpolation makes the frames gymnasium's.

    Example:
        >>> import nbgym  # doctest: +SKIP
        >>> import ale_py  # doctest: +SKIP
        >>> nbgym.register_envs(ale_py)  # doctest: +SKIP
        >>> env = AtariPreprocessing(nbgym.make("ALE/Pong-v5", frameskip=1), noop_max=10)  # doctest: +SKIP

    Attributes:
        noop_max: The largest number of no-op actions after a reset (0: none).
        frame_skip: How many frames each action is repeated for.
        screen_size: The ``(width, height)`` of the observations.
        terminal_on_life_loss: Whether losing a life terminates the episode.
        grayscale_obs: Whether observations are grayscale (else RGB).
        grayscale_newaxis: Whether grayscale observations have a channel axis of size 1.
        scale_obs: Whether observations are float32 in ``[0, 1]`` (else uint8).
        lives: The number of lives at the last check.
        game_over: Whether the last step terminated the episode.
        obs_buffer: The two frames that are max-pooled.
    """

    def __init__(
        self,
        env: Env[ObsType, ActType],
        noop_max: int = 30,
        frame_skip: int = 4,
        screen_size: int | tuple[int, int] = 84,
        terminal_on_life_loss: bool = False,
        grayscale_obs: bool = True,
        grayscale_newaxis: bool = False,
        scale_obs: bool = False,
    ) -> None:
        """Wraps ``env``.

        Args:
            env: The Atari environment, without frame skipping of its own.
            noop_max: The largest number of no-op actions after a reset; 0 turns the no-op reset off.
            frame_skip: How many frames each action is repeated for (1: no skipping).
            screen_size: The side of the square observation, or its ``(width, height)``.
            terminal_on_life_loss: Whether ``step()`` returns ``terminated=True`` when a life is lost.
            grayscale_obs: Whether observations are grayscale (else RGB).
            grayscale_newaxis: Whether grayscale observations get a channel axis (3-dimensional).
            scale_obs: Whether observations are scaled to ``[0, 1]`` as float32.

        Raises:
            DependencyNotInstalled: If OpenCV is not installed.
            ValueError: If ``frame_skip`` or ``screen_size`` is not positive, ``noop_max`` is negative, the
                environment skips frames itself while ``frame_skip > 1``, or its action 0 is not ``"NOOP"``
                while ``noop_max > 0``.
            TypeError: If the observation space is not a ``Box``.
        """
        RecordConstructorArgs.__init__(
            self,
            noop_max=noop_max,
            frame_skip=frame_skip,
            screen_size=screen_size,
            terminal_on_life_loss=terminal_on_life_loss,
            grayscale_obs=grayscale_obs,
            grayscale_newaxis=grayscale_newaxis,
            scale_obs=scale_obs,
        )
        Wrapper.__init__(self, env)

        try:
            import cv2  # noqa: F401
        except ImportError as e:
            raise DependencyNotInstalled(
                'opencv (cv2) is not installed, run `pip install "nbgym[other]"` to preprocess Atari frames'
            ) from e
        if frame_skip <= 0:
            raise ValueError(f"Expect the `frame_skip` to be positive, actually: {frame_skip}")
        if not (
            _positive_int(screen_size)
            or (isinstance(screen_size, tuple) and len(screen_size) == 2 and all(map(_positive_int, screen_size)))
        ):
            raise ValueError(f"Expect the `screen_size` to be positive, actually: {screen_size}")
        if frame_skip > 1 and getattr(env.unwrapped, "_frameskip", None) != 1:
            raise ValueError(
                "Disable frame-skipping in the original env (e.g. `frameskip=1`). Otherwise, more than one "
                "frame-skip will happen as through this wrapper"
            )
        if noop_max < 0:
            raise ValueError(f"Expect the `noop_max` to be non-negative, actually: {noop_max}")
        if noop_max > 0 and env.unwrapped.get_action_meanings()[0] != "NOOP":
            raise ValueError("When noop_max > 0, the first action meaning must be 'NOOP'")
        if not isinstance(env.observation_space, spaces.Box):
            raise TypeError(
                f"AtariPreprocessing wrapper requires a Box observation space, got {type(env.observation_space)}"
            )

        self.noop_max = noop_max
        self.frame_skip = frame_skip
        self.screen_size: tuple[int, int] = (
            screen_size if isinstance(screen_size, tuple) else (screen_size, screen_size)
        )
        self.terminal_on_life_loss = terminal_on_life_loss
        self.grayscale_obs = grayscale_obs
        self.grayscale_newaxis = grayscale_newaxis
        self.scale_obs = scale_obs

        frame_shape = env.observation_space.shape[:2] if grayscale_obs else env.observation_space.shape
        self.obs_buffer = [np.empty(frame_shape, dtype=np.uint8), np.empty(frame_shape, dtype=np.uint8)]
        self.lives = 0
        self.game_over = False

        width, height = self.screen_size
        obs_shape: tuple[int, ...] = (
            (height, width) if grayscale_obs and not grayscale_newaxis else (height, width, 1 if grayscale_obs else 3)
        )
        if scale_obs:
            self.observation_space = spaces.Box(low=0, high=1, shape=obs_shape, dtype=np.float32)
        else:
            self.observation_space = spaces.Box(low=0, high=255, shape=obs_shape, dtype=np.uint8)

    @property
    def ale(self) -> Any:
        """The Arcade Learning Environment of the wrapped environment (read on each access, so the wrapper pickles)."""
        return self.env.unwrapped.ale

    def _read_screen(self, out: np.ndarray) -> None:
        """Copies the current frame into ``out``, in grayscale or RGB."""
        if self.grayscale_obs:
            self.ale.getScreenGrayscale(out)
        else:
            self.ale.getScreenRGB(out)

    def step(self, action: ActType) -> tuple[WrapperObsType, SupportsFloat, bool, bool, dict[str, Any]]:
        """Takes ``action`` for ``frame_skip`` frames (fewer if the episode ends first).

        Returns:
            The max-pooled, resized observation, the summed reward, ``terminated`` (also on a lost life with
            ``terminal_on_life_loss``), ``truncated`` and the last frame's info.
        """
        total_reward, terminated, truncated, info = 0.0, False, False, {}
        for frame in range(self.frame_skip):
            _, reward, terminated, truncated, info = self.env.step(action)
            total_reward += reward
            self.game_over = terminated
            if self.terminal_on_life_loss:
                lives = self.ale.lives()
                terminated = terminated or lives < self.lives
                self.game_over = terminated
                self.lives = lives
            if terminated or truncated:
                break
            # The last two frames are the ones max-pooled (when an episode ends early, the older ones stay).
            if frame == self.frame_skip - 2:
                self._read_screen(self.obs_buffer[1])
            elif frame == self.frame_skip - 1:
                self._read_screen(self.obs_buffer[0])
        return self._get_obs(), total_reward, terminated, truncated, info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[WrapperObsType, dict[str, Any]]:
        """Resets the environment, then takes 1 to ``noop_max`` no-op actions (drawn from its ``np_random``).

        An episode that ends during the no-ops is reset again (with the same ``seed`` and ``options``).

        Returns:
            The resized first observation and the reset info (updated with the no-op steps' infos).
        """
        _, reset_info = self.env.reset(seed=seed, options=options)
        num_noops = self.env.unwrapped.np_random.integers(1, self.noop_max + 1) if self.noop_max > 0 else 0
        for _ in range(num_noops):
            _, _, terminated, truncated, step_info = self.env.step(0)
            reset_info.update(step_info)
            if terminated or truncated:
                _, reset_info = self.env.reset(seed=seed, options=options)

        self.lives = self.ale.lives()
        self._read_screen(self.obs_buffer[0])
        self.obs_buffer[1].fill(0)
        return self._get_obs(), reset_info

    def _get_obs(self) -> Any:
        """The observation of the frames in ``obs_buffer``: max-pooled (in place), resized, scaled, reshaped."""
        import cv2

        if self.frame_skip > 1:
            np.maximum(self.obs_buffer[0], self.obs_buffer[1], out=self.obs_buffer[0])
        obs = cv2.resize(self.obs_buffer[0], self.screen_size, interpolation=cv2.INTER_AREA)
        obs = np.asarray(obs, dtype=np.float32) / 255.0 if self.scale_obs else np.asarray(obs, dtype=np.uint8)
        if self.grayscale_obs and self.grayscale_newaxis:
            obs = np.expand_dims(obs, axis=-1)
        return obs
