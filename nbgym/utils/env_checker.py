"""``check_env``: an active check that an environment follows the Gymnasium API.

Where :mod:`nbgym.utils.passive_env_checker` only looks at what the user's calls return,
:func:`check_env` calls ``reset``, ``step``, ``render`` and ``close`` itself, with seeds, to check
spaces, return types, seeding determinism and that returned data is never reused. Its warnings and
assertion messages are gymnasium 1.4.0's.
"""

from __future__ import annotations

import inspect
from copy import deepcopy
from itertools import combinations
from typing import Any

import numpy as np

from nbgym import error, logger, spaces
from nbgym.core import Env
from nbgym.utils.passive_env_checker import (
    check_action_space,
    check_observation_space,
    data_shares_objects,
    env_render_passive_checker,
    env_reset_passive_checker,
    env_step_passive_checker,
)

__all__ = [
    "check_env",
    "data_equivalence",
    "check_reset_seed_determinism",
    "check_reset_options",
    "check_step_determinism",
    "check_returned_data_not_reused",
    "check_reset_return_info_deprecation",
    "check_seed_deprecation",
    "check_reset_return_type",
    "check_space_limit",
]

_CUSTOM_ENV_DOCS = "See https://gymnasium.farama.org/introduction/create_custom_env/ for more info."


def data_equivalence(data_1: Any, data_2: Any, exact: bool = False) -> bool:
    """Whether two observations (or infos, or actions) are equal in type, structure and value.

    Args:
        data_1: A data structure.
        data_2: A data structure.
        exact: Whether arrays must be equal exactly; otherwise ``np.allclose`` with ``rtol=atol=1e-5``.

    Returns:
        Whether the two are equivalent.
    """
    if type(data_1) is not type(data_2):
        return False
    if isinstance(data_1, dict):
        return data_1.keys() == data_2.keys() and all(data_equivalence(data_1[k], data_2[k], exact) for k in data_1)
    if isinstance(data_1, (tuple, list)):
        return len(data_1) == len(data_2) and all(
            data_equivalence(item_1, item_2, exact) for item_1, item_2 in zip(data_1, data_2, strict=True)
        )
    if isinstance(data_1, np.ndarray):
        if data_1.shape != data_2.shape or data_1.dtype != data_2.dtype:
            return False
        if data_1.dtype == object:
            return all(data_equivalence(item_1, item_2, exact) for item_1, item_2 in zip(data_1, data_2, strict=True))
        if exact:
            return bool(np.all(data_1 == data_2))
        return bool(np.allclose(data_1, data_2, rtol=1e-5, atol=1e-5))
    # `==` of numpy scalars gives `np.bool_`.
    return bool(data_1 == data_2)


def _peek_np_random(env: Env) -> np.random.Generator | None:
    """Returns the generator of ``env.unwrapped`` without creating one, ``None`` if it has none yet.

    An environment that keeps :class:`~nbgym.core.Env`'s ``np_random`` property stores its generator in
    ``_np_random``, which is read directly so that a missing generator is noticed. An environment that
    overrides the property (the compiled environments) owns its generator, and the property is asked.
    """
    unwrapped = env.unwrapped
    if inspect.getattr_static(type(unwrapped), "np_random") is inspect.getattr_static(Env, "np_random"):
        return unwrapped._np_random
    return unwrapped.np_random


def _accepts_keyword(signature: inspect.Signature, name: str) -> bool:
    """Whether a ``reset`` signature takes ``name`` as a parameter or through ``**kwargs``."""
    parameters = signature.parameters
    return name in parameters or ("kwargs" in parameters and parameters["kwargs"].kind is inspect.Parameter.VAR_KEYWORD)


def _is_deterministic(env: Env) -> bool:
    """Whether ``env`` has a spec that declares it deterministic (the only case outputs are compared)."""
    return env.spec is not None and env.spec.nondeterministic is False


