"""MuJoCo vector envs at scale: sub-environments in state rows (one ``MjData`` per stepping thread), their
``MjData`` rebuilt on request as gymnasium's sub-environments hold theirs, with writes reaching the next step.
"""

from __future__ import annotations

import copy
import pickle

import gymnasium
import mujoco
import numba
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.paths import EXAMPLES

import nbgym
from nbgym.envs.mujoco import _sim

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FIELDS = (
    "time",
    "qpos",
    "qvel",
    "act",
    "ctrl",
    "qacc",
    "qacc_warmstart",
    "xpos",
    "xipos",
    "cinert",
    "cvel",
    "cfrc_ext",
    "qfrc_actuator",
    "qfrc_constraint",
    "site_xpos",
    "sensordata",
    "qfrc_applied",
)


def assert_same_data(ours: mujoco.MjData, theirs: mujoco.MjData, where: object) -> None:
    for field in FIELDS:
        assert np.array_equal(getattr(ours, field), getattr(theirs, field)), (where, field)


def assert_same_results(ours: tuple, theirs: tuple, where: object) -> None:
    for a, b in zip(ours[:-1], theirs[:-1]):
        assert a.dtype == b.dtype and np.array_equal(a, b), where


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one worker steps one batch at a time")
@pytest.mark.parametrize("num_threads", [1, 2])
def test_batches_in_flight_side_by_side_have_mjdatas_of_their_own(num_threads):
    """An async run's batches in flight step side by side when the engine has more workers than ``num_threads``
    (another env made them), each on ``max(1, num_threads - 1)`` workers, and the caller joins them when it receives
    one: each of those threads has a slot, or they would spin for each other's."""
    envs = nbgym.make_vec("HalfCheetah-v5", 8, batch_size=4, num_threads=num_threads)
    assert len(envs._slot_datas) == min(2 * max(1, num_threads - 1), numba.config.NUMBA_NUM_THREADS) + 1
    sync = nbgym.make_vec("HalfCheetah-v5", 8, num_threads=num_threads)
    assert len(sync._slot_datas) == 2  # num_threads, or for step_async a worker and the caller
    envs.close()
    sync.close()


@pytest.mark.parametrize("num_threads", [1, 2])
def test_a_sub_environment_costs_a_state_row_not_an_mjdata(num_threads):
    envs = nbgym.make_vec("Humanoid-v5", 64, num_threads=num_threads)
    model = envs.model
    assert len(envs._slot_datas) == 2  # the threads that may step at once, whatever num_envs
    row_bytes = envs._batch.state.shape[1] * 8
    state_bytes = 8 * (mujoco.mj_stateSize(model, _sim.INTEGRATION) + mujoco.mj_stateSize(model, _sim.PRE_STEP))
    assert row_bytes == 8 * (_sim.ROW_STATE + 3 * model.nbody) + state_bytes
    assert row_bytes < 3 * 1024  # an MjData of this model: ~600 KiB


