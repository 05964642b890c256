"""Silent wrong results found by the hardening review (issue 13), each compared with gymnasium 1.4.0.

Seeds of the compiled vector envs (``np_random_seed``), reset options rejected before any stream
moves, live state attributes (single and vector), NaN propagation and overflow in the kernels, and
Python-list actions of the vector envs.
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import nbgym

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def sync_vector_pair(env_id: str, num_envs: int, **kwargs: Any) -> tuple[Any, Any]:
    """nbgym's compiled vector env and gymnasium's sync vector env of ``env_id`` (``kwargs``: the env's)."""
    ours = nbgym.make_vec(env_id, num_envs, **kwargs)
    theirs = gymnasium.make_vec(env_id, num_envs, vectorization_mode="sync", **kwargs)
    return ours, theirs


# --- np_random_seed of a compiled vector env ---------------------------------------------------------


def test_vector_np_random_seed_follows_seeded_resets_like_sync() -> None:
    ours, theirs = sync_vector_pair("Pendulum-v1", 3)
    for seed in (42, [1, None, 3], None, [None, None, None], 2**64 - 2, [2**100, 5, 2**130]):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert ours.np_random_seed == theirs.np_random_seed, seed
    ours.reset(seed=7, options={"reset_mask": np.array([True, False, True])})
    theirs.reset(seed=7, options={"reset_mask": np.array([True, False, True])})
    assert ours.np_random_seed == theirs.np_random_seed == (7, 5, 9)
    ours.step(np.zeros((3, 1), dtype=np.float32))
    theirs.step(np.zeros((3, 1), dtype=np.float32))
    assert ours.np_random_seed == theirs.np_random_seed  # autoreset and steps keep the seeds


def test_vector_np_random_seed_of_unseeded_streams_is_their_entropy() -> None:
    # gymnasium reports the OS entropy of an unseeded env's SeedSequence: reseeding with it replays the stream.
    ours = nbgym.make_vec("CartPole-v1", 2)
    seeds = ours.np_random_seed
    assert all(type(seed) is int and 0 <= seed < 2**128 for seed in seeds) and seeds[0] != seeds[1]
    first_obs, _ = ours.reset()
    assert ours.np_random_seed == seeds  # an unseeded reset keeps them, as gymnasium's sync env does
    replayed, _ = nbgym.make_vec("CartPole-v1", 2).reset(seed=list(seeds))
    np.testing.assert_array_equal(first_obs, replayed)


# --- reset options are validated before anything is reseeded ---------------------------------------


@pytest.mark.parametrize(
    ("env_id", "options", "exception"),
    [
        ("CartPole-v1", {"low": 1.0, "high": -1.0}, ValueError),
        ("Pendulum-v1", {"x_init": "left"}, ValueError),
        ("MountainCar-v0", {"low": -np.inf}, OverflowError),
    ],
)
def test_rejected_reset_options_reseed_nothing(env_id: str, options: dict[str, Any], exception: type) -> None:
    vector = nbgym.make_vec(env_id, 2)
    vector.reset(seed=1)
    seeds, streams = vector.np_random_seed, vector._batch.pcg.copy()
    with pytest.raises(exception):
        vector.reset(seed=99, options=dict(options))
    assert vector.np_random_seed == seeds
    np.testing.assert_array_equal(vector._batch.pcg, streams)

    single = nbgym.make(env_id).unwrapped
    single.reset(seed=1)
    state = single.np_random.bit_generator.state
    with pytest.raises(exception):
        single.reset(seed=99, options=dict(options))
    assert single.np_random.bit_generator.state == state and single.np_random_seed == 1


# --- NaN goes through the clips as through numpy's ---------------------------------------------------


def _same_steps(ours: Any, theirs: Any, actions: list[Any]) -> None:
    for action in actions:
        expected = theirs.step(action)
        result = ours.step(action)
        for mine, their in zip(result[:4], expected[:4]):
            assert type(mine) is type(their)
            np.testing.assert_array_equal(mine, their)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "state", "actions"),
    [
        ("Pendulum-v1", {"g": float("nan")}, None, [np.array([0.5], dtype=np.float32)] * 3),
        ("Pendulum-v1", {}, np.array([0.3, np.nan]), [np.array([0.5], dtype=np.float32)] * 3),
        ("Pendulum-v1", {}, np.array([np.nan, 1.0]), [np.array([-2.5], dtype=np.float32)] * 2),
        ("MountainCar-v0", {}, np.array([-0.5, np.nan]), [2, 0]),
        ("MountainCar-v0", {}, np.array([np.nan, 0.01]), [1, 1]),
        ("MountainCarContinuous-v0", {}, np.array([-0.5, np.nan]), [np.array([0.5], dtype=np.float32)] * 2),
        ("Acrobot-v1", {}, np.array([0.1, 0.2, np.nan, 0.0]), [0, 2]),
    ],
)
def test_nan_state_or_parameter_propagates_like_gymnasium(env_id, kwargs, state, actions) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours, theirs = nbgym.make(env_id, **kwargs).unwrapped, gymnasium.make(env_id, **kwargs).unwrapped
        ours.reset(seed=3)
        theirs.reset(seed=3)
        if state is not None:
            ours.state = state.copy()
            theirs.state = state.copy()
        _same_steps(ours, theirs, actions)
        assert np.isnan(ours.state).any()


