"""nbgym's array-conversion wrappers and functions against gymnasium 1.4.0's, with real torch and jax:
the same types, dtypes and values, and no copy where DLPack can share memory."""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium
import gymnasium.wrappers.jax_to_numpy
import gymnasium.wrappers.jax_to_torch
import gymnasium.wrappers.numpy_to_torch
import gymnasium.wrappers.vector
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nbgym
import nbgym.wrappers.jax_to_numpy
import nbgym.wrappers.jax_to_torch
import nbgym.wrappers.numpy_to_torch
import nbgym.wrappers.vector
from nbgym.wrappers.array_conversion import array_conversion

FUNCTIONS = ["numpy_to_torch", "torch_to_numpy"], ["jax_to_numpy", "numpy_to_jax"], ["jax_to_torch", "torch_to_jax"]
MODULES = {
    "numpy_to_torch": 0,
    "torch_to_numpy": 0,
    "jax_to_numpy": 1,
    "numpy_to_jax": 1,
    "jax_to_torch": 2,
    "torch_to_jax": 2,
}


def conversion_function(lib: Any, name: str) -> Any:
    module = ("numpy_to_torch", "jax_to_numpy", "jax_to_torch")[MODULES[name]]
    return (
        getattr(getattr(lib.wrappers, module), name)
        if lib is nbgym
        else getattr(getattr(gymnasium.wrappers, module), name)
    )


def described(value: Any) -> Any:
    """A comparable description: container types kept, each array as (framework, dtype, shape, bytes): bit for bit."""
    if isinstance(value, dict):
        return ("dict", [(key, described(item)) for key, item in value.items()])
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [described(item) for item in value])
    if isinstance(value, torch.Tensor):
        return ("torch", str(value.dtype), tuple(value.shape), value.numpy().tobytes())
    if isinstance(value, jax.Array):
        return ("jax", str(value.dtype), tuple(value.shape), np.asarray(value).tobytes())
    if isinstance(value, np.ndarray):
        return ("numpy", str(value.dtype), value.shape, value.tobytes())
    return (type(value).__name__, value)


DTYPES = st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])


@settings(max_examples=30, deadline=None)
@given(
    array=hnp.arrays(DTYPES, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)),
    number=st.one_of(st.integers(-1000, 1000), st.floats(-1e3, 1e3, allow_nan=False), st.booleans()),
    pair=st.sampled_from(FUNCTIONS),
)
def test_conversion_functions_match_gymnasium(array: np.ndarray, number: Any, pair: list[str]) -> None:
    # jax has no 64-bit types unless enabled: both libraries then narrow alike.
    value = {"obs": array, "extra": (number, [array[..., None]] if array.ndim else [array]), "none": None}
    forward, backward = pair if pair[0].startswith("numpy") else pair[::-1]
    if forward == "numpy_to_torch" or forward == "numpy_to_jax":
        ours = conversion_function(nbgym, forward)(value)
        theirs = conversion_function(gymnasium, forward)(value)
        assert described(ours) == described(theirs)
        assert described(conversion_function(nbgym, backward)(ours)) == described(
            conversion_function(gymnasium, backward)(theirs)
        )
    else:  # jax <-> torch: start from jax arrays
        start = gymnasium.wrappers.jax_to_numpy.numpy_to_jax(value)
        ours = conversion_function(nbgym, "jax_to_torch")(start)
        theirs = conversion_function(gymnasium, "jax_to_torch")(start)
        assert described(ours) == described(theirs)
        assert described(conversion_function(nbgym, "torch_to_jax")(ours)) == described(
            conversion_function(gymnasium, "torch_to_jax")(theirs)
        )


def test_numpy_and_torch_share_memory() -> None:
    array = np.arange(6.0).reshape(2, 3)
    tensor = nbgym.wrappers.numpy_to_torch.numpy_to_torch(array)
    tensor[0, 0] = 42.0
    assert array[0, 0] == 42.0
    back = nbgym.wrappers.numpy_to_torch.torch_to_numpy(tensor)
    assert np.shares_memory(back, array)
    readonly = np.arange(3.0)
    readonly.flags.writeable = False
    copied = nbgym.wrappers.numpy_to_torch.numpy_to_torch(readonly)  # torch cannot share a read-only array
    assert copied.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(Exception, match="No known conversion") as ours:
        array_conversion(object(), np)
    assert type(ours.value) is Exception
    with pytest.raises(ValueError, match="not an Array API compatible module"):
        nbgym.wrappers.ArrayConversion(nbgym.make("CartPole-v1"), env_xp=np, target_xp=pytest)


def run(env: Any, actions: list[Any], seed: int = 2) -> list[Any]:
    results = [env.reset(seed=seed)]
    for action in actions:
        result = env.step(action)
        results.append(result)
        if result[2] is True or result[3] is True:
            results.append(env.reset())
    return [described(result) for result in results]


