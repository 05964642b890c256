"""The Python classes around the compiled kernels: a single env and a vector env over one batch.

``KernelBatch`` (``_batch``) allocates a batch's arrays once and calls the kernels over them. ``KernelEnv`` is a
batch of one whose random stream is the memory of its own ``np_random`` Generator; ``KernelVectorEnv``
is a batch of ``num_envs`` with one stream per sub-environment, seeded as gymnasium's sync vector env
seeds its sub-environments. Both run the same kernels, so they cannot drift apart.

An environment module declares its single env class on ``KernelEnv`` (its arguments with ``declares_arguments``, its
parameters with ``_configure``, its spaces with ``_single_spaces``) and makes the vector class from it
(``vector_env_class``, see ``_declare``); it sets ``physics``, names its info slots (``info_keys``), its drawing
(``renderer``) and its state attributes (``state_views``, see ``state_views.py``), may set
``_python_number_actions_param`` (when Python-number actions change its arithmetic, see
``action_kind``), and may override the hooks ``_reset_params`` (reset options), ``_refused_action_error``
(the exception of a refused action), ``_observation``/``_reward`` (Python types of a single step's
results), ``_final_observation`` and the info builders (``_reset_info``/``_step_info``, ``_infos``).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import sys
from typing import Any, Callable, ClassVar, Literal

import numba
import numpy as np

import nbgym.engine.actions as reading
from nbgym import error, spaces
from nbgym.core import Env
from nbgym.engine import _threads as threads
from nbgym.engine import written
from nbgym.engine import rng
from nbgym.engine._kernels import (
    DISABLED,
    NEXT_STEP,
    NO_AUTORESET,
    SAME_STEP,
    STEP_OK,
    Physics,
    ended_index,
)
from nbgym.engine._async import AsyncSteps, check_batch_size
from nbgym.engine._batch import ACTION_FLOAT_DTYPES, KernelBatch, kernel_float_dtype
from nbgym.engine._fixed import fixed_property
from nbgym.engine._in_use import Exclusive, exclusive
from nbgym.engine.state_views import NO_VALUE, StateRows, StateView
from nbgym.utils import seeding
from nbgym.vector._common import per_env_values, pop_reset_mask, resolve_autoreset_mode, seeds_for
from nbgym.vector.utils import batch_space
from nbgym.vector.vector_env import AutoresetMode, VectorEnv

_KERNEL_MODES = {
    AutoresetMode.NEXT_STEP: NEXT_STEP,
    AutoresetMode.SAME_STEP: SAME_STEP,
    AutoresetMode.DISABLED: DISABLED,
}


_PYTHON_NUMBERS = (float, int, bool)
_INT64 = np.dtype(np.int64)


def action_kind(action: Any) -> tuple[np.dtype, bool]:
    """How an environment's arithmetic sees one (sub-environment's) Box action: its dtype as an array, and
    whether its elements are Python numbers (a list or tuple of them), which NumPy 2 computes with in the
    precision of the numpy value they meet, unlike the elements of a float64 array.

    gymnasium's ``SyncVectorEnv`` hands sub-environment ``i`` the ``i``-th element of a batch as it is
    (``iterate`` over a list yields its items), so a vector env sees each element as a single env would.
    """
    first = action
    while isinstance(first, (list, tuple)) and len(first) > 0:
        first = first[0]
    return np.asarray(action).dtype, type(first) in _PYTHON_NUMBERS


def _fault(env: Any, raised: Exception, during: str) -> Exception:
    """What to raise for ``raised``, an exception from inside the kernels during ``during`` (``"step"``,
    ``"reset"``, ``"rollout"``), after making ``env`` refuse to step until a reset of every sub-environment:
    the sub-environments before the one that raised have moved, the others not. An ``IndexError`` (a bounds
    check of the physics) becomes ``PhysicsIndexError``; other exceptions keep their type."""
    if isinstance(raised, RuntimeError) and isinstance(raised.__cause__, (IndexError, error.PhysicsError)):
        raised = raised.__cause__  # raised in a stepping thread (threads.run_chunks)
    env._ready = False
    env._fault = f"its physics raised {type(raised).__name__} ({raised}) during {during}"
    name = env._batch.physics.name
    if isinstance(raised, IndexError) and not isinstance(raised, error.PhysicsError):
        new = error.PhysicsIndexError(
            f"Physics {name!r} indexed outside an array during {during} ({raised}; numba's bounds check). Each "
            f"physics function may index only row i of state, aux, obs and actions, within their widths. The "
            f"sub-environments were left partly stepped: call reset() before stepping again. Run with "
            f"NUMBA_DISABLE_JIT=1 to see the line, as Python."
        )
        new.__cause__ = raised
        return new
    return raised


def _refuse_faulted(env: Any, call: str) -> None:
    """Raises ``ResetNeeded`` for ``call`` if the physics of ``env`` raised inside the kernels since its last reset, or
    a step or rollout was stopped partway."""
    if env._fault is not None:
        raise error.ResetNeeded(
            f"Cannot call {call}: {env._fault}, which left the sub-environments partly stepped. Call reset() "
            f"(of every sub-environment) to start new episodes."
        )


def _param_property(field: str) -> property:
    @exclusive(f"a read of {field}")
    def get(self):
        return self._params[field][0].item()

    @exclusive(f"a write of {field}")
    def set(self, value):
        self._settle()
        written.store(self._params, field, value, field, self.written_kinds.get(field))

    return property(get, set, doc=f"The ``{field}`` parameter of the compiled dynamics.")


_ACTION_SPACE_WHY = (
    "the compiled kernels read and check actions of the space the env was made with. Wrap the env to take actions "
    "of another space (a wrapper that maps them into this one), or make it with the arguments that give the space."
)


def _refuse_assignments(cls: type) -> None:
    """Gives each property of nbgym's environment classes in ``cls``'s bases that has no setter one that refuses
    saying why: gymnasium's env has such an attribute (FrozenLake's ``nrow``, Taxi's ``fickle_probability``) as a plain
    one, where Python's own refusal ("property 'nrow' of 'FrozenLakeEnv' object has no setter") says nothing of
    what to do."""
    for klass in cls.__mro__:
        if not klass.__module__.startswith("nbgym.envs."):
            continue
        for name, member in list(vars(klass).items()):
            if isinstance(member, property) and member.fset is None and not name.startswith("__"):
                setattr(klass, name, member.setter(_refusing_setter(name)))


def _refusing_setter(name: str) -> Callable[[Any, Any], None]:
    def refuse(self: Any, value: Any) -> None:
        raise AttributeError(
            f"{name} of {type(self).__name__} cannot be assigned: nbgym computes it from the environment's compiled "
            f"state and the arguments it was made with. Make a new environment with the arguments that give the value "
            f"you want, or change the state it comes from (see the environment's docstring)."
        )

    return refuse


def _defined_by_user(cls: type, name: str) -> bool:
    """Whether ``cls``'s ``name`` is defined outside nbgym (by a subclass of one of its environments)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return not klass.__module__.startswith("nbgym.")
    return False


def _follow_gymnasium_hooks(cls: type) -> None:
    """Checks the overrides of ``cls.gymnasium_hooks`` by a subclass defined outside nbgym: an observation or reset
    info hook is followed (``step`` and ``reset`` call it), any other is refused unless the subclass overrides its
    callers too.

    Raises:
        TypeError: If the subclass overrides a hook that nbgym's compiled calls would not call.
    """
    for name, callers in cls.gymnasium_hooks.items():
        if not _defined_by_user(cls, name):
            continue
        ignored = [caller for caller in callers if caller == "__init__" or not _defined_by_user(cls, caller)]
        if not ignored:
            continue
        if name == cls.observation_hook and set(ignored) <= {"step", "reset"}:
            if not _defined_by_user(cls, "_observation"):
                cls._observation = _hook_call(name)
        elif name == cls.reset_info_hook and ignored == ["reset"]:
            if not _defined_by_user(cls, "_reset_info"):
                cls._reset_info = _hook_call(name)
        else:
            base = next(klass for klass in cls.__mro__ if klass.__module__.startswith("nbgym."))
            callers_named = " and ".join(ignored)
            advice = (
                "make the change in the class's arguments or after it is made"
                if ignored == ["__init__"]
                else f"override {callers_named} too (calling super().{ignored[0]}() and changing what it returns), or "
                "change the results with a wrapper (nbgym.wrappers: TransformObservation, TransformReward, ...)"
            )
            raise TypeError(
                f"{cls.__qualname__} overrides {name}, which gymnasium's {base.__name__} calls in {callers_named}; "
                f"nbgym's {base.__name__} runs {callers_named} compiled, without calling {name}, so the override "
                f"would be ignored. Instead, {advice}."
            )


