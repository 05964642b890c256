"""Acrobot on the compiled engine against gymnasium 1.4.0 (single and vector env, bit for bit) and against a
plain-NumPy reference of its Runge-Kutta step."""

from __future__ import annotations

import gymnasium
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

import nbgym
from nbgym import error
from nbgym.engine.npmath import cos32, float32_trig_is_simd, sin32
from nbgym.envs.classic_control.acrobot import AcrobotEnv, AcrobotVectorEnv, _dsdt, _link_squares

STEPS = 200 if INTERPRETED else 1000
VECTOR_STEPS = 300 if INTERPRETED else 1000


def swing_policy(rng: np.random.Generator, observation: np.ndarray) -> int | np.int64:
    """Torque along the second joint's velocity (reaches the height in about 100 steps), with random torques."""
    action = 2 if observation[5] > 0 else 0
    if rng.random() < 0.1:
        action = rng.integers(0, 3)
    return int(action) if rng.random() < 0.5 else np.int64(action)


def batch_swing_policy(rng: np.random.Generator, observations: np.ndarray) -> np.ndarray:
    actions = np.where(observations[:, 5] > 0, 2, 0)
    noisy = rng.random(len(actions)) < 0.1
    actions[noisy] = rng.integers(0, 3, noisy.sum())
    return actions


def test_make_matches_gymnasium():
    terminations = compare_single("Acrobot-v1", swing_policy, range(3), STEPS, reset_options={"low": -0.3, "high": 0.2})
    assert terminations > (0 if INTERPRETED else 10)


@pytest.mark.parametrize(
    "changes",
    [
        {"torque_noise_max": 0.5},
        {"book_or_nips": "nips"},
        {"dt": 0.05, "LINK_MASS_2": 1.7, "LINK_COM_POS_1": 0.3},
        {"AVAIL_TORQUE": [-2.0, 0.5, 3.0], "LINK_MOI": 0.7, "LINK_LENGTH_1": 1.3},
        {"MAX_VEL_1": 1.0, "MAX_VEL_2": 2.0, "book_or_nips": "book"},
    ],
)
def test_changed_attributes_change_the_dynamics_as_in_gymnasium(changes):
    compare_single("Acrobot-v1", swing_policy, [4], STEPS // 4, setup=setting(changes))


@pytest.mark.jit_only
def test_make_matches_gymnasium_over_many_seeds():
    compare_single("Acrobot-v1", swing_policy, range(10, 30), 1000, reset_options={"low": -1.0, "high": 1.0})


def sensitive_seeds(count: int) -> list[int]:
    """Seeds whose reset state has an angle where numpy's float32 cos/sin differ from the rounded float64 ones."""
    found = []
    for seed in range(100_000):
        angles = np.random.default_rng(seed).uniform(-0.1, 0.1, 4).astype(np.float32)[:2]
        exact = np.concatenate([np.cos(angles.astype(np.float64)), np.sin(angles.astype(np.float64))])
        if not np.array_equal(exact.astype(np.float32), np.concatenate([np.cos(angles), np.sin(angles)])):
            found.append(seed)
            if len(found) == count:
                break
    return found


def test_reset_observations_use_numpys_float32_trigonometry():
    """A reset observes float32 angles with numpy's float32 cos/sin, which are not the rounded float64 ones."""
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    seeds = sensitive_seeds(5)
    assert len(seeds) == 5 or not float32_trig_is_simd()
    for seed in [*seeds, *range(200 if INTERPRETED else 2000)]:
        assert_same_value(env.reset(seed=seed), reference.reset(seed=seed))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=50, deadline=None)
@given(
    x=st.floats(-2e5, 2e5, width=32) | st.floats(-0.25, 0.25, width=32) | st.sampled_from([0.0, -0.0, np.inf, np.nan])
)
def test_float32_trigonometry_is_numpys(x):
    x = np.float32(x)
    simd = float32_trig_is_simd()
    for ours, theirs in [(cos32(x, simd), np.cos(x)), (sin32(x, simd), np.sin(x))]:
        assert np.asarray(ours, dtype=np.float32).tobytes() == np.asarray(theirs).tobytes()


