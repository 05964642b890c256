"""Differential tests of nbgym.utils.passive_env_checker and nbgym.utils.env_checker against gymnasium 1.4.0.

Each faulty environment is defined once and built in both libraries; the checkers must raise the same
exception types with the same messages and give the same warnings, in the same order.
"""

from __future__ import annotations

import functools
import warnings
from types import ModuleType
from typing import Any, Callable

import gymnasium
import gymnasium.utils.env_checker as gym_checker
import gymnasium.utils.passive_env_checker as gym_passive
import numpy as np
import pytest
from helpers.common import LIBS
from helpers.core_test_envs import grid_world, outcome
from helpers.common import FAST
from hypothesis import given
from hypothesis import strategies as st

import nbgym
import nbgym.utils.env_checker as nb_checker
import nbgym.utils.passive_env_checker as nb_passive


CHECKERS = {gymnasium: (gym_passive, gym_checker), nbgym: (nb_passive, nb_checker)}


def box(low: float = 0.0, high: float = 1.0, shape: tuple[int, ...] = (2,), dtype: Any = np.float32) -> Callable:
    return lambda spaces: spaces.Box(low, high, shape, dtype)


def discrete(n: int = 3) -> Callable:
    return lambda spaces: spaces.Discrete(n)


def obs_in_box(self: Any) -> np.ndarray:
    return self.np_random.uniform(0, 1, 2).astype(np.float32)


@functools.cache
def configurable(lib: ModuleType) -> type:
    """An environment whose spaces, return values and render output are given to its constructor."""

    class ConfigurableEnv(lib.Env):
        def __init__(
            self,
            observation_space: Callable = box(),
            action_space: Callable = discrete(),
            reset_result: Callable = lambda self: (obs_in_box(self), {}),
            step_result: Callable = lambda self: (obs_in_box(self), 1.0, False, False, {}),
            render_result: Callable = lambda self: None,
            metadata: dict | None = None,
            render_mode: str | None = None,
        ):
            self.observation_space = observation_space(lib.spaces)
            self.action_space = action_space(lib.spaces)
            self._reset_result = reset_result
            self._step_result = step_result
            self._render_result = render_result
            if metadata is not None:
                self.metadata = metadata
            self.render_mode = render_mode

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
            super().reset(seed=seed)
            return self._reset_result(self)

        def step(self, action: Any) -> Any:
            return self._step_result(self)

        def render(self) -> Any:
            return self._render_result(self)

    return ConfigurableEnv


