"""Pixel rendering of compiled environments: ``render_mode="rgb_array"`` and ``"human"``.

The engine calls :func:`render_env`, :func:`render_vector_env` and :func:`close_env` (this module is
imported on the first ``render()``, so stepping without rendering never imports pygame). An
environment class names its *renderer* in its ``renderer`` class attribute: a module (or the name
of one, imported on the first frame, or any object) that draws one sub-environment's current state
onto a pygame surface:

- ``frame_size(env) -> (width, height)``: the size of the frame;
- ``draw(surface, env, index, state)``: draws sub-environment ``index`` (its row of ``env._batch``)
  onto ``surface``; ``state`` is the :class:`RenderState` kept between frames, for cached sprites
  and whatever the drawing remembers (Taxi's heading);
- ``CAPTION``: the window title, or ``None``.

The engine knows no environment: nbgym's own (``nbgym.envs._render.*``) and a user's are found the
same way.

"human" mode draws into the pygame window and waits on a clock to keep ``metadata["render_fps"]``;
a vector environment's sub-environments share the one window, each with its own clock, as the
sub-environments of gymnasium's ``SyncVectorEnv`` do.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from nbgym import error, logger

__all__ = ["RenderState", "close_env", "import_pygame", "render_env", "render_frame", "render_vector_env"]

PIXEL_MODES = ("rgb_array", "human")
"""The render modes this package draws (``"ansi"`` is the toy-text environments' own)."""


def import_pygame(extra: str = "render") -> ModuleType:
    """``pygame`` (pygame-ce), imported quietly.

    Args:
        extra: The nbgym extra that the install hint names (``"box2d"`` for the Box2D environments).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed, with the command that installs it.
    """
    # pygame prints a greeting on import, into the user's stdout (and an "ansi" frame's neighbours).
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # SDL would otherwise replace the process's SIGINT/SIGTERM handling with its own (signals become quit
    # events): Ctrl-C would stop raising KeyboardInterrupt, and forked workers (AsyncVectorEnv) would
    # inherit a SIGTERM that no longer stops them, so terminating them would hang.
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    try:
        import pygame
        import pygame.gfxdraw  # noqa: F401  (the classic-control drawings use it)
    except ImportError as e:
        raise error.DependencyNotInstalled(
            f'pygame-ce is not installed, run `pip install "nbgym[{extra}]"` (or `pip install pygame-ce`)'
        ) from e
    return pygame


@dataclass
class RenderState:
    """What an environment keeps between frames (``env._render_state``).

    Attributes:
        surface: The frame surface of ``"rgb_array"`` mode, or the window's surface in ``"human"`` mode.
        clocks: The clock of each sub-environment in ``"human"`` mode.
        sprites: The renderer's cached surfaces, by name.
        memory: What the renderer remembers per sub-environment between frames.
    """

    surface: Any = None
    clocks: dict[int, Any] = field(default_factory=dict)
    sprites: dict[str, Any] = field(default_factory=dict)
    memory: dict[Any, Any] = field(default_factory=dict)

    def close(self, env: Any) -> None:
        """Closes ``env``'s window; a method so that closing imports nothing (``__del__`` at interpreter
        exit runs when imports already fail)."""
        close_env(env)


def render_state(env: Any) -> RenderState:
    """``env``'s render state (``env._render_state``), made at its first use."""
    if env._render_state is None:
        env._render_state = RenderState()
    return env._render_state


def _renderer(env: Any) -> Any:
    """The renderer of ``env``: its class's ``renderer`` attribute, a module imported on first use."""
    renderer = getattr(env, "renderer", None)
    if renderer is None:
        raise error.Error(
            f"{type(env).__name__} has no pixel rendering: set its class attribute `renderer` to a module (or its "
            f"name) with frame_size(env), draw(surface, env, index, state) and CAPTION (see nbgym.engine)."
        )
    return importlib.import_module(renderer) if isinstance(renderer, str) else renderer


def render_frame(env: Any, index: int, mode: str | None = None) -> np.ndarray | None:
    """Draws sub-environment ``index`` of ``env`` in ``mode`` (``"rgb_array"`` or ``"human"``).

    Args:
        env: A compiled single environment (``index`` 0) or vector environment.
        index: The sub-environment.
        mode: The pixel mode to draw in; ``env.render_mode`` when ``None``.

    Returns:
        The frame as a ``(height, width, 3)`` uint8 array in ``"rgb_array"`` mode, ``None`` in ``"human"``
        mode (the frame is shown in the window).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed.
        Error: If the mode is not a pixel mode of ``env``.
    """
    if mode is None:
        mode = env.render_mode
    if mode not in PIXEL_MODES or mode not in env.metadata.get("render_modes", ()):
        raise error.Error(
            f"{type(env).__name__} cannot render in render_mode={mode!r}; its render modes are "
            f"{env.metadata.get('render_modes')}."
        )
    pygame = import_pygame()
    renderer = _renderer(env)
    state = render_state(env)
    if state.surface is None:
        pygame.display.init()
        size = renderer.frame_size(env)
        if mode == "human":
            if renderer.CAPTION is not None:
                pygame.display.set_caption(renderer.CAPTION)
            state.surface = pygame.display.set_mode(size)
        else:
            state.surface = pygame.Surface(size)
    clock = state.clocks.get(index)
    if clock is None:  # made in every pixel mode, as gymnasium's envs make theirs
        clock = state.clocks[index] = pygame.time.Clock()
    renderer.draw(state.surface, env, index, state)
    if mode == "human":
        pygame.event.pump()
        pygame.display.flip()
        clock.tick(env.metadata["render_fps"])
        return None
    return surface_pixels(state.surface)


def frame_size(env: Any) -> tuple[int, int]:
    """The ``(width, height)`` of ``env``'s frames (its renderer's ``frame_size``)."""
    return _renderer(env).frame_size(env)


def render_env(env: Any) -> np.ndarray | None:
    """The frame of a compiled single environment (see :func:`render_frame`).

    In a render mode that the environment does not list (``"rgb_array_list"`` on a directly constructed
    environment, say: :func:`nbgym.make` would have added ``RenderCollection``), the environment does
    what the gymnasium environment it reproduces does, as its class's ``unlisted_render_mode`` says.

    Raises:
        AssertionError: In an unlisted mode, where gymnasium's environment raises it.
    """
    if env.render_mode in env.metadata.get("render_modes", ()):
        return render_frame(env, 0)
    if env.unlisted_render_mode == "none":
        return None
    if env.unlisted_render_mode == "frame":
        return render_frame(env, 0, "rgb_array")
    raise AssertionError(
        f"{type(env).__name__} cannot render in render_mode={env.render_mode!r}; its render modes are "
        f"{env.metadata.get('render_modes')} (gymnasium's environment fails here too). For 'rgb_array_list', create "
        "the environment with nbgym.make, which adds RenderCollection, or create it with render_mode='rgb_array' "
        "and wrap it in nbgym.wrappers.RenderCollection."
    )


def render_vector_env(env: Any) -> tuple[np.ndarray | None, ...]:
    """The frames of every sub-environment of a compiled vector environment, as a tuple (as gymnasium's
    ``SyncVectorEnv.render()`` returns them; ``None`` for each in ``"human"`` mode)."""
    return tuple(render_frame(env, index) for index in range(env.num_envs))


def close_env(env: Any) -> None:
    """Closes ``env``'s window (in ``"human"`` mode) and drops what its frames kept.

    Only the display is shut down, not all of pygame: other environments may still be drawing.
    """
    state = env._render_state
    env._render_state = None
    if state is not None and state.surface is not None and env.render_mode == "human":
        # pygame is imported: a surface exists. Taken from sys.modules, as an import may fail at exit.
        pygame = sys.modules.get("pygame")
        if pygame is not None:
            pygame.display.quit()


# -- environments that draw themselves ---------------------------------------------------------------------------
# gymnasium's Box2D environments keep their window in ``env.screen`` and ``env.clock`` and draw in their own
# ``render``; nbgym's draw the same way, with these helpers (a renderer module's env is drawn by ``render_frame``).


def warn_no_render_mode(env: Any, maker: str) -> None:
    """gymnasium's warning for ``render()`` of an env made without a render mode, suggesting ``maker(id, ...)``.

    Args:
        env: The env (or vector env) whose ``render`` was called.
        maker: The call the warning shows: ``"gym.make"`` where gymnasium's own env says so (the Box2D envs),
            ``"nbgym.make"`` or ``"nbgym.make_vec"`` elsewhere.
    """
    env_id = env.spec.id if env.spec is not None else type(env).__name__
    logger.warn(
        "You are calling render method without specifying any render mode. "
        "You can specify the render_mode at initialization, "
        f'e.g. {maker}("{env_id}", render_mode="rgb_array")'
    )


def start_render(env: Any, window_size: tuple[int, int], extra: str = "render") -> ModuleType | None:
    """Begins ``env.render()``: opens the window of ``"human"`` mode, or warns when there is no render mode.

    Args:
        env: The environment, with ``render_mode``, ``screen`` and ``clock`` attributes.
        window_size: The window's ``(width, height)``.
        extra: The nbgym extra that the install hint names (:func:`import_pygame`).

    Returns:
        ``pygame``, or ``None`` when ``env`` has no render mode (after gymnasium's warning).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed.
    """
    if env.render_mode is None:
        warn_no_render_mode(env, "gym.make")
        return None
    pygame = import_pygame(extra)
    if env.screen is None and env.render_mode == "human":
        pygame.display.init()
        env.screen = pygame.display.set_mode(window_size)
    if env.clock is None:
        env.clock = pygame.time.Clock()
    return pygame


def show_in_window(env: Any, surface: Any, position: tuple[float, float] = (0, 0)) -> None:
    """Shows ``surface`` at ``position`` in ``env``'s window and waits for the next frame's time."""
    pygame = import_pygame()
    env.screen.blit(surface, position)
    pygame.event.pump()
    env.clock.tick(env.metadata["render_fps"])
    pygame.display.flip()


def close_window(env: Any) -> None:
    """Closes ``env``'s window, if it has one."""
    if env.screen is not None:
        pygame = import_pygame()
        pygame.display.quit()
        pygame.quit()
        env.isopen = False


def surface_pixels(surface: Any) -> np.ndarray:
    """The pixels of ``surface`` as a new ``(height, width, 3)`` uint8 array (a copy: ``pixels3d`` is a view, which
    locks the surface while it lives)."""
    return np.transpose(np.array(import_pygame().surfarray.pixels3d(surface)), axes=(1, 0, 2))


class DrawsResetTwice:
    """gymnasium's LunarLander and BipedalWalker update their "human" window twice at reset: the bodies as created,
    before the idle step that ends the reset, then after it. A compiled reset runs both in one kernel call: the
    frame that ``KernelEnv.reset`` draws is marked (``_take_reset_frame``) for the env's ``render`` to draw the
    bodies as created, and the second frame is drawn after it."""

    single_env_only = True  # a vector class made from the env (nbgym.engine.vector_env_class) draws no windows
    _drawing_reset = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        self._drawing_reset = True
        try:
            result = super().reset(seed=seed, options=options)
        finally:
            self._drawing_reset = False
        if self.render_mode == "human":
            self.render()
        return result

    def _take_reset_frame(self) -> bool:
        """Whether the frame asked for now is the one drawn before the reset's idle step (asked once)."""
        at_rest, self._drawing_reset = self._drawing_reset, False
        return at_rest
