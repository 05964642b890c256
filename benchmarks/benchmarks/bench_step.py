"""Vector step throughput: every environment of the selection at one size (the full suite: at every size),
and the scaling curve of CartPole-v1 over every size; each library side by side."""

from __future__ import annotations

from nbgym import _bench

from ._common import ENV_IDS, LIBRARIES, NUM_ENVS, SAMPLE_TIME, VECTOR_NUM_ENVS, close, runner


class VectorStep:
    """``step`` of a vector env (nbgym's compiled one; gymnasium's native one, else ``SyncVectorEnv``)
    with precomputed random actions, autoreset included."""

    params = (ENV_IDS, VECTOR_NUM_ENVS, LIBRARIES)
    param_names = ("env", "num_envs", "library")
    timeout = 300

    def setup(self, env_id: str, num_envs: int, library: str) -> None:
        self.runner = runner(library, env_id, num_envs)

    def teardown(self, env_id: str, num_envs: int, library: str) -> None:
        close(self, "runner")

    def track_steps_per_second(self, env_id: str, num_envs: int, library: str) -> float:
        """Env-steps per second (a vector step counts ``num_envs``) over one sample of ~0.2 s."""
        return _bench.env_steps_per_second(self.runner, SAMPLE_TIME)

    track_steps_per_second.unit = "env-steps/s"


class ScalingCurve(VectorStep):
    """The same for CartPole-v1 at every size (gymnasium's native numpy vector env beside it): the curve of
    the README's table."""

    params = (["CartPole-v1"], NUM_ENVS, LIBRARIES)
