"""Single-environment step: ``make(id)`` with its wrappers, as an agent steps it, each library side by side."""

from __future__ import annotations

from nbgym import _bench

from ._common import ENV_IDS, LIBRARIES, SAMPLE_TIME, runner


class SingleStep:
    """``step`` of ``make(id)`` (TimeLimit, OrderEnforcing, PassiveEnvChecker) with precomputed random
    actions, and ``reset()`` when an episode ends."""

    params = (ENV_IDS, LIBRARIES)
    param_names = ("env_id", "library")

    def setup(self, env_id: str, library: str) -> None:
        self.runner = runner(library, env_id, 1, single=True)

    def teardown(self, env_id: str, library: str) -> None:
        self.runner.close()

    def time_step(self, env_id: str, library: str) -> None:
        """One step (and the reset that follows an episode's end)."""
        self.runner.run(1)

    def track_steps_per_second(self, env_id: str, library: str) -> float:
        """Steps per second over one sample of ~0.2 s."""
        return _bench.env_steps_per_second(self.runner, SAMPLE_TIME)

    track_steps_per_second.unit = "steps/s"
