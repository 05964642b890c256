"""Exact comparisons of nbgym's toy-text environments with gymnasium 1.4.0's, shared by their test files."""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np

import nbgym
from helpers.jit import INTERPRETED
from nbgym.envs._read_only import ReadOnlyDict, ReadOnlyList

Policy = Callable[[np.random.Generator, Any, dict], Any]
"""Chooses a single env's action from a generator, the last observation and info."""


def steps(count: int) -> int:
    """``count`` steps compiled, a fifth of them interpreted (``NUMBA_DISABLE_JIT=1``, where kernels run as Python)."""
    return count // 5 if INTERPRETED else count


_READ_ONLY_BASES = {ReadOnlyDict: dict, ReadOnlyList: list}


def assert_same_value(ours: Any, theirs: Any, where: str = "") -> None:
    """Equal values of the same type: arrays by dtype, shape and elements, containers element by element,
    dict keys in the same order."""
    our_type = _READ_ONLY_BASES.get(type(ours), type(ours))  # gymnasium's list or dict, refusing changes
    assert our_type is type(theirs), f"{where}: type {type(ours)} != {type(theirs)} ({ours!r} vs {theirs!r})"
    if isinstance(theirs, np.ndarray):
        assert ours.dtype == theirs.dtype, f"{where}: dtype {ours.dtype} != {theirs.dtype}"
        assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != {theirs.shape}"
        if theirs.dtype == object:
            for k, (a, b) in enumerate(zip(ours.ravel(), theirs.ravel())):
                assert_same_value(a, b, f"{where}[{k}]")
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), f"{where}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            assert_same_value(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), f"{where}: length {len(ours)} != {len(theirs)}"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_value(a, b, f"{where}[{k}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def uniform_policy(num_actions: int) -> Policy:
    """Uniformly random actions, alternately as ``np.int64`` and Python ``int``."""

    def policy(rng: np.random.Generator, obs: Any, info: dict) -> Any:
        action = rng.integers(0, num_actions)
        return action if rng.random() < 0.5 else int(action)

    return policy


def compare_single(
    env_id: str,
    kwargs: dict[str, Any],
    seeds: range,
    num_steps: int,
    policy: Policy,
    render: bool = True,
    bare: bool = False,
) -> list[tuple]:
    """Runs ``nbgym.make(env_id)`` and ``gymnasium.make(env_id)`` (or their bare classes) side by side.

    Every reset and step result (values and Python types, infos included) and, with ``render``, the ANSI
    text must be identical, and the random streams must end in the same state. Ended episodes are reset
    without a seed (continuing the stream); bare classes first take three more steps after the end.

    Returns:
        Every step as ``(observation before, step result)``, for the caller to check that the run
        covered what it meant to.
    """
    render_kwargs = {"render_mode": "ansi"} if render else {}
    results = []
    for seed in seeds:
        ours = nbgym.make(env_id, **render_kwargs, **kwargs)
        theirs = gymnasium.make(env_id, **render_kwargs, **kwargs)
        if bare:
            ours, theirs = ours.unwrapped, theirs.unwrapped
        else:
            assert str(ours) == str(theirs).replace("gymnasium", "nbgym")
        result = ours.reset(seed=seed)
        assert_same_value(result, theirs.reset(seed=seed), f"seed {seed} reset")
        obs, info = result
        rng = np.random.default_rng(seed)
        ended_for = 0
        for t in range(num_steps):
            if render:
                assert_same_value(ours.render(), theirs.render(), f"seed {seed} step {t} render")
            action = policy(rng, obs, info)
            result = ours.step(action)
            assert_same_value(result, theirs.step(action), f"seed {seed} step {t} action {action!r}")
            results.append((obs, result))
            obs, info = result[0], result[4]
            ended_for = ended_for + 1 if result[2] or result[3] else 0
            if ended_for > (3 if bare else 0):
                ended_for = 0
                result = ours.reset()
                assert_same_value(result, theirs.reset(), f"seed {seed} step {t} reset")
                obs, info = result
        assert ours.unwrapped.np_random.bit_generator.state == theirs.unwrapped.np_random.bit_generator.state
    return results


def compare_vector(
    env_id: str,
    kwargs: dict[str, Any],
    num_envs: int,
    mode: str,
    seed: int,
    num_steps: int,
    sample: Callable[[np.random.Generator, int, Any], np.ndarray],
    render: bool = False,
) -> list[tuple]:
    """Runs ``nbgym.make_vec(env_id)`` and gymnasium's sync vector env side by side in an autoreset mode.

    Observations, rewards, flags and infos (keys in order, dtypes, masks, ``final_obs``/``final_info``)
    must be identical. In ``Disabled`` mode, ended sub-environments are reset with a ``reset_mask``; in
    the other modes, a random half of the sub-environments is reset with a ``reset_mask`` from time to time.

    Returns:
        Every step result, for the caller to check that the run covered what it meant to.
    """
    render_kwargs = {"render_mode": "ansi"} if render else {}
    ours = nbgym.make_vec(env_id, num_envs, autoreset_mode=mode, **render_kwargs, **kwargs)
    theirs = gymnasium.make_vec(
        env_id, num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **render_kwargs, **kwargs
    )
    assert ours.metadata["autoreset_mode"].value == theirs.metadata["autoreset_mode"].value
    assert repr(ours.single_observation_space) == repr(theirs.single_observation_space)
    assert repr(ours.observation_space) == repr(theirs.observation_space)
    assert repr(ours.action_space) == repr(theirs.action_space)
    result = ours.reset(seed=seed)
    assert_same_value(result, theirs.reset(seed=seed), "reset")
    obs = result[0]
    rng = np.random.default_rng(seed)
    results = []
    for t in range(num_steps):
        if render:
            assert_same_value(ours.render(), theirs.render(), f"{mode} step {t} render")
        actions = sample(rng, num_envs, obs)
        result = ours.step(actions)
        assert_same_value(result, theirs.step(actions), f"{mode} step {t}")
        results.append(result)
        obs = result[0]
        mask = result[2] | result[3] if mode == "Disabled" else rng.random(num_envs) < 0.5
        if mask.any() and (mode == "Disabled" or t % 50 == 49):
            result = ours.reset(options={"reset_mask": mask.copy()})
            expected = theirs.reset(options={"reset_mask": mask.copy()})
            assert_same_value(result, expected, f"{mode} step {t} masked reset")
            obs = result[0]
    ours.close()
    theirs.close()
    return results


def discrete_actions(n: int) -> Callable[[np.random.Generator, int, Any], np.ndarray]:
    """A sampler of batches of uniformly random actions in ``Discrete(n)``."""
    return lambda rng, num_envs, obs: rng.integers(0, n, num_envs)


def assert_same_error(ours: Callable[[], Any], theirs: Callable[[], Any], same_message: bool = True) -> None:
    """Both calls raise the same exception type (nbgym's counterpart of a gymnasium error), and the same
    message unless ``same_message`` is false (where gymnasium's says nothing useful)."""
    try:
        theirs()
    except Exception as e:  # noqa: BLE001 - whatever gymnasium raises is the expectation
        expected = e
    else:
        raise AssertionError("gymnasium raised nothing")
    expected_type = type(expected)
    if isinstance(expected, gymnasium.error.Error):
        expected_type = getattr(nbgym.error, type(expected).__name__)
    try:
        ours()
    except expected_type as e:
        if same_message:
            assert str(e) == str(expected).replace("gymnasium", "nbgym"), (str(e), str(expected))
    else:
        raise AssertionError(f"nbgym did not raise {expected_type.__name__}")