def both_outcomes(call: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    """The outcome (exception and warnings) of ``call(lib)`` for gymnasium and for nbgym."""
    return outcome(lambda: call(gymnasium)), outcome(lambda: call(nbgym))


def assert_same_outcome(call: Callable[[ModuleType], Any]) -> tuple[Any, list]:
    gym_outcome, nb_outcome = both_outcomes(call)
    assert nb_outcome == gym_outcome
    return nb_outcome


# --------------------------------------------------------------------------------------------------
# Spaces
# --------------------------------------------------------------------------------------------------

SPACES = {
    "box": box(),
    "box_low_equals_high": box(1.0, 1.0),
    "box_infinite": box(-np.inf, np.inf),
    "box_scalar": box(shape=()),
    "discrete": discrete(),
    "multi_discrete": lambda spaces: spaces.MultiDiscrete([2, 3]),
    "multi_binary": lambda spaces: spaces.MultiBinary(3),
    "tuple": lambda spaces: spaces.Tuple([spaces.Discrete(2), spaces.Box(1, 1, (1,))]),
    "empty_tuple": lambda spaces: spaces.Tuple([]),
    "dict": lambda spaces: spaces.Dict({"a": spaces.Box(2, 2, (1,)), "b": spaces.Discrete(2)}),
    "empty_dict": lambda spaces: spaces.Dict({}),
    "nested_empty": lambda spaces: spaces.Dict({"a": spaces.Tuple([])}),
    "not_a_space": lambda spaces: "box",
    "other_library_space": lambda spaces: (gymnasium if spaces is nbgym.spaces else nbgym).spaces.Discrete(2),
}


@pytest.mark.parametrize("space_name", SPACES)
@pytest.mark.parametrize("kind", ["observation", "action"])
def test_check_space_as_gymnasium(space_name: str, kind: str) -> None:
    def check(lib: ModuleType) -> None:
        passive = CHECKERS[lib][0]
        getattr(passive, f"check_{kind}_space")(SPACES[space_name](lib.spaces))

    raised, _ = assert_same_outcome(check)
    if space_name in ("not_a_space", "other_library_space"):
        assert raised[0] == "TypeError"


@pytest.mark.parametrize("space_name", ["box", "box_low_equals_high", "box_infinite", "tuple", "dict"])
@pytest.mark.parametrize("kind", ["observation", "action"])
def test_check_space_limit_as_gymnasium(space_name: str, kind: str) -> None:
    assert_same_outcome(lambda lib: CHECKERS[lib][1].check_space_limit(SPACES[space_name](lib.spaces), kind))


@pytest.mark.parametrize(
    ("low", "high"), [(-1.0, 1.0), (0.0, 1.0), (-2.0, 2.0), (-1.0, 0.5), (0.5, 1.0), ([-1.0, 0.0], [1.0, 1.0])]
)
def test_action_space_normalisation_warning_as_gymnasium(low: Any, high: Any) -> None:
    def check(lib: ModuleType) -> None:
        shape = None if isinstance(low, list) else (2,)
        space = lib.spaces.Box(np.asarray(low, np.float32), np.asarray(high, np.float32), shape)
        CHECKERS[lib][1].check_space_limit(space, "action")

    assert_same_outcome(check)


# --------------------------------------------------------------------------------------------------
# Observations, reset, step, render
# --------------------------------------------------------------------------------------------------

OBSERVATIONS: dict[str, tuple[Callable, Any]] = {
    "box_ok": (box(), np.array([0.5, 0.5], np.float32)),
    "box_wrong_dtype": (box(), np.array([0.5, 0.5], np.float64)),
    "box_outside": (box(), np.array([2.0, 0.5], np.float32)),
    "box_list": (box(), [0.5, 0.5]),
    "box_wrong_shape": (box(), np.zeros(3, np.float32)),
    "box_scalar_float": (box(shape=()), 0.5),
    "discrete_int": (discrete(), 1),
    "discrete_np_int64": (discrete(), np.int64(1)),
    "discrete_np_int32": (discrete(), np.int32(1)),
    "discrete_float": (discrete(), 1.0),
    "discrete_outside": (discrete(), 5),
    "multi_binary_list": (lambda spaces: spaces.MultiBinary(2), [0, 1]),
    "multi_discrete_array": (lambda spaces: spaces.MultiDiscrete([2, 2]), np.array([1, 1])),
    "tuple_ok": (lambda spaces: spaces.Tuple([spaces.Discrete(2)]), (1,)),
    "tuple_as_list": (lambda spaces: spaces.Tuple([spaces.Discrete(2)]), [1]),
    "tuple_wrong_length": (lambda spaces: spaces.Tuple([spaces.Discrete(2)]), (1, 1)),
    "dict_ok": (lambda spaces: spaces.Dict({"a": spaces.Discrete(2)}), {"a": 1}),
    "dict_not_dict": (lambda spaces: spaces.Dict({"a": spaces.Discrete(2)}), [1]),
    "dict_wrong_keys": (lambda spaces: spaces.Dict({"a": spaces.Discrete(2)}), {"b": 1}),
    "dict_bad_item": (lambda spaces: spaces.Dict({"a": spaces.Discrete(2)}), {"a": 1.5}),
    "text_unhashable": (lambda spaces: spaces.Text(5), ["x"]),
}


@pytest.mark.parametrize("name", OBSERVATIONS)
@pytest.mark.parametrize("method", ["reset", "step"])
def test_check_obs_as_gymnasium(name: str, method: str) -> None:
    space, obs = OBSERVATIONS[name]
    assert_same_outcome(lambda lib: CHECKERS[lib][0].check_obs(obs, space(lib.spaces), method))


RESET_RESULTS: dict[str, Callable] = {
    "ok": lambda self: (obs_in_box(self), {}),
    "not_tuple": lambda self: obs_in_box(self),
    "three_tuple": lambda self: (obs_in_box(self), {}, 1),
    "info_not_dict": lambda self: (obs_in_box(self), []),
    "bad_obs": lambda self: (np.zeros(2, np.float64), {}),
}


@pytest.mark.parametrize("name", RESET_RESULTS)
def test_env_reset_passive_checker_as_gymnasium(name: str) -> None:
    def check(lib: ModuleType) -> None:
        env = configurable(lib)(reset_result=RESET_RESULTS[name])
        CHECKERS[lib][0].env_reset_passive_checker(env, seed=3)

    assert_same_outcome(check)


@functools.cache
def reset_signature_envs(lib: ModuleType) -> dict[str, type]:
    class NoSeedNoOptions(lib.Env):
        observation_space = lib.spaces.Discrete(2)

        def reset(self):
            return 0, {}

    class KwargsOnly(lib.Env):
        observation_space = lib.spaces.Discrete(2)

        def reset(self, **kwargs):
            return 0, {}

    class SeedDefault(lib.Env):
        observation_space = lib.spaces.Discrete(2)

        def reset(self, seed=5, options=None):
            return 0, {}

    class ReturnInfo(lib.Env):
        observation_space = lib.spaces.Discrete(2)

        def reset(self, seed=None, options=None, return_info=False):
            return 0, {}

    return {
        "no_seed_no_options": NoSeedNoOptions,
        "kwargs": KwargsOnly,
        "seed_default": SeedDefault,
        "return_info": ReturnInfo,
    }


@pytest.mark.parametrize("name", ["no_seed_no_options", "kwargs", "seed_default", "return_info"])
def test_reset_signature_checks_as_gymnasium(name: str) -> None:
    def passive(lib: ModuleType) -> None:
        CHECKERS[lib][0].env_reset_passive_checker(reset_signature_envs(lib)[name]())

    def active(lib: ModuleType) -> None:
        env = reset_signature_envs(lib)[name]()
        checker = CHECKERS[lib][1]
        checker.check_reset_return_info_deprecation(env)
        checker.check_reset_options(env)

    def seeding(lib: ModuleType) -> None:
        CHECKERS[lib][1].check_reset_seed_determinism(reset_signature_envs(lib)[name]())

    for call in (passive, active, seeding):
        assert_same_outcome(call)


STEP_RESULTS: dict[str, Callable] = {
    "ok": lambda self: (obs_in_box(self), 1.0, False, False, {}),
    "list": lambda self: [obs_in_box(self), 1.0, False, False, {}],
    "old_api": lambda self: (obs_in_box(self), 1.0, False, {}),
    "old_api_int_done": lambda self: (obs_in_box(self), 1.0, 0, {}),
    "six_tuple": lambda self: (obs_in_box(self), 1.0, False, False, {}, None),
    "int_flags": lambda self: (obs_in_box(self), 1.0, 1, np.int64(0), {}),
    "np_bool_flags": lambda self: (obs_in_box(self), 1.0, np.bool_(True), np.bool_(False), {}),
    "int_reward": lambda self: (obs_in_box(self), 1, False, False, {}),
    "np_float32_reward": lambda self: (obs_in_box(self), np.float32(1.0), False, False, {}),
    "bool_reward": lambda self: (obs_in_box(self), True, False, False, {}),
    "str_reward": lambda self: (obs_in_box(self), "1", False, False, {}),
    "array_reward": lambda self: (obs_in_box(self), np.array([1.0]), False, False, {}),
    "nan_reward": lambda self: (obs_in_box(self), float("nan"), False, False, {}),
    "inf_reward": lambda self: (obs_in_box(self), -np.inf, False, False, {}),
    "info_not_dict": lambda self: (obs_in_box(self), 1.0, False, False, None),
    "bad_obs": lambda self: ([2.0, 0.0], 1.0, False, False, {}),
}


@pytest.mark.parametrize("name", STEP_RESULTS)
def test_env_step_passive_checker_as_gymnasium(name: str) -> None:
    def check(lib: ModuleType) -> None:
        env = configurable(lib)(step_result=STEP_RESULTS[name])
        env.reset(seed=0)
        CHECKERS[lib][0].env_step_passive_checker(env, 0)

    assert_same_outcome(check)


RGB = np.zeros((4, 4, 3), np.uint8)
RENDER_CASES: dict[str, tuple[dict | None, str | None, Any]] = {
    "none": ({"render_modes": []}, None, None),
    "no_render_modes": ({}, None, None),
    "render_modes_not_list": ({"render_modes": "rgb_array", "render_fps": 4}, None, None),
    "render_modes_not_str": ({"render_modes": [1], "render_fps": 4}, None, None),
    "no_fps": ({"render_modes": ["rgb_array"]}, "rgb_array", RGB),
    "fps_str": ({"render_modes": ["rgb_array"], "render_fps": "4"}, "rgb_array", RGB),
    "fps_zero": ({"render_modes": ["rgb_array"], "render_fps": 0}, "rgb_array", RGB),
    "fps_np_float": ({"render_modes": ["rgb_array"], "render_fps": np.float32(2.5)}, "rgb_array", RGB),
    "unsupported_mode": ({"render_modes": ["rgb_array"], "render_fps": 4}, "ansi", "x"),
    "mode_without_modes": ({"render_modes": []}, "ansi", "x"),
    "human_ok": ({"render_modes": ["human"], "render_fps": 4}, "human", None),
    "human_returns": ({"render_modes": ["human"], "render_fps": 4}, "human", RGB),
    "rgb_ok": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", RGB),
    "rgb_list": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", [RGB]),
    "rgb_float": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", RGB.astype(np.float32)),
    "rgb_2d": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", np.zeros((4, 4), np.uint8)),
    "rgb_4_channels": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", np.zeros((4, 4, 4), np.uint8)),
    "rgb_float_2d": ({"render_modes": ["rgb_array"], "render_fps": 4}, "rgb_array", np.zeros((4, 4))),
    "depth_ok": ({"render_modes": ["depth_array"], "render_fps": 4}, "depth_array", np.zeros((4, 4))),
    "depth_3d": ({"render_modes": ["depth_array"], "render_fps": 4}, "depth_array", RGB),
    "depth_list": ({"render_modes": ["depth_array"], "render_fps": 4}, "depth_array", [1]),
    "ansi_ok": ({"render_modes": ["ansi"], "render_fps": 4}, "ansi", "text"),
    "ascii_bytes": ({"render_modes": ["ascii"], "render_fps": 4}, "ascii", b"text"),
    "list_ok": ({"render_modes": ["rgb_array_list"], "render_fps": 4}, "rgb_array_list", [RGB, RGB]),
    "list_not_list": ({"render_modes": ["ansi_list"], "render_fps": 4}, "ansi_list", "text"),
    "list_bad_items": ({"render_modes": ["rgb_array_list"], "render_fps": 4}, "rgb_array_list", [RGB, "x", RGB[0]]),
    "unknown_mode": ({"render_modes": ["custom"], "render_fps": 4}, "custom", 3),
}


@pytest.mark.parametrize("name", RENDER_CASES)
def test_env_render_passive_checker_as_gymnasium(name: str) -> None:
    metadata, render_mode, frame = RENDER_CASES[name]

    def check(lib: ModuleType) -> None:
        env = configurable(lib)(metadata=metadata, render_mode=render_mode, render_result=lambda self: frame)
        assert CHECKERS[lib][0].env_render_passive_checker(env) is frame

    assert_same_outcome(check)


# --------------------------------------------------------------------------------------------------
# Data reuse
# --------------------------------------------------------------------------------------------------

ARRAY = np.arange(6.0)
SHARED_DATA: dict[str, tuple[Any, Any]] = {
    "same_array": (ARRAY, ARRAY),
    "view": (ARRAY, ARRAY[2:]),
    "disjoint_views": (ARRAY[:2], ARRAY[3:]),
    "copies": (ARRAY, ARRAY.copy()),
    "same_dict": ({"a": 1}, None),
    "dict_sharing_item": ({"a": ARRAY, "b": 1}, {"a": ARRAY, "c": ARRAY}),
    "tuples": ((1, ARRAY), (1, ARRAY[::2])),
    "tuples_of_different_length": ((ARRAY,), (ARRAY.copy(), ARRAY)),
    "object_arrays": (np.array([ARRAY, None], dtype=object), np.array([ARRAY, 1], dtype=object)),
    "ints": (1, 1),
    "strings": ("abc", "abc"),
    "lists": ([ARRAY], [ARRAY]),
    "different_types": (ARRAY, [ARRAY]),
}


@pytest.mark.parametrize("name", SHARED_DATA)
def test_data_shares_objects_as_gymnasium(name: str) -> None:
    data_1, data_2 = SHARED_DATA[name]
    if data_2 is None:
        data_2 = data_1
    assert nb_passive.data_shares_objects(data_1, data_2) is gym_passive.data_shares_objects(data_1, data_2)
    assert nb_passive.data_shares_objects(data_2, data_1) is gym_passive.data_shares_objects(data_2, data_1)


@pytest.mark.parametrize("share", [(False, False), (True, False), (False, True), (True, True)])
def test_env_data_reuse_passive_checker_as_gymnasium(share: tuple[bool, bool]) -> None:
    obs, info = np.zeros(2), {"x": np.zeros(1)}
    later = (obs if share[0] else obs.copy(), info if share[1] else {"x": np.zeros(1)})
    assert_same_outcome(
        lambda lib: CHECKERS[lib][0].env_data_reuse_passive_checker((obs, info), later, "reset", "step")
    )


def data_strategy() -> st.SearchStrategy:
    leaves = st.one_of(
        st.integers(-3, 3),
        st.floats(allow_nan=False, width=32),
        st.text(max_size=2),
        st.builds(
            lambda n, dtype: np.arange(n, dtype=dtype),
            st.integers(0, 3),
            st.sampled_from([np.int8, np.float32, np.float64]),
        ),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=3),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(st.sampled_from("abc"), children, max_size=3),
        ),
        max_leaves=8,
    )


