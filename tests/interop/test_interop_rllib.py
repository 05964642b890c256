"""nbgym.interop.rllib without Ray: the id strings a Ray worker makes envs from, and the errors naming a
registration the workers would miss (tests/interop/test_ray.py runs them under RLlib)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import gymnasium
import pytest

import nbgym
from nbgym import error
from nbgym.interop.rllib import PREFIX, env_id


@pytest.mark.parametrize("given", ["CartPole-v1", "nbgym/CartPole-v1", "nbgym.gymnasium:nbgym/CartPole-v1"])
def test_env_id_names_the_module_the_workers_import(given):
    assert env_id(given) == PREFIX + "CartPole-v1" == "nbgym.gymnasium:nbgym/CartPole-v1"


def test_the_id_string_makes_the_compiled_vector_env_in_a_process_that_imported_nothing():
    """What a Ray worker does: gymnasium alone, given the string, imports nbgym.gymnasium and makes the env."""
    code = textwrap.dedent(f"""
        import gymnasium
        envs = gymnasium.make_vec({env_id("CartPole-v1")!r}, 3, vectorization_mode="vector_entry_point")
        print(type(envs).__name__, type(envs.unwrapped.inner).__name__, envs.reset(seed=1)[0].shape)
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["AsGymnasiumVectorEnv", "CartPoleVectorEnv", "(3,", "4)"]


def test_an_unregistered_id_is_refused_naming_what_the_workers_import():
    with pytest.raises(
        error.NameNotFound,
        match=r"Environment `NoSuchEnv` doesn't exist\. A Ray worker imports only "
        r"'nbgym.gymnasium' before making 'NoSuchEnv-v0'",
    ):
        env_id("NoSuchEnv-v0")
    with pytest.raises(ModuleNotFoundError):
        env_id("CartPole-v1", module="no_such_module_of_envs")


def test_an_env_registered_by_the_driver_only_is_refused_naming_the_registration():
    """What RLlib reports as `IndexError: list index out of range`: the driver registered the env, the workers cannot."""
    import nbgym.gymnasium

    nbgym.register(id="RllibDriverOnly-v0", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv")
    nbgym.gymnasium.register_envs()
    try:
        with pytest.raises(
            error.NameNotFound,
            match=r"A fresh process that imports 'nbgym.gymnasium', as a Ray worker does, "
            r"does not find 'nbgym/RllibDriverOnly-v0'\. It is registered in this "
            r"process only",
        ):
            env_id("RllibDriverOnly-v0")
    finally:
        nbgym.registry.pop("RllibDriverOnly-v0", None)
        gymnasium.registry.pop("nbgym/RllibDriverOnly-v0", None)


def test_an_env_registered_in_a_module_is_reached_through_that_module(tmp_path, monkeypatch):
    (tmp_path / "rllib_envs_registered.py").write_text(
        textwrap.dedent("""
        import nbgym, nbgym.gymnasium
        nbgym.register(id="RllibTestCartPole-v0", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv",
                       vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv", max_episode_steps=50)
        nbgym.gymnasium.register_envs()
    """)
    )
    (tmp_path / "rllib_envs_unmirrored.py").write_text(
        textwrap.dedent("""
        import nbgym, nbgym.gymnasium
        nbgym.register(id="RllibTestUnmirrored-v0", entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv")
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the fresh process that stands for a worker finds them too
    try:
        assert (
            env_id("RllibTestCartPole-v0", module="rllib_envs_registered")
            == "rllib_envs_registered:nbgym/RllibTestCartPole-v0"
        )
        assert gymnasium.spec("nbgym/RllibTestCartPole-v0").max_episode_steps == 50
        with pytest.raises(
            error.NameNotFound, match=r"end 'rllib_envs_unmirrored' with `nbgym.gymnasium.register_envs\(\)`"
        ):
            env_id("RllibTestUnmirrored-v0", module="rllib_envs_unmirrored")
    finally:
        for name in ("RllibTestCartPole-v0", "RllibTestUnmirrored-v0"):
            nbgym.registry.pop(name, None)
            gymnasium.registry.pop(f"nbgym/{name}", None)
        for module in ("rllib_envs_registered", "rllib_envs_unmirrored"):
            sys.modules.pop(module, None)