def test_nan_parameter_propagates_in_the_vector_env() -> None:
    ours, theirs = sync_vector_pair("Pendulum-v1", 2, g=float("nan"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_array_equal(ours.reset(seed=5)[0], theirs.reset(seed=5)[0])
        actions = np.full((2, 1), 0.25, dtype=np.float32)
        for _ in range(2):
            expected, result = theirs.step(actions), ours.step(actions)
            for mine, their in zip(result[:4], expected[:4]):
                np.testing.assert_array_equal(mine, their)
        assert np.isnan(result[0][:, 2]).all()


# --- overflow raises where gymnasium's does ---------------------------------------------------------


@pytest.mark.parametrize("action", [np.array([1e200]), [1e200], np.array([-2e154]), [-1.5e154]])
def test_continuous_mountain_car_overflowing_action_raises_like_gymnasium(action: Any) -> None:
    ours, theirs = (
        nbgym.make("MountainCarContinuous-v0").unwrapped,
        gymnasium.make("MountainCarContinuous-v0").unwrapped,
    )
    ours.reset(seed=0)
    theirs.reset(seed=0)
    with pytest.raises(OverflowError):
        theirs.step(action)
    state = ours.state
    with pytest.raises(OverflowError, match="OverflowError"):
        ours.step(action)
    np.testing.assert_array_equal(ours.state, state)  # nothing moved
    # Just below the overflow, and an infinite action (math.pow(inf, 2) is inf), step as in gymnasium.
    _same_steps(ours, theirs, [np.array([1.3e154]), np.array([np.inf], dtype=np.float32), [-1e150]])


def test_continuous_mountain_car_vector_overflowing_action_raises() -> None:
    ours, theirs = sync_vector_pair("MountainCarContinuous-v0", 2)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    actions = np.array([[0.5], [1e200]])
    with pytest.raises(OverflowError):
        theirs.step(actions)
    with pytest.raises(OverflowError, match="Sub-environment 1"):
        ours.step(actions)
    with pytest.raises(nbgym.error.InvalidAction):
        ours.step(np.array([[0.5], [np.nan]]))


# --- Python-list actions of a vector env: each sub-env sees its element, as in gymnasium's sync env --


def _list_actions(rng: np.random.Generator, kind: str) -> Any:
    values = rng.uniform(-1.2, 1.2, size=2)
    if kind == "lists":
        return [[float(values[0])], [float(values[1])]]
    if kind == "tuples":
        return ((float(values[0]),), (float(values[1]),))
    if kind == "ints":
        return [[int(values[0] > 0)], [-1]]
    if kind == "float32 rows":
        return [values[:1].astype(np.float32), values[1:].astype(np.float32)]
    return [[np.float64(values[0])], [np.float64(values[1])]]


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
@pytest.mark.parametrize("kind", ["lists", "tuples", "ints", "float32 rows", "numpy scalars"])
def test_vector_python_list_actions_match_gymnasium(mode: str, kind: str) -> None:
    env_id = "MountainCarContinuous-v0"
    ours = nbgym.make_vec(env_id, 2, autoreset_mode=mode, max_episode_steps=40)
    theirs = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make(env_id, max_episode_steps=40)] * 2, autoreset_mode=gymnasium.vector.AutoresetMode(mode)
    )
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(ours.reset(seed=4)[0], theirs.reset(seed=4)[0])
    for t in range(90):
        actions = _list_actions(rng, kind)
        expected, result = theirs.step(actions), ours.step(actions)
        for mine, their in zip(result[:4], expected[:4]):
            assert mine.dtype == their.dtype
            np.testing.assert_array_equal(mine, their, err_msg=f"step {t}")
        if mode == "Disabled" and (expected[2] | expected[3]).any():
            mask = expected[2] | expected[3]
            np.testing.assert_array_equal(
                ours.reset(options={"reset_mask": mask.copy()})[0], theirs.reset(options={"reset_mask": mask.copy()})[0]
            )
    # A float64 array after the lists is float64 arithmetic again, in both.
    for _ in range(3):
        actions = rng.uniform(-1, 1, size=(2, 1))
        np.testing.assert_array_equal(ours.step(actions)[0], theirs.step(actions)[0])


