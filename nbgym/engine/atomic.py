"""An atomic counter for kernels that run side by side in several threads (numba has none for the CPU), and a
bounded spin on one (``wait_for``).

``fetch_add(counter, index, value)`` adds ``value`` to ``counter[index]`` (an int64 array) and returns
the value before the addition, as one indivisible operation: compiled, an LLVM ``atomicrmw add``
(sequentially consistent, so what a thread wrote before its addition is visible to the thread that
reads the sum); interpreted (``NUMBA_DISABLE_JIT=1``), under a lock.
"""

from __future__ import annotations

import platform
import threading

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from nbgym.engine._jit import OVERLOAD_OPTIONS, kernel

_interpreted_lock = threading.Lock()


def fetch_add(counter: np.ndarray, index: int, value: int) -> int:
    """Atomically add ``value`` to ``counter[index]`` and return its previous value.

    Args:
        counter: A one-dimensional int64 array.
        index: The element to add to.
        value: The amount to add.

    Returns:
        ``counter[index]`` before the addition.
    """
    with _interpreted_lock:
        previous = int(counter[index])
        counter[index] = previous + value
    return previous


@intrinsic
def _atomic_fetch_add(typingctx, counter, index, value):
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None
    if not (isinstance(index, types.Integer) and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        counter_type, index_type, value_type = signature.args
        array = context.make_array(counter_type)(context, builder, args[0])
        position = context.cast(builder, args[1], index_type, types.intp)
        pointer = cgutils.get_item_pointer(context, builder, counter_type, array, [position])
        amount = context.cast(builder, args[2], value_type, types.int64)
        return builder.atomic_rmw("add", pointer, amount, "seq_cst")

    return types.int64(counter, index, value), codegen


@overload(fetch_add, jit_options=OVERLOAD_OPTIONS)
def _fetch_add_overload(counter, index, value):
    def compiled_fetch_add(counter, index, value):
        return _atomic_fetch_add(counter, index, value)

    return compiled_fetch_add


def load(counter: np.ndarray, index: int) -> int:
    """``counter[index]`` read atomically (sequentially consistent: what the thread that wrote it wrote before is
    visible, and it is not read before this thread's own earlier atomic writes are visible to others).

    Args:
        counter: A one-dimensional int64 array.
        index: The element to read.

    Returns:
        Its value.
    """
    return int(counter[index])


@overload(load, jit_options=OVERLOAD_OPTIONS)
def _load_overload(counter, index):
    def compiled_load(counter, index):
        return _atomic_load(counter, index)

    return compiled_load


def pause() -> None:
    """The CPU's spin-wait hint between two reads of a counter that another thread will change (nothing,
    interpreted)."""


@overload(pause, jit_options=OVERLOAD_OPTIONS)
def _pause_overload():
    def compiled_pause():
        _pause()

    return compiled_pause


def store_then_load(counter: np.ndarray, index: int, value: int, other: np.ndarray, other_index: int) -> int:
    """Set ``counter[index]`` to ``value`` (a counter only this thread writes), then read ``other[other_index]``, with
    a full barrier between: a thread that adds to ``other`` and then reads ``counter`` sees the new value, or this
    read sees its addition (the processor may not read before the store is visible, as it may with plain stores).

    Returns:
        ``other[other_index]``.
    """
    if numba.config.DISABLE_JIT:  # one thread runs Python at a time: the order is the program's
        counter[index] = value
        return int(other[other_index])
    return _store_then_load(counter, index, value, other, other_index)


def wait_for(counter: np.ndarray, index: int, target: int, rounds: int) -> bool:
    """Wait, awake, until ``counter[index]`` (an int64 array that other threads add to) reaches ``target``.

    Compiled, the call releases the GIL and reads the counter atomically up to ``rounds`` times, a CPU ``pause``
    between two reads: a bounded spin, for a wait shorter than the operating system takes to wake a sleeping thread
    (tens of microseconds on a virtual machine). Interpreted, it reads the counter once: a Python loop would hold the
    GIL that the threads it waits for need.

    Args:
        counter: A one-dimensional int64 array.
        index: The element to watch.
        target: The value to wait for (counters only grow).
        rounds: The most reads.

    Returns:
        Whether ``counter[index]`` reached ``target`` (else the caller sleeps on its lock or queue).
    """
    if numba.config.DISABLE_JIT:
        return int(counter[index]) >= target
    return _spin(counter, index, target, rounds)


@intrinsic
def _atomic_load(typingctx, counter, index):
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None
    if not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        counter_type, index_type = signature.args
        array = context.make_array(counter_type)(context, builder, args[0])
        position = context.cast(builder, args[1], index_type, types.intp)
        pointer = cgutils.get_item_pointer(context, builder, counter_type, array, [position])
        return builder.load_atomic(pointer, "seq_cst", 8)

    return types.int64(counter, index), codegen


_MACHINE = platform.machine().lower()


@intrinsic
def _pause(typingctx):
    """The CPU's spin-wait hint (x86 ``pause``, Arm ``yield``), through LLVM's intrinsics (numba's JIT assembles no
    inline assembly): it spares the memory system and the other hyperthread while a thread spins."""

    def codegen(context, builder, signature, args):
        if _MACHINE in ("x86_64", "amd64", "i386", "i686"):
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"
            )
            builder.call(hint, [])
        elif _MACHINE in ("aarch64", "arm64"):
            hint = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(32)]), "llvm.aarch64.hint"
            )
            builder.call(hint, [ir.Constant(ir.IntType(32), 1)])  # 1: YIELD
        return context.get_dummy_value()

    return types.void(), codegen


def load_kernels() -> None:
    """Compile, or load from the disk cache, the kernels that ``wait_for`` and ``store_then_load`` call, for the
    engine's arguments (int64 arrays and ints), if this process has not yet; call it under ``cache.compiling``. The
    threaded step's kernels are loaded with them (``KernelBatch.row_kernels``), before a ``threads.StepServer`` is
    made, so that no step loads one.

    A step that loaded one (a caller's first sleep loaded ``store_then_load``) took milliseconds longer, and was
    exposed to Ctrl-C inside llvmlite's loading code: llvmlite's ``OutputString.close`` frees its string and then
    forgets it, and an interrupt raised between the two left the string to be freed again by its ``__del__`` (``free():
    double free detected``: the process aborted, in 7 of 56 runs of ``test_ctrl_c_during_threaded_step_never_leaves_a_
    helper_stepping`` three at a time on the 2-core machine, and once in CI; 0 of 90 since).
    """
    if numba.config.DISABLE_JIT or _store_then_load.signatures:
        return
    counter = np.zeros(1, dtype=np.int64)
    _spin(counter, 0, 1, 1)
    _store_then_load(counter, 0, 0, counter, 0)


@kernel(entry=True)
def _spin(counter, index, target, rounds):
    for _ in range(rounds):
        if _atomic_load(counter, index) >= target:
            return True
        _pause()
    return _atomic_load(counter, index) >= target


@kernel(entry=True)
def _store_then_load(counter, index, value, other, other_index):
    _atomic_fetch_add(counter, index, value - _atomic_load(counter, index))  # sequentially consistent
    return _atomic_load(other, other_index)
