"""libmujoco called from compiled kernels: the MuJoCo environments' physics run inside the engine's kernels.

The engine's kernels step a batch of sub-environments in one compiled call (see
``nbgym._engine.kernels``). For MuJoCo, a sub-environment's state row holds *addresses*: of its
``mjData`` and of the ``mjData`` arrays the physics reads and writes (``qpos``, ``qvel``, ``ctrl``,
``xpos``, ``cfrc_ext``, ...), at the columns named below; Python keeps the ``mujoco.MjData`` objects
alive. The parameter record holds the addresses of libmujoco's ``mj_step``, ``mj_forward``,
``mj_rnePostConstraint`` and ``mj_resetData`` and of the ``mjModel``, as integers: a kernel calls
them through ``call`` (an integer cast to a C function pointer), so no Python object is captured
and numba's disk cache keeps working. Each sub-environment owns its ``mjData``, so threads never
share one; the ``mjModel`` is only read.

Every function here is what gymnasium's ``MujocoEnv`` does with the mujoco bindings — the same
libmujoco calls, in the same order, on the same numbers — so the results are bit for bit gymnasium's.
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import pathlib
import warnings

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic, overload

# Private engine names that nbgym.engine does not have: npmath.fma (no numpy function), OVERLOAD_OPTIONS (the
# options of numba overloads) and ziggurat (standard_normal, from the module whose file is part of _DIGEST).
from nbgym._engine import npmath, ziggurat
from nbgym._engine.jit import OVERLOAD_OPTIONS
from nbgym.engine import njit, rng
from nbgym.envs.mujoco import _guard
from nbgym.envs.mujoco.mujoco_env import mujoco  # raises DependencyNotInstalled, with the hint, without mujoco
from nbgym.wrappers.vector import _kernels as _summation

# Columns of a sub-environment's int64 state row: the addresses of its mjData and of these arrays.
DATA_FIELDS = (
    "qpos", "qvel", "ctrl", "xpos", "xipos", "cfrc_ext", "cinert", "cvel", "qfrc_actuator", "qfrc_constraint",
    "site_xpos", "ten_length", "ten_velocity",
)
DATA = 0
(QPOS, QVEL, CTRL, XPOS, XIPOS, CFRC_EXT, CINERT, CVEL, QFRC_ACTUATOR, QFRC_CONSTRAINT, SITE_XPOS, TEN_LENGTH,
 TEN_VELOCITY) = range(1, 1 + len(DATA_FIELDS))
FAILED = 1 + len(DATA_FIELDS)
"""Column set to 1 when a libmujoco call of the sub-environment failed (``mju_error``); its later calls are
skipped until ``reset_data`` clears it."""
REPORT = FAILED + 1
"""Column holding the address of the sub-environment's ``_guard.REPORT_SIZE``-byte error report buffer."""
STATE_WIDTH = REPORT + 1

_DIGEST = hashlib.sha1(
    b"".join(pathlib.Path(path).read_bytes() for path in (__file__, ziggurat.__file__, _summation.__file__))
).hexdigest()[:16]

MIN_CHUNK_SIZE = 1
"""The fewest sub-environments handed to a stepping thread: one MuJoCo step (``frame_skip`` calls of
``mj_step``) takes tens of microseconds, more than waking a thread costs."""

COMMON_PARAMS = [
    # The helpers here are compiled into each env's kernels; their source digest in a field name makes
    # the record type (and so numba's cache key) change when they do.
    (f"_helpers_{_DIGEST}", np.uint8),
    ("_guarded_call", np.uint64),
    ("_mj_step", np.uint64),
    ("_mj_forward", np.uint64),
    ("_mj_rne_post_constraint", np.uint64),
    ("_mj_reset_data", np.uint64),
    ("_model", np.int64),
    ("_timestep", np.int64),
    ("frame_skip", np.int64),
    ("_nq", np.int64),
    ("_nv", np.int64),
    ("_nu", np.int64),
    ("_nbody", np.int64),
    ("_ntendon", np.int64),
    ("_init_qpos", np.int64),
    ("_init_qvel", np.int64),
    ("_body_mass", np.int64),
    ("_square_sums", np.int64),
    ("_norm_fuses", np.bool_),
]
"""Fields of every MuJoCo env's parameter record (addresses as integers); env fields follow them."""


