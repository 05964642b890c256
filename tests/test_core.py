"""Differential tests of nbgym.core (Env, Wrapper and the transforming wrappers) and nbgym.utils.seeding.

gymnasium 1.4.0 is the oracle: the same calls on the same environment definition must give the same
results, the same seeding and the same exception types and messages.
"""

from __future__ import annotations

import copy
import pickle
from types import ModuleType
from typing import Any

import gymnasium
import numpy as np
import pytest
from helpers.common import LIBS, SEEDS
from helpers.core_test_envs import ENV_SPECS, assert_data_equal, exception_outcome, grid_world, normalise
from helpers.common import FAST
from gymnasium.envs.registration import EnvSpec as GymEnvSpec
from gymnasium.utils import seeding as gym_seeding
from hypothesis import given
from hypothesis import strategies as st

import nbgym
from nbgym.registration import EnvSpec as NbEnvSpec
from nbgym.utils import EzPickle, RecordConstructorArgs, colorize, seeding


def both(make: Any) -> tuple[Any, Any]:
    """``make(lib)`` for gymnasium and for nbgym."""
    return make(gymnasium), make(nbgym)


def raised(call: Any) -> tuple[str, str]:
    """The exception ``call`` raises, as ``(type name, normalised message)``."""
    with pytest.raises(Exception) as info:
        call()
    return exception_outcome(info.value)


# --------------------------------------------------------------------------------------------------
# seeding
# --------------------------------------------------------------------------------------------------


@FAST
@given(st.integers(min_value=0, max_value=2**130))
def test_np_random_matches_gymnasium(seed: int) -> None:
    nb_rng, nb_seed = seeding.np_random(seed)
    gym_rng, gym_seed = gym_seeding.np_random(seed)
    assert type(nb_rng) is np.random.Generator and type(nb_rng.bit_generator) is np.random.PCG64
    assert nb_seed == gym_seed == seed
    assert nb_rng.bit_generator.state == gym_rng.bit_generator.state
    np.testing.assert_array_equal(nb_rng.random(5), gym_rng.random(5))


def test_np_random_without_seed_draws_entropy() -> None:
    rng, seed = seeding.np_random()
    assert isinstance(seed, int) and seed >= 0
    assert rng.bit_generator.state == seeding.np_random(seed)[0].bit_generator.state
    assert seeding.np_random()[1] != seed


@pytest.mark.parametrize("seed", [-1, -(2**70), 1.0, 1.5, np.int64(3), "3", [1]])
def test_np_random_rejects_bad_seeds_as_gymnasium(seed: Any) -> None:
    assert raised(lambda: seeding.np_random(seed)) == raised(lambda: gym_seeding.np_random(seed))
    with pytest.raises(nbgym.error.Error):
        seeding.np_random(seed)


def test_seeding_aliases() -> None:
    assert seeding.RNG is seeding.RandomNumberGenerator is np.random.Generator


# --------------------------------------------------------------------------------------------------
# Env: seeding, np_random, np_random_seed
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_reset_seeds_as_gymnasium(seed: int) -> None:
    gym_env, nb_env = both(lambda lib: grid_world(lib)())
    for reset_kwargs in ({"seed": seed}, {}, {}, {"seed": seed + 1}, {}):
        gym_obs, gym_info = gym_env.reset(**reset_kwargs)
        nb_obs, nb_info = nb_env.reset(**reset_kwargs)
        assert_data_equal(nb_obs, gym_obs)
        assert_data_equal(nb_info, gym_info)
        assert nb_env.np_random_seed == gym_env.np_random_seed
        assert nb_env.np_random.bit_generator.state == gym_env.np_random.bit_generator.state


