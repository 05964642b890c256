"""Differential tests of nbgym.wrappers.vector against gymnasium.wrappers.vector 1.4.0.

The statistics wrappers run on nbgym's compiled ``make_vec("CartPole-v1", n)`` against gymnasium's
``make_vec("CartPole-v1", n, vectorization_mode="sync")`` in every autoreset mode the wrapper accepts;
the transform wrappers also run on sync vector envs of one custom environment class written for both
libraries. Every output is compared exactly (only the wall-clock episode times may differ), and so
are the wrappers' running statistics, queues and counters.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from helpers.core_test_envs import assert_data_equal, outcome
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers.common import LIBS, MODES, SEEDS
from helpers.wrappers_test_envs import HAS_CV2, assert_same, assert_spaces_equal, space_env

import nbgym

# gymnasium's wrappers build Boxes of float64 bounds for float32 spaces, and so warn that the bounds lose
# precision; both libraries warn alike (the spaces tests check the warning itself).
pytestmark = pytest.mark.filterwarnings("ignore:.*Box (low|high)'s precision lowered by casting:UserWarning")


def cartpole_vec(lib: ModuleType, num_envs: int, mode: str = "NextStep") -> Any:
    """nbgym's compiled CartPole vector env, or gymnasium's sync one, in autoreset ``mode``."""
    if lib is nbgym:
        return nbgym.make_vec("CartPole-v1", num_envs, autoreset_mode=mode)
    return gymnasium.make_vec(
        "CartPole-v1",
        num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode(mode)},
    )


def pendulum_vec(lib: ModuleType, num_envs: int) -> Any:
    """nbgym's compiled Pendulum vector env, or gymnasium's sync one."""
    if lib is nbgym:
        return nbgym.make_vec("Pendulum-v1", num_envs)
    return gymnasium.make_vec("Pendulum-v1", num_envs, vectorization_mode="sync")


def space_vec(lib: ModuleType, num_envs: int, mode: str = "NextStep", **kwargs: Any) -> Any:
    """A sync vector env of :func:`wrappers_test_envs.space_env` environments."""
    env_class = space_env(lib)
    return lib.vector.SyncVectorEnv(
        [lambda: env_class(**kwargs) for _ in range(num_envs)], autoreset_mode=lib.vector.AutoresetMode(mode)
    )


def without_times(data: Any) -> Any:
    """``data`` with the wall-clock entries (``"t"`` of episode statistics, the time queue) removed."""
    if isinstance(data, dict):
        return {key: without_times(value) for key, value in data.items() if key not in ("t", "time_queue")}
    if isinstance(data, (tuple, list)):
        return type(data)(without_times(item) for item in data)
    return data


def wrapper_state(envs: Any) -> dict[str, Any]:
    """The state of every statistics wrapper in the stack."""
    state: dict[str, Any] = {}
    layer = envs
    while hasattr(layer, "env"):
        name = type(layer).__name__
        if name == "RecordEpisodeStatistics":
            state[name] = {
                "episode_count": layer.episode_count,
                "episode_returns": layer.episode_returns,
                "episode_lengths": layer.episode_lengths,
                "prev_dones": layer.prev_dones,
                "return_queue": list(layer.return_queue),
                "length_queue": list(layer.length_queue),
                "time_queue_length": len(layer.time_queue),
            }
        if hasattr(layer, "obs_rms"):
            state[f"{name}.obs_rms"] = (layer.obs_rms.mean, layer.obs_rms.var, layer.obs_rms.count)
        if hasattr(layer, "return_rms"):
            state[f"{name}.return_rms"] = (layer.return_rms.mean, layer.return_rms.var, layer.return_rms.count)
            state[f"{name}.accumulated_reward"] = layer.accumulated_reward
            state[f"{name}.prev_dones"] = layer._prev_dones
        layer = layer.env
    return state


def vector_rollout(envs: Any, seed: int, actions: list[Any], mode: str) -> list[Any]:
    """Resets ``envs`` with ``seed`` and steps it with ``actions``; with autoreset disabled, the ended
    sub-environments are reset through ``reset_mask``. Returns every output, wall-clock times removed."""
    outputs = [without_times(envs.reset(seed=seed))]
    for action in actions:
        result = envs.step(action.copy())
        outputs.append(without_times(result))
        if mode == "Disabled" and np.any(result[2] | result[3]):
            outputs.append(without_times(envs.reset(options={"reset_mask": result[2] | result[3]})))
    return outputs


def compare_rollouts(build: Callable[[ModuleType], Any], seeds: tuple[int, ...], steps: int, mode: str) -> None:
    for seed in seeds:
        envs = [build(lib) for lib in LIBS]
        gym_space = envs[0].action_space
        gym_space.seed(seed)
        actions = [gym_space.sample() for _ in range(steps)]
        outputs = [vector_rollout(env, seed, actions, mode) for env in envs]
        assert len(outputs[0]) == len(outputs[1])
        for step, (gym_output, nb_output) in enumerate(zip(*outputs, strict=True)):
            try:
                assert_same(nb_output, gym_output)
            except AssertionError as e:
                raise AssertionError(f"step {step}: {nb_output!r} != {gym_output!r}") from e
        assert_data_equal(without_times(wrapper_state(envs[1])), without_times(wrapper_state(envs[0])))


# --- statistics wrappers on the compiled CartPole ---
STATISTICS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "episode_statistics": lambda lib, env: lib.wrappers.vector.RecordEpisodeStatistics(env, buffer_length=7),
    "normalize_observation": lambda lib, env: lib.wrappers.vector.NormalizeObservation(env),
    "normalize_reward": lambda lib, env: lib.wrappers.vector.NormalizeReward(env, gamma=0.95),
    "benchmark_stack": lambda lib, env: lib.wrappers.vector.NormalizeReward(
        lib.wrappers.vector.NormalizeObservation(lib.wrappers.vector.RecordEpisodeStatistics(env))
    ),
    "stats_key": lambda lib, env: lib.wrappers.vector.RecordEpisodeStatistics(
        lib.wrappers.vector.NormalizeReward(env, gamma=1, epsilon=1e-3), buffer_length=None, stats_key="stats"
    ),
}
SUPPORTED_MODES = {"normalize_observation": ("NextStep",), "benchmark_stack": ("NextStep",)}


@pytest.mark.parametrize(
    ("case", "mode"), [(case, mode) for case in sorted(STATISTICS) for mode in SUPPORTED_MODES.get(case, MODES)]
)
@pytest.mark.parametrize("num_envs", [1, 8, 150])
def test_statistics_wrappers_on_compiled_cartpole(case: str, mode: str, num_envs: int) -> None:
    """In every autoreset mode the wrapper accepts (the others: test_refused_autoreset_modes)."""
    steps = 100 if num_envs < 150 else 25
    compare_rollouts(lambda lib: STATISTICS[case](lib, cartpole_vec(lib, num_envs, mode)), SEEDS[:2], steps, mode)


@pytest.mark.parametrize(
    ("obs", "num_envs"),
    [(obs, 3) for obs in ("box", "box1", "scalar", "box2d", "box64", "box_int")]
    + [(obs, 137) for obs in ("box", "box1", "scalar")],
)
def test_normalize_observation_on_every_layout(obs: str, num_envs: int) -> None:
    """Observation shapes ``()``/``(1,)`` (pairwise sums, split in halves above 128 sub-environments),
    ``(k,)``/``(2, 3)`` (row by row), float64 and integer observations (numpy's own path)."""
    compare_rollouts(
        lambda lib: lib.wrappers.vector.NormalizeReward(
            lib.wrappers.vector.NormalizeObservation(space_vec(lib, num_envs, obs=obs), epsilon=1e-6)
        ),
        SEEDS[2:4],
        12,
        "NextStep",
    )


@pytest.mark.parametrize("mode", MODES)
def test_statistics_on_sync_vector_env(mode: str) -> None:
    """The statistics wrappers over a Python sync vector env, with random returns and episode ends."""
    stack = lambda lib: lib.wrappers.vector.RecordEpisodeStatistics(  # noqa: E731
        lib.wrappers.vector.NormalizeReward(space_vec(lib, 5, mode, end_probability=0.2)), buffer_length=4
    )
    compare_rollouts(stack, SEEDS, 40, mode)


def test_frozen_statistics() -> None:
    stacks = [
        lib.wrappers.vector.NormalizeReward(lib.wrappers.vector.NormalizeObservation(cartpole_vec(lib, 6)))
        for lib in LIBS
    ]
    actions = [np.random.default_rng(i).integers(0, 2, 6) for i in range(60)]
    for envs in stacks:
        vector_rollout(envs, 3, actions[:30], "NextStep")
        envs.update_running_mean = False
        envs.env.update_running_mean = False
        assert not envs.update_running_mean and not envs.env.update_running_mean
    outputs = [vector_rollout(envs, 4, actions[30:], "NextStep") for envs in stacks]
    assert_data_equal(outputs[1], outputs[0])
    assert_data_equal(wrapper_state(stacks[1]), wrapper_state(stacks[0]))


def test_normalize_reward_normalize_method() -> None:
    results = []
    for lib in LIBS:
        envs = lib.wrappers.vector.NormalizeReward(cartpole_vec(lib, 4))
        vector_rollout(envs, 0, [np.ones(4, dtype=np.int64)] * 5, "NextStep")
        results.append((envs.normalize(2.0), wrapper_state(envs)))
    assert_data_equal(results[1], results[0])


def test_statistics_kernels_match_numpy_on_unusual_inputs() -> None:
    """numpy scalars as epsilon/gamma (which change numpy's dtypes) take numpy's own path, exactly."""
    stacks = [
        lib.wrappers.vector.NormalizeReward(
            lib.wrappers.vector.NormalizeObservation(cartpole_vec(lib, 5), epsilon=np.float64(1e-5)),
            gamma=np.float32(0.9),
        )
        for lib in LIBS
    ]
    actions = [np.random.default_rng(i).integers(0, 2, 5) for i in range(40)]
    outputs = [vector_rollout(envs, 1, actions, "NextStep") for envs in stacks]
    assert_data_equal(outputs[1], outputs[0])
    assert_data_equal(wrapper_state(stacks[1]), wrapper_state(stacks[0]))


# --- transform wrappers ---
TRANSFORMS: dict[str, Callable[[ModuleType], Any]] = {
    "transform_observation": lambda lib: lib.wrappers.vector.TransformObservation(
        cartpole_vec(lib, 4), lambda obs: obs - obs.mean(axis=0)
    ),
    "transform_observation_single_space": lambda lib: lib.wrappers.vector.TransformObservation(
        cartpole_vec(lib, 4), lambda obs: obs[:, :2] * 2, single_observation_space=lib.spaces.Box(-9.0, 9.0, (2,))
    ),
    "vectorize_transform_observation": lambda lib: lib.wrappers.vector.VectorizeTransformObservation(
        space_vec(lib, 3, obs="tuple"),
        lib.wrappers.TransformObservation,
        func=lambda obs: obs[0] * 2,
        observation_space=lib.spaces.Box(0, 10, (2,), np.int32),
    ),
    "filter_dict": lambda lib: lib.wrappers.vector.FilterObservation(
        space_vec(lib, 3, obs="dict"), ["position", "gear"]
    ),
    "filter_tuple": lambda lib: lib.wrappers.vector.FilterObservation(space_vec(lib, 3, obs="tuple"), [2, -3]),
    "flatten_cartpole": lambda lib: lib.wrappers.vector.FlattenObservation(cartpole_vec(lib, 4)),
    "flatten_box2d": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="box2d")),
    "flatten_dict": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="dict")),
    "flatten_tuple": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="tuple")),
    "flatten_discrete": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="discrete")),
    "flatten_multidiscrete": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="multidiscrete")),
    "flatten_multibinary": lambda lib: lib.wrappers.vector.FlattenObservation(space_vec(lib, 3, obs="multibinary")),
    "grayscale": lambda lib: lib.wrappers.vector.GrayscaleObservation(space_vec(lib, 3, obs="image")),
    "grayscale_keep_dim": lambda lib: lib.wrappers.vector.GrayscaleObservation(
        space_vec(lib, 3, obs="image"), keep_dim=True
    ),
    "resize": lambda lib: lib.wrappers.vector.ResizeObservation(space_vec(lib, 3, obs="image"), (7, 5)),
    "reshape": lambda lib: lib.wrappers.vector.ReshapeObservation(cartpole_vec(lib, 4), (2, 2)),
    "reshape_box2d": lambda lib: lib.wrappers.vector.ReshapeObservation(space_vec(lib, 3, obs="box2d"), (3, 1, 2)),
    "rescale_observation": lambda lib: lib.wrappers.vector.RescaleObservation(space_vec(lib, 3, obs="box"), -1.0, 1.0),
    "rescale_observation_arrays": lambda lib: lib.wrappers.vector.RescaleObservation(
        space_vec(lib, 3, obs="box64"), np.array([-3.0, 0.0, -np.inf]), np.array([0.5, 1.0, np.inf])
    ),
    "dtype_cartpole": lambda lib: lib.wrappers.vector.DtypeObservation(cartpole_vec(lib, 4), np.float64),
    "dtype_same": lambda lib: lib.wrappers.vector.DtypeObservation(cartpole_vec(lib, 4), np.float32),
    "dtype_discrete": lambda lib: lib.wrappers.vector.DtypeObservation(space_vec(lib, 3, obs="discrete"), np.float32),
    "dtype_box_int": lambda lib: lib.wrappers.vector.DtypeObservation(space_vec(lib, 3, obs="box_int"), np.uint8),
    "dtype_multidiscrete": lambda lib: lib.wrappers.vector.DtypeObservation(
        space_vec(lib, 3, obs="multidiscrete"), np.int16
    ),
    "transform_action": lambda lib: lib.wrappers.vector.TransformAction(
        cartpole_vec(lib, 4), lambda actions: 1 - actions
    ),
    "vectorize_transform_action": lambda lib: lib.wrappers.vector.VectorizeTransformAction(
        space_vec(lib, 3, act="box"),
        lib.wrappers.TransformAction,
        func=lambda action: action * 0.5,
        action_space=lib.spaces.Box(-4.0, 6.0, (3,), np.float32),
    ),
    "clip_action": lambda lib: lib.wrappers.vector.ClipAction(space_vec(lib, 3, act="box")),
    "clip_action_float64": lambda lib: lib.wrappers.vector.ClipAction(space_vec(lib, 3, act="box64")),
    "rescale_action": lambda lib: lib.wrappers.vector.RescaleAction(space_vec(lib, 3, act="box"), -1.0, 1.0),
    "rescale_action_arrays": lambda lib: lib.wrappers.vector.RescaleAction(
        space_vec(lib, 3, act="box64"), np.array([0.0, -1.0, -np.inf]), np.array([1.0, 1.0, np.inf])
    ),
    "clip_action_pendulum": lambda lib: lib.wrappers.vector.ClipAction(pendulum_vec(lib, 4)),
    "rescale_action_pendulum": lambda lib: lib.wrappers.vector.RescaleAction(pendulum_vec(lib, 4), 0.0, 1.0),
    "normalize_pendulum": lambda lib: lib.wrappers.vector.NormalizeReward(
        lib.wrappers.vector.NormalizeObservation(lib.wrappers.vector.ClipAction(pendulum_vec(lib, 5))), gamma=0.9
    ),
    "rescale_action_same_space": lambda lib: lib.wrappers.vector.RescaleAction(space_vec(lib, 3, act="box"), -2.0, 3.0),
    "transform_reward": lambda lib: lib.wrappers.vector.TransformReward(space_vec(lib, 3), lambda r: np.tanh(r)),
    "vectorize_transform_reward": lambda lib: lib.wrappers.vector.VectorizeTransformReward(
        space_vec(lib, 3), lib.wrappers.TransformReward, func=lambda r: r * r
    ),
    "clip_reward": lambda lib: lib.wrappers.vector.ClipReward(space_vec(lib, 3), -1.0, 0.5),
    "clip_reward_max_only": lambda lib: lib.wrappers.vector.ClipReward(cartpole_vec(lib, 4), max_reward=0.25),
}