@pytest.mark.parametrize("env_id", ["Ant-v5", "Humanoid-v5", "InvertedDoublePendulum-v5", "Reacher-v4"])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_sub_environment_data_is_gymnasium_sync_data(env_id, num_threads):
    """``get_attr("data")``: each sub-environment's live ``MjData`` (derived quantities one substep behind,
    as after gymnasium's step); writes to it, ``set_state`` and the other ``MujocoEnv`` methods through
    ``call`` reach the next steps as in gymnasium's sync vector env."""
    ours = nbgym.make_vec(env_id, 3, max_episode_steps=6, num_threads=num_threads)
    theirs = gymnasium.make_vec(env_id, 3, vectorization_mode="sync", max_episode_steps=6)
    assert_same_results(ours.reset(seed=2), theirs.reset(seed=2), "reset")
    data_ours, data_theirs = ours.get_attr("data"), theirs.get_attr("data")
    assert ours.get_attr("data")[1] is data_ours[1]  # live, as gymnasium's
    rng = np.random.default_rng(0)
    body = ours.model.body(1).name
    for t in range(2 if INTERPRETED else 14):
        actions = rng.uniform(-1, 1, ours.action_space.shape).astype(np.float32)
        if t == 1:
            for datas in (data_ours, data_theirs):
                datas[1].qvel[0] += 0.5
                datas[2].qfrc_applied[0] = 3.0
        if t == 4:
            qpos, qvel = ours.model.qpos0 + 0.01, np.zeros(ours.model.nv)
            assert ours.call("set_state", qpos, qvel) == theirs.call("set_state", qpos, qvel)
        if t == 6:
            for a, b in zip(ours.call("state_vector"), theirs.call("state_vector")):
                assert np.array_equal(a, b)
            for a, b in zip(ours.call("get_body_com", body), theirs.call("get_body_com", body)):
                assert np.array_equal(a, b)
        assert_same_results(ours.step(actions), theirs.step(actions), t)
        for k in range(3):
            assert_same_data(data_ours[k], data_theirs[k], (t, k))
    models = ours.get_attr("model")  # each sub-environment's own, equal to gymnasium's
    assert len({id(model) for model in models}) == 3 and ours.get_attr("model")[0] is models[0]
    for model, theirs_model in zip(models, theirs.get_attr("model")):
        assert (
            np.array_equal(model.body_mass, theirs_model.body_mass) and model.opt.timestep == theirs_model.opt.timestep
        )
    assert ours.get_attr("frame_skip") == theirs.get_attr("frame_skip")


def test_data_requested_later_is_rebuilt_as_gymnasium_left_it():
    ours = nbgym.make_vec("Ant-v5", 2, max_episode_steps=4)
    theirs = gymnasium.make_vec("Ant-v5", 2, vectorization_mode="sync", max_episode_steps=4)
    ours.reset(seed=5)
    theirs.reset(seed=5)
    for index in range(2):
        assert_same_data(ours.data_of(index), theirs.envs[index].unwrapped.data, "reset")
    for t in range(6):
        actions = np.full(ours.action_space.shape, 0.3 * (-1) ** t, dtype=np.float32)
        ours.step(actions)
        theirs.step(actions)
        for index in range(2):
            assert_same_data(copy.copy(ours).data_of(index), theirs.envs[index].unwrapped.data, t)


def test_copies_and_pickles_keep_written_data():
    envs = nbgym.make_vec("HalfCheetah-v5", 2)
    envs.reset(seed=0)
    envs.get_attr("data")[0].qvel[:] = 1.0
    twin = pickle.loads(pickle.dumps(envs))
    actions = np.zeros(envs.action_space.shape, dtype=np.float32)
    assert np.array_equal(envs.step(actions)[0], twin.step(actions)[0])
    assert np.array_equal(twin.data_of(0).qpos, envs.data_of(0).qpos)


def test_data_and_model_cannot_be_replaced():
    envs = nbgym.make_vec("HalfCheetah-v5", 2)
    for name in ("data", "model"):
        with pytest.raises(AttributeError, match="cannot be replaced"):
            envs.set_attr(name, [None, None])
    with pytest.raises(IndexError):
        envs.data_of(2)


def test_slots_follow_num_threads():
    envs = nbgym.make_vec("Hopper-v5", 4, max_episode_steps=5)
    envs.reset(seed=1)
    theirs = gymnasium.make_vec("Hopper-v5", 4, vectorization_mode="sync", max_episode_steps=5)
    theirs.reset(seed=1)
    rng = np.random.default_rng(3)
    for t in range(8):
        envs.num_threads = 1 + t % 2
        assert len(envs._slot_datas) == max(2, envs.num_threads)  # step_async: a worker and the caller
        actions = rng.uniform(-1, 1, envs.action_space.shape)
        assert_same_results(envs.step(actions), theirs.step(actions), t)


