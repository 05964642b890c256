"""What the JAX functional environments share: frozen parameter records and the env classes' construction."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax

from nbgym.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv
from nbgym.utils import EzPickle


def params_record(cls: type) -> type:
    """A frozen dataclass of parameters (gymnasium uses ``flax.struct.dataclass``; its functions read the
    parameters from the class itself, as defaults, so a frozen dataclass is all they need)."""
    return dataclasses.dataclass(frozen=True)(cls)


class JaxEnv(FunctionalJaxEnv, EzPickle):
    """A single env over ``functional(**kwargs)``, jitted (the class sets ``functional`` and ``metadata``)."""

    functional: type

    def __init__(self, render_mode: str | None = None, **kwargs: Any):
        EzPickle.__init__(self, render_mode=render_mode, **kwargs)
        func_env = self.functional(**kwargs)
        func_env.transform(jax.jit)
        FunctionalJaxEnv.__init__(self, func_env, metadata=self.metadata, render_mode=render_mode)


class JaxVectorEnv(FunctionalJaxVectorEnv, EzPickle):
    """A vector env over ``functional(**kwargs)``, jitted then vmapped (the class sets ``functional``, ``metadata``)."""

    functional: type

    def __init__(self, num_envs: int, render_mode: str | None = None, max_episode_steps: int = 200, **kwargs: Any):
        EzPickle.__init__(
            self, num_envs=num_envs, render_mode=render_mode, max_episode_steps=max_episode_steps, **kwargs
        )
        func_env = self.functional(**kwargs)
        func_env.transform(jax.jit)
        FunctionalJaxVectorEnv.__init__(
            self,
            func_env=func_env,
            num_envs=num_envs,
            metadata=self.metadata,
            render_mode=render_mode,
            max_episode_steps=max_episode_steps,
        )
