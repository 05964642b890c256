"""The Box2D envs' objects over the port's rows (``nbgym/envs/box2d/_port_objects.py``): what ``nbgym warmup``
compiles of them."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

import nbgym
from nbgym._box2d import revolute_joint, world_step
from nbgym._box2d import world as W
from nbgym.envs.box2d import _port_objects

COMPILED_MODULES = {"W": W, "world_step": world_step, "revolute_joint": revolute_joint}


def compiled_calls_of_the_objects() -> set[tuple[str, str]]:
    """Every ``W.f(...)``, ``world_step.f(...)`` and ``revolute_joint.f(...)`` that the objects' methods make."""
    calls = set()
    for node in ast.walk(ast.parse(inspect.getsource(_port_objects))):
        if isinstance(node, ast.ClassDef):
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id in COMPILED_MODULES
                ):
                    calls.add((call.func.value.id, call.func.attr))
    return calls


@pytest.mark.parametrize(
    "env_id",
    [
        "LunarLander-v3",
        # The port's calls these two envs' objects add (minutes to compile): the same check, asked for.
        pytest.param("BipedalWalker-v3", marks=pytest.mark.cold),
        pytest.param("CarRacing-v3", marks=pytest.mark.cold),
    ],
)
def test_warmup_makes_every_compiled_call_of_the_objects(env_id, monkeypatch):
    """``compile_port_calls`` (what ``nbgym warmup`` runs after an env's steps) calls each compiled function the
    objects call from Python, so that a user's first ``ApplyForce`` or ``position = ...`` loads it from the cache;
    a new call in the objects that it misses fails here."""
    expected = compiled_calls_of_the_objects()
    assert {name for _, name in expected} >= {"set_transform", "apply_force", "set_motor_speed", "set_limits"}
    env = nbgym.make(env_id).unwrapped
    env.reset(seed=0)
    made = set()

    class Recording:
        """A compiled module as the objects see it, noting which functions they call."""

        def __init__(self, name: str) -> None:
            self._name = name

        def __getattr__(self, attribute: str) -> object:
            value = getattr(COMPILED_MODULES[self._name], attribute)
            if callable(value):
                made.add((self._name, attribute))
            return value

    for module_name in COMPILED_MODULES:
        monkeypatch.setattr(_port_objects, module_name, Recording(module_name))
    positions = env._batch.state.w.body_f[..., W.BF_PX : W.BF_PY + 1].copy()
    env._compile_python_calls()
    np.testing.assert_array_equal(env._batch.state.w.body_f[..., W.BF_PX : W.BF_PY + 1], positions)
    assert made >= expected
