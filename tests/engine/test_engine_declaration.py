"""One declaration per environment (nbgym.engine.declares_arguments, vector_env_class): every compiled env's vector
class is made from its single class, with the arguments the single class declares and the time limit registered
for them; a user's env declared the same way gets the same."""

from __future__ import annotations

import importlib
import inspect
import pickle
from typing import Any

import numpy as np
import pytest

import nbgym
from nbgym import spaces
from nbgym.engine import REGISTERED, KernelEnv, Physics, declares_arguments, vector_env_class
from nbgym.engine._declare import registered_max_episode_steps
from nbgym.utils import EzPickle


def _load(entry_point: str) -> type:
    module, name = entry_point.split(":")
    return getattr(importlib.import_module(module), name)


COMPILED = sorted(
    {
        (spec.entry_point, spec.vector_entry_point)
        for spec in nbgym.registry.values()
        if isinstance(spec.vector_entry_point, str)
        and spec.vector_entry_point.startswith("nbgym.envs.")
        and isinstance(spec.entry_point, str)
        and not spec.entry_point.startswith("nbgym.envs.phys2d")
        and not spec.entry_point.startswith("nbgym.envs.tabular")
    }
)


@pytest.mark.parametrize(("entry_point", "vector_entry_point"), COMPILED)
def test_every_vector_class_is_made_from_its_single_class(entry_point, vector_entry_point):
    single, vector = _load(entry_point), _load(vector_entry_point)
    assert issubclass(single, KernelEnv)
    declared = single.__init__.declared_signature
    parameter = inspect.Parameter
    own = [
        p
        for p in list(declared.parameters.values())[1:]
        if p.kind is parameter.POSITIONAL_OR_KEYWORD and p.name not in single.rendering_arguments
    ]
    expected = [
        ("num_envs", 1),
        ("max_episode_steps", REGISTERED),
        ("render_mode", None),
        *((p.name, p.default) for p in own),
    ]
    parameters = list(inspect.signature(vector).parameters.values())
    assert [(p.name, p.default) for p in parameters[:-1]] == expected
    assert parameters[-1].kind is parameter.VAR_KEYWORD
    assert inspect.signature(single) == declared.replace(parameters=list(declared.parameters.values())[1:])
    assert set(vector.metadata["render_modes"]) <= set(single.metadata["render_modes"])
    assert vector.metadata.get("render_fps") == single.metadata.get("render_fps")
    assert pickle.loads(pickle.dumps(vector)) is vector


@pytest.mark.parametrize(
    "env_id",
    sorted(id_ for id_, spec in nbgym.registry.items() if (spec.entry_point, spec.vector_entry_point) in COMPILED),
)
def test_a_vector_class_made_directly_gets_the_registered_limit(env_id):
    """The default ``max_episode_steps`` of a vector class built without ``make_vec`` is its registration's (the
    newest version's where two versions register the same arguments: CartPole-v1's 500 over v0's 200)."""
    spec = nbgym.spec(env_id)
    single, vector = _load(spec.entry_point), _load(spec.vector_entry_point)
    arguments = {name: p.default for name, p in list(inspect.signature(vector).parameters.items())[2:-1]} | spec.kwargs
    newest = max(
        (
            other
            for other in nbgym.registry.values()
            if other.vector_entry_point == spec.vector_entry_point and other.kwargs == spec.kwargs
        ),
        key=lambda other: other.version or 0,
    )
    assert registered_max_episode_steps(single, vector, arguments) == newest.max_episode_steps


def test_the_registered_limit_follows_the_arguments():
    from nbgym.envs.classic_control.cartpole import CartPoleVectorEnv
    from nbgym.envs.toy_text.frozen_lake import FrozenLakeVectorEnv

    assert CartPoleVectorEnv(2).max_episode_steps == 500
    assert CartPoleVectorEnv(2, 7).max_episode_steps == 7  # gymnasium's CartPoleVectorEnv's order
    assert CartPoleVectorEnv(2, max_episode_steps=None).max_episode_steps is None
    assert FrozenLakeVectorEnv(2).max_episode_steps == 100
    assert FrozenLakeVectorEnv(2, map_name="8x8").max_episode_steps == 200
    assert FrozenLakeVectorEnv(2, map_name=None, desc=["SF", "FG"]).max_episode_steps is None
    from nbgym.envs.box2d.bipedal_walker import BipedalWalker, BipedalWalkerVectorEnv

    hardcore = {"render_mode": None, "hardcore": True}
    assert registered_max_episode_steps(BipedalWalker, BipedalWalkerVectorEnv, hardcore) == 2000
    # 1 is not the registered True: BipedalWalker-v3's (kwargs {}), as make("BipedalWalker-v3", hardcore=1) limits it
    assert registered_max_episode_steps(BipedalWalker, BipedalWalkerVectorEnv, {**hardcore, "hardcore": 1}) == 1600


# -- a user's env, declared once ---------------------------------------------------------------------------------


def _reset(params, state, i, stream, aux):
    state[i, 0] = params.start


def _step(params, state, i, actions, stream, aux):
    state[i, 0] += params.step_size * (1.0 if actions[i] == 1 else -1.0)
    return 1.0, state[i, 0] > params.goal


def _observe(params, state, i, obs):
    obs[i, 0] = state[i, 0]


def _action_valid(params, actions, i):
    return 0 <= actions[i] < 2


LINE = Physics(
    "DeclaredLine",
    params=[("start", np.float64), ("step_size", np.float64), ("goal", np.float64)],
    state=(1, np.float64),
    reset=_reset,
    step=_step,
    observe=_observe,
    action_valid=_action_valid,
)


