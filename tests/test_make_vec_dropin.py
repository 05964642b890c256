"""make_vec with ``wrappers``, ``vector_kwargs`` and ``render_mode="rgb_array_list"``, and render modes a
directly constructed environment does not list: for every id, what gymnasium 1.4.0 does.

gymnasium vectorizes every built-in id but CartPole's with its ``SyncVectorEnv``, so these arguments
apply to each sub-environment; nbgym's compiled vector environments stand in for that sync env and make
way for nbgym's ``SyncVectorEnv`` then. CartPole has gymnasium's own vector environment, which refuses
wrappers and ``vector_kwargs`` (and so does nbgym's).
"""

from __future__ import annotations

import gc
import re
import sys

import gymnasium
import numpy as np
import pytest

import nbgym
from nbgym import error

IDS = [
    "CartPole-v1",
    "MountainCar-v0",
    "MountainCarContinuous-v0",
    "Pendulum-v1",
    "Acrobot-v1",
    "Blackjack-v1",
    "FrozenLake-v1",
    "FrozenLake8x8-v1",
    "CliffWalking-v1",
    "CliffWalkingSlippery-v1",
    "Taxi-v4",
]
# Pendulum draws its own arrow image (see test_rendering), the toy-text envs their own sprites.
PIXEL_IDENTICAL = {"CartPole-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Acrobot-v1"}


def assert_same(ours, theirs, where: str) -> None:
    """Exact equality of nested step results: same types, dtypes and values (NaN equal to NaN)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), f"{where}: keys {ours} != {theirs}"
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours!r} != {theirs!r}"
        for index, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{index}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype and ours.shape == theirs.shape, where
        if theirs.dtype == object:
            for index in np.ndindex(theirs.shape):
                assert_same(ours[index], theirs[index], f"{where}{list(index)}")
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    else:
        assert type(ours) is type(theirs) and (ours == theirs or (ours != ours and theirs != theirs)), (
            f"{where}: {ours!r} != {theirs!r}"
        )


def assert_same_rollout(ours, theirs, steps: int, seed: int) -> None:
    """Same seeds and actions: identical resets and steps."""
    assert_same(ours.reset(seed=seed), theirs.reset(seed=seed), "reset")
    theirs.action_space.seed(seed)
    for t in range(steps):
        actions = theirs.action_space.sample()
        assert_same(ours.step(actions), theirs.step(actions), f"step {t}")


def double_reward(library):
    """A wrapper constructor of ``library`` (nbgym or gymnasium) that doubles each sub-environment's reward."""
    return lambda env: library.wrappers.TransformReward(env, lambda reward: 2 * reward)


@pytest.mark.parametrize("env_id", IDS)
def test_wrappers_apply_to_each_sub_environment_as_gymnasium(env_id):
    """Sync (with the wrappers around each sub-environment) where gymnasium is, its error where it refuses."""
    try:
        theirs = gymnasium.make_vec(env_id, 3, wrappers=[double_reward(gymnasium)])
    except gymnasium.error.Error as their_error:
        assert env_id.startswith("CartPole")
        message = re.escape(str(their_error).split("(")[0])
        with pytest.raises(error.Error, match=message):
            nbgym.make_vec(env_id, 3, wrappers=[double_reward(nbgym)])
        return
    ours = nbgym.make_vec(env_id, 3, wrappers=[double_reward(nbgym)])
    assert type(ours).__name__ == type(theirs).__name__ == "SyncVectorEnv"
    assert all(isinstance(sub_env, nbgym.wrappers.TransformReward) for sub_env in ours.envs)
    assert ours.spec.kwargs["vectorization_mode"] == theirs.spec.kwargs["vectorization_mode"] == "sync"
    assert_same_rollout(ours, theirs, steps=40, seed=7)
    # The spec records the wrappers: making it again gives the same kind of vector env.
    again = nbgym.make_vec(ours.spec)
    assert type(again) is type(ours) and isinstance(again.envs[0], nbgym.wrappers.TransformReward)
    for env in (ours, theirs, again):
        env.close()


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("vector_kwargs", [{"autoreset_mode": "SameStep"}, {"copy": False}])
def test_vector_kwargs_configure_the_sync_env_as_gymnasium(env_id, vector_kwargs):
    try:
        theirs = gymnasium.make_vec(env_id, 3, vector_kwargs=vector_kwargs)
    except gymnasium.error.Error as their_error:
        assert env_id.startswith("CartPole")
        with pytest.raises(error.Error, match=re.escape(str(their_error))):
            nbgym.make_vec(env_id, 3, vector_kwargs=vector_kwargs)
        return
    ours = nbgym.make_vec(env_id, 3, vector_kwargs=vector_kwargs)
    assert type(ours).__name__ == type(theirs).__name__ == "SyncVectorEnv"
    assert ours.metadata["autoreset_mode"].value == theirs.metadata["autoreset_mode"].value
    assert ours.copy == theirs.copy
    assert_same_rollout(ours, theirs, steps=40, seed=3)
    ours.close()
    theirs.close()


