"""Blackjack on the compiled engine against gymnasium 1.4.0: single env and vector env, bit for bit."""

import copy

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.toy_text_checks import (
    assert_same_value,
    compare_single,
    compare_vector,
    discrete_actions,
    steps,
    uniform_policy,
)
from gymnasium.envs.toy_text import blackjack as gym_blackjack

import nbgym
from nbgym import error
from nbgym.engine._threads import SMALLEST_SHARED_BATCH
from nbgym.envs.toy_text.blackjack import BlackjackEnv, BlackjackVectorEnv

VARIANTS = [{}, {"sab": False}, {"sab": False, "natural": True}, {"sab": True, "natural": True}]


def sticks_on_17(rng, obs, info):
    """Hits below 17 (sometimes above, to bust): long hands, dealer play and naturals all happen."""
    return int(obs[0] < 17 or rng.random() < 0.1)


@pytest.mark.parametrize("kwargs", VARIANTS)
@pytest.mark.parametrize("policy", [uniform_policy(2), sticks_on_17])
def test_make_matches_gymnasium(kwargs, policy):
    results = compare_single("Blackjack-v1", kwargs, range(4), steps(1500), policy, render=False)
    rewards = {result[1] for _, result in results}
    assert {-1.0, 0.0, 1.0} <= rewards
    assert (1.5 in rewards) == (kwargs == VARIANTS[2])


@pytest.mark.parametrize("kwargs", VARIANTS[:3])
def test_bare_class_matches_gymnasium_after_the_end_too(kwargs):
    """Hitting after a bust or sticking again after the dealer played goes on as in gymnasium."""
    compare_single("Blackjack-v1", kwargs, range(3), steps(800), uniform_policy(2), render=False, bare=True)


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", VARIANTS)
def test_make_matches_gymnasium_long(kwargs):
    compare_single("Blackjack-v1", kwargs, range(20), 3000, sticks_on_17, render=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kwargs", VARIANTS[:3])
def test_vector_matches_gymnasium_sync(mode, kwargs):
    compare_vector("Blackjack-v1", kwargs, 6, mode, 5, steps(400), discrete_actions(2))


@pytest.mark.parametrize("mode", MODES)
def test_vector_time_limit_matches_gymnasium_sync(mode):
    always_hit = lambda rng, num_envs, obs: np.ones(num_envs, dtype=int)  # noqa: E731
    compare_vector("Blackjack-v1", {"max_episode_steps": 2}, 5, mode, 1, steps(200), always_hit)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_long(mode):
    compare_vector("Blackjack-v1", VARIANTS[2], 64, mode, 3, 1500, discrete_actions(2))


@pytest.mark.jit_only
def test_vector_results_do_not_depend_on_the_number_of_threads():
    num_envs = SMALLEST_SHARED_BATCH + 1  # the smallest batch the stepping threads share
    runs = []
    for num_threads in [1, 2]:
        env = BlackjackVectorEnv(num_envs, num_threads=num_threads, autoreset_mode="SameStep")
        env.reset(seed=3)
        runs.append([env.step(a) for a in np.random.default_rng(0).integers(0, 2, (200, num_envs))])
    for a, b in zip(*runs):
        assert_same_value(a, b)


def test_render_only_draws_match_gymnasium():
    """The suit and face letter drawn at reset (for rendering) advance the stream and are exposed."""
    ours, theirs = BlackjackEnv(), gym_blackjack.BlackjackEnv()
    for seed in range(60):
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        assert ours.dealer_top_card_suit == theirs.dealer_top_card_suit
        assert ours.dealer_top_card_value_str == theirs.dealer_top_card_value_str
        assert ours.np_random.bit_generator.state == theirs.np_random.bit_generator.state


def test_spaces_metadata_and_attributes_match_gymnasium():
    ours, theirs = BlackjackEnv(natural=True), gym_blackjack.BlackjackEnv(natural=True)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    assert ours.metadata == theirs.metadata
    assert (ours.natural, ours.sab) == (theirs.natural, theirs.sab)
    vector = nbgym.make_vec("Blackjack-v1", 3)
    assert isinstance(vector, BlackjackVectorEnv) and vector.sab and vector.max_episode_steps is None
    assert "## Rewards" in BlackjackEnv.__doc__ and "## Version History" in BlackjackEnv.__doc__


def test_vector_copy_false_returns_live_views():
    env = BlackjackVectorEnv(3, copy=False)
    obs, _ = env.reset(seed=0)
    before = [column.copy() for column in obs]
    next_obs = env.step(np.ones(3, dtype=int))[0]
    for column, new_column, old in zip(obs, next_obs, before):
        np.testing.assert_array_equal(column, new_column)
    assert any(not np.array_equal(column, old) for column, old in zip(obs, before))


@pytest.mark.parametrize("action", [2, -1, 1.0, None, "1"])
def test_invalid_actions_raise(action):
    env = nbgym.make("Blackjack-v1")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)
    with pytest.raises(AssertionError):
        theirs = gymnasium.make("Blackjack-v1").unwrapped
        theirs.reset(seed=0)
        theirs.step(action)


def test_copies_continue_identically():
    env = BlackjackEnv()
    env.reset(seed=1)
    copied = copy.deepcopy(env)
    for action in np.random.default_rng(2).integers(0, 2, 50):
        result = env.step(action)
        assert_same_value(copied.step(action), result)
        if result[2]:
            assert_same_value(copied.reset(), env.reset())


def test_module_functions_are_gymnasiums():
    """The module's ``deck``, ``cmp``, ``draw_card``, ``draw_hand``, ``usable_ace``, ``sum_hand``, ``is_bust``,
    ``score`` and ``is_natural``: gymnasium's values and types, hands from seeded generators (the same draws)."""
    from nbgym.envs.toy_text import blackjack as ours

    assert ours.deck == gym_blackjack.deck
    with pytest.raises(TypeError, match="cannot be changed"):  # gymnasium's env would draw from the changed list
        ours.deck.append(11)
    with pytest.raises(TypeError, match="cannot be changed"):
        ours.deck[0] = 11
    assert ours.deck == gym_blackjack.deck
    for a in range(-2, 25):
        for b in range(-2, 25):
            assert type(ours.cmp(a, b)) is float and ours.cmp(a, b) == gym_blackjack.cmp(a, b)
    our_random, their_random, hits = np.random.default_rng(7), np.random.default_rng(7), np.random.default_rng(8)
    for _ in range(300):
        hand, theirs = ours.draw_hand(our_random), gym_blackjack.draw_hand(their_random)
        assert hand == theirs and all(type(card) is int for card in hand)
        while True:
            for name in ("usable_ace", "sum_hand", "is_bust", "score", "is_natural"):
                ours_value, their_value = getattr(ours, name)(hand), getattr(gym_blackjack, name)(hand)
                assert type(ours_value) is type(their_value) and ours_value == their_value, (name, hand)
            if ours.is_bust(hand) or hits.random() < 0.3:
                break
            card = ours.draw_card(our_random)
            assert card == gym_blackjack.draw_card(their_random)
            hand.append(card)
