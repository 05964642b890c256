"""Ctrl-C while a kernel compiles or loads is raised only outside llvmlite's code (``engine._interrupts``).

An interrupt raised inside llvmlite's Python code (a ctypes callback handing LLVM a cached object, ``OutputString``'s
``close``) segfaulted or aborted the process on a double free. Here a stand-in for llvmlite's code is a function
compiled with a file name inside llvmlite's bindings, which raises SIGINT and runs on: the interrupt must wait until it
has returned, and then come, once.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import numba
import pytest
from numba.core.registry import CPUDispatcher

from nbgym.engine import _interrupts
from nbgym.engine._jit import kernel


def _stand_in_for_llvmlite():
    """A function whose frames look like llvmlite's: it raises SIGINT, then runs ~100k bytecodes before returning."""
    source = "def inside():\n    raise_signal()\n    total = 0\n    for k in range(20000):\n        total += k\n    return total\n"
    namespace = {"raise_signal": lambda: signal.raise_signal(signal.SIGINT)}
    filename = os.path.join(_interrupts.LLVMLITE_BINDING, "stand_in.py")
    exec(compile(source, filename, "exec"), namespace)
    return namespace["inside"]


@pytest.fixture
def python_sigint_handler(monkeypatch):
    """SIGINT handled by Python's default handler (pytest's workers may run with it ignored), restored after."""
    assert threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_inside_llvmlite_code_is_raised_after_it_returns(python_sigint_handler):
    inside = _stand_in_for_llvmlite()
    returned = False
    with pytest.raises(KeyboardInterrupt), _interrupts.outside_llvmlite():
        assert inside() == sum(range(20000))  # not interrupted inside
        returned = True
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the retry lands here (its thread may start late on a loaded machine)
            time.sleep(_interrupts.RETRY_SECONDS)
    assert returned
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    time.sleep(3 * _interrupts.RETRY_SECONDS)  # no second one


def test_an_interrupt_deferred_past_the_compile_wakes_a_blocked_main_thread(python_sigint_handler):
    """Delivered again as a signal: a sleep the main thread has begun after the compile is interrupted, as by the first
    Ctrl-C."""
    with _interrupts.outside_llvmlite():
        _stand_in_for_llvmlite()()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        time.sleep(30)
    assert time.monotonic() - start < 5


def test_an_interrupt_outside_llvmlite_code_is_raised_at_once(python_sigint_handler):
    with pytest.raises(KeyboardInterrupt), _interrupts.outside_llvmlite():
        signal.raise_signal(signal.SIGINT)
        pytest.fail("the interrupt did not come at once")  # pragma: no cover


def test_without_the_context_an_interrupt_lands_inside(python_sigint_handler):
    """The stand-in does take an interrupt where nothing defers it: the two tests above can fail."""
    with pytest.raises(KeyboardInterrupt):
        _stand_in_for_llvmlite()()


def test_a_handler_of_the_users_gets_the_signal_as_it_came(python_sigint_handler):
    received = []
    signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    with _interrupts.outside_llvmlite():
        _stand_in_for_llvmlite()()
        assert received == []
        deadline = time.monotonic() + 5
        while not received and time.monotonic() < deadline:
            time.sleep(_interrupts.RETRY_SECONDS)
    assert received == [signal.SIGINT]


def test_an_ignored_sigint_and_other_threads_are_left_alone(python_sigint_handler):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with _interrupts.outside_llvmlite():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []

    def in_a_thread():
        with _interrupts.outside_llvmlite():  # signal.signal would raise outside the main thread
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


@pytest.mark.jit_only  # interpreted, nothing compiles
def test_a_kernels_compile_defers_interrupts(python_sigint_handler, monkeypatch):
    """numba's compile of an nbgym kernel (a first call's, or a load from the cache) runs under the deferring
    handler, and the handler is the user's again afterwards."""
    handlers = []
    real_compile = CPUDispatcher.compile

    def recording_compile(self, sig):
        handlers.append(signal.getsignal(signal.SIGINT))
        return real_compile(self, sig)

    monkeypatch.setattr(CPUDispatcher, "compile", recording_compile)

    @kernel(entry=True)
    def add_one(x):
        return x + 1

    assert add_one(numba.int64(2)) == 3
    assert handlers and all(isinstance(handler, _interrupts._Deferring) for handler in handlers)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