def _libmujoco() -> ctypes.CDLL:
    directory = pathlib.Path(mujoco.__file__).parent
    candidates = sorted(directory.glob("libmujoco.so*")) + sorted(directory.glob("libmujoco*.dylib")) + sorted(
        directory.glob("mujoco*.dll"))
    if not candidates:
        raise ImportError(f"nbgym found no libmujoco library in {directory} (mujoco {mujoco.__version__}).")
    return ctypes.CDLL(str(candidates[0]))


_LIB = _libmujoco()
FUNCTIONS = {
    name: ctypes.cast(getattr(_LIB, name), ctypes.c_void_p).value
    for name in ("mj_step", "mj_forward", "mj_rnePostConstraint", "mj_resetData")
}
GUARDED_CALL, _GUARD_CODE = _guard.guarded_call_address(_LIB)
"""The address of ``_guard``'s ``guarded_call`` (0 where it cannot be built: the calls are then unguarded)."""


def timestep_address(model: mujoco.MjModel) -> int:
    """The address of ``model.opt.timestep`` (the bindings give none): found in the ``mjModel`` struct by
    setting the field to marker values and seeing which double follows them.

    Raises:
        RuntimeError: If no single double of the struct's first 64 KiB tracks the field.
    """
    original = model.opt.timestep
    words = (ctypes.c_double * 8192).from_address(model._address)
    candidates = None
    try:
        for marker in (0.123456789012345, 0.987654321098765):
            model.opt.timestep = marker
            hits = {k for k in range(len(words)) if words[k] == marker}
            candidates = hits if candidates is None else candidates & hits
    finally:
        model.opt.timestep = original
    if candidates is None or len(candidates) != 1:
        raise RuntimeError(f"nbgym could not locate mjModel.opt.timestep in mujoco {mujoco.__version__}'s struct.")
    return model._address + 8 * candidates.pop()


def data_row(data: mujoco.MjData) -> list[int]:
    """The address columns (``DATA`` up to ``FAILED``) of a sub-environment simulated in ``data``: its
    address and its arrays'."""
    return [data._address, *(getattr(data, field).ctypes.data for field in DATA_FIELDS)]


def new_reports(num_envs: int) -> np.ndarray:
    """The error report buffers of ``num_envs`` sub-environments (their addresses go in ``REPORT``)."""
    return np.zeros((num_envs, _guard.REPORT_SIZE), dtype=np.uint8)


def report_text(reports: np.ndarray, i: int) -> str:
    """The text of sub-environment ``i``'s last error report."""
    return bytes(reports[i]).split(b"\0", 1)[0].decode("utf-8", "replace")


def common_params(model: mujoco.MjModel, frame_skip: int, init_qpos: np.ndarray, init_qvel: np.ndarray) -> dict:
    """The values of ``COMMON_PARAMS`` for ``model`` (the arrays must outlive the env's kernels)."""
    return {
        "_guarded_call": GUARDED_CALL,
        "_mj_step": FUNCTIONS["mj_step"],
        "_mj_forward": FUNCTIONS["mj_forward"],
        "_mj_rne_post_constraint": FUNCTIONS["mj_rnePostConstraint"],
        "_mj_reset_data": FUNCTIONS["mj_resetData"],
        "_model": model._address,
        "_timestep": timestep_address(model),
        "frame_skip": frame_skip,
        "_nq": model.nq,
        "_nv": model.nv,
        "_nu": model.nu,
        "_nbody": model.nbody,
        "_ntendon": model.ntendon,
        "_init_qpos": init_qpos.ctypes.data,
        "_init_qvel": init_qvel.ctypes.data,
        "_body_mass": model.body_mass.ctypes.data,
        "_square_sums": 0,
        "_norm_fuses": NORM_FUSES,
    }


