"""Differential tests of nbgym.wrappers.common (and the nbgym.wrappers module) against gymnasium 1.4.0.

The same wrappers on the same custom environment, seeds and actions must give identical outputs;
only the wall-clock episode time ``info["episode"]["t"]`` of RecordEpisodeStatistics may differ.
"""

from __future__ import annotations

import copy
import functools
import warnings
from types import ModuleType
from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from helpers.common import LIBS, SEEDS
from helpers.core_test_envs import ENV_SPECS, assert_data_equal, exception_outcome, grid_world, outcome

import nbgym
import nbgym.wrappers


STACKS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "time_limit": lambda lib, env: lib.wrappers.TimeLimit(env, max_episode_steps=6),
    "order_enforcing": lambda lib, env: lib.wrappers.OrderEnforcing(env),
    "passive_env_checker": lambda lib, env: lib.wrappers.PassiveEnvChecker(env),
    "autoreset": lambda lib, env: lib.wrappers.Autoreset(lib.wrappers.TimeLimit(env, max_episode_steps=5)),
    "episode_statistics": lambda lib, env: lib.wrappers.RecordEpisodeStatistics(
        lib.wrappers.TimeLimit(env, max_episode_steps=4), buffer_length=3
    ),
    "make_stack": lambda lib, env: lib.wrappers.RecordEpisodeStatistics(
        lib.wrappers.Autoreset(
            lib.wrappers.TimeLimit(
                lib.wrappers.OrderEnforcing(lib.wrappers.PassiveEnvChecker(env)), max_episode_steps=8
            )
        ),
        stats_key="stats",
    ),
}


def build(lib: ModuleType, stack: str, size: int = 3) -> Any:
    return STACKS[stack](lib, grid_world(lib)(size=size))


def split_episode_time(info: dict, key: str) -> float | None:
    """Removes the wall-clock time from an episode-statistics info, returning it."""
    if key not in info:
        return None
    info[key] = dict(info[key])
    return info[key].pop("t")


