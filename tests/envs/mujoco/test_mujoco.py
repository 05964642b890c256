"""The MuJoCo v5 environments on the compiled engine against gymnasium 1.4.0 (same installed mujoco): single
and vector envs bit for bit, non-default arguments, bad input, unstable simulations, the ``MujocoEnv`` base
class for a user's own env, and the kernels' disk cache.

Episodes are short (a small ``max_episode_steps``) so that truncations, terminations and autoresets all
happen within a few dozen steps.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import pickle
import pathlib
import subprocess
import sys
import textwrap
import warnings

import gymnasium
import numpy as np
import pytest
from helpers.jit import INTERPRETED
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.env_ids import MUJOCO_V5_IDS as IDS
from helpers.toy_text_checks import assert_same_value
from gymnasium.envs.mujoco.mujoco_env import MujocoEnv as GymnasiumMujocoEnv
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import nbgym
from nbgym.engine import REGISTERED
from nbgym.engine._declare import registered_max_episode_steps
from nbgym import error
from nbgym.envs.mujoco.mujoco_env import ASSETS, MujocoEnv
from nbgym.utils.env_checker import check_env

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STEPS = 12 if INTERPRETED else 40
VECTOR_LIMIT = 4 if INTERPRETED else 9


def mixed_actions(rng: np.random.Generator, observation: np.ndarray, shape: tuple[int, ...]) -> object:
    """Actions beyond the control range (MuJoCo clamps them) as float32 and float64 arrays and Python lists."""
    action = rng.uniform(-1.5, 1.5, shape)
    kind = rng.integers(0, 3)
    return action.astype(np.float32) if kind == 0 else (action if kind == 1 else action.tolist())


def policy_for(env_id: str, batch: int | None = None, dtype: type = np.float32):
    shape = gymnasium.make(env_id).action_space.shape
    if batch is None:
        return lambda rng, observation: mixed_actions(rng, observation, shape)
    return lambda rng, observations: rng.uniform(-1.5, 1.5, (batch, *shape)).astype(dtype)


@pytest.mark.parametrize("env_id", IDS)
def test_make_matches_gymnasium(env_id):
    compare_single(env_id, policy_for(env_id), [0, 1], STEPS, {"max_episode_steps": 15})


NON_DEFAULT = {
    "Ant-v5": {
        "frame_skip": 3,
        "ctrl_cost_weight": 0.3,
        "contact_cost_weight": 1e-3,
        "healthy_z_range": (0.3, 0.9),
        "contact_force_range": (-0.5, 0.7),
        "main_body": "torso",
        "reset_noise_scale": 0.2,
        "exclude_current_positions_from_observation": False,
        "include_cfrc_ext_in_observation": False,
    },
    "HalfCheetah-v5": {
        "frame_skip": 2,
        "forward_reward_weight": 2.0,
        "ctrl_cost_weight": 0.3,
        "reset_noise_scale": 0.3,
        "exclude_current_positions_from_observation": False,
    },
    "Hopper-v5": {
        "healthy_reward": 2.0,
        "healthy_state_range": (-5.0, 5.0),
        "healthy_z_range": (0.9, 2.0),
        "healthy_angle_range": (-0.1, 0.1),
        "terminate_when_unhealthy": False,
        "reset_noise_scale": 0.05,
    },
    "Humanoid-v5": {
        "contact_cost_range": (-1.0, 1e-4),
        "healthy_z_range": (1.2, 1.9),
        "reset_noise_scale": 0.05,
        "include_cinert_in_observation": False,
        "include_qfrc_actuator_in_observation": False,
        "exclude_current_positions_from_observation": False,
    },
    "HumanoidStandup-v5": {
        "impact_cost_weight": 1e-4,
        "impact_cost_range": (-1.0, 2e-3),
        "ctrl_cost_weight": 0.2,
        "include_cvel_in_observation": False,
        "include_cfrc_ext_in_observation": False,
    },
    "InvertedDoublePendulum-v5": {"healthy_reward": 3.5, "reset_noise_scale": 0.3, "frame_skip": 3},
    "InvertedPendulum-v5": {"reset_noise_scale": 0.1, "frame_skip": 4},
    "Pusher-v5": {"reward_near_weight": 0.8, "reward_dist_weight": 1.5, "reward_control_weight": 0.4},
    "Reacher-v5": {"reward_dist_weight": 2.5, "reward_control_weight": 0.2, "frame_skip": 3},
    "Swimmer-v5": {
        "forward_reward_weight": 0.5,
        "ctrl_cost_weight": 0.01,
        "reset_noise_scale": 0.3,
        "exclude_current_positions_from_observation": False,
    },
    "Walker2d-v5": {
        "healthy_z_range": (0.9, 1.5),
        "healthy_angle_range": (-0.5, 0.5),
        "xml_file": "walker2d.xml",
        "healthy_reward": 0.5,
    },
}


@pytest.mark.parametrize("env_id", IDS)
def test_non_default_arguments_match_gymnasium(env_id):
    compare_single(env_id, policy_for(env_id), [3], STEPS, {"max_episode_steps": 25, **NON_DEFAULT[env_id]})


@pytest.mark.parametrize("env_id", ["HalfCheetah-v5", "Ant-v5", "Humanoid-v5", "InvertedDoublePendulum-v5"])
def test_vector_non_default_arguments_match_gymnasium_sync(env_id):
    compare_vector(
        env_id,
        policy_for(env_id, 2),
        2,
        "NextStep",
        6,
        STEPS // 4,
        {"max_episode_steps": VECTOR_LIMIT, **NON_DEFAULT[env_id]},
    )


# Every MuJoCo v4/v5 id gymnasium registers (Pusher-v4 too, which both refuse), by the module of its class.
MUJOCO_IDS = sorted(
    env_id
    for env_id, spec in gymnasium.registry.items()
    if isinstance(spec.entry_point, str)
    and spec.entry_point.startswith("gymnasium.envs.mujoco.")
    and env_id.endswith(("-v4", "-v5"))
)


def load_entry_point(entry_point: str) -> type:
    module, name = entry_point.split(":")
    return getattr(importlib.import_module(module), name)


def same_default(ours: object, theirs: object) -> bool:
    """Equal and of the same type, dicts (with arrays) and tuples element by element."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return ours.keys() == theirs.keys() and all(same_default(ours[key], theirs[key]) for key in ours)
    if isinstance(ours, np.ndarray) or isinstance(theirs, np.ndarray):
        return type(ours) is type(theirs) and ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return len(ours) == len(theirs) and all(same_default(a, b) for a, b in zip(ours, theirs))
    return type(ours) is type(theirs) and ours == theirs


