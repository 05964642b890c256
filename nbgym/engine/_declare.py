"""One declaration per environment: the single env class declares the env's arguments once (its ``__init__``,
with gymnasium's signature) and :func:`vector_env_class` makes the vector class from it.

What the two classes share is declared once: by the single class itself (the names in ``DECLARATION``) or by its
bases that are not single-env machinery (a mixin of what several of an env's classes share). The vector class takes
both, with the family's vector base in place of the single-env base (``KernelEnv`` → ``KernelVectorEnv``).
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
from typing import Any, Callable

_Parameter = inspect.Parameter


class _Registered:
    """The default of a made vector class's ``max_episode_steps``: the limit registered for its arguments."""

    def __repr__(self) -> str:
        return "REGISTERED"

    def __reduce__(self) -> str:
        return "REGISTERED"


REGISTERED: Any = _Registered()
"""``max_episode_steps=REGISTERED`` (a made vector class's default): the limit of the registration this env and
these arguments are registered under (``BipedalWalkerVectorEnv(hardcore=True)``: ``BipedalWalkerHardcore-v3``'s
2000), the newest version where several match (``CartPole-v1``'s 500), ``None`` (no limit) where none does."""


DECLARATION = (
    "physics",
    "info_keys",
    "renderer",
    "state_views",
    "asserts_action_in_space",
    "vector_render_modes",
    "rendering_arguments",
    "_configure",
    "_single_spaces",
    "_reset_params",
    "_python_number_actions_param",
)
"""What a single env class may declare for its vector class too (where it defines them itself rather than in a
shared base): the physics, the info keys, the renderer, the state attributes, the action check, the vector's render
modes, the rendering arguments, the parameters of the arguments, the spaces, the parameters of a reset's options,
and the parameter that tells Python-number actions."""