class _ClassValue:
    """A value a subclass defined outside nbgym gives, as a class attribute, to an attribute its nbgym base serves
    as a property (a parameter, the state): the class reads that value, as the subclass of gymnasium's env does, and
    its instances the property, as gymnasium's instances read the attribute their ``__init__`` sets, which hides the
    class's (gymnasium's class constants aside: ``KernelEnv.class_constants``)."""

    def __init__(self, served: Any, value: Any) -> None:
        self.served, self.value = served, value

    def __get__(self, env: Any, owner: type | None = None) -> Any:
        return self.value if env is None else self.served.__get__(env, owner)

    def __set__(self, env: Any, value: Any) -> None:
        self.served.__set__(env, value)


def _class_level_values(cls: type) -> None:
    """Wraps each plain class attribute of ``cls`` (a subclass defined outside nbgym) that hides a property of its
    nbgym bases in a :class:`_ClassValue`, and takes those that are gymnasium's class constants as its instances'
    values (``_class_values``)."""
    values = dict(cls._class_values)
    for name, value in list(vars(cls).items()):
        if name.startswith("__") or isinstance(value, (property, _ClassValue)) or callable(value):
            continue
        served = next((vars(klass)[name] for klass in cls.__mro__[1:] if name in vars(klass)), None)
        if isinstance(served, _ClassValue):
            served = served.served
        if isinstance(served, property):
            setattr(cls, name, _ClassValue(served, value))
            if name in cls.class_constants:
                values[name] = value
    cls._class_values = values


def _hook_call(name: str) -> Callable[[Any], Any]:
    def call(self: Any) -> Any:
        return getattr(self, name)()

    call.__name__ = call.__qualname__ = f"_call_{name.lstrip('_')}"
    return call


def _window_surface(self: Any) -> Any:
    state = self._render_state
    return None if state is None else state.surface


def _set_window_surface(self: Any, surface: Any) -> None:
    from nbgym.engine._render import frame_size, import_pygame, render_state

    name = self.window_attributes[0]
    if surface is not None:
        pygame = import_pygame()
        if not isinstance(surface, pygame.Surface):
            raise TypeError(
                f"{name} of {type(self).__name__} must be a pygame.Surface (which its frames are drawn on) or None "
                f"(a new one at the next frame), got {surface!r}."
            )
        if surface.get_size() != frame_size(self):
            raise ValueError(
                f"{name} of {type(self).__name__} must be {frame_size(self)[0]}x{frame_size(self)[1]}, the size its "
                f"frames are drawn at, got a {surface.get_width()}x{surface.get_height()} surface."
            )
    if surface is not None or self._render_state is not None:  # (None before the first frame: nothing to drop)
        render_state(self).surface = surface


def _window_clock(self: Any) -> Any:
    state = self._render_state
    return None if state is None else state.clocks.get(0)


def _set_window_clock(self: Any, clock: Any) -> None:
    if clock is not None and not callable(getattr(clock, "tick", None)):
        raise TypeError(
            f"{self.window_attributes[1]} of {type(self).__name__} must be a clock with a tick(fps) method (a "
            f"pygame.time.Clock, which 'human' frames tick) or None (a new one at the next frame), got {clock!r}."
        )
    from nbgym.engine._render import render_state

    if clock is not None:
        render_state(self).clocks[0] = clock
    elif self._render_state is not None:
        self._render_state.clocks.pop(0, None)


def _frame_size_attributes(cls: type) -> None:
    """Makes each of ``frame_size_attributes`` in ``cls``'s bases a property (see ``_ParamsAsAttributes``)."""
    for klass in cls.__mro__:
        for name, value in vars(klass).get("frame_size_attributes", {}).items():
            if not isinstance(vars(klass).get(name), property):
                setattr(klass, name, _frame_size_property(name, value))


def _frame_size_property(name: str, value: Callable[[Any, int, int], Any]) -> property:
    def get(self: Any) -> Any:
        renderer = self.renderer
        if isinstance(renderer, str):
            renderer = importlib.import_module(renderer)
        return value(self, *renderer.frame_size(self))

    def set(self: Any, new: Any) -> None:
        if new != get(self):
            raise AttributeError(
                f"{name} of {type(self).__name__} is {get(self)!r} in nbgym, which draws gymnasium's default frames: "
                f"resize the frames render() returns instead."
            )

    return property(get, set, doc=f"gymnasium's ``{name}``: of the frames nbgym draws, read-only.")


