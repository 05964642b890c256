"""numba's disk cache for nbgym's kernels: where it is, what its key holds, and damaged entries recompiled.

Where: ``NUMBA_CACHE_DIR`` when it is set and writable; when it is set but read-only, it is read as a
prebuilt cache and new kernels go to the per-user directory; the per-user directory is
``$XDG_CACHE_HOME/nbgym`` (``~/.cache/nbgym``), or ``<tmp>/nbgym-cache-<uid>`` when that is not writable
(``locations``). Never beside the installed package, which may be read-only. With no writable directory,
or when writing fails (a full disk), kernels are compiled in memory: one ``KernelCacheWarning``, and
nbgym keeps working.

numba keeps each compiled function in an index file (``.nbi``: numba's version, then a pickle of the
source stamp and of the data file of each signature) and one data file per signature (``.nbc``: a
pickle of the compiled code). A process killed while writing, or a full disk, can leave either file
truncated or partly written, and numba's own loader then fails in every later process
(``EOFError``, ``UnpicklingError``, an LLVM parsing error) until someone deletes the cache by hand; a
damaged byte inside the object code could even be linked and run.

``CheckedFunctionCache`` writes a SHA-256 digest in front of every pickle and checks it before
unpickling. A file whose digest does not match is treated as a missing entry: numba compiles the
function again and its save replaces the file. Each damaged file is reported once per process with
a ``KernelCacheWarning`` naming it. The index carries its own format tag after numba's version, so
files in numba's plain format (an older nbgym) are ignored as stale, not reported as damaged.

A cache shared by processes also shares machine code between them, and numba names a compiled function's
symbol by its module, name, argument types and a per-process counter: two processes can give one symbol
name to two different bodies, and a process that loads the other's code then calls its own body in its place
(numba issue 10486). ``ProcessUniqueIds`` makes the counter's values unique to the process.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import glob
import hashlib
import importlib.metadata
import itertools
import json
import os
import pathlib
import pickle
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from typing import Any, Callable, Iterator

import numba
from numba.core.bytecode import FunctionIdentity
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
    _SourceFileBackedLocatorMixin,
)

from nbgym import logger
from nbgym.engine import _interrupts
from nbgym.error import KernelCacheWarning

_DIGEST_SIZE = hashlib.sha256().digest_size
# Older indexes: full keys, code named after the plain counter, or uncompressed files.
_FORMAT_TAG = "+nbgym-sha256-keyed-unique-ids-text-index-zlib"
_reported: set[str] = set()
_unwritable: list[str] = []
"""The cache directory that could not be written in this process, if any: nbgym writes no more cache files."""


class ProcessUniqueIds:
    """numba's source of the ids that make compiled functions' symbol names unique, unique across processes too.

    numba names the symbol of each function it compiles after the function's module, name and argument types and
    an id from a counter that starts at 1 in every process (``FunctionIdentity._unique_ids``). A process that loads
    a kernel from the cache links in the code another process compiled, under that process's names, beside the
    code it compiled itself. When the two processes gave one name to two different bodies (one function of a module
    that differs between them, compiled at the same count), the linker keeps one body and the loaded kernel calls
    the wrong one: demonstrated by a test (wrong results), and the kind of fault that made a MountainCar kernel step
    to infinity and corrupt the heap in CI's two-worker pass. These ids are the counter's value plus 64 random bits,
    drawn again in a forked child (which would otherwise carry on its parent's sequence, as its siblings do).
    """

    def __init__(self) -> None:
        self._count = itertools.count(1)
        self._salt = 0
        self.draw_salt()
        os.register_at_fork(after_in_child=self.draw_salt)

    def draw_salt(self) -> None:
        """Draws the random high bits anew (in a new process)."""
        self._salt = secrets.randbits(64) << 32

    def __iter__(self) -> ProcessUniqueIds:
        return self

    def __next__(self) -> int:
        return self._salt | next(self._count)


def _install_process_unique_ids() -> None:
    if not isinstance(getattr(FunctionIdentity, "_unique_ids", None), ProcessUniqueIds):
        FunctionIdentity._unique_ids = ProcessUniqueIds()


_install_process_unique_ids()


def _writable(directory: pathlib.Path, private: bool = False) -> bool:
    """Whether files can be created in ``directory`` (created if missing); ``private``: only if it is the user's own
    and no one else may write it (a directory in the shared temporary directory)."""
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        if private:
            info = directory.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
                return False
        tempfile.TemporaryFile(dir=directory).close()
        return True
    except OSError:
        return False


@functools.lru_cache(maxsize=None)
def locations() -> tuple[str | None, tuple[str, ...]]:
    """Where nbgym's kernels are cached in this process: the directory written (``None``: none is writable,
    kernels are compiled in memory) and the directories read, in order (a prebuilt read-only cache first).

    A cache directory must be as trusted as nbgym's code: the kernels loaded from it run as machine code. The
    digests of its files detect damage (a full disk, a killed process), not an attacker who can write there.
    """
    building = os.environ.get(_BUILDING_PREBUILT)
    if building:
        return building, (building,)
    read: list[str] = []
    configured = numba.config.CACHE_DIR
    if configured:
        if _writable(pathlib.Path(configured)):
            return configured, (configured,)
        read.append(configured)  # read-only: a prebuilt cache
    user = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "nbgym"
    fallback = pathlib.Path(tempfile.gettempdir()) / f"nbgym-cache-{os.getuid() if hasattr(os, 'getuid') else 0}"
    for directory, private in ((user, False), (fallback, True)):
        if _writable(directory, private):
            return str(directory), (*read, str(directory))
    logger.warn(
        "nbgym found no writable directory for its compiled-kernel cache (tried %s): it compiles the kernels in memory, "
        "in every process. Set NUMBA_CACHE_DIR to a writable directory to keep them.",
        ", ".join([*read, str(user), str(fallback)]),
        category=KernelCacheWarning,
        stacklevel=2,
    )
    return None, tuple(read)


def describe() -> str:
    """Where the kernels are cached, in words (for ``nbgym warmup``)."""
    written, read = locations()
    if written is None:
        where = "nowhere: no cache directory is writable, kernels are compiled in memory in each process"
    else:
        where = written
    prebuilt = [directory for directory in read if directory != written]
    if prebuilt:
        where += f"; read first: {', '.join(prebuilt)} (read-only)"
    return where


class _Locator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """The cache files of a function under one of ``locations()``'s directories: a subdirectory named after the
    absolute path of its file's directory (numba's layout), or, when building a prebuilt cache, the directory's path
    inside nbgym (``package_subpath``), which holds wherever nbgym is installed."""

    def __init__(self, py_func: Callable, py_file: str, directory: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        subpath = package_subpath(py_file) if os.environ.get(_BUILDING_PREBUILT) else None
        self._cache_path = os.path.join(directory, subpath or self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        """The SHA-256 of the file's content (numba 0.68's stamp; older numba stamps with the modification time, which
        an installed copy of a prebuilt cache's files does not keep)."""
        info = os.stat(self._py_file)
        return _content_digest(self._py_file, info.st_mtime_ns, info.st_size)

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> _Locator:
        written, read = locations()
        directory = written or (read[0] if read else os.path.join(tempfile.gettempdir(), "nbgym-cache-unwritable"))
        return cls(py_func, py_file, directory)