def test_np_random_seed_rules() -> None:
    for lib in LIBS:
        env = grid_world(lib)()
        assert env._np_random is None and env._np_random_seed is None
        # Reading the seed creates a generator from fresh entropy and reports that entropy.
        entropy = env.np_random_seed
        assert isinstance(entropy, int) and entropy >= 0
        assert env.np_random.bit_generator.state == np.random.default_rng(entropy).bit_generator.state
        assert env.np_random_seed == entropy

        env.reset(seed=3)
        assert env.np_random_seed == 3
        env.reset()
        assert env.np_random_seed == 3

        generator = np.random.default_rng(5)
        env.np_random = generator
        assert env.np_random is generator
        assert env.np_random_seed == -1
        env.reset()
        assert env.np_random_seed == -1 and env.np_random is generator
        env.reset(seed=4)
        assert env.np_random_seed == 4 and env.np_random is not generator


def test_np_random_property_creates_generator_lazily() -> None:
    for lib in LIBS:
        env = grid_world(lib)()
        generator = env.np_random
        assert env.np_random is generator
        assert isinstance(env.np_random_seed, int) and env.np_random_seed >= 0
        assert generator.bit_generator.state == np.random.default_rng(env.np_random_seed).bit_generator.state


def test_reset_rejects_bad_seed_as_gymnasium() -> None:
    gym_env, nb_env = both(lambda lib: grid_world(lib)())
    for seed in (-1, 2.5, np.int32(2)):
        assert raised(lambda: nb_env.reset(seed=seed)) == raised(lambda: gym_env.reset(seed=seed))


class SharedStreamEnv(nbgym.Env):
    """An environment that keeps its stream elsewhere, as the compiled environments do."""

    def __init__(self) -> None:
        self.observation_space = nbgym.spaces.Discrete(3)
        self.action_space = nbgym.spaces.Discrete(2)
        self.states: list[dict[str, Any]] = []

    @property
    def np_random(self) -> np.random.Generator:
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = self.states[-1]
        return generator

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.states.append(value.bit_generator.state)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[int, dict]:
        super().reset(seed=seed)
        return 0, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
        return 0, 0.0, False, False, {}


def test_env_goes_through_an_overridden_np_random() -> None:
    env = SharedStreamEnv()
    assert isinstance(env.np_random_seed, int)
    assert len(env.states) == 1
    env.reset(seed=42)
    assert env.states[-1] == np.random.default_rng(42).bit_generator.state
    assert env.np_random_seed == 42
    assert env._np_random is None

    wrapped = nbgym.wrappers.TimeLimit(env, 5)
    assert wrapped.np_random.bit_generator.state == np.random.default_rng(42).bit_generator.state
    wrapped.np_random = np.random.default_rng(9)
    assert env.states[-1] == np.random.default_rng(9).bit_generator.state
    assert wrapped.np_random_seed == 42  # the override's setter does not touch the seed bookkeeping


# --------------------------------------------------------------------------------------------------
# Env: the rest of the API
# --------------------------------------------------------------------------------------------------


def test_env_defaults_and_str() -> None:
    gym_env, nb_env = both(lambda lib: lib.Env())
    assert nb_env.metadata == gym_env.metadata == {"render_modes": []}
    assert nb_env.render_mode is None and nb_env.spec is None
    assert nb_env.unwrapped is nb_env
    assert str(nb_env) == str(gym_env) == "<Env instance>"
    for method in ("step", "render"):
        call = (lambda env: getattr(env, method)(0)) if method == "step" else (lambda env: env.render())
        assert raised(lambda: call(nb_env)) == raised(lambda: call(gym_env)) == ("NotImplementedError", "")
    assert nb_env.reset() is None
    assert nb_env.close() is None

    gym_env, nb_env = both(lambda lib: grid_world(lib)())
    assert str(nb_env) == str(gym_env) == "<GridWorldEnv instance>"
    gym_env.spec = GymEnvSpec("GridWorld-v0")
    nb_env.spec = NbEnvSpec("GridWorld-v0")
    assert str(nb_env) == str(gym_env) == "<GridWorldEnv<GridWorld-v0>>"