@FAST
@given(data_strategy(), data_strategy(), st.booleans())
def test_data_equivalence_and_sharing_as_gymnasium(data_1: Any, data_2: Any, exact: bool) -> None:
    for pair in ((data_1, data_2), (data_1, data_1), (data_1, _copy(data_1))):
        assert nb_checker.data_equivalence(*pair, exact=exact) is gym_checker.data_equivalence(*pair, exact=exact)
        assert nb_passive.data_shares_objects(*pair) is gym_passive.data_shares_objects(*pair)


def _copy(data: Any) -> Any:
    import copy

    return copy.deepcopy(data)


@pytest.mark.parametrize(
    ("data_1", "data_2"),
    [
        (np.float32(1.0), np.float32(1.0 + 1e-7)),
        (np.array([1.0]), np.array([1.0 + 1e-7])),
        (np.array([1.0]), np.array([1.1])),
        (np.array([1.0]), np.array([1.0], np.float32)),
        (np.array([[1.0]]), np.array([1.0])),
        (np.array([None, np.zeros(1)], dtype=object), np.array([None, np.zeros(1)], dtype=object)),
        ({"a": 1}, {"b": 1}),
        ((1, 2), (1,)),
        (1, 1.0),
    ],
)
def test_data_equivalence_edge_cases_as_gymnasium(data_1: Any, data_2: Any) -> None:
    for exact in (False, True):
        assert nb_checker.data_equivalence(data_1, data_2, exact) is gym_checker.data_equivalence(data_1, data_2, exact)


