"""Memory of environments: the process's peak, and the bytes allocated per sub-environment."""

from __future__ import annotations

import tracemalloc

from nbgym import _bench

from ._common import ENV_IDS, FULL, LIBRARIES, runner

_SIZES = [1, 4096, 65536]

# The default suite measures CartPole's (gymnasium's native vector env beside it): a SyncVectorEnv of 4096
# envs made under tracemalloc takes minutes, and MuJoCo's simulations are tens of kilobytes each (a separate
# MuJoCo file may measure theirs).
_ENV_IDS = ENV_IDS if FULL else ["CartPole-v1"]


class Memory:
    """A made, reset and stepped environment (size 1: the single env of ``make``)."""

    params = (_ENV_IDS, _SIZES, LIBRARIES)
    param_names = ("env", "num_envs", "library")
    timeout = 300

    def setup(self, env_id: str, num_envs: int, library: str) -> None:
        self.actions = _bench.action_pool(env_id, num_envs, single=num_envs == 1)
        # Compiles (or loads) nbgym's kernels, so that neither benchmark counts the compiler's memory.
        self._make(env_id, num_envs, library).close()

    def _make(self, env_id: str, num_envs: int, library: str) -> _bench.Runner:
        return runner(library, env_id, num_envs, single=num_envs == 1, actions=self.actions)

    def peakmem_make_and_step(self, env_id: str, num_envs: int, library: str) -> None:
        """The peak resident memory of the benchmark process (interpreter and imports included)."""
        self._make(env_id, num_envs, library).close()

    def track_bytes_per_env(self, env_id: str, num_envs: int, library: str) -> float:
        """Peak bytes allocated by Python and numpy while making, resetting and stepping, per
        sub-environment (the precomputed actions excluded)."""
        tracemalloc.start()
        try:
            made = self._make(env_id, num_envs, library)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        made.close()
        return peak / num_envs

    track_bytes_per_env.unit = "bytes/env"