def test_explicit_vector_entry_point_mode_still_refuses_wrappers():
    """Only the default mode falls back to sync; asking for the vector entry point refuses, as in gymnasium."""
    with pytest.raises(error.Error, match="Cannot use `vector_entry_point` vectorization mode with the wrappers"):
        nbgym.make_vec("Pendulum-v1", 2, vectorization_mode="vector_entry_point", wrappers=[double_reward(nbgym)])


def test_without_those_arguments_the_compiled_vector_env_is_used():
    env = nbgym.make_vec("Pendulum-v1", 2, render_mode="rgb_array")
    assert type(env).__name__ == "PendulumVectorEnv"
    env.close()


@pytest.mark.parametrize("env_id", ["Pendulum-v1", "Taxi-v4", "CartPole-v1"])
def test_disable_env_checker_is_taken_where_gymnasium_makes_sync_sub_environments(env_id):
    """``make``'s ``disable_env_checker`` reaches each sub-environment's ``make`` in gymnasium's sync vector env, which
    the compiled vector env stands in for: taken (it has no checker), kept in the spec. CartPole's vector entry point
    refuses it in both libraries."""
    try:
        theirs = gymnasium.make_vec(env_id, 2, disable_env_checker=True)
    except TypeError as refused:
        with pytest.raises(TypeError, match="unexpected keyword argument 'disable_env_checker'"):
            nbgym.make_vec(env_id, 2, disable_env_checker=True)
        assert env_id == "CartPole-v1", refused
        return
    ours = nbgym.make_vec(env_id, 2, disable_env_checker=True)
    assert ours.spec.kwargs["disable_env_checker"] is theirs.spec.kwargs["disable_env_checker"] is True
    np.testing.assert_array_equal(ours.reset(seed=1)[0], theirs.reset(seed=1)[0])


def first_truncation(env, steps):
    """The step at which sub-environment 0 first truncates (``None``: not within ``steps``), under action 0, which
    never reaches MountainCar's or Acrobot's goal."""
    env.reset(seed=0)
    for t in range(steps):
        _, _, terminated, truncated, _ = env.step(np.zeros(env.num_envs, dtype=np.int64))
        assert not terminated[0]
        if truncated[0]:
            return t + 1
    return None


def made_or_refused(make_vec, *args, **kwargs):
    """What a user sees of ``make_vec(*args, **kwargs)``: the first truncation, or the refusal's type and message."""
    try:
        env = make_vec(*args, **kwargs)
    except (TypeError, ValueError) as refused:
        return type(refused).__name__, str(refused)
    return first_truncation(env, 260)


@pytest.mark.parametrize("max_episode_steps", [None, -1, -1.0, 0, 1, 7, 2.5, True, np.int64(5), "7"])
def test_time_limits_are_those_make_gives_gymnasiums_sync_sub_environments(max_episode_steps):
    """``make_vec``'s ``max_episode_steps`` where the compiled vector env stands in for gymnasium's sync one is
    ``make``'s for each sub-environment: ``None`` keeps the registered limit, -1 has none, and ``TimeLimit``'s
    refusals (0, 2.5, a numpy int) are raised. The compiled env had no limit for None and 0, refused -1, and took a
    numpy int."""
    ours = made_or_refused(nbgym.make_vec, "MountainCar-v0", 2, max_episode_steps=max_episode_steps)
    theirs = made_or_refused(gymnasium.make_vec, "MountainCar-v0", 2, max_episode_steps=max_episode_steps)
    assert ours == theirs


def test_a_spec_without_a_time_limit_makes_a_vector_env_without_one():
    """``make_vec(spec)`` of a spec whose ``max_episode_steps`` is ``None`` has no time limit, as gymnasium's sync
    sub-environments made from it (the compiled env took the registered one)."""
    ours = nbgym.make_vec(nbgym.make("Acrobot-v1", max_episode_steps=-1).spec, 2)
    theirs = gymnasium.make_vec(gymnasium.make("Acrobot-v1", max_episode_steps=-1).spec, 2)
    assert first_truncation(ours, 520) is first_truncation(theirs, 520) is None