def rollout(lib: ModuleType, stack: str, seed: int, steps: int = 60) -> list[Any]:
    env = build(lib, stack)
    actions = np.random.default_rng(seed).integers(0, 4, steps)
    key = "stats" if stack == "make_stack" else "episode"
    records: list[Any] = [env.reset(seed=seed)]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(int(action))
        episode_time = split_episode_time(info, key)
        if episode_time is not None:
            assert type(episode_time) is float and episode_time >= 0
        records.append((obs, reward, terminated, truncated, info))
        if (terminated or truncated) and stack not in ("autoreset", "make_stack"):
            records.append(env.reset())
    return records


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("stack", STACKS)
def test_rollouts_as_gymnasium(stack: str, seed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_records = rollout(gymnasium, stack, seed)
        nb_records = rollout(nbgym, stack, seed)
    assert_data_equal(nb_records, gym_records)
    assert any(len(record) == 5 and (record[2] or record[3]) for record in nb_records), "no episode ended"


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_episode_statistics_queues_as_gymnasium(seed: int) -> None:
    envs = {}
    for lib in LIBS:
        env = build(lib, "episode_statistics")
        rollout_env(env, seed)
        envs[lib] = env
    gym_env, nb_env = envs[gymnasium], envs[nbgym]
    assert nb_env.episode_count == gym_env.episode_count > 3
    assert list(nb_env.return_queue) == list(gym_env.return_queue)
    assert list(nb_env.length_queue) == list(gym_env.length_queue)
    assert len(nb_env.time_queue) == len(gym_env.time_queue) == nb_env.time_queue.maxlen == 3
    assert (nb_env.episode_returns, nb_env.episode_lengths) == (gym_env.episode_returns, gym_env.episode_lengths)
    assert [type(value) for value in nb_env.return_queue] == [type(value) for value in gym_env.return_queue]


def rollout_env(env: Any, seed: int, steps: int = 40) -> None:
    env.reset(seed=seed)
    for action in np.random.default_rng(seed).integers(0, 4, steps):
        _, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            env.reset()


def test_episode_statistics_refuses_a_taken_info_key() -> None:
    def run(lib: ModuleType) -> None:
        env = lib.wrappers.RecordEpisodeStatistics(lib.wrappers.TimeLimit(grid_world(lib)(), 1), stats_key="distance")
        env.reset(seed=0)
        env.step(0)

    gym_outcome, nb_outcome = outcome(lambda: run(gymnasium)), outcome(lambda: run(nbgym))
    assert nb_outcome == gym_outcome and nb_outcome[0][0] == "AssertionError"


def test_episode_statistics_initial_state() -> None:
    for lib in LIBS:
        env = lib.wrappers.RecordEpisodeStatistics(grid_world(lib)())
        assert (env.episode_count, env.episode_start_time, env.episode_returns, env.episode_lengths) == (0, -1, 0.0, 0)
        assert env.return_queue.maxlen == 100 and env._stats_key == "episode"


@pytest.mark.parametrize("max_episode_steps", [0, -3, 1.5, 2.0, "3", None, np.int64(4)])
def test_time_limit_rejects_bad_limits_as_gymnasium(max_episode_steps: Any) -> None:
    gym_outcome = outcome(lambda: gymnasium.wrappers.TimeLimit(grid_world(gymnasium)(), max_episode_steps))
    nb_outcome = outcome(lambda: nbgym.wrappers.TimeLimit(grid_world(nbgym)(), max_episode_steps))
    assert nb_outcome == gym_outcome
    assert nb_outcome[0][0] in ("TypeError", "ValueError")


def test_time_limit_truncates_at_the_limit_alongside_termination() -> None:
    for lib in LIBS:
        env = lib.wrappers.TimeLimit(grid_world(lib)(size=2), max_episode_steps=1)
        env.reset(seed=4)
        # On a 2x2 grid one of the four moves reaches the target.
        flags = set()
        for action in range(4):
            env.reset(seed=4)
            _, _, terminated, truncated, _ = env.step(action)
            flags.add((terminated, truncated))
        assert flags == {(False, True), (True, True)}
        assert env._elapsed_steps == 1


def test_step_before_reset_as_gymnasium() -> None:
    for stack in ("time_limit", "order_enforcing"):
        gym_raised, _ = outcome(lambda: build(gymnasium, stack).step(0))
        nb_raised, _ = outcome(lambda: build(nbgym, stack).step(0))
        assert nb_raised == gym_raised and nb_raised is not None


def test_order_enforcing_as_gymnasium() -> None:
    for lib in LIBS:
        env = lib.wrappers.OrderEnforcing(grid_world(lib)(render_mode="ansi"))
        assert env.has_reset is False
        with pytest.raises(lib.error.ResetNeeded, match=r"Cannot call env\.step\(\) before calling env\.reset\(\)"):
            env.step(0)
        with pytest.raises(lib.error.ResetNeeded, match="disable_render_order_enforcing=True"):
            env.render()
        env.reset(seed=0)
        assert env.has_reset is True
        assert isinstance(env.render(), str)

        relaxed = lib.wrappers.OrderEnforcing(grid_world(lib)(render_mode="ansi"), disable_render_order_enforcing=True)
        assert isinstance(relaxed.render(), str)

    messages = [
        exception_outcome(
            pytest.raises(lib.error.ResetNeeded, lib.wrappers.OrderEnforcing(grid_world(lib)()).render).value
        )
        for lib in LIBS
    ]
    assert messages[0] == messages[1]


def test_autoreset_ignores_the_action_after_an_episode_end() -> None:
    env = nbgym.wrappers.Autoreset(nbgym.wrappers.TimeLimit(grid_world(nbgym)(), max_episode_steps=2))
    env.reset(seed=3)
    assert env.autoreset is False
    env.step(0)
    *_, truncated, _ = env.step(0)
    assert truncated and env.autoreset
    expected_obs, expected_info = grid_world(nbgym)().reset(seed=3)
    env.np_random = np.random.default_rng(3)
    obs, reward, terminated, truncated, info = env.step(1)
    assert_data_equal((obs, reward, terminated, truncated), (expected_obs, 0.0, False, False))
    assert env.autoreset is False
    env.reset()
    assert env.autoreset is False


# --------------------------------------------------------------------------------------------------
# PassiveEnvChecker
# --------------------------------------------------------------------------------------------------


@functools.cache
def buffer_reusing_env(lib: ModuleType) -> type:
    """Returns the same observation buffer (and info dict) from every call."""

    class BufferReuse(grid_world(lib)):
        def __init__(self, reuse: str):
            super().__init__(render_mode="rgb_array")
            self.observation_space = lib.spaces.Box(0, 10, (2,), np.int64)
            self.reuse = reuse
            self.buffer = np.zeros(2, np.int64)
            self.info: dict = {}

        def _get_obs(self) -> np.ndarray:
            if "obs" in self.reuse:
                self.buffer[:] = self._agent_location
                return self.buffer
            return self._agent_location.copy()

        def _get_info(self) -> dict:
            return self.info if "info" in self.reuse else {}

    return BufferReuse


@pytest.mark.parametrize("reuse", ["none", "obs", "info", "obs+info"])
def test_passive_env_checker_data_reuse_warnings_as_gymnasium(reuse: str) -> None:
    def run(lib: ModuleType) -> None:
        env = lib.wrappers.PassiveEnvChecker(buffer_reusing_env(lib)(reuse))
        env.reset(seed=1)
        for action in (0, 1, 2, 3):
            env.step(action)
        env.render()
        env.render()

    gym_outcome, nb_outcome = outcome(lambda: run(gymnasium)), outcome(lambda: run(nbgym))
    assert nb_outcome == gym_outcome
    expected = {"none": 0, "obs": 2, "info": 2, "obs+info": 4}[reuse]
    assert len(nb_outcome[1]) == expected


def test_passive_env_checker_checks_first_calls_only() -> None:
    def run(lib: ModuleType) -> Any:
        class Faulty(grid_world(lib)):
            def step(self, action: int):
                obs, reward, terminated, truncated, info = super().step(action)
                return obs, float("nan"), int(terminated), truncated, info

            def render(self):
                return [1]

        env = lib.wrappers.PassiveEnvChecker(Faulty(render_mode="rgb_array"))
        calls = [lambda: env.reset(seed=2), lambda: env.step(0), lambda: env.step(1), lambda: env.render()]
        calls += [lambda: env.reset(), lambda: env.step(0), lambda: env.render()]
        return [outcome(call) for call in calls], env

    (gym_outcomes, gym_env), (nb_outcomes, nb_env) = run(gymnasium), run(nbgym)
    assert nb_outcomes == gym_outcomes
    assert [len(warned) for _, warned in nb_outcomes] == [0, 2, 0, 1, 0, 0, 0]
    for attribute in ("checked_reset", "checked_step", "checked_render", "checked_data_reuse", "close_called"):
        assert getattr(nb_env, attribute) == getattr(gym_env, attribute)


@functools.cache
def spaceless_envs(lib: ModuleType) -> dict[str, Any]:
    class NoActionSpace(lib.Env):
        observation_space = lib.spaces.Discrete(2)

    class NoObservationSpace(lib.Env):
        action_space = lib.spaces.Discrete(2)

    class BadSpace(lib.Env):
        action_space = lib.spaces.Discrete(2)
        observation_space = lib.spaces.Dict({})

    class BoxLowEqualsHigh(lib.Env):
        action_space = lib.spaces.Box(0, 0, (2,))
        observation_space = lib.spaces.Box(1, 1, (2,))

    return {"no_action": NoActionSpace, "no_obs": NoObservationSpace, "bad": BadSpace, "equal": BoxLowEqualsHigh}


@pytest.mark.parametrize("name", ["no_action", "no_obs", "bad", "equal"])
def test_passive_env_checker_construction_as_gymnasium(name: str) -> None:
    gym_outcome = outcome(lambda: gymnasium.wrappers.PassiveEnvChecker(spaceless_envs(gymnasium)[name]()))
    nb_outcome = outcome(lambda: nbgym.wrappers.PassiveEnvChecker(spaceless_envs(nbgym)[name]()))
    assert nb_outcome == gym_outcome
    assert nb_outcome != (None, [])


def test_passive_env_checker_close_twice_as_gymnasium() -> None:
    def run(lib: ModuleType) -> list[Any]:
        class FragileClose(grid_world(lib)):
            def close(self) -> None:
                if getattr(self, "closed", False):
                    raise RuntimeError("closed twice")
                self.closed = True

        env = lib.wrappers.PassiveEnvChecker(FragileClose())
        return [outcome(env.close), outcome(env.close), env.close_called]

    assert run(nbgym) == run(gymnasium)


# --------------------------------------------------------------------------------------------------
# Specs, recorded constructor arguments, copies
# --------------------------------------------------------------------------------------------------


def spec_fields(spec: Any) -> tuple:
    return (
        spec.id,
        spec.max_episode_steps,
        spec.order_enforce,
        spec.disable_env_checker,
        [(w.name, w.kwargs) for w in spec.additional_wrappers],
    )


@pytest.mark.parametrize("stack", STACKS)
def test_wrapper_specs_as_gymnasium(stack: str) -> None:
    def wrapped(lib: ModuleType) -> Any:
        env = grid_world(lib)()
        env.spec = ENV_SPECS[lib]("Grid-v0", max_episode_steps=None, order_enforce=False, disable_env_checker=True)
        return STACKS[stack](lib, env)

    gym_env, nb_env = wrapped(gymnasium), wrapped(nbgym)
    assert spec_fields(nb_env.spec) == spec_fields(gym_env.spec)
    assert nb_env.spec is nb_env.spec
    assert spec_fields(nb_env.unwrapped.spec) == ("Grid-v0", None, False, True, [])
    assert str(nb_env) == str(gym_env)


@pytest.mark.parametrize("stack", STACKS)
def test_wrappers_without_spec(stack: str) -> None:
    assert build(nbgym, stack).spec is None


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("TimeLimit", {"max_episode_steps": 3}),
        ("OrderEnforcing", {}),
        ("OrderEnforcing", {"disable_render_order_enforcing": True}),
        ("PassiveEnvChecker", {}),
        ("Autoreset", {}),
        ("RecordEpisodeStatistics", {}),
        ("RecordEpisodeStatistics", {"buffer_length": 4, "stats_key": "ep"}),
    ],
)
def test_recorded_constructor_args_as_gymnasium(name: str, kwargs: dict) -> None:
    gym_env = getattr(gymnasium.wrappers, name)(grid_world(gymnasium)(), **kwargs)
    nb_env = getattr(nbgym.wrappers, name)(grid_world(nbgym)(), **kwargs)
    assert nb_env._saved_kwargs == gym_env._saved_kwargs
    assert isinstance(nb_env, nbgym.utils.RecordConstructorArgs)


