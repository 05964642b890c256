"""Vector step throughput: every compiled environment at every size, each library side by side."""

from __future__ import annotations

from nbgym import _bench

from ._common import ENV_IDS, LIBRARIES, NUM_ENVS, SAMPLE_TIME, runner


class VectorStep:
    """``step`` of a vector env (nbgym's compiled one; gymnasium's native one, else ``SyncVectorEnv``)
    with precomputed random actions, autoreset included."""

    params = (ENV_IDS, NUM_ENVS, LIBRARIES)
    param_names = ("env_id", "num_envs", "library")
    timeout = 300

    def setup(self, env_id: str, num_envs: int, library: str) -> None:
        self.runner = runner(library, env_id, num_envs)

    def teardown(self, env_id: str, num_envs: int, library: str) -> None:
        self.runner.close()

    def time_step(self, env_id: str, num_envs: int, library: str) -> None:
        """One step of every sub-environment."""
        self.runner.run(1)

    def track_steps_per_second(self, env_id: str, num_envs: int, library: str) -> float:
        """Env-steps per second (a vector step counts ``num_envs``) over one sample of ~0.2 s."""
        return _bench.env_steps_per_second(self.runner, SAMPLE_TIME)

    track_steps_per_second.unit = "env-steps/s"