@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync(mode):
    terminations, truncations = compare_vector(
        "Acrobot-v1", batch_swing_policy, 5, mode, 3, VECTOR_STEPS, {"max_episode_steps": 90}
    )
    assert terminations > 0 and truncations > 0


@pytest.mark.jit_only
@pytest.mark.parametrize("mode", MODES)
def test_vector_matches_gymnasium_sync_at_length(mode):
    compare_vector("Acrobot-v1", batch_swing_policy, 16, mode, 100, 3000, {"max_episode_steps": 40})


def test_vector_seeds_options_and_attributes_match_gymnasium():
    def noisy_nips(ours, theirs):
        for env in [ours.unwrapped, *(env.unwrapped for env in theirs.unwrapped.envs)]:
            env.torque_noise_max = 0.2
            env.book_or_nips = "nips"

    sample = lambda rng, n: rng.integers(0, 3, n)  # noqa: E731
    vector = compare_vector_resets("Acrobot-v1", {"low": -0.5, "high": 0.3}, sample, setup=noisy_nips)
    assert isinstance(vector.unwrapped, AcrobotVectorEnv)


def test_spaces_metadata_and_attributes_match_gymnasium():
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    assert repr(env.observation_space) == repr(reference.observation_space)
    np.testing.assert_array_equal(env.observation_space.high, reference.observation_space.high)
    assert env.action_space == nbgym.spaces.Discrete(3)
    assert env.metadata == reference.metadata
    names = [
        "dt",
        "LINK_LENGTH_1",
        "LINK_LENGTH_2",
        "LINK_MASS_1",
        "LINK_MASS_2",
        "LINK_COM_POS_1",
        "LINK_COM_POS_2",
        "LINK_MOI",
        "MAX_VEL_1",
        "MAX_VEL_2",
        "AVAIL_TORQUE",
        "torque_noise_max",
        "SCREEN_DIM",
        "book_or_nips",
        "action_arrow",
        "domain_fig",
        "actions_num",
    ]
    for name in names:
        assert_same_value(getattr(env, name), getattr(reference, name), name)
    vector = AcrobotVectorEnv(4)
    assert repr(vector.single_observation_space) == repr(reference.observation_space)
    assert repr(vector.action_space) == repr(gymnasium.make_vec("Acrobot-v1", 4).action_space)
    assert vector.book_or_nips == "book" and vector.dt == 0.2


def test_state_attribute_has_gymnasiums_dtypes():
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    env.reset(seed=0)
    reference.reset(seed=0)
    assert_same_value(env.state, reference.state)  # float32 after a reset
    assert_same_value(env.step(2), reference.step(2))
    assert_same_value(env.state, reference.state)  # float64 after a step
    for state in [np.array([3.0, -3.0, 20.0, -40.0]), np.array([1.0, 2.0, 0.5, -0.5], dtype=np.float32)]:
        env.state, reference.state = state, state.copy()
        assert_same_value(env.step(0), reference.step(0))


def test_terminal_and_get_ob_read_the_state_as_gymnasiums():
    """gymnasium's ``_terminal()`` and ``_get_ob()`` of the state as it is now: along an episode and for written
    states on both sides of the line, the same values of the same types."""
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    env.reset(seed=3)
    reference.reset(seed=3)
    for action in [0, 2, 1, 2, 2, 0]:
        assert_same_value(env.step(action), reference.step(action))
        assert_same_value(env._terminal(), reference._terminal())
        assert_same_value(env._get_ob(), reference._get_ob())
    for state in [np.array([np.pi, 0.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0]), np.array([2.0, 1.5, 0.0, 0.0])]:
        env.state, reference.state = state, state.copy()
        assert_same_value(env._terminal(), reference._terminal())
        assert_same_value(env._get_ob(), reference._get_ob())
    assert env._terminal() is True  # the last written state is past the line
    with pytest.raises(AssertionError, match="Call reset before using AcrobotEnv object."):
        AcrobotEnv()._terminal()


