"""A compiled vector environment over a numba-compilable :class:`~nbgym.experimental.functional.FuncEnv`."""

from __future__ import annotations

import types
from typing import Any

import numba
import numpy as np

from nbgym import error, spaces
from nbgym.engine import rng as streams
from nbgym.experimental.functional import FuncEnv
from nbgym.utils.seeding import check_seed
from nbgym.vector import AutoresetMode, VectorEnv
from nbgym.vector.utils import batch_space

__all__ = ["NumbaFuncVectorEnv"]


def _batch_kernels(initial: Any, transition: Any, observation: Any, reward: Any, terminal: Any) -> tuple[Any, Any]:
    """The reset and step kernels over every sub-environment, calling the FuncEnv's compiled functions.

    Made per FuncEnv (the functions are closed over): numba compiles them once per process, not from its
    disk cache.
    """

    @numba.njit
    def reset_rows(state, obs, pcg, buf, params):
        for i in range(state.shape[0]):
            key = (pcg[i : i + 1], buf[i : i + 1])
            state[i] = initial(key, params)
            obs[i] = observation(state[i], key, params)

    @numba.njit
    def step_rows(state, obs, rewards, terminated, truncated, elapsed, ended, actions, pcg, buf, params, max_steps):
        for i in range(state.shape[0]):
            key = (pcg[i : i + 1], buf[i : i + 1])
            if ended[i]:
                # Next-step autoreset: the action is ignored, the sub-environment starts again.
                state[i] = initial(key, params)
                elapsed[i] = 0
                rewards[i] = 0.0
                terminated[i] = False
                truncated[i] = False
            else:
                before = state[i]  # a view: the FuncEnv's functions are pure (they return new states)
                after = transition(before, actions[i], key, params)
                rewards[i] = reward(before, actions[i], after, key, params)
                state[i] = after
                terminated[i] = terminal(after, key, params)
                elapsed[i] += 1
                truncated[i] = max_steps > 0 and elapsed[i] >= max_steps
            ended[i] = terminated[i] or truncated[i]
            obs[i] = observation(state[i], key, params)

    return reset_rows, step_rows


