"""nbgym's public engine API: environments defined with it match the same environments written in plain Python
(gymnasium ``Env``s, under gymnasium's ``SyncVectorEnv`` for the vector envs) exactly; it keeps its guarantees
(autoreset modes, time limit, threads, pickling); mistakes in a physics raise errors that teach."""

from __future__ import annotations

import math
import os
import pathlib
import pickle
import random
import subprocess
import sys

import gymnasium
import numba
import numpy as np
import pytest
from helpers.common import MODES
from helpers.classic_control_checks import compare_single, compare_vector
from helpers.toy_text_checks import steps
from helpers.custom_envs import ENVS, DriftEnv, DriftVectorEnv

import nbgym
from nbgym import error, spaces
from nbgym.engine._jit import kernel
from nbgym.engine import KernelEnv, KernelVectorEnv, Physics, njit
from nbgym.engine import rng as engine_rng
from helpers.jit import INTERPRETED
from helpers.paths import ROOT, TESTS


def _policy(name: str):
    if name == "Drift":
        # Away from the origin when far from it, towards it when near: both kinds of termination happen.
        def drift(rng: np.random.Generator, obs):
            obs = np.asarray(obs, dtype=np.float64)
            direction = np.where(obs[..., 2:] > 0.6, 1.0, -1.0)
            noise = rng.uniform(-1.0, 1.0, size=obs[..., :2].shape)
            return np.clip(direction * 0.5 * obs[..., :2] + noise, -1.0, 1.0).astype(np.float32)

        return drift
    actions = {"Counter": 3, "Lights": 4, "Walk": 2}[name]

    def policy(rng: np.random.Generator, obs):
        if np.ndim(obs) == 0 or (name != "Walk" and np.ndim(obs) == 1):
            return int(rng.integers(0, actions))
        return rng.integers(0, actions, size=len(obs))

    return policy


@pytest.mark.parametrize("name", ENVS)
def test_single_env_matches_its_python_reference(name):
    """``nbgym.make`` of each test env gives the plain-Python env's results, types included, over episodes."""
    terminations = compare_single(f"test/{name}-v0", _policy(name), range(3), steps(150))
    assert terminations > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ENVS)
def test_vector_env_matches_sync_vector_env_of_its_reference(name, mode):
    """The compiled vector env gives gymnasium's ``SyncVectorEnv`` results over the plain-Python env, in each
    autoreset mode, with terminations and time-limit truncations."""
    terminations, truncations = compare_vector(f"test/{name}-v0", _policy(name), 5, mode, 7, steps(120))
    assert terminations > 0 and (truncations > 0 or name == "Walk")


def test_reset_options_and_infos_of_a_custom_env():
    """A reset option handled by ``_reset_params``, and info slots named by ``info_keys``."""
    ours = nbgym.make_vec("test/Drift-v0", 3, autoreset_mode="SameStep")
    obs, infos = ours.reset(seed=1, options={"spread": 0.05})
    assert np.all(np.abs(obs[:, :2]) <= 0.05)
    np.testing.assert_array_equal(infos["distance"].astype(np.float32), obs[:, 2])
    assert list(infos) == ["distance", "_distance"] and infos["_distance"].all()
    single = nbgym.make("test/Drift-v0").unwrapped
    _, info = single.reset(seed=2, options={"spread": 0.5})
    assert type(info["distance"]) is float and info["distance"] <= math.sqrt(0.5)