class _ParamsAsAttributes:
    """Exposes every parameter of the physics as an attribute, as gymnasium's envs have them
    (``env.unwrapped.gravity = 12.0`` changes the dynamics of the following steps)."""

    frame_size_attributes: ClassVar[dict[str, Callable[[Any, int, int], Any]]] = {}
    """gymnasium's attributes that size its frames (CartPole's ``screen_width``): name -> its value from the env and the
    ``(width, height)`` of the renderer's ``frame_size``. Read-only: another value would not reach the renderer."""

    physics: ClassVar[Physics]
    _params: np.ndarray

    def _settle(self) -> None:
        """Waits for the sub-environments a vector env steps in the background (see ``AsyncSteps``), before a
        parameter changes."""

    asserts_action_in_space: ClassVar[bool] = False
    """Whether the gymnasium environment this class reproduces asserts ``action_space.contains(action)`` before
    it moves (CartPole, MountainCar, Blackjack): integer actions of a dtype that does not cast safely to the
    space's int64 (``np.uint64``) are then refused as there (``f"{action!r} ({type(action)}) invalid"``), even
    when their value is in range. The others take any integer, as their gymnasium originals index with it."""
    written_kinds: ClassVar[dict[str, tuple[str, ...]]] = {}
    """The kinds of number (``nbgym.engine.written``) that a float parameter's kernels follow, where not the engine's
    default (``written.FOLLOWED``, or ``written.WITH_KIND_FIELD`` for a parameter with a ``_<name>_kind`` field): a
    written value of another kind is refused with a ``TypeError``."""
    _python_number_actions_param: ClassVar[str | None] = None
    """The bool parameter that tells the physics its actions came as Python numbers (see ``action_kind``),
    for an env whose arithmetic depends on it; ``None`` for the others."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _refuse_assignments(cls)
        _frame_size_attributes(cls)
        physics = getattr(cls, "physics", None)  # the class's own, or a shared declaration's (not a per-env property)
        if isinstance(physics, Physics):
            for field in physics.params_dtype.names[1:]:
                if not field.startswith("_") and not any(field in base.__dict__ for base in cls.__mro__):
                    setattr(cls, field, _param_property(field))

    def _reset_params(self, options: dict[str, Any] | None) -> np.ndarray:
        """The parameters of a reset with ``options``; envs with reset options override this (others
        ignore options, as gymnasium's do)."""
        return self._params

    _python_number_actions = False
    """The value of the ``_python_number_actions_param`` parameter (false without one)."""

    _fault: str | None = None
    """Why the env refuses to step until a reset: its physics raised inside the kernels (see ``_fault``)."""

    def _note_python_number_actions(self, python_numbers: bool) -> None:
        """Tells the physics (``_python_number_actions_param``) whether the coming actions are Python numbers."""
        field = self._python_number_actions_param
        if field is not None and self._python_number_actions is not python_numbers:
            self._params[field] = python_numbers
            self._python_number_actions = python_numbers

    def _refused_action_error(self, action: Any, message: str) -> Exception:
        """The exception for an action the physics refused (``action_valid`` false), before anything moved.

        Args:
            action: The refused action of one sub-environment.
            message: What the env or vector env says about it.

        Returns:
            ``InvalidAction``, also of the built-in type gymnasium's env raises for the action (the physics'
            ``read_action`` tells, see ``nbgym.engine.actions``).
        """
        return reading.refusal(self._action_reader(), self._params[0], action, message)

    def _action_reader(self) -> reading.ActionReader | None:
        """How gymnasium's env reads one sub-environment's action: the physics' ``read_action``; for a discrete env
        without one, gymnasium's ``assert action_space.contains(action)``."""
        if self.physics.read_action is not None or not self._batch.discrete_actions:
            return self.physics.read_action
        return reading.asserts_contains(getattr(self, "single_action_space", self.action_space))


def _state_view_property(view: StateView) -> property:
    @exclusive(f"a read of {view.name}")
    def get(self):
        return self._read_state_view(view, 0)

    @exclusive(f"a write of {view.name}")
    def set(self, value):
        self._write_state_view(view, 0, value)

    return property(get, set, doc=view.doc)


class _StateViewsAsAttributes:
    """Exposes the ``state_views`` of an environment (see ``nbgym.engine.state_views``): as attributes of
    the single env, and through ``get_attr``/``set_attr`` of the vector env, per sub-environment.

    A value read or assigned is held, as gymnasium's env holds its attribute, until the sub-environment
    next steps or resets: it is written back into the state row before each step (and render), so
    in-place changes to it reach the kernels; a step or reset then replaces it, as in gymnasium.
    """

    state_views: ClassVar[tuple[StateView, ...]] = ()
    """The views of the state row that gymnasium's env has as attributes."""
    _batch: KernelBatch
    _held: dict[tuple[str, int], tuple[StateView, Any]]
    """The values read or assigned since the last step, by ``(name, sub-environment)``."""
    _state_was_reset = False
    """Whether the state rows hold a reset's state (else the views have their ``before_reset`` values)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if issubclass(cls, Env):
            for view in cls.state_views:
                if view.name not in cls.__dict__:
                    setattr(cls, view.name, _state_view_property(view))

    def _state_view(self, name: str) -> StateView | None:
        for view in self.state_views:
            if view.name == name:
                return view
        return None

    def _state_row(self, index: int) -> Any:
        """Sub-environment ``index``'s row of the state, which the views read and write: ``state[index]``, or the
        ``StateRows`` of a state made of several arrays."""
        state = self._batch.state
        return state[index] if isinstance(state, np.ndarray) else StateRows(state, index)

    def _read_state_view(self, view: StateView, index: int) -> Any:
        held = self._held.get((view.name, index))
        if held is not None:
            return held[1]
        if not self._state_was_reset and view.replaced_at_reset is None:
            if view.before_reset is NO_VALUE:
                raise AttributeError(
                    f"{type(self).__name__} has no {view.name!r} before its first reset(): call reset()."
                )
            return view.before_reset
        value = view.read(self._params[0], self._state_row(index))
        self._held[view.name, index] = (view, value)
        return value

    def _write_state_view(self, view: StateView, index: int, value: Any) -> None:
        view.write(self._params[0], self._state_row(index), value)
        self._held[view.name, index] = (view, value)  # gymnasium's env holds the very object assigned

    def _write_back_held(self, rows: range | None = None) -> None:
        """Writes the values read or assigned (and maybe changed in place since) back into the state rows (of the
        sub-environments in ``rows``, all by default).

        Raises:
            ValueError: If one was changed into a value its view refuses (say, a list that grew).
        """
        for (_, index), (view, value) in self._held.items():
            if rows is None or index in rows:
                view.write(self._params[0], self._state_row(index), value)

    def _renew_held(self, was_reset: np.ndarray | None, rows: range | None = None) -> None:
        """After a step (of the sub-environments in ``rows``, all by default): forgets the held values, which
        gymnasium's step replaces, but updates in place those its step changes in place (``changed_in_place``)
        unless the sub-environment was reset (``was_reset``, by autoreset; ``None`` for none), and keeps those its
        step leaves alone (``replaced_at_reset``) unless an autoreset replaced them.
        """
        for key, (view, value) in list(self._held.items()):
            if rows is not None and key[1] not in rows:
                continue
            reset = was_reset is not None and was_reset[key[1]]
            if view.replaced_at_reset is not None:
                if reset and view.replaced_at_reset(self._params[0]):
                    del self._held[key]
            elif view.changed_in_place and not reset:
                value[:] = view.read(self._params[0], self._state_row(key[1]))
            else:
                del self._held[key]

    def _write_back_kept(self) -> None:
        """Before a reset: writes back the held values of the attributes a reset may keep (``replaced_at_reset``),
        which the reset reads (CarRacing's ``road_color`` colours the new track's tiles).

        Raises:
            ValueError: If one was changed in place into a value its view refuses.
        """
        for (_, index), (view, value) in self._held.items():
            if view.replaced_at_reset is not None:
                view.write(self._params[0], self._state_row(index), value)

    def _release_held(self, mask: np.ndarray | None = None, params: np.ndarray | None = None) -> None:
        """Forgets the held values of the sub-environments in ``mask`` (all by default), which a step or reset
        replaces; after a reset with the parameters ``params``, keeps those of the attributes it keeps
        (``replaced_at_reset``)."""
        for key, (view, _) in list(self._held.items()):
            if mask is not None and not mask[key[1]]:
                continue
            if params is not None and view.replaced_at_reset is not None and not view.replaced_at_reset(params[0]):
                continue
            del self._held[key]


class KernelEnv(Exclusive, _StateViewsAsAttributes, _ParamsAsAttributes, Env):
    """A single environment run by the compiled kernels as a batch of one.

    Its random stream *is* ``np_random``: the kernels draw through views of the Generator's memory,
    so draws made from ``env.np_random`` in Python (by a wrapper, say) and in the kernels interleave
    exactly as they do in gymnasium.
    """

    info_keys: ClassVar[tuple[str, ...]] = ()
    """The info key of each of the physics' ``aux`` slots: the value the kernels write into slot ``k`` of a
    sub-environment is its info ``info_keys[k]`` (a Python float; batched as gymnasium batches infos)."""

    exclusive_calls: ClassVar[dict[str, str]] = {
        "reset": "env.reset()",
        "step": "env.step()",
        "render": "env.render()",
        "close": "env.close()",
        "__getstate__": "a copy or pickle of the env",
    }
    """The calls that hold the env (see ``nbgym.engine._in_use``): one thread at a time steps, resets, renders,
    closes or copies it, as does every attribute read and write of its parameters and state."""

    renderer: ClassVar[Any] = None
    """What draws the env's frames in the pixel render modes: a module, or the name of one imported on the first
    frame, with ``frame_size(env)``, ``draw(surface, env, index, state)`` and ``CAPTION`` (see
    ``nbgym.engine._render``); ``None``: no pixel rendering."""

    _render_state: Any = None
    """What ``nbgym.engine._render`` keeps between frames (window, clock, surfaces); ``None`` until then."""

    unlisted_render_mode: ClassVar[Literal["none", "frame", "refuse"]] = "refuse"
    """What ``render()`` does in a render mode the class does not list in ``metadata["render_modes"]``, as the
    gymnasium environment it reproduces does: return ``None`` (``"none"``), return the ``"rgb_array"`` frame
    (``"frame"``), or raise ``AssertionError`` (``"refuse"``)."""

    rendering_arguments: ClassVar[frozenset[str]] = frozenset({"render_mode"})
    """The env's arguments that only rendering reads: its vector class takes them among its options."""

    vector_render_modes: ClassVar[tuple[str, ...] | None] = None
    """The render modes the env's vector class draws, where not the vector base's (see ``drawn_render_modes``)."""

    vector_base: ClassVar[type]
    """The base of the vector classes ``vector_env_class`` makes from this family's single env classes."""

    gymnasium_hooks: ClassVar[dict[str, tuple[str, ...]]] = {}
    """The methods and properties of the gymnasium environment this class reproduces that its ``__init__``,
    ``step``, ``reset``, ``render`` or ``close`` call, each with those callers. A subclass that overrides one changes
    what gymnasium's environment does there, but nbgym's compiled calls never call it: such a subclass is refused
    where it is defined (``TypeError``) unless it overrides every caller too (``__init__`` aside, which calls its
    base's), or the hook is ``observation_hook`` or ``reset_info_hook``, which nbgym follows."""

    observation_hook: ClassVar[str | None] = None
    """gymnasium's method that makes the observation ``step`` and ``reset`` return (``"_get_obs"``): a subclass's
    override makes it here too."""

    reset_info_hook: ClassVar[str | None] = None
    """gymnasium's method that makes the info ``reset`` returns (MuJoCo's ``"_get_reset_info"``): a subclass's
    override makes it here too."""

    window_attributes: ClassVar[tuple[str, str, str | None] | None] = None
    """gymnasium's names of the env's window surface, its clock and its open flag (classic control's ``("screen",
    "clock", "isopen")``; ``None`` for a flag the env has not): the surface and clock read and write the engine's
    (``_render.RenderState``), made at the first pixel frame (``None`` before, and again when assigned ``None``: the
    next frame makes new ones); the flag is true until ``close()`` closes a window or surface. ``None``: the env
    draws no pixels, or keeps its window in attributes of its own."""

    class_constants: ClassVar[frozenset[str]] = frozenset()
    """gymnasium's attributes of the env that are class attributes there (Acrobot's physical constants), which a
    subclass changes by defining its own: its instances are made with the subclass's values (``_class_values``)."""

    _class_values: ClassVar[dict[str, Any]] = {}
    """The ``class_constants`` a subclass defined outside nbgym gives its instances (its bases' and its own)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _follow_gymnasium_hooks(cls)
        if not cls.__module__.startswith("nbgym."):
            _class_level_values(cls)
        names = cls.window_attributes
        if names is not None and not isinstance(getattr(cls, names[0], None), property):
            surface, clock, open_flag = names
            setattr(cls, surface, property(_window_surface, _set_window_surface))
            setattr(cls, clock, property(_window_clock, _set_window_clock))
            if open_flag is not None:
                setattr(cls, open_flag, True)

    def _configure(self, arguments: Any) -> np.ndarray:
        """The parameter record of the env's arguments (their declared names as attributes, defaults applied,
        ``render_mode`` among them); called by both the single and the vector class before anything is built,
        it may also keep what the arguments decide on ``self``."""
        raise NotImplementedError(
            f"{type(self).__name__} declares its arguments but not _configure(arguments), which makes its parameters"
        )

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        """The observation and action spaces of the env (of one sub-environment), from ``self._params``."""
        raise NotImplementedError(f"{type(self).__name__} declares its arguments but not _single_spaces()")

    def _build(self, arguments: Any, others: dict[str, Any]) -> None:
        """Builds the env from its declared arguments (see ``declares_arguments``); ``others``: what a declared
        ``**kwargs`` took (nothing for an env that declares none)."""
        params = self._configure(arguments)
        self._params = params
        for name, value in self._class_values.items():  # before the spaces, which may depend on them
            setattr(self, name, value)
        self.observation_space, self.action_space = self._single_spaces()
        KernelEnv.__init__(self, params, render_mode=getattr(arguments, "render_mode", None), **others)

    def _compile_python_calls(self) -> None:
        """Makes once each call the env's Python-side objects make into compiled functions of its own (the Box2D
        envs' bodies and joints), so that ``nbgym warmup``, which calls it on an env of its own after a reset and
        steps, puts them in the cache with the kernels. The engine's calls need nothing here."""

    def __init__(self, params: np.ndarray, render_mode: str | None = None) -> None:
        self._params = params
        self.render_mode = render_mode
        self._held = {}
        self._batch = KernelBatch(
            self.physics, params, 1, self.observation_space, self.action_space, self.asserts_action_in_space
        )
        self._batch.compile()
        self._discrete_action = np.zeros(1, dtype=np.int64)
        self._discrete = self._batch.discrete_actions
        self._obs_row = self._batch.obs[0]
        self._ready = False
        self._step_kernel: Callable[[np.ndarray], int] | None = None
        self._step_discrete: Callable[[], int] | None = None
        self._box_action_shape = None if self._discrete else self.action_space.shape
        self._box_actions = (
            {}
            if self._discrete
            else {dtype: np.zeros((1, *self._box_action_shape), dtype=dtype) for dtype in ACTION_FLOAT_DTYPES}
        )
        self._step_box: dict[np.dtype, tuple[np.ndarray, Callable[[], int]]] = {}
        """An action dtype -> the buffer of its kernel dtype and the step entry bound to it (``_bind_box``)."""

    @property
    def np_random(self) -> np.random.Generator:
        """The environment's random generator, shared with its compiled kernels."""
        if self._generator is None:
            generator, self._np_random_seed = seeding.np_random()
            self._bind(generator)
        return self._generator

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._bind(value)
        self._np_random_seed = -1

    _generator: np.random.Generator | None = None
    """The generator the kernels draw from (through views of its memory); ``None`` until one is bound."""

    @property
    def _np_random(self) -> np.random.Generator | None:
        """gymnasium's storage of ``np_random``: the generator the kernels draw from, ``None`` until the first. An
        assignment binds the kernels to the generator assigned (leaving ``np_random_seed`` as it is, as in
        gymnasium); ``None`` lets the next use of ``np_random`` draw a new OS-seeded one."""
        return self._generator

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        if value is None:
            self._generator = None  # the kernels draw from the last one's memory (``_drawn``) until the next is bound
        else:
            self._bind(value)

    _drawn: np.random.Generator | None = None
    """The generator whose memory the kernels' stream views are (``rng.generator_views``): held while they are."""

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        # Views of the batch and of the generator's memory, and the kernel bound to them, are rebuilt
        # over the copies; a window is not copied.
        del state["_obs_row"]
        self._write_back_held()  # the copy starts from the state as it is now, held values included
        state["_held"] = {}
        state["_step_kernel"] = state["_step_discrete"] = None
        state["_step_box"] = {}
        state["_render_state"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        Env.__setstate__(self, state)
        self._obs_row = self._batch.obs[0]
        if self._np_random is not None:
            self._bind(self._np_random)

    @exclusive("a binding of np_random")
    def _bind(self, generator: np.random.Generator) -> None:
        batch = self._batch
        batch.pcg, batch.buf = rng.generator_views(generator)
        self._step_kernel = batch.bind_step(NO_AUTORESET, 0)
        if self._discrete:
            self._step_discrete = batch.bind_step_entry(NO_AUTORESET, 0, self._discrete_action)
        self._step_box = {}  # compiled on the first action of each dtype: a kernel load costs ~0.1 s
        self._generator = self._drawn = generator

    def _bind_box(self, dtype: np.dtype) -> tuple[np.ndarray, Callable[[], int]] | None:
        """The buffer and bound step entry of actions of ``dtype`` (``None`` unless a float dtype that the kernels take,
        in any byte order), kept in ``_step_box`` for ``dtype``: one lookup a step."""
        kernel_dtype = kernel_float_dtype(dtype) if dtype.kind == "f" else None
        if kernel_dtype is None:
            return None
        bound = self._step_box.get(kernel_dtype)
        if bound is None:
            buffer = self._box_actions[kernel_dtype]
            bound = self._step_box[kernel_dtype] = (buffer, self._batch.bind_step_entry(NO_AUTORESET, 0, buffer))
        self._step_box[dtype] = bound
        return bound

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        params = self._reset_params(options)  # bad options raise before the seed moves the stream
        self._write_back_kept()  # so does an attribute the reset reads, changed in place into a refused value
        # Env's reset (it seeds), not the next class's: a kernel env may also be a MujocoEnv, whose reset
        # would reset the simulation a second time.
        Env.reset(self, seed=seed)
        if self._np_random is None:
            self.np_random  # noqa: B018 - the first unseeded reset binds a fresh OS-seeded stream (its seed kept)
        batch = self._batch
        try:
            batch.reset(batch.all_envs, params)
        except Exception as raised:
            raise _fault(self, raised, "reset") from None
        self._fault = None
        self._release_held(params=params)
        self._state_was_reset = self._ready = True
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._reset_info()

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        if not self._ready:
            _refuse_faulted(self, "env.step()")
            raise error.ResetNeeded("Cannot call env.step() before calling env.reset() (or after env.close()).")
        if self._held:
            self._write_back_held()
        actions = None
        if self._discrete:
            # Python ints and numpy's int64 (what Discrete.sample() returns) go straight in; other
            # values are checked by _action_batch, which fills the same buffer or raises.
            try:
                if type(action) is int or type(action) is np.int64:
                    self._discrete_action[0] = action
                else:
                    self._action_batch(action)
            except OverflowError:
                raise self._refused_action_error(
                    action, f"{action!r} ({type(action)}) invalid: out of the int64 range"
                ) from None
            step = self._step_discrete
        elif (
            type(action) is np.ndarray
            and action.shape == self._box_action_shape
            and (bound := self._step_box.get(action.dtype) or self._bind_box(action.dtype)) is not None
            and not self._python_number_actions  # else _action_batch must tell the physics of the array
        ):
            # The array (in any layout or byte order) is copied into a buffer of the env's own whose kernel entry point
            # is bound: no dispatch on the argument types, no new array per step.
            buffer, step = bound
            buffer[0] = action
        else:
            actions = self._action_batch(action)
        try:
            status = step() if actions is None else self._step_kernel(actions)
        except Exception as raised:
            raise _fault(self, raised, "step") from None
        if status != STEP_OK:
            raise self._refused_action_error(action, f"{action!r} ({type(action)}) invalid")
        if self._held:
            self._renew_held(None)
        reward = self._reward()
        terminated = self._batch.terminated.item(0)
        if terminated:
            reward = self._terminal_reward(reward)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, False, self._step_info()

    def _terminal_reward(self, reward: Any) -> Any:
        """The reward of a terminating step; envs that treat steps after termination apart override this."""
        return reward

    def _reset_info(self) -> dict[str, Any]:
        """The info of a reset: each of ``info_keys`` with its slot's value (a Python float); envs with other
        infos override this."""
        keys = self.info_keys
        if not keys:
            return {}  # most envs: no comprehension to set up each step
        aux = self._batch.aux
        return {key: aux.item(0, slot) for slot, key in enumerate(keys)}

    _step_info = _reset_info

    def _action_batch(self, action: Any) -> np.ndarray:
        reader = self._action_reader()
        if self._batch.discrete_actions:
            self._discrete_action[0] = reading.read(reader, self._params[0], action, self.action_space)
            return self._discrete_action
        if reader is not None:
            reading.read(reader, self._params[0], action, self.action_space)
        self._note_python_number_actions(action_kind(action)[1])
        try:
            return self._batch.actions_array(np.asarray(action)[None])
        except error.InvalidAction as reason:
            raise error.InvalidAction(
                f"{action!r} ({type(action)}) invalid for the action space {self.action_space}: {reason}"
            ) from None

    def render(self) -> Any:
        """A frame of the current state in ``render_mode`` (``None`` for ``"human"``, which draws in a window).

        The class's ``renderer`` draws (imported, with pygame, on the first call), so that
        stepping without rendering never pays for it.
        """
        if self.render_mode is None:
            from nbgym.engine._render import warn_no_render_mode

            warn_no_render_mode(self, "nbgym.make")
            return None
        self._write_back_held()
        from nbgym.engine._render import render_env

        return render_env(self)

    def close(self) -> None:
        """Closes the environment and its window, if any; ``step()`` needs a ``reset()`` again."""
        self._ready = False
        if self._render_state is not None:
            if self._render_state.surface is not None and self.window_attributes and self.window_attributes[2]:
                setattr(self, self.window_attributes[2], False)
            self._render_state.close(self)

    def _observation(self) -> Any:
        """The observation of the single env, as gymnasium's env returns it (a new array by default)."""
        return self._obs_row.copy()

    def _reward(self) -> Any:
        """The reward of the last step, of the Python type gymnasium's env returns (float by default)."""
        return self._batch.rewards.item(0)


def _same_value(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same value: the same object, equal, or arrays of equal shape and values."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays compared element-wise
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def _read_only_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that refuses writes (numpy's ``ValueError: assignment destination is read-only``)."""
    view = array.view()
    view.flags.writeable = False
    return view


class KernelVectorEnv(Exclusive, AsyncSteps, _StateViewsAsAttributes, _ParamsAsAttributes, VectorEnv):
    """A vector environment whose ``step()`` is one compiled call over all sub-environments.

    Each environment's vector class takes its environment's own arguments and passes the vector
    options below through (``**vector_options``): ``max_episode_steps`` defaults to the registered limit.

    Bit for bit the same as gymnasium's ``SyncVectorEnv`` over ``gymnasium.make(id)`` sub-environments
    for the same seeds and actions, in every autoreset mode. It also steps in the background, deterministically:
    envpool's ``async_reset``/``send``/``recv`` in batches of ``batch_size`` and gymnasium's
    ``step_async``/``step_wait`` (see ``nbgym.engine._async``).

    Args:
        num_envs: The number of sub-environments.
        params: The one-element parameter record array of the physics.
        max_episode_steps: The time limit of an episode (``None`` or 0 for none), counted in the kernel.
        autoreset_mode: An ``AutoresetMode`` or its string value.
        num_threads: The number of threads that step a batch, the caller's included, at most ``NUMBA_NUM_THREADS``
            (results do not depend on it; batches under ``threads.SMALLEST_SHARED_BATCH`` step in the caller). A
            batch sent (``send``, ``step_async``) goes to ``max(1, num_threads - 1)`` stepping threads, which the
            caller joins when it receives it; batches in flight side by side may step on more.
        copy: Whether ``reset``/``step`` return copies of the batch's buffers (``False``: live views
            that the next call overwrites).
        render_mode: The render mode of the sub-environments.
        batch_size: The number of sub-environments that ``recv`` returns (``None``: ``num_envs``), a divisor of
            ``num_envs``.
    """

    info_keys: ClassVar[tuple[str, ...]] = ()
    """The info key of each ``aux`` slot (see ``KernelEnv.info_keys``)."""

    exclusive_calls: ClassVar[dict[str, str]] = {
        "reset": "reset()",
        "step": "step()",
        "render": "render()",
        "close_extras": "close()",
        "get_attr": "get_attr()",
        "set_attr": "set_attr()",
        "num_threads": "a change of num_threads",
        "max_episode_steps": "a change of max_episode_steps",
        "__getstate__": "a copy or pickle of the env",
        "async_reset": "async_reset()",
        "send": "send()",
        "recv": "recv()",
        "step_async": "step_async()",
        "step_wait": "step_wait()",
    }
    """The calls that hold the env (see ``KernelEnv.exclusive_calls``)."""

    renderer: ClassVar[Any] = None
    """What draws each sub-environment's frame (see ``KernelEnv.renderer``)."""

    _single_env_class: ClassVar[type | None] = None
    """The single env class whose sub-environments this class steps (set by ``vector_env_class``)."""

    _VECTOR_ONLY_ARGUMENTS: ClassVar[frozenset[str]] = frozenset(
        {"num_envs", "vectorization_mode", "vector_kwargs", "wrappers", "autoreset_mode", "num_threads", "copy"}
        | {"batch_size", "max_episode_steps", "disable_env_checker"}
    )
    """The arguments of a vector env's spec that ``make`` of one sub-environment does not take as keyword arguments
    of the env (``max_episode_steps`` and ``disable_env_checker`` are ``make``'s own, kept in the spec's fields)."""

    _render_state: Any = None
    """What ``nbgym.engine._render`` keeps between frames; ``None`` until then (and if ``__init__`` fails)."""
    _ready = False

    sync_stand_in: ClassVar[bool] = True
    """Whether this class stands in for gymnasium's ``SyncVectorEnv`` over the single environment (gymnasium
    registers no vector entry point for it): :func:`nbgym.make_vec` then uses nbgym's ``SyncVectorEnv`` when
    given what only a sync vector environment can do (``wrappers``, ``vector_kwargs``, a render mode this
    class does not draw), as gymnasium does. ``False`` for a class that reproduces one of gymnasium's own
    vector environments (``CartPoleVectorEnv``), which refuses them as gymnasium's does."""

    def __init__(
        self,
        num_envs: int,
        params: np.ndarray,
        max_episode_steps: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        num_threads: int = 1,
        copy: bool = True,
        render_mode: str | None = None,
        batch_size: int | None = None,
    ) -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}.")
        self.num_envs = int(num_envs)
        self.batch_size = batch_size
        self.max_episode_steps = max_episode_steps
        self._autoreset_mode = resolve_autoreset_mode(autoreset_mode)
        self._params = params
        self.copy = copy
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self._kernel_mode = _KERNEL_MODES[self.autoreset_mode]
        self.single_observation_space, self.single_action_space = self._single_spaces()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._batch = KernelBatch(
            self.physics,
            params,
            self.num_envs,
            self.single_observation_space,
            self.single_action_space,
            self.asserts_action_in_space,
        )
        self._batch.compile()
        self._held = {}
        self._seed_words = rng.entropy_streams(self._batch.pcg, self._batch.buf)
        """The low and high 64 bits of each sub-environment's seed (see ``np_random_seed``)."""
        self._large_seeds: dict[int, int] = {}
        """The seeds of ``2**128`` or more, by sub-environment (numpy seeds those outside the kernel)."""
        self.num_threads = num_threads

    @property
    def max_episode_steps(self) -> int | None:
        """The time limit of an episode (``None`` or 0: none), counted in the kernel; an assignment limits the steps
        after it, as an assignment of gymnasium's ``TimeLimit._max_episode_steps`` does.

        Raises:
            ValueError: For a value that is not a non-negative int or ``None``.
        """
        return self._max_episode_steps

    @max_episode_steps.setter
    def max_episode_steps(self, value: int | None) -> None:
        if value is not None and (not isinstance(value, (int, np.integer)) or value < 0):
            raise ValueError(f"max_episode_steps must be a non-negative int or None, got {value!r}.")
        self._settle()
        self._max_episode_steps = value
        self._max_steps = int(value or 0)
        if "_batch" in self.__dict__:
            self._step_kernel = self._batch.bind_step(self._kernel_mode, self._max_steps)

    @property
    def batch_size(self) -> int:
        """The number of sub-environments ``recv`` returns; an assignment takes effect at the next ``async_reset``.

        Raises:
            ValueError: For a value that is not a divisor of ``num_envs`` (``None``: ``num_envs``).
        """
        return self._batch_size

    @batch_size.setter
    def batch_size(self, value: int | None) -> None:
        self._batch_size = check_batch_size(value, self.num_envs)

    @property
    def autoreset_mode(self) -> AutoresetMode:
        """How sub-environments whose episode ended are reset (``metadata["autoreset_mode"]``), fixed when the env is
        made: its kernels are compiled for it."""
        return self._autoreset_mode

    @autoreset_mode.setter
    def autoreset_mode(self, value: Any) -> None:
        raise AttributeError(
            f"autoreset_mode of {type(self).__name__} is fixed when the env is made (its kernels step in that mode): "
            f"make a new env with make_vec(..., autoreset_mode={value!r})."
        )

    def __getstate__(self) -> dict[str, Any]:
        self._settle()
        state = self.__dict__.copy()
        state["_batches"] = state["_pending_step"] = None  # a copy starts no async run: async_reset() it
        state["_step_kernel"] = None  # bound to the arrays of this batch, rebound to those of the copy
        state["_render_state"] = None
        self._write_back_held()  # the copy starts from the state as it is now, held values included
        state["_held"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        VectorEnv.__setstate__(self, state)
        self._step_kernel = self._batch.bind_step(self._kernel_mode, self._max_steps)

    def _single_spaces(self) -> tuple[spaces.Space, spaces.Space]:
        """The observation and action spaces of one sub-environment."""
        raise NotImplementedError

    _configure = KernelEnv._configure

    def _build_vector(
        self, num_envs: int, arguments: Any, max_episode_steps: int | None, vector_options: dict[str, Any]
    ) -> None:
        """Builds the vector env of a made vector class (see ``vector_env_class``) from the single env's arguments."""
        KernelVectorEnv.__init__(
            self,
            num_envs,
            self._configure(arguments),
            max_episode_steps=max_episode_steps,
            render_mode=arguments.render_mode,
            **vector_options,
        )

    @classmethod
    def drawn_render_modes(cls, env_class: type) -> tuple[str, ...]:
        """The render modes of ``env_class`` that a vector class made from it draws (the others make ``make_vec``
        build a ``SyncVectorEnv`` of single envs): the env's ``vector_render_modes``, by default each
        sub-environment's ``"rgb_array"`` frame, with the env's ``renderer``."""
        if env_class.vector_render_modes is not None:
            return env_class.vector_render_modes
        return ("rgb_array",) if env_class.renderer is not None else ()

    @property
    def num_threads(self) -> int:
        """The number of threads stepping the sub-environments (1: no threading)."""
        return self._batch.num_threads

    @num_threads.setter
    def num_threads(self, value: int) -> None:
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(f"num_threads must be a positive int, got {value!r}.")
        value = int(value)
        self._settle()
        if value > numba.config.NUMBA_NUM_THREADS:
            raise ValueError(
                f"num_threads={value} exceeds NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS} (the number of CPUs "
                f"unless the environment variable sets it)."
            )
        self._batch.num_threads = value
        self._step_kernel = self._batch.bind_step(self._kernel_mode, self._max_steps)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset all sub-environments, or those of ``options["reset_mask"]``.

        Args:
            seed: ``None`` (fresh entropy per sub-environment), an int ``s`` (sub-environment ``i``
                gets ``s + i``) or a list of ``num_envs`` ints/None.
            options: Reset options of the environment, and ``"reset_mask"``: a bool array of shape
                ``(num_envs,)`` selecting the sub-environments to reset.

        Returns:
            The batched observations and infos.
        """
        self._check_open()
        self._refuse_async_run("reset()")
        batch = self._batch
        if not isinstance(seed, int):
            seed = seeds_for(seed, self.num_envs)  # a list's length is checked before the mask, as gymnasium does
        mask = pop_reset_mask(options, self.num_envs)
        if mask is None:
            mask = batch.all_envs
        params = self._reset_params(options)  # bad options raise before any stream moves
        if self._fault is not None and not mask.all():
            _refuse_faulted(self, "a reset of some sub-environments (reset_mask)")
        if not self._ready and not mask.all():
            # gymnasium's sync vector env fails here too (it has no observation of the others to batch); the kernels
            # would hand back, then step, the zeroed rows of sub-environments never reset
            raise ValueError(
                "The first reset() of a vector environment must reset every sub-environment: "
                f"options['reset_mask'] leaves out {np.flatnonzero(~mask).tolist()}, which have never been reset. "
                "Call reset() without a reset_mask first."
            )
        self._write_back_kept()  # before the streams move: a refused value leaves the env as it was
        self._seed_streams(seed, mask)
        try:
            batch.reset(mask, params)
        except Exception as raised:
            raise _fault(self, raised, "reset") from None
        self._fault = None
        self._release_held(mask, params)
        self._state_was_reset = True
        self._ready = True
        infos = self._reset_infos(mask)
        return (batch.obs.copy() if self.copy else batch.obs), infos

    def _seed_streams(self, seed: int | list[int | None] | None, mask: np.ndarray) -> None:
        """Seed the stream of each sub-environment in ``mask`` whose seed (``seed + i``, or the list's
        ``seed[i]``) is not ``None``, as ``np.random.SeedSequence`` does (in a kernel: 65536 streams
        take milliseconds), and record the seeds for ``np_random_seed``.

        Raises:
            ValueError: If a list does not hold one seed per sub-environment.
            nbgym.error.Error: If a seed is not a non-negative int.
        """
        batch = self._batch
        if isinstance(seed, int) and 0 <= seed and seed + self.num_envs <= 2**64:
            words = np.zeros((self.num_envs, 2), dtype=np.uint64)
            words[:, 0] = np.arange(seed, seed + self.num_envs, dtype=np.uint64)
            chosen = mask
        else:
            seeds = seeds_for(seed, self.num_envs)
            chosen = np.array([single_seed is not None for single_seed in seeds]) & mask
            for i in np.flatnonzero(chosen):
                seeding.check_seed(seeds[i])
            words = np.zeros((self.num_envs, 2), dtype=np.uint64)
            for i in np.flatnonzero(chosen):
                if seeds[i] < rng.MAX_KERNEL_SEED:
                    words[i] = rng.seed_words([seeds[i]])[0]
                else:  # numpy's SeedSequence takes any int; the kernel takes 128-bit ones
                    batch.pcg[i], batch.buf[i] = rng.generator_rows(seeding.np_random(seeds[i])[0])
                    self._large_seeds[i] = seeds[i]
                    chosen[i] = False
        rng.seed_streams(batch.pcg, batch.buf, words, chosen)
        self._seed_words[chosen] = words[chosen]
        for i in [i for i in self._large_seeds if chosen[i]]:
            del self._large_seeds[i]

    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:
        """A copy of each sub-environment's random stream, as gymnasium's ``AsyncVectorEnv`` hands out its workers':
        the streams live in the kernels' rows, so drawing from a copy does not move them (``reset(seed=...)`` seeds
        them, ``np_random_seed`` gives their seeds)."""
        self._settle()
        batch = self._batch
        return tuple(rng.generator_of_rows(batch.pcg[i], batch.buf[i]) for i in range(self.num_envs))

    @np_random.setter
    def np_random(self, value: Any) -> None:
        raise AttributeError(
            f"np_random of {type(self).__name__} cannot be set: each sub-environment's stream lives in the kernels' "
            f"rows (as gymnasium's sync and async vector envs, it has no setter); seed them with reset(seed=...)."
        )

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """The seed of each sub-environment's stream, as gymnasium's ``SyncVectorEnv`` reports its
        sub-environments' ``np_random_seed``: ``(s, s + 1, ...)`` after ``reset(seed=s)``, and the OS
        entropy an unseeded stream was seeded with (as ``SeedSequence().entropy``)."""
        return tuple(
            self._large_seeds.get(i, low | high << 64) for i, (low, high) in enumerate(self._seed_words.tolist())
        )

    def stepping_envs(self) -> np.ndarray:
        """Which sub-environments the next ``step()`` steps, a bool array: under ``AutoresetMode.NEXT_STEP`` not those
        whose episode ended (that step resets them instead, their actions unread), in the other modes all of them.
        For an environment that checks something of the stepping sub-environments before the compiled step."""
        if self._kernel_mode == NEXT_STEP:
            return ~self._batch.needs_reset
        return self._batch.all_envs.copy()

    def step(
        self, actions: Any, env_id: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-environment with its action, in one compiled call; with ``env_id``, envpool's
        ``send(actions, env_id)`` then ``recv()``.

        Raises:
            ResetNeeded: If called before ``reset()``.
            InvalidAction: For a batch of the wrong shape or dtype, or an action outside the action space.
            AssertionError: In ``AutoresetMode.DISABLED``, for a sub-environment whose episode ended
                and was not reset (as gymnasium's vector envs do).
            nbgym.error.AlreadyPendingCallError: Without ``env_id``, while sub-environments step in the background.
        """
        if env_id is not None:
            self.send(actions, env_id)
            return self.recv()
        if self._batches is not None or self._pending_step is not None:
            self._refuse_async_run("step()")
        actions_array, actions = self._begin_step(actions)
        try:
            status = self._step_kernel(actions_array)
        except Exception as raised:
            self._after_failure()
            raise _fault(self, raised, "step") from None
        except threads.StepAbandoned as abandoned:
            self._abandon(abandoned)
            raise
        if status != STEP_OK:
            self._raise_step_error(status, actions)
        return self._end_step(actions)

    def _begin_step(self, actions: Any) -> tuple[np.ndarray, Any]:
        """Before a step of every sub-environment: the env's own checks (``_before_rows``), the held values written
        back, and ``actions`` read: the array the kernels take, and the batch as read (for the refusals).

        Raises:
            ResetNeeded, InvalidAction: See ``step``.
        """
        if self._row_hooks:
            self._before_rows(actions, 0, self.num_envs)
        if not self._ready:
            self._check_open()
            _refuse_faulted(self, "step()")
            raise error.ResetNeeded("Cannot call step() before calling reset() on a vector environment.")
        batch = self._batch
        if self._held:
            self._write_back_held()
        dtype = self._kernels_take(actions)
        if dtype is not None:  # straight to the kernels' action_valid (in the kernels' own layout)
            if self._python_number_actions:
                self._note_python_number_actions(False)
            return batch.kernel_actions(actions, dtype), actions  # itself, unless of another layout or byte order
        actions = self._read_batch(actions)  # refusals below name the elements read (an iterator is read once)
        return batch.actions_array(actions), actions

    def _end_step(
        self, actions: Any, stepped_since: bool = True
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """After a step of every sub-environment: its results, as ``step`` returns them (``stepped_since``: whether
        ``_rows_stepped`` is still to run, else a wait before ran it)."""
        batch = self._batch
        if self._row_hooks:
            if stepped_since:
                self._rows_stepped(0, self.num_envs)
            infos = self._step_infos()
            self._after_rows(0, self.num_envs)
        else:
            if stepped_since and self._held:
                self._renew_held(batch.was_reset)
            infos = self._step_infos()
        if self.copy:
            return batch.obs.copy(), batch.rewards.copy(), batch.terminated.copy(), batch.truncated.copy(), infos
        return batch.obs, batch.rewards, batch.terminated, batch.truncated, infos

    _row_hooks: ClassVar[bool] = False
    """Whether the class overrides a hook of a step (``_before_rows``, ``_rows_stepped``, ``_after_rows``): a step of
    one that does not skips their calls (a few hundred nanoseconds of a step of microseconds)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._row_hooks = any(
            getattr(cls, hook) is not getattr(KernelVectorEnv, hook)
            for hook in ("_before_rows", "_rows_stepped", "_after_rows")
        )

    def _before_rows(self, actions: Any, first: int, stop: int) -> None:
        """An env's own work before sub-environments ``first`` to ``stop - 1`` step with ``actions`` (theirs, as
        given to ``step`` or ``send``), before they are read: checks gymnasium's env makes first, parameters the
        actions set. Nothing by default. Sub-environments outside the rows may be stepping in the background: a
        change to what they read (a parameter) waits for them first (``_settle``)."""

    def _rows_stepped(self, first: int, stop: int) -> None:
        """Once sub-environments ``first`` to ``stop - 1`` have stepped: what is held of them renewed as gymnasium's
        step replaces it (``_renew_held``); envs add their own (MuJoCo's ``MjData`` handed out)."""
        if self._held:
            self._renew_held(self._batch.was_reset, range(first, stop))

    def _after_rows(self, first: int, stop: int) -> None:
        """An env's own work after sub-environments ``first`` to ``stop - 1`` stepped, once their infos are made
        (errors to raise). Nothing by default."""

    def _after_failure(self) -> None:
        """An env's own cleanup after a kernel raised during a step (every stepping thread has ended). Nothing by
        default."""

    def _abandon(self, abandoned: threads.StepAbandoned) -> None:
        """After a stepping thread that may still write the batch was abandoned: the env refuses every call until
        it ends, then steps only after a reset."""
        self._ready, self._fault = False, str(abandoned)
        abandoned.when_ended(self._in_use.hand_over(str(abandoned)))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Each sub-environment's attribute ``name``, as gymnasium's ``SyncVectorEnv.get_attr`` gives its
        sub-environments' attributes.

        State attributes (``state_views``: CartPole's ``state``, the toy-text ``s``, ...) are each
        sub-environment's own, held until it steps (changes in place reach its next step); parameters
        (``gravity``, ...) are shared by all sub-environments (an array one is read-only here: one sub-environment's
        change in place would change them all; ``set_attr`` sets it for all); ``np_random_seed`` is each stream's
        seed, ``np_random`` a copy of each stream; ``spec`` and ``metadata`` are those ``make`` gives each
        sub-environment of gymnasium's sync vector env (copies: changing them changes nothing).

        Raises:
            AttributeError: If the sub-environments have no such attribute.
        """
        self._settle()
        view = self._state_view(name)
        if view is not None:
            return tuple(self._read_state_view(view, i) for i in range(self.num_envs))
        if name in ("np_random_seed", "np_random"):
            return getattr(self, name)
        if name in ("render_mode", "observation_space", "action_space"):  # each sub-environment's, the same for all
            return (getattr(self, name if name == "render_mode" else f"single_{name}"),) * self.num_envs
        if name == "spec":
            return tuple(self._sub_env_spec() for _ in range(self.num_envs))
        if name == "_max_episode_steps" and self._max_steps > 0:  # each sub-environment's TimeLimit's, in gymnasium
            return (self._max_steps,) * self.num_envs
        if name == "_elapsed_steps" and self._max_steps > 0:
            return tuple(self._batch.elapsed.tolist()) if self._ready else (None,) * self.num_envs
        if name == "metadata":
            return (self._sub_env_metadata(),) * self.num_envs
        if self._is_shared_attribute(name):
            value = getattr(self, name)
            if isinstance(value, np.ndarray):  # shared: a change in place through one would change them all
                return tuple(_read_only_view(value) for _ in range(self.num_envs))
            return (value,) * self.num_envs
        raise AttributeError(
            f"The sub-environments of {type(self).__name__} have no attribute {name!r}: a compiled vector env serves "
            f"its state attributes ({', '.join(view.name for view in self.state_views) or 'none'}), its parameters, "
            f"render_mode, spec, metadata, the spaces, np_random and np_random_seed (vectorization_mode='sync' "
            f"vectorizes the env's own objects)."
        )

    @property
    def envs(self) -> list[Env]:
        """Refused: gymnasium's ``SyncVectorEnv`` holds its sub-environments as objects, a compiled vector env holds
        their state in rows.

        Raises:
            AttributeError: Always, saying what to use instead.
        """
        raise AttributeError(
            f"{type(self).__name__} has no sub-environment objects (envs): it steps their state rows in one compiled "
            "call. Use get_attr/set_attr/call for their attributes, or make_vec(..., vectorization_mode='sync') for "
            "a SyncVectorEnv whose envs are single environments."
        )

    def _sub_env_spec(self) -> Any:
        """A sub-environment's spec as gymnasium's ``make`` gives it to each one of a sync vector env made by
        ``make_vec``: the vector env's spec (``None`` if it was not made by ``make_vec``) with the env's own keyword
        arguments, and ``make``'s time limit (``step_limit``) and ``disable_env_checker`` in its fields."""
        from nbgym.registration import step_limit

        if self.spec is None:
            return None
        given = self.spec.kwargs
        return dataclasses.replace(
            self.spec,
            kwargs=copy.deepcopy(
                {key: value for key, value in given.items() if key not in self._VECTOR_ONLY_ARGUMENTS}
            ),
            max_episode_steps=step_limit(self.spec, given.get("max_episode_steps")),
            disable_env_checker=given.get("disable_env_checker", self.spec.disable_env_checker),
        )

    def _sub_env_metadata(self) -> dict[str, Any]:
        """A sub-environment's metadata: the env's (its render modes, though this class draws fewer), without the vector
        env's ``autoreset_mode``; a new dict."""
        metadata = {key: value for key, value in self.metadata.items() if key != "autoreset_mode"}
        if self._single_env_class is not None:
            metadata["render_modes"] = list(self._single_env_class.metadata.get("render_modes", []))
        return metadata

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Calls ``name`` on each sub-environment with ``args`` and ``kwargs``, as gymnasium's ``SyncVectorEnv.call``:
        ``"render"`` gives each one's frame (``render()``), ``"get_wrapper_attr"`` its attribute (``get_attr``); any
        other name is an attribute of ``get_attr``'s, called if callable, else returned as it is.

        Raises:
            AttributeError: If the sub-environments have no such attribute.
        """
        if name == "render" and not args and not kwargs:
            return self.render()
        if name == "get_wrapper_attr":
            return self.get_attr(*args, **kwargs)
        return tuple(value(*args, **kwargs) if callable(value) else value for value in self.get_attr(name))

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Sets attribute ``name`` of each sub-environment, as gymnasium's ``SyncVectorEnv.set_attr``: ``values``
        holds one value per sub-environment (a list or tuple), or is one value for all.

        Raises:
            ValueError: If a list or tuple does not hold one value per sub-environment, if a state value
                is refused by its view (it says why), or if different values are given for a parameter,
                which all sub-environments of a compiled vector env share.
            AttributeError: If the sub-environments have no such attribute.
        """
        self._settle()
        values = per_env_values(values, self.num_envs)
        view = self._state_view(name)
        if view is not None:
            for i, value in enumerate(values):  # all checked before any is held
                view.write(self._params[0], self._state_row(i).copy(), value)
            for i, value in enumerate(values):
                self._write_state_view(view, i, value)
            return
        if name == "np_random":
            self.np_random = values  # refused, saying why
        if name == "_max_episode_steps" and self._max_steps > 0:
            if not all(_same_value(value, values[0]) for value in values):
                raise ValueError(self._shared_message(name, values))
            self.max_episode_steps = values[0]
            return
        if name == "_elapsed_steps" and self._max_steps > 0 and self._ready:
            if not all(isinstance(value, (int, np.integer)) and not isinstance(value, bool) for value in values):
                raise TypeError(f"_elapsed_steps are ints, one per sub-environment, got {values!r}.")
            self._batch.elapsed[:] = values
            return
        if not self._is_shared_attribute(name):
            raise AttributeError(
                f"The sub-environments of {type(self).__name__} have no attribute {name!r} to set: a compiled vector "
                f"env sets its state attributes ({', '.join(view.name for view in self.state_views) or 'none'}), its "
                f"parameters and TimeLimit's _max_episode_steps and _elapsed_steps (vectorization_mode='sync' "
                f"vectorizes the env's own objects)."
            )
        if not all(_same_value(value, values[0]) for value in values):
            raise ValueError(self._shared_message(name, values))
        setattr(self, name, values[0])

    def _shared_message(self, name: str, values: list[Any]) -> str:
        return (
            f"{name} is shared by all sub-environments of a compiled vector env: set one value for all, got {values!r} "
            f"(use vectorization_mode='sync' for sub-environments that differ)."
        )

    def _is_shared_attribute(self, name: str) -> bool:
        """Whether ``name`` is a property of the environment's own classes (its parameters and the attributes derived
        from them, gymnasium's underscored ones too: MuJoCo's ``_ctrl_cost_weight``...), which every sub-environment
        shares."""
        if name.startswith("__"):
            return False
        for klass in type(self).__mro__:
            if klass is KernelVectorEnv:
                return False
            if isinstance(klass.__dict__.get(name), property):
                return True
        return False

    def _read_batch(self, actions: Any) -> Any:
        """``actions``, a batch that is not the kernels' own array, read as gymnasium's ``SyncVectorEnv`` reads it (see
        ``nbgym.engine.actions.read_batch``): the discrete actions as an int64 array, else the elements to convert.

        Raises:
            InvalidAction: Of gymnasium's type, for a batch or an element gymnasium refuses.
        """
        batch = self._batch
        reader = self._action_reader()
        if reader is not None:
            reads = self._reads_actions()
            elements, values = reading.read_batch(
                reader, self._params[0], actions, self.num_envs, reads, self.single_action_space
            )
            if batch.discrete_actions:
                actions = np.array([0 if value is None else value for value in values], dtype=np.int64)
            elif not reads.all():  # an element gymnasium does not read stands in for a read one (or zeros)
                stand_in = next((e for e, read in zip(elements, reads) if read), np.zeros(batch.action_shape[1:]))
                actions = [element if read else stand_in for element, read in zip(elements, reads)]
            elif not isinstance(actions, (list, tuple, np.ndarray)):
                actions = elements  # an iterator, read once
        if type(actions) is not np.ndarray:
            if not batch.discrete_actions:
                self._note_python_number_actions(self._batch_action_kind(actions)[1])
        elif self._python_number_actions:
            self._note_python_number_actions(False)
        return actions

    def _kernels_take(self, actions: Any) -> np.dtype | None:
        """The kernels' dtype for ``actions`` when it is a batch array of the values the kernels take as they are (of
        the batch's shape, int64 or a float dtype of ``ACTION_FLOAT_DTYPES``, in any layout or byte order), which their
        ``action_valid`` checks without gymnasium's reading; ``None`` for anything else."""
        if type(actions) is not np.ndarray or actions.shape != self._batch.action_shape:
            return None
        dtype = actions.dtype
        if self._batch.discrete_actions:
            return _INT64 if dtype.kind == "i" and dtype.itemsize == 8 else None
        return kernel_float_dtype(dtype) if dtype.kind == "f" else None

    def _reads_actions(self) -> np.ndarray:
        """Which sub-environments' steps read their actions, in gymnasium's ``SyncVectorEnv``: not those that next-step
        autoreset resets; under DISABLED, none from the first whose episode ended (its assertion fails first)."""
        ended = self._batch.needs_reset
        if self._kernel_mode == NEXT_STEP:
            return ~ended
        if self._kernel_mode == DISABLED:
            return np.cumsum(ended) == 0
        return np.ones(self.num_envs, dtype=bool)

    def _batch_action_kind(self, actions: Any) -> tuple[np.dtype, bool]:
        """The one ``action_kind`` of every element of a batch that is not an array.

        Raises:
            InvalidAction: If the elements differ in kind: gymnasium's sync env would compute each
                sub-environment in its own element's precision, which one batch array cannot hold.
        """
        try:
            kinds = {action_kind(action) for action in actions}
        except TypeError:  # not iterable: actions_array says what is wrong with it
            return np.asarray(actions).dtype, False
        if len(kinds) > 1:
            described = ", ".join(
                f"{dtype}{' (Python numbers)' if python else ''}" for dtype, python in sorted(kinds, key=str)
            )
            raise error.InvalidAction(
                f"The actions of one batch must be of one kind, got {described}: each sub-environment would compute in "
                f"its own action's precision. Pass one array, e.g. `np.asarray(actions, dtype=np.float32)`."
            )
        return kinds.pop() if kinds else (np.dtype(np.float64), False)

    def _raise_step_error(self, status: int, actions: Any) -> None:
        if status >= 0:
            action = np.asarray(actions)[status]
            raise self._refused_action_error(
                action, f"Sub-environment {status}: {action!r} is not in the action space {self.single_action_space}."
            )
        raise AssertionError(
            f"Sub-environment {ended_index(status)} ended its episode and autoreset_mode is DISABLED: reset it "
            f"with reset(options={{'reset_mask': mask}}) before stepping it again."
        )

    def _infos(self, aux: np.ndarray, obs: np.ndarray, contributing: np.ndarray | None) -> dict[str, Any]:
        """The infos of sub-environments whose info slots are ``aux`` and observations ``obs``, batched as
        gymnasium's ``SyncVectorEnv`` batches them: each of ``info_keys`` as a float64 array (0 where a
        sub-environment does not contribute) with its mask ``_key``. Envs with other infos override this.

        Args:
            aux: The ``(num_envs, aux_width)`` info slots.
            obs: The ``(num_envs, ...)`` observation buffer they go with.
            contributing: Which sub-environments give infos (``None``: all of them).
        """
        infos: dict[str, Any] = {}
        for slot, key in enumerate(self.info_keys):
            values = aux[:, slot].copy()
            if contributing is None:
                mask = np.ones(self.num_envs, dtype=np.bool_)
            else:
                values[~contributing] = 0.0
                mask = contributing.copy()
            infos[key], infos[f"_{key}"] = values, mask
        return infos

    def _reset_infos(self, mask: np.ndarray) -> dict[str, Any]:
        """The infos of a reset of the sub-environments in ``mask``."""
        return self._infos(self._batch.aux, self._batch.obs, mask)

    def _step_infos(self) -> dict[str, Any]:
        """The infos of the last step, and in ``SAME_STEP`` mode ``final_obs``/``final_info`` of the
        sub-environments whose episode ended (the ended step's observation and infos).

        The keys come in the order in which ``SyncVectorEnv`` adds them: the final ones before the
        sub-environments' own infos when the first sub-environment ended, after them otherwise.
        """
        batch = self._batch
        if self._kernel_mode != SAME_STEP:
            return self._infos(batch.aux, batch.obs, None)
        ended = batch.terminated | batch.truncated
        infos: dict[str, Any] = {}
        first_ended = bool(ended[0])
        if first_ended:
            self._add_final(infos, ended)
        infos.update(self._infos(batch.aux, batch.obs, None))
        if not first_ended and ended.any():
            self._add_final(infos, ended)
        return infos

    def _add_final(self, infos: dict[str, Any], ended: np.ndarray) -> None:
        batch = self._batch
        infos["final_obs"] = self._final_observations(ended)
        infos["_final_obs"] = ended
        infos["final_info"] = self._infos(batch.final_aux, batch.final_obs, ended)
        infos["_final_info"] = ended.copy()

    def _final_observations(self, ended: np.ndarray) -> np.ndarray:
        """The ``final_obs`` info: an object array holding the final observation of each ended sub-environment
        (``None`` elsewhere)."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        ended_obs = self._batch.final_obs[ended]  # one copy; each env's final obs is a row of it
        for row, i in enumerate(np.flatnonzero(ended)):
            final_obs[i] = self._final_observation(ended_obs[row])
        return final_obs

    def _final_observation(self, row: Any) -> Any:
        """One ended sub-environment's final observation from its buffer row, as its single env returns
        observations; envs whose observations are not arrays override this."""
        return row

    def render(self) -> tuple[Any, ...] | None:
        """The frames of every sub-environment in ``render_mode``, as gymnasium's sync vector env returns them
        (a tuple of ``None`` without a render mode, after one warning)."""
        if self.render_mode is None:
            from nbgym.engine._render import warn_no_render_mode

            warn_no_render_mode(self, "nbgym.make_vec")
            return (None,) * self.num_envs
        self._settle()
        self._write_back_held()
        from nbgym.engine._render import render_vector_env

        return render_vector_env(self)

    def close_extras(self, **kwargs: Any) -> None:
        """Marks the batch unusable (``reset``/``step`` now raise ``ClosedEnvironmentError``) and closes windows, once the
        sub-environments stepping in the background have stepped (not during the interpreter's exit, whose frozen
        threads step nothing: their jobs keep the arrays they write alive). A batch collected after the exit cleared
        this module's globals (``sys`` among them: it was kept alive until then) is past any step too."""
        if sys is not None and not sys.is_finalizing():
            self._settle()
        batch = self.__dict__.get("_batch")  # none when its construction failed (closed by ``__del__``)
        if batch is not None:
            batch.end_threads()  # its serving workers go back to the queue now, not after their spin
        self._batches = self._pending_step = None
        self._ready = False
        if self._render_state is not None:
            self._render_state.close(self)

    def _check_open(self) -> None:
        if self.closed:
            raise error.ClosedEnvironmentError("Trying to operate on an environment that is closed.")


KernelEnv.vector_base = KernelVectorEnv
KernelEnv.action_space = fixed_property("action_space", _ACTION_SPACE_WHY)
KernelVectorEnv.action_space = fixed_property("action_space", _ACTION_SPACE_WHY)
KernelVectorEnv.single_action_space = fixed_property("single_action_space", _ACTION_SPACE_WHY)
KernelVectorEnv.num_envs = fixed_property(
    "num_envs", "its arrays hold that many sub-environments. Make a new env with make_vec(id, num_envs=...)."
)
