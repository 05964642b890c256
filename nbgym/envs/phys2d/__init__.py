"""2D physics environments written as JAX functional environments (gymnasium 1.4.0's ``gymnasium.envs.phys2d``):
``phys2d/CartPole-v0``, ``phys2d/CartPole-v1``, ``phys2d/Pendulum-v0``. Importing this package imports jax."""

from nbgym.envs.phys2d.cartpole import CartPoleFunctional, CartPoleJaxEnv
from nbgym.envs.phys2d.pendulum import PendulumFunctional, PendulumJaxEnv

__all__ = ["CartPoleFunctional", "CartPoleJaxEnv", "PendulumFunctional", "PendulumJaxEnv"]
