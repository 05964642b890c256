"""The one place that holds the numba options of every nbgym kernel.

Compiled kernels are kept on disk between processes by nbgym's own cache (``cache.py``: where,
keyed by the compile options, damaged files detected and replaced); numba's ``cache=True`` is not passed,
as its locators fail in a read-only install. ``error_model="numpy"`` gives IEEE results (inf, nan) instead of Python
exceptions for float division by zero, as numpy scalars do in gymnasium. No fastmath: it would
reorder and fuse floating-point operations and break bit-exactness. ``nogil=True`` lets other Python
threads run during a kernel, the engine's own stepping threads among them (``threads.py``).
"""

from __future__ import annotations

from typing import Callable

from numba import njit
from numba.core.dispatcher import Dispatcher

from nbgym._engine.cache import CheckedFunctionCache

KERNEL_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy", "fastmath": False}

OVERLOAD_OPTIONS = {name: value for name, value in KERNEL_OPTIONS.items() if name != "cache"}
"""The options of the functions that kernels call through ``numba.extending.overload``. Not cached on
their own: numba would keep them in its plain, unchecked cache files, and their code is compiled into
every kernel that calls them, whose checked entry holds it."""


def kernel(function: Callable) -> Callable:
    """Decorator of every compiled nbgym function: ``njit`` with ``KERNEL_OPTIONS``, over the checked cache.

    Args:
        function: The function to compile.

    Returns:
        Its numba dispatcher (the function itself when ``NUMBA_DISABLE_JIT=1``).
    """
    dispatcher = njit(**{**KERNEL_OPTIONS, "cache": False})(function)
    if isinstance(dispatcher, Dispatcher):
        dispatcher._cache = CheckedFunctionCache(function)
    return dispatcher
