"""Differential tests of nbgym.vector.VectorEnv, SyncVectorEnv, the vector wrappers and DictInfoToList.

gymnasium 1.4.0 is the oracle: the same environment definition, seeds and actions must give the same
observations, rewards, flags and infos (types, dtypes and values), the same attributes, and the same
exception types and messages.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from helpers.common import MODES
from helpers.vector_test_envs import (
    OBS_KINDS,
    actions_for,
    assert_same,
    different_space_env_class,
    env_fns,
    rollout,
    same_error,
    toy_env_class,
)
from helpers.common import FAST

import nbgym
from nbgym.vector import (
    AsyncVectorEnv,
    AutoresetMode,
    SyncVectorEnv,
    VectorActionWrapper,
    VectorEnv,
    VectorObservationWrapper,
    VectorRewardWrapper,
    VectorWrapper,
)
from nbgym.wrappers.vector import DictInfoToList


def sync_pair(num_envs: int = 3, kind: str = "box", **kwargs: Any) -> tuple[Any, Any]:
    """gymnasium's and nbgym's SyncVectorEnv over the same toy environments."""
    vector_kwargs = {key: kwargs.pop(key) for key in ("copy", "observation_mode", "autoreset_mode") if key in kwargs}
    return (
        gymnasium.vector.SyncVectorEnv(env_fns(gymnasium, num_envs, kind, **kwargs), **vector_kwargs),
        SyncVectorEnv(env_fns(nbgym, num_envs, kind, **kwargs), **vector_kwargs),
    )


# ---------------------------------------------------------------------------------------------------
# Rollouts
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", OBS_KINDS)
@pytest.mark.parametrize("seed", [0, 123])
def test_rollout_matches_gymnasium(kind: str, mode: str, seed: int) -> None:
    gym_env, nb_env = sync_pair(3, kind, autoreset_mode=mode)
    expected = rollout(gym_env, seed=seed, steps=30, action_seed=seed + 1)
    actual = rollout(nb_env, seed=seed, steps=30, action_seed=seed + 1)
    assert_same(expected, actual)
    # The sub-environments saw the same calls with the same action objects.
    assert_same(gym_env.get_attr("log"), nb_env.get_attr("log"))
    gym_env.close()
    nb_env.close()


@pytest.mark.parametrize("kind", ["box", "multidiscrete"])
def test_box_actions_and_more_spaces_match_gymnasium(kind: str) -> None:
    gym_env, nb_env = sync_pair(2, kind, action="box", autoreset_mode="SameStep")
    assert_same(rollout(gym_env, 5, 12, 6), rollout(nb_env, 5, 12, 6))
    assert_same(gym_env.get_attr("log"), nb_env.get_attr("log"))


def test_episodes_actually_end_in_every_mode() -> None:
    # The rollouts above would prove little if no episode ended: check that both flags occur.
    _, nb_env = sync_pair(3, "box", autoreset_mode="NextStep")
    steps = rollout(nb_env, seed=0, steps=30, action_seed=1)[1:]
    assert any(step[2].any() for step in steps) and any(step[3].any() for step in steps)
    _, nb_env = sync_pair(3, "box", autoreset_mode="SameStep")
    steps = rollout(nb_env, seed=0, steps=30, action_seed=1)[1:]
    assert any("final_obs" in step[4] for step in steps)


def test_seed_list_and_int_seeds() -> None:
    gym_env, nb_env = sync_pair(3, "dict")
    assert_same(gym_env.reset(seed=[4, 9, 1]), nb_env.reset(seed=[4, 9, 1]))
    assert nb_env.np_random_seed == gym_env.np_random_seed == (4, 9, 1)
    nb_env.reset(seed=10)
    assert nb_env.np_random_seed == (10, 11, 12)
    # Unseeded resets continue each sub-environment's stream.
    gym_env.reset(seed=10)
    assert_same(gym_env.reset(), nb_env.reset())
    same_error(lambda: gym_env.reset(seed=[1, 2]), lambda: nb_env.reset(seed=[1, 2]))


def test_reset_mask_matches_gymnasium() -> None:
    gym_env, nb_env = sync_pair(4, "tuple")
    gym_env.reset(seed=3)
    nb_env.reset(seed=3)
    rng_gym, rng_nb = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(4):
        assert_same(gym_env.step(actions_for(gym_env, rng_gym)), nb_env.step(actions_for(nb_env, rng_nb)))
    mask = np.array([True, False, True, False])
    gym_options, nb_options = {"reset_mask": mask.copy(), "extra": 5}, {"reset_mask": mask.copy(), "extra": 5}
    assert_same(gym_env.reset(options=gym_options), nb_env.reset(options=nb_options))
    # The mask is taken out of the caller's options, as gymnasium does.
    assert nb_options == gym_options == {"extra": 5}
    for _ in range(4):
        assert_same(gym_env.step(actions_for(gym_env, rng_gym)), nb_env.step(actions_for(nb_env, rng_nb)))
    assert_same(gym_env.get_attr("log"), nb_env.get_attr("log"))


@pytest.mark.parametrize(
    "mask",
    [[True, False, True], np.array([True, False]), np.array([1, 0, 1]), np.zeros(3, dtype=bool)],
    ids=["list", "shape", "dtype", "none-selected"],
)
def test_reset_mask_errors_match_gymnasium(mask: Any) -> None:
    gym_env, nb_env = sync_pair(3)
    same_error(lambda: gym_env.reset(options={"reset_mask": mask}), lambda: nb_env.reset(options={"reset_mask": mask}))


def test_disabled_mode_requires_reset_of_ended_envs() -> None:
    gym_env, nb_env = sync_pair(2, autoreset_mode="Disabled")
    assert nb_env.metadata["autoreset_mode"] is AutoresetMode.DISABLED
    actions = np.zeros(2, dtype=np.int64)
    for env in (gym_env, nb_env):
        env.reset(seed=0)
        ended = np.zeros(2, dtype=bool)
        while not ended.any():
            _, _, terminated, truncated, _ = env.step(actions)
            ended = terminated | truncated
        with pytest.raises(AssertionError):
            env.step(actions)
    # nbgym refuses before stepping any sub-environment, so a masked reset makes it usable again.
    nb_env.reset(options={"reset_mask": ended})
    nb_env.step(actions)


def test_copy_false_returns_the_buffer() -> None:
    for env in sync_pair(2, "dict", copy=False):
        first, _ = env.reset(seed=1)
        second, *_ = env.step(np.zeros(2, dtype=np.int64))
        assert first["velocity"] is second["velocity"]
    for env in sync_pair(2, "dict"):
        first, _ = env.reset(seed=1)
        second, *_ = env.step(np.zeros(2, dtype=np.int64))
        assert not np.shares_memory(first["velocity"], second["velocity"])


# ---------------------------------------------------------------------------------------------------
# Construction, attributes, spaces
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*OBS_KINDS, "multidiscrete"])
def test_attributes_and_spaces_match_gymnasium(kind: str) -> None:
    gym_env, nb_env = sync_pair(3, kind, render_mode="rgb_array")
    assert nb_env.num_envs == 3
    assert repr(nb_env) == repr(gym_env) == "SyncVectorEnv(num_envs=3)"
    assert repr(nb_env.observation_space) == repr(gym_env.observation_space)
    assert repr(nb_env.single_observation_space) == repr(gym_env.single_observation_space)
    assert repr(nb_env.action_space) == repr(gym_env.action_space)
    assert repr(nb_env.single_action_space) == repr(gym_env.single_action_space)
    assert nb_env.render_mode == gym_env.render_mode == "rgb_array"
    assert {k: v for k, v in nb_env.metadata.items() if k != "autoreset_mode"} == {
        k: v for k, v in gym_env.metadata.items() if k != "autoreset_mode"
    }
    assert nb_env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    # The env class's metadata is left alone.
    assert "autoreset_mode" not in toy_env_class(nbgym).metadata
    gym_env.action_space.seed(5)
    nb_env.action_space.seed(5)
    for _ in range(3):
        assert_same(gym_env.action_space.sample(), nb_env.action_space.sample())
    assert nb_env.spec is None and nb_env.unwrapped is nb_env and nb_env.closed is False


def test_render_call_get_attr_set_attr_match_gymnasium() -> None:
    gym_env, nb_env = sync_pair(3, render_mode="rgb_array")
    gym_env.reset(seed=0)
    nb_env.reset(seed=0)
    assert_same(gym_env.render(), nb_env.render())
    assert_same(gym_env.call("add", 2, b=5), nb_env.call("add", 2, b=5))
    assert_same(gym_env.call("kind"), nb_env.call("kind"))
    assert_same(gym_env.get_attr("idx"), nb_env.get_attr("idx"))
    gym_env.set_attr("steps", [4, 5, 6])
    nb_env.set_attr("steps", (4, 5, 6))
    assert nb_env.get_attr("steps") == gym_env.get_attr("steps") == (4, 5, 6)
    gym_env.set_attr("steps", 9)
    nb_env.set_attr("steps", 9)
    assert nb_env.get_attr("steps") == (9, 9, 9)
    same_error(lambda: gym_env.set_attr("steps", [1, 2]), lambda: nb_env.set_attr("steps", [1, 2]))
    same_error(lambda: gym_env.get_attr("missing"), lambda: nb_env.get_attr("missing"))
    assert [type(g) for g in nb_env.np_random] == [np.random.Generator] * 3
    assert [g.bit_generator.state for g in nb_env.np_random] == [g.bit_generator.state for g in gym_env.np_random]


def test_observation_modes_match_gymnasium() -> None:
    gym_fns = [lambda i=i: different_space_env_class(gymnasium)(idx=i) for i in range(3)]
    nb_fns = [lambda i=i: different_space_env_class(nbgym)(idx=i) for i in range(3)]
    gym_env = gymnasium.vector.SyncVectorEnv(gym_fns, observation_mode="different")
    nb_env = SyncVectorEnv(nb_fns, observation_mode="different")
    assert repr(nb_env.observation_space) == repr(gym_env.observation_space)
    assert_same(gym_env.reset(seed=2), nb_env.reset(seed=2))

    # "same" refuses spaces that differ; a custom pair of spaces is taken as given.
    same_error(lambda: gymnasium.vector.SyncVectorEnv(gym_fns), lambda: SyncVectorEnv(nb_fns, observation_mode="same"))
    batched, single = nbgym.spaces.Box(-5, 5, (3, 2)), nbgym.spaces.Box(-5, 5, (2,))
    custom = SyncVectorEnv(nb_fns, observation_mode=(batched, single))
    assert custom.observation_space is batched and custom.single_observation_space is single

    # A custom space must share shape and dtype with the sub-environments' spaces.
    gym_bad = (gymnasium.spaces.Box(-5, 5, (3, 4)), gymnasium.spaces.Box(-5, 5, (4,)))
    nb_bad = (nbgym.spaces.Box(-5, 5, (3, 4)), nbgym.spaces.Box(-5, 5, (4,)))
    same_error(
        lambda: gymnasium.vector.SyncVectorEnv(gym_fns, observation_mode=gym_bad),
        lambda: SyncVectorEnv(nb_fns, observation_mode=nb_bad),
    )
    same_error(
        lambda: gymnasium.vector.SyncVectorEnv(gym_fns, observation_mode=(1, 2)),
        lambda: SyncVectorEnv(nb_fns, observation_mode=(1, 2)),
    )
    same_error(
        lambda: gymnasium.vector.SyncVectorEnv(gym_fns, observation_mode="bogus"),
        lambda: SyncVectorEnv(nb_fns, observation_mode="bogus"),
    )
    same_error(
        lambda: gymnasium.vector.SyncVectorEnv(gym_fns, autoreset_mode="bogus"),
        lambda: SyncVectorEnv(nb_fns, autoreset_mode="bogus"),
    )


def test_action_space_mismatch_matches_gymnasium() -> None:
    def fns(lib: Any) -> list[Any]:
        cls = toy_env_class(lib)
        return [lambda: cls(action="discrete"), lambda: cls(action="box")]

    same_error(lambda: gymnasium.vector.SyncVectorEnv(fns(gymnasium)), lambda: SyncVectorEnv(fns(nbgym)))


def test_close_and_garbage_collection_close_the_sub_envs() -> None:
    env = SyncVectorEnv(env_fns(nbgym, 2))
    subs = env.envs
    env.close()
    env.close()
    assert env.closed and [sub.closed_count for sub in subs] == [1, 1]

    env = SyncVectorEnv(env_fns(nbgym, 2))
    subs = env.envs
    del env
    gc.collect()
    assert [sub.closed_count for sub in subs] == [1, 1]

    # A wrapper collected before its env does not close it.
    env = SyncVectorEnv(env_fns(nbgym, 2))
    wrapper = VectorWrapper(env)
    del wrapper
    gc.collect()
    assert not env.closed and [sub.closed_count for sub in env.envs] == [0, 0]


def test_failed_construction_is_collectable() -> None:
    def broken() -> Any:
        raise RuntimeError("cannot make")

    with pytest.raises(RuntimeError, match="cannot make"):
        SyncVectorEnv([broken])
    gc.collect()  # __del__ of the half-built instance must not raise


# ---------------------------------------------------------------------------------------------------
# VectorEnv base class and AutoresetMode
# ---------------------------------------------------------------------------------------------------


def test_autoreset_mode_enum_matches_gymnasium() -> None:
    assert [(m.name, m.value) for m in AutoresetMode] == [(m.name, m.value) for m in gymnasium.vector.AutoresetMode]
    assert AutoresetMode("SameStep") is AutoresetMode.SAME_STEP


@pytest.mark.parametrize(
    "make",
    [
        lambda mode: SyncVectorEnv([lambda: nbgym.make("CartPole-v1")], autoreset_mode=mode),
        lambda mode: AsyncVectorEnv([lambda: nbgym.make("CartPole-v1")], autoreset_mode=mode),
        lambda mode: nbgym.make_vec("CartPole-v1", num_envs=2, autoreset_mode=mode),  # the engine's vector env
    ],
    ids=["sync", "async", "compiled"],
)
def test_autoreset_mode_accepts_gymnasiums_members_by_value(make: Any) -> None:
    """Code moved from gymnasium keeps passing gymnasium's enum: its member's value names nbgym's mode (gymnasium's
    own constructors take a mode or its value); a value that names no mode is refused with gymnasium's error."""
    for gym_mode, mode in zip(gymnasium.vector.AutoresetMode, AutoresetMode):
        envs = make(gym_mode)
        assert envs.autoreset_mode is mode and envs.metadata["autoreset_mode"] is mode
        envs.close()
    same_error(
        lambda: gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("CartPole-v1")], autoreset_mode="Sometimes"),
        lambda: make("Sometimes"),
    )


