"""Differential tests of nbgym.utils.step_api_compatibility and nbgym.utils.env_match against gymnasium 1.4.0,
and smoke tests of nbgym.utils.performance's benchmarks."""

from __future__ import annotations

import copy
import functools
from types import ModuleType
from typing import Any

import gymnasium
import gymnasium.utils.env_match as gym_env_match
import gymnasium.utils.step_api_compatibility as gym_step_api
import numpy as np
import pytest
from helpers.core_test_envs import assert_data_equal, grid_world, outcome
from helpers.common import FAST
from hypothesis import given
from hypothesis import strategies as st

import nbgym
import nbgym.utils.env_match as nb_env_match
import nbgym.utils.step_api_compatibility as nb_step_api
from nbgym.utils import performance


# --------------------------------------------------------------------------------------------------
# step_api_compatibility
# --------------------------------------------------------------------------------------------------


def single_step(terminated: bool, truncated: bool, old_api: bool, time_limit_key: bool) -> tuple:
    info: dict[str, Any] = {"x": 1}
    if old_api:
        if time_limit_key:
            info["TimeLimit.truncated"] = truncated
        return np.zeros(2), 1.0, terminated or truncated, info
    return np.zeros(2), 1.0, terminated, truncated, info


def vector_step(terminated: list[bool], truncated: list[bool], old_api: bool, infos_kind: str) -> tuple:
    n = len(terminated)
    done = np.logical_or(terminated, truncated)
    if infos_kind == "list":
        infos: Any = [{"TimeLimit.truncated": bool(t)} if old_api else {} for t in truncated]
    elif infos_kind == "dict":
        infos = {"TimeLimit.truncated": np.array(truncated)} if old_api else {}
    else:
        infos = None
    if old_api:
        return np.zeros((n, 2)), np.ones(n), done, infos
    return np.zeros((n, 2)), np.ones(n), np.array(terminated), np.array(truncated), infos


def convert(module: ModuleType, step_returns: tuple, output_truncation_bool: bool, is_vector_env: bool) -> Any:
    return module.step_api_compatibility(copy.deepcopy(step_returns), output_truncation_bool, is_vector_env)


def assert_same_conversion(step_returns: tuple, output_truncation_bool: bool, is_vector_env: bool) -> None:
    results = []
    for module in (gym_step_api, nb_step_api):
        try:
            results.append(("returned", convert(module, step_returns, output_truncation_bool, is_vector_env)))
        except Exception as e:  # noqa: BLE001 - any exception is an outcome to compare
            results.append(("raised", type(e).__name__, str(e)))
    if results[0][0] == "returned" and results[1][0] == "returned":
        assert_data_equal(results[1][1], results[0][1])
    else:
        assert results[1] == results[0]


@FAST
@given(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_single_step_api_conversion_as_gymnasium(
    terminated: bool, truncated: bool, old_api: bool, time_limit_key: bool, output_truncation_bool: bool
) -> None:
    assert_same_conversion(single_step(terminated, truncated, old_api, time_limit_key), output_truncation_bool, False)


@FAST
@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=4),
    st.booleans(),
    st.sampled_from(["list", "dict", "none"]),
    st.booleans(),
)
def test_vector_step_api_conversion_as_gymnasium(
    flags: list[tuple[bool, bool]], old_api: bool, infos_kind: str, output_truncation_bool: bool
) -> None:
    terminated, truncated = [f[0] for f in flags], [f[1] for f in flags]
    assert_same_conversion(vector_step(terminated, truncated, old_api, infos_kind), output_truncation_bool, True)


@pytest.mark.parametrize("length", [3, 6])
def test_step_api_conversion_rejects_other_lengths(length: int) -> None:
    for output_truncation_bool in (True, False):
        assert_same_conversion(tuple(range(length)), output_truncation_bool, False)


# --------------------------------------------------------------------------------------------------
# check_environments_match
# --------------------------------------------------------------------------------------------------


@functools.cache
def variants(lib: ModuleType) -> dict[str, type]:
    base = grid_world(lib)

    class ExtraInfo(base):
        def _get_info(self) -> dict:
            return {**super()._get_info(), "extra": 1}

    class OtherInfoValue(base):
        def _get_info(self) -> dict:
            return {"distance": -1.0}

    class OtherReward(base):
        def step(self, action: int) -> tuple:
            obs, reward, terminated, truncated, info = super().step(action)
            return obs, reward + 1, terminated, truncated, info

    class TruncatesEarly(base):
        def step(self, action: int) -> tuple:
            obs, reward, terminated, truncated, info = super().step(action)
            return obs, reward, terminated, True, info

    class OtherObs(base):
        def _get_obs(self) -> dict:
            obs = super()._get_obs()
            obs["agent"] = obs["target"]
            return obs

    class OtherRender(base):
        def render(self) -> Any:
            frame = super().render()
            return None if frame is None else frame * 0

    class OtherActions(base):
        def __init__(self, size: int = 5, render_mode: str | None = None):
            super().__init__(size, render_mode)
            self.action_space = lib.spaces.Discrete(5)

    return {
        "same": base,
        "extra_info": ExtraInfo,
        "other_info_value": OtherInfoValue,
        "other_reward": OtherReward,
        "truncates_early": TruncatesEarly,
        "other_obs": OtherObs,
        "other_render": OtherRender,
        "other_actions": OtherActions,
    }


