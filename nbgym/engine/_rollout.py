"""Compiled rollouts: a numba policy and a compiled vector env stepped together, ``num_steps`` steps in one call.

The rollout calls the vector env's own step kernel, with the arrays of its own batch, so a rollout is
the same computation as stepping the env from Python with the same policy, bit for bit, at any
thread count: only the Python around each step is gone. (A batch that ``num_threads`` share — 512
sub-environments or more — steps through the engine's stepping threads, which run from Python: its
rollout calls the compiled policy, the threaded step and the compiled accounting once per step.)

A policy is a function ``policy(observations, params) -> actions`` over the whole batch (``observations``
is the batch's observation buffer, ``(num_envs, *obs_shape)``; ``params`` anything numba can pass, e.g.
an array of weights, per sub-environment if it likes), plain or ``@njit``. A function passed to a
compiled function as an argument cannot be kept in numba's disk cache, so the rollout loop does not
take it as one: each policy is bound, as each env's physics is, to a stub that numba resolves by the
type of a *tag* record of the policy's own (``policy_act``). The loop, compiled with the policy and
the env's step kernel inside, is then cached on disk like every kernel: compiling it takes seconds
the first time, loading it a fraction of one in the next process.
"""

from __future__ import annotations

import hashlib
import inspect
import pathlib
import re
import sys
import threading
import types
from dataclasses import dataclass
from typing import Any, Callable

import numba
import numpy as np
from numba.core.registry import CPUDispatcher
from numba.extending import overload

from nbgym import error
from nbgym.engine import _cache as cache
from nbgym.engine import _threads as threads
from nbgym.engine._jit import OVERLOAD_OPTIONS, kernel
from nbgym.engine._kernels import (
    NEXT_STEP,
    STEP_OK,
    TERMINATED,
    TRUNCATED,
    WAS_RESET,
    step_kernel,
)

_BAD_ACTIONS = -(2**62)
"""The rollout loop's status when the policy returned actions of another shape than the batch's."""

_STOP_GRACE = 0.5
"""Seconds that Ctrl-C waits for the step in progress to end before giving up on the env (see ``_run``)."""


@dataclass
class Trajectory:
    """Preallocated arrays that a rollout fills step by step: what the policy saw, what it did, what followed.

    Attributes:
        observations: ``(num_steps, num_envs, *obs_shape)``: the observation each action was chosen from.
        actions: ``(num_steps, num_envs, *action_shape)``: the policy's actions, as the env received them.
        rewards: ``(num_steps, num_envs)`` float64: the rewards of the steps.
        terminations: ``(num_steps, num_envs)`` bool.
        truncations: ``(num_steps, num_envs)`` bool.
    """

    observations: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray

    @classmethod
    def new(cls, envs: Any, num_steps: int, action_dtype: np.dtype | type | None = None) -> Trajectory:
        """Zeroed arrays for ``num_steps`` steps of the compiled vector env ``envs``.

        Args:
            envs: A compiled vector environment (``nbgym.engine.KernelVectorEnv``).
            num_steps: The number of steps to hold.
            action_dtype: The dtype of the policy's actions (default: int64 for discrete actions, the
                action space's float dtype otherwise).
        """
        batch = envs._batch
        steps = (int(num_steps), batch.num_envs)
        dtype = batch.action_dtype if action_dtype is None else np.dtype(action_dtype)
        return cls(
            observations=np.zeros((*steps, *batch.obs.shape[1:]), dtype=batch.obs.dtype),
            actions=np.zeros((int(num_steps), *batch.action_shape), dtype=dtype),
            rewards=np.zeros(steps, dtype=np.float64),
            terminations=np.zeros(steps, dtype=np.bool_),
            truncations=np.zeros(steps, dtype=np.bool_),
        )


@dataclass
class RolloutResult:
    """The episodes that ended during a rollout, per sub-environment.

    Episodes are counted from the rollout's first step: start a rollout right after ``reset()`` for
    whole episodes (an episode in progress when the rollout starts contributes only its remaining steps).

    Attributes:
        episode_returns: ``(num_envs, max_episodes)`` float64: the undiscounted return of each sub-environment's
            first ``max_episodes`` ended episodes, in order (NaN where fewer ended).
        episode_lengths: ``(num_envs, max_episodes)`` int64: their numbers of steps (0 where fewer ended).
        episodes: ``(num_envs,)`` int64: how many episodes of each sub-environment ended (may exceed
            ``max_episodes``).
    """

    episode_returns: np.ndarray
    episode_lengths: np.ndarray
    episodes: np.ndarray


