"""CliffWalking as a JAX functional environment (gymnasium 1.4.0's ``tabular/CliffWalking-v0``).

A 4 x 12 grid: the player starts at ``[3, 0]``, the goal is ``[3, 11]``, the cliff ``[3, 1..10]`` sends
it back to the start (-100). Actions are ``(1,)`` int32 arrays (0 up, 1 right, 2 down, 3 left); the
observation is ``row * 12 + col`` as a ``(1,)`` array. As gymnasium's: the same arithmetic, and its
functions that take no ``rng`` receive the env's key as ``params``.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np

from nbgym import spaces
from nbgym.envs.phys2d._common import JaxEnv
from nbgym.experimental.functional import ActType, FuncEnv
from nbgym.vector import AutoresetMode

__all__ = ["EnvState", "RenderStateType", "CliffWalkingFunctional", "CliffWalkingJaxEnv"]

PRNGKeyType: TypeAlias = jax.Array


class RenderStateType(NamedTuple):
    """What a render keeps (gymnasium's fields): the screen, the grid's shape and cells, the cliff, the images."""

    screen: Any
    shape: tuple[int, int]
    nS: int  # noqa: N815 (gymnasium's name)
    cell_size: tuple[int, int]
    cliff: np.ndarray
    agent_img: Any
    start_img: Any
    goal_img: Any
    goal_flag_img: Any
    ground_img: Any
    cliff_imgs: tuple[Any, Any, Any, Any]


class EnvState(NamedTuple):
    """The player's ``(row, col)``, its last action and whether it just fell off the cliff."""

    player_position: jax.Array
    last_action: int
    fallen: bool | jax.Array


def fell_off(player_position: jax.Array) -> jax.Array:
    """Whether the position is on the cliff."""
    return (player_position[0] == 3) * (player_position[1] >= 1) * (player_position[1] <= 10)


class CliffWalkingFunctional(FuncEnv[EnvState, jax.Array, int, float, bool, Any, None]):
    """CliffWalking's functions (Sutton and Barto, Example 6.6)."""

    action_space = spaces.Box(low=0, high=3, dtype=np.int32)
    observation_space = spaces.Box(low=0, high=(12 * 4) - 1, shape=(1,), dtype=np.int32)
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def transition(self, state: EnvState, action: jax.Array, key: PRNGKeyType, params: None = None) -> EnvState:
        """One move, kept on the grid; off the cliff back to the start."""
        position = state.player_position
        position = jnp.array(
            [
                position[0] + (1 * (action == 2)) + (-1 * (action == 0)),
                position[1] + (1 * (action == 1)) + (-1 * (action == 3)),
            ]
        )
        position = jnp.array(
            [jnp.maximum(jnp.minimum(position[0], 3), 0), jnp.maximum(jnp.minimum(position[1], 11), 0)]
        )
        fallen = fell_off(position)
        position = jnp.array([position[0] * (1 - fallen) + 3 * fallen, position[1] * (1 - fallen)])
        return EnvState(player_position=position.reshape((2,)), last_action=action[0], fallen=fallen)

    def initial(self, rng: PRNGKeyType, params: None = None) -> EnvState:
        """The start, ``[3, 0]``."""
        return EnvState(player_position=jnp.array([3, 0]), last_action=-1, fallen=False)

    def observation(self, state: EnvState, params: None = None) -> jax.Array:
        """``row * 12 + col``, shaped ``(1,)``."""
        return jnp.array(state.player_position[0] * 12 + state.player_position[1]).reshape((1,))

    def terminal(self, state: EnvState, params: None = None) -> jax.Array:
        """Whether the player is on the goal."""
        return jnp.array_equal(state.player_position, jnp.array([3, 11]))

    def reward(self, state: EnvState, action: ActType, next_state: EnvState, params: None = None) -> jax.Array:
        """-1, or -100 for a fall, as float32."""
        assert not isinstance(next_state.fallen, bool), "state.fallen should be a jax array, not a bool"
        return jax.lax.convert_element_type(-1 + (-99 * next_state.fallen[0]), jnp.float32)

    def render_init(self, screen_width: int = 600, screen_height: int = 500) -> RenderStateType:
        """The render state: a 768 x 256 screen (64-pixel cells) and the grid (gymnasium's sizes are unused there too)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.init()
        cliff = np.zeros((4, 12), dtype=bool)
        cliff[3, 1:-1] = True
        # The images are nbgym's CliffWalking renderer's own art, drawn on first use (the fields stay None).
        return RenderStateType(
            screen=pygame.Surface((12 * 64, 4 * 64)),
            shape=(4, 12),
            nS=4 * 12,
            cell_size=(64, 64),
            cliff=cliff,
            agent_img=None,
            start_img=None,
            goal_img=None,
            goal_flag_img=None,
            ground_img=None,
            cliff_imgs=(None,) * 4,
        )

    def render_image(
        self, state: EnvState, render_state: RenderStateType, params: None = None
    ) -> tuple[RenderStateType, np.ndarray]:
        """The grid with the player on it, as the toy-text CliffWalking draws it."""
        from nbgym.engine import import_pygame
        from nbgym.envs._render.cliffwalking import draw_grid

        pygame = import_pygame()
        position = int(state.player_position[0]) * 12 + int(state.player_position[1])
        sprites = self.__dict__.setdefault("_render_sprites", {})
        draw_grid(render_state.screen, sprites, render_state.shape, render_state.cliff, 36, position)
        return render_state, np.transpose(np.array(pygame.surfarray.pixels3d(render_state.screen)), axes=(1, 0, 2))

    def render_close(self, render_state: RenderStateType) -> None:
        """Shuts pygame down (as gymnasium's)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.quit()
        pygame.quit()


class CliffWalkingJaxEnv(JaxEnv):
    """The JAX CliffWalking as a single env (``tabular/CliffWalking-v0``)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True}
    functional = CliffWalkingFunctional
