"""FrozenLake on the compiled engine against gymnasium 1.4.0: single env, vector env, maps, bit for bit."""

import copy
import pickle
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from helpers.common import MODES
from helpers.toy_text_checks import (
    INTERPRETED,
    assert_same_value,
    compare_single,
    compare_vector,
    discrete_actions,
    steps,
    uniform_policy,
)
from helpers.paths import ROOT
from gymnasium.envs.toy_text import frozen_lake as gym_frozen_lake
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
from nbgym import error
from nbgym.engine._threads import SMALLEST_SHARED_BATCH
from nbgym.envs.toy_text.frozen_lake import FrozenLakeEnv, FrozenLakeVectorEnv, generate_random_map

VARIANTS = [
    ("FrozenLake-v1", {}),
    ("FrozenLake-v1", {"is_slippery": False}),
    ("FrozenLake-v1", {"success_rate": 0.75, "reward_schedule": (1.0, -1, np.float32(0.5))}),
    ("FrozenLake-v1", {"success_rate": 1, "reward_schedule": (10, -10, -1)}),
    ("FrozenLake-v1", {"success_rate": 0.0}),
    ("FrozenLake-v1", {"desc": ["SFFS", "FHFH", "SFGH"]}),
    ("FrozenLake8x8-v1", {}),
    ("FrozenLake8x8-v1", {"desc": ["SFFFFFHFF", "FFHFFFFFF", "FFFFFHFFF", "FFFFFFFFG"] * 2 + ["FFFFFFFFG"]}),
]


@pytest.mark.parametrize("env_id, kwargs", VARIANTS)
def test_make_matches_gymnasium(env_id, kwargs):
    results = compare_single(env_id, kwargs, range(3), steps(1000), uniform_policy(4))
    assert any(result[2] for _, result in results)  # the run reached holes or the goal, not only frozen tiles


@pytest.mark.parametrize("env_id, kwargs", VARIANTS[:3] + VARIANTS[6:7])
def test_bare_class_matches_gymnasium_after_the_end_too(env_id, kwargs):
    """Holes and the goal are absorbing: steps after termination stay there, reward int 0, prob 1.0."""
    results = compare_single(env_id, kwargs, range(2), steps(500), uniform_policy(4), bare=True)
    assert any(result[2] and result[1] == 0 and type(result[1]) is int for _, result in results)


