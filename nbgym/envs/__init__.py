"""Registers nbgym's environments, with gymnasium 1.4.0's ids, arguments, step limits and reward thresholds.

Every entry point is a string, so no environment module (nor numba) is imported until the environment
is made. Each environment also has a vector entry point: its compiled vector environment, which
:func:`nbgym.make_vec` uses by default.
"""

from __future__ import annotations

import sys
from typing import Any

from nbgym._lazy import import_submodule
from nbgym.registration import make, make_vec, pprint_registry, register, registry, spec

__all__ = ["make", "make_vec", "pprint_registry", "register", "registry", "spec"]

# Classic control
# ----------------------------------------

register(
    id="CartPole-v0",
    entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv",
    vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv",
    max_episode_steps=200,
    reward_threshold=195.0,
)

register(
    id="CartPole-v1",
    entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv",
    vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv",
    max_episode_steps=500,
    reward_threshold=475.0,
)

register(
    id="MountainCar-v0",
    entry_point="nbgym.envs.classic_control.mountain_car:MountainCarEnv",
    vector_entry_point="nbgym.envs.classic_control.mountain_car:MountainCarVectorEnv",
    max_episode_steps=200,
    reward_threshold=-110.0,
)

register(
    id="MountainCarContinuous-v0",
    entry_point="nbgym.envs.classic_control.continuous_mountain_car:Continuous_MountainCarEnv",
    vector_entry_point="nbgym.envs.classic_control.continuous_mountain_car:Continuous_MountainCarVectorEnv",
    max_episode_steps=999,
    reward_threshold=90.0,
)

register(
    id="Pendulum-v1",
    entry_point="nbgym.envs.classic_control.pendulum:PendulumEnv",
    vector_entry_point="nbgym.envs.classic_control.pendulum:PendulumVectorEnv",
    max_episode_steps=200,
)

register(
    id="Acrobot-v1",
    entry_point="nbgym.envs.classic_control.acrobot:AcrobotEnv",
    vector_entry_point="nbgym.envs.classic_control.acrobot:AcrobotVectorEnv",
    reward_threshold=-100.0,
    max_episode_steps=500,
)

# gymnasium's JAX functional environments (jax is imported when one is made; see nbgym.envs.functional_jax_env).
register(
    id="phys2d/CartPole-v0",
    entry_point="nbgym.envs.phys2d.cartpole:CartPoleJaxEnv",
    vector_entry_point="nbgym.envs.phys2d.cartpole:CartPoleJaxVectorEnv",
    max_episode_steps=200,
    reward_threshold=195.0,
    disable_env_checker=True,
)

register(
    id="phys2d/CartPole-v1",
    entry_point="nbgym.envs.phys2d.cartpole:CartPoleJaxEnv",
    vector_entry_point="nbgym.envs.phys2d.cartpole:CartPoleJaxVectorEnv",
    max_episode_steps=500,
    reward_threshold=475.0,
    disable_env_checker=True,
)

register(
    id="phys2d/Pendulum-v0",
    entry_point="nbgym.envs.phys2d.pendulum:PendulumJaxEnv",
    vector_entry_point="nbgym.envs.phys2d.pendulum:PendulumJaxVectorEnv",
    max_episode_steps=200,
    disable_env_checker=True,
)

# Box2D
# ----------------------------------------
# LunarLander's and BipedalWalker's single envs and vector entry points, and CarRacing's vector entry point, are
# compiled envs on nbgym's Box2D port (rendered vector envs are SyncVectorEnvs of single envs); CarRacing's single
# env is plain Python on the box2d wheel. LunarLander-v2 and BipedalWalker-v2 raise DeprecatedEnv, as in gymnasium.

register(
    id="LunarLander-v3",
    entry_point="nbgym.envs.box2d.lunar_lander:LunarLander",
    vector_entry_point="nbgym.envs.box2d.lunar_lander:LunarLanderVectorEnv",
    max_episode_steps=1000,
    reward_threshold=200,
)

register(
    id="LunarLanderContinuous-v3",
    entry_point="nbgym.envs.box2d.lunar_lander:LunarLander",
    vector_entry_point="nbgym.envs.box2d.lunar_lander:LunarLanderVectorEnv",
    kwargs={"continuous": True},
    max_episode_steps=1000,
    reward_threshold=200,
)