# --------------------------------------------------------------------------------------------------
# check_env
# --------------------------------------------------------------------------------------------------


def test_check_env_passes_on_the_tutorial_grid_world() -> None:
    for render_mode in (None, "rgb_array", "ansi"):
        raised, warned = assert_same_outcome(
            lambda lib: nbgym_or_gym_check_env(lib, grid_world(lib)(render_mode=render_mode))
        )
        assert raised is None
        assert [message for _, message in warned] == [
            "\x1b[33mWARN: Not able to test alternative render modes due to the environment not having a spec. "
            "Try instantiating the environment through `nbgym.make`\x1b[0m"
        ]
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            CHECKERS[lib][1].check_env(grid_world(lib)(), skip_render_check=True)


def nbgym_or_gym_check_env(lib: ModuleType, env: Any, **kwargs: Any) -> None:
    CHECKERS[lib][1].check_env(env, **kwargs)


def unseeded_obs(self: Any) -> np.ndarray:
    return np.random.default_rng().uniform(0, 1, 2).astype(np.float32)


def next_count(self: Any) -> int:
    self.count = getattr(self, "count", 0) + 1
    return self.count


def shared_buffer(self: Any) -> np.ndarray:
    if not hasattr(self, "buffer"):
        self.buffer = np.zeros(2, np.float32)
    self.buffer[:] = self.np_random.uniform(0, 1, 2)
    return self.buffer