@pytest.mark.parametrize(
    "constants",
    [{"LINK_MASS_1": 2.0}, {"dt": 0.1, "LINK_LENGTH_2": 1.5}, {"book_or_nips": "nips", "LINK_MOI": 0.5},
     {"torque_noise_max": 0.5}, {"MAX_VEL_1": 3.0, "MAX_VEL_2": 4.0}, {"AVAIL_TORQUE": [-2.0, 0.0, 2.0]}],
    ids=lambda constants: ",".join(constants),
)  # fmt: skip
def test_a_subclass_constants_are_its_instances_as_in_gymnasium(constants):
    """gymnasium's Acrobot keeps its physical constants as class attributes: a subclass that defines its own makes
    its instances with them (spaces, dynamics, reads), as nbgym's does; the class reads them too."""
    from gymnasium.envs.classic_control.acrobot import AcrobotEnv as GymnasiumAcrobot

    ours, theirs = type("Ours", (AcrobotEnv,), constants)(), type("Theirs", (GymnasiumAcrobot,), constants)()
    for name, value in constants.items():
        assert getattr(type(ours), name) == value and getattr(ours, name) == getattr(theirs, name) == value
    np.testing.assert_array_equal(ours.observation_space.high, theirs.observation_space.high)
    assert_same_value(ours.reset(seed=4), theirs.reset(seed=4))
    theirs.action_space.seed(4)
    for _ in range(100):
        action = theirs.action_space.sample()
        assert_same_value(ours.step(action), theirs.step(action))
    assert AcrobotEnv().LINK_MASS_1 == 1.0  # the base's instances keep gymnasium's defaults
    with pytest.raises(AttributeError, match="SCREEN_DIM of Wide is 500 in nbgym"):
        type("Wide", (AcrobotEnv,), {"SCREEN_DIM": 600})()


@pytest.mark.parametrize("options", [{"low": -0.05}, {"high": "0.5"}, {"low": -3, "high": 3}, {}, {"other": 1}])
def test_reset_options_match_gymnasium(options):
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    assert_same_value(env.reset(seed=3, options=options), reference.reset(seed=3, options=options))
    assert_same_value(env.reset(options=options), reference.reset(options=options))


@pytest.mark.parametrize(
    "options", [{"low": "x"}, {"high": None}, {"low": 0.0, "high": -0.1}, {"low": -np.inf}, {"high": np.nan}]
)
def test_bad_reset_options_raise_as_gymnasium(options):
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    assert_same_error(lambda: reference.reset(seed=1, options=options), lambda: env.reset(seed=1, options=options))


@pytest.mark.parametrize("action", [3, -4, 0.5, "1", None, np.array([1]), np.float32(1.0)])
def test_invalid_actions_raise(action):
    """gymnasium indexes its torque list with the action (so -1 is +1 torque, 3 an IndexError, 0.5 a TypeError): nbgym
    takes and refuses the same (tests/test_bad_actions.py compares every case with gymnasium)."""
    env = AcrobotEnv()
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction, match="invalid|is not an action of Discrete"):
        env.step(action)


@pytest.mark.parametrize(
    "actions", [np.array([0, 3, 1]), np.array([0, -4, 1]), np.array([0, 1]), np.array([0.0, 1.0, 2.0])]
)
def test_vector_rejects_bad_batches_before_anything_moves(actions):
    vector = AcrobotVectorEnv(3)
    vector.reset(seed=0)
    before = vector._batch.state.copy()
    with pytest.raises(error.InvalidAction):
        vector.step(actions)
    np.testing.assert_array_equal(vector._batch.state, before)