@pytest.mark.parametrize("env_id", ["CartPole-v1", "FrozenLake-v1", "test/Drift-v0"])
def test_a_first_reset_that_leaves_sub_environments_out_is_refused(env_id):
    """Before any full reset, a ``reset_mask`` leaving sub-environments out fails, as in gymnasium's sync vector env
    (it had returned their zeroed rows, then stepped them), and nothing moves: a full reset then gives gymnasium's."""
    ours = nbgym.make_vec(env_id, 3)
    theirs = gymnasium.make_vec(env_id, 3, vectorization_mode="sync") if "/" not in env_id else None
    mask = np.array([True, False, True])
    with pytest.raises(ValueError, match=r"leaves out \[1\], which have never been reset"):
        ours.reset(seed=0, options={"reset_mask": mask})
    if theirs is not None:
        with pytest.raises((ValueError, TypeError)):
            theirs.reset(seed=0, options={"reset_mask": mask})
        np.testing.assert_array_equal(ours.reset(seed=5)[0], theirs.reset(seed=5)[0])
    ours.reset(seed=5)
    ours.reset(options={"reset_mask": mask})  # once every sub-environment was reset


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "CartPole-v1", "Taxi-v4"])
def test_np_random_is_each_streams_state_and_cannot_be_set(env_id):
    """``np_random`` of a compiled vector env is each sub-environment's stream as gymnasium's sync env's (copies, as
    its async env's), and refuses assignment as both do: it was one generator the kernels never read, which an
    assignment silently replaced."""
    ours, theirs = nbgym.make_vec(env_id, 3), gymnasium.make_vec(env_id, 3, vectorization_mode="sync")
    ours.reset(seed=4)
    theirs.reset(seed=4)
    for _ in range(5):
        actions = np.stack([theirs.single_action_space.sample() for _ in range(3)])
        ours.step(actions)
        theirs.step(actions)
    for got in (ours.np_random, ours.get_attr("np_random")):
        assert [g.bit_generator.state for g in got] == [g.bit_generator.state for g in theirs.np_random]
    ours.np_random[0].random()  # a copy: the stream stays where it is
    assert ours.np_random[0].bit_generator.state == theirs.np_random[0].bit_generator.state
    with pytest.raises(AttributeError, match="np_random of .* cannot be set"):
        ours.np_random = np.random.default_rng(0)
    with pytest.raises(AttributeError):  # "has no setter" (Python 3.10: "can't set attribute")
        theirs.np_random = np.random.default_rng(0)


@pytest.mark.parametrize("num_threads", [1, 2])
def test_threads_and_pickling_keep_results(num_threads):
    """A custom vector env gives the same results at any thread count, and a pickled copy continues alike."""
    if num_threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("numba has one thread here")
    one = DriftVectorEnv(64, max_episode_steps=30)
    many = DriftVectorEnv(64, max_episode_steps=30, num_threads=num_threads)
    for env in (one, many):
        env.reset(seed=3)
    actions = np.random.default_rng(0).uniform(-1, 1, (50, 64, 2)).astype(np.float32)
    for t in range(25):
        for a, b in zip(one.step(actions[t]), many.step(actions[t])):
            if isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
    copy = pickle.loads(pickle.dumps(many))
    for t in range(25, 50):
        expected, got = many.step(actions[t]), copy.step(actions[t])
        np.testing.assert_array_equal(expected[0], got[0])
        np.testing.assert_array_equal(expected[1], got[1])


def test_a_custom_env_renders_with_its_class_renderer():
    """The engine takes the drawing from the env class's ``renderer``: a user's env renders as nbgym's own do."""
    pytest.importorskip("pygame")

    class Dot:
        CAPTION = None

        @staticmethod
        def frame_size(env):
            return 20, 10

        @staticmethod
        def draw(surface, env, index, state):
            state.memory[index] = state.memory.get(index, 0) + 1
            x = int(env._batch.state[index, 0] * 5 + 10)
            surface.fill((0, 0, 0))
            surface.fill((255, 255, 255), (x, 5, 1, 1))

    class RenderedDrift(DriftEnv):
        renderer = Dot

    env = RenderedDrift(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (10, 20, 3) and frame.sum() == 255 * 3
    with pytest.raises(error.Error, match="no pixel rendering"):
        DriftEnv(render_mode="rgb_array").render()


def test_the_engine_imports_no_environment():
    """``nbgym/engine`` imports nothing of ``nbgym.envs``; ``import nbgym.engine`` imports neither numba nor an env."""
    engine = pathlib.Path(nbgym.__file__).parent / "engine"
    for path in engine.glob("*.py"):
        source = path.read_text()
        assert "from nbgym.envs" not in source and "import nbgym.envs" not in source, path
    code = "import sys, nbgym.engine; print(any(m.startswith(('numba', 'nbgym.envs.')) for m in sys.modules))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        == "False"
    )


