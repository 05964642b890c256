"""libmujoco called from compiled kernels: the MuJoCo environments' physics run inside the engine's kernels.

The engine's kernels step a batch of sub-environments in one compiled call (see
``nbgym.engine``). A MuJoCo sub-environment of a vector env costs its *state row*, not an
``mjData``: the row (float64) holds its integration state (``mj_getState(..., mjSTATE_INTEGRATION)``:
time, qpos, qvel, act, qacc_warmstart, ctrl, applied forces, mocap, plugin state...), the part of that
state that changed during the last substep as it was before it (so that the sub-env's ``mjData``, with
its derived quantities one substep behind as after ``mj_step``, can be rebuilt exactly on request), and
the derived array an env reads before its step (``carry``: Ant's ``xpos``, Humanoid's ``xipos``).

The kernels simulate on *slots*: one ``mjData`` per stepping thread. A step of sub-environment ``i``
claims a free slot (an atomic flag), loads row ``i`` into its ``mjData`` (``mj_setState``), steps it,
computes reward and infos, and saves the row back; the observation that follows reads the same slot
(the derived quantities it needs are there) and frees it. ``mujoco.batch`` documents the same scheme as
bit-identical to one ``mjData`` per simulation; the differential tests check it for every env.

The env's own functions see ``data``: the slot's row of addresses (its ``mjData`` and the ``mjData``
arrays named below, read and written with ``load``/``store``). A single env (``_rows`` false) has one slot,
its own ``data``, which it keeps (no row).

The parameter record holds the addresses of libmujoco's functions and of the ``mjModel``, as
integers: a kernel calls them through ``call`` (an integer cast to a C function pointer), so no Python
object is captured and numba's disk cache keeps working; the ``mjModel`` is only read.

Every function here is what gymnasium's ``MujocoEnv`` does with the mujoco bindings — the same
libmujoco calls, in the same order, on the same numbers — so the results are bit for bit gymnasium's.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any
import hashlib
import math
import pathlib
import warnings

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic, overload

from nbgym.engine import (
    OVERLOAD_OPTIONS,
    Physics,
    dispatch_on_params,
    njit,
    npmath,
    rng,
)
from nbgym.engine.atomic import fetch_add
from nbgym.envs.mujoco import _guard
from nbgym.envs.mujoco.mujoco_env import (
    mujoco,  # raises DependencyNotInstalled, with the hint, without mujoco
)
from nbgym.wrappers.vector import _kernels as _summation

# Columns of a slot's row of addresses (``data``): its mjData, these arrays of it, and its buffer for the
# state before the last substep.
DATA_FIELDS = (
    "qpos",
    "qvel",
    "ctrl",
    "xpos",
    "xipos",
    "cfrc_ext",
    "cinert",
    "cvel",
    "qfrc_actuator",
    "qfrc_constraint",
    "site_xpos",
    "ten_length",
    "ten_velocity",
)
DATA = 0
(
    QPOS,
    QVEL,
    CTRL,
    XPOS,
    XIPOS,
    CFRC_EXT,
    CINERT,
    CVEL,
    QFRC_ACTUATOR,
    QFRC_CONSTRAINT,
    SITE_XPOS,
    TEN_LENGTH,
    TEN_VELOCITY,
) = range(1, 1 + len(DATA_FIELDS))
PRE = 1 + len(DATA_FIELDS)
FAILED = PRE + 1
"""Set to 1 when a libmujoco call on the slot failed (``mju_error``): its later calls are skipped, until
``reset_data`` clears it. The slot takes it from the row of the sub-environment it steps, and gives it back."""
REPORT = FAILED + 1
"""The address of the slot's ``_guard.REPORT_SIZE``-byte error report buffer."""
MODEL, TIMESTEP, BODY_MASS = REPORT + 1, REPORT + 2, REPORT + 3
"""The addresses of the slot's ``mjModel`` (the env's, or a copy of it when sub-environments have models of
their own), of its ``opt.timestep`` and of its ``body_mass``."""
SLOT_WIDTH = BODY_MASS + 1

MAX_FIELDS = 32
"""The most model fields that differ between sub-environments (see ``common_params``)."""

MAX_SLOTS = 64
"""The most slots (stepping threads with an mjData each) a vector env has; more threads share them."""

