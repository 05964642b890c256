"""The ``nbgym`` command (nbgym.cli) and the measurement code behind it (nbgym._bench).

Benchmarks run with a few fixed steps, so the file stays fast; the measuring logic (action cycling,
alternation, calibration) is checked exactly with fake environments and a fake clock.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import nbgym
from nbgym import _bench, error
from nbgym.engine import _cache as cache
from nbgym.cli import main
from nbgym.registration import registry
from helpers.paths import ROOT

GYMNASIUM = _bench.library_version("gymnasium") is not None
ENVPOOL = _bench.library_version("envpool") is not None


def run_module(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m nbgym ARGS`` with this process's nbgym first on the path."""
    environ = {**os.environ, **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "nbgym", *args], capture_output=True, text=True, env=environ, timeout=300
    )


@pytest.fixture(autouse=True)
def sdl_video_driver_chosen(monkeypatch):
    """``play`` refuses to run without a display unless SDL's video driver was chosen: the tests that reach
    ``play`` in this process choose one (the headless dummy, unless the environment chose another)."""
    monkeypatch.setenv("SDL_VIDEODRIVER", os.environ.get("SDL_VIDEODRIVER") or "dummy")


@pytest.fixture
def temporary_env():
    """Registers envs for one test and removes them afterwards."""
    added = []

    def register(env_id: str, **kwargs) -> str:
        nbgym.register(id=env_id, **kwargs)
        added.append(env_id)
        return env_id

    yield register
    for env_id in added:
        del registry[env_id]


def registry_message(env_id: str) -> str:
    """What ``nbgym.make(env_id)`` says about an id it cannot make."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error.Error) as info:
            nbgym.make(env_id)
    return str(info.value)


# Help and errors
# ----------------------------------------


@pytest.mark.parametrize(
    "command, expected",
    [
        ([], "COMMAND"),
        (["list"], "--num-cols"),
        (["bench"], "--num-envs"),
        (["warmup"], "ENV_ID"),
        (["play"], "--keys"),
        (["record"], "--out"),
    ],
)
def test_help_of_every_command(command, expected, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: nbgym {' '.join(command)}".rstrip())
    assert expected in out


def test_bare_nbgym_prints_the_help(capsys):
    assert main([]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("usage: nbgym") and "commands:" in captured.out
    assert all(command in captured.out for command in ("list", "bench", "warmup", "play", "record"))
    assert captured.err == ""


@pytest.mark.parametrize("command", ["bench", "warmup", "play", "record"])
@pytest.mark.parametrize("env_id", ["CartPol-v1", "CartPole-v9", "Taxi-v3", "nbgym_no_such_module:Env-v0"])
@pytest.mark.filterwarnings("ignore:.*Taxi-v3 is out of date:DeprecationWarning")  # besides the error, as make's
def test_unknown_ids_print_the_registrys_message(command, env_id, capsys):
    if ":" in env_id:
        expected = "No module named 'nbgym_no_such_module'. Environment registration via importing a module failed."
    else:
        expected = registry_message(env_id)
    assert main([command, env_id, *(["--out", "video.mp4"] if command == "record" else [])]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"nbgym {command}: error: " in captured.err
    assert expected in captured.err
    assert "Traceback" not in captured.err


def test_unknown_id_hint_in_a_subprocess():
    result = run_module("bench", "CartPol-v1")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"nbgym bench: error: {registry_message('CartPol-v1')}\n"


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--against", "gymnasium,foo"], "unknown library foo"),
        (["--num-envs", "0"], "expected a positive integer, got 0"),
        (["--num-envs", "many"], "expected a positive integer, got 'many'"),
        (["--sample-time", "-1"], "expected a positive number"),
        (["--repeats", "0"], "expected a positive integer"),
    ],
)
def test_bad_bench_options(arguments, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", *arguments])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_more_threads_than_numba_has(capsys):
    import numba

    too_many = numba.config.NUMBA_NUM_THREADS + 1
    assert main(["bench", "--threads", str(too_many)]) == 2
    assert f"--threads {too_many} exceeds numba's maximum" in capsys.readouterr().err


# list
# ----------------------------------------


def listed(out: str) -> dict[str, bool]:
    """The ids of ``nbgym list``'s output, each with whether it is marked as compiled."""
    cells = [
        cell
        for line in out.splitlines()
        if line and not line.startswith(("=====", "* "))
        for cell in re.split(r"\s{2,}", line.strip())
    ]
    return {cell.removesuffix(" *"): cell.endswith(" *") for cell in cells}


def test_list_groups_like_pprint_registry_and_marks_compiled_envs(temporary_env, capsys):
    temporary_env("PlainListed-v0", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv")
    temporary_env(
        "CompiledListed-v0",
        entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv",
        vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv",
    )
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("=====")]
    pprinted = nbgym.pprint_registry(disable_print=True).splitlines()
    assert headers == [line for line in pprinted if line.startswith("=====")]
    assert listed(out) == {env_id: _bench.is_compiled(env_spec) for env_id, env_spec in registry.items()}
    assert listed(out)["PlainListed-v0"] is False and listed(out)["CompiledListed-v0"] is True
    legend = (
        "* compiled vector environment: nbgym.make_vec(id, num_envs) steps every sub-environment in one compiled call"
    )
    assert out.endswith(f"\n{legend}\n")


