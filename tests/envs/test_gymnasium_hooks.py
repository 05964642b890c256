"""Subclasses that override what gymnasium's environments call in their own step, reset, render and ``__init__``
(``_get_obs``, MuJoCo's ``_get_rew``, LunarLander's ``_create_particle``...).

gymnasium's environments call these helpers, so a subclass's override changes what gymnasium's env returns. nbgym's
calls are compiled: it follows the observation and reset-info helpers (``observation_hook``, ``reset_info_hook``)
and refuses a subclass that overrides any other one where it is defined, naming what to do instead. The oracle
here is gymnasium's own env, probed: every helper gymnasium's class defines is overridden with one that records
where it is called from, then the env is made, reset, stepped, rendered and closed. A helper gymnasium calls is
either declared in the nbgym class's ``gymnasium_hooks`` with each of those callers, or called from the same
places by nbgym's env.
"""

from __future__ import annotations

import importlib
import inspect
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import nbgym
from nbgym.engine import KernelEnv

PUBLIC_API = {"step", "reset", "render", "close", "get_keys_to_action", "np_random", "np_random_seed", "unwrapped"}
"""What users call themselves: overriding these is overriding the env's behaviour directly, which Python follows."""

# One id per gymnasium class (Pusher-v4 needs mujoco<3 in gymnasium; its v5 class is probed).
IDS = [
    "CartPole-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1", "Acrobot-v1",
    "Blackjack-v1", "FrozenLake-v1", "CliffWalking-v1", "Taxi-v4",
    "LunarLander-v3", "BipedalWalker-v3", "CarRacing-v3",
    "Reacher-v4", "Reacher-v5", "Pusher-v5", "InvertedPendulum-v4", "InvertedPendulum-v5",
    "InvertedDoublePendulum-v4", "InvertedDoublePendulum-v5", "HalfCheetah-v4", "HalfCheetah-v5", "Hopper-v4",
    "Hopper-v5", "Swimmer-v4", "Swimmer-v5", "Walker2d-v4", "Walker2d-v5", "Ant-v4", "Ant-v5", "Humanoid-v4",
    "Humanoid-v5", "HumanoidStandup-v4", "HumanoidStandup-v5",
]  # fmt: skip


def gymnasium_class(env_id: str) -> type:
    module, name = gymnasium.spec(env_id).entry_point.split(":")
    return getattr(importlib.import_module(module), name)


def helpers(cls: type) -> list[str]:
    """The methods and properties gymnasium's ``cls`` (and its gymnasium bases) define, beyond the public API."""
    names: list[str] = []
    for klass in cls.__mro__:
        if klass.__module__.startswith("gymnasium.envs"):
            for name, member in vars(klass).items():
                if name.startswith("__") or name in PUBLIC_API or name in names:
                    continue
                if callable(member) or isinstance(member, property):
                    names.append(name)
    return names


def recording(cls: type, names: list[str], calls: dict[str, set[str]], phase: list[str]) -> type:
    """A subclass of ``cls`` whose ``names`` record the phase they are called in, then do what ``cls``'s do."""
    namespace: dict[str, Any] = {}
    for name in names:
        member = inspect.getattr_static(cls, name)
        if isinstance(member, property):

            def fget(self: Any, name: str = name) -> Any:
                calls.setdefault(name, set()).add(phase[0])
                return getattr(super(subclass, self), name)

            namespace[name] = property(fget)
        else:

            def method(self: Any, *args: Any, name: str = name, **kwargs: Any) -> Any:
                calls.setdefault(name, set()).add(phase[0])
                return getattr(super(subclass, self), name)(*args, **kwargs)

            namespace[name] = method
    subclass = type(f"Recording{cls.__name__}", (cls,), namespace)
    return subclass


def probe(cls: type, names: list[str], env_id: str) -> dict[str, set[str]]:
    """Where ``cls``'s ``names`` are called from: ``__init__``, ``reset``, three ``step``s, ``render``, ``close``."""
    calls: dict[str, set[str]] = {}
    phase = ["__init__"]
    mujoco = "mujoco" in gymnasium.spec(env_id).entry_point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = recording(cls, names, calls, phase)(
            render_mode=None if mujoco else "rgb_array", **gymnasium.spec(env_id).kwargs
        )
        phase[0] = "reset"
        env.reset(seed=0)
        env.action_space.seed(0)
        phase[0] = "step"
        for _ in range(3):
            env.step(env.action_space.sample())
        if not mujoco:  # (MuJoCo's frames need an OpenGL context; its helpers are not called by render)
            phase[0] = "render"
            env.render()
        phase[0] = "close"
        env.close()
    return calls


