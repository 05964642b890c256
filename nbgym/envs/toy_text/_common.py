"""What the grid-world toy-text environments (FrozenLake, Taxi, CliffWalking) share on the compiled engine.

Their gymnasium originals are tables ``P[s][a] = [(prob, next_state, reward, terminated), ...]``
sampled by one ``random()`` per reset and per step: the first outcome whose cumulative probability
exceeds the draw is taken (the first outcome when none does). The kernels make the same draw and
the same choice. The Python types gymnasium returns (an ``int`` reset ``prob`` against a ``float``
step ``prob``, rewards of the user's ``reward_schedule``) are kept by having the kernels write a
*code* per sub-environment into ``aux[i, PROB]`` and ``aux[i, REWARD]`` that indexes a tuple of the
exact Python objects (:class:`CodedValues`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from nbgym.engine import KernelEnv, KernelVectorEnv, njit, rng
from nbgym.engine.state_views import StateView

PROB, REWARD = 0, 1
"""The ``aux`` slots of a sub-environment's ``prob`` info code and reward code."""

AUX_WIDTH = 2

STATE, LAST_ACTION = 0, 1
"""The ``state`` columns of the discrete state and of the last action (-1 after a reset), for rendering."""


@njit
def first_above(cumulative, u):
    """The index of the first of three cumulative probabilities above ``u``, or 0 when none is.

    This is ``np.argmax(np.cumsum(probs) > u)`` of gymnasium's ``categorical_sample``, whose argmax of an
    all-false array is 0 (possible when the probabilities sum to slightly less than 1). The cumulative
    probabilities do not decrease, so the first one above ``u`` comes after those at or below it:
    counting those avoids a branch on the random draw (mispredicted half of the time).
    """
    return (np.int64(cumulative[0] <= u) + np.int64(cumulative[1] <= u) + np.int64(cumulative[2] <= u)) % 3


@njit
def slip(cumulative, action, u):
    """``(direction, outcome)`` on slippery ground: outcome ``k`` of the moves ``(action - 1, action, action + 1)``
    mod 4, drawn with ``u`` against their cumulative probabilities."""
    outcome = first_above(cumulative, u)
    return (action + outcome + 3) % 4, outcome