# ------------------------------------------------------------------------------------------ errors that teach


def _reset(params, state, i, stream, aux):
    state[i, 0] = engine_rng.random(stream, i)


def _step(params, state, i, actions, stream, aux):
    state[i, 0] += 1.0
    return 1.0, False


def _observe(params, state, i, obs):
    obs[i, 0] = np.float32(state[i, 0])


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 2


def _physics(name: str, **functions) -> Physics:
    return Physics(
        name,
        params=[("scale", np.float64)],
        state=(1, np.float64),
        **{"reset": _reset, "step": _step, "observe": _observe, "action_valid": _action_valid, **functions},
    )


def _env_class(physics: Physics, observation_space=None, action_space=None) -> type[KernelEnv]:
    class Probe(KernelEnv):
        metadata = {"render_modes": []}

        def __init__(self) -> None:
            self.observation_space = observation_space or spaces.Box(-np.inf, np.inf, (1,), np.float32)
            self.action_space = action_space or spaces.Discrete(2)
            super().__init__(physics.new_params(scale=1.0))

    Probe.physics = physics
    return Probe


def test_a_wrong_signature_is_refused_at_definition():
    def step(params, state, i):
        return 1.0, False

    with pytest.raises(
        error.PhysicsError, match=r"step must be step\(params, state, i, actions, rng, aux\).*step\(params, state, i\)"
    ):
        _physics("BadSignature", step=step)
    with pytest.raises(error.PhysicsError, match="observe must be a Python function"):
        _physics("NotAFunction", observe=len)


def _bad_typing_step(params, state, i, actions, stream, aux):
    state[i, 0] = "fast" + state[i, 0]
    return 1.0, False


def _plain_helper(x):
    return x + 1.0


def _untyped_helper_step(params, state, i, actions, stream, aux):
    state[i, 0] = _plain_helper(state[i, 0])
    return 1.0, False


@pytest.mark.skipif(INTERPRETED, reason="numba compiles nothing with NUMBA_DISABLE_JIT=1")
def test_a_physics_numba_cannot_compile_fails_at_make_naming_its_function_and_line():
    env_class = _env_class(_physics("BadTyping", step=_bad_typing_step))
    with pytest.raises(error.PhysicsError) as raised:
        env_class()
    message = str(raised.value)
    line = _bad_typing_step.__code__.co_firstlineno + 1
    assert "step function _bad_typing_step" in message and f"line {line}" in message
    assert '"fast" + state[i, 0]' in message and "numba's message" in message and "NUMBA_DISABLE_JIT=1" in message
    assert isinstance(raised.value.__cause__, numba.core.errors.TypingError)
    with pytest.raises(error.PhysicsError, match="decorate it with `@nbgym.engine.njit`"):
        _env_class(_physics("UntypedHelper", step=_untyped_helper_step))()


def _numpy_random_step(params, state, i, actions, stream, aux):
    state[i, 0] += np.random.random()
    return 1.0, False


def _python_random_reset(params, state, i, stream, aux):
    state[i, 0] = random.random()


@njit
def _helper_with_global_random(x):
    return x + np.random.normal()


def _helper_random_step(params, state, i, actions, stream, aux):
    state[i, 0] = _helper_with_global_random(state[i, 0])
    return 1.0, False


@pytest.mark.parametrize(
    ("functions", "culprit"),
    [
        ({"step": _numpy_random_step}, "np.random.random"),
        ({"reset": _python_random_reset}, "random.random"),
        ({"step": _helper_random_step}, "through _helper_with_global_random"),
    ],
)
def test_a_draw_from_a_global_random_state_is_refused_at_definition(functions, culprit):
    with pytest.raises(error.PhysicsError, match="global random state") as raised:
        _physics("GlobalRandom", **functions)
    assert culprit in str(raised.value) and "nbgym.engine.rng.random(rng, i)" in str(raised.value)


