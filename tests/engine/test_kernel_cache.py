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
import numpy as np
import pytest
from helpers.paths import ROOT

from nbgym.engine import _cache
from nbgym.engine._cache import PREBUILT_PROCESSORS, library_key, prebuilt_processor, runnable_processors


pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no kernel cache without the JIT")


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

from nbgym.engine._cache import CheckedFunctionCache
from nbgym.engine._kernels import step_kernel

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


def run(
    cache_dir: pathlib.Path | None, root: pathlib.Path = ROOT, prelude: str = "", **variables: str
) -> subprocess.Popen[str]:
    """Start ``RUN`` in a new process over the kernel cache ``cache_dir`` (``None``: nbgym's default location),
    importing nbgym from ``root``, with environment ``variables``."""
    environ = {**os.environ, **variables}
    environ.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", prelude + RUN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
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
    [damaged] = [path for path in cache_dir.rglob(f"_kernels.step_kernel-*{suffix}")]
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
    [step_file] = list(cache_dir.rglob("_kernels.step_kernel-*.1.nbc"))
    [reset_file] = list(cache_dir.rglob("_kernels.reset_kernel-*.1.nbc"))
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
    [index] = list(cache_dir.rglob("_kernels.step_kernel-*.nbi"))
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
    import zlib

    from nbgym.engine._cache import _FORMAT_TAG

    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [index] = list(cache_dir.rglob("_kernels.step_kernel-*.nbi"))
    payload = b"\x80\x02cnbgym.envs.box2d.bipedal_walker\nWalkerRows\n."  # the class moved to another module
    with pytest.raises(AttributeError):
        pickle.loads(payload)
    payload = zlib.compress(payload)
    index.write_bytes(pickle.dumps(numba.__version__ + _FORMAT_TAG) + hashlib.sha256(payload).digest() + payload)

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == []
    assert report["healthy"]


def test_a_data_file_naming_a_type_that_went_is_a_miss(filled_cache, tmp_path):
    """A data file whose entry names a type that no longer imports (a state namedtuple of a renamed module, whose
    twin has the same key) is a miss, not a crash at make: the kernel is compiled again and its file rewritten."""
    import hashlib
    import pickle
    import zlib

    source, reports = filled_cache
    cache_dir = tmp_path / "cache"
    shutil.copytree(source, cache_dir)
    [step_file] = list(cache_dir.rglob("_kernels.step_kernel-*.1.nbc"))
    payload = b"\x80\x02cnbgym_renamed_physics\nRows\n."  # the module that defined the state type went
    with pytest.raises(ImportError):
        pickle.loads(payload)
    payload = zlib.compress(payload)
    step_file.write_bytes(hashlib.sha256(payload).digest() + payload)

    report = finish(run(cache_dir))

    assert report["results"] == reports["clean"]["results"]
    assert report["cache_warnings"] == [] and report["other_warnings"] == []
    assert report["healthy"]
    assert step_file.read_bytes() != hashlib.sha256(payload).digest() + payload


def test_every_cache_file_is_checked(filled_cache):
    """No kernel (nor a function the kernels call through ``overload``) writes numba's plain, unchecked files."""
    import pickle

    from nbgym.engine._cache import _FORMAT_TAG

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
    assert list((home / ".cache" / "nbgym").rglob("_kernels.step_kernel-*.nbi"))
    assert not list(site.rglob("*.nbi"))


def test_with_no_writable_location_kernels_compile_in_memory_with_one_warning(filled_cache, tmp_path, read_only):
    """No cache directory writable (a read-only home and temporary directory): one warning, nbgym works. (Python
    skips a read-only ``TMPDIR`` for the next writable candidate: the run sets ``tempfile.tempdir`` itself.)"""
    _, reports = filled_cache
    nowhere = read_only(tmp_path / "nowhere")
    report = finish(
        run(
            None,
            prelude=f"import tempfile; tempfile.tempdir = {str(nowhere)!r}\n",
            XDG_CACHE_HOME=str(nowhere),
            HOME=str(nowhere),
        )
    )
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