def nbgym_class(env_id: str) -> type:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = nbgym.make(env_id)
    cls = type(env.unwrapped)
    env.close()
    return cls


@pytest.mark.parametrize("env_id", IDS)
def test_every_helper_gymnasium_calls_is_followed_or_refused(env_id: str) -> None:
    theirs = gymnasium_class(env_id)
    ours = nbgym_class(env_id)
    names = helpers(theirs)
    called = probe(theirs, names, env_id)
    hooks = ours.gymnasium_hooks
    for name in names:
        if name in hooks:
            assert called.get(name, set()) <= set(hooks[name]), (name, called.get(name), hooks[name])
    followed = [name for name in names if name not in hooks]
    missing = [name for name in followed if not hasattr(ours, name)]
    assert not [name for name in missing if called.get(name)], f"called by gymnasium, missing in nbgym: {missing}"
    present = [name for name in followed if name not in missing]
    ours_called = probe(ours, present, env_id)
    for name in present:
        assert ours_called.get(name, set()) == called.get(name, set()), (name, ours_called.get(name), called.get(name))
    for name in (ours.observation_hook, ours.reset_info_hook):
        assert name is None or name in hooks


def _override(cls: type, name: str, extra: tuple[str, ...] = ()) -> type:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(super(subclass, self), name)(*args, **kwargs)

    namespace: dict[str, Any] = {name: method}
    for caller in extra:
        namespace[caller] = getattr(cls, caller)
    subclass = type("Overriding", (cls,), namespace)
    return subclass


@pytest.mark.parametrize("env_id", [env_id for env_id in IDS if not env_id.endswith("-v4")])
def test_a_subclass_overriding_a_helper_nbgym_does_not_call_is_refused(env_id: str) -> None:
    ours = nbgym_class(env_id)
    for name, callers in ours.gymnasium_hooks.items():
        if name in (ours.observation_hook, ours.reset_info_hook):
            _override(ours, name)  # followed: taken
            continue
        with pytest.raises(TypeError, match=rf"overrides {name}, which gymnasium's {ours.__name__} calls in"):
            _override(ours, name)
        overridden_callers = tuple(caller for caller in callers if caller != "__init__")
        if "__init__" in callers:
            with pytest.raises(TypeError, match="make the change in the class's arguments"):
                _override(ours, name, overridden_callers)
        else:
            _override(ours, name, overridden_callers)  # its callers overridden: the subclass's own to make


class _PositionsObservation:
    """A subclass's observation (gymnasium's and nbgym's alike): the positions and velocities, and one body's."""

    def _get_obs(self) -> np.ndarray:
        return np.concatenate([self.data.qpos, self.data.qvel, self.get_body_com("torso")])

    def _get_reset_info(self) -> dict[str, Any]:
        return {"height": self.data.qpos[1], "first_velocity": self.data.qvel[0]}


class _StateObservation:
    def _get_obs(self) -> np.ndarray:
        return np.array([*self.state, 1.0], dtype=np.float32)

    _get_ob = _get_obs


@pytest.mark.parametrize(
    "env_id, mixin",
    [("Hopper-v5", _PositionsObservation), ("Ant-v4", _PositionsObservation), ("Pendulum-v1", _StateObservation),
     ("Acrobot-v1", _StateObservation)],
)  # fmt: skip
def test_an_overridden_observation_helper_makes_the_observations(env_id: str, mixin: type) -> None:
    """gymnasium's step and reset return what the subclass's helper makes: so do nbgym's, bit for bit."""
    kwargs = gymnasium.spec(env_id).kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = type("Theirs", (mixin, gymnasium_class(env_id)), {})(**kwargs)
        ours = type("Ours", (mixin, nbgym_class(env_id)), {})(**kwargs)
    assert isinstance(ours, KernelEnv)
    for seed in (0, 7):
        ob_theirs, info_theirs = theirs.reset(seed=seed)
        ob_ours, info_ours = ours.reset(seed=seed)
        assert ob_ours.dtype == ob_theirs.dtype and np.array_equal(ob_ours, ob_theirs)
        assert info_ours == info_theirs and all(type(info_ours[k]) is type(info_theirs[k]) for k in info_theirs)
        theirs.action_space.seed(seed)
        for _ in range(40):
            action = theirs.action_space.sample()
            result_theirs = theirs.step(action)
            result_ours = ours.step(action)
            assert np.array_equal(result_ours[0], result_theirs[0]) and result_ours[0].dtype == result_theirs[0].dtype
            assert result_ours[1:4] == result_theirs[1:4]
            if result_theirs[2] or result_theirs[3]:
                break
