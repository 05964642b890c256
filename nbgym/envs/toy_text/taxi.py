"""Taxi: pick up a passenger and drop them at their destination, as gymnasium's ``Taxi-v4``, on the compiled engine.

The walls, the pick-up/drop-off rules and the rain make a state's outcomes tedious to compute, so
they are computed once, in Python, into transition tables held in the parameter record
(``next_state[s, a, outcome]``, ``reward[s, a]``, ``terminated[s, a]``); the kernels sample an
outcome and look it up, and apply the fickle passenger's change of destination on top.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from nbgym import spaces
from nbgym.engine import Physics, declares_arguments, rng, vector_env_class
from nbgym.engine.actions import keys_a_dict
from nbgym.engine.state_views import StateView
from nbgym.envs.toy_text._common import (
    AUX_WIDTH,
    LAST_ACTION,
    PROB,
    STATE,
    CodedValues,
    DiscreteToyTextEnv,
    as_compared,
    begin_step,
    check_probability,
    cumulative3,
    first_above,
    grid_state_views,
    sample_start,
)
from nbgym.utils import colorize
from nbgym.envs._read_only import ReadOnlyList, read_only_transitions

MAP = [
    "+---------+",
    "|R: | : :G|",
    "| : | : : |",
    "| : : : : |",
    "| | : | : |",
    "|Y| : |B: |",
    "+---------+",
]

_LOCS = ((0, 0), (0, 4), (4, 0), (4, 3))
_LOCS_COLORS = ((255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255))
_FIXED_MAP = (
    "Taxi's {name} cannot be changed in nbgym: its kernels and frames use their own copy of the map's locations. Copy "
    "the list (list(env.unwrapped.{name})) to change a list of your own."
)
_NUM_STATES, _NUM_ACTIONS, _SIDE = 500, 6, 5
_SOUTH, _NORTH, _EAST, _WEST, _PICKUP, _DROPOFF = range(_NUM_ACTIONS)
_ACTION_NAMES = ("South", "North", "East", "West", "Pickup", "Dropoff")
# (row step, column step) of the intended direction and of its left and right neighbours, by move action.
_RAINY_MOVES = (
    ((1, 0), (0, 1), (0, -1)),
    ((-1, 0), (0, -1), (0, 1)),
    ((0, 1), (-1, 0), (1, 0)),
    ((0, -1), (1, 0), (-1, 0)),
)
_IN_TAXI = 4
_FICKLE = 2
"""The ``state`` column of the fickle passenger's pending change of destination."""

# `prob` info codes: 1.0 (the reset, and steps with one outcome), then the rain's intended and lateral moves.
_PROB_ONE, _PROB_RAINY, _PROB_LATERAL = 0, 1, 2


def _reset(params, state, i, stream, aux):
    u = rng.random(stream, i)
    state[i, STATE] = sample_start(params._starts, params._start_cumulative, params._starts.shape[0], u)
    state[i, LAST_ACTION] = -1
    state[i, _FICKLE] = 0
    if params._fickle_passenger:
        if as_compared(rng.random(stream, i), params._fickle_float32) < params._fickle_probability:
            state[i, _FICKLE] = 1
    aux[i, PROB] = _PROB_ONE