@pytest.mark.parametrize("case", sorted(TRANSFORMS))
def test_transform_wrappers_match_gymnasium(case: str) -> None:
    if case == "resize" and not HAS_CV2:
        pytest.skip("ResizeObservation needs opencv, as gymnasium's does")
    gym_envs, nb_envs = (TRANSFORMS[case](lib) for lib in LIBS)
    for attribute in ("observation_space", "single_observation_space", "action_space", "single_action_space"):
        assert_spaces_equal(getattr(nb_envs, attribute), getattr(gym_envs, attribute))
    compare_rollouts(TRANSFORMS[case], SEEDS[:3], 25, "NextStep")


BATCHED = [
    "filter_dict",
    "filter_tuple",
    "flatten_cartpole",
    "flatten_box2d",
    "flatten_dict",
    "flatten_tuple",
    "flatten_discrete",
    "flatten_multidiscrete",
    "flatten_multibinary",
    "grayscale",
    "grayscale_keep_dim",
    "reshape",
    "reshape_box2d",
    "rescale_observation",
    "rescale_observation_arrays",
    "dtype_cartpole",
    "dtype_discrete",
    "clip_action",
    "rescale_action_arrays",
    "clip_reward",
]


@pytest.mark.parametrize("case", BATCHED)
def test_named_wrappers_transform_whole_batches(case: str) -> None:
    """The named wrappers call the single-environment function at most once per batch, never once per
    sub-environment (the per-environment form of gymnasium's wrappers)."""
    envs, reference = TRANSFORMS[case](nbgym), TRANSFORMS[case](nbgym)
    calls = []
    func = envs.wrapper.func
    envs.wrapper.func = lambda *args: calls.append(args) or func(*args)
    actions = reference.action_space.sample()
    assert_same(envs.reset(seed=5), reference.reset(seed=5))
    assert_same(envs.step(actions.copy()), reference.step(actions.copy()))
    assert len(calls) <= 2 < envs.num_envs


