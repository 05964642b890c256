"""CartPole as a JAX functional environment (gymnasium 1.4.0's ``phys2d/CartPole-v0`` and ``-v1``).

The same JAX arithmetic as gymnasium's, in float32: the same keys give the same numbers. Its parameters
keep gymnasium's values, ``polemass_length = masspole + length`` included (the classic env's is the product).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np

from nbgym import spaces
from nbgym.envs.phys2d._common import JaxEnv, JaxVectorEnv, params_record
from nbgym.experimental.functional import ActType, FuncEnv
from nbgym.vector import AutoresetMode

__all__ = ["CartPoleParams", "CartPoleFunctional", "CartPoleJaxEnv", "CartPoleJaxVectorEnv"]

PRNGKeyType: TypeAlias = jax.Array
StateType: TypeAlias = jax.Array


@params_record
class CartPoleParams:
    """The parameters of the JAX CartPole (gymnasium's values)."""

    gravity: float = 9.8
    masscart: float = 1.0
    masspole: float = 0.1
    total_mass: float = 0.1 + 1.0
    length: float = 0.5
    polemass_length: float = 0.1 + 0.5
    force_mag: float = 10.0
    tau: float = 0.02
    theta_threshold_radians: float = 12 * 2 * np.pi / 360
    x_threshold: float = 2.4
    x_init: float = 0.05
    sutton_barto_reward: bool = False
    screen_width: int = 600
    screen_height: int = 400


def _outside(state: StateType, params: Any) -> jax.Array:
    """Whether the cart or the pole is past its threshold."""
    x, _, theta, _ = state
    return (
        (x < -params.x_threshold)
        | (x > params.x_threshold)
        | (theta < -params.theta_threshold_radians)
        | (theta > params.theta_threshold_radians)
    )


class CartPoleFunctional(FuncEnv[StateType, jax.Array, int, float, bool, Any, CartPoleParams]):
    """CartPole's functions over a ``(4,)`` float32 state ``(x, x_dot, theta, theta_dot)``."""

    observation_space = spaces.Box(-np.inf, np.inf, shape=(4,), dtype=np.float32)
    action_space = spaces.Discrete(2)

    def initial(self, rng: PRNGKeyType, params: Any = CartPoleParams) -> StateType:
        """Four uniform draws in ``[-x_init, x_init)``."""
        return jax.random.uniform(key=rng, minval=-params.x_init, maxval=params.x_init, shape=(4,))

    def transition(
        self, state: StateType, action: int | jax.Array, rng: None = None, params: Any = CartPoleParams
    ) -> StateType:
        """One explicit Euler step of ``tau`` under the force ``sign(action - 0.5) * force_mag``."""
        x, x_dot, theta, theta_dot = state
        force = jnp.sign(action - 0.5) * params.force_mag
        cos_theta, sin_theta = jnp.cos(theta), jnp.sin(theta)
        temp = (force + params.polemass_length * theta_dot**2 * sin_theta) / params.total_mass
        theta_acc = (params.gravity * sin_theta - cos_theta * temp) / (
            params.length * (4.0 / 3.0 - params.masspole * cos_theta**2 / params.total_mass)
        )
        x_acc = temp - params.polemass_length * theta_acc * cos_theta / params.total_mass
        return jnp.array(
            (
                x + params.tau * x_dot,
                x_dot + params.tau * x_acc,
                theta + params.tau * theta_dot,
                theta_dot + params.tau * theta_acc,
            ),
            dtype=jnp.float32,
        )

    def observation(self, state: StateType, rng: Any, params: Any = CartPoleParams) -> jax.Array:
        """The state itself."""
        return state

    def terminal(self, state: StateType, rng: Any, params: Any = CartPoleParams) -> jax.Array:
        """Whether the cart left ``[-x_threshold, x_threshold]`` or the pole fell past its angle."""
        return _outside(state, params)

    def reward(
        self, state: StateType, action: ActType, next_state: StateType, rng: Any, params: Any = CartPoleParams
    ) -> jax.Array:
        """1.0; with ``sutton_barto_reward``, -1.0 from a terminal ``state`` and 0.0 otherwise (as gymnasium's,
        from the state *before* the transition)."""
        terminated = _outside(state, params)
        return jax.lax.cond(
            params.sutton_barto_reward,
            lambda: jax.lax.cond(terminated, lambda: -1.0, lambda: 0.0),
            lambda: 1.0,
        )

    def render_init(self, params: Any = CartPoleParams, screen_width: int = 600, screen_height: int = 400) -> Any:
        """A pygame surface of the screen's size and a clock."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.init()
        return pygame.Surface((screen_width, screen_height)), pygame.time.Clock()

    def render_image(self, state: StateType, render_state: Any, params: Any = CartPoleParams) -> tuple[Any, np.ndarray]:
        """The frame of ``state``: the cart, the pole and the track, drawn as gymnasium's functional CartPole draws."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        gfxdraw = pygame.gfxdraw
        screen, clock = render_state
        scale = params.screen_width / (params.x_threshold * 2)
        pole_width, pole_length = 10.0, scale * (2 * params.length)
        cart_width, cart_height = 50.0, 30.0
        surface = pygame.Surface((params.screen_width, params.screen_height))
        surface.fill((255, 255, 255))
        left, right, top, bottom = -cart_width / 2, cart_width / 2, cart_height / 2, -cart_height / 2
        axle_offset = cart_height / 4.0
        cart_x = state[0] * scale + params.screen_width / 2.0
        cart_y = 100
        cart = [(cx + cart_x, cy + cart_y) for cx, cy in ((left, bottom), (left, top), (right, top), (right, bottom))]
        gfxdraw.aapolygon(surface, cart, (0, 0, 0))
        gfxdraw.filled_polygon(surface, cart, (0, 0, 0))
        left, right, top, bottom = -pole_width / 2, pole_width / 2, pole_length - pole_width / 2, -pole_width / 2
        pole = []
        for corner in ((left, bottom), (left, top), (right, top), (right, bottom)):
            turned = pygame.math.Vector2(corner).rotate_rad(-state[2])
            pole.append((turned[0] + cart_x, turned[1] + cart_y + axle_offset))
        gfxdraw.aapolygon(surface, pole, (202, 152, 101))
        gfxdraw.filled_polygon(surface, pole, (202, 152, 101))
        axle = (int(cart_x), int(cart_y + axle_offset), int(pole_width / 2), (129, 132, 203))
        gfxdraw.aacircle(surface, *axle)
        gfxdraw.filled_circle(surface, *axle)
        gfxdraw.hline(surface, 0, params.screen_width, cart_y, (0, 0, 0))
        screen.blit(pygame.transform.flip(surface, False, True), (0, 0))
        return (screen, clock), np.transpose(np.array(pygame.surfarray.pixels3d(screen)), axes=(1, 0, 2))

    def render_close(self, render_state: Any, params: Any = CartPoleParams) -> None:
        """Shuts pygame down (as gymnasium's)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.quit()
        pygame.quit()

    def get_default_params(self, **kwargs: Any) -> CartPoleParams:
        """``CartPoleParams(**kwargs)``."""
        return CartPoleParams(**kwargs)


class CartPoleJaxEnv(JaxEnv):
    """The JAX CartPole as a single env (``phys2d/CartPole-v0``, ``-v1``)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True}
    functional = CartPoleFunctional


class CartPoleJaxVectorEnv(JaxVectorEnv):
    """The JAX CartPole as a vector env (vmapped over the sub-environments)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True, "autoreset_mode": AutoresetMode.NEXT_STEP}
    functional = CartPoleFunctional
