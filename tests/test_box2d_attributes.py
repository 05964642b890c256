"""gymnasium's Box2D environments' attributes in nbgym's: after a reset and a step, every name of gymnasium's
``vars(env.unwrapped)`` exists in nbgym's environment, and those holding plain data (numbers, strings,
arrays and their lists, tuples and dicts) hold the same values, of the same types."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from _toy_text_checks import assert_same_value

import nbgym

PLAIN = (bool, int, float, str, type(None), np.ndarray, np.generic)


def is_plain(value: Any) -> bool:
    """Whether ``value`` is data compared by value (not a Box2D, pygame or space object)."""
    if isinstance(value, (list, tuple)):
        return all(is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(is_plain(item) for item in value.values())
    return isinstance(value, PLAIN)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("LunarLander-v3", {}),
        ("LunarLander-v3", {"continuous": True, "enable_wind": True}),
        ("BipedalWalker-v3", {"hardcore": True}),
        ("CarRacing-v3", {"domain_randomize": True}),
    ],
)
def test_gymnasiums_attributes_exist_with_its_values(env_id, kwargs):
    ours, theirs = nbgym.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    assert_same_value(ours.reset(seed=5), theirs.reset(seed=5))
    theirs.action_space.seed(5)
    action = theirs.action_space.sample()
    assert_same_value(ours.step(action), theirs.step(action))
    compared = 0
    for name, value in vars(theirs.unwrapped).items():
        assert hasattr(ours.unwrapped, name), f"{env_id} has no {name}"
        if is_plain(value):
            assert_same_value(getattr(ours.unwrapped, name), value, name)
            compared += 1
    assert compared >= 8
    ours.close()
    theirs.close()