INTEGRATION = int(mujoco.mjtState.mjSTATE_INTEGRATION)
PRE_STEP = int(
    mujoco.mjtState.mjSTATE_INTEGRATION
    & ~(
        mujoco.mjtState.mjSTATE_CTRL
        | mujoco.mjtState.mjSTATE_QFRC_APPLIED
        | mujoco.mjtState.mjSTATE_XFRC_APPLIED
        | mujoco.mjtState.mjSTATE_EQ_ACTIVE
        | mujoco.mjtState.mjSTATE_MOCAP_POS
        | mujoco.mjtState.mjSTATE_MOCAP_QUAT
        | mujoco.mjtState.mjSTATE_USERDATA
    )
)
"""What a substep changes of the integration state (the inputs it only reads left out): saved before the
last substep of a step, to rebuild the sub-env's ``mjData`` as ``mj_step`` left it."""

# A sub-environment's float64 row: the slot stepping it (+1; 0: none), how its mjData's derived quantities
# are rebuilt (MODE_*), whether a MuJoCo error stopped it (ROW_FAILED: the slot that reported it, +1; 0:
# none), then its integration state, the state before the last substep, and the carry. A single env's row
# has the first three only.
HELD, MODE, ROW_FAILED, ROW_STATE = 0, 1, 2, 3
MODE_LOADED, MODE_FORWARD, MODE_STEPPED = 0.0, 1.0, 2.0
"""A fresh ``MjData`` (no derived quantity), ``mj_forward`` of the state (a reset), ``mj_step`` from the
state before the last substep then ``mj_rnePostConstraint`` (a step)."""
NO_CARRY = -1

_DIGEST = hashlib.sha1(
    b"".join(
        pathlib.Path(path).read_bytes()
        for path in (__file__, rng.standard_normal.__code__.co_filename, _summation.__file__)
    )
).hexdigest()[:16]

MIN_CHUNK_SIZE = MAX_CHUNK_SIZE = 1
"""Sub-environments a stepping thread claims at a time: one. A MuJoCo env step (``frame_skip`` calls of
``mj_step``) takes microseconds or more, a claim (one atomic addition) tens of nanoseconds: claiming each
alone costs little, and no thread waits for another longer than one sub-environment's step."""

COMMON_PARAMS = [
    # The helpers here are compiled into each env's kernels; their source digest in a field name makes
    # the record type (and so numba's cache key) change when they do.
    (f"_helpers_{_DIGEST}", np.uint8),
    ("_guarded_call", np.uint64),
    ("_mj_step", np.uint64),
    ("_mj_forward", np.uint64),
    ("_mj_rne_post_constraint", np.uint64),
    ("_mj_reset_data", np.uint64),
    ("_mj_get_state", np.uint64),
    ("_mj_set_state", np.uint64),
    ("_rows", np.bool_),
    ("_nslots", np.int64),
    ("_slots", np.int64, (MAX_SLOTS, SLOT_WIDTH)),
    ("_busy", np.int64, (MAX_SLOTS,)),
    ("_state_size", np.int64),
    ("_pre_size", np.int64),
    ("_carry", np.int64),
    ("_nrandom", np.int64),
    ("_random_values", np.int64, (MAX_FIELDS,)),
    ("_random_counts", np.int64, (MAX_FIELDS,)),
    ("_random_targets", np.int64, (MAX_SLOTS, MAX_FIELDS)),
    ("_model", np.int64),
    ("frame_skip", np.int64),
    ("_nq", np.int64),
    ("_nv", np.int64),
    ("_nu", np.int64),
    ("_nbody", np.int64),
    ("_ntendon", np.int64),
    ("_init_qpos", np.int64),
    ("_init_qvel", np.int64),
    ("_square_sums", np.int64),
    ("_norm_fuses", np.bool_),
]
"""Fields of every MuJoCo env's parameter record (addresses as integers); env fields follow them."""


def _libmujoco() -> ctypes.CDLL:
    directory = pathlib.Path(mujoco.__file__).parent
    candidates = (
        sorted(directory.glob("libmujoco.so*"))
        + sorted(directory.glob("libmujoco*.dylib"))
        + sorted(directory.glob("mujoco*.dll"))
    )
    if not candidates:
        raise ImportError(f"nbgym found no libmujoco library in {directory} (mujoco {mujoco.__version__}).")
    return ctypes.CDLL(str(candidates[0]))