def _closure_random_step_factory():
    draws = np.random

    def step(params, state, i, actions, stream, aux):
        state[i, 0] += draws.random()
        return 1.0, False

    return step


def _closure_helper_step_factory():
    helper = _helper_with_global_random

    def step(params, state, i, actions, stream, aux):
        state[i, 0] = helper(state[i, 0])
        return 1.0, False

    return step


def test_a_draw_reached_through_a_closure_variable_is_refused():
    """``np.random`` (or a helper drawing from it) held in a closure variable is refused like a global one: numba
    freezes the variable into the kernel, and every sub-environment would share one stream."""
    with pytest.raises(error.PhysicsError, match="global random state \\(`draws.random`"):
        _physics("ClosureRandom", step=_closure_random_step_factory())
    with pytest.raises(error.PhysicsError, match="through _helper_with_global_random"):
        _physics("ClosureHelperRandom", step=_closure_helper_step_factory())


COLUMN = 2


def _columns_probe(params, state, i, actions, stream, aux):
    state[i, 3] = 1.0
    x = state[i, COLUMN] + state[i, 0]
    row = state[i]
    return x + row[1], False


def test_literal_columns_are_found_with_their_lines_on_every_python():
    """The bytecode scan reads the same columns and lines on 3.10 (no ``Instruction.positions``), 3.11-3.12, and
    3.13+ (``LOAD_FAST_LOAD_FAST``, one instruction for ``state, i``)."""
    from nbgym.engine._checks import literal_columns

    first = _columns_probe.__code__.co_firstlineno
    assert sorted(literal_columns(_columns_probe, "state")) == [(0, first + 2), (2, first + 2), (3, first + 1)]
    assert literal_columns(_columns_probe, "aux") == []


def _objmode_step(params, state, i, actions, stream, aux):
    with numba.objmode(value="float64"):
        value = float(len("python"))
    state[i, 0] = value
    return 1.0, False


@numba.jit(forceobj=True)
def _object_mode_helper(x):
    return x


def _object_helper_step(params, state, i, actions, stream, aux):
    state[i, 0] = _object_mode_helper(state[i, 0])
    return 1.0, False


def test_object_mode_is_refused_at_definition():
    with pytest.raises(error.PhysicsError, match="numba.objmode"):
        _physics("ObjectMode", step=_objmode_step)
    with pytest.raises(error.PhysicsError, match="object mode"):
        _physics("ObjectModeHelper", step=_object_helper_step)
    with pytest.raises(error.PhysicsError, match="object mode"):
        _physics("ObjectModeFunction", step=numba.jit(forceobj=True)(_step))


def _wide_step(params, state, i, actions, stream, aux):
    state[i, 1] = 2.0
    return 1.0, False


def _wide_observe(params, state, i, obs):
    obs[i, 0] = np.float32(state[i, 0])
    obs[i, 2] = np.float32(state[i, 0])


def test_shape_mismatches_are_refused():
    """A literal column past the state row (at definition), past the observation row of the space (at make),
    a declared observation layout that is not the space's, an unsupported action space, an unknown parameter."""
    with pytest.raises(error.PhysicsError, match="column 1 of state, beyond the state row.s width \\(1\\)"):
        _physics("WideState", step=_wide_step)
    with pytest.raises(error.PhysicsError, match="writes column 2 of an observation row of shape \\(1,\\)"):
        _env_class(_physics("WideObservation", observe=_wide_observe))()
    declared = Physics(
        "DeclaredObservation",
        params=[("scale", np.float64)],
        state=(1, np.float64),
        reset=_reset,
        step=_step,
        observe=_observe,
        action_valid=_action_valid,
        observation=((2,), np.float32),
    )
    with pytest.raises(error.PhysicsError, match="declares observations of shape \\(2,\\)"):
        _env_class(declared)()
    with pytest.raises(error.PhysicsError, match="Discrete or numeric Box actions"):
        _env_class(_physics("MultiDiscreteActions"), action_space=spaces.MultiDiscrete([2, 2]))()
    with pytest.raises(error.PhysicsError, match="has no parameter 'gravity'"):
        _physics("UnknownParameter").new_params(gravity=9.8)
    with pytest.raises(error.PhysicsError, match="state must be"):
        Physics(
            "NoState",
            params=[],
            state=(0, np.float64),
            reset=_reset,
            step=_step,
            observe=_observe,
            action_valid=_action_valid,
        )


