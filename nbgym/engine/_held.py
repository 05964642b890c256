"""A state of many arrays handed to the kernels as one reference.

numba unboxes every array of a namedtuple argument at every call from Python: for a Box2D port world of ~50
arrays that is ~1.6 us through a bound entry point and ~4 us through the dispatcher (which also types each
array), more than a LunarLander world step's contact solver. ``hold(state)`` boxes such a namedtuple once into
a numba ``StructRef`` whose only member is the namedtuple: passing it costs one pointer, and ``held_rows`` gives
the kernel the namedtuple back, its arrays read from the held struct.

The held struct owns references to the arrays (numba's reference counts), so they live as long as it does; it is
made again, through ``KernelBatch.state``'s setter, whenever the batch's state is replaced (a world grown for more
bodies), and the step bound to it is bound again then (``KernelEnv._bind``). Interpreted
(``NUMBA_DISABLE_JIT=1``), nothing is held: the kernels get the namedtuple itself.
"""

from __future__ import annotations

from typing import Any

import numba
from numba import types
from numba.core import cgutils, imputils
from numba.core.runtime import nrtdynmod
from numba.experimental import structref
from numba.extending import intrinsic, overload

from nbgym import error
from nbgym.engine._jit import OVERLOAD_OPTIONS, kernel


@structref.register
class HeldStateType(types.StructRef):
    """The numba type of a held state: a struct whose member ``rows`` is the state's namedtuple."""


class HeldState(structref.StructRefProxy):
    """A state namedtuple held for the kernels (made by ``hold``; Python reads the namedtuple itself)."""

    @property
    def rows(self) -> tuple:
        """The held namedtuple, over the same arrays (a compiled read: for inspection, not for hot paths)."""
        return _rows_of(self)


structref.define_proxy(HeldState, HeldStateType, ["rows"])


@kernel(entry=True)
def _hold(rows):
    return HeldState(rows)


@kernel(entry=True)
def _rows_of(held):
    return held.rows


def hold(state: Any) -> Any:
    """What the kernels are passed for ``state``: a ``HeldState`` of a namedtuple of arrays, an array itself.

    Raises:
        nbgym.error.PhysicsError: If ``state`` is a tuple that numba cannot type (not a namedtuple of arrays).
    """
    if isinstance(state, tuple) and not numba.config.DISABLE_JIT:
        try:
            return _hold(state)
        except numba.core.errors.TypingError as failure:
            raise error.PhysicsError(
                f"A physics' state must be an array or a namedtuple of numpy arrays; {type(state).__name__} has a "
                f"field numba cannot compile: {failure.msg.splitlines()[0]}"
            ) from None
    return state


def held_rows(state):
    """The state a kernel was passed: the namedtuple of a ``HeldState``, anything else itself.

    A function that counts references takes one to each array; a borrowing one (``_kernels._step_range``'s borrowing
    copy) none: numba compiles an overload once per caller's options.
    """
    return state


@overload(held_rows, jit_options=OVERLOAD_OPTIONS)
def _held_rows(state):
    if isinstance(state, HeldStateType):
        return lambda state: _rows_in(state)
    return lambda state: state


@intrinsic
def _rows_in(typingctx, held):
    """``held.rows``, read also where references are not counted: numba's own read of a struct's member asks its
    reference-counting runtime for the struct's data, which such a function has not."""
    rows_type = held.field_dict["rows"]

    def codegen(context, builder, signature, args):
        meminfo = cgutils.create_struct_proxy(held)(context, builder, value=args[0]).meminfo
        meminfo = builder.bitcast(meminfo, nrtdynmod._meminfo_struct_type.as_pointer())
        data = builder.load(cgutils.gep(builder, meminfo, 0, 3))  # the runtime's own NRT_MemInfo_data_fast
        payload_type = held.get_data_type()
        data = builder.bitcast(data, context.data_model_manager[payload_type].get_value_type().as_pointer())
        rows = cgutils.create_struct_proxy(payload_type)(context, builder, ref=data).rows
        return imputils.impl_ret_borrowed(context, builder, rows_type, rows)

    return rows_type(held), codegen
