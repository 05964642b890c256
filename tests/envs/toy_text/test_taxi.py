"""Taxi on the compiled engine against gymnasium 1.4.0: single env, vector env, tables and masks, bit for bit."""

import copy

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.toy_text_checks import (
    assert_same_error,
    assert_same_value,
    compare_single,
    compare_vector,
    discrete_actions,
    steps,
    uniform_policy,
)
from gymnasium.envs.toy_text import taxi as gym_taxi

import nbgym
from nbgym import error
from nbgym.engine._threads import SMALLEST_SHARED_BATCH
from nbgym.envs.toy_text.taxi import TaxiEnv, TaxiVectorEnv

VARIANTS = [
    {},
    {"is_rainy": True},
    {"fickle_passenger": True},
    {"is_rainy": True, "fickle_passenger": True, "rainy_probability": 0.5, "fickle_probability": 0.9},
    {"is_rainy": True, "rainy_probability": 1, "fickle_passenger": True, "fickle_probability": 1.0},
]


LOCS = [(0, 0), (0, 4), (4, 0), (4, 3)]
MOVES = {0: (1, 0), 1: (-1, 0), 2: (0, 1), 3: (0, -1)}


def driver(rng, obs, info):
    """Drives to the passenger, picks them up, drives to the destination and drops them off, with detours
    at random (walls block the greedy way): passengers ride and arrive often."""
    rest, dest = divmod(obs, 4)
    rest, passenger = divmod(rest, 5)
    row, col = divmod(rest, 5)
    if passenger == 4 and (row, col) == LOCS[dest]:
        return 5
    if info["action_mask"][4]:
        return 4
    target = LOCS[passenger] if passenger < 4 else LOCS[dest]
    distance = abs(row - target[0]) + abs(col - target[1])
    closer = [
        a
        for a, (dr, dc) in MOVES.items()
        if info["action_mask"][a] and abs(row + dr - target[0]) + abs(col + dc - target[1]) < distance
    ]
    if closer and rng.random() < 0.5:
        return closer[rng.integers(0, len(closer))]
    return rng.integers(0, 4)


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_make_matches_gymnasium(kwargs):
    compare_single("Taxi-v4", kwargs, range(3), steps(600), uniform_policy(6))


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_deliveries_and_fickle_passengers_match_gymnasium(kwargs):
    results = compare_single("Taxi-v4", kwargs, range(3), steps(2000), driver, render=False)
    assert any(result[1] == 20 for _, result in results)
    # Only a fickle passenger changes destination (the last of the state's digits in base 4).
    changed = sum(result[0] % 4 != obs % 4 for obs, result in results)
    assert (changed > 0) == bool(kwargs.get("fickle_passenger"))