def test_wrapped_env_deep_copies() -> None:
    env = build(nbgym, "make_stack")
    env.reset(seed=5)
    clone = copy.deepcopy(env)
    assert str(clone) == str(env) and clone.unwrapped is not env.unwrapped
    for action in (1, 2, 0, 3, 1, 1, 2):
        first, second = env.step(action), clone.step(action)
        for item in (first, second):
            split_episode_time(item[4], "stats")
        assert_data_equal(first, second)
    assert clone.np_random.bit_generator.state == env.np_random.bit_generator.state


# --------------------------------------------------------------------------------------------------
# The nbgym.wrappers module
# --------------------------------------------------------------------------------------------------


def test_wrappers_module_exports() -> None:
    for name in nbgym.wrappers.__all__:
        assert getattr(nbgym.wrappers, name) is not None
    assert set(nbgym.wrappers.__all__) <= set(gymnasium.wrappers.__all__)
    assert {"TimeLimit", "Autoreset", "PassiveEnvChecker", "OrderEnforcing", "RecordEpisodeStatistics"} <= set(
        nbgym.wrappers.__all__
    )
    assert set(nbgym.wrappers.__all__) <= set(dir(nbgym.wrappers))
    assert nbgym.wrappers.TimeLimit is nbgym.wrappers.common.TimeLimit
    namespace: dict[str, Any] = {}
    exec("from nbgym.wrappers import *", namespace)
    assert set(nbgym.wrappers.__all__) <= set(namespace)