def test_same_space_results_are_written_in_place() -> None:
    """As in gymnasium, a transformation that keeps the space writes into the array it transforms."""
    for lib in LIBS:
        envs = lib.wrappers.vector.FlattenObservation(cartpole_vec(lib, 3))
        assert envs.same_out
        raw = lib.wrappers.vector.TransformObservation(cartpole_vec(lib, 3), lambda obs: obs)
        wrapped = lib.wrappers.vector.FlattenObservation(raw)
        seen = []
        raw.func = lambda obs: seen.append(obs) or obs
        obs, _ = wrapped.reset(seed=1)
        assert obs is seen[0]
        actions = np.array([0.5, -1.5, 0.0], dtype=np.float32)
        clip_envs = lib.wrappers.vector.RescaleAction(space_vec(lib, 3, act="box"), -2.0, 3.0)
        assert clip_envs.same_out
        clip_envs.reset(seed=0)
        batch = np.stack([actions] * 3)
        assert clip_envs.actions(batch) is batch


# --- refused modes and argument errors: gymnasium's exception types and messages ---
def refused(lib: ModuleType, build: Callable[[ModuleType, Any], Any], mode: str) -> Any:
    return build(lib, cartpole_vec(lib, 2, mode))


@pytest.mark.parametrize(
    ("case", "mode"),
    [
        ("normalize_observation", "SameStep"),
        ("normalize_observation", "Disabled"),
        ("transform_observation", "SameStep"),
        ("flatten", "SameStep"),
    ],
)
def test_refused_autoreset_modes(case: str, mode: str) -> None:
    builders = {
        "normalize_observation": lambda lib, env: lib.wrappers.vector.NormalizeObservation(env),
        "transform_observation": lambda lib, env: lib.wrappers.vector.TransformObservation(env, lambda obs: obs),
        "flatten": lambda lib, env: lib.wrappers.vector.FlattenObservation(env),
    }
    gym_outcome, nb_outcome = (outcome(lambda lib=lib: refused(lib, builders[case], mode)) for lib in LIBS)
    assert gym_outcome[0] is not None
    assert nb_outcome[0][0] == gym_outcome[0][0]
    assert nb_outcome[0][1].split(",")[0] == gym_outcome[0][1].split(",")[0]