_LIB = _libmujoco()
FUNCTIONS = {
    name: ctypes.cast(getattr(_LIB, name), ctypes.c_void_p).value
    for name in ("mj_step", "mj_forward", "mj_rnePostConstraint", "mj_resetData", "mj_getState", "mj_setState")
}
GUARDED_CALL, _GUARD_CODE = _guard.guarded_call_address(_LIB)
"""The address of ``_guard``'s ``guarded_call`` (0 where it cannot be built: the calls are then unguarded)."""

KEEP_TIMERS_VARIABLE = "NBGYM_MUJOCO_TIMERS"
"""Set to ``1`` (before the first MuJoCo env is made) to keep the ``mujoco`` bindings' profiling timer; ``0`` or unset,
nbgym stops it; any other value is refused (``ValueError``)."""


def _stop_default_timer() -> bool:
    """Stops the profiling timer that the ``mujoco`` bindings install (libmujoco's ``mjcb_time``, set when
    ``mujoco`` is imported, and again by ``mujoco.set_mjcb_time(None)``), unless ``NBGYM_MUJOCO_TIMERS=1`` or a
    timer of the user's is installed (``mujoco.get_mjcb_time()`` gives it): whether it stopped it.

    ``mj_step`` reads the clock at the start and end of each of its stages to add their wall-clock durations to
    ``data.timer``, a few dozen ``clock_gettime`` calls a step: a HalfCheetah-v5 step took 1.135x as long with them
    (64 sub-environments, one thread, medians of 7 interleaved rounds), Humanoid-v5 1.08x, Hopper-v5 1.20x.
    envpool's MuJoCo is built without them. The physics does not read them: without the timer ``data.timer``'s
    ``number`` counts as before and its ``duration`` stays 0. The timer is libmujoco's, one for the process, so this
    also stops it for the ``mujoco`` calls of other code (gymnasium's envs in the same process included)."""
    keep = os.environ.get(KEEP_TIMERS_VARIABLE, "0")
    if keep not in ("0", "1"):
        raise ValueError(
            f"{KEEP_TIMERS_VARIABLE}={keep!r}: set it to 1 to keep the mujoco bindings' profiling timer (data.timer's "
            f"durations), or to 0 or nothing to let nbgym stop it (faster steps)."
        )
    if keep == "1" or mujoco.get_mjcb_time() is not None:
        return False
    timer = ctypes.c_void_p.in_dll(_LIB, "mjcb_time")
    if not timer.value:
        return False
    timer.value = None
    return True


TIMER_STOPPED = _stop_default_timer()
"""Whether nbgym stopped the bindings' profiling timer when it loaded libmujoco (``_stop_default_timer``)."""


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


def slot_row(
    data: mujoco.MjData, pre: np.ndarray, report: np.ndarray, model: mujoco.MjModel, timestep: int
) -> list[int]:
    """The row of addresses of a slot simulating in ``data`` with ``model`` (``timestep``: the address of its
    ``opt.timestep``), with ``pre`` its buffer of ``PRE_STEP`` state and ``report`` its error report buffer."""
    return [
        data._address,
        *(getattr(data, field).ctypes.data for field in DATA_FIELDS),
        pre.ctypes.data,
        0,
        report.ctypes.data,
        model._address,
        timestep,
        model.body_mass.ctypes.data,
    ]


def model_field(model: mujoco.MjModel, name: str) -> np.ndarray:
    """The float64 array of ``model`` named ``name`` (``"body_mass"``, ``"opt.gravity"``...), a view of its memory.

    Raises:
        AttributeError: If the model has no such field.
        ValueError: If it is not an array of float64 (integer fields and ``opt``'s numbers cannot differ
            between sub-environments).
    """
    value = model
    for part in name.split("."):
        value = getattr(value, part)
    if not (isinstance(value, np.ndarray) and value.dtype == np.float64 and value.flags.c_contiguous and value.size):
        raise ValueError(
            f"Model field {name!r} cannot differ between sub-environments: only non-empty float64 arrays can "
            f"(body_mass, geom_friction, actuator_gear, dof_damping, opt.gravity, ...)."
        )
    return value


