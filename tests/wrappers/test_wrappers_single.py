"""Differential tests of nbgym's single-environment wrappers against gymnasium 1.4.0.

Every case builds the same wrapper stack in both libraries over the same environment (nbgym's compiled
CartPole against gymnasium's, or one custom environment class written once for both), then runs the
same seeds and actions through both and compares every output exactly (types, dtypes, values), the
spaces, the wrappers' state (running statistics, queues, sticky-action counters) and the environment's
random stream afterwards.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import gymnasium
import numpy as np
import pytest
from helpers.core_test_envs import assert_data_equal, outcome
from helpers.common import LIBS, SEEDS
from helpers.wrappers_test_envs import (
    HAS_CV2,
    assert_outputs_equal,
    assert_spaces_equal,
    make_env,
    rollout,
    sample_actions,
)

import nbgym

# gymnasium's wrappers build Boxes of float64 bounds for float32 spaces, and so warn that the bounds lose
# precision; both libraries warn alike (the spaces tests check the warning itself).
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*Box (low|high)'s precision lowered by casting:UserWarning"),
    # DtypeObservation to float64 of a box whose bounds overflow float32's range: both Box constructors cast.
    pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning"),
]

needs_cv2 = pytest.mark.skipif(not HAS_CV2, reason="ResizeObservation needs opencv, as gymnasium's does")


def limited(lib: ModuleType, steps: int = 30, **kwargs: Any) -> Any:
    """A space environment under a TimeLimit, so that TimeAwareObservation finds a step limit."""
    return lib.wrappers.TimeLimit(make_env(lib, **kwargs), max_episode_steps=steps)


# Wrapper stacks: name -> builder of the stack in a library.
CASES: dict[str, Callable[[ModuleType], Any]] = {
    # --- transform_observation ---
    "transform_observation": lambda lib: lib.wrappers.TransformObservation(
        make_env(lib, obs="box"), lambda obs: obs * 2 + 1, lib.spaces.Box(-3.0, 7.0, (3,), np.float32)
    ),
    "transform_observation_same_space": lambda lib: lib.wrappers.TransformObservation(
        lib.make("CartPole-v1"), lambda obs: obs[::-1].copy(), None
    ),
    "filter_dict": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="dict"), ["gear", "position"]),
    "filter_tuple": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), [2, 0]),
    "filter_tuple_negative": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), [-1, 1]),
    "flatten_box2d": lambda lib: lib.wrappers.FlattenObservation(make_env(lib, obs="box2d")),
    "flatten_dict": lambda lib: lib.wrappers.FlattenObservation(make_env(lib, obs="dict")),
    "flatten_tuple": lambda lib: lib.wrappers.FlattenObservation(make_env(lib, obs="tuple")),
    "flatten_discrete": lambda lib: lib.wrappers.FlattenObservation(make_env(lib, obs="discrete")),
    "flatten_multidiscrete": lambda lib: lib.wrappers.FlattenObservation(make_env(lib, obs="multidiscrete")),
    "flatten_cartpole": lambda lib: lib.wrappers.FlattenObservation(lib.make("CartPole-v1")),
    "grayscale": lambda lib: lib.wrappers.GrayscaleObservation(make_env(lib, obs="image")),
    "grayscale_keep_dim": lambda lib: lib.wrappers.GrayscaleObservation(make_env(lib, obs="image"), keep_dim=True),
    "reshape": lambda lib: lib.wrappers.ReshapeObservation(make_env(lib, obs="box2d"), (3, 2)),
    "reshape_flat": lambda lib: lib.wrappers.ReshapeObservation(lib.make("CartPole-v1"), (2, 1, 2)),
    "rescale_observation": lambda lib: lib.wrappers.RescaleObservation(make_env(lib, obs="box"), 0.0, 1.0),
    "rescale_observation_arrays": lambda lib: lib.wrappers.RescaleObservation(
        make_env(lib, obs="box64"), np.array([-3.0, 0.0, -np.inf]), np.array([0.5, 1.0, np.inf])
    ),
    "rescale_observation_ints": lambda lib: lib.wrappers.RescaleObservation(
        make_env(lib, obs="box"), np.int64(-1), np.int64(2)
    ),
    "dtype_box": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="box"), np.float64),
    "dtype_box_int": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="box_int"), "float32"),
    "dtype_discrete": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="discrete"), np.float32),
    "dtype_multidiscrete": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="multidiscrete"), np.int32),
    "dtype_multibinary": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="multibinary"), np.float32),
    "discretize_observation": lambda lib: lib.wrappers.DiscretizeObservation(make_env(lib, obs="box"), bins=4),
    "discretize_observation_bins": lambda lib: lib.wrappers.DiscretizeObservation(
        make_env(lib, obs="box2d"), bins=(2, 3, 4, 2, 5, 3)
    ),
    "discretize_observation_multi": lambda lib: lib.wrappers.DiscretizeObservation(
        make_env(lib, obs="box"), bins=(3, 5, 2), multidiscrete=True
    ),
    "resize_down": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="image"), (5, 4)),
    "resize_up": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="image"), (25, 17)),
    "resize_gray": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="gray_image"), (6, 5)),
    # --- transform_action ---
    "transform_action": lambda lib: lib.wrappers.TransformAction(
        make_env(lib, act="box"), lambda action: action[::-1] * 0.5, lib.spaces.Box(-4.0, 6.0, (3,), np.float32)
    ),
    "clip_action": lambda lib: lib.wrappers.ClipAction(make_env(lib, act="box")),
    "clip_action_float64": lambda lib: lib.wrappers.ClipAction(make_env(lib, act="box64")),
    "rescale_action": lambda lib: lib.wrappers.RescaleAction(make_env(lib, act="box"), -1.0, 1.0),
    "rescale_action_arrays": lambda lib: lib.wrappers.RescaleAction(
        make_env(lib, act="box64"), np.array([0.0, -1.0, -np.inf]), np.array([1.0, 1.0, np.inf])
    ),
    "discretize_action": lambda lib: lib.wrappers.DiscretizeAction(make_env(lib, act="box"), bins=5),
    "discretize_action_multi": lambda lib: lib.wrappers.DiscretizeAction(
        make_env(lib, act="box2d"), bins=(2, 3, 4, 5, 2, 3), multidiscrete=True
    ),
    "sticky_action": lambda lib: lib.wrappers.StickyAction(make_env(lib, act="discrete"), 0.4),
    "sticky_action_range": lambda lib: lib.wrappers.StickyAction(make_env(lib, act="box"), 0.3, (1, 4)),
    "sticky_action_cartpole": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.5, (2, 3)),
    "repeat_action": lambda lib: lib.wrappers.RepeatAction(make_env(lib), 3),
    "repeat_action_cartpole": lambda lib: lib.wrappers.RepeatAction(lib.make("CartPole-v1"), 2),
    # --- transform_reward / stateful_reward ---
    "transform_reward": lambda lib: lib.wrappers.TransformReward(make_env(lib), lambda r: r * 0.5 - 1),
    "clip_reward": lambda lib: lib.wrappers.ClipReward(make_env(lib), -1.0, 2.0),
    "clip_reward_min_only": lambda lib: lib.wrappers.ClipReward(make_env(lib), min_reward=0.0),
    "clip_reward_cartpole": lambda lib: lib.wrappers.ClipReward(lib.make("CartPole-v1"), max_reward=0.25),
    "normalize_reward": lambda lib: lib.wrappers.NormalizeReward(make_env(lib), gamma=0.9),
    "normalize_reward_cartpole": lambda lib: lib.wrappers.NormalizeReward(lib.make("CartPole-v1")),
    # --- stateful_observation ---
    "delay": lambda lib: lib.wrappers.DelayObservation(make_env(lib, obs="dict"), 2),
    "delay_zero": lambda lib: lib.wrappers.DelayObservation(lib.make("CartPole-v1"), 0),
    "delay_cartpole": lambda lib: lib.wrappers.DelayObservation(lib.make("CartPole-v1"), 3),
    "time_aware": lambda lib: lib.wrappers.TimeAwareObservation(lib.make("CartPole-v1")),
    "time_aware_normalized": lambda lib: lib.wrappers.TimeAwareObservation(
        lib.make("CartPole-v1"), normalize_time=True
    ),
    "time_aware_dict": lambda lib: lib.wrappers.TimeAwareObservation(
        limited(lib, obs="dict"), flatten=False, dict_time_key="t"
    ),
    "time_aware_tuple": lambda lib: lib.wrappers.TimeAwareObservation(limited(lib, obs="tuple"), flatten=False),
    "time_aware_flat_tuple": lambda lib: lib.wrappers.TimeAwareObservation(limited(lib, obs="tuple")),
    "time_aware_box": lambda lib: lib.wrappers.TimeAwareObservation(
        limited(lib, obs="box2d"), flatten=False, normalize_time=True
    ),
    "frame_stack": lambda lib: lib.wrappers.FrameStackObservation(lib.make("CartPole-v1"), 4),
    "frame_stack_zero": lambda lib: lib.wrappers.FrameStackObservation(
        make_env(lib, obs="dict"), 3, padding_type="zero"
    ),
    "frame_stack_custom": lambda lib: lib.wrappers.FrameStackObservation(
        make_env(lib, obs="box"), 2, padding_type=np.full(3, -1.5, dtype=np.float32)
    ),
    "frame_stack_one": lambda lib: lib.wrappers.FrameStackObservation(make_env(lib, obs="tuple"), 1),
    "normalize_observation": lambda lib: lib.wrappers.NormalizeObservation(lib.make("CartPole-v1")),
    "normalize_observation_float64": lambda lib: lib.wrappers.NormalizeObservation(
        make_env(lib, obs="box64"), epsilon=1e-4
    ),
    "normalize_observation_int": lambda lib: lib.wrappers.NormalizeObservation(make_env(lib, obs="box_int")),
    "max_and_skip": lambda lib: lib.wrappers.MaxAndSkipObservation(make_env(lib, obs="image"), skip=3),
    "max_and_skip_cartpole": lambda lib: lib.wrappers.MaxAndSkipObservation(lib.make("CartPole-v1")),
    # --- Pendulum (continuous actions on the compiled engine) ---
    "clip_action_pendulum": lambda lib: lib.wrappers.ClipAction(lib.make("Pendulum-v1")),
    "rescale_action_pendulum": lambda lib: lib.wrappers.RescaleAction(lib.make("Pendulum-v1"), -1.0, 1.0),
    "discretize_action_pendulum": lambda lib: lib.wrappers.DiscretizeAction(lib.make("Pendulum-v1"), bins=7),
    "sticky_action_pendulum": lambda lib: lib.wrappers.StickyAction(lib.make("Pendulum-v1"), 0.5, (1, 3)),
    "normalize_pendulum": lambda lib: lib.wrappers.NormalizeReward(
        lib.wrappers.NormalizeObservation(lib.wrappers.ClipAction(lib.make("Pendulum-v1"))), gamma=0.9
    ),
    "time_aware_pendulum": lambda lib: lib.wrappers.TimeAwareObservation(lib.make("Pendulum-v1"), normalize_time=True),
    "frame_stack_pendulum": lambda lib: lib.wrappers.FrameStackObservation(lib.make("Pendulum-v1"), 3),
    # --- stacks ---
    "normalize_stack_cartpole": lambda lib: lib.wrappers.NormalizeReward(
        lib.wrappers.NormalizeObservation(lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.25, (1, 2)))
    ),
    "image_stack": lambda lib: lib.wrappers.FrameStackObservation(
        lib.wrappers.GrayscaleObservation(
            lib.wrappers.MaxAndSkipObservation(make_env(lib, obs="image", act="discrete"), skip=2), keep_dim=True
        ),
        3,
    ),
}

NEEDS_CV2 = {"resize_down", "resize_up", "resize_gray"}
STEPS = 70


def build(lib: ModuleType, case: str) -> Any:
    return CASES[case](lib)


def wrapper_state(env: Any) -> dict[str, Any]:
    """The state of every stateful wrapper in ``env``'s stack, and the environment's random stream."""
    state: dict[str, Any] = {"rng": env.np_random.bit_generator.state}
    layer = env
    while hasattr(layer, "env"):
        name = type(layer).__name__
        if hasattr(layer, "obs_rms"):
            state[f"{name}.obs_rms"] = (layer.obs_rms.mean, layer.obs_rms.var, layer.obs_rms.count)
        if hasattr(layer, "return_rms"):
            state[f"{name}.return_rms"] = (layer.return_rms.mean, layer.return_rms.var, layer.return_rms.count)
            state[f"{name}.discounted_reward"] = layer.discounted_reward
        if name == "StickyAction":
            state[name] = (layer.last_action, layer.is_sticky_actions, layer.num_repeats, layer.repeats_taken)
        if name == "DelayObservation":
            state[name] = list(layer.observation_queue)
        if name == "TimeAwareObservation":
            state[name] = (layer.timesteps, layer.max_timesteps)
        if name == "FrameStackObservation":
            state[name] = (list(layer.obs_queue), layer.padding_type)
        layer = layer.env
    return state


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrapper_matches_gymnasium(case: str) -> None:
    if case in NEEDS_CV2 and not HAS_CV2:
        pytest.skip("ResizeObservation needs opencv, as gymnasium's does")
    gym_env, nb_env = build(gymnasium, case), build(nbgym, case)
    assert_spaces_equal(nb_env.observation_space, gym_env.observation_space)
    assert_spaces_equal(nb_env.action_space, gym_env.action_space)
    assert str(nb_env).replace("nbgym", "gymnasium") == str(gym_env)

    for seed in SEEDS[:3]:
        actions = sample_actions(gym_env.action_space, seed, STEPS)
        gym_outputs = rollout(gym_env, seed, actions)
        nb_outputs = rollout(nb_env, seed, actions)
        assert_outputs_equal(nb_outputs, gym_outputs)
        assert_data_equal(wrapper_state(nb_env), wrapper_state(gym_env))


@pytest.mark.parametrize("seed", SEEDS)
def test_sticky_action_draws_interleave_with_compiled_cartpole(seed: int) -> None:
    """StickyAction draws from the compiled env's own stream, between the env's reset draws."""
    envs = [lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.6, (1, 5)) for lib in LIBS]
    actions = sample_actions(gymnasium.spaces.Discrete(2), seed, 600)
    outputs = [rollout(env, seed, actions) for env in envs]
    assert_outputs_equal(outputs[1], outputs[0])
    assert envs[1].np_random.bit_generator.state == envs[0].np_random.bit_generator.state
    # A draw made now, after all of those, is the same in both.
    assert envs[1].np_random.random() == envs[0].np_random.random()


def test_normalize_running_statistics_freeze() -> None:
    """With ``update_running_mean = False`` the statistics stop changing, in both libraries alike."""
    envs = [lib.wrappers.NormalizeReward(lib.wrappers.NormalizeObservation(lib.make("CartPole-v1"))) for lib in LIBS]
    actions = sample_actions(gymnasium.spaces.Discrete(2), 5, 40)
    for env in envs:
        rollout(env, 5, actions[:20])
        env.update_running_mean = False
        env.env.update_running_mean = False
        frozen = (env.return_rms.var.copy(), env.env.obs_rms.mean.copy())
        rollout(env, 6, actions[20:])
        assert env.return_rms.var == frozen[0]
        np.testing.assert_array_equal(env.env.obs_rms.mean, frozen[1])
        assert not env.update_running_mean
    assert_data_equal(wrapper_state(envs[1]), wrapper_state(envs[0]))


@pytest.mark.parametrize(
    "case",
    [
        "discretize_action",
        "discretize_action_multi",
        "discretize_observation",
        "discretize_observation_bins",
        "discretize_observation_multi",
    ],
)
def test_revert_discretization(case: str) -> None:
    gym_env, nb_env = build(gymnasium, case), build(nbgym, case)
    if isinstance(gym_env, gymnasium.wrappers.DiscretizeAction):
        for action in sample_actions(gym_env.env.action_space, 0, 20):
            assert_data_equal(nb_env.revert_action(action), gym_env.revert_action(action))
    else:
        for obs in sample_actions(gym_env.observation_space, 0, 20):
            assert_data_equal(nb_env.revert_observation(obs), gym_env.revert_observation(obs))


@pytest.mark.parametrize("wrapper", ["AddWhiteNoise", "ObstructView"])
@pytest.mark.parametrize("grayscale", [False, True])
def test_render_noise_wrappers(wrapper: str, grayscale: bool) -> None:
    """The noisy frames, and the random stream after them, are gymnasium's, on a custom rgb_array env."""
    args = {"AddWhiteNoise": (0.3,), "ObstructView": (0.4, 3)}[wrapper]
    for seed in SEEDS[:3]:
        frames = []
        for lib in LIBS:
            env = getattr(lib.wrappers, wrapper)(
                make_env(lib, obs="box", render_mode="rgb_array"), *args, is_noise_grayscale=grayscale
            )
            env.reset(seed=seed)
            lib_frames = [env.render()]
            for action in sample_actions(gymnasium.spaces.Box(-2.0, 3.0, (3,), np.float32), seed, 5):
                env.step(action)
                lib_frames.append(env.render())
            frames.append((lib_frames, env.np_random.bit_generator.state))
        assert_data_equal(frames[1], frames[0])


