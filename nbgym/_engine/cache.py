"""numba's disk cache for nbgym's kernels, made to heal: a damaged entry is recompiled and replaced.

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
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Any, Callable

import numba
from numba.core.caching import FunctionCache, IndexDataCacheFile

from nbgym import logger
from nbgym.error import KernelCacheWarning

_DIGEST_SIZE = hashlib.sha256().digest_size
_FORMAT_TAG = "+nbgym-sha256"
_reported: set[str] = set()

COMPILE_NOTICE_SECONDS = 1.0
"""A compile of a ``make``/``make_vec`` that takes longer than this is explained to the user, once per process."""
_compile_noticed = False


class _CheckedCacheFile(IndexDataCacheFile):
    """numba's index and data files with a digest in front of each pickle, checked on every load."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._version = numba.__version__ + _FORMAT_TAG

    def _dump(self, obj: Any) -> bytes:
        payload = super()._dump(obj)
        return hashlib.sha256(payload).digest() + payload

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
        stamp, overloads = pickle.loads(payload)
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name: str) -> Any:
        path = self._data_path(name)
        with open(path, "rb") as file:
            payload = _verified(file.read(), path)
        return None if payload is None else pickle.loads(payload)


class CheckedFunctionCache(FunctionCache):
    """numba's cache of a compiled function, over files whose damage is detected and repaired.

    Args:
        py_func: The Python function the dispatcher compiles.
    """

    def __init__(self, py_func: Callable) -> None:
        super().__init__(py_func)
        self._cache_file = _CheckedCacheFile(
            self._cache_path, self._impl.filename_base, self._impl.locator.get_source_stamp()
        )


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


def notice_compile(name: str, seconds: float, dispatcher: Any) -> None:
    """Explains a slow first ``make`` to the user: once per process, for a compile of more than a second.

    Args:
        name: What was compiled (the physics' name).
        seconds: How long it took.
        dispatcher: A kernel it compiled (names the cache directory).
    """
    global _compile_noticed
    if _compile_noticed or seconds <= COMPILE_NOTICE_SECONDS:
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
    """Gives no compile notice in this process (a caller that says it its own way: ``nbgym bench``'s progress line)."""
    global _compile_noticed
    _compile_noticed = True
