"""A first run explains its wait: a compile in ``make``/``make_vec`` is announced as it starts (which kernels), one of
more than a second is explained once per process (that kernels are compiled once, and where they are cached), and
``nbgym bench`` and ``nbgym warmup`` say it on their own lines."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import nbgym
from nbgym import _bench
from nbgym.engine import _cache as cache
from nbgym.engine._kernels import step_kernel
from nbgym.cli import main
from helpers.paths import ROOT


MAKE_TWO = "import nbgym; nbgym.make('CartPole-v1').reset(seed=0); nbgym.make_vec('MountainCar-v0', 3).reset(seed=0)"


def run_python(code: str, cache_dir: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_a_cold_make_says_what_it_compiles_before_and_once_that_kernels_compile_once_and_where_they_are_cached(
    tmp_path,
):
    cache_dir = tmp_path / "cache"
    first = run_python(MAKE_TWO, cache_dir, tmp_path)
    assert first.returncode == 0, first.stderr
    notices = [line for line in first.stderr.splitlines() if line.startswith("nbgym: ")]
    # Two envs compiled (each well over a second): each announced as it starts, and one notice after the first.
    assert len(notices) == 3, first.stderr
    assert notices[0] == "nbgym: compiling the kernels of CartPole (first use; cached afterwards)..."
    assert notices[1].startswith("nbgym: compiled the kernels of CartPole in ")
    assert f"Kernels are compiled once and cached in {cache_dir}{os.sep}" in notices[1] and "nbgym warmup" in notices[1]
    assert notices[2] == "nbgym: compiling the kernels of MountainCar (first use; cached afterwards)..."
    warm = run_python(MAKE_TWO, cache_dir, tmp_path)
    assert warm.returncode == 0 and "nbgym: " not in warm.stderr, warm.stderr  # loaded from the cache: nothing to say


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="a threaded step needs two threads")
def test_the_compiles_of_later_calls_are_announced_too(tmp_path):
    """A step with actions of another dtype and a threaded step compile kernels of their own, each announced; the vector
    env runs the single env's kernels, compiled once."""
    code = (
        "import nbgym, numpy as np\n"
        "env = nbgym.make('Pendulum-v1'); env.reset(seed=0); env.step(np.zeros(1, np.float32)); env.step(np.zeros(1))\n"
        "vec = nbgym.make_vec('Pendulum-v1', 600); vec.reset(seed=0); vec.step(np.zeros((600, 1), np.float32))\n"
        "vec.num_threads = 2; vec.step(np.zeros((600, 1), np.float32))\n"
    )
    result = run_python(code, tmp_path / "cache", tmp_path)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if line.startswith("nbgym: compiling")] == [
        "nbgym: compiling the kernels of Pendulum (first use; cached afterwards)...",
        "nbgym: compiling the kernels of Pendulum's step of float64 actions (first use; cached afterwards)...",
        "nbgym: compiling the kernels of Pendulum's threaded step (first use; cached afterwards)...",
    ]


def test_a_compile_is_announced_once_per_group_at_its_first_cache_miss(fresh_notice, caplog):
    caplog.set_level(logging.INFO, logger="nbgym")
    cache._announce_compile(True)  # outside compiling(): nothing named to announce
    with cache.compiling("Probe"):
        cache._announce_compile(True)
        cache._announce_compile(True)  # the functions the first kernel calls miss too
    with cache.compiling("Probe's threaded step"):
        cache._announce_compile(False)
    cache._announce_compile(True)
    assert [record.getMessage() for record in caplog.records] == [
        "compiling the kernels of Probe (first use; cached afterwards)...",
        "compiling the kernels of Probe's threaded step (no writable cache: compiled in every process)...",
    ]
    cache.skip_compile_notice()
    with cache.compiling("Quiet"):
        cache._announce_compile(True)
    cache.notice_compile("Quiet", 2.5, step_kernel)
    assert len(caplog.records) == 2


@pytest.fixture
def fresh_notice(monkeypatch):
    monkeypatch.setattr(cache, "_compile_noticed", False)
    monkeypatch.setattr(cache, "_quiet", False)


