"""Conversion between nbgym and gymnasium (nbgym.interop, nbgym.gymnasium): each library's checkers,
wrappers and vector envs run on the other's converted environments, with results compared exactly
with the unconverted runs."""

from __future__ import annotations

import importlib.util
import inspect
import pickle
import subprocess
import sys
import warnings
from typing import Any, Callable

import gymnasium
import gymnasium.utils.env_checker
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbgym
import nbgym.utils.env_checker
from nbgym.interop import (
    AsGymnasiumEnv,
    AsGymnasiumVectorEnv,
    FromGymnasiumEnv,
    FromGymnasiumVectorEnv,
    convert_space,
    from_gymnasium,
    to_gymnasium,
)
from helpers.common import MODES
from helpers.toy_text_checks import assert_same_value

# The interop runs with every gymnasium from 1.1 (Ray pins older ones than nbgym's oracle, 1.4.0). Where the
# installed gymnasium behaves unlike 1.4.0, the comparisons leave that out: ids it lacks (Taxi-v4 is new in 1.4),
# FrozenLake before 1.2 (its slip probabilities were computed otherwise), Graph samples before 1.4.
GYMNASIUM_VERSION = tuple(int(part) for part in gymnasium.__version__.split(".")[:2])
IDS = [
    env_id
    for env_id in [
        "CartPole-v1",
        "Pendulum-v1",
        "MountainCarContinuous-v0",
        "Acrobot-v1",
        "FrozenLake-v1",
        "Taxi-v4",
        "Blackjack-v1",
    ]
    if env_id in gymnasium.registry and (env_id != "FrozenLake-v1" or GYMNASIUM_VERSION >= (1, 2))
]
GRAPHS_SAMPLE_AS_ORACLE = GYMNASIUM_VERSION >= (1, 4)
DISCRETE_DTYPES = "dtype" in inspect.signature(gymnasium.spaces.Discrete).parameters
"""Whether the installed gymnasium's Discrete takes a dtype (1.2 and later); 1.1's are all int64."""


def spaces_of(lib: Any) -> list[Any]:
    """One space of every type, and nested ones, built the same way in ``lib`` (gymnasium or nbgym)."""
    s = lib.spaces
    return [
        s.Box(-1.0, 2.0, (3, 2), np.float32),
        s.Box(np.array([0, -5]), np.array([3, 5]), dtype=np.int16),
        s.Box(-np.inf, np.inf, (2,), np.float64),
        s.Discrete(5, start=-2),
        s.Discrete(7, dtype=np.int32) if DISCRETE_DTYPES else s.Discrete(7),
        s.MultiDiscrete([3, 4, 2], start=[1, 0, -1]),
        s.MultiBinary([2, 3]),
        s.Text(6, min_length=2, charset="zyxab"),
        s.Tuple([s.Discrete(3), s.Box(0, 1, (2,))]),
        s.Dict({"b": s.Discrete(4), "a": s.Dict(c=s.MultiBinary(3), d=s.Box(-2, 2, (1,)))}),
        s.Dict([("z", s.Discrete(2)), ("a", s.Discrete(3))]),
        s.Sequence(s.Box(0, 1, (2,)), stack=True),
        s.Sequence(s.Discrete(4)),
        s.OneOf([s.Discrete(3), s.Box(-1, 1, (2,))]),
        s.Graph(node_space=s.Box(0, 1, (3,)), edge_space=s.Discrete(4)),
        s.Graph(node_space=s.Discrete(5), edge_space=None),
    ]


def plain(sample: Any) -> Any:
    """A Graph sample as a plain tuple (each library has its own GraphInstance class)."""
    return tuple(sample) if type(sample).__name__ == "GraphInstance" else sample


