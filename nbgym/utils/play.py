"""Playing an environment with the keyboard (:func:`play`) and plotting live metrics while playing (:class:`PlayPlot`).

Needs pygame-ce (``pip install "nbgym[render]"``); :class:`PlayPlot` also needs matplotlib.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from nbgym.core import Env
from nbgym.engine import import_pygame
from nbgym.error import DependencyNotInstalled

pygame = import_pygame()

__all__ = ["MissingKeysToAction", "PlayableGame", "display_arr", "play", "PlayPlot"]


class MissingKeysToAction(Exception):
    """Raised when the environment does not have a default ``keys_to_action`` mapping."""


class PlayableGame:
    """An environment's window and the keys held down in it, for :func:`play`.

    Args:
        env: The environment; it must render ``"rgb_array"`` or ``"rgb_array_list"``.
        keys_to_action: The actions of key combinations (tuples of key codes); ``None``: the
            environment's ``get_keys_to_action()``.
        zoom: The window's size as a multiple of the frame's.

    Raises:
        ValueError: For another render mode, or a zoom that is not positive.
        MissingKeysToAction: If no mapping is given and the environment has none.
        TypeError: If ``keys_to_action`` is not a dict.
    """

    def __init__(
        self, env: Env, keys_to_action: dict[tuple[int, ...], Any] | None = None, zoom: float | None = None
    ) -> None:
        if env.render_mode not in {"rgb_array", "rgb_array_list"}:
            raise ValueError(
                "PlayableGame wrapper works only with rgb_array and rgb_array_list render modes, "
                f"but your environment render_mode = {env.render_mode}."
            )
        if zoom is not None and zoom <= 0:
            raise ValueError(f"Zoom must be a positive float, got {zoom}")
        self.env = env
        self.relevant_keys = self._get_relevant_keys(keys_to_action)
        # Resizing scales from this size, so that repeated resizes do not drift.
        self.original_video_size = self._get_video_size(zoom)
        self.video_size = self.original_video_size
        self.screen = pygame.display.set_mode(self.video_size, pygame.RESIZABLE)
        self.pressed_keys: set[int] = set()
        self.running = True

    def _get_relevant_keys(self, keys_to_action: dict[tuple[int, ...], Any] | None) -> set[int]:
        if keys_to_action is None:
            keys_to_action = _default_keys_to_action(self.env)
        if not isinstance(keys_to_action, dict):
            raise TypeError(f"keys_to_action must be a dictionary, got {type(keys_to_action)}")
        return {key for combination in keys_to_action for key in combination}

    def _get_video_size(self, zoom: float | None) -> tuple[int, int]:
        frame = self.env.render()
        if isinstance(frame, list):
            frame = frame[-1]
        assert isinstance(frame, np.ndarray)
        size = (frame.shape[1], frame.shape[0])
        if zoom is not None:
            size = (int(size[0] * zoom), int(size[1] * zoom))
        return size

    def process_event(self, event: Any) -> None:
        """Tracks the relevant keys held down; Escape or closing the window ends the game; a resized
        window rescales the video to the largest size that fits, keeping its proportions.

        Args:
            event: A pygame event.
        """
        if event.type == pygame.KEYDOWN:
            if event.key in self.relevant_keys:
                self.pressed_keys.add(event.key)
            elif event.key == pygame.K_ESCAPE:
                self.running = False
        elif event.type == pygame.KEYUP:
            if event.key in self.relevant_keys:
                self.pressed_keys.discard(event.key)
        elif event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.WINDOWRESIZED:
            width, height = self.original_video_size
            scale = min(event.x / width, event.y / height)
            self.video_size = (round(scale * width), round(scale * height))


def _default_keys_to_action(env: Env) -> dict:
    if env.has_wrapper_attr("get_keys_to_action"):
        return env.get_wrapper_attr("get_keys_to_action")()
    if env.spec is None:
        raise ValueError("The environment must have an `env.spec` to auto-detect missing keys to action mappings.")
    raise MissingKeysToAction(
        f"{env.spec.id} does not have explicit key to action mapping, please specify one manually"
    )


def display_arr(screen: Any, arr: np.ndarray, video_size: tuple[int, int], transpose: bool | None) -> None:
    """Shows the frame ``arr`` on ``screen``, scaled to ``video_size`` and centred (black bars around it).

    Args:
        screen: The pygame surface to draw on.
        arr: The frame, uint8.
        video_size: The frame's size on screen, ``(width, height)``.
        transpose: Whether ``arr`` is ``(height, width, 3)`` (as ``render()`` returns) rather than pygame's
            ``(width, height, 3)``.
    """
    assert isinstance(arr, np.ndarray) and arr.dtype == np.uint8
    image = pygame.surfarray.make_surface(arr.swapaxes(0, 1) if transpose else arr)
    image = pygame.transform.scale(image, video_size)
    screen_width, screen_height = screen.get_size()
    screen.fill((0, 0, 0))
    screen.blit(image, ((screen_width - video_size[0]) / 2, (screen_height - video_size[1]) / 2))


def _key_codes(keys_to_action: dict, env: Env) -> dict[tuple[int, ...], Any]:
    """``keys_to_action`` checked and keyed by sorted tuples of key codes.

    Raises:
        TypeError: If it is not a dict, or a key is not an int, a str or a tuple of them.
        ValueError: For an empty combination, or an action outside the action space.
    """
    if not isinstance(keys_to_action, dict):
        raise TypeError(f"keys_to_action must be a dictionary, got {type(keys_to_action)}")
    codes = {}
    for key, action in keys_to_action.items():
        if isinstance(key, tuple):
            if len(key) == 0:
                raise ValueError("Key combinations in keys_to_action tuples cannot be empty")
            if not all(isinstance(k, (str, int)) for k in key):
                raise TypeError(f"All keys in key combination tuple must be integers or strings, got {key}")
        elif not isinstance(key, (str, int)):
            raise TypeError(f"Keys in keys_to_action must be integers or strings, got {type(key)}")
        if action not in env.action_space:
            raise ValueError(
                f"Action {action} is not a valid action in the environment action space: {env.action_space}"
            )
        combination = (key,) if isinstance(key, int) else key
        codes[tuple(sorted(ord(k) if isinstance(k, str) else k for k in combination))] = action
    return codes


def play(
    env: Env,
    transpose: bool | None = True,
    fps: int | None = None,
    zoom: float | None = None,
    callback: Callable | None = None,
    keys_to_action: dict | None = None,
    seed: int | None = None,
    noop: Any = 0,
    wait_on_player: bool = False,
) -> None:
    """Plays ``env`` with the keyboard in a window, until Escape or the window is closed.

    Each frame, the keys held down choose the action (``noop`` when no known combination is held;
    with ``wait_on_player``, nothing happens until a key is held); an ended episode is reset.

    Args:
        env: The environment, rendering ``"rgb_array"`` or ``"rgb_array_list"``.
        transpose: Whether frames are ``(height, width, 3)`` (as ``render()`` returns them).
        fps: Steps per second; ``None``: ``metadata["render_fps"]`` (or 30).
        zoom: The window's size as a multiple of the frame's.
        callback: Called after every step with ``(obs_t, obs_tp1, action, reward, terminated,
            truncated, info)``, e.g. :meth:`PlayPlot.callback`.
        keys_to_action: The action of each key combination: a tuple of key codes or characters, or a
            string of characters, e.g. ``{"w": 2, (ord("a"), ord(" ")): 3}``; ``None``: the environment's
            ``get_keys_to_action()``.
        seed: The seed of every reset.
        noop: The action when no known combination is held.
        wait_on_player: Whether to step only while a key is held (turn-based games).

    Raises:
        MissingKeysToAction: If no mapping is given and the environment has none.
        TypeError, ValueError: For a bad ``keys_to_action`` or metadata ``render_fps``.

    Example:
        >>> import nbgym
        >>> from nbgym.utils.play import play
        >>> play(nbgym.make("MountainCar-v0", render_mode="rgb_array"),  # doctest: +SKIP
        ...      keys_to_action={"a": 0, "d": 2}, noop=1)
    """
    env.reset(seed=seed)
    if keys_to_action is None:
        keys_to_action = _default_keys_to_action(env)
    codes = _key_codes(keys_to_action, env)
    game = PlayableGame(env, codes, zoom)
    if fps is None:
        fps = env.metadata.get("render_fps", 30)
        if not isinstance(fps, int):
            raise TypeError(f"Expected env.metadata['render_fps'] to be an integer, got {type(fps)}")

    done, obs = True, None
    clock = pygame.time.Clock()
    while game.running:
        if done:
            done = False
            obs = env.reset(seed=seed)
        elif not wait_on_player or len(game.pressed_keys) > 0:
            action = codes.get(tuple(sorted(game.pressed_keys)), noop)
            previous = obs
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            if callback is not None:
                callback(previous, obs, action, reward, terminated, truncated, info)
        if obs is not None:
            frame = env.render()
            if isinstance(frame, list):
                frame = frame[-1]
            assert isinstance(frame, np.ndarray)
            display_arr(game.screen, frame, transpose=transpose, video_size=game.video_size)
        for event in pygame.event.get():
            game.process_event(event)
        pygame.display.flip()
        clock.tick(fps)
    pygame.display.quit()


class PlayPlot:
    """Live plots of metrics computed from every transition of :func:`play`.

    ``callback(obs_t, obs_tp1, action, reward, terminated, truncated, info)`` returns one number per
    plot; :meth:`callback` (passed to :func:`play`) calls it and redraws the last
    ``horizon_timesteps`` values of each metric.

    Args:
        callback: The metrics of a transition, one per name of ``plot_names``.
        horizon_timesteps: How many of the latest values a plot shows.
        plot_names: The plots' titles.

    Raises:
        DependencyNotInstalled: If matplotlib is not installed.

    Example:
        >>> from nbgym.utils.play import PlayPlot, play
        >>> plotter = PlayPlot(lambda *transition: [transition[3]], 150, ["reward"])  # doctest: +SKIP
    """

    def __init__(self, callback: Callable[..., Iterable[Any]], horizon_timesteps: int, plot_names: list[str]) -> None:
        try:
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise DependencyNotInstalled("matplotlib is not installed, run `pip install matplotlib`") from e
        self._plt = plt
        self.data_callback = callback
        self.horizon_timesteps = horizon_timesteps
        self.plot_names = plot_names
        num_plots = len(plot_names)
        self.fig, axes = plt.subplots(num_plots)
        self.ax = [axes] if num_plots == 1 else list(axes)
        for axis, name in zip(self.ax, plot_names, strict=True):
            axis.set_title(name)
        self.t = 0
        self.cur_plot: list[Any] = [None] * num_plots
        self.data: list[deque] = [deque(maxlen=horizon_timesteps) for _ in range(num_plots)]

    def callback(
        self, obs_t: Any, obs_tp1: Any, action: Any, rew: float, terminated: bool, truncated: bool, info: dict
    ) -> None:
        """Adds the metrics of a transition to the plots and redraws them (a :func:`play` callback)."""
        points = self.data_callback(obs_t, obs_tp1, action, rew, terminated, truncated, info)
        for point, series in zip(points, self.data, strict=True):
            series.append(point)
        self.t += 1
        xmin, xmax = max(0, self.t - self.horizon_timesteps), self.t
        for i, plot in enumerate(self.cur_plot):
            if plot is not None:
                plot.remove()
            self.cur_plot[i] = self.ax[i].scatter(range(xmin, xmax), list(self.data[i]), c="blue")
            self.ax[i].set_xlim(xmin, xmax)
        self._plt.pause(0.000001)