EDITS = {
    "body_mass": lambda model, i: model.body_mass.__setitem__(slice(1, None), model.body_mass[1:] * (1 + 0.3 * i)),
    "geom_friction": lambda model, i: model.geom_friction.__setitem__((slice(None), 0), 0.5 + 0.2 * i),
    "actuator_gear": lambda model, i: model.actuator_gear.__setitem__(
        (slice(None), 0), model.actuator_gear[:, 0] * (1 - 0.2 * i)
    ),
    "opt.gravity": lambda model, i: model.opt.gravity.__setitem__(2, -9.81 + i),
}


@pytest.mark.parametrize("env_id", ["HalfCheetah-v5", "Humanoid-v5", "Ant-v4"])
@pytest.mark.parametrize("num_threads", [1, 2])
def test_a_loop_editing_each_sub_environments_model_is_gymnasiums(env_id, num_threads):
    """Domain randomisation as with gymnasium's sync vector env: each sub-environment's ``model`` edited in a
    loop (masses, friction, gears, gravity) gives gymnasium's numbers (Humanoid's mass centre divides by each
    one's total mass)."""
    ours = nbgym.make_vec(env_id, 3, max_episode_steps=6, num_threads=num_threads)
    theirs = gymnasium.make_vec(env_id, 3, vectorization_mode="sync", max_episode_steps=6)
    for envs in (ours, theirs):
        for i, model in enumerate(envs.get_attr("model")):
            for edit in EDITS.values():
                edit(model, i)
    assert_same_results(ours.reset(seed=3), theirs.reset(seed=3), "reset")
    assert sorted(ours.unwrapped._random) == sorted(EDITS)  # the fields edited now differ between sub-environments
    rng = np.random.default_rng(1)
    for t in range(3 if INTERPRETED else 14):
        actions = rng.uniform(-1, 1, ours.action_space.shape).astype(np.float32)
        assert_same_results(ours.step(actions), theirs.step(actions), t)
        for k in range(3):
            assert_same_data(ours.data_of(k), theirs.envs[k].unwrapped.data, (t, k))
    for k, model in enumerate(ours.get_attr("model")):
        assert np.array_equal(model.body_mass, theirs.envs[k].unwrapped.model.body_mass)


def test_model_field_sets_a_field_for_every_sub_environment_at_once():
    ours = nbgym.make_vec("Hopper-v5", 3, max_episode_steps=8)
    theirs = gymnasium.make_vec("Hopper-v5", 3, vectorization_mode="sync", max_episode_steps=8)
    masses = ours.model_field("body_mass")
    assert masses.shape == (3, ours.model.nbody) and ours.model_field("body_mass") is masses
    masses[:, 1] = [2.0, 4.0, 6.0]
    ours.model_field("opt.gravity")[:, 2] = [-9.0, -10.0, -11.0]
    for i, env in enumerate(theirs.envs):
        env.unwrapped.model.body_mass[1] = [2.0, 4.0, 6.0][i]
        env.unwrapped.model.opt.gravity[2] = [-9.0, -10.0, -11.0][i]
    assert_same_results(ours.reset(seed=0), theirs.reset(seed=0), "reset")
    rng = np.random.default_rng(2)
    for t in range(3 if INTERPRETED else 16):
        actions = rng.uniform(-1, 1, ours.action_space.shape)
        if t == 5:  # an edit of the shared model reaches every sub-environment, the fields that differ stay theirs
            ours.model.dof_damping[3] = 0.5
            for env in theirs.envs:
                env.unwrapped.model.dof_damping[3] = 0.5
        assert_same_results(ours.step(actions), theirs.step(actions), t)
    assert ours.model.body_mass[1] != 2.0  # the env's own model is untouched


def test_model_fields_that_cannot_differ_are_refused():
    envs = nbgym.make_vec("HalfCheetah-v5", 2)
    with pytest.raises(ValueError, match="float64 arrays"):
        envs.model_field("geom_type")
    with pytest.raises(AttributeError):
        envs.model_field("no_such_field")


