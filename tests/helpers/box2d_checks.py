"""Comparisons of nbgym's Box2D environments with gymnasium 1.4.0's, shared by their test files."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import gymnasium
import gymnasium.utils.env_checker
import numpy as np
import pytest
from helpers.toy_text_checks import assert_same_value

import nbgym
from nbgym.utils.env_checker import check_env


def compare_frames(
    env_id: str,
    policy: Callable[[np.random.Generator, np.ndarray], Any],
    seed: int,
    steps: int,
    every: int,
    kwargs: dict[str, Any] | None = None,
    edit: Callable[[int, Any], None] | None = None,
) -> int:
    """Steps ``rgb_array`` envs of nbgym and gymnasium side by side and compares every ``every``-th frame.

    The results of every step must be identical too (rendering must not change the game). Ended
    episodes are reset without a seed. ``edit(t, env)``, if given, is applied to both envs before step ``t``'s
    frame (the same change of an attribute, say).

    Returns:
        The number of frames compared.
    """
    kwargs = {"render_mode": "rgb_array", **(kwargs or {})}
    ours, theirs = nbgym.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    expected = theirs.reset(seed=seed)
    assert_same_value(ours.reset(seed=seed), expected, "reset")
    observation = expected[0]
    rng = np.random.default_rng(seed)
    frames = 0
    for t in range(steps):
        if edit is not None:
            edit(t, ours)
            edit(t, theirs)
        if t % every == 0:
            assert_same_value(ours.render(), theirs.render(), f"frame {t}")
            frames += 1
        action = policy(rng, observation)
        expected = theirs.step(action)
        assert_same_value(ours.step(action), expected, f"step {t}")
        observation = expected[0]
        if expected[2] or expected[3]:
            expected = theirs.reset()
            assert_same_value(ours.reset(), expected, f"step {t} reset")
            observation = expected[0]
    ours.close()
    theirs.close()
    return frames


def assert_checked(env_id: str, **kwargs: Any) -> None:
    """nbgym's ``check_env`` passes on the bare environment (rendering included), as gymnasium's does."""
    with warnings.catch_warnings():
        # Both checkers warn about the Box2D envs' unbounded or unnormalised spaces; that is gymnasium's too.
        warnings.simplefilter("ignore")
        gymnasium.utils.env_checker.check_env(gymnasium.make(env_id, render_mode="rgb_array", **kwargs).unwrapped)
        check_env(nbgym.make(env_id, render_mode="rgb_array", **kwargs).unwrapped)


def raises_as_gymnasium(env_id: str, action: Any, expected: type[BaseException], **kwargs: Any) -> BaseException:
    """Stepping ``action`` raises ``expected`` in gymnasium's env and in nbgym's; returns nbgym's exception.

    nbgym raises before the world moves: a correct action afterwards gives gymnasium's next result.
    """
    theirs = gymnasium.make(env_id, **kwargs)
    theirs.reset(seed=0)
    with pytest.raises(expected):
        theirs.step(action)
    ours, fresh = nbgym.make(env_id, **kwargs), gymnasium.make(env_id, **kwargs)
    ours.reset(seed=0)
    fresh.reset(seed=0)
    with pytest.raises(expected) as caught:
        ours.step(action)
    good = fresh.action_space.sample()
    assert_same_value(ours.step(good), fresh.step(good), "the step after the refused action")
    return caught.value


def assert_registered_as_gymnasium(env_id: str) -> None:
    """The spec (steps, threshold, kwargs) and the spaces (bounds to the sign of zero) are gymnasium's."""
    ours, theirs = nbgym.spec(env_id), gymnasium.spec(env_id)
    assert (ours.max_episode_steps, ours.reward_threshold, ours.kwargs) == (
        theirs.max_episode_steps,
        theirs.reward_threshold,
        theirs.kwargs,
    )
    ours_env, theirs_env = nbgym.make(env_id), gymnasium.make(env_id)
    for ours_space, theirs_space in [
        (ours_env.observation_space, theirs_env.observation_space),
        (ours_env.action_space, theirs_env.action_space),
    ]:
        assert str(ours_space) == str(theirs_space)
        if hasattr(theirs_space, "low"):
            for bound in ("low", "high"):
                ours_bound, theirs_bound = getattr(ours_space, bound), getattr(theirs_space, bound)
                assert ours_bound.dtype == theirs_bound.dtype
                np.testing.assert_array_equal(ours_bound, theirs_bound)
                np.testing.assert_array_equal(np.signbit(ours_bound), np.signbit(theirs_bound))


def assert_every_window_update_is_gymnasiums(
    monkeypatch: pytest.MonkeyPatch, env_id: str, actions: list[Any], updates: int
) -> None:
    """Each window update of "human" mode is gymnasium's, the two of each reset included (the bodies as created,
    before the reset's idle step, then after it): a reset (seed 3), ``actions``, and another reset (seed 4)."""
    import pygame

    shown: list[np.ndarray] = []
    flip = pygame.display.flip

    def recorded_flip() -> None:
        flip()
        shown.append(pygame.surfarray.array3d(pygame.display.get_surface()))

    monkeypatch.setattr(pygame.display, "flip", recorded_flip)
    windows = {}
    for library in (gymnasium, nbgym):
        env = library.make(env_id, render_mode="human")
        env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}
        shown.clear()
        env.reset(seed=3)
        for action in actions:
            env.step(action)
        env.reset(seed=4)
        windows[library] = list(shown)
        env.close()
    assert len(windows[nbgym]) == updates
    assert_same_value(windows[nbgym], windows[gymnasium], "windows")


def assert_human_mode_shows_the_frames(env_id: str, steps: int) -> None:
    """ "human" mode: reset and every step draw into the window what gymnasium's env draws into its own;
    ``render()`` returns None; ``close()`` shuts the window."""
    import pygame

    windows = {}
    for library in (gymnasium, nbgym):
        env = library.make(env_id, render_mode="human")
        env.unwrapped.metadata = {**env.unwrapped.metadata, "render_fps": 1000}  # keep the test fast
        env.reset(seed=1)
        env.action_space.seed(1)
        windows[library] = []
        for _ in range(steps):
            env.step(env.action_space.sample())
            windows[library].append(pygame.surfarray.array3d(pygame.display.get_surface()))
        assert env.render() is None
        env.close()
        assert not pygame.display.get_init()
    assert_same_value(windows[nbgym], windows[gymnasium], "windows")
