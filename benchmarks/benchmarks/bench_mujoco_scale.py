"""MuJoCo at scale: the memory a compiled MuJoCo vector env costs per sub-environment, the time to make one,
and its step throughput beside ``mujoco.batch`` stepping the physics alone.

Standalone (it shares nothing with the suite's other files): each class makes its own environments.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

import nbgym

warnings.filterwarnings("ignore")


def _resident_bytes() -> int:
    """The process's resident memory (Linux ``/proc``; 0 elsewhere, where the memory benchmarks report nothing)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _actions(envs, count: int = 8) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, envs.action_space.shape).astype(np.float32) for _ in range(count)]


class MujocoMemory:
    """A compiled MuJoCo vector env made, reset and stepped: resident bytes per sub-environment, make time."""

    params = (["HalfCheetah-v5", "Humanoid-v5"], [1024, 8192])
    param_names = ("env_id", "num_envs")
    timeout = 600

    def setup(self, env_id: str, num_envs: int) -> None:
        nbgym.make_vec(env_id, 2).close()  # compiles or loads the kernels, outside what is measured

    def track_resident_bytes_per_env(self, env_id: str, num_envs: int) -> float:
        """What making, resetting and stepping adds to the resident memory, per sub-environment."""
        before = _resident_bytes()
        envs = nbgym.make_vec(env_id, num_envs)
        envs.reset(seed=0)
        for actions in _actions(envs, 3):
            envs.step(actions)
        used = _resident_bytes() - before
        envs.close()
        return used / num_envs

    track_resident_bytes_per_env.unit = "bytes/env"

    def track_make_seconds(self, env_id: str, num_envs: int) -> float:
        """Seconds of ``make_vec`` (kernels loaded from the cache already)."""
        start = time.perf_counter()
        envs = nbgym.make_vec(env_id, num_envs)
        elapsed = time.perf_counter() - start
        envs.close()
        return elapsed

    track_make_seconds.unit = "seconds"


class MujocoThroughput:
    """Steps of HalfCheetah-v5 sub-environments: nbgym's vector env and ``mujoco.batch`` (physics alone:
    controls in, ``frame_skip`` substeps, qpos and qvel out), each with ``num_threads`` threads."""

    params = ([64, 1024, 16384], [1, 2], ["nbgym", "mujoco.batch"])
    param_names = ("num_envs", "num_threads", "library")
    timeout = 600

    def setup(self, num_envs: int, num_threads: int, library: str) -> None:
        self.envs = nbgym.make_vec("HalfCheetah-v5", num_envs, num_threads=num_threads)
        self.envs.reset(seed=0)
        self.actions = _actions(self.envs)
        self.position = 0
        if library == "mujoco.batch":
            import mujoco.batch

            self.batch = mujoco.batch.Batch(self.envs.model, num_envs, nthread=num_threads, persistent=True)
            self.batch.reset()
            self.frame_skip = self.envs.frame_skip
            self.step = self._step_batch
        else:
            self.step = self._step_nbgym
        self.step()

    def _step_nbgym(self) -> None:
        self.position += 1
        self.envs.step(self.actions[self.position % len(self.actions)])

    def _step_batch(self) -> None:
        self.position += 1
        self.batch.ctrl[:] = self.actions[self.position % len(self.actions)]
        self.batch.step(nstep=self.frame_skip)
        self.batch.qpos.copy(), self.batch.qvel.copy()

    def time_step(self, num_envs: int, num_threads: int, library: str) -> None:
        """One step of every sub-environment."""
        self.step()

    def teardown(self, num_envs: int, num_threads: int, library: str) -> None:
        self.envs.close()