def check_reset_seed_determinism(env: Env) -> None:
    """Checks that ``reset(seed=...)`` seeds the environment's generator and that seeded resets repeat.

    Args:
        env: The environment to check.

    Raises:
        AssertionError: An observation is outside the observation space, the generator is not seeded by
            ``reset(seed=...)``, equal seeds give different generators or (for a deterministic spec)
            observations, different seeds give equal generators, or ``reset`` rejects ``seed`` although
            its signature takes it.
        nbgym.error.Error: ``reset`` takes neither ``seed`` nor ``**kwargs``.
    """
    signature = inspect.signature(env.reset)
    if not _accepts_keyword(signature, "seed"):
        raise error.Error("The `reset` method does not provide a `seed` or `**kwargs` keyword argument.")

    try:
        # Snapshots, since an environment may write into the same observation buffer on the next reset.
        obs_1 = deepcopy(env.reset(seed=123)[0])
        assert obs_1 in env.observation_space, (
            "The observation returned by `env.reset(seed=123)` is not within the observation space."
        )
        rng_1 = _peek_np_random(env)
        assert rng_1 is not None, (
            "Expects the random number generator to have been generated given a seed was passed to reset. "
            "Most likely the environment reset function does not call `super().reset(seed=seed)`."
        )
        seed_123_state = deepcopy(rng_1.bit_generator.state)

        obs_2 = deepcopy(env.reset()[0])
        assert obs_2 in env.observation_space, (
            "The observation returned by `env.reset()` is not within the observation space."
        )

        obs_3 = env.reset(seed=123)[0]
        assert obs_3 in env.observation_space, (
            "The observation returned by `env.reset(seed=123)` is not within the observation space."
        )
        seed_123_state_again = deepcopy(_peek_np_random(env).bit_generator.state)

        obs_4 = env.reset()[0]
        assert obs_4 in env.observation_space, (
            "The observation returned by `env.reset()` is not within the observation space."
        )

        if _is_deterministic(env):
            assert data_equivalence(obs_1, obs_3), (
                "Using `env.reset(seed=123)` is non-deterministic as the observations are not equivalent."
            )
            assert data_equivalence(obs_2, obs_4), (
                "Using `env.reset(seed=123)` then `env.reset()` is non-deterministic as the observations are not "
                "equivalent."
            )
            if not data_equivalence(obs_1, obs_3, exact=True):
                logger.warn("Using `env.reset(seed=123)` observations are not equal although similar.")
            if not data_equivalence(obs_2, obs_4, exact=True):
                logger.warn(
                    "Using `env.reset(seed=123)` then `env.reset()` observations are not equal although similar."
                )

        assert seed_123_state == seed_123_state_again, (
            "Most likely the environment reset function does not call `super().reset(seed=seed)` as the random "
            "generates are not same when the same seeds are passed to `env.reset`."
        )

        obs_5 = env.reset(seed=456)[0]
        assert obs_5 in env.observation_space, (
            "The observation returned by `env.reset(seed=456)` is not within the observation space."
        )
        assert _peek_np_random(env).bit_generator.state != seed_123_state, (
            "Most likely the environment reset function does not call `super().reset(seed=seed)` as the random "
            "number generators are not different when different seeds are passed to `env.reset`."
        )
    except TypeError as e:
        raise AssertionError(
            "The environment cannot be reset with a random seed, even though `seed` or `kwargs` appear in the "
            f"signature. This should never happen, please report this issue. The error was: {e}"
        ) from e

    seed_parameter = signature.parameters.get("seed")
    if seed_parameter is not None and seed_parameter.default is not None:
        logger.warn(
            "The default seed argument in reset should be `None`, otherwise the environment will by default always "
            f"be deterministic. Actual default: {seed_parameter.default}"
        )


def check_reset_options(env: Env) -> None:
    """Checks that ``reset(options={})`` is accepted.

    Args:
        env: The environment to check.

    Raises:
        AssertionError: ``reset`` rejects ``options`` although its signature takes it.
        nbgym.error.Error: ``reset`` takes neither ``options`` nor ``**kwargs``.
    """
    if not _accepts_keyword(inspect.signature(env.reset), "options"):
        raise error.Error("The `reset` method does not provide an `options` or `**kwargs` keyword argument.")
    try:
        env.reset(options={})
    except TypeError as e:
        raise AssertionError(
            "The environment cannot be reset with options, even though `options` or `**kwargs` appear in the "
            f"signature. This should never happen, please report this issue. The error was: {e}"
        ) from e


def check_step_determinism(env: Env, seed: int = 123) -> None:
    """Checks that one step after a seeded reset repeats exactly (skipped for a nondeterministic spec).

    Assumes that seeded resets are deterministic (:func:`check_reset_seed_determinism`) and that ``step``
    returns valid data.

    Args:
        env: The environment to check.
        seed: The seed of the resets and of the action space.

    Raises:
        AssertionError: The observations, rewards, terminations, infos or generator states differ, or the
            environment truncates after one step.
    """
    if env.spec is not None and env.spec.nondeterministic is True:
        return

    env.action_space.seed(seed)
    action = env.action_space.sample()

    env.reset(seed=seed)
    obs_0, rew_0, term_0, trunc_0, info_0 = env.step(action)
    # A snapshot, since the next step may write into the same observation buffer.
    obs_0 = deepcopy(obs_0)
    rng_0 = _peek_np_random(env)
    assert rng_0 is not None, "env.reset() should have initialized env._np_random"
    state_0 = deepcopy(rng_0.bit_generator.state)

    env.reset(seed=seed)
    obs_1, rew_1, term_1, trunc_1, info_1 = env.step(action)
    # A seeded reset may replace the generator object, so it is looked up again.
    rng_1 = _peek_np_random(env)
    assert rng_1 is not None, "env.reset() should have initialized env._np_random"
    assert rng_1.bit_generator.state == state_0, "The `.np_random` is not properly been updated after step."

    for name, item_0, item_1 in (("observation", obs_0, obs_1), ("reward", rew_0, rew_1)):
        assert data_equivalence(item_0, item_1), (
            f"Deterministic step {name}s are not equivalent for the same seed and action"
        )
        if not data_equivalence(item_0, item_1, exact=True):
            logger.warn(f"Step {name}s are not equal although similar given the same seed and action")

    assert data_equivalence(term_0, term_1, exact=True), (
        "Deterministic step termination are not equivalent for the same seed and action"
    )
    assert trunc_0 is False and trunc_1 is False, "Environment truncates after 1 step, something has gone very wrong."

    assert data_equivalence(info_0, info_1), "Deterministic step info are not equivalent for the same seed and action"
    if not data_equivalence(info_0, info_1, exact=True):
        logger.warn("Step info are not equal although similar given the same seed and action")


