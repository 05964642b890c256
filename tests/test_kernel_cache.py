"""nbgym's disk cache of kernels: damaged files are detected, recompiled and replaced; a read-only install, a read-only
(prebuilt) cache, no writable location and a full disk all keep nbgym working.

Every run is a new process over its own ``NUMBA_CACHE_DIR``: the cache is filled once by a cold run,
then each case copies it, damages one file of the step kernel's entry (the kernel a step loads), and
runs again. The run must step exactly as the clean run did, warn once naming the file, and leave an
entry that loads without a warning.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numba
import pytest

import nbgym

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no kernel cache without the JIT")

ROOT = pathlib.Path(nbgym.__file__).resolve().parent.parent

RUN = r"""
import hashlib, json, warnings
import numpy as np

warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import nbgym
    from nbgym.error import KernelCacheWarning

    digest = hashlib.sha256()
    env = nbgym.make("CartPole-v1")
    obs, _ = env.reset(seed=3)
    digest.update(obs.tobytes())
    for step in range(40):
        obs, reward, terminated, truncated, _ = env.step(step % 3 % 2)
        digest.update(obs.tobytes() + np.float64(reward).tobytes() + bytes([terminated, truncated]))
        if terminated or truncated:
            env.reset()
    envs = nbgym.make_vec("CartPole-v1", 5, autoreset_mode="SameStep")
    envs.reset(seed=7)
    for step in range(40):
        obs, rewards, terminations, truncations, _ = envs.step(np.arange(5) * step % 2)
        digest.update(obs.tobytes() + rewards.tobytes() + terminations.tobytes() + truncations.tobytes())

from nbgym._engine.cache import CheckedFunctionCache
from nbgym._engine.kernels import step_kernel

with warnings.catch_warnings(record=True) as reloaded:
    fresh_cache = CheckedFunctionCache(step_kernel.py_func)
    healthy = all(fresh_cache.load_overload(sig, step_kernel.targetctx) is not None for sig in step_kernel.signatures)