_policies: dict[np.dtype, Callable] = {}
"""Each policy's function by its tag's dtype, for the interpreted stub (``NUMBA_DISABLE_JIT=1``)."""


def policy_act(tag, obs, params):
    """The stub through which the rollout loop calls a policy; compiled, numba resolves it by the tag's record
    type (as the kernels resolve an env's physics), so the loop can be kept in numba's disk cache."""
    return _policies[tag.dtype](obs, params)


class _Policy:
    """A policy function bound to the stub ``policy_act`` under a record type of its own (its *tag*)."""

    def __init__(self, function: types.FunctionType) -> None:
        code = function.__code__
        digest = hashlib.sha1(code.co_code)
        if pathlib.Path(code.co_filename).is_file():
            digest.update(pathlib.Path(code.co_filename).read_bytes())
        name = re.sub(r"\W", "_", f"{function.__module__}_{function.__qualname__}_{code.co_firstlineno}")
        self.tag = np.zeros(1, dtype=np.dtype((np.record, [(f"_policy_{name}_{digest.hexdigest()[:16]}", np.uint8)])))
        tag_dtype = self.tag.dtype
        _policies[tag_dtype] = function
        # Not cached by itself: it is compiled into the rollout loop, which is.
        compiled = numba.njit(**OVERLOAD_OPTIONS)(function)

        def act(tag, obs, params):
            return compiled(obs, params)

        def typing(tag, obs, params):
            if isinstance(tag, numba.types.Record) and tag.dtype == tag_dtype:
                return act

        overload(policy_act, jit_options=OVERLOAD_OPTIONS, inline="never")(typing)


_bound_policies: dict[types.FunctionType, _Policy] = {}


def _bind_policy(policy: Callable) -> _Policy:
    """The bound policy of an ``@njit`` (or plain) function ``policy(observations, params) -> actions``.

    Raises:
        TypeError: If ``policy`` is not a Python function of two arguments defined in an importable module.
    """
    function = policy.py_func if isinstance(policy, CPUDispatcher) else policy
    if not isinstance(function, types.FunctionType) or len(inspect.signature(function).parameters) != 2:
        raise TypeError(
            f"The policy must be a function policy(observations, params) -> actions (plain or @numba.njit), got {policy!r}."
        )
    module = sys.modules.get(function.__module__)
    if module is None or module.__dict__ is not function.__globals__:
        raise TypeError(
            f"The policy {function.__qualname__} must be defined in an importable module (its module "
            f"{function.__module__!r} is not sys.modules[{function.__module__!r}]): numba's disk cache refers to "
            f"the policy's module by name."
        )
    bound = _bound_policies.get(function)
    if bound is None:
        bound = _bound_policies[function] = _Policy(function)
    return bound


@kernel(entry=True)
def _policy_actions(tag, obs, params):
    """The policy's actions for ``obs``, called from Python (to check them before the loop), compiled and cached."""
    return policy_act(tag[0], obs, params)


@kernel(entry=True)
def _account(mode, rewards, flags, returns, lengths, episodes, running_return, running_length):
    """Adds a step's rewards to each sub-environment's running episode, and records the episodes that ended."""
    max_episodes = returns.shape[1]
    for i in range(rewards.shape[0]):
        if mode == NEXT_STEP and flags[WAS_RESET, i]:
            continue  # the step that reset an ended episode: not part of any episode
        running_return[i] += rewards[i]
        running_length[i] += 1
        if flags[TERMINATED, i] or flags[TRUNCATED, i]:
            k = episodes[i]
            if k < max_episodes:
                returns[i, k] = running_return[i]
                lengths[i, k] = running_length[i]
            episodes[i] = k + 1
            running_return[i] = 0.0
            running_length[i] = 0


