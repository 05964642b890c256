"""Registers nbgym's environments, with gymnasium 1.4.0's ids, arguments, step limits and reward thresholds.

Every entry point is a string, so no environment module (nor numba) is imported until the environment
is made. Each environment also has a vector entry point: its compiled vector environment, which
:func:`nbgym.make_vec` uses by default.
"""

from __future__ import annotations

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

# Box2D
# ----------------------------------------
# Plain Python environments (Box2D is a world of objects, not a batched kernel): make_vec vectorizes
# them with SyncVectorEnv. LunarLander-v2 and BipedalWalker-v2 raise DeprecatedEnv, as in gymnasium.

register(
    id="LunarLander-v3",
    entry_point="nbgym.envs.box2d.lunar_lander:LunarLander",
    max_episode_steps=1000,
    reward_threshold=200,
)

register(
    id="LunarLanderContinuous-v3",
    entry_point="nbgym.envs.box2d.lunar_lander:LunarLander",
    kwargs={"continuous": True},
    max_episode_steps=1000,
    reward_threshold=200,
)

register(
    id="BipedalWalker-v3",
    entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalker",
    max_episode_steps=1600,
    reward_threshold=300,
)

register(
    id="BipedalWalkerHardcore-v3",
    entry_point="nbgym.envs.box2d.bipedal_walker:BipedalWalker",
    kwargs={"hardcore": True},
    max_episode_steps=2000,
    reward_threshold=300,
)

register(
    id="CarRacing-v3",
    entry_point="nbgym.envs.box2d.car_racing:CarRacing",
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

# MuJoCo (the v5 environments; mujoco is imported when one is made)
# ----------------------------------------

register(
    id="Reacher-v5",
    entry_point="nbgym.envs.mujoco.reacher_v5:ReacherEnv",
    vector_entry_point="nbgym.envs.mujoco.reacher_v5:ReacherVectorEnv",
    max_episode_steps=50,
    reward_threshold=-3.75,
)

register(
    id="Pusher-v5",
    entry_point="nbgym.envs.mujoco.pusher_v5:PusherEnv",
    vector_entry_point="nbgym.envs.mujoco.pusher_v5:PusherVectorEnv",
    max_episode_steps=100,
    reward_threshold=0.0,
)

register(
    id="InvertedPendulum-v5",
    entry_point="nbgym.envs.mujoco.inverted_pendulum_v5:InvertedPendulumEnv",
    vector_entry_point="nbgym.envs.mujoco.inverted_pendulum_v5:InvertedPendulumVectorEnv",
    max_episode_steps=1000,
    reward_threshold=950.0,
)

register(
    id="InvertedDoublePendulum-v5",
    entry_point="nbgym.envs.mujoco.inverted_double_pendulum_v5:InvertedDoublePendulumEnv",
    vector_entry_point="nbgym.envs.mujoco.inverted_double_pendulum_v5:InvertedDoublePendulumVectorEnv",
    max_episode_steps=1000,
    reward_threshold=9100.0,
)

register(
    id="HalfCheetah-v5",
    entry_point="nbgym.envs.mujoco.half_cheetah_v5:HalfCheetahEnv",
    vector_entry_point="nbgym.envs.mujoco.half_cheetah_v5:HalfCheetahVectorEnv",
    max_episode_steps=1000,
    reward_threshold=4800.0,
)

register(
    id="Hopper-v5",
    entry_point="nbgym.envs.mujoco.hopper_v5:HopperEnv",
    vector_entry_point="nbgym.envs.mujoco.hopper_v5:HopperVectorEnv",
    max_episode_steps=1000,
    reward_threshold=3800.0,
)

register(
    id="Swimmer-v5",
    entry_point="nbgym.envs.mujoco.swimmer_v5:SwimmerEnv",
    vector_entry_point="nbgym.envs.mujoco.swimmer_v5:SwimmerVectorEnv",
    max_episode_steps=1000,
    reward_threshold=360.0,
)

register(
    id="Walker2d-v5",
    entry_point="nbgym.envs.mujoco.walker2d_v5:Walker2dEnv",
    vector_entry_point="nbgym.envs.mujoco.walker2d_v5:Walker2dVectorEnv",
    max_episode_steps=1000,
)

register(
    id="Ant-v5",
    entry_point="nbgym.envs.mujoco.ant_v5:AntEnv",
    vector_entry_point="nbgym.envs.mujoco.ant_v5:AntVectorEnv",
    max_episode_steps=1000,
    reward_threshold=6000.0,
)

register(
    id="Humanoid-v5",
    entry_point="nbgym.envs.mujoco.humanoid_v5:HumanoidEnv",
    vector_entry_point="nbgym.envs.mujoco.humanoid_v5:HumanoidVectorEnv",
    max_episode_steps=1000,
)

register(
    id="HumanoidStandup-v5",
    entry_point="nbgym.envs.mujoco.humanoidstandup_v5:HumanoidStandupEnv",
    vector_entry_point="nbgym.envs.mujoco.humanoidstandup_v5:HumanoidStandupVectorEnv",
    max_episode_steps=1000,
)

# MuJoCo v4 (the v5 environments' physics with v4's options)
# ----------------------------------------

register(
    id="Hopper-v4",
    entry_point="nbgym.envs.mujoco.hopper_v4:HopperEnv",
    vector_entry_point="nbgym.envs.mujoco.hopper_v4:HopperVectorEnv",
    max_episode_steps=1000,
    reward_threshold=3800.0,
)

register(
    id="Walker2d-v4",
    entry_point="nbgym.envs.mujoco.walker2d_v4:Walker2dEnv",
    vector_entry_point="nbgym.envs.mujoco.walker2d_v4:Walker2dVectorEnv",
    max_episode_steps=1000,
)

register(
    id="HalfCheetah-v4",
    entry_point="nbgym.envs.mujoco.half_cheetah_v4:HalfCheetahEnv",
    vector_entry_point="nbgym.envs.mujoco.half_cheetah_v4:HalfCheetahVectorEnv",
    max_episode_steps=1000,
    reward_threshold=4800.0,
)

register(
    id="Swimmer-v4",
    entry_point="nbgym.envs.mujoco.swimmer_v4:SwimmerEnv",
    vector_entry_point="nbgym.envs.mujoco.swimmer_v4:SwimmerVectorEnv",
    max_episode_steps=1000,
    reward_threshold=360.0,
)

register(
    id="InvertedPendulum-v4",
    entry_point="nbgym.envs.mujoco.inverted_pendulum_v4:InvertedPendulumEnv",
    vector_entry_point="nbgym.envs.mujoco.inverted_pendulum_v4:InvertedPendulumVectorEnv",
    max_episode_steps=1000,
    reward_threshold=950.0,
)

# gymnasium's users reach the registry API as `gymnasium.envs.registration` right after `import gymnasium`;
# here `nbgym.envs` loads on first access and brings its `registration` module (no environment) with it.
from nbgym.envs import registration  # noqa: E402, F401


def __getattr__(name: str) -> Any:
    """Imports an environment family's package (``nbgym.envs.classic_control``, ...) on first access."""
    return import_submodule(__name__, name)