register(
    id="BipedalWalker-v3",
    entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalker",
    vector_entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalkerVectorEnv",
    max_episode_steps=1600,
    reward_threshold=300,
)

register(
    id="BipedalWalkerHardcore-v3",
    entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalker",
    vector_entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalkerVectorEnv",
    kwargs={"hardcore": True},
    max_episode_steps=2000,
    reward_threshold=300,
)

register(
    id="CarRacing-v3",
    entry_point="nbgym.envs.box2d.car_racing:CarRacing",
    vector_entry_point="nbgym.envs.box2d.car_racing:CarRacingVectorEnv",
    max_episode_steps=1000,
    reward_threshold=900,
)

# Toy text
# ----------------------------------------

register(
    id="Blackjack-v1",
    entry_point="nbgym.envs.toy_text.blackjack:BlackjackEnv",
    vector_entry_point="nbgym.envs.toy_text.blackjack:BlackjackVectorEnv",
    kwargs={"sab": True, "natural": False},
)

register(
    id="FrozenLake-v1",
    entry_point="nbgym.envs.toy_text.frozen_lake:FrozenLakeEnv",
    vector_entry_point="nbgym.envs.toy_text.frozen_lake:FrozenLakeVectorEnv",
    kwargs={"map_name": "4x4"},
    max_episode_steps=100,
    reward_threshold=0.70,  # optimum = 0.74
)

register(
    id="FrozenLake8x8-v1",
    entry_point="nbgym.envs.toy_text.frozen_lake:FrozenLakeEnv",
    vector_entry_point="nbgym.envs.toy_text.frozen_lake:FrozenLakeVectorEnv",
    kwargs={"map_name": "8x8"},
    max_episode_steps=200,
    reward_threshold=0.85,  # optimum = 0.91
)

register(
    id="CliffWalking-v1",
    entry_point="nbgym.envs.toy_text.cliffwalking:CliffWalkingEnv",
    vector_entry_point="nbgym.envs.toy_text.cliffwalking:CliffWalkingVectorEnv",
)

register(
    id="CliffWalkingSlippery-v1",
    entry_point="nbgym.envs.toy_text.cliffwalking:CliffWalkingEnv",
    vector_entry_point="nbgym.envs.toy_text.cliffwalking:CliffWalkingVectorEnv",
    kwargs={"is_slippery": True},
)

# Taxi-v3 and CliffWalking-v0 are not registered: with a newer version registered, make() of them
# raises DeprecatedEnv pointing to it, exactly as in gymnasium.
register(
    id="Taxi-v4",
    entry_point="nbgym.envs.toy_text.taxi:TaxiEnv",
    vector_entry_point="nbgym.envs.toy_text.taxi:TaxiVectorEnv",
    reward_threshold=8,  # optimum = 8.46
    max_episode_steps=200,
)

register(
    id="tabular/Blackjack-v0",
    entry_point="nbgym.envs.tabular.blackjack:BlackJackJaxEnv",
    disable_env_checker=True,
)

register(
    id="tabular/CliffWalking-v0",
    entry_point="nbgym.envs.tabular.cliffwalking:CliffWalkingJaxEnv",
    disable_env_checker=True,
)

# MuJoCo (mujoco is imported when one is made), in gymnasium's order: each env's v2/v3 ids, which gymnasium
# registers only to refuse (they need mujoco-py), then v4 (v5's physics with v4's options) and v5.
# ----------------------------------------


def _raise_mujoco_py_error(*args: Any, **kwargs: Any) -> None:
    """Refuses a v2/v3 MuJoCo id as gymnasium does.

    Raises:
        ImportError: Always, naming where these environments went.
    """
    raise ImportError(
        "The mujoco v2 and v3 based environments have been moved to the gymnasium-robotics project "
        "(https://github.com/Farama-Foundation/gymnasium-robotics)."
    )


