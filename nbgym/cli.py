"""The ``nbgym`` command: list the registry, benchmark against gymnasium and envpool, warm the kernel cache,
play an environment with the keyboard, record a video of it.

Run ``nbgym --help`` (or ``python -m nbgym --help``) for the commands, ``nbgym COMMAND --help`` for
their options. An unknown environment id prints the registry's message (with its "Did you mean"
hint) and exits with status 2, as a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, Iterator

import numpy as np

from nbgym import __version__, error

_COMPILED_MARK = "*"


class _UsageError(Exception):
    """A bad argument found after parsing (e.g. an unregistered id): its message is printed, exit status 2."""


class _Failure(Exception):
    """A command that cannot be carried out here (e.g. an env that refuses this install): exit status 1."""


def _make_rgb_array_env(env_id: str) -> Any:
    """``make(env_id, render_mode="rgb_array")``, for ``play`` and ``record``.

    Raises:
        _Failure: If making the env raises ``ImportError`` (gymnasium's ids that refuse this install, such
            as the v2/v3 MuJoCo ids or Pusher-v4 on mujoco >= 3): its message, on one line.
    """
    from nbgym.registration import make

    try:
        return make(env_id, render_mode="rgb_array")
    except ImportError as e:
        raise _Failure(f"{env_id}: {type(e).__name__}: {e}") from None


def _resolve_env_id(env_id: str) -> str:
    """The registered id that ``env_id`` names (``"CartPole"`` -> ``"CartPole-v1"``, ``"module:Env-v0"``
    imports ``module`` first), as :func:`nbgym.make` resolves it.

    Raises:
        _UsageError: With the registry's message if the id is not registered.
    """
    from nbgym.registration import _find_spec

    try:
        return _find_spec(env_id).id
    except (error.Error, ImportError, ValueError) as e:
        raise _UsageError(str(e)) from None


def _int_at_least(text: str, minimum: int, kind: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {kind} integer, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected a {kind} integer, got {value}")
    return value


def _positive_int(text: str) -> int:
    return _int_at_least(text, 1, "positive")


def _non_negative_int(text: str) -> int:
    return _int_at_least(text, 0, "non-negative")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value}")
    return value


def _library_list(text: str) -> list[str]:
    from nbgym._bench import LIBRARIES

    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in LIBRARIES[1:]]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown library {', '.join(unknown)}; choose among {', '.join(LIBRARIES[1:])} (comma-separated)"
        )
    return list(dict.fromkeys(names))


# Commands
# ----------------------------------------


def _list(args: argparse.Namespace) -> int:
    from nbgym._bench import is_compiled
    from nbgym.registration import _display_namespace, registry

    groups: dict[str | None, list[str]] = defaultdict(list)
    for env_spec in registry.values():
        mark = f" {_COMPILED_MARK}" if is_compiled(env_spec) else ""
        groups[_display_namespace(env_spec)].append(env_spec.id + mark)
    width = max((len(cell) for cells in groups.values() for cell in cells), default=0) + 2
    for group, cells in groups.items():
        print(f"===== {group} =====")
        cells = sorted(cells)
        for start in range(0, len(cells), args.num_cols):
            print("".join(cell.ljust(width) for cell in cells[start : start + args.num_cols]).rstrip())
    print(
        f"\n{_COMPILED_MARK} compiled vector environment: nbgym.make_vec(id, num_envs) steps every "
        "sub-environment in one compiled call"
    )
    return 0


def _bench(args: argparse.Namespace) -> int:
    from nbgym import _bench

    env_ids = list(dict.fromkeys(_resolve_env_id(env_id) for env_id in args.env_ids))
    if args.threads > 1:
        import numba

        if args.threads > numba.config.NUMBA_NUM_THREADS:
            raise _UsageError(
                f"--threads {args.threads} exceeds numba's maximum of {numba.config.NUMBA_NUM_THREADS} threads "
                "(set NUMBA_NUM_THREADS to allow more)"
            )
    config = _bench.BenchConfig(
        env_ids=env_ids,
        num_envs=list(dict.fromkeys(args.num_envs)),
        libraries=["nbgym", *args.against],
        threads=args.threads,
        repeats=args.repeats,
        steps=args.steps,
        sample_time=args.sample_time,
        max_sync_envs=args.max_sync_envs,
        seed=args.seed,
        warmup_steps=args.warmup_steps,
    )
    report = _bench.run_benchmark(config, _bench.progress_stream(args.progress))
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(_bench.format_report(report))
    return 0


def _warmup(args: argparse.Namespace) -> int:
    """Compiles the kernels of the named environments (default: every nbgym environment whose module imports).

    Named ids that are not registered, or whose modules do not import, are reported on stderr and the
    others are compiled all the same; the exit status is then 2 (an unregistered id) or 1 (a module that
    does not import).
    """
    from nbgym import _bench
    from nbgym.registration import spec

    if args.prebuilt is None and (args.levels is not None or args.reuse is not None):
        raise _UsageError("--levels and --reuse go with --prebuilt")
    if args.jobs < 1:
        raise _UsageError(f"--jobs must be a positive number of processes, got {args.jobs}")
    if args.prebuilt is not None and args.jobs != 1:
        raise _UsageError("--jobs goes without --prebuilt (each processor level is built by a process of its own)")
    if args.prebuilt is not None:
        from nbgym.engine._cache import build_prebuilt

        for name in args.env_ids:
            _resolve_env_id(name)  # an unknown id is a usage error before a minute of compiling
        try:
            return build_prebuilt(args.prebuilt, args.env_ids, levels=args.levels, reuse=args.reuse)
        except ValueError as e:
            raise _UsageError(str(e)) from None
    status = 0
    if args.env_ids:
        env_ids = []
        for name in dict.fromkeys(args.env_ids):
            try:
                env_id = _resolve_env_id(name)
            except _UsageError as e:
                print(f"nbgym warmup: error: {e}", file=sys.stderr)
                status = 2
                continue
            failure = _bench.import_failure(spec(env_id))
            if failure is not None:
                print(f"nbgym warmup: error: {env_id}: {failure}", file=sys.stderr)
                status = status or 1
            elif env_id not in env_ids:
                env_ids.append(env_id)
    else:
        env_ids = []
        for env_id in _bench.nbgym_env_ids():
            failure = _bench.import_failure(spec(env_id))
            if failure is None:
                env_ids.append(env_id)
            else:
                print(f"skipped {env_id}: its module does not import ({failure})", file=sys.stderr)
    if not env_ids and status:
        return status
    from nbgym.engine import _cache
    from nbgym.engine._cache import describe, skip_compile_notice, sweep_cache

    skip_compile_notice()  # make's notices would break the lines below, which say the same
    jobs = min(args.jobs, len(env_ids))
    print(
        f"Compiling the kernels into numba's cache ({describe()}){f', {jobs} processes at once' if jobs > 1 else ''}:"
    )
    stale = sweep_cache()
    if stale:
        print(f"  removed {len(stale)} partly written file{'s' if len(stale) != 1 else ''} of killed writers")
    width = max((len(env_id) for env_id in env_ids), default=0)
    count = f"{len(env_ids)}"
    start = time.perf_counter()
    if jobs <= 1:
        for done, env_id in enumerate(env_ids, 1):
            # The id first, on its own: a Box2D environment compiles for a minute, which the line then explains.
            print(f"  [{f'{done}'.rjust(len(count))}/{count}] {env_id.ljust(width)}  ", end="", flush=True)
            seconds = _bench.warm_up(env_id)
            print(f"{seconds:7.2f} s  ({time.perf_counter() - start:.1f} s elapsed)", flush=True)
    else:
        for done, (env_id, seconds) in enumerate(_warm_up_in_processes(env_ids, jobs), 1):
            print(
                f"  [{f'{done}'.rjust(len(count))}/{count}] {env_id.ljust(width)}  {seconds:7.2f} s  "
                f"({time.perf_counter() - start:.1f} s elapsed)",
                flush=True,
            )
    print(f"{len(env_ids)} environment{'s' if len(env_ids) != 1 else ''} in {time.perf_counter() - start:.2f} s")
    if os.environ.get(_cache._REUSED_CACHE) and os.environ.get(_cache._BUILDING_PREBUILT):
        counts = _cache.build_counts
        print(
            f"{counts['reused']} kernels copied from {os.environ[_cache._REUSED_CACHE]}, {counts['compiled']} compiled"
        )
    return status


def _warm_up_in_processes(env_ids: list[str], jobs: int) -> Iterator[tuple[str, float]]:
    """Each of ``env_ids`` with the seconds its warm-up took, as they end, warmed up by ``jobs`` processes (started
    afresh: a forked child would inherit this process's threads and numba's state). Each process compiles one
    environment's kernels at a time, beside the others' (the cache's compile locks are one per environment); a
    Box2D id first, as they take longest. A failure in one ends the others and is raised here.
    """
    import concurrent.futures
    import multiprocessing

    from nbgym import _bench
    from nbgym.registration import spec

    longest_first = sorted(
        env_ids, key=lambda env_id: not str(spec(env_id).entry_point).startswith("nbgym.envs.box2d.")
    )
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_quiet_worker) as pool:
        try:
            futures = {pool.submit(_bench.warm_up, env_id): env_id for env_id in longest_first}
            for future in concurrent.futures.as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _quiet_worker() -> None:
    """A warm-up process prints nothing of its own (make's compile notices: the parent's lines say the same)."""
    from nbgym.engine._cache import skip_compile_notice

    skip_compile_notice()


def _json_actions(text: str, option: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise _UsageError(f"{option} is not valid JSON ({e}): {text!r}") from None


def _as_action(value: Any, space: Any) -> Any:
    """A JSON action as the action space takes it: an array of its dtype for a ``Box``, else as is."""
    from nbgym.spaces import Box

    return np.asarray(value, dtype=space.dtype) if isinstance(space, Box) else value


DOCUMENTED_KEYS: dict[str, dict[str, list[float]]] = {
    # gymnasium's `utils.play` documentation drives CarRacing with these: steer, gas 0.7, brake.
    "CarRacing": {
        "w": [0, 0.7, 0],
        "a": [-1, 0, 0],
        "s": [0, 0, 1],
        "d": [1, 0, 0],
        "wa": [-1, 0.7, 0],
        "dw": [1, 0.7, 0],
        "ds": [1, 0, 1],
        "as": [-1, 0, 1],
    },
}
"""Key mappings of environments with ``Box`` actions, by environment name, from gymnasium's documentation."""


def _default_keys(env: Any) -> tuple[dict[Any, Any], Any]:
    """The keys of ``nbgym play`` without ``--keys``, and the action when no key is held.

    A ``Discrete`` space of up to 10 actions: the digit keys ``0``, ``1``, ... take those actions (no key:
    the first), with the environment's own ``get_keys_to_action()`` on top where it has one (gymnasium's
    mappings may give the no-key action as an empty key combination: that is the no-key action here, as
    ``utils.play`` refuses empty combinations). A ``Box`` of one bounded number: ``a`` its lowest value, ``d``
    its highest (no key: the middle). Other ``Box`` actions of the environments of :data:`DOCUMENTED_KEYS`:
    those keys (no key: zeros).

    Raises:
        _UsageError: For other action spaces, asking for ``--keys``.
    """
    from nbgym.spaces import Box, Discrete

    space = env.action_space
    keys: dict[Any, Any] = {}
    noop: Any = None
    if isinstance(space, Discrete) and space.n <= 10:
        keys = {str(index): space.start + index for index in range(int(space.n))}
        noop = space.start
    elif isinstance(space, Box) and space.shape == (1,) and space.is_bounded():
        keys = {"a": space.low.copy(), "d": space.high.copy()}
        noop = ((space.low.astype(np.float64) + space.high) / 2).astype(space.dtype)
    elif isinstance(space, Box) and env.spec is not None and env.spec.name in DOCUMENTED_KEYS:
        keys = {key: np.asarray(action, dtype=space.dtype) for key, action in DOCUMENTED_KEYS[env.spec.name].items()}
        noop = np.zeros(space.shape, dtype=space.dtype)
    if env.has_wrapper_attr("get_keys_to_action"):
        own_keys = dict(env.get_wrapper_attr("get_keys_to_action")())
        noop = own_keys.pop((), noop)
        keys.update(own_keys)
    if not keys:
        raise _UsageError(
            f"{env.spec.id} has no default keys for its action space {space}: pass --keys, "
            'e.g. --keys \'{"a": ..., "d": ...}\''
        )
    return keys, noop


def _describe_keys(keys: dict[Any, Any], noop: Any) -> str:
    """The key mapping as ``nbgym play`` prints it before the window opens."""

    def action_text(action: Any) -> str:
        return str(np.asarray(action).tolist())

    pairs = ", ".join(f"{key!r} -> {action_text(action)}" for key, action in keys.items())
    return f"keys: {pairs}; no key: {action_text(noop)}"


def _play(args: argparse.Namespace) -> int:
    env_id = _resolve_env_id(args.env_id)
    from nbgym.utils.play import MissingKeysToAction, play

    _check_display(env_id)
    env = _make_rgb_array_env(env_id)
    if args.keys is None:
        keys, noop = _default_keys(env)
        if args.noop is not None:
            noop = _as_action(_json_actions(args.noop, "--noop"), env.action_space)
        print(_describe_keys(keys, noop), flush=True)
    else:
        keys = _json_actions(args.keys, "--keys")
        if not isinstance(keys, dict):
            raise _UsageError(f"--keys must be a JSON object of keys to actions, got {args.keys!r}")
        keys = {key: _as_action(action, env.action_space) for key, action in keys.items()}
        noop = _as_action(_json_actions("0" if args.noop is None else args.noop, "--noop"), env.action_space)
    try:
        play(
            env,
            fps=args.fps,
            zoom=args.zoom,
            keys_to_action=keys,
            seed=args.seed,
            noop=noop,
            wait_on_player=args.wait_on_player,
        )
    except MissingKeysToAction as e:
        raise _UsageError(f'{e}: pass --keys, e.g. --keys \'{{"a": 0, "d": 1}}\'') from None
    except (TypeError, ValueError) as e:  # a bad --keys mapping, as play reports it
        raise _UsageError(str(e)) from None
    finally:
        env.close()
    return 0


def _check_display(env_id: str) -> None:
    """Refuses to open a window where there is no display, unless the user chose SDL's video driver.

    Without a display, pygame-ce falls back to its offscreen driver: the game would run unseen, at full
    speed, until killed. Only Linux and the BSDs need ``DISPLAY``/``WAYLAND_DISPLAY`` (macOS and Windows
    always have a window system).

    Raises:
        _Failure: If no display is set and ``SDL_VIDEODRIVER`` is not set.
    """
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")) or os.environ.get("SDL_VIDEODRIVER"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise _Failure(
        "no display to open the window on: neither DISPLAY nor WAYLAND_DISPLAY is set. Run it in a desktop "
        f"session (or over `ssh -X`), under a virtual display (`xvfb-run nbgym play {env_id}`), or choose SDL's "
        f"video driver yourself with SDL_VIDEODRIVER; `nbgym record {env_id} --out video.mp4` records a video "
        "without a display."
    )