@kernel(entry=True)
def _rollout_loop(tag, policy_params, num_steps, kernel_args, stats, record, trajectory, action_shape, stop):
    """``num_steps`` steps of policy and env in the calling thread, or fewer if ``stop[0]`` becomes true (it is
    read before each step); returns ``(steps done, status)``."""
    params, state, pcg, buf, mode, max_steps, observations, rewards, flags, elapsed, auxes = kernel_args
    returns, lengths, episodes, running_return, running_length = stats
    traj_obs, traj_actions, traj_rewards, traj_terminations, traj_truncations = trajectory
    obs = observations[0]
    for t in range(num_steps):
        if stop[0]:
            return t, STEP_OK
        actions = policy_act(tag[0], obs, policy_params)
        if actions.shape != action_shape:
            return t, _BAD_ACTIONS
        if record:
            traj_obs[t] = obs
            traj_actions[t] = actions
        status = step_kernel(
            params, state, pcg, buf, mode, max_steps, observations, rewards, flags, elapsed, auxes, actions
        )
        if status != STEP_OK:
            return t, status
        _account(mode, rewards, flags, returns, lengths, episodes, running_return, running_length)
        if record:
            traj_rewards[t] = rewards
            traj_terminations[t] = flags[TERMINATED]
            traj_truncations[t] = flags[TRUNCATED]
    return num_steps, STEP_OK


def _threaded_loop(
    envs: Any,
    tag: np.ndarray,
    policy_params: Any,
    num_steps: int,
    stats: tuple,
    record: bool,
    trajectory: tuple,
    action_shape: tuple,
    stop: np.ndarray,
) -> tuple[int, int]:
    """``_rollout_loop`` for a batch that ``num_threads`` share: each step is the vector env's own threaded step
    (the engine's stepping threads run from Python), between compiled calls of the policy and the accounting."""
    batch = envs._batch
    step = envs._step_kernel
    traj_obs, traj_actions, traj_rewards, traj_terminations, traj_truncations = trajectory
    for t in range(num_steps):
        if stop[0]:
            return t, STEP_OK
        actions = _policy_actions(tag, batch.obs, policy_params)
        if actions.shape != action_shape:
            return t, _BAD_ACTIONS
        if record:
            traj_obs[t] = batch.obs
            traj_actions[t] = actions
        status = step(actions)
        if status != STEP_OK:
            return t, status
        _account(envs._kernel_mode, batch.rewards, batch.flags, *stats)
        if record:
            traj_rewards[t] = batch.rewards
            traj_terminations[t] = batch.terminated
            traj_truncations[t] = batch.truncated
    return num_steps, STEP_OK


def rollout(
    envs: Any,
    policy: Callable,
    policy_params: Any,
    num_steps: int,
    *,
    max_episodes: int = 1,
    trajectory: Trajectory | None = None,
) -> RolloutResult:
    """Steps every sub-environment of a compiled vector env ``num_steps`` times with a numba policy, in one call.

    Each step is ``actions = policy(observations, policy_params)`` then the vector env's step kernel:
    the results (observations, rewards, flags, random streams, the env's state after the rollout) are
    those of ``envs.step(policy(obs, policy_params))`` called ``num_steps`` times from Python, bit for
    bit, with the env's ``num_threads`` and autoreset mode. The env stays usable from Python afterwards.

    Args:
        envs: A compiled vector environment (``nbgym.make_vec(id, n)`` of a compiled env, or a
            ``KernelVectorEnv`` of your own), reset, not wrapped, with autoreset (not ``DISABLED``).
        policy: A function ``policy(observations, params) -> actions``, plain or ``@numba.njit`` (numba compiles
            it into the rollout loop either way): ``observations`` is the ``(num_envs, *obs_shape)`` observation
            buffer (read it, do not keep it), ``actions`` an array of ``num_envs`` actions as ``envs.step`` takes
            them (int64 for discrete actions, float32 or float64 for boxes).
        policy_params: The policy's parameters (an array, a tuple of arrays, ...).
        num_steps: The number of steps of every sub-environment.
        max_episodes: How many ended episodes to record per sub-environment.
        trajectory: Arrays to fill with each step's observations, actions, rewards and flags (``Trajectory.new``).

    Returns:
        The returns and lengths of the episodes that ended.

    Raises:
        TypeError: If ``envs`` is not a compiled vector env, or ``policy`` is not a function of two arguments.
        ValueError: For a ``DISABLED`` autoreset mode, or a trajectory of other shapes or dtypes.
        ResetNeeded: If ``envs`` was not reset.
        InvalidAction: If the policy returns actions of the wrong shape, dtype or value (the step that
            got them did not move; the steps before it did).
    """
    from nbgym.engine._env import KernelVectorEnv

    if not isinstance(envs, KernelVectorEnv):
        raise TypeError(
            f"rollout() steps a compiled vector env (nbgym.engine.KernelVectorEnv), got {type(envs).__name__}: make it "
            f"with nbgym.make_vec(id, num_envs) of a compiled env, and pass it unwrapped (wrappers would be bypassed)."
        )
    in_use = envs._in_use
    entered = in_use.enter("rollout()")
    try:
        return _rollout(envs, policy, policy_params, num_steps, max_episodes, trajectory)
    finally:
        if entered:
            in_use.leave()