@pytest.mark.parametrize("index", range(len(spaces_of(nbgym))))
def test_spaces_convert_both_ways_with_equal_samples(index: int) -> None:
    ours, theirs = spaces_of(nbgym)[index], spaces_of(gymnasium)[index]
    converted = to_gymnasium(ours)
    assert type(converted) is type(theirs) and converted == theirs and repr(converted) == repr(theirs)
    back = from_gymnasium(theirs)
    assert type(back) is type(ours) and back == ours
    assert from_gymnasium(converted) == ours
    # Seeded alike, the converted space samples as the library's own; it shares the original's stream.
    theirs.seed(7)
    ours.seed(7)
    converted = to_gymnasium(ours)
    for _ in range(5):
        assert_same_value(converted.sample(), theirs.sample())
    if GRAPHS_SAMPLE_AS_ORACLE or not isinstance(ours, nbgym.spaces.Graph):
        assert_same_value(plain(ours.sample()), plain(theirs.sample()))  # the stream `converted` advanced is `ours`'s
    assert converted.contains(theirs.sample()) and ours.contains(from_gymnasium(converted).sample())


@settings(max_examples=40, deadline=None)
@given(
    low=st.floats(-3e4, 3e4, allow_nan=False),  # within float16
    width=st.floats(0, 3e4, allow_nan=False),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    shape=st.lists(st.integers(1, 3), max_size=3).map(tuple),
    seed=st.integers(0, 2**32),
)
def test_box_conversion_keeps_bounds_and_samples(low: float, width: float, dtype: Any, shape: tuple, seed: int) -> None:
    ours = nbgym.spaces.Box(low, low + width, shape, dtype, seed=seed)
    theirs = gymnasium.spaces.Box(low, low + width, shape, dtype, seed=seed)
    converted = to_gymnasium(ours)
    assert_same_value(converted.low, theirs.low)
    assert_same_value(converted.high, theirs.high)
    assert_same_value(converted.sample(), theirs.sample())


def test_custom_spaces_and_other_objects_are_refused() -> None:
    class Custom(nbgym.spaces.Discrete):
        pass

    with pytest.raises(TypeError, match="only the nbgym space classes"):
        to_gymnasium(Custom(3))
    with pytest.raises(TypeError, match="Cannot convert <class 'int'> to gymnasium"):
        to_gymnasium(3)
    with pytest.raises(TypeError, match="Cannot convert <class 'str'> to nbgym"):
        from_gymnasium("CartPole-v1")
    with pytest.raises(TypeError, match="target must be"):
        convert_space(nbgym.spaces.Discrete(2), np)


def run_single(env: Any, actions: Callable[[int], Any], steps: int, seed: int = 3) -> list[Any]:
    """Every result of a seeded reset and ``steps`` steps, resetting (unseeded) when an episode ends."""
    results: list[Any] = [env.reset(seed=seed)]
    for t in range(steps):
        result = env.step(actions(t))
        results.append(result)
        if result[2] or result[3]:
            results.append(env.reset())
    return results


def action_source(env_id: str) -> Callable[[int], Any]:
    space = nbgym.make(env_id).action_space
    space.seed(5)
    actions = [space.sample() for _ in range(200)]
    return lambda t: actions[t]


def assert_same_runs(env_id: str, ours: Any, theirs: Any) -> None:
    """200 steps of both environments with the same actions give the same results, bit for bit."""
    actions = action_source(env_id)
    ours_results, theirs_results = run_single(ours, actions, 200), run_single(theirs, actions, 200)
    # RecordEpisodeStatistics times episodes with the wall clock: the only field that may differ.
    for result in (*ours_results, *theirs_results):
        result[-1].get("episode", {}).pop("t", None)
    assert_same_value(ours_results, theirs_results)


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_check_env_and_wrappers_run_on_converted_nbgym_envs(env_id: str) -> None:
    env = to_gymnasium(nbgym.make(env_id))
    assert isinstance(env, gymnasium.Env) and isinstance(env, AsGymnasiumEnv)
    assert isinstance(env.action_space, gymnasium.spaces.Space)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice about unbounded boxes, as for gymnasium's own env
        gymnasium.utils.env_checker.check_env(env, skip_render_check=True)

    def stack(base: gymnasium.Env) -> gymnasium.Env:
        wrapped = gymnasium.wrappers.RecordEpisodeStatistics(base)
        if isinstance(base.observation_space, gymnasium.spaces.Box):
            wrapped = gymnasium.wrappers.NormalizeObservation(wrapped)
        return gymnasium.wrappers.NormalizeReward(wrapped)

    assert_same_runs(env_id, stack(to_gymnasium(nbgym.make(env_id))), stack(gymnasium.make(env_id)))


