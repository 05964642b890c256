"""Attributes that gymnasium's environments read as they step and that nbgym's kernels do not: a toy-text env's
transition table ``P``, start distribution and map, Acrobot's ``AVAIL_TORQUE``. In gymnasium a change in place changes
the env; in nbgym it would be silently ignored, so it is refused, with a ``TypeError`` (``ValueError`` for numpy's
read-only arrays) saying what to do instead. What is read equals gymnasium's, and a copy is the user's own."""

from __future__ import annotations

import copy
import pickle
from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from helpers.toy_text_checks import assert_same_value

import nbgym

TABLE_ENVS = ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1"]

TABLE_CHANGES: dict[str, Callable[[dict], None]] = {
    "P[s][a] = ...": lambda table: table[0].__setitem__(0, [(1.0, 1, 5.0, True)]),
    "P[s][a][0] = ...": lambda table: table[0][0].__setitem__(0, (1.0, 1, 5.0, True)),
    "P[s][a].append": lambda table: table[0][0].append((0.0, 1, 5.0, True)),
    "P[s].update": lambda table: table[0].update({0: []}),
    "del P[s]": lambda table: table.__delitem__(0),
    "P.clear": lambda table: table.clear(),
    "P[s][a] += ...": lambda table: table[0][0].__iadd__([(0.0, 1, 5.0, True)]),
}


@pytest.mark.parametrize("change", TABLE_CHANGES, ids=list(TABLE_CHANGES))
@pytest.mark.parametrize("env_id", TABLE_ENVS)
def test_a_change_of_the_transition_table_in_place_is_refused(env_id: str, change: str) -> None:
    ours = nbgym.make(env_id).unwrapped
    with pytest.raises(TypeError, match=r"\.P is read-only in nbgym: its compiled kernels compute the transitions"):
        TABLE_CHANGES[change](ours.P)
    assert_same_value(ours.P, gymnasium.make(env_id).unwrapped.P)  # nothing changed


@pytest.mark.parametrize("env_id", TABLE_ENVS)
def test_the_transition_table_reads_and_copies_as_gymnasiums(env_id: str) -> None:
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    assert ours.P == theirs.P and isinstance(ours.P, dict) and isinstance(ours.P[0][0], list)
    for mine in (copy.deepcopy(ours.P), {s: {a: list(o) for a, o in moves.items()} for s, moves in ours.P.items()}):
        assert_same_value(mine, theirs.P)
        mine[0][0] = []  # a copy is the user's own
    assert type(copy.copy(ours.P)) is dict and type(copy.copy(ours.P[0][0])) is list
    clone = pickle.loads(pickle.dumps(ours))
    assert clone.P == theirs.P
    with pytest.raises(TypeError, match="read-only"):
        clone.P[0][0].append(None)


@pytest.mark.parametrize(
    ("env_id", "name"),
    [
        ("FrozenLake-v1", "initial_state_distrib"),
        ("FrozenLake-v1", "desc"),
        ("Taxi-v4", "initial_state_distrib"),
        ("Taxi-v4", "desc"),
        ("CliffWalking-v1", "initial_state_distrib"),
    ],
)
def test_start_distributions_and_maps_refuse_changes_in_place(env_id: str, name: str) -> None:
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    assert_same_value(getattr(ours, name), getattr(theirs, name), name)
    with pytest.raises(ValueError, match="read-only"):
        getattr(ours, name)[0] = getattr(ours, name)[-1]
    for env in (ours, pickle.loads(pickle.dumps(ours))):
        assert not getattr(env, name).flags.writeable
        assert_same_value(getattr(env, name), getattr(theirs, name), name)


def test_a_users_map_array_is_copied() -> None:
    desc = np.asarray(["SFF", "FHF", "FFG"], dtype="c")
    env = nbgym.make("FrozenLake-v1", desc=desc).unwrapped
    desc[0, 1] = b"H"  # the user's array stays theirs
    assert env.desc[0, 1] == b"F"


def test_acrobot_torques_refuse_changes_in_place_and_take_a_new_list() -> None:
    def run(env: Any) -> np.ndarray:
        env.reset(seed=3)
        return np.array([env.step(2)[0] for _ in range(5)])

    ours, theirs = nbgym.make("Acrobot-v1").unwrapped, gymnasium.make("Acrobot-v1").unwrapped
    assert ours.AVAIL_TORQUE == theirs.AVAIL_TORQUE and isinstance(ours.AVAIL_TORQUE, list)
    with pytest.raises(TypeError, match=r"assign a new list instead"):
        ours.AVAIL_TORQUE[2] = 3.0
    with pytest.raises(TypeError, match=r"assign a new list instead"):
        ours.AVAIL_TORQUE.append(2.0)
    np.testing.assert_array_equal(run(ours), run(theirs))
    ours.AVAIL_TORQUE = theirs.AVAIL_TORQUE = [-1.0, 0.0, 3.0]
    np.testing.assert_array_equal(run(ours), run(theirs))
    assert copy.copy(ours.AVAIL_TORQUE) + [1] == [-1.0, 0.0, 3.0, 1]


@pytest.mark.parametrize(
    ("env_id", "name", "change", "refusal"),
    [
        ("Taxi-v4", "locs", lambda locs: locs.__setitem__(0, (1, 1)), TypeError),
        ("Taxi-v4", "locs_colors", lambda colors: colors.append((0, 0, 0)), TypeError),
        ("CliffWalking-v1", "_cliff", lambda cliff: cliff.__setitem__((0, 0), True), ValueError),
    ],
)
def test_map_attributes_a_step_reads_refuse_changes_in_place(env_id: str, name: str, change, refusal) -> None:
    """gymnasium's step reads Taxi's ``locs`` (action masks, fickle destinations) and CliffWalking's ``_cliff``: changed
    in place, they change its steps; nbgym's were new copies each read, so the change was silently ignored."""
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    assert_same_value(getattr(ours, name), getattr(theirs, name), name)
    with pytest.raises(refusal):
        change(getattr(ours, name))
    assert_same_value(getattr(ours, name), getattr(theirs, name), f"{name} after")


def test_cartpoles_private_sutton_barto_reward_is_the_parameter() -> None:
    """gymnasium's step reads ``_sutton_barto_reward``: assigned, it changes the rewards (nbgym refused it)."""
    rewards = []
    for library in (nbgym, gymnasium):
        env = library.make("CartPole-v1")
        env.reset(seed=0)
        env.unwrapped._sutton_barto_reward = True
        rewards.append([env.step(0)[1] for _ in range(3)])
    assert rewards[0] == rewards[1] == [0.0, 0.0, 0.0]


def test_reachers_goal_refuses_changes_in_place() -> None:
    """gymnasium's ``goal`` is an array its reset drew; nbgym's is a copy of the drawn target, so a change would have
    been silently lost: refused."""
    pytest.importorskip("mujoco")
    env = nbgym.make("Reacher-v5").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="read-only"):
        env.goal[0] = 0.1
