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
- :class:`KernelEnv`, :class:`KernelVectorEnv`: subclass them (set ``physics``, the spaces, and
  optionally ``renderer``); register them with ``nbgym.register(id, entry_point=...,
  vector_entry_point=...)``.
- :func:`njit`: the decorator of helpers (nbgym's kernel options: cached, no fastmath).
- :mod:`nbgym.engine.rng`: per-sub-environment draws; :mod:`nbgym.engine.npmath`: numpy's scalar
  math bit for bit where numba's differs.
- :func:`rollout`, :class:`Trajectory`, :class:`RolloutResult`: a numba policy and a compiled vector
  env stepped together, many steps in one call.
- :class:`StateView` (and :mod:`nbgym.engine.state_views`): the env's state attributes (a class's
  ``state_views``), read from and written into the state row with gymnasium's semantics.
- :mod:`nbgym.engine.actions`: ``Physics(read_action=...)``, an env's actions taken and refused as its gymnasium
  original takes and refuses them (``keys_a_dict``, ``indexes_a_list``).
- :class:`RenderState`, :func:`import_pygame`, :func:`render_frame`: for a ``renderer`` that draws with
  pygame, and to draw a sub-environment's frame in a given mode.

``import nbgym.engine`` is cheap: each name is imported on first use.
"""

from __future__ import annotations

from nbgym._lazy import lazy_attributes

__all__ = [
    "KernelEnv",
    "KernelVectorEnv",
    "Physics",
    "RenderState",
    "RolloutResult",
    "StateView",
    "Trajectory",
    "import_pygame",
    "njit",
    "npmath",
    "render_frame",
    "rng",
    "rollout",
    "state_views",
]

__getattr__, __dir__ = lazy_attributes(__name__, dict.fromkeys(__all__, "_api"))