CHECK_ENV_CASES: dict[str, dict[str, Any]] = {
    "ok": {},
    "infinite_spaces": {"observation_space": box(-np.inf, np.inf), "action_space": box(0, np.inf)},
    "unnormalised_action": {"action_space": box(-2.0, 2.0)},
    "unseeded_reset": {"reset_result": lambda self: (unseeded_obs(self), {})},
    "unseeded_step": {"step_result": lambda self: (unseeded_obs(self), 0.0, False, False, {})},
    "reset_not_tuple": {"reset_result": obs_in_box},
    "reset_info_not_dict": {"reset_result": lambda self: (obs_in_box(self), 1)},
    "reset_obs_outside": {"reset_result": lambda self: (obs_in_box(self) + 2, {})},
    "step_truncates": {"step_result": lambda self: (obs_in_box(self), 0.0, False, True, {})},
    "step_terminates": {"step_result": lambda self: (obs_in_box(self), 0.0, True, False, {})},
    "step_termination_varies": {
        "step_result": lambda self: (obs_in_box(self), 0.0, next_count(self) % 2 == 0, False, {})
    },
    "step_reward_varies": {
        "step_result": lambda self: (obs_in_box(self), float(self.np_random.random()), False, False, {})
    },
    "step_reward_close": {
        "step_result": lambda self: (obs_in_box(self), 1.0 + float(self.np_random.random()) * 1e-9, False, False, {})
    },
    "step_info_varies": {"step_result": lambda self: (obs_in_box(self), 0.0, False, False, {"x": np.random.random()})},
    "step_reuses_obs": {"step_result": lambda self: (shared_buffer(self), 0.0, False, False, {})},
    "reset_reuses_info": {"reset_result": lambda self: (obs_in_box(self), self.__dict__.setdefault("info", {}))},
    "render_mode_without_modes": {"render_mode": "ansi", "render_result": lambda self: "x"},
    "render_rgb": {
        "metadata": {"render_modes": ["rgb_array"], "render_fps": 30},
        "render_mode": "rgb_array",
        "render_result": lambda self: np.zeros((2, 2, 3), np.uint8),
    },
    # gymnasium's check_env wraps an env of metadata["torch"] in `wrappers.TorchToNumpy`, which neither library has
    # (AttributeError in both); metadata["jax"] (JaxToNumpy) is checked with the jax envs,
    # tests/envs/test_functional_envs.py.
    "torch_metadata": {"metadata": {"render_modes": [], "torch": True}},
}


