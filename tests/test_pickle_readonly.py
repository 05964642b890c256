"""Environments unpickled from read-only buffers (as Ray's object store hands them back) continue exactly.

``readonly_loads`` pickles as Ray does (cloudpickle, protocol 5, out-of-band buffers) and unpickles over read-only views of
them, as an object store does; ``writable_loads`` unpickles over writable copies. Every env, vector env
and wrapper stack unpickled either way must continue exactly as gymnasium's, run without interruption
on the same actions, does.
"""

from __future__ import annotations

import pickle
from typing import Any

import cloudpickle
import gymnasium
import numpy as np
import pytest
from helpers.vector_test_envs import assert_same

import nbgym
import nbgym.wrappers.vector as vector_wrappers
from nbgym.utils._pickling import writable

DIRECT_IDS = [
    "CartPole-v1",
    "Pendulum-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Acrobot-v1",
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    "Blackjack-v1",
]


def _loads(obj: Any, read_only: bool) -> Any:
    buffers: list[pickle.PickleBuffer] = []
    data = cloudpickle.dumps(obj, protocol=5, buffer_callback=buffers.append)  # as Ray pickles
    assert buffers, "nothing was pickled out of band: the test would not exercise read-only arrays"
    if read_only:
        views = [memoryview(buffer.raw()).toreadonly() for buffer in buffers]
    else:
        views = [bytearray(buffer.raw()) for buffer in buffers]
    return pickle.loads(data, buffers=views)


def readonly_loads(obj: Any) -> Any:
    """``obj`` unpickled over read-only memory, as Ray's object store hands arrays back."""
    return _loads(obj, read_only=True)


def writable_loads(obj: Any) -> Any:
    """``obj`` unpickled over writable copies of its out-of-band buffers."""
    return _loads(obj, read_only=False)


def _action_list(env: Any, count: int, seed: int) -> list[Any]:
    space = env.action_space
    space.seed(seed)
    return [space.sample() for _ in range(count)]


def _timeless(step: Any) -> Any:
    """A step's results without RecordEpisodeStatistics' wall-clock episode times."""
    info = step[-1]
    if "episode" in info:
        info = {**info, "episode": {**info["episode"], "t": None}}
    return (*step[:-1], info)


def _step_all(theirs: Any, copies: dict[str, Any], action: Any, where: str) -> None:
    """Steps gymnasium's env and each copy of ours with ``action``; a single env whose episode ended is reset."""
    expected = _timeless(theirs.step(action))
    for name, env in copies.items():
        assert_same(expected, _timeless(env.step(action)), f"{name}, {where}")
    if not isinstance(theirs, gymnasium.vector.VectorEnv) and (expected[2] or expected[3]):
        expected = theirs.reset(seed=len(where))
        for name, env in copies.items():
            assert_same(expected, env.reset(seed=len(where)), f"{name}, reset after {where}")


def _continue_three(ours: Any, theirs: Any, actions: list[Any], before: int) -> None:
    """Steps ``ours`` and ``theirs`` ``before`` times, copies ``ours`` both ways, then steps all on the rest."""
    for step, action in enumerate(actions[:before]):
        _step_all(theirs, {"original": ours}, action, f"step {step}")
    copies = {"read-only copy": readonly_loads(ours), "writable copy": writable_loads(ours), "original": ours}
    for step, action in enumerate(actions[before:], before):
        _step_all(theirs, copies, action, f"step {step}")


@pytest.mark.parametrize("env_id", DIRECT_IDS)
def test_single_envs_continue_after_readonly_unpickling(env_id):
    ours, theirs = nbgym.make(env_id), gymnasium.make(env_id)
    assert_same(theirs.reset(seed=3), ours.reset(seed=3))
    _continue_three(ours, theirs, _action_list(ours, 60, seed=4), before=7)


@pytest.mark.parametrize("env_id", DIRECT_IDS)
def test_vector_envs_continue_after_readonly_unpickling(env_id):
    ours, theirs = nbgym.make_vec(env_id, 3), gymnasium.make_vec(env_id, 3, vectorization_mode="sync")
    assert_same(theirs.reset(seed=3), ours.reset(seed=3))
    _continue_three(ours, theirs, _action_list(ours, 60, seed=4), before=7)


def test_gymnasium_continues_after_readonly_unpickling():
    """The oracle's own behaviour: gymnasium's CartPole continues from read-only buffers."""
    env, twin = gymnasium.make("CartPole-v1"), gymnasium.make("CartPole-v1")
    env.reset(seed=1)
    twin.reset(seed=1)
    env.step(0)
    twin.step(0)
    copy = readonly_loads(env)
    for action in [1, 0, 1, 1]:
        assert_same(twin.step(action), copy.step(action))


def test_threaded_vector_env_continues_after_readonly_unpickling():
    ours = nbgym.make_vec("CartPole-v1", 4, num_threads=2)
    theirs = gymnasium.make_vec("CartPole-v1", 4, vectorization_mode="sync")
    assert_same(theirs.reset(seed=8), ours.reset(seed=8))
    _continue_three(ours, theirs, _action_list(ours, 40, seed=9), before=3)