@pytest.mark.slow
@pytest.mark.parametrize("env_id, kwargs", VARIANTS)
def test_make_matches_gymnasium_long(env_id, kwargs):
    compare_single(env_id, kwargs, range(20), 3000, uniform_policy(4), render=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id, kwargs", VARIANTS[:3] + VARIANTS[6:7])
def test_vector_matches_gymnasium_sync(mode, env_id, kwargs):
    results = compare_vector(env_id, kwargs, 7, mode, 5, steps(600), discrete_actions(4))
    # The int reset prob of the first sub-environment made the batched prob an int array at some steps.
    if mode == "NextStep" and kwargs.get("is_slippery", True):
        assert any(result[4]["prob"].dtype == np.int64 for result in results)
        assert any(result[4]["prob"].dtype == np.float64 for result in results)


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_long(mode):
    compare_vector("FrozenLake8x8-v1", {"success_rate": 0.6}, 64, mode, 123, 2000, discrete_actions(4))


def test_vector_renders_ansi_as_gymnasium_sync():
    compare_vector("FrozenLake-v1", {}, 3, "SameStep", 2, steps(100), discrete_actions(4), render=True)


def test_vector_seed_lists_match_gymnasium():
    ours = nbgym.make_vec("FrozenLake-v1", 4)
    theirs = gymnasium.make_vec("FrozenLake-v1", 4, vectorization_mode="sync")
    for seed in [[1, 2, 3, 4], [5, None, 7, None]]:
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        for actions in np.random.default_rng(0).integers(0, 4, (30, 4)):
            assert_same_value(ours.step(actions), theirs.step(actions))


@pytest.mark.jit_only
def test_vector_results_do_not_depend_on_the_number_of_threads():
    num_envs = SMALLEST_SHARED_BATCH + 1  # the smallest batch the stepping threads share
    runs = []
    for num_threads in [1, 2]:
        env = FrozenLakeVectorEnv(num_envs, map_name="8x8", num_threads=num_threads, autoreset_mode="SameStep")
        env.reset(seed=3)
        runs.append([env.step(a) for a in np.random.default_rng(0).integers(0, 4, (200, num_envs))])
    for a, b in zip(*runs):
        assert_same_value(a, b)


@settings(max_examples=50 if not INTERPRETED else 10, deadline=None)
@given(
    rows=st.lists(st.text("SFHG", min_size=6, max_size=6), min_size=1, max_size=8),
    width=st.integers(2, 6),
    success_rate=st.floats(0, 1),
    seed=st.integers(0, 2**32),
)
def test_any_lake_matches_gymnasium(rows, width, success_rate, seed):
    """Random maps (several starts, holes and goals anywhere, any rectangle up to 64 tiles)."""
    desc = [row[:width] for row in rows]
    desc[0] = "S" + desc[0][1:]
    desc[-1] = desc[-1][:-1] + "G"
    kwargs = {"desc": desc, "success_rate": success_rate}
    ours = FrozenLakeEnv(render_mode="ansi", **kwargs)
    theirs = gym_frozen_lake.FrozenLakeEnv(render_mode="ansi", **kwargs)
    assert_same_value(ours.P, theirs.P)
    assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
    for action in np.random.default_rng(seed).integers(0, 4, 60):
        assert_same_value(ours.step(action), theirs.step(action))
        assert ours.render() == theirs.render()


def test_float32_success_rates_compare_draws_in_float32():
    """numpy compares a draw with float32 probabilities in float32: success rates that make it decide a step."""
    decided = 0
    for seed in range(80):
        draws = np.random.default_rng(seed)
        draws.random()  # the reset's
        u = draws.random()
        if u >= 0.5:  # the first outcome's probability, (1 - success_rate) / 2, is u
            continue
        success_rate = np.float32(1 - 2 * u)
        fail_rate = (1.0 - success_rate) / 2.0
        decided += (fail_rate > u) != (float(fail_rate) > u)
        ours = FrozenLakeEnv(success_rate=success_rate)
        theirs = gym_frozen_lake.FrozenLakeEnv(success_rate=success_rate)
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed))
        assert_same_value(ours.step(1), theirs.step(1))
    assert decided > 0
    with pytest.raises(ValueError, match="float64 or float32"):
        FrozenLakeEnv(success_rate=np.float16(0.5))


@pytest.mark.parametrize("kwargs", [{}, {"map_name": "8x8", "is_slippery": False}, {"reward_schedule": (5, -1.5, 0)}])
def test_attributes_spaces_and_metadata_match_gymnasium(kwargs):
    ours, theirs = FrozenLakeEnv(**kwargs), gym_frozen_lake.FrozenLakeEnv(**kwargs)
    for name in ["desc", "nrow", "ncol", "reward_range", "initial_state_distrib", "P", "metadata"]:
        assert_same_value(getattr(ours, name), getattr(theirs, name), name)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    ours.reset(seed=1)
    theirs.reset(seed=1)
    assert ours.lastaction is theirs.lastaction is None
    ours.step(2)
    theirs.step(2)
    assert (ours.s, ours.lastaction) == (theirs.s, theirs.lastaction)
    vector = FrozenLakeVectorEnv(2, **kwargs)
    for name in ["desc", "nrow", "ncol", "reward_range", "P"]:
        assert_same_value(getattr(vector, name), getattr(theirs, name), name)


def test_docstring_and_make_vec_entry_point():
    assert "## Observation Space" in FrozenLakeEnv.__doc__ and "## Version History" in FrozenLakeEnv.__doc__
    env = nbgym.make_vec("FrozenLake8x8-v1", 3)
    assert isinstance(env, FrozenLakeVectorEnv) and env.max_episode_steps == 200 and env.nrow == 8


def test_setting_s_moves_the_agent_as_in_gymnasium():
    ours, theirs = FrozenLakeEnv(), gym_frozen_lake.FrozenLakeEnv()
    ours.reset(seed=0)
    theirs.reset(seed=0)
    ours.s = theirs.s = 14
    assert_same_value(ours.step(2), theirs.step(2))
    with pytest.raises(ValueError, match="state of Discrete"):
        ours.s = 16


