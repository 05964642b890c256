"""Helpers for starting the worker processes of :class:`nbgym.vector.AsyncVectorEnv`."""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

__all__ = ["CloudpickleWrapper", "clear_mpi_env_vars"]

_T_co = TypeVar("_T_co", covariant=True)

# MPI launchers (Open MPI, MPICH/PMI) mark a process as an MPI rank through these variables.
_MPI_ENV_PREFIXES = ("OMPI_", "PMI_")


class CloudpickleWrapper(Generic[_T_co]):
    """Makes a callable (typically an environment constructor) picklable with ``cloudpickle``.

    Lambdas, closures and classes defined in ``__main__`` cannot be sent to a worker process by the
    standard :mod:`pickle`; ``cloudpickle`` serialises them by value. Unpickling needs only the
    standard :mod:`pickle`, so a worker can load it without importing ``cloudpickle`` first.
    """

    fn: Callable[[], _T_co]

    def __init__(self, fn: Callable[[], _T_co]) -> None:
        """Wrap ``fn``.

        Args:
            fn: A callable taking no arguments, e.g. ``lambda: nbgym.make("CartPole-v1")``.
        """
        self.fn = fn

    def __getstate__(self) -> bytes:
        """Serialise the wrapped callable with ``cloudpickle``."""
        import cloudpickle

        return cloudpickle.dumps(self.fn)

    def __setstate__(self, state: bytes) -> None:
        """Restore the wrapped callable from its ``cloudpickle`` bytes."""
        self.fn = pickle.loads(state)

    def __call__(self) -> _T_co:
        """Call the wrapped callable with no arguments and return its result."""
        return self.fn()


@contextlib.contextmanager
def clear_mpi_env_vars() -> Iterator[None]:
    """Remove the MPI environment variables (``OMPI_*``, ``PMI_*``) for the duration of the context.

    A child process that inherits them and imports ``mpi4py`` believes it is a rank of the parent's
    MPI job and can hang in ``MPI_Init``. Start worker processes inside this context; the variables
    are restored when it exits.

    Yields:
        ``None``, once the variables have been removed.
    """
    removed = {key: value for key, value in os.environ.items() if key.startswith(_MPI_ENV_PREFIXES)}
    for key in removed:
        del os.environ[key]
    try:
        yield
    finally:
        os.environ.update(removed)