def test_vector_actions_of_mixed_kinds_are_refused() -> None:
    ours = nbgym.make_vec("Pendulum-v1", 2)
    ours.reset(seed=0)
    with pytest.raises(nbgym.error.InvalidAction, match="one kind"):
        ours.step([np.array([0.1], dtype=np.float32), [0.2]])


# --- live state attributes -----------------------------------------------------------------------------

F32 = np.array([0.3], dtype=np.float32)

STATE_CASES = {
    # env id: (attribute, an action, values to assign (each then stepped), an in-place change of a read value)
    "CartPole-v1": (
        "state",
        1,
        [np.array([0.1, 0.0, -0.05, 0.2]), [0.0, 1.0, 0.1, -1.0], (0.0, 0.0, 0.0, 0.0)],
        lambda value: value.__setitem__(2, 0.19),
    ),
    "Pendulum-v1": ("state", F32, [np.array([3.0, -2.0]), np.array([0, 1])], lambda value: value.__setitem__(1, 7.9)),
    "MountainCar-v0": (
        "state",
        2,
        [np.array([0.49, 0.02]), [-1.19, -0.06], (0.3, 0.05)],
        lambda value: value.__setitem__(0, 0.45),
    ),
    "MountainCarContinuous-v0": (
        "state",
        F32,
        [np.array([0.44, 0.05]), [-0.5, 0.0], np.array([0.4, 0.01], np.float32)],
        lambda value: value.__setitem__(1, 0.069),
    ),
    "Acrobot-v1": (
        "state",
        0,
        [np.array([3.0, -3.0, 1.0, 2.0]), np.array([0.1, 0.2, 0.3, 0.4], np.float32), [1, 2, 3, 4]],
        lambda value: value.__setitem__(0, 2.5),
    ),
    "FrozenLake-v1": ("s", 2, [14, np.int64(6)], None),
    "Taxi-v4": ("s", 4, [328, np.int64(17)], None),
    "CliffWalking-v1": ("s", 0, [35, np.int64(25)], None),
    "Blackjack-v1": ("player", 1, [[1, 10], [10, 5, 6], [2, 2]], lambda value: value.append(1)),
}


def _unwrapped_pair(env_id: str) -> tuple[Any, Any]:
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    ours.reset(seed=5)
    theirs.reset(seed=5)
    return ours, theirs


@pytest.mark.parametrize("env_id", list(STATE_CASES))
def test_state_attribute_reads_are_gymnasiums(env_id: str) -> None:
    name, action, _, _ = STATE_CASES[env_id]
    ours, theirs = _unwrapped_pair(env_id)
    for t in range(3):
        assert_same_value(getattr(ours, name), getattr(theirs, name), f"{name} after {t} steps")
        assert getattr(ours, name) is getattr(ours, name)  # one object, as gymnasium's attribute
        assert_same_value(ours.step(action), theirs.step(action), f"step {t}")


@pytest.mark.parametrize("env_id", list(STATE_CASES))
def test_state_attribute_writes_step_as_gymnasium(env_id: str) -> None:
    name, action, values, _ = STATE_CASES[env_id]
    ours, theirs = _unwrapped_pair(env_id)
    for value in values:
        setattr(ours, name, value)
        setattr(theirs, name, copy.deepcopy(value))  # not the same object: Blackjack's steps extend it
        assert getattr(ours, name) is value  # the env holds the object assigned, as gymnasium's does
        assert_same_value(ours.step(action), theirs.step(action), f"after {name} = {value!r}")
        assert_same_value(getattr(ours, name), getattr(theirs, name))


