"""Pendulum on the compiled engine against gymnasium 1.4.0 (single and vector env, bit for bit) and against a
plain-NumPy reference of its physics."""

from __future__ import annotations

import gymnasium
import nbgym
import numba
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.common import MODES
from helpers.classic_control_checks import (
    assert_same_error,
    compare_single,
    compare_vector,
    compare_vector_resets,
    setting,
)
from helpers.toy_text_checks import assert_same_value
from hypothesis import given, settings
from hypothesis import strategies as st

from nbgym import error
from nbgym.engine.npmath import square
from nbgym.envs.classic_control.pendulum import PendulumEnv, PendulumVectorEnv

STEPS = 150 if INTERPRETED else 1500


def torque_policy(rng: np.random.Generator, observation: np.ndarray) -> object:
    """Torques beyond the bounds (clipped) as float32 and float64 arrays and as a list of Python floats."""
    torque = rng.uniform(-3.0, 3.0, 1)
    kind = rng.integers(0, 3)
    return torque.astype(np.float32) if kind == 0 else (torque if kind == 1 else [float(torque[0])])


def batch_policy(dtype: type) -> object:
    return lambda rng, observations: rng.uniform(-2.5, 2.5, (len(observations), 1)).astype(dtype)


@pytest.mark.parametrize("kwargs", [{}, {"g": 9.81}])
def test_make_matches_gymnasium(kwargs):
    options = {"x_init": 0.5, "y_init": 2.0}
    compare_single("Pendulum-v1", torque_policy, range(3), STEPS, kwargs, reset_options=options)


def test_bare_env_matches_gymnasium_over_a_long_episode():
    compare_single("Pendulum-v1", torque_policy, [7], STEPS, bare=True)