class _Metadata:
    """Builds a vector env of each library whose metadata lacks ``autoreset_mode`` or has a bad one."""

    @staticmethod
    def env(lib: ModuleType, autoreset_mode: Any) -> Any:
        envs = lib.wrappers.vector.TransformReward(cartpole_vec(lib, 2), lambda r: r)
        metadata = dict(envs.env.metadata)
        if autoreset_mode is None:
            metadata.pop("autoreset_mode")
        else:
            metadata["autoreset_mode"] = autoreset_mode
        envs.metadata = metadata
        return envs


VECTOR_ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "episode_statistics_bad_mode": lambda lib: lib.wrappers.vector.RecordEpisodeStatistics(
        _Metadata.env(lib, "NextStep")
    ),
    "vectorize_bad_mode": lambda lib: lib.wrappers.vector.FlattenObservation(_Metadata.env(lib, 1)),
    "normalize_observation_partial_reset": lambda lib: lib.wrappers.vector.NormalizeObservation(
        cartpole_vec(lib, 3)
    ).reset(options={"reset_mask": np.array([True, False, True])}),
    "normalize_observation_epsilon": lambda lib: lib.wrappers.vector.NormalizeObservation(
        cartpole_vec(lib, 2), epsilon=0.0
    ),
    "normalize_reward_gamma": lambda lib: lib.wrappers.vector.NormalizeReward(cartpole_vec(lib, 2), gamma=-0.5),
    "normalize_reward_epsilon": lambda lib: lib.wrappers.vector.NormalizeReward(cartpole_vec(lib, 2), epsilon=-1),
    "rescale_action_min_above_max": lambda lib: lib.wrappers.vector.RescaleAction(space_vec(lib, 2), 1.0, -1.0),
    "rescale_action_discrete": lambda lib: lib.wrappers.vector.RescaleAction(cartpole_vec(lib, 2), 0.0, 1.0),
    "clip_action_discrete": lambda lib: lib.wrappers.vector.ClipAction(cartpole_vec(lib, 2)),
    "filter_unknown_keys": lambda lib: lib.wrappers.vector.FilterObservation(space_vec(lib, 2, obs="dict"), ["x"]),
    "filter_box": lambda lib: lib.wrappers.vector.FilterObservation(cartpole_vec(lib, 2), [0]),
    "reshape_wrong_size": lambda lib: lib.wrappers.vector.ReshapeObservation(cartpole_vec(lib, 2), (5,)),
    "dtype_dict": lambda lib: lib.wrappers.vector.DtypeObservation(space_vec(lib, 2, obs="dict"), np.float32),
    "grayscale_box": lambda lib: lib.wrappers.vector.GrayscaleObservation(cartpole_vec(lib, 2)),
    "clip_reward_no_bounds": lambda lib: lib.wrappers.vector.ClipReward(cartpole_vec(lib, 2)),
    "clip_reward_min_above_max": lambda lib: lib.wrappers.vector.ClipReward(cartpole_vec(lib, 2), 2.0, 1.0),
    "clip_reward_array_bounds": lambda lib: step_once(
        lib.wrappers.vector.ClipReward(space_vec(lib, 1), np.array([-1.0]), np.array([0.5]))
    ),
}