@pytest.mark.parametrize("env_id", [env_id for env_id, case in STATE_CASES.items() if case[3] is not None])
def test_in_place_changes_reach_the_next_step_and_reads_are_then_snapshots(env_id: str) -> None:
    name, action, _, change = STATE_CASES[env_id]
    ours, theirs = _unwrapped_pair(env_id)
    held_ours, held_theirs = getattr(ours, name), getattr(theirs, name)
    change(held_ours)
    change(held_theirs)
    assert_same_value(ours.step(action), theirs.step(action))
    assert_same_value(getattr(ours, name), getattr(theirs, name))
    # After the step the old value is the env's no longer: changing it changes nothing.
    change(held_ours)
    change(held_theirs)
    assert_same_value(ours.step(action), theirs.step(action))


def test_other_toy_text_attributes_are_live() -> None:
    ours = nbgym.make("Taxi-v4", render_mode="ansi").unwrapped
    theirs = gymnasium.make("Taxi-v4", render_mode="ansi").unwrapped
    ours.reset(seed=5)
    theirs.reset(seed=5)
    ours.lastaction = theirs.lastaction = 3
    ours.s = theirs.s = 123
    assert ours.render() == theirs.render()
    ours, theirs = (
        nbgym.make("Taxi-v4", fickle_passenger=True).unwrapped,
        gymnasium.make("Taxi-v4", fickle_passenger=True).unwrapped,
    )
    for seed in range(4):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        ours.fickle_step = theirs.fickle_step = True
        ours.s = theirs.s = ours.encode(2, 2, 4, 0)  # passenger on board
        for action in (0, 0, 1):
            assert_same_value(ours.step(action), theirs.step(action))
        assert ours.fickle_step == theirs.fickle_step


@pytest.mark.parametrize(
    ("env_id", "name", "value", "match"),
    [
        ("CartPole-v1", "state", np.zeros(4, dtype=np.float32), "float32"),
        ("CartPole-v1", "state", np.zeros(3), "4 real numbers"),
        ("CartPole-v1", "state", ["a", "b", "c", "d"], "4 real numbers"),
        ("CartPole-v1", "state", np.zeros(4, dtype=np.float16), "float16"),
        ("Pendulum-v1", "state", [0.1, 0.2], "Python numbers"),
        ("Pendulum-v1", "state", np.array([0, 2**63], dtype=np.uint64), "wraps around beyond 4294967295"),
        ("CartPole-v1", "state", np.array([0, 0, 0, -46341], dtype=np.int32), "wraps around beyond 46340"),
        ("MountainCar-v0", "state", np.array([65536, 0], dtype=np.uint32), "wraps around beyond 65535"),
        ("CartPole-v1", "state", np.zeros(4, dtype=np.int8), "take int8 values as float16"),
        ("Pendulum-v1", "state", np.zeros(2, dtype=np.uint16), "take uint16 values as float32"),
        ("MountainCarContinuous-v0", "state", [2**32, 0], "wraps around beyond 3037000499"),
        ("MountainCar-v0", "state", np.zeros(2, dtype=np.float32), "float32"),
        ("MountainCar-v0", "state", [np.inf, 0.0], "math domain error"),
        ("MountainCarContinuous-v0", "state", [-np.inf, 0.0], "math domain error"),
        ("MountainCarContinuous-v0", "state", np.array([2e38, 0.0], dtype=np.float32), "math domain error"),
        ("MountainCar-v0", "state", [1e308, 0.0], "math domain error"),
        ("Acrobot-v1", "state", [np.inf, 0.0, 0.0, 0.0], "never ends"),
        ("FrozenLake-v1", "s", 16, "Discrete\\(16\\)"),
        ("Taxi-v4", "s", 2.0, "Discrete\\(500\\)"),
        ("Taxi-v4", "lastaction", 6, "None or an action"),
        ("Blackjack-v1", "player", [11], "from 1 \\(an ace\\) to 10"),
        ("Blackjack-v1", "dealer", (10, 2), "must be a list"),
        ("Blackjack-v1", "dealer", [], "one to 32"),
        ("Blackjack-v1", "player", [1] * 33, "one|no to 32"),
    ],
)
def test_state_values_the_kernels_cannot_step_exactly_are_refused(env_id, name, value, match) -> None:
    env = nbgym.make(env_id).unwrapped
    env.reset(seed=0)
    before = copy_of(getattr(env, name))
    with pytest.raises(ValueError, match=match):
        setattr(env, name, value)
    assert_same_value(getattr(env, name), before)


