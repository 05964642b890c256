"""A vector environment that runs each sub-environment in its own worker process."""

from __future__ import annotations

import inspect
import multiprocessing
import pickle
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from enum import Enum
from multiprocessing.reduction import ForkingPickler
from typing import TYPE_CHECKING, Any, Generic

import numpy as np

from nbgym import logger
from nbgym.core import ActType, Env, ObsType, RenderFrame
from nbgym.error import AlreadyPendingCallError, ClosedEnvironmentError, CustomSpaceError, NoAsyncCallError
from nbgym.spaces import Space
from nbgym.spaces.utils import is_space_dtype_shape_equiv
from nbgym.vector._common import (
    copy_batch,
    per_env_values,
    pop_reset_mask,
    resolve_autoreset_mode,
    resolve_observation_spaces,
    seeds_for,
)
from nbgym.vector.utils import (
    CloudpickleWrapper,
    batch_space,
    clear_mpi_env_vars,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)
from nbgym.vector.vector_env import AutoresetMode, VectorEnv

if TYPE_CHECKING:
    from multiprocessing import Queue
    from multiprocessing.connection import Connection
    from multiprocessing.synchronize import Semaphore

__all__ = ["AsyncVectorEnv", "AsyncState"]

# How a worker reports a failure: (worker index, exception type, exception, traceback text). It is
# the format of gymnasium's `error_queue`, which custom workers may still use.
ErrorReport = tuple[int, type, Any, str]

# `call` cannot run these: they are commands of the worker protocol with their own bookkeeping.
_RESERVED_CALLS = ("reset", "step", "close", "_setattr", "_check_spaces")

# The worker protocol's arity: index, env_fn, pipe, parent_pipe, shared_memory, error_queue,
# autoreset_mode, semaphore.
_WORKER_ARITY = 8

# Seconds to wait for a worker to exit after SIGTERM, and for the exit code of a worker whose pipe
# closed, before giving up on it.
_EXIT_GRACE = 2.0


class AsyncState(Enum):
    """The call an :class:`AsyncVectorEnv` is waiting for, if any."""

    DEFAULT = "default"
    WAITING_RESET = "reset"
    WAITING_STEP = "step"
    WAITING_CALL = "call"


class _RemoteTraceback(Exception):
    """Carries a worker's traceback text, as the ``__cause__`` of the exception it raised."""

    def __init__(self, trace: str) -> None:
        super().__init__(trace)
        self.trace = trace

    def __str__(self) -> str:
        return f'\n"""\n{self.trace}"""'


