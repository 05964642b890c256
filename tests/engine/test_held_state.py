"""A state of several arrays reaches the kernels held in one reference (``nbgym.engine._held``): the kernels
step the batch's current arrays, after the state is replaced and in a copy of the env, compiled and interpreted.
A physics that borrows it (``Physics(borrows_state=True)``: step, observe and action_valid compiled without
reference counting) steps as the counting one does, and one that allocates an array there is refused."""

from __future__ import annotations

import copy
import gc
import os
import pathlib
import subprocess
import sys
from collections import namedtuple
from typing import Any

import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.paths import ROOT

from nbgym import error, spaces
from nbgym.engine import KernelEnv, Physics, borrowing_njit, declares_arguments, njit, vector_env_class
from nbgym.engine._held import HeldState

Walk = namedtuple("Walk", ["position", "steps"])


def _new_walk(num_envs: int) -> Walk:
    return Walk(np.zeros((num_envs, 1)), np.zeros((num_envs, 1), dtype=np.int64))


def _walk_reset(params, state, i, stream, aux):
    state.position[i, 0] = 0.0
    state.steps[i, 0] = 0


@borrowing_njit
def _advance(state, i, move):
    state.position[i, 0] += move
    state.steps[i, 0] += 1
    return state.position[i, 0]


def _walk_step(params, state, i, actions, stream, aux):
    return _advance(state, i, params.stride * (actions[i] - 1)), False


def _walk_observe(params, state, i, obs):
    obs[i, 0] = state.position[i, 0]
    obs[i, 1] = state.steps[i, 0]


def _walk_action_valid(params, actions, i):
    return 0 <= actions[i] < 3


def _allocating_observe(params, state, i, obs):
    row = np.empty(2)
    row[0] = state.position[i, 0]
    row[1] = state.steps[i, 0]
    obs[i, 0] = row[0]
    obs[i, 1] = row[1]


@njit
def _same(array):
    return array


def _observe_through_a_returned_array(params, state, i, obs):
    position = _same(state.position)
    obs[i, 0] = position[i, 0]
    obs[i, 1] = state.steps[i, 0]


@njit
def _same_for_reset(array):
    return array


def _reset_through_a_returned_array(params, state, i, rng, aux):
    _same_for_reset(state.position)[i, 0] = 0.0
    state.steps[i, 0] = 0


def _observe_through_the_reset_helper(params, state, i, obs):
    position = _same_for_reset(state.position)
    obs[i, 0] = position[i, 0]
    obs[i, 1] = state.steps[i, 0]


def _allocating_reset(params, state, i, rng, aux):
    start = np.zeros(2)
    state.position[i, 0] = start[0]
    state.steps[i, 0] = 0


def _walk_physics(name: str, borrows_state: bool = False, observe: Any = _walk_observe, reset: Any = None) -> Physics:
    return Physics(
        name,
        params=[("stride", np.float64)],
        state=_new_walk,
        reset=reset or _walk_reset,
        step=_walk_step,
        observe=observe,
        action_valid=_walk_action_valid,
        borrows_state=borrows_state,
    )


WALK = _walk_physics("TestHeldWalk")
BORROWING_WALK = _walk_physics("TestBorrowingWalk", borrows_state=True)
# A borrowing step resets its ended sub-environments (autoreset) with this reset, which counts references to allocate.
BORROWING_ALLOCATING_RESET_WALK = _walk_physics(
    "TestBorrowingWalkAllocatingReset", borrows_state=True, reset=_allocating_reset
)
ALLOCATING_WALK = _walk_physics("TestAllocatingBorrowingWalk", borrows_state=True, observe=_allocating_observe)
RETURNING_WALK = _walk_physics(
    "TestReturningBorrowingWalk", borrows_state=True, observe=_observe_through_a_returned_array
)
# The reset, compiled first and with reference counting, compiles the helper that returns an array: the borrowing
# observe then reaches that version, which hands it a reference it would never give back.
RETURNING_AFTER_RESET_WALK = _walk_physics(
    "TestReturningAfterResetWalk",
    borrows_state=True,
    observe=_observe_through_the_reset_helper,
    reset=_reset_through_a_returned_array,
)


