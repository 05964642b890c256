"""Exact comparisons of nbgym's toy-text environments with gymnasium 1.4.0's, shared by their test files."""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np

import nbgym

MODES = ("NextStep", "SameStep", "Disabled")


def assert_same_value(ours: Any, theirs: Any, where: str = "") -> None:
    """Equal values of the same type: arrays by dtype, shape and elements, containers element by element."""
    assert type(ours) is type(theirs), f"{where}: type {type(ours)} != {type(theirs)} ({ours!r} vs {theirs!r})"
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


def compare_single(
    env_id: str,
    kwargs: dict[str, Any],
    seeds: range,
    steps: int,
    num_actions: int,
    render: bool = True,
    bare: bool = False,
) -> None:
    """Runs ``nbgym.make(env_id)`` and ``gymnasium.make(env_id)`` (or their bare classes) side by side.

    Every reset and step result (values and Python types, infos included) and, with ``render``, the ANSI
    text must be identical; episodes that end are reset without a seed, continuing the stream.
    """
    render_kwargs = {"render_mode": "ansi"} if render else {}
    for seed in seeds:
        ours = nbgym.make(env_id, **render_kwargs, **kwargs)
        theirs = gymnasium.make(env_id, **render_kwargs, **kwargs)
        if bare:
            ours, theirs = ours.unwrapped, theirs.unwrapped
        assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed), f"seed {seed} reset")
        if render:
            assert ours.render() == theirs.render()
        actions = np.random.default_rng(seed).integers(0, num_actions, steps)
        for t, action in enumerate(actions):
            action = int(action) if t % 2 else action
            result = ours.step(action)
            assert_same_value(result, theirs.step(action), f"seed {seed} step {t}")
            if render:
                assert ours.render() == theirs.render(), f"seed {seed} step {t}"
            if result[2] or result[3]:
                assert_same_value(ours.reset(), theirs.reset(), f"seed {seed} step {t} reset")
        assert ours.unwrapped.np_random.bit_generator.state == theirs.unwrapped.np_random.bit_generator.state


def compare_vector(
    env_id: str,
    kwargs: dict[str, Any],
    num_envs: int,
    mode: str,
    seed: int,
    steps: int,
    sample: Callable[[np.random.Generator, int], np.ndarray],
) -> None:
    """Runs ``nbgym.make_vec(env_id)`` and gymnasium's sync vector env side by side in an autoreset mode.

    Observations, rewards, flags and infos (keys in order, dtypes, masks, ``final_obs``/``final_info``)
    must be identical. In ``Disabled`` mode, ended sub-environments are reset with a ``reset_mask``.
    """
    ours = nbgym.make_vec(env_id, num_envs, autoreset_mode=mode, **kwargs)
    theirs = gymnasium.make_vec(
        env_id, num_envs, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}, **kwargs
    )
    assert ours.metadata["autoreset_mode"].value == theirs.metadata["autoreset_mode"].value
    assert_same_value(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    action_rng = np.random.default_rng(seed)
    for t in range(steps):
        actions = sample(action_rng, num_envs)
        result = ours.step(actions)
        assert_same_value(result, theirs.step(actions), f"{mode} step {t}")
        ended = result[2] | result[3]
        if mode == "Disabled" and ended.any():
            options = {"reset_mask": ended}
            assert_same_value(
                ours.reset(options=dict(options)), theirs.reset(options=dict(options)), f"{mode} step {t} masked reset"
            )
    ours.close()
    theirs.close()


def discrete_actions(n: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A sampler of batches of actions in ``Discrete(n)``."""
    return lambda rng, num_envs: rng.integers(0, n, num_envs)