def new_reports(num_slots: int) -> np.ndarray:
    """The error report buffers of ``num_slots`` slots (their addresses go in ``REPORT``)."""
    return np.zeros((num_slots, _guard.REPORT_SIZE), dtype=np.uint8)


def report_text(reports: np.ndarray, slot: int) -> str:
    """The text of the last error report of ``slot``."""
    return bytes(reports[slot]).split(b"\0", 1)[0].decode("utf-8", "replace")


def row_width(model: mujoco.MjModel, carry: int) -> int:
    """The width of a sub-environment's row for ``model`` (``carry``: the column of the carried array, or ``NO_CARRY``)."""
    carried = 0 if carry == NO_CARRY else 3 * model.nbody
    return ROW_STATE + mujoco.mj_stateSize(model, INTEGRATION) + mujoco.mj_stateSize(model, PRE_STEP) + carried


def common_params(
    model: mujoco.MjModel,
    frame_skip: int,
    init_qpos: np.ndarray,
    init_qvel: np.ndarray,
    slots: list[tuple[mujoco.MjData, np.ndarray, np.ndarray, mujoco.MjModel]],
    rows: bool,
    carry: int,
    random: dict[str, np.ndarray] | None = None,
) -> dict:
    """The values of ``COMMON_PARAMS`` for ``model`` and the ``slots`` (each an ``MjData``, its buffer of
    ``PRE_STEP`` state, its error report buffer and its model); the arrays must outlive the env's kernels.

    ``random`` holds each model field that differs between sub-environments: its values, one row per
    sub-environment, which a slot copies into its own model before stepping or resetting that sub-environment.
    """
    if not 1 <= len(slots) <= MAX_SLOTS:
        raise ValueError(f"A MuJoCo env has 1 to {MAX_SLOTS} slots, got {len(slots)}.")
    random = random or {}
    if len(random) > MAX_FIELDS:
        raise ValueError(f"At most {MAX_FIELDS} model fields can differ between sub-environments, got {len(random)}.")
    offset = timestep_address(model) - model._address
    table = np.zeros((MAX_SLOTS, SLOT_WIDTH), dtype=np.int64)
    targets = np.zeros((MAX_SLOTS, MAX_FIELDS), dtype=np.int64)
    for k, (data, pre, report, slot_model) in enumerate(slots):
        table[k] = slot_row(data, pre, report, slot_model, slot_model._address + offset)
        for f, name in enumerate(random):
            targets[k, f] = model_field(slot_model, name).ctypes.data
    values = np.zeros(MAX_FIELDS, dtype=np.int64)
    counts = np.zeros(MAX_FIELDS, dtype=np.int64)
    for f, array in enumerate(random.values()):
        values[f] = array.ctypes.data
        counts[f] = array[0].size
    return {
        "_guarded_call": GUARDED_CALL,
        "_mj_step": FUNCTIONS["mj_step"],
        "_mj_forward": FUNCTIONS["mj_forward"],
        "_mj_rne_post_constraint": FUNCTIONS["mj_rnePostConstraint"],
        "_mj_reset_data": FUNCTIONS["mj_resetData"],
        "_mj_get_state": FUNCTIONS["mj_getState"],
        "_mj_set_state": FUNCTIONS["mj_setState"],
        "_rows": rows,
        "_nslots": len(slots),
        "_slots": table,
        "_busy": np.zeros(MAX_SLOTS, dtype=np.int64),
        "_state_size": mujoco.mj_stateSize(model, INTEGRATION),
        "_pre_size": mujoco.mj_stateSize(model, PRE_STEP),
        "_carry": carry,
        "_nrandom": len(random),
        "_random_values": values,
        "_random_counts": counts,
        "_random_targets": targets,
        "_model": model._address,
        "frame_skip": frame_skip,
        "_nq": model.nq,
        "_nv": model.nv,
        "_nu": model.nu,
        "_nbody": model.nbody,
        "_ntendon": model.ntendon,
        "_init_qpos": init_qpos.ctypes.data,
        "_init_qvel": init_qvel.ctypes.data,
        "_square_sums": 0,
        "_norm_fuses": NORM_FUSES,
    }


