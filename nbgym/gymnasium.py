"""nbgym's environments in gymnasium's registry: ``import nbgym.gymnasium``, then ``gymnasium.make("nbgym/CartPole-v1")``.

Importing this module registers every environment of nbgym's registry in gymnasium's under the
namespace ``nbgym`` (``CartPole-v1`` becomes ``nbgym/CartPole-v1``), so gymnasium-typed code reaches
nbgym's compiled environments by id:

- ``gymnasium.make("nbgym/CartPole-v1")`` makes nbgym's bare environment as a ``gymnasium.Env``
  (:class:`~nbgym.interop.AsGymnasiumEnv`) inside gymnasium's own ``make`` wrappers (time limit,
  order enforcing, checker), bit for bit gymnasium's ``make("CartPole-v1")``;
- ``gymnasium.make_vec("nbgym/CartPole-v1", num_envs)`` makes nbgym's compiled vector environment as
  a ``gymnasium.vector.VectorEnv`` (keyword arguments such as ``autoreset_mode`` and ``num_threads``
  pass through);
- where only an id string can be given (Stable-Baselines3's ``make_vec_env``, subprocesses that
  import nothing), ``"nbgym.gymnasium:nbgym/CartPole-v1"`` makes gymnasium import this module first.

``"nbgym:CartPole-v1"`` is refused with a message: gymnasium would import nbgym and then make its
own ``CartPole-v1``.
"""

from __future__ import annotations

import dataclasses

import gymnasium

import nbgym.envs  # noqa: F401  (registers nbgym's environments)
from nbgym.interop import convert_spec
from nbgym.registration import get_env_id, registry

__all__ = ["NAMESPACE", "register_envs"]

NAMESPACE = "nbgym"


def register_envs() -> list[str]:
    """Registers in gymnasium's registry every environment of nbgym's that it does not hold yet.

    Runs when this module is imported; call it again after registering environments of your own with
    :func:`nbgym.register` to make them reachable from gymnasium too.

    Returns:
        The gymnasium ids registered by this call, e.g. ``["nbgym/CartPole-v1", ...]``.
    """
    registered = []
    for spec in list(registry.values()):
        # gymnasium's ids allow letters, digits, "_", "-" and ":" in a namespace: "myns/Env-v0" becomes "nbgym-myns/Env-v0".
        namespace = NAMESPACE if spec.namespace is None else f"{NAMESPACE}-{spec.namespace}"
        gymnasium_id = get_env_id(namespace, spec.name, spec.version)
        if gymnasium_id in gymnasium.registry:
            continue
        gymnasium.registry[gymnasium_id] = dataclasses.replace(convert_spec(spec, gymnasium), id=gymnasium_id)
        registered.append(gymnasium_id)
    return registered


register_envs()
