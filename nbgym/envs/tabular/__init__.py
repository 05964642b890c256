"""Toy-text environments written as JAX functional environments (gymnasium 1.4.0's ``gymnasium.envs.tabular``):
``tabular/Blackjack-v0``, ``tabular/CliffWalking-v0``. Importing this package imports jax."""

from nbgym.envs.tabular.blackjack import BlackJackJaxEnv
from nbgym.envs.tabular.cliffwalking import CliffWalkingJaxEnv

__all__ = ["BlackJackJaxEnv", "CliffWalkingJaxEnv"]