def _rollout(
    envs: Any,
    policy: Callable,
    policy_params: Any,
    num_steps: int,
    max_episodes: int,
    trajectory: Trajectory | None,
) -> RolloutResult:
    """``rollout``, holding the env."""
    from nbgym.engine._env import _refuse_faulted

    envs._refuse_async_run("rollout()")

    bound_policy = _bind_policy(policy)
    if envs.autoreset_mode.value == "Disabled":
        raise ValueError(
            "rollout() needs sub-environments that reset themselves: make the env with autoreset_mode 'NextStep' or "
            "'SameStep' (with 'Disabled', the first ended episode would stop the rollout)."
        )
    if not envs._ready:
        envs._check_open()
        _refuse_faulted(envs, "rollout()")
        raise error.ResetNeeded("Cannot run a rollout before calling reset() on the vector environment.")
    if not isinstance(num_steps, (int, np.integer)) or num_steps < 0:
        raise ValueError(f"num_steps must be a non-negative int, got {num_steps!r}.")
    if not isinstance(max_episodes, (int, np.integer)) or max_episodes < 1:
        raise ValueError(f"max_episodes must be a positive int, got {max_episodes!r}.")
    batch = envs._batch
    cache.compile_for(_policy_actions, bound_policy.tag, batch.obs, policy_params, group=batch.physics.name)
    first_actions = _policy_actions(bound_policy.tag, batch.obs, policy_params)
    if not isinstance(first_actions, np.ndarray):
        raise error.InvalidAction(
            f"The policy returned a {type(first_actions).__name__}, not a numpy array; return a {batch.action_dtype} "
            f"array of shape {batch.action_shape} (or float32 for a float32 box), as envs.step takes it without "
            f"conversion."
        )
    checked = batch.actions_array(first_actions)
    if checked is not first_actions:
        raise error.InvalidAction(
            f"The policy returned actions of dtype {first_actions.dtype}; return {batch.action_dtype} "
            f"arrays (or float32 for a float32 box), as envs.step takes them without conversion."
        )
    num_envs = batch.num_envs
    returns = np.full((num_envs, int(max_episodes)), np.nan)
    lengths = np.zeros((num_envs, int(max_episodes)), dtype=np.int64)
    episodes = np.zeros(num_envs, dtype=np.int64)
    record = trajectory is not None
    if trajectory is None:
        trajectory = Trajectory.new(envs, 0, first_actions.dtype)
    else:
        _check_trajectory(trajectory, Trajectory.new(envs, num_steps, first_actions.dtype))
    stats = (returns, lengths, episodes, np.zeros(num_envs), np.zeros(num_envs, dtype=np.int64))
    arrays = (
        trajectory.observations,
        trajectory.actions,
        trajectory.rewards,
        trajectory.terminations,
        trajectory.truncations,
    )
    action_shape = tuple(int(size) for size in batch.action_shape)
    if threads.split(num_envs, batch.num_threads, batch.physics.min_chunk_size, batch.physics.max_chunk_size)[1] == 0:
        kernel_args = batch._step_args(envs._kernel_mode, envs._max_steps)
        loop, args = (
            _rollout_loop,
            (bound_policy.tag, policy_params, int(num_steps), kernel_args, stats, record, arrays, action_shape),
        )
        cache.compile_for(
            _rollout_loop,
            *args,
            np.zeros(1, dtype=np.bool_),
            what=f"{batch.physics.name}'s rollout",
            group=batch.physics.name,
        )
    else:
        cache.compile_for(_account, envs._kernel_mode, batch.rewards, batch.flags, *stats, group=batch.physics.name)
        loop, args = (
            _threaded_loop,
            (envs, bound_policy.tag, policy_params, int(num_steps), stats, record, arrays, action_shape),
        )
    done, status = _run(envs, loop, args)
    if status != STEP_OK:
        if status == _BAD_ACTIONS:
            returned = _policy_actions(bound_policy.tag, batch.obs, policy_params)
            raise error.InvalidAction(
                f"Step {done} of the rollout: the policy returned actions of shape {returned.shape}; the batch takes "
                f"{batch.action_shape} (the step did not move)."
            )
        try:
            envs._raise_step_error(
                status,
                trajectory.actions[done] if record else _policy_actions(bound_policy.tag, batch.obs, policy_params),
            )
        except error.InvalidAction as invalid:
            raise error.InvalidAction(f"Step {done} of the rollout: {invalid}") from None
    return RolloutResult(returns, lengths, episodes)