if numba.config.DISABLE_JIT:
    # Interpreted kernels (CI's coverage pass) reach the same functions and memory through ctypes.
    _MODEL_DATA_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

    _GUARDED_FUNCTION = ctypes.CFUNCTYPE(
        ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
    )

    def call(function, model, data):
        """Call the libmujoco function at address ``function`` with ``(mjModel*, mjData*)``."""
        _MODEL_DATA_FUNCTION(int(function))(int(model), int(data))

    _STATE_FUNCTION = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)

    def call_state(function, model, data, state, spec):
        """Call ``mj_getState``/``mj_setState`` (at address ``function``) with ``(mjModel*, mjData*, mjtNum*, int)``."""
        _STATE_FUNCTION(int(function))(int(model), int(data), int(state), int(spec))

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
    def call_state(typingctx, function, model, data, state, spec):
        """Call ``mj_getState``/``mj_setState`` (at address ``function``) with ``(mjModel*, mjData*, mjtNum*, int)``."""
        if not all(isinstance(arg, types.Integer) for arg in (function, model, data, state, spec)):
            return None

        def codegen(context, builder, signature, args):
            from llvmlite import ir

            pointer = ir.IntType(8).as_pointer()
            function_type = ir.FunctionType(ir.VoidType(), [pointer, pointer, pointer, ir.IntType(32)])
            target = builder.inttoptr(args[0], function_type.as_pointer())
            spec_value = builder.trunc(context.cast(builder, args[4], signature.args[4], types.int64), ir.IntType(32))
            builder.call(target, [builder.inttoptr(args[k], pointer) for k in (1, 2, 3)] + [spec_value])
            return context.get_dummy_value()

        return types.void(function, model, data, state, spec), codegen

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
def dt(params, data):
    """gymnasium's ``MujocoEnv.dt``: ``model.opt.timestep * frame_skip``, read live from the slot's model."""
    return load(data[TIMESTEP], 0) * params.frame_skip


@njit
def total_mass(data, count):
    """``np.sum(model.body_mass)`` of the slot's model (``count`` bodies), summed in numpy's order."""
    masses = np.empty(count, dtype=np.float64)
    for k in range(count):
        masses[k] = load(data[BODY_MASS], k)
    return 0.0 + _summation.pairwise_sum(masses, 0, count)


@njit
def mj_call(params, data, function):
    """Call the libmujoco ``function(mjModel*, mjData*)`` on the slot ``data``, guarded (see ``_guard``): a
    MuJoCo error sets ``data[FAILED]`` (its text in the slot's report buffer) instead of ending the process.
    Skipped once the sub-environment has failed; whether the call ran and succeeded."""
    if data[FAILED] != 0:
        return False
    if params._guarded_call == 0:
        call(function, data[MODEL], data[DATA])
        return True
    if call_guarded(params._guarded_call, function, data[MODEL], data[DATA], data[REPORT]) != 0:
        data[FAILED] = 1
        return False
    return True


@njit
def simulate(params, data, i, actions):
    """gymnasium's ``do_simulation``: ``ctrl[:] = action``, ``frame_skip`` calls of ``mj_step``, then
    ``mj_rnePostConstraint`` (which computes ``cfrc_ext`` and the other force fields). Stops at a MuJoCo
    error (see ``mj_call``). In a vector env the state before the last substep goes to the slot's buffer
    (see ``PRE_STEP``)."""
    address = data[DATA]
    ctrl = data[CTRL]
    for k in range(params._nu):
        store(ctrl, k, np.float64(actions[i, k]))
    last = params.frame_skip - 1
    for k in range(params.frame_skip):
        if k == last and params._rows:
            call_state(params._mj_get_state, data[MODEL], address, data[PRE], PRE_STEP)
        if not mj_call(params, data, params._mj_step):
            return
    mj_call(params, data, params._mj_rne_post_constraint)


@njit
def reset_data(params, data, i):
    """``mj_resetData``: the model's default state, zero controls, time 0 (gymnasium's reset does it first).
    It clears a MuJoCo error of the sub-environment: ``mj_resetData`` releases what the failed call held."""
    data[FAILED] = 0
    mj_call(params, data, params._mj_reset_data)