def test_autoreset_mode_members_equal_gymnasiums_of_their_name() -> None:
    """Code moved from gymnasium that compares an env's mode with gymnasium's members (``==``, ``in`` a set, a dict's
    key) takes the branch it took there; ``is`` tells the two enums apart, and neither equals its value string."""
    gym_modes = gymnasium.vector.AutoresetMode
    for mode, gym_mode in zip(AutoresetMode, gym_modes):
        assert mode == gym_mode and gym_mode == mode and not (mode != gym_mode) and not (gym_mode != mode)
        assert mode in {gym_mode} and gym_mode in {mode} and {mode: 1}[gym_mode] == 1
        assert mode is not gym_mode and mode != mode.value and gym_mode != mode.value
        assert all(mode != other and other != mode for other in gym_modes if other.name != mode.name)
    envs = nbgym.make_vec("CartPole-v1", num_envs=2, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] == gym_modes.SAME_STEP
    assert envs.metadata["autoreset_mode"] not in {gym_modes.NEXT_STEP}


def test_vector_env_base_matches_gymnasium() -> None:
    gym_env, nb_env = gymnasium.vector.VectorEnv(), VectorEnv()
    gym_env.num_envs = nb_env.num_envs = 2
    assert repr(nb_env) == repr(gym_env) == "VectorEnv(num_envs=2)"
    same_error(lambda: gym_env.step(None), lambda: nb_env.step(None))
    same_error(gym_env.render, nb_env.render)
    gym_env.reset(seed=42)
    nb_env.reset(seed=42)
    assert nb_env.np_random_seed == gym_env.np_random_seed == 42
    assert nb_env.np_random.random() == gym_env.np_random.random()
    nb_env.np_random = np.random.default_rng(1)
    assert nb_env.np_random_seed == -1
    unseeded = VectorEnv()
    assert isinstance(unseeded.np_random_seed, int) and isinstance(unseeded.np_random, np.random.Generator)
    assert nb_env.metadata == {} and nb_env.spec is None and nb_env.render_mode is None
    nb_env.close()
    assert nb_env.closed

    class Spec:
        id = "Toy-v0"

    nb_env.spec = Spec()
    assert repr(nb_env) == "VectorEnv(Toy-v0, num_envs=2)"


