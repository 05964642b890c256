"""The Python classes of nbgym's compiled MuJoCo environments: single (``MujocoEnv`` run by the kernels)
and vector (every sub-environment stepped in one compiled call).

An environment module defines its physics (see ``_sim``), its info keys (``InfoKey``: a name, the
aux column the kernels write it to, the Python type gymnasium gives it), a mixin of what both classes share
(its ``_configure``: the env's arguments to a ``configure``), the single env class (its ``__init__``, decorated
with ``nbgym.engine.declares_arguments``, declares the env's arguments once) and the vector env class made from it
(``nbgym.engine.vector_env_class``), as every compiled env does.
"""

from __future__ import annotations

import copy
import ctypes
import sys
import types
from typing import Any, Callable, ClassVar, NamedTuple

import mujoco
import numba
import numpy as np

from nbgym import error, spaces
from nbgym.engine import written
from nbgym.engine import KernelEnv, KernelVectorEnv, Physics
from nbgym.envs.mujoco import _sim
from nbgym.envs.mujoco.mujoco_env import (
    DEFAULT_SIZE,
    MujocoEnv,
    action_space_of,
    check_one_camera,
    expand_model_path,
    load_model,
)
from nbgym.vector import AutoresetMode

# Kinds of info values: ``np.float64``; a Python ``float``; a Python ``int``; the action's float dtype (a
# control cost computed on the action, as gymnasium computes it); a float64 array of ``model.ntendon``; a
# ``np.float64`` that is a Python ``int`` where the column after it is set (gymnasium's ``-min(cost, 10)``).
F64, FLOAT, INT, ACTION, TENDONS, CLIPPED_INT = "float64", "float", "int", "action", "tendons", "clipped_int"


CLASS_DEFAULT = object()
"""A keyword's default meaning "the class's value" where ``None`` is a value of its own."""

_COMMON_FIELDS = frozenset(field[0] for field in _sim.COMMON_PARAMS)

Configure = Callable[[mujoco.MjModel], tuple[int, dict[str, Any]]]
"""For a loaded model, the length of the float64 observation vector and the values of the env's own parameter fields."""

RENDERING_ARGUMENTS = frozenset(
    (
        "default_camera_config",
        "render_mode",
        "width",
        "height",
        "camera_id",
        "camera_name",
        "max_geom",
        "visual_options",
    )
)
"""``MujocoEnv``'s rendering arguments: a vector env takes them among its options (``CompiledMujocoVectorEnv``)."""


def makes_float64_with_float32(value: Any) -> bool:
    """Whether ``value`` times a float32 is float64 under NEP 50: a ``np.float64`` (or ``np.int64``) is,
    a Python number or a ``np.float32`` keeps float32."""
    return np.result_type(value, np.float32) == np.float64


