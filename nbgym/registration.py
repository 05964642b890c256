"""The environment registry: ``register``, ``make``, ``make_vec``, ``spec`` and ``EnvSpec``.

Environments are registered under ids of the form ``[namespace/](name)[-v(version)]``. An entry point
is either a callable or a string ``"module:attr"``; a string is imported only when the environment is
made, so that importing nbgym (and reading :data:`registry`) never imports an environment module, its
compiled kernels, or numba.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import difflib
import importlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from nbgym import error, logger

if TYPE_CHECKING:
    from nbgym.core import Env, Wrapper
    from nbgym.vector import VectorEnv

__all__ = [
    "registry",
    "current_namespace",
    "EnvSpec",
    "WrapperSpec",
    "VectorizeMode",
    "register",
    "make",
    "make_vec",
    "spec",
    "pprint_registry",
    "register_envs",
    "namespace",
    "parse_env_id",
    "get_env_id",
    "find_highest_version",
    "load_env_creator",
]

ENV_ID_RE = re.compile(r"^(?:(?P<namespace>[\w:-]+)\/)?(?:(?P<name>[\w:.-]+?))(?:-v(?P<version>\d+))?$")

_CUSTOM_ENV_DOCS = "See https://gymnasium.farama.org/introduction/create_custom_env/ for more info."


class EnvCreator(Protocol):
    """A callable that creates an environment from keyword arguments (usually the environment class)."""

    def __call__(self, **kwargs: Any) -> Env: ...


class VectorEnvCreator(Protocol):
    """A callable that creates a vector environment from keyword arguments (usually its class)."""

    def __call__(self, **kwargs: Any) -> VectorEnv: ...


@dataclass
class WrapperSpec:
    """The record of one wrapper applied to an environment, enough to re-apply it.

    Attributes:
        name: The wrapper's name.
        entry_point: Where to load the wrapper from, ``"module:attr"``.
        kwargs: The wrapper's constructor arguments (without ``env``), or ``None`` if the wrapper does
            not record them (then it cannot be re-created).
    """

    name: str
    entry_point: str
    kwargs: dict[str, Any] | None


@dataclass
class EnvSpec:
    """A specification for creating an environment with :func:`make`.

    Attributes:
        id: The id the environment is made with, ``[namespace/](name)[-v(version)]``.
        entry_point: ``"module:attr"`` of the environment's creator, or the creator itself.
        reward_threshold: The episodic return at which the environment counts as solved.
        nondeterministic: If the same seed and actions may not reproduce the same observations.
        max_episode_steps: The episode length after which :class:`~nbgym.wrappers.TimeLimit` truncates.
        order_enforce: If :func:`make` adds :class:`~nbgym.wrappers.OrderEnforcing`.
        disable_env_checker: If :func:`make` leaves out :class:`~nbgym.wrappers.PassiveEnvChecker`.
        kwargs: Keyword arguments passed to the environment's creator.
        namespace: The namespace parsed from ``id`` (not an init argument).
        name: The name parsed from ``id`` (not an init argument).
        version: The version parsed from ``id`` (not an init argument).
        additional_wrappers: Wrappers applied on top of the ones :func:`make` adds.
        vector_entry_point: ``"module:attr"`` of the vector environment's creator, or the creator itself.
    """

    id: str
    entry_point: EnvCreator | str | None = field(default=None)

    reward_threshold: float | None = field(default=None)
    nondeterministic: bool = field(default=False)

    max_episode_steps: int | None = field(default=None)
    order_enforce: bool = field(default=True)
    disable_env_checker: bool = field(default=False)

    kwargs: dict[str, Any] = field(default_factory=dict)

    # Parsed from `id` in __post_init__; the field order is gymnasium's, which fixes repr and to_json.
    namespace: str | None = field(init=False)
    name: str = field(init=False)
    version: int | None = field(init=False)

    additional_wrappers: tuple[WrapperSpec, ...] = field(default_factory=tuple)

    vector_entry_point: VectorEnvCreator | str | None = field(default=None)

    def __post_init__(self) -> None:
        """Parses the namespace, name and version out of ``id``."""
        self.namespace, self.name, self.version = parse_env_id(self.id)

    def make(self, **kwargs: Any) -> Env:
        """Makes the environment of this spec, see :func:`make`.

        Args:
            **kwargs: Arguments of :func:`make` and of the environment's creator.

        Returns:
            The environment with make's wrappers applied.
        """
        return make(self, **kwargs)

    def to_json(self) -> str:
        """Serialises the spec to JSON (without the parsed ``namespace``, ``name`` and ``version``).

        Returns:
            The JSON string, readable by :meth:`from_json`.

        Raises:
            ValueError: If the spec holds a callable (entry point), which JSON cannot represent.
            TypeError: If ``kwargs`` holds a value that JSON cannot represent.
        """
        spec_dict = dataclasses.asdict(self)
        for parsed in ("namespace", "name", "version"):
            del spec_dict[parsed]
        for key, value in spec_dict.items():
            if callable(value):
                raise ValueError(
                    f"Callable found in {spec_dict['id']} for {key} attribute with value={value}. "
                    "Currently, nbgym does not support serialising callables."
                )
        return json.dumps(spec_dict)

    @staticmethod
    def from_json(json_env_spec: str) -> EnvSpec:
        """Reads a spec written by :meth:`to_json`.

        Args:
            json_env_spec: The JSON string.

        Returns:
            The environment spec.

        Raises:
            ValueError: If the JSON does not describe an ``EnvSpec`` or one of its wrapper specs.
        """
        spec_dict = json.loads(json_env_spec)

        wrapper_specs: list[WrapperSpec] = []
        for wrapper_dict in spec_dict.pop("additional_wrappers"):
            try:
                wrapper_specs.append(WrapperSpec(**wrapper_dict))
            except Exception as e:
                raise ValueError(f"An issue occurred when trying to make {wrapper_dict} a WrapperSpec") from e

        try:
            env_spec = EnvSpec(**spec_dict)
        except Exception as e:
            raise ValueError(f"An issue occurred when trying to make {spec_dict} an EnvSpec") from e
        env_spec.additional_wrappers = tuple(wrapper_specs)
        return env_spec

    def pprint(
        self,
        disable_print: bool = False,
        include_entry_points: bool = False,
        print_all: bool = False,
    ) -> str | None:
        """Pretty prints the spec: its id and the fields that differ from their defaults.

        Args:
            disable_print: Return the text instead of printing it.
            include_entry_points: Also show the entry points (of the environment and its wrappers).
            print_all: Show every field, defaults included.

        Returns:
            The text if ``disable_print`` is true, else ``None``.
        """
        lines = [f"id={self.id}"]
        if print_all or include_entry_points:
            lines.append(f"entry_point={self.entry_point}")
        if print_all or self.reward_threshold is not None:
            lines.append(f"reward_threshold={self.reward_threshold}")
        if print_all or self.nondeterministic is not False:
            lines.append(f"nondeterministic={self.nondeterministic}")
        if print_all or self.max_episode_steps is not None:
            lines.append(f"max_episode_steps={self.max_episode_steps}")
        if print_all or self.order_enforce is not True:
            lines.append(f"order_enforce={self.order_enforce}")
        if print_all or self.disable_env_checker is not False:
            lines.append(f"disable_env_checker={self.disable_env_checker}")
        if print_all or self.additional_wrappers:
            wrapper_lines = [
                f"\n\tname={wrapper.name}, entry_point={wrapper.entry_point}, kwargs={wrapper.kwargs}"
                if include_entry_points
                else f"\n\tname={wrapper.name}, kwargs={wrapper.kwargs}"
                for wrapper in self.additional_wrappers
            ]
            listed = f"{','.join(wrapper_lines)}\n" if wrapper_lines else ""
            lines.append(f"additional_wrappers=[{listed}]")

        output = "\n".join(lines)
        if disable_print:
            return output
        print(output)
        return None


class VectorizeMode(Enum):
    """How :func:`make_vec` vectorises an environment."""

    ASYNC = "async"
    SYNC = "sync"
    VECTOR_ENTRY_POINT = "vector_entry_point"


registry: dict[str, EnvSpec] = {}
"""Every registered environment spec, by id. Filled by :func:`register`."""

current_namespace: str | None = None
"""The namespace that :func:`register` puts new ids in, set with :func:`namespace`."""


def parse_env_id(env_id: str) -> tuple[str | None, str, int | None]:
    """Splits an environment id ``[namespace/](name)[-v(version)]`` into its parts.

    Args:
        env_id: The environment id.

    Returns:
        The namespace (or ``None``), the name and the version (or ``None``).

    Raises:
        Error: If ``env_id`` does not have that form.
    """
    match = ENV_ID_RE.fullmatch(env_id)
    if match is None:
        raise error.Error(
            f"Malformed environment ID: {env_id}. (Currently all IDs must be of the form "
            "[namespace/](env-name)-v(version). (namespace is optional))"
        )
    ns, name, version = match.group("namespace", "name", "version")
    return ns, name, None if version is None else int(version)


def get_env_id(ns: str | None, name: str, version: int | None) -> str:
    """Joins a namespace, name and version into an environment id, the inverse of :func:`parse_env_id`.

    Args:
        ns: The namespace, or ``None``.
        name: The name.
        version: The version, or ``None``.

    Returns:
        The environment id.
    """
    env_id = name if ns is None else f"{ns}/{name}"
    return env_id if version is None else f"{env_id}-v{version}"


def _specs_named(ns: str | None, name: str) -> list[EnvSpec]:
    """The registered specs of every version of ``ns/name``."""
    return [env_spec for env_spec in registry.values() if env_spec.namespace == ns and env_spec.name == name]


def find_highest_version(ns: str | None, name: str) -> int | None:
    """The highest registered version of an environment.

    Args:
        ns: The namespace, or ``None``.
        name: The name.

    Returns:
        The highest version registered for ``ns/name``, or ``None`` if it has no versioned id.
    """
    return max((env_spec.version for env_spec in _specs_named(ns, name) if env_spec.version is not None), default=None)


def _check_namespace_exists(ns: str | None) -> None:
    """Raises ``NamespaceNotFound`` (with the closest registered namespace) if ``ns`` is unknown."""
    if ns is None:
        return
    namespaces = {env_spec.namespace for env_spec in registry.values() if env_spec.namespace is not None}
    if ns in namespaces:
        return

    suggestion = difflib.get_close_matches(ns, namespaces, n=1)
    hint = f"Did you mean: `{suggestion[0]}`?" if suggestion else f"Have you installed the proper package for {ns}?"
    raise error.NamespaceNotFound(f"Namespace {ns} not found. {hint}")


def _check_name_exists(ns: str | None, name: str) -> None:
    """Raises ``NamespaceNotFound``/``NameNotFound`` (with the closest name) if ``ns/name`` is unknown."""
    _check_namespace_exists(ns)
    names = {env_spec.name for env_spec in registry.values() if env_spec.namespace == ns}
    if name in names:
        return

    suggestion = difflib.get_close_matches(name, names, n=1)
    in_namespace = f" in namespace {ns}" if ns else ""
    hint = f" Did you mean: `{suggestion[0]}`?" if suggestion else ""
    raise error.NameNotFound(f"Environment `{name}` doesn't exist{in_namespace}.{hint}")


def _check_version_exists(ns: str | None, name: str, version: int | None) -> None:
    """Raises the most helpful error for an id that is not registered; returns if it is.

    Raises:
        NamespaceNotFound: The namespace is unknown.
        NameNotFound: The name is unknown in the namespace.
        DeprecatedEnv: Only the unversioned id exists, or ``version`` is older than the latest version.
        VersionNotFound: ``version`` is newer than the latest version.
    """
    if get_env_id(ns, name, version) in registry:
        return
    _check_name_exists(ns, name)
    if version is None:
        return

    unversioned_id = get_env_id(ns, name, None)
    message = f"Environment version `v{version}` for environment `{unversioned_id}` doesn't exist."
    # Unversioned (and v0) first, as gymnasium lists them.
    env_specs = sorted(_specs_named(ns, name), key=lambda env_spec: env_spec.version or -1)

    default_spec = next((env_spec for env_spec in env_specs if env_spec.version is None), None)
    if default_spec is not None:
        message += f" It provides the default version `{default_spec.id}`."
        if len(env_specs) == 1:
            raise error.DeprecatedEnv(message)

    latest_spec = max(
        (env_spec for env_spec in env_specs if env_spec.version is not None),
        key=lambda env_spec: env_spec.version,
        default=None,
    )
    if latest_spec is None:
        return
    assert latest_spec.version is not None
    if version > latest_spec.version:
        versions = ", ".join(f"`v{env_spec.version}`" for env_spec in env_specs)
        raise error.VersionNotFound(f"{message} It provides versioned environments: [ {versions} ].")
    if version < latest_spec.version:
        raise error.DeprecatedEnv(
            f"Environment version v{version} for `{unversioned_id}` is deprecated. "
            f"Please use `{latest_spec.id}` instead."
        )


def _check_spec_register(new_spec: EnvSpec) -> None:
    """Raises ``RegistrationError`` if ``new_spec`` would mix versioned and unversioned ids of one name."""
    same_name = _specs_named(new_spec.namespace, new_spec.name)
    unversioned_spec = next((env_spec for env_spec in same_name if env_spec.version is None), None)
    latest_versioned_spec = max(
        (env_spec for env_spec in same_name if env_spec.version is not None),
        key=lambda env_spec: env_spec.version,
        default=None,
    )

    if unversioned_spec is not None and new_spec.version is not None:
        raise error.RegistrationError(
            f"Can't register the versioned environment `{new_spec.id}` when the unversioned environment "
            f"`{unversioned_spec.id}` of the same name already exists."
        )
    if latest_versioned_spec is not None and new_spec.version is None:
        raise error.RegistrationError(
            f"Can't register the unversioned environment `{new_spec.id}` when the versioned environment "
            f"`{latest_versioned_spec.id}` of the same name already exists. Note: the default behavior is "
            "that `nbgym.make` with the unversioned environment will return the latest versioned environment"
        )


def _check_metadata(metadata: Any) -> None:
    """Checks an environment creator's ``metadata``, warning about missing or odd ``render_modes``.

    Raises:
        InvalidMetadata: If ``metadata`` is not a dict.
    """
    if not isinstance(metadata, dict):
        raise error.InvalidMetadata(f"Expect the environment metadata to be dict, actual type: {type(metadata)}")

    render_modes = metadata.get("render_modes")
    if render_modes is None:
        logger.warn(
            f"The environment creator metadata doesn't include `render_modes`, contains: {list(metadata.keys())}"
        )
    elif not isinstance(render_modes, Iterable):
        logger.warn(
            f"Expects the environment metadata render_modes to be a Iterable, actual type: {type(render_modes)}"
        )


def _find_spec(env_id: str) -> EnvSpec:
    """The spec of ``env_id``: ``[module:]id``, importing ``module`` first and resolving an unversioned id.

    Raises:
        ModuleNotFoundError: If ``module`` cannot be imported.
        Error: If the id is not registered (or a subclass with a hint, see :func:`_check_version_exists`).
    """
    if ":" in env_id:
        module, env_name = env_id.split(":", 1)
        if ":" in env_name:
            raise ValueError(f"Malformed environment ID: {env_id}. Expected at most one `module:` prefix.")
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"{e}. Environment registration via importing a module failed. "
                f"Check whether '{module}' contains env registration and can be imported."
            ) from e
    else:
        env_name = env_id

    env_spec = registry.get(env_name)
    ns, name, version = parse_env_id(env_name)

    latest_version = find_highest_version(ns, name)
    if version is not None and latest_version is not None and latest_version > version:
        logger.deprecation(
            f"The environment {env_name} is out of date. You should consider upgrading to version `v{latest_version}`."
        )
    if version is None and latest_version is not None:
        version = latest_version
        latest_id = get_env_id(ns, name, version)
        env_spec = registry.get(latest_id)
        logger.warn(
            f"Using the latest versioned environment `{latest_id}` instead of the unversioned environment `{env_name}`."
        )

    if env_spec is None:
        _check_version_exists(ns, name, version)
        raise error.Error(
            f"No registered env with id: {env_name}. Did you register it, or import the package that registers it? "
            "Use `nbgym.pprint_registry()` to see all of the registered environments."
        )
    return env_spec


def load_env_creator(name: str) -> EnvCreator | VectorEnvCreator:
    """Imports an entry point ``"module:attr"`` and returns ``attr``.

    Args:
        name: The entry point.

    Returns:
        The environment (or vector environment, or wrapper) creator, usually a class.

    Raises:
        ValueError: If ``name`` is not of the form ``"module:attr"``.
        ModuleNotFoundError: If the module cannot be imported.
        AttributeError: If the module has no ``attr``.
    """
    parts = name.split(":")
    if len(parts) != 2:
        raise ValueError(f"Malformed entry point: {name!r}. Entry points must be of the form 'module:attr'.")
    module_name, attr_name = parts
    return getattr(importlib.import_module(module_name), attr_name)


def register_envs(env_module: ModuleType) -> None:
    """Does nothing: lets code show linters and IDEs that an env module imported to register is used.

    Args:
        env_module: The module, whose import registered its environments.
    """
    del env_module


@contextlib.contextmanager
def namespace(ns: str) -> Iterator[None]:
    """Registers the ids of every :func:`register` call in the ``with`` block in namespace ``ns``.

    Args:
        ns: The namespace.

    Yields:
        Nothing; the namespace is restored when the block exits.
    """
    global current_namespace
    previous_namespace = current_namespace
    current_namespace = ns
    try:
        yield
    finally:
        current_namespace = previous_namespace


def register(
    id: str,
    entry_point: EnvCreator | str | None = None,
    reward_threshold: float | None = None,
    nondeterministic: bool = False,
    max_episode_steps: int | None = None,
    order_enforce: bool = True,
    disable_env_checker: bool = False,
    additional_wrappers: tuple[WrapperSpec, ...] = (),
    vector_entry_point: VectorEnvCreator | str | None = None,
    kwargs: dict[str, Any] | None = None,
) -> None:
    """Registers an environment so that :func:`make` (and :func:`make_vec`) can create it by id.

    Args:
        id: The id, ``[namespace/](name)[-v(version)]``; inside :func:`namespace` the current namespace
            replaces the id's own.
        entry_point: ``"module:attr"`` of the environment's creator, or the creator itself.
        reward_threshold: The episodic return at which the environment counts as solved.
        nondeterministic: If the same seed and actions may not reproduce the same observations.
        max_episode_steps: The episode length after which :class:`~nbgym.wrappers.TimeLimit` truncates.
        order_enforce: If :func:`make` adds :class:`~nbgym.wrappers.OrderEnforcing`.
        disable_env_checker: If :func:`make` leaves out :class:`~nbgym.wrappers.PassiveEnvChecker`.
        additional_wrappers: Wrappers for :func:`make` to apply on top of its own.
        vector_entry_point: ``"module:attr"`` of the vector environment's creator, or the creator itself.
        kwargs: Keyword arguments passed to the environment's creator.

    Raises:
        ValueError: If neither ``entry_point`` nor ``vector_entry_point`` is given.
        Error: If ``id`` is malformed.
        RegistrationError: If ``id`` would mix versioned and unversioned ids of one name.
    """
    if entry_point is None and vector_entry_point is None:
        raise ValueError("Either `entry_point` or `vector_entry_point` (or both) must be provided")
    ns, name, version = parse_env_id(id)

    if kwargs is None:
        kwargs = {}
    if current_namespace is not None:
        if kwargs.get("namespace") is not None and kwargs.get("namespace") != current_namespace:
            logger.warn(
                f"Custom namespace `{kwargs.get('namespace')}` is being overridden by namespace `{current_namespace}`. "
                "If you are developing a plugin you shouldn't specify a namespace in `register` calls. "
                "The namespace is specified through the entry point package metadata."
            )
        ns = current_namespace

    new_spec = EnvSpec(
        id=get_env_id(ns, name, version),
        entry_point=entry_point,
        reward_threshold=reward_threshold,
        nondeterministic=nondeterministic,
        max_episode_steps=max_episode_steps,
        order_enforce=order_enforce,
        disable_env_checker=disable_env_checker,
        kwargs=kwargs,
        additional_wrappers=additional_wrappers,
        vector_entry_point=vector_entry_point,
    )
    _check_spec_register(new_spec)

    if new_spec.id in registry:
        logger.warn(f"Overriding environment {new_spec.id} already in registry.")
    registry[new_spec.id] = new_spec


def _render_fallback(render_mode: str | None, render_modes: Any) -> tuple[str | None, str | None]:
    """Chooses how :func:`make` serves a render mode that the environment does not support natively.

    Returns:
        The render mode to create the environment with, and the name of the wrapper that provides the
        requested mode on top of it (``"HumanRendering"``, ``"RenderCollection"`` or ``None``).
    """
    if render_mode is None or render_modes is None or render_mode in render_modes:
        return render_mode, None

    displayable_modes = [mode for mode in ("rgb_array", "rgb_array_list") if mode in render_modes]
    if render_mode == "human" and displayable_modes:
        logger.warn(
            "You are trying to use 'human' rendering for an environment that doesn't natively support it. "
            "The HumanRendering wrapper is being applied to your environment."
        )
        return displayable_modes[0], "HumanRendering"
    if render_mode.endswith("_list") and render_mode[: -len("_list")] in render_modes:
        return render_mode[: -len("_list")], "RenderCollection"

    logger.warn(
        f"The environment is being initialised with render_mode={render_mode!r} "
        f"that is not in the possible render_modes ({render_modes})."
    )
    return render_mode, None


def _not_an_env_message(env: object) -> str:
    """The ``TypeError`` message for an environment creator that returned something other than an ``nbgym.Env``."""
    from nbgym.core import gymnasium_conversion_hint

    foreign_modules = {cls.__module__ for cls in type(env).__mro__} & {"gym.core", "gymnasium.core"}
    if "gym.core" in foreign_modules:  # the old gym package's: gymnasium's words
        return f"Gym is incompatible with Gymnasium, please update the environment class to `nbgym.Env`. {_CUSTOM_ENV_DOCS}"
    if foreign_modules:
        library = min(foreign_modules).split(".")[0]
        return (
            f"{library} environments are incompatible with nbgym, please update the environment class to "
            f"`nbgym.Env`, actual class: {type(env)}{gymnasium_conversion_hint(env) or '.'} {_CUSTOM_ENV_DOCS}"
        )
    return f"The environment must inherit from the nbgym.Env class, actual class: {type(env)}. {_CUSTOM_ENV_DOCS}"


def make(
    id: str | EnvSpec,
    max_episode_steps: int | None = None,
    disable_env_checker: bool | None = None,
    **kwargs: Any,
) -> Env:
    """Creates a registered environment (or the environment of an :class:`EnvSpec`) with gymnasium's wrappers.

    From the inside out: the environment, :class:`~nbgym.wrappers.PassiveEnvChecker` (unless disabled),
    :class:`~nbgym.wrappers.OrderEnforcing` (if the spec's ``order_enforce``),
    :class:`~nbgym.wrappers.TimeLimit` (if there is a step limit), the spec's additional wrappers, and
    ``HumanRendering`` or ``RenderCollection`` when the requested ``render_mode`` needs them.

    Args:
        id: The environment id, optionally prefixed by a module to import first (``"module:Env-v0"``),
            or an :class:`EnvSpec`.
        max_episode_steps: Overrides the spec's ``max_episode_steps``; ``-1`` means no
            :class:`~nbgym.wrappers.TimeLimit`.
        disable_env_checker: Overrides the spec's ``disable_env_checker`` unless ``None``.
        **kwargs: Keyword arguments for the environment's creator, on top of the spec's ``kwargs``.

    Returns:
        The wrapped environment; ``env.unwrapped.spec`` describes how it was made.

    Raises:
        TypeError: If ``id`` has the wrong type, the creator rejects the arguments, or it does not
            return an ``nbgym.Env``.
        Error: If ``id`` is not registered (a subclass gives the reason and a hint) or has no entry point.
        ValueError: If the environment's own wrappers do not match the spec's ``additional_wrappers``,
            or an additional wrapper cannot be re-created.
    """
    if isinstance(id, EnvSpec):
        env_spec = id
    elif isinstance(id, str):
        env_spec = _find_spec(id)
    else:
        raise TypeError(f"Expected id to be a string or EnvSpec, got {type(id)}")

    env_spec_kwargs = copy.deepcopy(env_spec.kwargs)
    env_spec_kwargs.update(kwargs)

    if env_spec.entry_point is None:
        raise error.Error(f"{env_spec.id} registered but entry_point is not specified")
    env_creator = env_spec.entry_point if callable(env_spec.entry_point) else load_env_creator(env_spec.entry_point)

    render_modes = None
    creator_metadata = getattr(env_creator, "metadata", None)
    # A wrapper class exposes `metadata` as a property of its instances: nothing to check before creation.
    if hasattr(env_creator, "metadata") and not isinstance(creator_metadata, property):
        _check_metadata(creator_metadata)
        render_modes = creator_metadata.get("render_modes")

    render_mode, render_wrapper_name = _render_fallback(env_spec_kwargs.get("render_mode"), render_modes)
    if render_wrapper_name is not None:
        env_spec_kwargs["render_mode"] = render_mode

    try:
        env = env_creator(**env_spec_kwargs)
    except TypeError as e:
        if "got an unexpected keyword argument 'render_mode'" in str(e) and render_wrapper_name == "HumanRendering":
            raise error.Error(
                f"You passed render_mode='human' although {env_spec.id} doesn't implement human-rendering natively. "
                "nbgym tried to apply the HumanRendering wrapper but it looks like your environment is using the old "
                "rendering API, which is not supported by the HumanRendering wrapper."
            ) from e
        raise type(e)(
            f"{e} was raised from the environment creator for {env_spec.id} with kwargs ({env_spec_kwargs})"
        ) from e

    from nbgym.core import Env

    if not isinstance(env, Env):
        raise TypeError(_not_an_env_message(env))

    # The environment's own spec records how the bare environment was created, without make's wrappers.
    env.unwrapped.spec = EnvSpec(
        id=env_spec.id,
        entry_point=env_spec.entry_point,
        reward_threshold=env_spec.reward_threshold,
        nondeterministic=env_spec.nondeterministic,
        max_episode_steps=None,
        order_enforce=False,
        disable_env_checker=True,
        kwargs=env_spec_kwargs,
        additional_wrappers=(),
        vector_entry_point=env_spec.vector_entry_point,
    )

    # An entry point may return an already wrapped environment; those wrappers must be the spec's first ones.
    assert env.spec is not None
    prior_wrappers = env.spec.additional_wrappers
    num_prior_wrappers = len(prior_wrappers)
    expected_wrappers = env_spec.additional_wrappers[:num_prior_wrappers]
    if num_prior_wrappers <= len(env_spec.additional_wrappers) and expected_wrappers != prior_wrappers:
        expected, recreated = next(
            pair for pair in zip(expected_wrappers, prior_wrappers, strict=True) if pair[0] != pair[1]
        )
        raise ValueError(
            f"The environment's wrapper spec {recreated} is different from the saved `EnvSpec` additional wrapper "
            f"{expected}"
        )

    # The rendering wrappers are looked up by name so that their modules are imported only when needed.
    from nbgym import wrappers

    # gymnasium adds the checker only for an argument (else, without one, the spec's) that ``is False``: 0 leaves it out
    if disable_env_checker is False or (disable_env_checker is None and env_spec.disable_env_checker is False):
        env = wrappers.PassiveEnvChecker(env)
    if env_spec.order_enforce:
        env = wrappers.OrderEnforcing(env)
    limit = step_limit(env_spec, max_episode_steps)
    if limit is not None:
        env = wrappers.TimeLimit(env, limit)

    for wrapper_spec in env_spec.additional_wrappers[num_prior_wrappers:]:
        if wrapper_spec.kwargs is None:
            raise ValueError(
                f"{wrapper_spec.name} wrapper does not inherit from `nbgym.utils.RecordConstructorArgs`, "
                "therefore, the wrapper cannot be recreated."
            )
        env = load_env_creator(wrapper_spec.entry_point)(env=env, **wrapper_spec.kwargs)

    if render_wrapper_name is not None:
        env = getattr(wrappers, render_wrapper_name)(env)
    return env


def step_limit(env_spec: EnvSpec, max_episode_steps: Any) -> Any:
    """The time limit ``make`` gives an env: ``max_episode_steps``, or the spec's for ``None``; ``None`` for -1 or
    when neither sets one (``TimeLimit`` checks it)."""
    if max_episode_steps == -1:
        return None
    return env_spec.max_episode_steps if max_episode_steps is None else max_episode_steps


def make_vec(
    id: str | EnvSpec,
    num_envs: int = 1,
    vectorization_mode: VectorizeMode | str | None = None,
    vector_kwargs: dict[str, Any] | None = None,
    wrappers: Sequence[Callable[[Env], Wrapper]] | None = None,
    **kwargs: Any,
) -> VectorEnv:
    """Creates a vector environment of ``num_envs`` copies of a registered environment.

    Args:
        id: The environment id (optionally ``"module:Env-v0"``) or an :class:`EnvSpec`.
        num_envs: The number of sub-environments.
        vectorization_mode: ``"sync"`` (:class:`~nbgym.vector.SyncVectorEnv` over :func:`make`),
            ``"async"`` (:class:`~nbgym.vector.AsyncVectorEnv`), ``"vector_entry_point"`` (the spec's
            vector entry point, e.g. nbgym's compiled vector environments), or ``None``: the vector
            entry point if the spec has one, else ``"sync"``; as in gymnasium, ``"sync"`` also where
            nbgym's vector environment stands in for gymnasium's sync one (every built-in id but
            CartPole's) and ``wrappers``, ``vector_kwargs`` or a render mode it does not draw are given.
        vector_kwargs: Keyword arguments of ``SyncVectorEnv``/``AsyncVectorEnv``. Not allowed with
            ``"vector_entry_point"``, whose vector environment takes its arguments through ``kwargs``
            (e.g. ``autoreset_mode``).
        wrappers: Wrapper constructors applied to each sub-environment (``"sync"``/``"async"`` only).
        **kwargs: Keyword arguments for :func:`make` of each sub-environment, or for the vector entry point.

    Returns:
        The vector environment; ``env.unwrapped.spec`` records how it was made.

    Raises:
        Error: If ``id`` is not registered or has the wrong type, the mode needs an entry point the spec
            does not have, or ``vector_kwargs``/``wrappers`` are given with ``"vector_entry_point"``.
        ValueError: If ``vectorization_mode`` is not a valid mode.
    """
    if vector_kwargs is None:
        vector_kwargs = {}
    if wrappers is None:
        wrappers = []

    if isinstance(id, EnvSpec):
        env_spec = id
    elif isinstance(id, str):
        env_spec = _find_spec(id)
    else:
        raise error.Error(f"Invalid id type: {type(id)}. Expected `str` or `EnvSpec`")

    # The sub-environments get every argument through `make(spec, **kwargs)`, so the copied spec keeps none;
    # a vector env's own spec stores make_vec's arguments in its kwargs, which are taken back out here.
    env_spec = copy.deepcopy(env_spec)
    env_kwargs = env_spec.kwargs
    env_spec.kwargs = {}
    num_envs = env_kwargs.pop("num_envs", num_envs)
    vectorization_mode = env_kwargs.pop("vectorization_mode", vectorization_mode)
    vector_kwargs = env_kwargs.pop("vector_kwargs", vector_kwargs)
    wrappers = env_kwargs.pop("wrappers", wrappers)
    env_kwargs.update(kwargs)

    if vectorization_mode is None:
        mode = _default_vectorize_mode(env_spec, vector_kwargs, wrappers, env_kwargs.get("render_mode"))
    else:
        try:
            mode = VectorizeMode(vectorization_mode)
        except ValueError as e:
            raise ValueError(
                f"Invalid vectorization mode: {vectorization_mode!r}, valid modes: {[m.value for m in VectorizeMode]}"
            ) from e

    if mode is VectorizeMode.VECTOR_ENTRY_POINT:
        env = _make_vector_entry_point(env_spec, num_envs, vector_kwargs, wrappers, env_kwargs)
    else:
        if env_spec.entry_point is None:
            raise error.Error(
                f"Cannot create vectorized environment for {env_spec.id} because it doesn't have an entry point "
                "defined."
            )
        from nbgym.vector import AsyncVectorEnv, SyncVectorEnv

        def create_env() -> Env:
            single_env = make(env_spec, **env_kwargs.copy())
            for wrapper in wrappers:
                single_env = wrapper(single_env)
            return single_env

        vector_cls = SyncVectorEnv if mode is VectorizeMode.SYNC else AsyncVectorEnv
        env = vector_cls(env_fns=[create_env for _ in range(num_envs)], **vector_kwargs)

    vector_spec = copy.deepcopy(env_spec)
    vector_spec.kwargs = env_kwargs.copy()
    if num_envs != 1:
        vector_spec.kwargs["num_envs"] = num_envs
    vector_spec.kwargs["vectorization_mode"] = mode.value
    if vector_kwargs:
        vector_spec.kwargs["vector_kwargs"] = vector_kwargs
    if wrappers:
        vector_spec.kwargs["wrappers"] = wrappers
    env.unwrapped.spec = vector_spec

    _check_autoreset_metadata(env)
    return env


def _default_vectorize_mode(
    env_spec: EnvSpec,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    render_mode: str | None,
) -> VectorizeMode:
    """The mode of :func:`make_vec` when none is given: the spec's vector entry point if it has one, else ``"sync"``.

    A vector environment whose class sets ``sync_stand_in`` stands in for gymnasium's ``SyncVectorEnv``, which
    gymnasium uses for that id (it has no vector entry point for it). What only a sync vector environment
    over single environments can do (wrappers around each sub-environment, the spec's or ``make_vec``'s,
    ``SyncVectorEnv``'s own ``vector_kwargs``, a render mode that the vector class does not draw, such as ``"rgb_array_list"``, for
    which :func:`make` adds a render wrapper) then makes ``make_vec`` use nbgym's ``SyncVectorEnv``, as
    gymnasium would. Any other vector entry point is used, as in gymnasium (which refuses wrappers and
    ``vector_kwargs`` for it).

    Args:
        env_spec: The spec being vectorized.
        vector_kwargs: ``make_vec``'s ``vector_kwargs``.
        wrappers: ``make_vec``'s wrappers of each sub-environment.
        render_mode: The requested render mode, if any.

    Returns:
        ``VectorizeMode.SYNC`` or ``VectorizeMode.VECTOR_ENTRY_POINT``.
    """
    if env_spec.vector_entry_point is None:
        return VectorizeMode.SYNC
    needs_single_envs = bool(vector_kwargs) or bool(wrappers) or bool(env_spec.additional_wrappers)
    if not needs_single_envs and render_mode is None:
        return VectorizeMode.VECTOR_ENTRY_POINT
    entry_point = env_spec.vector_entry_point
    vector_creator = entry_point if callable(entry_point) else load_env_creator(entry_point)
    if getattr(vector_creator, "sync_stand_in", False) is True and env_spec.entry_point is not None:
        metadata = getattr(vector_creator, "metadata", {})
        render_modes = metadata.get("render_modes", ()) if isinstance(metadata, dict) else ()
        if needs_single_envs or render_mode not in render_modes:
            return VectorizeMode.SYNC
    return VectorizeMode.VECTOR_ENTRY_POINT


def _make_vector_entry_point(
    env_spec: EnvSpec,
    num_envs: int,
    vector_kwargs: dict[str, Any],
    wrappers: Sequence[Callable[[Env], Wrapper]],
    env_kwargs: dict[str, Any],
) -> VectorEnv:
    """Creates the spec's own vector environment, ``creator(num_envs=num_envs, **env_kwargs)``.

    ``env_kwargs`` gains the spec's ``max_episode_steps`` (when set and not given), so that the vector
    environment's spec records it. A class that stands in for gymnasium's sync vector env (``sync_stand_in``) is
    given the time limit ``make`` gives each of its sub-environments, and its ``TypeError`` says so as ``make``'s does.

    Raises:
        Error: For ``vector_kwargs``, ``wrappers`` or a spec's additional wrappers, or a spec without a vector
            entry point.
        TypeError, ValueError: For a time limit ``TimeLimit`` refuses (a stand-in's), or arguments the creator
            refuses.
    """
    if vector_kwargs:
        raise error.Error(
            "Custom vector environment can be passed arguments only through kwargs and `vector_kwargs` "
            f"is not empty ({vector_kwargs})"
        )
    if wrappers:
        raise error.Error(
            f"Cannot use `vector_entry_point` vectorization mode with the wrappers argument ({wrappers})."
        )
    if env_spec.additional_wrappers:
        raise error.Error(
            "Cannot use `vector_entry_point` vectorization mode with the additional_wrappers parameter in spec "
            f"being not empty ({env_spec.additional_wrappers})."
        )
    entry_point = env_spec.vector_entry_point
    if entry_point is None:
        raise error.Error(
            f"Cannot create vectorized environment for {env_spec.id} because it doesn't have a vector entry point "
            "defined."
        )
    env_creator = entry_point if callable(entry_point) else load_env_creator(entry_point)

    if env_spec.max_episode_steps is not None and "max_episode_steps" not in env_kwargs:
        env_kwargs["max_episode_steps"] = env_spec.max_episode_steps
    if getattr(env_creator, "sync_stand_in", False) is not True:
        return env_creator(num_envs=num_envs, **env_kwargs)
    # make()'s own arguments, which gymnasium's sync vector env, that this one stands in for, passes to make() for each
    # sub-environment (the spec keeps them as given): a compiled vector env has no checker to leave out
    # (disable_env_checker), and its time limit is the one make() gives (None: the spec's; -1: none), checked as
    # make()'s TimeLimit checks it
    creator_kwargs = {key: value for key, value in env_kwargs.items() if key != "disable_env_checker"}
    limit = step_limit(env_spec, creator_kwargs.get("max_episode_steps"))
    if limit is not None:
        from nbgym.wrappers.common import check_max_episode_steps

        check_max_episode_steps(limit)
        limit = int(limit)
    creator_kwargs["max_episode_steps"] = limit
    try:
        return env_creator(num_envs=num_envs, **creator_kwargs)
    except TypeError as e:  # as make() says it of each sub-environment, with the env's own keyword arguments
        env_only = {key: value for key, value in creator_kwargs.items() if key != "max_episode_steps"}
        raise TypeError(
            f"{e} was raised from the environment creator for {env_spec.id} with kwargs ({env_only})"
        ) from e


def _check_autoreset_metadata(env: VectorEnv) -> None:
    """Warns if a vector environment does not declare its ``AutoresetMode`` in ``metadata["autoreset_mode"]``."""
    from nbgym.vector import AutoresetMode

    if "autoreset_mode" not in env.metadata:
        logger.warn(f"The VectorEnv ({env}) is missing AutoresetMode metadata, metadata={env.metadata}")
    elif not isinstance(env.metadata["autoreset_mode"], AutoresetMode):
        logger.warn(
            f"The VectorEnv ({env}) metadata['autoreset_mode'] is not an instance of AutoresetMode, "
            f"{type(env.metadata['autoreset_mode'])}."
        )


def spec(env_id: str) -> EnvSpec:
    """The registered :class:`EnvSpec` of ``env_id`` (exactly that id: no module import, no latest version).

    Args:
        env_id: The environment id, ``[namespace/](name)[-v(version)]``.

    Returns:
        The environment spec.

    Raises:
        Error: If ``env_id`` is not registered (a subclass gives the reason and a hint).
    """
    env_spec = registry.get(env_id)
    if env_spec is None:
        ns, name, version = parse_env_id(env_id)
        _check_version_exists(ns, name, version)
        raise error.Error(f"No registered env with id: {env_id}")
    return env_spec


def _display_namespace(env_spec: EnvSpec) -> str | None:
    """The group :func:`pprint_registry` lists a spec under: its namespace, else one derived from its entry point.

    A spec without namespace whose entry point is not a string is grouped under ``None``, as in gymnasium.
    """
    if env_spec.namespace is not None or not isinstance(env_spec.entry_point, str):
        return env_spec.namespace
    # "pkg.envs.family.module:Cls" -> "family"; "pkg.module:Cls" -> "module"; "module:Cls" -> the env's name.
    module_path = re.sub(r":\w+", "", env_spec.entry_point).split(".")
    if len(module_path) >= 3:
        return module_path[2]
    if len(module_path) == 2:
        return module_path[1]
    return env_spec.name


def pprint_registry(
    print_registry: dict[str, EnvSpec] = registry,
    *,
    num_cols: int = 3,
    exclude_namespaces: list[str] | None = None,
    disable_print: bool = False,
) -> str | None:
    """Pretty prints the registered environment ids, grouped by namespace, in columns.

    Args:
        print_registry: The registry to print, :data:`registry` by default.
        num_cols: The number of ids per line.
        exclude_namespaces: Namespaces to leave out.
        disable_print: Return the text instead of printing it.

    Returns:
        The text if ``disable_print`` is true, else ``None``.
    """
    groups: dict[str | None, list[str]] = defaultdict(list)
    for env_spec in print_registry.values():
        groups[_display_namespace(env_spec)].append(env_spec.id)
    # Every column is as wide as the longest name (not id) in the whole registry, as in gymnasium.
    width = max((len(env_spec.name) for env_spec in print_registry.values()), default=0)

    blocks: list[str] = []
    for group, env_ids in groups.items():
        if exclude_namespaces is not None and group in exclude_namespaces:
            continue
        rows = [sorted(env_ids)[start : start + num_cols] for start in range(0, len(env_ids), num_cols)]
        body = "\n".join(" ".join(env_id.ljust(width) for env_id in row).rstrip(" ") for row in rows)
        blocks.append(f"{'=' * 5} {group} {'=' * 5}\n{body}".rstrip(" "))

    output = "\n".join(blocks)
    if disable_print:
        return output
    print(output)
    return None


# The built-in environments are registered on first use of the registry (their modules are not imported).
import nbgym.envs  # noqa: E402, F401