@pytest.mark.parametrize("env_id", IDS)
def test_nbgym_check_env_and_wrappers_run_on_converted_gymnasium_envs(env_id: str) -> None:
    env = from_gymnasium(gymnasium.make(env_id))
    assert isinstance(env, nbgym.Env) and isinstance(env, FromGymnasiumEnv)
    assert isinstance(env.observation_space, nbgym.spaces.Space)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nbgym.utils.env_checker.check_env(env, skip_render_check=True)

    def stack(base: nbgym.Env) -> nbgym.Env:
        return nbgym.wrappers.NormalizeReward(nbgym.wrappers.RecordEpisodeStatistics(base))

    assert_same_runs(env_id, stack(from_gymnasium(gymnasium.make(env_id))), stack(nbgym.make(env_id)))


def run_vector(envs: Any, steps: int, seed: int = 11) -> list[Any]:
    """A seeded reset and ``steps`` steps with actions drawn from a fixed stream."""
    space = envs.single_action_space
    rng = np.random.default_rng(0)
    results = [envs.reset(seed=seed)]
    for _ in range(steps):
        if space.shape == ():  # Discrete
            actions = rng.integers(0, int(space.n), envs.num_envs)
        else:
            actions = rng.uniform(space.low, space.high, (envs.num_envs, *space.shape)).astype(space.dtype)
        results.append(envs.step(actions))
    return results


def drop_episode_times(results: list[Any]) -> None:
    for result in results:
        episode = result[-1].get("episode")
        if episode is not None:
            episode.pop("t", None)
            episode.pop("_t", None)


@pytest.mark.parametrize("mode", MODES[:2])
def test_gymnasium_sync_vector_env_and_vector_wrappers_on_converted_nbgym_envs(mode: str) -> None:
    env_fns_ours = [lambda: to_gymnasium(nbgym.make("CartPole-v1")) for _ in range(3)]
    env_fns_theirs = [lambda: gymnasium.make("CartPole-v1") for _ in range(3)]
    ours = gymnasium.vector.SyncVectorEnv(env_fns_ours, autoreset_mode=mode)
    theirs = gymnasium.vector.SyncVectorEnv(env_fns_theirs, autoreset_mode=mode)
    assert_same_value(run_vector(ours, 120), run_vector(theirs, 120))

    # The compiled vector env under gymnasium's vector wrappers, against gymnasium's sync vector env.
    ours = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        to_gymnasium(nbgym.make_vec("CartPole-v1", 3, autoreset_mode=mode))
    )
    theirs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    )
    assert isinstance(ours.unwrapped, AsGymnasiumVectorEnv)
    assert ours.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode(mode)
    ours_results, theirs_results = run_vector(ours, 150), run_vector(theirs, 150)
    drop_episode_times(ours_results)
    drop_episode_times(theirs_results)
    assert_same_value(ours_results, theirs_results)