# Not Taxi or FrozenLake: gymnasium's index their tables with the action, which a 0-d array cannot do.
@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1", "MountainCar-v0", "Blackjack-v1"])
def test_numpy_to_torch_matches_gymnasium(env_id: str) -> None:
    space = gymnasium.make(env_id).action_space
    space.seed(1)
    actions = [torch.as_tensor(np.asarray(space.sample())) for _ in range(60)]
    ours = nbgym.wrappers.NumpyToTorch(nbgym.make(env_id))
    theirs = gymnasium.wrappers.NumpyToTorch(gymnasium.make(env_id))
    assert run(ours, actions) == run(theirs, actions)


def test_jax_wrappers_match_gymnasium() -> None:
    """A numpy environment presented as a JAX one, then JaxToNumpy / JaxToTorch over it, as gymnasium's."""
    actions = [i % 2 for i in range(80)]
    for lib in (nbgym, gymnasium):
        as_jax = lib.wrappers.ArrayConversion(lib.make("CartPole-v1"), env_xp=np, target_xp=jnp)
        assert isinstance(as_jax.reset(seed=0)[0], jax.Array)
    ours = nbgym.wrappers.JaxToNumpy(
        nbgym.wrappers.ArrayConversion(nbgym.make("CartPole-v1"), env_xp=np, target_xp=jnp)
    )
    theirs = gymnasium.wrappers.JaxToNumpy(
        gymnasium.wrappers.ArrayConversion(gymnasium.make("CartPole-v1"), env_xp=np, target_xp=jnp)
    )
    assert run(ours, [jnp.asarray(a) for a in actions]) == run(theirs, [jnp.asarray(a) for a in actions])
    ours = nbgym.wrappers.JaxToTorch(
        nbgym.wrappers.ArrayConversion(nbgym.make("CartPole-v1"), env_xp=np, target_xp=jnp)
    )
    theirs = gymnasium.wrappers.JaxToTorch(
        gymnasium.wrappers.ArrayConversion(gymnasium.make("CartPole-v1"), env_xp=np, target_xp=jnp)
    )
    assert run(ours, [torch.tensor(a) for a in actions]) == run(theirs, [torch.tensor(a) for a in actions])


def vector_run(envs: Any, actions: list[Any]) -> list[Any]:
    return [described(envs.reset(seed=3))] + [described(envs.step(action)) for action in actions]


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_wrappers_match_gymnasium(mode: str) -> None:
    rng = np.random.default_rng(0)
    actions = [torch.as_tensor(rng.integers(0, 2, 3)) for _ in range(60)]
    ours = nbgym.wrappers.vector.NumpyToTorch(nbgym.make_vec("CartPole-v1", 3, autoreset_mode=mode))
    theirs = gymnasium.wrappers.vector.NumpyToTorch(
        gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
    )
    if mode == "SameStep":  # final_obs is an object array: neither library converts it; compare the rest
        ours = nbgym.wrappers.vector.NumpyToTorch(
            nbgym.wrappers.vector.DictInfoToList(nbgym.make_vec("CartPole-v1", 3, autoreset_mode=mode))
        )
        theirs = gymnasium.wrappers.vector.NumpyToTorch(
            gymnasium.wrappers.vector.DictInfoToList(
                gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode})
            )
        )
    assert vector_run(ours, actions) == vector_run(theirs, actions)
    jax_actions = [jnp.asarray(action.numpy()) for action in actions[:20]]
    ours = nbgym.wrappers.vector.JaxToNumpy(
        nbgym.wrappers.vector.ArrayConversion(nbgym.make_vec("CartPole-v1", 3), np, jnp)
    )
    theirs = gymnasium.wrappers.vector.JaxToNumpy(
        gymnasium.wrappers.vector.ArrayConversion(
            gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync"), np, jnp
        )
    )
    assert vector_run(ours, jax_actions) == vector_run(theirs, jax_actions)
    ours = nbgym.wrappers.vector.JaxToTorch(
        nbgym.wrappers.vector.ArrayConversion(nbgym.make_vec("CartPole-v1", 3), np, jnp)
    )
    theirs = gymnasium.wrappers.vector.JaxToTorch(
        gymnasium.wrappers.vector.ArrayConversion(
            gymnasium.make_vec("CartPole-v1", 3, vectorization_mode="sync"), np, jnp
        )
    )
    assert vector_run(ours, actions[:20]) == vector_run(theirs, actions[:20])


def test_vector_tensors_share_the_batch_and_wrappers_pickle() -> None:
    envs = nbgym.wrappers.vector.NumpyToTorch(nbgym.make_vec("CartPole-v1", 4, copy=False))
    obs, _ = envs.reset(seed=0)
    assert np.shares_memory(obs.numpy(), envs.env._batch.obs)
    env = pickle.loads(pickle.dumps(nbgym.wrappers.NumpyToTorch(nbgym.make("CartPole-v1"))))
    assert isinstance(env.reset(seed=1)[0], torch.Tensor) and env.device is None
    wrapped = pickle.loads(
        pickle.dumps(nbgym.wrappers.vector.ArrayConversion(nbgym.make_vec("CartPole-v1", 2), np, jnp))
    )
    assert isinstance(wrapped.reset(seed=1)[0], jax.Array)