def reference_derivatives(y: np.ndarray, nips: bool) -> tuple[np.float64, ...]:
    """The acrobot's equations of motion (unit masses, lengths and inertias; centres of mass at 0.5)."""
    theta1, theta2, dtheta1, dtheta2, torque = y
    m, l1, lc, inertia, g = 1.0, 1.0, 0.5, 1.0, 9.8
    d1 = m * lc**2 + m * (l1**2 + lc**2 + 2 * l1 * lc * np.cos(theta2)) + inertia + inertia
    d2 = m * (lc**2 + l1 * lc * np.cos(theta2)) + inertia
    phi2 = m * lc * g * np.cos(theta1 + theta2 - np.pi / 2.0)
    phi1 = (
        -m * l1 * lc * dtheta2**2 * np.sin(theta2)
        - 2 * m * l1 * lc * dtheta2 * dtheta1 * np.sin(theta2)
        + (m * lc + m * l1) * g * np.cos(theta1 - np.pi / 2)
        + phi2
    )
    numerator = torque + d2 / d1 * phi1
    if not nips:
        numerator = numerator - m * l1 * lc * dtheta1**2 * np.sin(theta2)
    ddtheta2 = (numerator - phi2) / (m * lc**2 + inertia - d2**2 / d1)
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0


def reference_step(state: np.ndarray, torque: float, nips: bool, dt: float = 0.2) -> tuple[np.ndarray, float, bool]:
    """One classic RK4 step on NumPy arrays, then the angles wrapped into [-pi, pi] and the velocities bounded."""
    y = np.append(state, torque)
    k1 = np.asarray(reference_derivatives(y, nips))
    k2 = np.asarray(reference_derivatives(y + dt / 2.0 * k1, nips))
    k3 = np.asarray(reference_derivatives(y + dt / 2.0 * k2, nips))
    k4 = np.asarray(reference_derivatives(y + dt * k3, nips))
    new = (y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4))[:4]
    for k in range(2):
        while new[k] > np.pi:
            new[k] = new[k] - 2 * np.pi
        while new[k] < -np.pi:
            new[k] = new[k] + 2 * np.pi
    new[2] = min(max(new[2], -4 * np.pi), 4 * np.pi)
    new[3] = min(max(new[3], -9 * np.pi), 9 * np.pi)
    terminated = bool(-np.cos(new[0]) - np.cos(new[1] + new[0]) > 1.0)
    return new, 0.0 if terminated else -1.0, terminated


@settings(max_examples=50, deadline=None)
@given(
    angles=st.lists(st.floats(-15.0, 15.0), min_size=2, max_size=2),
    velocities=st.lists(st.floats(-40.0, 40.0), min_size=2, max_size=2),
    action=st.integers(0, 2),
    nips=st.booleans(),
    noise=st.sampled_from([0.0, 0.0, 0.4]),
    seed=st.integers(0, 2**32),
)
def test_kernel_matches_numpy_reference(angles, velocities, action, nips, noise, seed):
    env = AcrobotEnv()
    env.reset(seed=seed)
    env.book_or_nips = "nips" if nips else "book"
    env.torque_noise_max = noise
    state = np.array(angles + velocities)
    env.state = state
    torque = [-1.0, 0.0, +1][action]
    if noise > 0:
        generator = np.random.default_rng(seed)
        generator.uniform(-0.1, 0.1, 4)  # the reset's draws
        torque += generator.uniform(-noise, noise)
    observation, reward, terminated, truncated, info = env.step(action)
    expected_state, expected_reward, expected_terminated = reference_step(state, torque, nips)
    assert_same_value(env.state, expected_state)
    expected_observation = np.array(
        [
            np.cos(expected_state[0]),
            np.sin(expected_state[0]),
            np.cos(expected_state[1]),
            np.sin(expected_state[1]),
            expected_state[2],
            expected_state[3],
        ],
        dtype=np.float32,
    )
    assert_same_value(observation, expected_observation)
    assert_same_value((reward, terminated, truncated, info), (expected_reward, expected_terminated, False, {}))


