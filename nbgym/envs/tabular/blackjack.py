"""Blackjack as a JAX functional environment (gymnasium 1.4.0's ``tabular/Blackjack-v0``).

An infinite deck; hands are ``(21,)`` arrays of card values, filled from the left. The same JAX draws and
arithmetic as gymnasium's: the same keys deal the same cards and give the same rewards.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeAlias

import jax
import jax.numpy as jnp
import numpy as np
from jax import random

from nbgym import spaces
from nbgym.envs.phys2d._common import JaxEnv, params_record
from nbgym.experimental.functional import ActType, FuncEnv
from nbgym.vector import AutoresetMode

__all__ = ["EnvState", "BlackJackParams", "BlackjackFunctional", "BlackJackJaxEnv"]

PRNGKeyType: TypeAlias = jax.Array

deck = jnp.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10])


class EnvState(NamedTuple):
    """A game: both hands, how many cards each holds, and whether it is over."""

    dealer_hand: jax.Array
    player_hand: jax.Array
    dealer_cards: int
    player_cards: int
    done: int


def cmp(a: jax.Array, b: jax.Array) -> jax.Array:
    """1 if ``a > b``, -1 if ``a < b``, else 0."""
    return (a > b).astype(int) - (a < b).astype(int)


def random_card(key: PRNGKeyType) -> tuple[jax.Array, PRNGKeyType]:
    """A card drawn with replacement, and the key it was drawn with (the first half of ``key``'s split)."""
    key = random.split(key)[0]
    return random.choice(key, deck, shape=(1,))[0].astype(int), key


def draw_card(key: PRNGKeyType, hand: jax.Array, index: Any) -> tuple[PRNGKeyType, jax.Array, Any]:
    """``hand`` with a new card at ``index``; the next index."""
    card, key = random_card(key)
    return key, hand.at[index].set(card), index + 1


def draw_hand(key: PRNGKeyType, hand: jax.Array) -> tuple[jax.Array, PRNGKeyType]:
    """``hand`` with two new cards in its first two places."""
    key, hand, _ = draw_card(key, hand, 0)
    key, hand, _ = draw_card(key, hand, 1)
    return hand, key


def usable_ace(hand: jax.Array) -> jax.Array:
    """Whether the hand holds an ace that can count 11."""
    return jnp.logical_and(jnp.any(hand == 1), jnp.sum(hand) + 10 <= 21)


def sum_hand(hand: jax.Array) -> jax.Array:
    """The hand's points."""
    return jnp.sum(hand) + (10 * usable_ace(hand))


def is_bust(hand: jax.Array) -> jax.Array:
    """Whether the hand is over 21."""
    return sum_hand(hand) > 21


def score(hand: jax.Array) -> jax.Array:
    """The hand's points, 0 when bust."""
    return (jnp.logical_not(is_bust(hand))) * sum_hand(hand)


def is_natural(hand: jax.Array) -> jax.Array:
    """Whether the hand is two cards: an ace and a ten."""
    return jnp.logical_and(
        jnp.logical_and(jnp.count_nonzero(hand) == 2, jnp.count_nonzero(hand == 1) > 0),
        jnp.count_nonzero(hand == 10) > 0,
    )


def take(env_state: tuple[EnvState, PRNGKeyType]) -> tuple[EnvState, PRNGKeyType]:
    """Hit: the player draws a card."""
    state, key = env_state
    key, player_hand, _ = draw_card(key, state.player_hand, state.player_cards)
    return state._replace(player_hand=player_hand, player_cards=state.player_cards + 1, done=0), key


def dealer_stop(value: tuple[PRNGKeyType, jax.Array, Any]) -> jax.Array:
    """Whether the dealer draws again (named as gymnasium's, which means "does not stop"): under 17."""
    return sum_hand(value[1]) < 17


def draw_card_wrapper(value: tuple[PRNGKeyType, jax.Array, Any]) -> tuple[PRNGKeyType, jax.Array, Any]:
    """:func:`draw_card` of a ``(key, hand, index)`` tuple."""
    return draw_card(*value)


def notake(env_state: tuple[EnvState, PRNGKeyType]) -> tuple[EnvState, PRNGKeyType]:
    """Stick: the dealer draws until 17 or more, and the game is over."""
    state, key = env_state
    key, dealer_hand, dealer_cards = jax.lax.while_loop(
        dealer_stop, draw_card_wrapper, (key, state.dealer_hand, state.dealer_cards)
    )
    return state._replace(dealer_hand=dealer_hand, dealer_cards=dealer_cards, done=1), key


@params_record
class BlackJackParams:
    """The rules: ``natural`` pays 1.5 for a natural, ``sutton_and_barto`` (the default) follows the book."""

    natural: bool = False
    sutton_and_barto: bool = True


class BlackjackFunctional(FuncEnv[EnvState, jax.Array, int, float, bool, Any, BlackJackParams]):
    """Blackjack's functions: stick (0) or hit (1); observations ``(player sum, dealer's card, usable ace)``."""

    action_space = spaces.Discrete(2)
    observation_space = spaces.Box(low=np.array([1, 1, 0]), high=np.array([32, 11, 1]), shape=(3,), dtype=np.int32)
    # (sic: gymnasium's key)
    metadata = {"render_modes": ["rgb_array"], "render_fps": 4, "autoreseet-mode": AutoresetMode.NEXT_STEP}

    def transition(
        self, state: EnvState, action: int | jax.Array, key: PRNGKeyType, params: Any = BlackJackParams
    ) -> EnvState:
        """Hit or stick; the game is over after a stick or a bust."""
        hand_state, key = jax.lax.cond(action, take, notake, (state, key))
        done = (is_bust(hand_state.player_hand) * action) + (jnp.logical_not(action) * 1)
        return hand_state._replace(done=done)

    def initial(self, rng: PRNGKeyType, params: Any = BlackJackParams) -> EnvState:
        """Two cards to the player, then two to the dealer."""
        player_hand, rng = draw_hand(rng, jnp.zeros(21))
        dealer_hand, rng = draw_hand(rng, jnp.zeros(21))
        return EnvState(dealer_hand=dealer_hand, player_hand=player_hand, dealer_cards=2, player_cards=2, done=0)

    def observation(self, state: EnvState, rng: PRNGKeyType, params: Any = BlackJackParams) -> jax.Array:
        """``(player's points, dealer's first card, usable ace)`` as int32."""
        return jnp.array(
            [sum_hand(state.player_hand), state.dealer_hand[0], usable_ace(state.player_hand) * 1.0], dtype=np.int32
        )

    def terminal(self, state: EnvState, rng: PRNGKeyType, params: Any = BlackJackParams) -> jax.Array:
        """Whether the game is over."""
        return state.done > 0

    def reward(
        self, state: EnvState, action: ActType, next_state: EnvState, rng: PRNGKeyType, params: Any = BlackJackParams
    ) -> jax.Array:
        """-1 for a bust; after a stick, the comparison of the scores; naturals as the rules say."""
        dealer_hand, player_hand = next_state.dealer_hand, next_state.player_hand
        reward = (
            0.0
            + (is_bust(player_hand) * -1 * action)
            + (jnp.logical_not(action) * cmp(score(player_hand), score(dealer_hand)))
        )
        if params.natural and not params.sutton_and_barto:
            condition = jnp.logical_and(is_natural(player_hand), reward == 1)
            reward = reward * jnp.logical_not(condition) + 1.5 * condition
        if params.sutton_and_barto:
            condition = jnp.logical_and(is_natural(player_hand), jnp.logical_not(is_natural(dealer_hand)))
            reward = reward * jnp.logical_not(condition) + 1 * condition
        return reward

    def render_init(self, screen_width: int = 384, screen_height: int = 376) -> Any:
        """``(screen, face, suit)``: a pygame surface, and the face (``J``/``Q``/``K``) and suit that a ten showing
        is drawn with, chosen as gymnasium's are (``choice`` from ``np_random(0)``: the suit, then the face)."""
        from nbgym.engine import import_pygame
        from nbgym.utils import seeding

        pygame = import_pygame()
        generator = seeding.np_random(0)[0]
        suit = generator.choice(["C", "D", "H", "S"])
        face = generator.choice(["J", "Q", "K"])
        pygame.display.init()
        return pygame.Surface((screen_width, screen_height)), face, suit

    def render_image(self, state: EnvState, render_state: Any, params: Any = BlackJackParams) -> tuple[Any, np.ndarray]:
        """The table of ``state``, drawn as the toy-text Blackjack's."""
        from nbgym.engine import import_pygame
        from nbgym.envs._render.blackjack import draw_table

        pygame = import_pygame()
        screen, face, suit = render_state
        player_sum, dealer_value, usable_ace = (int(value) for value in self.observation(state, None))
        rank = "A" if dealer_value == 1 else str(face) if dealer_value == 10 else str(dealer_value)
        sprites = self.__dict__.setdefault("_render_sprites", {})
        draw_table(screen, sprites, player_sum, dealer_value, usable_ace, rank, str(suit))
        return render_state, np.transpose(np.array(pygame.surfarray.pixels3d(screen)), axes=(1, 0, 2))

    def render_close(self, render_state: Any, params: Any = BlackJackParams) -> None:
        """Shuts pygame down (as gymnasium's)."""
        from nbgym.engine import import_pygame

        pygame = import_pygame()
        pygame.display.quit()
        pygame.quit()

    def get_default_params(self, **kwargs: Any) -> BlackJackParams:
        """``BlackJackParams(**kwargs)``."""
        return BlackJackParams(**kwargs)


class BlackJackJaxEnv(JaxEnv):
    """The JAX Blackjack as a single env (``tabular/Blackjack-v0``)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50, "jax": True}
    functional = BlackjackFunctional
