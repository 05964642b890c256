"""gymnasium 1.4.0's functional environments: ``FuncEnv`` (``nbgym.experimental.functional``), the JAX env classes
(``nbgym.envs.functional_jax_env``) and the registered ``phys2d/*`` and ``tabular/*`` ids, compared with gymnasium's
for the same keys, and without jax, gymnasium's error.

jax is imported only in subprocesses: in this process it would warn at every later fork (the async vector env
tests fork). gymnasium's own phys2d and tabular modules import ``flax.struct`` for their parameter records; where
flax is not installed, a frozen dataclass stands in for ``flax.struct.dataclass`` (their functions read the
parameters from the record's class, as defaults, so nothing else of flax is reached).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import nbgym
from nbgym.experimental.functional import FuncEnv
from helpers.common import JAX_IDS
from helpers.paths import ROOT


FLAX_STAND_IN = """
import dataclasses, importlib.util, sys, types
if importlib.util.find_spec("flax") is None:
    flax, struct = types.ModuleType("flax"), types.ModuleType("flax.struct")
    struct.dataclass = lambda cls: dataclasses.dataclass(frozen=True)(cls)
    flax.struct = struct
    sys.modules["flax"], sys.modules["flax.struct"] = flax, struct
"""

COMPARISON = (
    FLAX_STAND_IN
    + """
import json, warnings
import numpy as np
import gymnasium, nbgym
warnings.simplefilter("ignore")
results = {}

def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()

for env_id in %(ids)r:
    theirs, ours = gymnasium.make(env_id), nbgym.make(env_id)
    ok = [same(theirs.reset(seed=7)[0], ours.reset(seed=7)[0])]
    generator = np.random.default_rng(1)
    episodes = 0
    for t in range(80):
        if env_id.startswith("tabular/CliffWalking"):
            action = np.array([generator.integers(4)], dtype=np.int32)
        elif env_id.startswith("phys2d/Pendulum"):
            action = generator.uniform(-2, 2, size=(1,)).astype(np.float32)
        else:
            action = int(generator.integers(2))
        a, b = theirs.step(action), ours.step(action)
        ok.append(same(a[0], b[0]) and a[1:4] == b[1:4] and [type(x) for x in a[1:4]] == [type(x) for x in b[1:4]])
        if a[2] or a[3]:
            episodes += 1
            ok.append(same(theirs.reset()[0], ours.reset()[0]))
    ok.append(str(theirs.unwrapped.metadata) == str(ours.unwrapped.metadata).replace("nbgym", "gymnasium"))
    ok.append(type(ours.unwrapped).__name__ == type(theirs.unwrapped).__name__)
    results[env_id] = {"ok": all(ok), "episodes": episodes, "spec": [
        (getattr(theirs.spec, f), getattr(ours.spec, f)) for f in ("max_episode_steps", "reward_threshold", "disable_env_checker")
    ]}
    if env_id.startswith("phys2d/"):
        theirs, ours = gymnasium.make_vec(env_id, 3), nbgym.make_vec(env_id, 3)
        ok = [type(ours).__name__ == type(theirs).__name__, same(theirs.reset(seed=11)[0], ours.reset(seed=11)[0])]
        for t in range(205):  # past the time limit of 200
            actions = theirs.action_space.sample()
            a, b = theirs.step(actions), ours.step(actions)
            ok.append(all(same(x, y) for x, y in zip(a[:4], b[:4])))
        ok.append(str(theirs.metadata) == str(ours.metadata).replace("nbgym", "gymnasium"))
        results[env_id + " vector"] = {"ok": all(ok), "episodes": int(np.asarray(ours.steps).sum()), "spec": []}

# Frames: phys2d's are gymnasium's, pixel for pixel; tabular's are drawn with nbgym's toy-text art (its own, as
# nbgym's Blackjack-v1 and CliffWalking-v1 are), in gymnasium's frame size, and CliffWalking's start equals
# nbgym's CliffWalking-v1 start frame.
frames = {}
for env_id in %(ids)r:
    theirs, ours = gymnasium.make(env_id, render_mode="rgb_array"), nbgym.make(env_id, render_mode="rgb_array")
    theirs.reset(seed=5)
    ours.reset(seed=5)
    a, b = theirs.render(), ours.render()
    frames[env_id] = [a.shape == b.shape and a.dtype == b.dtype, same(a, b), int(b.std() > 0)]
    if env_id.startswith("tabular/CliffWalking"):
        classic = nbgym.make("CliffWalking-v1", render_mode="rgb_array")
        classic.reset(seed=0)
        frames[env_id].append(same(classic.render(), b))
    theirs.close()
    ours.close()
results["frames"] = frames

