"""Float32 vectors of ``LANES`` lanes for compiled code: the solver's arithmetic on ``LANES`` worlds at once.

A :data:`f32xn` value is an LLVM ``<LANES x float>``; ``+ - * /``, unary ``-`` and the comparisons ``<``, ``>`` and ``>=``
are LLVM's lane-wise IEEE instructions (``fadd``, ``fsub``, ``fmul``, ``fdiv``, ``fneg``, ordered ``fcmp``), each
emitted as written and never fused into a multiply-add (no ``contract`` or ``fast`` flag), so every lane computes the
float32 operations, in the order, that a world alone computes in scalar code. A :data:`maskn` value is a
``<LANES x i1>`` of comparison results, combined with ``&`` and ``|``; :func:`select` picks lane by lane, which is how
the solvers' branches run: both sides are computed and each lane keeps its own (a discarded side may hold an
infinity or NaN; nothing traps).

numba's loop vectorizer does not vectorize the solvers' loops over worlds (their many fields at offsets it cannot
prove apart need runtime alias checks it gives up on), so the vectors are written out, ``LANES`` wide: one register of
the processor numba compiles for, 16 float32 in AVX-512's, 8 in AVX's (and two SSE registers where that is all there
is). A vector is also the share of a batch a thread claims (``max_chunk_size``), so vectors wider than a register
make the claims coarser: on an AVX2 machine, 8 lanes against 16 stepped LunarLander's and BipedalWalker's learner
loops x64 (async, 2 threads) 1.10x and 1.08x as fast (docs/box2d.md, "How wide a vector"). Which worlds share a
vector never changes a float, so the width is the code's alone: the worlds' arrays hold room for ``MAX_LANES`` lanes
whatever the width, and a world made or pickled where code of the other width runs steps the same.
"""

from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir
from numba import config, types
from numba.extending import intrinsic, models, overload, register_model

from nbgym.engine._cache import target_features

MAX_LANES = 16
"""The lanes the worlds' vector arrays hold room for (``World.lanes``, ``contact_lanes``, ``contact_sources``,
``lane_velocities``): the most ``LANES`` is on any processor."""


def _lanes() -> int:
    """The worlds a vector holds on the processor numba compiles for: 16 with AVX-512 (and for a named processor
    whose features only LLVM knows), else 8."""
    features = target_features()
    return MAX_LANES if features is None or "avx512f" in features else 8


LANES = _lanes()
"""The worlds a vector holds: the most the solvers step side by side."""


class _F32xN(types.Type):
    def __init__(self) -> None:
        super().__init__(name=f"f32x{LANES}")


class _MaskN(types.Type):
    def __init__(self) -> None:
        super().__init__(name=f"mask{LANES}")


f32xn = _F32xN()
"""The numba type of a vector of ``LANES`` float32."""
maskn = _MaskN()
"""The numba type of a vector of ``LANES`` booleans."""

_VECTOR = ir.VectorType(ir.FloatType(), LANES)
_MASK = ir.VectorType(ir.IntType(1), LANES)


@register_model(_F32xN)
class _VectorModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VECTOR)


@register_model(_MaskN)
class _MaskModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _MASK)


def _float32_array(array: types.Type) -> bool:
    return isinstance(array, types.Array) and array.dtype == types.float32 and array.layout == "C"


def _address(context, builder, array_type, array, offset):
    data = context.make_array(array_type)(context, builder, array).data
    return builder.bitcast(builder.gep(data, [offset]), _VECTOR.as_pointer())


@intrinsic
def load(typingctx, array, offset):
    """``array.ravel()[offset:offset + LANES]`` as a vector (``array``: a C-contiguous float32 array). Unchecked:
    the caller keeps ``offset + LANES`` within the array."""
    if _float32_array(array) and isinstance(offset, types.Integer):

        def codegen(context, builder, signature, arguments):
            return builder.load(_address(context, builder, signature.args[0], arguments[0], arguments[1]), align=4)

        return f32xn(array, offset), codegen
    return None


@intrinsic
def store(typingctx, array, offset, value):
    """Writes ``value`` to ``array.ravel()[offset:offset + LANES]`` (unchecked, as ``load``)."""
    if _float32_array(array) and isinstance(offset, types.Integer) and value is f32xn:

        def codegen(context, builder, signature, arguments):
            address = _address(context, builder, signature.args[0], arguments[0], arguments[1])
            builder.store(arguments[2], address, align=4)
            return context.get_dummy_value()

        return types.none(array, offset, value), codegen
    return None