def info_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False, width=64),
        st.booleans(),
        st.integers(-100, 100).map(np.int8),
        st.floats(-1e3, 1e3, width=32).map(np.float32),
        st.booleans().map(np.bool_),
        st.text(max_size=3),
        st.none(),
        st.lists(st.integers(0, 9), max_size=2),
        st.sampled_from([(1,), (2,), (2, 2)]).map(lambda shape: np.arange(np.prod(shape)).reshape(shape) * 0.5),
    )
    return st.one_of(scalars, st.dictionaries(st.sampled_from(["x", "y", "_x"]), scalars, max_size=2))


# A 64-bit float stored in a batch that a float32 value started overflows to inf in both libraries (numpy warns).
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@FAST
@given(
    infos=st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "_a", "final_obs", "nested"]), info_values(), max_size=4),
        min_size=1,
        max_size=4,
    )
)
def test_add_info_matches_gymnasium(infos: list[dict[str, Any]]) -> None:
    def merge(env: Any) -> Any:
        env.num_envs = len(infos)
        merged: dict[str, Any] = {}
        try:
            for i, info in enumerate(infos):
                merged = env._add_info(merged, info, i)
        except Exception as e:  # noqa: BLE001 - incompatible values must fail the same way
            return type(e).__name__
        return merged

    assert_same(merge(gymnasium.vector.VectorEnv()), merge(VectorEnv()))