def _bind(
    signature: inspect.Signature, qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The named arguments of a call (defaults applied, without ``self``) and its other keyword arguments.

    Raises:
        TypeError: If the call does not fit ``signature``, named as Python names the function (``qualname``).
    """
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as refused:
        raise TypeError(f"{qualname}() {refused}") from None
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    del arguments["self"]
    others: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.kind is _Parameter.VAR_KEYWORD:
            others = arguments.pop(parameter.name)
    return arguments, others


def declares_arguments(init: Callable[..., None]) -> Callable[..., None]:
    """Decorates a ``KernelEnv`` subclass's ``__init__`` that declares the env's arguments: names, order and
    defaults as gymnasium's (``render_mode`` among them), ``**kwargs`` where gymnasium's env takes more.

    The ``__init__`` it makes binds a call to that signature, builds the env from the arguments (the class's
    ``_build``: by default ``_configure(arguments)`` gives the parameter record, ``_single_spaces()`` the
    spaces), then runs the decorated body with the same arguments, for what only the single env does. The
    vector class :func:`vector_env_class` makes from the class takes the same arguments.

    Raises (from the ``__init__`` it makes):
        TypeError: If a call does not fit the declared signature.
    """
    signature = inspect.signature(init)

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        arguments, others = _bind(signature, init.__qualname__, (self, *args), kwargs)
        self._build(types.SimpleNamespace(**arguments), others)
        init(self, *args, **kwargs)

    __init__.declared_signature = signature  # type: ignore[attr-defined]
    return __init__


def _vector_signature(env_class: type) -> inspect.Signature:
    """``(self, num_envs=1, max_episode_steps=REGISTERED, render_mode=None, <the env's own arguments>,
    **vector_options)``: gymnasium's ``CartPoleVectorEnv``'s order, for every env."""
    declared = getattr(env_class.__init__, "declared_signature", None)
    if declared is None:
        raise TypeError(
            f"{env_class.__name__}.__init__ does not declare the env's arguments: decorate it with "
            "nbgym.engine.declares_arguments."
        )
    rendering = env_class.rendering_arguments
    own = []
    for argument in list(declared.parameters.values())[1:]:
        if argument.kind is _Parameter.VAR_KEYWORD or argument.name in rendering:
            continue
        if argument.kind is not _Parameter.POSITIONAL_OR_KEYWORD:
            raise TypeError(f"{env_class.__name__}'s argument {argument.name} is not positional-or-keyword")
        own.append(argument)
    return inspect.Signature(
        [
            _Parameter("self", _Parameter.POSITIONAL_OR_KEYWORD),
            _Parameter("num_envs", _Parameter.POSITIONAL_OR_KEYWORD, default=1, annotation="int"),
            _Parameter(
                "max_episode_steps", _Parameter.POSITIONAL_OR_KEYWORD, default=REGISTERED, annotation="int | None"
            ),
            _Parameter("render_mode", _Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation="str | None"),
            *own,
            _Parameter("vector_options", _Parameter.VAR_KEYWORD, annotation="Any"),
        ],
        return_annotation="None",
    )


def _same(registered: Any, given: Any) -> bool:
    try:
        return bool(registered == given) and type(registered) is type(given)
    except (TypeError, ValueError):  # arrays and other values without one truth value
        return registered is given


def registered_max_episode_steps(env_class: type, vector_class: type, arguments: dict[str, Any]) -> int | None:
    """The ``max_episode_steps`` registered for ``env_class`` (or ``vector_class``) with these arguments: of the
    registrations whose entry point is one of them, those whose every keyword argument has the given value;
    of these, one with the most such arguments, then the newest version. ``None`` where none matches."""
    from nbgym.registration import registry

    def is_one(entry_point: Any) -> bool:
        """Whether ``entry_point`` (a class, or ``"module:name"``) is one of the two classes. A string is resolved
        only in a module already imported (as the classes' own modules and the packages above them are: a package
        may re-export its module's class, ``nbgym.envs.box2d.lunar_lander:LunarLander``), so nothing is imported."""
        if isinstance(entry_point, str):
            module, _, name = entry_point.partition(":")
            entry_point = getattr(sys.modules.get(module), name, None)
        return entry_point is env_class or entry_point is vector_class

    matches = [
        spec
        for spec in registry.values()
        if (is_one(spec.entry_point) or is_one(spec.vector_entry_point))
        and all(name in arguments and _same(value, arguments[name]) for name, value in spec.kwargs.items())
    ]
    if not matches:
        return None
    best = max(matches, key=lambda spec: (len(spec.kwargs), spec.version or 0))
    return best.max_episode_steps


@functools.cache
def _vector_options(vector_class: type) -> frozenset[str]:
    """The keyword arguments that the vector bases of ``vector_class`` take (``KernelVectorEnv``'s ``autoreset_mode``,
    ``num_threads``..., MuJoCo's rendering ones), which its ``__init__`` passes on as ``vector_options``."""
    from nbgym.engine._env import KernelVectorEnv

    names = set()
    for base in vector_class.__mro__:
        if issubclass(base, KernelVectorEnv) and "__init__" in base.__dict__ and base is not vector_class:
            for parameter in inspect.signature(base.__init__).parameters.values():
                if parameter.kind in (_Parameter.POSITIONAL_OR_KEYWORD, _Parameter.KEYWORD_ONLY):
                    names.add(parameter.name)
    return frozenset(names - {"self"})


def vector_env_class(env_class: type, *, doc: str | None = None) -> type:
    """The compiled vector env class of a single env class whose ``__init__`` is :func:`declares_arguments`'s,
    named as ``env_class`` with ``VectorEnv`` for ``Env`` (assign it to that name in ``env_class``'s module, for
    pickling and ``vector_entry_point``; subclass it for what only the vector env does).

    It has what ``env_class`` declares itself of ``DECLARATION`` (its physics, ``_configure``, ``_single_spaces``...),
    and ``env_class``'s bases: the family's single-env base replaced by its ``vector_base`` (``KernelEnv.vector_base``
    is ``KernelVectorEnv``), without ``EzPickle`` (how a single env pickles; a vector env pickles its batch) and bases
    marked ``single_env_only``. Its ``__init__(self, num_envs=1,
    max_episode_steps=REGISTERED, render_mode=None, <env_class's arguments but its rendering ones>,
    **vector_options)`` builds the sub-environments' batch from the same ``_configure``; ``vector_options`` are the
    vector base's options (``autoreset_mode``, ``num_threads``, ``copy``; MuJoCo's rendering arguments). Its
    ``metadata`` is ``env_class``'s with the render modes the vector base draws.

    Raises:
        TypeError: If ``env_class.__init__`` does not declare its arguments, or declares one a vector env cannot
            take by keyword.
    """
    from nbgym.core import Env
    from nbgym.engine._env import KernelEnv
    from nbgym.utils.ezpickle import EzPickle

    bases = []
    vector_base = None
    for base in env_class.__bases__:
        if issubclass(base, KernelEnv):
            vector_base = base.vector_base
            bases.append(vector_base)
        elif base is EzPickle or base.__dict__.get("single_env_only") or issubclass(base, Env):
            continue
        else:
            bases.append(base)
    if vector_base is None:
        raise TypeError(f"{env_class.__name__} is not a KernelEnv: only a compiled env has a compiled vector class.")
    signature = _vector_signature(env_class)
    name = env_class.__name__.removesuffix("Env") + "VectorEnv"
    vector_class: type

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        arguments, vector_options = _bind(signature, f"{name}.__init__", (self, *args), kwargs)
        for option in vector_options:
            if option not in _vector_options(type(self)):
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument {option!r}")
        num_envs = arguments.pop("num_envs")
        steps = arguments.pop("max_episode_steps")
        if steps is REGISTERED:
            steps = registered_max_episode_steps(env_class, type(self), arguments)
        self._build_vector(num_envs, types.SimpleNamespace(**arguments), steps, vector_options)

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    __init__.__module__ = env_class.__module__
    __init__.__qualname__ = f"{name}.__init__"
    modes = env_class.metadata.get("render_modes", [])
    drawn = vector_base.drawn_render_modes(env_class)
    vector_class = type(
        name,
        tuple(bases),
        {
            "__module__": env_class.__module__,
            "__qualname__": name,
            "__doc__": doc
            or f"{env_class.__name__}'s compiled vector environment: every sub-environment in one compiled call per "
            f"step (see ``{env_class.__name__}`` for the environment, ``{vector_base.__name__}`` for the options).",
            **{name: env_class.__dict__[name] for name in DECLARATION if name in env_class.__dict__},
            "__init__": __init__,
            "metadata": {**env_class.metadata, "render_modes": [mode for mode in modes if mode in drawn]},
            "_single_env_class": env_class,
        },
    )
    return vector_class