def _refuse_pusher_v4(*args: Any, **kwargs: Any) -> Any:
    """Pusher-v4: refused as gymnasium refuses it on mujoco >= 3 (see ``nbgym.envs.mujoco.pusher_v4``).

    A callable entry point, as the v2/v3 ids have: the tools that go over nbgym's environments
    (``nbgym warmup``, ``nbgym list``) leave it out.

    Raises:
        ImportError: Always.
    """
    from nbgym.envs.mujoco.pusher_v4 import PusherEnv

    return PusherEnv(*args, **kwargs)


# (class name prefix, module name prefix, max_episode_steps, reward_threshold, the refused versions)
_MUJOCO_ENVS = (
    ("Reacher", "reacher", 50, -3.75, ("v2",)),
    ("Pusher", "pusher", 100, 0.0, ("v2",)),
    ("InvertedPendulum", "inverted_pendulum", 1000, 950.0, ("v2",)),
    ("InvertedDoublePendulum", "inverted_double_pendulum", 1000, 9100.0, ("v2",)),
    ("HalfCheetah", "half_cheetah", 1000, 4800.0, ("v2", "v3")),
    ("Hopper", "hopper", 1000, 3800.0, ("v2", "v3")),
    ("Swimmer", "swimmer", 1000, 360.0, ("v2", "v3")),
    ("Walker2d", "walker2d", 1000, None, ("v2", "v3")),
    ("Ant", "ant", 1000, 6000.0, ("v2", "v3")),
    ("Humanoid", "humanoid", 1000, None, ("v2", "v3")),
    ("HumanoidStandup", "humanoidstandup", 1000, None, ("v2",)),
)

for _name, _module, _steps, _threshold, _refused in _MUJOCO_ENVS:
    for _version in _refused:
        register(id=f"{_name}-{_version}", entry_point=_raise_mujoco_py_error)
    for _version in ("v4", "v5"):
        _path = f"nbgym.envs.mujoco.{_module}_{_version}"
        _refused_v4 = _name == "Pusher" and _version == "v4"
        register(
            id=f"{_name}-{_version}",
            entry_point=_refuse_pusher_v4 if _refused_v4 else f"{_path}:{_name}Env",
            vector_entry_point=None if _refused_v4 else f"{_path}:{_name}VectorEnv",
            max_episode_steps=_steps,
            reward_threshold=_threshold,
        )
del _name, _module, _steps, _threshold, _refused, _version, _path, _refused_v4


def _shimmy_env(class_name: str, kwargs: dict[str, Any]) -> Any:
    """The old-gym environment that shimmy's ``class_name`` adapts, presented as nbgym's.

    gymnasium registers these ids to raise until shimmy is imported (shimmy then re-registers them with its
    adapters as entry points); here the entry point looks for an imported shimmy the same way.

    Raises:
        ImportError: If shimmy has not been imported, with gymnasium's message.
    """
    shimmy = sys.modules.get("shimmy")
    if shimmy is None:
        raise ImportError(
            'To use the gym compatibility environments, run `pip install "shimmy[gym-v21]"` or '
            '`pip install "shimmy[gym-v26]"`'
        )
    from nbgym.interop import from_gymnasium

    return from_gymnasium(getattr(shimmy, class_name)(**kwargs))


def _gym_v21_env(*args: Any, **kwargs: Any) -> Any:
    """``GymV21Environment-v0``: shimmy's ``GymV21CompatibilityV0`` (see :func:`_shimmy_env`)."""
    return _shimmy_env("GymV21CompatibilityV0", kwargs)


def _gym_v26_env(*args: Any, **kwargs: Any) -> Any:
    """``GymV26Environment-v0``: shimmy's ``GymV26CompatibilityV0`` (see :func:`_shimmy_env`)."""
    return _shimmy_env("GymV26CompatibilityV0", kwargs)


# The old gym package's environments, through shimmy, as gymnasium registers them.
register(id="GymV21Environment-v0", entry_point=_gym_v21_env)
register(id="GymV26Environment-v0", entry_point=_gym_v26_env)

# gymnasium's users reach the registry API as `gymnasium.envs.registration` right after `import gymnasium`;
# here `nbgym.envs` loads on first access and brings its `registration` module (no environment) with it.
from nbgym.envs import registration  # noqa: E402, F401


def __getattr__(name: str) -> Any:
    """Imports an environment family's package (``nbgym.envs.classic_control``, ...) on first access."""
    return import_submodule(__name__, name)