def step_once(envs: Any) -> Any:
    envs.reset(seed=0)
    return envs.step(envs.action_space.sample())


@pytest.mark.parametrize("case", sorted(VECTOR_ERRORS))
def test_vector_argument_errors_match_gymnasium(case: str) -> None:
    gym_outcome, nb_outcome = (outcome(lambda lib=lib: VECTOR_ERRORS[case](lib)) for lib in LIBS)
    assert gym_outcome[0] is not None, "gymnasium accepted the arguments: the case tests nothing"
    if case == "clip_reward_array_bounds":
        # Same type; nbgym says what to do instead of numpy's "setting an array element with a sequence".
        assert nb_outcome[0][0] == gym_outcome[0][0] and "TransformReward" in nb_outcome[0][1]
    else:
        assert nb_outcome[0] == gym_outcome[0]


def test_missing_autoreset_mode_warns_and_assumes_next_step() -> None:
    results = []
    for lib in LIBS:
        results.append(outcome(lambda lib=lib: lib.wrappers.vector.RecordEpisodeStatistics(_Metadata.env(lib, None))))
        results.append(outcome(lambda lib=lib: lib.wrappers.vector.NormalizeObservation(_Metadata.env(lib, None))))
    for gym_result, nb_result in ((results[0], results[2]), (results[1], results[3])):
        assert gym_result[0] is None and nb_result[0] is None
        assert [kind for kind, _ in nb_result[1]] == [kind for kind, _ in gym_result[1]] and nb_result[1]