def test_a_spec_with_additional_wrappers_makes_a_sync_env_of_wrapped_envs():
    """The spec of a wrapped env (``ClipReward``) vectorizes into a sync env whose sub-environments are wrapped, as in
    gymnasium (the vector entry point refused it)."""
    ours = nbgym.make_vec(nbgym.wrappers.ClipReward(nbgym.make("MountainCar-v0"), -0.5, 0.5).spec, 2)
    theirs = gymnasium.make_vec(gymnasium.wrappers.ClipReward(gymnasium.make("MountainCar-v0"), -0.5, 0.5).spec, 2)
    assert type(ours).__name__ == type(theirs).__name__ == "SyncVectorEnv"
    assert_same_rollout(ours, theirs, steps=5, seed=3)


def test_an_unknown_keyword_argument_is_refused_naming_the_class_and_the_id():
    expected = (
        "MountainCarVectorEnv.__init__() got an unexpected keyword argument 'foo' was raised from the environment "
        "creator for MountainCar-v0 with kwargs ({'foo': 1})"
    )
    with pytest.raises(TypeError, match=re.escape(expected)):
        nbgym.make_vec("MountainCar-v0", 2, foo=1)
    with pytest.raises(TypeError, match=re.escape("CartPoleVectorEnv.__init__() got an unexpected keyword argument")):
        nbgym.make_vec("CartPole-v1", 2, foo=1)


def test_a_mujoco_vector_env_that_fails_to_build_closes_quietly():
    """Its ``__del__`` closed a renderer it never had: 'Exception ignored ... no attribute _mujoco_renderer'."""
    pytest.importorskip("mujoco")
    unraisable = []
    hook, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        with pytest.raises(TypeError):
            nbgym.make_vec("InvertedPendulum-v5", 2, ctrl_cost_weight=0.1)
        gc.collect()
    finally:
        sys.unraisablehook = hook
    assert unraisable == []


@pytest.mark.parametrize("env_id", IDS)
def test_make_vec_rgb_array_list_is_gymnasiums(env_id):
    """CartPole: gymnasium's own vector env draws a list of the current frames; every other id: a sync env
    whose sub-environments collect their frames (a tuple of lists), emptied by each render()."""
    ours = nbgym.make_vec(env_id, 2, render_mode="rgb_array_list")
    theirs = gymnasium.make_vec(env_id, 2, render_mode="rgb_array_list")
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.render_mode == theirs.render_mode
    # gymnasium's CartPoleVectorEnv steps in float32, not as its sync env (which nbgym's reproduces): its
    # frames are compared with those of gymnasium's sync env in the same states.
    their_states = gymnasium.make_vec(env_id, 2, vectorization_mode="sync", render_mode="rgb_array")
    for env in (ours, theirs, their_states):
        env.reset(seed=5)
    theirs.action_space.seed(5)
    for t in range(4):
        actions = theirs.action_space.sample()
        for env in (ours, theirs, their_states):
            env.step(actions)
        frames, their_frames = ours.render(), theirs.render()
        if env_id.startswith("CartPole"):
            assert type(frames) is type(their_frames) is list
            their_frames = list(their_states.render())
        assert type(frames) is type(their_frames) and len(frames) == len(their_frames) == 2
        flat = frames if isinstance(frames, list) else [frame for env_frames in frames for frame in env_frames]
        their_flat = their_frames if isinstance(their_frames, list) else [f for fs in their_frames for f in fs]
        if isinstance(frames, tuple):
            assert [len(env_frames) for env_frames in frames] == [len(env_frames) for env_frames in their_frames]
        assert len(flat) == len(their_flat) > 0
        for frame, their_frame in zip(flat, their_flat):
            assert frame.shape == their_frame.shape and frame.dtype == their_frame.dtype
            if env_id in PIXEL_IDENTICAL:
                np.testing.assert_array_equal(frame, their_frame, err_msg=f"{env_id} step {t}")
    for env in (ours, theirs, their_states):
        env.close()


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("mode", ["rgb_array_list", "unlisted"])
def test_directly_constructed_env_in_an_unlisted_mode_is_gymnasiums(env_id, mode):
    """A render mode the class does not list (make() would add RenderCollection for "rgb_array_list"): each
    environment returns None, its rgb_array frame, or raises AssertionError, as gymnasium's does."""
    spec = nbgym.spec(env_id)
    ours = nbgym.registration.load_env_creator(spec.entry_point)(**spec.kwargs, render_mode=mode)
    theirs = gymnasium.envs.registration.load_env_creator(gymnasium.spec(env_id).entry_point)(
        **spec.kwargs, render_mode=mode
    )
    ours.reset(seed=1)
    theirs.reset(seed=1)
    try:
        their_frame = theirs.render()
    except AssertionError:
        with pytest.raises(AssertionError, match=f"cannot render in render_mode='{mode}'.*RenderCollection"):
            ours.render()
        return
    frame = ours.render()
    if their_frame is None:
        assert frame is None
    else:
        assert frame.shape == their_frame.shape and frame.dtype == their_frame.dtype
        if env_id in PIXEL_IDENTICAL:
            np.testing.assert_array_equal(frame, their_frame)
    ours.close()
    theirs.close()


