"""The engine examples run, with short budgets: the GridWorld tutorial's compiled env equals its plain-Python twin, and
evolution strategies on compiled rollouts learn CartPole-v1 and Pendulum-v1."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import numba
import pytest

import nbgym
from helpers.paths import EXAMPLES


pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="the examples' budgets assume compiled kernels")


def _example(name: str) -> ModuleType:
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def registry_as_found():
    """The tutorial registers its ids in the ``examples`` namespace; the registry tests of the same worker expect
    only the built-in ids, so the registry is put back as it was found (and the module forgotten with its ids)."""
    found = dict(nbgym.registry)
    yield
    nbgym.registry.clear()
    nbgym.registry.update(found)
    sys.modules.pop("grid_world", None)


def test_grid_world_tutorial_env_equals_its_python_twin(capsys, registry_as_found):
    """``main`` runs check_env, then compares the compiled and plain envs step by step (single, and vector in
    two autoreset modes; it raises at the first difference), then times both."""
    results = _example("grid_world").main(num_envs=16, steps=60)
    assert results["episodes"] > 10
    assert "compiled == plain Python" in capsys.readouterr().out


def test_evolution_strategies_solve_cartpole():
    """CartPole-v1's target (a mean return of 475 over 100 episodes) within 40 generations (deterministic)."""
    es = _example("evolution_strategies")
    curve = es.train(es.TASKS["CartPole-v1"], max_seconds=float("inf"), max_generations=40)
    assert curve.solved_after is not None and curve.mean_returns[-1] >= 475.0


def test_evolution_strategies_learn_pendulum():
    """Pendulum-v1 (solved after ~180 generations): after 60, the mean return has risen by more than 200."""
    es = _example("evolution_strategies")
    curve = es.train(es.TASKS["Pendulum-v1"], max_seconds=float("inf"), max_generations=60)
    assert curve.mean_returns[-1] > curve.mean_returns[0] + 200.0