def test_episode_statistics_key_collision() -> None:
    results = []
    for lib in LIBS:
        envs = lib.wrappers.vector.RecordEpisodeStatistics(
            lib.wrappers.vector.RecordEpisodeStatistics(cartpole_vec(lib, 2))
        )
        envs.reset(seed=0)
        results.append(outcome(lambda envs=envs: [envs.step(np.ones(2, dtype=np.int64)) for _ in range(30)]))
    assert results[0][0] is not None and results[0][0][0] == "ValueError"
    assert results[1][0][0] == results[0][0][0]


def test_vector_wrappers_are_listed_in_the_package() -> None:
    skipped = {"ArrayConversion", "JaxToNumpy", "JaxToTorch", "NumpyToTorch"}
    for name in sorted(set(gymnasium.wrappers.vector.__all__) - skipped):
        assert name in nbgym.wrappers.vector.__all__, name
        assert getattr(nbgym.wrappers.vector, name).__name__ == name


# --- the compiled statistics against numpy itself ---
@st.composite
def float_batches(draw: st.DrawFn) -> np.ndarray:
    """Random 2-D float batches: both dtypes, sizes around numpy's 8/128 pairwise blocks, wide magnitudes,
    and now and then signed zeros, infinities or NaNs."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    n = draw(st.one_of(st.integers(1, 20), st.integers(120, 140), st.integers(250, 1100)))
    k = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.standard_normal((n, k)) * 10.0 ** rng.uniform(-4, 4, (n, k))
    special = draw(st.sampled_from([None, -0.0, np.inf, np.nan]))
    if special is not None:
        values[rng.integers(0, n, size=max(1, n // 50)), rng.integers(0, k)] = special
    return values.astype(dtype)


@settings(max_examples=50, deadline=None)
@given(float_batches())
def test_column_moments_are_numpys(batch: np.ndarray) -> None:
    from nbgym.wrappers.vector import _kernels

    mean, var = _kernels.column_moments(batch)
    with np.errstate(invalid="ignore"):
        expected = (np.mean(batch, axis=0), np.var(batch, axis=0))
    assert_data_equal((mean, var), expected)
    column = np.ascontiguousarray(batch[:, 0])
    assert_data_equal(column.dtype.type(0) + _kernels.pairwise_sum(column, 0, column.size), np.add.reduce(column))