if numba.config.DISABLE_JIT:
    # Interpreted kernels (CI's coverage pass) reach the same functions and memory through ctypes.
    _MODEL_DATA_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    _GUARDED_FUNCTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)

    def call(function, model, data):
        """Call the libmujoco function at address ``function`` with ``(mjModel*, mjData*)``."""
        _MODEL_DATA_FUNCTION(int(function))(int(model), int(data))

    def call_guarded(trampoline, function, model, data, report):
        """``_guard``'s ``guarded_call`` at ``trampoline``: 0, or 1 after a MuJoCo error (its text in ``report``)."""
        return np.int32(_GUARDED_FUNCTION(int(trampoline))(int(function), int(model), int(data), int(report)))

    def load(address, index):
        """The float64 at ``address`` (an int64) plus ``index`` doubles."""
        return np.float64(ctypes.c_double.from_address(int(address) + 8 * int(index)).value)

    def store(address, index, value):
        """Write the float64 ``value`` at ``address`` plus ``index`` doubles."""
        ctypes.c_double.from_address(int(address) + 8 * int(index)).value = float(value)

else:

    @intrinsic
    def call(typingctx, function, model, data):
        """Call the libmujoco function at address ``function`` with ``(mjModel*, mjData*)``."""
        if not all(isinstance(arg, types.Integer) for arg in (function, model, data)):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir

            pointer = ir.IntType(8).as_pointer()
            function_type = ir.FunctionType(ir.VoidType(), [pointer, pointer])
            target = builder.inttoptr(args[0], function_type.as_pointer())
            builder.call(target, [builder.inttoptr(args[1], pointer), builder.inttoptr(args[2], pointer)])
            return context.get_dummy_value()

        return types.void(function, model, data), codegen

    @intrinsic
    def call_guarded(typingctx, trampoline, function, model, data, report):
        """``_guard``'s ``guarded_call`` at ``trampoline``: 0, or 1 after a MuJoCo error (its text in ``report``)."""
        if not all(isinstance(arg, types.Integer) for arg in (trampoline, function, model, data, report)):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir

            pointer = ir.IntType(8).as_pointer()
            function_type = ir.FunctionType(ir.IntType(32), [pointer] * 4)
            target = builder.inttoptr(args[0], function_type.as_pointer())
            return builder.call(target, [builder.inttoptr(arg, pointer) for arg in args[1:]])

        return types.int32(trampoline, function, model, data, report), codegen

    def _element_pointer(builder, address, index):
        from llvmlite import ir

        double_pointer = ir.DoubleType().as_pointer()
        return builder.gep(builder.inttoptr(address, double_pointer), [index])

    @intrinsic
    def load(typingctx, address, index):
        """The float64 at ``address`` (an int64) plus ``index`` doubles."""
        if not (isinstance(address, types.Integer) and isinstance(index, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            index_value = context.cast(builder, args[1], signature.args[1], types.int64)
            return builder.load(_element_pointer(builder, args[0], index_value))

        return types.float64(address, index), codegen

    @intrinsic
    def store(typingctx, address, index, value):
        """Write the float64 ``value`` at ``address`` plus ``index`` doubles."""
        if not (isinstance(address, types.Integer) and isinstance(index, types.Integer) and value == types.float64):
            return None

        def codegen(context, builder, signature, args):
            index_value = context.cast(builder, args[1], signature.args[1], types.int64)
            builder.store(args[2], _element_pointer(builder, args[0], index_value))
            return context.get_dummy_value()

        return types.void(address, index, value), codegen


def in_action_dtype(value, actions):
    """``value`` (a float64 weight) as gymnasium's arithmetic meets the action: a Python float times a
    float32 array is float32 (NEP 50), so the weight becomes a float32 for float32 actions."""
    return actions.dtype.type(value)


@overload(in_action_dtype, jit_options=OVERLOAD_OPTIONS)
def _in_action_dtype_overload(value, actions):
    if actions.dtype == types.float32:
        return lambda value, actions: np.float32(value)
    return lambda value, actions: value


@njit
def dt(params):
    """gymnasium's ``MujocoEnv.dt``: ``model.opt.timestep * frame_skip``, read live from the model."""
    return load(params._timestep, 0) * params.frame_skip


@njit
def mj_call(params, state, i, function):
    """Call the libmujoco ``function(mjModel*, mjData*)`` on sub-environment ``i``, guarded (see ``_guard``):
    a MuJoCo error sets ``state[i, FAILED]`` (its text in the report buffer) instead of ending the process.
    Skipped once the sub-environment has failed; whether the call ran and succeeded."""
    if state[i, FAILED] != 0:
        return False
    if params._guarded_call == 0:
        call(function, params._model, state[i, DATA])
        return True
    if call_guarded(params._guarded_call, function, params._model, state[i, DATA], state[i, REPORT]) != 0:
        state[i, FAILED] = 1
        return False
    return True


@njit
def simulate(params, state, i, actions):
    """gymnasium's ``do_simulation``: ``ctrl[:] = action``, ``frame_skip`` calls of ``mj_step``, then
    ``mj_rnePostConstraint`` (which computes ``cfrc_ext`` and the other force fields). Stops at a MuJoCo
    error (see ``mj_call``)."""
    ctrl = state[i, CTRL]
    for k in range(params._nu):
        store(ctrl, k, np.float64(actions[i, k]))
    for _ in range(params.frame_skip):
        if not mj_call(params, state, i, params._mj_step):
            return
    mj_call(params, state, i, params._mj_rne_post_constraint)


@njit
def reset_data(params, state, i):
    """``mj_resetData``: the model's default state, zero controls, time 0 (gymnasium's reset does it first).
    It clears a MuJoCo error of the sub-environment: ``mj_resetData`` releases what the failed call held."""
    state[i, FAILED] = 0
    mj_call(params, state, i, params._mj_reset_data)


@njit
def forward(params, state, i):
    """``mj_forward``: the derived quantities of the state just set (gymnasium's ``set_state`` ends with it)."""
    mj_call(params, state, i, params._mj_forward)


@njit
def set_uniform(target, initial, count, stream, i, low, high):
    """``target[:count] = initial + uniform(low, high, count)``, drawn in order as numpy draws."""
    for k in range(count):
        store(target, k, load(initial, k) + rng.uniform(stream, i, low, high))


def always_valid(params, actions, i):
    """The physics' ``action_valid`` (a plain function, as the engine compiles it): every action is
    applied as gymnasium applies it. MuJoCo clamps controls to their ranges, and a non-finite one
    makes MuJoCo reset that simulation, with its warning."""
    return True


@njit
def set_normal(target, initial, count, stream, i, scale):
    """``target[:count] = initial + scale * standard_normal(count)``, drawn in order as numpy draws."""
    for k in range(count):
        store(target, k, load(initial, k) + scale * ziggurat.standard_normal(stream, i))


@njit
def action_sum_of_squares(actions, i):
    """``np.sum(np.square(action))`` for row ``i`` of ``actions``, in the actions' dtype (float32 stays
    float32, as in gymnasium), summed in numpy's order."""
    row = actions[i]
    squares = row * row
    if squares.shape[0] == 0:  # a model without actuators: numpy's sum of nothing
        return squares.dtype.type(0)
    # numpy adds the sum to an initial 0, which changes no sum of squares.
    return _summation.pairwise_sum(squares, 0, squares.shape[0])


def action_weight(name: str) -> list[tuple[str, type]]:
    """The parameter fields of a weight that gymnasium multiplies by ``sum(action**2)``: the weight
    (float64) and whether gymnasium's product is float64 whatever the action (NEP 50: a ``np.float64``
    weight is; a Python float's product keeps a float32 action's dtype)."""
    return [(name, np.float64), (name + FLOAT64_PRODUCT, np.bool_)]


FLOAT64_PRODUCT = "_makes_float64"
"""Suffix of the flag field beside each weight of :func:`action_weight`."""


@njit
def weighted_action_cost(params, weight, weight_makes_float64, actions, i):
    """gymnasium's ``weight * np.sum(np.square(action))`` for row ``i`` of ``actions``: in float64 for a
    weight that makes float64 products, else in the actions' dtype; returned as a float64.

    Integer actions reach the kernels as float64, but gymnasium squares and sums them in their integer dtype
    (where squares wrap around): for those, Python puts numpy's sums in the float64 array at
    ``params._square_sums`` (0 otherwise), which replace the sum here."""
    if params._square_sums != 0:
        return weight * load(params._square_sums, i)
    squares = action_sum_of_squares(actions, i)
    if weight_makes_float64:
        return weight * np.float64(squares)
    return np.float64(in_action_dtype(weight, actions) * squares)


@njit
def clip(value, low, high):
    """``np.clip`` of one float: NaN stays NaN."""
    if value < low:
        return low
    if value > high:
        return high
    return value


@njit
def sum_of_squares(address, count, low, high):
    """``np.sum(np.square(np.clip(x, low, high)))`` of ``count`` contiguous float64 at ``address``
    (``low``/``high`` infinite: no clipping), summed in numpy's order."""
    if count <= 0:  # e.g. the controls of a model without actuators: numpy's sum of nothing
        return 0.0
    squares = np.empty(count, dtype=np.float64)
    for k in range(count):
        value = clip(load(address, k), low, high)
        squares[k] = value * value
    return _summation.pairwise_sum(squares, 0, count)


@njit
def state_vector_value(params, state, i, k):
    """``state_vector()[k]`` (``qpos`` then ``qvel``), which gymnasium reads where the model may have fewer
    than ``k + 1`` positions; ``k < nq + nv`` (checked at make, see ``require``)."""
    if k < params._nq:
        return load(state[i, QPOS], k)
    return load(state[i, QVEL], k - params._nq)


def require_observation_size(size: int) -> None:
    """gymnasium builds the observation ``Box`` before anything reads the model: a model too small for even
    the observation's size fails there first.

    Raises:
        ValueError: If ``size`` is negative (numpy's error making the ``Box``).
    """
    if size < 0:
        raise ValueError(f"negative dimensions are not allowed (an observation of {size} values: the model is too small)")


def require(model_ok: bool, exception: type[Exception], env: str, needs: str, model: mujoco.MjModel) -> None:
    """Validate, when an env is built, a model it reads at fixed indices or names: the kernels do not check
    bounds, so a model too small would have them read or write outside MuJoCo's arrays.

    Raises:
        exception: The type gymnasium's env raises with such a model (at its reset or step), if not ``model_ok``.
    """
    if not model_ok:
        raise exception(
            f"{env} needs a model with {needs}; this one has nq={model.nq}, nv={model.nv}, nu={model.nu}, "
            f"nbody={model.nbody}, nsite={model.nsite} (gymnasium's {env} fails on it too, with a "
            f"{exception.__name__})."
        )


NORM_LENGTHS = (2, 3)
"""The lengths of the vectors whose ``np.linalg.norm`` the MuJoCo envs compute (positions, body offsets)."""


def _blas_dot_fuses() -> tuple[bool, bool]:
    """How numpy's float64 dot product (BLAS ``ddot``, behind ``np.linalg.norm``) sums ``NORM_LENGTHS``
    squares: whether with fused multiply-adds (OpenBLAS on FMA hardware) or separate products and sums,
    and whether either reproduces it. Probed on vectors for which the two differ."""
    counts = {True: 0, False: 0}
    probes = [np.random.default_rng(length).standard_normal((64, length)) for length in NORM_LENGTHS]
    total = 0
    for probe in probes:
        for vector in probe:
            total_fused = total_separate = 0.0
            for value in vector:
                total_fused = npmath.fma(value, value, total_fused)
                total_separate += value * value
            result = float(np.linalg.norm(vector))
            counts[True] += result == math.sqrt(total_fused)
            counts[False] += result == math.sqrt(total_separate)
            total += 1
    for fuses in (True, False):
        if counts[fuses] == total:
            return fuses, True
    return counts[True] > counts[False], False


NORM_FUSES, NORM_EXACT = _blas_dot_fuses()
if not NORM_EXACT:
    warnings.warn(
        "nbgym's MuJoCo environments cannot reproduce this numpy's np.linalg.norm bit for bit (its BLAS sums "
        "the dot product in an order nbgym does not know: another OpenBLAS core type, MKL, Accelerate, ...). "
        "They run, but rewards and infos that are norms (distances, e.g. Reacher's and Pusher's rewards, "
        "Ant's and Humanoid's distance_from_origin) may differ from gymnasium's in the last bit.",
        RuntimeWarning,
        stacklevel=2,
    )
"""How ``np.linalg.norm`` sums here; the ``_norm_fuses`` parameter of every MuJoCo env."""


@njit
def norm(address, start, count, fused):
    """``np.linalg.norm(x[start:start + count])`` of the float64 ``x`` at ``address``: the square root of
    numpy's dot product ``x @ x`` (fused multiply-adds where ``fused``, see ``NORM_FUSES``)."""
    total = 0.0
    for k in range(count):
        value = load(address, start + k)
        total = npmath.fma(value, value, total) if fused else total + value * value
    return np.sqrt(total)


@njit
def norm_2(x, y, fused):
    """``np.linalg.norm([x, y])`` (see ``norm``)."""
    total = npmath.fma(x, x, 0.0) if fused else x * x
    return np.sqrt(npmath.fma(y, y, total) if fused else total + y * y)


@njit
def norm_of_difference(address, first, second, count, fused):
    """``np.linalg.norm(x[first:first + count] - x[second:second + count])`` (body positions of ``xpos``)."""
    total = 0.0
    for k in range(count):
        value = load(address, first + k) - load(address, second + k)
        total = npmath.fma(value, value, total) if fused else total + value * value
    return np.sqrt(total)


@njit
def positions_info(params, state, i, aux, column):
    """gymnasium's ``x_position``, ``y_position`` and ``distance_from_origin`` (``qpos[0]``, ``qpos[1]``,
    the norm of both) into ``aux[i, column:column + 3]``."""
    qpos = state[i, QPOS]
    aux[i, column] = load(qpos, 0)
    aux[i, column + 1] = load(qpos, 1)
    aux[i, column + 2] = norm(qpos, 0, 2, params._norm_fuses)


@njit
def tendons_info(params, state, i, aux, column):
    """gymnasium's ``tendon_length`` then ``tendon_velocity`` (``ntendon`` each) from ``aux[i, column]`` on."""
    count = params._ntendon
    for k in range(count):
        aux[i, column + k] = load(state[i, TEN_LENGTH], k)
        aux[i, column + count + k] = load(state[i, TEN_VELOCITY], k)


@njit
def copy_out(obs, i, at, address, start, count):
    """``obs[i, at:at + count] = x[start:start + count]`` for the float64 ``x`` at ``address``; returns the next column."""
    for k in range(count):
        obs[i, at + k] = load(address, start + k)
    return at + count


@njit
def copy_out_clipped(obs, i, at, address, start, count, low, high):
    """``copy_out`` of ``np.clip(x, low, high)``."""
    for k in range(count):
        obs[i, at + k] = clip(load(address, start + k), low, high)
    return at + count
