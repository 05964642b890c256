"""gymnasium's public health and cost members of the MuJoCo walkers (``is_healthy``, ``healthy_reward``,
``control_cost(action)``, ``contact_forces``, ``contact_cost``, v4's ``terminated``), ``_get_obs()`` and
``_get_reset_info()`` on nbgym's single envs: the same
values of the same types as gymnasium's along seeded episodes, and after the state is set from Python (they read the
live data, as gymnasium's do)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.toy_text_checks import assert_same_value

import nbgym

pytest.importorskip("mujoco")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MEMBERS = {
    "Ant-v5": ("is_healthy", "healthy_reward", "contact_forces", "contact_cost"),
    "Ant-v4": ("is_healthy", "healthy_reward", "contact_forces", "contact_cost", "terminated"),
    "Hopper-v5": ("is_healthy", "healthy_reward"),
    "Hopper-v4": ("is_healthy", "healthy_reward", "terminated"),
    "Humanoid-v5": ("is_healthy", "healthy_reward", "contact_cost"),
    "Humanoid-v4": ("is_healthy", "healthy_reward", "terminated"),
    "Walker2d-v5": ("is_healthy", "healthy_reward"),
    "Walker2d-v4": ("is_healthy", "healthy_reward", "terminated"),
    "Swimmer-v5": (),
    "HalfCheetah-v4": (),
}
STEPS = 6 if INTERPRETED else 30


@pytest.mark.parametrize("env_id", MEMBERS)
def test_health_and_cost_members_are_gymnasiums(env_id):
    kwargs = {"terminate_when_unhealthy": False} if "healthy_reward" in MEMBERS[env_id] else {}
    ours, theirs = nbgym.make(env_id, **kwargs).unwrapped, gymnasium.make(env_id, **kwargs).unwrapped
    ours.reset(seed=7)
    theirs.reset(seed=7)
    rng = np.random.default_rng(3)
    for t in range(STEPS):
        action = rng.uniform(-1, 1, theirs.action_space.shape).astype(np.float32)
        ours.step(action)
        theirs.step(action)
        if t == STEPS // 2:  # a state set from Python: the members read the live data
            qpos = theirs.init_qpos + rng.uniform(-0.5, 0.5, theirs.model.nq)
            qvel = rng.uniform(-3.0, 3.0, theirs.model.nv)
            ours.set_state(qpos, qvel)
            theirs.set_state(qpos, qvel)
        for name in MEMBERS[env_id]:
            assert_same_value(getattr(ours, name), getattr(theirs, name), f"{name} at {t}")
        assert_same_value(ours.control_cost(action), theirs.control_cost(action), f"control_cost at {t}")


def test_the_vector_envs_do_not_take_the_single_envs_members():
    """A compiled vector env has no ``data`` of its own: the members are the single env's, not shared attributes."""
    envs = nbgym.make_vec("Hopper-v5", 2)
    assert not hasattr(envs, "is_healthy")
    with pytest.raises(AttributeError):
        envs.get_attr("is_healthy")


OBSERVATION_CASES = [
    *[
        (env_id, {})
        for env_id in sorted(gymnasium.registry)
        if "mujoco" in str(gymnasium.registry[env_id].entry_point)
        and env_id.endswith(("-v4", "-v5"))
        and env_id != "Pusher-v4"  # mujoco < 3 only, in both
    ],
    ("HalfCheetah-v5", {"exclude_current_positions_from_observation": False}),
    ("Ant-v5", {"include_cfrc_ext_in_observation": False}),
    ("Ant-v4", {"use_contact_forces": True}),
    ("Humanoid-v5", {"include_cinert_in_observation": False, "include_cfrc_ext_in_observation": False}),
]