@pytest.mark.parametrize("name", CHECK_ENV_CASES)
def test_check_env_as_gymnasium(name: str) -> None:
    assert_same_outcome(lambda lib: nbgym_or_gym_check_env(lib, configurable(lib)(**CHECK_ENV_CASES[name])))


@functools.cache
def misbehaving_envs(lib: ModuleType) -> dict[str, type]:
    base = configurable(lib)

    class NoSuperReset(base):
        def reset(self, *, seed=None, options=None):
            return np.full(2, 0.5, np.float32), {}

    class OwnGenerator(base):
        """Seeds a generator of its own in reset and never sets np_random: the seeding check must catch it."""

        def reset(self, *, seed=None, options=None):
            self.own = np.random.default_rng(seed)
            return self.own.uniform(0, 1, 2).astype(np.float32), {}

    class HasSeedMethod(base):
        def seed(self, seed=None):
            return [seed]

    class NoActionSpace(lib.Env):
        observation_space = lib.spaces.Discrete(2)

    class NoObservationSpace(lib.Env):
        action_space = lib.spaces.Discrete(2)

    class ResetWithoutOptions(base):
        def reset(self, *, seed=None):
            super().reset(seed=seed)
            return obs_in_box(self), {}

    class ResetRaisesTypeError(base):
        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            if options is not None or seed is not None:
                raise TypeError("unexpected")
            return obs_in_box(self), {}

    return {
        "no_super_reset": NoSuperReset,
        "own_generator": OwnGenerator,
        "has_seed_method": HasSeedMethod,
        "no_action_space": NoActionSpace,
        "no_observation_space": NoObservationSpace,
        "reset_without_options": ResetWithoutOptions,
        "reset_raises_type_error": ResetRaisesTypeError,
    }


