"""What the asv benchmark modules share: the selection (default or full), their parameters and the making of
warmed-up contenders.

The measuring itself is :mod:`nbgym._bench`'s, the code behind ``nbgym bench``, so the dashboard and the
command measure the same way.

**Two selections.** The default suite measures one or two environments of every family (classic control, toy
text, Box2D, MuJoCo) at one size, the scaling curve of CartPole-v1 over every size, start-up, memory, spaces
and the headline ratios: ``asv run --quick`` takes minutes. ``NBGYM_ASV_FULL=1`` (set in the environment of
``asv run``) selects the full matrix: every compiled environment (from the registry, so a newly added one
appears without editing the suite) at every size. Parameters outside the selection are skipped in ``setup``
(asv shows them as n/a, not as failed).
"""

from __future__ import annotations

import os
from typing import Any

from nbgym import _bench

FULL = os.environ.get("NBGYM_ASV_FULL", "") not in ("", "0")
"""Whether the full matrix is selected (``NBGYM_ASV_FULL=1``)."""

ALL_ENV_IDS = _bench.compiled_env_ids(latest_only=True)
"""The latest version of every registered environment with a compiled vector env that imports."""

FAMILIES = {
    "classic control": ["CartPole-v1", "Pendulum-v1"],
    "toy text": ["FrozenLake-v1", "Blackjack-v1"],
    "Box2D": ["LunarLander-v3"],
    "MuJoCo": ["HalfCheetah-v5"],
}
"""The default suite's environments of each family (LunarLander's single and vector envs are compiled on nbgym's
Box2D port)."""

FAMILY_ENV_IDS = [env_id for ids in FAMILIES.values() for env_id in ids if env_id in ALL_ENV_IDS]
"""The default suite's compiled environments whose modules import here."""

ENV_IDS = ALL_ENV_IDS if FULL else FAMILY_ENV_IDS
"""The compiled environments of the selection."""

SINGLE_ENV_IDS = ENV_IDS + [
    env_id
    for env_id in FAMILIES["Box2D"]
    if env_id not in ENV_IDS and env_id in _bench.nbgym_env_ids() and _bench.import_failure(_bench.spec(env_id)) is None
]
"""The environments whose single env (``make``) is measured: the compiled ones and the default Box2D ones."""

NUM_ENVS = [1, 16, 256, 4096, 65536]
"""The sizes of the scaling curve (every size, one env) and of the full matrix (every env)."""

VECTOR_NUM_ENVS = NUM_ENVS if FULL else [256]
"""The vector sizes at which every environment of the selection is measured."""

LIBRARIES = _bench.installed_libraries()
"""nbgym, and gymnasium and envpool where installed: the same benchmark for each, side by side."""

SPACE_LIBRARIES = [library for library in LIBRARIES if library in ("nbgym", "gymnasium")]
"""The libraries that have Gymnasium's spaces."""

SAMPLE_TIME = 0.2
"""Seconds of one throughput sample of the ``track_`` benchmarks."""


def runner(
    library: str, env_id: str, num_envs: int, *, single: bool = False, actions: list[Any] | None = None
) -> _bench.Runner:
    """A made, seeded and warmed-up contender (nbgym's kernels compiled or loaded from cache).

    ``actions`` are the precomputed actions (:func:`nbgym._bench.action_pool`), drawn here by default.

    Raises:
        NotImplementedError: If the contender is not measured here (asv then skips the parameter
            combination and shows it as n/a): a library without the environment, a SyncVectorEnv
            beyond :data:`nbgym._bench.DEFAULT_MAX_SYNC_ENVS` envs, envpool's single env. Call it from
            ``setup``: asv counts the exception as a skip there, as a failure in the timed function.
    """
    if actions is None:
        actions = _bench.action_pool(env_id, num_envs, single=single)
    try:
        return _bench.make_runner(library, env_id, num_envs, actions, single=single)
    except _bench.Unavailable as e:
        raise NotImplementedError(str(e)) from None


def close(benchmark: Any, *names: str) -> None:
    """Closes the contenders ``setup`` made (a teardown's work): asv calls ``teardown`` after a ``setup`` that
    raised ``NotImplementedError`` too, where a missing contender would turn the skip into a failure."""
    for name in names:
        made = getattr(benchmark, name, None)
        if made is not None:
            made.close()
