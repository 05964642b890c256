"""nbgym under Ray RLlib: every env runner steps nbgym's compiled vector environment, and finds it by itself.

One line sets up an RLlib algorithm config::

    from ray.rllib.algorithms.ppo import PPOConfig
    from nbgym.interop.rllib import configure

    config = configure(PPOConfig(), "CartPole-v1")  # then .env_runners(...), .training(...), .build_algo()

RLlib's env runners are separate processes (on other machines, in a cluster) that import nothing of the
driver's: an id registered by ``import nbgym.gymnasium`` in the driver is unknown there (RLlib then fails
with ``IndexError: list index out of range``). :func:`env_id` gives the id as the string
``"nbgym.gymnasium:nbgym/CartPole-v1"``, which makes gymnasium import :mod:`nbgym.gymnasium` in each
runner before it looks the id up, so registration reaches every worker with no setup. :func:`configure`
passes that string to ``config.environment`` and sets ``gym_env_vectorize_mode="vector_entry_point"``,
so that each runner makes ``num_envs_per_env_runner`` sub-environments as one compiled vector env (one
call per runner step) instead of gymnasium's ``SyncVectorEnv`` over single envs. Both give gymnasium's
results bit for bit: RLlib trains to the same weights as on gymnasium's envs with its default ``"sync"``
mode, for the same seeds.

Nothing here imports Ray: the functions only build strings and call the config's own methods.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any

import gymnasium

import nbgym.registration
from nbgym import error

__all__ = ["PREFIX", "env_id", "configure"]

PREFIX = "nbgym.gymnasium:nbgym/"
"""What turns an nbgym id into the string an RLlib env runner makes it from."""


def env_id(id: str, module: str = "nbgym.gymnasium") -> str:
    """The id string that makes nbgym's environment ``id`` in any process, an RLlib env runner included.

    Args:
        id: An nbgym id (``"CartPole-v1"``), or the gymnasium one (``"nbgym/CartPole-v1"``, with or
            without a ``"module:"`` prefix).
        module: The module the workers import first. ``"nbgym.gymnasium"`` reaches nbgym's own
            environments; for one you registered with :func:`nbgym.register`, the module that registers
            it (and then calls :func:`nbgym.gymnasium.register_envs`, or imports :mod:`nbgym.gymnasium`
            after registering).

    Returns:
        ``"<module>:nbgym/<id>"``, e.g. ``"nbgym.gymnasium:nbgym/CartPole-v1"``.

    Raises:
        nbgym.error.UnregisteredEnv: (or its subclasses ``NameNotFound``, ``NamespaceNotFound``,
            ``VersionNotFound``) ``id`` is not registered once ``module`` is imported, in nbgym's registry or
            in gymnasium's, or a fresh Python process that imports only ``module`` (as a worker does; checked
            once, in about a second) does not find it: a worker could not make it.
    """
    module_name, _, name = id.rpartition(":")
    module = module_name or module
    nbgym_id = _nbgym_id(name)
    importlib.import_module(module)
    try:
        nbgym.registration.spec(nbgym_id)
    except error.UnregisteredEnv as e:
        raise type(e)(
            f"{e} A Ray worker imports only {module!r} before making {nbgym_id!r}: register the environment "
            f"with nbgym.register in that module (or in one imported by it), not in the driver's script."
        ) from e
    namespace = nbgym.registration.parse_env_id(nbgym_id)[0]
    gymnasium_id = f"nbgym/{nbgym_id}" if namespace is None else f"nbgym-{nbgym_id}"
    if gymnasium_id not in gymnasium.registry:
        raise error.NameNotFound(
            f"{nbgym_id!r} is registered in nbgym's registry, but importing {module!r} does not register "
            f"{gymnasium_id!r} in gymnasium's, which the workers look it up in: end {module!r} with "
            f"`nbgym.gymnasium.register_envs()` after registering it."
        )
    _check_in_a_fresh_process(module, gymnasium_id)
    return f"{module}:{gymnasium_id}"


def _check_in_a_fresh_process(module: str, gymnasium_id: str) -> None:
    """Makes sure a process that imports only ``module``, as a Ray worker does, finds ``gymnasium_id``.

    Raises:
        nbgym.error.NameNotFound: It does not (the id was registered by this process only, say by the driver's script).
    """
    code = (
        "import importlib, sys, gymnasium\n"
        f"importlib.import_module({module!r})\n"
        f"sys.exit(0 if {gymnasium_id!r} in gymnasium.registry else 3)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode != 0:
        raise error.NameNotFound(
            f"A fresh process that imports {module!r}, as a Ray worker does, does not find {gymnasium_id!r}"
            f"{': ' + run.stderr.strip().splitlines()[-1] if run.returncode != 3 and run.stderr.strip() else ''}. It is "
            f"registered in this process only (by the driver's script, say): register it with nbgym.register in a "
            f"module the workers can import, and pass that module (env_id(id, module=...) or configure(..., module=...))."
        )


def _nbgym_id(name: str) -> str:
    """The nbgym id of a gymnasium id that :mod:`nbgym.gymnasium` registers (the id itself if it is none)."""
    if name.startswith("nbgym/"):
        return name.removeprefix("nbgym/")
    if name.startswith("nbgym-"):
        return name.removeprefix("nbgym-")  # "nbgym-myns/Env-v0" is nbgym's "myns/Env-v0"
    return name


def configure(config: Any, id: str, module: str = "nbgym.gymnasium", **env_kwargs: Any) -> Any:
    """Sets an RLlib ``AlgorithmConfig`` to train on nbgym's environment ``id``, compiled vector env per runner.

    Args:
        config: An RLlib algorithm config (``PPOConfig()``, ...).
        id: The nbgym id, e.g. ``"CartPole-v1"`` (see :func:`env_id`).
        module: The module the workers import first (see :func:`env_id`).
        **env_kwargs: Keyword arguments of the environment (RLlib's ``env_config``), e.g. ``num_threads=2``
            for the compiled vector env's threads.

    Returns:
        ``config``, with ``environment(env=env_id(id, module), env_config=env_kwargs)`` and, where the
        environment has a compiled vector env (a vector entry point), ``env_runners(gym_env_vectorize_mode=
        "vector_entry_point")``; the others keep RLlib's ``"sync"`` vectorization.

    Raises:
        nbgym.error.UnregisteredEnv: ``id`` is not registered (see :func:`env_id`).
    """
    string = env_id(id, module)
    config = config.environment(env=string, env_config=dict(env_kwargs))
    if nbgym.registration.spec(_nbgym_id(string.rpartition(":")[2])).vector_entry_point is not None:
        config = config.env_runners(gym_env_vectorize_mode="vector_entry_point")
    return config