def test_env_context_manager_closes_and_propagates() -> None:
    class Closing(nbgym.Env):
        closed = 0

        def close(self) -> None:
            self.closed += 1

    with Closing() as env:
        assert isinstance(env, Closing)
    assert env.closed == 1
    with pytest.raises(KeyError), Closing() as env:
        raise KeyError("inside")
    assert env.closed == 1


def test_env_wrapper_attr_methods_as_gymnasium() -> None:
    gym_env, nb_env = both(lambda lib: grid_world(lib)())
    for env in (gym_env, nb_env):
        assert env.has_wrapper_attr("size") and not env.has_wrapper_attr("nope")
        assert env.get_wrapper_attr("size") == 5
        assert env.set_wrapper_attr("size", 6) is True and env.size == 6
        assert env.set_wrapper_attr("new_attr", 1, force=False) is False
        assert not hasattr(env, "new_attr")
        assert env.set_wrapper_attr("new_attr", 1) is True and env.new_attr == 1
    assert raised(lambda: nb_env.get_wrapper_attr("nope")) == raised(lambda: gym_env.get_wrapper_attr("nope"))


# --------------------------------------------------------------------------------------------------
# Wrapper
# --------------------------------------------------------------------------------------------------


def plain_wrapper(lib: ModuleType) -> type:
    class Plain(lib.Wrapper):
        def __init__(self, env: Any):
            super().__init__(env)
            self.plain_attr = "plain"

    return Plain


def recording_wrapper(lib: ModuleType) -> type:
    class Recording(lib.Wrapper, lib.utils.RecordConstructorArgs):
        def __init__(self, env: Any, scale: float = 1.0, extra: Any = None):
            lib.utils.RecordConstructorArgs.__init__(self, scale=scale, extra=extra)
            lib.Wrapper.__init__(self, env)
            self.scale = scale

    return Recording


def stack(lib: ModuleType) -> Any:
    """Plain(Recording(GridWorld)), with ``marker`` attributes on the bare env and the outer wrapper."""
    env = grid_world(lib)()
    env.marker = "env"
    outer = plain_wrapper(lib)(recording_wrapper(lib)(env, scale=2.0))
    return outer


def test_wrapper_rejects_non_env() -> None:
    for value in (None, 3, object()):
        assert raised(lambda: nbgym.Wrapper(value)) == raised(lambda: gymnasium.Wrapper(value))
    with pytest.raises(TypeError, match="nbgym.Env"):
        nbgym.Wrapper(gymnasium.Env())


def test_wrapper_forwards_as_gymnasium() -> None:
    gym_env, nb_env = both(stack)
    for env, lib in ((gym_env, gymnasium), (nb_env, nbgym)):
        bare = env.unwrapped
        assert type(bare).__name__ == "GridWorldEnv"
        assert env.env.env is bare
        assert env.action_space is bare.action_space
        assert env.observation_space is bare.observation_space
        assert env.metadata is bare.metadata
        assert env.render_mode is None
        assert env.spec is None

        # The wrapper's own spaces and metadata shadow the inner ones, for this layer and the ones above.
        new_space = lib.spaces.Discrete(7)
        env.env.action_space = new_space
        env.env.observation_space = new_space
        env.env.metadata = {"render_modes": ["x"]}
        assert env.action_space is new_space and bare.action_space is not new_space
        assert env.observation_space is new_space
        assert env.metadata == {"render_modes": ["x"]} and bare.metadata == {
            "render_modes": ["rgb_array", "ansi"],
            "render_fps": 4,
        }

        bare.render_mode = "ansi"
        assert env.render_mode == "ansi"

    assert str(nb_env) == repr(nb_env) == str(gym_env) == repr(gym_env) == "<Plain<Recording<GridWorldEnv instance>>>"


