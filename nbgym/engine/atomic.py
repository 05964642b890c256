"""An atomic counter for kernels that run side by side in several threads (numba has none for the CPU).

``fetch_add(counter, index, value)`` adds ``value`` to ``counter[index]`` (an int64 array) and returns
the value before the addition, as one indivisible operation: compiled, an LLVM ``atomicrmw add``
(sequentially consistent, so what a thread wrote before its addition is visible to the thread that
reads the sum); interpreted (``NUMBA_DISABLE_JIT=1``), under a lock.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from nbgym.engine._jit import OVERLOAD_OPTIONS

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