@pytest.mark.parametrize("env_id", ["LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_box2d_envs_unpickle_as_gymnasium_rebuilds_them(env_id):
    """gymnasium's Box2D envs pickle as their constructor arguments (EzPickle): an unpickled one is new and
    must be reset, then runs exactly as gymnasium's; from read-only buffers too."""
    pytest.importorskip("Box2D")
    ours, theirs = nbgym.make(env_id), gymnasium.make(env_id)
    ours.reset(seed=2)
    theirs.reset(seed=2)
    ours_copy, theirs_copy = readonly_loads(ours), pickle.loads(pickle.dumps(theirs))
    with pytest.raises(AssertionError):
        theirs_copy.step(theirs.action_space.sample())
    with pytest.raises(AssertionError):
        ours_copy.step(ours.action_space.sample())
    assert_same(theirs_copy.reset(seed=6), ours_copy.reset(seed=6))
    for action in _action_list(ours, 15, seed=1):
        assert_same(theirs_copy.step(action), ours_copy.step(action))


def _single_stack(lib: Any, env_id: str) -> Any:
    w = lib.wrappers
    env = lib.make(env_id)
    env = w.RecordEpisodeStatistics(env)
    env = w.NormalizeObservation(env)
    env = w.NormalizeReward(env)
    env = w.DelayObservation(env, 2)
    env = w.TimeAwareObservation(env)
    env = w.FrameStackObservation(env, 3)
    if isinstance(env.action_space, lib.spaces.Box):
        env = w.RescaleAction(env, -0.5, 0.5)
        env = w.ClipAction(env)
    else:
        env = w.StickyAction(env, 0.25)
    return env


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_wrapper_stacks_continue_after_readonly_unpickling(env_id):
    import gymnasium.wrappers  # noqa: F401  (the stack reads lib.wrappers)

    ours, theirs = _single_stack(nbgym, env_id), _single_stack(gymnasium, env_id)
    assert_same(theirs.reset(seed=3), ours.reset(seed=3))
    _continue_three(ours, theirs, _action_list(ours, 80, seed=4), before=11)


def _vector_stack(lib: Any, env_id: str, wrappers_module: Any) -> Any:
    env = lib.make_vec(env_id, 3, vectorization_mode="sync") if lib is gymnasium else lib.make_vec(env_id, 3)
    env = wrappers_module.RecordEpisodeStatistics(env)
    env = wrappers_module.NormalizeObservation(env)
    env = wrappers_module.NormalizeReward(env)
    if isinstance(env.single_action_space, lib.spaces.Box):
        env = wrappers_module.ClipAction(env)
    return env


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
def test_vector_wrapper_stacks_continue_after_readonly_unpickling(env_id):
    import gymnasium.wrappers.vector

    ours = _vector_stack(nbgym, env_id, vector_wrappers)
    theirs = _vector_stack(gymnasium, env_id, gymnasium.wrappers.vector)
    assert_same(theirs.reset(seed=3), ours.reset(seed=3))
    actions = _action_list(ours, 80, seed=4)
    for step, action in enumerate(actions[:9]):
        _step_all(theirs, {"original": ours}, action, f"step {step}")
    # gymnasium's vector RecordEpisodeStatistics adds to its arrays in place: gymnasium's own stack cannot
    # continue from read-only buffers, nbgym's must.
    copies = {"read-only copy": readonly_loads(ours), "writable copy": writable_loads(ours)}
    for step, action in enumerate(actions[9:], 9):
        _step_all(theirs, copies, action, f"step {step}")


def test_shared_arrays_stay_shared():
    """The parameter record an env shares with its kernel batch is one writable copy after unpickling:
    a parameter set on the copy reaches its kernels."""
    ours, theirs = nbgym.make("CartPole-v1"), gymnasium.make("CartPole-v1")
    ours.reset(seed=0)
    theirs.reset(seed=0)
    copy = readonly_loads(ours)
    assert copy.unwrapped._params is copy.unwrapped._batch.params
    copy.unwrapped.gravity = theirs.unwrapped.gravity = 3.5
    for action in [1, 1, 0, 1, 0, 0]:
        assert_same(theirs.step(action), copy.step(action))


def test_writable_copies_read_only_arrays_in_containers_once():
    source = np.arange(6.0)
    source.flags.writeable = False
    other = np.zeros(2)
    state = {"a": source, "b": [source, other], "c": (source, 1), "self": None}
    state["self"] = state  # a container that holds itself
    result = writable(state)
    assert result is state
    copied = state["a"]
    assert copied is not source and copied.flags.writeable
    np.testing.assert_array_equal(copied, source)
    assert state["b"][0] is copied and state["c"][0] is copied and state["b"][1] is other


# The compiled Box2D and MuJoCo batches keep their arrays in namedtuples (a world's rows, a state of several arrays):
# writable() once left those read-only, and numba refused them at the first step or reset (TypingError: readonly).
@pytest.mark.parametrize(
    "env_id", ["LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3", "CarRacing-v3", "HalfCheetah-v5"]
)
def test_compiled_vector_envs_of_every_family_continue_after_readonly_unpickling(env_id):
    pytest.importorskip("mujoco" if env_id.endswith("v5") else "numpy")
    ours = nbgym.make_vec(env_id, 2)
    theirs = gymnasium.make_vec(env_id, 2, vectorization_mode="sync")
    assert_same(theirs.reset(seed=3), ours.reset(seed=3))
    _continue_three(ours, theirs, _action_list(ours, 10, seed=4), before=4)
    ours.close()
    theirs.close()