def test_wrapper_np_random_as_gymnasium() -> None:
    gym_env, nb_env = both(stack)
    for env in (gym_env, nb_env):
        env.reset(seed=11)
        assert env.np_random is env.unwrapped.np_random
        assert env.np_random_seed == 11
        generator = np.random.default_rng(1)
        env.np_random = generator
        assert env.unwrapped.np_random is generator
        assert env.np_random_seed == -1
    assert raised(lambda: nb_env._np_random) == raised(lambda: gym_env._np_random)
    assert raised(lambda: nb_env._np_random) == (
        "AttributeError",
        "Can't access `_np_random` of a wrapper, use `.unwrapped._np_random` or `.np_random`.",
    )

    def set_private(env: Any) -> None:
        env._np_random = np.random.default_rng()

    assert raised(lambda: set_private(nb_env)) == raised(lambda: set_private(gym_env))


def test_wrapper_does_not_forward_other_attributes() -> None:
    gym_env, nb_env = both(stack)
    for name in ("marker", "size", "_agent_location", "__secret", "scale"):
        assert raised(lambda: getattr(nb_env, name)) == raised(lambda: getattr(gym_env, name))
        assert hasattr(nb_env, name) is hasattr(gym_env, name) is False


@pytest.mark.parametrize(
    "name", ["marker", "scale", "plain_attr", "size", "nope", "_np_random", "env", "np_random_seed"]
)
def test_has_and_get_wrapper_attr_as_gymnasium(name: str) -> None:
    gym_env, nb_env = both(stack)
    assert nb_env.has_wrapper_attr(name) is gym_env.has_wrapper_attr(name)
    try:
        gym_value: Any = gym_env.get_wrapper_attr(name)
    except AttributeError as e:
        gym_error = exception_outcome(e)
        with pytest.raises(AttributeError) as info:
            nb_env.get_wrapper_attr(name)
        assert exception_outcome(info.value) == gym_error
        assert exception_outcome(info.value.__cause__) == exception_outcome(e.__cause__)
    else:
        nb_value = nb_env.get_wrapper_attr(name)
        if name == "np_random_seed":  # fresh entropy in each library
            assert type(nb_value) is type(gym_value) is int
        elif isinstance(gym_value, str):
            assert nb_value == gym_value
        else:
            assert normalise(str(nb_value)) == normalise(str(gym_value))


@pytest.mark.parametrize("force", [True, False])
@pytest.mark.parametrize("name", ["marker", "scale", "plain_attr", "nope"])
def test_set_wrapper_attr_as_gymnasium(name: str, force: bool) -> None:
    gym_env, nb_env = both(stack)
    assert nb_env.set_wrapper_attr(name, "new", force=force) is gym_env.set_wrapper_attr(name, "new", force=force)

    def where(env: Any) -> list[bool]:
        layers = [env, env.env, env.env.env]
        return [name in vars(layer) and vars(layer)[name] == "new" for layer in layers]

    assert where(nb_env) == where(gym_env)
    assert nb_env.has_wrapper_attr(name) is gym_env.has_wrapper_attr(name)


def test_wrapper_spec_as_gymnasium() -> None:
    def wrapped(lib: ModuleType) -> Any:
        env = grid_world(lib)()
        env.spec = ENV_SPECS[lib]("GridWorld-v0", entry_point="grid:GridWorld", max_episode_steps=9)
        recorded = recording_wrapper(lib)(env, scale=3.0, extra={"a": [1]})
        return plain_wrapper(lib)(recorded)

    gym_env, nb_env = both(wrapped)
    gym_spec, nb_spec = gym_env.spec, nb_env.spec
    assert nb_spec is nb_env.spec  # cached
    assert nb_env.unwrapped.spec.additional_wrappers == ()
    assert [(w.name, w.kwargs) for w in nb_spec.additional_wrappers] == [
        (w.name, w.kwargs) for w in gym_spec.additional_wrappers
    ]
    assert [(w.name, w.kwargs) for w in nb_spec.additional_wrappers] == [
        ("Recording", {"scale": 3.0, "extra": {"a": [1]}}),
        ("Plain", None),
    ]
    assert [w.entry_point for w in nb_spec.additional_wrappers] == [
        f"{__name__}:Recording",
        f"{__name__}:Plain",
    ]
    assert nb_spec.max_episode_steps == gym_spec.max_episode_steps == 9
    assert str(nb_env) == str(gym_env) == "<Plain<Recording<GridWorldEnv<GridWorld-v0>>>>"