@pytest.mark.parametrize("mode", MODES)
def test_nbgym_vector_env_and_wrappers_on_converted_gymnasium_envs(mode: str) -> None:
    ours = nbgym.vector.SyncVectorEnv(
        [lambda: from_gymnasium(gymnasium.make("Pendulum-v1")) for _ in range(2)], autoreset_mode=mode
    )
    theirs = nbgym.make_vec("Pendulum-v1", 2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    steps = 120 if mode != "Disabled" else 100  # Disabled: no episode may end (Pendulum truncates at 200)
    assert_same_value(run_vector(ours, steps), run_vector(theirs, steps))

    gym_vector = gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    converted = from_gymnasium(gym_vector)
    assert isinstance(converted, FromGymnasiumVectorEnv) and converted.metadata[
        "autoreset_mode"
    ] is nbgym.vector.AutoresetMode(mode)
    if mode == "Disabled":
        return
    ours = nbgym.wrappers.vector.RecordEpisodeStatistics(converted)
    theirs = nbgym.wrappers.vector.RecordEpisodeStatistics(nbgym.make_vec("CartPole-v1", 3, autoreset_mode=mode))
    ours_results, theirs_results = run_vector(ours, 150), run_vector(theirs, 150)
    drop_episode_times(ours_results)
    drop_episode_times(theirs_results)
    assert_same_value(ours_results, theirs_results)


def test_adapters_pass_state_through_without_copies() -> None:
    inner = nbgym.make("CartPole-v1", render_mode="rgb_array")
    env = to_gymnasium(inner)
    env.reset(seed=4)
    assert env.np_random is inner.np_random and env.unwrapped._np_random is inner.unwrapped.np_random
    assert env.np_random_seed == inner.np_random_seed == 4
    generator = np.random.default_rng(1)
    env.np_random = generator
    assert inner.np_random is generator and env.np_random_seed == -1
    assert env.render_mode == "rgb_array"
    if importlib.util.find_spec("pygame") is not None:  # drawing needs the render extra
        assert env.render().shape == (400, 600, 3)
    assert env.metadata == inner.metadata and env.unwrapped is env and env.inner is inner
    assert env.spec.id == "CartPole-v1" and env.spec.max_episode_steps == 500
    # Public attributes read and write the wrapped env's stack; the adapter holds no copy.
    assert env.gravity == 9.8 and env.get_wrapper_attr("length") == 0.5
    env.gravity = 5.0
    assert inner.unwrapped.gravity == 5.0 and "gravity" not in vars(env)
    env.set_wrapper_attr("length", 0.25)
    assert inner.unwrapped.length == 0.25
    with pytest.raises(AttributeError):
        env.no_such_attribute  # noqa: B018
    # Spaces: converted once, reconverted when the wrapped env's space changes; assigning writes through.
    assert env.action_space is env.action_space
    env.action_space = gymnasium.spaces.Discrete(2, start=1)
    assert inner.action_space == nbgym.spaces.Discrete(2, start=1)
    inner.observation_space = nbgym.spaces.Box(-1, 1, (4,))
    assert env.observation_space == gymnasium.spaces.Box(-1, 1, (4,))
    # The step's objects are the wrapped env's own: with copy=False the same buffer comes back each time.
    vector = to_gymnasium(nbgym.make_vec("CartPole-v1", 4, copy=False))
    first = vector.reset(seed=0)[0]
    assert vector.step(np.zeros(4, dtype=np.int64))[0] is first
    vector.close()
    assert vector.closed and vector.inner.closed
    env.close()
    # Converting back gives the original object.
    assert from_gymnasium(env) is inner and from_gymnasium(vector) is vector.inner


def test_converted_spec_remakes_the_converted_env() -> None:
    env = to_gymnasium(nbgym.make("CartPole-v1"))
    remade = gymnasium.make(env.spec)
    assert isinstance(remade.unwrapped, AsGymnasiumEnv)
    assert_same_value(
        run_single(remade, lambda t: t % 2, 60), run_single(gymnasium.make("CartPole-v1"), lambda t: t % 2, 60)
    )
    spec = from_gymnasium(gymnasium.spec("Acrobot-v1"))
    assert isinstance(spec, nbgym.registration.EnvSpec)
    made = nbgym.make(spec)
    assert isinstance(made.unwrapped, FromGymnasiumEnv)
    assert_same_value(run_single(made, lambda t: t % 3, 60), run_single(nbgym.make("Acrobot-v1"), lambda t: t % 3, 60))


def test_gymnasium_make_reaches_nbgym_envs_by_id() -> None:
    import nbgym.gymnasium

    nbgym.gymnasium.register_envs()  # whatever other tests of this worker registered in nbgym since the import
    assert "nbgym/CartPole-v1" in gymnasium.registry and nbgym.gymnasium.register_envs() == []
    ours = gymnasium.make("nbgym/MountainCarContinuous-v0")
    assert isinstance(ours.unwrapped, AsGymnasiumEnv) and ours.spec.id == "nbgym/MountainCarContinuous-v0"
    actions = action_source("MountainCarContinuous-v0")
    assert_same_value(
        run_single(ours, actions, 150), run_single(gymnasium.make("MountainCarContinuous-v0"), actions, 150)
    )

    ours = gymnasium.make_vec("nbgym/CartPole-v1", 3, autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    assert isinstance(ours, AsGymnasiumVectorEnv) and type(ours.inner).__module__.startswith("nbgym.envs")
    theirs = gymnasium.make_vec(
        "CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": "SameStep"}
    )
    assert_same_value(run_vector(ours, 150), run_vector(theirs, 150))


@pytest.mark.parametrize(
    "code",
    [
        "import gymnasium; gymnasium.make('nbgym:CartPole-v1')",
        "import nbgym, gymnasium; gymnasium.make_vec('nbgym:CartPole-v1', 2)",
    ],
)
def test_nbgym_colon_id_is_refused_with_what_to_write(code: str) -> None:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "gymnasium.error.Error" in result.stderr and '"nbgym.gymnasium:nbgym/CartPole-v1"' in result.stderr


def test_module_prefixed_id_imports_the_registration() -> None:
    code = (
        "import gymnasium; env = gymnasium.make('nbgym.gymnasium:nbgym/CartPole-v1'); "
        "print(type(env.unwrapped).__name__, type(env.unwrapped.inner).__module__)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["AsGymnasiumEnv", "nbgym.envs.classic_control.cartpole"], result.stderr


def test_import_nbgym_imports_no_gymnasium() -> None:
    code = "import sys, nbgym; nbgym.make; print(sorted(m for m in sys.modules if m.startswith(('gymnasium', 'nbgym.interop'))))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "[]", result.stderr


def test_wrappers_point_gymnasium_envs_to_the_conversion() -> None:
    with pytest.raises(
        TypeError, match=r"Expected env to be an `nbgym.vector.VectorEnv`.*nbgym.interop.from_gymnasium"
    ):
        nbgym.wrappers.vector.RecordEpisodeStatistics(gymnasium.make_vec("CartPole-v1", 2))
    with pytest.raises(TypeError, match=r"Expected env to be a `nbgym.Env`.*nbgym.interop.from_gymnasium"):
        nbgym.wrappers.TimeLimit(gymnasium.make("CartPole-v1"), 10)


def test_gymnasium_async_vector_env_runs_converted_nbgym_envs_and_adapters_pickle() -> None:
    ours = gymnasium.vector.AsyncVectorEnv([lambda: to_gymnasium(nbgym.make("Acrobot-v1")) for _ in range(2)])
    theirs = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("Acrobot-v1") for _ in range(2)])
    try:
        assert_same_value(run_vector(ours, 30), run_vector(theirs, 30))
    finally:
        ours.close()
    env = to_gymnasium(nbgym.make("CartPole-v1"))
    env.spec = gymnasium.spec("CartPole-v1")  # an assigned spec travels with the adapter
    copy = pickle.loads(pickle.dumps(env))
    assert isinstance(copy, AsGymnasiumEnv) and copy.spec == gymnasium.spec("CartPole-v1")
    assert_same_value(copy.reset(seed=5), env.reset(seed=5))


def test_namespaced_nbgym_ids_reach_gymnasium_under_a_namespace_gymnasium_accepts() -> None:
    import nbgym.gymnasium

    nbgym.register(
        "interopns/Pole-v3", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv", max_episode_steps=20
    )
    try:
        assert "nbgym-interopns/Pole-v3" in nbgym.gymnasium.register_envs()
        env = gymnasium.make("nbgym-interopns/Pole-v3")
        assert isinstance(env.unwrapped, AsGymnasiumEnv) and env.spec.max_episode_steps == 20
        env.reset(seed=0)
    finally:
        del nbgym.registry["interopns/Pole-v3"]
        gymnasium.registry.pop("nbgym-interopns/Pole-v3", None)
