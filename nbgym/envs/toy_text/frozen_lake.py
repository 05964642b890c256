"""FrozenLake: cross a frozen lake without falling into a hole, as gymnasium's ``FrozenLake-v1``, compiled.

The lake's map is data of each environment instance, held in its parameter record: tile kinds and
start states in arrays of a fixed *capacity*. A record type (and so a compiled kernel) exists per
capacity, a power of two of at least 64 cells, so the 4x4 and 8x8 lakes and any random map of up
to 64 cells share one compiled kernel, and a larger lake compiles (once, then cached) its own.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from nbgym import spaces
from nbgym.engine import Physics, declares_arguments, rng, vector_env_class
from nbgym.engine.actions import keys_a_dict
from nbgym.envs.toy_text._common import (
    AUX_WIDTH,
    LAST_ACTION,
    PROB,
    REWARD,
    STATE,
    CodedValues,
    DiscreteToyTextEnv,
    as_compared,
    begin_step,
    check_probability,
    cumulative3,
    grid_move,
    grid_state_views,
    sample_start,
    slip,
)
from nbgym.utils import colorize, seeding
from nbgym.envs._read_only import read_only_transitions, read_only_view

LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3

MAPS = {
    "4x4": ["SFFF", "FHFH", "FFFH", "HFFG"],
    "8x8": [
        "SFFFFFFF",
        "FFFFFFFF",
        "FFFHFFFF",
        "FFFFFHFF",
        "FFFHFFFF",
        "FHHFFFHF",
        "FHFFHFHF",
        "FFFHFFFG",
    ],
}

# Tile kinds are the indices of their rewards in `reward_schedule` (the start is frozen ice).
GOAL, HOLE, FROZEN = 0, 1, 2
_TILE_KINDS = {b"G": GOAL, b"H": HOLE, b"F": FROZEN, b"S": FROZEN}
# A step from a hole or the goal stays there with reward 0 (the int, whatever the schedule holds).
_REWARD_ENDED = 3
# `prob` info codes: the reset's int 1, then the step's 1.0, success_rate and fail_rate.
_PROB_RESET, _PROB_ONE, _PROB_SUCCESS, _PROB_FAIL = 0, 1, 2, 3

_ACTION_NAMES = ("Left", "Down", "Right", "Up")
_ROW_STEPS = (0, 1, 0, -1)  # indexed by direction
_COL_STEPS = (-1, 0, 1, 0)
_MIN_CAPACITY = 64


def _reset(params, state, i, stream, aux):
    u = rng.random(stream, i)
    state[i, STATE] = sample_start(params.starts, params.start_cumulative, params.num_starts, u)
    state[i, LAST_ACTION] = -1
    aux[i, PROB] = _PROB_RESET
    aux[i, REWARD] = _REWARD_ENDED


def _step(params, state, i, actions, stream, aux):
    s, direction, u = begin_step(state, i, actions, stream)
    if params.tiles[s] != FROZEN:
        aux[i, PROB] = _PROB_ONE
        aux[i, REWARD] = _REWARD_ENDED
        return 0.0, True
    aux[i, PROB] = _PROB_ONE
    if params.is_slippery:
        direction, outcome = slip(params.cumulative, direction, as_compared(u, params.float32))
        aux[i, PROB] = _PROB_SUCCESS
        if outcome != 1:
            aux[i, PROB] = _PROB_FAIL
    row, col = grid_move(s, _ROW_STEPS[direction], _COL_STEPS[direction], params.nrow, params.ncol)
    new_state = row * params.ncol + col
    state[i, STATE] = new_state
    tile = params.tiles[new_state]
    aux[i, REWARD] = tile
    return params.rewards[tile], tile != FROZEN


def _observe(params, state, i, obs):
    obs[i] = state[i, STATE]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 4


_PHYSICS: dict[int, Physics] = {}


def _physics(capacity: int) -> Physics:
    """The physics whose parameter record holds lakes of up to ``capacity`` cells."""
    physics = _PHYSICS.get(capacity)
    if physics is None:
        physics = _PHYSICS[capacity] = Physics(
            f"FrozenLake{capacity}",
            params=[
                ("nrow", np.int64),
                ("ncol", np.int64),
                ("is_slippery", np.bool_),
                ("float32", np.bool_),
                ("cumulative", np.float64, (3,)),
                ("rewards", np.float64, (3,)),
                ("tiles", np.uint8, (capacity,)),
                ("num_starts", np.int64),
                ("starts", np.int64, (capacity,)),
                ("start_cumulative", np.float64, (capacity,)),
            ],
            state=(2, np.int64),
            reset=_reset,
            step=_step,
            observe=_observe,
            action_valid=_action_valid,
            read_action=keys_a_dict(4),  # gymnasium's P[s][a]
            aux_width=AUX_WIDTH,
        )
    return physics


def is_valid(board: Sequence[Sequence[str]], max_size: int) -> bool:
    """Whether the goal (a ``"G"`` cell) can be reached from the top-left cell without crossing a hole (``"H"``),
    moving up, down, left and right within the first ``max_size`` rows and columns (gymnasium's
    ``frozen_lake.is_valid``).

    Args:
        board: The map's cells, ``board[row][col]``: a list of lists of one-letter strings or a 2-D array of them.
        max_size: The side of the square to search.

    Returns:
        Whether a path to a goal exists.
    """
    frontier, seen = [(0, 0)], {(0, 0)}
    while frontier:
        row, col = frontier.pop()
        for r, c in ((row + 1, col), (row, col + 1), (row - 1, col), (row, col - 1)):
            if 0 <= r < max_size and 0 <= c < max_size:
                if board[r][c] == "G":  # the start cell too, stepped back onto (as gymnasium's search does)
                    return True
                if board[r][c] != "H" and (r, c) not in seen:
                    seen.add((r, c))
                    frontier.append((r, c))
    return False


def generate_random_map(size: int = 8, p: float = 0.8, seed: int | None = None) -> list[str]:
    """A random ``size`` x ``size`` lake with a path from the start (top left) to the goal (bottom right).

    Boards are drawn until one is valid, with the same draws as gymnasium's ``generate_random_map``,
    so the same ``seed`` gives the same map.

    Args:
        size: The side of the square grid (at least 2).
        p: The probability that a tile is frozen (values above 1 count as 1).
        seed: The seed of the draws, ``None`` for fresh entropy.

    Returns:
        The map, one string per row (e.g. ``["SFFH", ...]``).

    Raises:
        ValueError: If ``size`` is smaller than 2 or ``p`` is not positive (no valid map could be drawn).
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 2:
        raise ValueError(f"size must be an int of at least 2 (a start and a goal tile), got {size!r}.")
    if not p > 0:
        raise ValueError(f"p (the probability of a frozen tile) must be positive to reach the goal, got {p!r}.")
    np_random, _ = seeding.np_random(seed)
    p = min(1, p)
    while True:
        board = np_random.choice(["F", "H"], (size, size), p=[p, 1 - p])
        board[0, 0] = "S"
        board[-1, -1] = "G"
        if is_valid(board, size):
            return ["".join(row) for row in board]


