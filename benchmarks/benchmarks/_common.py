"""What the asv benchmark modules share: their parameters and the making of warmed-up contenders.

The measuring itself is :mod:`nbgym._bench`'s, the code behind ``nbgym bench``, so the dashboard and
the command measure the same way. The parameters come from the registry: every compiled environment
whose module imports (the latest version of each name) is benchmarked, so a newly added environment
appears in the suite without editing it.
"""

from __future__ import annotations

from typing import Any

from nbgym import _bench

ENV_IDS = _bench.compiled_env_ids(latest_only=True)
"""The latest version of every registered environment with a compiled vector env that imports."""

NUM_ENVS = [1, 16, 256, 4096, 65536]
"""The vector sizes of the throughput benchmarks."""

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
            beyond :data:`nbgym._bench.DEFAULT_MAX_SYNC_ENVS` envs, envpool's single env.
    """
    if actions is None:
        actions = _bench.action_pool(env_id, num_envs, single=single)
    try:
        return _bench.make_runner(library, env_id, num_envs, actions, single=single)
    except _bench.Unavailable as e:
        raise NotImplementedError(str(e)) from None
