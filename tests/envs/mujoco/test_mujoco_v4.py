"""The MuJoCo v4 environments (the v5 physics with v4's options) against gymnasium 1.4.0's: single and vector
envs bit for bit in every autoreset mode, non-default arguments, spaces and registration; and the ids
gymnasium registers only to refuse them (v2/v3, Pusher-v4 on mujoco >= 3), refused with gymnasium's
errors. Episodes are short (a small ``max_episode_steps``)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.env_ids import MUJOCO_V4_IDS as IDS
from helpers.toy_text_checks import assert_same_value
from test_mujoco import policy_for
from test_mujoco import test_check_env_passes_with_gymnasiums_warnings as check_env_warns_as_gymnasium

import nbgym

mujoco = pytest.importorskip("mujoco")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STEPS = 12 if INTERPRETED else 40
VECTOR_LIMIT = 4 if INTERPRETED else 9


@pytest.mark.parametrize("env_id", IDS)
def test_make_matches_gymnasium(env_id):
    compare_single(env_id, policy_for(env_id), [0, 1], STEPS, {"max_episode_steps": 15})


NON_DEFAULT = {
    "Ant-v4": {
        "ctrl_cost_weight": 0.3,
        "use_contact_forces": True,
        "contact_cost_weight": 1e-3,
        "healthy_z_range": (0.3, 0.9),
        "contact_force_range": (-0.5, 0.7),
        "reset_noise_scale": 0.2,
        "exclude_current_positions_from_observation": False,
        "terminate_when_unhealthy": False,
    },
    "Humanoid-v4": {
        "forward_reward_weight": 2.0,
        "healthy_z_range": (1.2, 1.9),
        "reset_noise_scale": 0.05,
        "terminate_when_unhealthy": False,
        "exclude_current_positions_from_observation": False,
    },
    "HalfCheetah-v4": {
        "forward_reward_weight": 2.0,
        "ctrl_cost_weight": 0.3,
        "reset_noise_scale": 0.3,
        "exclude_current_positions_from_observation": False,
    },
    "Swimmer-v4": {
        "forward_reward_weight": 0.5,
        "ctrl_cost_weight": 0.01,
        "reset_noise_scale": 0.3,
        "exclude_current_positions_from_observation": False,
    },
    "Hopper-v4": {
        "healthy_reward": 2.0,
        "healthy_state_range": (-5.0, 5.0),
        "healthy_z_range": (0.9, 2.0),
        "healthy_angle_range": (-0.1, 0.1),
        "terminate_when_unhealthy": False,
        "reset_noise_scale": 0.05,
        "exclude_current_positions_from_observation": False,
    },
    "Walker2d-v4": {
        "healthy_z_range": (0.9, 1.5),
        "healthy_angle_range": (-0.5, 0.5),
        "healthy_reward": 0.5,
        "forward_reward_weight": 2.0,
        "ctrl_cost_weight": 0.1,
    },
}


@pytest.mark.parametrize("env_id", list(NON_DEFAULT))
def test_non_default_arguments_match_gymnasium(env_id):
    compare_single(env_id, policy_for(env_id), [3], STEPS, {"max_episode_steps": 25, **NON_DEFAULT[env_id]})


@pytest.mark.parametrize("env_id", IDS)
def test_vector_matches_gymnasium_sync(env_id):
    for mode in MODES:
        terminations, truncations = compare_vector(
            env_id, policy_for(env_id, 3), 3, mode, 11, STEPS // 2, {"max_episode_steps": VECTOR_LIMIT}
        )
        assert truncations + terminations > 0


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_with_gymnasiums_warnings(env_id):
    check_env_warns_as_gymnasium(env_id)


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_metadata_and_registration_match_gymnasium(env_id):
    ours, theirs = nbgym.make(env_id), gymnasium.make(env_id)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    assert ours.unwrapped.metadata == theirs.unwrapped.metadata
    assert (ours.spec.max_episode_steps, ours.spec.reward_threshold) == (
        theirs.spec.max_episode_steps,
        theirs.spec.reward_threshold,
    )
    assert type(ours.unwrapped).__name__ == type(theirs.unwrapped).__name__
    assert type(ours.unwrapped).__module__.replace("nbgym", "gymnasium") == type(theirs.unwrapped).__module__
    assert ours.unwrapped.dt == theirs.unwrapped.dt and ours.unwrapped.frame_skip == theirs.unwrapped.frame_skip
    assert ours.unwrapped.fullpath.rsplit("/", 1)[1] == theirs.unwrapped.fullpath.rsplit("/", 1)[1]
    assert hasattr(ours.unwrapped, "observation_structure") == hasattr(theirs.unwrapped, "observation_structure")
    vector = nbgym.make_vec(env_id, 2)
    assert type(vector).__module__ == type(ours.unwrapped).__module__
    assert repr(vector.single_observation_space) == repr(theirs.observation_space)


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasiums_plain_attributes_read_alike(env_id):
    """Every number, flag, tuple or string gymnasium's v4 env keeps as an attribute (``_use_contact_forces``,
    ``_ctrl_cost_weight``, ...) reads alike: one missing (Ant's ``_use_contact_forces``) let an assignment make an
    attribute the kernels never read."""
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    for name, value in vars(theirs).items():
        if name in ("fullpath", "_ezpickle_args") or not (
            value is None or isinstance(value, (bool, int, float, tuple, str))
        ):
            continue
        assert getattr(ours, name) == value, name


def test_ant_v4_contact_forces_flag_is_fixed_at_make():
    ours = nbgym.make("Ant-v4", use_contact_forces=True).unwrapped
    assert ours._use_contact_forces is True
    with pytest.raises(AttributeError, match="_use_contact_forces is fixed when the env is made"):
        ours._use_contact_forces = False
    assert ours._use_contact_forces is True and ours.observation_space.shape == (111,)


def mujoco_py_ids(registry) -> set[str]:
    """The ids a registry refuses for needing mujoco-py (a ``_raise_mujoco_py_error`` entry point)."""
    return {
        env_id
        for env_id, env_spec in registry.items()
        if callable(env_spec.entry_point)
        and getattr(env_spec.entry_point, "__name__", None) == "_raise_mujoco_py_error"
    }


REFUSED_IDS = [*sorted(mujoco_py_ids(gymnasium.registry)), "Pusher-v4"]


@pytest.mark.parametrize("env_id", REFUSED_IDS)
def test_ids_gymnasium_refuses_are_refused_with_its_errors(env_id):
    assert env_id in nbgym.registry
    makers = [
        (lambda: gymnasium.make(env_id), lambda: nbgym.make(env_id)),
        (lambda: gymnasium.make_vec(env_id, 2), lambda: nbgym.make_vec(env_id, 2)),
    ]
    for theirs, ours in makers:
        with pytest.raises(Exception) as their_error:
            theirs()
        with pytest.raises(type(their_error.value)) as our_error:
            ours()
        assert str(our_error.value) == str(their_error.value)


def test_refused_ids_are_gymnasiums():
    assert len(REFUSED_IDS) == 18
    assert mujoco_py_ids(nbgym.registry) == mujoco_py_ids(gymnasium.registry)


def test_utils_read_and_write_the_state_as_gymnasiums():
    from gymnasium.envs.mujoco import utils as gym_utils

    from nbgym.envs.mujoco import utils

    ours, theirs = nbgym.make("Hopper-v4"), gymnasium.make("Hopper-v4")
    ours.reset(seed=3)
    theirs.reset(seed=3)
    saved = utils.get_state(ours)
    np.testing.assert_array_equal(saved, gym_utils.get_state(theirs))
    for env in (ours, theirs):  # the same step before the restore: the same warm start (not in the state)
        env.step(np.ones(3, dtype=np.float32))
    assert not np.array_equal(utils.get_state(ours), saved)
    utils.set_state(ours, saved)
    np.testing.assert_array_equal(utils.get_state(ours), saved)
    first = ours.step(np.ones(3, dtype=np.float32))
    if int(mujoco.__version__.split(".")[0]) >= 4:
        with pytest.raises(TypeError):  # gymnasium's passes mj_setState a keyword mujoco 4 renamed
            gym_utils.set_state(theirs, saved)
    mujoco.mj_setState(theirs.unwrapped.model, theirs.unwrapped.data, saved, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    second = theirs.step(np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(first[0], second[0])
    utils.check_mujoco_reset_state(ours)


@pytest.mark.parametrize("env_id", ["Humanoid-v4", "Humanoid-v5"])
def test_humanoid_sees_edits_of_the_body_masses_as_gymnasium(env_id):
    """gymnasium's centre of mass divides by ``model.body_mass.sum()`` on every step."""
    results = []
    for library in (nbgym, gymnasium):
        env = library.make(env_id)
        env.reset(seed=1)
        env.unwrapped.model.body_mass[3] *= 3.0
        results.append(env.step(np.full(17, 0.2, dtype=np.float32)))
    assert_same_value(results[0], results[1], env_id)


@pytest.mark.parametrize("healthy_reward", [3, np.float64(3.5), 2.5])
def test_inverted_double_pendulum_reward_survive_has_gymnasiums_type(healthy_reward):
    for steps in (1, 30):  # through termination (reward_survive 0 of the same type)
        infos = []
        for library in (nbgym, gymnasium):
            env = library.make("InvertedDoublePendulum-v5", healthy_reward=healthy_reward)
            env.reset(seed=0)
            for _ in range(steps):
                _, _, terminated, _, info = env.step(np.ones(1, dtype=np.float32))
                if terminated:
                    break
            infos.append(info)
        assert_same_value(infos[0], infos[1], f"healthy_reward={healthy_reward!r}")
        assert type(infos[0]["reward_survive"]) is type(infos[1]["reward_survive"])


def strong_gravity(env) -> None:
    """A gravity that makes HumanoidStandup-v4's impact cost pass gymnasium's bound of 10 on some steps."""
    env.model.opt.gravity[2] = -200.0


def test_humanoidstandup_clipped_impact_cost_has_gymnasiums_int():
    """gymnasium's ``min(cost, 10)`` is the int 10 above the bound: ``reward_impact`` is then the int -10."""
    policy = policy_for("HumanoidStandup-v4", dtype=np.float32)
    compare_single("HumanoidStandup-v4", policy, [0], 12, setup=strong_gravity)
    env = nbgym.make("HumanoidStandup-v4").unwrapped
    strong_gravity(env)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    impacts = [env.step(rng.uniform(-0.4, 0.4, 17).astype(np.float32))[4]["reward_impact"] for _ in range(12)]
    assert {type(impact) for impact in impacts} == {int, np.float64}  # the run covers both


def test_humanoidstandup_vector_batches_a_clipped_impact_cost_as_gymnasium():
    """gymnasium's sync vector env types ``reward_impact``'s array by its first value: an int truncates the rest."""
    ours = nbgym.make_vec("HumanoidStandup-v4", 3, vectorization_mode="vector_entry_point")
    theirs = gymnasium.make_vec("HumanoidStandup-v4", 3, vectorization_mode="sync")
    strong_gravity(ours.unwrapped)
    for env in theirs.envs:
        strong_gravity(env.unwrapped)
    assert_same_value(ours.reset(seed=5), theirs.reset(seed=5), "reset")
    rng = np.random.default_rng(5)
    dtypes = set()
    for t in range(12):
        actions = rng.uniform(-0.4, 0.4, (3, 17)).astype(np.float32)
        expected = theirs.step(actions)
        assert_same_value(ours.step(actions), expected, f"step {t}")
        dtypes.add(expected[4]["reward_impact"].dtype)
    assert dtypes == {np.dtype(np.int64), np.dtype(np.float64)}  # the run covers both
