"""What nbgym's Box2D environments on the ``box2d`` wheel share: Box2D itself (with the hint that installs it) and
its contact listener; the pygame helpers of ``_window``, which need no wheel, are here too.

The environments drive the ``box2d`` 2.3.10 wheel through the same calls, in the same order and with
the same float values as gymnasium 1.4.0's, so that their simulations are identical; Box2D 2.3 is
deterministic for one binary.
"""

from __future__ import annotations

from typing import Any

from nbgym import error
from nbgym.envs.box2d._window import action_vector, close_window, frame, import_pygame, show, start_render

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
