"""Throughput measurement of nbgym beside gymnasium and envpool.

Shared by ``nbgym bench`` and ``nbgym warmup``, the asv suite (``benchmarks/benchmarks/``) and the
benchmark scripts, so that every number nbgym publishes is measured the same way:

- Every contender is made, reset with a seed and stepped before anything is timed (nbgym compiles
  its kernels, or loads them from numba's cache, on its first steps).
- Random actions are drawn ahead of time from nbgym's action space with a fixed seed, and the same
  actions go to every library: the timed loop only indexes a list.
- Contenders are timed in alternation, each sample a loop of ``steps`` steps, the order rotated
  from one repeat to the next, so that a burst of load from other processes hits all of them
  alike. The median of each contender's samples is reported (the best is kept beside it in the JSON
  report), and a ratio is the quotient of two medians: a rerun on a shared machine gives it again,
  where the best sample is whichever round the load spared.
- ``BenchConfig.warmup_steps`` steps every contender further before timing (CarRacing's first second
  of an episode draws the whole track zoomed out: a large batch sampled a few steps at a time would
  time nothing else).
- The garbage collector is off during a timed sample, as in :mod:`timeit`.
- A vector step counts ``num_envs`` env-steps, autoreset steps included, for every library alike.

gymnasium and envpool are optional: only this module imports them, only when they are asked for,
and a missing one is reported as skipped. The rest of nbgym never imports them.
"""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import importlib.util
import math
import os
import platform
import shutil
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from nbgym import __version__
from nbgym.registration import EnvSpec, make, make_vec, registry, spec
from nbgym.spaces import Box, Space
from nbgym.vector.utils import batch_space

LIBRARIES = ("nbgym", "gymnasium", "envpool")
"""The libraries that can be measured; nbgym is always measured, the others where installed."""

DEFAULT_NUM_ENVS = (1, 16, 256, 4096, 65536)
"""The batch sizes of ``nbgym bench`` (1 is the single environment of ``make``)."""

DEFAULT_MAX_SYNC_ENVS = 4096
"""Above this many sub-environments a ``SyncVectorEnv`` (a Python loop over envs) is not measured:
making and stepping it would take minutes."""

# The precomputed actions: at most this many batches, and at most this many action scalars in all
# (65536 envs x 64 batches of int64 is 32 MiB), cycled through by the timed loop.
_MAX_ACTION_BATCHES = 256
_MAX_ACTION_SCALARS = 1 << 22


class Unavailable(Exception):
    """A contender that is not measured here: its library is not installed, does not have the
    environment, or would be absurdly slow at that size. The message says which."""


def installed_libraries() -> list[str]:
    """The libraries of :data:`LIBRARIES` that are installed here, nbgym first."""
    return [library for library in LIBRARIES if importlib.util.find_spec(library) is not None]