def test_squares_are_libm_pow_not_products():
    """gymnasium squares numpy scalars with ``** 2`` (libm ``pow``, not always ``x * x``): the derivatives where
    the velocities or ``d2`` are such values are gymnasium's to the bit, in both dynamics."""
    rng = np.random.default_rng(0)

    def where_pow_is_not_a_product(values: np.ndarray, square_of=lambda v: v) -> list[np.float64]:
        return [v for v in values if square_of(v) ** 2 != square_of(v) * square_of(v)][:100]

    velocities = where_pow_is_not_a_product(rng.uniform(-12.0, 12.0, 200_000))

    def d2(theta2: np.float64) -> np.float64:
        return 1.0 * (0.5**2 + 1.0 * 0.5 * np.cos(theta2)) + 1.0

    angles = where_pow_is_not_a_product(rng.uniform(-np.pi, np.pi, 200_000), d2)
    env, reference = AcrobotEnv(), gymnasium.make("Acrobot-v1").unwrapped
    for book_or_nips in ["book", "nips"]:
        env.book_or_nips = reference.book_or_nips = book_or_nips
        params = env._params.view(np.recarray)[0]
        for k in range(0, len(velocities), 2):
            theta1, torque = rng.uniform(-np.pi, np.pi), rng.uniform(-1, 1)
            state = np.array([theta1, angles[k], velocities[k], velocities[k + 1], torque])
            np.testing.assert_array_equal(
                np.array(_dsdt(params, _link_squares(params), *state)), np.array(reference._dsdt(state)[:4])
            )


def _same_bits(ours, theirs, where=""):
    """The same type and, element by element, the same bits (a NaN's and a zero's sign included)."""
    assert type(ours) is type(theirs), f"{where}: {type(ours)} != {type(theirs)}"
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same_bits(a, b, f"{where}[{k}]")
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
    assert a.tobytes() == b.tobytes(), f"{where}: {ours!r} != {theirs!r}"


_angles = st.floats(-20.0, 20.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_angles, min_size=4, max_size=4),
    st.sampled_from([-1.0, 0.0, 1, np.float32(0.5)]),
    st.sampled_from([np.float64, np.float32, list]),
    st.sampled_from(["book", "nips"]),
    st.sampled_from([{}, {"LINK_MASS_1": 2.0, "LINK_MOI": 1.5}, {"LINK_LENGTH_1": 0.5, "LINK_COM_POS_2": 0.7}]),
)
def test_dsdt_and_rk4_are_gymnasiums(state, torque, kind, book_or_nips, constants):
    """``env._dsdt`` and the module's ``rk4`` (which gymnasium's step calls as ``rk4(self._dsdt, s, [0, dt])``) give
    gymnasium's values, of its types, for float64, float32 and list states, either dynamics and changed constants."""
    from gymnasium.envs.classic_control import acrobot as theirs_module

    from nbgym.envs.classic_control import acrobot as ours_module

    ours, theirs = nbgym.make("Acrobot-v1").unwrapped, gymnasium.make("Acrobot-v1").unwrapped
    for env in (ours, theirs):
        env.book_or_nips = book_or_nips
        for name, value in constants.items():
            setattr(env, name, value)
    s_augmented = [*state, torque] if kind is list else np.array([*state, torque], dtype=kind)
    _same_bits(ours._dsdt(s_augmented), theirs._dsdt(s_augmented), "_dsdt")
    ours_next = ours_module.rk4(ours._dsdt, s_augmented, [0, ours.dt])
    _same_bits(ours_next, theirs_module.rk4(theirs._dsdt, s_augmented, [0, theirs.dt]), "rk4")
    # (the compiled step's dynamics are compared with gymnasium's step above)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(st.integers(-2000, 2000), st.floats(-1e4, 1e4, allow_nan=False)),
    st.sampled_from([(-180, 180), (-np.pi, np.pi), (0.0, 1.0), (np.float32(-1), np.float32(2))]),
)
def test_wrap_and_bound_are_gymnasiums(x, bounds):
    from gymnasium.envs.classic_control import acrobot as theirs

    from nbgym.envs.classic_control import acrobot as ours

    m, M = bounds
    _same_bits(ours.wrap(x, m, M), theirs.wrap(x, m, M), "wrap")
    _same_bits(ours.bound(x, m, M), theirs.bound(x, m, M), "bound")
    _same_bits(ours.bound(x, [m, M]), theirs.bound(x, [m, M]), "bound(x, [m, M])")