def assert_same_parameters(ours: inspect.Signature, theirs: list[inspect.Parameter]) -> None:
    assert [(p.name, p.kind) for p in ours.parameters.values()] == [(p.name, p.kind) for p in theirs]
    for mine, expected in zip(ours.parameters.values(), theirs):
        assert same_default(mine.default, expected.default), (mine.name, mine.default, expected.default)


def test_every_mujoco_id_is_checked():
    assert len(MUJOCO_IDS) == 22


@pytest.mark.parametrize("env_id", MUJOCO_IDS)
def test_signatures_match_gymnasium(env_id):
    theirs = load_entry_point(gymnasium.spec(env_id).entry_point)
    single = load_entry_point(gymnasium.spec(env_id).entry_point.replace("gymnasium.", "nbgym.", 1))
    assert_same_parameters(inspect.signature(single), list(inspect.signature(theirs).parameters.values()))
    assert single.__doc__ and single.__init__.__doc__ is None  # the Markdown documentation is the class's
    if env_id == "Pusher-v4":
        assert nbgym.spec(env_id).vector_entry_point is None
        return
    vector = load_entry_point(nbgym.spec(env_id).vector_entry_point)
    name = single.__name__.removesuffix("Env") + "VectorEnv"
    assert (vector.__name__, vector.__qualname__, vector.__module__) == (name, name, single.__module__)
    assert vector.__doc__.startswith(f"{single.__name__}'s compiled vector environment")
    assert pickle.loads(pickle.dumps(vector)) is vector
    parameter = inspect.Parameter
    expected = [
        parameter("num_envs", parameter.POSITIONAL_OR_KEYWORD, default=1),
        parameter("max_episode_steps", parameter.POSITIONAL_OR_KEYWORD, default=REGISTERED),
        parameter("render_mode", parameter.POSITIONAL_OR_KEYWORD, default=None),
        *(
            p
            for p in inspect.signature(single).parameters.values()
            if p.kind is parameter.POSITIONAL_OR_KEYWORD and p.name != "default_camera_config"
        ),
        parameter("vector_options", parameter.VAR_KEYWORD),
    ]
    assert nbgym.spec(env_id).max_episode_steps == gymnasium.spec(env_id).max_episode_steps
    # the limit a vector class built directly takes by default: its registration's
    defaults = {p.name: p.default for p in expected[2:-1]}
    assert registered_max_episode_steps(single, vector, defaults) == gymnasium.spec(env_id).max_episode_steps
    assert_same_parameters(inspect.signature(vector), expected)


