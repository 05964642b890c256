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


BORROWING_OPTIONS = {**OVERLOAD_OPTIONS, "_nrt": False}
"""The options of ``borrowing_kernel`` functions, and of overloads that such functions call."""


def borrowing_kernel(function: Callable) -> Callable:
    """Decorator of compiled functions that borrow their arrays: ``kernel`` without numba's reference counting.

    numba counts references to every array a function receives: a compiled call that LLVM does not inline
    increments and decrements the count of each array argument, one atomic operation each, and a namedtuple
    of 38 arrays (a Box2D port ``World``) costs 76 of them per call. A function whose arrays all come from
    its caller, which keeps them alive for the call, needs none. Such a function may not allocate an array
    (numba then refuses to compile it); it may call ``kernel`` functions that do, and let them free it.
    """
    dispatcher = njit(**{**KERNEL_OPTIONS, "cache": False, **BORROWING_OPTIONS})(function)
    if isinstance(dispatcher, Dispatcher):
        dispatcher._cache = CheckedFunctionCache(function)
    return dispatcher