def _walk_env_class(physics: Physics) -> type[KernelEnv]:
    class WalkEnv(KernelEnv):
        """A walk on a line whose state is two arrays."""

        metadata = {"render_modes": []}

        @declares_arguments
        def __init__(self, stride: float = 0.5, render_mode: str | None = None) -> None:
            """Walk's arguments."""

        def _configure(self, arguments: Any) -> np.ndarray:
            return physics.new_params(stride=arguments.stride)

        def _single_spaces(self) -> tuple[spaces.Box, spaces.Discrete]:
            return spaces.Box(-np.inf, np.inf, (2,), np.float64), spaces.Discrete(3)

    WalkEnv.physics = physics
    return WalkEnv


WalkEnv = _walk_env_class(WALK)
WalkVectorEnv = vector_env_class(WalkEnv, doc="Walk's compiled vector env.")
BorrowingWalkEnv = _walk_env_class(BORROWING_WALK)
BorrowingWalkAllocatingResetEnv = _walk_env_class(BORROWING_ALLOCATING_RESET_WALK)


def test_the_kernels_get_a_namedtuple_state_held_in_one_reference():
    env = WalkEnv()
    batch = env._batch
    if INTERPRETED:
        assert batch._kernel_state is batch.state
    else:
        assert isinstance(batch._kernel_state, HeldState)
        held = batch._kernel_state.rows
        assert all(a is b or np.shares_memory(a, b) for a, b in zip(held, batch.state))


def test_a_replaced_state_is_the_one_the_kernels_step():
    env = WalkEnv()
    env.reset(seed=0)
    env.step(2)
    old = env._batch.state
    new = Walk(np.full((1, 1), 10.0), np.full((1, 1), 7, dtype=np.int64))
    env._batch.state = new
    env._bind(env.np_random)  # as an env that replaces its state does (LunarLander's grown world)
    observation, reward, *_ = env.step(2)
    np.testing.assert_array_equal(observation, [10.5, 8.0])
    assert reward == 10.5
    assert old.position[0, 0] == 0.5 and old.steps[0, 0] == 1  # the old arrays were not stepped


@pytest.mark.parametrize("vector", [False, True])
def test_a_copy_steps_its_own_arrays(vector):
    env = WalkVectorEnv(num_envs=2) if vector else WalkEnv()
    env.reset(seed=0)
    twin = copy.deepcopy(env)
    action = np.array([2, 2]) if vector else 2
    for _ in range(3):
        twin.step(action)
    np.testing.assert_array_equal(env._batch.state.steps, 0)
    np.testing.assert_array_equal(twin._batch.state.steps, 3)
    np.testing.assert_array_equal(twin._batch.state.position, 1.5)


@pytest.mark.skipif(INTERPRETED, reason="interpreted kernels hold nothing: the state is passed as it is")
def test_a_state_numba_cannot_hold_is_refused_clearly():
    from nbgym.engine._held import hold

    with pytest.raises(error.PhysicsError, match="namedtuple of numpy arrays; Walk has a field"):
        hold(Walk(np.zeros((1, 1)), object()))


def test_borrows_state_is_part_of_the_physics_and_its_cache_key():
    assert BORROWING_WALK.borrows_state and not WALK.borrows_state
    twin = _walk_physics("TestHeldWalkTwin")
    # The record's tag is the name and a digest of the code and options: only the option differs here.
    assert WALK.params_dtype.names[0].split("_")[-1] == twin.params_dtype.names[0].split("_")[-1]
    assert BORROWING_WALK.params_dtype.names[0].split("_")[-1] != WALK.params_dtype.names[0].split("_")[-1]


@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep"])
def test_a_borrowing_physics_steps_as_the_counting_one(autoreset_mode):
    actions = np.random.default_rng(0).integers(0, 3, size=(40, 4))
    results = []
    for env_class in (WalkEnv, BorrowingWalkEnv, BorrowingWalkAllocatingResetEnv):
        envs = vector_env_class(env_class, doc="")(
            num_envs=4, stride=0.25, max_episode_steps=7, autoreset_mode=autoreset_mode
        )
        seen = [envs.reset(seed=3)[0]]
        for action in actions:
            observation, reward, terminated, truncated, info = envs.step(action)
            seen += [observation, reward, truncated]
        single = env_class(stride=0.25)
        seen.append(single.reset(seed=1)[0])
        seen += [single.step(action)[0] for action in actions[:5, 0]]
        results.append(seen)
    for counted, *borrowed in zip(*results):
        for result in borrowed:
            assert counted.dtype == result.dtype
            np.testing.assert_array_equal(counted, result)