@pytest.mark.parametrize(
    ("env_id", "state", "action"),
    [
        ("CartPole-v1", np.array([1, -1, 0, -46340], dtype=np.int32), 1),
        ("CartPole-v1", np.array([0, 2, 0, 3037000499], dtype=np.int64), 0),
        ("Pendulum-v1", np.array([3, 4294967295], dtype=np.uint64), F32),
        ("Pendulum-v1", np.array([-1, -46340], dtype=np.int32), F32),
        ("MountainCar-v0", np.array([-46340, 0], dtype=np.int32), 2),
        ("MountainCarContinuous-v0", np.array([65535, 1], dtype=np.uint32), F32),
        ("Acrobot-v1", np.array([1, 2, -3, 30], dtype=np.int32), 0),
    ],
)
def test_integer_states_whose_squares_fit_their_dtype_step_as_gymnasium(env_id, state, action) -> None:
    """The largest integers gymnasium's integer arithmetic takes without wrapping (the bound the refusals above use)."""
    ours, theirs = _unwrapped_pair(env_id)
    ours.state, theirs.state = state.copy(), state.copy()
    for step in range(2):
        assert_same_value(ours.step(action), theirs.step(action), f"step {step} from {state!r}")


def test_an_acrobot_angle_gymnasium_would_wrap_for_hours_is_refused() -> None:
    """A written velocity so large that the next angle is beyond 2**30 turns: gymnasium's step subtracts 2 pi until the
    angle is in [-pi, pi] (hours; forever beyond ~2.8e16, where the subtraction changes nothing). nbgym's refuses at
    once, and the env then refuses to step until a reset, as after any fault of its physics."""
    env = nbgym.make("Acrobot-v1").unwrapped
    env.reset(seed=0)
    env.state = np.array([1.0, 2.0, 3.0, 46340.0])
    with pytest.raises(ValueError, match="beyond 2\\*\\*30 turns"):
        env.step(0)
    with pytest.raises(nbgym.error.ResetNeeded, match="Call reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(0)


def test_a_held_value_changed_into_a_refused_one_fails_the_next_step_clearly() -> None:
    env = nbgym.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    env.state = [0.0, 0.0, 0.0, 0.0]
    env.state.append(1.0)
    with pytest.raises(ValueError, match="4 real numbers"):
        env.step(0)


def test_copies_and_pickles_keep_held_changes() -> None:
    env = nbgym.make("CartPole-v1").unwrapped
    env.reset(seed=0)
    reference = copy.deepcopy(env)
    env.state[0] = 1.5
    reference.state = np.array([1.5, *reference.state[1:]])
    expected = reference.step(0)
    for other in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert other.state[0] == 1.5
        assert_same_value(other.step(0), expected)


def copy_of(value: Any) -> Any:
    return value.copy() if isinstance(value, (np.ndarray, list)) else value


def assert_same_value(ours: Any, theirs: Any, where: str = "") -> None:
    from helpers.toy_text_checks import assert_same_value as same

    same(ours, theirs, where)


# --- get_attr / set_attr of the compiled vector envs, against gymnasium's SyncVectorEnv ------------------


@pytest.mark.parametrize("env_id", list(STATE_CASES))
def test_vector_get_attr_and_set_attr_are_live(env_id: str) -> None:
    name, action, values, change = STATE_CASES[env_id]
    ours, theirs = sync_vector_pair(env_id, 3)
    ours.reset(seed=8)
    theirs.reset(seed=8)
    actions = np.array([action] * 3)
    assert_same_value(ours.get_attr(name), theirs.get_attr(name))
    per_env = [values[i % len(values)] for i in range(3)]
    ours.set_attr(name, copy.deepcopy(per_env))
    theirs.set_attr(name, copy.deepcopy(per_env))
    assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])
    assert_same_value(ours.get_attr(name), theirs.get_attr(name))
    if change is not None and not isinstance(theirs.get_attr(name)[1], tuple):  # MountainCar's step makes a tuple
        change(ours.get_attr(name)[1])
        change(theirs.get_attr(name)[1])
    if not isinstance(values[0], (list, tuple)):  # which set_attr would take for one value per sub-environment
        ours.set_attr(name, values[0])  # one value for every sub-environment
        theirs.set_attr(name, copy.deepcopy(values[0]))
    for _ in range(2):
        assert_same_value(ours.step(actions)[:4], theirs.step(actions)[:4])
    assert_same_value(ours.get_attr(name), theirs.get_attr(name))