@njit
def forward(params, data, i):
    """``mj_forward``: the derived quantities of the state just set (gymnasium's ``set_state`` ends with it)."""
    mj_call(params, data, params._mj_forward)


# The env's functions, reached through these stubs by the type of its parameter record (as the engine
# reaches the generic physics functions below, see ``nbgym.engine.dispatch_on_params``).
_env_functions: dict[np.dtype, dict] = {}


def env_reset(params, data, i, rng, aux):
    return _env_functions[params.dtype]["reset"](params, data, i, rng, aux)


def env_step(params, data, i, actions, rng, aux):
    return _env_functions[params.dtype]["step"](params, data, i, actions, rng, aux)


def env_observe(params, data, i, obs):
    return _env_functions[params.dtype]["observe"](params, data, i, obs)


@njit
def _copy(source, target, count):
    for k in range(count):
        store(target, k, load(source, k))


@njit
def _acquire(params, state, i):
    """A free slot for sub-environment ``i`` (claimed with an atomic flag, recorded in its row), with the
    sub-environment's MuJoCo error flag."""
    slot = 0
    if params._rows:
        busy = params._busy
        found = False
        while not found:
            for candidate in range(params._nslots):
                if fetch_add(busy, candidate, 1) == 0:
                    slot = candidate
                    found = True
                    break
                fetch_add(busy, candidate, -1)
        state[i, HELD] = slot + 1
        for f in range(params._nrandom):  # the sub-environment's own values of the fields that differ
            count = params._random_counts[f]
            _copy(params._random_values[f] + 8 * i * count, params._random_targets[slot, f], count)
    params._slots[slot, FAILED] = 1 if state[i, ROW_FAILED] != 0 else 0
    return slot


@njit
def _give_back_failure(params, state, i, slot):
    """Sub-environment ``i``'s MuJoCo error flag from its slot (the slot that reported it, +1). A vector env's
    slot that failed is reset for the next sub-environment it steps (``mj_resetData`` releases what the failed
    call held); a single env keeps its ``data`` as the error left it, as gymnasium's."""
    data = params._slots[slot]
    if data[FAILED] == 0:
        state[i, ROW_FAILED] = 0.0
        return
    state[i, ROW_FAILED] = slot + 1
    if params._rows:
        state[i, MODE] = MODE_LOADED  # its state is what the error left: nothing to rebuild from it
        call(params._mj_reset_data, data[MODEL], data[DATA])


@njit
def _save(params, state, i, data, mode):
    """Row ``i`` from the slot's ``mjData``: its integration state, the state before its last substep, the carry."""
    row = state[i]
    size = params._state_size
    call_state(params._mj_get_state, data[MODEL], data[DATA], row[ROW_STATE:].ctypes.data, INTEGRATION)
    if mode == MODE_STEPPED:
        _copy(data[PRE], row[ROW_STATE + size :].ctypes.data, params._pre_size)
    if params._carry != NO_CARRY:
        _copy(data[params._carry], row[ROW_STATE + size + params._pre_size :].ctypes.data, 3 * params._nbody)
    row[MODE] = mode


@njit
def _load(params, state, i, data):
    """The slot's ``mjData`` from row ``i``: its integration state and the carry."""
    row = state[i]
    size = params._state_size
    call_state(params._mj_set_state, data[MODEL], data[DATA], row[ROW_STATE:].ctypes.data, INTEGRATION)
    if params._carry != NO_CARRY:
        _copy(row[ROW_STATE + size + params._pre_size :].ctypes.data, data[params._carry], 3 * params._nbody)


def row_reset(params, state, i, rng, aux):
    """The physics' ``reset``: the env's reset on a slot (``mj_resetData`` makes any slot fresh), saved to row ``i``."""
    slot = _acquire(params, state, i)
    data = params._slots[slot]
    env_reset(params, data, i, rng, aux)
    if params._rows:
        _save(params, state, i, data, MODE_FORWARD)
    _give_back_failure(params, state, i, slot)


def row_step(params, state, i, actions, rng, aux):
    """The physics' ``step``: row ``i`` loaded into a slot, the env's step, the row saved."""
    slot = _acquire(params, state, i)
    data = params._slots[slot]
    if params._rows:
        _load(params, state, i, data)
    result = env_step(params, data, i, actions, rng, aux)
    if params._rows:
        _save(params, state, i, data, MODE_STEPPED if params.frame_skip > 0 else MODE_FORWARD)
    _give_back_failure(params, state, i, slot)
    return result