def test_list_columns(capsys):
    main(["list", "--num-cols", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line and not line.startswith(("=====", "* "))]
    assert len(rows) == len(registry)


def test_python_dash_m_runs_the_command():
    result = run_module("list")
    assert result.returncode == 0, result.stderr
    assert listed(result.stdout)["CartPole-v1"] is True


# bench
# ----------------------------------------

TINY = ["--steps", "5", "--repeats", "2", "--no-progress"]


def test_bench_prints_a_table_with_ratios(capsys):
    assert main(["bench", "CartPole-v1", "--num-envs", "1", "8", "--against", "gymnasium", *TINY]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert lines[0] == "CartPole-v1: env-steps/s, median of 2 interleaved samples, 1 thread"
    if not GYMNASIUM:
        assert lines[1].split() == ["num_envs", "nbgym"]
        return
    assert lines[1].split() == ["num_envs", "nbgym", "gymnasium", "nbgym/gymnasium"]
    for line, size in zip(lines[2:4], ["single", "8"], strict=True):
        label, ours, theirs, ratio = line.split()
        assert label == size
        assert ours[-1] in "kMG" and theirs[-1] in "kMG"
        assert ratio.endswith("x") and float(ratio[:-1]) > 0
    assert lines[4].strip() == "nbgym: CartPoleEnv via make(), CartPoleVectorEnv"
    assert lines[5].strip() == "gymnasium: CartPoleEnv via make(), CartPoleVectorEnv (native vector env)"


def test_bench_json(capsys):
    assert main(["bench", "CartPole-v1", "--num-envs", "1", "8", "--against", "gymnasium", "--json", *TINY]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"] == {
        "env_ids": ["CartPole-v1"],
        "num_envs": [1, 8],
        "libraries": ["nbgym", "gymnasium"],
        "threads": 1,
        "repeats": 2,
        "steps": 5,
        "sample_time": 0.2,
        "max_sync_envs": _bench.DEFAULT_MAX_SYNC_ENVS,
        "seed": 0,
        "warmup_steps": 0,
    }
    assert report["statistic"] == "median"
    assert report["machine"]["numba_threads"] >= 1
    libraries = ["nbgym", "gymnasium"] if GYMNASIUM else ["nbgym"]
    results = {(r["library"], r["num_envs"]): r for r in report["results"]}
    assert sorted(results) == sorted((library, n) for library in libraries for n in (1, 8))
    for result in results.values():
        assert result["env_id"] == "CartPole-v1"
        assert result["steps"] == 5
        assert len(result["samples"]) == 2
        assert result["best"] == max(result["samples"])
        assert result["median"] == pytest.approx(np.median(result["samples"]))
    assert results[("nbgym", 1)]["implementation"] == "CartPoleEnv via make()"
    assert results[("nbgym", 8)]["implementation"] == "CartPoleVectorEnv"
    if GYMNASIUM:
        assert results[("gymnasium", 8)]["implementation"] == "CartPoleVectorEnv (native vector env)"
        assert report["ratios"] == [
            {
                "env_id": "CartPole-v1",
                "num_envs": n,
                "against": "gymnasium",
                "ratio": results[("nbgym", n)]["median"] / results[("gymnasium", n)]["median"],
            }
            for n in (1, 8)
        ]
        assert report["skipped"] == []


def test_bench_warms_every_contender_up_before_timing(capsys, monkeypatch):
    ran = []
    run = _bench.Runner.run
    monkeypatch.setattr(_bench.Runner, "run", lambda self, steps: ran.append(steps) or run(self, steps))
    argv = ["bench", "CartPole-v1", "--num-envs", "8", "--against", "", "--warmup-steps", "7", "--json", *TINY]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["warmup_steps"] == 7
    assert ran[:2] == [2, 7]  # made and stepped twice, then warmed up, then timed


@pytest.mark.skipif(ENVPOOL, reason="envpool is installed here: its absence cannot be checked")
def test_bench_reports_a_missing_library_as_skipped(capsys):
    assert main(["bench", "--num-envs", "8", "--against", "envpool", "--json", *TINY]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["skipped"] == [
        {
            "env_id": "CartPole-v1",
            "num_envs": 8,
            "library": "envpool",
            "reason": "envpool is not installed (pip install envpool)",
        }
    ]
    main(["bench", "--num-envs", "8", "--against", "envpool", *TINY])
    assert "not measured: envpool at 8: envpool is not installed" in capsys.readouterr().out


def test_bench_sync_vector_env_and_its_size_limit(temporary_env, capsys):
    env_id = temporary_env(
        "SyncOnlyCartPole-v0", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv", max_episode_steps=500
    )
    arguments = ["bench", env_id, "--num-envs", "4", "16", "--max-sync-envs", "8", "--json", *TINY]
    assert main([*arguments, "--against", "gymnasium"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(r["library"], r["num_envs"], r["implementation"]) for r in report["results"]] == [
        ("nbgym", 4, "SyncVectorEnv")
    ]
    skipped = {(s["library"], s["num_envs"]): s["reason"] for s in report["skipped"]}
    assert skipped[("nbgym", 16)] == (
        "a SyncVectorEnv (a Python loop over sub-environments) is not measured above 8 envs (max_sync_envs)"
    )
    if GYMNASIUM:
        assert skipped[("gymnasium", 4)].startswith(f"gymnasium has no {env_id}")


def test_bench_progress_bar_on_stderr(capsys):
    assert main(["bench", "--num-envs", "4", "--against", "", "--steps", "3", "--repeats", "2", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "\r[" in err
    assert "100%" in err
    assert "CartPole-v1 4: nbgym 2/2" in err
    assert err.endswith("\r")  # the bar erases itself before the table is printed


def test_bench_unversioned_id_resolves_to_the_latest(capsys):
    with pytest.warns(UserWarning, match="Using the latest versioned environment `CartPole-v1`"):
        assert main(["bench", "CartPole", "--num-envs", "4", "--against", "", "--json", *TINY]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["env_ids"] == ["CartPole-v1"]


# warmup
# ----------------------------------------

WARMUP_LINE = re.compile(r"  \[ *(\d+)/(\d+)\] (\S+) +(\d+\.\d\d) s  \((\d+\.\d) s elapsed\)")


@pytest.fixture(autouse=True)
def compile_notices_restored(monkeypatch):
    """``warmup`` and ``bench`` silence make's compile notices for the rest of their process: not for other tests."""
    monkeypatch.setattr(cache, "_quiet", cache._quiet)


def test_warmup_named_envs(capsys):
    with pytest.warns(DeprecationWarning, match="CartPole-v0 is out of date"):
        assert main(["warmup", "CartPole-v1", "CartPole-v0", "CartPole-v1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Compiling the kernels into numba's cache (")
    rows = [WARMUP_LINE.fullmatch(line) for line in lines[1:3]]
    assert all(rows), lines
    assert [row.group(1, 2, 3) for row in rows] == [("1", "2", "CartPole-v1"), ("2", "2", "CartPole-v0")]
    seconds = [float(row.group(4)) for row in rows]
    elapsed = [float(row.group(5)) for row in rows]
    assert 0 <= seconds[0] and elapsed[0] <= elapsed[1] and seconds[1] <= elapsed[1] + 0.05
    assert lines[3].startswith("2 environments in ")
    assert len(lines) == 4


def test_warmup_names_each_env_before_compiling_it_with_its_count(monkeypatch, capsys):
    """Each id is printed, with how many are done of how many, before its kernels compile (a Box2D environment's take
    a minute), then the seconds it took and the time since the start; make's own notices are silenced."""
    ids = [
        "CartPole-v1",
        "Pendulum-v1",
        "MountainCar-v0",
        "Acrobot-v1",
        "FrozenLake-v1",
        "Taxi-v4",
        "Blackjack-v1",
        "CliffWalking-v1",
        "MountainCarContinuous-v0",
        "LunarLander-v3",
    ]
    seen = []

    def warm_up(env_id):
        seen.append((env_id, capsys.readouterr().out))
        return 1.5

    monkeypatch.setattr(_bench, "warm_up", warm_up)
    monkeypatch.setattr(cache, "_quiet", False)
    assert main(["warmup", *ids]) == 0
    assert cache._quiet
    out = seen[0][1] + "".join(printed for _, printed in seen[1:]) + capsys.readouterr().out
    assert [env_id for env_id, _ in seen] == ids
    # What the user sees while env i compiles: the finished lines, then its own count and id.
    assert seen[0][1].splitlines()[1] == f"  [ 1/10] {'CartPole-v1'.ljust(24)}  "
    for i, (env_id, printed) in enumerate(seen[1:], 2):
        assert printed.endswith(f"  [{i:2}/10] {env_id.ljust(24)}  "), printed
    lines = out.splitlines()
    rows = [WARMUP_LINE.fullmatch(line) for line in lines[1:-1]]
    assert all(rows), lines
    assert [(int(row.group(1)), row.group(3), row.group(4)) for row in rows] == [
        (i, env_id, "1.50") for i, env_id in enumerate(ids, 1)
    ]
    assert lines[-1].startswith("10 environments in ")


def test_warmup_default_skips_envs_whose_module_does_not_import(temporary_env, monkeypatch, capsys):
    broken = temporary_env("BrokenModule-v0", entry_point="nbgym.envs._no_such_module:Env")
    assert broken in _bench.nbgym_env_ids()
    monkeypatch.setattr(_bench, "nbgym_env_ids", lambda: ["CartPole-v1", broken])
    assert main(["warmup"]) == 0
    captured = capsys.readouterr()
    assert "CartPole-v1" in captured.out and broken not in captured.out
    assert captured.out.splitlines()[-1].startswith("1 environment in ")
    assert captured.err == (
        f"skipped {broken}: its module does not import "
        "(ModuleNotFoundError: No module named 'nbgym.envs._no_such_module')\n"
    )


def test_warmup_of_a_named_env_whose_module_does_not_import_fails(temporary_env, capsys):
    broken = temporary_env("BrokenModule-v0", entry_point="nbgym.envs._no_such_module:Env")
    assert main(["warmup", broken]) == 1
    assert capsys.readouterr().err == (
        f"nbgym warmup: error: {broken}: ModuleNotFoundError: No module named 'nbgym.envs._no_such_module'\n"
    )


def test_warmup_compiles_the_good_ids_beside_bad_ones(temporary_env, capsys):
    """One unregistered id (or a module that does not import) is reported; the other envs still compile."""
    broken = temporary_env("BrokenModule-v0", entry_point="nbgym.envs._no_such_module:Env")
    assert main(["warmup", "CartPol-v1", "CartPole-v1", broken]) == 2
    captured = capsys.readouterr()
    assert [WARMUP_LINE.fullmatch(line).group(3) for line in captured.out.splitlines()[1:-1]] == ["CartPole-v1"]
    assert captured.out.splitlines()[-1].startswith("1 environment in ")
    assert captured.err == (
        f"nbgym warmup: error: {registry_message('CartPol-v1')}\n"
        f"nbgym warmup: error: {broken}: ModuleNotFoundError: No module named 'nbgym.envs._no_such_module'\n"
    )
    assert main(["warmup", "CartPole-v1", broken]) == 1


def test_warmup_levels_and_reuse_go_with_prebuilt_and_known_levels(tmp_path, capsys):
    """``--levels``/``--reuse`` without ``--prebuilt``, or an unknown level, are usage errors, before any compile."""
    assert main(["warmup", "--levels", "generic", "CartPole-v1"]) == 2
    assert capsys.readouterr().err == "nbgym warmup: error: --levels and --reuse go with --prebuilt\n"
    assert main(["warmup", "--reuse", str(tmp_path), "CartPole-v1"]) == 2
    assert "--levels and --reuse go with --prebuilt" in capsys.readouterr().err
    assert main(["warmup", "--prebuilt", str(tmp_path / "out"), "--levels", "x86-64-v9", "CartPole-v1"]) == 2
    assert (
        "unknown processor level 'x86-64-v9': the levels are x86-64-v4, x86-64-v3, generic" in capsys.readouterr().err
    )
    assert not (tmp_path / "out").exists()


def test_warmup_jobs_is_a_positive_count_without_prebuilt(tmp_path, capsys):
    assert main(["warmup", "--jobs", "0", "CartPole-v1"]) == 2
    assert capsys.readouterr().err == "nbgym warmup: error: --jobs must be a positive number of processes, got 0\n"
    assert main(["warmup", "--jobs", "2", "--prebuilt", str(tmp_path / "out"), "CartPole-v1"]) == 2
    assert "--jobs goes without --prebuilt" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.jit_only
def test_warmup_in_processes_fills_the_cache_a_new_process_loads(tmp_path, monkeypatch, capfd):
    """``--jobs 2``: the environments are warmed up in two processes other than the caller, which fill the cache; the
    command prints a line as each ends; a new process then loads every kernel without writing a file."""
    import multiprocessing

    from nbgym import cli

    ids = ["CartPole-v1", "FrozenLake-v1", "Blackjack-v1"]
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the workers' (this process's numba read its own at import)
    workers, ended = set(), []
    for env_id, seconds in cli._warm_up_in_processes(ids, 2):
        workers.update(process.pid for process in multiprocessing.active_children())
        ended.append(env_id)
        assert seconds > 0
    assert sorted(ended) == sorted(ids)
    assert len(workers) == 2 and os.getpid() not in workers
    assert "compiling the kernels" not in "".join(capfd.readouterr())  # the workers' notices are silenced
    assert cache.locations()[0] != str(tmp_path) and any(tmp_path.rglob("*.nbi"))  # written by the workers alone

    result = run_module("warmup", "--jobs", "2", *ids, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Compiling the kernels into numba's cache ({tmp_path}), 2 processes at once:"
    rows = [WARMUP_LINE.fullmatch(line) for line in lines[1:-1]]
    assert all(rows), lines
    assert [row.group(1, 2) for row in rows] == [("1", "3"), ("2", "3"), ("3", "3")]
    assert sorted(row.group(3) for row in rows) == sorted(ids)
    assert lines[-1].startswith("3 environments in ")
    files = {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()}
    script = "import nbgym\n" + "".join(
        f"env = nbgym.make({env_id!r}); env.reset(seed=1); env.step(env.action_space.sample())\n"
        f"vec = nbgym.make_vec({env_id!r}, 4); vec.reset(seed=1); vec.step(vec.action_space.sample())\n"
        for env_id in ids
    )
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script], check=True, env=environ, timeout=300)
    assert {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()} == files


def test_nbgym_env_ids_are_the_registered_nbgym_envs(temporary_env):
    temporary_env("ForeignEnv-v0", entry_point="some_package.envs:Env")
    expected = [
        i
        for i, s in registry.items()
        if str(s.entry_point).startswith("nbgym.envs.")
        and not str(s.entry_point).startswith(("nbgym.envs.phys2d.", "nbgym.envs.tabular."))
    ]
    assert _bench.nbgym_env_ids() == expected
    assert "CartPole-v1" in expected and "ForeignEnv-v0" not in expected and "phys2d/CartPole-v1" not in expected


@pytest.mark.jit_only
def test_warmup_fills_the_cache_a_new_process_loads(tmp_path):
    cache = {"NUMBA_CACHE_DIR": str(tmp_path)}
    result = run_module("warmup", "Pendulum-v1", env=cache)
    assert result.returncode == 0, result.stderr
    assert f"numba's cache ({tmp_path})" in result.stdout
    files = {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()}
    assert any(path.suffix == ".nbc" for path in files)
    # A new process doing what an agent does (single env, vector env, threaded vector env, float32
    # and float64 actions) compiles nothing: the cache gains no file and rewrites none.
    script = (
        "import nbgym, numpy as np\n"
        "env = nbgym.make('Pendulum-v1'); env.reset(seed=1); env.step(np.array([0.5], np.float32))\n"
        "env.step(np.array([0.5]))\n"
        "for threads in sorted({1, min(2, __import__('numba').config.NUMBA_NUM_THREADS)}):\n"
        "    vec = nbgym.make_vec('Pendulum-v1', 600, num_threads=threads); vec.reset(seed=1)\n"
        "    vec.step(np.zeros((600, 1), np.float32)); vec.step(np.zeros((600, 1)))\n"
    )
    environ = {**os.environ, **cache, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", script], check=True, env=environ, timeout=300)
    assert {path: path.stat().st_mtime_ns for path in tmp_path.rglob("*") if path.is_file()} == files


# The measuring
# ----------------------------------------


class RecordingEnv:
    """Records the actions it is stepped with; terminates every ``episode`` steps."""

    def __init__(self, episode: int = 1000) -> None:
        self.actions: list = []
        self.resets = 0
        self.episode = episode
        self.closed = False

    def step(self, action):
        self.actions.append(action)
        return None, 0.0, len(self.actions) % self.episode == 0, False, {}

    def reset(self, **kwargs):
        self.resets += 1
        return None, {}

    def close(self):
        self.closed = True


def test_runner_cycles_through_the_actions_in_order():
    env = RecordingEnv()
    runner = _bench.Runner("lib", "impl", 4, env, ["a", "b", "c"])
    assert env.actions == ["a", "b"]  # the warm-up steps
    runner.run(5)
    assert env.actions == ["a", "b", "c", "a", "b", "c", "a"]
    runner.close()
    assert env.closed


def test_single_runner_resets_ended_episodes():
    env = RecordingEnv(episode=3)
    runner = _bench.SingleRunner("lib", "impl", 1, env, [0, 1])
    runner.run(7)
    assert env.actions == [0, 1] * 4 + [0]
    assert env.resets == 3


class FakeClock:
    """``perf_counter`` of a world where ``runner.run(k)`` takes ``k * step_time`` seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class ClockedRunner(_bench.Runner):
    def __init__(self, clock: FakeClock, step_time: float, name: str, log: list) -> None:
        self.clock, self.step_time, self.log = clock, step_time, log
        super().__init__(name, f"{name} impl", 10, RecordingEnv(), [0])

    def run(self, steps: int) -> None:
        self.log.append((self.library, steps))
        self.clock.now += steps * self.step_time


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(_bench.time, "perf_counter", fake.perf_counter)
    return fake


def test_calibrate_finds_the_steps_of_a_sample(clock):
    runner = ClockedRunner(clock, 0.001, "lib", [])
    assert _bench.calibrate(runner, 0.2) == 200
    slow = ClockedRunner(clock, 1.0, "lib", [])
    assert _bench.calibrate(slow, 0.2) == 1
    assert _bench.env_steps_per_second(ClockedRunner(clock, 0.001, "lib", []), 0.2) == pytest.approx(10 / 0.001)


def test_samples_alternate_in_rotating_order(clock):
    log: list = []
    runners = [ClockedRunner(clock, t, name, log) for name, t in (("a", 0.001), ("b", 0.002), ("c", 0.004))]
    log.clear()
    measurements = _bench.measure_alternating(runners, "Env-v0", repeats=3, steps=50)
    assert log == [("a", 50), ("b", 50), ("c", 50), ("b", 50), ("c", 50), ("a", 50), ("c", 50), ("a", 50), ("b", 50)]
    assert [m.library for m in measurements] == ["a", "b", "c"]
    for m, step_time in zip(measurements, (0.001, 0.002, 0.004), strict=True):
        assert m.steps == 50 and m.num_envs == 10 and m.threads == 1 and m.implementation == f"{m.library} impl"
        assert m.samples == pytest.approx([10 / step_time] * 3)


def test_gc_is_off_while_timing(monkeypatch):
    import gc

    states = []

    class GcRunner(_bench.Runner):
        def run(self, steps):
            states.append(gc.isenabled())

    runner = GcRunner("lib", "impl", 1, RecordingEnv(), [0])
    states.clear()
    _bench.time_steps(runner, 1)
    assert states == [False] and gc.isenabled()


def test_every_library_gets_the_same_actions(monkeypatch):
    seen = []

    def fake_make_runner(library, env_id, num_envs, actions, **kwargs):
        seen.append((library, num_envs, actions))
        raise _bench.Unavailable("not measured in this test")

    monkeypatch.setattr(_bench, "make_runner", fake_make_runner)
    config = _bench.BenchConfig(["CartPole-v1"], num_envs=[1, 6], repeats=1)
    report = _bench.run_benchmark(config)
    assert [(library, n) for library, n, _ in seen] == [(lib, n) for n in (1, 6) for lib in _bench.LIBRARIES]
    for n in (1, 6):
        pools = [actions for _, size, actions in seen if size == n]
        assert all(pool is pools[0] for pool in pools)
    assert len(report.skipped) == 6 and report.measurements == []


def test_action_pool_is_seeded_and_in_the_action_space():
    env = nbgym.make("Pendulum-v1")
    single = _bench.action_pool("Pendulum-v1", 1, seed=3)
    assert len(single) == 256
    assert all(env.action_space.contains(action) for action in single)
    np.testing.assert_array_equal(single, _bench.action_pool("Pendulum-v1", 1, seed=3))
    assert not np.array_equal(single, _bench.action_pool("Pendulum-v1", 1, seed=4))
    batches = _bench.action_pool("CartPole-v1", 65536)
    assert len(batches) == 64  # 2**22 action scalars at most
    assert batches[0].shape == (65536,) and batches[0].dtype == np.int64
    vector_of_one = _bench.action_pool("CartPole-v1", 1, single=False)
    assert vector_of_one[0].shape == (1,)


def test_format_rate():
    assert [_bench.format_rate(v) for v in (950.0, 98_149.0, 41_249_000.0, 1.5e9, 3.14159)] == [
        "950",
        "98.1k",
        "41.2M",
        "1.50G",
        "3.14",
    ]


def test_report_round_trips_through_json():
    config = _bench.BenchConfig(
        ["A-v0", "B-v1"], num_envs=[1, 64], libraries=["nbgym", "gymnasium", "envpool"], threads=2
    )
    report = _bench.Report(
        config,
        [
            _bench.Measurement("A-v0", 1, "nbgym", "AEnv via make()", 1, 10, [2e5, 4e5, 3e5]),
            _bench.Measurement("A-v0", 1, "gymnasium", "AEnv via make()", 1, 10, [1e5, 5e4, 2e5]),
            _bench.Measurement("A-v0", 64, "nbgym", "AVectorEnv, 2 threads", 2, 100, [6.4e7]),
            _bench.Measurement("B-v1", 64, "nbgym", "BVectorEnv, 2 threads", 2, 100, [1e6]),
        ],
        [
            _bench.Skip("A-v0", 64, "gymnasium", "too slow"),
            _bench.Skip("A-v0", 1, "envpool", "missing"),
            _bench.Skip("A-v0", 64, "envpool", "missing"),
        ],
    )
    data = json.loads(json.dumps(report.to_json()))
    assert data["ratios"] == [{"env_id": "A-v0", "num_envs": 1, "against": "gymnasium", "ratio": 3.0}]
    again = _bench.Report.from_json(data)
    assert again == report
    assert _bench.format_report(again) == (
        "A-v0: env-steps/s, median of 5 interleaved samples, 2 threads\n"
        "  num_envs  nbgym  gymnasium  nbgym/gymnasium\n"
        "  single     300k       100k            3.00x\n"
        "  64        64.0M          -                -\n"
        "  nbgym: AEnv via make(), AVectorEnv, 2 threads\n"
        "  gymnasium: AEnv via make()\n"
        "  not measured: gymnasium at 64: too slow\n"
        "  not measured: envpool at single, 64: missing\n"
        "\n"
        "B-v1: env-steps/s, median of 5 interleaved samples, 2 threads\n"
        "  num_envs  nbgym\n"
        "  single        -\n"
        "  64        1.00M\n"
        "  nbgym: BVectorEnv, 2 threads"
    )
    assert _bench.format_markdown(again).splitlines()[:6] == [
        "#### A-v0: env-steps/s, median of 5 interleaved samples, 2 threads",
        "",
        "| num_envs | nbgym | gymnasium | nbgym/gymnasium |",
        "|:---|---:|---:|---:|",
        "| single | 300k | 100k | 3.00x |",
        "| 64 | 64.0M | - | - |",
    ]


def test_progress_bar_draws_in_place_and_erases_itself():
    stream = io.StringIO()
    bar = _bench.ProgressBar(4, stream, width=8)
    bar.advance(1, "first")
    bar.advance(3, "x")
    assert stream.getvalue().startswith("\r[##......]  25%")
    drawn = stream.getvalue().split("\r")[2]
    assert drawn.startswith("[########] 100%") and drawn.rstrip().endswith(" x")
    assert len(drawn) == len(stream.getvalue().split("\r")[1])  # padded over the longer previous line
    bar.close()
    assert stream.getvalue().endswith("\r" + " " * len(drawn.rstrip()) + "\r")
    silent = _bench.ProgressBar(4, None)
    silent.advance(1, "nothing drawn")
    silent.close()


# play and record
# ----------------------------------------

HAS_PYGAME = importlib.util.find_spec("pygame") is not None
HAS_MOVIEPY = importlib.util.find_spec("moviepy") is not None


def hide_modules(monkeypatch, *packages: str) -> None:
    """Makes ``packages`` (and their submodules) unimportable, as if not installed, for one test."""
    for name in [name for name in sys.modules if name.split(".")[0] in packages]:
        monkeypatch.setitem(sys.modules, name, None)
    for package in packages:
        monkeypatch.setitem(sys.modules, package, None)
    # nbgym.utils.play holds pygame from its own import
    monkeypatch.delitem(sys.modules, "nbgym.utils.play", raising=False)


def test_play_without_pygame_says_what_to_install(monkeypatch, capsys):
    hide_modules(monkeypatch, "pygame")
    assert main(["play", "CartPole-v1", "--keys", '{"a": 0, "d": 1}']) == 1
    err = capsys.readouterr().err
    assert err.startswith("nbgym play: error: ") and "pip install" in err and "pygame" in err


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
def test_play_passes_the_options_to_utils_play(monkeypatch):
    import nbgym.utils.play

    calls = []
    monkeypatch.setattr(nbgym.utils.play, "play", lambda env, **kwargs: calls.append((env, kwargs)))
    arguments = ["--keys", '{"a": [-2.0], "d": [2], "ad": [0.5]}', "--noop", "[0.0]", "--fps", "12", "--zoom", "2"]
    assert main(["play", "Pendulum-v1", *arguments, "--seed", "4", "--wait-on-player"]) == 0
    [(env, kwargs)] = calls
    assert env.spec.id == "Pendulum-v1" and env.render_mode == "rgb_array"
    keys = kwargs.pop("keys_to_action")
    assert list(keys) == ["a", "d", "ad"]
    for key, value in zip(keys, ([-2.0], [2.0], [0.5]), strict=True):
        assert keys[key].dtype == np.float32 and keys[key].tolist() == value
    noop = kwargs.pop("noop")
    assert noop.dtype == np.float32 and noop.tolist() == [0.0]
    assert kwargs == {"fps": 12, "zoom": 2.0, "seed": 4, "wait_on_player": True}


# Box actions of several numbers, for which neither gymnasium nor nbgym has keys: `play` asks for --keys.
# (Every MuJoCo env but the inverted pendulums, whose one force gets a/d.)
NO_DEFAULT_KEYS = ("LunarLanderContinuous-v3", "BipedalWalker-v3", "BipedalWalkerHardcore-v3") + tuple(
    env_id
    for env_id in _bench.nbgym_env_ids()
    if nbgym.spec(env_id).entry_point.startswith("nbgym.envs.mujoco.") and not env_id.startswith("Inverted")
)


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
@pytest.mark.parametrize(
    "env_id", [env_id for env_id in _bench.nbgym_env_ids() if not env_id.startswith(("CartPole-v0", *NO_DEFAULT_KEYS))]
)
def test_play_without_keys_maps_default_keys_for_every_env(env_id, monkeypatch, capsys):
    """Digits for discrete actions (with the env's own mapping on top), a/d for one continuous action; printed."""
    import nbgym.utils.play

    calls = []
    monkeypatch.setattr(nbgym.utils.play, "play", lambda env, **kwargs: calls.append((env, kwargs)))
    assert main(["play", env_id]) == 0
    [(env, kwargs)] = calls
    keys, noop, space = kwargs["keys_to_action"], kwargs["noop"], env.action_space
    assert capsys.readouterr().out.startswith("keys: ")
    assert space.contains(noop) and all(
        space.contains(np.asarray(action, dtype=space.dtype)) for action in keys.values()
    )
    if isinstance(space, nbgym.spaces.Discrete):
        assert {keys[str(action)] for action in range(space.n)} == set(range(space.n))
    elif env_id == "CarRacing-v3":  # gymnasium's documented keys
        assert keys["wa"].tolist() == [-1.0, np.float32(0.7), 0.0] and noop.tolist() == [0.0, 0.0, 0.0]
    else:
        assert (keys["a"], keys["d"], noop) == (space.low, space.high, np.zeros(1, space.dtype))
    if env_id == "MountainCar-v0":  # gymnasium's mapping gives its no-key action as an empty combination
        assert () not in keys and noop == 1 and keys[(275,)] == 2


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
@pytest.mark.parametrize("env_id", NO_DEFAULT_KEYS)
def test_play_without_keys_asks_for_them_for_box2d_actions_of_several_numbers(env_id, capsys):
    assert main(["play", env_id]) == 2
    assert capsys.readouterr().err.startswith(f"nbgym play: error: {env_id} has no default keys for its action space")


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
def test_play_without_keys_asks_for_them_where_there_are_no_defaults(temporary_env, capsys):
    env_id = temporary_env("ThreeForces-v0", entry_point=lambda **kwargs: ThreeForcesEnv(**kwargs))
    assert main(["play", env_id]) == 2
    assert capsys.readouterr().err.startswith(f"nbgym play: error: {env_id} has no default keys for its action space")


class ThreeForcesEnv(nbgym.Env):
    """An environment of three continuous actions: too many for default keys."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, render_mode=None):
        self.render_mode = render_mode
        self.action_space = nbgym.spaces.Box(-1, 1, (3,))
        self.observation_space = nbgym.spaces.Discrete(1)


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
def test_play_in_a_window_until_quit(monkeypatch):
    import pygame

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    events = iter([[], [pygame.event.Event(pygame.KEYDOWN, key=ord("d"))], [], [pygame.event.Event(pygame.QUIT)]])
    monkeypatch.setattr(pygame.event, "get", lambda: next(events))
    assert main(["play", "CartPole-v1", "--keys", '{"a": 0, "d": 1}', "--fps", "1000"]) == 0
    assert next(events, "all events consumed") == "all events consumed"


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
def test_play_without_a_display_refuses_and_says_what_to_do():
    """Without a display pygame-ce would fall back to its offscreen driver and play unseen forever."""
    environ = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY")}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", "nbgym", "play", "CartPole-v1"], capture_output=True, text=True, env=environ, timeout=300
    )
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("nbgym play: error: no display to open the window on: neither DISPLAY nor WAYLAND_DISPLAY")
    assert "xvfb-run nbgym play CartPole-v1" in line and "SDL_VIDEODRIVER" in line


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="only Linux needs DISPLAY for a window")
@pytest.mark.parametrize("chosen", [{"SDL_VIDEODRIVER": "dummy"}, {"DISPLAY": ":99"}, {"WAYLAND_DISPLAY": "wayland-9"}])
def test_play_goes_ahead_with_a_display_or_a_chosen_driver(chosen, monkeypatch):
    import nbgym.utils.play

    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in chosen.items():
        monkeypatch.setenv(name, value)
    calls = []
    monkeypatch.setattr(nbgym.utils.play, "play", lambda env, **kwargs: calls.append(env))
    assert main(["play", "CartPole-v1", "--keys", '{"a": 0, "d": 1}']) == 0 and len(calls) == 1


@pytest.mark.skipif(not HAS_PYGAME, reason="pygame is not installed (pip install 'nbgym[render]')")
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--keys", '{"a": 7}'], "Action 7 is not a valid action in the environment action space: Discrete(2)"),
        (["--keys", '{"a": 0'], "--keys is not valid JSON (Expecting ',' delimiter"),
        (["--keys", "[0, 1]"], "--keys must be a JSON object of keys to actions, got '[0, 1]'"),
    ],
)
def test_play_usage_errors(arguments, message, capsys):
    assert main(["play", "CartPole-v1", *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nbgym play: error: {message}")


def test_record_needs_an_mp4_file(tmp_path, capsys):
    assert main(["record", "CartPole-v1", "--out", str(tmp_path / "video.gif")]) == 2
    assert "--out must name an .mp4 file" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("missing", ["moviepy", "pygame"])
def test_record_without_its_dependencies_says_what_to_install(missing, monkeypatch, tmp_path, capsys):
    hide_modules(monkeypatch, missing)
    assert main(["record", "CartPole-v1", "--out", str(tmp_path / "video.mp4")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nbgym record: error: ") and "pip install" in err and missing.lower() in err.lower()
    assert not any(tmp_path.iterdir())


@pytest.mark.skipif(not (HAS_PYGAME and HAS_MOVIEPY), reason="needs pygame and moviepy (nbgym[render,video])")
def test_record_writes_the_video_of_one_episode(tmp_path, capsys):
    from moviepy import VideoFileClip

    out = tmp_path / "videos" / "cartpole.mp4"
    assert main(["record", "CartPole-v1", "--out", str(out), "--seed", "5", "--max-steps", "12", "--fps", "10"]) == 0
    line = capsys.readouterr().out
    assert line.startswith(f"{out}: CartPole-v1, ") and "(seed 5)" in line
    steps = int(line.split(", ")[1].split()[0])
    assert 1 <= steps <= 12
    # The random episode is the one the seeded action space plays in a plain loop.
    env = nbgym.make("CartPole-v1")
    env.reset(seed=5)
    env.action_space.seed(5)
    expected = 0
    while expected < 12:
        expected += 1
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    assert steps == expected
    clip = VideoFileClip(str(out))
    assert clip.fps == 10 and tuple(clip.size) == (600, 400)
    clip.close()
    assert sorted(path.name for path in out.parent.iterdir()) == ["cartpole.mp4"]


@pytest.mark.parametrize("command", ["play", "record"])
@pytest.mark.parametrize("env_id", ["Pusher-v4", "HalfCheetah-v3", "Ant-v2"])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # make's out-of-date warning, besides the error
def test_ids_that_refuse_this_install_print_one_error_line(command, env_id, capsys):
    """gymnasium's ids that raise ImportError at make (the v2/v3 MuJoCo ids, Pusher-v4 on mujoco >= 3)."""
    pytest.importorskip("mujoco")
    assert main([command, env_id, *(["--out", "video.mp4"] if command == "record" else [])]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"nbgym {command}: error: {env_id}: ImportError: ")
    assert captured.err.count("\n") == 1
    assert "Traceback" not in captured.err