@pytest.mark.skipif(INTERPRETED, reason="Python counts references itself: nothing is compiled without them")
@pytest.mark.parametrize(
    "env_class",
    [WalkEnv, BorrowingWalkEnv, BorrowingWalkAllocatingResetEnv],
    ids=["counting", "borrowing", "borrowing-allocating-reset"],
)
@pytest.mark.parametrize("num_threads", [1, 2])
def test_the_kernels_give_back_every_reference_to_the_state_they_take(env_class, num_threads):
    # numba holds an array passed from Python through a record of its own that holds a reference to it: a reference
    # taken and not given back in a compiled step (a borrowing one that read a counting read of the held state) would
    # keep that record, and so the array, alive after the env is gone.
    envs = vector_env_class(env_class, doc="")(num_envs=4, max_episode_steps=3, num_threads=num_threads)
    envs.reset(seed=0)
    for _ in range(20):
        envs.step(np.array([2, 0, 1, 2]))
    single = env_class()
    single.reset(seed=0)
    for _ in range(20):
        single.step(2)
    arrays = [*envs._batch.state, *single._batch.state]
    del envs, single
    gc.collect()
    assert [sys.getrefcount(array) for array in arrays] == [3] * len(arrays)  # the list's, the loop's, the call's


@pytest.mark.skipif(INTERPRETED, reason="Python counts references itself: nothing is compiled without them")
def test_a_borrowing_physics_that_allocates_is_refused_naming_the_line():
    with pytest.raises(error.PhysicsError, match=r"(?s)observe function _allocating_observe.*borrows_state=True"):
        _walk_env_class(ALLOCATING_WALK)()


@pytest.mark.skipif(INTERPRETED, reason="Python counts references itself: nothing is compiled without them")
def test_a_helper_returning_an_array_without_reference_counting_is_refused():
    # numba compiles _same without reference counting under a borrowing observe, and would keep that version for
    # callers that count references, which would free the returned array under its owner.
    with pytest.raises(error.PhysicsError, match=r"(?s)_same returns .*compiled without numba's reference counting"):
        _walk_env_class(RETURNING_WALK)()


@pytest.mark.skipif(INTERPRETED, reason="Python counts references itself: nothing is compiled without them")
def test_a_borrowing_function_may_not_call_one_returning_an_array_whatever_compiled_it_first():
    with pytest.raises(
        error.PhysicsError, match=r"(?s)_same_for_reset returns .*called by .*without numba's reference"
    ):
        _walk_env_class(RETURNING_AFTER_RESET_WALK)()


ONE_COMPILE_PROBE = """
import collections, sys
sys.path[:0] = sys.argv[1:]
from numba.core import event
import numpy as np

compiled = collections.Counter()


class Listener(event.Listener):
    def on_start(self, event):
        compiled[event.data["dispatcher"].py_func.__qualname__] += 1

    def on_end(self, event):
        pass


event.register("numba:compile", Listener())
import test_held_state as walk
from nbgym.engine import vector_env_class

envs = vector_env_class(walk.BorrowingWalkEnv, doc="A probe.")(num_envs=2)
envs.reset(seed=0)
envs.step(np.array([2, 0]))
print(compiled["_walk_reset"], compiled["_walk_observe"], compiled["_walk_step"])
"""


@pytest.mark.skipif(INTERPRETED, reason="nothing is compiled")
def test_a_borrowing_physics_functions_compile_once_for_counting_and_borrowing_callers(tmp_path):
    """The counting ``reset_kernel`` and the borrowing ``_step_range`` both call the physics' reset and observe: numba
    would compile each once per caller's options (``_kernels._OneImplementation``). From an empty cache."""
    tests = pathlib.Path(__file__).parent
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", ONE_COMPILE_PROBE, str(tests), str(tests.parent), str(ROOT)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["1", "1", "1"]
