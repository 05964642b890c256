"""Every value a user may write into an env's live attributes reaches the kernels safely.

gymnasium's CarRacing keeps its game numbers (``reward``, ``prev_reward``, ``t``, ``tile_visited_count``,
``new_lap``) as plain attributes, which a user may set to anything; nbgym serves them from the kernels' rows. Each
value gymnasium takes must give gymnasium's step and frames exactly (its score text ``f"{reward:04.0f}"`` with all
the digits of 1e300, ``0nan``, ``-inf``: an int64 overflow in the kernels' score text once wrote past its buffer, a
segfault), or be refused with a clear exception where gymnasium fails too or before anything moves.
"""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbgym

pytestmark = pytest.mark.filterwarnings("ignore")

EXTREMES = [math.nan, -math.nan, math.inf, -math.inf, 1e300, -1e300, 1.7976931348623157e308, 0.0, -0.0, -5.0, 1e19,
            1e20, -1e20, 1e30, 2.0**63, 10**30, -(10**30), 2**63, 10**400, -3, 0]
ATTRIBUTES = ["reward", "prev_reward", "t", "tile_visited_count", "new_lap"]
STEP = np.array([0.1, 0.6, 0.0], dtype=np.float32)
CLEAR = (TypeError, ValueError, OverflowError)


@pytest.fixture(scope="module")
def pair():
    """gymnasium's and nbgym's CarRacing-v3 ("rgb_array"), reset anew by each example."""
    theirs = gymnasium.make("CarRacing-v3", render_mode="rgb_array")
    ours = nbgym.make("CarRacing-v3", render_mode="rgb_array")
    yield theirs, ours
    theirs.close()
    ours.close()


def _outcome(env, attribute, value):
    """What writing ``value`` and then a step and a frame give: ``(stage, exception type)`` or the results."""
    try:
        setattr(env.unwrapped, attribute, value)
    except Exception as raised:  # noqa: BLE001 - compared below
        return "write", raised
    try:
        obs, reward, terminated, truncated, _ = env.step(STEP)
        frame = env.render()
    except Exception as raised:  # noqa: BLE001
        return "step", raised
    return "ok", (obs, repr(float(reward)), terminated, truncated, frame, repr(env.unwrapped.reward))


def _check(pair, attribute, value, steps):
    theirs, ours = pair
    for env in pair:
        env.reset(seed=3)
        for _ in range(steps):
            env.step(STEP)
    before = getattr(ours.unwrapped, attribute)
    their_stage, their_result = _outcome(theirs, attribute, value)
    our_stage, our_result = _outcome(ours, attribute, value)
    if our_stage == "write":
        # nbgym refuses before anything moves (an int64 row cannot hold 1e300 tiles), saying what it wants
        assert isinstance(our_result, CLEAR), repr(our_result)
        assert str(our_result)
        assert repr(getattr(ours.unwrapped, attribute)) == repr(before)
        return
    if their_stage != "ok":
        assert our_stage == "step" and isinstance(our_result, CLEAR), (their_result, our_result)
        return
    assert our_stage == "ok", our_result
    for mine, wanted in zip(our_result, their_result):
        if isinstance(wanted, np.ndarray):
            np.testing.assert_array_equal(mine, wanted)
        else:
            assert mine == wanted


@pytest.mark.parametrize("attribute", ["reward", "prev_reward"])
@pytest.mark.parametrize("value", [1e20, -1e20, 1e30, 1e300, math.nan, math.inf, -math.inf])
def test_car_racing_score_of_a_huge_or_non_finite_reward_is_gymnasiums(pair, attribute, value):
    """The issue's repro: five steps, a reward past 9.2e18 (or not finite), then a step and a frame."""
    _check(pair, attribute, value, 5)


VALUES = st.one_of(st.sampled_from(EXTREMES), st.floats(), st.integers(-(2**70), 2**70))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attribute=st.sampled_from(ATTRIBUTES), value=VALUES, steps=st.integers(0, 3))
def test_car_racing_takes_any_written_value_as_gymnasium(pair, attribute, value, steps):
    _check(pair, attribute, value, steps)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attribute=st.sampled_from(ATTRIBUTES), value=VALUES, steps=st.integers(0, 12))
def test_car_racing_takes_any_written_value_as_gymnasium_long(pair, attribute, value, steps):
    _check(pair, attribute, value, steps)