@pytest.mark.cold  # CI's prebuilt-wheel check builds and loads a wheel's kernels as a user installs it
def test_kernels_prebuilt_into_the_package_load_in_place_of_a_compile(filled_cache, tmp_path, read_only):
    """``nbgym warmup --prebuilt`` (what ``setup.py`` runs into a wheel when ``NBGYM_PREBUILD_KERNELS`` is set): an
    install of the package holding them, in another directory, with an empty cache, compiles nothing (no file written to
    its cache) and steps exactly as kernels compiled for this processor do, with the code for the best processor level
    the machine runs and with the code for any x86-64 (``NUMBA_CPU_NAME=generic``); a process that compiles for
    another processor compiles."""
    _, reports = filled_cache
    site = tmp_path / "site"
    shutil.copytree(ROOT / "nbgym", site / "nbgym", ignore=shutil.ignore_patterns("__pycache__", "_prebuilt_kernels"))
    built = site / "nbgym" / "_prebuilt_kernels"
    environ = {**os.environ, "PYTHONPATH": str(site)}
    environ.pop("NUMBA_CPU_NAME", None)
    command = [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", str(built), "CartPole-v1"]
    subprocess.run(command, env=environ, check=True, cwd=tmp_path, capture_output=True)
    assert list(built.glob("engine/_kernels.step_kernel-*.nbi"))
    assert {path.suffix for path in built.rglob("*") if path.is_file()} == {".nbi", ".nbc", ".json"}

    installed = tmp_path / "installed"
    shutil.copytree(site, installed)  # another directory: the prebuilt files name none
    read_only(installed)
    for processor in ({}, {"NUMBA_CPU_NAME": "generic"}):
        empty = tmp_path / f"cache-{len(processor)}"
        report = finish(run(empty, root=installed, **processor))
        assert report["results"] == reports["clean"]["results"]
        assert report["cache_warnings"] == [] and report["other_warnings"] == []
        assert report["step_hits"] > 0 and report["step_misses"] == 0
        assert not [path for path in empty.rglob("*") if path.suffix in (".nbi", ".nbc")]
    report = finish(run(tmp_path / "cache-other", root=installed, NUMBA_CPU_NAME="x86-64-v2"))
    assert report["results"] == reports["clean"]["results"]
    assert report["step_hits"] == 0 and report["step_misses"] > 0

    # What the manifest says they were built for; another MuJoCo, or none, does not matter to CartPole's kernels (they
    # hold nothing of MuJoCo's); another numpy minor release does, and the process says why it compiles.
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["numpy"] == ".".join(np.__version__.split(".")[:2]) and manifest["numba"] == numba.__version__
    assert manifest["levels"] == runnable_processors() and manifest["ids"] == ["CartPole-v1"]
    no_mujoco = "from nbgym.engine import _cache\n_cache.installed_version = lambda name: None\n"
    report = finish(run(tmp_path / "cache-no-mujoco", root=installed, prelude=no_mujoco))
    assert report["results"] == reports["clean"]["results"]
    assert report["step_hits"] > 0 and report["step_misses"] == 0
    other_numpy = "import numba.np.numpy_support as support\nsupport.numpy_version = (2, 99)\n"
    process = run(tmp_path / "cache-other-numpy", root=installed, prelude=other_numpy)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    report = json.loads(out)
    assert report["results"] == reports["clean"]["results"]
    assert report["step_hits"] == 0 and report["step_misses"] > 0
    assert f"do not fit this process: numpy 2.99 (built for {manifest['numpy']})" in err

    # Another nbgym (one file of the package changed): its kernels are compiled, the prebuilt ones not loaded.
    changed = tmp_path / "changed"
    shutil.copytree(site, changed)
    with open(changed / "nbgym" / "engine" / "_kernels.py", "a") as file:
        file.write("\n# changed\n")
    report = finish(run(tmp_path / "cache-changed", root=changed))
    assert report["results"] == reports["clean"]["results"]
    assert report["step_hits"] == 0 and report["step_misses"] > 0


def test_a_prebuilt_cache_reuses_the_kernels_a_run_for_its_level_compiled(filled_cache, tmp_path):
    """``--reuse`` (``NBGYM_PREBUILD_REUSE``): a cache filled for a processor level (``NUMBA_CPU_NAME=generic``, as CI's
    3.12 pass fills one) gives the prebuilt cache its kernels, copied, not compiled again; they load and step exactly
    as compiled ones."""
    _, reports = filled_cache
    site = tmp_path / "site"
    shutil.copytree(ROOT / "nbgym", site / "nbgym", ignore=shutil.ignore_patterns("__pycache__", "_prebuilt_kernels"))
    environ = {**os.environ, "PYTHONPATH": str(site), "NUMBA_CACHE_DIR": str(tmp_path / "level-cache")}
    environ.pop("NUMBA_CPU_FEATURES", None)
    command = [sys.executable, "-m", "nbgym", "warmup", "CartPole-v1"]
    subprocess.run(command, env={**environ, "NUMBA_CPU_NAME": "generic"}, check=True, cwd=tmp_path, capture_output=True)
    built = site / "nbgym" / "_prebuilt_kernels"
    command = [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", str(built), "--levels", "generic", "--reuse"]
    result = subprocess.run(
        [*command, environ["NUMBA_CACHE_DIR"], "CartPole-v1"], env=environ, cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    copied = int(result.stdout.split(" kernels copied from ")[0].split()[-1])
    assert copied > 0 and result.stdout.rstrip().endswith(", 0 compiled")
    assert json.loads((built / "manifest.json").read_text())["levels"] == ["generic"]
    empty = tmp_path / "empty-cache"
    report = finish(run(empty, root=site))  # no NUMBA_CPU_NAME: the manifest's only level loads
    assert report["results"] == reports["clean"]["results"]
    assert report["step_hits"] > 0 and report["step_misses"] == 0
    assert not [path for path in empty.rglob("*") if path.suffix in (".nbi", ".nbc")]


AVX512_HOST = dict.fromkeys(PREBUILT_PROCESSORS["x86-64-v4"] | {"64bit", "cmov", "aes"}, True)


@pytest.mark.parametrize(
    ("features", "built", "expected"),
    [
        (None, list(PREBUILT_PROCESSORS), "x86-64-v4"),
        ("-avx512f", list(PREBUILT_PROCESSORS), "x86-64-v3"),
        ("+avx2,-avx512vl", list(PREBUILT_PROCESSORS), "x86-64-v3"),
        ("-avx2", list(PREBUILT_PROCESSORS), "generic"),
        ("-sse2", list(PREBUILT_PROCESSORS), None),
        ("-avx512vnni", list(PREBUILT_PROCESSORS), "x86-64-v4"),  # not a feature of any level's code
        (None, ["x86-64-v3", "generic"], "x86-64-v3"),
        (None, ["generic"], "generic"),
        ("-avx512f", ["x86-64-v4"], None),
    ],
)
def test_the_prebuilt_level_is_the_best_the_effective_features_allow(monkeypatch, features, built, expected):
    """The level of prebuilt kernels a process loads, without ``NUMBA_CPU_NAME``: the best the package holds whose
    features the process's own code may use (numba compiles with the host's features less those ``NUMBA_CPU_FEATURES``
    turns off), so that turning a feature off never loads code that uses it."""
    import llvmlite.binding

    monkeypatch.setattr(llvmlite.binding, "get_host_cpu_features", lambda: AVX512_HOST)
    monkeypatch.setattr(numba.config, "CPU_NAME", None)
    monkeypatch.setattr(numba.config, "CPU_FEATURES", features)
    monkeypatch.setattr(_cache, "prebuilt_manifest", lambda: {"levels": built})
    prebuilt_processor.cache_clear()
    try:
        assert prebuilt_processor() == expected
    finally:
        prebuilt_processor.cache_clear()


AVX2_HOST = dict.fromkeys(PREBUILT_PROCESSORS["x86-64-v3"] | {"64bit", "cmov", "aes"}, True)


@pytest.mark.parametrize(
    ("host", "name", "features", "expected"),
    [
        (AVX512_HOST, None, None, 16),
        (AVX2_HOST, None, None, 8),
        (AVX512_HOST, None, "-avx512f", 8),
        (AVX2_HOST, "x86-64-v4", "", 16),  # the prebuilt build of the AVX-512 level, on any host
        (AVX512_HOST, "x86-64-v3", "", 8),
        (AVX512_HOST, "x86-64-v3", "+avx512f", 16),
        (AVX512_HOST, "generic", "", 8),  # NUMBA_CPU_NAME=generic sets NUMBA_CPU_FEATURES empty
        (AVX2_HOST, "x86-64-v4", None, 8),  # numba then passes the host's features with the name
        (AVX2_HOST, "znver2", "", 16),  # features only LLVM knows: the widest, as before the width was chosen
    ],
)
def test_box2d_vectors_are_one_register_of_the_processor_numba_compiles_for(
    monkeypatch, host, name, features, expected
):
    """``simd.LANES``, the worlds the Box2D port solves in one vector and a thread's claim: 16 where numba's code may
    use AVX-512, else 8, by the features numba passes LLVM (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``). (An env
    pickled where the other width runs steps the same: ``test_box2d_lunar_lander.py``.)"""
    import llvmlite.binding

    from nbgym._box2d import simd

    monkeypatch.setattr(llvmlite.binding, "get_host_cpu_features", lambda: host)
    monkeypatch.setattr(numba.config, "CPU_NAME", name)
    monkeypatch.setattr(numba.config, "CPU_FEATURES", features)
    assert simd._lanes() == expected


def test_a_kernel_is_keyed_by_the_libraries_whose_values_it_holds():
    """numpy's minor release keys every kernel (numba reads no more of numpy's version); MuJoCo's version only the
    kernels that call libmujoco, and those of code outside nbgym, which nbgym cannot see into."""
    numpy_minor = ("numpy", tuple(int(part) for part in np.__version__.split(".")[:2]))
    for families in ({"classic_control"}, {"box2d"}, {"toy_text"}, set()):
        assert library_key(frozenset(families)) == (numpy_minor,)
    mujoco = ("mujoco", _cache.installed_version("mujoco"))
    assert library_key(frozenset({"mujoco"})) == (numpy_minor, mujoco)
    assert library_key(frozenset({_cache.OUTSIDE})) == (numpy_minor, mujoco)


KILLED_WRITER = """
import time
from nbgym.engine import _cache

def hanging(self, name, data):  # a writer killed halfway through a kernel's file
    with self._open_for_write(self._data_path(name)) as file:
        file.write(b"half a kernel")
        file.flush()
        print("WRITING", flush=True)
        time.sleep(600)

_cache._CheckedCacheFile._save_data = hanging
"""


def test_a_writer_killed_while_writing_leaves_no_temporary_behind(filled_cache, tmp_path):
    """A process killed (SIGKILL) while it writes a cache file leaves its temporary file; the next process that writes
    in that directory removes it (its writer no longer runs), and the kernels load and step as they should. A live
    writer's temporary, and one of numba's own naming written less than an hour ago, are left alone."""
    _, reports = filled_cache
    cache = tmp_path / "cache"
    writer = run(cache, prelude=KILLED_WRITER)
    assert writer.stdout.readline().strip() == "WRITING", writer.stderr.read()
    writer.kill()
    writer.communicate()
    left = [path for path in cache.rglob("*") if ".tmp." in path.name]
    assert len(left) == 1 and f".tmp.{_cache._HOST}-{writer.pid}." in left[0].name
    directory = left[0].parent
    live = directory / f"other.nbc.tmp.{_cache._HOST}-{os.getpid()}.0123456789abcdef"
    recent, old = directory / "recent.nbc.tmp.0123456789abcdef", directory / "old.nbc.tmp.fedcba9876543210"
    for path in (live, recent, old):
        path.write_bytes(b"partial")
    os.utime(old, (0, os.stat(old).st_mtime - _cache.STALE_TEMPORARY_SECONDS - 60))

    report = finish(run(cache))
    assert report["results"] == reports["clean"]["results"] and report["cache_warnings"] == []
    remaining = sorted(path.name for path in cache.rglob("*") if ".tmp." in path.name)
    assert remaining == sorted([live.name, recent.name])
    report = finish(run(cache))
    assert report["step_hits"] > 0 and report["step_misses"] == 0


def test_warmup_removes_the_temporaries_of_killed_writers(tmp_path):
    """``nbgym warmup`` sweeps the whole cache, say so, even where it writes nothing."""
    directory = tmp_path / "cache" / "somewhere_0123"
    directory.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = directory / f"f-1.py311.nbi.tmp.{_cache._HOST}-{dead.stdout.strip()}.0123456789abcdef"
    stale.write_bytes(b"partial")
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-m", "nbgym", "warmup", "Blackjack-v1"], env=environ, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "removed 1 partly written file of killed writers" in result.stdout and not stale.exists()


def test_a_prebuilt_cache_is_built_only_into_a_directory_of_kernels(tmp_path):
    """``--prebuilt`` empties its directory first: one holding anything but cache files is refused, before compiling."""
    (tmp_path / "notes.txt").write_text("mine")
    result = subprocess.run(
        [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", str(tmp_path), "CartPole-v1"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2 and "holds files other than compiled kernels" in result.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"


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
    mounted = (
        os.getuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True
        ).returncode
        == 0
    )
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

    from nbgym.engine._cache import CheckedFunctionCache

    modules = [
        "nbgym.engine._kernels",
        "nbgym.engine.rng",
        "nbgym.engine.npmath",
        "nbgym.engine.atomic",
        "nbgym.wrappers.vector._kernels",
    ]
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


BORROWING_PROBE = """
import json, sys
from numba.core import base, targetconfig

compiled = []
original = base.BaseContext._compile_subroutine_no_cache


def recording(self, builder, impl, sig, locals=None, flags=None):
    if flags is not None:
        counts_references = bool(flags.nrt)
    else:  # numba's rule: the flags of the function being compiled, whose body calls this subroutine
        stack = targetconfig.ConfigStack()
        counts_references = bool(stack) and stack.top().is_set("nrt") and bool(stack.top().nrt)
    compiled.append((impl.__qualname__, str(sig.return_type), counts_references,
                     self.data_model_manager[sig.return_type].has_nrt_meminfo()))
    return original(self, builder, impl, sig, locals=locals, flags=flags)


base.BaseContext._compile_subroutine_no_cache = recording
import nbgym

for env_id in ("LunarLander-v3", "BipedalWalker-v3"):  # their steps and observations borrow the state too
    envs = nbgym.make_vec(env_id, 2)
    envs.reset(seed=0)
    envs.step(envs.action_space.sample())
print(json.dumps(compiled))
"""


@pytest.mark.cold  # two Box2D families from an empty cache: minutes
@pytest.mark.jit_only
def test_no_subroutine_that_returns_a_counted_value_is_compiled_inside_a_borrowing_kernel(tmp_path):
    """numba keeps the internal subroutines it compiles (``BaseContext.cached_internal_func``) under a key without
    the reference-counting flag. One first compiled inside a ``borrowing_kernel`` (no NRT) and returning an array
    would hand its later callers with reference counting a reference they did not get, and they would free the
    array under its owner. Compiles the Box2D port's kernels from a cold cache and checks that none is."""
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", BORROWING_PROBE], capture_output=True, text=True, env=environ, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    compiled = json.loads(result.stdout.strip().splitlines()[-1])
    assert compiled, "no subroutine compiled: the probe saw nothing (a warm cache, or numba no longer uses them)"
    unsafe = [
        (name, returns) for name, returns, counts_references, counted in compiled if counted and not counts_references
    ]
    assert not unsafe, f"subroutines returning counted values compiled without reference counting: {unsafe}"


COLLIDING_MODULE = """
import numpy as np
from numba import njit


@njit(cache=True)
def f(x):
    total = 0.0
    for k in range(x.shape[0]):
        total += np.sin(x[k]) * 1.0 + k
    return total


@njit(cache=True)
def h(x):
    return f(x) * 10.0
"""

COLLIDING_READER = """
import importlib.util, sys
import numpy as np
if {with_nbgym}:
    import nbgym.engine._jit  # noqa: F401  (what making any nbgym env imports)
from numba import njit


def load(path):
    spec = importlib.util.spec_from_file_location("probe", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["probe"] = module
    spec.loader.exec_module(module)
    return module


own = load({own!r})
for _ in range({padding}):  # takes the counter's values that the writer gave h (and what came before)
    njit(lambda x: x)(1.0)
own.f(np.arange(5.0))  # this process's own body of probe.f, compiled under the writer's number for its own
print(load({written!r}).h(np.arange(5.0)))
"""


def test_code_loaded_from_another_process_calls_its_own_functions_not_this_ones(tmp_path):
    """Two processes that compile one function name with different bodies at the same count of numba's symbol
    counter give both the same symbol; the process that loads the other's cached code then runs its own body in
    the loaded code's place (numba issue 10486). nbgym makes the ids unique to the process
    (``cache.ProcessUniqueIds``). Here a cached ``h`` calling ``f`` is loaded by a process that has compiled another
    module's ``f`` (same module name, other body) first: with nbgym imported, ``h`` gives its own result."""
    written, own = tmp_path / "written", tmp_path / "own"
    written.mkdir()
    own.mkdir()
    (written / "probe.py").write_text(COLLIDING_MODULE)
    # The reader's own module is not cached: each reader compiles its f anew.
    (own / "probe.py").write_text(
        COLLIDING_MODULE.replace("* 1.0 + k", "* 2.0 - k").replace("cache=True", "cache=False")
    )
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    writer = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(written)!r}); import numpy as np, "
            "probe; print(probe.h(np.arange(5.0)))",
        ],
        capture_output=True,
        text=True,
        env=environ,
    )
    assert writer.returncode == 0, writer.stderr[-2000:]
    expected = float(writer.stdout.split()[-1])

    def read(with_nbgym: bool, padding: int) -> float:
        script = COLLIDING_READER.format(
            with_nbgym=with_nbgym, own=str(own / "probe.py"), written=str(written / "probe.py"), padding=padding
        )
        reader = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environ)
        assert reader.returncode == 0, reader.stderr[-2000:]
        return float(reader.stdout.split()[-1])

    paddings = range(4)  # numba versions may number differently before f: try the counts around the writer's
    assert [read(True, padding) for padding in paddings] == [expected] * len(paddings)
    # Without nbgym the hazard shows (on the numba versions seen): the test above can fail.
    without = [read(False, padding) for padding in paddings]
    assert any(value != expected for value in without) or numba.version_info[:2] > (0, 68), without