def _parse_desc(desc: Any) -> np.ndarray:
    """``desc`` as gymnasium's 2-D array of single bytes, checked to be a playable lake.

    Raises:
        ValueError: If the rows differ in length, a letter is not one of ``S``, ``F``, ``H``, ``G``, or the
            lake has no start or no goal.
    """
    try:
        board = np.array(desc, dtype="c")  # a copy: the kernels never see a later change of the caller's array
    except (ValueError, TypeError) as e:
        raise ValueError(
            f"desc must be a list of equally long strings of the letters S, F, H, G (e.g. {MAPS['4x4']}), got {desc!r}."
        ) from e
    if board.ndim != 2 or board.size == 0:
        raise ValueError(
            f"desc must be a non-empty list of equally long strings of the letters S, F, H, G, got {desc!r}."
        )
    unknown = sorted({letter.decode("latin-1") for letter in np.unique(board)} - {"S", "F", "H", "G"})
    if unknown:
        raise ValueError(f"desc may only hold the letters S, F, H, G, got {unknown} in {desc!r}.")
    for letter, name in ((b"S", "start"), (b"G", "goal")):
        if not (board == letter).any():
            raise ValueError(f"desc needs at least one {name} tile {letter.decode()!r}, got {desc!r}.")
    return board


class _Lake:
    """A validated lake and its parameter record.

    Raises:
        KeyError: If ``map_name`` is not a known map.
        ValueError: For a bad ``desc``, ``success_rate`` or ``reward_schedule``.
    """

    def __init__(
        self,
        desc: Any,
        map_name: str | None,
        is_slippery: bool,
        success_rate: float,
        reward_schedule: Sequence[Any],
    ) -> None:
        if desc is None and map_name is None:
            desc = generate_random_map()
        elif desc is None:
            if map_name not in MAPS:
                raise KeyError(f"Unknown map_name {map_name!r}: use one of {sorted(MAPS)}, or give desc.")
            desc = MAPS[map_name]
        float32 = check_probability("success_rate", success_rate)
        try:
            rewards = np.array(reward_schedule, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"reward_schedule must be three numbers (goal, hole, frozen), got {reward_schedule!r}."
            ) from e
        if rewards.shape != (3,):
            raise ValueError(f"reward_schedule must be three numbers (goal, hole, frozen), got {reward_schedule!r}.")
        self.desc = _parse_desc(desc)
        self.nrow, self.ncol = self.desc.shape
        self.reward_schedule = tuple(reward_schedule)
        self.is_slippery = is_slippery
        self.success_rate = success_rate
        self.fail_rate = (1.0 - success_rate) / 2.0
        self.tiles = np.array([_TILE_KINDS[letter] for letter in self.desc.ravel().tolist()], dtype=np.uint8)

        starts = self.desc.ravel() == b"S"
        self.initial_state_distrib = starts.astype(np.float64)
        self.initial_state_distrib /= self.initial_state_distrib.sum()
        num_states = self.nrow * self.ncol
        self.capacity = max(_MIN_CAPACITY, 1 << (num_states - 1).bit_length())
        start_states = np.flatnonzero(starts)
        self.params = _physics(self.capacity).new_params(
            nrow=self.nrow,
            ncol=self.ncol,
            is_slippery=bool(is_slippery),
            float32=float32,
            num_starts=len(start_states),
        )
        params = self.params[0]
        params["cumulative"] = cumulative3(self.fail_rate, success_rate, self.fail_rate)
        params["rewards"] = rewards
        params["tiles"][:num_states] = self.tiles
        params["starts"][: len(start_states)] = start_states
        params["start_cumulative"][: len(start_states)] = np.cumsum(self.initial_state_distrib)[start_states]
        self.probs = CodedValues((1, 1.0, success_rate, self.fail_rate))
        self.rewards = CodedValues((*self.reward_schedule, 0))

    @property
    def physics(self) -> Physics:
        """The physics of lakes of this lake's capacity."""
        return _physics(self.capacity)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # A lake unpickled in another process registers its record type before a kernel meets it.
        self.__dict__.update(state)
        _physics(self.capacity)

    def transitions(self) -> dict[int, dict[int, list[tuple[Any, int, Any, bool]]]]:
        """The table ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` of the lake."""
        table: dict[int, dict[int, list[tuple[Any, int, Any, bool]]]] = {}
        for s, tile in enumerate(self.tiles.tolist()):
            table[s] = {}
            for a in range(4):
                if tile != FROZEN:
                    table[s][a] = [(1.0, s, 0, True)]
                elif self.is_slippery:
                    table[s][a] = [
                        (self.success_rate if b == a else self.fail_rate, *self._outcome(s, b))
                        for b in ((a - 1) % 4, a, (a + 1) % 4)
                    ]
                else:
                    table[s][a] = [(1.0, *self._outcome(s, a))]
        return table

    def _outcome(self, s: int, direction: int) -> tuple[int, Any, bool]:
        row, col = divmod(s, self.ncol)
        if direction == LEFT:
            col = max(col - 1, 0)
        elif direction == DOWN:
            row = min(row + 1, self.nrow - 1)
        elif direction == RIGHT:
            col = min(col + 1, self.ncol - 1)
        else:
            row = max(row - 1, 0)
        new_state = row * self.ncol + col
        tile = int(self.tiles[new_state])
        return new_state, self.reward_schedule[tile], tile != FROZEN

    def render_text(self, s: int, lastaction: int | None) -> str:
        """The lake as gymnasium's ANSI text: the agent's tile highlighted in red under the last action."""
        rows = [[letter.decode("utf-8") for letter in line] for line in self.desc.tolist()]
        row, col = divmod(s, self.ncol)
        rows[row][col] = colorize(rows[row][col], "red", highlight=True)
        header = "\n" if lastaction is None else f"  ({_ACTION_NAMES[lastaction]})\n"
        return header + "\n".join("".join(line) for line in rows) + "\n"


