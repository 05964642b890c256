"""``reset(seed=...)``: seeding every sub-environment's random stream and drawing its initial state."""

from __future__ import annotations

from ._common import ENV_IDS, FULL, LIBRARIES, close, runner

_SIZES = [1, 16, 4096] if FULL else [1, 256]


class ResetWithSeed:
    """``reset(seed=s)`` of the single env (size 1) and of vector envs: ``s + i`` seeds sub-env ``i``."""

    # envpool's reset takes no seed: its streams are seeded once, when the pool is made.
    params = (ENV_IDS, _SIZES, [library for library in LIBRARIES if library != "envpool"])
    param_names = ("env", "num_envs", "library")
    timeout = 300

    def setup(self, env_id: str, num_envs: int, library: str) -> None:
        self.runner = runner(library, env_id, num_envs, single=num_envs == 1)
        self.seed = 0

    def teardown(self, env_id: str, num_envs: int, library: str) -> None:
        close(self, "runner")

    def time_reset(self, env_id: str, num_envs: int, library: str) -> None:
        """One seeded reset (a new seed each call, as a training loop seeds its episodes)."""
        self.seed += 1
        self.runner.env.reset(seed=self.seed)