@pytest.mark.parametrize("env_id", [env_id for env_id in MUJOCO_IDS if env_id != "Pusher-v4"])
def test_classes_refuse_unknown_arguments(env_id):
    single = load_entry_point(nbgym.spec(env_id).entry_point)
    vector = load_entry_point(nbgym.spec(env_id).vector_entry_point)
    with pytest.raises(TypeError, match="no_such_argument"):
        single(no_such_argument=1)
    with pytest.raises(TypeError, match="no_such_argument"):
        vector(2, no_such_argument=1)
    with pytest.raises(TypeError):  # one more positional argument than the signature has
        single(
            *(p.default for p in inspect.signature(single).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD), 1
        )


def test_positional_arguments_work_as_in_gymnasium():
    from nbgym.envs.mujoco.ant_v5 import AntEnv, AntVectorEnv
    from nbgym.envs.mujoco.half_cheetah_v5 import HalfCheetahEnv, HalfCheetahVectorEnv

    env = HalfCheetahEnv("half_cheetah.xml", 2, None, 2.0)
    assert (env.frame_skip, env._forward_reward_weight, env.observation_structure["qpos"]) == (2, 2.0, 8)
    # a vector class's order: gymnasium's CartPoleVectorEnv's (num_envs, max_episode_steps, render_mode), then the env's
    envs = HalfCheetahVectorEnv(3, 7, None, "half_cheetah.xml", 2, 2.0)
    assert (envs.num_envs, envs.max_episode_steps, envs.frame_skip, envs._forward_reward_weight) == (3, 7, 2, 2.0)
    assert HalfCheetahVectorEnv(1).max_episode_steps == 1000  # HalfCheetah-v5's
    assert isinstance(nbgym.make_vec("HalfCheetah-v5", 2), HalfCheetahVectorEnv)
    envs = AntVectorEnv(2, include_cfrc_ext_in_observation=False, max_episode_steps=5)
    assert (
        envs.single_observation_space.shape
        == AntEnv(include_cfrc_ext_in_observation=False).observation_space.shape
        == (27,)
    )
    assert type(pickle.loads(pickle.dumps(envs))) is AntVectorEnv


def test_custom_xml_file_path_matches_gymnasium(tmp_path):
    xml = tmp_path / "cheetah.xml"
    xml.write_text(
        (pathlib.Path(ASSETS) / "half_cheetah.xml").read_text().replace('timestep="0.01"', 'timestep="0.02"')
    )
    compare_single("HalfCheetah-v5", policy_for("HalfCheetah-v5"), [5], STEPS, {"xml_file": str(xml)})
    assert nbgym.make("HalfCheetah-v5", xml_file=str(xml)).unwrapped.dt == pytest.approx(0.1)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("num_threads", [1, pytest.param(2, marks=pytest.mark.slow)] if INTERPRETED else [1, 2])
def test_vector_matches_gymnasium_sync(env_id, num_threads):
    for mode in MODES:
        terminations, truncations = compare_vector(
            env_id,
            policy_for(env_id, 3),
            3,
            mode,
            11,
            STEPS // 2,
            {"max_episode_steps": VECTOR_LIMIT},
            nbgym_kwargs={"num_threads": num_threads},
        )
        assert truncations + terminations > 0