def test_add_info_batches_by_type() -> None:
    env = VectorEnv()
    env.num_envs = 3
    infos: dict[str, Any] = {}
    infos = env._add_info(infos, {"i": 1, "f": 0.5, "b": True, "n": np.float32(2), "a": np.ones(2)}, 0)
    infos = env._add_info(infos, {"o": "text", "d": {"i": 3}, "nb": np.bool_(True)}, 2)
    assert infos["i"].dtype == np.int64 and infos["f"].dtype == np.float64 and infos["b"].dtype == np.bool_
    assert infos["n"].dtype == np.float32 and infos["a"].shape == (3, 2)
    assert infos["o"].dtype == object and infos["nb"].dtype == object
    np.testing.assert_array_equal(infos["_o"], [False, False, True])
    np.testing.assert_array_equal(infos["d"]["i"], [0, 0, 3])
    np.testing.assert_array_equal(infos["d"]["_i"], [False, False, True])


# ---------------------------------------------------------------------------------------------------
# Vector wrappers
# ---------------------------------------------------------------------------------------------------


def wrapper_classes(lib: Any) -> tuple[type, type, type]:
    class Double(lib.vector.VectorObservationWrapper):
        def observations(self, observations: Any) -> Any:
            return observations * 2

    class Negate(lib.vector.VectorActionWrapper):
        def actions(self, actions: Any) -> Any:
            return 2 - actions

    class Shift(lib.vector.VectorRewardWrapper):
        def rewards(self, rewards: Any) -> Any:
            return rewards + 1

    return Double, Negate, Shift


