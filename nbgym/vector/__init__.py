"""Vector environments: several copies of an environment stepped as one batch.

:class:`SyncVectorEnv` steps them one after the other in this process, :class:`AsyncVectorEnv` in
worker processes; :class:`VectorEnv` is the base class of both and of the compiled vector
environments, and :class:`VectorWrapper` the base class of their wrappers.
"""

from nbgym.vector import utils
from nbgym.vector.async_vector_env import AsyncVectorEnv
from nbgym.vector.sync_vector_env import SyncVectorEnv
from nbgym.vector.vector_env import (
    AutoresetMode,
    VectorActionWrapper,
    VectorEnv,
    VectorObservationWrapper,
    VectorRewardWrapper,
    VectorWrapper,
)

__all__ = [
    "VectorEnv",
    "VectorWrapper",
    "VectorObservationWrapper",
    "VectorActionWrapper",
    "VectorRewardWrapper",
    "SyncVectorEnv",
    "AsyncVectorEnv",
    "utils",
    "AutoresetMode",
]