def test_a_forked_child_numbers_its_functions_apart_from_its_parent_and_its_siblings():
    """A forked child would carry on its parent's counter, as each of its siblings does, and give their next
    functions the same ids: ``ProcessUniqueIds`` draws its random bits again in the child."""
    import warnings

    from numba.core.bytecode import FunctionIdentity

    from nbgym.engine._cache import ProcessUniqueIds

    ids = FunctionIdentity._unique_ids
    assert isinstance(ids, ProcessUniqueIds)
    drawn = []
    for _ in range(2):
        read, write = os.pipe()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # forking a process with threads
            pid = os.fork()
        if pid == 0:
            os.write(write, str(next(ids)).encode())
            os._exit(0)
        os.close(write)
        drawn.append(int(os.read(read, 64)))
        os.close(read)
        os.waitpid(pid, 0)
    parent = next(ids)
    assert len({value >> 32 for value in (*drawn, parent)}) == 3, (drawn, parent)
    assert all(value & 0xFFFFFFFF > 0 for value in (*drawn, parent))


CALLEE = """
from nbgym.engine._jit import kernel


@kernel
def value():
    return {value}
"""

CALLER = """
from nbgym.engine._jit import kernel
from {package} import _probe_callee


@kernel
def caller():
    return _probe_callee.value() + 0.5
"""