print(json.dumps({
    "results": digest.hexdigest(),
    "cache_warnings": [str(w.message) for w in caught if issubclass(w.category, KernelCacheWarning)],
    "other_warnings": [str(w.message) for w in caught if not issubclass(w.category, KernelCacheWarning)],
    "healthy": healthy and not reloaded,
    "signatures": len(step_kernel.signatures),
    "step_hits": sum(step_kernel.stats.cache_hits.values()),
    "step_misses": sum(step_kernel.stats.cache_misses.values()),
}))
"""


def run(cache_dir: pathlib.Path | None, root: pathlib.Path = ROOT, prelude: str = "", **variables: str) -> subprocess.Popen[str]:
    """Start ``RUN`` in a new process over the kernel cache ``cache_dir`` (``None``: nbgym's default location),
    importing nbgym from ``root``, with environment ``variables``."""
    environ = {**os.environ, **variables}
    environ.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", prelude + RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ,
        cwd="/",
    )


@pytest.fixture
def read_only():
    """Makes a directory read-only for the runs: a read-only bind mount as root (whom no file mode stops), its mode
    otherwise; undone after the test."""
    mounted, chmodded = [], []

    def make(path: pathlib.Path) -> pathlib.Path:
        path.mkdir(parents=True, exist_ok=True)
        if os.getuid() == 0:
            subprocess.run(["mount", "--bind", str(path), str(path)], check=True)
            mounted.append(path)
            subprocess.run(["mount", "-o", "remount,ro,bind", str(path)], check=True)
        else:
            for directory in [path, *(p for p in path.rglob("*") if p.is_dir())]:
                directory.chmod(0o555)
                chmodded.append(directory)
        return path

    yield make
    for path in reversed(mounted):
        subprocess.run(["umount", str(path)], check=True)
    for directory in chmodded:
        directory.chmod(0o755)


def finish(process: subprocess.Popen[str]) -> dict:
    """The report of a run, after checking that it exited cleanly."""
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory) -> tuple[pathlib.Path, dict]:
    """A cache filled by two cold runs started together (concurrent compiles into one empty directory),
    and the report of a clean run over it."""
    cache_dir = tmp_path_factory.mktemp("kernel-cache")
    first, second = run(cache_dir), run(cache_dir)
    cold = [finish(first), finish(second)]
    clean = finish(run(cache_dir))
    return cache_dir, {"cold": cold, "clean": clean}


def test_concurrent_cold_starts_fill_one_cache(filled_cache):
    _, reports = filled_cache
    clean = reports["clean"]
    for cold in reports["cold"]:
        assert cold["results"] == clean["results"]
        assert cold["cache_warnings"] == []
    assert clean["cache_warnings"] == [] and clean["other_warnings"] == []
    assert clean["healthy"]


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _empty(data: bytes) -> bytes:
    return b""


def _corrupt(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes(byte ^ 0xFF for byte in data[middle : middle + 8]) + data[middle + 8 :]


@pytest.mark.parametrize("damage", [_truncate, _empty, _corrupt], ids=["truncated", "empty", "corrupted"])
@pytest.mark.parametrize("suffix", [".nbi", ".1.nbc"], ids=["index", "data"])
def test_damaged_entry_is_recompiled_and_replaced(filled_cache, tmp_path, damage, suffix):
    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [damaged] = [path for path in cache_dir.rglob(f"kernels.step_kernel-*{suffix}")]
    original = damaged.read_bytes()
    damaged.write_bytes(damage(original))

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert len(report["cache_warnings"]) == 1
    assert str(damaged) in report["cache_warnings"][0]
    assert "damaged" in report["cache_warnings"][0]
    assert report["other_warnings"] == []
    assert report["healthy"]
    assert report["signatures"] == reports["clean"]["signatures"]
    assert damaged.read_bytes() != damage(original)


def test_a_data_file_holding_another_kernel_is_a_miss(filled_cache, tmp_path):
    """What two processes filling one cache at once can leave (numba numbers each new entry's file after the
    index it read, so both may write the same number, and an index names the other kernel's file): the kernel
    is compiled again and its file rewritten, never the other kernel run in its place."""
    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [step_file] = list(cache_dir.rglob("kernels.step_kernel-*.1.nbc"))
    [reset_file] = list(cache_dir.rglob("kernels.reset_kernel-*.1.nbc"))
    step_file.write_bytes(reset_file.read_bytes())  # intact (its digest matches), but the reset kernel's

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == [] and report["other_warnings"] == []
    assert report["healthy"]
    assert step_file.read_bytes() != reset_file.read_bytes()


def test_an_index_in_numbas_plain_format_is_stale_not_damaged(filled_cache, tmp_path):
    """An index that numba itself wrote (an older nbgym's) is replaced without a warning."""
    import pickle

    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [index] = list(cache_dir.rglob("kernels.step_kernel-*.nbi"))
    index.write_bytes(pickle.dumps(numba.__version__) + pickle.dumps(("an older stamp", {})))

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == []
    assert report["healthy"]


def test_an_index_naming_a_type_that_moved_is_stale(filled_cache, tmp_path):
    """An index whose keys name a type an older nbgym kept elsewhere (a state namedtuple whose module moved) is
    stale, not a crash at make: the kernels are compiled again, without a warning."""
    import hashlib
    import pickle

    from nbgym._engine.cache import _FORMAT_TAG

    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [index] = list(cache_dir.rglob("kernels.step_kernel-*.nbi"))
    payload = b"\x80\x02cnbgym.envs.box2d.bipedal_walker\nWalkerRows\n."  # the class moved to another module
    with pytest.raises(AttributeError):
        pickle.loads(payload)
    index.write_bytes(pickle.dumps(numba.__version__ + _FORMAT_TAG) + hashlib.sha256(payload).digest() + payload)

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == []
    assert report["healthy"]


def test_every_cache_file_is_checked(filled_cache):
    """No kernel (nor a function the kernels call through ``overload``) writes numba's plain, unchecked files."""
    import pickle

    from nbgym._engine.cache import _FORMAT_TAG

    source, _ = filled_cache
    indexes = list(source.rglob("*.nbi"))
    assert len(indexes) > 10
    for index in indexes:
        with open(index, "rb") as file:
            assert pickle.load(file) == numba.__version__ + _FORMAT_TAG, index


def test_a_read_only_install_caches_in_the_users_directory(filled_cache, tmp_path, read_only):
    """nbgym installed where its user cannot write: the kernels go to ``$XDG_CACHE_HOME/nbgym``, nothing is written
    beside the package, no warning."""
    _, reports = filled_cache
    site = tmp_path / "site"
    shutil.copytree(ROOT / "nbgym", site / "nbgym", ignore=shutil.ignore_patterns("__pycache__"))
    read_only(site)
    home = tmp_path / "home"
    report = finish(run(None, root=site, XDG_CACHE_HOME=str(home / ".cache"), HOME=str(home)))
    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == [] and report["healthy"]
    assert list((home / ".cache" / "nbgym").rglob("kernels.step_kernel-*.nbi"))
    assert not list(site.rglob("*.nbi"))


def test_with_no_writable_location_kernels_compile_in_memory_with_one_warning(filled_cache, tmp_path, read_only):
    """No cache directory writable (a read-only home and temporary directory): one warning, nbgym works. (Python
    skips a read-only ``TMPDIR`` for the next writable candidate: the run sets ``tempfile.tempdir`` itself.)"""
    _, reports = filled_cache
    nowhere = read_only(tmp_path / "nowhere")
    report = finish(run(None, prelude=f"import tempfile; tempfile.tempdir = {str(nowhere)!r}\n",
                        XDG_CACHE_HOME=str(nowhere), HOME=str(nowhere)))
    assert report["results"] == reports["clean"]["results"]
    assert len(report["cache_warnings"]) == 1 and "no writable directory" in report["cache_warnings"][0]


def test_a_prebuilt_read_only_cache_is_loaded(filled_cache, tmp_path, read_only):
    """``NUMBA_CACHE_DIR`` read-only (a cache built ahead and shipped): its kernels are loaded, not compiled again,
    and new ones go to the user's directory."""
    source, reports = filled_cache
    prebuilt = tmp_path / "prebuilt"
    shutil.copytree(source, prebuilt)
    read_only(prebuilt)
    home = tmp_path / "home"
    report = finish(run(prebuilt, XDG_CACHE_HOME=str(home), HOME=str(home)))
    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == [] and report["healthy"]
    assert report["step_hits"] > 0 and report["step_misses"] == 0


FULL_DISK = """
import errno
from numba.core import caching

def full(self, path):
    raise OSError(errno.ENOSPC, "No space left on device")

caching.IndexDataCacheFile._open_for_write = full
"""


def test_a_full_disk_compiles_in_memory_with_one_warning(filled_cache, tmp_path):
    """Writes failing with ENOSPC: one warning, and every make and step goes on (a 64 KiB tmpfs as root; elsewhere the
    cache's writer raises ENOSPC)."""
    _, reports = filled_cache
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = os.getuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
                                                  capture_output=True).returncode == 0
    try:
        report = finish(run(disk, prelude="" if mounted else FULL_DISK))
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=True)
    assert report["results"] == reports["clean"]["results"]
    assert len(report["cache_warnings"]) == 1, report["cache_warnings"]
    assert "No space left on device" in report["cache_warnings"][0] and "in memory" in report["cache_warnings"][0]


def test_every_compiled_function_uses_the_checked_cache():
    import importlib
    import pkgutil

    from numba.core.dispatcher import Dispatcher

    from nbgym._engine.cache import CheckedFunctionCache

    modules = ["nbgym._engine.kernels", "nbgym._engine.rng", "nbgym._engine.npmath", "nbgym._engine.atomic",
               "nbgym.wrappers.vector._kernels"]
    for package in ("nbgym.envs.classic_control", "nbgym.envs.toy_text"):
        path = importlib.import_module(package).__path__
        modules += [f"{package}.{info.name}" for info in pkgutil.iter_modules(path)]
    dispatchers = [
        value
        for name in modules
        for value in vars(importlib.import_module(name)).values()
        if isinstance(value, Dispatcher)
    ]
    assert len(dispatchers) > 20
    for dispatcher in dispatchers:
        assert isinstance(dispatcher._cache, CheckedFunctionCache), dispatcher
