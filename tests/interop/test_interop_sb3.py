"""nbgym.interop.sb3.SB3VecEnv against Stable-Baselines3's DummyVecEnv of gymnasium's environments:
the same steps, infos, seeding and, for PPO with fixed seeds, the same final policy parameters."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

import nbgym
from nbgym.interop import to_gymnasium
from nbgym.interop.sb3 import SB3VecEnv
from helpers.toy_text_checks import assert_same_value


def rollout(venv: Any, steps: int, seed: int) -> list[Any]:
    """Seeds, resets and steps ``venv`` with actions from a fixed stream; every output and reset info."""
    rng = np.random.default_rng(seed)
    space = venv.action_space
    venv.seed(seed)
    results: list[Any] = [venv.reset(), [dict(info) for info in venv.reset_infos]]
    for _ in range(steps):
        if isinstance(space, gymnasium.spaces.Discrete):
            actions = rng.integers(0, int(space.n), venv.num_envs)
        else:
            actions = rng.uniform(space.low, space.high, (venv.num_envs, *space.shape)).astype(space.dtype)
        results.append(venv.step(actions))
        results.append([dict(info) for info in venv.reset_infos])
    return results


def numpy_scalars_as_python(value: Any) -> Any:
    """Infos of a vector env hold numpy scalars where DummyVecEnv's hold Python numbers (equal values)."""
    if isinstance(value, dict):
        return {key: numpy_scalars_as_python(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(numpy_scalars_as_python(item) for item in value)
    return value.item() if isinstance(value, np.generic) else value


@pytest.mark.parametrize(("env_id", "max_steps"), [("CartPole-v1", 15), ("Pendulum-v1", 12), ("Taxi-v4", 9)])
def test_steps_infos_and_seeding_match_dummy_vec_env(env_id: str, max_steps: int) -> None:
    ours = SB3VecEnv(nbgym.make_vec(env_id, 3, autoreset_mode="SameStep", max_episode_steps=max_steps))
    theirs = DummyVecEnv([lambda: gymnasium.make(env_id, max_episode_steps=max_steps)] * 3)
    assert ours.observation_space == theirs.observation_space and ours.action_space == theirs.action_space
    ours_results, theirs_results = rollout(ours, 40, 5), rollout(theirs, 40, 5)
    assert any(info.get("TimeLimit.truncated") for result in theirs_results[2::2] for info in result[3])
    assert any("terminal_observation" in info for result in theirs_results[2::2] for info in result[3])
    assert_same_value(numpy_scalars_as_python(ours_results), theirs_results)


def test_attributes_methods_and_refusals() -> None:
    venv = SB3VecEnv(nbgym.make_vec("CartPole-v1", 4, autoreset_mode="SameStep", render_mode="rgb_array"))
    assert venv.get_attr("render_mode") == ["rgb_array"] * 4 and venv.render_mode == "rgb_array"
    assert venv.get_attr("num_envs", indices=[1, 2]) == [4, 4]
    venv.set_attr("copy", False)
    assert venv.env.copy is False
    venv.reset()
    assert [len(frames) for frames in venv.env_method("render")] == [4] * 4  # the batch's 4 frames, once per index
    assert len(venv.get_images()) == 4 and venv.render().ndim == 3  # SB3 tiles the frames
    with pytest.raises(ValueError, match="indices=None"):
        venv.set_attr("copy", True, indices=[0])
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    assert venv.env_is_wrapped(Monitor) == [False] * 4
    assert VecMonitor(venv).reset().shape == (4, 4)  # a batched MultiDiscrete action space once broke VecMonitor
    with pytest.raises(ValueError, match="autoreset_mode='SameStep'"):
        SB3VecEnv(nbgym.make_vec("CartPole-v1", 2))
    with pytest.raises(TypeError, match="Expected an nbgym vector environment"):
        SB3VecEnv(gymnasium.make_vec("CartPole-v1", 2))
    venv.set_options([{"low": -0.1, "high": 0.1}, {}, {}, {}])
    with pytest.raises(ValueError, match="one set of options"):
        venv.reset()
    venv.close()


def test_make_vec_env_reaches_nbgym_by_id() -> None:
    ours = make_vec_env("nbgym.gymnasium:nbgym/CartPole-v1", n_envs=2)
    theirs = make_vec_env("CartPole-v1", n_envs=2)
    assert type(ours.envs[0].unwrapped).__name__ == "AsGymnasiumEnv"
    ours_results, theirs_results = rollout(ours, 60, 3), rollout(theirs, 60, 3)
    for results in (ours_results, theirs_results):  # Monitor's wall-clock episode times may differ
        for result in results[2::2]:
            for info in result[3]:
                info.get("episode", {}).pop("t", None)
    assert_same_value(ours_results, theirs_results)


# Not Blackjack: SB3 has no policy for Tuple observations (gymnasium's Blackjack is refused alike).
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "Taxi-v4", "FrozenLake-v1"])
def test_sb3_accepts_converted_single_envs(env_id: str) -> None:
    env = to_gymnasium(nbgym.make(env_id))
    check_env(env)  # SB3's checker: it wants a gymnasium.Env with gymnasium spaces
    model = PPO("MlpPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0, device="cpu")
    assert isinstance(model.get_env(), DummyVecEnv)
    model.learn(total_timesteps=32)


def test_ppo_trains_identically_to_dummy_vec_env() -> None:
    def final_parameters(venv: Any) -> dict[str, torch.Tensor]:
        model = PPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu")
        model.learn(total_timesteps=4 * 32 * 3)
        return model.policy.state_dict()

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ours = final_parameters(SB3VecEnv(nbgym.make_vec("CartPole-v1", 4, autoreset_mode="SameStep")))
        theirs = final_parameters(DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * 4))
    finally:
        torch.set_num_threads(threads)
    assert list(ours) == list(theirs)
    for name in theirs:
        assert torch.equal(ours[name], theirs[name]), name
    # The policy did learn something: parameters moved away from a fresh model's.
    fresh = PPO(
        "MlpPolicy", DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]), seed=0, device="cpu"
    ).policy.state_dict()
    assert not all(torch.equal(fresh[name], theirs[name]) for name in theirs)
