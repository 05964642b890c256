"""The helpers of gymnasium's envs that code around them calls: Pendulum's ``_get_obs``, Acrobot's ``_get_ob``,
Blackjack's ``_get_obs`` and MountainCar's ``_height``, giving gymnasium's values and types from the state as it is
now (after steps, and after the state is assigned)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers.toy_text_checks import assert_same_value

import nbgym

CASES = {
    "Pendulum-v1": ("_get_obs", "state", lambda: np.array([2.5, -3.0])),
    "Acrobot-v1": ("_get_ob", "state", lambda: np.array([0.3, -1.2, 2.0, -4.0])),
    "Blackjack-v1": ("_get_obs", "player", lambda: [1, 7]),
}


@pytest.mark.parametrize("env_id", CASES)
def test_observation_helpers_are_gymnasiums(env_id):
    method, attribute, value = CASES[env_id]
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    for seed in range(3):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        assert_same_value(getattr(ours, method)(), getattr(theirs, method)(), f"reset {seed}")
        action = theirs.action_space.sample()
        ours.step(action)
        theirs.step(action)
        assert_same_value(getattr(ours, method)(), getattr(theirs, method)(), f"step {seed}")
        setattr(ours, attribute, value())
        setattr(theirs, attribute, value())
        assert_same_value(getattr(ours, method)(), getattr(theirs, method)(), f"assigned {seed}")


@pytest.mark.parametrize("env_id", ["MountainCar-v0", "MountainCarContinuous-v0"])
def test_mountain_car_height_is_gymnasiums(env_id):
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    for xs in (np.linspace(-1.2, 0.6, 11), -0.5, np.float32(0.25)):
        assert_same_value(ours._height(xs), theirs._height(xs))