def test_the_vector_class_of_a_physics_is_checked_like_the_single_one():
    class ProbeVector(KernelVectorEnv):
        physics = _physics("WideObservationVector", observe=_wide_observe)

        def __init__(self, num_envs: int = 2) -> None:
            super().__init__(num_envs, self.physics.new_params(scale=1.0))

        def _single_spaces(self):
            return spaces.Box(-1, 1, (2,), np.float32), spaces.Discrete(2)

    with pytest.raises(error.PhysicsError, match="writes column 2"):
        ProbeVector()


def test_public_draws_are_numpys():
    """Each draw of ``nbgym.engine.rng`` (standard_normal included) advances a stream as numpy's Generator does."""
    from nbgym.engine import rng as streams

    generator = np.random.default_rng(7)
    pcg_row, buf_row = streams.generator_rows(generator)
    pcg, buf = np.array([pcg_row], dtype=np.uint64), np.array([buf_row], dtype=np.uint32)
    stream = (pcg, buf)
    for _ in range(50):
        assert engine_rng.random(stream, 0) == generator.random()
        assert engine_rng.uniform(stream, 0, -2.0, 3.0) == generator.uniform(-2.0, 3.0)
        assert engine_rng.integers(stream, 0, 0, 13) == generator.integers(0, 13)
        assert engine_rng.standard_normal(stream, 0) == generator.standard_normal()


def test_state_views_of_a_custom_env_read_and_write_the_state_row():
    """``state_views`` (public in ``nbgym.engine.state_views``) give a user's env gymnasium-style state
    attributes: assigning the position changes the next step's start, in the single env and the vector env."""
    from nbgym.engine.state_views import float64_state

    class PositionedDrift(DriftEnv):
        state_views = (float64_state("position", 0, 2),)

    class PositionedDriftVector(DriftVectorEnv):
        state_views = (float64_state("position", 0, 2),)

    env = PositionedDrift()
    env.reset(seed=0)
    env.position = np.array([0.5, -0.25])
    np.testing.assert_array_equal(env._batch.state[0], [0.5, -0.25])
    obs, *_ = env.step(np.zeros(2, dtype=np.float32))
    assert abs(obs[0] - 0.5) <= 0.011 and abs(obs[1] + 0.25) <= 0.011  # moved by the noise only
    with pytest.raises(ValueError, match="float64"):
        env.position = np.zeros(2, dtype=np.float32)
    envs = PositionedDriftVector(2)
    envs.reset(seed=0)
    envs.set_attr("position", [np.array([1.0, 1.0]), np.array([0.0, 0.5])])
    np.testing.assert_array_equal(envs._batch.state, [[1.0, 1.0], [0.0, 0.5]])
    np.testing.assert_array_equal(envs.get_attr("position")[1], [0.0, 0.5])


