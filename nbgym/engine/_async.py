"""Asynchronous stepping of the compiled vector envs: envpool's ``send``/``recv`` and gymnasium's
``step_async``/``step_wait``, deterministic.

With ``batch_size = M`` (dividing ``num_envs = N``), the sub-environments form ``N / M`` fixed batches of
consecutive ids: ``0..M-1``, ``M..2M-1``, ... ``async_reset()`` resets them all; ``recv()`` returns the batches
in that order, round and round (batch 0, 1, ..., ``N / M - 1``, 0, ...), each with its ids in
``infos["env_id"]``. ``send(actions, env_id)`` posts a received batch's actions to the engine's stepping threads
and returns at once: they step it while the caller computes (the kernels release the GIL), and go on from one batch
to the next without returning to Python (``threads.StepServer``); ``recv()`` steps what they have not begun of the
batch it returns, beside them, and while they step its last chunks, what they have not begun of the batches sent
after it (a batch goes to ``num_threads - 1`` workers, at least one: with the caller that joins them,
``num_threads`` threads step it). So each sub-environment's results are those of stepping it synchronously with the
same seeds and actions, and which ids a ``recv`` returns depends on ``N`` and ``M`` alone: a run is reproducible at
any ``num_threads`` and machine load. (envpool's ``recv`` returns whichever sub-environments finished first.)

A batch fewer than a chunk worth a thread (``Physics.min_chunk_size``: 256 CartPole sub-environments), or whose step
takes less than ``threads.POST_MIN_SECONDS`` (~75 us: CartPole's 2048 sub-environments take ~45 us), is stepped by
``send`` itself: waking a thread would cost the caller more than the step. ``send`` times the steps it takes itself and
hands the batches of a size over once they take longer (``threads.SendTiming``); which thread steps a batch never
changes its results.

While batches are in flight, calls that read or write every sub-environment wait for them first (``get_attr``,
``set_attr``, parameters, ``render``, ``close``, copies and pickles; the batches' results are then received as
usual); ``step(actions)`` without ``env_id``, ``reset()`` and ``rollout`` refuse, as does ``send`` for a batch in
flight. Misuse is refused before anything moves.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import numpy as np

from nbgym import error
from nbgym.engine import _threads as threads
from nbgym.engine._fixed import NUM_ENVS_SLOT
from nbgym.engine._kernels import STEP_OK

RESET, STEPPED, IN_FLIGHT, RECEIVED = "reset", "stepped", "in flight", "received"
"""The states of a batch: reset or stepped with results that ``recv`` returns next, being stepped, or returned by
``recv`` and waiting for ``send``."""


class Batches:
    """The ``num_envs / size`` batches of an async run, their states and steps in flight."""

    def __init__(self, num_envs: int, size: int) -> None:
        self.size = size
        self.count = num_envs // size
        self.states = [RESET] * self.count
        self.posts: list[threads.Post | None] = [None] * self.count
        """Each batch's step in flight (``StepServer.prepare``), its counters those of the server's row for it."""
        self.next = 0
        """The batch that the next ``recv`` returns."""
        self.action_dtype: np.dtype | None = None
        """The dtype of the run's actions (its first ``send``'s)."""
        self.all_ids = np.arange(num_envs, dtype=np.int32)
        """Every sub-environment's id, to compare the ids that ``send`` gets with (``_received_batch``)."""
        self.all_ids.flags.writeable = False
        self.ids = [self.all_ids[first : first + size] for first in range(0, num_envs, size)]
        """Each batch's ids, as ``recv`` returns them (``infos["env_id"]``): the same read-only array each time (views
        of a read-only array cannot be made writable), so that ``send`` knows them by identity."""
        self.index_of_ids = {id(ids): index for index, ids in enumerate(self.ids)}

    def bounds(self, index: int) -> tuple[int, int]:
        return index * self.size, (index + 1) * self.size

    def in_flight(self) -> bool:
        return IN_FLIGHT in self.states


def check_batch_size(batch_size: Any, num_envs: int) -> int:
    """``batch_size`` as an int, ``num_envs`` for ``None``.

    Raises:
        ValueError: If it is not a positive int that divides ``num_envs``.
    """
    if batch_size is None:
        return num_envs
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or not 1 <= batch_size <= num_envs:
        raise ValueError(f"batch_size must be an int from 1 to num_envs={num_envs}, got {batch_size!r}.")
    if num_envs % batch_size:
        raise ValueError(
            f"batch_size={batch_size} does not divide num_envs={num_envs}: recv returns fixed batches of consecutive "
            f"sub-environments (that is what makes a run reproducible); choose a divisor of num_envs."
        )
    return int(batch_size)