def _step(params, state, i, actions, stream, aux):
    s, action, u = begin_step(state, i, actions, stream)
    outcome = 0
    aux[i, PROB] = _PROB_ONE
    if params._is_rainy and action < _PICKUP:
        outcome = first_above(params._cumulative, as_compared(u, params._rain_float32))
        aux[i, PROB] = _PROB_RAINY
        if outcome != 0:
            aux[i, PROB] = _PROB_LATERAL
    new_state = params._next_state[s, action, outcome]
    # A fickle passenger changes destination once: on the first move of the taxi with them on board.
    if params._fickle_passenger and state[i, _FICKLE] != 0 and (s // 4) % 5 == _IN_TAXI and new_state // 20 != s // 20:
        state[i, _FICKLE] = 0
        destination = s % 4
        other = rng.integers(stream, i, 0, 3)
        if other >= destination:
            other += 1
        new_state = new_state - new_state % 4 + other
    state[i, STATE] = new_state
    return params._reward[s, action], params._terminated[s, action] != 0


def _observe(params, state, i, obs):
    obs[i] = state[i, STATE]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < _NUM_ACTIONS


PHYSICS = Physics(
    "Taxi",
    params=[
        ("_is_rainy", np.bool_),
        ("_fickle_passenger", np.bool_),
        ("_fickle_probability", np.float64),
        ("_rain_float32", np.bool_),
        ("_fickle_float32", np.bool_),
        ("_cumulative", np.float64, (3,)),
        ("_next_state", np.int16, (_NUM_STATES, _NUM_ACTIONS, 3)),
        ("_reward", np.float64, (_NUM_STATES, _NUM_ACTIONS)),
        ("_terminated", np.uint8, (_NUM_STATES, _NUM_ACTIONS)),  # numba has no bool sub-arrays
        ("_starts", np.int64, (300,)),
        ("_start_cumulative", np.float64, (300,)),
    ],
    state=(3, np.int64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
    read_action=keys_a_dict(_NUM_ACTIONS),  # gymnasium's P[s][a]
    aux_width=AUX_WIDTH,
)


def encode(taxi_row: int, taxi_col: int, pass_loc: int, dest_idx: int) -> int:
    """The state number of a taxi position, a passenger location and a destination."""
    return ((taxi_row * _SIDE + taxi_col) * 5 + pass_loc) * 4 + dest_idx


def decode(state: int) -> tuple[int, int, int, int]:
    """``(taxi_row, taxi_col, pass_loc, dest_idx)`` of a state number.

    Raises:
        AssertionError: If ``state`` is not one of the 500 states (as gymnasium's ``decode``).
    """
    rest, dest_idx = divmod(state, 4)
    rest, pass_loc = divmod(rest, 5)
    taxi_row, taxi_col = divmod(rest, _SIDE)
    assert 0 <= taxi_row < _SIDE, f"{state!r} is not a Taxi state: states are 0 to {_NUM_STATES - 1}."
    return taxi_row, taxi_col, pass_loc, dest_idx


_DESC = np.asarray(MAP, dtype="c")
_DESC.flags.writeable = False  # the kernels and action masks use their own map: an edit would not reach them


def _open(row: int, col: int, col_step: int) -> bool:
    """Whether no wall stands between cell ``(row, col)`` and its east (``col_step=1``) or west neighbour."""
    return _DESC[1 + row, 2 * col + 1 + col_step] == b":"


def _clamp(value: int) -> int:
    return min(max(value, 0), _SIDE - 1)


def _lateral(row: int, col: int, row_step: int, col_step: int) -> tuple[int, int]:
    """Where a sideways drift of the rain takes the taxi: the clamped cell, or nowhere across a wall."""
    new_row, new_col = _clamp(row + row_step), _clamp(col + col_step)
    if col_step != 0 and not _open(new_row, new_col, -col_step):
        return row, col
    return new_row, new_col


def _can_move(row: int, col: int, action: int) -> bool:
    if action in (_SOUTH, _NORTH):
        return 0 <= row + (1 if action == _SOUTH else -1) < _SIDE
    return _open(row, col, 1 if action == _EAST else -1)


def _pickup_dropoff(row: int, col: int, pass_loc: int, dest: int, action: int) -> tuple[int, int, bool]:
    """``(new pass_loc, reward, terminated)`` of a pick-up or drop-off."""
    here = (row, col)
    if action == _PICKUP:
        if pass_loc < _IN_TAXI and here == _LOCS[pass_loc]:
            return _IN_TAXI, -1, False
        return pass_loc, -10, False
    if pass_loc == _IN_TAXI and here == _LOCS[dest]:
        return dest, 20, True
    if pass_loc == _IN_TAXI and here in _LOCS:
        return _LOCS.index(here), -1, False
    return pass_loc, -10, False


class _Tables:
    """The transition tables of a Taxi: ``next_state[s, a, k]`` of the (up to three) outcomes, ``reward[s, a]``
    and ``terminated[s, a]``; dry moves have one outcome, rainy moves three (intended, left, right)."""

    def __init__(self, is_rainy: bool) -> None:
        self.is_rainy = is_rainy
        self.next_state = np.zeros((_NUM_STATES, _NUM_ACTIONS, 3), dtype=np.int16)
        self.reward = np.full((_NUM_STATES, _NUM_ACTIONS), -1, dtype=np.int64)
        self.terminated = np.zeros((_NUM_STATES, _NUM_ACTIONS), dtype=np.bool_)
        for s in range(_NUM_STATES):
            row, col, pass_loc, dest = decode(s)
            for action in range(_NUM_ACTIONS):
                if action >= _PICKUP:
                    pass_loc_after, reward, terminated = _pickup_dropoff(row, col, pass_loc, dest, action)
                    self.next_state[s, action, :] = encode(row, col, pass_loc_after, dest)
                    self.reward[s, action] = reward
                    self.terminated[s, action] = terminated
                    continue
                cells = [(row, col)] * 3
                if _can_move(row, col, action):
                    (row_step, col_step), left, right = _RAINY_MOVES[action]
                    cells[0] = (_clamp(row + row_step), _clamp(col + col_step))
                    if is_rainy:
                        cells[1] = _lateral(row, col, *left)
                        cells[2] = _lateral(row, col, *right)
                    else:
                        cells[1] = cells[2] = cells[0]
                for k, (new_row, new_col) in enumerate(cells):
                    self.next_state[s, action, k] = encode(new_row, new_col, pass_loc, dest)

    def outcomes(self, a: int) -> int:
        """The number of outcomes of action ``a`` (one, or three for a rainy move)."""
        return 3 if self.is_rainy and a < _PICKUP else 1


def _action_masks() -> np.ndarray:
    masks = np.zeros((_NUM_STATES, _NUM_ACTIONS), dtype=np.int8)
    for s in range(_NUM_STATES):
        row, col, pass_loc, dest = decode(s)
        masks[s, _SOUTH] = row < _SIDE - 1
        masks[s, _NORTH] = row > 0
        masks[s, _EAST] = col < _SIDE - 1 and _open(row, col, 1)
        masks[s, _WEST] = col > 0 and _open(row, col, -1)
        masks[s, _PICKUP] = pass_loc < _IN_TAXI and (row, col) == _LOCS[pass_loc]
        masks[s, _DROPOFF] = pass_loc == _IN_TAXI and (row, col) in _LOCS
    return masks


_ACTION_MASKS = _action_masks()


@functools.cache
def _tables(is_rainy: bool) -> _Tables:
    return _Tables(is_rainy)


def _initial_state_distrib() -> np.ndarray:
    distribution = np.zeros(_NUM_STATES)
    for s in range(_NUM_STATES):
        _, _, pass_loc, dest = decode(s)
        if pass_loc < _IN_TAXI and pass_loc != dest:
            distribution[s] += 1
    return distribution / distribution.sum()


_INITIAL_STATE_DISTRIB = _initial_state_distrib()
_INITIAL_STATE_DISTRIB.flags.writeable = False  # the kernels draw starts from their own table


class _Taxi:
    """A Taxi's arguments, checked, with its parameter record and info values.

    Raises:
        ValueError: If ``rainy_probability`` or ``fickle_probability`` is not in ``[0, 1]``.
    """

    def __init__(
        self, is_rainy: bool, fickle_passenger: bool, rainy_probability: float, fickle_probability: float
    ) -> None:
        rain_float32 = check_probability("rainy_probability", rainy_probability)
        fickle_float32 = check_probability("fickle_probability", fickle_probability)
        self.is_rainy = is_rainy
        self.fickle_passenger = fickle_passenger
        self.rainy_probability = rainy_probability
        self.rainy_lateral_probability = (1.0 - rainy_probability) / 2.0
        self.fickle_probability = fickle_probability
        self.tables = _tables(bool(is_rainy))
        starts = np.flatnonzero(_INITIAL_STATE_DISTRIB)
        self.params = PHYSICS.new_params(
            _is_rainy=bool(is_rainy),
            _fickle_passenger=bool(fickle_passenger),
            _fickle_probability=fickle_probability,
            _rain_float32=rain_float32,
            _fickle_float32=fickle_float32,
        )
        params = self.params[0]
        params["_cumulative"] = cumulative3(
            rainy_probability, self.rainy_lateral_probability, self.rainy_lateral_probability
        )
        params["_next_state"] = self.tables.next_state
        params["_reward"] = self.tables.reward
        params["_terminated"] = self.tables.terminated
        params["_starts"] = starts
        params["_start_cumulative"] = np.cumsum(_INITIAL_STATE_DISTRIB)[starts]
        self.probs = CodedValues((1.0, rainy_probability, self.rainy_lateral_probability))

    def transitions(self) -> dict[int, dict[int, list[tuple[Any, int, int, bool]]]]:
        """The table ``P[s][a] = [(prob, next_state, reward, terminated), ...]``."""
        tables = self.tables
        table: dict[int, dict[int, list[tuple[Any, int, int, bool]]]] = {}
        for s in range(_NUM_STATES):
            table[s] = {}
            for a in range(_NUM_ACTIONS):
                reward, terminated = int(tables.reward[s, a]), bool(tables.terminated[s, a])
                if tables.outcomes(a) == 1:
                    table[s][a] = [(1.0, int(tables.next_state[s, a, 0]), reward, terminated)]
                else:
                    probs = (self.rainy_probability, self.rainy_lateral_probability, self.rainy_lateral_probability)
                    table[s][a] = [
                        (p, int(next_state), reward, terminated)
                        for p, next_state in zip(probs, tables.next_state[s, a])
                    ]
        return table


def _render_text(s: int, lastaction: int | None) -> str:
    """The map as gymnasium's ANSI text: the taxi (yellow, green with the passenger on board), the
    waiting passenger (blue) and the destination (magenta), then the last action."""
    cells = [[letter.decode("utf-8") for letter in line] for line in _DESC.tolist()]
    taxi_row, taxi_col, pass_loc, dest = decode(s)
    taxi = cells[1 + taxi_row]
    if pass_loc < _IN_TAXI:
        taxi[2 * taxi_col + 1] = colorize(taxi[2 * taxi_col + 1], "yellow", highlight=True)
        row, col = _LOCS[pass_loc]
        cells[1 + row][2 * col + 1] = colorize(cells[1 + row][2 * col + 1], "blue", bold=True)
    else:
        letter = taxi[2 * taxi_col + 1]
        taxi[2 * taxi_col + 1] = colorize("_" if letter == " " else letter, "green", highlight=True)
    row, col = _LOCS[dest]
    cells[1 + row][2 * col + 1] = colorize(cells[1 + row][2 * col + 1], "magenta")
    footer = "\n" if lastaction is None else f"  ({_ACTION_NAMES[lastaction]})\n"
    return "\n".join("".join(line) for line in cells) + "\n" + footer


def _read_fickle_step(params: np.record, row: np.ndarray) -> bool:
    return bool(row[_FICKLE])


def _write_fickle_step(params: np.record, row: np.ndarray, value: Any) -> None:
    row[_FICKLE] = bool(value)  # gymnasium's step tests its truth


class _TaxiAttributes:
    """gymnasium's Taxi attributes and methods, shared by the single and the vector environment."""

    physics = PHYSICS
    renderer = "nbgym.envs._render.taxi"

    def _configure(self, arguments: Any) -> np.ndarray:
        self._taxi = _Taxi(
            arguments.is_rainy, arguments.fickle_passenger, arguments.rainy_probability, arguments.fickle_probability
        )
        self._probs = self._taxi.probs
        return self._taxi.params

    def _single_spaces(self) -> tuple[spaces.Discrete, spaces.Discrete]:
        return spaces.Discrete(_NUM_STATES), spaces.Discrete(_NUM_ACTIONS)

    _taxi: _Taxi
    _P: dict | None = None
    state_views = (
        *grid_state_views(lambda params: _NUM_STATES, _NUM_ACTIONS, int64_steps=False, lastaction_at_init=True),
        StateView(
            "fickle_step",
            _read_fickle_step,
            _write_fickle_step,
            "Whether the passenger will still change destination on the taxi's next move with them on board.",
            before_reset=False,
        ),
    )
    max_row = _SIDE - 1
    max_col = _SIDE - 1

    @property
    def desc(self) -> np.ndarray:
        """The map as a 2-D array of single bytes, read-only: nbgym's kernels, action masks and frames use their own."""
        return _DESC

    @property
    def locs(self) -> list[tuple[int, int]]:
        """The ``(row, column)`` of the designated locations Red, Green, Yellow and Blue; the list refuses changes in
        place, which the kernels (action masks, fickle destinations) would not see."""
        return ReadOnlyList(_LOCS, _FIXED_MAP.format(name="locs"))

    @property
    def locs_colors(self) -> list[tuple[int, int, int]]:
        """The RGB colours of the designated locations; the list refuses changes in place, which the frames would not
        show."""
        return ReadOnlyList(_LOCS_COLORS, _FIXED_MAP.format(name="locs_colors"))

    @property
    def is_rainy(self) -> bool:
        """Whether the taxi may drift sideways when it moves."""
        return self._taxi.is_rainy

    @property
    def fickle_passenger(self) -> bool:
        """Whether the passenger may change destination on the first move after being picked up."""
        return self._taxi.fickle_passenger

    @property
    def rainy_probability(self) -> float:
        """The probability of moving in the intended direction in the rain."""
        return self._taxi.rainy_probability

    @property
    def fickle_probability(self) -> float:
        """The probability that a fickle passenger changes destination."""
        return self._taxi.fickle_probability

    @property
    def _rainy_lateral_probability(self) -> float:
        return self._taxi.rainy_lateral_probability

    @property
    def initial_state_distrib(self) -> np.ndarray:
        """The probability of each state to start an episode: uniform over the 300 states whose
        passenger waits somewhere else than at their destination (read-only: the kernels draw from their own)."""
        return _INITIAL_STATE_DISTRIB

    @property
    def P(self) -> dict[int, dict[int, list[tuple[Any, int, int, bool]]]]:
        """The transition table ``P[s][a] = [(prob, next_state, reward, terminated), ...]`` (built on first use)."""
        if self._P is None:
            self._P = read_only_transitions(
                self._taxi.transitions(), "TaxiEnv", "its map, is_rainy and fickle_passenger"
            )
        return self._P

    def encode(self, taxi_row: int, taxi_col: int, pass_loc: int, dest_idx: int) -> int:
        """The state number of a taxi position, a passenger location and a destination."""
        return encode(taxi_row, taxi_col, pass_loc, dest_idx)

    def decode(self, i: int) -> tuple[int, int, int, int]:
        """``(taxi_row, taxi_col, pass_loc, dest_idx)`` of state ``i``.

        Raises:
            AssertionError: If ``i`` is not one of the 500 states.
        """
        return decode(i)

    def action_mask(self, state: int) -> np.ndarray:
        """Which actions change the state ``state``: an ``int8`` array of shape ``(6,)``.

        Raises:
            AssertionError: If ``state`` is not one of the 500 states.
        """
        decode(state)
        return _ACTION_MASKS[int(state)].copy()

    def _render_text(self, index: int) -> str:
        state = self._batch.state[index]
        lastaction = int(state[LAST_ACTION])
        return _render_text(int(state[STATE]), None if lastaction < 0 else lastaction)


class TaxiEnv(_TaxiAttributes, DiscreteToyTextEnv):
    """
    ## Description

    Navigate a taxi in a 5x5 grid world to a passenger waiting at one of four designated locations
    (Red, Green, Yellow and Blue), pick them up, drive them to their destination (another of the four
    locations) and drop them off. The episode ends with the drop-off. The taxi starts on a random
    square, the passenger at one of the designated locations.

    Delivering the passenger earns a reward; illegal pick-up or drop-off attempts are penalised, and
    every other step costs a little.

    Map:

        +---------+
        |R: | : :G|
        | : | : : |
        | : : : : |
        | | : | : |
        |Y| : |B: |
        +---------+

    From "Hierarchical Reinforcement Learning with the MAXQ Value Function Decomposition" by Tom
    Dietterich [<a href="#taxi_ref">1</a>].

    ## Action Space

    `Discrete(6)`: the direction to move the taxi in, or a pick-up or drop-off.

    - 0: Move south (down)
    - 1: Move north (up)
    - 2: Move east (right)
    - 3: Move west (left)
    - 4: Pickup passenger
    - 5: Drop off passenger

    ## Observation Space

    500 discrete states (`Discrete(500)`): 25 taxi positions, 5 passenger locations (the four
    designated ones, or in the taxi) and 4 destinations. The state is returned as the `int`
    `((taxi_row * 5 + taxi_col) * 5 + passenger_location) * 4 + destination`.

    | Index | Passenger location | Destination |
    |-------|--------------------|-------------|
    | 0     | Red                | Red         |
    | 1     | Green              | Green       |
    | 2     | Yellow             | Yellow      |
    | 3     | Blue               | Blue        |
    | 4     | In taxi            |             |

    Destinations are shown on the ANSI map with the first letter of their colour. 400 states can be
    reached during an episode (the passenger is never at their destination before the end), plus
    the 4 states right after a successful drop-off with the taxi at the destination: 404 in all.

    ## Starting State

    Drawn uniformly from the 300 states whose passenger is at one of the designated locations but not
    at their destination: 25 taxi positions, 4 passenger locations and 3 destinations.

    ## Rewards

    - -1 per step unless another reward is triggered.
    - +20 delivering passenger.
    - -10 executing "pickup" and "drop-off" actions illegally.

    An action that changes nothing, like driving into a wall, costs the time step penalty; the
    `action_mask` of the info tells which actions change the state. Rewards are Python `int`s.

    ## Episode End

    - Termination: the taxi drops off the passenger at their destination.
    - Truncation (the `TimeLimit` wrapper of `make`): 200 steps.

    ## Information

    `step()` and `reset()` return a dict with:

    - `"prob"`: the probability of the transition taken (`1.0`, or the rain's probabilities).
    - `"action_mask"`: an `int8` array of shape `(6,)`, 1 for the actions that change the state. Sample
      a state-changing action with `env.action_space.sample(info["action_mask"])`, or restrict a
      Q-value argmax to `np.where(info["action_mask"] == 1)[0]`.

    `env.unwrapped.action_mask(state)` computes the mask of any state.

    ## Arguments

    ```python
    import nbgym
    nbgym.make("Taxi-v4", is_rainy=False, fickle_passenger=False,
               rainy_probability=0.8, fickle_probability=0.3)
    ```

    - `is_rainy=False`: the taxi moves in the intended direction with probability `rainy_probability`,
      else drifts to either side with equal probability (not across walls; a move blocked by a wall
      or the grid's edge does not drift either). Pick-up and drop-off stay deterministic.
    - `rainy_probability=0.8`: the probability of the intended move in the rain; each lateral drift
      has `(1 - rainy_probability) / 2`.
    - `fickle_passenger=False`: with probability `fickle_probability` (drawn at reset), the passenger
      changes destination when the taxi first moves with them on board. This happens at most once per
      episode, even if the passenger is dropped off and picked up again.
    - `fickle_probability=0.3`: the probability of a fickle passenger changing their mind.

    The dynamics are compiled: `nbgym.make_vec("Taxi-v4", num_envs=4096)` steps all sub-environments
    in one call (`TaxiVectorEnv`). The transition table `P` is built on first access.

    ## References

    <a id="taxi_ref"></a>[1] T. G. Dietterich, "Hierarchical Reinforcement Learning with the MAXQ Value
    Function Decomposition," Journal of Artificial Intelligence Research, vol. 13, pp. 227–303, Nov.
    2000, doi: 10.1613/jair.639.

    ## Version History

    * v4: Fixed `is_rainy=True` and `fickle_passenger=True` (gymnasium 1.3); added `rainy_probability`
      and `fickle_probability`. `Taxi-v3` is deprecated.
    * v3: Map correction and a cleaner domain description; action masking in the infos (v0.25.0);
      `is_rainy` and `fickle_passenger` (v1.2.0).
    * v2: The taxi never starts at the goal; observations updated in the rollout; new reward threshold.
    * v1: Removed (3, 2) from the locations; added the `passidx < 4` check.
    * v0: Initial version release.
    """

    window_attributes = ("window", "clock", None)

    gymnasium_hooks = {
        "encode": ("__init__",),
        "decode": ("step", "reset", "render"),
        "action_mask": ("step", "reset"),
        "_build_dry_transitions": ("__init__",),
        "_build_rainy_transitions": ("__init__",),
        "_calc_new_position": ("__init__",),
        "_pickup": ("__init__",),
        "_dropoff": ("__init__",),
        "_render_gui": ("render",),
        "get_surf_loc": ("render",),
    }

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 4}

    @declares_arguments
    def __init__(
        self,
        render_mode: str | None = None,
        is_rainy: bool = False,
        fickle_passenger: bool = False,
        rainy_probability: float = 0.8,
        fickle_probability: float = 0.3,
    ) -> None:
        """The env's arguments, as gymnasium's (see Arguments above)."""

    def _reset_info(self) -> dict[str, Any]:
        info = super()._reset_info()
        info["action_mask"] = _ACTION_MASKS[self._batch.obs.item(0)].copy()
        return info

    _step_info = _reset_info

    def _reward(self) -> int:
        return int(self._batch.rewards.item(0))


class TaxiVectorEnv(vector_env_class(TaxiEnv)):
    """Taxi's compiled vector environment: all sub-environments in one compiled call per step.

    The same results, bit for bit, as ``gymnasium.make_vec("Taxi-v4", num_envs,
    vectorization_mode="sync")`` for the same seeds and actions, in every autoreset mode, infos
    (``prob``, ``action_mask``) included. See ``TaxiEnv`` for the environment and ``KernelVectorEnv``
    for the vector arguments.
    """

    def _infos(self, aux: np.ndarray, obs: np.ndarray, contributing: np.ndarray | None) -> dict[str, Any]:
        infos = super()._infos(aux, obs, contributing)
        masks = np.take(_ACTION_MASKS, obs, axis=0)
        if contributing is not None:
            masks[~contributing] = 0
        infos["action_mask"] = masks
        infos["_action_mask"] = infos["_prob"].copy()
        return infos