def row_observe(params, state, i, obs):
    """The physics' ``observe``: the env's observation from the slot that just reset or stepped row ``i``
    (which holds its derived quantities), then the slot is free. The engine observes after every reset and step."""
    if not params._rows:
        env_observe(params, params._slots[0], i, obs)
        return
    slot = np.int64(state[i, HELD]) - 1
    env_observe(params, params._slots[slot], i, obs)
    state[i, HELD] = 0.0
    fetch_add(params._busy, slot, -1)


def read_controls(params: Any, action: Any) -> Any:
    """gymnasium's reading of a MuJoCo env's action: ``MujocoEnv.do_simulation``'s ``data.ctrl[:] = action`` (numpy's
    conversion into float64) and the control costs' ``np.square(action)``."""
    controls = np.empty(np.shape(action))
    controls[...] = action
    np.square(action)
    return action


def physics(
    name: str, *, params: list, source: str, reset, step, observe, aux_width: int, carry: int = NO_CARRY
) -> Physics:
    """A MuJoCo env's physics: the engine runs ``row_reset``/``row_step``/``row_observe``, which run the env's
    ``reset(params, data, i, rng, aux)``, ``step(params, data, i, actions, rng, aux)`` and
    ``observe(params, data, i, obs)`` on a slot (``data``: its row of addresses).

    Args:
        carry: The column (``XPOS``...) of the derived array that ``step`` reads before simulating, kept in
            the rows (it is not part of the integration state).
    """
    result = Physics(
        name,
        params=params,
        state=(1, np.float64),
        source=source,
        reset=row_reset,
        step=row_step,
        observe=row_observe,
        action_valid=always_valid,
        min_chunk_size=MIN_CHUNK_SIZE,
        max_chunk_size=MAX_CHUNK_SIZE,
        aux_width=aux_width,
        read_action=read_controls,
    )
    result.carry = carry
    functions = {"reset": reset, "step": step, "observe": observe}
    _env_functions[result.params_dtype] = functions
    for stub, role in ((env_reset, "reset"), (env_step, "step"), (env_observe, "observe")):
        dispatch_on_params(stub, result.params_dtype, functions[role], inline="never")
    return result


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
        store(target, k, load(initial, k) + scale * rng.standard_normal(stream, i))


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
    """``np.clip`` of one float (``npmath.clip``: a NaN value or bound gives NaN, ``high`` wins over a ``low`` above it)."""
    return npmath.clip(value, low, high)


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
def state_vector_value(params, data, i, k):
    """``state_vector()[k]`` (``qpos`` then ``qvel``), which gymnasium reads where the model may have fewer
    than ``k + 1`` positions; ``k < nq + nv`` (checked at make, see ``require``)."""
    if k < params._nq:
        return load(data[QPOS], k)
    return load(data[QVEL], k - params._nq)


def require_observation_size(size: int) -> None:
    """gymnasium builds the observation ``Box`` before anything reads the model: a model too small for even
    the observation's size fails there first.

    Raises:
        ValueError: If ``size`` is negative (numpy's error making the ``Box``).
    """
    if size < 0:
        raise ValueError(
            f"negative dimensions are not allowed (an observation of {size} values: the model is too small)"
        )


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
def positions_info(params, data, i, aux, column):
    """gymnasium's ``x_position``, ``y_position`` and ``distance_from_origin`` (``qpos[0]``, ``qpos[1]``,
    the norm of both) into ``aux[i, column:column + 3]``."""
    qpos = data[QPOS]
    aux[i, column] = load(qpos, 0)
    aux[i, column + 1] = load(qpos, 1)
    aux[i, column + 2] = norm(qpos, 0, 2, params._norm_fuses)


@njit
def tendons_info(params, data, i, aux, column):
    """gymnasium's ``tendon_length`` then ``tendon_velocity`` (``ntendon`` each) from ``aux[i, column]`` on."""
    count = params._ntendon
    for k in range(count):
        aux[i, column + k] = load(data[TEN_LENGTH], k)
        aux[i, column + count + k] = load(data[TEN_VELOCITY], k)


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