@pytest.mark.jit_only
def test_make_matches_gymnasium_over_many_seeds():
    compare_single("Pendulum-v1", torque_policy, range(10, 30), 1000, reset_options={"x_init": 3.0})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_matches_gymnasium_sync(mode, dtype):
    kwargs = {"max_episode_steps": 37}
    _, truncations = compare_vector("Pendulum-v1", batch_policy(dtype), 5, mode, 3, STEPS // 3, kwargs)
    assert truncations > 0


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_at_length(mode):
    compare_vector("Pendulum-v1", batch_policy(np.float32), 16, mode, 100, 3000, {"g": 12.0})


def test_vector_seeds_and_reset_options_match_gymnasium():
    sample = lambda rng, n: rng.uniform(-2.0, 2.0, (n, 1)).astype(np.float32)  # noqa: E731
    vector = compare_vector_resets("Pendulum-v1", {"x_init": 0.25, "y_init": 3.0}, sample)
    assert isinstance(vector.unwrapped, PendulumVectorEnv)


def test_spaces_metadata_and_attributes_match_gymnasium():
    env, reference = PendulumEnv(g=9.5), gymnasium.make("Pendulum-v1", g=9.5).unwrapped
    assert repr(env.observation_space) == repr(reference.observation_space)
    assert repr(env.action_space) == repr(reference.action_space)
    np.testing.assert_array_equal(env.observation_space.high, reference.observation_space.high)
    assert env.metadata == reference.metadata
    for name in ["max_speed", "max_torque", "dt", "g", "m", "l"]:
        assert getattr(env, name) == getattr(reference, name), name
    vector = PendulumVectorEnv(4, g=9.5)
    assert repr(vector.single_observation_space) == repr(reference.observation_space)
    assert repr(vector.action_space) == repr(gymnasium.make_vec("Pendulum-v1", 4).action_space)
    assert vector.g == 9.5


@pytest.mark.parametrize(
    "changes", [{"g": 3.0, "m": 2.0}, {"l": 0.7, "dt": 0.01}, {"max_speed": 2.5, "max_torque": 0.5}]
)
def test_changed_attributes_change_the_dynamics_as_in_gymnasium(changes):
    compare_single("Pendulum-v1", torque_policy, [4], 100, bare=True, setup=setting(changes))


class FloatSubclass(float):
    """A subclass of float: a Python float to Python's operators, a float64 to numpy's (``np.clip``)."""


# gymnasium's arithmetic follows the type written (issue 51): a np.float64 m or l makes the torque gain float64, a
# np.float64 max_torque makes np.clip's torque float64, where a Python float keeps a float32 action's float32.
@pytest.mark.parametrize(
    "changes",
    [
        {"m": np.float64(1.1)},
        {"l": np.float64(0.9)},
        {"max_torque": np.float64(1.5)},
        {"max_torque": np.float32(1.5)},
        {"m": np.array(1.1)},
        {"max_torque": np.array(1.5)},
        {"g": FloatSubclass(9.5), "dt": FloatSubclass(0.04)},
        {"m": np.float64(2.0), "l": 0.8, "max_torque": np.float64(1.2)},
        {"g": np.float64(9.81), "dt": np.float64(0.03), "max_speed": np.array(6.0)},
    ],
    ids=repr,
)
def test_numpy_typed_attributes_compute_as_in_gymnasium(changes):
    compare_single("Pendulum-v1", torque_policy, [4], 100, bare=True, setup=setting(changes))


@pytest.mark.parametrize(
    "name, value",
    [
        ("max_torque", np.True_),  # gymnasium: -np.True_ is a TypeError at the step
        ("max_speed", np.True_),
        ("m", "1.1"),  # gymnasium: a TypeError at the step
        ("m", np.float32(1.1)),  # gymnasium computes the gain in float32: not reproduced
        ("l", np.int8(12)),  # gymnasium squares it in int8 (wrapping)
        ("max_torque", FloatSubclass(1.5)),  # a float64 to np.clip: not followed
        ("m", FloatSubclass(1.1)),
        ("m", np.array([1.1])),  # gymnasium's reward becomes an array
        ("max_speed", np.longdouble(6.0)),
    ],
    ids=repr,
)
def test_numpy_typed_attributes_the_kernels_do_not_follow_are_refused_before_anything_moves(name, value):
    env = PendulumEnv()
    env.reset(seed=0)
    before = getattr(env, name)
    with pytest.raises(TypeError, match=name):
        setattr(env, name, value)
    assert getattr(env, name) == before
    ours = env.step(np.array([0.5], dtype=np.float32))[0]
    reference = gymnasium.make("Pendulum-v1").unwrapped
    reference.reset(seed=0)
    np.testing.assert_array_equal(ours, reference.step(np.array([0.5], dtype=np.float32))[0])


def test_vector_env_follows_a_numpy_typed_attribute_as_gymnasium():
    ours = nbgym.make_vec("Pendulum-v1", 3)
    theirs = gymnasium.make_vec("Pendulum-v1", 3, vectorization_mode="sync")
    for env in (ours, theirs):
        env.set_attr("m", np.float64(1.1))
        env.set_attr("max_torque", np.float64(1.5))
        env.reset(seed=2)
    actions = np.array([[0.3], [-1.7], [2.5]], dtype=np.float32)
    for _ in range(5):
        mine, wanted = ours.step(actions), theirs.step(actions)
        np.testing.assert_array_equal(mine[0], wanted[0])
        np.testing.assert_array_equal(mine[1], wanted[1])


def test_state_attribute_matches_gymnasium():
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    assert_same_value(env.state, reference.state)
    env.state = reference.state = np.array([np.pi, 0.5])
    action = np.array([1.5], dtype=np.float32)
    assert_same_value(env.step(action), reference.step(action))
    assert_same_value(env.state, reference.state)


def test_last_u_matches_gymnasium():
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    assert_same_value(env.reset(seed=1), reference.reset(seed=1))
    assert env.last_u is reference.last_u is None
    for action in [np.array([2.5], dtype=np.float32), np.array([-0.75]), [1.25], np.array([-1], dtype=np.int64)]:
        assert_same_value(env.step(action), reference.step(action))
        assert_same_value(env.last_u, reference.last_u)
    env.reset()
    reference.reset()
    assert env.last_u is reference.last_u is None


@pytest.mark.parametrize(
    "options", [{"x_init": 0.1}, {"y_init": "0.3"}, {"x_init": 2, "y_init": np.float32(0.5)}, {}, {"unrelated": 1}]
)
def test_reset_options_match_gymnasium(options):
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    assert_same_value(env.reset(seed=3, options=options), reference.reset(seed=3, options=options))
    assert_same_value(env.reset(options=options), reference.reset(options=options))


@pytest.mark.parametrize(
    "options", [{"x_init": "x"}, {"y_init": None}, {"x_init": np.inf}, {"y_init": np.nan}, {"x_init": -1.0}]
)
def test_bad_reset_options_raise_as_gymnasium(options):
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    assert_same_error(lambda: reference.reset(seed=1, options=options), lambda: env.reset(seed=1, options=options))
    vector = PendulumVectorEnv(2)
    with pytest.raises((ValueError, OverflowError)):
        vector.reset(seed=1, options=options)


@pytest.mark.parametrize("action", [np.array([np.nan], dtype=np.float32), np.array([np.nan]), [float("nan")]])
def test_nan_torque_is_refused_and_changes_nothing(action):
    env = PendulumEnv()
    env.reset(seed=0)
    state = env.state
    with pytest.raises(error.InvalidAction, match="invalid"):
        env.step(action)
    np.testing.assert_array_equal(env.state, state)
    vector = PendulumVectorEnv(3)
    vector.reset(seed=0)
    before = vector._batch.state.copy()
    batch = np.zeros((3, 1), dtype=np.asarray(action).dtype)
    batch[2] = action
    with pytest.raises(error.InvalidAction, match="Sub-environment 2"):
        vector.step(batch)
    np.testing.assert_array_equal(vector._batch.state, before)


@pytest.mark.parametrize("action", [np.zeros(2), np.zeros((1, 1)), np.array(["a"]), [[0.5]]])
def test_badly_shaped_or_typed_actions_raise(action):
    env = PendulumEnv()
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        env.step(action)


@pytest.mark.parametrize("actions", [np.zeros(3), np.zeros((2, 1)), np.zeros((3, 2)), np.array([["a"]] * 3)])
def test_vector_rejects_bad_batches(actions):
    vector = PendulumVectorEnv(3)
    vector.reset(seed=0)
    with pytest.raises(error.InvalidAction):
        vector.step(actions)


def test_integer_and_bool_torques_compute_in_float64_as_gymnasium():
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    env.reset(seed=2)
    reference.reset(seed=2)
    for action in [np.array([1]), np.array([-3], dtype=np.int8), np.array([True]), [2]]:
        assert_same_value(env.step(action), reference.step(action))


def reference_step(
    state: np.ndarray, action: np.ndarray, g: float = 10.0, m: float = 1.0, l: float = 1.0, dt: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.float64]:
    """The pendulum's step in plain NumPy scalars (NumPy 2 promotion: the torque terms in the action's dtype)."""
    theta, velocity = np.float64(state[0]), np.float64(state[1])
    dtype = action.dtype.type
    torque = min(max(action[0], dtype(-2.0)), dtype(2.0))
    normalized = np.remainder(theta + np.pi, 2 * np.pi) - np.pi
    cost = normalized**2 + 0.1 * velocity**2 + dtype(0.001) * torque**2
    acceleration = 3 * g / (2 * l) * np.sin(theta) + dtype(3.0 / (m * l**2)) * torque
    velocity = np.clip(velocity + acceleration * dt, -8, 8)
    theta = theta + velocity * dt
    observation = np.array([np.cos(theta), np.sin(theta), velocity], dtype=np.float32)
    return np.array([theta, velocity]), observation, -cost


finite = st.floats(-50.0, 50.0, allow_nan=False)
torques = st.one_of(st.floats(-5.0, 5.0, allow_nan=False), st.sampled_from([np.inf, -np.inf, -0.0, 2.0, -2.0]))


@settings(max_examples=50, deadline=None)
@given(theta=finite, velocity=st.floats(-10.0, 10.0), torque=torques, float32=st.booleans(), g=st.floats(1.0, 20.0))
def test_kernel_matches_numpy_reference(theta, velocity, torque, float32, g):
    env = PendulumEnv(g=g)
    env.reset(seed=0)
    state = np.array([theta, velocity])
    action = np.array([torque], dtype=np.float32 if float32 else np.float64)
    env.state = state
    observation, reward, terminated, truncated, info = env.step(action)
    expected_state, expected_observation, expected_reward = reference_step(state, action, g=g)
    assert_same_value(env.state, expected_state)
    assert_same_value(observation, expected_observation)
    assert_same_value(reward, expected_reward)
    assert (terminated, truncated, info) == (False, False, {})


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), x_init=st.floats(0.0, 10.0), y_init=st.floats(0.0, 10.0))
def test_reset_draws_as_numpy(seed, x_init, y_init):
    env = PendulumEnv()
    env.reset(seed=seed, options={"x_init": x_init, "y_init": y_init})
    high = np.array([x_init, y_init])
    assert_same_value(env.state, np.random.default_rng(seed).uniform(-high, high))