@pytest.mark.parametrize(
    "caller_module, callee_package",
    [
        ("nbgym._probe_caller", "nbgym"),  # nbgym's own code calling the rest of the package
        ("_probe_caller", "nbgym.envs.classic_control"),  # a user's kernel calling a family's (as a custom env may)
    ],
    ids=["inside", "outside"],
)
def test_a_kernel_is_compiled_again_when_an_nbgym_module_it_calls_changes(tmp_path, caller_module, callee_package):
    """numba keys a cached kernel by its own file, not by the files of the functions compiled into it: after an edit
    (or an upgrade) of a module it calls, it would load the old code. nbgym keys its kernels by every file of the
    package but other families' (``cache.source_digest``), and a kernel outside nbgym by every file: here a caller
    whose file is untouched gives the callee's new value."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "nbgym", root / "nbgym", ignore=shutil.ignore_patterns("__pycache__"))
    root.joinpath(*caller_module.split(".")).with_suffix(".py").write_text(CALLER.format(package=callee_package))
    # No bytecode files: Python keys one by its source's mtime (whole seconds) and size, and the edits below keep the
    # size within a second, so the callee's old bytecode could be run (a flake seen in the suite).
    environ = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
    }

    def caller_gives(value: float) -> float:
        callee = root.joinpath(*callee_package.split("."), "_probe_callee.py")
        callee.write_text(CALLEE.format(value=value))
        done = subprocess.run(
            [sys.executable, "-c", f"import {caller_module} as probe; print(probe.caller())"],
            capture_output=True,
            text=True,
            env=environ,
            cwd="/",
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return float(done.stdout.split()[-1])

    assert caller_gives(1.0) == 1.5
    assert caller_gives(2.0) == 2.5
    assert caller_gives(1.0) == 1.5


def _imported_modules(path: pathlib.Path) -> set[str]:
    """Every module a source file imports, anywhere in it (``from a import b`` gives ``a`` and ``a.b``)."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_env_family_imports_another():
    """A kernel's cache key holds its own family's files and the rest of the package's, not the other families'
    (``cache.FAMILIES``): that is sound only while no family's code, nor compiled code outside them, reaches another's."""
    from nbgym.engine._cache import FAMILIES, family_of

    package = ROOT / "nbgym"
    crossing = []
    for path in sorted(package.rglob("*.py")):
        family = family_of(str(path))
        if family is None and not any(mark in path.read_text() for mark in ("@kernel", "@njit", "@borrowing_kernel")):
            continue  # nbgym's other files may use the families (the registry, the CLI), but not in compiled code
        for module in _imported_modules(path):
            if not module.startswith("nbgym."):
                continue
            target = package.parent.joinpath(*module.split("."))
            for candidate in (target.with_suffix(".py"), target / "__init__.py"):
                other = family_of(str(candidate)) if candidate.exists() else None
                if other is not None and other != family:
                    crossing.append(f"{path.relative_to(package)} imports {module} ({other})")
    assert sorted(FAMILIES) == ["box2d", "classic_control", "mujoco", "toy_text"]
    assert not crossing, "\n".join(crossing)