FIXED_EDITS = {
    "opt.viscosity": lambda model: setattr(model.opt, "viscosity", 2.0),
    "opt.timestep": lambda model: setattr(model.opt, "timestep", 0.001),
    "opt.integrator": lambda model: setattr(model.opt, "integrator", 0 if model.opt.integrator else 1),
    "geom_contype": lambda model: model.geom_contype.__setitem__(0, 0),
    "vis.global_.fovy": lambda model: setattr(model.vis.global_, "fovy", 10.0),
}


@pytest.mark.parametrize("field", FIXED_EDITS)
def test_an_edit_of_a_sub_environments_fixed_model_field_is_refused_and_undone(field):
    """The kernels simulate every sub-environment with the env model's fields but for its float64 arrays: an edit
    of another field in one sub-environment's model (a one-liner: the model is not kept) was accepted and ignored;
    now the next step refuses it, undone, and steps on as gymnasium's sync env without it."""
    ours = nbgym.make_vec("Hopper-v5", 2)
    theirs = gymnasium.make_vec("Hopper-v5", 2, vectorization_mode="sync")
    assert_same_results(ours.reset(seed=[1, 2]), theirs.reset(seed=[1, 2]), "reset")
    actions = np.full((2, 3), 0.5, np.float32)
    FIXED_EDITS[field](ours.get_attr("model")[1])
    with pytest.raises(ValueError, match=rf"Sub-environment 1's model\.{field} changed: .* The change was undone"):
        ours.step(actions)
    assert _fixed_value(ours.get_attr("model")[1], field) == _fixed_value(ours.model, field)
    for t in range(3):
        assert_same_results(ours.step(actions), theirs.step(actions), t)


def test_an_edit_of_the_shared_model_reaches_every_sub_environment_while_theirs_are_held():
    ours = nbgym.make_vec("Hopper-v5", 2)
    theirs = gymnasium.make_vec("Hopper-v5", 2, vectorization_mode="sync")
    models = ours.get_attr("model")  # held: their fields as handed out are not edits
    ours.model.opt.viscosity = 2.0
    ours.model.geom_contype[:] = 0
    for model in theirs.get_attr("model"):
        model.opt.viscosity = 2.0
        model.geom_contype[:] = 0
    assert_same_results(ours.reset(seed=[1, 2]), theirs.reset(seed=[1, 2]), "reset")
    for t in range(4):
        actions = np.full((2, 3), 0.5, np.float32)
        assert_same_results(ours.step(actions), theirs.step(actions), t)
    assert len(models) == 2


def _fixed_value(model, name):
    value = model
    for part in name.split("."):
        value = getattr(value, part)
    return value.tobytes() if isinstance(value, np.ndarray) else value


@pytest.mark.skipif(INTERPRETED, reason="a run of the example, compiled")
def test_domain_randomisation_example_matches_gymnasium():
    import importlib.util

    path = EXAMPLES / "mujoco_domain_randomisation.py"
    spec = importlib.util.spec_from_file_location("mujoco_domain_randomisation", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--num-envs", "3", "--steps", "40", "--max-episode-steps", "12", "--check"]) == 0


def test_gymnasiums_underscored_parameters_go_through_get_attr_and_set_attr():
    """gymnasium's sync env reads and sets its sub-environments' ``_ctrl_cost_weight``; the compiled env refused
    underscored names."""
    ours = nbgym.make_vec("Hopper-v5", 2)
    theirs = gymnasium.make_vec("Hopper-v5", 2, vectorization_mode="sync")
    assert ours.get_attr("_ctrl_cost_weight") == theirs.get_attr("_ctrl_cost_weight") == (0.001, 0.001)
    for envs in (ours, theirs):
        envs.set_attr("_ctrl_cost_weight", 0.25)
    assert ours.get_attr("_ctrl_cost_weight") == theirs.get_attr("_ctrl_cost_weight") == (0.25, 0.25)
    assert_same_results(ours.reset(seed=[1, 2]), theirs.reset(seed=[1, 2]), "reset")
    actions = np.full((2, 3), 0.5, np.float32)
    for t in range(3):
        assert_same_results(ours.step(actions), theirs.step(actions), t)
    with pytest.raises(AttributeError):
        ours.get_attr("__class__")