@pytest.mark.parametrize(
    ("env_id", "render_mode", "parameter"), [("Pendulum-v1", "rgb_array", "g"), ("Taxi-v4", "ansi", None)]
)
def test_call_and_get_attr_of_sub_environment_basics_are_gymnasiums(env_id, render_mode, parameter):
    """``call`` (``"render"``, ``"get_wrapper_attr"``, a parameter) and ``get_attr`` of ``render_mode`` and the spaces
    on the compiled vector env give what gymnasium's sync env gives (``call`` did not exist; the others raised)."""
    ours = nbgym.make_vec(env_id, 2, render_mode=render_mode)
    theirs = gymnasium.make_vec(env_id, 2, render_mode=render_mode, vectorization_mode="sync")
    ours.reset(seed=1)
    theirs.reset(seed=1)
    for got, expected in zip(ours.call("render"), theirs.call("render")):
        np.testing.assert_array_equal(got, expected)
    assert ours.get_attr("render_mode") == theirs.get_attr("render_mode") == (render_mode,) * 2
    for name in ("observation_space", "action_space"):
        assert [repr(space) for space in ours.get_attr(name)] == [repr(space) for space in theirs.get_attr(name)]
    if parameter is not None:
        assert ours.call("get_wrapper_attr", parameter) == theirs.call("get_wrapper_attr", parameter)
        assert ours.call(parameter) == theirs.call(parameter)
    with pytest.raises(AttributeError):
        ours.call("no_such_attribute")


SPEC_FIELDS = (
    "id",
    "reward_threshold",
    "nondeterministic",
    "max_episode_steps",
    "order_enforce",
    "disable_env_checker",
)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("Pendulum-v1", {"g": 9.0}),
        ("MountainCar-v0", {"max_episode_steps": 50, "disable_env_checker": True, "num_threads": 1}),
        ("Taxi-v4", {"max_episode_steps": None, "autoreset_mode": "SameStep"}),
        ("Acrobot-v1", {"max_episode_steps": -1}),
        ("Hopper-v5", {"frame_skip": 2}),
    ],
)
def test_get_attr_spec_and_metadata_are_the_sub_environments_of_gymnasiums_sync_env(env_id, kwargs):
    """Each sub-environment's ``spec`` (the env's keyword arguments, ``make``'s time limit and checker flag) and
    ``metadata`` (every render mode of the env, no ``autoreset_mode``), as ``make`` gives them to gymnasium's sync
    sub-environments (both raised AttributeError)."""
    if env_id.startswith("Hopper"):
        pytest.importorskip("mujoco")
    ours = nbgym.make_vec(env_id, 2, **kwargs)
    vector_kwargs = {"autoreset_mode": kwargs["autoreset_mode"]} if "autoreset_mode" in kwargs else {}
    their_kwargs = {key: value for key, value in kwargs.items() if key not in ("num_threads", "autoreset_mode")}
    theirs = gymnasium.make_vec(env_id, 2, vectorization_mode="sync", vector_kwargs=vector_kwargs, **their_kwargs)
    our_specs, their_specs = ours.get_attr("spec"), theirs.get_attr("spec")
    assert len(our_specs) == 2 and our_specs[0] is not our_specs[1]
    for ours_spec, their_spec in zip(our_specs, their_specs):
        assert [getattr(ours_spec, name) for name in SPEC_FIELDS] == [getattr(their_spec, name) for name in SPEC_FIELDS]
        assert ours_spec.kwargs == their_spec.kwargs
    assert ours.get_attr("metadata") == theirs.get_attr("metadata")
    assert nbgym.make(our_specs[0]).unwrapped.spec.kwargs == their_specs[0].kwargs  # makes the sub-environment