def test_wrapper_spec_drops_recorded_env_and_copies_kwargs() -> None:
    class Records(nbgym.Wrapper, RecordConstructorArgs):
        def __init__(self, env: Any, options: dict):
            RecordConstructorArgs.__init__(self, env=env, options=options)
            nbgym.Wrapper.__init__(self, env)

    env = grid_world(nbgym)()
    env.spec = NbEnvSpec("GridWorld-v0")
    options = {"x": [1]}
    wrapper = Records(env, options)
    (wrapper_spec,) = wrapper.spec.additional_wrappers
    assert wrapper_spec.kwargs == {"options": {"x": [1]}}
    assert wrapper_spec.kwargs["options"] is not options


def test_wrapper_spec_warns_when_spec_cannot_be_copied() -> None:
    class Uncopyable:
        id = "Uncopyable-v0"

        def __repr__(self) -> str:
            return "Uncopyable()"

        def __deepcopy__(self, memo: Any) -> Any:
            raise RuntimeError("no copies")

    gym_env, nb_env = both(lambda lib: plain_wrapper(lib)(grid_world(lib)()))
    gym_env.unwrapped.spec = Uncopyable()
    nb_env.unwrapped.spec = Uncopyable()
    with pytest.warns(UserWarning) as gym_caught:
        assert gym_env.spec is None
    with pytest.warns(UserWarning) as nb_caught:
        assert nb_env.spec is None
    assert [normalise(str(w.message)) for w in nb_caught] == [normalise(str(w.message)) for w in gym_caught]


def test_wrapper_spec_classmethod_as_gymnasium() -> None:
    gym_spec, nb_spec = both(lambda lib: recording_wrapper(lib).wrapper_spec(scale=2.0))
    assert (nb_spec.name, nb_spec.kwargs) == (gym_spec.name, gym_spec.kwargs) == ("Recording", {"scale": 2.0})
    assert nb_spec.entry_point == f"{__name__}:Recording"
    assert nbgym.Wrapper.class_name() == "Wrapper"


def test_wrapper_close_render_reset_step_pass_through() -> None:
    gym_env, nb_env = both(lambda lib: plain_wrapper(lib)(grid_world(lib)(render_mode="ansi")))
    for seed in SEEDS:
        assert_data_equal(nb_env.reset(seed=seed), gym_env.reset(seed=seed))
        for action in (0, 1, 1, 2, 3, 0):
            assert_data_equal(nb_env.step(action), gym_env.step(action))
            assert nb_env.render() == gym_env.render()
    assert nb_env.close() is None


def transforming_wrappers(lib: ModuleType) -> list[Any]:
    class DoubleAgent(lib.ObservationWrapper):
        def observation(self, observation: dict) -> dict:
            return {"agent": observation["agent"] * 2, "target": observation["target"]}

    class ReverseAction(lib.ActionWrapper):
        def action(self, action: int) -> int:
            return 3 - action

    class ScaleReward(lib.RewardWrapper):
        def reward(self, reward: Any) -> float:
            return reward * 0.5 - 1

    return [DoubleAgent, ReverseAction, ScaleReward]


@pytest.mark.parametrize("index", range(3))
def test_transforming_wrappers_as_gymnasium(index: int) -> None:
    gym_env, nb_env = both(lambda lib: transforming_wrappers(lib)[index](grid_world(lib)()))
    for seed in SEEDS:
        assert_data_equal(nb_env.reset(seed=seed), gym_env.reset(seed=seed))
        nb_env.action_space.seed(seed)
        for _ in range(20):
            action = int(nb_env.action_space.sample())
            assert_data_equal(nb_env.step(action), gym_env.step(action))