@njit
def grid_move(s, row_step, col_step, nrow, ncol):
    """``(row, col)`` one step away from state ``s`` of an ``nrow`` x ``ncol`` grid, kept inside its edges."""
    row = min(max(s // ncol + row_step, 0), nrow - 1)
    col = min(max(s % ncol + col_step, 0), ncol - 1)
    return row, col


@njit
def begin_step(state, i, actions, stream):
    """``(s, action, u)`` of sub-environment ``i``'s step: its state, its action (recorded for rendering) and the
    step's ``random()`` draw, which gymnasium's ``categorical_sample`` makes at every step."""
    action = actions[i]
    state[i, LAST_ACTION] = action
    return state[i, STATE], action, rng.random(stream, i)


@njit
def sample_start(starts, cumulative, count, u):
    """The start state drawn with ``u``: the first of ``starts[:count]`` whose cumulative probability is above
    ``u``, or state 0 when none is (gymnasium's ``categorical_sample`` over the initial distribution)."""
    for j in range(count):
        if cumulative[j] > u:
            return starts[j]
    return 0


@njit
def as_compared(u, float32):
    """The draw ``u`` as numpy compares it with the probabilities: a Python float meets ``np.float32`` numbers
    as a float32 (NEP 50), so it is rounded to float32 first when they are float32."""
    if float32:
        return np.float64(np.float32(u))
    return u


def cumulative3(first: Any, second: Any, third: Any) -> np.ndarray:
    """``np.cumsum`` of three outcome probabilities, as ``categorical_sample`` computes it (float32 numbers add up
    in float32), held exactly as float64."""
    return np.cumsum(np.asarray([first, second, third])).astype(np.float64)


def check_probability(name: str, value: Any) -> bool:
    """Checks that ``value`` is a probability, and tells whether draws are compared with it in float32.

    Returns:
        Whether ``value`` is an ``np.float32`` (see :func:`as_compared`).

    Raises:
        ValueError: If ``value`` is not a real number in ``[0, 1]``, or is a numpy float of another precision
            than 64 or 32 bits.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a probability (a number in [0, 1]), got {value!r}.")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}.")
    if isinstance(value, np.floating) and not isinstance(value, (np.float64, np.float32)):
        raise ValueError(f"{name} must be a Python, float64 or float32 number, got {type(value).__name__} {value!r}.")
    return isinstance(value, np.float32)


class CodedValues:
    """The Python values an info key (or reward) takes, indexed by the code the kernels write.

    Args:
        values: The values, as gymnasium's environment returns them (their exact Python objects).
    """

    def __init__(self, values: Sequence[Any]) -> None:
        self.values = tuple(values)
        self._tables: dict[type, np.ndarray] = {}

    def __getitem__(self, code: float | int) -> Any:
        return self.values[int(code)]

    def batch(self, codes: np.ndarray, contributing: np.ndarray | None = None) -> np.ndarray:
        """The values of ``codes`` batched as gymnasium's ``SyncVectorEnv`` batches a scalar info.

        The array's dtype is the type of the first contributing sub-environment's value (later values are
        cast into it, so an ``int`` first value truncates later floats, as in gymnasium); sub-environments
        that do not contribute hold 0.

        Args:
            codes: The code of every sub-environment (float64, as the kernels' ``aux`` holds them).
            contributing: Which sub-environments give the key (``None``: all of them).

        Returns:
            The batched values.
        """
        indices = codes.astype(np.intp)
        first = 0 if contributing is None else int(np.argmax(contributing))
        table = self._table(type(self.values[indices[first]]))
        batched = table[indices]
        if contributing is not None:
            batched[~contributing] = 0
        return batched

    def _table(self, kind: type) -> np.ndarray:
        table = self._tables.get(kind)
        if table is None:
            table = np.zeros(len(self.values), dtype=kind)
            for code, value in enumerate(self.values):
                table[code] = value
            self._tables[kind] = table
        return table


def grid_state_views(
    num_states: Callable[[np.record], int], num_actions: int, *, int64_steps: bool, lastaction_at_init: bool = False
) -> tuple[StateView, ...]:
    """The ``s`` and ``lastaction`` attributes of a grid world, as gymnasium's hold them.

    Args:
        num_states: The number of states of the env with this parameter record.
        num_actions: The number of actions.
        int64_steps: Whether gymnasium's step leaves ``s`` an ``np.int64`` (CliffWalking's table holds
            those) rather than an ``int``; a reset leaves an ``np.int64`` in every grid world.
        lastaction_at_init: Whether gymnasium's env sets ``lastaction = None`` when it is made (Taxi), so that it
            reads ``None`` before the first reset; the others have no ``lastaction`` until then.
    """

    def read_s(params: np.record, row: np.ndarray) -> int | np.int64:
        stepped = row[LAST_ACTION] >= 0
        return int(row[STATE]) if stepped and not int64_steps else np.int64(row[STATE])

    def write_s(params: np.record, row: np.ndarray, value: Any) -> None:
        count = num_states(params)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < count:
            raise ValueError(f"s must be a state of Discrete({count}) (an int in [0, {count})), got {value!r}.")
        row[STATE] = value

    def read_lastaction(params: np.record, row: np.ndarray) -> int | None:
        return None if row[LAST_ACTION] < 0 else int(row[LAST_ACTION])

    def write_lastaction(params: np.record, row: np.ndarray, value: Any) -> None:
        if value is None:
            row[LAST_ACTION] = -1
        elif (
            isinstance(value, (int, np.integer))
            and not isinstance(value, (bool, np.bool_))
            and 0 <= value < num_actions
        ):
            row[LAST_ACTION] = value
        else:
            raise ValueError(f"lastaction must be None or an action in [0, {num_actions}), got {value!r}.")

    return (
        StateView("s", read_s, write_s, "The current discrete state; assigning it moves the agent, as in gymnasium."),
        StateView(
            "lastaction",
            read_lastaction,
            write_lastaction,
            "The action of the last step (``None`` after a reset), which the rendering shows.",
            **({"before_reset": None} if lastaction_at_init else {}),
        ),
    )


class DiscreteToyTextEnv(KernelEnv):
    """A single grid-world toy-text environment: ``int`` observations, ``{"prob": ...}`` infos.

    Subclasses set ``_probs`` (the ``prob`` values by code) and ``_rewards`` (the rewards by code) in
    ``__init__``, and define ``_render_text(index)``, the ANSI text of the grid.
    """

    _probs: CodedValues
    _rewards: CodedValues
    _render_text: Callable[[int], str]

    def render(self) -> Any:
        """The ANSI text of the grid for ``render_mode="ansi"``, as gymnasium draws it; else the engine's frame."""
        if self.render_mode == "ansi":
            return self._render_text(0)
        return super().render()

    def _reset_info(self) -> dict[str, Any]:
        return {"prob": self._probs[self._batch.aux[0, PROB]]}

    _step_info = _reset_info

    def _observation(self) -> int:
        return self._batch.obs.item(0)

    def _reward(self) -> Any:
        return self._rewards[self._batch.aux[0, REWARD]]


class DiscreteToyTextVectorEnv(KernelVectorEnv):
    """The compiled vector environment of a grid-world toy-text environment.

    Infos are batched as gymnasium's ``SyncVectorEnv`` batches the sub-environments' ``{"prob": ...}``
    infos (see :meth:`CodedValues.batch`), with ``final_obs`` (ints) and ``final_info`` in ``SAME_STEP`` mode.
    Subclasses set ``_probs`` in ``__init__``, define ``_render_text(index)`` and may add
    per-observation infos in ``_infos``.
    """

    _probs: CodedValues
    _render_text: Callable[[int], str]

    def render(self) -> Any:
        """The ANSI texts of the sub-environments for ``render_mode="ansi"`` (a tuple); else the engine's frames."""
        if self.render_mode == "ansi":
            return tuple(self._render_text(i) for i in range(self.num_envs))
        return super().render()

    def _infos(self, aux: np.ndarray, obs: np.ndarray, contributing: np.ndarray | None) -> dict[str, Any]:
        mask = np.ones(self.num_envs, dtype=np.bool_) if contributing is None else contributing.copy()
        return {"prob": self._probs.batch(aux[:, PROB], contributing), "_prob": mask}

    def _final_observation(self, row: np.ndarray) -> int:
        return int(row)

    @classmethod
    def drawn_render_modes(cls, env_class: type) -> tuple[str, ...]:
        """Every render mode of the env: each sub-environment's frame or ANSI text, its "human" window."""
        return tuple(env_class.metadata["render_modes"])


DiscreteToyTextEnv.vector_base = DiscreteToyTextVectorEnv