def test_wrappers_match_gymnasium() -> None:
    gym_base, nb_base = sync_pair(2, "box")
    gym_env, nb_env = gym_base, nb_base
    for gym_cls, nb_cls in zip(wrapper_classes(gymnasium), wrapper_classes(nbgym)):
        gym_env, nb_env = gym_cls(gym_env), nb_cls(nb_env)
    assert repr(nb_env) == repr(gym_env)
    assert nb_env.unwrapped is nb_base and nb_env.num_envs == 2
    assert_same(rollout(gym_env, 3, 10, 4), rollout(nb_env, 3, 10, 4))
    assert_same(gym_base.get_attr("log"), nb_base.get_attr("log"))

    # Spaces and metadata forward unless assigned.
    assert nb_env.observation_space is nb_base.observation_space
    nb_env.observation_space = nbgym.spaces.Box(0, 1, (2, 3))
    assert nb_env.observation_space is not nb_base.observation_space
    nb_env.metadata = {"x": 1}
    assert nb_env.metadata == {"x": 1} and "x" not in nb_base.metadata
    assert nb_env.np_random_seed == nb_base.np_random_seed
    nb_env.close()
    assert nb_env.closed and nb_base.closed


def test_plain_wrapper_forwards_everything() -> None:
    _, nb_base = sync_pair(2, "box", render_mode="rgb_array")
    wrapper = VectorWrapper(nb_base)
    assert wrapper.render_mode == "rgb_array" and wrapper.spec is None
    assert wrapper.single_action_space is nb_base.single_action_space
    assert wrapper.single_observation_space is nb_base.single_observation_space
    wrapper.single_action_space = nbgym.spaces.Discrete(7)
    assert wrapper.single_action_space.n == 7 and nb_base.single_action_space.n == 3
    assert_same(wrapper.reset(seed=1), SyncVectorEnv(env_fns(nbgym, 2, "box")).reset(seed=1))
    assert len(wrapper.render()) == 2
    with pytest.raises(TypeError, match="Expected env to be an `nbgym.vector.VectorEnv`"):
        VectorWrapper(nb_base.envs[0])