@pytest.mark.parametrize(
    "name", ["AutoResetWrapper", "FrameStack", "PixelObservationWrapper", "VectorListInfo", "Nope"]
)
def test_wrappers_module_renamed_and_unknown_names_as_gymnasium(name: str) -> None:
    def access(lib: ModuleType) -> None:
        getattr(lib.wrappers, name)

    gym_outcome, nb_outcome = outcome(lambda: access(gymnasium)), outcome(lambda: access(nbgym))
    assert nb_outcome == gym_outcome
    assert nb_outcome[0][0] == "AttributeError"
    assert hasattr(nbgym.wrappers, name) is False
    with pytest.raises(ImportError):
        exec(f"from nbgym.wrappers import {name}", {})


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_common_wrappers_on_made_cartpole_as_gymnasium(seed: int) -> None:
    """The wrappers over a made (compiled) environment: same rollouts as over gymnasium's CartPole."""
    records = {}
    for lib in LIBS:
        env = lib.wrappers.RecordEpisodeStatistics(
            lib.wrappers.Autoreset(lib.make("CartPole-v1", max_episode_steps=15)), buffer_length=5
        )
        steps = [env.reset(seed=seed)]
        for action in np.random.default_rng(seed).integers(0, 2, 80):
            obs, reward, terminated, truncated, info = env.step(int(action))
            split_episode_time(info, "episode")
            steps.append((obs, reward, terminated, truncated, info))
        records[lib] = (steps, list(env.return_queue), list(env.length_queue), env.episode_count)
    assert_data_equal(records[nbgym], records[gymnasium])
    assert records[nbgym][3] >= 4