@pytest.mark.parametrize(("env_id", "kwargs"), OBSERVATION_CASES, ids=lambda case: str(case))
def test_get_obs_is_gymnasiums_of_the_live_data(env_id, kwargs):
    """``_get_obs()`` and ``_get_reset_info()`` observe the simulation as it is now, after a reset, steps and
    ``set_state``, with gymnasium's values, and move nothing: the next step is still gymnasium's."""
    ours, theirs = nbgym.make(env_id, **kwargs).unwrapped, gymnasium.make(env_id, **kwargs).unwrapped
    observation, info = ours.reset(seed=5)
    theirs.reset(seed=5)
    assert_same_value(ours._get_obs(), theirs._get_obs(), "after reset")
    np.testing.assert_array_equal(ours._get_obs(), observation)
    assert_same_value(ours._get_reset_info(), theirs._get_reset_info(), "reset info after reset")
    assert_same_value(ours._get_reset_info(), info, "the reset's info")
    rng = np.random.default_rng(1)
    for t in range(3):
        action = rng.uniform(-1, 1, theirs.action_space.shape).astype(np.float32)
        ours.step(action)
        theirs.step(action)
    assert_same_value(ours._get_obs(), theirs._get_obs(), "after steps")
    assert_same_value(ours._get_reset_info(), theirs._get_reset_info(), "reset info after steps")
    qpos = theirs.init_qpos + rng.uniform(-0.3, 0.3, theirs.model.nq)
    qvel = rng.uniform(-2.0, 2.0, theirs.model.nv)
    ours.set_state(qpos, qvel)
    theirs.set_state(qpos, qvel)
    observed = ours._get_obs()
    assert_same_value(observed, theirs._get_obs(), "after set_state")
    assert_same_value(ours._get_reset_info(), theirs._get_reset_info(), "reset info after set_state")
    observed[:] = np.nan  # a new array: the next one is not it
    action = rng.uniform(-1, 1, theirs.action_space.shape).astype(np.float32)
    ours_step, theirs_step = ours.step(action), theirs.step(action)
    assert_same_value(ours_step[0], theirs_step[0], "the step after")
    assert_same_value(ours_step[1], theirs_step[1], "the step's reward")
    assert_same_value(ours._get_obs(), theirs._get_obs(), "after the step")


REWARD_IDS = [
    "HalfCheetah-v5", "Hopper-v5", "Walker2d-v5", "Swimmer-v5", "Ant-v5", "Humanoid-v5", "HumanoidStandup-v5",
    "Reacher-v5", "Pusher-v5", "InvertedDoublePendulum-v5",
]  # fmt: skip


@pytest.mark.parametrize("env_id", REWARD_IDS)
def test_get_rew_is_gymnasiums_of_the_live_data(env_id):
    """v5's ``_get_rew(...)``: gymnasium's reward and reward terms, of the same types, for the arguments given and
    the simulation as it is now (after steps and ``set_state``), as a subclass's own ``step`` would call it."""
    kwargs = {"terminate_when_unhealthy": False} if env_id in ("Hopper-v5", "Walker2d-v5", "Ant-v5") else {}
    ours, theirs = nbgym.make(env_id, **kwargs).unwrapped, gymnasium.make(env_id, **kwargs).unwrapped
    ours.reset(seed=2)
    theirs.reset(seed=2)
    rng = np.random.default_rng(4)
    for t in range(4):
        action = rng.uniform(-1, 1, theirs.action_space.shape).astype(np.float32)
        if t < 3:
            ours.step(action)
            theirs.step(action)
        else:  # a state set from Python
            qpos = theirs.init_qpos + rng.uniform(-0.3, 0.3, theirs.model.nq)
            qvel = rng.uniform(-2.0, 2.0, theirs.model.nv)
            ours.set_state(qpos, qvel)
            theirs.set_state(qpos, qvel)
        if env_id in ("Reacher-v5", "Pusher-v5"):
            arguments = (action,)
        elif env_id == "InvertedDoublePendulum-v5":
            arguments = (np.float64(rng.normal()), np.float64(1.5 + rng.normal()), bool(t % 2))
        else:
            arguments = (np.float64(rng.normal()), action)
        assert_same_value(ours._get_rew(*arguments), theirs._get_rew(*arguments), f"_get_rew at {t}")