# check_env on the bare env: the same outcome and warnings as gymnasium's check_env on gymnasium's (both convert the
# jax arrays to numpy first; without that, data_equivalence asks a jax array for its truth and Box.contains warns).
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from nbgym.utils.env_checker import check_env as nbgym_check_env
checks = {}
for env_id in %(ids)r:
    outcomes = []
    for lib, check in ((gymnasium, gymnasium_check_env), (nbgym, nbgym_check_env)):
        env = lib.make(env_id).unwrapped
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                check(env, skip_render_check=True)
                error = None
            except Exception as e:
                error = f"{type(e).__name__}: {e}"
        env.close()
        outcomes.append([error, [str(w.message).replace("nbgym", "gymnasium") for w in caught]])
    checks[env_id] = outcomes
results["check_env"] = checks

# Module paths and public names.
import importlib, typing
names = {}
for module in ("envs.functional_jax_env", "envs.phys2d", "envs.phys2d.cartpole", "envs.phys2d.pendulum",
               "envs.tabular", "envs.tabular.blackjack", "envs.tabular.cliffwalking"):
    theirs, ours = importlib.import_module("gymnasium." + module), importlib.import_module("nbgym." + module)
    public = {n for n, v in vars(theirs).items() if not n.startswith("_") and (getattr(v, "__module__", None) == theirs.__name__
              or module.endswith(("phys2d", "tabular"))) and not isinstance(v, typing.TypeVar) and not isinstance(v, type(typing))}
    names[module] = sorted(n for n in public if not hasattr(ours, n))