def test_a_vector_env_made_without_make_vec_has_no_sub_environment_spec():
    from nbgym.envs.classic_control.pendulum import PendulumVectorEnv

    assert PendulumVectorEnv(2).get_attr("spec") == (None, None)


def test_envs_of_a_compiled_vector_env_says_what_to_use():
    envs = nbgym.make_vec("Pendulum-v1", 2)
    assert not hasattr(envs, "envs")
    with pytest.raises(AttributeError, match="get_attr/set_attr/call .* vectorization_mode='sync'"):
        envs.envs  # noqa: B018 - the refusal is the point


@pytest.mark.parametrize("num_threads", [1, 2])
def test_an_assigned_max_episode_steps_limits_the_next_steps(num_threads):
    """``envs.max_episode_steps = 3`` was silently ignored (the kernels kept the limit they were bound with)."""
    envs = nbgym.make_vec("MountainCar-v0", 512, num_threads=num_threads)
    envs.reset(seed=0)
    envs.max_episode_steps = 3
    for t in range(3):
        truncated = envs.step(np.zeros(512, dtype=np.int64))[3]
        assert truncated.all() == (t == 2)
    with pytest.raises(ValueError, match="max_episode_steps must be a non-negative int or None"):
        envs.max_episode_steps = 2.5


def test_autoreset_mode_and_batch_size_are_not_taken_silently():
    envs = nbgym.make_vec("MountainCar-v0", 4)
    with pytest.raises(AttributeError, match=re.escape("make_vec(..., autoreset_mode='SameStep')")):
        envs.autoreset_mode = "SameStep"
    assert envs.autoreset_mode is envs.metadata["autoreset_mode"]
    with pytest.raises(ValueError, match="does not divide num_envs=4"):
        envs.batch_size = 3
    envs.batch_size = 2  # the next async run's
    envs.async_reset(seed=0)
    assert len(envs.recv()[0]) == 2


def test_time_limit_attributes_are_gymnasiums_sync_sub_environments():
    """gymnasium's sub-environments' ``TimeLimit._max_episode_steps`` and ``_elapsed_steps`` through
    ``get_attr``/``set_attr`` (refused before): read and written, with gymnasium's truncations after."""
    seen = []
    for library in (nbgym, gymnasium):
        envs = library.make_vec("MountainCar-v0", 2, vectorization_mode="sync" if library is gymnasium else None)
        record = [envs.get_attr("_max_episode_steps"), envs.get_attr("_elapsed_steps")]
        envs.reset(seed=0)
        for _ in range(4):
            envs.step(np.zeros(2, dtype=np.int64))
        record.append(envs.get_attr("_elapsed_steps"))
        envs.set_attr("_elapsed_steps", [195, 0])
        record.append([t for t in range(8) if envs.step(np.zeros(2, dtype=np.int64))[3][0]])
        envs.set_attr("_max_episode_steps", 3)
        record.append([t for t in range(4) if envs.step(np.zeros(2, dtype=np.int64))[3][1]])
        record += [envs.get_attr("_elapsed_steps"), envs.get_attr("_max_episode_steps")]
        seen.append(record)
    assert seen[0] == seen[1]


def test_a_shared_array_parameter_is_read_only_per_sub_environment():
    """gymnasium's sub-environments each have their own ``init_qpos``: one changed in place through ``get_attr``
    changed every compiled sub-environment's. ``set_attr`` takes one array per sub-environment when they are equal
    (it raised numpy's 'truth value of an array is ambiguous')."""
    pytest.importorskip("mujoco")
    envs = nbgym.make_vec("Hopper-v5", 2)
    first, second = envs.get_attr("init_qpos")
    assert first is not second
    with pytest.raises(ValueError, match="read-only"):
        first[1] = 1.5
    changed = envs.init_qpos.copy()
    changed[1] = 1.35
    envs.set_attr("init_qpos", [changed, changed.copy()])
    np.testing.assert_array_equal(envs.init_qpos, changed)
    other = changed.copy()
    other[1] = 1.25
    with pytest.raises(ValueError, match="init_qpos is shared by all sub-environments"):
        envs.set_attr("init_qpos", [changed, other])


def test_set_attr_np_random_says_why_it_is_refused():
    envs = nbgym.make_vec("Pendulum-v1", 2)
    with pytest.raises(AttributeError, match=re.escape("seed them with reset(seed=...)")):
        envs.set_attr("np_random", [np.random.default_rng(1), np.random.default_rng(2)])