def test_observation_wrapper_autoreset_checks_match_gymnasium() -> None:
    gym_env, nb_env = sync_pair(2, "box", autoreset_mode="SameStep")
    same_error(lambda: wrapper_classes(gymnasium)[0](gym_env), lambda: wrapper_classes(nbgym)[0](nb_env))
    bare = VectorEnv()
    bare.num_envs = 1
    with pytest.warns(UserWarning, match="missing `autoreset_mode` metadata key"):
        VectorObservationWrapper(bare)
    for cls in (VectorObservationWrapper, VectorActionWrapper, VectorRewardWrapper):
        assert issubclass(cls, VectorWrapper)


# ---------------------------------------------------------------------------------------------------
# DictInfoToList
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_dict_info_to_list_matches_gymnasium(mode: str) -> None:
    gym_env, nb_env = sync_pair(3, "box", autoreset_mode=mode)
    gym_wrapped = gymnasium.wrappers.vector.DictInfoToList(gym_env)
    nb_wrapped = DictInfoToList(nb_env)
    gym_out = rollout(gym_wrapped, seed=8, steps=15, action_seed=2)
    nb_out = rollout(nb_wrapped, seed=8, steps=15, action_seed=2)
    assert_same(gym_out, nb_out)
    assert isinstance(nb_out[0][1], list) and len(nb_out[0][1]) == 3


# A 64-bit float stored in a batch that a float32 value started overflows to inf in both libraries (numpy warns).
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@FAST
@given(
    infos=st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "nested"]), info_values(), max_size=3), min_size=2, max_size=3
    )
)
def test_dict_info_to_list_of_merged_infos_matches_gymnasium(infos: list[dict[str, Any]]) -> None:
    env = VectorEnv()
    env.num_envs = len(infos)
    merged: dict[str, Any] = {}
    try:
        for i, info in enumerate(infos):
            merged = env._add_info(merged, info, i)
    except Exception:  # noqa: BLE001
        return  # values that cannot be batched together (checked in test_add_info_matches_gymnasium)

    gym_bare = gymnasium.vector.VectorEnv()
    gym_bare.num_envs = len(infos)

    def convert(wrapper: Any) -> Any:
        try:
            return wrapper._convert_info_to_list(merged)
        except Exception as e:  # noqa: BLE001 - malformed merged infos must fail the same way
            return type(e).__name__

    assert_same(convert(gymnasium.wrappers.vector.DictInfoToList(gym_bare)), convert(DictInfoToList(env)))


def test_dict_info_to_list_rejects_malformed_infos() -> None:
    _, nb_env = sync_pair(2)
    wrapper = DictInfoToList(nb_env)
    with pytest.raises(AssertionError):
        wrapper._convert_info_to_list({"a": [1, 2]})
    with pytest.raises(AssertionError):
        wrapper._convert_info_to_list({"a": np.zeros(3)})
    with pytest.raises(AssertionError):
        wrapper._convert_info_to_list({"a": np.zeros(2), "_a": np.ones(3, dtype=bool)})
    assert wrapper._convert_info_to_list({"a": np.array([1, 2]), "_a": np.array([False, True])}) == [{}, {"a": 2}]


# ---------------------------------------------------------------------------------------------------
# Imports
# ---------------------------------------------------------------------------------------------------


def test_vector_exports_match_gymnasium() -> None:
    assert sorted(nbgym.vector.__all__) == sorted(gymnasium.vector.__all__)
    assert sorted(nbgym.vector.utils.__all__) == sorted(gymnasium.vector.utils.__all__)
    assert "DictInfoToList" in dir(nbgym.wrappers.vector)
    with pytest.raises(AttributeError):
        nbgym.wrappers.vector.NoSuchWrapper  # noqa: B018


def test_importing_nbgym_vector_does_not_import_numba_or_gymnasium() -> None:
    code = (
        "import sys, nbgym.vector, nbgym.wrappers.vector\n"
        "from nbgym.wrappers.vector import DictInfoToList\n"
        "bad = [m for m in ('numba', 'gymnasium') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_sync_rollout_warns_nothing() -> None:
    _, nb_env = sync_pair(2, "tuple", autoreset_mode="SameStep")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rollout(nb_env, 0, 10, 0)