def test_vector_get_attr_of_parameters_and_seeds() -> None:
    ours, theirs = sync_vector_pair("CartPole-v1", 2)
    ours.reset(seed=3)
    theirs.reset(seed=3)
    for name in ("gravity", "kinematics_integrator", "np_random_seed", "x_threshold"):
        assert ours.get_attr(name) == theirs.get_attr(name)
    ours.set_attr("gravity", 12.0)
    theirs.set_attr("gravity", 12.0)
    assert_same_value(ours.step(np.array([1, 0]))[:4], theirs.step(np.array([1, 0]))[:4])
    with pytest.raises(ValueError, match="shared by all sub-environments"):
        ours.set_attr("gravity", [9.8, 12.0])
    with pytest.raises(ValueError, match="one value per sub-environment|length"):
        ours.set_attr("state", [np.zeros(4)])
    with pytest.raises(AttributeError, match="no attribute"):
        ours.get_attr("no_such_attribute")
    with pytest.raises(ValueError, match="float32"):
        ours.set_attr("state", [np.zeros(4), np.zeros(4, dtype=np.float32)])
    assert ours.get_attr("gravity") == (12.0, 12.0)


@pytest.mark.parametrize("env_id", list(STATE_CASES))
def test_state_attributes_before_the_first_reset_are_gymnasiums(env_id: str) -> None:
    name = STATE_CASES[env_id][0]
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    if hasattr(theirs, name):
        assert_same_value(getattr(ours, name), getattr(theirs, name))
    else:
        with pytest.raises(AttributeError, match="before its first reset"):
            getattr(ours, name)


@pytest.mark.parametrize("mode", ["NextStep", "SameStep", "Disabled"])
def test_cartpole_vector_steps_beyond_terminated_is_sync_envs(mode: str) -> None:
    ours = nbgym.make_vec("CartPole-v1", 3, autoreset_mode=mode)
    theirs = gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    assert ours.get_attr("steps_beyond_terminated") == theirs.get_attr("steps_beyond_terminated")
    ours.reset(seed=2)
    theirs.reset(seed=2)
    actions = np.array([1, 1, 0])
    terminations = 0
    for _ in range(40):
        expected = theirs.step(actions)
        ours.step(actions)
        assert ours.get_attr("steps_beyond_terminated") == theirs.get_attr("steps_beyond_terminated")
        terminations += int(expected[2].sum())
        if mode == "Disabled" and expected[2].any():
            mask = expected[2].copy()
            ours.reset(options={"reset_mask": mask.copy()})
            theirs.reset(options={"reset_mask": mask})
            assert ours.get_attr("steps_beyond_terminated") == theirs.get_attr("steps_beyond_terminated")
    assert terminations > 0


def test_pendulum_last_u_reads_and_writes_as_gymnasiums() -> None:
    ours, theirs = _unwrapped_pair("Pendulum-v1")
    for action in (None, np.array([3.0], dtype=np.float32), np.array([-0.5])):
        if action is not None:
            ours.step(action)
            theirs.step(action)
        assert_same_value(ours.last_u, theirs.last_u)
    for value in (np.float32(1.25), -0.5, None):
        ours.last_u = theirs.last_u = value
        assert_same_value(ours.last_u, theirs.last_u)
    with pytest.raises(ValueError, match="last_u must be None or a number"):
        ours.last_u = "left"
    ours.reset(seed=1)
    assert ours.last_u is None


