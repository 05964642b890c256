"""Actions taken and refused as gymnasium 1.4.0 takes and refuses them, for every compiled env id.

Each env gets a catalogue of actions that are wrong in every way a user can get them wrong (``None``, strings,
dicts, NaN, huge ints, other dtypes, shapes and lengths, ``-1`` and ``n`` for discrete spaces, floats and 0-d
arrays where an int goes), alone and as a two-env batch, on nbgym and on gymnasium (``gymnasium.make`` and its
``SyncVectorEnv``) from the same seed. For each:

- both take it: the same step, bit for bit;
- gymnasium refuses it: nbgym refuses it with an exception of gymnasium's built-in type (``TypeError``,
  ``KeyError``...; ``InvalidAction`` for gymnasium's own; or an ``InvalidAction`` for what it refuses by design,
  below), and nothing moved;
- only gymnasium takes it: allowed only where nbgym refuses by design (``nbgym.engine.actions``: what its compiled
  kernels cannot compute as gymnasium's Python does), as an ``InvalidAction``.
"""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from helpers.env_ids import IDS

import nbgym

DEFAULT_IDS = (
    "CartPole-v1",
    "Acrobot-v1",
    "Pendulum-v1",
    "MountainCarContinuous-v0",
    "FrozenLake-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "Blackjack-v1",
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "CarRacing-v3",
    "HalfCheetah-v5",
    "InvertedPendulum-v5",
)
"""One env per way of reading actions (the physics' ``read_action``); every compiled id with ``-m slow``."""


def bad_actions(space: gymnasium.spaces.Space) -> dict[str, Any]:
    """The catalogue of actions for ``space`` (one sub-environment's)."""
    actions: dict[str, Any] = {
        "None": None,
        "str": "abc",
        "dict": {"a": 1},
        "list of None": [None],
        "nan": float("nan"),
        "inf": float("inf"),
        "huge int": 10**30,
        "uint64": np.uint64(1),
        "True": True,
        "np.bool_": np.bool_(True),
        "float16": np.float16(0),
        "complex": 1 + 1j,
        "empty list": [],
        "object array": np.array([object()]),
    }
    if isinstance(space, gymnasium.spaces.Discrete):
        actions.update(
            {
                "-1": -1,
                "n": int(space.n),
                "1.0": 1.0,
                "float32 1": np.float32(1.0),
                "0-d array": np.array(1),
                "1-d array": np.array([1]),
                "[1]": [1],
                "int8": np.int8(1),
                "'1'": "1",
                "2**63 uint64": np.uint64(2**63),
                "int64 -1": np.int64(-1),
                "int64 n": np.int64(space.n),
            }
        )
        return actions
    zeros = np.zeros(space.shape)
    actions.update(
        {
            "float64": zeros,
            "float32": zeros.astype(np.float32),
            "float16 array": zeros.astype(np.float16),
            "int array": zeros.astype(np.int64),
            "bool array": zeros.astype(bool),
            "list": zeros.tolist(),
            "None first": [None] + zeros.tolist()[1:],
            "NaN array": np.full(space.shape, np.nan),
            "inf array": np.full(space.shape, np.inf),
            "1e300 array": np.full(space.shape, 1e300),
            "short": zeros[:-1],
            "long": np.zeros(space.shape[0] + 1),
            "2-d": zeros[None],
            "scalar": 0.0,
            "object list": np.array(zeros.tolist(), dtype=object),
            "strings": [str(v) for v in zeros.tolist()],
            "complex array": zeros.astype(complex),
            "tuple": tuple(zeros.tolist()),
            "uint64 array": zeros.astype(np.uint64),
        }
    )
    return actions


