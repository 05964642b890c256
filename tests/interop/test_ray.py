"""nbgym on Ray (run only where Ray is installed: ``pip install "nbgym[ray]"``, ``pytest -m ray``).

Small local clusters (one or two CPUs), each shut down by its test: envs through Ray's object store,
RLlib PPO on nbgym's compiled vector envs against gymnasium's, and the distributed rollouts example on a
cluster of two nodes simulated on this machine.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

ray = pytest.importorskip("ray")
gymnasium = pytest.importorskip("gymnasium")

import nbgym  # noqa: E402
from helpers.examples import load  # noqa: E402
from helpers.vector_test_envs import assert_same  # noqa: E402
from helpers.paths import EXAMPLES, ROOT  # noqa: E402

pytestmark = pytest.mark.ray


@pytest.fixture
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


@ray.remote(num_cpus=1)
def _continue_remotely(env, actions):
    """Steps an env that reached this worker through the object store (its arrays read-only there)."""
    return [env.step(action) for action in actions]


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "FrozenLake-v1"])
def test_envs_sent_through_the_object_store_continue_exactly(local_ray, env_id):
    for ours, theirs in (
        (nbgym.make(env_id), gymnasium.make(env_id)),
        (nbgym.make_vec(env_id, 3), gymnasium.make_vec(env_id, 3, vectorization_mode="sync")),
    ):
        assert_same(theirs.reset(seed=2), ours.reset(seed=2))
        space = ours.action_space
        space.seed(0)
        actions = [space.sample() for _ in range(12)]
        for action in actions[:4]:
            assert_same(theirs.step(action), ours.step(action))
        here = ray.get(ray.put(ours))  # zero-copy: numpy arrays come back read-only
        remote = ray.get(_continue_remotely.remote(ours, actions[4:]))
        for action, remote_step in zip(actions[4:], remote):
            expected = theirs.step(action)
            assert_same(expected, here.step(action))
            assert_same(expected, remote_step)


def _weights(algo) -> np.ndarray:
    state = algo.get_module().state_dict()
    return np.concatenate(
        [np.asarray(value.detach().cpu() if hasattr(value, "detach") else value).ravel() for value in state.values()]
    )


def test_rllib_ppo_trains_on_nbgym_exactly_as_on_gymnasium(local_ray):
    """Two env runners, two PPO iterations: nbgym's compiled vector env per runner gives the returns and weights
    of gymnasium's envs under RLlib's default sync vectorization, bit for bit."""
    example = load("rllib_ppo")
    small = {"train_batch_size_per_learner": 256, "minibatch_size": 64, "num_epochs": 2}
    results = {}
    for library in ("gymnasium", "nbgym"):
        config = example.build_config("CartPole-v1", library, env_runners=2, seed=3, **small)
        algo, returns = example.train(config, iterations=2, log=lambda _: None)
        try:
            kinds = algo.env_runner_group.foreach_env_runner(
                lambda runner: (
                    type(runner.env.unwrapped).__name__,
                    type(getattr(runner.env.unwrapped, "inner", None)).__name__,
                ),
                local_env_runner=False,
            )
            results[library] = (returns, _weights(algo), kinds)
        finally:
            algo.stop()
    assert results["nbgym"][2] == [("AsGymnasiumVectorEnv", "CartPoleVectorEnv")] * 2  # one compiled env per runner
    assert results["gymnasium"][2] == [("SyncVectorEnv", "NoneType")] * 2
    assert results["nbgym"][0] == results["gymnasium"][0]
    np.testing.assert_array_equal(results["nbgym"][1], results["gymnasium"][1])


def test_configure_sets_a_worker_reachable_id_and_the_vector_entry_point():
    from ray.rllib.algorithms.ppo import PPOConfig

    from nbgym.interop.rllib import configure

    config = configure(PPOConfig(), "CartPole-v1", num_threads=1)
    assert config.env == "nbgym.gymnasium:nbgym/CartPole-v1"
    assert config.env_config == {"num_threads": 1}
    assert config.gym_env_vectorize_mode == "vector_entry_point"
    assert configure(PPOConfig(), "LunarLander-v3").gym_env_vectorize_mode == "vector_entry_point"  # the Box2D port's
    assert configure(PPOConfig(), "CarRacing-v3").gym_env_vectorize_mode == "vector_entry_point"


def test_ray_rollouts_example_on_a_two_node_cluster():
    """The example run unchanged against a cluster of two one-CPU nodes (its two actors on different nodes)
    ends on the theta that one process computes."""
    from ray.cluster_utils import Cluster

    example = load("ray_rollouts")
    budget = ["--generations", "3", "--population", "8"]
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        run = subprocess.run(
            [
                sys.executable,
                str(EXAMPLES / "ray_rollouts.py"),
                "--address",
                cluster.address,
                "--workers",
                "2",
                *budget,
            ],
            capture_output=True,
            text=True,
            timeout=900,
            cwd=ROOT,
        )
    finally:
        cluster.shutdown()
    assert run.returncode == 0, run.stderr[-3000:]
    distributed = re.search(r"theta digest (\w+)", run.stdout).group(1)
    local = example.train(workers=0, generations=3, population=8, log=lambda _: None)
    assert distributed == example.digest(local)