def check_returned_data_not_reused(env: Env, seed: int = 123) -> None:
    """Checks that every ``reset`` and ``step`` returns new observation and info objects.

    Identity is compared, not value: an array or dict meant to be constant must be copied into each
    observation or info too, since neither the user nor this check can know that no later call modifies it.

    Args:
        env: The environment to check.
        seed: The seed of the resets and of the action space.

    Raises:
        AssertionError: Two calls returned observations or infos that share an object.
    """
    env.action_space.seed(seed)

    calls = [("env.reset() (call 1)", env.reset(seed=seed))]
    for _ in range(2):
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        calls.append((f"env.step() (call {len(calls) + 1})", (obs, info)))
        if terminated or truncated:
            break
    calls.append((f"env.reset() (call {len(calls) + 1})", env.reset(seed=seed)))

    for (source_1, (obs_1, info_1)), (source_2, (obs_2, info_2)) in combinations(calls, 2):
        assert not data_shares_objects(obs_1, obs_2), (
            f"The observations returned by `{source_1}` and `{source_2}` share an object, therefore, modifying one "
            "will modify the other. Environments must return new observation data on every call as users keep the "
            "data returned to them."
        )
        assert not data_shares_objects(info_1, info_2), (
            f"The infos returned by `{source_1}` and `{source_2}` share an object, therefore, modifying one will "
            "modify the other. Environments must return new info data on every call as users keep the data "
            "returned to them."
        )


def check_reset_return_info_deprecation(env: Env) -> None:
    """Warns when ``reset`` still takes the removed ``return_info`` argument."""
    if "return_info" in inspect.signature(env.reset).parameters:
        logger.warn(
            "`return_info` is deprecated as an optional argument to `reset`. `reset`"
            "should now always return `obs, info` where `obs` is an observation, and `info` is a dictionary"
            "containing additional information."
        )


def check_seed_deprecation(env: Env) -> None:
    """Warns when the environment still has the removed ``seed`` method."""
    if callable(getattr(env, "seed", None)):
        logger.warn(
            "Official support for the `seed` function is dropped. "
            "Standard practice is to reset gymnasium environments using `env.reset(seed=<desired seed>)`"
        )


def check_reset_return_type(env: Env) -> None:
    """Checks that ``reset()`` returns ``(obs, info)`` with ``obs`` in the observation space and a dict ``info``.

    Raises:
        AssertionError: It does not.
    """
    result = env.reset()
    assert isinstance(result, tuple), (
        "The result returned by `env.reset()` was not a tuple of the form `(obs, info)`, where `obs` is a "
        "observation and `info` is a dictionary containing additional information. "
        f"Actual type: `{type(result)}`"
    )
    assert len(result) == 2, f"Calling the reset method did not return a 2-tuple, actual length: {len(result)}"

    obs, info = result
    assert obs in env.observation_space, (
        "The first element returned by `env.reset()` is not within the observation space."
    )
    assert isinstance(info, dict), (
        f"The second element returned by `env.reset()` was not a dictionary, actual type: {type(info)}"
    )


def check_space_limit(space: spaces.Space, space_type: str) -> None:
    """Warns about infinite ``Box`` bounds, and about a vector ``Box`` action space that is not normalized.

    Args:
        space: The space to check, recursing into ``Tuple`` and ``Dict``.
        space_type: ``"observation"`` or ``"action"``.
    """
    if isinstance(space, spaces.Box):
        if np.any(np.equal(space.low, -np.inf)):
            logger.warn(f"A Box {space_type} space minimum value is -infinity. This is probably too low.")
        if np.any(np.equal(space.high, np.inf)):
            logger.warn(f"A Box {space_type} space maximum value is infinity. This is probably too high.")

        if space_type == "action" and len(space.shape) == 1:
            asymmetric = np.logical_and(space.low != 0, np.abs(space.low) != np.abs(space.high))
            if np.any(asymmetric) or np.any(space.low < -1) or np.any(space.high > 1):
                logger.warn(
                    "For Box action spaces, we recommend using a symmetric and normalized space (range=[-1, 1] or "
                    "[0, 1]). See https://stable-baselines3.readthedocs.io/en/master/guide/rl_tips.html for more "
                    "information."
                )
    elif isinstance(space, spaces.Tuple):
        for subspace in space.spaces:
            check_space_limit(subspace, space_type)
    elif isinstance(space, spaces.Dict):
        for subspace in space.values():
            check_space_limit(subspace, space_type)


