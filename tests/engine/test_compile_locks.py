"""The kernel cache's locks: one process at a time compiles a physics' kernels into a cache (``cache.compiling``),
processes compiling different physics' go on side by side, and an index file is read and written again by one process
at a time (``_CheckedCacheFile.save``).

Each lock is held by a process of its own over a cache of its own (``NUMBA_CACHE_DIR``), so that no worker of the
suite waits for these tests' locks. Nothing here compiles a kernel.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time

import numba
import pytest
from helpers.paths import ROOT

from nbgym.engine import _cache as cache

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no kernel cache without the JIT")

HOLD = """
import sys
from nbgym.engine import _cache as cache
with cache.compiling("Holder", sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""

TAKE = """
import sys, time
from nbgym.engine import _cache as cache
print("taking", flush=True)
start = time.monotonic()
with cache.compiling("Taker", sys.argv[1]):
    print(f"{time.monotonic() - start:.3f}", flush=True)
"""


def _python(script: str, group: str, cache_dir: os.PathLike, **options) -> subprocess.Popen:
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", script, group], env=environ, text=True, stdout=subprocess.PIPE, **options
    )


def test_a_physics_compiling_in_one_process_holds_up_only_that_physics_compiles_in_another(tmp_path):
    holder = _python(HOLD, "LunarLander", tmp_path, stdin=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == "held\n"
        other = _python(TAKE, "BipedalWalker", tmp_path)
        assert other.wait(timeout=60) == 0
        assert other.stdout.readline() == "taking\n"
        assert float(other.stdout.read()) < 1.0  # not held up
        same = _python(TAKE, "LunarLander", tmp_path)
        assert same.stdout.readline() == "taking\n"
        time.sleep(2.0)
        assert same.poll() is None  # waits for the holder
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
        assert same.wait(timeout=60) == 0
        assert float(same.stdout.read()) >= 2.0
    finally:
        holder.kill()
        holder.wait()


def test_a_group_compiled_inside_another_takes_no_second_lock(tmp_path, monkeypatch):
    """Nested in the same thread, the same group's lock would be taken twice (on another open file: ``flock`` would
    wait for this process itself, forever), and two groups' locks in opposite orders by two processes would wait for
    each other: the inner group takes none."""
    monkeypatch.setattr(cache, "locations", lambda: (str(tmp_path), (str(tmp_path),)))
    with cache.compiling("Outer", "LunarLander"):
        with cache.compiling("Inner", "LunarLander"):
            with cache.compiling("Innermost", "HalfCheetah"):
                taker = _python(TAKE, "HalfCheetah", tmp_path)
                assert taker.wait(timeout=60) == 0  # the inner groups hold no lock of their own
    assert not getattr(cache._compiling, "locked", False)
    taker = _python(TAKE, "LunarLander", tmp_path)
    assert taker.wait(timeout=60) == 0  # released


def test_an_index_is_read_and_written_again_under_the_index_lock(tmp_path, monkeypatch):
    """Two processes adding entries to one index at once would each write the index they read with their own entry
    only, and name one data file for both: ``save`` reads and writes the index under the cache's index lock."""
    monkeypatch.setattr(cache, "locations", lambda: (str(tmp_path), (str(tmp_path),)))
    cache_file = cache._CheckedCacheFile(str(tmp_path), "probe", "stamp")
    lock_taken_by_another = []
    load_index = cache_file._load_index

    def load_index_trying_the_lock():
        with open(tmp_path / "nbgym-index.lock", "a+b") as other:  # another open file: as another process
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock_taken_by_another.append(False)
            else:
                lock_taken_by_another.append(True)
                fcntl.flock(other, fcntl.LOCK_UN)
        return load_index()

    monkeypatch.setattr(cache_file, "_load_index", load_index_trying_the_lock)
    cache_file.save(("sig", "first"), b"one")
    cache_file.save(("sig", "second"), b"two")
    assert lock_taken_by_another == [False, False]
    monkeypatch.setattr(cache_file, "_load_index", load_index)
    assert cache_file.load(("sig", "first")) == b"one"
    assert cache_file.load(("sig", "second")) == b"two"


def test_any_physics_name_names_a_lock_file(tmp_path, monkeypatch):
    """A physics is named freely: its lock file's name keeps only what a file name may hold, so that no name leaves
    a group without a lock (a path that cannot be opened)."""
    monkeypatch.setattr(cache, "locations", lambda: (str(tmp_path), (str(tmp_path),)))
    with cache.compiling("Odd", "../Lunar Lander/v3"):
        assert getattr(cache._compiling, "locked", False)
    assert [path.name for path in tmp_path.glob("nbgym-compile-*")] == ["nbgym-compile-.._Lunar_Lander_v3.lock"]
