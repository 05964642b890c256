"""Functional environments, as gymnasium 1.4.0's ``gymnasium.experimental.functional``, and a numba path for them.

A :class:`FuncEnv` is an environment written as pure functions of an explicit state: ``initial``,
``transition``, ``observation``, ``reward``, ``terminal`` (and optionally ``state_info`` /
``transition_info``). :meth:`FuncEnv.transform` applies a function transformation to all of them at once:
gymnasium's JAX environments use ``transform(jax.jit)`` and ``transform(jax.vmap)``
(:mod:`nbgym.envs.functional_jax_env`).

What gymnasium has no equivalent of: a :class:`FuncEnv` whose functions are numba-compilable static methods
(drawing with :mod:`nbgym.engine.rng`) becomes a compiled vector environment with :class:`NumbaFuncVectorEnv`:
``transform(numba.njit)`` compiles each function, and one compiled call steps every sub-environment, with
gymnasium's vector semantics (next-step autoreset, a time limit, ``reset(seed=s)`` giving sub-environment
``i`` numpy's stream of seed ``s + i``). ``examples/functional_cartpole.py`` writes CartPole that way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import numpy as np

from nbgym.spaces import Space

__all__ = ["FuncEnv", "NumbaFuncVectorEnv"]  # noqa: F822 (NumbaFuncVectorEnv: module __getattr__)

StateType = TypeVar("StateType")
ActType = TypeVar("ActType")
ObsType = TypeVar("ObsType")
RewardType = TypeVar("RewardType")
TerminalType = TypeVar("TerminalType")
RenderStateType = TypeVar("RenderStateType")
Params = TypeVar("Params")


class FuncEnv(Generic[StateType, ObsType, ActType, RewardType, TerminalType, RenderStateType, Params]):
    """The template of a functional environment: the state is passed around explicitly, never kept.

    The class holds the environment's constants (``FuncEnv(options)`` sets each item of ``options`` as an
    attribute) and its functions:

    - ``initial(rng, params)``: the initial state;
    - ``transition(state, action, rng, params)``: the next state;
    - ``observation(state, rng, params)``: the observation of a state;
    - ``reward(state, action, next_state, rng, params)``: the reward of a transition;
    - ``terminal(state, rng, params)``: whether a state is terminal;
    - ``state_info(state, params)``, ``transition_info(state, action, next_state, params)``: info dicts
      (empty by default);
    - ``render_init``, ``render_image``, ``render_close``: rendering from a render state.

    As in gymnasium, this API is experimental and may change.
    """

    observation_space: Space
    action_space: Space

    def __init__(self, options: dict[str, Any] | None = None):
        """Sets the environment's constants: each item of ``options`` becomes an attribute."""
        self.__dict__.update(options or {})
        self.default_params = self.get_default_params()

    def initial(self, rng: Any, params: Params | None = None) -> StateType:
        """The initial state, drawn with ``rng``."""
        raise NotImplementedError

    def transition(self, state: StateType, action: ActType, rng: Any, params: Params | None = None) -> StateType:
        """The state after taking ``action`` in ``state``."""
        raise NotImplementedError

    def observation(self, state: StateType, rng: Any, params: Params | None = None) -> ObsType:
        """The observation of ``state``."""
        raise NotImplementedError

    def reward(
        self, state: StateType, action: ActType, next_state: StateType, rng: Any, params: Params | None = None
    ) -> RewardType:
        """The reward of the transition from ``state`` by ``action`` to ``next_state``."""
        raise NotImplementedError

    def terminal(self, state: StateType, rng: Any, params: Params | None = None) -> TerminalType:
        """Whether ``state`` is terminal."""
        raise NotImplementedError

    def state_info(self, state: StateType, params: Params | None = None) -> dict:
        """The info of one state (empty by default)."""
        return {}

    def transition_info(
        self, state: StateType, action: ActType, next_state: StateType, params: Params | None = None
    ) -> dict:
        """The info of one transition (empty by default)."""
        return {}

    def transform(self, func: Callable[[Callable], Callable]) -> None:
        """Replaces each function of the environment by ``func`` of it (``jax.jit``, ``jax.vmap``, ``numba.njit``).

        As gymnasium's: ``transition_info``'s transform is set as ``step_info`` (``transition_info`` itself
        is left as it was).
        """
        self.initial = func(self.initial)
        self.transition = func(self.transition)
        self.observation = func(self.observation)
        self.reward = func(self.reward)
        self.terminal = func(self.terminal)
        self.state_info = func(self.state_info)
        self.step_info = func(self.transition_info)

    def render_image(
        self, state: StateType, render_state: RenderStateType, params: Params | None = None
    ) -> tuple[RenderStateType, np.ndarray]:
        """``(render_state, frame)``: the frame of ``state``."""
        raise NotImplementedError

    def render_init(self, params: Params | None = None, **kwargs: Any) -> RenderStateType:
        """A new render state."""
        raise NotImplementedError

    def render_close(self, render_state: RenderStateType, params: Params | None = None) -> None:
        """Releases a render state."""
        raise NotImplementedError

    def get_default_params(self, **kwargs: Any) -> Params | None:
        """The default parameters (``None`` by default)."""
        return None


def __getattr__(name: str) -> Any:
    # The numba path imports numba and the engine: only its users pay for them.
    if name == "NumbaFuncVectorEnv":
        from nbgym.experimental._numba_func_env import NumbaFuncVectorEnv

        return NumbaFuncVectorEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
