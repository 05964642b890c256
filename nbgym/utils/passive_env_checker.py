"""Passive checks of an environment's spaces and of what its ``reset``, ``step`` and ``render`` return.

The checks warn (through :mod:`nbgym.logger`) or fail an assertion where gymnasium's passive checker
does, with the same messages, and never change the data they check. ``PassiveEnvChecker`` (applied by
``nbgym.make``) runs them on the first calls of an environment.
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, SupportsFloat, TypeVar

import numpy as np

from nbgym import error, logger, spaces

if TYPE_CHECKING:
    from nbgym.core import Env, RenderFrame

__all__ = [
    "env_render_passive_checker",
    "env_reset_passive_checker",
    "env_step_passive_checker",
    "check_action_space",
    "check_observation_space",
]

_ObsT = TypeVar("_ObsT")
_ActT = TypeVar("_ActT")


def _check_box_bound_shapes(space: spaces.Box, space_type: str, low_adverb: str, high_adverb: str) -> None:
    """Asserts that the bounds of a :class:`Box` have the space's shape.

    The two adverbs reproduce gymnasium's wording of each message ("have different" / "have have different").
    """
    assert space.low.shape == space.shape, (
        f"The Box {space_type} space shape and low shape {low_adverb} different shapes, "
        f"low shape: {space.low.shape}, box shape: {space.shape}"
    )
    assert space.high.shape == space.shape, (
        f"The Box {space_type} space shape and high shape {high_adverb} different shapes, "
        f"high shape: {space.high.shape}, box shape: {space.shape}"
    )


def _check_box_observation_space(observation_space: spaces.Box) -> None:
    """Checks that a :class:`Box` observation space has bounds of its shape and a non-empty range."""
    _check_box_bound_shapes(observation_space, "observation", "have", "have have")
    if np.any(observation_space.low == observation_space.high):
        logger.warn("A Box observation space maximum and minimum values are equal.")
    elif np.any(observation_space.high < observation_space.low):
        logger.warn("A Box observation space low value is greater than a high value.")


def _check_box_action_space(action_space: spaces.Box) -> None:
    """Checks that a :class:`Box` action space has bounds of its shape and a non-empty range."""
    _check_box_bound_shapes(action_space, "action", "have have", "have")
    if np.any(action_space.low == action_space.high):
        logger.warn("A Box action space maximum and minimum values are equal.")


def check_space(space: spaces.Space, space_type: str, check_box_space_fn: Callable[[spaces.Box], None]) -> None:
    """Checks that ``space`` is a well-defined nbgym space, recursing into ``Tuple`` and ``Dict``.

    Args:
        space: The space to check.
        space_type: ``"observation"`` or ``"action"``, for the messages.
        check_box_space_fn: The check of a :class:`Box` space of that kind.

    Raises:
        TypeError: ``space`` is not an :class:`nbgym.spaces.Space` (one of the old ``gym`` package's is named as such).
        AssertionError: The space is malformed (e.g. a ``Discrete`` space with no element, an empty ``Dict``).
    """
    if not isinstance(space, spaces.Space):
        base = str(space.__class__.__base__)
        if base == "<class 'gym.spaces.space.Space'>":  # the old `gym` package's, told apart as gymnasium does
            raise TypeError(
                f"Gym is incompatible with Gymnasium, please update the environment {space_type}_space to "
                f"`{base.replace('gym.spaces.space', 'nbgym.spaces')}`."
            )
        raise TypeError(f"{space_type} space does not inherit from `nbgym.spaces.Space`, actual type: {type(space)}")

    if isinstance(space, spaces.Box):
        check_box_space_fn(space)
    elif isinstance(space, spaces.Discrete):
        assert 0 < space.n, (
            f"Discrete {space_type} space's number of elements must be positive, actual number of elements: {space.n}"
        )
        assert space.shape == (), f"Discrete {space_type} space's shape should be empty, actual shape: {space.shape}"
    elif isinstance(space, spaces.MultiDiscrete):
        assert space.shape == space.nvec.shape, (
            f"Multi-discrete {space_type} space's shape must be equal to the nvec shape, "
            f"space shape: {space.shape}, nvec shape: {space.nvec.shape}"
        )
        assert np.all(0 < space.nvec), (
            f"Multi-discrete {space_type} space's all nvec elements must be greater than 0, actual nvec: {space.nvec}"
        )
    elif isinstance(space, spaces.MultiBinary):
        assert np.all(0 < np.asarray(space.shape)), (
            f"Multi-binary {space_type} space's all shape elements must be greater than 0, actual shape: {space.shape}"
        )
    elif isinstance(space, spaces.Tuple):
        assert 0 < len(space.spaces), f"An empty Tuple {space_type} space is not allowed."
        for subspace in space.spaces:
            check_space(subspace, space_type, check_box_space_fn)
    elif isinstance(space, spaces.Dict):
        assert 0 < len(space.spaces), f"An empty Dict {space_type} space is not allowed."
        for subspace in space.values():
            check_space(subspace, space_type, check_box_space_fn)


check_observation_space: Callable[[spaces.Space], None] = partial(
    check_space, space_type="observation", check_box_space_fn=_check_box_observation_space
)
check_action_space: Callable[[spaces.Space], None] = partial(
    check_space, space_type="action", check_box_space_fn=_check_box_action_space
)


def check_obs(obs: Any, observation_space: spaces.Space, method_name: str) -> None:
    """Checks that ``obs`` has the type the observation space implies and lies in the space.

    Args:
        obs: The observation to check.
        observation_space: The environment's observation space.
        method_name: The method that returned the observation (``"reset"`` or ``"step"``), for the messages.

    Raises:
        AssertionError: A ``Tuple`` observation of the wrong length, or a ``Dict`` observation that is
            not a dict or has other keys than the space.
    """
    pre = f"The obs returned by the `{method_name}()` method"
    if isinstance(observation_space, spaces.Discrete):
        if not isinstance(obs, (np.int64, int)):
            logger.warn(f"{pre} should be an int or np.int64, actual type: {type(obs)}")
    elif isinstance(observation_space, spaces.Box):
        # A scalar Box also accepts Python and numpy scalars.
        if observation_space.shape != ():
            if not isinstance(obs, np.ndarray):
                logger.warn(f"{pre} was expecting a numpy array, actual type: {type(obs)}")
            elif obs.dtype != observation_space.dtype:
                logger.warn(
                    f"{pre} was expecting numpy array dtype to be {observation_space.dtype}, actual type: {obs.dtype}"
                )
    elif isinstance(observation_space, (spaces.MultiBinary, spaces.MultiDiscrete)):
        if not isinstance(obs, np.ndarray):
            logger.warn(f"{pre} was expecting a numpy array, actual type: {type(obs)}")
    elif isinstance(observation_space, spaces.Tuple):
        if not isinstance(obs, tuple):
            logger.warn(f"{pre} was expecting a tuple, actual type: {type(obs)}")
        assert len(obs) == len(observation_space.spaces), (
            f"{pre} length is not same as the observation space length, "
            f"obs length: {len(obs)}, space length: {len(observation_space.spaces)}"
        )
        for sub_obs, sub_space in zip(obs, observation_space.spaces, strict=True):
            check_obs(sub_obs, sub_space, method_name)
    elif isinstance(observation_space, spaces.Dict):
        assert isinstance(obs, dict), f"{pre} must be a dict, actual type: {type(obs)}"
        assert obs.keys() == observation_space.spaces.keys(), (
            f"{pre} observation keys is not same as the observation space keys, "
            f"obs keys: {list(obs.keys())}, space keys: {list(observation_space.spaces.keys())}"
        )
        for key, sub_space in observation_space.spaces.items():
            check_obs(obs[key], sub_space, method_name)

    try:
        if obs not in observation_space:
            logger.warn(f"{pre} is not within the observation space.")
    except Exception as e:
        logger.warn(f"{pre} is not within the observation space with exception: {e}")


def data_shares_objects(data_1: Any, data_2: Any) -> bool:
    """Whether two observations (or infos, or actions) share a mutable object.

    This compares identity, where :func:`~nbgym.utils.env_checker.data_equivalence` compares values.
    Immutable data (ints, floats, strings; often interned, so ``is`` would match equal values) and
    objects of unknown types are not counted as shared.

    Args:
        data_1: A data structure.
        data_2: A data structure of the same layout.

    Returns:
        Whether modifying ``data_1`` in place could modify ``data_2``.
    """
    if type(data_1) is not type(data_2):
        return False
    if isinstance(data_1, dict):
        return data_1 is data_2 or any(data_shares_objects(data_1[k], data_2[k]) for k in data_1.keys() & data_2.keys())
    if isinstance(data_1, tuple):
        # A tuple is immutable but its items may not be; a length mismatch only leaves fewer pairs.
        return any(data_shares_objects(item_1, item_2) for item_1, item_2 in zip(data_1, data_2, strict=False))
    if isinstance(data_1, np.ndarray):
        if data_1.dtype == object:
            return data_1 is data_2 or any(
                data_shares_objects(item_1, item_2) for item_1, item_2 in zip(data_1.flat, data_2.flat, strict=False)
            )
        # Memory overlap also catches a new view of a reused buffer, e.g. `buffer[:]`.
        return bool(np.shares_memory(data_1, data_2))
    return False


def env_data_reuse_passive_checker(
    previous_data: tuple[Any, dict[str, Any]],
    data: tuple[Any, dict[str, Any]],
    previous_source: str,
    source: str,
) -> None:
    """Warns when two calls returned observations or infos that share an object.

    Users keep the data of every timestep (e.g. in a replay buffer), so an environment that modifies
    and returns the same buffer again corrupts data the user still holds.

    Args:
        previous_data: ``(obs, info)`` of the earlier call.
        data: ``(obs, info)`` of the later call.
        previous_source: The earlier call's method name, for the message.
        source: The later call's method name, for the message.
    """
    previous_obs, previous_info = previous_data
    obs, info = data
    for kind, previous_item, item in (("observation", previous_obs, obs), ("info", previous_info, info)):
        if data_shares_objects(previous_item, item):
            logger.warn(
                f"The {kind}s returned by `{previous_source}` and the following `{source}` share an object, "
                "therefore, modifying one will modify the other. "
                f"Environments should return new {kind} data on every call as users commonly keep the data "
                "returned to them."
            )


def env_reset_passive_checker(env: Env[_ObsT, Any], **kwargs: Any) -> tuple[_ObsT, dict[str, Any]]:
    """Calls ``env.reset(**kwargs)``, checks its signature and what it returns, and returns the result unchanged.

    Args:
        env: The environment to reset.
        **kwargs: The arguments of ``reset``.

    Returns:
        What ``env.reset`` returned.

    Raises:
        AssertionError: The info is not a dict, or the observation fails :func:`check_obs`'s assertions.
    """
    parameters = inspect.signature(env.reset).parameters
    takes_kwargs = "kwargs" in parameters
    if "seed" not in parameters and not takes_kwargs:
        logger.deprecation(
            "Current gymnasium version requires that `Env.reset` can be passed a `seed` instead of using "
            "`Env.seed` for resetting the environment random number generator."
        )
    else:
        seed_parameter = parameters.get("seed")
        if seed_parameter is not None and seed_parameter.default is not None:
            logger.warn(
                "The default seed argument in `Env.reset` should be `None`, otherwise the environment will by "
                f"default always be deterministic. Actual default: {seed_parameter}"
            )
    if "options" not in parameters and not takes_kwargs:
        logger.deprecation(
            "Current gymnasium version requires that `Env.reset` can be passed `options` to allow the environment "
            "initialisation to be passed additional information."
        )

    result = env.reset(**kwargs)
    if not isinstance(result, tuple):
        logger.warn(
            "The result returned by `env.reset()` was not a tuple of the form `(obs, info)`, where `obs` is a "
            "observation and `info` is a dictionary containing additional information. "
            f"Actual type: `{type(result)}`"
        )
    elif len(result) != 2:
        logger.warn(
            "The result returned by `env.reset()` should be `(obs, info)` by default, , where `obs` is a "
            "observation and `info` is a dictionary containing additional information."
        )
    else:
        obs, info = result
        check_obs(obs, env.observation_space, "reset")
        assert isinstance(info, dict), (
            f"The second element returned by `env.reset()` was not a dictionary, actual type: {type(info)}"
        )
    return result


def _warn_if_not_bool(value: Any, name: str) -> None:
    # `np.bool_` is numpy's boolean scalar; Python's `bool` covers the rest.
    if not isinstance(value, (bool, np.bool_)):
        logger.warn(f"Expects `{name}` signal to be a boolean, actual type: {type(value)}")


def env_step_passive_checker(
    env: Env[_ObsT, _ActT], action: _ActT
) -> tuple[_ObsT, SupportsFloat, bool, bool, dict[str, Any]]:
    """Calls ``env.step(action)``, checks what it returns, and returns the result unchanged.

    The action itself is not checked: some environments accept actions outside their action space.

    Args:
        env: The environment to step.
        action: The action.

    Returns:
        What ``env.step`` returned.

    Raises:
        AssertionError: The result is not a tuple, or the info is not a dict.
        nbgym.error.Error: The result is a tuple of neither four (old step API) nor five elements.
    """
    result = env.step(action)
    assert isinstance(result, tuple), f"Expects step result to be a tuple, actual type: {type(result)}"
    if len(result) == 4:
        logger.deprecation(
            "Core environment is written in old step API which returns one bool instead of two. "
            "It is recommended to rewrite the environment with new step API. "
        )
        obs, reward, done, info = result
        _warn_if_not_bool(done, "done")
    elif len(result) == 5:
        obs, reward, terminated, truncated, info = result
        _warn_if_not_bool(terminated, "terminated")
        _warn_if_not_bool(truncated, "truncated")
    else:
        raise error.Error(
            "Expected `Env.step` to return a four or five element tuple, "
            f"actual number of elements returned: {len(result)}."
        )

    check_obs(obs, env.observation_space, "step")

    if np.issubdtype(type(reward), np.integer) or np.issubdtype(type(reward), np.floating):
        if np.isnan(reward):
            logger.warn("The reward is a NaN value.")
        if np.isinf(reward):
            logger.warn("The reward is an inf value.")
    else:
        logger.warn(
            "The reward returned by `step()` must be a float, int, np.integer or np.floating, "
            f"actual type: {type(reward)}"
        )

    assert isinstance(info, dict), (
        f"The `info` returned by `step()` must be a python dictionary, actual type: {type(info)}"
    )
    return result


def _check_render_return(render_mode: str, render_return: Any) -> None:
    """Warns when what ``render`` returned does not fit ``render_mode``."""
    if render_mode == "human":
        if render_return is not None:
            logger.warn(f"Human rendering should return `None`, got {type(render_return)}")
    elif render_mode == "rgb_array":
        if not isinstance(render_return, np.ndarray):
            logger.warn(f"RGB-array rendering should return a numpy array, got {type(render_return)}")
            return
        if render_return.dtype != np.uint8:
            logger.warn(f"RGB-array rendering should return a numpy array with dtype uint8, got {render_return.dtype}")
        if render_return.ndim != 3:
            logger.warn(f"RGB-array rendering should return a numpy array with three axes, got {render_return.ndim}")
        elif render_return.shape[2] != 3:
            logger.warn(
                "RGB-array rendering should return a numpy array in which the last axis has three dimensions, "
                f"got {render_return.shape[2]}"
            )
    elif render_mode == "depth_array":
        if not isinstance(render_return, np.ndarray):
            logger.warn(f"Depth-array rendering should return a numpy array, got {type(render_return)}")
        elif render_return.ndim != 2:
            logger.warn(f"Depth-array rendering should return a numpy array with two axes, got {render_return.ndim}")
    elif render_mode in ("ansi", "ascii"):
        if not isinstance(render_return, str):
            logger.warn(f"ANSI/ASCII rendering should produce a string, got {type(render_return)}")
    elif render_mode.endswith("_list"):
        if not isinstance(render_return, list):
            logger.warn(f"Render mode `{render_mode}` should produce a list, got {type(render_return)}")
            return
        base_render_mode = render_mode[: -len("_list")]
        for frame in render_return:
            _check_render_return(base_render_mode, frame)


def env_render_passive_checker(env: Env) -> RenderFrame | list[RenderFrame] | None:
    """Checks the render metadata of ``env``, calls ``env.render()``, checks and returns its result unchanged.

    Args:
        env: The environment to render.

    Returns:
        What ``env.render`` returned.

    Raises:
        AssertionError: ``render_fps`` is not positive, or ``render_mode`` is not a declared render mode.
    """
    render_modes = env.metadata.get("render_modes")
    if render_modes is None:
        logger.warn(
            "No render modes was declared in the environment (env.metadata['render_modes'] is None or not defined), "
            "you may have trouble when calling `.render()`."
        )
    else:
        if not isinstance(render_modes, (list, tuple)):
            logger.warn(
                f"Expects the render_modes to be a sequence (i.e. list, tuple), actual type: {type(render_modes)}"
            )
        elif not all(isinstance(mode, str) for mode in render_modes):
            logger.warn(
                f"Expects all render modes to be strings, actual types: {[type(mode) for mode in render_modes]}"
            )

        # A render fps only matters when the environment renders at all.
        if len(render_modes) > 0:
            render_fps = env.metadata.get("render_fps")
            if render_fps is None:
                logger.warn(
                    "No render fps was declared in the environment (env.metadata['render_fps'] is None or not "
                    "defined), rendering may occur at inconsistent fps."
                )
            elif np.issubdtype(type(render_fps), np.integer) or np.issubdtype(type(render_fps), np.floating):
                assert render_fps > 0, (
                    f"Expects the `env.metadata['render_fps']` to be greater than zero, actual value: {render_fps}"
                )
            else:
                logger.warn(
                    "Expects the `env.metadata['render_fps']` to be an integer or a float, "
                    f"actual type: {type(render_fps)}"
                )

        if len(render_modes) == 0:
            assert env.render_mode is None, (
                f"With no render_modes, expects the Env.render_mode to be None, actual value: {env.render_mode}"
            )
        else:
            assert env.render_mode is None or env.render_mode in render_modes, (
                "The environment was initialized successfully however with an unsupported render mode. "
                f"Render mode: {env.render_mode}, modes: {render_modes}"
            )

    result = env.render()
    if env.render_mode is not None:
        _check_render_return(env.render_mode, result)
    return result