class _LakeAttributes:
    """What FrozenLake's single and vector envs share: the lake of the arguments, its physics and spaces,
    gymnasium's FrozenLake attributes."""

    renderer = "nbgym.envs._render.frozen_lake"
    frame_size_attributes = {
        "window_size": lambda env, width, height: (width, height),
        "cell_size": lambda env, width, height: (width // env.ncol, height // env.nrow),
    }
    _lake: _Lake
    _P: dict | None = None
    state_views = grid_state_views(lambda params: params.nrow * params.ncol, 4, int64_steps=False)

    def _configure(self, arguments: Any) -> np.ndarray:
        self._lake = _Lake(
            arguments.desc, arguments.map_name, arguments.is_slippery, arguments.success_rate, arguments.reward_schedule
        )
        self._probs, self._rewards = self._lake.probs, self._lake.rewards
        return self._lake.params

    def _single_spaces(self) -> tuple[spaces.Discrete, spaces.Discrete]:
        return spaces.Discrete(self._lake.nrow * self._lake.ncol), spaces.Discrete(4)

    @property
    def physics(self) -> Physics:
        """The compiled physics, of the lake's capacity."""
        return self._lake.physics

    @property
    def desc(self) -> np.ndarray:
        """The map as a 2-D array of single bytes (``b"S"``, ``b"F"``, ``b"H"``, ``b"G"``), read-only: nbgym's kernels
        and frames use their own."""
        return read_only_view(self._lake.desc)

    @property
    def nrow(self) -> int:
        """The number of rows of the lake."""
        return self._lake.nrow

    @property
    def ncol(self) -> int:
        """The number of columns of the lake."""
        return self._lake.ncol

    @property
    def reward_range(self) -> tuple[Any, Any]:
        """``(min(reward_schedule), max(reward_schedule))``."""
        return min(self._lake.reward_schedule), max(self._lake.reward_schedule)

    @property
    def initial_state_distrib(self) -> np.ndarray:
        """The probability of each state to be the starting state (uniform over the start tiles), read-only: the
        kernels draw starts from their own."""
        return read_only_view(self._lake.initial_state_distrib)

    @property
    def P(self) -> dict[int, dict[int, list[tuple[Any, int, Any, bool]]]]:
        """The transition table ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` (built on first use)."""
        if self._P is None:
            self._P = read_only_transitions(
                self._lake.transitions(),
                "FrozenLakeEnv",
                "desc (or map_name), is_slippery, success_rate and reward_schedule",
            )
        return self._P

    def _render_text(self, index: int) -> str:
        state = self._batch.state[index]
        lastaction = int(state[LAST_ACTION])
        return self._lake.render_text(int(state[STATE]), None if lastaction < 0 else lastaction)


class FrozenLakeEnv(_LakeAttributes, DiscreteToyTextEnv):
    """
    ## Description

    Cross a frozen lake from the start tile to the goal tile without falling into a hole. The ice is
    slippery (unless `is_slippery=False`), so the player may move perpendicular to the intended
    direction.

    The player starts on the start tile `S` (`[0, 0]` in the predefined maps) and the goal `G` is at
    the far corner (`[3, 3]` in the 4x4 map). Holes `H` are at fixed places in the predefined maps and
    at random places in a generated map, which always has a path to the goal. The player moves until
    reaching the goal or falling into a hole.

    ## Action Space

    `Discrete(4)`: the direction to move in.

    - 0: Move left
    - 1: Move down
    - 2: Move right
    - 3: Move up

    ## Observation Space

    The player's position as the `int` `current_row * ncols + current_col` (rows and columns from 0),
    in `Discrete(nrow * ncol)`. The goal of the 4x4 map is `3 * 4 + 3 = 15`.

    | Map | Observations | Goal |
    |-----|--------------|------|
    | 4x4 | 0 ... 15     | 15   |
    | 8x8 | 0 ... 63     | 63   |

    ## Starting State

    The player starts on the start tile, state `0` in the predefined maps (a start tile is drawn
    uniformly when a custom map has several).

    ## Rewards

    With the default `reward_schedule=(1, 0, 0)`:

    - Reach goal: +1
    - Reach hole: 0
    - Reach frozen: 0

    Rewards are the schedule's values as given (Python `int` by default). A step from a hole or the
    goal (after termination) stays there with reward `0`.

    ## Episode End

    - Termination:
        1. The player moves into a hole.
        2. The player reaches the goal (`nrow * ncol - 1` in the predefined maps).
    - Truncation (the `TimeLimit` wrapper of `make`): 100 steps for `FrozenLake-v1`, 200 for
      `FrozenLake8x8-v1`.

    ## Information

    `step()` and `reset()` return `{"prob": p}`: the probability of the transition taken (`1` at reset,
    `1.0`, `success_rate` or the failure rate at a step).

    ## Arguments

    ```python
    import nbgym
    nbgym.make("FrozenLake-v1", desc=None, map_name="4x4", is_slippery=True,
               success_rate=1.0 / 3.0, reward_schedule=(1, 0, 0))
    ```

    - `desc=None`: a custom map, e.g. `["SFFF", "FHFH", "FFFH", "HFFG"]`, with the letters `S` (start),
      `F` (frozen), `H` (hole) and `G` (goal). With `desc=None`, `map_name` is used; with both `None`,
      a random 8x8 map with 80% frozen tiles is generated. `generate_random_map(size, p, seed)` (in
      this module) draws one:

      ```python
      from nbgym.envs.toy_text.frozen_lake import generate_random_map
      nbgym.make("FrozenLake-v1", desc=generate_random_map(size=8))
      ```

    - `map_name="4x4"`: one of the predefined maps:

      ```
      "4x4": ["SFFF",
              "FHFH",
              "FFFH",
              "HFFG"]

      "8x8": ["SFFFFFFF",
              "FFFFFFFF",
              "FFFHFFFF",
              "FFFFFHFF",
              "FFFHFFFF",
              "FHHFFFHF",
              "FHFFHFHF",
              "FFFHFFFG"]
      ```

    - `is_slippery=True`: the player moves in the intended direction with probability `success_rate`,
      else in either perpendicular direction with equal probability. With action left and
      `success_rate=1/3`, P(left) = P(up) = P(down) = 1/3; with action up and `success_rate=3/4`,
      P(up) = 3/4 and P(left) = P(right) = 1/8.
    - `success_rate=1.0/3.0`: the probability of moving in the intended direction on slippery ice.
    - `reward_schedule=(1, 0, 0)`: the rewards of reaching the goal, a hole and a frozen tile (the
      start tile included).

    The dynamics are compiled: `nbgym.make_vec("FrozenLake-v1", num_envs=4096)` steps all
    sub-environments in one call (`FrozenLakeVectorEnv`). The transition table `P` is built on first
    access.

    ## Version History

    * v1: Bug fixes to rewards (reward customization added in gymnasium 1.3).
    * v0: Initial version release.
    """

    window_attributes = ("window_surface", "clock", None)

    gymnasium_hooks = {"_render_gui": ("render",), "_center_small_rect": ("render",)}

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}

    @declares_arguments
    def __init__(
        self,
        render_mode: str | None = None,
        desc: list[str] | None = None,
        map_name: str | None = "4x4",
        is_slippery: bool = True,
        success_rate: float = 1.0 / 3.0,
        reward_schedule: tuple[Any, Any, Any] = (1, 0, 0),
    ) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""


FrozenLakeVectorEnv = vector_env_class(
    FrozenLakeEnv,
    doc="""FrozenLake's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("FrozenLake-v1", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode, infos
    included. All sub-environments share one lake (with ``desc=None, map_name=None``, one random map).
    See ``FrozenLakeEnv`` for the environment and ``KernelVectorEnv`` for the vector arguments.
    """,
)
