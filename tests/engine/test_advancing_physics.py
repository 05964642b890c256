"""A physics whose sub-environments advance together (``Physics(act=..., advance=...)``, as the Box2D envs' worlds
do): each chunk acts per sub-environment, advances once, then ends each step; it steps as the same physics written as
one ``step``, in every autoreset mode, with time limits and threads, compiled and interpreted; and ``advance`` moves
exactly the rows that were not reset at this step."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest

from nbgym import error, spaces
from nbgym.engine import KernelEnv, Physics, declares_arguments, vector_env_class

Walk = namedtuple("Walk", ["position", "pending", "advanced", "chunk"])


def _new_walk(num_envs: int) -> Walk:
    return Walk(
        np.zeros((num_envs, 1)),
        np.zeros((num_envs, 1)),
        np.zeros((num_envs, 1), dtype=np.int64),
        np.zeros((num_envs, 2), dtype=np.int64),
    )


def _reset(params, state, i, stream, aux):
    state.position[i, 0] = 0.0
    state.pending[i, 0] = 0.0


def _act(params, state, i, actions, stream, aux):
    state.pending[i, 0] = params.stride * (actions[i] - 1)


def _advance(params, state, first, stop, resting):
    for i in range(first, stop):
        state.chunk[i, 0] = first
        state.chunk[i, 1] = stop
        if not resting[i]:
            state.position[i, 0] += state.pending[i, 0]
            state.advanced[i, 0] += 1


def _end_step(params, state, i, actions, stream, aux):
    return state.position[i, 0], state.position[i, 0] >= 1.0


def _whole_step(params, state, i, actions, stream, aux):
    state.position[i, 0] += params.stride * (actions[i] - 1)
    state.advanced[i, 0] += 1
    return state.position[i, 0], state.position[i, 0] >= 1.0


def _observe(params, state, i, obs):
    obs[i, 0] = state.position[i, 0]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 3


def _physics(name: str, **step: Any) -> Physics:
    return Physics(
        name,
        params=[("stride", np.float64)],
        state=_new_walk,
        reset=_reset,
        observe=_observe,
        action_valid=_action_valid,
        max_chunk_size=3,
        **step,
    )


WHOLE = _physics("TestWholeStepWalk", step=_whole_step)
ADVANCING = _physics("TestAdvancingWalk", act=_act, advance=_advance, step=_end_step)


def _env_class(physics: Physics) -> type[KernelEnv]:
    class WalkEnv(KernelEnv):
        """A walk on a line that ends at 1."""

        metadata = {"render_modes": []}

        @declares_arguments
        def __init__(self, stride: float = 0.5, render_mode: str | None = None) -> None:
            """Walk's arguments."""

        def _configure(self, arguments: Any) -> np.ndarray:
            return physics.new_params(stride=arguments.stride)

        def _single_spaces(self) -> tuple[spaces.Box, spaces.Discrete]:
            return spaces.Box(-np.inf, np.inf, (1,), np.float64), spaces.Discrete(3)

    WalkEnv.physics = physics
    return WalkEnv


@pytest.mark.parametrize("num_threads", [1, 2])
@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep", "Disabled"])
def test_an_advancing_physics_steps_as_one_whose_step_does_it_all(autoreset_mode, num_threads):
    actions = np.random.default_rng(0).integers(0, 3, size=(60, 7))
    results = []
    for physics in (WHOLE, ADVANCING):
        envs = vector_env_class(_env_class(physics), doc="")(
            num_envs=7, stride=0.25, max_episode_steps=9, autoreset_mode=autoreset_mode, num_threads=num_threads
        )
        seen = [envs.reset(seed=3)[0]]
        for action in actions:
            if autoreset_mode == "Disabled":
                done = np.logical_or(seen[-2], seen[-1]) if len(seen) > 2 else np.zeros(7, bool)
                if done.any():
                    seen.append(envs.reset(options={"reset_mask": done})[0])
            observation, reward, terminated, truncated, info = envs.step(action)
            seen += [observation, reward, terminated, truncated]
        seen.append(envs._batch.state.advanced.copy())
        results.append(seen)
    assert results[1][-1].sum() > 0
    for whole, advanced in zip(*results):
        assert whole.dtype == advanced.dtype
        np.testing.assert_array_equal(whole, advanced)


def test_advance_moves_only_the_rows_not_reset_at_this_step():
    envs = vector_env_class(_env_class(ADVANCING), doc="")(num_envs=4, stride=1.0, autoreset_mode="NextStep")
    envs.reset(seed=0)
    envs.step(np.array([2, 1, 1, 1]))  # sub-environment 0 reaches 1 and terminates
    before = envs._batch.state.advanced[:, 0].copy()
    envs.step(np.array([2, 2, 2, 2]))  # ... so this step resets it instead
    np.testing.assert_array_equal(envs._batch.state.advanced[:, 0] - before, [0, 1, 1, 1])


def test_a_step_in_one_thread_advances_the_chunks_a_thread_would_claim():
    """One thread steps the batch in chunks of ``max_chunk_size`` (3), as the stepping threads claim them, not the
    batch at once: a chunk's worlds stay in the caches from act to step."""
    envs = vector_env_class(_env_class(ADVANCING), doc="")(num_envs=7, stride=0.25, num_threads=1)
    envs.reset(seed=0)
    envs.step(np.ones(7, dtype=np.int64))
    np.testing.assert_array_equal(envs._batch.state.chunk, [[0, 3]] * 3 + [[3, 6]] * 3 + [[6, 7]])


def test_act_without_advance_is_refused():
    with pytest.raises(error.PhysicsError, match="act and advance go together"):
        _physics("TestHalfAdvancingWalk", act=_act, step=_end_step)