@pytest.mark.parametrize("base", ["ObservationWrapper", "ActionWrapper", "RewardWrapper"])
def test_transforming_wrapper_bases_raise_not_implemented(base: str) -> None:
    gym_env, nb_env = both(lambda lib: getattr(lib, base)(grid_world(lib)()))
    for env in (gym_env, nb_env):
        env.unwrapped.reset(seed=0)
    call = (lambda env: env.reset(seed=0)) if base == "ObservationWrapper" else (lambda env: env.step(0))
    assert raised(lambda: call(nb_env)) == raised(lambda: call(gym_env)) == ("NotImplementedError", "")


# --------------------------------------------------------------------------------------------------
# utils: colorize, EzPickle, RecordConstructorArgs
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("color", list(gymnasium.utils.colorize.__globals__["color2num"]))
@pytest.mark.parametrize("bold", [False, True])
@pytest.mark.parametrize("highlight", [False, True])
def test_colorize_as_gymnasium(color: str, bold: bool, highlight: bool) -> None:
    assert colorize("text", color, bold, highlight) == gymnasium.utils.colorize("text", color, bold, highlight)


def test_colorize_rejects_unknown_colour() -> None:
    assert raised(lambda: colorize("x", "pink")) == raised(lambda: gymnasium.utils.colorize("x", "pink"))


class Pet(EzPickle):
    created = 0

    def __init__(self, name: str, legs: int = 4):
        EzPickle.__init__(self, name, legs=legs)
        Pet.created += 1
        self.name = name
        self.legs = legs
        self.handle = object()


def test_ezpickle_recreates_through_constructor() -> None:
    pet = Pet("rex", legs=3)
    created = Pet.created
    clone = pickle.loads(pickle.dumps(pet))
    assert Pet.created == created + 1
    assert (clone.name, clone.legs) == ("rex", 3) and clone.handle is not pet.handle
    assert pet.__getstate__() == {"_ezpickle_args": ("rex",), "_ezpickle_kwargs": {"legs": 3}}
    assert copy.deepcopy(pet).legs == 3


def test_record_constructor_args_first_call_wins_and_copies() -> None:
    class Outer(RecordConstructorArgs):
        def __init__(self, values: list):
            RecordConstructorArgs.__init__(self, values=values)
            RecordConstructorArgs.__init__(self, ignored=True)

    values = [1, 2]
    outer = Outer(values)
    assert outer._saved_kwargs == {"values": [1, 2]}
    assert outer._saved_kwargs["values"] is not values

    shared = RecordConstructorArgs(_disable_deepcopy=True, values=values)
    assert shared._saved_kwargs["values"] is values


def test_utils_exports() -> None:
    import gymnasium.utils as gym_utils

    import nbgym.utils as nb_utils

    assert nb_utils.__all__ == gym_utils.__all__
    assert nbgym.core.__all__[:5] == ["Env", "Wrapper", "ObservationWrapper", "RewardWrapper", "ActionWrapper"]


@pytest.mark.parametrize("env_id", ["CartPole-v1", "MountainCarContinuous-v0"])
def test_step_takes_its_action_by_keyword_and_refuses_none_as_gymnasium(env_id: str) -> None:
    """The env-in-use guard of ``step`` (a wrapper of one argument, ``action``) keeps the method's calling forms."""
    outcomes = []
    for lib in (gymnasium, nbgym):
        env = lib.make(env_id).unwrapped
        env.reset(seed=3)
        action = np.array([0.5], dtype=np.float32) if env_id.startswith("MountainCarContinuous") else 1
        observation = env.step(action=action)[0]
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'action'"):
            env.step()
        outcomes.append(observation)
    assert_data_equal(outcomes[1], outcomes[0])