def test_copies_and_pickles_continue_identically():
    """A pickled lake steps on in a fresh process, where its record type (capacity 128) was never made."""
    env = FrozenLakeEnv(desc=generate_random_map(9, seed=1))
    env.reset(seed=4)
    for action in range(4):
        env.step(action)
    copied, data = copy.deepcopy(env), pickle.dumps(env)
    actions = np.random.default_rng(0).integers(0, 4, 40).tolist()
    expected = [env.step(action) for action in actions]
    assert [copied.step(action) for action in actions] == expected
    script = f"import pickle, sys; env = pickle.loads(sys.stdin.buffer.read()); print([env.step(a) for a in {actions}])"
    run = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, check=True, cwd=ROOT)
    assert run.stdout.decode().strip() == repr(expected)
    vector = FrozenLakeVectorEnv(3, map_name="8x8")
    vector.reset(seed=2)
    vector_copy = copy.deepcopy(vector)
    for batch in np.random.default_rng(1).integers(0, 4, (20, 3)):
        assert_same_value(vector_copy.step(batch), vector.step(batch))


@pytest.mark.parametrize(
    "size, p, seed", [(8, 0.8, 0), (8, 0.8, 1), (4, 0.5, 7), (5, 0.3, 42), (12, 0.9, 3), (3, 2.0, 5), (2, 0.6, 9)]
)
def test_generate_random_map_matches_gymnasium(size, p, seed):
    assert generate_random_map(size, p, seed) == gym_frozen_lake.generate_random_map(size, p, seed)


def test_generate_random_map_unseeded_and_random_env_map():
    board = generate_random_map()
    assert len(board) == 8 and all(len(row) == 8 for row in board) and board[0][0] == "S" and board[-1][-1] == "G"
    env = FrozenLakeEnv(map_name=None)
    assert env.desc.shape == (8, 8)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"desc": ["SFF", "FG"]}, "equally long"),
        ({"desc": ["SFX", "FFG"]}, "letters S, F, H, G"),
        ({"desc": ["FFF", "FFG"]}, "start"),
        ({"desc": ["SFF", "FFH"]}, "goal"),
        ({"desc": []}, "non-empty"),
        ({"success_rate": 1.5}, r"\[0, 1\]"),
        ({"success_rate": -0.1}, r"\[0, 1\]"),
        ({"success_rate": float("nan")}, r"\[0, 1\]"),
        ({"success_rate": "high"}, "probability"),
        ({"reward_schedule": (1, 0)}, "three numbers"),
        ({"reward_schedule": ("a", 0, 0)}, "three numbers"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FrozenLakeEnv(**kwargs)
    with pytest.raises(ValueError, match=match):
        FrozenLakeVectorEnv(2, **kwargs)


def test_unknown_map_name_and_bad_random_maps():
    with pytest.raises(KeyError, match="4x4"):
        FrozenLakeEnv(map_name="5x5")
    with pytest.raises(KeyError):
        gym_frozen_lake.FrozenLakeEnv(map_name="5x5")
    for size in [1, 0, 2.5]:
        with pytest.raises(ValueError, match="size"):
            generate_random_map(size)
    with pytest.raises(ValueError, match="positive"):
        generate_random_map(4, p=0.0)


@pytest.mark.parametrize("action", [4, -1, 1.5, None, np.array([1])])
def test_invalid_actions_raise(action):
    env = nbgym.make("FrozenLake-v1")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)
    vector = FrozenLakeVectorEnv(2)
    vector.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        vector.step(np.array([0, 4]))


def test_pixel_render_modes_are_the_engines():
    env = FrozenLakeEnv(render_mode=None)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 7).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.sampled_from("FHSG"), min_size=n * n, max_size=n * n))
    ),
    st.booleans(),
)
def test_is_valid_is_gymnasiums(board, as_array):
    """The module's ``is_valid(board, max_size)``: gymnasium's answer for random boards (lists of lists or arrays), and
    searched within ``max_size`` as gymnasium searches."""
    from nbgym.envs.toy_text.frozen_lake import is_valid

    size, cells = board
    rows = [cells[k * size : (k + 1) * size] for k in range(size)]
    board = np.array(rows) if as_array else rows
    for max_size in range(1, size + 1):
        assert is_valid(board, max_size) == gym_frozen_lake.is_valid(board, max_size), (rows, max_size)
