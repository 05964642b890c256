"""The headline ratios, each measured inside one process: nbgym's env-steps per CPU second over a contender's,
the two sampled in turn (the median of :data:`REPEATS` samples each), on one thread each, so that the load of a
shared machine, which moves elapsed times tenfold from run to run, hardly moves them. ``asv continuous``
flags a ratio that drops.

- nbgym / gymnasium: gymnasium's native vector env where it has one (CartPole), else its ``SyncVectorEnv``;
  size 1 is the single env of ``make`` against ``gymnasium.make``.
- nbgym / envpool, where envpool is installed (one thread each).
- MuJoCo: nbgym's compiled vector env over ``mujoco.batch.Batch`` stepping the same model's simulations
  ``frame_skip`` times per env-step on one thread (MuJoCo's own batched stepping, with no actions'
  checks, observations, rewards or resets: the ceiling).
- rollouts: ``nbgym.engine.rollout`` (a compiled policy and the env stepped in one call) over the same env
  stepped from a Python loop with the same policy in numpy.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numba
import numpy as np

from nbgym import _bench

from ._common import ENV_IDS, FULL, NUM_ENVS, close, runner

REPEATS = 5
"""Samples of each contender per ratio."""

SAMPLE_TIME = 0.1
"""Seconds of one sample."""

UNIT = "x (ratio)"

_DEFAULT_SIZES = {"CartPole-v1": NUM_ENVS}
"""The sizes measured by default: CartPole's whole curve (the README's table), every other env at 256."""


def _cpu_seconds(runner: _bench.Runner, steps: int) -> float:
    """The CPU time of this process while ``runner`` takes ``steps`` steps, with the garbage collector off."""
    return _bench.time_steps(runner, steps, time.process_time)


def _cpu_calibrated(runner: _bench.Runner) -> int:
    """The steps that take ``runner`` about :data:`SAMPLE_TIME` seconds of CPU time."""
    steps = 1
    while (elapsed := _cpu_seconds(runner, steps)) < SAMPLE_TIME / 8:
        steps *= 10 if elapsed < SAMPLE_TIME / 100 else 2
    return max(1, round(steps * SAMPLE_TIME / elapsed))


def _ratio(numerator: _bench.Runner, denominator: _bench.Runner) -> float:
    """The median env-steps per CPU second of ``numerator`` over the median of ``denominator``, sampled in turn.

    CPU time, not elapsed time: every contender here steps on one thread, and the CPU time a step takes
    hardly moves with the load of other processes, where its elapsed time moves tenfold on a busy machine.
    """
    runners = (numerator, denominator)
    steps = [_cpu_calibrated(runner) for runner in runners]
    rates: list[list[float]] = [[], []]
    for repeat in range(REPEATS):
        for index in (0, 1) if repeat % 2 == 0 else (1, 0):
            seconds = _cpu_seconds(runners[index], steps[index])
            rates[index].append(steps[index] * runners[index].num_envs / max(seconds, 1e-9))
    return statistics.median(rates[0]) / statistics.median(rates[1])


def _check_selected(env_id: str, num_envs: int) -> None:
    if not FULL and num_envs not in _DEFAULT_SIZES.get(env_id, [256]):
        raise NotImplementedError(f"{env_id} at {num_envs} envs: measured in the full suite only (NBGYM_ASV_FULL=1)")


class VersusLibrary:
    """nbgym over gymnasium and over envpool: the ratio columns of the README's tables."""

    params = (ENV_IDS, NUM_ENVS, ["gymnasium", "envpool"])
    param_names = ("env", "num_envs", "against")
    timeout = 300

    def setup(self, env_id: str, num_envs: int, against: str) -> None:
        _check_selected(env_id, num_envs)
        actions = _bench.action_pool(env_id, num_envs, single=num_envs == 1)
        self.other = runner(against, env_id, num_envs, single=num_envs == 1, actions=actions)
        self.nbgym = runner("nbgym", env_id, num_envs, single=num_envs == 1, actions=actions)

    def teardown(self, env_id: str, num_envs: int, against: str) -> None:
        close(self, "nbgym", "other")

    def track_ratio(self, env_id: str, num_envs: int, against: str) -> float:
        """nbgym's env-steps/s over the other library's (size 1: the single env of ``make``)."""
        return _ratio(self.nbgym, self.other)

    track_ratio.unit = UNIT
    track_ratio.pretty_name = "env-steps/s, nbgym / library"


class _BatchStepper:
    """``mujoco.batch.Batch`` over an nbgym MuJoCo env's model: one env-step sets the controls and calls
    ``mj_step`` ``frame_skip`` times on every simulation."""

    def __init__(self, env_id: str, num_envs: int) -> None:
        import nbgym
        from mujoco.batch import Batch

        self.env = nbgym.make(env_id)
        self.env.reset(seed=0)
        model = self.env.unwrapped.model
        self.frame_skip = self.env.unwrapped.frame_skip
        self.batch = Batch(model, num_envs, nthread=1)
        self.batch.bind("qpos")[:] = self.env.unwrapped.init_qpos
        self.batch.bind("qvel")[:] = self.env.unwrapped.init_qvel
        self.ctrl = self.batch.bind("ctrl")

    def step(self, actions: np.ndarray) -> None:
        self.ctrl[:] = actions
        self.batch.step(nstep=self.frame_skip)

    def close(self) -> None:
        self.env.close()