class NumbaFuncVectorEnv(VectorEnv):
    """A vector environment whose ``step()`` is one compiled call over a numba ``FuncEnv``'s functions.

    The FuncEnv declares ``observation_space`` (a ``Box``), ``action_space`` (``Discrete`` or ``Box``) and its
    functions as ``@staticmethod``-s that numba can compile (``transform`` with ``numba.njit`` is applied here):

    - ``initial(rng, params)`` returns a 1-D state array;
    - ``transition(state, action, rng, params)`` returns the next state (a new array: the functions are pure, and
      ``state`` is a view of the batch's row that they must not write);
    - ``observation(state, rng, params)`` the observation (an array of the space's shape, or a number);
    - ``reward(state, action, next_state, rng, params)`` a float; ``terminal(state, rng, params)`` a bool.

    ``rng`` is the sub-environment's own numpy-exact random stream, one row: draw from it with
    :mod:`nbgym.engine.rng` at row 0 (``rng.uniform(key, 0, low, high)``). ``params`` is the FuncEnv's
    ``default_params``: anything numba can type (a named tuple of numbers, ``None``).

    The vector semantics are gymnasium's ``SyncVectorEnv``'s with a ``TimeLimit``: ``reset(seed=s)`` gives
    sub-environment ``i`` the stream of ``np.random.default_rng(s + i)``; an episode ends when ``terminal`` says
    so or after ``max_episode_steps`` (0: never); on the next step that sub-environment starts again (its action
    ignored, reward 0, flags false): ``AutoresetMode.NEXT_STEP``. So a FuncEnv with gymnasium's dynamics gives
    gymnasium's numbers (``examples/functional_cartpole.py``).

    Args:
        func_env: The functional environment (its functions are compiled in place).
        num_envs: The number of sub-environments.
        max_episode_steps: The time limit (0: none).
        copy: Whether ``reset``/``step`` return copies of the buffers (``False``: views the next call overwrites).

    Raises:
        TypeError: If a function of ``func_env`` is not a static method.
        ValueError: If ``num_envs`` is not a positive int.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, func_env: FuncEnv, num_envs: int, max_episode_steps: int = 0, copy: bool = True) -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}.")
        for name in ("initial", "transition", "observation", "reward", "terminal"):
            if not isinstance(_inherited(type(func_env), name), staticmethod):
                raise TypeError(
                    f"{type(func_env).__name__}.{name} must be a @staticmethod that numba can compile (no `self`): "
                    "constants go in the FuncEnv's params."
                )
        func_env.transform(_compile)
        self.func_env = func_env
        self.num_envs = int(num_envs)
        self.time_limit = int(max_episode_steps or 0)
        self.copy = copy
        self.params = func_env.default_params
        self.single_observation_space = func_env.observation_space
        self.single_action_space = func_env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._pcg, self._buf = streams.new_streams(self.num_envs)
        # The state row's width and dtype, from one initial state drawn on a scratch stream.
        scratch = streams.new_streams(1)
        first = np.asarray(func_env.initial(scratch, self.params))
        if first.ndim != 1:
            raise error.Error(
                f"{type(func_env).__name__}.initial must return a 1-D state array, got shape {first.shape}."
            )
        self._state = np.zeros((self.num_envs, first.shape[0]), dtype=first.dtype)
        self._obs = np.zeros(self.observation_space.shape, dtype=self.single_observation_space.dtype)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminated = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncated = np.zeros(self.num_envs, dtype=np.bool_)
        self._elapsed = np.zeros(self.num_envs, dtype=np.int64)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self._reset_rows, self._step_rows = _batch_kernels(
            func_env.initial, func_env.transition, func_env.observation, func_env.reward, func_env.terminal
        )
        self._ready = False
        self._seeded = False

    def _valid_actions(self, actions: np.ndarray) -> bool:
        """Whether ``actions`` is a batch of the action space (cheaply for ``Discrete``: a few numpy reductions)."""
        space = self.single_action_space
        if isinstance(space, spaces.Discrete):
            return (
                actions.shape == (self.num_envs,)
                and actions.dtype.kind in "iu"
                and np.can_cast(actions.dtype, np.int64)
                and int(actions.min()) >= int(space.start)
                and int(actions.max()) < int(space.start) + int(space.n)
            )
        return bool(self.action_space.contains(actions))

    @property
    def state(self) -> np.ndarray:
        """The ``(num_envs, width)`` state array (live: writes reach the next step)."""
        return self._state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Every sub-environment from a new initial state; ``seed`` seeds sub-environment ``i`` with ``seed + i``."""
        if seed is not None:
            check_seed(seed)
            streams.seed_streams(
                self._pcg,
                self._buf,
                streams.seed_words([seed + i for i in range(self.num_envs)]),
                np.ones(self.num_envs, dtype=np.bool_),
            )
            self._seeded = True
        elif not self._seeded:
            streams.entropy_streams(self._pcg, self._buf)
            self._seeded = True
        self._reset_rows(self._state, self._obs, self._pcg, self._buf, self.params)
        self._elapsed[:] = 0
        self._ended[:] = False
        self._ready = True
        return (self._obs.copy() if self.copy else self._obs), {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One compiled call: every sub-environment steps (or starts again after its episode ended)."""
        if not self._ready:
            raise error.ResetNeeded("Cannot call step() before calling reset() on a vector environment.")
        actions = np.asarray(actions)
        if not self._valid_actions(actions):
            raise error.InvalidAction(f"{actions!r} ({type(actions)}) is not in the action space {self.action_space}.")
        self._step_rows(
            self._state,
            self._obs,
            self._rewards,
            self._terminated,
            self._truncated,
            self._elapsed,
            self._ended,
            actions,
            self._pcg,
            self._buf,
            self.params,
            self.time_limit,
        )
        if self.copy:
            return self._obs.copy(), self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), {}
        return self._obs, self._rewards, self._terminated, self._truncated, {}


def _compile(function: Any) -> Any:
    """``numba.njit`` of a plain function (the static methods); methods (the default, unused ``state_info`` and
    ``transition_info``) are left as they are."""
    return numba.njit(function) if isinstance(function, types.FunctionType) else function


def _inherited(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None