@pytest.mark.parametrize(
    "name",
    [
        "no_super_reset",
        "own_generator",
        "has_seed_method",
        "no_action_space",
        "no_observation_space",
        "reset_without_options",
        "reset_raises_type_error",
    ],
)
def test_check_env_on_misbehaving_envs_as_gymnasium(name: str) -> None:
    raised, _ = assert_same_outcome(lambda lib: nbgym_or_gym_check_env(lib, misbehaving_envs(lib)[name]()))
    if name != "has_seed_method":
        assert raised is not None


def test_check_env_rejects_non_envs_and_warns_on_wrappers_and_warn_argument() -> None:
    raised, _ = assert_same_outcome(lambda lib: CHECKERS[lib][1].check_env("env"))
    assert raised[0] == "TypeError"
    raised, _ = assert_same_outcome(
        lambda lib: CHECKERS[lib][1].check_env((gymnasium if lib is nbgym else nbgym).Env())
    )
    assert raised[0] == "TypeError"

    raised, warned = assert_same_outcome(
        lambda lib: CHECKERS[lib][1].check_env(
            lib.wrappers.OrderEnforcing(grid_world(lib)()), warn=True, skip_render_check=True
        )
    )
    assert raised is None and len(warned) == 2


def test_check_env_with_an_overridden_np_random() -> None:
    """The compiled environments own their generator through an overridden ``np_random`` property."""

    class ArrayStreamEnv(nbgym.Env):
        def __init__(self) -> None:
            self.observation_space = nbgym.spaces.Box(0, 1, (2,), np.float32)
            self.action_space = nbgym.spaces.Discrete(2)
            self.state: dict | None = None

        @property
        def np_random(self) -> np.random.Generator:
            generator = np.random.Generator(np.random.PCG64())
            if self.state is None:
                self.state = generator.bit_generator.state
            generator.bit_generator.state = self.state
            return generator

        @np_random.setter
        def np_random(self, value: np.random.Generator) -> None:
            self.state = value.bit_generator.state

        def _draw(self) -> np.ndarray:
            generator = self.np_random
            obs = generator.uniform(0, 1, 2).astype(np.float32)
            self.state = generator.bit_generator.state
            return obs

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return self._draw(), {}

        def step(self, action):
            return self._draw(), 0.0, False, False, {}

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nb_checker.check_env(ArrayStreamEnv(), skip_render_check=True)


# --------------------------------------------------------------------------------------------------
# check_env through a spec: render modes and close
# --------------------------------------------------------------------------------------------------


@functools.cache
def closing_env(lib: ModuleType) -> type:
    class FragileClose(grid_world(lib)):
        def close(self) -> None:
            if getattr(self, "closed", False):
                raise RuntimeError("already closed")
            self.closed = True

    return FragileClose


@pytest.fixture
def registered() -> Any:
    ids = {"GridWorldCheck-v0": lambda lib: grid_world(lib), "FragileClose-v0": closing_env}
    for lib in LIBS:
        for env_id, entry in ids.items():
            lib.register(env_id, entry_point=entry(lib), max_episode_steps=50)
    yield
    for lib in LIBS:
        for env_id in ids:
            del lib.registry[env_id]


@pytest.mark.parametrize("env_id", ["GridWorldCheck-v0", "FragileClose-v0"])
@pytest.mark.parametrize("render_mode", [None, "rgb_array", "ansi"])
def test_check_env_through_spec_as_gymnasium(registered: Any, env_id: str, render_mode: str | None) -> None:
    def check(lib: ModuleType) -> None:
        env = lib.make(env_id, render_mode=render_mode)
        CHECKERS[lib][1].check_env(env.unwrapped)

    raised, warned = assert_same_outcome(check)
    assert raised is None
    if env_id == "FragileClose-v0":
        assert any("Calling `env.close()` on the closed environment" in message for _, message in warned)


@pytest.mark.parametrize("unwrap", [True, False])
def test_check_env_on_made_cartpole_as_gymnasium(unwrap: bool) -> None:
    """The compiled CartPole (whose generator is shared with its kernels) passes the same checks."""

    def check(lib: ModuleType) -> None:
        env = lib.make("CartPole-v1")
        CHECKERS[lib][1].check_env(env.unwrapped if unwrap else env, skip_render_check=True)

    raised, warned = assert_same_outcome(check)
    assert raised is None and len(warned) == (2 if unwrap else 3)