@pytest.mark.skipif(INTERPRETED, reason="interpreted, the threaded kernel is the serial one")
@pytest.mark.parametrize("env_id", ["HalfCheetah-v5", "Hopper-v5", "Humanoid-v5"])
def test_vector_results_do_not_depend_on_threads(env_id):
    runs = []
    for num_threads in (1, 2):
        envs = nbgym.make_vec(env_id, 5, num_threads=num_threads, autoreset_mode="SameStep", max_episode_steps=7)
        rng = np.random.default_rng(0)
        results = [envs.reset(seed=4)]
        for _ in range(STEPS // 2):
            results.append(envs.step(rng.uniform(-1, 1, envs.action_space.shape).astype(np.float32)))
        runs.append(results)
    for a, b in zip(*runs):
        assert_same_value(a, b, env_id)


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_metadata_and_registration_match_gymnasium(env_id):
    ours, theirs = nbgym.make(env_id), gymnasium.make(env_id)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    assert ours.unwrapped.metadata == theirs.unwrapped.metadata
    assert ours.spec.max_episode_steps == theirs.spec.max_episode_steps
    assert ours.spec.reward_threshold == theirs.spec.reward_threshold
    assert type(ours.unwrapped).__name__ == type(theirs.unwrapped).__name__
    assert type(ours.unwrapped).__module__.replace("nbgym", "gymnasium") == type(theirs.unwrapped).__module__
    assert ours.unwrapped.dt == theirs.unwrapped.dt and ours.unwrapped.frame_skip == theirs.unwrapped.frame_skip
    assert np.array_equal(ours.unwrapped.init_qpos, theirs.unwrapped.init_qpos)
    assert getattr(ours.unwrapped, "observation_structure", None) == getattr(
        theirs.unwrapped, "observation_structure", None
    )
    vector = nbgym.make_vec(env_id, 2)
    assert repr(vector.single_observation_space) == repr(theirs.observation_space)
    assert vector.spec.id == env_id


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_with_gymnasiums_warnings(env_id):
    """check_env passes and warns as gymnasium's check_env warns of gymnasium's env (unbounded observations,
    asymmetric action bounds)."""
    ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        check_env(ours, skip_render_check=True)
    with warnings.catch_warnings(record=True) as their_warnings:
        warnings.simplefilter("always")
        gymnasium_check_env(theirs, skip_render_check=True)
    # The checkers' warnings (interpreted, the kernels' PCG64 arithmetic adds numpy's overflow RuntimeWarnings).
    assert [str(w.message) for w in our_warnings if w.category is UserWarning] == [
        str(w.message) for w in their_warnings if w.category is UserWarning
    ]


def test_attributes_are_live():
    """Changing a weight, frame_skip or init_qpos changes the following steps as in gymnasium."""

    def setup(env):
        env.frame_skip = 3
        env._ctrl_cost_weight = 0.7
        env._healthy_z_range = (0.75, 3.0)
        env.init_qpos = env.init_qpos + 0.01

    compare_single("Hopper-v5", policy_for("Hopper-v5"), [2], STEPS, setup=setup)
    env = nbgym.make("Hopper-v5").unwrapped
    env._healthy_z_range = (0.75, 3.0)
    assert env._healthy_z_range == (0.75, 3.0)


def test_reset_draws_and_goals_match_gymnasium():
    for env_id, attribute in [("Reacher-v5", "goal"), ("Pusher-v5", "cylinder_pos"), ("Pusher-v5", "init_qpos")]:
        ours, theirs = nbgym.make(env_id).unwrapped, gymnasium.make(env_id).unwrapped
        for seed in range(3):
            ours.reset(seed=seed)
            theirs.reset(seed=seed)
            assert np.array_equal(getattr(ours, attribute), getattr(theirs, attribute)), (env_id, attribute)


def test_mujoco_state_api_acts_on_the_compiled_simulation():
    ours, theirs = nbgym.make("Ant-v5").unwrapped, gymnasium.make("Ant-v5").unwrapped
    for env in (ours, theirs):
        env.reset(seed=1)
        env.set_state(env.init_qpos + 0.05, env.init_qvel - 0.1)
        env.do_simulation(np.full(8, 0.3), 2)
    assert np.array_equal(ours.state_vector(), theirs.state_vector())
    assert np.array_equal(ours.get_body_com("torso"), theirs.get_body_com("torso"))
    action = np.full(8, -0.2, dtype=np.float32)
    assert_same_value(ours.step(action), theirs.step(action), "step after set_state")


def test_copies_step_their_own_simulation():
    env = nbgym.make("HalfCheetah-v5").unwrapped
    env.reset(seed=0)
    twin = copy.deepcopy(env)
    action = np.full(6, 0.5, dtype=np.float32)
    first = env.step(action)
    assert_same_value(twin.step(action), first, "copy")
    assert twin.data is not env.data and np.array_equal(twin.data.qpos, env.data.qpos)


# Bad input ---------------------------------------------------------------------------------------------------


def test_wrong_action_shape_raises_gymnasiums_error():
    env, reference = nbgym.make("HalfCheetah-v5"), gymnasium.make("HalfCheetah-v5")
    env.reset(seed=0)
    reference.reset(seed=0)
    for action in (np.zeros(5, dtype=np.float32), np.zeros((1, 6)), [0.0] * 7):
        with pytest.raises(ValueError) as expected:
            reference.step(action)
        with pytest.raises(ValueError) as got:
            env.step(action)
        assert str(got.value) == str(expected.value)
    envs = nbgym.make_vec("HalfCheetah-v5", 3)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"Expected \(3, 6\), found \(2, 6\)"):
        envs.step(np.zeros((2, 6), dtype=np.float32))


