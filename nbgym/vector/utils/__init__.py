"""Utilities of the vector environments: batching spaces and samples, shared memory, worker helpers."""

from nbgym.vector.utils.misc import CloudpickleWrapper, clear_mpi_env_vars
from nbgym.vector.utils.shared_memory import create_shared_memory, read_from_shared_memory, write_to_shared_memory
from nbgym.vector.utils.space_utils import (
    batch_differing_spaces,
    batch_space,
    concatenate,
    create_empty_array,
    iterate,
)

__all__ = [
    "batch_space",
    "batch_differing_spaces",
    "iterate",
    "concatenate",
    "create_empty_array",
    "create_shared_memory",
    "read_from_shared_memory",
    "write_to_shared_memory",
    "CloudpickleWrapper",
    "clear_mpi_env_vars",
]