def _record(args: argparse.Namespace) -> int:
    env_id = _resolve_env_id(args.env_id)
    out = pathlib.Path(args.out)
    if out.suffix != ".mp4":
        raise _UsageError(f"--out must name an .mp4 file (RecordVideo writes MP4), got {args.out!r}")
    from nbgym.wrappers import RecordVideo

    env = _make_rgb_array_env(env_id)
    with tempfile.TemporaryDirectory(dir=out.parent if out.parent.exists() else None) as folder:
        # A folder of its own: RecordVideo warns about overwriting when its folder exists.
        videos = pathlib.Path(folder) / "videos"
        try:
            recorder = RecordVideo(env, str(videos), episode_trigger=lambda episode: episode == 0, fps=args.fps)
            recorder.reset(seed=args.seed)
            recorder.action_space.seed(args.seed)
            steps, start = 0, time.perf_counter()
            while steps < args.max_steps:
                _, _, terminated, truncated, _ = recorder.step(recorder.action_space.sample())
                steps += 1
                if terminated or truncated:
                    break
            recorder.close()
        finally:
            env.close()
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(videos / "rl-video-episode-0.mp4", out)
    print(f"{out}: {env_id}, {steps} random steps (seed {args.seed}), recorded in {time.perf_counter() - start:.1f} s")
    return 0