def refused_by_design(action: Any, space: gymnasium.spaces.Space) -> bool:
    """Whether nbgym refuses ``action`` by design where gymnasium's env takes it: a ``Box`` action that is not an
    array of the space's shape with a bool, int or float32/64 dtype, or holds NaN (``nbgym.engine.actions``)."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            array = np.asarray(action)
    except Exception:
        return True
    if array.dtype.kind not in "biuf" or array.dtype == np.float16 or array.shape != space.shape:
        return True
    return bool(np.isnan(array.astype(np.float64)).any())


def _outcome(env: Any, action: Any) -> tuple[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "took", env.step(action)
        except Exception as raised:
            return "refused", raised


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(theirs, (np.ndarray, np.generic)):
        ours, theirs = np.asarray(ours), np.asarray(theirs)
        return (
            ours.dtype == theirs.dtype and ours.shape == theirs.shape and np.array_equal(ours, theirs, equal_nan=True)
        )
    if isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(_same(ours[key], theirs[key]) for key in theirs)
    if isinstance(theirs, (tuple, list)):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs))
    return type(ours) is type(theirs) and (ours == theirs or (ours != ours and theirs != theirs))


def _gymnasium_type(raised: BaseException) -> type:
    """The type nbgym's refusal must be an instance of: gymnasium's own (by name, e.g. ``InvalidAction``), else
    the built-in type of what gymnasium raised (numpy's ``UFuncTypeError`` is a ``TypeError``)."""
    for kind in type(raised).__mro__:
        if kind.__module__.startswith("gymnasium"):
            return getattr(nbgym.error, kind.__name__)
        if getattr(builtins, kind.__name__, None) is kind:
            return kind
    raise AssertionError(raised)


def _pair(env_id: str, vector: bool) -> tuple[Any, Any]:
    if vector:
        return nbgym.make_vec(env_id, 2, vectorization_mode="vector_entry_point"), gymnasium.make_vec(
            env_id, 2, vectorization_mode="sync"
        )
    return nbgym.make(env_id), gymnasium.make(env_id)


def check_actions(env_id: str, vector: bool) -> None:
    ours, theirs = _pair(env_id, vector)
    untouched = _pair(env_id, vector)[0]  # steps beside ours to show a refusal moved nothing
    space = theirs.single_action_space if vector else theirs.action_space
    valid = theirs.action_space.sample()
    found = []
    try:
        for name, action in bad_actions(space).items():
            batch = [action, action] if vector else action
            for env in (ours, theirs, untouched):
                env.reset(seed=7)
            (their_outcome, their_result), (our_outcome, our_result) = _outcome(theirs, batch), _outcome(ours, batch)
            if their_outcome == our_outcome == "took":
                if not _same(our_result, their_result):
                    found.append(f"{name}: taken, with other results")
                continue
            if our_outcome == "refused":
                if not _same(ours.step(valid), untouched.step(valid)):
                    found.append(f"{name}: the refusal moved the env")
                if their_outcome == "took":
                    if not (refused_by_design(action, space) and isinstance(our_result, nbgym.error.InvalidAction)):
                        found.append(f"{name}: refused ({our_result!r}) where gymnasium takes it")
                elif not isinstance(our_result, _gymnasium_type(their_result)) and not (
                    refused_by_design(action, space) and isinstance(our_result, nbgym.error.InvalidAction)
                ):  # refused by design: gymnasium may raise something else later, after moving
                    found.append(
                        f"{name}: {type(our_result).__name__} where gymnasium raises {type(their_result).__name__}"
                    )
                continue
            found.append(f"{name}: taken where gymnasium raises {type(their_result).__name__} ({their_result})")
    finally:
        for env in (ours, theirs, untouched):
            env.close()
    assert not found, f"{env_id} ({'vector' if vector else 'single'}):\n" + "\n".join(found)


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("env_id", [param for param in IDS if param.values[0] in DEFAULT_IDS])
def test_bad_actions_as_gymnasium(env_id: str, vector: bool) -> None:
    check_actions(env_id, vector)


@pytest.mark.slow
@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("env_id", [param for param in IDS if param.values[0] not in DEFAULT_IDS])
def test_bad_actions_as_gymnasium_every_id(env_id: str, vector: bool) -> None:
    check_actions(env_id, vector)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "FrozenLake-v1", "Pendulum-v1"])
def test_next_step_autoreset_ignores_the_action_of_a_resetting_sub_env(env_id: str) -> None:
    """gymnasium's ``SyncVectorEnv`` does not read the action of a sub-environment that next-step autoreset
    resets: any value there is taken."""
    ours, theirs = nbgym.make_vec(env_id, 2), gymnasium.make_vec(env_id, 2, vectorization_mode="sync")
    space = theirs.single_action_space
    rng = np.random.default_rng(0)
    results = [ours.reset(seed=3), theirs.reset(seed=3)]
    assert _same(*results)
    for _ in range(600):
        ended = results[0][2] | results[0][3] if len(results[0]) == 5 else np.zeros(2, bool)
        actions: list[Any] = [
            space.sample()
            if isinstance(space, gymnasium.spaces.Discrete)
            else rng.uniform(-1, 1, space.shape).astype(space.dtype)
            for _ in range(2)
        ]
        if ended.any():
            actions[int(np.argmax(ended))] = "not an action"
            batch = actions
        else:
            batch = np.array(actions)
        results = [ours.step(batch), theirs.step(batch)]
        assert _same(*results)
        if ended.any():
            return
    pytest.fail("no sub-environment ended")


def test_refusals_say_what_was_wrong() -> None:
    env = nbgym.make("FrozenLake-v1")
    env.reset(seed=0)
    with pytest.raises(
        KeyError, match=r"'up' \(str\) is not an action of Discrete\(4\): gymnasium's environment raises KeyError"
    ):
        env.step("up")
    acrobot = nbgym.make("Acrobot-v1")
    acrobot.reset(seed=0)
    assert _same(acrobot.step(-1), (lambda e: (e.reset(seed=0), e.step(2))[1])(gymnasium.make("Acrobot-v1")))
    vector = nbgym.make_vec("CartPole-v1", 2)
    vector.reset(seed=0)
    with pytest.raises(ValueError, match="expected 2, got 3"):
        vector.step([0, 1, 0])
    with pytest.raises(TypeError, match="cannot iterate"):
        vector.step(1)