def with_weight_flags(physics: Physics, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (parameter fields) with the flag of each action weight among them (see ``_sim.action_weight``).

    Raises:
        TypeError: For a weight that is not a number, naming its argument.
    """
    names = physics.params_dtype.names
    flags = {}
    for field, value in values.items():
        if field + _sim.FLOAT64_PRODUCT in names:
            try:
                flags[field + _sim.FLOAT64_PRODUCT] = makes_float64_with_float32(value)
            except TypeError:
                raise TypeError(f"{field.lstrip('_')} must be a number, got {value!r}.") from None
    return {**values, **flags}


def check_reset_noise_scale(scale: Any) -> None:
    """Refuses a ``reset_noise_scale`` for which gymnasium's reset fails, before anything moves: its
    ``np_random.uniform(low=-scale, high=scale)`` raises ``ValueError`` for a negative scale and ``OverflowError`` for one
    whose range ``2 * scale`` is not finite, where the kernels' draws would go on with it.

    Raises:
        ValueError: If ``scale`` is negative.
        OverflowError: If ``scale - (-scale)`` is not a finite float64 (NaN, infinite, above 8.9e307).
    """
    if scale is None:
        return
    span = np.float64(scale) - np.float64(-scale)
    if not np.isfinite(span):
        raise OverflowError(
            f"reset_noise_scale={scale!r}: gymnasium's reset draws uniform(-scale, scale), whose range must be a finite "
            f"float64 (numpy: 'high - low range exceeds valid bounds'); use a finite scale below 8.9e307."
        )
    if span < 0:
        raise ValueError(
            f"reset_noise_scale={scale!r}: gymnasium's reset draws uniform(-scale, scale), which numpy refuses for a "
            f"negative scale ('high - low < 0'); use a scale >= 0."
        )


def fixed_at_make(field: str, dtype: np.dtype) -> bool:
    """Whether the parameter ``field`` is fixed when the env is made: an integer (a body or dof index, an observed
    size: the kernels read the model's arrays at it, unchecked) or a choice of the observation's parts (its space and
    buffers have their shape from it)."""
    return dtype.kind in "iu" or field.endswith(("_in_observation", "_from_observation"))


def record_property(field: str, flag: str | None = None, fixed: bool = False, name: str | None = None) -> property:
    """A property reading and writing ``field`` of the env's parameter record (a range as a tuple), under the
    attribute ``name`` (``field`` by default: an older version's name of the same parameter).

    ``flag`` names an action weight's flag field: assigning the weight sets it, and the weight reads back
    as a ``np.float64`` where it is set (as gymnasium keeps the value it was given). A ``fixed`` field
    (see ``fixed_at_make``) refuses assignment with ``AttributeError``.
    """

    def get(self):
        value = self._params[field][0]
        if flag is not None and self._params[flag][0]:
            return np.float64(value)
        return tuple(value.tolist()) if np.ndim(value) else value.item()

    def set(self, value):
        if fixed:
            raise AttributeError(
                f"{name or field} is fixed when the env is made (it shapes the observation or indexes the model, which the "
                f"compiled kernels read unchecked): pass the corresponding argument to make() instead of assigning {value!r}."
            )
        if field == "_reset_noise_scale":
            check_reset_noise_scale(value)
        # An action weight's flag follows numpy's arithmetic of a float32 product (see ``makes_float64_with_float32``).
        follows = (written.PYTHON, written.FLOAT64, written.FLOAT32, written.FLOAT16) if flag is not None else None
        written.store(self._params, field, value, field, follows)
        if flag is not None:
            self._params[flag] = makes_float64_with_float32(value)

    return property(
        get, set, doc=f"gymnasium's ``{field}``, read from and written to the compiled physics' parameters."
    )


class InfoKey(NamedTuple):
    """An info entry: its ``name``, its first ``column`` in the kernels' aux row, and its ``kind``."""

    name: str
    column: int
    kind: str = F64
    weight: str = ""
    """For the kind ``ACTION``: the action weight in the product (whose flag may make it float64)."""


def _single_value(key: InfoKey, row: np.ndarray, action_dtype: np.dtype, ntendon: int) -> Any:
    if key.kind == TENDONS:
        return row[key.column : key.column + ntendon].copy()
    value = row[key.column]
    if key.kind == F64:
        return np.float64(value)
    if key.kind == FLOAT:
        return float(value)
    if key.kind == INT:
        return int(value)
    if key.kind == CLIPPED_INT:
        return int(value) if row[key.column + 1] else np.float64(value)
    return action_dtype.type(value)


def _batched_value(
    key: InfoKey, aux: np.ndarray, present: np.ndarray, action_dtype: np.dtype, ntendon: int
) -> np.ndarray:
    """The column(s) of ``key`` as gymnasium's vector env batches them: zero where not ``present``."""
    if key.kind == TENDONS:
        return np.where(present[:, None], aux[:, key.column : key.column + ntendon], 0.0)
    if key.kind == CLIPPED_INT:
        # gymnasium's vector env makes the array of the type of the first value, so an int first truncates
        # the others.
        first = int(present.argmax())
        dtype = np.int64 if aux[first, key.column + 1] else np.float64
    else:
        dtype = {F64: np.float64, FLOAT: np.float64, INT: np.int64}.get(key.kind, action_dtype)
    return np.where(present, aux[:, key.column], 0.0).astype(dtype)


def tendon_keys(first_column: int, ntendon: int) -> tuple[InfoKey, InfoKey]:
    """The ``tendon_length`` and ``tendon_velocity`` infos (arrays of ``ntendon``) from ``first_column`` on."""
    return (
        InfoKey("tendon_length", first_column, TENDONS),
        InfoKey("tendon_velocity", first_column + ntendon, TENDONS),
    )


def _action_dtype(actions: Any) -> np.dtype:
    """The dtype in which gymnasium computes a control cost of ``actions`` (float64 unless float32)."""
    dtype = actions.dtype if isinstance(actions, np.ndarray) else np.asarray(actions).dtype
    return np.dtype(np.float32) if dtype.kind == "f" and dtype.itemsize == 4 else np.dtype(np.float64)  # ">f4" too


class _Simulations:
    """What a MuJoCo physics needs from Python: the model, the ``MjData`` of each slot (the single env's
    own ``data``; one per stepping thread of a vector env, see ``_sim``), the initial state and the
    parameter record pointing at all of them."""

    physics: ClassVar[Physics]
    _step_info_keys: ClassVar[tuple[InfoKey, ...]] = ()
    _reset_info_keys: ClassVar[tuple[InfoKey, ...]] = ()
    _aux_columns: ClassVar[int] = 0
    """Aux columns besides the tendon arrays (which follow them)."""
    default_camera_config: ClassVar[dict[str, Any] | None] = None
    """The env's default ``default_camera_config`` (the free camera's attributes when rendering)."""
    _has_tendon_infos: ClassVar[bool] = False
    """Whether the infos carry ``tendon_length``/``tendon_velocity`` (their columns follow ``_aux_columns``)."""

    model: mujoco.MjModel
    _slot_datas: list[mujoco.MjData]
    _pre_states: np.ndarray
    """Each slot's buffer of the state before the last substep (``_sim.PRE_STEP``)."""
    _params: np.ndarray
    _uses_rows: ClassVar[bool] = False
    """Whether sub-environments live in state rows (a vector env) rather than in the slot's ``MjData``."""
    _reports: np.ndarray
    """Each slot's buffer for the text of a MuJoCo error (see ``_sim.mj_call``)."""
    _mujoco_failed: bool = False
    """Whether a sub-environment stopped on a MuJoCo error and has not been reset since: steps are refused."""

    _constant_arguments: ClassVar[dict[str, Any]] = {}
    """``xml_file`` and ``frame_skip`` where the env does not take them as arguments (v4): their values."""

    def _configure(self, arguments: types.SimpleNamespace) -> Configure:
        """The ``configure`` for the env's arguments (bound, defaults applied, with ``_constant_arguments``);
        called before the model is loaded, it may also set what the arguments decide (the info keys)."""
        raise NotImplementedError

    def _environment_arguments(self, arguments: types.SimpleNamespace) -> types.SimpleNamespace:
        """The env's arguments, with ``_constant_arguments`` (what ``_configure`` takes)."""
        return types.SimpleNamespace(**{**self._constant_arguments, **vars(arguments)})

    _square_sums_bound: bool = False
    _negates_square_sum: ClassVar[bool] = False
    """Whether gymnasium negates the integer sum of squares before weighting it (Reacher, Pusher)."""
    """Whether ``params._square_sums`` points at ``_square_sums`` (integer actions: see ``_sim.weighted_action_cost``)."""

    def _set_square_sums(self, actions: Any, first: int = 0, stop: int | None = None) -> None:
        """For integer actions, gymnasium's ``np.sum(np.square(action))`` of each sub-environment's action (of those
        from ``first`` to ``stop - 1``, every one by default), in the actions' integer dtype (squares wrap around as
        numpy's do), for the kernels' control costs: rows of one array of the env's, which the kernels read."""
        array = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if array.dtype.kind in "iu":
            num_envs = self._batch.num_envs
            stop = num_envs if stop is None else stop
            rows = array.reshape(stop - first, -1)
            if self._negates_square_sum:  # gymnasium's -np.square(action).sum() * weight: negated as an int
                sums = -np.array([-np.square(row).sum() for row in rows], dtype=np.float64)
            else:
                sums = np.array([np.sum(np.square(row)) for row in rows], dtype=np.float64)
            if self.__dict__.get("_square_sums") is None or self._square_sums.size != num_envs:
                self._square_sums = np.zeros(num_envs)
            self._square_sums[first:stop] = sums
            self._params["_square_sums"] = self._square_sums.ctypes.data  # the same while the array lives
            self._square_sums_bound = True
        elif self._square_sums_bound:
            self._params["_square_sums"] = 0
            self._square_sums_bound = False

    def _refuse_after_mujoco_error(self) -> None:
        """Refuse a step while a sub-environment that stopped on a MuJoCo error has not been reset.

        Raises:
            nbgym.error.ResetNeeded: If one has not.
        """
        if self._mujoco_failed:
            column = self._batch.state[:, _sim.ROW_FAILED]
            failed = np.flatnonzero(column).tolist()
            text = _sim.report_text(self._reports, int(column[failed[0]]) - 1)
            raise error.ResetNeeded(
                f"MuJoCo stopped with an error in sub-environment(s) {failed} ({text!r}"
                f"), whose simulation is no longer valid: reset them (reset()) before stepping again."
            )

    def _raise_mujoco_errors(self, checked: np.ndarray | None) -> None:
        """After a step or reset: raise MuJoCo's error where a sub-environment in ``checked`` (all when
        ``None``) failed, as gymnasium's bindings raise it; the env then refuses steps until those are reset.

        Raises:
            mujoco.FatalError: With MuJoCo's message (for a vector env, followed by the failed sub-environments).
        """
        column = self._batch.state[:, _sim.ROW_FAILED]
        if not column.any():
            self._mujoco_failed = False
            return
        self._mujoco_failed = True
        failed = np.flatnonzero(column if checked is None else (column != 0) & checked)
        if failed.size:
            # The text the slot that stepped the first of them reported last.
            message = _sim.report_text(self._reports, int(column[failed[0]]) - 1)
            if self._batch.num_envs > 1 or isinstance(self, KernelVectorEnv):
                message += f" (in sub-environment(s) {failed.tolist()}; reset them before stepping again)"
            raise mujoco.FatalError(message)

    def _aux_width(self) -> int:
        return self._aux_columns + 2 * self.model.ntendon * self._has_tendon_infos

    def _info_keys(self, keys: tuple[InfoKey, ...]) -> tuple[InfoKey, ...]:
        """``keys`` with the tendon infos' columns, which depend on the model, filled in."""
        if not self._has_tendon_infos:
            return keys
        by_name = {key.name: key for key in tendon_keys(self._aux_columns, self.model.ntendon)}
        return tuple(by_name.get(key.name, key) for key in keys)

    def _cost_dtype(self, key: InfoKey) -> np.dtype:
        """The dtype of gymnasium's value of an ``ACTION`` info ``key`` after the last step: the action's,
        or float64 where its weight makes float64 products."""
        if key.weight and self._params[key.weight + _sim.FLOAT64_PRODUCT][0]:
            return np.dtype(np.float64)
        return self._last_action_dtype

    def _bind_addresses(self) -> None:
        """Point the parameter record at this object's model, arrays and slots; size the state rows.

        Called after construction, after a change of slots and after a copy or unpickling (whose objects
        live elsewhere).
        """
        pre_size = mujoco.mj_stateSize(self.model, _sim.PRE_STEP)
        slots = len(self._slot_datas)
        if getattr(self, "_pre_states", None) is None or self._pre_states.shape != (slots, pre_size):
            self._pre_states = np.zeros((slots, pre_size), dtype=np.float64)
        if getattr(self, "_reports", None) is None or len(self._reports) != slots:
            self._reports = _sim.new_reports(slots)
        random = getattr(self, "_random", None) or {}
        if random and len(getattr(self, "_slot_models", ())) != slots:
            self._slot_models = [copy.copy(self.model) for _ in range(slots)]
        slot_models = self._slot_models if random else [self.model] * slots
        params = _sim.common_params(
            self.model,
            int(self._params["frame_skip"][0]),
            self._init_qpos,
            self._init_qvel,
            list(zip(self._slot_datas, self._pre_states, self._reports, slot_models)),
            self._uses_rows,
            self.physics.carry,
            random,
        )
        for field, value in params.items():
            self._params[field] = value
        self._square_sums_bound = False
        batch = self._batch
        width = _sim.row_width(self.model, self.physics.carry) if self._uses_rows else _sim.ROW_STATE
        if batch.state.shape[1] != width:
            # Rows of a fresh MjData's state, as each of gymnasium's sub-environments has before its reset.
            batch.state = np.zeros((batch.num_envs, width), dtype=np.float64)
            if self._uses_rows:
                fresh = np.empty(params["_state_size"])
                mujoco.mj_getState(self.model, mujoco.MjData(self.model), fresh, _sim.INTEGRATION)
                batch.state[:, _sim.ROW_STATE : _sim.ROW_STATE + fresh.size] = fresh
        width = self._aux_width()
        if batch.auxes.shape[2] != width:
            # The aux width depends on the model (its tendons), not only on the physics.
            batch.auxes = np.zeros((2, batch.num_envs, width), dtype=np.float64)
            batch._make_views()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # gymnasium keeps an env's weights and ranges in private attributes (``_ctrl_cost_weight``): here
        # they read and write the parameter record, so changing one changes the following steps.
        physics = getattr(cls, "physics", None)
        if physics is not None:
            names = physics.params_dtype.names
            for field in names[1:]:
                if field.endswith(_sim.FLOAT64_PRODUCT):
                    continue  # an action weight's flag: set through the weight's property
                if field.startswith("_") and field not in _COMMON_FIELDS and not hasattr(cls, field):
                    flag = field + _sim.FLOAT64_PRODUCT
                    fixed = fixed_at_make(field, physics.params_dtype[field])
                    setattr(cls, field, record_property(field, flag if flag in names else None, fixed))

    # Attributes whose objects the kernels reach through an address in the parameter record or the state
    # rows: the model (and its arrays: ``body_mass``, ``opt.timestep``), the initial state arrays, each
    # sub-environment's ``MjData`` (and its arrays) and error report buffer. Assigning one either writes
    # into the object the kernels read (``init_qpos``, ``init_qvel``), rebinds the address to the new
    # object this env then holds (``data``), or is refused (``model``): no address is ever left pointing
    # at an object the env no longer holds.

    @property
    def model(self) -> mujoco.MjModel:
        """The ``MjModel`` the kernels simulate (its fields can be changed in place; it cannot be replaced)."""
        return self._model

    @model.setter
    def model(self, value: mujoco.MjModel) -> None:
        if "_model" in self.__dict__ and value is not self._model:
            raise AttributeError(
                f"{type(self).__name__}.model cannot be replaced: the compiled kernels simulate the model the env "
                f"was made with (its sizes fix the observation, its arrays are read by address). Change its fields "
                f"in place (env.unwrapped.model.opt.timestep = ...), or make a new env with xml_file=..."
            )
        self._model = value

    def _set_initial_state(self, field: str, value: Any, size: int) -> None:
        """Assign ``init_qpos``/``init_qvel`` (the private array ``field``) as gymnasium uses them: any value
        that broadcasts to ``(size,)`` (gymnasium adds it to the noise of ``size`` values at each reset).

        Raises:
            ValueError: If ``value`` does not broadcast to ``(size,)`` (gymnasium's reset would raise it).
        """
        try:
            values = np.broadcast_to(written.float64_array(value, field[1:]), (size,))
        except ValueError:
            raise ValueError(
                f"{field[1:]} must broadcast to the model's shape ({size},) (it is added to the reset noise), got "
                f"{value!r}."
            ) from None
        current = self.__dict__.get(field)
        if current is not None and current.shape == (size,) and current.flags.writeable:
            current[...] = values  # the kernels read this array: its address stays
        else:
            self._hold(field, np.array(values))

    def _hold(self, field: str, array: np.ndarray) -> None:
        """Keep ``array`` as the attribute ``field`` and point the parameter of the same name at it."""
        setattr(self, field, array)
        if "_params" in self.__dict__ and field in self._params.dtype.names:
            self._params[field] = array.ctypes.data

    @property
    def init_qpos(self) -> np.ndarray:
        """The joint positions around which resets draw (assigning copies into the array the kernels read)."""
        return self._init_qpos

    @init_qpos.setter
    def init_qpos(self, value: Any) -> None:
        self._set_initial_state("_init_qpos", value, self.model.nq)

    @property
    def init_qvel(self) -> np.ndarray:
        """The joint velocities around which resets draw (assigning copies into the array the kernels read)."""
        return self._init_qvel

    @init_qvel.setter
    def init_qvel(self, value: Any) -> None:
        self._set_initial_state("_init_qvel", value, self.model.nv)

    _frame_skip: Any = None
    """``frame_skip`` as given (gymnasium keeps the value; the kernels read its int in the parameters)."""
    _frame_skip_refusal: str | None = None
    """Why steps raise ``TypeError`` (a ``frame_skip`` that is no int for ``mj_step``), or ``None``."""

    @property
    def frame_skip(self) -> Any:
        """MuJoCo steps per environment step (live: assigning it changes the following steps)."""
        return self._frame_skip

    @frame_skip.setter
    def frame_skip(self, value: Any) -> None:
        # gymnasium passes frame_skip to mj_step(nstep=...), which takes an int of 32 bits (or a bool) and raises
        # TypeError at the first step for a Python float (np.float64 too), a string, an array of one or more elements.
        # Other numbers it truncates (np.float32(2.5) is 2 steps), and its dt (timestep * frame_skip) is then of their
        # type: refused here, before anything changes.
        integer = isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_)
        if not integer and not isinstance(value, (float, str)) and np.ndim(value) == 0 and hasattr(value, "__int__"):
            raise TypeError(
                f"frame_skip takes an int, got {value!r} ({type(value).__name__}): gymnasium's mj_step would truncate it "
                f"and its dt (timestep * frame_skip) would be of its type, which nbgym does not reproduce. Write "
                f"`int(value)`."
            )
        self._frame_skip = value
        if integer and -(2**31) <= value < 2**31:
            self._params["frame_skip"] = int(value)
            self._frame_skip_refusal = None
        else:
            self._params["frame_skip"] = 0
            self._frame_skip_refusal = (
                f"mj_step(): incompatible function arguments: nstep (frame_skip) must be an int of 32 bits, "
                f"got {value!r}."
            )

    def _refuse_step(self) -> None:
        """Refuse a step that gymnasium's env refuses too, or after a MuJoCo error (see ``_refuse_after_mujoco_error``).

        Raises:
            TypeError: If ``frame_skip`` is not an int ``mj_step`` takes.
            nbgym.error.ResetNeeded: After a MuJoCo error, until the failed sub-environments are reset.
        """
        if self._frame_skip_refusal is not None:
            raise TypeError(self._frame_skip_refusal)
        self._refuse_after_mujoco_error()

    @property
    def dt(self) -> float:
        """The duration of one environment step: ``model.opt.timestep * frame_skip``."""
        return self.model.opt.timestep * self.frame_skip

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Read-only arrays (Ray's object store) become writable copies in Env.__setstate__ and the batch's
        # (nbgym.utils._pickling: one copy per shared array, so the env and its batch keep one parameter record).
        super().__setstate__(state)
        self._bind_addresses()


_LIB_COPY_MODEL = _sim._LIB.mj_copyModel
_LIB_COPY_MODEL.restype = ctypes.c_void_p
_LIB_COPY_MODEL.argtypes = (ctypes.c_void_p, ctypes.c_void_p)


def _COPY_MODEL(target: int, source: int) -> None:
    """libmujoco's ``mj_copyModel`` into the existing ``target`` (an equal model: its arrays stay where they are)."""
    if _LIB_COPY_MODEL(target, source) != target:
        raise RuntimeError("mj_copyModel did not copy the model in place.")


_FLOAT_FIELDS: dict[tuple[int, ...], tuple[str, ...]] = {}


def _float_fields(model: mujoco.MjModel) -> tuple[str, ...]:
    """The names of ``model``'s float64 arrays (``opt``'s as ``"opt.<name>"``), which ``model_field`` reaches."""
    key = (model.nq, model.nv, model.nbody, model.ngeom, model.nu, model.nsite, model.njnt, model.ntendon)
    if key not in _FLOAT_FIELDS:
        names = []
        for prefix, holder in (("", model), ("opt.", model.opt)):
            for name in dir(holder):
                if name.startswith("_"):
                    continue
                try:
                    _sim.model_field(model, prefix + name)
                except (ValueError, AttributeError, TypeError):
                    continue
                names.append(prefix + name)
        _FLOAT_FIELDS[key] = tuple(names)
    return _FLOAT_FIELDS[key]


_FIXED_FIELDS: dict[tuple[int, ...], tuple[str, ...]] = {}

_VALUE_HOLDERS = ("opt", "vis.global_", "vis.headlight", "vis.map", "vis.quality", "vis.rgba", "vis.scale", "stat")
"""The parts of ``mjModel`` that hold its options, visual settings and statistics, as ``model.<part>.<name>``."""


def _model_value(model: mujoco.MjModel, name: str) -> Any:
    value = model
    for part in name.split("."):
        value = getattr(value, part)
    return value


def _fixed_fields(model: mujoco.MjModel) -> tuple[str, ...]:
    """The names of ``model``'s values that the compiled vector env keeps the same for every sub-environment: all but
    its float64 arrays (``_float_fields``): its other arrays, and the numbers and arrays of ``opt``, ``vis`` and
    ``stat`` (``"opt.timestep"``, ``"geom_contype"``, ``"vis.rgba.fog"``...)."""
    key = (model.nq, model.nv, model.nbody, model.ngeom, model.nu, model.nsite, model.njnt, model.ntendon)
    if key not in _FIXED_FIELDS:
        floats = set(_float_fields(model))
        names = []
        for prefix in ("", *(holder + "." for holder in _VALUE_HOLDERS)):
            holder = _model_value(model, prefix[:-1]) if prefix else model
            for name in dir(holder):
                value = getattr(holder, name) if not name.startswith("_") else None
                if prefix + name in floats:
                    continue
                if isinstance(value, np.ndarray) or (prefix and isinstance(value, (int, float))):
                    names.append(prefix + name)
        _FIXED_FIELDS[key] = tuple(names)
    return _FIXED_FIELDS[key]


class _GivenModel:
    """A sub-environment's model handed out by ``model_of``, and what its fixed fields (``_fixed_fields``) held then:
    the compiled kernels simulate every sub-environment with the env model's, so a change of one of them in a
    sub-environment's model must be refused, not ignored. Its arrays are read as ranges of the model's memory (a
    Humanoid's ~500 fields took ~550 us by name, each step the model is held), the rest by name, a part at a time."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model  # keeps the memory read below alive
        self.given = copy.copy(model)
        arrays, self.others = [], {}
        for name in _fixed_fields(model):
            value = _model_value(model, name)
            if "." not in name and isinstance(value, np.ndarray):
                if value.nbytes:
                    arrays.append((value.ctypes.data, value.ctypes.data + value.nbytes))
            else:
                holder, _, attribute = name.rpartition(".")
                self.others.setdefault(holder, []).append(attribute)
        arrays.sort()
        low = arrays[0][0] if arrays else 0
        self.ranges: list[list[int]] = []
        for start, stop in arrays:
            if self.ranges and start <= self.ranges[-1][1] + low:
                self.ranges[-1][1] = max(self.ranges[-1][1], stop - low)
            else:
                self.ranges.append([start - low, stop - low])
        span = self.ranges[-1][1] if self.ranges else 0
        self.memory = memoryview((ctypes.c_char * span).from_address(low)).cast("B") if span else memoryview(b"")
        self.held = self.values()

    def values(self) -> bytes:
        """The fixed fields' values now, as bytes."""
        parts = [self.memory[start:stop] for start, stop in self.ranges]
        for holder, attributes in self.others.items():
            values = _model_value(self.model, holder)
            for attribute in attributes:
                value = getattr(values, attribute)
                parts.append(value.tobytes() if isinstance(value, np.ndarray) else repr(value).encode())
        return b"\0".join(parts)

    def refuse_changes(self, index: int) -> None:
        """Raise if a fixed field changed since the model was handed out, after setting it back.

        Raises:
            ValueError: Naming the fields changed.
        """
        if self.values() == self.held:
            return
        changed = []
        for name in _fixed_fields(self.model):
            value, given = _model_value(self.model, name), _model_value(self.given, name)
            if isinstance(given, np.ndarray):
                if value.tobytes() != given.tobytes():
                    value[...] = given
                    changed.append(name)
            elif repr(value) != repr(given):  # as ``values`` compares them (a NaN equals itself)
                holder, _, attribute = name.rpartition(".")
                setattr(_model_value(self.model, holder), attribute, given)
                changed.append(name)
        fields = ", ".join(f"model.{name}" for name in changed)
        raise ValueError(
            f"Sub-environment {index}'s {fields} changed: the compiled vector env gives each sub-environment its own "
            f"values only of the model's float64 arrays (body_mass, geom_friction, opt.gravity...: see "
            f"model_field); the others are the env's model's, for every sub-environment. The change was undone. "
            f"Change envs.model's for every sub-environment, or make the env with vectorization_mode='sync' for "
            f"sub-environments with models entirely their own."
        )


def _load(xml_file: str, width: int, height: int) -> tuple[mujoco.MjModel, np.ndarray, np.ndarray]:
    model = load_model(expand_model_path(xml_file), width, height)
    data = mujoco.MjData(model)
    return model, data.qpos.ravel().copy(), data.qvel.ravel().copy()


class CompiledMujocoEnv(_Simulations, KernelEnv, MujocoEnv):
    """A MuJoCo environment whose step and reset run in the engine's compiled kernels on ``self.data``.

    It is a ``MujocoEnv`` with gymnasium's attributes (``model``, ``data``, ``frame_skip``, ``dt``,
    ``init_qpos``, ...); ``do_simulation``/``set_state`` act on the same ``data`` the kernels step.

    Args:
        xml_file, frame_skip, default_camera_config, render_mode, width, height, camera_id,
        camera_name, max_geom, visual_options: As for ``MujocoEnv``.
        configure: For the loaded model, the length of the float64 observation vector and the values of
            the env's own parameter fields.
    """

    rendering_arguments = RENDERING_ARGUMENTS

    # What gymnasium's MuJoCo environments call in their step and reset, the helpers of all of them together (a
    # subclass overriding one that its env does not call is refused too, where gymnasium would ignore it).
    gymnasium_hooks = {
        "_get_obs": ("step", "reset"),
        "_get_reset_info": ("reset",),
        "reset_model": ("reset",),
        "set_state": ("reset",),
        "get_body_com": ("step", "reset"),
        "contact_forces": ("step", "reset"),
        "dt": ("__init__", "step"),
        **{
            name: ("step",)
            for name in (
                "do_simulation", "_step_mujoco_simulation", "_get_rew", "control_cost", "contact_cost",
                "healthy_reward", "is_healthy", "terminated", "state_vector",
            )
        },
    }  # fmt: skip
    observation_hook = "_get_obs"
    reset_info_hook = "_get_reset_info"

    def _build(self, arguments: types.SimpleNamespace, rendering: dict[str, Any]) -> None:
        """Builds the env from its declared arguments (see ``nbgym.engine.declares_arguments``): ``_configure``
        gives the ``configure`` of the model it loads; ``rendering``, ``MujocoEnv``'s rendering arguments."""
        values = self._environment_arguments(arguments)
        configure = self._configure(values)
        default_camera_config = getattr(values, "default_camera_config", self.default_camera_config)
        CompiledMujocoEnv.__init__(
            self, values.xml_file, values.frame_skip, default_camera_config, configure, **rendering
        )

    def __init__(
        self,
        xml_file: str,
        frame_skip: int,
        default_camera_config: dict[str, Any] | None,
        configure: Callable[[mujoco.MjModel], tuple[int, dict[str, Any]]],
        render_mode: str | None = None,
        width: int = DEFAULT_SIZE,
        height: int = DEFAULT_SIZE,
        camera_id: int | None = None,
        camera_name: str | None = None,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
    ) -> None:
        self._init_qpos = np.zeros(0)
        self._init_qvel = np.zeros(0)
        self._params = self.physics.new_params()  # MujocoEnv.__init__ sets frame_skip (see the property)
        MujocoEnv.__init__(
            self,
            xml_file,
            frame_skip,
            None,
            render_mode=render_mode,
            width=width,
            height=height,
            camera_id=camera_id,
            camera_name=camera_name,
            default_camera_config=default_camera_config,
            max_geom=max_geom,
            visual_options=visual_options,
        )
        self._slot_datas = [self.data]
        self.metadata = {**self.metadata, "render_fps": int(np.round(1.0 / self.dt))}
        observation_size, env_params = configure(self.model)
        check_reset_noise_scale(env_params.get("_reset_noise_scale"))
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(observation_size,), dtype=np.float64)
        for field, value in with_weight_flags(self.physics, env_params).items():
            self._params[field] = value
        KernelEnv.__init__(self, self._params, render_mode=render_mode)
        self._reports = _sim.new_reports(1)
        self._bind_addresses()
        self._last_action_dtype = np.dtype(np.float64)

    @property
    def data(self) -> mujoco.MjData:
        """The ``MjData`` the kernels step. Assigning another ``MjData`` of the same model makes the kernels step
        that one (the next steps continue from its state)."""
        return self._data

    @data.setter
    def data(self, value: mujoco.MjData) -> None:
        if "_data" not in self.__dict__:  # MujocoEnv.__init__
            self._data = value
            return
        if value is self._data:
            return
        if not isinstance(value, mujoco.MjData) or value.model._address != self.model._address:
            raise TypeError(
                f"{type(self).__name__}.data must be a mujoco.MjData of this env's model (mujoco.MjData(env.unwrapped"
                f".model)): the kernels step it with that model; got {value!r}."
            )
        self._data = value
        self._slot_datas[0] = value
        self._bind_addresses()
        if self._mujoco_renderer is not None:  # it draws the data it was made with
            self._mujoco_renderer.close()
            self._mujoco_renderer = None

    def step(self, action: Any) -> tuple[np.ndarray, Any, bool, bool, dict[str, Any]]:
        """One environment step: ``frame_skip`` MuJoCo steps with ``action`` as the controls.

        Raises:
            ValueError: If the action does not have the shape ``(model.nu,)`` (gymnasium's error).
        """
        if not (type(action) is np.ndarray and action.shape == self._box_action_shape):
            shape = np.shape(action)
            if shape != self._box_action_shape:
                raise ValueError(f"Action dimension mismatch. Expected {self._box_action_shape}, found {shape}")
        self._refuse_step()
        self._last_action_dtype = _action_dtype(action)
        self._set_square_sums(action)
        result = super().step(action)
        if self._batch.state[0, _sim.ROW_FAILED]:
            self._raise_mujoco_errors(None)
        return result

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Reset as gymnasium's ``MujocoEnv.reset`` (``mj_resetData``, then the env's draws), in the kernel.

        Raises:
            mujoco.FatalError: If MuJoCo fails to reset the simulation.
        """
        result = super().reset(seed=seed, options=options)
        self._raise_mujoco_errors(None)
        return result

    _reward_type: ClassVar[type] = np.float64
    """The type of gymnasium's reward (``int`` for InvertedPendulum)."""

    def _reward(self) -> Any:
        return self._reward_type(self._batch.rewards[0])

    def _info(self, keys: tuple[InfoKey, ...]) -> dict[str, Any]:
        row = self._batch.aux[0]
        return {
            key.name: _single_value(key, row, self._cost_dtype(key), self.model.ntendon)
            for key in self._info_keys(keys)
        }

    def _reset_info(self) -> dict[str, Any]:
        return self._info(self._reset_info_keys)

    def _step_info(self) -> dict[str, Any]:
        return self._info(self._step_info_keys)

    def _get_obs(self) -> np.ndarray:
        """gymnasium's observation of the simulation as it is now (``data``: after ``set_state``, for instance), by
        the compiled observation of a step; a new float64 array."""
        if self._held:
            self._write_back_held()
        return self._batch.observe(self._params)[0]

    def reset_model(self) -> np.ndarray:
        """The reset of the state after ``mj_resetData``, in the compiled kernel; the observation."""
        self._batch.reset(self._batch.all_envs, self._params)
        self._raise_mujoco_errors(None)
        return self._observation()

    def render(self) -> Any:
        return MujocoEnv.render(self)

    def close(self) -> None:
        KernelEnv.close(self)
        MujocoEnv.close(self)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_mujoco_renderer"] = None
        return state


class CompiledMujocoVectorEnv(_Simulations, KernelVectorEnv):
    """A MuJoCo vector environment: one model, one state row per sub-environment (its integration state,
    see ``_sim``), one ``MjData`` per stepping thread, every sub-environment stepped (and reset, and its
    reward, flags and infos computed) in one compiled call.

    Bit for bit ``gymnasium.make_vec(id, num_envs, vectorization_mode="sync")``, at any ``num_threads``.

    Args:
        num_envs: The number of sub-environments.
        xml_file, frame_skip, width, height, camera_id, camera_name, max_geom, visual_options: As for
            ``MujocoEnv``: the rendering arguments of every sub-environment.
        configure: As for ``CompiledMujocoEnv``.
        default_camera_config: As for ``MujocoEnv``; by default the env's (``default_camera_config``).
        vector_options: ``KernelVectorEnv``'s options (``max_episode_steps``, ``autoreset_mode``,
            ``num_threads``, ``copy``, ``render_mode``).
    """

    _mujoco_renderer: Any = None
    """The renderer of ``render``, made at its first call; ``None`` also if ``__init__`` failed before it ran."""

    def _build_vector(
        self,
        num_envs: int,
        arguments: types.SimpleNamespace,
        max_episode_steps: int | None,
        vector_options: dict[str, Any],
    ) -> None:
        """Builds a made vector class's env (see ``nbgym.engine.vector_env_class``): the sub-environments as the
        single env's ``_configure`` configures it; ``vector_options``, the rendering arguments and
        ``KernelVectorEnv``'s options."""
        values = self._environment_arguments(arguments)
        CompiledMujocoVectorEnv.__init__(
            self,
            num_envs,
            values.xml_file,
            values.frame_skip,
            self._configure(values),
            max_episode_steps=max_episode_steps,
            render_mode=values.render_mode,
            **vector_options,
        )

    @classmethod
    def drawn_render_modes(cls, env_class: type) -> tuple[str, ...]:
        """Every render mode of the env: each sub-environment's frame through its own ``MujocoRenderer``."""
        return tuple(env_class.metadata["render_modes"])

    def __init__(
        self,
        num_envs: int,
        xml_file: str,
        frame_skip: int,
        configure: Callable[[mujoco.MjModel], tuple[int, dict[str, Any]]],
        width: int = DEFAULT_SIZE,
        height: int = DEFAULT_SIZE,
        camera_id: int | None = None,
        camera_name: str | None = None,
        default_camera_config: dict[str, Any] | None | object = CLASS_DEFAULT,
        max_geom: int = 1000,
        visual_options: dict[int, bool] | None = None,
        **vector_options: Any,
    ) -> None:
        self._mujoco_renderer = None
        if default_camera_config is CLASS_DEFAULT:
            default_camera_config = self.default_camera_config
        check_one_camera(camera_id, camera_name)
        self._renderer_arguments = (
            default_camera_config,
            width,
            height,
            max_geom,
            camera_id,
            camera_name,
            visual_options,
        )
        self.model, self._init_qpos, self._init_qvel = _load(xml_file, width, height)
        self._observation_size, env_params = configure(self.model)
        check_reset_noise_scale(env_params.get("_reset_noise_scale"))
        params = self.physics.new_params(**with_weight_flags(self.physics, env_params))
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}.")
        self._slot_datas = [mujoco.MjData(self.model)]
        self._held_datas: dict[int, mujoco.MjData] = {}
        self._random: dict[str, np.ndarray] = {}
        """The model fields that differ between sub-environments: their values, one row per sub-environment."""
        self._slot_models: list[mujoco.MjModel] = []
        self._held_models: dict[int, _GivenModel] = {}
        super().__init__(num_envs, params, **vector_options)
        self.frame_skip = frame_skip
        if "render_fps" in self.metadata:  # as MujocoEnv.__init__ asserts it for the single env
            assert int(np.round(1.0 / self.dt)) == self.metadata["render_fps"], (
                f"Expected value: {int(np.round(1.0 / self.dt))}, Actual value: {self.metadata['render_fps']}"
            )
        self.metadata = {**self.metadata, "render_fps": int(np.round(1.0 / self.dt))}
        self._bind_addresses()
        self.num_threads = (
            self.num_threads
        )  # slots for the threads; binds the kernels to the arrays sized for the model
        self._last_action_dtype = np.dtype(np.float64)

    _uses_rows = True

    @property
    def num_threads(self) -> int:
        """The number of threads stepping a batch of the sub-environments (1: no threading); each has an ``MjData``,
        and so has each thread that may step at once in an async run (``send``, ``step_async``)."""
        return self._batch.num_threads

    @num_threads.setter
    def num_threads(self, value: int) -> None:
        KernelVectorEnv.num_threads.fset(self, value)
        # A slot for each thread that may step at once. A sync step runs on num_threads threads. An async run
        # (send, step_async) hands each batch in flight to max(1, num_threads - 1) workers, and the caller joins them
        # when it receives one (KernelBatch.rows_job); its batches step side by side when the engine has more
        # workers (made for another env). With fewer slots than threads, threads spin for each other's (HalfCheetah
        # x64 async on one thread: 37k -> 29k env-steps/s once another env had made a second worker; on two threads,
        # 50k -> 40k when the caller joined two workers sharing two slots).
        batches = self.num_envs // self.batch_size
        async_threads = min(max(1, self._batch.num_threads - 1) * batches, numba.config.NUMBA_NUM_THREADS) + 1
        wanted = min(max(self._batch.num_threads, async_threads), _sim.MAX_SLOTS)
        if len(self._slot_datas) != wanted and "_init_qpos" in self.__dict__:
            self._slot_datas = [mujoco.MjData(self.model) for _ in range(wanted)]
            self._slot_models = []
            self._bind_addresses()
            KernelVectorEnv.num_threads.fset(self, value)  # binds the kernels to the arrays sized for the model

    def _before_rows(self, actions: Any, first: int, stop: int) -> None:
        """Before sub-environments ``first`` to ``stop - 1`` step (see ``KernelVectorEnv._before_rows``): gymnasium's
        checks, the control costs of integer actions, and the models and data handed out written back (after the
        sub-environments stepping in the background, which read them).

        Raises:
            ValueError: If ``actions`` does not have the shape ``(stop - first, model.nu)``.
        """
        shape = np.shape(actions)
        expected = (stop - first, *self.single_action_space.shape)
        if shape != expected:
            raise ValueError(f"Action dimension mismatch. Expected {expected}, found {shape}")
        self._refuse_step()
        self._last_action_dtype = _action_dtype(actions)
        self._set_square_sums(actions, first, stop)
        if self._held_datas or self._held_models or self._random:
            self._settle()
        self._before_kernels()

    def _rows_stepped(self, first: int, stop: int) -> None:
        super()._rows_stepped(first, stop)
        self._renew_datas(range(first, stop))

    def _after_rows(self, first: int, stop: int) -> None:
        checked = np.zeros(self.num_envs, dtype=np.bool_)
        checked[first:stop] = True
        self._raise_mujoco_errors(checked)

    def _after_failure(self) -> None:
        self._params["_busy"] = 0  # a step that failed midway may hold slots

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the sub-environments (those of ``options["reset_mask"]``, else all), as ``KernelVectorEnv``.

        Raises:
            mujoco.FatalError: If MuJoCo fails to reset one of them.
        """
        self._check_open()
        self._refuse_async_run("reset()")
        self._before_kernels()
        result = KernelVectorEnv.reset(self, seed=seed, options=options)
        self._renew_datas()
        mask = (
            None if not options or options.get("reset_mask") is None else np.asarray(options["reset_mask"], dtype=bool)
        )
        self._raise_mujoco_errors(mask)
        return result

    def _rebuild(self, index: int, data: mujoco.MjData) -> mujoco.MjData:
        """``data`` holding sub-environment ``index`` as its last reset or step left gymnasium's ``data``: its
        integration state, and the derived quantities of ``mj_forward`` after a reset or, after a step, of
        ``mj_step`` from the state before the last substep and ``mj_rnePostConstraint`` (so that they
        describe that state, as after gymnasium's step)."""
        row = self._batch.state[index]
        size = int(self._params["_state_size"][0])
        model = self.model_of(index) if self._random else self.model
        mujoco.mj_setState(model, data, row[_sim.ROW_STATE : _sim.ROW_STATE + size], _sim.INTEGRATION)
        mode = row[_sim.MODE]
        if mode == _sim.MODE_STEPPED:
            pre = row[_sim.ROW_STATE + size : _sim.ROW_STATE + size + int(self._params["_pre_size"][0])]
            mujoco.mj_setState(model, data, pre, _sim.PRE_STEP)
            mujoco.mj_step(model, data)
            mujoco.mj_rnePostConstraint(model, data)
        elif mode == _sim.MODE_FORWARD:
            mujoco.mj_forward(model, data)
        return data

    def data_of(self, index: int) -> mujoco.MjData:
        """The ``MjData`` of sub-environment ``index``, live as gymnasium's sub-environment's ``data``: the
        same object while it is referenced, renewed by each step and reset, and what is written to it (its
        state, ``ctrl``, applied forces...; ``mj_forward``'s derived quantities that the next step reads)
        reaches the sub-environment's next step. Built from its state row on request (see ``_rebuild``).

        Raises:
            IndexError: If ``index`` is not a sub-environment's.
        """
        index = range(self.num_envs)[index]
        data = self._held_datas.get(index)
        if data is None:
            data = self._rebuild(index, mujoco.MjData(self.model))
            self._held_datas[index] = data
        return data

    def _write_back_datas(self) -> None:
        """The state of each ``MjData`` handed out into its row (a changed state is then rebuilt with
        ``mj_forward``, as ``set_state`` leaves it), with the derived array the next step reads (the carry).

        Those no longer referenced elsewhere are let go after that (a later request rebuilds them): a write
        to one that was not kept (``envs.datas[2].qpos[1] = 0.5``) still reaches the next step.
        """
        if not self._held_datas:
            return
        state = self._batch.state
        size = int(self._params["_state_size"][0])
        carry = self.physics.carry
        written = np.empty(size)
        for index in list(self._held_datas):
            data = self._held_datas[index]
            row = state[index]
            mujoco.mj_getState(self.model, data, written, _sim.INTEGRATION)
            if written.tobytes() != row[_sim.ROW_STATE : _sim.ROW_STATE + size].tobytes():
                row[_sim.ROW_STATE : _sim.ROW_STATE + size] = written
                row[_sim.MODE] = _sim.MODE_FORWARD
            if carry != _sim.NO_CARRY:
                start = _sim.ROW_STATE + size + int(self._params["_pre_size"][0])
                array = getattr(data, _sim.DATA_FIELDS[carry - 1]).ravel()
                row[start : start + array.size] = array
            if sys.getrefcount(data) <= 3:  # the dictionary, ``data`` and getrefcount's argument
                del self._held_datas[index]

    def _before_kernels(self) -> None:
        """What the kernels must see before they step or reset: the sub-environments' models and data as
        written through ``get_attr``, and every slot's model a copy of the env's (``model``, which the
        fields that differ overwrite per sub-environment)."""
        self._write_back_models()
        self._write_back_datas()
        if self._random:
            for slot_model in self._slot_models:
                _COPY_MODEL(slot_model._address, self.model._address)

    def model_field(self, name: str) -> np.ndarray:
        """The live ``(num_envs, *shape)`` array of model field ``name`` (``"body_mass"``, ``"geom_friction"``,
        ``"opt.gravity"``, any float64 array of ``mjModel``), one row per sub-environment: from the next
        reset or step, each sub-environment simulates with its own row (domain randomisation), as a
        sub-environment of gymnasium's sync vector env whose ``model.<name>`` was edited. Like
        ``mujoco.batch``'s ``batch.body(name).mass = masses``::

            envs.model_field("body_mass")[:, 1] = rng.uniform(5.0, 8.0, envs.num_envs)

        A field that differs costs its values per sub-environment; the others stay one ``mjModel``'s
        (each stepping thread copies the env's model, then the sub-environment's own values, before each
        of its steps). The first call makes the field differ, with the current ``model``'s values in
        every row.

        Raises:
            AttributeError: If ``mjModel`` has no such field.
            ValueError: If it is not a float64 array, or more than ``_sim.MAX_FIELDS`` fields would differ.
        """
        if name not in self._random:
            self._check_open()
            values = _sim.model_field(self.model, name)
            if len(self._random) >= _sim.MAX_FIELDS:
                raise ValueError(f"At most {_sim.MAX_FIELDS} model fields can differ between sub-environments.")
            self._random[name] = np.repeat(values[None], self.num_envs, axis=0)
            self._bind_addresses()
        return self._random[name]

    def model_of(self, index: int) -> mujoco.MjModel:
        """The ``MjModel`` of sub-environment ``index``: the env's ``model`` while no field differs between
        sub-environments; else a copy of it with the sub-environment's own values, live as gymnasium's
        sub-environment's ``model`` (the same object while it is referenced, and what is written to any of
        its float64 arrays reaches the sub-environment's next reset and steps: the field then differs
        between sub-environments, see ``model_field``).

        Raises:
            IndexError: If ``index`` is not a sub-environment's.
        """
        index = range(self.num_envs)[index]
        held = self._held_models.get(index)
        if held is None:
            model = copy.copy(self.model)
            for name, values in self._random.items():
                _sim.model_field(model, name)[...] = values[index]
            held = self._held_models[index] = _GivenModel(model)
        return held.model

    def _write_back_models(self) -> None:
        """Each float64 array of a model handed out (``model_of``) that differs from ``model``'s, or differs
        between sub-environments already, into the sub-environment's row of ``model_field``. Those no
        longer referenced elsewhere are let go after that."""
        for index in list(self._held_models):
            held = self._held_models[index]
            held.refuse_changes(index)
            model = held.model
            for name in _float_fields(self.model):
                value = _sim.model_field(model, name)
                if name in self._random:
                    self._random[name][index] = value
                elif value.tobytes() != _sim.model_field(self.model, name).tobytes():
                    self.model_field(name)[index] = value
            if sys.getrefcount(model) <= 3:  # its ``_GivenModel``, ``model`` and getrefcount's argument
                del self._held_models[index]

    def _renew_datas(self, rows: range | None = None) -> None:
        """The ``MjData`` handed out rebuilt from their rows (of the sub-environments in ``rows``, all by default)."""
        for index, data in list(self._held_datas.items()):
            if rows is None or index in rows:
                self._rebuild(index, data)

    @property
    def datas(self) -> tuple[mujoco.MjData, ...]:
        """The ``MjData`` of each sub-environment (see ``data_of``)."""
        return tuple(self.data_of(i) for i in range(self.num_envs))

    _SUB_ENV_METHODS: ClassVar[frozenset[str]] = frozenset(
        {"set_state", "state_vector", "get_body_com", "do_simulation", "_step_mujoco_simulation"}
    )
    """``MujocoEnv``'s methods that ``call`` runs on a sub-environment's ``data`` (see ``data_of``)."""

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls ``name`` on each sub-environment with ``args`` and ``kwargs`` (an attribute that is not
        callable is returned as is), as gymnasium's ``SyncVectorEnv.call``.

        ``MujocoEnv``'s ``set_state``, ``state_vector``, ``get_body_com`` and ``do_simulation`` act on each
        sub-environment's ``data`` (see ``data_of``; its next step starts from what they leave).

        Raises:
            AttributeError: If the sub-environments have no such attribute.
        """
        if name in self._SUB_ENV_METHODS:
            results = []
            for index in range(self.num_envs):
                model = self.model_of(index) if self._random else self.model
                sub_env = types.SimpleNamespace(
                    model=model,
                    data=self.data_of(index),
                    frame_skip=self.frame_skip,
                    dt=model.opt.timestep * self.frame_skip,
                )
                sub_env._step_mujoco_simulation = types.MethodType(MujocoEnv._step_mujoco_simulation, sub_env)
                results.append(getattr(MujocoEnv, name)(sub_env, *args, **kwargs))
            return tuple(results)
        return KernelVectorEnv.call(self, name, *args, **kwargs)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Each sub-environment's attribute ``name``, as gymnasium's ``SyncVectorEnv.get_attr``: ``data`` is
        each one's ``MjData`` (see ``data_of``), ``model`` each one's ``MjModel`` (see ``model_of``: edits of
        each reach its own simulation, as with gymnasium's); parameters and ``np_random_seed`` as
        ``KernelVectorEnv.get_attr``.

        Raises:
            AttributeError: If the sub-environments have no such attribute.
        """
        if name == "data":
            return self.datas
        if name == "model":
            return tuple(self.model_of(i) for i in range(self.num_envs))
        if name in self._SUB_ENV_METHODS:
            return self.call(name)
        return KernelVectorEnv.get_attr(self, name)

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """As ``KernelVectorEnv.set_attr``; ``data`` and ``model`` cannot be replaced (change them in place:
        ``get_attr("data")[i].qpos[:] = ...``).

        Raises:
            AttributeError: For ``data`` and ``model``, or an attribute the sub-environments do not have.
        """
        if name in ("data", "model"):
            raise AttributeError(
                f"The sub-environments' {name} of {type(self).__name__} cannot be replaced: they live in state rows "
                f"(change them in place, e.g. envs.get_attr('data')[i].qpos[:] = ..., or use vectorization_mode='sync')."
            )
        KernelVectorEnv.set_attr(self, name, values)

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Box]:
        observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(self._observation_size,), dtype=np.float64)
        return observation_space, action_space_of(self.model)

    def _batched_infos(
        self, aux: np.ndarray, stepped: np.ndarray, reset: np.ndarray, finals: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Infos as gymnasium's sync vector env merges them: step keys where ``stepped``, reset keys where
        ``reset``, each with its ``_name`` mask, a key present nowhere left out; ``finals`` (``final_obs``,
        ``final_info`` and masks) come before the infos of the first sub-environment that ended.

        Keys are in gymnasium's order: sub-environment by sub-environment, each adding the keys it is first
        to have, in the order of its own info dict.
        """
        reset_rank = {key.name: rank for rank, key in enumerate(self._reset_info_keys)}
        entries = []
        for step_rank, key in enumerate(self._info_keys(self._step_info_keys)):
            present = stepped | reset if key.name in reset_rank else stepped
            if present.any():
                first = int(present.argmax())
                rank = reset_rank[key.name] if reset[first] else step_rank
                value = _batched_value(key, aux, present, self._cost_dtype(key), self.model.ntendon)
                entries.append((first, rank, [(key.name, value), (f"_{key.name}", present.copy())]))
        if finals:
            entries.append((int(finals["_final_obs"].argmax()), -1, list(finals.items())))
        entries.sort(key=lambda entry: entry[:2])
        return {name: value for _, _, items in entries for name, value in items}

    def _reset_infos(self, mask: np.ndarray) -> dict[str, Any]:
        return self._batched_infos(self._batch.aux, np.zeros(self.num_envs, dtype=np.bool_), mask)

    def _step_infos(self) -> dict[str, Any]:
        batch = self._batch
        finals = None
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            ended = batch.terminated | batch.truncated
            if ended.any():
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(ended):
                    final_obs[i] = batch.final_obs[i].copy()
                final_info = self._batched_infos(batch.final_aux, ended, np.zeros_like(ended))
                finals = {
                    "final_obs": final_obs,
                    "_final_obs": ended,
                    "final_info": final_info,
                    "_final_info": ended.copy(),
                }
        return self._batched_infos(batch.aux, ~batch.was_reset, batch.was_reset, finals)

    def render(self) -> tuple[Any, ...] | None:
        """The frame of every sub-environment in ``render_mode``, as gymnasium's sync vector env returns them:
        a tuple of ``num_envs`` frames (``None`` each in ``"human"`` mode, which draws the sub-environments
        one after another into one window; a tuple of ``None`` without a render mode, after a warning).

        One renderer draws every sub-environment's ``MjData`` (each keeps its own camera), so the frames
        are those of gymnasium's separate per-sub-environment renderers.

        Raises:
            nbgym.envs.mujoco.mujoco_rendering.GLBackendUnavailable: If no OpenGL backend can render.
        """
        if self.render_mode is None:
            return super().render()
        renderer = self.mujoco_renderer
        self._before_kernels()
        return tuple(
            renderer.render(self.render_mode, data=self.data_of(i), camera_key=i) for i in range(self.num_envs)
        )

    @property
    def mujoco_renderer(self) -> Any:
        """The ``MujocoRenderer`` drawing the sub-environments (``nbgym.envs.mujoco.mujoco_rendering``),
        created on first use with the constructor's rendering arguments."""
        if self._mujoco_renderer is None:
            from nbgym.envs.mujoco.mujoco_rendering import MujocoRenderer

            self._mujoco_renderer = MujocoRenderer(self.model, self.data_of(0), *self._renderer_arguments)
        return self._mujoco_renderer

    def close_extras(self, **kwargs: Any) -> None:
        """Marks the batch unusable and closes the renderer's OpenGL contexts and window."""
        super().close_extras(**kwargs)
        if self._mujoco_renderer is not None:
            self._mujoco_renderer.close()
            self._mujoco_renderer = None

    def __getstate__(self) -> dict[str, Any]:
        self._before_kernels()  # the copy starts from the models and data as they are now
        state = super().__getstate__()
        state["_mujoco_renderer"] = None
        state["_held_datas"] = {}
        state["_held_models"] = {}
        state["_slot_models"] = []
        return state


CompiledMujocoEnv.vector_base = CompiledMujocoVectorEnv