# The parser
# ----------------------------------------


def _parser() -> argparse.ArgumentParser:
    from nbgym._bench import DEFAULT_MAX_SYNC_ENVS, DEFAULT_NUM_ENVS

    parser = argparse.ArgumentParser(
        prog="nbgym",
        description="nbgym: the Gymnasium API rebuilt around Numba. Environments, benchmarks and the kernel cache.",
    )
    parser.add_argument("--version", action="version", version=f"nbgym {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    listing = commands.add_parser(
        "list",
        help="list the registered environments",
        description="List the registered environments, grouped as nbgym.pprint_registry() groups them; "
        f"'{_COMPILED_MARK}' marks those with a compiled vector environment.",
    )
    listing.add_argument("--num-cols", type=_positive_int, default=3, metavar="N", help="ids per line (default: 3)")
    listing.set_defaults(run=_list)

    bench = commands.add_parser(
        "bench",
        help="env-steps per second of nbgym beside gymnasium and envpool",
        description="Measure env-steps per second of nbgym and, where installed, gymnasium (its native vector env "
        "when the spec has one, else SyncVectorEnv) and envpool, in this process and in alternation "
        "(interleaved samples; the median of each is reported), and print a table with nbgym's ratios. "
        "Every contender is compiled/warmed up before timing; the random actions are drawn beforehand "
        "and are the same for every library. With no arguments: CartPole-v1 at "
        f"{', '.join(map(str, DEFAULT_NUM_ENVS))} envs (1 is the single env of make(), with its wrappers).",
    )
    bench.add_argument(
        "env_ids", nargs="*", default=["CartPole-v1"], metavar="ENV_ID", help="environment ids (default: CartPole-v1)"
    )
    bench.add_argument(
        "--num-envs",
        nargs="+",
        type=_positive_int,
        default=list(DEFAULT_NUM_ENVS),
        metavar="N",
        help="numbers of sub-environments; 1 measures the single env of make() against gymnasium.make() "
        f"(default: {' '.join(map(str, DEFAULT_NUM_ENVS))})",
    )
    bench.add_argument(
        "--steps",
        type=_positive_int,
        metavar="K",
        help="steps per timed sample (default: calibrated to --sample-time for each library)",
    )
    bench.add_argument(
        "--threads",
        type=_positive_int,
        default=1,
        metavar="T",
        help="threads of nbgym's compiled vector envs and of envpool (default: 1)",
    )
    bench.add_argument(
        "--against",
        type=_library_list,
        default=["gymnasium", "envpool"],
        metavar="LIBS",
        help="comma-separated libraries to compare with, those installed are measured; '' for none "
        "(default: gymnasium,envpool)",
    )
    bench.add_argument(
        "--repeats", type=_positive_int, default=5, metavar="R", help="timed samples of each library (default: 5)"
    )
    bench.add_argument(
        "--sample-time",
        type=_positive_float,
        default=0.2,
        metavar="S",
        help="seconds per sample when --steps is not given (default: 0.2)",
    )
    bench.add_argument(
        "--max-sync-envs",
        type=_positive_int,
        default=DEFAULT_MAX_SYNC_ENVS,
        metavar="N",
        help=f"largest SyncVectorEnv (a Python loop over envs) to measure (default: {DEFAULT_MAX_SYNC_ENVS})",
    )
    bench.add_argument("--seed", type=int, default=0, help="seed of the actions and of the first resets (default: 0)")
    bench.add_argument(
        "--warmup-steps",
        type=_non_negative_int,
        default=0,
        metavar="N",
        help="steps each contender takes before it is timed, after the first two (default: 0; CarRacing's first 50 "
        "steps of an episode draw the whole track zoomed out)",
    )
    bench.add_argument("--json", action="store_true", help="print the results as JSON (for scripts) instead of a table")
    bench.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw a progress bar on stderr (default: when stderr is a terminal)",
    )
    bench.set_defaults(run=_bench)

    warmup = commands.add_parser(
        "warmup",
        help="compile the kernels into numba's cache ahead of time",
        description="Compile the kernels of environments into numba's on-disk cache (make, reset and step of the "
        "single env and of the compiled vector env, serial and threaded), so that later processes load "
        "them instead of compiling. Prints each environment as it starts, then its time and the time elapsed.",
    )
    warmup.add_argument(
        "env_ids",
        nargs="*",
        metavar="ENV_ID",
        help="environment ids (default: every registered nbgym environment whose module imports)",
    )
    warmup.add_argument(
        "--prebuilt",
        metavar="DIR",
        help="compile for the x86-64 processor levels x86-64-v4, x86-64-v3 and generic into DIR, laid out to be shipped "
        "inside nbgym's package as nbgym/_prebuilt_kernels (what setup.py does when NBGYM_PREBUILD_KERNELS is set), "
        "instead of into the cache",
    )
    warmup.add_argument(
        "--levels",
        type=lambda text: [level.strip() for level in text.split(",") if level.strip()],
        metavar="LEVELS",
        help="with --prebuilt: the processor levels to build, comma-separated (default: x86-64-v4,x86-64-v3,generic, "
        "those this machine runs)",
    )
    warmup.add_argument(
        "--reuse",
        metavar="CACHE_DIR",
        help="with --prebuilt: copy the kernels found in this kernel cache (a NUMBA_CACHE_DIR filled by the same Python, "
        "numba and nbgym with NUMBA_CPU_NAME set to a level, by a test run say) instead of compiling them again",
    )
    warmup.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="warm up in N processes at once, each environment's kernels in one of them, a line printed as each ends "
        "(default: 1)",
    )
    warmup.set_defaults(run=_warmup)

    play = commands.add_parser(
        "play",
        help="play an environment with the keyboard",
        description="Play an environment with the keyboard in a window (nbgym.utils.play; needs pygame-ce, "
        "pip install 'nbgym[render]'). Escape or closing the window quits; an ended episode is reset.",
    )
    play.add_argument("env_id", metavar="ENV_ID", help="environment id")
    play.add_argument(
        "--keys",
        metavar="JSON",
        help='the action of each key (or string of keys held together), e.g. \'{"a": 0, "d": 1}\' '
        "(default: the digit keys 0-9 for up to 10 discrete actions, a/d for the lowest/highest value of one "
        "continuous action, and the environment's get_keys_to_action(); printed at the start)",
    )
    play.add_argument(
        "--noop",
        metavar="JSON",
        help="the action when no mapped key is held (default: 0 with --keys, else the first discrete action or "
        "the middle of the continuous range)",
    )
    play.add_argument("--fps", type=_positive_int, help="steps per second (default: the env's render_fps)")
    play.add_argument("--zoom", type=_positive_float, help="window size as a multiple of the frame size")
    play.add_argument("--seed", type=int, help="seed of every reset")
    play.add_argument("--wait-on-player", action="store_true", help="step only while a key is held")
    play.set_defaults(run=_play)

    record = commands.add_parser(
        "record",
        help="record a video of an episode with random actions",
        description="Record one episode of an environment, with random actions, as an MP4 video (RecordVideo; "
        "needs pygame-ce and moviepy, pip install 'nbgym[render,video]').",
    )
    record.add_argument("env_id", metavar="ENV_ID", help="environment id")
    record.add_argument("--out", required=True, metavar="FILE", help="the video file to write (.mp4)")
    record.add_argument("--seed", type=int, default=0, help="seed of the reset and of the actions (default: 0)")
    record.add_argument(
        "--max-steps", type=_positive_int, default=1000, metavar="N", help="end the video after N steps (default: 1000)"
    )
    record.add_argument("--fps", type=_positive_int, help="frame rate of the video (default: the env's render_fps)")
    record.set_defaults(run=_record)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``nbgym`` command.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).

    Returns:
        The exit status: 0 on success, 2 for a usage error (argparse's errors exit with 2 too), 1 for a
        failure (e.g. a missing optional dependency), 130 if interrupted.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if "run" not in args:  # a bare `nbgym`: what it can do
        parser.print_help()
        return 0
    run: Callable[[argparse.Namespace], int] = args.run
    command = f"nbgym {run.__name__.strip('_')}"
    try:
        return run(args)
    except _UsageError as e:
        print(f"{command}: error: {e}", file=sys.stderr)
        return 2
    except (_Failure, error.DependencyNotInstalled) as e:
        print(f"{command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{command}: interrupted", file=sys.stderr)
        return 130