results["missing names"] = names
print(json.dumps(results))
"""
)


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900, env=environ
    )


@pytest.fixture(scope="module")
def comparison() -> dict:
    result = _run(COMPARISON % {"ids": JAX_IDS}, SDL_VIDEODRIVER="dummy")
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_jax_env_gives_gymnasiums_numbers(comparison, env_id):
    result = comparison[env_id]
    assert result["ok"]
    assert all(theirs == ours for theirs, ours in result["spec"])
    if env_id.startswith("phys2d/CartPole") or env_id.startswith("tabular/Blackjack"):
        assert result["episodes"] > 0  # the resets after an episode were compared too


@pytest.mark.parametrize("env_id", ["phys2d/CartPole-v1", "phys2d/Pendulum-v0"])
def test_jax_vector_env_gives_gymnasiums_numbers(comparison, env_id):
    assert comparison[env_id + " vector"]["ok"]


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_jax_env_frames(comparison, env_id):
    shape_and_dtype, identical, drawn, *start = comparison["frames"][env_id]
    assert shape_and_dtype and drawn
    if env_id.startswith("phys2d/"):
        assert identical
    assert start in ([], [True])


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_check_env_passes_jax_env_as_gymnasiums(comparison, env_id):
    theirs, ours = comparison["check_env"][env_id]
    assert theirs[0] is None  # gymnasium's checker passes gymnasium's env
    assert ours == theirs


def test_jax_modules_have_gymnasiums_public_names(comparison):
    assert comparison["missing names"] == {module: [] for module in comparison["missing names"]}


@pytest.mark.parametrize("env_id", JAX_IDS)
def test_without_jax_the_ids_raise_gymnasiums_error(env_id):
    # jax hidden (None in sys.modules: any import of it fails), as if not installed.
    code = FLAX_STAND_IN + (
        "import sys\nsys.modules['jax'] = None\nimport gymnasium, nbgym\n"
        "for lib in (gymnasium, nbgym):\n"
        "    try:\n"
        f"        lib.make({env_id!r})\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
        "print('jax' in sys.modules and sys.modules['jax'] is None)\n"
    )
    result = _run(code)
    assert result.returncode == 0, result.stderr
    theirs, ours, hidden = result.stdout.splitlines()
    assert theirs == ours == "ModuleNotFoundError import of jax halted; None in sys.modules"
    assert hidden == "True"


def test_registry_has_the_functional_ids_as_gymnasium():
    import gymnasium

    for env_id in JAX_IDS:
        theirs, ours = gymnasium.spec(env_id), nbgym.spec(env_id)
        assert ours.entry_point == theirs.entry_point.replace("gymnasium.", "nbgym.", 1)
        assert (ours.vector_entry_point or "") == (theirs.vector_entry_point or "").replace("gymnasium.", "nbgym.", 1)
        for field in ("max_episode_steps", "reward_threshold", "disable_env_checker", "namespace", "name", "version"):
            assert getattr(ours, field) == getattr(theirs, field), field


def test_import_nbgym_does_not_import_jax():
    result = _run(
        "import sys, nbgym, nbgym.experimental.functional; nbgym.spec('phys2d/CartPole-v1'); print('jax' in sys.modules)"
    )
    assert result.stdout.strip() == "False", result.stderr


# --- FuncEnv itself (no jax needed).


class _Counter(FuncEnv):
    observation_space = nbgym.spaces.Box(0, 10, shape=(), dtype=np.int64)
    action_space = nbgym.spaces.Discrete(2)

    def initial(self, rng, params=None):
        return 0

    def transition(self, state, action, rng, params=None):
        return state + action

    def observation(self, state, rng, params=None):
        return state

    def reward(self, state, action, next_state, rng, params=None):
        return float(next_state)

    def terminal(self, state, rng, params=None):
        return state >= self.limit


def test_func_env_as_gymnasiums():
    from gymnasium.experimental.functional import FuncEnv as GymnasiumFuncEnv

    ours = _Counter({"limit": 3})
    assert ours.limit == 3 and ours.default_params is None
    assert ours.state_info(0) == {} and ours.transition_info(0, 1, 1) == {}
    calls = []

    def traced(function):
        def wrapper(*args, **kwargs):
            calls.append(function.__name__)
            return function(*args, **kwargs)

        return wrapper

    ours.transform(traced)
    state = ours.initial(None)
    state = ours.transition(state, 1, None)
    assert (ours.observation(state, None), ours.reward(0, 1, state, None), ours.terminal(state, None)) == (
        1,
        1.0,
        False,
    )
    assert ours.step_info(0, 1, 1) == {}
    assert calls == ["initial", "transition", "observation", "reward", "terminal", "transition_info"]
    # The same methods, defaults and NotImplementedError for the unimplemented ones as gymnasium's.
    public = {name for name in vars(GymnasiumFuncEnv) if not name.startswith("_")}
    assert public <= set(dir(FuncEnv))
    for name in ("initial", "render_init"):
        with pytest.raises(NotImplementedError):
            getattr(FuncEnv(), name)(None)
    with pytest.raises(NotImplementedError):
        getattr(GymnasiumFuncEnv(), "initial")(None)


# --- The numba path: a FuncEnv of static methods compiled into a vector env (examples/functional_cartpole.py).


def _functional_cartpole():
    import importlib.util

    name = "examples_functional_cartpole"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", "functional_cartpole.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_numba_func_env_example_equals_gymnasium_cartpole(capsys):
    speed = _functional_cartpole().main(num_envs=8, steps=150, seed=3)  # asserts equality at every step
    assert speed["functional"] > 0
    assert "identical to nbgym, gymnasium" in capsys.readouterr().out


def test_numba_func_env_time_limit_and_autoreset_as_gymnasium_sync():
    import gymnasium

    example = _functional_cartpole()
    ours = example.NumbaFuncVectorEnv(example.NumbaCartPole(), 3, max_episode_steps=7)
    theirs = gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", max_episode_steps=7)
    assert ours.metadata["autoreset_mode"].value == theirs.metadata["autoreset_mode"].value
    assert np.array_equal(ours.reset(seed=9)[0], theirs.reset(seed=9)[0])
    generator = np.random.default_rng(0)
    for _ in range(30):
        actions = generator.integers(0, 2, size=3)
        a, b = ours.step(actions), theirs.step(actions)
        for x, y in zip(a[:4], b[:4]):
            assert x.dtype == y.dtype and np.array_equal(x, y)
    # reset(seed=None) continues the streams, as gymnasium's sub-environments' do.
    assert np.array_equal(ours.reset()[0], theirs.reset()[0])
    assert ours.state.shape == (3, 4) and ours.state.dtype == np.float64


def test_numba_func_env_refuses_what_it_cannot_run():
    example = _functional_cartpole()
    envs = example.make(2)
    with pytest.raises(nbgym.error.ResetNeeded):
        envs.step(np.zeros(2, dtype=np.int64))
    envs.reset(seed=0)
    for bad in (
        np.array([0, 2]),
        np.array([0, -1]),
        np.array([0.0, 1.0]),
        np.array([0, 1, 0]),
        np.array([0, 1], dtype=np.uint64),
    ):
        with pytest.raises(nbgym.error.InvalidAction):
            envs.step(bad)

    class MethodFuncEnv(example.NumbaCartPole):
        def terminal(self, state, key, params):  # uses self: numba cannot compile it
            return False

    with pytest.raises(TypeError, match="MethodFuncEnv.terminal must be a @staticmethod"):
        example.NumbaFuncVectorEnv(MethodFuncEnv(), 2)
    with pytest.raises(ValueError, match="num_envs must be a positive int"):
        example.NumbaFuncVectorEnv(example.NumbaCartPole(), 0)
