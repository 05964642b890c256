"""The MuJoCo envs' action weights under NEP 50, against gymnasium 1.4.0: gymnasium multiplies the weight it
was given by ``sum(action**2)``, so a Python float or ``np.float32`` weight keeps a float32 action's cost in
float32 while a ``np.float64`` weight makes it float64 (reward bits and the ``reward_ctrl`` info's type)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from test_mujoco import policy_for

import nbgym

pytest.importorskip("mujoco")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# Every env whose step multiplies a weight by the sum of the squared action, and that weight's argument.
ACTION_WEIGHTS = [
    ("Ant-v5", "ctrl_cost_weight"),
    ("Ant-v4", "ctrl_cost_weight"),
    ("HalfCheetah-v5", "ctrl_cost_weight"),
    ("HalfCheetah-v4", "ctrl_cost_weight"),
    ("Hopper-v5", "ctrl_cost_weight"),
    ("Hopper-v4", "ctrl_cost_weight"),
    ("Walker2d-v5", "ctrl_cost_weight"),
    ("Walker2d-v4", "ctrl_cost_weight"),
    ("Swimmer-v5", "ctrl_cost_weight"),
    ("Swimmer-v4", "ctrl_cost_weight"),
    ("Reacher-v5", "reward_control_weight"),
    ("Pusher-v5", "reward_control_weight"),
]
# 0.3 is not a float32: a float32 product differs from a float64 one in its bits.
WEIGHTS = {"python-float": 0.3, "float64": np.float64(0.3), "float32": np.float32(0.3)}
STEPS = 6


def float32_actions(rng: np.random.Generator, observation: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(-1.5, 1.5, shape).astype(np.float32)


def single_policy(env_id: str):
    shape = nbgym.make(env_id).action_space.shape
    return lambda rng, observation: float32_actions(rng, observation, shape)


@pytest.mark.parametrize("weight_type", list(WEIGHTS))
@pytest.mark.parametrize(("env_id", "argument"), ACTION_WEIGHTS)
def test_weight_types_give_gymnasiums_cost_dtype(env_id, argument, weight_type):
    compare_single(env_id, single_policy(env_id), [4], STEPS, {argument: WEIGHTS[weight_type]})


@pytest.mark.parametrize("weight_type", list(WEIGHTS))
def test_assigned_weights_give_gymnasiums_cost_dtype(weight_type):
    """Assigning ``_ctrl_cost_weight`` live follows the assigned value's type, and reads it back as gymnasium."""

    def setup(env):
        env._ctrl_cost_weight = WEIGHTS[weight_type]

    compare_single("HalfCheetah-v5", single_policy("HalfCheetah-v5"), [6], STEPS, setup=setup)
    env = nbgym.make("HalfCheetah-v5", ctrl_cost_weight=np.float64(0.2)).unwrapped
    assert type(env._ctrl_cost_weight) is np.float64
    env._ctrl_cost_weight = 0.25
    assert type(env._ctrl_cost_weight) is float
    assert env._ctrl_cost_weight == 0.25


@pytest.mark.parametrize("env_id", ["Hopper-v5", "Pusher-v5"])
def test_vector_float64_weight_gives_gymnasiums_cost_dtype(env_id):
    argument = dict(ACTION_WEIGHTS)[env_id]
    compare_vector(
        env_id, policy_for(env_id, 2), 2, MODES[0], 8, STEPS, {"max_episode_steps": 4, argument: np.float64(0.3)}
    )


@pytest.mark.parametrize("weight", ["x", [1.0]])
def test_a_weight_that_is_not_a_number_is_refused_naming_its_argument(weight):
    """gymnasium fails only at the first step; nbgym refuses at make, and said "data type 'x' not understood"."""
    for make in (nbgym.make, lambda env_id, **kwargs: nbgym.make_vec(env_id, 2, **kwargs)):
        with pytest.raises(TypeError, match=re.escape(f"ctrl_cost_weight must be a number, got {weight!r}")):
            make("Swimmer-v5", ctrl_cost_weight=weight)