def test_an_edit_of_one_family_keeps_the_other_families_cached_kernels(tmp_path):
    """An upgrade or edit that touches Box2D does not compile CartPole's kernels again; one that touches classic
    control does."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "nbgym", root / "nbgym", ignore=shutil.ignore_patterns("__pycache__"))
    environ = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    probe = (
        "import nbgym; from nbgym.engine import _batch as batch; e = nbgym.make('CartPole-v1'); e.reset(seed=0); e.step(1); "
        "print(batch._cache_misses((batch.reset_kernel, batch.step_kernel)))"
    )

    def compiled_after(edited: str | None) -> int:
        if edited is not None:
            with open(root / "nbgym" / edited, "a") as file:
                file.write("\n# an edit\n")
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=environ, cwd="/")
        assert done.returncode == 0, done.stderr[-2000:]
        return int(done.stdout.split()[-1])

    assert compiled_after(None) > 0
    assert compiled_after("envs/box2d/car_racing/env.py") == 0
    assert compiled_after("envs/mujoco/ant_v5.py") == 0
    assert compiled_after("envs/classic_control/acrobot.py") > 0
    assert compiled_after("envs/toy_text/taxi.py") == 0
    assert compiled_after("spaces/box.py") > 0  # the rest of the package is in every kernel's key