def test_obstruct_view_covers_patches() -> None:
    """The patches are cut at the frame's edges, and a wide patch covers everything around its centre."""
    env = nbgym.wrappers.ObstructView(make_env(nbgym, render_mode="rgb_array", frame_shape=(9, 7)), 0.99, 4)
    env.reset(seed=3)
    mask = env._patch_mask(9, 7)
    assert mask.shape == (9, 7) and mask.dtype == np.bool_
    gym_env = gymnasium.wrappers.ObstructView(make_env(gymnasium, render_mode="rgb_array", frame_shape=(9, 7)), 0.99, 4)
    gym_env.reset(seed=3)
    env.reset(seed=3)
    clean = env.env.render()
    np.testing.assert_array_equal(env.render(), gym_env.render())
    assert not np.array_equal(env.render(), clean)


# --- argument errors: the same exception type and message as gymnasium's ---
ERRORS: dict[str, Callable[[ModuleType], Any]] = {
    "rescale_action_min_above_max": lambda lib: lib.wrappers.RescaleAction(make_env(lib), 1.0, -1.0),
    "rescale_action_equal_bounds": lambda lib: lib.wrappers.RescaleAction(make_env(lib), 0.5, 0.5),
    "rescale_action_discrete": lambda lib: lib.wrappers.RescaleAction(lib.make("CartPole-v1"), -1.0, 1.0),
    "rescale_action_bad_type": lambda lib: lib.wrappers.RescaleAction(make_env(lib), "low", 1.0),
    "rescale_action_bad_shape": lambda lib: lib.wrappers.RescaleAction(make_env(lib), np.zeros(2), 1.0),
    "rescale_action_infinite": lambda lib: lib.wrappers.RescaleAction(make_env(lib, act="box64"), -1.0, 1.0),
    "rescale_observation_discrete": lambda lib: lib.wrappers.RescaleObservation(
        make_env(lib, obs="discrete"), 0.0, 1.0
    ),
    "rescale_observation_infinite": lambda lib: lib.wrappers.RescaleObservation(lib.make("CartPole-v1"), 0.0, 1.0),
    "clip_action_discrete": lambda lib: lib.wrappers.ClipAction(lib.make("CartPole-v1")),
    "discretize_action_discrete": lambda lib: lib.wrappers.DiscretizeAction(lib.make("CartPole-v1"), 3),
    "discretize_action_infinite": lambda lib: lib.wrappers.DiscretizeAction(make_env(lib, act="box64"), 3),
    "discretize_action_bins_length": lambda lib: lib.wrappers.DiscretizeAction(make_env(lib), (2, 3)),
    "discretize_observation_infinite": lambda lib: lib.wrappers.DiscretizeObservation(lib.make("CartPole-v1"), 3),
    "discretize_observation_dict": lambda lib: lib.wrappers.DiscretizeObservation(make_env(lib, obs="dict"), 3),
    "discretize_observation_bins_length": lambda lib: lib.wrappers.DiscretizeObservation(make_env(lib), (2,)),
    "frame_stack_zero_size": lambda lib: lib.wrappers.FrameStackObservation(lib.make("CartPole-v1"), 0),
    "frame_stack_float_size": lambda lib: lib.wrappers.FrameStackObservation(lib.make("CartPole-v1"), 2.0),
    "frame_stack_bad_padding_name": lambda lib: lib.wrappers.FrameStackObservation(
        lib.make("CartPole-v1"), 2, padding_type="zeros"
    ),
    "frame_stack_bad_padding_value": lambda lib: lib.wrappers.FrameStackObservation(
        make_env(lib, obs="box"), 2, padding_type=np.full(3, 9.0, dtype=np.float32)
    ),
    "filter_unknown_keys": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="dict"), ["gear", "speed"]),
    "filter_no_keys": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="dict"), []),
    "filter_int_keys_on_dict": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="dict"), [0]),
    "filter_str_keys_on_tuple": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), ["a"]),
    "filter_duplicate_index": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), [1, 1]),
    "filter_index_out_of_range": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), [0, 3]),
    "filter_no_index": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="tuple"), []),
    "filter_not_a_sequence": lambda lib: lib.wrappers.FilterObservation(make_env(lib, obs="dict"), {"gear"}),
    "filter_box": lambda lib: lib.wrappers.FilterObservation(lib.make("CartPole-v1"), [0]),
    "grayscale_box": lambda lib: lib.wrappers.GrayscaleObservation(lib.make("CartPole-v1")),
    "grayscale_discrete": lambda lib: lib.wrappers.GrayscaleObservation(make_env(lib, obs="discrete")),
    "grayscale_not_uint8": lambda lib: lib.wrappers.GrayscaleObservation(
        lib.wrappers.DtypeObservation(make_env(lib, obs="image"), np.float32)
    ),
    "resize_discrete": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="discrete"), (2, 2)),
    "resize_1d": lambda lib: lib.wrappers.ResizeObservation(lib.make("CartPole-v1"), (2, 2)),
    "resize_bounds": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="box2d"), (2, 2)),
    "resize_dtype": lambda lib: lib.wrappers.ResizeObservation(
        lib.wrappers.DtypeObservation(make_env(lib, obs="image"), np.float32), (2, 2)
    ),
    "resize_list_shape": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="image"), [2, 2]),
    "resize_long_shape": lambda lib: lib.wrappers.ResizeObservation(make_env(lib, obs="image"), (2, 2, 2)),
    "reshape_wrong_size": lambda lib: lib.wrappers.ReshapeObservation(lib.make("CartPole-v1"), (3, 2)),
    "reshape_not_tuple": lambda lib: lib.wrappers.ReshapeObservation(lib.make("CartPole-v1"), 4),
    "reshape_negative": lambda lib: lib.wrappers.ReshapeObservation(lib.make("CartPole-v1"), (-2, -2)),
    "reshape_discrete": lambda lib: lib.wrappers.ReshapeObservation(make_env(lib, obs="discrete"), (1,)),
    "dtype_dict": lambda lib: lib.wrappers.DtypeObservation(make_env(lib, obs="dict"), np.float32),
    "sticky_probability": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 1.0),
    "sticky_negative_probability": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), -0.1),
    "sticky_duration_list": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.5, [1, 2]),
    "sticky_duration_triple": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.5, (1, 2, 3)),
    "sticky_duration_reversed": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.5, (3, 1)),
    "sticky_duration_zero": lambda lib: lib.wrappers.StickyAction(lib.make("CartPole-v1"), 0.5, 0),
    "repeat_zero": lambda lib: lib.wrappers.RepeatAction(lib.make("CartPole-v1"), 0),
    "repeat_float": lambda lib: lib.wrappers.RepeatAction(lib.make("CartPole-v1"), 2.0),
    "delay_negative": lambda lib: lib.wrappers.DelayObservation(lib.make("CartPole-v1"), -1),
    "delay_float": lambda lib: lib.wrappers.DelayObservation(lib.make("CartPole-v1"), 1.5),
    "max_and_skip_one": lambda lib: lib.wrappers.MaxAndSkipObservation(lib.make("CartPole-v1"), 1),
    "max_and_skip_float": lambda lib: lib.wrappers.MaxAndSkipObservation(lib.make("CartPole-v1"), 2.5),
    "time_aware_no_limit": lambda lib: lib.wrappers.TimeAwareObservation(make_env(lib)),
    "time_aware_key_taken": lambda lib: lib.wrappers.TimeAwareObservation(
        limited(lib, obs="dict"), dict_time_key="gear"
    ),
    "clip_reward_no_bounds": lambda lib: lib.wrappers.ClipReward(make_env(lib)),
    "clip_reward_min_above_max": lambda lib: lib.wrappers.ClipReward(make_env(lib), 1.0, 0.0),
    "normalize_reward_gamma": lambda lib: lib.wrappers.NormalizeReward(make_env(lib), gamma=1.5),
    "normalize_reward_epsilon": lambda lib: lib.wrappers.NormalizeReward(make_env(lib), epsilon=0.0),
    "normalize_observation_epsilon": lambda lib: lib.wrappers.NormalizeObservation(make_env(lib), epsilon=-1.0),
    "add_white_noise_probability": lambda lib: lib.wrappers.AddWhiteNoise(make_env(lib), 1.0),
    "obstruct_view_ratio": lambda lib: lib.wrappers.ObstructView(make_env(lib), 1.5, 2),
    "obstruct_view_width": lambda lib: lib.wrappers.ObstructView(make_env(lib), 0.5, 0),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_argument_errors_match_gymnasium(case: str) -> None:
    gym_outcome, nb_outcome = (outcome(lambda lib=lib: ERRORS[case](lib)) for lib in LIBS)
    assert gym_outcome[0] is not None, "gymnasium accepted the arguments: the case tests nothing"
    assert nb_outcome == gym_outcome