@pytest.mark.parametrize("kwargs", VARIANTS[:2] + VARIANTS[3:4])
def test_bare_class_matches_gymnasium_after_the_end_too(kwargs):
    compare_single("Taxi-v4", kwargs, range(2), steps(600), driver, bare=True)


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", VARIANTS)
def test_make_matches_gymnasium_long(kwargs):
    compare_single("Taxi-v4", kwargs, range(10), 3000, driver, render=False)
    compare_single("Taxi-v4", kwargs, range(10, 20), 3000, uniform_policy(6), render=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kwargs", VARIANTS[:2] + VARIANTS[3:4])
def test_vector_matches_gymnasium_sync(mode, kwargs):
    compare_vector("Taxi-v4", {**kwargs, "max_episode_steps": 40}, 6, mode, 5, steps(500), discrete_actions(6))


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_long(mode):
    compare_vector("Taxi-v4", VARIANTS[3], 64, mode, 99, 1500, discrete_actions(6))


def test_vector_renders_ansi_as_gymnasium_sync():
    compare_vector("Taxi-v4", {"is_rainy": True}, 3, "NextStep", 2, steps(100), discrete_actions(6), render=True)


@pytest.mark.jit_only
def test_vector_results_do_not_depend_on_the_number_of_threads():
    num_envs = SMALLEST_SHARED_BATCH + 1  # the smallest batch the stepping threads share
    runs = []
    for num_threads in [1, 2]:
        env = TaxiVectorEnv(num_envs, **VARIANTS[3], num_threads=num_threads, max_episode_steps=30)
        env.reset(seed=3)
        runs.append([env.step(a) for a in np.random.default_rng(0).integers(0, 6, (200, num_envs))])
    for a, b in zip(*runs):
        assert_same_value(a, b)


@pytest.mark.parametrize("kwargs", VARIANTS)
def test_tables_attributes_and_methods_match_gymnasium(kwargs):
    ours, theirs = TaxiEnv(**kwargs), gym_taxi.TaxiEnv(**kwargs)
    for name in [
        "P",
        "desc",
        "locs",
        "locs_colors",
        "max_row",
        "max_col",
        "initial_state_distrib",
        "metadata",
        "rainy_probability",
        "_rainy_lateral_probability",
        "fickle_probability",
        "fickle_passenger",
    ]:
        assert_same_value(getattr(ours, name), getattr(theirs, name), name)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    for state in range(500):
        assert_same_value(ours.action_mask(state), theirs.action_mask(state))
        assert_same_value(ours.decode(state), theirs.decode(state))
        assert ours.encode(*ours.decode(state)) == state
    vector = TaxiVectorEnv(2, **kwargs)
    assert_same_value(vector.P, theirs.P)


def test_float32_probabilities_compare_draws_in_float32():
    """numpy compares a draw with float32 probabilities in float32: probabilities that make it decide."""
    decided_fickle = decided_rain = 0
    for seed in range(40):
        draws = np.random.default_rng(seed)
        draws.random()  # the start's
        u = draws.random()
        fickle_probability = np.float32(u)
        decided_fickle += (u < fickle_probability) != (u < float(fickle_probability))
        kwargs = {"fickle_passenger": True, "fickle_probability": fickle_probability}
        ours, theirs = TaxiEnv(**kwargs), gym_taxi.TaxiEnv(**kwargs)
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        assert ours.fickle_step == bool(theirs.fickle_step)
        rainy_probability = np.float32(u)  # the first step's draw, without a fickle passenger
        decided_rain += (rainy_probability > u) != (float(rainy_probability) > u)
        kwargs = {"is_rainy": True, "rainy_probability": rainy_probability}
        ours, theirs = TaxiEnv(**kwargs), gym_taxi.TaxiEnv(**kwargs)
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        action = 0 if ours.decode(ours.s)[0] < 4 else 1
        assert_same_value(ours.step(action), theirs.step(action))
    assert decided_fickle > 0 and decided_rain > 0


def test_state_attributes_follow_the_episode():
    ours, theirs = TaxiEnv(fickle_passenger=True), gym_taxi.TaxiEnv(fickle_passenger=True)
    assert ours.lastaction is theirs.lastaction is None  # set when gymnasium's Taxi is made; ``s`` is not
    assert nbgym.make_vec("Taxi-v4", 2).get_attr("lastaction") == (None, None)
    with pytest.raises(AttributeError):
        ours.s
    for seed in range(20):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert ours.fickle_step == bool(theirs.fickle_step) and ours.lastaction is theirs.lastaction is None
        ours.step(3)
        theirs.step(3)
        assert (ours.s, ours.lastaction) == (theirs.s, theirs.lastaction)
    ours.s = theirs.s = ours.encode(0, 0, 0, 1)
    assert_same_value(ours.step(4), theirs.step(4))


def test_bad_states_and_arguments():
    ours, theirs = TaxiEnv(), gym_taxi.TaxiEnv()
    for state in [500, -1, 10**6]:
        assert_same_error(lambda: ours.action_mask(state), lambda: theirs.action_mask(state), same_message=False)
        assert_same_error(lambda: ours.decode(state), lambda: theirs.decode(state), same_message=False)
    for kwargs in [{"rainy_probability": 1.2}, {"fickle_probability": -0.5}, {"rainy_probability": "often"}]:
        with pytest.raises(ValueError, match="probability"):
            TaxiEnv(**kwargs)
        with pytest.raises(ValueError, match="probability"):
            TaxiVectorEnv(2, **kwargs)


@pytest.mark.parametrize("action", [6, -1, 2.5, None])  # 2.0 is the key 2 of gymnasium's P[s]
def test_invalid_actions_raise(action):
    env = nbgym.make("Taxi-v4")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)


def test_taxi_v3_is_deprecated_as_in_gymnasium():
    with pytest.warns(DeprecationWarning, match="Taxi-v3 is out of date") as warned:
        assert_same_error(lambda: nbgym.make("Taxi-v3"), lambda: gymnasium.make("Taxi-v3"))
    assert len(warned) == 2  # gymnasium's make warns so too
    env = nbgym.make_vec("Taxi-v4", 2)
    assert isinstance(env, TaxiVectorEnv) and env.max_episode_steps == 200
    assert "## Action Space" in TaxiEnv.__doc__ and "## References" in TaxiEnv.__doc__


def test_copies_continue_identically():
    env = TaxiEnv(is_rainy=True, fickle_passenger=True)
    env.reset(seed=1)
    copied = copy.deepcopy(env)
    for action in np.random.default_rng(2).integers(0, 6, 50):
        assert_same_value(copied.step(action), env.step(action))