@intrinsic
def splat(typingctx, value):
    """A vector whose every lane is ``value`` (a float32)."""
    if value == types.float32:

        def codegen(context, builder, signature, arguments):
            undefined = ir.Constant(_VECTOR, ir.Undefined)
            first = builder.insert_element(undefined, arguments[0], ir.Constant(ir.IntType(32), 0))
            return builder.shuffle_vector(first, undefined, ir.Constant(ir.VectorType(ir.IntType(32), LANES), None))

        return f32xn(value), codegen
    return None


@intrinsic
def nonzero(typingctx, vector):
    """The lanes of ``vector`` that are not 0.0 (the solvers keep their per-lane flags as 1.0 or 0.0)."""
    if vector is f32xn:

        def codegen(context, builder, signature, arguments):
            return builder.fcmp_unordered("!=", arguments[0], ir.Constant(_VECTOR, None))

        return maskn(vector), codegen
    return None


@intrinsic
def select(typingctx, mask, if_true, if_false):
    """Lane by lane, ``if_true`` where ``mask`` is set, else ``if_false``."""
    if mask is maskn and if_true is f32xn and if_false is f32xn:

        def codegen(context, builder, signature, arguments):
            return builder.select(arguments[0], arguments[1], arguments[2])

        return f32xn(mask, if_true, if_false), codegen
    return None


def _vector_instruction(name: str, result: types.Type, operand: types.Type):
    @intrinsic
    def instruction(typingctx, a, b):
        if a is operand and b is operand:

            def codegen(context, builder, signature, arguments):
                return getattr(builder, name)(arguments[0], arguments[1])

            return result(a, b), codegen
        return None

    return instruction


def _vector_comparison(condition: str):
    @intrinsic
    def comparison(typingctx, a, b):
        if a is f32xn and b is f32xn:

            def codegen(context, builder, signature, arguments):
                return builder.fcmp_ordered(condition, arguments[0], arguments[1])

            return maskn(a, b), codegen
        return None

    return comparison


@intrinsic
def _negate(typingctx, a):
    if a is f32xn:

        def codegen(context, builder, signature, arguments):
            return builder.fneg(arguments[0])

        return f32xn(a), codegen
    return None


def _overload_binary(python_operator, instruction, operand: types.Type) -> None:
    def typing(a, b):
        if a is operand and b is operand:
            return lambda a, b: instruction(a, b)
        return None

    overload(python_operator)(typing)


for _operator, _instruction in (
    (operator.add, _vector_instruction("fadd", f32xn, f32xn)),
    (operator.sub, _vector_instruction("fsub", f32xn, f32xn)),
    (operator.mul, _vector_instruction("fmul", f32xn, f32xn)),
    (operator.truediv, _vector_instruction("fdiv", f32xn, f32xn)),
    (operator.lt, _vector_comparison("<")),
    (operator.gt, _vector_comparison(">")),
    (operator.ge, _vector_comparison(">=")),
):
    _overload_binary(_operator, _instruction, f32xn)
for _operator, _instruction in (
    (operator.and_, _vector_instruction("and_", maskn, maskn)),
    (operator.or_, _vector_instruction("or_", maskn, maskn)),
):
    _overload_binary(_operator, _instruction, maskn)


@overload(operator.neg)
def _overload_negate(a):
    if a is f32xn:
        return lambda a: _negate(a)
    return None


if config.DISABLE_JIT:
    # Interpreted (NUMBA_DISABLE_JIT=1, CI's coverage pass): numpy's float32 arrays, whose operations are the same
    # lane-wise IEEE ones.
    def load(array, offset):  # noqa: F811
        return array.reshape(-1)[offset : offset + LANES].copy()

    def store(array, offset, value):  # noqa: F811
        array.reshape(-1)[offset : offset + LANES] = value

    def splat(value):  # noqa: F811
        return np.full(LANES, value, np.float32)

    def nonzero(vector):  # noqa: F811
        return vector != 0

    def select(mask, if_true, if_false):  # noqa: F811
        return np.where(mask, if_true, if_false)