def first_where_pow_is_not_a_product(values: np.ndarray) -> np.generic:
    """A value whose scalar ``** 2`` (the C library's pow) differs from its square by multiplication."""
    return next(v for v in values if v**2 != v * v)


def test_squares_are_libm_pow_not_products():
    """gymnasium squares numpy scalars with ``** 2`` (libm ``pow``/``powf``, not always ``x * x``)."""
    rng = np.random.default_rng(0)
    velocity = first_where_pow_is_not_a_product(rng.uniform(-8.0, 8.0, 100_000))
    torque = first_where_pow_is_not_a_product(rng.uniform(-2.0, 2.0, 100_000).astype(np.float32))
    theta = first_where_pow_is_not_a_product(rng.uniform(-np.pi, np.pi, 100_000))
    env, reference = PendulumEnv(), gymnasium.make("Pendulum-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    for state, action in [([theta, velocity], [torque]), ([theta, 0.0], [np.float32(0.0)])]:
        env.state = reference.state = np.array(state)
        action = np.array(action, dtype=np.float32)
        assert_same_value(env.step(action), reference.step(action))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_square_is_numpys_scalar_power(dtype):
    """The kernels' ``square`` (a product where that cannot differ, else libm) equals numpy's scalar ``** 2``."""
    rng = np.random.default_rng(1)
    exponent = 140 if dtype == np.float64 else 18  # squares within the dtype's normal range
    magnitudes = 10.0 ** rng.uniform(-exponent, exponent, 20_000)
    values = np.concatenate([rng.uniform(-12.0, 12.0, 80_000), magnitudes, -magnitudes, [0.0, -0.0, np.inf, 0.5]])
    values = values.astype(dtype)
    expected = np.array([v**2 for v in values], dtype=dtype)
    np.testing.assert_array_equal(squares(values), expected)


@numba.njit
def squares(values: np.ndarray) -> np.ndarray:
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = square(values[i])
    return out


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_actions_of_dtypes_the_kernels_cannot_reproduce_are_refused(dtype):
    env = nbgym.make("Pendulum-v1")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction, match="float32 or float64"):
        env.step(np.array([0.5], dtype=dtype))
    vector = nbgym.make_vec("Pendulum-v1", 2)
    vector.reset(seed=0)
    with pytest.raises(error.InvalidAction, match="float32 or float64"):
        vector.step(np.zeros((2, 1), dtype=dtype))