@functools.lru_cache(maxsize=None)
def _content_digest(path: str, mtime_ns: int, size: int) -> str:
    """The SHA-256 of a file's content, read again when its modification time or size changes."""
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def package_subpath(py_file: str) -> str | None:
    """The path of ``py_file``'s directory inside nbgym (``envs/box2d``), ``"."`` for the package's own directory;
    ``None`` for a file outside nbgym (a user's physics)."""
    relative = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _PACKAGE_ROOT)
    return None if relative == os.pardir or relative.startswith(os.pardir + os.sep) else relative


class _CacheImpl(CompileResultCacheImpl):
    _locator_classes = [_Locator]


COMPILE_NOTICE_SECONDS = 1.0
"""A compile of a ``make``/``make_vec`` that takes longer than this is explained to the user, once per process."""
_compile_noticed = False
_quiet = False
"""Whether this process gives no compile notices at all (``skip_compile_notice``)."""
_compiling = threading.local()
"""What the ``compiling()`` context of this thread compiles (``what``), until a cache miss has announced it, and whether
it holds a compile lock (``locked``)."""


class _CheckedCacheFile(IndexDataCacheFile):
    """numba's index and data files with a digest in front of each pickle, checked on every load."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._version = numba.__version__ + _FORMAT_TAG

    def _dump(self, obj: Any) -> bytes:
        # Compressed: machine code and LLVM bitcode shrink ~2.3x (the cache of every environment from 106 MB to 46 MB),
        # for a few milliseconds per loaded kernel.
        payload = zlib.compress(super()._dump(obj), 1)
        return hashlib.sha256(payload).digest() + payload

    @contextlib.contextmanager
    def _open_for_write(self, filepath: str) -> Iterator[Any]:
        """numba's write of a cache file (a temporary file, renamed over ``filepath`` once written), with the writer's
        host and process in the temporary's name, so that another process can tell one left by a killed writer
        (``sweep_temporaries``); first, once per directory and process, the temporaries of dead writers are removed."""
        sweep_temporaries(os.path.dirname(filepath))
        temporary = f"{filepath}{_TEMPORARY}{_HOST}-{os.getpid()}.{secrets.token_hex(8)}"
        try:
            with open(temporary, "wb") as file:
                yield file
            os.replace(temporary, filepath)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise

    def _load_index(self) -> dict:
        try:
            with open(self._index_path, "rb") as file:
                version = pickle.load(file)
                data = file.read()
        except FileNotFoundError:
            return {}
        except Exception:  # noqa: BLE001 - unpickling damaged bytes can raise almost any exception type
            _report_damaged(self._index_path)
            return {}
        if version != self._version:
            return {}  # another numba, or numba's plain format: stale, numba's save replaces it
        payload = _verified(data, self._index_path)
        if payload is None:
            return {}
        try:
            stamp, overloads = pickle.loads(zlib.decompress(payload))
        except (AttributeError, ImportError):
            # An entry's key names a type that moved or went (a state namedtuple of an older nbgym, say): the index is
            # stale, and the entries that still load would be compiled again at the next save, which replaces it.
            return {}
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name: str) -> Any:
        path = self._data_path(name)
        with open(path, "rb") as file:
            payload = _verified(file.read(), path)
        return None if payload is None else pickle.loads(zlib.decompress(payload))

    # numba numbers a new entry's data file after the entries of the index it has read. Two processes that add
    # different kernels at once (pytest's workers, a training script's runners, each compiling into a fresh cache)
    # both write ``<base>.3.nbc``, and the index that survives may name the file holding the other kernel's
    # machine code: that kernel then runs in place of the right one (garbage results, crashes). So each data
    # file holds its key beside the compiled code, and a file holding another key is a miss: the kernel is
    # compiled again and its file rewritten.

    #
    # The index names each entry by its key with the signature as text (``_index_entry``): unpickling numba's types
    # imports the modules that define them, and the engine's kernels are shared by every environment, so reading
    # their full keys imported every environment cached so far (CartPole's first step imported BipedalWalker's
    # physics). Two signatures with one text share an entry; the data file's full key tells them apart.

    @staticmethod
    def _index_entry(key: Any) -> tuple:
        signature, *rest = key
        return (str(signature), *rest)

    def save(self, key: Any, data: Any) -> None:
        """Saves ``data`` under ``key``: its entry added to the index, which is read and written again under the cache's
        index lock, so that two processes that add entries at once (compiling different groups:
        ``compiling``) neither drop each other's entry nor name one data file for two (which the key held in the
        file would catch, at the cost of a compile)."""
        with _held_lock("index"):  # a few milliseconds, one process at a time
            overloads = self._load_index()
            entry = self._index_entry(key)
            data_name = overloads.get(entry)
            if data_name is None:
                existing = set(overloads.values())
                data_name = next(name for name in map(self._data_name, itertools.count(1)) if name not in existing)
                overloads[entry] = data_name
                self._save_index(overloads)
        self._save_data(data_name, (key, data))

    def load(self, key: Any) -> Any:
        data_name = self._load_index().get(self._index_entry(key))
        if data_name is None:
            return None
        try:
            entry = self._load_data(data_name)
        except OSError:  # removed while the index still names it
            return None
        except (AttributeError, ImportError):
            # The entry names a type whose module went or moved (a state namedtuple's, whose twin in another module has
            # the same key: a renamed physics module, say): a miss, compiled again and its file rewritten.
            return None
        if entry is None or entry[0] != key:  # damaged (reported), or another kernel's file
            return None
        return entry[1]


_TEMPORARY = ".tmp."
"""What names a cache file being written: ``<file>.tmp.<host>-<pid>.<random>`` (nbgym's), ``<file>.tmp.<random>``
(numba's own, an older nbgym's)."""
_HOST = socket.gethostname().replace(".", "_")
STALE_TEMPORARY_SECONDS = 3600.0
"""A temporary cache file that has not been written for this long is a killed writer's, whatever its name says (a
writer writes its file in one go, in milliseconds)."""
_swept: set[str] = set()


def sweep_temporaries(directory: str) -> list[str]:
    """Removes the temporary files that writers killed while writing left in the cache directory ``directory`` (once
    per directory and process; ``nbgym warmup`` sweeps the whole cache). A temporary is stale when its writer, named by
    its host and process id, is a process of this host that no longer runs, or when it has not been written for
    ``STALE_TEMPORARY_SECONDS`` (another host's, or one named by numba). A live writer's file is left alone.

    Returns:
        The paths removed.
    """
    if directory in _swept:
        return []
    _swept.add(directory)
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        base, found, tail = name.partition(_TEMPORARY)
        if not found or not base.endswith((".nbi", ".nbc")):
            continue
        path = os.path.join(directory, name)
        writer_host, _, pid = tail.partition(".")[0].rpartition("-")
        if writer_host == _HOST and pid.isdigit():
            stale = not _process_runs(int(pid))
        else:
            try:
                stale = now - os.stat(path).st_mtime > STALE_TEMPORARY_SECONDS
            except OSError:
                continue
        if stale:
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(path)
    return removed


def _process_runs(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it runs
        return True
    return True


def sweep_cache() -> list[str]:
    """Removes killed writers' temporaries from every directory of the written cache (``sweep_temporaries``)."""
    written, _ = locations()
    if written is None:
        return []
    removed = []
    for directory, _, _ in os.walk(written):
        removed += sweep_temporaries(directory)
    return removed


def compile_options() -> tuple:
    """The process-wide numba settings that change the code numba compiles (its environment variables
    ``NUMBA_BOUNDSCHECK``, ``NUMBA_OPT``, ``NUMBA_LOOP_VECTORIZE``, ``NUMBA_SLP_VECTORIZE``, ``NUMBA_DEBUGINFO``,
    ``NUMBA_ENABLE_AVX``, ``NUMBA_DISABLE_INTEL_SVML``, ``NUMBA_EXTEND_VARIABLE_LIFETIMES``). numba's own key holds the
    signature, the CPU and the bytecode, not these: a kernel compiled without bounds checks would be loaded
    under ``NUMBA_BOUNDSCHECK=1``."""
    config = numba.config
    names = (
        "BOUNDSCHECK",
        "OPT",
        "LOOP_VECTORIZE",
        "SLP_VECTORIZE",
        "DEBUGINFO_DEFAULT",
        "ENABLE_AVX",
        "DISABLE_INTEL_SVML",
        "EXTEND_VARIABLE_LIFETIMES",
    )
    return tuple((name, str(getattr(config, name, None))) for name in names)


OUTSIDE = "<outside nbgym>"
"""The pseudo-family of a kernel that compiles in code from outside nbgym (a user's physics): nbgym cannot tell what
such code holds, so its key holds what any kernel could (``library_key``)."""

LIBRARY_FAMILIES = {"mujoco": frozenset({"mujoco", OUTSIDE})}
"""The distributions whose values some compiled kernels hold as constants, by the families whose kernels hold them:
MuJoCo's (the enum values the MuJoCo kernels pass to libmujoco, such as the state components of ``mj_getState``, whose
sizes Python allocates with the installed version's values: a kernel of another version's would write past them).
A kernel of another family holds nothing of MuJoCo's, and loads whichever MuJoCo is installed, or none."""


def numpy_key() -> tuple[int, int]:
    """What of numpy's version a compiled kernel depends on: its major and minor release, which is all numba reads of it
    (``numba.np.numpy_support.numpy_version``, on which its typing and lowering of numpy's functions branch). The
    values kernels freeze from numpy are dtypes and the ziggurat tables of ``nbgym.engine._ziggurat`` (unchanged since
    numpy 1.17); a patch release changes no kernel (the LLVM IR of the 79 kernels of CartPole-v1, Pendulum-v1,
    Blackjack-v1 and HalfCheetah-v5 is the same under numpy 2.4.5 and 2.4.6, but for numba's install path in the
    messages of exceptions: ``docs/how_it_works.md``)."""
    from numba.np.numpy_support import numpy_version

    return tuple(numpy_version[:2])


@functools.lru_cache(maxsize=None)
def installed_version(name: str) -> str | None:
    """The installed version of the distribution ``name`` (``None`` where it is not installed)."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def library_key(families: frozenset[str]) -> tuple:
    """The library versions in the key of a kernel compiled in the code of ``families`` (``LIBRARY_FAMILIES``): numpy's
    major and minor release for every kernel, the exact version of each library whose values the families' kernels
    hold."""
    key: list[tuple[str, Any]] = [("numpy", numpy_key())]
    for name, holders in LIBRARY_FAMILIES.items():
        if families & holders:
            key.append((name, installed_version(name)))
    return tuple(key)


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PREBUILT_DIRECTORY = os.path.join(_PACKAGE_ROOT, "_prebuilt_kernels")
"""Kernels compiled when nbgym's wheel was built (``nbgym warmup --prebuilt``; ``setup.py``), read after the user's
cache: a first step then loads them instead of compiling (a Box2D environment's ~45 s). Laid out by each file's
directory inside nbgym, and keyed as the user's cache is (nbgym's files, numba's version, the compile options), with a
processor of ``PREBUILT_PROCESSORS`` in place of the host's."""

_X86_64_V3 = frozenset(
    ("avx", "avx2", "bmi", "bmi2", "cx16", "f16c", "fma", "lzcnt", "movbe", "popcnt", "sahf", "sse3", "sse4.1")
    + ("sse4.2", "ssse3", "xsave")
)
_X86_64 = frozenset(("sse", "sse2"))
PREBUILT_PROCESSORS = {
    "x86-64-v4": _X86_64 | _X86_64_V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"},
    "x86-64-v3": _X86_64 | _X86_64_V3,
    "generic": _X86_64,
}
"""The processors kernels are prebuilt for (``NUMBA_CPU_NAME``, with no extra ``NUMBA_CPU_FEATURES``), by the host
features each needs, best first. Code for a processor is the same floating-point operations as code for the host's
(no fast-math, no contraction into fused multiply-adds): the differential tests run with ``NUMBA_CPU_NAME=generic`` in
CI. The speed is not: CarRacing's frame, which LLVM vectorises, steps as fast as host-compiled code as ``x86-64-v4``
code on an AVX-512 machine, 8-12% slower as ``x86-64-v3`` (AVX2) and 37-45% slower as ``generic`` (any x86-64); the
other families' physics run at one speed at every level (``docs/benchmarks.md``)."""


def effective_features() -> frozenset[str]:
    """The processor features numba's code for this process may use: the host's, less those ``NUMBA_CPU_FEATURES``
    turns off (``-avx512f``). numba passes that variable to LLVM in place of the host's feature list, with the host's
    processor name, whose features LLVM then turns on or off by the list: a feature turned off (with those that
    need it) is never used, one turned on that the host lacks cannot run, so neither counts."""
    from llvmlite import binding

    host = {name for name, present in binding.get_host_cpu_features().items() if present}
    return frozenset(host - _feature_changes()[1])


def _feature_changes() -> tuple[set[str], set[str]]:
    """The features ``NUMBA_CPU_FEATURES`` turns on (its ``+name`` entries) and off (``-name``)."""
    entries = [entry.strip() for entry in (numba.config.CPU_FEATURES or "").split(",")]
    turned_on = {entry[1:] for entry in entries if entry.startswith("+")}
    turned_off = {entry[1:] for entry in entries if entry.startswith("-")}
    return turned_on, turned_off


def target_features() -> frozenset[str] | None:
    """The processor features numba's code in this process is compiled for. numba passes LLVM the host's features
    unless ``NUMBA_CPU_FEATURES`` is set (``NUMBA_CPU_NAME=generic`` sets it empty), whatever processor it names: then
    ``effective_features``. With ``NUMBA_CPU_FEATURES`` set, the named processor's own features, changed by the list:
    known for the levels of ``PREBUILT_PROCESSORS``; ``None`` for another named processor, whose features only LLVM
    knows."""
    configured = numba.config.CPU_NAME
    if configured is None or numba.config.CPU_FEATURES is None:
        return effective_features()
    if configured not in PREBUILT_PROCESSORS:
        return None
    turned_on, turned_off = _feature_changes()
    return frozenset((PREBUILT_PROCESSORS[configured] | turned_on) - turned_off)


def runnable_processors() -> list[str]:
    """The processors of ``PREBUILT_PROCESSORS`` whose code this machine runs, best first."""
    from llvmlite import binding

    host = {name for name, present in binding.get_host_cpu_features().items() if present}
    return [name for name, needs in PREBUILT_PROCESSORS.items() if needs <= host]


@functools.lru_cache(maxsize=None)
def prebuilt_manifest() -> dict[str, Any] | None:
    """What the installed package's prebuilt kernels were built for (``PREBUILT_MANIFEST``, written by
    ``build_prebuilt``); ``None`` without prebuilt kernels (or a manifest that does not read)."""
    try:
        with open(os.path.join(PREBUILT_DIRECTORY, PREBUILT_MANIFEST), encoding="utf-8") as file:
            manifest = json.load(file)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


@functools.lru_cache(maxsize=None)
def prebuilt_processor() -> str | None:
    """The processor of ``PREBUILT_PROCESSORS`` whose prebuilt kernels this process loads: the one numba compiles for
    when ``NUMBA_CPU_NAME`` names one (with no ``NUMBA_CPU_FEATURES``), none when it names another; otherwise the
    best of the levels the package holds (its manifest's) whose features this process's code may use
    (``effective_features``: ``NUMBA_CPU_FEATURES=-avx512f`` rules out ``x86-64-v4``)."""
    configured = numba.config.CPU_NAME
    if configured is not None:
        same = configured in PREBUILT_PROCESSORS and not numba.config.CPU_FEATURES
        return configured if same else None
    manifest = prebuilt_manifest()
    built = manifest.get("levels", list(PREBUILT_PROCESSORS)) if manifest is not None else list(PREBUILT_PROCESSORS)
    features = effective_features()
    usable = [name for name, needs in PREBUILT_PROCESSORS.items() if name in built and needs <= features]
    return usable[0] if usable else None


build_counts = {"reused": 0, "compiled": 0}
"""The kernels this process copied from a reused cache into the prebuilt cache it builds, and those it compiled and
saved (``nbgym warmup`` reports them when building a prebuilt cache)."""

_REUSED_CACHE = "_NBGYM_PREBUILT_REUSES"
"""Set by ``build_prebuilt`` with ``reuse``: a kernel cache whose kernels the prebuilt build copies instead of compiling
them again."""

PREBUILT_MANIFEST = "manifest.json"
"""The file of ``PREBUILT_DIRECTORY`` that says what its kernels were built for: the processor levels, Python, numba,
numpy's minor release and MuJoCo's version (``build_prebuilt``)."""

_BUILDING_PREBUILT = "_NBGYM_BUILDING_PREBUILT"
"""Set by ``nbgym warmup --prebuilt`` in the process it compiles in: the directory it fills (and the only one read)."""

FAMILIES = {
    "box2d": ("envs/box2d", "_box2d"),
    "classic_control": ("envs/classic_control",),
    "mujoco": ("envs/mujoco",),
    "toy_text": ("envs/toy_text",),
}
"""nbgym's env families, by their directories: each family's kernels compile in the family's files and the rest of
the package's (the engine's), never another family's (``tests/engine/test_kernel_cache.py`` checks that no family imports
another), so an edit or upgrade of one family keeps the others' cached kernels."""


def family_of(path: str) -> str | None:
    """The family (``FAMILIES``) whose directories hold the file ``path``; ``None`` for the rest of nbgym's files and
    for files outside nbgym (a user's physics)."""
    relative = os.path.relpath(os.path.abspath(path), _PACKAGE_ROOT)
    for family, directories in FAMILIES.items():
        if any(relative == directory or relative.startswith(directory + os.sep) for directory in directories):
            return family
    return None


@functools.lru_cache(maxsize=None)
def _group_digests() -> dict[str | None, str]:
    """The SHA-256 of each family's files, and (under ``None``) of the rest of nbgym's files: their paths and contents,
    compiled bytecode left out."""
    groups: dict[str | None, list[str]] = {}
    for directory, subdirectories, names in os.walk(_PACKAGE_ROOT):
        subdirectories[:] = [
            name
            for name in subdirectories
            if name != "__pycache__" and os.path.join(directory, name) != PREBUILT_DIRECTORY
        ]
        for name in names:
            if not name.endswith((".pyc", ".pyo")):
                path = os.path.join(directory, name)
                groups.setdefault(family_of(path), []).append(path)
    digests = {}
    for group, paths in groups.items():
        digest = hashlib.sha256()
        for path in sorted(paths):
            digest.update(os.path.relpath(path, _PACKAGE_ROOT).encode() + b"\0")
            with open(path, "rb") as file:
                digest.update(file.read())
        digests[group] = digest.hexdigest()
    return digests


def source_digest(families: frozenset[str]) -> str:
    """The digest of the nbgym files a kernel of ``families`` can compile in: every file but the other families'.

    numba keys a cached function by its own file's stamp and its own bytecode, not by the functions it calls: a kernel
    cached before an edit or an upgrade of a module it calls (a port routine, a column index, a table loaded from an
    asset) would be loaded with the old code compiled in, and could then read past an array. Keyed by these files, a
    changed nbgym compiles the kernels that can hold the change again, and only those. Reading the ~2 MB takes a few
    milliseconds, once per process, at the first kernel the cache looks up.

    Code outside nbgym (``OUTSIDE``: a user's physics, or a user's kernel) may call any family's functions (a custom
    world on the Box2D port), so its kernels hold every family's files, as their ``library_key`` holds every library.
    """
    digests = _group_digests()
    if OUTSIDE in families:
        families = families | frozenset(FAMILIES)
    digest = hashlib.sha256()
    for group in (None, *sorted(families)):
        digest.update(f"{group}:{digests.get(group, '')};".encode())
    return digest.hexdigest()


_record_files: dict[Any, frozenset[str]] = {}
"""The files compiled into the functions of each physics' parameter record dtype (``Physics`` registers them)."""


def register_record(dtype: Any, files: frozenset[str]) -> None:
    """Notes that a kernel taking the record ``dtype`` compiles in the code of ``files``."""
    _record_files[dtype] = files


def _signature_families(types_: Any, found: set[str]) -> set[str]:
    """The families whose code a signature's types bring into a kernel: a physics' record (its files), a state
    namedtuple (its class's module), and what containers and arrays hold."""
    for typ in types_:
        if isinstance(typ, numba.types.Array):
            typ = typ.dtype
        if isinstance(typ, numba.types.Record):
            from numba.np.numpy_support import as_dtype

            files = _record_files.get(as_dtype(typ), frozenset())
            found.update(family for family in map(family_of, files) if family is not None)
            if any(package_subpath(path) is None for path in files):
                found.add(OUTSIDE)
        elif isinstance(typ, numba.types.BaseTuple):
            if isinstance(typ, numba.types.BaseNamedTuple):
                module = sys.modules.get(typ.instance_class.__module__)
                family = (
                    family_of(module.__file__) if module is not None and getattr(module, "__file__", None) else None
                )
                if family is not None:
                    found.add(family)
            _signature_families(typ.types, found)
    return found


class CheckedFunctionCache(FunctionCache):
    """numba's cache of a compiled function, over files whose damage is detected and repaired, keyed
    by the compile options (``compile_options``), the versions of the libraries whose values the kernel holds
    (``library_key``: numpy's minor release; MuJoCo's version for MuJoCo's kernels) and nbgym's own files
    (``source_digest``) too: numba's own key holds none of them, so a kernel compiled before an upgrade of MuJoCo, or
    of an nbgym module it calls, would be loaded after it.

    Args:
        py_func: The Python function the dispatcher compiles.
        variant: What the dispatcher compiles of it (``jit.py``: a helper, without Python wrappers, or an entry),
            part of the key: the two share the function's cache file.
    """

    _impl_class = _CacheImpl

    def __init__(self, py_func: Callable, variant: str = "entry") -> None:
        super().__init__(py_func)
        self._variant = variant
        self._family = family_of(py_func.__code__.co_filename)
        stamp, base = self._impl.locator.get_source_stamp(), self._impl.filename_base
        self._cache_file = _CheckedCacheFile(self._cache_path, base, stamp)
        written, read = locations()
        subpath = os.path.relpath(self._cache_path, written or read[0]) if (written or read) else ""
        self._read_files = [
            _CheckedCacheFile(os.path.join(directory, subpath), base, stamp)
            for directory in read
            if directory != written
        ]
        """The cache files of a read-only ``NUMBA_CACHE_DIR``, read after the written one."""
        self._writes = written is not None
        subpath = package_subpath(self._impl.locator._py_file)
        self._prebuilt_file = (
            _CheckedCacheFile(os.path.join(PREBUILT_DIRECTORY, subpath), base, stamp)
            if subpath is not None and not os.environ.get(_BUILDING_PREBUILT) and os.path.isdir(PREBUILT_DIRECTORY)
            else None
        )
        """The cache files of the kernels prebuilt into the installed package (``PREBUILT_DIRECTORY``), if any."""
        reused = os.environ.get(_REUSED_CACHE) if os.environ.get(_BUILDING_PREBUILT) else None
        parent = os.path.basename(os.path.dirname(os.path.abspath(self._impl.locator._py_file)))
        self._reused_files = (
            [
                _CheckedCacheFile(str(path), base, stamp)
                for path in sorted(pathlib.Path(reused).glob(f"{glob.escape(parent)}_*"))
                if path.is_dir()
            ]
            if reused
            else []
        )
        """While building a prebuilt cache from a reused one (``build_prebuilt``'s ``reuse``): the reused cache's files
        that can hold this function's kernels (numba names their directory after the path of the function's file's,
        which differs there: every directory named after the same parent is tried, the full key decides)."""

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        for cache_file in (self._cache_file, *self._read_files) if self._writes else self._read_files:
            data = cache_file.load(key)
            if data is not None:
                return self._impl.rebuild(target_context, data)
        for cache_file in self._reused_files:
            data = cache_file.load(key)
            if data is not None:
                if self._variant != "helper":  # what ``save_overload`` would have kept
                    self._impl.locator.ensure_cache_path()
                    self._cache_file.save(key, data)
                    build_counts["reused"] += 1
                return self._impl.rebuild(target_context, data)
        if self._prebuilt_file is not None:
            processor = prebuilt_processor()
            if processor is not None:
                target = _PrebuiltTarget(target_context.codegen(), processor)
                data = self._prebuilt_file.load(self._index_key(sig, target))
                if data is not None:
                    return self._impl.rebuild(target_context, data)
            _explain_prebuilt_miss(self._families(sig), processor)
        _announce_compile(self._writes)
        return None

    def save_overload(self, sig: Any, data: Any) -> None:
        """Saves the compiled function, unless no cache directory is writable; a failed write (a full disk, a
        directory made read-only) is reported once and ends the writes of this process: kernels are then
        compiled in memory."""
        if not self._writes or _unwritable:
            return
        if self._variant == "helper" and os.environ.get(_BUILDING_PREBUILT):
            # A helper's entry (its optimised LLVM module, which holds every function it calls) serves only a kernel
            # compiled later, in another process: a prebuilt cache ships the kernels that run, a third of the size.
            return
        try:
            super().save_overload(sig, data)
            build_counts["compiled"] += 1
        except OSError as failure:
            _unwritable.append(self._cache_path)
            logger.warn(
                "nbgym cannot write compiled kernels to its cache %s (%s): it compiles them in memory for the rest "
                "of this process, and a new process compiles them again. Free space there, or set NUMBA_CACHE_DIR "
                "to a writable directory.",
                self._cache_path,
                failure,
                category=KernelCacheWarning,
                stacklevel=2,
            )

    def _families(self, sig: Any) -> frozenset[str]:
        """The families whose code the kernel of ``sig`` compiles in (``OUTSIDE`` for code outside nbgym)."""
        families = _signature_families(getattr(sig, "args", sig), set())
        if self._family is not None:
            families.add(self._family)
        elif package_subpath(self._impl.locator._py_file) is None:
            families.add(OUTSIDE)
        return frozenset(families)

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        families = self._families(sig)
        return (
            *super()._index_key(sig, codegen),
            self._variant,
            compile_options(),
            library_key(families),
            source_digest(families),
        )


_prebuilt_miss_explained = False


def prebuilt_mismatches(families: frozenset[str]) -> list[str]:
    """How this process differs from what the package's prebuilt kernels were built for (their manifest), in what
    the key of a kernel of ``families`` holds: ``["numpy 2.5 (built for 2.4)"]``; empty when nothing differs."""
    manifest = prebuilt_manifest()
    if manifest is None:
        return []
    current = {
        "python": sys.implementation.cache_tag,
        "numba": numba.__version__,
        "numpy": ".".join(map(str, numpy_key())),
    }
    current.update({name: installed_version(name) for name, holders in LIBRARY_FAMILIES.items() if families & holders})
    differences = [
        f"{name} {value or 'not installed'} (built for {manifest.get(name)})"
        for name, value in current.items()
        if name in manifest and manifest[name] != value
    ]
    options = manifest.get("compile_options")
    if options is not None and options != dict(compile_options()):
        differences.append("other numba compile options (NUMBA_OPT, NUMBA_BOUNDSCHECK, ...)")
    return differences


def _explain_prebuilt_miss(families: frozenset[str], processor: str | None) -> None:
    """Says once per process why the package's prebuilt kernels do not serve, when the reason is a difference between
    this process and what they were built for (a kernel they simply do not hold, another action dtype say, compiles
    without a word more than ``_announce_compile``'s)."""
    global _prebuilt_miss_explained
    if _prebuilt_miss_explained or _quiet or getattr(_compiling, "what", None) is None:
        return
    reasons = prebuilt_mismatches(families)
    if processor is None and prebuilt_manifest() is not None:
        reasons.append(
            "a processor setting none of its levels fits (NUMBA_CPU_NAME, NUMBA_CPU_FEATURES; built for "
            f"{', '.join(prebuilt_manifest().get('levels', []))})"
        )
    if reasons:
        _prebuilt_miss_explained = True
        logger.info(
            "nbgym's prebuilt kernels do not fit this process: %s. Its kernels are compiled instead.",
            "; ".join(reasons),
        )


class _PrebuiltTarget:
    """The target of prebuilt kernels, as a cache key names it: this codegen's architecture, a processor of
    ``PREBUILT_PROCESSORS``."""

    def __init__(self, codegen: Any, processor: str) -> None:
        self._triple = codegen.magic_tuple()[0]
        self._processor = processor

    def magic_tuple(self) -> tuple[str, str, str]:
        return (self._triple, self._processor, "")


def build_prebuilt(
    directory: str, env_ids: list[str], levels: list[str] | None = None, reuse: str | None = None
) -> int:
    """Compiles the kernels of ``env_ids`` (all of nbgym's when empty) into ``directory`` as a prebuilt cache: for each
    processor of ``PREBUILT_PROCESSORS`` (or of ``levels``), laid out by each file's directory inside nbgym
    (``package_subpath``), with a manifest of what they were built for (``PREBUILT_MANIFEST``). ``setup.py`` builds one
    into the wheel's ``PREBUILT_DIRECTORY``.

    Each processor's compile runs in a new process (``nbgym warmup``), for numba reads the processor to compile for
    when it starts, with its output shown as it comes.

    Args:
        directory: An empty or missing directory, or one that holds only cache files (a prebuilt cache built before:
            it is emptied first).
        env_ids: The ids to compile.
        levels: The processor levels to build (default: every one of ``PREBUILT_PROCESSORS`` this machine runs).
        reuse: A kernel cache (a ``NUMBA_CACHE_DIR``) filled by this Python, numba and nbgym with
            ``NUMBA_CPU_NAME=<level>``, say by CI's tests: the kernels found there for a level are copied instead of
            compiled again (their keys match to the bit or they are not used); the others are compiled.

    Returns:
        ``nbgym warmup``'s exit status (the first that is not 0).

    Raises:
        ValueError: ``directory`` holds files other than cache files, or ``levels`` names an unknown level.
    """
    unknown = [level for level in levels or () if level not in PREBUILT_PROCESSORS]
    if unknown:
        raise ValueError(f"unknown processor level {unknown[0]!r}: the levels are {', '.join(PREBUILT_PROCESSORS)}")
    target = pathlib.Path(directory).resolve()
    if target.exists():
        strangers = [
            path
            for path in target.rglob("*")
            if path.is_file() and path.suffix not in (".nbi", ".nbc") and path.name != PREBUILT_MANIFEST
        ]
        if strangers:
            raise ValueError(
                f"{target} holds files other than compiled kernels ({strangers[0]}, ...): give an empty or new "
                "directory for the prebuilt cache, which nbgym empties before it compiles."
            )
        shutil.rmtree(target)
    target.mkdir(parents=True)
    status = 0
    runnable = runnable_processors()
    built = []
    for processor in PREBUILT_PROCESSORS:
        if levels and processor not in levels:
            continue
        if processor not in runnable:  # warmup steps what it compiles
            print(f"Not prebuilding for {processor} processors: this machine cannot run their code.", flush=True)
            continue
        print(f"Prebuilding for {processor} processors:", flush=True)
        environ = {
            **os.environ,
            "NUMBA_CPU_NAME": processor,
            "NUMBA_CPU_FEATURES": "",
            _BUILDING_PREBUILT: str(target),
            "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(_PACKAGE_ROOT), os.environ.get("PYTHONPATH")])),
        }
        if reuse:
            environ[_REUSED_CACHE] = os.path.abspath(reuse)
        level_status = subprocess.run([sys.executable, "-m", "nbgym", "warmup", *env_ids], env=environ).returncode
        status = status or level_status
        if level_status == 0:
            built.append(processor)
    for lock in target.glob("nbgym-*.lock"):  # the compile and index locks (``compiling``, ``_CheckedCacheFile.save``)
        lock.unlink()
    from numba.np.numpy_support import numpy_version

    manifest = {
        "levels": built,
        "ids": env_ids or "all",
        "python": sys.implementation.cache_tag,
        "numba": numba.__version__,
        "numpy": ".".join(map(str, numpy_version[:2])),
        "numpy_release": installed_version("numpy"),
        "mujoco": installed_version("mujoco"),
        "compile_options": dict(compile_options()),
    }
    (target / PREBUILT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return status


def _verified(data: bytes, path: str) -> bytes | None:
    """The payload of ``data`` if its digest matches it, else ``None`` (after reporting ``path``)."""
    digest, payload = data[:_DIGEST_SIZE], data[_DIGEST_SIZE:]
    if len(digest) == _DIGEST_SIZE and hashlib.sha256(payload).digest() == digest:
        return payload
    _report_damaged(path)
    return None


def _report_damaged(path: str) -> None:
    if path in _reported:
        return
    _reported.add(path)
    logger.warn(
        "The compiled-kernel cache file %s was damaged (truncated or corrupted: a full disk or a process "
        "killed while writing it); nbgym compiles the kernel again and replaces the file.",
        path,
        category=KernelCacheWarning,
        stacklevel=2,
    )


def cache_dir(dispatcher: Any) -> str:
    """The directory in which numba keeps the compiled code of ``dispatcher`` (an nbgym kernel)."""
    return dispatcher._cache._cache_path


def _announce_compile(cached_afterwards: bool) -> None:
    """Says, before numba compiles, what the ``compiling()`` context of this thread compiles: the first cache miss in
    it means a compile of seconds to minutes (a Box2D port's), which would otherwise be a silent pause."""
    what = getattr(_compiling, "what", None)
    if what is None:
        return
    _compiling.what = None  # once per context: the functions the first one calls miss too
    if not _quiet:
        logger.info(
            "compiling the kernels of %s (%s)...",
            what,
            "first use; cached afterwards" if cached_afterwards else "no writable cache: compiled in every process",
        )


def notice_compile(name: str, seconds: float, dispatcher: Any) -> None:
    """Explains a slow first ``make`` to the user: once per process, for a compile of more than a second.

    Args:
        name: What was compiled (the physics' name).
        seconds: How long it took.
        dispatcher: A kernel it compiled (names the cache directory).
    """
    global _compile_noticed
    if _quiet or _compile_noticed or seconds <= COMPILE_NOTICE_SECONDS:
        return
    _compile_noticed = True
    logger.info(
        "compiled the kernels of %s in %.1f s. Kernels are compiled once and cached in %s; later processes load "
        "them from there in a fraction of a second (`nbgym warmup` compiles every environment's ahead of time).",
        name,
        seconds,
        cache_dir(dispatcher),
    )


def skip_compile_notice() -> None:
    """Gives no compile notice in this process, before or after a compile (a caller that says it its own way:
    ``nbgym bench``'s progress line, ``nbgym warmup``'s lines)."""
    global _quiet
    _quiet = True


@contextlib.contextmanager
def compiling(what: str | None = None, group: str | None = None) -> Iterator[None]:
    """Held while this process compiles, or loads from the cache, a group of kernels that run together (an
    environment's reset and step, with every function compiled into them): one process at a time per cache and group.

    Args:
        what: What the kernels are (``"LunarLander"``, ``"LunarLander's threaded step"``): the first kernel that is
            not in the cache is announced before numba compiles it (``nbgym: compiling the kernels of LunarLander
            (first use; cached afterwards)...``); kernels loaded from the cache say nothing.
        group: The name of the lock: the physics whose kernels these are (its reset and step, threaded step, steps of
            other actions' dtypes, rollouts), ``None`` for the engine's own. A second process that needs the same
            physics' kernels waits, then loads what the first compiled (a training script's runners compile once),
            while one that needs another physics' compiles them beside it. With one lock for the whole cache, pytest's
            two workers waited 372 s of the main suite's 1,101 s, 332 s of it behind another family's compile (a
            test's physics of 3 s behind CarRacing's 120 s); with one per family, 201 s of 1,053 s, behind another
            Box2D environment's; with one per physics, 2 s of 920 s (two Box2D environments compiled at once both
            compile the port's routines they share, each on a core that would otherwise wait).

    Two processes that once filled one cache at once each compiled some of a group's functions and loaded the others
    from the files the other had just written, and the code met in one process ran wrong: a MountainCar step gave an
    infinite velocity and the process later aborted on a corrupted heap, reproduced on numba 0.60 to 0.68 with two
    processes starting cold. The cause, one symbol name for two bodies (numba issue 10486), is what
    ``ProcessUniqueIds`` removes; a data file holds its key, and one holding another key than its index entry's is a
    miss; and an index is read and written again under a lock of its own (``_CheckedCacheFile.save``). So what
    processes compiling different groups share (the engine's functions, the Box2D port's routines) is safe to compile
    and save at once. Without a writable cache there is nothing to share. A group compiled inside another's (in the
    same thread) takes no second lock: two processes nesting two groups in opposite orders would wait for each other
    forever. A Ctrl-C meanwhile is raised outside llvmlite's code (``_interrupts``).
    """
    outer, _compiling.what = getattr(_compiling, "what", None), what
    try:
        with _interrupts.outside_llvmlite():
            if getattr(_compiling, "locked", False):
                yield
                return
            with _held_lock(f"compile-{_lock_name(group)}") as held:
                _compiling.locked = held
                try:
                    yield
                finally:
                    _compiling.locked = False
    finally:
        _compiling.what = outer


def _lock_name(group: str | None) -> str:
    """``group`` as part of a file name (``engine`` for ``None``): two groups whose names differ only in other
    characters share a lock, which costs only a wait."""
    return "engine" if group is None else re.sub(r"[^A-Za-z0-9_.-]", "_", group)[:100]


@contextlib.contextmanager
def _held_lock(name: str) -> Iterator[bool]:
    """Holds ``nbgym-<name>.lock`` in the written cache directory (``flock``, waiting for another process that holds
    it) and yields ``True``; yields ``False`` at once where there is no written cache or the file cannot be made
    (nothing is written there either)."""
    written, _ = locations()
    handle = None
    if written is not None:
        with contextlib.suppress(OSError):
            os.makedirs(written, exist_ok=True)
            handle = open(os.path.join(written, f"nbgym-{name}.lock"), "a+b")  # noqa: SIM115 - held below
    if handle is None:
        yield False
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def compile_for(dispatcher: Any, *args: Any, what: str | None = None, group: str | None = None) -> None:
    """Compiles, or loads from the cache, ``dispatcher``'s version for the types of ``args``, under
    ``compiling(what, group)``.

    For a kernel that would otherwise be compiled lazily at its first call, outside the lock (the rollout loop,
    which runs on a thread of its own): the call then finds the version made here.
    """
    with compiling(what, group):
        dispatcher.compile(tuple(dispatcher.typeof_pyval(arg) for arg in args))