class VersusMujocoBatch:
    """nbgym's compiled MuJoCo vector env over MuJoCo's own batched stepping of the same simulations."""

    params = (
        [
            env_id
            for env_id in ENV_IDS
            if env_id.endswith("-v5") and _bench.spec(env_id).entry_point.startswith("nbgym.envs.mujoco")
        ],
        [16, 256, 1024] if FULL else [256],
    )
    param_names = ("env", "num_envs")
    timeout = 300

    def setup(self, env_id: str, num_envs: int) -> None:
        try:
            import mujoco.batch  # noqa: F401 - mujoco >= 4
        except ImportError as e:
            raise NotImplementedError(f"mujoco.batch is not available: {e}") from None
        actions = _bench.action_pool(env_id, num_envs)
        self.nbgym = runner("nbgym", env_id, num_envs, actions=actions)
        self.batch = _bench.Runner(
            "mujoco.batch", "Batch, 1 thread", num_envs, _BatchStepper(env_id, num_envs), actions
        )

    def teardown(self, env_id: str, num_envs: int) -> None:
        close(self, "nbgym", "batch")

    def track_ratio(self, env_id: str, num_envs: int) -> float:
        """nbgym's env-steps/s over ``mujoco.batch``'s."""
        return _ratio(self.nbgym, self.batch)

    track_ratio.unit = UNIT
    track_ratio.pretty_name = "MuJoCo env-steps/s, nbgym / mujoco.batch"


@numba.njit(nogil=True, cache=True)
def _lean_policy(obs, params):
    """CartPole: push the cart towards the side the pole falls to (angle plus angular velocity)."""
    actions = np.empty(obs.shape[0], dtype=np.int64)
    for i in range(obs.shape[0]):
        actions[i] = 1 if obs[i, 2] + params * obs[i, 3] > 0 else 0
    return actions


@numba.njit(nogil=True, cache=True)
def _damping_policy(obs, params):
    """Pendulum: a torque against the angle and the angular velocity, clipped to the action space."""
    actions = np.empty((obs.shape[0], 1), dtype=np.float32)
    for i in range(obs.shape[0]):
        actions[i, 0] = min(max(-params * (obs[i, 1] + obs[i, 2]), -2.0), 2.0)
    return actions


_POLICIES: dict[str, tuple[Any, Any, float]] = {
    "CartPole-v1": (_lean_policy, lambda obs, k: (obs[:, 2] + k * obs[:, 3] > 0).astype(np.int64), 1.0),
    "Pendulum-v1": (
        _damping_policy,
        lambda obs, k: np.clip(-k * (obs[:, 1:2] + obs[:, 2:3]), -2.0, 2.0).astype(np.float32),
        2.0,
    ),
}
"""Each env's compiled policy, the same policy in numpy, and its parameter."""

_ROLLOUT_STEPS = 100


class _RolloutStepper:
    """One "step" is ``_ROLLOUT_STEPS`` steps of every sub-environment: in one compiled rollout call, or from a
    Python loop with the numpy policy."""

    def __init__(self, env_id: str, num_envs: int, compiled: bool) -> None:
        import nbgym

        self.envs = nbgym.make_vec(env_id, num_envs, copy=False)
        self.obs, _ = self.envs.reset(seed=0)
        self.policy, self.numpy_policy, self.param = _POLICIES[env_id]
        self.compiled = compiled

    def step(self, _: Any) -> None:
        if self.compiled:
            from nbgym.engine import rollout

            rollout(self.envs, self.policy, self.param, _ROLLOUT_STEPS)
            return
        step, policy, param, obs = self.envs.step, self.numpy_policy, self.param, self.obs
        for _ in range(_ROLLOUT_STEPS):
            obs = step(policy(obs, param))[0]
        self.obs = obs

    def close(self) -> None:
        self.envs.close()


class RolloutVersusPythonLoop:
    """``nbgym.engine.rollout`` over stepping the same env from Python, each with the same policy."""

    params = (
        [env_id for env_id in ("CartPole-v1", "Pendulum-v1") if FULL or env_id == "CartPole-v1"],
        [256, 4096] if FULL else [4096],
    )
    param_names = ("env", "num_envs")
    timeout = 300

    def setup(self, env_id: str, num_envs: int) -> None:
        env_steps = num_envs * _ROLLOUT_STEPS
        self.rollout = _bench.Runner(
            "nbgym rollout", "rollout", env_steps, _RolloutStepper(env_id, num_envs, True), [None]
        )
        self.loop = _bench.Runner("nbgym", "Python loop", env_steps, _RolloutStepper(env_id, num_envs, False), [None])

    def teardown(self, env_id: str, num_envs: int) -> None:
        close(self, "rollout", "loop")

    def track_ratio(self, env_id: str, num_envs: int) -> float:
        """The rollout's env-steps/s over the Python loop's."""
        return _ratio(self.rollout, self.loop)

    track_ratio.unit = UNIT
    track_ratio.pretty_name = "env-steps/s, rollout / Python loop"