def test_resize_without_opencv_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_cv2(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "cv2":
            raise ImportError("No module named 'cv2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cv2)
    with pytest.raises(nbgym.error.DependencyNotInstalled, match=r'pip install "nbgym\[other\]"'):
        nbgym.wrappers.ResizeObservation(make_env(nbgym, obs="image"), (4, 4))


@pytest.mark.parametrize(
    "case", ["normalize_stack_cartpole", "sticky_action_cartpole", "frame_stack", "discretize_observation_multi"]
)
def test_spec_records_the_wrapper_arguments(case: str) -> None:
    """``env.spec.additional_wrappers`` names the wrapper and its arguments, as gymnasium's does."""
    gym_env, nb_env = build(gymnasium, case), build(nbgym, case)
    if gym_env.spec is None:
        assert nb_env.spec is None
        return
    gym_wrappers, nb_wrappers = gym_env.spec.additional_wrappers, nb_env.spec.additional_wrappers
    assert [w.name for w in nb_wrappers] == [w.name for w in gym_wrappers]
    assert [w.entry_point.replace("nbgym", "gymnasium") for w in nb_wrappers] == [w.entry_point for w in gym_wrappers]
    for nb_wrapper, gym_wrapper in zip(nb_wrappers, gym_wrappers, strict=True):
        assert_data_equal(nb_wrapper.kwargs, gym_wrapper.kwargs)


def test_wrappers_are_listed_in_the_package() -> None:
    """Every single-env wrapper of gymnasium's that nbgym has is reachable as ``nbgym.wrappers.<Name>``."""
    skipped = {"AtariPreprocessing", "ArrayConversion", "JaxToNumpy", "JaxToTorch", "NumpyToTorch", "vector"}
    for name in sorted(set(gymnasium.wrappers.__all__) - skipped):
        assert name in nbgym.wrappers.__all__, name
        assert getattr(nbgym.wrappers, name).__name__ == name