class _Line:
    """A shared declaration (a mixin): the vector class takes it too."""

    physics = LINE

    def _single_spaces(self) -> tuple[spaces.Box, spaces.Discrete]:
        return spaces.Box(-np.inf, np.inf, (1,), np.float64), spaces.Discrete(2)


class LineEnv(_Line, KernelEnv, EzPickle):
    """Walk a line to a goal."""

    metadata = {"render_modes": ["human"], "render_fps": 5}

    @declares_arguments
    def __init__(self, step_size: float = 0.5, render_mode: str | None = None, goal: float = 2.0) -> None:
        EzPickle.__init__(self, step_size, render_mode, goal)
        self.built_before_body = self._params["goal"][0]

    def _configure(self, arguments: Any) -> np.ndarray:  # declared by the class itself
        if arguments.step_size <= 0:
            raise ValueError(f"step_size must be positive, got {arguments.step_size}")
        return LINE.new_params(start=0.0, step_size=arguments.step_size, goal=arguments.goal)


LineVectorEnv = vector_env_class(LineEnv)


def test_a_users_env_declared_once():
    env = LineEnv(0.25, None, 1.0)
    assert env.built_before_body == 1.0 and env.step_size == 0.25  # the parameters are attributes
    assert env.reset(seed=0)[0].tolist() == [0.0]
    assert env.step(1)[0].tolist() == [0.25]
    with pytest.raises(TypeError, match="no_such"):
        LineEnv(no_such=1)
    with pytest.raises(ValueError, match="step_size must be positive"):
        LineEnv(step_size=0)

    assert list(inspect.signature(LineVectorEnv).parameters) == [
        "num_envs",
        "max_episode_steps",
        "render_mode",
        "step_size",
        "goal",
        "vector_options",
    ]
    envs = LineVectorEnv(3, None, None, 0.5, goal=0.9)
    assert envs.max_episode_steps is None  # not registered
    assert envs.metadata["render_modes"] == []  # no renderer: the vector class draws nothing
    assert (envs.step_size, envs.goal) == (0.5, 0.9)
    envs.reset(seed=1)
    obs, rewards, terminated, truncated, _ = envs.step(np.array([1, 1, 0]))
    assert obs[:, 0].tolist() == [0.5, 0.5, -0.5]
    obs, rewards, terminated, truncated, _ = envs.step(np.array([1, 0, 0]))
    assert terminated.tolist() == [True, False, False]
    assert not isinstance(envs, EzPickle)
    copy = pickle.loads(pickle.dumps(envs))
    assert type(copy) is LineVectorEnv and copy.goal == 0.9
    with pytest.raises(ValueError, match="step_size must be positive"):
        LineVectorEnv(step_size=-1.0)

    nbgym.register("test/DeclaredLine-v0", entry_point=LineEnv, vector_entry_point=LineVectorEnv, max_episode_steps=9)
    nbgym.register("test/DeclaredLongLine-v0", entry_point=LineEnv, kwargs={"goal": 5.0}, max_episode_steps=30)
    try:
        assert LineVectorEnv(2).max_episode_steps == 9
        assert LineVectorEnv(2, goal=5.0).max_episode_steps == 30
        assert nbgym.make_vec("test/DeclaredLine-v0", 2, vectorization_mode="vector_entry_point").max_episode_steps == 9
    finally:
        del nbgym.registry["test/DeclaredLine-v0"], nbgym.registry["test/DeclaredLongLine-v0"]


def test_what_cannot_be_made_into_a_vector_class():
    class Undeclared(_Line, KernelEnv):
        def __init__(self, render_mode: str | None = None) -> None:
            super().__init__(LINE.new_params(start=0.0, step_size=1.0, goal=1.0), render_mode)

    with pytest.raises(TypeError, match="decorate it with nbgym.engine.declares_arguments"):
        vector_env_class(Undeclared)

    class KeywordOnly(_Line, KernelEnv):
        @declares_arguments
        def __init__(self, render_mode: str | None = None, *, goal: float = 1.0) -> None:
            """A keyword-only argument."""

    with pytest.raises(TypeError, match="goal is not positional-or-keyword"):
        vector_env_class(KeywordOnly)

    class NotCompiled(nbgym.Env):
        @declares_arguments
        def __init__(self, render_mode: str | None = None) -> None:
            """Not a KernelEnv."""

    with pytest.raises(TypeError, match="not a KernelEnv"):
        vector_env_class(NotCompiled)


def test_cartpole_vector_env_takes_gymnasiums_arguments_in_its_order():
    """gymnasium's own CartPoleVectorEnv is the precedent of the made classes' order: the same names, positions and
    defaults, but max_episode_steps, whose default is the registered limit (CartPole-v1's 500, gymnasium's default)."""
    from gymnasium.envs.classic_control.cartpole import CartPoleVectorEnv as TheirCartPoleVectorEnv

    from nbgym.envs.classic_control.cartpole import CartPoleVectorEnv

    theirs = list(inspect.signature(TheirCartPoleVectorEnv).parameters.values())
    ours = list(inspect.signature(CartPoleVectorEnv).parameters.values())[: len(theirs)]
    assert [(p.name, p.kind) for p in ours] == [(p.name, p.kind) for p in theirs]
    assert [p.default for p in ours if p.name != "max_episode_steps"] == [
        p.default for p in theirs if p.name != "max_episode_steps"
    ]
    assert CartPoleVectorEnv(1).max_episode_steps == TheirCartPoleVectorEnv(1).max_episode_steps == 500