def _layouts(batch: np.ndarray) -> dict[str, np.ndarray]:
    """``batch``'s values in the layouts and byte orders gymnasium takes (issue 51)."""
    strided = np.repeat(batch, 2, axis=0)[::2]
    fortran = np.asfortranarray(np.repeat(batch, 2, axis=-1))[..., ::2]
    read_only = batch.copy()
    read_only.setflags(write=False)
    return {
        "strided": strided,
        "fortran": fortran,
        "read-only": read_only,
        "big-endian": batch.astype(batch.dtype.newbyteorder(">")),
        "big-endian float64": batch.astype(">f8"),
    }


def _step_signatures() -> int:
    from nbgym.engine import _kernels

    return 0 if numba.config.DISABLE_JIT else len(_kernels.step_kernel.signatures)


@pytest.mark.parametrize("vector", [False, True])
def test_actions_of_any_layout_or_byte_order_step_as_their_native_contiguous_copy(vector):
    """Strided, Fortran-order, read-only and big-endian actions step as gymnasium's (which takes them), through the
    kernels' own arrays: no new kernel compiled, nothing refused (issue 51)."""
    batch = np.array([[0.3], [-1.7], [2.5]], dtype=np.float32)
    make = (lambda: nbgym.make_vec("Pendulum-v1", 3)) if vector else (lambda: nbgym.make("Pendulum-v1"))
    reference = make()
    reference.reset(seed=5)
    for native in (batch, batch.astype(np.float64)):  # both dtypes' kernels compiled first
        wanted = reference.step(native if vector else native[1])
    signatures = _step_signatures()
    for name, actions in _layouts(batch).items():
        env = make()
        env.reset(seed=5)
        reference.reset(seed=5)
        native = np.ascontiguousarray(actions, dtype=actions.dtype.newbyteorder("="))
        mine = env.step(actions if vector else actions[1])
        wanted = reference.step(native if vector else native[1])
        np.testing.assert_array_equal(mine[0], wanted[0], err_msg=name)
        np.testing.assert_array_equal(mine[1], wanted[1], err_msg=name)
        assert _step_signatures() == signatures, f"{name} actions compiled another step kernel"
    theirs = gymnasium.make("Pendulum-v1")
    theirs.reset(seed=5)
    ours = nbgym.make("Pendulum-v1")
    ours.reset(seed=5)
    action = np.array([1.25], dtype=">f4")
    np.testing.assert_array_equal(ours.step(action)[0], theirs.step(action)[0])


@settings(max_examples=100, deadline=None)
@given(
    st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-(10**6), 10**6),
    st.sampled_from([float, np.float32, np.float64, "array32", "array64"]),
)
def test_angle_normalize_is_gymnasiums(x, kind):
    """The module's ``angle_normalize``: gymnasium's values and types, for Python numbers, numpy scalars and arrays."""
    from gymnasium.envs.classic_control.pendulum import angle_normalize as theirs

    from nbgym.envs.classic_control.pendulum import angle_normalize as ours

    if kind == "array32":
        value = np.array([x, -x, 0.5 * x], dtype=np.float32)
    elif kind == "array64":
        value = np.array([x, -x, 0.5 * x], dtype=np.float64)
    else:
        value = kind(x)
    a, b = ours(value), theirs(value)
    assert type(a) is type(b)
    assert np.asarray(a).dtype == np.asarray(b).dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes()