def library_version(name: str) -> str | None:
    """The installed version of the distribution ``name``, or ``None`` if it is not installed."""
    if importlib.util.find_spec(name) is None:
        return None
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def interleaved_medians(samplers: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Each sampler's median over ``rounds`` interleaved rounds: every sampler once a round, the order rotated from
    round to round, so that every one sees the same machine load (the scripts' measuring, never the best sample)."""
    samples: dict[str, list[float]] = {name: [] for name in samplers}
    names = list(samplers)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(samplers[name]())
    return {name: statistics.median(values) for name, values in samples.items()}


def _import_library(name: str) -> Any:
    if importlib.util.find_spec(name) is None:
        raise Unavailable(f"{name} is not installed (pip install {name})")
    return importlib.import_module(name)


# gymnasium's JAX functional environments (nbgym.envs.phys2d, nbgym.envs.tabular): no numba kernel to compile
# or benchmark, and jax to import.
_JAX_ENVS = ("nbgym.envs.phys2d.", "nbgym.envs.tabular.")


def _in_nbgym_envs(entry_point: Any) -> bool:
    return (
        isinstance(entry_point, str) and entry_point.startswith("nbgym.envs.") and not entry_point.startswith(_JAX_ENVS)
    )


def is_compiled(env_spec: EnvSpec) -> bool:
    """Whether ``env_spec`` has one of nbgym's compiled vector environments as vector entry point."""
    return _in_nbgym_envs(env_spec.vector_entry_point)


def import_failure(env_spec: EnvSpec) -> str | None:
    """Why the modules of ``env_spec``'s entry points cannot be imported, or ``None`` if they can."""
    for entry_point in (env_spec.entry_point, env_spec.vector_entry_point):
        if isinstance(entry_point, str):
            try:
                importlib.import_module(entry_point.split(":")[0])
            # An environment module that is missing or half-written may fail in any way: report it.
            except Exception as e:
                return f"{type(e).__name__}: {e}"
    return None


def nbgym_env_ids() -> list[str]:
    """The registered ids whose entry point is one of nbgym's environments, in registration order."""
    return [env_id for env_id, env_spec in registry.items() if _in_nbgym_envs(env_spec.entry_point)]


def compiled_env_ids(latest_only: bool = False) -> list[str]:
    """The registered ids with a compiled vector environment whose modules import.

    Args:
        latest_only: Keep only the highest version of each name (``CartPole-v1``, not ``CartPole-v0``).

    Returns:
        The ids, in registration order.
    """
    specs = [s for s in registry.values() if is_compiled(s) and import_failure(s) is None]
    if latest_only:
        latest: dict[tuple[str | None, str], EnvSpec] = {}
        for env_spec in specs:
            key = (env_spec.namespace, env_spec.name)
            if key not in latest or (env_spec.version or 0) > (latest[key].version or 0):
                latest[key] = env_spec
        specs = [s for s in specs if latest[(s.namespace, s.name)] is s]
    return [s.id for s in specs]


def size_label(num_envs: int) -> str:
    """``"single"`` for 1 (the single environment of ``make``), else the number of sub-environments."""
    return "single" if num_envs == 1 else str(num_envs)


def action_pool(env_id: str, num_envs: int, seed: int = 0, *, single: bool | None = None) -> list[Any]:
    """Random actions drawn ahead of timing from nbgym's action space, the same for every library.

    Args:
        env_id: The environment id.
        num_envs: The batch size (1 for the single environment).
        seed: The seed of the action space.
        single: Actions of the single environment rather than batches; by default when ``num_envs`` is 1.

    Returns:
        Single actions, or batches of ``num_envs`` actions, to cycle through.
    """
    env = make(env_id)
    single = num_envs == 1 if single is None else single
    space: Space[Any] = env.action_space if single else batch_space(env.action_space, num_envs)
    env.close()
    space.seed(seed)
    first = space.sample()
    count = max(1, min(_MAX_ACTION_BATCHES, _MAX_ACTION_SCALARS // max(1, np.size(first))))
    return [first, *(space.sample() for _ in range(count - 1))]


class Runner:
    """A made, reset and warmed-up environment that steps through a precomputed action pool.

    Args:
        library: The library that made the environment.
        implementation: What was measured, e.g. ``"CartPoleVectorEnv"`` or ``"CartPoleEnv via make()"``.
        num_envs: 1 for a single environment, else the number of sub-environments.
        env: The environment, already reset.
        actions: The actions to cycle through (see :func:`action_pool`).
        threads: The threads the environment steps with.
    """

    def __init__(
        self, library: str, implementation: str, num_envs: int, env: Any, actions: list[Any], threads: int = 1
    ) -> None:
        self.library = library
        self.implementation = implementation
        self.num_envs = num_envs
        self.threads = threads
        self.env = env
        self._actions = actions
        self._next = 0
        # The first steps compile (or load from cache) nbgym's kernels, or warm any library's caches.
        self.run(2)

    def run(self, steps: int) -> None:
        """Steps the environment ``steps`` times with the next actions of the pool."""
        step, actions, count, k = self.env.step, self._actions, len(self._actions), self._next
        for _ in range(steps):
            step(actions[k])
            k = k + 1 if k + 1 < count else 0
        self._next = k

    def close(self) -> None:
        """Closes the environment."""
        self.env.close()


class SingleRunner(Runner):
    """A single environment: it is reset when an episode ends, inside the timed loop, as an agent would."""

    def run(self, steps: int) -> None:
        """Steps the environment ``steps`` times with the next actions of the pool, resetting ended episodes."""
        step, reset, actions, count, k = self.env.step, self.env.reset, self._actions, len(self._actions), self._next
        for _ in range(steps):
            _, _, terminated, truncated, _ = step(actions[k])
            if terminated or truncated:
                reset()
            k = k + 1 if k + 1 < count else 0
        self._next = k


def _check_sync_size(num_envs: int, max_sync_envs: int) -> None:
    if num_envs > max_sync_envs:
        raise Unavailable(
            f"a SyncVectorEnv (a Python loop over sub-environments) is not measured above "
            f"{max_sync_envs} envs (max_sync_envs)"
        )


def _nbgym_runner(
    env_id: str, num_envs: int, actions: list[Any], single: bool, threads: int, max_sync_envs: int, seed: int
) -> Runner:
    if single:
        env = make(env_id)
        env.reset(seed=seed)
        return SingleRunner("nbgym", f"{type(env.unwrapped).__name__} via make()", 1, env, actions)
    if is_compiled(spec(env_id)):
        _check_memory(env_id, num_envs)
        env = make_vec(env_id, num_envs, num_threads=threads)
        implementation = type(env).__name__ + (f", {threads} threads" if threads > 1 else "")
    else:
        _check_sync_size(num_envs, max_sync_envs)
        env = make_vec(env_id, num_envs, vectorization_mode="sync")
        implementation, threads = type(env).__name__, 1
    env.reset(seed=seed)
    return Runner("nbgym", implementation, num_envs, env, actions, threads)


def _array_bytes(value: Any) -> int:
    """The bytes of the numpy arrays in ``value`` and the tuples (state records) it holds."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_array_bytes(item) for item in value)
    return 0


def _check_memory(env_id: str, num_envs: int) -> None:
    """Refuses a compiled vector env whose arrays would take over half this machine's memory.

    The arrays of one sub-environment are measured on a 1-env vector env; twice their size per sub-environment
    is counted, for the scratch the kernels allocate as they step (a CarRacing sub-environment: ~0.8 MB of
    arrays, ~1.5 MB of memory).

    Raises:
        Unavailable: If ``num_envs`` sub-environments would not fit, saying how much they need.
    """
    probe = make_vec(env_id, 1)
    batch = probe._batch
    per_env = sum(_array_bytes(value) for name, value in vars(batch).items() if name not in batch._VIEWS)
    probe.close()
    needed = 2 * per_env * num_envs
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if needed > memory // 2:
        raise Unavailable(
            f"{num_envs} sub-environments of {env_id} need about {needed / 2**30:.1f} GiB "
            f"({per_env / 2**10:.0f} KiB of arrays each, twice that counted), over half of this machine's "
            f"{memory / 2**30:.1f} GiB"
        )


def _gymnasium_runner(
    env_id: str, num_envs: int, actions: list[Any], single: bool, max_sync_envs: int, seed: int
) -> Runner:
    gymnasium = _import_library("gymnasium")
    try:
        gym_spec = gymnasium.spec(env_id)
    except gymnasium.error.Error as e:
        raise Unavailable(f"gymnasium has no {env_id} ({e})") from None
    if single:
        env = gymnasium.make(env_id)
        env.reset(seed=seed)
        return SingleRunner("gymnasium", f"{type(env.unwrapped).__name__} via make()", 1, env, actions)
    if gym_spec.vector_entry_point is not None:
        env = gymnasium.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point")
        implementation = f"{type(env).__name__} (native vector env)"
    else:
        _check_sync_size(num_envs, max_sync_envs)
        env = gymnasium.make_vec(env_id, num_envs, vectorization_mode="sync")
        implementation = type(env).__name__
    env.reset(seed=seed)
    return Runner("gymnasium", implementation, num_envs, env, actions)


def _envpool_runner(env_id: str, num_envs: int, actions: list[Any], single: bool, threads: int, seed: int) -> Runner:
    envpool = _import_library("envpool")
    if single:
        raise Unavailable("envpool has no single-environment API")
    if env_id not in envpool.list_all_envs():
        raise Unavailable(f"envpool has no {env_id}")
    with warnings.catch_warnings():
        # envpool builds its gymnasium spaces on the first reset, and they warn about float32 casts
        warnings.simplefilter("ignore")
        env = envpool.make_gymnasium(env_id, num_envs=num_envs, num_threads=threads, seed=seed)
        env.reset()
        return Runner(
            "envpool", f"envpool, {threads} thread{'s' if threads > 1 else ''}", num_envs, env, actions, threads
        )


def make_runner(
    library: str,
    env_id: str,
    num_envs: int,
    actions: list[Any],
    *,
    single: bool | None = None,
    threads: int = 1,
    max_sync_envs: int = DEFAULT_MAX_SYNC_ENVS,
    seed: int = 0,
) -> Runner:
    """Makes, seeds and warms up ``library``'s version of an environment for timing.

    nbgym: ``make`` for one env, else ``make_vec`` (its compiled vector env, with ``threads``).
    gymnasium: ``make`` for one env, else ``make_vec`` with its native vector env if the spec has a
    vector entry point, else ``SyncVectorEnv``. envpool: ``make_gymnasium`` with ``threads``.

    Args:
        library: One of :data:`LIBRARIES`.
        env_id: The environment id (the same in every library).
        num_envs: The number of sub-environments (1 for the single environment).
        actions: The precomputed actions (see :func:`action_pool`).
        single: Measure the single environment of ``make`` rather than a vector environment; by default
            when ``num_envs`` is 1.
        threads: The threads of nbgym's compiled vector env and of envpool.
        max_sync_envs: The largest ``SyncVectorEnv`` that is measured.
        seed: The seed of the first reset.

    Returns:
        The runner, after its first steps.

    Raises:
        Unavailable: If the contender cannot be measured (the message says why).
        ValueError: If ``library`` is unknown.
    """
    single = num_envs == 1 if single is None else single
    if library == "nbgym":
        return _nbgym_runner(env_id, num_envs, actions, single, threads, max_sync_envs, seed)
    if library == "gymnasium":
        return _gymnasium_runner(env_id, num_envs, actions, single, max_sync_envs, seed)
    if library == "envpool":
        return _envpool_runner(env_id, num_envs, actions, single, threads, seed)
    raise ValueError(f"Unknown library {library!r}, expected one of {LIBRARIES}.")


def time_steps(runner: Runner, steps: int, clock: Callable[[], float] | None = None) -> float:
    """The seconds ``runner.run(steps)`` takes on ``clock`` (``time.perf_counter``, elapsed time, by default),
    with the garbage collector off."""
    clock = clock or time.perf_counter
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        runner.run(steps)
        return clock() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def calibrate(runner: Runner, sample_time: float) -> int:
    """The number of steps that ``runner`` takes about ``sample_time`` seconds to run (at least 1)."""
    steps = 1
    while True:
        elapsed = time_steps(runner, steps)
        if elapsed >= sample_time / 8:
            return max(1, round(steps * sample_time / elapsed))
        steps *= 10 if elapsed < sample_time / 100 else 2


def env_steps_per_second(runner: Runner, sample_time: float) -> float:
    """One calibrated sample of ``runner``'s throughput, in env-steps per second."""
    steps = calibrate(runner, sample_time)
    return steps * runner.num_envs / time_steps(runner, steps)


@dataclass
class Measurement:
    """The timed samples of one contender.

    Attributes:
        env_id: The environment id.
        num_envs: 1 for the single environment, else the number of sub-environments.
        library: The library.
        implementation: What was measured (see :class:`Runner`).
        threads: The threads it stepped with (1 for gymnasium, single envs and sync vector envs).
        steps: The steps of each sample.
        samples: The throughput of each sample, in env-steps per second.
    """

    env_id: str
    num_envs: int
    library: str
    implementation: str
    threads: int
    steps: int
    samples: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        """The highest throughput of the samples (of the least disturbed one)."""
        return max(self.samples)

    @property
    def median(self) -> float:
        """The median throughput of the samples: the reported one."""
        return statistics.median(self.samples)

    def to_json(self) -> dict[str, Any]:
        """The measurement as a JSON-able dict, with ``median`` and ``best``."""
        return {
            "env_id": self.env_id,
            "num_envs": self.num_envs,
            "library": self.library,
            "implementation": self.implementation,
            "threads": self.threads,
            "steps": self.steps,
            "samples": self.samples,
            "best": self.best,
            "median": self.median,
        }


@dataclass
class Skip:
    """A contender that was not measured, and why."""

    env_id: str
    num_envs: int
    library: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The skip as a JSON-able dict."""
        return {"env_id": self.env_id, "num_envs": self.num_envs, "library": self.library, "reason": self.reason}


class ProgressBar:
    """A plain-text progress bar redrawn in place on a terminal stream (stderr by default).

    Args:
        total: The number of units of work.
        stream: Where to draw; ``None`` draws nothing.
        width: The number of characters of the bar.
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 24) -> None:
        self.total = max(1, total)
        self.done = 0
        self.stream = stream
        self.width = width
        self._start = time.perf_counter()
        self._drawn = 0

    def advance(self, units: int = 1, label: str = "") -> None:
        """Marks ``units`` more units done and redraws with ``label``."""
        self.done = min(self.total, self.done + units)
        self.show(label)

    def show(self, label: str) -> None:
        """Redraws the bar with ``label`` (what is running now)."""
        if self.stream is None:
            return
        filled = self.width * self.done // self.total
        elapsed = time.perf_counter() - self._start
        line = (
            f"[{'#' * filled}{'.' * (self.width - filled)}] {100 * self.done // self.total:3d}% {elapsed:5.1f}s {label}"
        )
        if self.stream.isatty():  # a line wider than the terminal would wrap, and \r redraw only its last row
            line = line[: max(self.width, shutil.get_terminal_size().columns - 1)]
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def close(self) -> None:
        """Erases the bar."""
        if self.stream is not None and self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def measure_alternating(
    runners: Sequence[Runner],
    env_id: str,
    *,
    repeats: int,
    steps: int | None = None,
    sample_time: float = 0.2,
    progress: ProgressBar | None = None,
) -> list[Measurement]:
    """Times ``runners`` in alternation: ``repeats`` rounds, one sample of each per round.

    Args:
        runners: The contenders, made and warmed up, all for the same environment and size.
        env_id: The environment id (for the measurements).
        repeats: The number of samples of each contender.
        steps: The steps of each sample; ``None`` calibrates each contender to ``sample_time``.
        sample_time: The target duration of a sample in seconds when ``steps`` is ``None``.
        progress: Advanced by one unit per calibration and per sample.

    Returns:
        One measurement per runner, in the order of ``runners``.
    """
    measurements = []
    for runner in runners:
        label = f"{env_id} {size_label(runner.num_envs)}: {runner.library}"
        if progress is not None:
            progress.show(f"{label} (calibrating)")
        runner_steps = steps if steps is not None else calibrate(runner, sample_time)
        measurements.append(
            Measurement(env_id, runner.num_envs, runner.library, runner.implementation, runner.threads, runner_steps)
        )
        if progress is not None:
            progress.advance(1, label)
    for repeat in range(repeats):
        # Rotating the order spreads any drift in the machine's load over every contender.
        for index in np.roll(np.arange(len(runners)), -repeat):
            runner, measurement = runners[index], measurements[index]
            elapsed = time_steps(runner, measurement.steps)
            measurement.samples.append(measurement.steps * runner.num_envs / elapsed)
            if progress is not None:
                progress.advance(1, f"{env_id} {size_label(runner.num_envs)}: {runner.library} {repeat + 1}/{repeats}")
    return measurements


@dataclass
class BenchConfig:
    """What ``nbgym bench`` measures.

    Attributes:
        env_ids: The environment ids (registered in nbgym; compared where the other library has them).
        num_envs: The sizes; 1 is the single environment of ``make``.
        libraries: The libraries, nbgym first.
        threads: The threads of nbgym's compiled vector envs and of envpool.
        repeats: The samples of each contender.
        steps: The steps of each sample, or ``None`` to calibrate to ``sample_time``.
        sample_time: The target duration of a sample in seconds.
        max_sync_envs: The largest ``SyncVectorEnv`` measured.
        seed: The seed of the actions and of the first resets.
        warmup_steps: Steps each contender takes after its first steps and before calibration and timing.
    """

    env_ids: list[str]
    num_envs: list[int] = field(default_factory=lambda: list(DEFAULT_NUM_ENVS))
    libraries: list[str] = field(default_factory=lambda: list(LIBRARIES))
    threads: int = 1
    repeats: int = 5
    steps: int | None = None
    sample_time: float = 0.2
    max_sync_envs: int = DEFAULT_MAX_SYNC_ENVS
    seed: int = 0
    warmup_steps: int = 0


@dataclass
class Report:
    """The measurements of a benchmark run and the contenders it skipped."""

    config: BenchConfig
    measurements: list[Measurement] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    def find(self, env_id: str, num_envs: int, library: str) -> Measurement | None:
        """The measurement of one contender, if it was measured."""
        for measurement in self.measurements:
            if (measurement.env_id, measurement.num_envs, measurement.library) == (env_id, num_envs, library):
                return measurement
        return None

    def ratio(self, env_id: str, num_envs: int, against: str) -> float | None:
        """nbgym's median throughput over ``against``'s, where both were measured."""
        ours, theirs = self.find(env_id, num_envs, "nbgym"), self.find(env_id, num_envs, against)
        if ours is None or theirs is None:
            return None
        return ours.median / theirs.median

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """The report that :meth:`to_json` wrote (``nbgym bench --json``)."""
        return cls(
            BenchConfig(**data["settings"]),
            [Measurement(**{k: v for k, v in m.items() if k not in ("best", "median")}) for m in data["results"]],
            [Skip(**skip) for skip in data["skipped"]],
        )

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-able dict: the machine, the settings, the measurements, the ratios and the skips."""
        config = self.config
        ratios = [
            {"env_id": env_id, "num_envs": n, "against": library, "ratio": ratio}
            for env_id in config.env_ids
            for n in config.num_envs
            for library in config.libraries[1:]
            if (ratio := self.ratio(env_id, n, library)) is not None
        ]
        return {
            "nbgym_version": __version__,
            "machine": machine_info(),
            "settings": {
                "env_ids": config.env_ids,
                "num_envs": config.num_envs,
                "libraries": config.libraries,
                "threads": config.threads,
                "repeats": config.repeats,
                "steps": config.steps,
                "sample_time": config.sample_time,
                "max_sync_envs": config.max_sync_envs,
                "seed": config.seed,
                "warmup_steps": config.warmup_steps,
            },
            "statistic": "median",
            "results": [m.to_json() for m in self.measurements],
            "ratios": ratios,
            "skipped": [s.to_json() for s in self.skipped],
        }


def machine_info() -> dict[str, Any]:
    """The interpreter, platform, CPU count and library versions, for the record of a benchmark."""
    import numba

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numpy": np.__version__,
        "numba": numba.__version__,
        **{library: library_version(library) for library in LIBRARIES[1:]},
    }


def run_benchmark(config: BenchConfig, progress_stream: TextIO | None = None) -> Report:
    """Measures every library at every size for every environment of ``config``.

    Sizes are measured one after the other (only one size's environments exist at a time); at each
    size the libraries are timed in alternation (see :func:`measure_alternating`).

    Args:
        config: What to measure.
        progress_stream: Where to draw a progress bar (``None``: no bar).

    Returns:
        The report.
    """
    report = Report(config)
    if progress_stream is not None:
        # The progress line says that kernels are compiled and where: make's own notice would break the line.
        from nbgym.engine import _cache as cache

        cache.skip_compile_notice()
    units_per_cell = 1 + config.repeats
    progress = ProgressBar(
        len(config.env_ids) * len(config.num_envs) * len(config.libraries) * units_per_cell, progress_stream
    )
    try:
        for env_id in config.env_ids:
            for num_envs in config.num_envs:
                actions = action_pool(env_id, num_envs, config.seed)
                runners: list[Runner] = []
                try:
                    for library in config.libraries:
                        making = f"making {library}"
                        if library == "nbgym" and is_compiled(spec(env_id)):
                            making += f" (a first run compiles its kernels, once, into {kernel_cache_dir()})"
                        progress.show(f"{env_id} {size_label(num_envs)}: {making}")
                        try:
                            runners.append(
                                make_runner(
                                    library,
                                    env_id,
                                    num_envs,
                                    actions,
                                    threads=config.threads,
                                    max_sync_envs=config.max_sync_envs,
                                    seed=config.seed,
                                )
                            )
                        except Unavailable as e:
                            report.skipped.append(Skip(env_id, num_envs, library, str(e)))
                            progress.advance(units_per_cell)
                            continue
                        if config.warmup_steps:
                            progress.show(f"{env_id} {size_label(num_envs)}: {library} warming up")
                            runners[-1].run(config.warmup_steps)
                    report.measurements += measure_alternating(
                        runners,
                        env_id,
                        repeats=config.repeats,
                        steps=config.steps,
                        sample_time=config.sample_time,
                        progress=progress,
                    )
                finally:
                    for runner in runners:
                        runner.close()
    finally:
        progress.close()
    return report


def kernel_cache_dir() -> str:
    """The directory of numba's cache of nbgym's kernels, with the home directory as ``~``."""
    from nbgym.engine import _cache as cache
    from nbgym.engine._kernels import step_kernel

    path = cache.cache_dir(step_kernel)
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home not in ("", os.sep) and path.startswith(home + os.sep) else path


def _three_digits(value: float) -> str:
    """``value`` with 3 significant digits, trailing zeros kept (``"64.0"``, ``"1.50"``, ``"950"``)."""
    if value <= 0:
        return f"{value:g}"
    return f"{value:.{max(0, 2 - math.floor(math.log10(value)))}f}"


def format_rate(value: float) -> str:
    """A throughput with 3 significant digits and an SI suffix: ``"98.1k"``, ``"41.2M"``."""
    for threshold, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= threshold:
            return _three_digits(value / threshold) + suffix
    return _three_digits(value)


@dataclass
class _Table:
    """The rows of one environment's table, before they are rendered as text or Markdown."""

    title: str
    header: list[str]
    rows: list[list[str]]
    notes: list[str]


def _tables(report: Report) -> list[_Table]:
    """One table per environment: the median throughput of each library per size and nbgym's ratios.

    Libraries never measured for an environment get no column; the notes name every implementation
    measured and every skip with its reason.
    """
    config = report.config
    threads = f"{config.threads} thread{'s' if config.threads > 1 else ''}"
    tables = []
    for env_id in config.env_ids:
        measured = [m for m in report.measurements if m.env_id == env_id]
        libraries = [library for library in config.libraries if any(m.library == library for m in measured)]
        others = [library for library in libraries if library != "nbgym"]
        rows = []
        for num_envs in config.num_envs:
            row = [size_label(num_envs)]
            for library in libraries:
                measurement = report.find(env_id, num_envs, library)
                row.append("-" if measurement is None else format_rate(measurement.median))
            for library in others:
                ratio = report.ratio(env_id, num_envs, library)
                row.append("-" if ratio is None else _three_digits(ratio) + "x")
            rows.append(row)
        notes = []
        for library in libraries:
            implementations = dict.fromkeys(m.implementation for m in measured if m.library == library)
            notes.append(f"{library}: {', '.join(implementations)}")
        skipped: dict[tuple[str, str], list[str]] = {}
        for skip in report.skipped:
            if skip.env_id == env_id:
                skipped.setdefault((skip.library, skip.reason), []).append(size_label(skip.num_envs))
        notes += [
            f"not measured: {library} at {', '.join(sizes)}: {reason}" for (library, reason), sizes in skipped.items()
        ]
        tables.append(
            _Table(
                f"{env_id}: env-steps/s, median of {config.repeats} interleaved samples, {threads}",
                ["num_envs", *libraries, *(f"nbgym/{library}" for library in others)],
                rows,
                notes,
            )
        )
    return tables


def format_report(report: Report) -> str:
    """The report as aligned text: one table per environment (see :func:`format_markdown`)."""
    blocks = []
    for table in _tables(report):
        lines = [table.header, *table.rows]
        widths = [max(len(line[c]) for line in lines) for c in range(len(table.header))]
        body = [
            "  "
            + "  ".join(
                cell.rjust(width) if c else cell.ljust(width)
                for c, (cell, width) in enumerate(zip(line, widths, strict=True))
            )
            for line in lines
        ]
        blocks.append("\n".join([table.title, *body, *(f"  {note}" for note in table.notes)]))
    return "\n\n".join(blocks)


def format_markdown(report: Report) -> str:
    """The report as Markdown: per environment a heading, a table of the median env-steps/s of each
    library per size with nbgym's ratios, and notes naming the implementations and the skips."""
    blocks = []
    for table in _tables(report):
        lines = [
            f"#### {table.title}",
            "",
            "| " + " | ".join(table.header) + " |",
            "|" + "|".join([":---", *["---:"] * (len(table.header) - 1)]) + "|",
            *("| " + " | ".join(row) + " |" for row in table.rows),
            "",
            *(f"- {note}" for note in table.notes),
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def warm_up(env_id: str) -> float:
    """Compiles the kernels of an environment into numba's cache (or loads them from it).

    Makes, resets and steps the single environment (and compiles the calls its objects make: a Box2D body's
    ``ApplyForce``...) and, for a compiled vector environment, the
    serial and the threaded vector kernels (a batch large enough to be shared between threads);
    continuous actions in the action space's dtype and in float64 (each dtype is its own compiled
    specialisation).

    Args:
        env_id: A registered environment id.

    Returns:
        The seconds it took.
    """
    import numba

    from nbgym.engine import KernelEnv
    from nbgym.engine._threads import SMALLEST_SHARED_BATCH

    start = time.perf_counter()
    with warnings.catch_warnings():
        # Deprecated versions and the env checker may warn; that says nothing about compiling.
        warnings.simplefilter("ignore")
        env = make(env_id)
        env.reset(seed=0)
        for action in _warm_actions(env.action_space):
            env.step(action)
        if isinstance(env.unwrapped, KernelEnv):
            env.unwrapped._compile_python_calls()
        env.close()
        if is_compiled(spec(env_id)):
            for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
                vector_env = make_vec(env_id, SMALLEST_SHARED_BATCH, num_threads=threads)
                vector_env.reset(seed=0)
                for actions in _warm_actions(vector_env.action_space):
                    vector_env.step(actions)
                vector_env.close()
    return time.perf_counter() - start


def _warm_actions(space: Space[Any]) -> list[Any]:
    space.seed(0)
    action = space.sample()
    if isinstance(space, Box) and space.dtype != np.float64:
        return [action, action.astype(np.float64)]
    return [action]


def progress_stream(enabled: bool | None) -> TextIO | None:
    """stderr if ``enabled``, or if ``enabled`` is ``None`` and stderr is a terminal; else ``None``."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    return sys.stderr if enabled else None


LOADS = ("none", "numpy-thread", "torch-thread", "numpy-process", "torch-process")
"""The background loads of the thread benchmark: a busy learner's matrix products with numpy or torch,
in a thread of the measuring process (its threads compete with the stepping threads in one process)
or in another process."""

_MATMUL_SIZE = 256


def _matmul_loop(library: str, stop: Any, count: Any) -> None:
    """Multiply two matrices until ``stop`` is set, adding one to ``count.value`` per product."""
    if library == "torch":
        import torch

        a, b = torch.rand(_MATMUL_SIZE, _MATMUL_SIZE), torch.rand(_MATMUL_SIZE, _MATMUL_SIZE)
        multiply = torch.mm
    else:
        a, b = np.random.default_rng(0).random((2, _MATMUL_SIZE, _MATMUL_SIZE))
        multiply = np.dot
    while not stop.is_set():
        multiply(a, b)
        count.value += 1


class MatmulLoad:
    """A busy learner beside the measurement: a loop of 256x256 matrix products (one of :data:`LOADS`).

    ``numpy-*`` multiplies with numpy (OpenBLAS, with its own threads), ``torch-*`` with torch (its
    intra-op thread pool); ``*-thread`` runs the loop in a thread of this process, ``*-process`` in a
    new process. ``products()`` counts the products so far, to tell how much the learner got done.

    Args:
        load: One of :data:`LOADS`.

    Raises:
        Unavailable: If the load needs torch and torch is not installed.
        ValueError: If ``load`` is not one of :data:`LOADS`.
    """

    def __init__(self, load: str) -> None:
        if load not in LOADS:
            raise ValueError(f"Unknown load {load!r}, expected one of {LOADS}.")
        self.load = load
        self._worker: Any = None
        if load == "none":
            return
        library, where = load.split("-")
        if library == "torch" and importlib.util.find_spec("torch") is None:
            raise Unavailable("torch is not installed")
        if where == "thread":
            import threading
            from types import SimpleNamespace

            self._stop: Any = threading.Event()
            self._count: Any = SimpleNamespace(value=0)
            self._worker = threading.Thread(target=_matmul_loop, args=(library, self._stop, self._count), daemon=True)
        else:
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            self._stop, self._count = context.Event(), context.Value("q", 0, lock=False)
            self._worker = context.Process(target=_matmul_loop, args=(library, self._stop, self._count), daemon=True)
        self._worker.start()
        while self.products() == 0:  # the learner is busy before anything is measured
            time.sleep(0.01)

    def products(self) -> int:
        """The matrix products done so far (0 without a load)."""
        return 0 if self._worker is None else self._count.value

    def stop(self) -> None:
        """Stops the loop and waits for its thread or process to end."""
        if self._worker is not None:
            self._stop.set()
            self._worker.join()
            self._worker = None


# The learner's loop: a policy between steps
# ------------------------------------------

LEARNER_HIDDEN = 256
"""The width of the two hidden layers of the learner loop's policy (``MlpPolicy``)."""


class MlpPolicy:
    """The policy of the learner-loop benchmarks: a numpy MLP (two tanh layers of ``LEARNER_HIDDEN``, float32),
    the same for every library. Discrete actions are the argmax of its outputs, box actions its outputs clipped to
    the space. Pin BLAS to one thread (``OPENBLAS_NUM_THREADS=1`` before numpy is imported) for the published
    figures: the policy then takes one core, as a learner's forward pass on a CPU core would.

    Args:
        observation_space: One sub-environment's observation space.
        action_space: One sub-environment's action space.
        seed: The seed of its weights.
    """

    def __init__(self, observation_space: Space[Any], action_space: Space[Any], seed: int = 0) -> None:
        from nbgym.spaces import Discrete

        rng = np.random.default_rng(seed)
        inputs = int(np.prod(observation_space.shape)) or 1
        self.discrete = isinstance(action_space, Discrete)
        outputs = int(action_space.n) if self.discrete else int(np.prod(action_space.shape))
        sizes = (inputs, LEARNER_HIDDEN, LEARNER_HIDDEN, outputs)
        self.weights = [
            (rng.standard_normal((a, b)) / math.sqrt(a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])
        ]
        if not self.discrete:
            self.shape, self.dtype = action_space.shape, action_space.dtype
            self.low, self.high = action_space.low.ravel(), action_space.high.ravel()

    def __call__(self, observations: Any) -> np.ndarray:
        """The actions of a batch of observations."""
        x = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        w1, w2, w3 = self.weights
        out = np.tanh(np.tanh(x @ w1) @ w2) @ w3
        if self.discrete:
            return out.argmax(axis=1).astype(np.int64)
        return np.clip(out, self.low, self.high).astype(self.dtype).reshape(len(observations), *self.shape)


def learner_loop_rate(envs: Any, policy: Callable[[Any], Any], asynchronous: bool, seconds: float) -> float:
    """Env-steps per second of a learner's loop over ``envs`` for about ``seconds`` seconds: ``policy`` between
    steps, with ``step`` (sync), or ``recv`` -> policy -> ``send(actions, env_id)`` (async: nbgym's and envpool's
    API, after ``async_reset``). Steps of sub-environments that autoreset count, as everywhere here.
    """
    state: list[Any] = [None, None]  # the last observations (sync), the last ids received (async)
    if asynchronous:
        envs.async_reset()
        step = _async_loop_step
    else:
        state[0] = envs.reset(seed=0)[0]
        step = _sync_loop_step
    for _ in range(4):  # warm-up: in async, every batch in flight once
        step(envs, policy, state)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(8):
            count += step(envs, policy, state)
    elapsed = time.perf_counter() - start
    if asynchronous:  # receive what is in flight: envpool's next async_reset must not find batches pending
        for _ in range(envs.num_envs // len(state[1])):
            envs.recv()
    return count / elapsed


def _sync_loop_step(envs: Any, policy: Callable[[Any], Any], state: list[Any]) -> int:
    state[0] = envs.step(policy(state[0]))[0]
    return len(state[0])


def _async_loop_step(envs: Any, policy: Callable[[Any], Any], state: list[Any]) -> int:
    obs, _rewards, _terminations, _truncations, infos = envs.recv()
    state[1:] = [infos["env_id"]]
    envs.send(policy(obs), state[1])
    return len(state[1])