@pytest.mark.parametrize(
    "variant",
    [
        "same",
        "extra_info",
        "other_info_value",
        "other_reward",
        "truncates_early",
        "other_obs",
        "other_render",
        "other_actions",
    ],
)
@pytest.mark.parametrize(
    "info_comparison", ["equivalence", "superset", "keys-equivalence", "keys-superset", "skip", "bad"]
)
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
def test_check_environments_match_as_gymnasium(variant: str, info_comparison: str, render_mode: str | None) -> None:
    def run(lib: ModuleType, module: ModuleType) -> None:
        env_a = grid_world(lib)(render_mode=render_mode)
        env_b = variants(lib)[variant](render_mode=render_mode)
        module.check_environments_match(env_a, env_b, num_steps=30, seed=3, info_comparison=info_comparison)

    assert outcome(lambda: run(nbgym, nb_env_match)) == outcome(lambda: run(gymnasium, gym_env_match))


@pytest.mark.parametrize("skip", ["skip_obs", "skip_rew", "skip_terminal", "skip_truncated", "skip_render"])
def test_check_environments_match_skips_as_gymnasium(skip: str) -> None:
    def run(lib: ModuleType, module: ModuleType) -> None:
        for variant in ("other_obs", "other_reward", "truncates_early", "other_render"):
            env_a = grid_world(lib)(render_mode="ansi")
            env_b = variants(lib)[variant](render_mode="ansi")
            module.check_environments_match(env_a, env_b, num_steps=10, info_comparison="skip", **{skip: True})

    assert outcome(lambda: run(nbgym, nb_env_match)) == outcome(lambda: run(gymnasium, gym_env_match))


# --------------------------------------------------------------------------------------------------
# performance
# --------------------------------------------------------------------------------------------------


def test_benchmarks_return_rates() -> None:
    env = nbgym.wrappers.TimeLimit(grid_world(nbgym)(render_mode="rgb_array"), max_episode_steps=5)
    rates = [
        performance.benchmark_step(env, target_duration=0.02, seed=0),
        performance.benchmark_init(lambda: grid_world(nbgym)(), target_duration=0.02, seed=0),
        performance.benchmark_render(env, target_duration=0.02),
    ]
    for rate in rates:
        assert isinstance(rate, float) and rate > 100


@pytest.mark.parametrize("autoreset_mode", ["NextStep", "SameStep", "Disabled"])
def test_benchmark_vector_step(autoreset_mode: str) -> None:
    envs = nbgym.vector.SyncVectorEnv(
        [lambda: nbgym.wrappers.TimeLimit(grid_world(nbgym)(), max_episode_steps=3)] * 2,
        autoreset_mode=nbgym.vector.AutoresetMode(autoreset_mode),
    )
    rate = performance.benchmark_vector_step(envs, target_duration=0.02, seed=0)
    assert isinstance(rate, float) and rate > 100


@pytest.mark.parametrize("flag", [None, 0, np.False_])
def test_flags_are_tested_as_gymnasium_tests_them(flag):
    """gymnasium tests ``is False``, not truthiness: ``disable_env_checker=0`` leaves the checker out,
    ``is_vector_env=None`` takes the vector branch, ``_disable_deepcopy=0`` keeps the arguments themselves (nbgym
    had taken each the other way)."""
    from nbgym.utils import RecordConstructorArgs

    if flag is not None:
        assert str(nbgym.make("CartPole-v1", disable_env_checker=flag)) == str(
            gymnasium.make("CartPole-v1", disable_env_checker=flag)
        )
    vector = ("o", np.array([1.0, 1.0]), np.array([True, False]), np.array([False, True]), {})
    assert repr(nb_step_api.convert_to_done_step_api(vector, is_vector_env=flag)) == repr(
        gym_step_api.convert_to_done_step_api(vector, is_vector_env=flag)
    )
    kept = {"list": [1]}

    class Recorded(RecordConstructorArgs):
        pass

    assert (Recorded(_disable_deepcopy=flag, a=kept)._saved_kwargs["a"] is kept) == (flag is not False)
