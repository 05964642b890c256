"""Single-environment step: ``make(id)`` with its wrappers, as an agent steps it, each library side by side."""

from __future__ import annotations

from nbgym import _bench

from ._common import LIBRARIES, SAMPLE_TIME, SINGLE_ENV_IDS, close, runner


class SingleStep:
    """``step`` of ``make(id)`` (TimeLimit, OrderEnforcing, PassiveEnvChecker) with precomputed random
    actions, and ``reset()`` when an episode ends."""

    params = (SINGLE_ENV_IDS, LIBRARIES)
    param_names = ("env", "library")

    def setup(self, env_id: str, library: str) -> None:
        self.runner = runner(library, env_id, 1, single=True)

    def teardown(self, env_id: str, library: str) -> None:
        close(self, "runner")

    def track_steps_per_second(self, env_id: str, library: str) -> float:
        """Steps per second over one sample of ~0.2 s."""
        return _bench.env_steps_per_second(self.runner, SAMPLE_TIME)

    track_steps_per_second.unit = "steps/s"
