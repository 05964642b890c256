"""Blackjack: beat the dealer without going over 21, as gymnasium's ``Blackjack-v1``, on the compiled engine.

Cards come from an infinite deck: each is gymnasium's ``np_random.choice`` over the 13 ranks, which
is one ``integers(0, 13)`` draw of the stream. A hand is kept as what the rules need of it: the sum
of its card values (aces counting 1), whether it holds an ace, and its number of cards (a natural
is an ace and a ten, two cards); and its cards themselves, four bits each, for gymnasium's ``player``
and ``dealer`` lists.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from nbgym import spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, njit, rng, vector_env_class
from nbgym.engine.state_views import StateView
from nbgym.envs._read_only import ReadOnlyList

# State columns: the player's and the dealer's hands (card-value sum with aces as 1, ace held, card
# count), the dealer's face-up card at reset and that card's suit and face letter (drawn for the
# rendering), and the cards of each hand, packed four bits a card into _HAND_WORDS columns.
_PLAYER_SUM, _PLAYER_ACE, _PLAYER_CARDS = 0, 1, 2
_DEALER_SUM, _DEALER_ACE, _DEALER_CARDS = 3, 4, 5
_DEALER_CARD, _SUIT, _FACE = 6, 7, 8
_CARD_BITS, _CARDS_PER_WORD, _HAND_WORDS = 4, 16, 2
_CARD_MASK = (1 << _CARD_BITS) - 1
_HAND_CAPACITY = _CARDS_PER_WORD * _HAND_WORDS
"""The cards a hand keeps: every hand of an episode (21 aces and one more card at most), and more."""
_PLAYER_HAND = 9
_DEALER_HAND = _PLAYER_HAND + _HAND_WORDS
_STATE_WIDTH = _DEALER_HAND + _HAND_WORDS
_NO_FACE = -1

_SUITS = ("C", "D", "H", "S")
_FACES = ("J", "Q", "K")


deck = ReadOnlyList(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10],
    "blackjack.deck cannot be changed in nbgym: the environments draw their cards from these 13 ranks in compiled "
    "code, which a changed list would not reach. Draw from a list of your own: np_random.choice(my_deck).",
)
"""gymnasium's ``blackjack.deck``: the values of the 13 ranks, ace (1) to king (10). The kernels draw from the same
ranks (``_draw_card``), so the list refuses changes in place (in gymnasium they change the env's draws); the functions
below are gymnasium's, for code that plays hands of its own."""


def cmp(a: Any, b: Any) -> float:
    """1.0 if ``a > b``, -1.0 if ``a < b``, else 0.0 (the reward of a player's score ``a`` against the dealer's ``b``)."""
    return float(a > b) - float(a < b)


def draw_card(np_random: np.random.Generator) -> int:
    """A card's value drawn from ``deck`` with ``np_random.choice``, as gymnasium's ``blackjack.draw_card``."""
    return int(np_random.choice(deck))


def draw_hand(np_random: np.random.Generator) -> list[int]:
    """Two cards drawn with ``draw_card``."""
    return [draw_card(np_random), draw_card(np_random)]


def usable_ace(hand: Sequence[int]) -> int:
    """1 if ``hand`` holds an ace that can count 11 without going over 21, else 0."""
    return int(1 in hand and sum(hand) + 10 <= 21)


def sum_hand(hand: Sequence[int]) -> int:
    """The hand's total, a usable ace counting 11."""
    return sum(hand) + 10 if usable_ace(hand) else sum(hand)


def is_bust(hand: Sequence[int]) -> bool:
    """Whether the hand's total is over 21."""
    return sum_hand(hand) > 21


def score(hand: Sequence[int]) -> int:
    """The hand's total, 0 if it is bust."""
    return 0 if is_bust(hand) else sum_hand(hand)


def is_natural(hand: Sequence[int]) -> bool:
    """Whether the hand is a natural blackjack: an ace and a ten, two cards."""
    return sorted(hand) == [1, 10]


@njit
def _draw_card(stream, i):
    # The deck [1, 2, ..., 9, 10, 10, 10, 10]: ace to ten, then jack, queen and king worth 10.
    return min(rng.integers(stream, i, 0, 13) + 1, 10)


@njit
def _hand_value(total, ace):
    """The best value of a hand: an ace counts 11 when that does not bust it."""
    if ace and total + 10 <= 21:
        return total + 10
    return total


@njit
def _is_natural(total, ace, cards):
    return cards == 2 and ace and total == 11


# The hands are updated in the physics functions themselves: a helper taking the state array costs a
# reference-count update per call (Blackjack's vector step 1.4x slower).


def _reset(params, state, i, stream, aux):
    for hand, total, ace, cards in (
        (_DEALER_HAND, _DEALER_SUM, _DEALER_ACE, _DEALER_CARDS),
        (_PLAYER_HAND, _PLAYER_SUM, _PLAYER_ACE, _PLAYER_CARDS),
    ):
        first = _draw_card(stream, i)
        second = _draw_card(stream, i)
        state[i, hand] = first | (second << _CARD_BITS)
        for word in range(1, _HAND_WORDS):
            state[i, hand + word] = 0
        state[i, total] = first + second
        state[i, ace] = 1 if first == 1 or second == 1 else 0
        state[i, cards] = 2
    state[i, _DEALER_CARD] = state[i, _DEALER_HAND] & _CARD_MASK
    state[i, _SUIT] = rng.integers(stream, i, 0, 4)
    state[i, _FACE] = _NO_FACE
    if state[i, _DEALER_CARD] == 10:
        state[i, _FACE] = rng.integers(stream, i, 0, 3)


@njit
def _card_bits(count, card):
    """``(word, bits)``: the word of a hand that holds its card number ``count``, and ``card``'s bits there
    (``bits`` 0 beyond the cards a hand keeps: the sums stay exact, and reading the hand refuses)."""
    if count >= _HAND_CAPACITY:
        return 0, 0
    return count // _CARDS_PER_WORD, card << (count % _CARDS_PER_WORD * _CARD_BITS)


def _step(params, state, i, actions, stream, aux):
    hitting = actions[i] == 1
    hand, total, ace, cards = _PLAYER_HAND, _PLAYER_SUM, _PLAYER_ACE, _PLAYER_CARDS
    if not hitting:
        hand, total, ace, cards = _DEALER_HAND, _DEALER_SUM, _DEALER_ACE, _DEALER_CARDS
    # The player draws one card when hitting; when sticking, the dealer draws until 17.
    while hitting or _hand_value(state[i, _DEALER_SUM], state[i, _DEALER_ACE]) < 17:
        card = _draw_card(stream, i)
        word, bits = _card_bits(state[i, cards], card)
        state[i, hand + word] |= bits
        state[i, total] += card
        if card == 1:
            state[i, ace] = 1
        state[i, cards] += 1
        if hitting:
            if state[i, _PLAYER_SUM] > 21:
                return -1.0, True
            return 0.0, False
    player = _hand_value(state[i, _PLAYER_SUM], state[i, _PLAYER_ACE])
    dealer = _hand_value(state[i, _DEALER_SUM], state[i, _DEALER_ACE])
    if player > 21:
        player = 0
    if dealer > 21:
        dealer = 0
    reward = 0.0
    if player > dealer:
        reward = 1.0
    elif player < dealer:
        reward = -1.0
    player_natural = _is_natural(state[i, _PLAYER_SUM], state[i, _PLAYER_ACE], state[i, _PLAYER_CARDS])
    if params.sab:
        if player_natural and not _is_natural(state[i, _DEALER_SUM], state[i, _DEALER_ACE], state[i, _DEALER_CARDS]):
            reward = 1.0
    elif params.natural and player_natural and reward == 1.0:
        reward = 1.5
    return reward, True


def _observe(params, state, i, obs):
    total = state[i, _PLAYER_SUM]
    usable = state[i, _PLAYER_ACE] != 0 and total + 10 <= 21
    obs[i, 0] = total + 10 if usable else total
    obs[i, 1] = state[i, _DEALER_HAND] & _CARD_MASK  # the dealer's first card
    obs[i, 2] = usable


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 2


PHYSICS = Physics(
    "Blackjack",
    params=[("natural", np.bool_), ("sab", np.bool_)],
    state=(_STATE_WIDTH, np.int64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    observation=((3,), np.int64),
)


def _spaces() -> tuple[spaces.Tuple, spaces.Discrete]:
    return spaces.Tuple((spaces.Discrete(32), spaces.Discrete(11), spaces.Discrete(2))), spaces.Discrete(2)


def _new_params(natural: bool, sab: bool) -> np.ndarray:
    return PHYSICS.new_params(natural=bool(natural), sab=bool(sab))


def _hand_view(name: str, hand: int, total: int, ace: int, cards: int, *, may_be_empty: bool) -> StateView:
    """gymnasium's list of a hand's card values (``player`` or ``dealer``) over the hand's columns."""

    def read(params: np.record, row: np.ndarray) -> list[int]:
        count = int(row[cards])
        if count > _HAND_CAPACITY:
            raise ValueError(
                f"The {name}'s hand has {count} cards, more than the {_HAND_CAPACITY} nbgym keeps (no episode "
                f"deals that many: this hand kept hitting after its bust); its sum, {int(row[total])}, is exact."
            )
        words = [int(word) for word in row[hand : hand + _HAND_WORDS]]
        return [words[k // _CARDS_PER_WORD] >> (k % _CARDS_PER_WORD * _CARD_BITS) & _CARD_MASK for k in range(count)]

    def write(params: np.record, row: np.ndarray, value: Any) -> None:
        if not isinstance(value, list):
            raise ValueError(f"{name} must be a list (gymnasium's step appends the cards dealt to it), got {value!r}.")
        values = value
        if (
            not (0 if may_be_empty else 1) <= len(values) <= _HAND_CAPACITY
            or not all(
                isinstance(card, (int, np.integer)) and not isinstance(card, (bool, np.bool_)) for card in values
            )
            or not all(1 <= card <= 10 for card in values)
        ):
            least = "no" if may_be_empty else "one"
            raise ValueError(
                f"{name} must be a list of {least} to {_HAND_CAPACITY} card values, ints from 1 (an ace) to 10, got {value!r}."
            )
        words = [0] * _HAND_WORDS
        for k, card in enumerate(values):
            words[k // _CARDS_PER_WORD] |= int(card) << (k % _CARDS_PER_WORD * _CARD_BITS)
        row[hand : hand + _HAND_WORDS] = words
        row[total] = sum(int(card) for card in values)
        row[ace] = 1 in values
        row[cards] = len(values)

    doc = f"The card values of the {name}'s hand (1 is an ace), as gymnasium's list, which the steps extend."
    return StateView(name, read, write, doc, changed_in_place=True)


class _BlackjackAttributes:
    """What Blackjack's single and vector envs share: the physics and its parameters of the arguments, the hands
    as gymnasium's attributes."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.blackjack"
    vector_render_modes = ("human", "rgb_array")
    asserts_action_in_space = True  # gymnasium asserts action_space.contains(action)
    state_views = (
        _hand_view("player", _PLAYER_HAND, _PLAYER_SUM, _PLAYER_ACE, _PLAYER_CARDS, may_be_empty=True),
        _hand_view("dealer", _DEALER_HAND, _DEALER_SUM, _DEALER_ACE, _DEALER_CARDS, may_be_empty=False),
    )

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.natural, arguments.sab)

    def _single_spaces(self) -> tuple[spaces.Tuple, spaces.Discrete]:
        return _spaces()


def observation_of(row: np.ndarray) -> tuple[int, int, int]:
    """The observation of a state row as it is now (after a write of ``player`` or ``dealer``, say)."""
    obs = np.zeros((1, 3), dtype=np.int64)
    _observe(None, row[None], 0, obs)
    return _as_tuple(obs[0])


def _as_tuple(row: np.ndarray) -> tuple[int, int, int]:
    player_sum, dealer_card, usable_ace = row.tolist()
    return player_sum, dealer_card, usable_ace


class BlackjackEnv(_BlackjackAttributes, KernelEnv):
    """
    ## Description

    Beat the dealer by obtaining cards that sum closer to 21 than the dealer's cards, without going
    over 21. The dealer starts with one face-up and one face-down card, the player with two face-up
    cards. All cards come from an infinite deck (with replacement).

    Card values:

    - Face cards (Jack, Queen, King) are worth 10.
    - Aces are worth 11 (a "usable ace") or 1.
    - Numerical cards (2-10) are worth their number.

    The player sums their cards and may ask for more (hit) until they stop (stick) or exceed 21
    (bust, an immediate loss). After the player sticks, the dealer reveals the face-down card and
    draws until their sum is 17 or more. If the dealer busts the player wins; otherwise the sum closer
    to 21 wins, and equal sums draw.

    This is the blackjack problem of Example 5.1 of Sutton and Barto, *Reinforcement Learning: An
    Introduction* [<a href="#blackjack_ref">1</a>].

    ## Action Space

    `Discrete(2)`: whether to stick or hit.

    - 0: Stick
    - 1: Hit

    ## Observation Space

    A 3-tuple of Python `int`s, in `Tuple((Discrete(32), Discrete(11), Discrete(2)))`: the player's
    current sum, the value of the dealer's face-up card (1-10, 1 being an ace), and whether the
    player holds a usable ace (0 or 1).

    ## Starting State

    | Observation               | Values         |
    |---------------------------|----------------|
    | Player current sum        |  4, 5, ..., 21 |
    | Dealer showing card value |  1, 2, ..., 10 |
    | Usable Ace                |  0, 1          |

    ## Rewards

    - win game: +1
    - lose game: -1
    - draw game: 0
    - win game with natural blackjack: +1.5 if <a href="#nat">natural</a> is True, +1 if it is False

    Rewards are Python `float`s.

    ## Episode End

    - Termination:
        1. The player hits and the sum of their hand exceeds 21.
        2. The player sticks.

    An ace always counts as usable (11) unless that busts the player.

    ## Information

    No additional information is returned.

    ## Arguments

    ```python
    import nbgym
    nbgym.make("Blackjack-v1", natural=False, sab=False)
    ```

    <a id="nat"></a>`natural=False`: whether to give an additional reward for starting with a natural
    blackjack (an ace and a ten, sum 21).

    <a id="sab"></a>`sab=False`: whether to follow the rules of Sutton and Barto's book exactly; then
    `natural` is ignored, a natural blackjack of the player against no natural of the dealer wins
    (+1), the reverse rule does not apply, and two naturals draw (0). `Blackjack-v1` is registered
    with `sab=True`.

    The dynamics are compiled: `nbgym.make_vec("Blackjack-v1", num_envs=4096)` steps all
    sub-environments in one call (`BlackjackVectorEnv`), whose observations are batched as a tuple
    of three `int64` arrays.

    ## References

    <a id="blackjack_ref"></a>[1] R. Sutton and A. Barto, "Reinforcement Learning: An Introduction"
    2020. [Online]. Available: [http://www.incompleteideas.net/book/RLbook2020.pdf](http://www.incompleteideas.net/book/RLbook2020.pdf)

    ## Version History

    * v1: Fix the natural handling in Blackjack.
    * v0: Initial version release.
    """

    gymnasium_hooks = {"_get_obs": ("step", "reset", "render")}

    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 4}
    # gymnasium's environment returns its rgb_array frame in any mode it does not list.
    unlisted_render_mode = "frame"

    @declares_arguments
    def __init__(self, render_mode: str | None = None, natural: bool = False, sab: bool = False) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""

    @property
    def dealer_top_card_suit(self) -> str:
        """The suit letter of the dealer's face-up card (``"C"``, ``"D"``, ``"H"`` or ``"S"``), drawn at reset."""
        return _SUITS[self._batch.state[0, _SUIT]]

    @property
    def dealer_top_card_value_str(self) -> str:
        """The rank of the dealer's face-up card: ``"A"``, ``"2"`` to ``"9"``, or a ten's ``"J"``, ``"Q"`` or ``"K"``."""
        card = int(self._batch.state[0, _DEALER_CARD])
        if card == 1:
            return "A"
        if card == 10:
            return _FACES[self._batch.state[0, _FACE]]
        return str(card)

    def _observation(self) -> tuple[int, int, int]:
        return _as_tuple(self._batch.obs[0])

    def _get_obs(self) -> tuple[int, int, int]:
        """gymnasium's observation of the hands as they are now (after an assignment of ``player``, say)."""
        self._write_back_held()
        return observation_of(self._batch.state[0])


class BlackjackVectorEnv(vector_env_class(BlackjackEnv)):
    """Blackjack's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("Blackjack-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode:
    observations are a tuple of three ``int64`` arrays ``(player sums, dealer cards, usable aces)``, as
    gymnasium batches a ``Tuple`` space, and ``final_obs`` holds tuples of ints. See ``BlackjackEnv``
    for the environment and ``KernelVectorEnv`` for the vector arguments.
    """

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], dict[str, Any]]:
        obs, infos = super().reset(seed=seed, options=options)
        return self._batched(obs), infos

    def step(
        self, actions: Any
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = super().step(actions)
        return self._batched(obs), rewards, terminated, truncated, infos

    def _batched(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # The (num_envs, 3) buffer as gymnasium batches a Tuple of three Discrete: one array per element
        # (live views of the buffer with copy=False).
        if self.copy:
            return np.ascontiguousarray(obs[:, 0]), np.ascontiguousarray(obs[:, 1]), np.ascontiguousarray(obs[:, 2])
        return obs[:, 0], obs[:, 1], obs[:, 2]

    def _final_observation(self, row: np.ndarray) -> tuple[int, int, int]:
        return _as_tuple(row)