def _run(envs: Any, loop: Callable, args: tuple) -> tuple[int, int]:
    """``loop(*args, stop)`` on a thread of its own, the calling thread waiting for it, so that Ctrl-C is heard.

    A compiled call cannot be interrupted: the rollout loop runs on another thread (its kernels release the
    GIL) and reads the flag ``stop`` before each step. On Ctrl-C (``KeyboardInterrupt``, or any exception
    raised while waiting) the flag is set and the step in progress ends, leaving every sub-environment
    stepped the same number of times, before the exception goes on. If the step does not end within
    ``_STOP_GRACE`` seconds (a physics that loops forever), the env refuses every further call (the thread may
    still be writing its arrays).

    Raises:
        Whatever the loop raised; an exception from inside the kernels first makes the env refuse to step
        until reset (``env._fault``).
    """
    from nbgym.engine._env import _fault

    stop = np.zeros(1, dtype=np.bool_)
    outcome: list = []
    # A Latch: Thread.join, interrupted by Ctrl-C, marks the thread as ended while it still runs, and an Event can be
    # left locked for good.
    finished = threads.Latch()
    when_finished: list[Callable[[], None]] = []

    def target() -> None:
        try:
            outcome.append(loop(*args, stop))
        except BaseException as raised:  # noqa: BLE001 - handed to the calling thread
            outcome.append(raised)
        finally:
            finished.set()
            for callback in list(when_finished):
                callback()

    threading.Thread(target=target, name="nbgym-rollout", daemon=True).start()
    try:
        while not finished.wait(0.1):
            pass
    except BaseException:
        stop[0] = True
        envs._ready, envs._fault = False, "a rollout was interrupted while a step was running"
        if finished.wait_through_interrupts(_STOP_GRACE):
            envs._ready, envs._fault = True, None
        else:
            envs._fault = (
                "a rollout was interrupted while a step was running, and the step did not end (a physics or policy "
                "that does not return?): it may still write the batch"
            )
            release = envs._in_use.hand_over(envs._fault)  # every call refuses until the step ends
            when_finished.append(release)
            if finished.is_set():  # ended before the callback was added: release is idempotent
                release()
        raise
    if isinstance(outcome[0], BaseException):
        raise _fault(envs, outcome[0], "rollout") from None
    return outcome[0]


def _check_trajectory(given: Trajectory, expected: Trajectory) -> None:
    for name in ("observations", "actions", "rewards", "terminations", "truncations"):
        array, wanted = getattr(given, name), getattr(expected, name)
        if not isinstance(array, np.ndarray) or array.shape != wanted.shape or array.dtype != wanted.dtype:
            raise ValueError(
                f"trajectory.{name} must be an array of shape {wanted.shape} and dtype {wanted.dtype} (see "
                f"Trajectory.new(envs, num_steps)), got {getattr(array, 'shape', None)} {getattr(array, 'dtype', type(array))}."
            )
