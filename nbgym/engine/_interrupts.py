"""Ctrl-C while numba compiles or loads a kernel: taken once the main thread is out of llvmlite's Python code.

A ``KeyboardInterrupt`` is raised between any two bytecodes of the main thread, and llvmlite's Python code, which numba
runs to compile a kernel or load it from the cache, is not written for that. In 200 processes that made a LunarLander
env from the cache and got a Ctrl-C at a random moment of their first 2.2 s, one segfaulted (the interrupt ended the
callback that hands LLVM a cached object, ``ExecutionEngine._raw_object_cache_getbuffer``, before it set the buffer,
and LLVM went on) and in two the interrupt was lost in such a callback, whose exceptions ctypes ignores; with this
module, none of 100. Inside ``OutputString.close``, which frees its string and then forgets it, an interrupt left the
string to be freed again by ``__del__``: ``free(): double free detected``, an abort (a threaded step that loaded a
kernel: 7 of 56 runs of the MuJoCo Ctrl-C test).

So while the main thread compiles or loads an nbgym kernel (``_jit.KernelDispatcher.compile``, ``cache.compiling``),
SIGINT's Python handler is wrapped: a signal that finds a frame of llvmlite's bindings on the main thread's stack is
sent again ``RETRY_SECONDS`` later, until it finds none, and then goes to the handler as it came. A Ctrl-C is thus
late by at most the length of one llvmlite call (an LLVM pass over a module: up to seconds in a cold compile), never
lost, and the handler sees it as it would have. Other threads never receive it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from types import FrameType
from typing import Any, Callable, Iterator

import llvmlite.binding

LLVMLITE_BINDING = os.path.dirname(os.path.abspath(llvmlite.binding.__file__)) + os.sep
"""The directory of llvmlite's bindings to LLVM (``llvmlite.ir``, which builds IR in Python objects, is safe)."""

RETRY_SECONDS = 0.01
"""How long a SIGINT that landed in llvmlite's code waits before it is delivered again."""


def _inside_llvmlite(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename.startswith(LLVMLITE_BINDING):
            return True
        frame = frame.f_back
    return False


def _deliver_again(signum: int) -> None:
    """``signum`` sent to the main thread again as a signal (POSIX, as the cache's lock is), not by
    ``_thread.interrupt_main``: a call it blocks in (a sleep, a lock) is interrupted, as by the first."""
    signal.pthread_kill(threading.main_thread().ident, signum)


class _Deferring:
    """SIGINT's handler while the main thread compiles: ``handler``'s, once no llvmlite frame is on the stack."""

    def __init__(self, handler: Callable[[int, FrameType | None], Any]) -> None:
        self.handler = handler

    def __call__(self, signum: int, frame: FrameType | None) -> Any:
        if _inside_llvmlite(frame):
            retry = threading.Timer(RETRY_SECONDS, _deliver_again, (signum,))
            retry.daemon = True
            retry.start()
            return None
        return self.handler(signum, frame)


@contextlib.contextmanager
def outside_llvmlite() -> Iterator[None]:
    """Held around a compile or a load from the cache: Ctrl-C is raised only outside llvmlite's code (the module
    docstring). Nothing changes in a thread other than the main one, when SIGINT has no Python handler (ignored, or
    the system's default: the process ends), or inside another such context."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler) or isinstance(handler, _Deferring):
        yield
        return
    deferring = _Deferring(handler)
    signal.signal(signal.SIGINT, deferring)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is deferring:
            signal.signal(signal.SIGINT, handler)
