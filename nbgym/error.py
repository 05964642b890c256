"""The exception classes of nbgym, with the names and hierarchy of ``gymnasium.error``, and nbgym's own warning."""

from __future__ import annotations


class Error(Exception):
    """The base class of nbgym's errors."""


class UnregisteredEnv(Error):
    """An environment id that the registry does not hold."""


class NamespaceNotFound(UnregisteredEnv):
    """An environment id whose namespace the registry does not hold."""


class NameNotFound(UnregisteredEnv):
    """An environment id whose name the registry does not hold."""


class VersionNotFound(UnregisteredEnv):
    """An environment id whose version the registry does not hold."""


class DeprecatedEnv(Error):
    """An environment id with an older version than the latest registered version of that name."""


class RegistrationError(Error):
    """An invalid registration, e.g. an unversioned id beside versioned ids of the same name."""


class DependencyNotInstalled(Error):
    """An optional dependency that the requested feature needs is not installed."""


class UnsupportedMode(Error):
    """A render mode that the environment does not support."""


class InvalidMetadata(Error):
    """Environment metadata that is not valid."""


class ResetNeeded(Error):
    """``step`` or ``render`` called before ``reset``."""


class InvalidAction(Error, AssertionError):
    """An action that is not contained in the action space, or a batch of actions of the wrong shape or dtype.

    It is also an ``AssertionError``: gymnasium's environments reject invalid actions with ``assert``,
    so code written for them (``except AssertionError``) keeps working.
    """


class MissingArgument(Error):
    """A required constructor argument that is missing."""


class InvalidProbability(Error):
    """A probability that is not valid."""


class InvalidBound(Error):
    """Invalid lower and/or upper bounds."""


class PhysicsError(Error):
    """A compiled environment's physics that nbgym cannot run: a function numba cannot compile, a signature
    that is not the protocol's, a layout that does not fit the spaces, a draw from a global random state,
    object mode (nbgym's own; see ``nbgym.engine.Physics``)."""


class PhysicsIndexError(PhysicsError, IndexError):
    """A compiled physics indexed outside an array (caught by its bounds checks, see ``nbgym.engine.Physics``)."""


class PhysicsCapacityError(PhysicsError):
    """A compiled physics ran out of a capacity fixed when its arrays were allocated (a Box2D port world's bodies,
    fixtures, joints, contacts or broad-phase proxies): the environment refuses to step until a reset."""


class DeprecatedWrapper(ImportError):
    """The import of a wrapper that was renamed or removed."""


class AlreadyPendingCallError(Exception):
    """An asynchronous call (``reset_async``/``step_async``) made while another one is pending."""

    name: str

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


class NoAsyncCallError(Exception):
    """A ``*_wait`` call made while no asynchronous call is pending."""

    name: str

    def __init__(self, message: str, name: str):
        super().__init__(message)
        self.name = name


class ClosedEnvironmentError(Exception):
    """``reset`` or ``step`` called on an environment that is closed."""


class CustomSpaceError(Exception):
    """A custom space that ``AsyncVectorEnv(shared_memory=True)`` cannot place in shared memory."""


class KernelCacheWarning(UserWarning):
    """A file of numba's cache of nbgym's compiled kernels was damaged; the kernel was compiled again
    and the file replaced (nbgym's own warning: gymnasium has no kernel cache)."""