def test_an_edit_of_a_compiled_helper_in_another_file_changes_the_kernels_cache_key(tmp_path, monkeypatch):
    """numba's disk cache misses edits of called helpers in other files: the record type must change instead."""
    import importlib
    import sys

    (tmp_path / "helper_mod.py").write_text(
        "from nbgym.engine import njit\n\n@njit\ndef push(x):\n    return x + 1.0\n"
    )
    (tmp_path / "physics_mod.py").write_text(
        "import helper_mod\n"
        "def reset(params, state, i, rng, aux):\n    state[i, 0] = 0.0\n"
        "def step(params, state, i, actions, rng, aux):\n    state[i, 0] = helper_mod.push(state[i, 0])\n"
        "    return 1.0, False\n"
        "def observe(params, state, i, obs):\n    obs[i, 0] = state[i, 0]\n"
        "def action_valid(params, actions, i):\n    return True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def record_type():
        for name in ("helper_mod", "physics_mod"):
            sys.modules.pop(name, None)
        module = importlib.import_module("physics_mod")
        physics = Physics(
            "HelperEditProbe",
            params=[],
            state=(1, np.float64),
            reset=module.reset,
            step=module.step,
            observe=module.observe,
            action_valid=module.action_valid,
        )
        return physics.params_dtype.names[0]

    before = record_type()
    assert record_type() == before
    (tmp_path / "helper_mod.py").write_text(
        "from nbgym.engine import njit\n\n@njit\ndef push(x):\n    return x + 2.0\n"
    )
    assert record_type() != before


# ------------------------------------------------------------------------------------- bounds checks, faults


def _column_step(params, state, i, actions, stream, aux):
    state[i, params.column] = 1.0  # a column held in a parameter: no scan of the bytecode sees it
    return 1.0, False


def _row_step(params, state, i, actions, stream, aux):
    row = state[i]
    row[params.column] = 1.0
    return 1.0, False


def _aux_step(params, state, i, actions, stream, aux):
    aux[i, params.column] = 1.0
    return 1.0, False


@njit
def _write_column(state, i, column):
    state[i, column] = 1.0


def _helper_write_step(params, state, i, actions, stream, aux):
    _write_column(state, i, params.column)
    return 1.0, False


def _fault_after_first_step(params, state, i, actions, stream, aux):
    state[i, 0] += 1.0
    if i == 1 and state[i, 0] >= 2.0:
        raise ValueError("the physics refuses")
    return 1.0, False


def _indexed_physics(name: str, step, boundscheck=None, **options) -> Physics:
    return Physics(
        name,
        params=[("scale", np.float64), ("column", np.int64)],
        state=(1, np.float64),
        reset=_reset,
        step=step,
        observe=_observe,
        action_valid=_action_valid,
        aux_width=1,
        boundscheck=boundscheck,
        **options,
    )


def test_the_chunk_size_keys_a_physics_defined_outside_nbgym_but_not_nbgyms_own():
    """A physics' chunk is compiled into its serial step, so a physics outside nbgym, which may set it anywhere, gets
    another record (another cache entry) per chunk size. nbgym's own set it in the files their record hashes, or to the
    Box2D port's vector width, which follows the processor (itself part of every cached kernel's key): their record
    is the same whatever the width, so that an env pickled where the other width runs steps there."""
    from nbgym.envs.box2d.lunar_lander import physics as lunar_lander

    def record(name, chunk, source=None):
        return _indexed_physics(name, _step, max_chunk_size=chunk, source=source).params_dtype.names[0]

    assert record("ChunkKeyed", 4) != record("ChunkKeyed", 8)
    assert record("ChunkInside", 4, lunar_lander.__file__) == record("ChunkInside", 8, lunar_lander.__file__)


def _vector_class(of: Physics) -> type[KernelVectorEnv]:
    class ProbeVector(KernelVectorEnv):
        physics = of

        def __init__(self, num_envs: int = 3) -> None:
            super().__init__(num_envs, self.physics.new_params(column=1))

        def _single_spaces(self):
            return spaces.Box(-np.inf, np.inf, (1,), np.float32), spaces.Discrete(2)

    return ProbeVector


@pytest.mark.parametrize("step", [_column_step, _row_step, _aux_step, _helper_write_step])
def test_an_index_past_a_row_raises_and_the_env_refuses_to_step_until_reset(step):
    """A user's physics is compiled with bounds checks (its helpers too): an index past the row, whatever its
    form, raises ``PhysicsIndexError`` (an ``IndexError``) instead of writing another sub-environment's memory;
    the partly stepped batch then refuses to step until a reset of every sub-environment."""
    physics = _indexed_physics(f"OutOfRow{step.__name__}", step)
    assert physics.boundscheck
    envs = _vector_class(physics)()
    envs.reset(seed=1)
    before = envs._batch.state.copy()
    with pytest.raises(error.PhysicsIndexError, match="indexed outside an array during step") as raised:
        envs.step(np.zeros(3, dtype=np.int64))
    assert isinstance(raised.value, IndexError)
    np.testing.assert_array_equal(envs._batch.state, before)  # no write landed, in the next row or elsewhere
    with pytest.raises(error.ResetNeeded, match="raised IndexError.*partly stepped"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(error.ResetNeeded, match="raised IndexError"):
        envs.reset(options={"reset_mask": np.array([True, False, False])})
    envs.reset(seed=2)
    envs.set_attr("column", 0)
    envs.step(np.zeros(3, dtype=np.int64))  # usable again after the reset

    threaded = _vector_class(physics)(2048)
    threaded.num_threads = 2  # chunks stepped by a helper thread too
    threaded.reset(seed=1)
    with pytest.raises(error.PhysicsIndexError):
        threaded.step(np.zeros(2048, dtype=np.int64))
    with pytest.raises(error.ResetNeeded, match="raised IndexError"):
        threaded.step(np.zeros(2048, dtype=np.int64))

    single = _env_class(physics)()
    single.reset(seed=1)
    single._params["column"] = 1
    with pytest.raises(error.PhysicsIndexError):
        single.step(0)
    with pytest.raises(error.ResetNeeded, match="raised IndexError"):
        single.step(0)
    single.reset()
    single._params["column"] = 0
    single.step(0)


def test_an_exception_inside_a_physics_leaves_the_env_refusing_until_reset():
    """Any exception raised by a physics keeps its type; the env then refuses steps and partial resets."""
    envs = _vector_class(_indexed_physics("FaultAfterFirstStep", _fault_after_first_step))(3)
    envs.reset(seed=0)
    envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="the physics refuses"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(error.ResetNeeded, match="raised ValueError \\(the physics refuses\\) during step"):
        envs.step(np.zeros(3, dtype=np.int64))
    envs.reset(seed=0)
    envs.step(np.zeros(3, dtype=np.int64))


def test_nbgyms_own_physics_are_unchecked_and_others_checked_unless_they_opt_out():
    from nbgym.envs.classic_control.cartpole import PHYSICS

    assert not PHYSICS.boundscheck
    assert not _indexed_physics("OptedOut", _aux_step, boundscheck=False).boundscheck
    checked, unchecked = _indexed_physics("KeyChecked", _step), _indexed_physics("KeyChecked", _step, boundscheck=False)
    assert checked.params_dtype != unchecked.params_dtype  # two compiled kernels, two cache entries


HERE_AND_TESTS = [str(pathlib.Path(__file__).parent), str(TESTS)]
"""What the scripts below put first on ``sys.path``: this module's directory (they import it) and ``tests/``
(its helpers)."""

BOUNDSCHECK_RUN = r"""
import sys, numpy as np
sys.path[:0] = sys.argv[1:]
import test_engine_api as t
envs = t._vector_class(t._indexed_physics("CacheKeyProbe", t._aux_step, boundscheck=False))(3)
envs.reset(seed=0)
try:
    envs.step(np.zeros(3, dtype=np.int64))
    print("unchecked")
except IndexError:
    print("checked")
"""


@kernel(entry=True)
def _cached_probe(x):
    return x + 1.0


LIBRARY_VERSION_RUN = r"""
import sys
sys.path[:0] = sys.argv[3:]
from nbgym.engine import _cache as cache
if sys.argv[1] != "installed":
    cache.installed_version = lambda name: sys.argv[1]
if sys.argv[2] != "installed":
    cache.numpy_key = lambda: tuple(map(int, sys.argv[2].split(".")))
import test_engine_api as t
t._cached_probe(1.0)
print(sum(t._cached_probe.stats.cache_hits.values()))
"""


@pytest.mark.skipif(INTERPRETED, reason="no kernel cache without the JIT")
def test_library_versions_are_part_of_the_kernel_cache_key(tmp_path):
    """A kernel cached with one MuJoCo, or one numpy minor release, is compiled anew with another: kernels hold their
    constants (the state components a MuJoCo kernel passes to ``mj_getState``, whose sizes differ between MuJoCo
    versions; numba's typing of numpy, which follows its minor release). A kernel of code outside nbgym (this one) is
    keyed by both, as nbgym cannot tell whether it calls libmujoco; nbgym's own kernels by what they hold
    (``tests/engine/test_kernel_cache.py``)."""
    from nbgym.engine._cache import library_key, numpy_key

    assert numpy_key() == tuple(int(part) for part in np.__version__.split(".")[:2])
    assert [name for name, _ in library_key(frozenset({"mujoco"}))] == ["numpy", "mujoco"]

    def cache_hits(mujoco_version: str, numpy_version: str = "installed") -> int:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
        result = subprocess.run(
            [sys.executable, "-c", LIBRARY_VERSION_RUN, mujoco_version, numpy_version, *HERE_AND_TESTS],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert result.returncode == 0, result.stderr
        return int(result.stdout.split()[-1])

    assert cache_hits("installed") == 0  # compiled and saved
    assert cache_hits("installed") == 1  # loaded
    assert cache_hits("3.2.4") == 0  # another MuJoCo: compiled anew
    assert cache_hits("3.2.4") == 1
    assert cache_hits("installed") == 1  # both kept
    assert cache_hits("installed", "1.26") == 0  # another numpy minor release: compiled anew
    assert cache_hits("installed", "1.26") == 1


@pytest.mark.skipif(INTERPRETED, reason="no kernel cache without the JIT")
def test_numba_boundscheck_is_part_of_the_kernel_cache_key(tmp_path):
    """A kernel compiled without bounds checks is not loaded under ``NUMBA_BOUNDSCHECK=1`` (nor the reverse).

    The opted-out physics writes ``aux[i, 1]`` past a row of width 1: unchecked, it lands in the final infos'
    slots of the same allocation (``auxes[1]``), so the run stays memory-safe."""

    def run(**environ):
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), **environ}
        env.pop("NUMBA_BOUNDSCHECK", None) if not environ else None
        result = subprocess.run(
            [sys.executable, "-c", BOUNDSCHECK_RUN, *HERE_AND_TESTS],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.split()[-1]

    assert run() == "unchecked"
    assert run(NUMBA_BOUNDSCHECK="1") == "checked"
    assert run() == "unchecked"


def _step_types(bound_step, actions: np.ndarray) -> tuple:
    """The numba types of the step kernel's arguments in a bound step (``KernelBatch.bind_step``/``bind_step_entry``)."""
    args = bound_step.args if actions is None else (*bound_step.args, actions)
    return tuple(numba.typeof(arg) for arg in args)


@pytest.mark.skipif(INTERPRETED, reason="no compiled kernels without the JIT")
@pytest.mark.parametrize(
    "env_id",
    [
        "CartPole-v1",
        "Pendulum-v1",
        "LunarLander-v3",
        "LunarLanderContinuous-v3",
        "BipedalWalker-v3",
        "CarRacing-v3",
        "HalfCheetah-v5",
    ],
)
def test_a_single_env_and_its_vector_env_run_one_compiled_kernel(env_id):
    """The single env (a batch of one) passes the kernels the types the vector env passes them (parameter record,
    state arrays, buffers, actions), so one compile serves both: a Box2D port's takes ~40 s."""
    if env_id == "HalfCheetah-v5":
        pytest.importorskip("mujoco")
    single = nbgym.make(env_id).unwrapped
    single.reset(seed=0)
    single.step(single.action_space.sample())
    vector = nbgym.make_vec(env_id, 3, vectorization_mode="vector_entry_point")
    vector.reset(seed=0)
    vector.step(vector.action_space.sample())
    if single._discrete:
        single_step = _step_types(single._step_discrete, None)
    else:
        [single_step] = [_step_types(step, None) for _, step in single._step_box.values()]
    vector_step = _step_types(vector._step_kernel, vector._batch.actions_array(vector.action_space.sample()))
    assert single_step == vector_step

    def reset_types(batch):
        return tuple(
            numba.typeof(arg)
            for arg in (
                batch.params,
                batch.state,
                batch.pcg,
                batch.buf,
                batch.all_envs,
                batch.observations,
                batch.flags,
                batch.elapsed,
                batch.auxes,
            )
        )

    assert reset_types(single._batch) == reset_types(vector._batch)