@pytest.mark.parametrize(
    ("env_id", "state"),
    [
        ("MountainCar-v0", [1e308, 0.0]),
        ("MountainCar-v0", [np.inf, 0.0]),
        ("MountainCarContinuous-v0", np.array([2e38, 0.0], dtype=np.float32)),
    ],
)
def test_mountain_car_positions_whose_cosine_gymnasium_cannot_take(env_id: str, state: Any) -> None:
    theirs = gymnasium.make(env_id).unwrapped
    theirs.reset(seed=0)
    theirs.state = state
    with pytest.raises(ValueError, match="math domain error"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs.step(theirs.action_space.sample())
    ours = nbgym.make(env_id).unwrapped
    ours.reset(seed=0)
    with pytest.raises(ValueError, match="math domain error"):
        ours.state = state


@pytest.mark.parametrize(
    ("env_id", "name", "value"),
    [
        ("FrozenLake-v1", "nrow", 5),
        ("Taxi-v4", "fickle_probability", 0.5),
        ("CliffWalking-v1", "is_slippery", True),
        ("FrozenLake-v1", "ncol", 5),
    ],
)
def test_an_attribute_nbgym_computes_refuses_assignment_saying_what_to_do(
    env_id: str, name: str, value: object
) -> None:
    """gymnasium's env has these as plain attributes; nbgym's are computed, and Python's own refusal ("property
    'nrow' of 'FrozenLakeEnv' object has no setter") said nothing of what to do."""
    env = nbgym.make(env_id).unwrapped
    with pytest.raises(AttributeError, match=f"{name} of {type(env).__name__} cannot be assigned: .* Make a new"):
        setattr(env, name, value)
    envs = nbgym.make_vec(env_id, 2)
    with pytest.raises(AttributeError, match=f"{name} of {type(envs).__name__} cannot be assigned"):
        envs.set_attr(name, value)


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "FrozenLake-v1"])
def test_an_assigned_private_np_random_is_the_kernels_stream(env_id: str) -> None:
    """``env.unwrapped._np_random = generator`` (gymnasium's storage of ``np_random``) drives the next unseeded reset
    and the random steps, as in gymnasium: the kernels kept drawing from the generator they were bound to."""
    seen = []
    for library in (nbgym, gymnasium):
        env = library.make(env_id)
        env.reset(seed=0)
        generator = np.random.default_rng(123)
        env.unwrapped._np_random = generator
        assert env.unwrapped._np_random is generator and env.unwrapped.np_random_seed == 0
        env.action_space.seed(1)
        trace = [np.asarray(env.reset()[0]).tolist()]
        trace += [env.step(env.action_space.sample())[:2] for _ in range(20)]
        seen.append(repr(trace))
    assert seen[0] == seen[1]


def test_a_private_np_random_of_none_draws_a_new_stream_safely() -> None:
    env = nbgym.make("Pendulum-v1").unwrapped
    env.reset(seed=0)
    env._np_random = None
    assert env._np_random is None
    env.step(np.zeros(1, dtype=np.float32))  # the last generator's memory is still held
    env.reset()
    assert env._np_random is not None and env.np_random_seed not in (0, -1)


def test_an_unseeded_first_reset_records_the_os_seed() -> None:
    """As gymnasium's: the seed the fresh stream was drawn with (it was -1, the mark of a generator set by hand)."""
    env = nbgym.make("Pendulum-v1").unwrapped
    env.reset()
    assert env.np_random_seed >= 0


def test_num_envs_of_a_compiled_vector_env_refuses_assignment() -> None:
    """Assigned, it was taken, and the next ``reset()`` seeded that many rows of arrays that hold fewer: a write past
    their end (a corrupted heap, then a crash)."""
    envs = nbgym.make_vec("CartPole-v1", 3)
    envs.num_envs = 3  # the same value: nothing changes
    with pytest.raises(AttributeError, match=re.escape("make_vec(id, num_envs=...)")):
        envs.num_envs = 4
    assert envs.num_envs == 3 and envs.reset(seed=1)[0].shape == (3, 4)


@pytest.mark.parametrize("vector", [False, True])
def test_another_action_space_is_refused_not_ignored(vector: bool) -> None:
    """gymnasium's CartPole checks each action against ``action_space`` as it is: nbgym's kernels check against the
    space they were made with, so another space assigned was silently ignored."""
    env = nbgym.make_vec("CartPole-v1", 2) if vector else nbgym.make("CartPole-v1").unwrapped
    env.action_space = copy.deepcopy(env.action_space)  # an equal space is taken
    other = nbgym.spaces.MultiDiscrete([3, 3]) if vector else nbgym.spaces.Discrete(3)
    with pytest.raises(AttributeError, match="action_space of .* cannot be assigned another value: .* Wrap the env"):
        env.action_space = other


def test_set_attr_of_an_attribute_it_does_not_serve_says_what_it_sets() -> None:
    envs = nbgym.make_vec("Taxi-v4", 2)
    with pytest.raises(AttributeError, match=r"no attribute 'max_row' to set: .* sets its state attributes .*'sync'"):
        envs.set_attr("max_row", 3)
