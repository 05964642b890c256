"""The last drop-in gaps with gymnasium 1.4.0 (issue #26): each compared with gymnasium."""

from __future__ import annotations

import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import nbgym
from helpers.paths import ROOT


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter from the worktree root (so this checkout's nbgym is imported)."""
    environ = {**os.environ, "SDL_VIDEODRIVER": "dummy", **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=environ, timeout=300
    )


@pytest.mark.parametrize(
    "make",
    [
        "nbgym.make_vec('CartPole-v1', 2, render_mode='rgb_array')",
        "nbgym.make_vec('CartPole-v1', 2, render_mode='human')",
        "nbgym.make('Acrobot-v1', render_mode='rgb_array')",
    ],
)
def test_open_env_at_interpreter_exit_closes_quietly(make):
    # Kept alive by a module until the interpreter's last clean-up, when imports fail: close imports nothing.
    result = run_python(f"import builtins, nbgym\ne = {make}\ne.reset(seed=0)\ne.render()\nbuiltins.KEEP = e\n")
    assert result.returncode == 0, result.stderr
    # The notices of a kernel compile (a cold cache: its announcement, the one-time explanation) are not a close's noise.
    noise = [
        line
        for line in result.stderr.splitlines()
        if "XDG_RUNTIME_DIR" not in line
        and not line.startswith(("nbgym: compiling the kernels of", "nbgym: compiled the kernels of"))
    ]
    assert noise == []


# --- Integer actions of every dtype: refused where gymnasium's `action_space.contains` assertion refuses them
# (np.uint64 does not cast to int64), taken with gymnasium's own arithmetic elsewhere (issue #21).

DISCRETE_IDS = [
    "CartPole-v1",
    "MountainCar-v0",
    "Acrobot-v1",
    "LunarLander-v3",
    "Blackjack-v1",
    "FrozenLake-v1",
    "Taxi-v4",
    "CliffWalking-v1",
    ("CarRacing-v3", {"continuous": False}),
]
INTEGER_ACTIONS = [
    np.uint64(1),
    np.uint64(0),
    np.array(1, dtype=np.uint64),
    np.uint32(1),
    np.uint16(2),
    np.uint8(1),
    np.int8(1),
    np.int16(0),
    True,
]


def _outcome(lib, env_id, kwargs, action):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = lib.make(env_id, **kwargs)
        env.reset(seed=3)
        try:
            obs, reward, terminated, truncated, _ = env.step(action)
        except Exception as exc:  # noqa: BLE001
            return exc
        finally:
            env.close()
    return np.asarray(obs).tobytes(), type(obs), reward, type(reward), terminated, truncated


def _same_outcome(expected, got):
    if isinstance(expected, AssertionError):  # gymnasium's contains assertion: the same type and message
        assert isinstance(got, AssertionError), got
        assert str(got).startswith(str(expected)), (str(got), str(expected))
    elif isinstance(expected, Exception):
        # gymnasium crashes indexing a list or dict with it (np.True_, a 0-d array): nbgym refuses it clearly or
        # takes its value.
        assert isinstance(got, (nbgym.error.InvalidAction, tuple)), got
    else:
        assert not isinstance(got, Exception), got
        assert got == expected


@pytest.mark.parametrize("action", INTEGER_ACTIONS, ids=repr)
@pytest.mark.parametrize("spec", DISCRETE_IDS, ids=str)
def test_discrete_action_dtypes_as_gymnasium(spec, action):
    env_id, kwargs = spec if isinstance(spec, tuple) else (spec, {})
    # Not covered: MountainCar with an unsigned 0, where gymnasium's own `(action - 1) * force` wraps to the
    # dtype's maximum (nbgym pushes left). np.uint16(2) and np.uint8(1) are exact.
    if env_id == "MountainCar-v0" and isinstance(action, np.unsignedinteger) and action == 0:
        return
    expected = _outcome(gymnasium, env_id, kwargs, action)
    _same_outcome(expected, _outcome(nbgym, env_id, kwargs, action))


def test_lunar_lander_refuses_uint64_with_gymnasium_message():
    env = nbgym.make("LunarLander-v3")
    env.reset(seed=0)
    with pytest.raises(AssertionError, match=r"^np\.uint64\(1\) \(<class 'numpy\.uint64'>\) invalid "):
        env.step(np.uint64(1))
    # Refused before anything moved: the episode goes on as gymnasium's.
    reference = gymnasium.make("LunarLander-v3")
    reference.reset(seed=0)
    assert np.array_equal(env.step(1)[0], reference.step(1)[0])


@pytest.mark.parametrize(
    "env_id", ["CartPole-v1", "MountainCar-v0", "Blackjack-v1", "LunarLander-v3", "Acrobot-v1", "Taxi-v4"]
)
@pytest.mark.parametrize("dtype", [np.uint64, np.uint32])
def test_vector_integer_action_dtypes_as_gymnasium_sync(env_id, dtype):
    import warnings

    actions = np.array([1, 0, 1], dtype=dtype)
    outcomes = []
    for lib, kwargs in ((gymnasium, {"vectorization_mode": "sync"}), (nbgym, {})):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            envs = lib.make_vec(env_id, 3, **kwargs)
            envs.reset(seed=5)
            try:
                obs, rewards, terminated, truncated, _ = envs.step(actions)
                outcomes.append((np.asarray(obs).tobytes() if not isinstance(obs, tuple) else obs, rewards.tolist()))
            except AssertionError:
                outcomes.append(AssertionError)
            envs.close()
    if env_id != "MountainCar-v0" or outcomes[0] is AssertionError:  # MountainCar: gymnasium wraps unsigned 0
        assert str(outcomes[1]) == str(outcomes[0])


# --- check_env on the old `gym` package's envs and spaces: told apart by the name of their class's base, as
# gymnasium does (gym itself is not installed: classes named as gym's stand in for it).


def _gym_named(name: str, module: str) -> type:
    return type(name, (), {"__module__": module})


def _renamed(message: str) -> str:
    return message.replace("`gymnasium.Env`", "`nbgym.Env`").replace(
        "gymnasium.spaces.space.Space", "nbgym.spaces.Space"
    )


@pytest.mark.parametrize("base", [("Env", "gym.core"), ("Wrapper", "gym.core")])
def test_check_env_names_an_old_gym_env(base):
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    from nbgym.utils.env_checker import check_env

    env = type("OldEnv", (_gym_named(*base),), {})()
    with pytest.raises(TypeError) as expected:
        gymnasium_check_env(env)
    assert str(expected.value).startswith("Gym is incompatible with Gymnasium")
    with pytest.raises(TypeError) as got:
        check_env(env)
    assert str(got.value) == _renamed(str(expected.value))


@pytest.mark.parametrize("space_type", ["action", "observation"])
def test_check_env_names_an_old_gym_space(space_type):
    from gymnasium.utils.env_checker import check_env as gymnasium_check_env

    from nbgym.utils.env_checker import check_env

    old_space = type("Discrete", (_gym_named("Space", "gym.spaces.space"),), {})()
    messages = []
    for lib, checker in ((gymnasium, gymnasium_check_env), (nbgym, check_env)):
        # a plain env: a compiled one refuses another action space (its kernels check actions of their own)
        env = type("Plain", (lib.Env,), {"action_space": lib.spaces.Discrete(2)})()
        env.observation_space = lib.spaces.Box(-1.0, 1.0, (1,))
        setattr(env, f"{space_type}_space", old_space)
        with pytest.raises(TypeError) as raised:
            checker(env)
        messages.append(str(raised.value))
    assert messages[0].startswith(
        f"Gym is incompatible with Gymnasium, please update the environment {space_type}_space"
    )
    assert messages[1] == _renamed(messages[0])


def test_check_env_other_classes_keep_their_message():
    from nbgym.utils.env_checker import check_env

    with pytest.raises(TypeError, match="must inherit from the nbgym.Env class"):
        check_env(type("NotGym", (_gym_named("Env", "gymx.core"),), {})())


# --- GymV21Environment-v0 / GymV26Environment-v0: shimmy's adapters of the old gym package, as gymnasium
# registers them (shimmy re-registers them in gymnasium's registry when imported; until then they raise).

SHIMMY_IDS = ["GymV21Environment-v0", "GymV26Environment-v0"]


@pytest.mark.parametrize("env_id", SHIMMY_IDS)
def test_gym_compatibility_ids_without_shimmy_raise_as_gymnasium(env_id):
    result = run_python(
        "import sys\n"
        "sys.modules['shimmy'] = None  # not installed\n"
        "import gymnasium, nbgym\n"
        "for lib in (gymnasium, nbgym):\n"
        "    assert lib.spec(" + repr(env_id) + ").entry_point is not None\n"
        "    try:\n"
        "        lib.make(" + repr(env_id) + ", env_id='CartPole-v1')\n"
        "    except ImportError as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    assert result.returncode == 0, result.stderr
    expected = (
        'ImportError To use the gym compatibility environments, run `pip install "shimmy[gym-v21]"` or '
        '`pip install "shimmy[gym-v26]"`'
    )
    assert result.stdout.splitlines() == [expected, expected]


@pytest.mark.parametrize("env_id", SHIMMY_IDS)
def test_gym_compatibility_ids_with_shimmy_imported_make_its_adapter(env_id, monkeypatch):
    # A stand-in for an imported shimmy: its adapter class takes the env's kwargs and is a gymnasium.Env.
    import types

    made = []

    class Adapter(gymnasium.Env):
        def __init__(self, env_id=None, make_kwargs=None, env=None, render_mode=None):
            made.append(env_id)
            self.observation_space = gymnasium.spaces.Discrete(3)
            self.action_space = gymnasium.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return 1, {}

        def step(self, action):
            return 2, 1.0, True, False, {}

    shimmy = types.ModuleType("shimmy")
    shimmy.GymV21CompatibilityV0 = shimmy.GymV26CompatibilityV0 = Adapter
    monkeypatch.setitem(sys.modules, "shimmy", shimmy)
    env = nbgym.make(env_id, env_id="CartPole-v1")
    assert made == ["CartPole-v1"]
    assert isinstance(env.unwrapped, nbgym.Env)
    assert env.reset(seed=0) == (1, {})
    assert env.step(0) == (2, 1.0, True, False, {})
    assert env.spec.id == env_id


# --- Vector HumanRendering: only a "*_last" mode's render is a list whose last element holds the frames; with
# "rgb_array_list" each sub-environment's list of frames is refused by the frame check, as gymnasium's is.


@pytest.mark.parametrize("num_envs", [1, 2, 3])
def test_vector_human_rendering_rgb_array_list_as_gymnasium(num_envs, monkeypatch):
    from gymnasium.wrappers.vector import HumanRendering as GymnasiumHumanRendering

    from nbgym.wrappers.vector import HumanRendering

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    outcomes = []
    for lib, wrapper in ((gymnasium, GymnasiumHumanRendering), (nbgym, HumanRendering)):
        envs = wrapper(lib.make_vec("CartPole-v1", num_envs, vectorization_mode="sync", render_mode="rgb_array_list"))
        with pytest.raises(AssertionError) as raised:
            envs.reset(seed=0)
        outcomes.append(str(raised.value))
        envs.close()
    assert outcomes[0].startswith("Expected `env.render()` to return a numpy array")
    assert outcomes[1] == outcomes[0]


def test_vector_human_rendering_last_mode_takes_the_last_frames(monkeypatch):
    from nbgym.wrappers.vector import HumanRendering

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    envs = HumanRendering(nbgym.make_vec("CartPole-v1", 2, vectorization_mode="sync", render_mode="rgb_array"))
    envs.reset(seed=0)
    frames = envs.env.render()
    # A "*_last" render gives the frames of each call so far: the wrapper shows the last ones only.
    envs.env.render_mode = "rgb_array_last"
    envs.env.render = lambda: [None, frames]
    envs._render_frame()
    assert (envs.num_rows, envs.num_cols) == (2, 2)
    envs.env.render = lambda: (frames[0], frames[1])  # not a list of calls: refused as gymnasium's assertion does
    with pytest.raises(AssertionError):
        envs._render_frame()
    envs.close()


# --- Array conversion: module_namespace gives gymnasium's Array API namespace (array_api_compat), and the
# conversion wrappers pickle and unpickle.


@pytest.mark.parametrize("module_name", ["numpy", "torch", "jax.numpy"])
def test_module_namespace_as_gymnasium(module_name):
    import importlib

    from gymnasium.wrappers.array_conversion import module_namespace as gymnasium_namespace

    from nbgym.wrappers.array_conversion import module_name_to_namespace, module_namespace

    xp = importlib.import_module(module_name)
    assert module_namespace(xp) is gymnasium_namespace(xp)
    assert module_name_to_namespace(module_name) is gymnasium_namespace(xp)


def test_module_namespace_refuses_what_gymnasium_refuses():
    import math

    from gymnasium.wrappers.array_conversion import module_namespace as gymnasium_namespace

    from nbgym.wrappers.array_conversion import module_namespace

    with pytest.raises(ValueError) as expected:
        gymnasium_namespace(math)
    with pytest.raises(ValueError) as got:
        module_namespace(math)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("target", ["torch", "jax.numpy"])
@pytest.mark.parametrize("vector", [False, True])
def test_array_conversion_pickles_and_unpickles(target, vector):
    import importlib
    import pickle

    from nbgym.wrappers import ArrayConversion
    from nbgym.wrappers.vector import ArrayConversion as VectorArrayConversion

    target_xp = importlib.import_module(target)
    env = nbgym.make_vec("CartPole-v1", 2) if vector else nbgym.make("CartPole-v1")
    wrapper = (VectorArrayConversion if vector else ArrayConversion)(env, env_xp=np, target_xp=target_xp)
    wrapper.reset(seed=4)
    copy = pickle.loads(pickle.dumps(wrapper))
    assert copy._env_xp is wrapper._env_xp and copy._target_xp is wrapper._target_xp
    assert copy._saved_kwargs == wrapper._saved_kwargs
    assert copy.spec == wrapper.spec
    action = target_xp.asarray(np.array([1, 0]) if vector else np.array(1))
    steps = [one.step(action) for one in (wrapper, copy)]  # the copy continues where the original was
    assert type(steps[1][0]) is type(steps[0][0])
    assert np.array_equal(np.asarray(steps[0][0]), np.asarray(steps[1][0]))
    assert repr(copy) == repr(wrapper)


# --- CartPoleVectorEnv: gymnasium's batch attributes (state (4, n), steps, prev_done, ...), live on the kernels.


def test_cartpole_vector_env_has_gymnasiums_attributes():
    from gymnasium.envs.classic_control.cartpole import CartPoleVectorEnv as GymnasiumCartPoleVectorEnv

    theirs, ours = GymnasiumCartPoleVectorEnv(num_envs=3), nbgym.make_vec("CartPole-v1", 3).unwrapped
    assert ours.state is None and theirs.state is None  # before the first reset
    theirs.reset(seed=0)
    ours.reset(seed=0)
    for name in ("state", "steps", "prev_done"):
        a, b = np.asarray(getattr(theirs, name)), np.asarray(getattr(ours, name))
        assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, name
    assert ours.state.dtype == theirs.state.dtype == np.float64
    for name in (
        "steps_beyond_terminated",
        "screen_width",
        "screen_height",
        "max_episode_steps",
        "gravity",
        "masscart",
        "masspole",
        "total_mass",
        "length",
        "polemass_length",
        "force_mag",
        "tau",
        "kinematics_integrator",
        "theta_threshold_radians",
        "x_threshold",
        "_sutton_barto_reward",
        "num_envs",
        "render_mode",
    ):
        assert getattr(ours, name) == getattr(theirs, name), name


def test_cartpole_vector_env_attributes_follow_the_episodes_as_gymnasium_sync():
    # The same seeds and actions as gymnasium's sync env: state is its sub-environments' states side by side,
    # steps their TimeLimit counters, prev_done whether their last step ended the episode.
    theirs = gymnasium.make_vec("CartPole-v1", 4, vectorization_mode="sync", max_episode_steps=20)
    ours = nbgym.make_vec("CartPole-v1", 4, max_episode_steps=20)
    theirs.reset(seed=2)
    ours.reset(seed=2)
    generator = np.random.default_rng(2)
    ended = 0
    for _ in range(60):
        actions = generator.integers(0, 2, size=4)
        _, _, terminated, truncated, _ = theirs.step(actions)
        ours.step(actions)
        assert np.array_equal(ours.state, np.stack([env.unwrapped.state for env in theirs.envs], axis=1))
        assert ours.steps.tolist() == [env.get_wrapper_attr("_elapsed_steps") for env in theirs.envs]
        assert np.array_equal(ours.prev_done, terminated | truncated)
        ended += int((terminated | truncated).sum())
    assert ended > 0


def test_cartpole_vector_env_attributes_are_live():
    envs = nbgym.make_vec("CartPole-v1", 3)
    reference = nbgym.make_vec("CartPole-v1", 3)
    envs.reset(seed=1)
    reference.reset(seed=1)
    # Writes into the (4, n) view reach the kernels' next step, as gymnasium's state array does.
    envs.state[2, 1] = 0.1
    reference.set_attr(
        "state",
        [
            state if i != 1 else np.array([*state[:2], 0.1, state[3]])
            for i, state in enumerate(reference.get_attr("state"))
        ],
    )
    assert np.array_equal(envs.step(np.array([0, 1, 0]))[0], reference.step(np.array([0, 1, 0]))[0])
    # Assigning a whole state, and one sub-environment's state read per environment, meet in one truth.
    envs.state = np.zeros((4, 3))
    single = gymnasium.make("CartPole-v1").unwrapped
    single.reset(seed=0)
    single.state = np.zeros(4)
    expected = single.step(1)[0]
    assert np.array_equal(envs.step(np.array([1, 1, 1]))[0], np.stack([expected] * 3))
    held = envs.get_attr("state")[0]
    held[0] = 1.0
    assert envs.state[0, 0] == 1.0
    with pytest.raises(ValueError, match=r"shaped \(4, num_envs\)"):
        envs.state = np.zeros((3, 4))
    # The time limit reads steps; prev_done makes the next step start the episode again, as gymnasium's.
    envs.steps[:] = 499
    _, _, terminated, truncated, _ = envs.step(np.array([0, 0, 0]))
    assert truncated.all() and envs.prev_done.all()
    envs.prev_done[:] = False
    envs.steps[:] = 0
    envs.step(np.array([0, 0, 0]))
    assert envs.steps.tolist() == [1, 1, 1]
    envs.prev_done[0] = True
    _, rewards, *_ = envs.step(np.array([0, 0, 0]))
    assert envs.steps.tolist() == [0, 2, 2] and rewards[0] == 0.0


def test_make_names_an_old_gym_env_as_gymnasium():
    env_class = type("OldEnv", (_gym_named("Env", "gym.core"),), {})
    messages = []
    for lib in (gymnasium, nbgym):
        lib.register(id="OldGymEnv-v0", entry_point=env_class)
        try:
            with pytest.raises(TypeError) as raised:
                lib.make("OldGymEnv-v0")
            messages.append(str(raised.value))
        finally:
            del lib.registry["OldGymEnv-v0"]
    assert messages[0].startswith("Gym is incompatible with Gymnasium")
    assert messages[1] == _renamed(messages[0])