class AsyncVectorEnv(VectorEnv[ObsType, ActType, np.ndarray], Generic[ObsType, ActType]):
    """Runs each sub-environment in its own process, and steps them in parallel.

    The main process talks to the workers through pipes; observations come back through shared
    memory (by default) or the pipes. A worker whose environment raises sends the exception back,
    where it is raised again, with the worker's traceback as its ``__cause__``; the worker then stops.

    Example:
        >>> import nbgym
        >>> envs = nbgym.vector.AsyncVectorEnv([lambda: nbgym.make("CartPole-v1") for _ in range(2)])
        >>> observations, infos = envs.reset(seed=42)
        >>> observations.shape
        (2, 4)
        >>> envs.close()
    """

    parent_pipes: list[Connection | None]
    processes: list[Any]
    error_queue: Queue
    _pending_call_timed_out_after: float | None = None
    """The timeout that the pending call's last wait ran out of (``None``: it did not run out): ``close()``
    waits that long for it again, not forever, before terminating the workers."""

    def __init__(
        self,
        env_fns: Sequence[Callable[[], Env]],
        shared_memory: bool = True,
        copy: bool = True,
        context: str | None = None,
        daemon: bool = True,
        worker: Callable[..., None] | None = None,
        observation_mode: str | tuple[Space[Any], Space[Any]] = "same",
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        max_concurrency: int | None = None,
    ) -> None:
        """Start one worker process per environment function.

        Args:
            env_fns: Functions that create the sub-environments, one each (pickled with cloudpickle,
                so lambdas and closures work with every start method).
            shared_memory: Whether observations come back through shared memory (faster for large
                observations) instead of the pipes.
            copy: Whether :meth:`reset` and :meth:`step` return a copy of the observation buffer
                (otherwise the same buffer, overwritten by the next call).
            context: The multiprocessing start method (``"spawn"``, ``"fork"``, ``"forkserver"``),
                ``None`` for the platform's default.
            daemon: Whether the workers are daemon processes (ended with the main process; they
                cannot start processes of their own).
            worker: A replacement for the worker function, called with the eight arguments of
                ``_async_worker`` (advanced use).
            observation_mode: How the observation spaces are batched: ``"same"``, ``"different"``
                or a ``(observation_space, single_observation_space)`` tuple.
            autoreset_mode: The :class:`AutoresetMode` (or its value).
            max_concurrency: The most workers that may run ``reset``/``step`` at once (``None``: no
                limit); other calls are not limited.

        Raises:
            ValueError: If ``max_concurrency`` is not a positive integer, ``worker`` does not take
                eight arguments, or ``shared_memory=True`` with an observation space that shared
                memory cannot hold.
            RuntimeError: If a sub-environment's spaces do not fit ``observation_mode`` or differ
                from the first one's action space.
        """
        self.env_fns = env_fns
        self.shared_memory = shared_memory
        self.copy = copy
        self.context = context
        self.daemon = daemon
        self.worker = worker
        self.observation_mode = observation_mode
        self.autoreset_mode = resolve_autoreset_mode(autoreset_mode)
        if max_concurrency is not None:
            if not isinstance(max_concurrency, (int, np.integer)):
                raise ValueError(f"`max_concurrency` must be an integer or None, got {type(max_concurrency)}.")
            if max_concurrency < 1:
                raise ValueError(f"`max_concurrency` must be a positive or None, got {max_concurrency}.")
        self.max_concurrency = max_concurrency
        if worker is not None:
            # Checked here: a worker that cannot take the arguments would fail in the subprocess,
            # which the main process would only see as a closed pipe.
            try:
                inspect.signature(worker).bind(*(None,) * _WORKER_ARITY)
            except TypeError as e:
                raise ValueError(
                    f"A custom `worker` must accept 8 arguments. Got the signature {inspect.signature(worker)} "
                    f"which should match {inspect.signature(_async_worker)}."
                ) from e

        self.num_envs = len(env_fns)

        # The spaces and metadata come from an environment made (and closed) in this process.
        dummy_env = env_fns[0]()
        # A copy, so that setting the autoreset mode leaves the env class's metadata alone.
        self.metadata = dict(dummy_env.metadata)
        self.metadata["autoreset_mode"] = self.autoreset_mode
        self.render_mode = dummy_env.render_mode
        self.single_action_space = dummy_env.action_space
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # With "different", every environment is made here once more to read its space.
        self.single_observation_space, self.observation_space = resolve_observation_spaces(
            observation_mode,
            self.num_envs,
            lambda: dummy_env.observation_space,
            lambda: [env_fn().observation_space for env_fn in self.env_fns],
        )
        dummy_env.close()

        ctx = multiprocessing.get_context(context)
        if self.shared_memory:
            try:
                obs_buffer = create_shared_memory(self.single_observation_space, n=self.num_envs, ctx=ctx)
            except CustomSpaceError as e:
                raise ValueError(
                    "Using `AsyncVector(..., shared_memory=True)` caused an error, you can disable this feature "
                    "with `shared_memory=False` however this is slower."
                ) from e
            self.observations = read_from_shared_memory(self.single_observation_space, obs_buffer, n=self.num_envs)
        else:
            obs_buffer = None
            self.observations = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)

        # Which sub-environments ended their episode at the last step (enforced in DISABLED mode).
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        self.parent_pipes, self.processes = [], []
        self.error_queue = ctx.Queue()
        semaphore = ctx.BoundedSemaphore(max_concurrency) if max_concurrency is not None else None
        self._state = AsyncState.DEFAULT
        try:
            self._start_workers(ctx, worker or _async_worker, obs_buffer, semaphore)
            self._check_spaces()
        except BaseException:
            # No worker may outlive a failed construction.
            self.close(terminate=True)
            raise

    def _start_workers(self, ctx: Any, target: Callable[..., None], obs_buffer: Any, semaphore: Any) -> None:
        with clear_mpi_env_vars():
            for index, env_fn in enumerate(self.env_fns):
                parent_pipe, child_pipe = ctx.Pipe()
                process = ctx.Process(
                    target=target,
                    name=f"Worker<{type(self).__name__}>-{index}",
                    args=(
                        index,
                        CloudpickleWrapper(env_fn),
                        child_pipe,
                        parent_pipe,
                        obs_buffer,
                        self.error_queue,
                        self.autoreset_mode,
                        semaphore,
                    ),
                )
                process.daemon = self.daemon
                self.parent_pipes.append(parent_pipe)
                try:
                    process.start()
                finally:
                    # Only the worker keeps the child end: when it exits, the parent end reads EOF.
                    child_pipe.close()
                self.processes.append(process)

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """The ``np_random_seed`` of each sub-environment."""
        return self.get_attr("np_random_seed")

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        """The ``np_random`` generator of each sub-environment (copies, from the workers)."""
        return self.get_attr("np_random")

    # ---------------------------------------------------------------------------------------------
    # reset
    # ---------------------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        """Reset the sub-environments in parallel and batch the results.

        Args:
            seed: ``None`` (unseeded resets), an int ``s`` (sub-environment ``i`` gets ``s + i``) or a
                list with one seed (or ``None``) per sub-environment.
            options: Reset options given to every sub-environment; a ``"reset_mask"`` entry selects
                the sub-environments to reset (see :meth:`SyncVectorEnv.reset`).

        Returns:
            The batched observations and the merged info of the reset sub-environments.
        """
        self.reset_async(seed=seed, options=options)
        return self.reset_wait()

    def reset_async(self, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None) -> None:
        """Send the reset to the workers; :meth:`reset_wait` collects the results.

        Args:
            seed: As for :meth:`reset`.
            options: As for :meth:`reset`.

        Raises:
            ClosedEnvironmentError: If the environment is closed, or a worker stopped after an error.
            AlreadyPendingCallError: If another call is pending (e.g. ``step_async`` without ``step_wait``).
            ValueError: If a list of seeds has the wrong length, or the reset mask the wrong shape
                or no True value.
            TypeError: If the reset mask is not a numpy bool array.
        """
        self._assert_is_running()
        seeds = seeds_for(seed, self.num_envs)
        self._assert_no_pending("reset_async", "")
        reset_mask = pop_reset_mask(options, self.num_envs)

        if reset_mask is None:
            selected = np.ones(self.num_envs, dtype=np.bool_)
        else:
            selected = reset_mask
        messages = [
            ("reset", {"seed": env_seed, "options": options}) if reset else ("reset-noop", None)
            for env_seed, reset in zip(seeds, selected, strict=True)
        ]
        self._send(messages)
        self._ended[selected] = False
        self._state = AsyncState.WAITING_RESET

    def reset_wait(self, timeout: float | None = None) -> tuple[ObsType, dict[str, Any]]:
        """Wait for the resets sent by :meth:`reset_async` and batch their results.

        Args:
            timeout: Seconds to wait, ``None`` to wait as long as it takes.

        Returns:
            The batched observations and the merged info.

        Raises:
            ClosedEnvironmentError: If the environment is closed.
            NoAsyncCallError: If no reset is pending.
            multiprocessing.TimeoutError: If the workers did not answer within ``timeout``; the reset
                stays pending (wait again, or close).
        """
        self._assert_is_running()
        if self._state is not AsyncState.WAITING_RESET:
            raise NoAsyncCallError(
                "Calling `reset_wait` without any prior call to `reset_async`.", AsyncState.WAITING_RESET.value
            )
        results = self._receive_all("reset_wait", timeout)

        infos: dict[str, Any] = {}
        observations = []
        for i, (observation, info) in enumerate(results):
            observations.append(observation)
            infos = self._add_info(infos, info, i)
        if not self.shared_memory:
            self.observations = concatenate(self.single_observation_space, observations, self.observations)

        self._state = AsyncState.DEFAULT
        return (copy_batch(self.observations) if self.copy else self.observations), infos

    # ---------------------------------------------------------------------------------------------
    # step
    # ---------------------------------------------------------------------------------------------

    def step(self, actions: ActType) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment in parallel with its action.

        Args:
            actions: A batch of actions, an element of :attr:`action_space`.

        Returns:
            The batched ``(observations, rewards, terminations, truncations, infos)``.
        """
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: ActType) -> None:
        """Send each worker its action; :meth:`step_wait` collects the results.

        Args:
            actions: A batch of actions, an element of :attr:`action_space`.

        Raises:
            ClosedEnvironmentError: If the environment is closed, or a worker stopped after an error.
            AlreadyPendingCallError: If another call is pending.
            AssertionError: In ``DISABLED`` mode, if a sub-environment whose episode ended was not
                reset before this step.
        """
        self._assert_is_running()
        self._assert_no_pending("step_async", ".")
        if self.autoreset_mode is AutoresetMode.DISABLED and self._ended.any():
            raise AssertionError(
                f"Sub-environments {np.flatnonzero(self._ended).tolist()} ended their episode and autoreset_mode "
                "is DISABLED: reset them with `reset(options={'reset_mask': ...})` before stepping."
            )
        self._send([("step", action) for action in iterate(self.action_space, actions)])
        self._state = AsyncState.WAITING_STEP

    def step_wait(
        self, timeout: float | None = None
    ) -> tuple[ObsType, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Wait for the steps sent by :meth:`step_async` and batch their results.

        Args:
            timeout: Seconds to wait, ``None`` to wait as long as it takes.

        Returns:
            The batched ``(observations, rewards, terminations, truncations, infos)``; rewards are
            float64, terminations and truncations bool arrays.

        Raises:
            ClosedEnvironmentError: If the environment is closed.
            NoAsyncCallError: If no step is pending.
            multiprocessing.TimeoutError: If the workers did not answer within ``timeout``; the step
                stays pending (wait again, or close).
        """
        self._assert_is_running()
        if self._state is not AsyncState.WAITING_STEP:
            raise NoAsyncCallError(
                "Calling `step_wait` without any prior call to `step_async`.", AsyncState.WAITING_STEP.value
            )
        results = self._receive_all("step_wait", timeout)

        observations, rewards, terminations, truncations = [], [], [], []
        infos: dict[str, Any] = {}
        for i, (observation, reward, terminated, truncated, info) in enumerate(results):
            observations.append(observation)
            rewards.append(reward)
            terminations.append(terminated)
            truncations.append(truncated)
            infos = self._add_info(infos, info, i)
        if not self.shared_memory:
            self.observations = concatenate(self.single_observation_space, observations, self.observations)

        terminations_array = np.array(terminations, dtype=np.bool_)
        truncations_array = np.array(truncations, dtype=np.bool_)
        self._ended = terminations_array | truncations_array
        self._state = AsyncState.DEFAULT
        return (
            copy_batch(self.observations) if self.copy else self.observations,
            np.array(rewards, dtype=np.float64),
            terminations_array,
            truncations_array,
            infos,
        )

    # ---------------------------------------------------------------------------------------------
    # call, attributes, render
    # ---------------------------------------------------------------------------------------------

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call the method ``name`` of every sub-environment (or read it, if not callable).

        Args:
            name: The name of the method or attribute, looked up through the env's wrappers.
            *args: Positional arguments of the call.
            **kwargs: Keyword arguments of the call.

        Returns:
            The result (or attribute value) of each sub-environment.
        """
        self.call_async(name, *args, **kwargs)
        return self.call_wait()

    def render(self) -> tuple[RenderFrame, ...] | None:
        """The rendered frame of each sub-environment."""
        return self.call("render")

    def call_async(self, name: str, /, *args: Any, **kwargs: Any) -> None:
        """Send the call of ``name`` to the workers; :meth:`call_wait` collects the results.

        Args:
            name: The name of the method or attribute.
            *args: Positional arguments of the call.
            **kwargs: Keyword arguments of the call.

        Raises:
            ClosedEnvironmentError: If the environment is closed, or a worker stopped after an error.
            AlreadyPendingCallError: If another call is pending.
            ValueError: If ``name`` is ``reset``, ``step``, ``close``, ``_setattr`` or ``_check_spaces``.
        """
        self._assert_is_running()
        self._assert_no_pending("call_async", ".")
        if name in _RESERVED_CALLS:
            raise ValueError(f"Trying to call function `{name}` with `call`, use `{name}` directly instead.")
        self._send([("_call", (name, args, kwargs))] * self.num_envs)
        self._state = AsyncState.WAITING_CALL

    def call_wait(self, timeout: float | None = None) -> tuple[Any, ...]:
        """Wait for the calls sent by :meth:`call_async`.

        Args:
            timeout: Seconds to wait, ``None`` to wait as long as it takes.

        Returns:
            The result of each sub-environment.

        Raises:
            ClosedEnvironmentError: If the environment is closed.
            NoAsyncCallError: If no call is pending.
            multiprocessing.TimeoutError: If the workers did not answer within ``timeout``.
        """
        self._assert_is_running()
        if self._state is not AsyncState.WAITING_CALL:
            raise NoAsyncCallError(
                "Calling `call_wait` without any prior call to `call_async`.", AsyncState.WAITING_CALL.value
            )
        results = self._receive_all("call_wait", timeout)
        self._state = AsyncState.DEFAULT
        return tuple(results)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """The attribute ``name`` of every sub-environment (called, if it is callable).

        Args:
            name: The attribute's name.

        Returns:
            The value of each sub-environment.
        """
        return self.call(name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set the attribute ``name`` of the sub-environments (through their wrappers).

        Args:
            name: The attribute's name.
            values: One value per sub-environment as a list or tuple, or one value for all.

        Raises:
            ValueError: If a list or tuple does not have one value per sub-environment.
            AlreadyPendingCallError: If another call is pending.
        """
        self._assert_is_running()
        values = per_env_values(values, self.num_envs)
        self._assert_no_pending("set_attr", ".")
        self._send([("_setattr", (name, value)) for value in values])
        self._receive_all("set_attr", None)

    # ---------------------------------------------------------------------------------------------
    # close
    # ---------------------------------------------------------------------------------------------

    def close_extras(self, timeout: float | None = None, terminate: bool = False) -> None:
        """Stop the workers and release the pipes.

        Args:
            timeout: Seconds to wait for a pending call and for the workers to close their
                environments; past it the workers are terminated. ``None`` waits as long as it takes,
                except for a pending call whose last wait timed out: that one gets the same timeout
                again (a worker that hangs would otherwise keep ``close()`` waiting forever).
            terminate: Whether to terminate the workers at once instead of closing their
                environments.
        """
        if terminate:
            timeout = 0
        if self._state is not AsyncState.DEFAULT:
            logger.warn(f"Calling `close` while waiting for a pending call to `{self._state.value}` to complete.")
            # A call that already timed out may never complete (a hung worker): wait for it as long as the
            # caller already did, not forever.
            pending_timeout = self._pending_call_timed_out_after if timeout is None else timeout
            try:
                getattr(self, f"{self._state.value}_wait")(pending_timeout)
            except multiprocessing.TimeoutError:
                terminate = True
            except Exception:  # noqa: BLE001
                # The wait logged the failed workers and stopped them; the caller abandoned that
                # call, so closing goes on with the other workers.
                self._state = AsyncState.DEFAULT

        deadline = None if timeout is None else time.monotonic() + timeout
        if not terminate:
            self._close_workers(deadline)
        for pipe in self.parent_pipes:
            if pipe is not None:
                pipe.close()
        for process in self.processes:
            _stop_process(process, time.monotonic() if terminate else deadline)
        self.error_queue.close()

    def _close_workers(self, deadline: float | None) -> None:
        # Ask every live worker to close its environment, then wait for the acknowledgements.
        live = [pipe for pipe in self.parent_pipes if pipe is not None]
        for pipe in live:
            try:
                pipe.send(("close", None))
            except OSError:
                continue  # that worker is already gone
        for pipe in live:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            try:
                if remaining is None or pipe.poll(remaining):
                    pipe.recv()
            except (EOFError, OSError):
                continue  # that worker is already gone

    def __del__(self) -> None:
        """Terminate the workers if the environment is collected unclosed."""
        if not getattr(self, "closed", True) and hasattr(self, "_state"):
            self.close(terminate=True)

    # ---------------------------------------------------------------------------------------------
    # Talking to the workers
    # ---------------------------------------------------------------------------------------------

    def _assert_is_running(self) -> None:
        if self.closed:
            raise ClosedEnvironmentError(f"Trying to operate on `{type(self).__name__}`, after a call to `close()`.")
        stopped = [index for index, pipe in enumerate(self.parent_pipes) if pipe is None]
        if stopped:
            raise ClosedEnvironmentError(
                f"The workers {stopped} of `{type(self).__name__}` have stopped after an error; "
                "call `close()` and create a new environment."
            )

    def _assert_no_pending(self, method: str, end: str) -> None:
        if self._state is not AsyncState.DEFAULT:
            raise AlreadyPendingCallError(
                f"Calling `{method}` while waiting for a pending call to `{self._state.value}` to complete{end}",
                str(self._state.value),
            )

    def _send(self, messages: Sequence[tuple[str, Any]]) -> None:
        # Everything is pickled before anything is sent, so an unpicklable message raises here
        # without leaving some workers with a command and others without.
        payloads = [ForkingPickler.dumps(message) for message in messages]
        for pipe, payload in zip(self.parent_pipes, payloads, strict=True):
            try:
                pipe.send_bytes(payload)  # type: ignore[union-attr]
            except OSError:
                # The worker died: its pipe reads EOF, which the receive reports with its exit code.
                continue

    def _poll(self, timeout: float | None) -> bool:
        if timeout is None:
            return True
        deadline = time.perf_counter() + timeout
        return all(
            pipe.poll(max(deadline - time.perf_counter(), 0.0))
            for pipe in self.parent_pipes  # type: ignore[union-attr]
        )

    def _receive_all(self, method: str, timeout: float | None) -> list[Any]:
        """One reply from every worker; raises (after reading them all) if any worker failed."""
        if not self._poll(timeout):
            self._pending_call_timed_out_after = timeout
            raise multiprocessing.TimeoutError(f"The call to `{method}` has timed out after {timeout} second(s).")
        self._pending_call_timed_out_after = None
        results, failures = [], []
        for index in range(self.num_envs):
            result, success = self._receive(index, method)
            results.append(result)
            if not success:
                failures.append((index, result))
        if failures:
            self._raise_failures(failures)
        return results

    def _receive(self, index: int, method: str) -> tuple[Any, bool]:
        pipe = self.parent_pipes[index]
        assert pipe is not None
        try:
            data = pipe.recv_bytes()
        except (EOFError, OSError):
            return self._death_report(index, method), False
        try:
            return pickle.loads(data)
        except Exception as e:  # noqa: BLE001
            # E.g. an info holding an object of a class this process cannot import.
            return (index, type(e), e, traceback.format_exc()), False

    def _death_report(self, index: int, method: str) -> ErrorReport:
        process = self.processes[index]
        process.join(_EXIT_GRACE)
        if process.exitcode is None:
            how = "closed its pipe"
        elif process.exitcode < 0:
            how = f"was killed by signal {_signal_name(-process.exitcode)}"
        else:
            how = f"exited with code {process.exitcode}"
        error = EOFError(
            f"Worker-{index} (pid {process.pid}) of `{type(self).__name__}` {how} during `{method}`: "
            "its sub-environment is lost; call `close()` and create a new environment."
        )
        return index, EOFError, error, ""

    def _raise_failures(self, failures: list[tuple[int, ErrorReport | None]]) -> None:
        # Every failure is logged and its worker marked stopped; the last one is raised.
        self._state = AsyncState.DEFAULT
        for index, report in failures:
            if report is None:
                # A custom worker that reports through the error queue, as gymnasium's workers do.
                report = self.error_queue.get()
            _, _, error, trace = report
            logger.error(f"Received the following error from Worker-{index} - Shutting it down")
            logger.error(f"{trace or error}")
            pipe = self.parent_pipes[index]
            if pipe is not None:
                pipe.close()
            self.parent_pipes[index] = None

        logger.error("Raising the last exception back to the main process.")
        _, exc_type, error, trace = report
        exception = error if isinstance(error, BaseException) else exc_type(error)
        if trace:
            raise exception from _RemoteTraceback(trace)
        raise exception

    def _check_spaces(self) -> None:
        self._assert_is_running()
        self._send(
            [("_check_spaces", (self.observation_mode, self.single_observation_space, self.single_action_space))]
            * self.num_envs
        )
        results = self._receive_all("_check_spaces", None)
        same_observation_spaces, same_action_spaces = zip(*results, strict=True)
        if not all(same_observation_spaces):
            if self.observation_mode == "same":
                raise RuntimeError(
                    "AsyncVectorEnv(..., observation_mode='same') however some of the sub-environments observation "
                    "spaces are not equivalent. If this is intentional, use `observation_mode='different'` instead."
                )
            raise RuntimeError(
                "AsyncVectorEnv(..., observation_mode='different' or custom space) however the sub-environment's "
                "observation spaces do not share a common shape and dtype."
            )
        if not all(same_action_spaces):
            raise RuntimeError(
                f"Some environments have an action space different from `{self.single_action_space}`. "
                "In order to batch actions, the action spaces from all environments must be equal."
            )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _stop_process(process: Any, deadline: float | None) -> None:
    """Join ``process``, terminating (then killing) it if it is still alive at ``deadline``."""
    if process.pid is None:
        return  # never started
    process.join(None if deadline is None else max(deadline - time.monotonic(), 0.0))
    if process.is_alive():
        process.terminate()
        process.join(_EXIT_GRACE)
    if process.is_alive():
        process.kill()
        process.join()


def _error_report(index: int, error: BaseException) -> ErrorReport:
    """The report of ``error`` for the main process, made picklable if the exception is not."""
    trace = traceback.format_exc()
    report: ErrorReport = (index, type(error), error, trace)
    try:
        pickle.loads(pickle.dumps(report))
    except Exception:  # noqa: BLE001
        # The exception (or its class) cannot cross processes: send its type name and message.
        substitute = RuntimeError(f"{type(error).__module__}.{type(error).__qualname__}: {error}")
        report = (index, RuntimeError, substitute, trace)
    return report


def _async_worker(
    index: int,
    env_fn: Callable[[], Env],
    pipe: Connection,
    parent_pipe: Connection,
    shared_memory: Any,
    error_queue: Queue,
    autoreset_mode: AutoresetMode,
    semaphore: Semaphore | None,
) -> None:
    """Run one sub-environment, serving the commands of the main process until ``close``.

    Errors are sent back through ``pipe`` (``error_queue`` is part of the worker protocol for custom
    workers); after an error, or when the main process goes away, the worker closes its environment
    and exits.
    """
    # A forked child holds a copy of the parent's end; closing it lets the parent's death read as EOF.
    parent_pipe.close()
    env = None
    try:
        env = env_fn()
        observation_space = env.observation_space
        action_space = env.action_space
        autoreset = False
        observation = None
        while True:
            try:
                command, data = pipe.recv()
            except EOFError:
                return  # the main process is gone
            permit_held = semaphore is not None and command in ("reset", "step")
            if permit_held:
                semaphore.acquire()
            try:
                if command == "reset":
                    observation, info = env.reset(**data)
                    autoreset = False
                    if shared_memory:
                        write_to_shared_memory(observation_space, index, observation, shared_memory)
                        observation = None
                    reply: Any = (observation, info)
                elif command == "reset-noop":
                    reply = (observation, {})
                elif command == "step":
                    if autoreset_mode is AutoresetMode.NEXT_STEP and autoreset:
                        observation, info = env.reset()
                        reward, terminated, truncated = 0, False, False
                    else:
                        observation, reward, terminated, truncated, info = env.step(data)
                        if autoreset_mode is AutoresetMode.SAME_STEP and (terminated or truncated):
                            final_observation, final_info = observation, info
                            observation, reset_info = env.reset()
                            info = {"final_info": final_info, "final_obs": final_observation, **reset_info}
                    autoreset = terminated or truncated
                    if shared_memory:
                        write_to_shared_memory(observation_space, index, observation, shared_memory)
                        observation = None
                    reply = (observation, reward, terminated, truncated, info)
                elif command == "_call":
                    name, args, kwargs = data
                    attribute = env.get_wrapper_attr(name)
                    reply = attribute(*args, **kwargs) if callable(attribute) else attribute
                elif command == "_setattr":
                    name, value = data
                    env.set_wrapper_attr(name, value)
                    reply = None
                elif command == "_check_spaces":
                    observation_mode, single_observation_space, single_action_space = data
                    if observation_mode == "same":
                        same_observation_space = single_observation_space == observation_space
                    else:
                        same_observation_space = is_space_dtype_shape_equiv(single_observation_space, observation_space)
                    reply = (same_observation_space, single_action_space == action_space)
                elif command == "close":
                    pipe.send((None, True))
                    return
                else:
                    raise RuntimeError(
                        f"Received unknown command `{command}`. Must be one of "
                        "[`reset`, `step`, `close`, `_call`, `_setattr`, `_check_spaces`]."
                    )
            finally:
                # Released before replying: the send can block until the main process reads.
                if permit_held:
                    semaphore.release()
            pipe.send((reply, True))
    except (KeyboardInterrupt, Exception) as error:
        try:
            pipe.send((_error_report(index, error), False))
        except OSError:
            pass  # the main process is gone
    finally:
        if env is not None:
            env.close()