def test_notice_once_per_process_and_only_past_a_second(fresh_notice, caplog):
    caplog.set_level(logging.INFO, logger="nbgym")
    cache.notice_compile("Quick", cache.COMPILE_NOTICE_SECONDS / 2, step_kernel)
    assert caplog.records == []
    cache.notice_compile("Slow", 2.5, step_kernel)
    cache.notice_compile("Slower", 3.5, step_kernel)
    [record] = caplog.records
    assert record.name == "nbgym" and record.levelno == logging.INFO
    assert record.getMessage().startswith("compiled the kernels of Slow in 2.5 s.")
    assert cache.cache_dir(step_kernel) in record.getMessage()


def test_logger_info_prints_to_stderr_where_logging_is_not_configured(tmp_path):
    code = "from nbgym import logger; logger.info('hello %s', 'there')"
    result = run_python(code, tmp_path / "cache", tmp_path)
    assert result.returncode == 0 and result.stderr == "nbgym: hello there\n"
    silenced = run_python(
        "import logging; logging.getLogger('nbgym').setLevel(logging.WARNING); " + code, tmp_path, tmp_path
    )
    assert silenced.returncode == 0 and silenced.stderr == ""


def test_bench_progress_line_says_kernels_compile_once_and_where(fresh_notice, capsys):
    assert main(["bench", "--num-envs", "4", "--against", "", "--steps", "3", "--repeats", "2", "--progress"]) == 0
    err = capsys.readouterr().err
    assert (
        f"CartPole-v1 4: making nbgym (a first run compiles its kernels, once, into {_bench.kernel_cache_dir()})" in err
    )
    assert "nbgym: compil" not in err  # make's notices would break the progress line: the line says it
    assert cache._quiet


def test_kernel_cache_dir_shortens_the_home_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(cache, "cache_dir", lambda dispatcher: str(tmp_path / ".cache" / "numba"))
    assert _bench.kernel_cache_dir() == os.path.join("~", ".cache", "numba")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_fits_the_terminal(monkeypatch):
    monkeypatch.setattr(_bench.shutil, "get_terminal_size", lambda: os.terminal_size((60, 24)))
    stream = _Terminal()
    bar = _bench.ProgressBar(4, stream, width=8)
    bar.show("x" * 200)
    assert len(stream.getvalue()) == 1 + 59  # "\r" and the line, cut to one column less than the terminal
    not_a_terminal = io.StringIO()
    _bench.ProgressBar(4, not_a_terminal, width=8).show("x" * 200)
    assert len(not_a_terminal.getvalue()) > 200


def test_mujoco_log_stays_out_of_the_working_directory(monkeypatch, tmp_path):
    """mujoco 4.0 warns of HalfCheetah's deprecated ``settotalmass`` at each model load (under gymnasium too) and
    would append it to MUJOCO_LOG.TXT in the working directory: the tests keep it out (conftest)."""
    mujoco = pytest.importorskip("mujoco")
    if not hasattr(mujoco, "MjLogConfig"):
        pytest.skip("mujoco < 4 has no log configuration")
    monkeypatch.chdir(tmp_path)
    nbgym.make("HalfCheetah-v5").reset(seed=0)
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()
    assert mujoco.MjLogConfig.get().logto_file is False


def test_bench_startup_times_the_package_it_is_given_and_refuses_another(tmp_path):
    """``bench_startup.first_step`` with ``package_root`` imports nbgym from there, even when run from a checkout's root
    (where ``python -c`` would import the checkout's first: its prebuilt column timed cold compiles so), and refuses a
    run whose nbgym came from elsewhere rather than report it."""
    import shutil

    from helpers.paths import load_benchmark

    script = load_benchmark("bench_startup")
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "nbgym", copy / "nbgym", ignore=shutil.ignore_patterns("__pycache__", "_prebuilt_kernels"))
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        seconds, _ = script.first_step("FrozenLake-v1", 0, str(tmp_path / "cache"), package_root=str(copy))
        assert seconds > 0
        elsewhere = tmp_path / "no-nbgym-here"
        elsewhere.mkdir()
        with pytest.raises(RuntimeError, match="imported nbgym from"):
            script.first_step("FrozenLake-v1", 0, str(tmp_path / "cache"), package_root=str(elsewhere))
    finally:
        os.chdir(cwd)