def test_unusable_action_dtypes_are_refused_with_the_fix():
    env = nbgym.make("Hopper-v5")
    env.reset(seed=0)
    with pytest.raises(error.InvalidAction, match="astype"):
        env.step(np.zeros(3, dtype=np.float16))
    with pytest.raises(error.InvalidAction, match="could not convert string"):
        env.step(np.array(["a", "b", "c"]))


def test_nan_actions_behave_as_in_gymnasium_and_spare_other_sub_envs():
    """A NaN control makes MuJoCo reset that simulation (with its warning), in gymnasium as here; the other
    sub-environments of the batch are unaffected."""

    def policy(rng, observations):
        actions = rng.uniform(-1, 1, (3, 6)).astype(np.float32)
        actions[0, rng.integers(0, 6)] = np.nan if rng.random() < 0.5 else np.inf
        actions[1] *= 1e6
        return actions

    compare_vector("HalfCheetah-v5", policy, 3, "NextStep", 0, STEPS // 2, {"max_episode_steps": 9})
    ours, theirs = nbgym.make("Ant-v5"), gymnasium.make("Ant-v5")
    assert_same_value(ours.reset(seed=0), theirs.reset(seed=0), "reset")
    for t in range(STEPS // 2):
        action = np.full(8, np.nan if t % 3 == 1 else 0.5)
        got, expected = ours.step(action), theirs.step(action)
        assert_same_value(got[0], expected[0], f"step {t}")  # MuJoCo reset the simulation: finite again
        assert np.array_equal(got[1], expected[1], equal_nan=True) and type(got[1]) is type(expected[1])
        assert got[2:4] == expected[2:4]


def test_missing_and_malformed_model_files_raise_gymnasiums_errors(tmp_path):
    for xml_file in ("no_such_model.xml", str(tmp_path / "missing.xml")):
        with pytest.raises(OSError, match="does not exist"):
            gymnasium.make("Hopper-v5", xml_file=xml_file)
        for make in (nbgym.make, lambda *args, **kwargs: nbgym.make_vec(*args, num_envs=2, **kwargs)):
            with pytest.raises(OSError, match=f"File .*{os.path.basename(xml_file)} does not exist"):
                make("Hopper-v5", xml_file=xml_file)
    malformed = tmp_path / "broken.xml"
    malformed.write_text("<mujoco><worldbody><body></mujoco>")
    with pytest.raises(ValueError) as expected:
        gymnasium.make("Hopper-v5", xml_file=str(malformed))
    with pytest.raises(ValueError) as got:
        nbgym.make("Hopper-v5", xml_file=str(malformed))
    assert str(got.value) == str(expected.value)


def test_unknown_argument_raises_type_error():
    with pytest.raises(TypeError, match="no_such_argument"):
        nbgym.make("Swimmer-v5", no_such_argument=1)
    with pytest.raises(TypeError, match="no_such_argument"):
        nbgym.make_vec("Swimmer-v5", 2, no_such_argument=1)


def test_missing_mujoco_raises_dependency_not_installed():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["mujoco"] = None
        import nbgym
        from nbgym import error
        try:
            nbgym.make("HalfCheetah-v5")
        except error.DependencyNotInstalled as e:
            print(e)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 'MuJoCo is not installed, run `pip install "nbgym[mujoco]"`' in result.stdout


# The base class for one's own env ---------------------------------------------------------------------------


def custom_env_class(base: type) -> type:
    """An env written against gymnasium's ``MujocoEnv`` (a hopper that is rewarded for height), for either base."""

    class TallHopper(base):
        metadata = {"render_modes": ["human", "rgb_array", "depth_array", "rgbd_tuple"], "render_fps": 125}

        def __init__(self, **kwargs):
            space = (gymnasium if base is GymnasiumMujocoEnv else nbgym).spaces.Box(-np.inf, np.inf, (11,), np.float64)
            base.__init__(self, os.path.join(ASSETS, "hopper.xml"), 4, observation_space=space, **kwargs)

        def step(self, action):
            self.do_simulation(action, self.frame_skip)
            height = self.data.qpos[1]
            reward = height - 1e-3 * np.square(action).sum()
            return self._get_obs(), reward, bool(height < 0.7), False, {"height": height}

        def reset_model(self):
            qpos = self.init_qpos + self.np_random.uniform(-0.01, 0.01, self.model.nq)
            qvel = self.init_qvel + self.np_random.standard_normal(self.model.nv) * 0.01
            self.set_state(qpos, qvel)
            return self._get_obs()

        def _get_obs(self):
            return np.concatenate([self.data.qpos.flat[1:], self.data.qvel.flat])

        def _get_reset_info(self):
            return {"x": self.data.qpos[0]}

    return TallHopper


def test_own_env_on_the_base_class_matches_gymnasium():
    ours, theirs = custom_env_class(MujocoEnv)(), custom_env_class(GymnasiumMujocoEnv)()
    assert ours.dt == theirs.dt
    rng = np.random.default_rng(0)
    for seed in (0, 1):
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
        for t in range(STEPS):
            action = rng.uniform(-1, 1, 3).astype(np.float32)
            assert_same_value(ours.step(action), theirs.step(action), f"step {t}")
    with pytest.raises(ValueError, match="Action dimension mismatch"):
        ours.do_simulation(np.zeros(2), 1)


# The kernels' disk cache -------------------------------------------------------------------------------------


@pytest.mark.skipif(INTERPRETED, reason="nothing is compiled")
def test_second_process_loads_the_kernels_from_the_disk_cache(tmp_path):
    code = textwrap.dedent(
        """
        import numpy as np, nbgym
        from nbgym.engine import _kernels as kernels
        envs = nbgym.make_vec("Swimmer-v5", 2)
        envs.reset(seed=0)
        envs.step(np.zeros((2, 2), dtype=np.float32))
        print(sum(kernels.step_kernel.stats.cache_misses.values()), sum(kernels.step_kernel.stats.cache_hits.values()))
        """
    )
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout.split() == ["1", "0"], runs[0].stdout
    assert runs[1].stdout.split() == ["0", "1"], runs[1].stdout


@pytest.mark.parametrize("vector", [False, True])
def test_big_endian_and_strided_actions_step_as_gymnasiums(vector):
    """Big-endian (``'>f4'``, ``'>f8'``) and strided actions, which gymnasium takes, step as gymnasium's: HalfCheetah's
    control cost in the action's float32 or float64 (issue 51: nbgym refused the big-endian ones)."""
    num = 2
    ours = nbgym.make_vec("HalfCheetah-v5", num) if vector else nbgym.make("HalfCheetah-v5")
    theirs = (
        gymnasium.make_vec("HalfCheetah-v5", num, vectorization_mode="sync")
        if vector
        else gymnasium.make("HalfCheetah-v5")
    )
    batch = np.linspace(-0.9, 0.9, num * 6, dtype=np.float32).reshape(num, 6)
    for env in (ours, theirs):
        env.reset(seed=8)
    for actions in (batch.astype(">f4"), batch.astype(">f8"), np.repeat(batch, 2, axis=1)[:, ::2]):
        action = actions if vector else actions[0]
        mine, wanted = ours.step(action), theirs.step(action)
        np.testing.assert_array_equal(mine[0], wanted[0])
        np.testing.assert_array_equal(mine[1], wanted[1])
