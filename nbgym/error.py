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


class EnvInUse(Error, RuntimeError):
    """A call on an environment that another thread is inside (a step, reset or attribute access), or that a stepping
    thread of an interrupted step may still write: an environment takes one caller at a time."""


class InvalidAction(Error, AssertionError):
    """An action that is not contained in the action space, or a batch of actions of the wrong shape or dtype.

    It is also an ``AssertionError``: gymnasium's environments reject invalid actions with ``assert``,
    so code written for them (``except AssertionError``) keeps working.
    """


class InvalidActionTypeError(InvalidAction, TypeError):
    """An invalid action for which gymnasium's environment raises ``TypeError`` (``None`` where a number goes, say)."""


class InvalidActionValueError(InvalidAction, ValueError):
    """An invalid action for which gymnasium's environment raises ``ValueError``."""


class InvalidActionIndexError(InvalidAction, IndexError):
    """An invalid action for which gymnasium's environment raises ``IndexError`` (too few numbers, say)."""


class InvalidActionKeyError(InvalidAction, KeyError):
    """An invalid action for which gymnasium's environment raises ``KeyError`` (a toy-text env's ``P[s][a]``)."""

    def __str__(self) -> str:
        return Exception.__str__(self)  # the message, not KeyError's repr of it


class InvalidActionAttributeError(InvalidAction, AttributeError):
    """An invalid action for which gymnasium's environment raises ``AttributeError`` (``.astype`` of a list, say)."""


class InvalidActionOverflowError(InvalidAction, OverflowError):
    """An invalid action for which gymnasium's environment raises ``OverflowError``."""


def invalid_action_like(raised: BaseException, message: str) -> InvalidAction:
    """An ``InvalidAction`` that is also an instance of the built-in exception type of ``raised`` (what gymnasium's
    environment raised for the action), so that code catching gymnasium's exception catches nbgym's.

    Args:
        raised: What gymnasium's reading of the action raised (an ``InvalidAction`` is returned as it is).
        message: What nbgym says of the action.

    Returns:
        The exception to raise (``InvalidAction`` itself when ``raised`` is none of the types above, e.g. an
        ``AssertionError``).
    """
    if isinstance(raised, InvalidAction):
        return raised
    for kind in _INVALID_ACTION_KINDS:
        if isinstance(raised, kind.__bases__[1]):
            return kind(message)
    return InvalidAction(message)


_INVALID_ACTION_KINDS = (
    InvalidActionKeyError,  # before IndexError: both are LookupErrors, neither is the other
    InvalidActionIndexError,
    InvalidActionTypeError,
    InvalidActionValueError,
    InvalidActionAttributeError,
    InvalidActionOverflowError,
)


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
