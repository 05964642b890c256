"""Exact comparisons of nbgym's classic-control environments with gymnasium 1.4.0's, shared by their test files.

Actions come from a policy that sees the last observation (random actions rarely reach MountainCar's flag
or Acrobot's height), so terminations, truncations and autoresets all happen in the runs.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from helpers.toy_text_checks import assert_same_value

import nbgym

Policy = Callable[[np.random.Generator, np.ndarray], Any]
"""``policy(rng, observations) -> action(s)``: the observation of one env, or the batch of a vector env."""


def compare_single(
    env_id: str,
    policy: Policy,
    seeds: range | list[int],
    steps: int,
    kwargs: dict[str, Any] | None = None,
    bare: bool = False,
    setup: Callable[[Any], None] | None = None,
    reset_options: dict[str, Any] | None = None,
) -> int:
    """Runs ``nbgym.make(env_id)`` and ``gymnasium.make(env_id)`` (or their bare envs) side by side.

    Every reset and step result (dtypes, bits and Python types) must be identical; episodes that end are
    reset without a seed (every other time with ``reset_options``), continuing the stream. ``setup`` is
    applied to both unwrapped envs before the first reset.

    Returns:
        The number of episodes that terminated, for the caller to check that the run covered terminations.
    """
    kwargs = kwargs or {}
    terminations = 0
    for seed in seeds:
        ours, theirs = nbgym.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
        if bare:
            ours, theirs = ours.unwrapped, theirs.unwrapped
        if setup is not None:
            setup(ours.unwrapped)
            setup(theirs.unwrapped)
        expected = theirs.reset(seed=seed)
        assert_same_value(ours.reset(seed=seed), expected, f"seed {seed} reset")
        observation = expected[0]
        rng = np.random.default_rng(seed)
        for t in range(steps):
            action = policy(rng, observation)
            expected = theirs.step(action)
            assert_same_value(ours.step(action), expected, f"seed {seed} step {t} action {action!r}")
            observation = expected[0]
            if expected[2] or expected[3]:
                terminations += expected[2]
                options = reset_options if terminations % 2 else None
                expected = theirs.reset(options=options)
                assert_same_value(ours.reset(options=options), expected, f"seed {seed} step {t} reset")
                observation = expected[0]
        assert ours.unwrapped.np_random.bit_generator.state == theirs.unwrapped.np_random.bit_generator.state
    return terminations


def compare_vector(
    env_id: str,
    policy: Policy,
    num_envs: int,
    mode: str,
    seed: int,
    steps: int,
    kwargs: dict[str, Any] | None = None,
    vectorization_mode: str | None = None,
    nbgym_kwargs: dict[str, Any] | None = None,
) -> tuple[int, int]:
    """Runs ``nbgym.make_vec(env_id)`` and gymnasium's sync vector env side by side in an autoreset mode
    (``nbgym_kwargs``: options of nbgym's vector env only, such as ``num_threads``).

    Observations, rewards, flags and infos (``final_obs``/``final_info`` and their masks included) must be
    identical. In ``Disabled`` mode, ended sub-environments are reset with a ``reset_mask``. With
    ``vectorization_mode`` (``"sync"``, ``"async"``), nbgym's env is that vector env, else its default.

    Returns:
        The numbers of terminations and truncations seen, for the caller to check the run's coverage.
    """
    kwargs = kwargs or {}
    if vectorization_mode is None:
        ours = nbgym.make_vec(env_id, num_envs, autoreset_mode=mode, **kwargs, **(nbgym_kwargs or {}))
    else:
        ours = nbgym.make_vec(
            env_id, num_envs, vectorization_mode=vectorization_mode, vector_kwargs={"autoreset_mode": mode}, **kwargs
        )
    theirs = gymnasium.make_vec(
        env_id, num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs
    )
    assert ours.metadata["autoreset_mode"].value == theirs.metadata["autoreset_mode"].value
    expected = theirs.reset(seed=seed)
    assert_same_value(ours.reset(seed=seed), expected, f"{mode} reset")
    observations = expected[0]
    rng = np.random.default_rng(seed)
    terminations = truncations = 0
    for t in range(steps):
        actions = policy(rng, observations)
        expected = theirs.step(actions)
        assert_same_value(ours.step(actions), expected, f"{mode} step {t}")
        observations = expected[0]
        terminations, truncations = terminations + expected[2].sum(), truncations + expected[3].sum()
        ended = expected[2] | expected[3]
        if mode == "Disabled" and ended.any():
            expected = theirs.reset(options={"reset_mask": ended.copy()})
            got = ours.reset(options={"reset_mask": ended.copy()})
            assert_same_value(got, expected, f"{mode} step {t} masked reset")
            observations = expected[0]
    ours.close()
    theirs.close()
    return int(terminations), int(truncations)


def assert_same_error(theirs: Callable[[], Any], ours: Callable[[], Any]) -> BaseException:
    """Both calls raise the same exception type with the same message; returns ours."""
    try:
        theirs()
    except Exception as expected:  # noqa: BLE001 - the type is what is compared
        try:
            ours()
        except Exception as got:  # noqa: BLE001
            assert type(got) is type(expected), f"{type(got)} != {type(expected)}: {got} / {expected}"
            assert str(got) == str(expected)
            return got
        raise AssertionError(f"nbgym did not raise, gymnasium raised {expected!r}") from None
    raise AssertionError("gymnasium did not raise")


def compare_vector_resets(
    env_id: str,
    options: dict[str, Any],
    sample: Callable[[np.random.Generator, int], np.ndarray],
    setup: Callable[[Any, Any], None] | None = None,
) -> Any:
    """Seed lists (with ``None``), then a masked reset with ``options``, then 50 steps, against gymnasium's
    sync vector env of 3 sub-environments; ``setup(ours, theirs)`` runs before the steps.

    Returns:
        nbgym's vector env.
    """
    ours = nbgym.make_vec(env_id, 3)
    theirs = gymnasium.make_vec(env_id, 3, vectorization_mode="sync")
    for seed in [[1, 2, 3], [4, None, 6]]:
        expected = theirs.reset(seed=seed)
        got = ours.reset(seed=seed)
        if None not in seed:
            assert_same_value(got, expected, f"reset(seed={seed})")
    mask = np.array([False, True, True])
    assert_same_value(
        ours.reset(seed=9, options={"reset_mask": mask.copy(), **options}),
        theirs.reset(seed=9, options={"reset_mask": mask.copy(), **options}),
        "masked reset",
    )
    if setup is not None:
        setup(ours, theirs)
    rng = np.random.default_rng(0)
    for t in range(50):
        actions = sample(rng, 3)
        assert_same_value(ours.step(actions), theirs.step(actions), f"step {t}")
    return ours


def setting(changes: dict[str, Any]) -> Callable[[Any], None]:
    """A ``setup`` for ``compare_single`` that sets the attributes ``changes`` on an unwrapped env."""

    def setup(env: Any) -> None:
        for name, value in changes.items():
            setattr(env, name, value)

    return setup
