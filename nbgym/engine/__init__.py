"""Write your own compiled environments: nbgym's engine, public.

An environment is its *physics* — four plain Python functions over a batch of state rows, which numba
compiles into nbgym's batched kernels — and two small classes around it. You get a single ``Env`` and
a vector env that steps every sub-environment in one compiled call, with everything nbgym's own
environments have: gymnasium's three autoreset modes, a time limit counted in the kernel, results that
do not depend on ``num_threads``, validation of a whole batch of actions before anything moves,
pickling, numba's disk cache, and numpy-exact random streams (one per sub-environment, seeded as
gymnasium's ``SyncVectorEnv`` seeds its sub-environments). nbgym's classic-control and toy-text
environments are written with exactly this API; ``docs/custom_environments.md`` walks through one.

The physics protocol (``i`` is the sub-environment's row, ``rng`` its random stream):

- ``reset(params, state, i, rng, aux)``: write a fresh ``state[i]`` (and reset infos into ``aux[i]``);
- ``step(params, state, i, actions, rng, aux) -> (reward, terminated)``: apply ``actions[i]``;
- ``observe(params, state, i, obs)``: write the observation of ``state[i]`` into ``obs[i]``;
- ``action_valid(params, actions, i) -> bool``: whether ``actions[i]`` may be applied at all.

``params`` is the parameter record (its fields are attributes: ``params.gravity``), ``state`` the
``(num_envs, width)`` state array, ``obs`` the ``(num_envs, *obs_shape)`` observation buffer,
``aux`` ``(num_envs, aux_width)`` float64 info slots. Draw random numbers only with
:mod:`nbgym.engine.rng` (``rng.uniform(rng_, i, low, high)``...); helpers called from the physics
are compiled with :func:`njit`.

Names:

- :class:`Physics`: declares the parameter record, the state row, the four functions (and the info
  slots and observation row, where the spaces do not give them).
- :class:`KernelEnv`: subclass it (set ``physics``, optionally ``renderer``, ``info_keys``, ``state_views``) and
  declare the env's arguments (:func:`declares_arguments`); :class:`KernelVectorEnv`: the base of the vector class
  :func:`vector_env_class` makes from it; register both with ``nbgym.register(id, entry_point=...,
  vector_entry_point=...)``. ``KernelVectorEnv.stepping_envs()`` says which sub-environments the next
  ``step()`` steps (not those that next-step autoreset resets), for an env that checks something of them first.
- :func:`declares_arguments`, :func:`vector_env_class`: one declaration per env. A ``KernelEnv`` subclass's
  ``__init__``, decorated, declares the env's arguments (gymnasium's signature); the class (or a mixin of what
  both classes share) makes the parameters from them (``_configure(arguments)``) and the spaces from the
  parameters (``_single_spaces()``); ``vector_env_class(EnvClass)`` makes the vector class, whose
  ``max_episode_steps`` defaults to the registered limit (:data:`REGISTERED`).
- :func:`njit`: the decorator of helpers (nbgym's kernel options: cached, no fastmath). Called from a kernel, a
  helper is compiled once per argument types, with constants typed by their type and signed integers narrower than
  64 bits as ``int64`` (the same values: numba computes with them as ``int64`` anyway), so a helper that returns its
  ``int32`` argument returns an ``int64`` there; called from Python, as numba types the call.
- :func:`borrowing_njit`: the decorator of helpers that a physics declared ``Physics(..., borrows_state=True)``
  calls with its state from ``step`` or ``observe``: compiled without numba's reference counting, as those
  functions are (the kernels keep the state's arrays alive for the call). They may not allocate an array, nor
  return one (numba compiles the helpers they call without reference counting too: those may not either).
- :mod:`nbgym.engine.rng`: per-sub-environment draws; :mod:`nbgym.engine.npmath`: numpy's scalar
  math bit for bit where numba's differs (and ``fma``).
- :func:`rollout`, :class:`Trajectory`, :class:`RolloutResult`: a numba policy and a compiled vector
  env stepped together, many steps in one call.
- :class:`StateView` (and :mod:`nbgym.engine.state_views`): the env's state attributes (a class's
  ``state_views``), read from and written into the state row with gymnasium's semantics.
- :mod:`nbgym.engine.written`: ``store``, a value a user assigns stored into the kernels' arrays only when they hold it exactly
  and the kernels follow its kind of number in gymnasium's arithmetic (a class's ``written_kinds``, a record's
  ``_<name>_kind`` fields).
- :mod:`nbgym.engine.actions`: ``Physics(read_action=...)``, an env's actions taken and refused as its gymnasium
  original takes and refuses them (``keys_a_dict``, ``indexes_a_list``).
- :class:`RenderState`, :func:`import_pygame`, :func:`render_frame`: for a ``renderer`` that draws with
  pygame, and to draw a sub-environment's frame in a given mode. An env that draws in its own ``render`` (as
  gymnasium's Box2D envs do, with ``env.screen`` and ``env.clock``) uses :func:`start_render`,
  :func:`show_in_window`, :func:`surface_pixels`, :func:`close_window` and :class:`DrawsResetTwice`. None of these
  imports numba: every env's pygame helpers live in ``_render``.
- :data:`ACTION_FLOAT_DTYPES`: float32 and float64, the dtypes the kernels take Box actions in as they are: an env
  whose own ``step`` reads an action before the engine does may pass an array of one of them on unread.

For environments that bind compiled code of their own (nbgym's MuJoCo binding):

- :data:`OVERLOAD_OPTIONS`: the ``jit_options`` of a ``numba.extending.overload`` whose implementation kernels
  call (``njit``'s options, as a helper: no Python wrapper, not cached apart from the kernels that call it).
- :func:`dispatch_on_params`: a compiled call of a stub reaches each env's own function by the type of its
  parameter record, as the kernels reach each physics (nothing captured: the disk cache keeps working).
- :mod:`nbgym.engine.atomic`: ``fetch_add``, an atomic counter for what sub-environments stepped by several
  threads share (MuJoCo's simulation slots).
- :func:`outside_llvmlite`: held around an env's own calls into llvmlite's bindings (MuJoCo's error trampoline, built
  from LLVM IR), as the engine holds it around every compile and load: a Ctrl-C meanwhile is raised once the main
  thread is out of llvmlite's code, which an interrupt can leave freeing memory twice.

``import nbgym.engine`` is cheap: each name is imported on first use.

The package is the whole engine, one module per thing: the public modules above, and the implementation in
private ones — ``_env`` (the env classes), ``_declare`` (one declaration per env), ``_batch`` (a batch's arrays and kernel calls), ``_kernels`` (the batched kernels, ``Physics``), ``_jit`` (numba's
options, helpers and entries), ``_cache`` (the checked disk cache), ``_checks`` (a physics' checks),
``_threads`` (the stepping threads), ``_rollout``, ``_render``, ``_ziggurat`` (``rng.standard_normal``).
nbgym's environments (``nbgym/envs``) use only public names, as an environment written outside nbgym would
(``tests/engine/test_engine_boundary.py`` checks it). nbgym's Box2D port (``nbgym._box2d``, private) is not an
environment but compiled library code under the engine, and keeps using the private ``_jit``
(``BORROWING_OPTIONS``: overloads compiled without numba's reference counting). So do nbgym's own tools (the
CLI's cache commands, the benchmarks, the vector wrappers' kernels).
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

__all__ = [
    "ACTION_FLOAT_DTYPES",
    "DrawsResetTwice",
    "KernelEnv",
    "KernelVectorEnv",
    "OVERLOAD_OPTIONS",
    "Physics",
    "REGISTERED",
    "RenderState",
    "RolloutResult",
    "StateView",
    "Trajectory",
    "actions",
    "atomic",
    "borrowing_njit",
    "close_window",
    "declares_arguments",
    "dispatch_on_params",
    "import_pygame",
    "njit",
    "npmath",
    "outside_llvmlite",
    "render_frame",
    "rng",
    "rollout",
    "show_in_window",
    "start_render",
    "state_views",
    "surface_pixels",
    "vector_env_class",
    "written",
]

_SUBMODULES = ("actions", "atomic", "npmath", "rng", "state_views", "written")
_RENDERING = (
    "DrawsResetTwice",
    "RenderState",
    "close_window",
    "import_pygame",
    "render_frame",
    "show_in_window",
    "start_render",
    "surface_pixels",
)

_WITHOUT_NUMBA = {
    **dict.fromkeys(_RENDERING, "_render"),  # wrappers and renderers of any env import them
    "outside_llvmlite": "_interrupts",  # llvmlite's bindings only
}
"""The names whose modules import no numba, by module."""

__getattr__, __dir__ = lazy_attributes(
    __name__,
    {**{name: "_api" for name in __all__ if name not in (*_SUBMODULES, *_WITHOUT_NUMBA)}, **_WITHOUT_NUMBA},
)