class AsyncSteps:
    """``async_reset``/``send``/``recv`` (envpool's) and ``step_async``/``step_wait`` (gymnasium's) of
    ``KernelVectorEnv``; see the module docstring."""

    batch_size: int
    """The number of sub-environments ``recv`` returns (``num_envs`` by default)."""
    _batches: Batches | None = None
    """The async run since the last ``async_reset`` (``None``: none)."""
    _pending_step: tuple[threads.Post | None, Any] | None = None
    """``step_async``'s step and actions, until ``step_wait`` (the step ``None`` once ``_settle`` waited for it)."""

    def async_reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> None:
        """Resets every sub-environment (as ``reset``, whose ``seed`` and ``options`` it takes), for ``recv`` to
        return in batches of ``batch_size``: starts an async run.

        Raises:
            ValueError: For ``options["reset_mask"]``: an async run starts from every sub-environment.
        """
        if options and options.get("reset_mask") is not None:
            raise ValueError(
                "async_reset() resets every sub-environment; reset some with reset(options={'reset_mask': mask}) "
                "outside an async run."
            )
        self._settle()
        self._batches = None
        self.reset(seed=seed, options=options)
        self._batches = Batches(self.num_envs, self.batch_size)

    def send(self, actions: Any, env_id: Any = None) -> None:
        """Hands the actions of a batch that ``recv`` returned to the stepping threads, and returns at once.

        Args:
            actions: One action per id of ``env_id``, in its order: a numpy array of ``batch_size`` actions.
            env_id: The ids (``infos["env_id"]`` of a ``recv``), in any order; ``None``: those of the last ``recv``.

        Raises:
            nbgym.error.ResetNeeded: Before ``async_reset``, or after a failed step.
            nbgym.error.AlreadyPendingCallError: For ids in flight (sent and not received).
            ValueError: For ids that are not one received batch's (duplicates, out of range, of several batches,
                or not returned by ``recv``).
            InvalidAction: For a batch of another length, an action the env refuses, actions of another dtype
                than the run's first ``send``'s, or actions that are not a numpy array (``InvalidActionTypeError``).
        """
        self._check_open()
        batches = self._running("send()")
        index, order = self._received_batch(batches, env_id)
        first, stop = batches.bounds(index)
        if not self._ready:
            from nbgym.engine._env import _refuse_faulted

            _refuse_faulted(self, "send()")
        if not isinstance(actions, np.ndarray):
            raise error.InvalidActionTypeError(
                f"send(): actions must be a numpy array of {batches.size} actions, got a {type(actions).__name__}: "
                f"the batches of an async run compute in one dtype, which Python numbers do not have (step() reads "
                f"them one by one, as gymnasium does). Pass np.asarray(actions, dtype=...)."
            )
        dtype = actions.dtype
        if batches.action_dtype is not None and dtype != batches.action_dtype:
            raise error.InvalidAction(
                f"send(): the actions of one async run keep the dtype of its first send ({batches.action_dtype}), got "
                f"{dtype}: the kernels compute in the actions' dtype, as gymnasium does, and batches in flight share "
                f"it. Cast them, or call async_reset() to start a run with another dtype."
            )
        if order is not None:
            if len(actions) == order.size:
                actions = actions[order]
        server = self._batch.async_server(stop - first)
        buffer = self._rows_actions(server, actions, first, stop)
        batches.action_dtype = dtype
        self._step_rows(server, buffer, actions, first, stop, index)

    def recv(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The next batch's results, waiting for its step: batches come in the order of their ids, round and round.

        Returns:
            ``(obs, rewards, terminations, truncations, infos)`` of ``batch_size`` sub-environments, their ids in
            ``infos["env_id"]`` (int32, read-only: the same array each time this batch comes back); after
            ``async_reset``, the reset's observations and infos, with zero rewards and false flags.

        Raises:
            nbgym.error.ResetNeeded: Before ``async_reset``.
            nbgym.error.NoAsyncCallError: If the next batch was received and not sent since.
        """
        self._check_open()
        batches = self._running("recv()")
        index = batches.next
        first, stop = batches.bounds(index)
        if batches.states[index] == RECEIVED:
            sent = "nothing was sent" if not batches.in_flight() else "it was not sent back"
            raise error.NoAsyncCallError(
                f"recv() returns the batch of ids {first}..{stop - 1} next (batches come in the order of their ids), "
                f"and {sent} since the last recv() returned it: send(actions, env_id) its actions first.",
                "recv",
            )
        if batches.states[index] == IN_FLIGHT:
            self._wait_rows(batches, index)
        kind = batches.states[index]
        batches.states[index] = RECEIVED
        batches.next = (index + 1) % batches.count
        return self._rows_results(index, kind)

    def step_async(self, actions: Any) -> None:
        """Starts a step of every sub-environment in the stepping threads and returns at once (gymnasium's
        ``step_async``); ``step_wait`` returns its results.

        Raises:
            nbgym.error.AlreadyPendingCallError: While a ``step_async`` waits for its ``step_wait``, or batches of an
                async run are in flight.
        """
        self._refuse_async_run("step_async()")
        actions_array, actions = self._begin_step(actions)
        status = self._batch.check_rows(self._kernel_mode, actions_array, 0, self.num_envs)
        if status != STEP_OK:
            self._raise_step_error(status, actions)
        server = self._batch.async_server(self.num_envs)
        buffer = actions_array if server is None else server.actions_of(actions_array.dtype)
        if buffer is not actions_array:
            np.copyto(buffer, actions_array)
        post, handed_over = self._prepare(server, buffer, 0, self.num_envs)
        self._pending_step = (post, actions)
        try:
            self._launch(server, handed_over, post)
        except Exception as raised:
            self._fail_async(raised)
        except BaseException:
            if post.progress[0] == 0:
                self._pending_step = None  # not stepped: as before the call
            raise

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The results of the step ``step_async`` started, once the threads have stepped it (gymnasium's ``step_wait``).

        Raises:
            nbgym.error.NoAsyncCallError: Without a ``step_async`` before.
        """
        self._check_open()
        if self._pending_step is None:
            raise error.NoAsyncCallError("Calling step_wait() without any prior call to step_async().", "step")
        post, actions = self._pending_step
        try:
            self._finish(post)
        except Exception as raised:
            self._fail_async(raised)
        except BaseException:
            if post is not None and post.progress[0] == 0:
                self._pending_step = None  # interrupted before any chunk stepped: as before step_async
            raise
        self._pending_step = None
        return self._end_step(actions, stepped_since=post is not None)

    # The engine's side.

    def _running(self, call: str) -> Batches:
        batches = self._batches
        if batches is None:
            raise error.ResetNeeded(f"Cannot call {call} before async_reset(), which starts an async run.")
        return batches

    def _received_batch(self, batches: Batches, env_id: Any) -> tuple[int, np.ndarray | None]:
        """The batch of ``env_id`` and the order that puts its actions in id order (``None``: already).

        Raises:
            nbgym.error.AlreadyPendingCallError, ValueError: See ``send``.
        """
        if env_id is None:
            index = (batches.next - 1) % batches.count
            if batches.states[index] != RECEIVED:
                raise error.AlreadyPendingCallError(
                    "send() without env_id sends the ids of the last recv(), which were sent already: call recv().",
                    "send",
                )
            return index, None
        index = batches.index_of_ids.get(id(env_id))
        if index is not None and batches.ids[index] is env_id and batches.states[index] == RECEIVED:
            return index, None  # a recv's ids, as a loop sends them back (read-only: as recv returned them)
        ids = np.asarray(env_id)
        if ids.ndim != 1 or ids.dtype.kind not in "iu" or ids.size != batches.size:
            raise ValueError(
                f"env_id must be the {batches.size} int ids that a recv() returned (infos['env_id']), got {env_id!r}."
            )
        first = int(ids[0])
        if first % batches.size == 0 and 0 <= first < self.num_envs:  # recv's ids, as a loop sends them back
            in_order = (ids == batches.all_ids[first : first + batches.size]).all()
            if in_order and batches.states[first // batches.size] == RECEIVED:
                return first // batches.size, None
        index = int(ids.min()) // batches.size if ids.min() >= 0 else -1
        first, stop = batches.bounds(index)
        if not 0 <= index < batches.count or not np.array_equal(np.sort(ids), np.arange(first, stop)):
            raise ValueError(
                f"env_id must be the ids of one batch that recv() returned ({batches.size} consecutive ids from a "
                f"multiple of {batches.size}, each once), got {ids.tolist()}."
            )
        state = batches.states[index]
        if state == IN_FLIGHT:
            raise error.AlreadyPendingCallError(
                f"send(): the ids {first}..{stop - 1} are in flight (sent, not yet received): recv() them first.",
                "send",
            )
        if state != RECEIVED:
            raise ValueError(
                f"send(): recv() has not returned the ids {first}..{stop - 1} since they last stepped or reset: "
                f"call recv() (it returns the batches in the order of their ids)."
            )
        if np.array_equal(ids, np.arange(first, stop)):  # in order, after a refusal above
            return index, None
        return index, np.argsort(ids)

    def _rows_actions(self, server: threads.StepServer | None, actions: Any, first: int, stop: int) -> np.ndarray:
        """A received batch's actions in the whole-batch array of their dtype that the kernels read rows of (the
        async server's, or the env's own for batches stepped in ``send``).

        Raises:
            InvalidAction: As for ``step``, for actions of a wrong shape or dtype.
        """
        batch = self._batch
        if self._python_number_actions:
            self._note_python_number_actions(False)  # arrays: each computes in its dtype
        if server is None:
            buffers = self.__dict__.get("_send_buffers")
            if buffers is None:
                buffers = self.__dict__.setdefault("_send_buffers", {})
            buffer = buffers.get(actions.dtype)  # send took a numpy array
        else:
            buffer = server.actions
        if (
            buffer is not None
            and actions.dtype == buffer.dtype
            and type(actions) is np.ndarray
            and actions.shape == (stop - first, *batch.action_shape[1:])
        ):
            # of the kernels' own dtype (a buffer's) and shape: as actions_array takes them
            buffer[first:stop] = actions
            return buffer
        array = batch.actions_array(actions, num_rows=stop - first)
        if server is not None:
            buffer = server.actions_of(array.dtype)  # one dtype in flight: a run's (send refuses others)
        else:
            buffer = buffers.get(array.dtype)
            if buffer is None:
                buffer = buffers[array.dtype] = np.zeros(batch.action_shape, dtype=array.dtype)
        buffer[first:stop] = array
        return buffer

    def _step_rows(
        self, server: threads.StepServer | None, buffer: np.ndarray, actions: Any, first: int, stop: int, index: int
    ) -> None:
        """Checks a received batch's actions, then starts its step in ``server``'s threads, or steps it here (see
        ``send``)."""
        batches = self._batches
        if self._row_hooks:
            self._before_rows(actions, first, stop)
        if self._held:
            self._write_back_held(range(first, stop))
        status = self._batch.check_rows(self._kernel_mode, buffer, first, stop)
        if status != STEP_OK:
            self._raise_step_error(status, buffer)
        post, handed_over = self._prepare(server, buffer, first, stop)
        # In flight before any thread may take it: an interrupt from here on leaves it in flight (recv steps it), or,
        # from inside _launch, stepped whole or not at all.
        batches.posts[index], batches.states[index] = post, IN_FLIGHT
        try:
            self._launch(server, handed_over, post)
        except Exception as raised:  # the kernel, stepping here
            batches.posts[index], batches.states[index] = None, RECEIVED
            self._fail_async(raised)
        except BaseException:
            if post.progress[0] == 0:  # not stepped: as before send (else stepped whole: in flight until received)
                batches.posts[index], batches.states[index] = None, RECEIVED
            raise

    def _prepare(
        self, server: threads.StepServer | None, buffer: np.ndarray, first: int, stop: int
    ) -> tuple[threads.Post, bool]:
        """The step of rows ``first`` to ``stop - 1`` with their actions in ``buffer``, and whether it goes to the
        stepping threads: ``server``'s next step (nothing steps it before ``_launch``) if it takes the batches of this
        size (``threads.SendTiming``), else one that ``_launch`` steps here."""
        if server is None or not server.sends.posts:
            return self._batch.rows_post(self._kernel_mode, self._max_steps, buffer, first, stop), False
        return server.prepare(first, stop), True

    def _launch(self, server: threads.StepServer | None, handed_over: bool, post: threads.Post) -> None:
        if handed_over:
            server.post(post)
            return
        if server is None:  # too few sub-environments to be worth a thread
            self._batch.step_rows_here(post)
            return
        start = time.perf_counter()  # too short a step so far: timed
        self._batch.step_rows_here(post)
        server.sends.record(time.perf_counter() - start)

    def _wait_rows(self, batches: Batches, index: int) -> None:
        """Waits for a batch in flight; afterwards it is stepped, and what is held of its sub-environments renewed
        (``_rows_stepped``). Interrupted, it is stepped whole (and stays in flight until this completes) or not at
        all (as before its ``send``)."""
        post = batches.posts[index]
        try:
            self._finish(post)
        except Exception as raised:
            batches.posts[index], batches.states[index] = None, RECEIVED
            self._fail_async(raised)
        except BaseException:
            if post.progress[0] == 0:
                batches.posts[index], batches.states[index] = None, RECEIVED
            raise
        if self._row_hooks or self._held:
            self._rows_stepped(*batches.bounds(index))
        batches.posts[index], batches.states[index] = None, STEPPED

    def _finish(self, post: threads.Post | None) -> None:
        """Returns once no thread steps ``post``'s rows: at once when every one is stepped (or there is none).

        Raises:
            Exception: What a kernel raised in a thread (``RuntimeError`` from it).
            threads.StepAbandoned: From ``StepServer.join``; the env then refuses every call until the thread ends.
        """
        if post is None or post.progress[1] >= post.num_envs:
            return
        try:
            self._batch.async_server(post.num_envs).join(post)
        except threads.StepAbandoned as abandoned:
            self._batches, self._pending_step = None, None
            self._abandon(abandoned)
            raise

    def _fail_async(self, raised: Exception) -> None:
        """A kernel raised: every other batch in flight ends first, then the env refuses to step until reset."""
        from nbgym.engine._env import _fault

        batches, self._batches = self._batches, None
        pending, self._pending_step = self._pending_step, None
        others = [] if batches is None else list(batches.posts)
        if pending is not None:
            others.append(pending[0])
        for post in others:
            with contextlib.suppress(Exception):  # the first failure is the one raised
                self._finish(post)
        self._after_failure()
        raise _fault(self, raised, "step") from None

    def _settle(self) -> None:
        """Waits for every batch in flight (their results stay for ``recv``), and for ``step_async``'s step."""
        batches = self._batches
        if batches is not None:
            for index, state in enumerate(batches.states):
                if state == IN_FLIGHT:
                    self._wait_rows(batches, index)
        if self._pending_step is not None:
            post, actions = self._pending_step
            if post is not None:
                try:
                    self._finish(post)
                except Exception as raised:
                    self._fail_async(raised)
                self._rows_stepped(0, self.num_envs)
                self._pending_step = (None, actions)

    def _refuse_async_run(self, call: str) -> None:
        """Before ``call`` of every sub-environment: ends an async run with nothing in flight, refuses otherwise.

        Raises:
            nbgym.error.AlreadyPendingCallError: While batches are in flight, or ``step_async`` waits for ``step_wait``.
        """
        if self._pending_step is not None:
            raise error.AlreadyPendingCallError(
                f"Calling {call} while waiting for a pending call to step_async() to complete: call step_wait().",
                "step",
            )
        batches = self._batches
        if batches is not None:
            if batches.in_flight():
                in_flight = [i for i, state in enumerate(batches.states) if state == IN_FLIGHT]
                raise error.AlreadyPendingCallError(
                    f"Cannot call {call}: batches {in_flight} of the async run are in flight (sent, not received): "
                    f"recv() them first (step(actions, env_id) sends and receives batches).",
                    "step",
                )
            self._batches = None

    def _rows_results(
        self, index: int, kind: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """What ``recv`` returns of batch ``index`` of the run, which the last step (or reset) of ``kind`` left."""
        batch, num_envs = self._batch, self.num_envs
        first, stop = self._batches.bounds(index)
        count = stop - first
        rows = batch.rows(first, stop)
        # The env seen as the vector env of sub-environments ``first`` to ``stop - 1`` for its infos (written out, not
        # a context manager: a recv of microseconds; ``num_envs`` refuses assignment, so its slot is written).
        fields = self.__dict__
        fields["_batch"], fields[NUM_ENVS_SLOT] = rows, count
        try:
            infos = self._reset_infos(rows.all_envs) if kind == RESET else self._step_infos()
        finally:
            fields["_batch"], fields[NUM_ENVS_SLOT] = batch, num_envs
        if kind == RESET:
            rewards = np.zeros(count, dtype=np.float64)
            terminated, truncated = np.zeros(count, dtype=np.bool_), np.zeros(count, dtype=np.bool_)
        else:
            if self._row_hooks:
                self._after_rows(first, stop)
            rewards, terminated, truncated = rows.rewards, rows.terminated, rows.truncated
            if self.copy:
                rewards, terminated, truncated = rewards.copy(), terminated.copy(), truncated.copy()
        obs = rows.obs
        infos["env_id"] = self._batches.ids[index]
        return (obs.copy() if self.copy else obs), rewards, terminated, truncated, infos