def check_env(
    env: Env,
    warn: bool | None = None,
    skip_render_check: bool = False,
    skip_close_check: bool = False,
) -> None:
    """Checks that an environment follows the Gymnasium API, calling its methods with a variety of values.

    Checks the spaces, ``reset`` (return type, seeding, options), ``step`` (return types, determinism,
    no reuse of returned data), ``render`` in every declared render mode (re-made from the spec) and
    that ``close`` may be called twice. Problems that break the API raise; doubtful choices warn.

    Args:
        env: The environment to check, preferably the bare one (``env.unwrapped``).
        warn: Ignored (it used to silence some warnings); passing it warns.
        skip_render_check: Whether to skip the checks of ``render``.
        skip_close_check: Whether to skip the check of ``close``.

    Raises:
        TypeError: ``env`` is not an :class:`nbgym.Env` (one of the old ``gym`` package's is named as such).
        AttributeError: The environment has no action or observation space.
        AssertionError: The environment breaks the API (the message says how).
        nbgym.error.Error: ``reset`` takes neither ``seed`` / ``options`` nor ``**kwargs``.
    """
    if warn is not None:
        logger.warn("`check_env(warn=...)` parameter is now ignored.")

    if not isinstance(env, Env):
        # The old `gym` package's envs, told apart as gymnasium does, by the name of their class's base.
        if str(env.__class__.__base__) in ("<class 'gym.core.Env'>", "<class 'gym.core.Wrapper'>"):
            raise TypeError(
                f"Gym is incompatible with Gymnasium, please update the environment class to `nbgym.Env`. {_CUSTOM_ENV_DOCS}"
            )
        raise TypeError(
            f"The environment must inherit from the nbgym.Env class, actual class: {type(env)}. {_CUSTOM_ENV_DOCS}"
        )
    if env.unwrapped is not env:
        logger.warn(
            f"The environment ({env}) is different from the unwrapped version ({env.unwrapped}). This could effect "
            "the environment checker as the environment most likely has a wrapper applied to it. We recommend using "
            "the raw environment for `check_env` using `env.unwrapped`."
        )

    # Environments that take and return another library's arrays are checked through a conversion to numpy, as
    # gymnasium's check_env does: the checks compare numpy data (`data_equivalence` asks anything else for its truth).
    if env.metadata.get("jax", False):
        from nbgym.wrappers import JaxToNumpy

        env = JaxToNumpy(env)
    elif env.metadata.get("torch", False):
        import nbgym.wrappers

        # gymnasium names a wrapper that neither it nor nbgym has: both raise AttributeError here.
        env = nbgym.wrappers.TorchToNumpy(env)

    for space_type, check_space_fn in (("action", check_action_space), ("observation", check_observation_space)):
        if not hasattr(env, f"{space_type}_space"):
            raise AttributeError(f"The environment must specify an {space_type} space. {_CUSTOM_ENV_DOCS}")
        space = getattr(env, f"{space_type}_space")
        check_space_fn(space)
        check_space_limit(space, space_type)

    check_seed_deprecation(env)
    check_reset_return_info_deprecation(env)
    check_reset_return_type(env)
    check_reset_seed_determinism(env)
    check_reset_options(env)

    env_reset_passive_checker(env)
    env_step_passive_checker(env, env.action_space.sample())

    check_step_determinism(env)
    check_returned_data_not_reused(env)

    if not skip_render_check:
        if env.render_mode is not None:
            env_render_passive_checker(env)

        if env.spec is None:
            logger.warn(
                "Not able to test alternative render modes due to the environment not having a spec. "
                "Try instantiating the environment through `nbgym.make`"
            )
        else:
            for render_mode in env.metadata["render_modes"]:
                render_env = env.spec.make(render_mode=render_mode)
                render_env.reset()
                env_render_passive_checker(render_env)
                render_env.close()

    if not skip_close_check and env.spec is not None:
        closed_env = env.spec.make()
        closed_env.close()
        try:
            closed_env.close()
        except Exception as e:
            logger.warn(
                f"Calling `env.close()` on the closed environment should be allowed, but it raised an exception: {e}"
            )
