"""CliffWalking: walk along a cliff to the goal, as gymnasium's ``CliffWalking-v1``, on the compiled engine.

The 4x12 grid is fixed, so the kernels compute moves directly (no transition table): a row and a
column, a clamp to the grid, and the cliff test.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import Physics, declares_arguments, rng, vector_env_class
from nbgym.engine.actions import keys_a_dict
from nbgym.envs._read_only import read_only_transitions
from nbgym.envs.toy_text._common import (
    AUX_WIDTH,
    LAST_ACTION,
    PROB,
    REWARD,
    STATE,
    CodedValues,
    DiscreteToyTextEnv,
    begin_step,
    cumulative3,
    grid_move,
    grid_state_views,
    slip,
)

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3

_NROW, _NCOL = 4, 12
_START = 3 * _NCOL
_INITIAL_STATE_DISTRIB = np.zeros(_NROW * _NCOL)
_INITIAL_STATE_DISTRIB[_START] = 1.0
_INITIAL_STATE_DISTRIB.flags.writeable = False
_GOAL = _NROW * _NCOL - 1
_ROW_STEPS = (-1, 0, 1, 0)  # indexed by direction
_COL_STEPS = (0, 1, 0, -1)
# `prob` info codes: the reset's int 1, a step's 1.0 (1/1 outcome), or 1/3 (one of three slippery outcomes).
_PROB_RESET, _PROB_ONE, _PROB_THIRD = 0, 1, 2
# Reward codes: -1 per step, -100 for stepping into the cliff.
_REWARD_STEP, _REWARD_CLIFF = 0, 1


def _reset(params, state, i, stream, aux):
    # gymnasium samples the start from a one-hot distribution: one draw, always the start.
    rng.random(stream, i)
    state[i, STATE] = _START
    state[i, LAST_ACTION] = -1
    aux[i, PROB] = _PROB_RESET
    aux[i, REWARD] = _REWARD_STEP


def _step(params, state, i, actions, stream, aux):
    s, direction, u = begin_step(state, i, actions, stream)
    aux[i, PROB] = _PROB_ONE
    if params._is_slippery:
        direction, _ = slip(params._cumulative, direction, u)
        aux[i, PROB] = _PROB_THIRD
    row, col = grid_move(s, _ROW_STEPS[direction], _COL_STEPS[direction], _NROW, _NCOL)
    if row == _NROW - 1 and 0 < col < _NCOL - 1:
        state[i, STATE] = _START
        aux[i, REWARD] = _REWARD_CLIFF
        return -100.0, False
    new_state = row * _NCOL + col
    state[i, STATE] = new_state
    aux[i, REWARD] = _REWARD_STEP
    return -1.0, new_state == _GOAL


def _observe(params, state, i, obs):
    obs[i] = state[i, STATE]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 4


PHYSICS = Physics(
    "CliffWalking",
    params=[("_is_slippery", np.bool_), ("_cumulative", np.float64, (3,))],
    state=(2, np.int64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=keys_a_dict(4),  # gymnasium's P[s][a]
    aux_width=AUX_WIDTH,
)

_PROBS = CodedValues((1, 1.0, 1 / 3))
_REWARDS = CodedValues((-1, -100))


def _new_params(is_slippery: bool) -> np.ndarray:
    params = PHYSICS.new_params(_is_slippery=bool(is_slippery))
    params[0]["_cumulative"] = cumulative3(1 / 3, 1 / 3, 1 / 3)
    return params


def _spaces() -> tuple[spaces.Discrete, spaces.Discrete]:
    return spaces.Discrete(_NROW * _NCOL), spaces.Discrete(4)


def _cliff() -> np.ndarray:
    cliff = np.zeros((_NROW, _NCOL), dtype=bool)
    cliff[_NROW - 1, 1:-1] = True
    cliff.flags.writeable = (
        False  # the kernels step on their own cliff: an edit (a new array each time) would not reach them
    )
    return cliff


_CLIFF = _cliff()


class _CliffWalkingAttributes:
    """What CliffWalking's single and vector envs share: the physics and its parameters of the arguments,
    gymnasium's CliffWalking attributes."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.cliffwalking"
    frame_size_attributes = {
        "window_size": lambda env, width, height: (width, height),
        "cell_size": lambda env, width, height: (width // _NCOL, height // _NROW),
    }
    _probs, _rewards = _PROBS, _REWARDS

    def _configure(self, arguments: Any) -> np.ndarray:
        return _new_params(arguments.is_slippery)

    def _single_spaces(self) -> tuple[spaces.Discrete, spaces.Discrete]:
        return _spaces()

    _params: np.ndarray
    _P: dict | None = None
    state_views = grid_state_views(lambda params: _NROW * _NCOL, 4, int64_steps=True)
    shape = (_NROW, _NCOL)
    start_state_index = np.intp(_START)
    nS = np.int64(_NROW * _NCOL)
    nA = 4

    @property
    def is_slippery(self) -> bool:
        """Whether the player may slip perpendicular to the intended direction."""
        return bool(self._params["_is_slippery"][0])

    @property
    def _cliff(self) -> np.ndarray:
        """Which cells are the cliff, read-only: the kernels step on their own."""
        return _CLIFF

    @property
    def initial_state_distrib(self) -> np.ndarray:
        """The probability of each state to be the starting state: 1 for the start, ``[3, 0]`` (read-only: the kernels
        start every episode there)."""
        return _INITIAL_STATE_DISTRIB

    @property
    def P(self) -> dict[int, dict[int, list[tuple[float, Any, int, bool]]]]:
        """The transition table ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` (built on first use)."""
        if self._P is None:
            self._P = read_only_transitions(
                _transitions(self.is_slippery), "CliffWalkingEnv", "its map and is_slippery"
            )
        return self._P

    def _render_text(self, index: int) -> str:
        agent = int(self._batch.state[index, STATE])
        cliff = _CLIFF
        lines = []
        for row in range(_NROW):
            cells = []
            for col in range(_NCOL):
                s = row * _NCOL + col
                if s == agent:
                    cells.append("x")
                elif s == _GOAL:
                    cells.append("T")
                elif cliff[row, col]:
                    cells.append("C")
                else:
                    cells.append("o")
            lines.append("  ".join(cells) + "\n")
        return "".join(lines) + "\n"


def _transitions(is_slippery: bool) -> dict[int, dict[int, list[tuple[float, Any, int, bool]]]]:
    table: dict[int, dict[int, list[tuple[float, Any, int, bool]]]] = {}
    for s in range(_NROW * _NCOL):
        table[s] = {}
        for a in range(4):
            directions = ((a - 1) % 4, a, (a + 1) % 4) if is_slippery else (a,)
            outcomes = []
            for direction in directions:
                row = min(max(s // _NCOL + _ROW_STEPS[direction], 0), _NROW - 1)
                col = min(max(s % _NCOL + _COL_STEPS[direction], 0), _NCOL - 1)
                if row == _NROW - 1 and 0 < col < _NCOL - 1:
                    outcomes.append((1 / len(directions), np.intp(_START), -100, False))
                else:
                    new_state = row * _NCOL + col
                    outcomes.append((1 / len(directions), np.intp(new_state), -1, new_state == _GOAL))
            table[s][a] = outcomes
    return table


class CliffWalkingEnv(_CliffWalkingAttributes, DiscreteToyTextEnv):
    """
    ## Description

    Cross a 4x12 grid world from the start `[3, 0]` to the goal `[3, 11]` without falling off the
    cliff that runs along `[3, 1..10]`. Stepping into the cliff sends the player back to the start;
    reaching the goal ends the episode.

    Adapted from Example 6.6 (page 132) of Sutton and Barto, *Reinforcement Learning: An
    Introduction* (2020), [http://www.incompleteideas.net/book/RLbook2020.pdf](http://www.incompleteideas.net/book/RLbook2020.pdf),
    with inspiration from
    [dennybritz/reinforcement-learning](https://github.com/dennybritz/reinforcement-learning/blob/master/lib/envs/cliff_walking.py).

    The cliff can be made slippery (`is_slippery=True`, registered as `CliffWalkingSlippery-v1`): the
    player then moves in the intended direction or either perpendicular one, each with probability 1/3.

    ## Action Space

    `Discrete(4)`: the direction to move in.

    - 0: Move up
    - 1: Move right
    - 2: Move down
    - 3: Move left

    ## Observation Space

    The player's position as the `int` `current_row * 12 + current_col` (rows and columns from 0), in
    `Discrete(48)`. The player cannot stand on the cliff, and the goal ends the episode, so 3 x 12 + 1
    positions are observed during an episode: the first three rows and the start. The start is
    `3 * 12 + 0 = 36`.

    ## Starting State

    The player starts at state `36` (location `[3, 0]`).

    ## Rewards

    -1 per step, or -100 for stepping into the cliff (Python `int`s).

    ## Episode End

    The episode terminates when the player enters state `47` (location `[3, 11]`). There is no time
    limit.

    ## Information

    `step()` and `reset()` return `{"prob": p}`: the probability of the transition taken (`1` at reset,
    `1.0` at a step, `1/3` on the slippery cliff).

    ## Arguments

    ```python
    import nbgym
    nbgym.make("CliffWalking-v1")
    nbgym.make("CliffWalkingSlippery-v1")  # is_slippery=True
    ```

    - `is_slippery=False`: whether the player may slip perpendicular to the intended direction.

    The dynamics are compiled: `nbgym.make_vec("CliffWalking-v1", num_envs=4096)` steps all
    sub-environments in one call (`CliffWalkingVectorEnv`). The transition table `P` is built on
    first access.

    ## Version History

    - v1: Add a slippery version of CliffWalking (`CliffWalking-v0` is deprecated).
    - v0: Initial version release.
    """

    window_attributes = ("window_surface", "clock", None)

    gymnasium_hooks = {
        "_calculate_transition_prob": ("__init__",),
        "_limit_coordinates": ("__init__",),
        "_render_gui": ("render",),
    }

    metadata = {"render_modes": ["human", "rgb_array", "ansi"], "render_fps": 4}
    # gymnasium's environment returns its rgb_array frame in any mode it does not list.
    unlisted_render_mode = "frame"

    @declares_arguments
    def __init__(self, render_mode: str | None = None, is_slippery: bool = False) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""


CliffWalkingVectorEnv = vector_env_class(
    CliffWalkingEnv,
    doc="""CliffWalking's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("CliffWalking-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode, infos
    included. See ``CliffWalkingEnv`` for the environment and ``KernelVectorEnv`` for the vector arguments.
    """,
)
