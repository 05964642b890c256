"""What nbgym's Box2D environments share: Box2D itself (with the hint that installs it), pygame, and frames.

The environments drive the ``box2d`` 2.3.10 wheel through the same calls, in the same order and with
the same float values as gymnasium 1.4.0's, so that their simulations are identical; Box2D 2.3 is
deterministic for one binary.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from nbgym import error, logger
from nbgym.envs import _render

try:
    import Box2D
except ImportError as e:
    raise error.DependencyNotInstalled(
        'Box2D is not installed, you can install it by running `pip install "nbgym[box2d]"` (the box2d 2.3.10 wheel)'
    ) from e

__all__ = ["Box2D", "GroundContactDetector", "action_vector", "close_window", "frame", "import_pygame", "show", "start_render"]


class GroundContactDetector(Box2D.b2.contactListener):
    """Ends the game when the env's body touches anything, and keeps whether each of its feet touches the ground.

    The body's fixtures and the feet's collide with the ground only, so any contact of theirs is with it.
    """

    def __init__(self, env: Any, body: str, feet: tuple[int, ...], legs: str = "legs") -> None:
        """Listens to the contacts of ``env``'s world.

        Args:
            env: The environment whose ``game_over`` and ``legs[i].ground_contact`` the contacts set.
            body: The name of the attribute of ``env`` that holds the body (``"lander"``, ``"_hull"``).
            feet: The indices of the feet in the legs.
            legs: The name of the attribute of ``env`` that holds the list of legs.
        """
        Box2D.b2.contactListener.__init__(self)
        self.env = env
        self.body = body
        self.feet = feet
        self.legs = legs

    def BeginContact(self, contact: Any) -> None:
        """A contact starts: the body ends the game, a foot touches the ground."""
        bodies = (contact.fixtureA.body, contact.fixtureB.body)
        if getattr(self.env, self.body) in bodies:
            self.env.game_over = True
        legs = getattr(self.env, self.legs)
        for foot in self.feet:
            if legs[foot] in bodies:
                legs[foot].ground_contact = True

    def EndContact(self, contact: Any) -> None:
        """A contact ends: a foot leaves the ground."""
        bodies = (contact.fixtureA.body, contact.fixtureB.body)
        legs = getattr(self.env, self.legs)
        for foot in self.feet:
            if legs[foot] in bodies:
                legs[foot].ground_contact = False


def import_pygame() -> ModuleType:
    """``pygame`` (pygame-ce) with ``pygame.gfxdraw``, imported quietly (see :func:`nbgym.envs._render.import_pygame`).

    Raises:
        DependencyNotInstalled: If pygame-ce is not installed, with the command that installs it.
    """
    return _render.import_pygame("box2d")


def action_vector(
    action: Any, env_name: str, description: str, size: int, indexed_as_given: bool = False
) -> np.ndarray:
    """``action`` as a 1-D numpy array of at least ``size`` numbers, checked where gymnasium's env would fail.

    gymnasium's continuous Box2D environments index ``action[0]`` to ``action[size - 1]`` and ignore
    what follows; nbgym does the same, and refuses what they cannot index with their exception types,
    before anything moves.

    Args:
        action: The action.
        env_name: The environment's name, for the message.
        description: What the numbers are, e.g. ``"[main, lateral]"``.
        size: How many numbers the environment uses.
        indexed_as_given: Whether gymnasium indexes the action as given (a Python number or a matrix
            then raises ``TypeError``) rather than after numpy made it an array or numpy scalar.

    Returns:
        ``np.asarray(action)``.

    Raises:
        TypeError: ``indexed_as_given`` and ``action`` is a Python number or has more than one dimension.
        IndexError: ``action`` is a scalar or has fewer than ``size`` numbers.
        ValueError: ``action`` has more than one dimension (not ``indexed_as_given``).
    """
    vector = np.asarray(action) if hasattr(action, "__getitem__") or not indexed_as_given else None
    if vector is not None and vector.ndim == 1 and vector.shape[0] >= size:
        return vector
    if vector is None or vector.ndim > 1:
        exception: type[Exception] = TypeError if indexed_as_given else ValueError
    else:
        exception = IndexError
    raise exception(f"{env_name}'s action is a 1-D array {description} of shape ({size},), got {action!r}")


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
