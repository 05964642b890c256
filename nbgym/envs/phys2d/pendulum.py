"""Pendulum as a JAX functional environment (gymnasium 1.4.0's ``phys2d/Pendulum-v0``): the same JAX arithmetic,
so the same keys give the same numbers."""

from __future__ import annotations

from typing import Any, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np

from nbgym import spaces
from nbgym.envs.phys2d._common import JaxEnv, JaxVectorEnv, params_record
from nbgym.experimental.functional import ActType, FuncEnv
from nbgym.vector import AutoresetMode

__all__ = ["PendulumParams", "PendulumFunctional", "PendulumJaxEnv", "PendulumJaxVectorEnv"]

PRNGKeyType: TypeAlias = jax.Array
StateType: TypeAlias = jax.Array


@params_record
class PendulumParams:
    """The parameters of the JAX Pendulum (gymnasium's values)."""

    max_speed: float = 8.0
    dt: float = 0.05
    g: float = 10.0
    m: float = 1.0
    l: float = 1.0  # noqa: E741 (gymnasium's name)
    high_x: float = jnp.pi
    high_y: float = 1.0
    screen_dim: int = 500


class PendulumFunctional(FuncEnv[StateType, jax.Array, int, float, bool, Any, PendulumParams]):
    """Pendulum's functions over a ``(2,)`` state ``(theta, theta_dot)``; the torque is clipped to ``max_torque``."""

    max_torque: float = 2.0
    observation_space = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)
    action_space = spaces.Box(-max_torque, max_torque, shape=(1,), dtype=np.float32)

    def initial(self, rng: PRNGKeyType, params: Any = PendulumParams) -> StateType:
        """``theta`` uniform in ``[-high_x, high_x)``, ``theta_dot`` in ``[-high_y, high_y)``."""
        high = jnp.array([params.high_x, params.high_y])
        return jax.random.uniform(key=rng, minval=-high, maxval=high, shape=high.shape)

    def transition(
        self, state: StateType, action: int | jax.Array, rng: None = None, params: Any = PendulumParams
    ) -> StateType:
        """One semi-implicit Euler step of ``dt``; the speed is clipped to ``max_speed``."""
        theta, theta_dot = state
        g, m, length, dt = params.g, params.m, params.l, params.dt
        torque = jnp.clip(action, -self.max_torque, self.max_torque)[0]
        new_theta_dot = theta_dot + (3 * g / (2 * length) * jnp.sin(theta) + 3.0 / (m * length**2) * torque) * dt
        new_theta_dot = jnp.clip(new_theta_dot, -params.max_speed, params.max_speed)
        return jnp.array([theta + new_theta_dot * dt, new_theta_dot])

    def observation(self, state: StateType, rng: Any, params: Any = PendulumParams) -> jax.Array:
        """``(cos theta, sin theta, theta_dot)``."""
        theta, theta_dot = state
        return jnp.array([jnp.cos(theta), jnp.sin(theta), theta_dot])

    def reward(
        self, state: StateType, action: ActType, next_state: StateType, rng: Any, params: Any = PendulumParams
    ) -> jax.Array:
        """Minus the cost of the state before the transition and of the clipped torque."""
        theta, theta_dot = state
        torque = jnp.clip(action, -self.max_torque, self.max_torque)[0]
        normalized = ((theta + jnp.pi) % (2 * jnp.pi)) - jnp.pi
        return -(normalized**2 + 0.1 * theta_dot**2 + 0.001 * (torque**2))

    def terminal(self, state: StateType, rng: Any, params: Any = PendulumParams) -> bool:
        """Never: the episode ends by its time limit."""
        return False

    def render_init(self, screen_width: int = 600, screen_height: int = 400, params: Any = PendulumParams) -> Any:
        """A pygame surface of the screen's size, a clock, and the last torque (``None``: gymnasium's never sets it)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.init()
        return pygame.Surface((screen_width, screen_height)), pygame.time.Clock(), None

    def render_image(self, state: StateType, render_state: Any, params: Any = PendulumParams) -> tuple[Any, np.ndarray]:
        """The frame of ``state``: the rod and its pivot, drawn as gymnasium's functional Pendulum draws them
        (without the torque arrow: its last torque is always ``None`` there)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        gfxdraw = pygame.gfxdraw
        screen, clock, last_torque = render_state
        size = params.screen_dim
        surface = pygame.Surface((size, size))
        surface.fill((255, 255, 255))
        scale = size / (2.2 * 2)
        offset = size // 2
        rod_length, rod_width = 1 * scale, 0.2 * scale
        left, right, top, bottom = 0, rod_length, rod_width / 2, -rod_width / 2
        rod = []
        for corner in ((left, bottom), (left, top), (right, top), (right, bottom)):
            turned = pygame.math.Vector2(corner).rotate_rad(state[0] + np.pi / 2)
            rod.append((turned[0] + offset, turned[1] + offset))
        gfxdraw.aapolygon(surface, rod, (204, 77, 77))
        gfxdraw.filled_polygon(surface, rod, (204, 77, 77))
        gfxdraw.aacircle(surface, offset, offset, int(rod_width / 2), (204, 77, 77))
        gfxdraw.filled_circle(surface, offset, offset, int(rod_width / 2), (204, 77, 77))
        end = pygame.math.Vector2((rod_length, 0)).rotate_rad(state[0] + np.pi / 2)
        end = (int(end[0] + offset), int(end[1] + offset))
        gfxdraw.aacircle(surface, end[0], end[1], int(rod_width / 2), (204, 77, 77))
        gfxdraw.filled_circle(surface, end[0], end[1], int(rod_width / 2), (204, 77, 77))
        gfxdraw.aacircle(surface, offset, offset, int(0.05 * scale), (0, 0, 0))
        gfxdraw.filled_circle(surface, offset, offset, int(0.05 * scale), (0, 0, 0))
        screen.blit(pygame.transform.flip(surface, False, True), (0, 0))
        return (screen, clock, last_torque), np.transpose(np.array(pygame.surfarray.pixels3d(screen)), axes=(1, 0, 2))

    def render_close(self, render_state: Any, params: Any = PendulumParams) -> None:
        """Shuts pygame down (as gymnasium's)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.quit()
        pygame.quit()

    def get_default_params(self, **kwargs: Any) -> PendulumParams:
        """``PendulumParams(**kwargs)``."""
        return PendulumParams(**kwargs)


class PendulumJaxEnv(JaxEnv):
    """The JAX Pendulum as a single env (``phys2d/Pendulum-v0``)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30, "jax": True, "autoreset_mode": AutoresetMode.NEXT_STEP}
    functional = PendulumFunctional


class PendulumJaxVectorEnv(JaxVectorEnv):
    """The JAX Pendulum as a vector env."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True}
    functional = PendulumFunctional
