"""The pygame side of nbgym's Box2D environments (no Box2D needed): pygame itself, the window of ``"human"`` mode,
frames, and the checks of continuous actions."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from nbgym import engine, logger

__all__ = ["DrawsResetTwice", "close_window", "frame", "import_pygame", "show", "start_render"]


def import_pygame() -> ModuleType:
    """``pygame`` (pygame-ce) with ``pygame.gfxdraw``, imported quietly (see :func:`nbgym.engine.import_pygame`).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed, with the command that installs it.
    """
    return engine.import_pygame("box2d")


def start_render(env: Any, window_size: tuple[int, int]) -> ModuleType | None:
    """Begins ``env.render()``: opens the window of ``"human"`` mode, or warns when there is no render mode.

    Args:
        env: The environment, with ``render_mode``, ``screen`` and ``clock`` attributes.
        window_size: The window's ``(width, height)``.

    Returns:
        ``pygame``, or ``None`` when ``env`` has no render mode (after gymnasium's warning).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed.
    """
    if env.render_mode is None:
        env_id = env.spec.id if env.spec is not None else type(env).__name__
        logger.warn(
            "You are calling render method without specifying any render mode. "
            "You can specify the render_mode at initialization, "
            f'e.g. gym.make("{env_id}", render_mode="rgb_array")'
        )
        return None
    pygame = import_pygame()
    if env.screen is None and env.render_mode == "human":
        pygame.display.init()
        env.screen = pygame.display.set_mode(window_size)
    if env.clock is None:
        env.clock = pygame.time.Clock()
    return pygame


def show(env: Any, surface: Any, position: tuple[float, float] = (0, 0)) -> None:
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


def frame(surface: Any) -> np.ndarray:
    """The pixels of ``surface`` as a new ``(height, width, 3)`` uint8 array."""
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
