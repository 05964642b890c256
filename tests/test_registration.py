"""Differential tests of nbgym.registration against gymnasium 1.4.0's gymnasium.envs.registration."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import gymnasium.envs.registration as gym_reg
import numpy as np
import pytest
from gymnasium.utils import RecordConstructorArgs as GymRecordConstructorArgs
from hypothesis import given
from hypothesis import strategies as st

import nbgym
import nbgym.registration as nb_reg
from nbgym import error
from nbgym.envs import registration as nb_envs_reg
from nbgym.utils import RecordConstructorArgs as NbRecordConstructorArgs
from helpers.common import FAST


# --------------------------------------------------------------------------------------------------
# Helpers: run the same call against both libraries and compare what a user sees.
# --------------------------------------------------------------------------------------------------


class Created(Exception):
    """Raised by test entry points instead of creating an environment: carries what they were given."""

    def __init__(self, payload: Any):
        super().__init__(repr(payload))
        self.payload = payload


def _normalise(text: str) -> str:
    """gymnasium's text with its own name replaced by nbgym's, where nbgym names itself instead, and no addresses."""
    text = re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", text)  # object addresses in reprs
    return re.sub(r"gymnasium|Gymnasium|\bGym\b|\bgym\b", "nbgym", text)


def outcome(call: Callable[[], Any]) -> tuple[Any, list[tuple[str, str]]]:
    """The result (or the exception's type name and message) of ``call``, and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = ("returned", _normalise(str(call())))
        except Created as e:
            result = ("created", e.payload)
        except Exception as e:  # any exception is an outcome to compare
            result = ("raised", type(e).__name__, _normalise(str(e)))
    return result, [(w.category.__name__, _normalise(str(w.message))) for w in caught]


def assert_same_outcome(gym_call: Callable[[], Any], nb_call: Callable[[], Any]) -> tuple[Any, Any]:
    """Asserts both calls return/raise/warn the same, returns both outcomes."""
    gym_outcome, nb_outcome = outcome(gym_call), outcome(nb_call)
    assert nb_outcome == gym_outcome
    return gym_outcome, nb_outcome


@contextlib.contextmanager
def empty_registries() -> Iterator[None]:
    """Both libraries' registries emptied for the block, then restored."""
    saved = dict(gym_reg.registry), dict(nb_reg.registry)
    gym_reg.registry.clear()
    nb_reg.registry.clear()
    try:
        yield
    finally:
        for registry, contents in zip((gym_reg.registry, nb_reg.registry), saved, strict=True):
            registry.clear()
            registry.update(contents)


def register_both(env_id: str, **kwargs: Any) -> tuple[Any, Any]:
    """Registers ``env_id`` in both registries, asserting the same outcome."""
    return assert_same_outcome(lambda: gym.register(env_id, **kwargs), lambda: nbgym.register(env_id, **kwargs))


def reporting_creator(env_id: str) -> Callable[..., Any]:
    """An entry point that reports which spec was made, and with which arguments, instead of creating it."""

    def creator(**kwargs: Any) -> Any:
        raise Created((env_id, kwargs))

    return creator


def spec_fields(env_spec: Any) -> dict[str, Any]:
    """The fields of an EnvSpec (of either library), entry points and wrapper specs as comparable values."""
    fields = {f.name: getattr(env_spec, f.name) for f in dataclasses.fields(env_spec)}
    fields["kwargs"] = dict(fields["kwargs"])
    fields["additional_wrappers"] = tuple(dataclasses.astuple(w) for w in env_spec.additional_wrappers)
    return fields


# --------------------------------------------------------------------------------------------------
# Import cost: the registry is readable without importing env modules or numba.
# --------------------------------------------------------------------------------------------------


def test_import_and_registry_do_not_import_envs_or_numba() -> None:
    code = (
        "import sys, nbgym\n"
        "reg = nbgym.registry\n"
        "assert 'CartPole-v1' in reg and nbgym.spec('Taxi-v4').max_episode_steps == 200\n"
        "nbgym.pprint_registry(disable_print=True)\n"
        "from nbgym.envs.registration import EnvSpec, WrapperSpec, registry\n"
        "assert registry is reg\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'gymnasium', 'pygame')"
        " or (m.startswith('nbgym.envs.') and m != 'nbgym.envs.registration')))\n"
    )
    # The nbgym under test, wherever it is imported from (installed or from the source tree).
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(nbgym.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert result.stdout.strip() == "[]", result.stdout


def test_envs_registration_module_reexports_the_registry_api() -> None:
    for name in gym_reg.__all__:
        assert getattr(nb_envs_reg, name) is getattr(nb_reg, name), name
    for name in ("parse_env_id", "get_env_id", "find_highest_version", "load_env_creator", "namespace"):
        assert getattr(nb_envs_reg, name) is getattr(nb_reg, name)
    with nb_reg.namespace("Live"):
        assert nb_envs_reg.current_namespace == "Live"
    assert nb_envs_reg.current_namespace is None
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        nb_envs_reg.missing  # noqa: B018


def test_top_level_names() -> None:
    for name in (
        "make",
        "make_vec",
        "spec",
        "register",
        "registry",
        "pprint_registry",
        "register_envs",
        "VectorizeMode",
    ):
        assert getattr(nbgym, name) is getattr(nb_reg, name)
    assert [m.value for m in nbgym.VectorizeMode] == [m.value for m in gym.VectorizeMode]
    assert [m.name for m in nbgym.VectorizeMode] == [m.name for m in gym.VectorizeMode]
    assert nbgym.register_envs(nb_reg) is None


# --------------------------------------------------------------------------------------------------
# The built-in registrations.
# --------------------------------------------------------------------------------------------------

# The ids gymnasium registers only to refuse them: the v2/v3 MuJoCo ids (they need mujoco-py) and Pusher-v4 (on
# mujoco >= 3). nbgym refuses them too (tests/envs/mujoco/test_mujoco_v4.py compares the errors).
GYM_REFUSED_IDS = [
    env_id
    for env_id, env_spec in gym_reg.registry.items()
    if (callable(env_spec.entry_point) and env_spec.entry_point.__name__ == "_raise_mujoco_py_error")
    or env_id == "Pusher-v4"
]
# gymnasium's envs that nbgym provides (classic control, Box2D, toy text, MuJoCo v4 and v5), in gymnasium's
# registration order.
GYM_PROVIDED_IDS = [
    env_id
    for env_id, env_spec in gym_reg.registry.items()
    if isinstance(env_spec.entry_point, str)
    and env_id not in GYM_REFUSED_IDS
    and env_spec.entry_point.startswith(
        (
            "gymnasium.envs.classic_control.",
            "gymnasium.envs.box2d.",
            "gymnasium.envs.toy_text.",
            "gymnasium.envs.mujoco.",
        )
    )
]
# The old-gym compatibility ids and the JAX functional envs (tests/test_gymnasium_parity.py and
# tests/envs/test_functional_envs.py check them).
GYM_OTHER_IDS = [
    "GymV21Environment-v0",
    "GymV26Environment-v0",
    "phys2d/CartPole-v0",
    "phys2d/CartPole-v1",
    "phys2d/Pendulum-v0",
    "tabular/Blackjack-v0",
    "tabular/CliffWalking-v0",
]
# The test suite's own envs (tests/helpers/custom_envs.py) live in the "test" namespace; other test modules of
# the same worker may have registered them.
TEST_NAMESPACE = "test"


def built_in_ids() -> list[str]:
    return [env_id for env_id, env_spec in nb_reg.registry.items() if env_spec.namespace != TEST_NAMESPACE]


# Those with a compiled vector env: all of them.
BOX2D_COMPILED_IDS = [
    "LunarLander-v3",
    "LunarLanderContinuous-v3",
    "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3",
    "CarRacing-v3",
]
"""Box2D ids with a compiled vector env (on the Box2D port), in a module of its own beside the single env's, so
that it imports without the box2d wheel."""
COMPILED_IDS = [
    env_id
    for env_id in GYM_PROVIDED_IDS
    if not gym.spec(env_id).entry_point.startswith("gymnasium.envs.box2d.") or env_id in BOX2D_COMPILED_IDS
]


def test_registered_ids_are_gymnasiums_classic_control_box2d_toy_text_and_mujoco() -> None:
    assert (len(GYM_PROVIDED_IDS), len(COMPILED_IDS), len(GYM_REFUSED_IDS)) == (38, 38, 18)
    assert built_in_ids() == [
        env_id
        for env_id in gym_reg.registry
        if env_id in GYM_PROVIDED_IDS or env_id in GYM_REFUSED_IDS or env_id in GYM_OTHER_IDS
    ]


@pytest.mark.parametrize("env_id", GYM_PROVIDED_IDS)
def test_registered_spec_fields_match_gymnasium(env_id: str) -> None:
    gym_fields, nb_fields = spec_fields(gym.spec(env_id)), spec_fields(nbgym.spec(env_id))
    gym_module, gym_attr = gym_fields.pop("entry_point").split(":")
    nb_module, nb_attr = nb_fields.pop("entry_point").split(":")
    # gymnasium's module path under nbgym's name: gymnasium.envs.classic_control.cartpole -> nbgym.envs.classic_control.cartpole
    assert (nb_module, nb_attr) == (gym_module.replace("gymnasium.", "nbgym.", 1), gym_attr)

    gym_vector, nb_vector = gym_fields.pop("vector_entry_point"), nb_fields.pop("vector_entry_point")
    if env_id not in COMPILED_IDS:
        assert nb_vector is gym_vector is None
    else:
        # Every other nbgym env has a compiled vector env; gymnasium has one only for CartPole.
        assert nb_vector == f"{nb_module}:{nb_attr.removesuffix('Env')}VectorEnv"
    if gym_vector is not None:
        assert nb_vector.split(":")[1] == gym_vector.split(":")[1]

    assert nb_fields == gym_fields
    assert type(nb_fields["reward_threshold"]) is type(gym_fields["reward_threshold"])


@pytest.mark.parametrize(
    "env_id",
    [
        "Taxi-v3",
        "CliffWalking-v0",
        "CartPole-v9",
        "Cartpole-v1",
        "cartpole-v1",
        "FrozenLake-v0",
        "FrozenLake8x8-v2",
        "Blackjack-v0",
        "MyNS/Foo-v0",
        "MyNS/CartPole-v1",
        "Foo",
        "a b",
        "CartPole-v1:x",
        "not_a_module_xyz:CartPole-v1",
    ],
)
def test_make_and_spec_errors_on_the_builtin_registry(env_id: str) -> None:
    assert_same_outcome(lambda: gym.make(env_id), lambda: nbgym.make(env_id))
    assert_same_outcome(lambda: gym.spec(env_id), lambda: nbgym.spec(env_id))
    assert_same_outcome(lambda: gym.make_vec(env_id), lambda: nbgym.make_vec(env_id))


def test_deprecated_ids_raise_deprecated_env() -> None:
    for old_id, new_id in (("Taxi-v3", "Taxi-v4"), ("CliffWalking-v0", "CliffWalking-v1")):
        with pytest.warns(DeprecationWarning, match=f"{old_id} is out of date"):
            with pytest.raises(error.DeprecatedEnv, match=f"Please use `{new_id}` instead"):
                nbgym.make(old_id)


def test_unversioned_builtin_spec() -> None:
    for env_id in ("CartPole", "Taxi", "FrozenLake8x8"):
        assert_same_outcome(lambda: gym.spec(env_id), lambda: nbgym.spec(env_id))


# --------------------------------------------------------------------------------------------------
# EnvSpec and WrapperSpec.
# --------------------------------------------------------------------------------------------------


def test_dataclass_fields_match_gymnasium() -> None:
    for gym_cls, nb_cls in ((gym_reg.EnvSpec, nb_reg.EnvSpec), (gym_reg.WrapperSpec, nb_reg.WrapperSpec)):
        describe = [
            (f.name, f.init, f.default, f.default_factory, f.repr, f.compare) for f in dataclasses.fields(nb_cls)
        ]
        assert describe == [
            (f.name, f.init, f.default, f.default_factory, f.repr, f.compare) for f in dataclasses.fields(gym_cls)
        ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text("ab", max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text("xyz", max_size=2), inner, max_size=2),
    max_leaves=4,
)
env_ids = st.builds(
    nb_reg.get_env_id,
    st.sampled_from([None, "ns", "My-NS"]),
    st.sampled_from(["Toy", "toy.v2", "A_b"]),
    st.sampled_from([None, 0, 3, 12]),
)
wrapper_specs = st.builds(
    lambda name, kwargs: (name, f"some.module:{name}", kwargs),
    st.sampled_from(["Clip", "Scale"]),
    st.none() | st.dictionaries(st.text("ab", min_size=1, max_size=2), json_values, max_size=2),
)
spec_kwargs = st.fixed_dictionaries(
    {"id": env_ids},
    optional={
        "entry_point": st.sampled_from([None, "pkg.envs.toy:ToyEnv"]),
        "reward_threshold": st.none() | st.floats(-10, 10) | st.integers(-5, 5),
        "nondeterministic": st.booleans(),
        "max_episode_steps": st.none() | st.integers(1, 1000),
        "order_enforce": st.booleans(),
        "disable_env_checker": st.booleans(),
        "kwargs": st.dictionaries(st.text("kw", min_size=1, max_size=3), json_values, max_size=3),
        "additional_wrappers": st.lists(wrapper_specs, max_size=2),
        "vector_entry_point": st.sampled_from([None, "pkg.envs.toy:ToyVectorEnv"]),
    },
)


def build_specs(kwargs: dict[str, Any]) -> tuple[gym_reg.EnvSpec, nb_reg.EnvSpec]:
    """The same spec in both libraries."""
    wrappers = kwargs.get("additional_wrappers", [])
    fields = {key: value for key, value in kwargs.items() if key != "additional_wrappers"}
    return (
        gym_reg.EnvSpec(**fields, additional_wrappers=tuple(gym_reg.WrapperSpec(*w) for w in wrappers)),
        nb_reg.EnvSpec(**fields, additional_wrappers=tuple(nb_reg.WrapperSpec(*w) for w in wrappers)),
    )


@FAST
@given(spec_kwargs)
def test_env_spec_repr_json_and_pprint_match_gymnasium(kwargs: dict[str, Any]) -> None:
    gym_spec, nb_spec = build_specs(kwargs)
    assert repr(nb_spec) == repr(gym_spec)
    assert (nb_spec.namespace, nb_spec.name, nb_spec.version) == (gym_spec.namespace, gym_spec.name, gym_spec.version)

    nb_json = nb_spec.to_json()
    assert nb_json == gym_spec.to_json()
    restored = nb_reg.EnvSpec.from_json(nb_json)
    assert restored == nb_spec
    assert repr(restored) == repr(gym_reg.EnvSpec.from_json(nb_json))

    for options in (
        {},
        {"include_entry_points": True},
        {"print_all": True},
        {"include_entry_points": True, "print_all": True},
    ):
        assert nb_spec.pprint(disable_print=True, **options) == gym_spec.pprint(disable_print=True, **options)


def test_env_spec_pprint_prints(capsys: pytest.CaptureFixture[str]) -> None:
    _, nb_spec = build_specs({"id": "ns/Toy-v1", "max_episode_steps": 5, "additional_wrappers": [("W", "m:W", {})]})
    assert nb_spec.pprint() is None
    assert capsys.readouterr().out == nb_spec.pprint(disable_print=True) + "\n"


def test_env_spec_json_errors_match_gymnasium() -> None:
    def toy_creator(**kwargs: Any) -> None:
        del kwargs

    gym_spec = gym_reg.EnvSpec("Toy-v0", entry_point=toy_creator)
    nb_spec = nb_reg.EnvSpec("Toy-v0", entry_point=toy_creator)
    assert_same_outcome(gym_spec.to_json, nb_spec.to_json)

    gym_spec = gym_reg.EnvSpec("Toy-v0", kwargs={"arr": np.zeros(2)})
    nb_spec = nb_reg.EnvSpec("Toy-v0", kwargs={"arr": np.zeros(2)})
    assert_same_outcome(gym_spec.to_json, nb_spec.to_json)

    for text in (
        '{"id": "Toy-v0", "additional_wrappers": [{"name": "W"}]}',
        '{"id": "Toy-v0", "bogus": 1, "additional_wrappers": []}',
        '{"additional_wrappers": []}',
        '{"id": "Toy v0", "additional_wrappers": []}',
        '{"id": "Toy-v0"}',
    ):
        gym_outcome, _ = assert_same_outcome(
            lambda: gym_reg.EnvSpec.from_json(text), lambda: nb_reg.EnvSpec.from_json(text)
        )
        assert gym_outcome[0][0] == "raised"


def test_env_spec_from_json_restores_wrapper_specs() -> None:
    _, nb_spec = build_specs({"id": "Toy-v2", "additional_wrappers": [("A", "m:A", {"x": 1}), ("B", "m:B", None)]})
    restored = nb_reg.EnvSpec.from_json(nb_spec.to_json())
    assert restored.additional_wrappers == nb_spec.additional_wrappers
    assert all(type(w) is nb_reg.WrapperSpec for w in restored.additional_wrappers)


@FAST
@given(st.text(alphabet="aB1_-/:.v ", max_size=12))
def test_parse_env_id_matches_gymnasium(env_id: str) -> None:
    assert_same_outcome(lambda: gym_reg.parse_env_id(env_id), lambda: nb_reg.parse_env_id(env_id))
    assert_same_outcome(lambda: gym_reg.EnvSpec(env_id), lambda: nb_reg.EnvSpec(env_id))


@FAST
@given(
    st.none() | st.text("ab:-", min_size=1, max_size=3),
    st.text("aB.-", min_size=1, max_size=4),
    st.none() | st.integers(0, 20),
)
def test_get_env_id_matches_gymnasium(ns: str | None, name: str, version: int | None) -> None:
    env_id = nb_reg.get_env_id(ns, name, version)
    assert env_id == gym_reg.get_env_id(ns, name, version)


# --------------------------------------------------------------------------------------------------
# register, spec, make and make_vec resolution of ids, on registries holding the same specs.
# --------------------------------------------------------------------------------------------------

registered_ids = st.lists(
    st.builds(
        nb_reg.get_env_id,
        st.sampled_from([None, "ns1", "Nsp"]),
        st.sampled_from(["Alpha", "Beta", "alpha2"]),
        st.sampled_from([None, 0, 1, 3]),
    ),
    max_size=7,
)
queried_ids = st.builds(
    nb_reg.get_env_id,
    st.sampled_from([None, "ns1", "ns2", "Nsp", "nsp", "zz"]),
    st.sampled_from(["Alpha", "Alpah", "alpha", "Beta", "Gamma", "alpha2"]),
    st.sampled_from([None, 0, 1, 2, 3, 5]),
)


@FAST
@given(registered_ids, st.lists(queried_ids, min_size=1, max_size=4))
def test_id_resolution_errors_and_warnings_match_gymnasium(registered: list[str], queries: list[str]) -> None:
    with empty_registries():
        for env_id in registered:
            register_both(
                env_id,
                entry_point=reporting_creator(env_id),
                max_episode_steps=4,
                vector_entry_point=reporting_creator(env_id),
            )
        assert list(nb_reg.registry) == list(gym_reg.registry)
        for env_id in queries:
            assert_same_outcome(lambda: gym.make(env_id), lambda: nbgym.make(env_id))
            assert_same_outcome(lambda: gym.spec(env_id), lambda: nbgym.spec(env_id))
            assert_same_outcome(lambda: gym.make_vec(env_id, 2), lambda: nbgym.make_vec(env_id, 2))
            ns, name, _ = nb_reg.parse_env_id(env_id)
            assert nb_reg.find_highest_version(ns, name) == gym_reg.find_highest_version(ns, name)


def test_unversioned_id_resolves_to_latest_version_with_warning() -> None:
    with empty_registries():
        for env_id in ("Toy-v0", "Toy-v2", "Toy-v1"):
            register_both(env_id, entry_point=reporting_creator(env_id))
        gym_outcome, _ = assert_same_outcome(lambda: gym.make("Toy"), lambda: nbgym.make("Toy"))
        assert gym_outcome[0] == ("created", ("Toy-v2", {}))
        assert "Using the latest versioned environment `Toy-v2`" in gym_outcome[1][0][1]


def test_unversioned_and_versioned_registration_conflicts() -> None:
    with empty_registries():
        register_both("ns/Toy", entry_point="m:Toy")
        gym_outcome, _ = register_both("ns/Toy-v1", entry_point="m:Toy")
        assert gym_outcome[0][:2] == ("raised", "RegistrationError")
        register_both("Toy-v3", entry_point="m:Toy")
        register_both("Toy-v1", entry_point="m:Toy")
        gym_outcome, _ = register_both("Toy", entry_point="m:Toy")
        assert gym_outcome[0][:2] == ("raised", "RegistrationError")
        gym_outcome, _ = register_both("Toy-v1", entry_point="m:Other")
        assert gym_outcome[1] == [
            ("UserWarning", "\x1b[33mWARN: Overriding environment Toy-v1 already in registry.\x1b[0m")
        ]
        assert nbgym.spec("Toy-v1").entry_point == "m:Other"
        register_both("NoEntry-v0")
        register_both("Bad id-v0", entry_point="m:Toy")
        assert list(nb_reg.registry) == list(gym_reg.registry)


def test_default_version_only_is_deprecated_for_versioned_ids() -> None:
    with empty_registries():
        register_both("Toy", entry_point=reporting_creator("Toy"))
        for query in ("Toy-v0", "Toy-v4", "Toy"):
            assert_same_outcome(lambda: gym.make(query), lambda: nbgym.make(query))
        # A versioned id beside the unversioned one can only be made by writing to the registry directly.
        gym_reg.registry["Toy-v2"] = gym_reg.EnvSpec("Toy-v2", entry_point="m:Toy")
        nb_reg.registry["Toy-v2"] = nb_reg.EnvSpec("Toy-v2", entry_point="m:Toy")
        for query in ("Toy-v1", "Toy-v5"):
            assert_same_outcome(lambda: gym.spec(query), lambda: nbgym.spec(query))


def test_namespace_context_manager() -> None:
    with empty_registries():
        for lib, lib_reg in ((gym, gym_reg), (nbgym, nb_reg)):
            with lib_reg.namespace("Plugin"):
                assert lib_reg.current_namespace == "Plugin"
                lib.register("Toy-v0", entry_point="m:Toy")
                lib.register("Other/Toy-v1", entry_point="m:Toy")
            assert lib_reg.current_namespace is None
        assert list(nb_reg.registry) == list(gym_reg.registry) == ["Plugin/Toy-v0", "Plugin/Toy-v1"]

        def register_in(lib: Any, lib_reg: Any) -> Callable[[], None]:
            def call() -> None:
                with lib_reg.namespace("Plugin"):
                    lib.register("Toy-v2", entry_point="m:Toy", kwargs={"namespace": "Mine"})

            return call

        assert_same_outcome(register_in(gym, gym_reg), register_in(nbgym, nb_reg))
        assert nbgym.spec("Plugin/Toy-v2").kwargs == {"namespace": "Mine"}

    with pytest.raises(RuntimeError), nb_reg.namespace("Broken"):
        raise RuntimeError
    assert nb_reg.current_namespace is None


def test_module_prefix_imports_the_module_first() -> None:
    with empty_registries():
        gym_outcome, _ = assert_same_outcome(lambda: gym.make("json:Toy-v0"), lambda: nbgym.make("json:Toy-v0"))
        assert gym_outcome[0][:2] == ("raised", "NameNotFound")
    with pytest.raises(ValueError, match="at most one `module:` prefix"):
        nbgym.make("a:b:Toy-v0")


def test_make_and_make_vec_reject_bad_id_types() -> None:
    assert_same_outcome(lambda: gym.make(3), lambda: nbgym.make(3))  # type: ignore[arg-type]
    assert_same_outcome(lambda: gym.make_vec(3), lambda: nbgym.make_vec(3))  # type: ignore[arg-type]


def test_load_env_creator() -> None:
    assert nb_reg.load_env_creator("json:dumps") is json.dumps
    assert_same_outcome(lambda: gym_reg.load_env_creator("json:nope"), lambda: nb_reg.load_env_creator("json:nope"))
    assert_same_outcome(lambda: gym_reg.load_env_creator("nope_mod:x"), lambda: nb_reg.load_env_creator("nope_mod:x"))
    with pytest.raises(ValueError, match="Malformed entry point: 'json'"):
        nb_reg.load_env_creator("json")


# --------------------------------------------------------------------------------------------------
# pprint_registry.
# --------------------------------------------------------------------------------------------------

pprint_entries = st.lists(
    st.tuples(
        st.sampled_from([None, "Ns", "other"]),
        st.sampled_from(["Toy", "LongerName", "X", "Mid_name"]),
        st.sampled_from([None, 0, 1, 10]),
        st.sampled_from(["pkg.envs.family.mod:Cls", "pkg.envs:Cls", "pkg.mod:Cls", "mod:Cls", None]),
    ),
    max_size=10,
)


@FAST
@given(pprint_entries, st.integers(1, 4), st.sampled_from([None, [], ["Ns"], ["family", "mod", "Toy"]]))
def test_pprint_registry_matches_gymnasium(
    entries: list[tuple[Any, ...]], num_cols: int, exclude: list[str] | None
) -> None:
    gym_registry: dict[str, Any] = {}
    nb_registry: dict[str, Any] = {}
    for ns, name, version, entry_point in entries:
        env_id = nb_reg.get_env_id(ns, name, version)
        gym_registry[env_id] = gym_reg.EnvSpec(env_id, entry_point=entry_point or reporting_creator(env_id))
        nb_registry[env_id] = nb_reg.EnvSpec(env_id, entry_point=entry_point or reporting_creator(env_id))
    expected = gym.pprint_registry(gym_registry, num_cols=num_cols, exclude_namespaces=exclude, disable_print=True)
    assert (
        nbgym.pprint_registry(nb_registry, num_cols=num_cols, exclude_namespaces=exclude, disable_print=True)
        == expected
    )


def test_pprint_registry_groups_the_environments_as_gymnasium() -> None:
    """nbgym's environments are listed under gymnasium's groups, with the ids gymnasium lists there."""

    def groups(text: str) -> dict[str, set[str]]:
        grouped: dict[str, set[str]] = {}
        for block in text.split("===== ")[1:]:
            name, ids = block.split(" =====\n", 1)
            grouped[name] = set(ids.split())
        return grouped

    ours = groups(nbgym.pprint_registry(exclude_namespaces=[TEST_NAMESPACE], disable_print=True))
    theirs = groups(gym.pprint_registry(disable_print=True))
    assert set(ours) == {"classic_control", "phys2d", "box2d", "toy_text", "tabular", "mujoco", "None"}
    assert all(ours[name] == theirs[name] for name in ("classic_control", "phys2d", "box2d", "toy_text", "tabular"))
    assert ours["mujoco"] == theirs["mujoco"] - {"Pusher-v4"}
    # Callable entry points: the refused MuJoCo ids and the old-gym compatibility envs (gymnasium lists
    # Pusher-v4 under its module, which refuses it).
    assert ours["None"] == set(GYM_REFUSED_IDS) | {"GymV21Environment-v0", "GymV26Environment-v0"}
    assert ours["None"] - {"Pusher-v4"} == theirs["None"]


def test_pprint_registry_example_and_printing(capsys: pytest.CaptureFixture[str]) -> None:
    registry = {
        env_id: nb_reg.EnvSpec(env_id, entry_point=entry_point)
        for env_id, entry_point in [
            ("Toy-v0", "pkg.envs.toys.toy:Toy"),
            ("Toy-v1", "pkg.envs.toys.toy:Toy"),
            ("LongToy-v0", "pkg.envs.toys.long:Toy"),
            ("Ns/Toy-v0", "other:Toy"),
            ("Single-v3", "single:Single"),
        ]
    }
    text = nbgym.pprint_registry(registry, num_cols=2, disable_print=True)
    assert text == (
        "===== toys =====\nLongToy-v0 Toy-v0\nToy-v1\n===== Ns =====\nNs/Toy-v0\n===== Single =====\nSingle-v3"
    )
    assert nbgym.pprint_registry(registry, num_cols=2) is None
    assert capsys.readouterr().out == text + "\n"

    nbgym.pprint_registry()
    assert capsys.readouterr().out == nbgym.pprint_registry(disable_print=True) + "\n"


# --------------------------------------------------------------------------------------------------
# make and make_vec of a custom Python environment, with the same class in both libraries.
# --------------------------------------------------------------------------------------------------


def toy_env_class(lib: Any) -> type:
    """A small environment class for ``lib`` (gymnasium or nbgym), identical in both."""

    class ToyEnv(lib.Env):
        metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}

        def __init__(self, size: int = 3, render_mode: str | None = None):
            self.size = size
            self.render_mode = render_mode
            self.observation_space = lib.spaces.Discrete(size)
            self.action_space = lib.spaces.Discrete(2)
            self.position = 0

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[int, dict]:
            super().reset(seed=seed)
            self.position = int(self.np_random.integers(self.size))
            return self.position, {}

        def step(self, action: int) -> tuple[int, float, bool, bool, dict]:
            self.position = (self.position + int(action)) % self.size
            return self.position, 1.0, self.position == self.size - 1, False, {"position": self.position}

        def render(self) -> Any:
            if self.render_mode == "ansi":
                return str(self.position)
            return np.full((2, 2, 3), self.position, dtype=np.uint8)

    return ToyEnv


GymToyEnv, NbToyEnv = toy_env_class(gym), toy_env_class(nbgym)


def module_level_wrapper(cls: type, name: str) -> type:
    """``cls`` named ``name``, so that its entry point ``f"{__name__}:{name}"`` finds it in this module."""
    cls.__name__ = cls.__qualname__ = name
    return cls


def scale_reward_class(lib: Any, record_args: type, name: str) -> type:
    """A reward-scaling wrapper for ``lib`` that records its arguments, so ``make`` can re-create it."""

    class ScaleReward(lib.RewardWrapper, record_args):
        def __init__(self, env: Any, scale: float = 1.0):
            record_args.__init__(self, scale=scale)
            lib.RewardWrapper.__init__(self, env)
            self.scale = scale

        def reward(self, reward: float) -> float:
            return self.scale * reward

    return module_level_wrapper(ScaleReward, name)


GymScaleReward = scale_reward_class(gym, GymRecordConstructorArgs, "GymScaleReward")
NbScaleReward = scale_reward_class(nbgym, NbRecordConstructorArgs, "NbScaleReward")
# Wrappers that do not record their arguments.
GymPlain = module_level_wrapper(type("Plain", (gym.Wrapper,), {}), "GymPlain")
NbPlain = module_level_wrapper(type("Plain", (nbgym.Wrapper,), {}), "NbPlain")


def _same_names(text: str) -> str:
    """Text with the two libraries' test wrappers (and gymnasium's name) given the same names."""
    return _normalise(re.sub(r"\b(?:Gym|Nb)(ScaleReward|Plain)\b", r"\1", text))


def assert_same_make(gym_call: Callable[[], Any], nb_call: Callable[[], Any]) -> tuple[Any, Any]:
    """Runs both calls, asserts the same outcome (test wrapper names aside); returns both results or raises."""
    gym_outcome, nb_outcome = outcome(gym_call), outcome(nb_call)
    assert _same_names(repr(nb_outcome)) == _same_names(repr(gym_outcome))
    return gym_outcome, nb_outcome


def comparable_spec(env_spec: Any) -> dict[str, Any]:
    """The spec's fields with callable entry points replaced by their names and wrapper names unified."""
    fields = spec_fields(env_spec)
    for key in ("entry_point", "vector_entry_point"):
        if callable(fields[key]):
            fields[key] = fields[key].__name__
    fields["additional_wrappers"] = tuple(
        (_same_names(name), _same_names(entry_point), kwargs)
        for name, entry_point, kwargs in fields["additional_wrappers"]
    )
    if "wrappers" in fields["kwargs"]:
        fields["kwargs"]["wrappers"] = len(fields["kwargs"]["wrappers"])
    return fields


def rollout(env: Any, seed: int, steps: int) -> list[Any]:
    """Everything a seeded episode prefix returns, with value types."""
    obs, info = env.reset(seed=seed)
    record: list[Any] = [(obs, type(obs), info)]
    for step in range(steps):
        result = env.step(step % 2)
        record.append(tuple((value, type(value)) for value in result))
        if result[2] or result[3]:
            obs, info = env.reset()
            record.append((obs, type(obs), info))
    return record


@contextlib.contextmanager
def toy_registered(**register_kwargs: Any) -> Iterator[None]:
    """``Toy-v0`` registered with ToyEnv in both (otherwise empty) registries."""
    with empty_registries():
        gym.register("Toy-v0", entry_point=GymToyEnv, **register_kwargs)
        nbgym.register("Toy-v0", entry_point=NbToyEnv, **register_kwargs)
        yield


MAKE_KWARGS = [
    {},
    {"max_episode_steps": 3},
    {"max_episode_steps": -1},
    {"disable_env_checker": True},
    {"disable_env_checker": False},
    {"size": 5},
    {"render_mode": "rgb_array"},
    {"render_mode": "ansi"},
    {"render_mode": "rgb_array_list"},
    {"render_mode": "ansi_list"},
    {"render_mode": "human"},
    {"render_mode": "bogus"},
    {"bad_kwarg": 1},
]
REGISTER_KWARGS = [
    {},
    {"max_episode_steps": 4, "reward_threshold": 2.5, "nondeterministic": True},
    {"order_enforce": False},
    {"disable_env_checker": True},
    {"kwargs": {"size": 6}},
]


@pytest.mark.parametrize("register_kwargs", REGISTER_KWARGS)
@pytest.mark.parametrize("make_kwargs", MAKE_KWARGS)
def test_make_custom_env_matches_gymnasium(register_kwargs: dict[str, Any], make_kwargs: dict[str, Any]) -> None:
    with toy_registered(**register_kwargs):
        gym_outcome, _ = assert_same_make(
            lambda: gym.make("Toy-v0", **make_kwargs), lambda: nbgym.make("Toy-v0", **make_kwargs)
        )
        if gym_outcome[0][0] != "returned":
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # compared above
            gym_env, nb_env = gym.make("Toy-v0", **make_kwargs), nbgym.make("Toy-v0", **make_kwargs)
            remade = nbgym.spec("Toy-v0").make(**make_kwargs)
        assert comparable_spec(nb_env.spec) == comparable_spec(gym_env.spec)
        assert comparable_spec(nb_env.unwrapped.spec) == comparable_spec(gym_env.unwrapped.spec)
        assert nb_env.render_mode == gym_env.render_mode
        # "human" rendering shows every step at the env's render_fps: the stack and spec above are its test.
        if make_kwargs.get("render_mode") != "human":
            for seed in (0, 1, 7):
                assert _same_names(repr(rollout(nb_env, seed, 8))) == _same_names(repr(rollout(gym_env, seed, 8)))
            assert_same_outcome(gym_env.render, nb_env.render)
        # `EnvSpec.make` and `make(spec)` make the same stack.
        assert str(remade) == str(nb_env)
        gym_env.close()
        nb_env.close()


def test_make_builtin_stack_repr_without_env_modules() -> None:
    # The wrapper stack of a built-in id, with an entry point that exists now (ToyEnv under CartPole's spec).
    cartpole = {"entry_point": NbToyEnv, "max_episode_steps": 500}
    env = nbgym.make(dataclasses.replace(nbgym.spec("CartPole-v1"), **cartpole))
    assert repr(env) == "<TimeLimit<OrderEnforcing<PassiveEnvChecker<ToyEnv<CartPole-v1>>>>>"
    env = nbgym.make(dataclasses.replace(nbgym.spec("CartPole-v1"), **cartpole), disable_env_checker=True)
    assert repr(env) == "<TimeLimit<OrderEnforcing<ToyEnv<CartPole-v1>>>>"


def test_make_metadata_checks_match_gymnasium() -> None:
    for metadata in ({"render_fps": 4}, {"render_modes": 3}, ["not", "a", "dict"]):
        gym_cls = type("MetaEnv", (GymToyEnv,), {"metadata": metadata})
        nb_cls = type("MetaEnv", (NbToyEnv,), {"metadata": metadata})
        with empty_registries():
            gym.register("Meta-v0", entry_point=gym_cls)
            nbgym.register("Meta-v0", entry_point=nb_cls)
            for kwargs in ({}, {"render_mode": "ansi"}):
                assert_same_make(lambda: gym.make("Meta-v0", **kwargs), lambda: nbgym.make("Meta-v0", **kwargs))


def test_make_entry_point_errors_match_gymnasium() -> None:
    with empty_registries():
        register_both("Empty-v0", vector_entry_point="m:Vec")
        assert_same_outcome(lambda: gym.make("Empty-v0"), lambda: nbgym.make("Empty-v0"))
        register_both("Object-v0", entry_point=lambda **kwargs: object())
        assert_same_outcome(lambda: gym.make("Object-v0"), lambda: nbgym.make("Object-v0"))
        register_both("Missing-v0", entry_point="not_a_module_xyz:Env")
        assert_same_outcome(lambda: gym.make("Missing-v0"), lambda: nbgym.make("Missing-v0"))

        # The old rendering API: the creator does not take `render_mode`, so HumanRendering cannot be used.
        def old_api(lib_cls: type) -> type:
            return type("OldEnv", (lib_cls,), {"__init__": lambda self, size=3: lib_cls.__init__(self, size)})

        gym.register("Old-v0", entry_point=old_api(GymToyEnv))
        nbgym.register("Old-v0", entry_point=old_api(NbToyEnv))
        for kwargs in ({"render_mode": "human"}, {"render_mode": "rgb_array"}):
            assert_same_outcome(lambda: gym.make("Old-v0", **kwargs), lambda: nbgym.make("Old-v0", **kwargs))


def test_make_rejects_a_gymnasium_env() -> None:
    with empty_registries():
        nbgym.register("Foreign-v0", entry_point=GymToyEnv)
        with pytest.raises(TypeError, match="gymnasium environments are incompatible with nbgym"):
            nbgym.make("Foreign-v0")


def test_additional_wrappers_are_recreated_from_the_spec() -> None:
    with toy_registered(max_episode_steps=5):
        gym_env = GymScaleReward(gym.make("Toy-v0"), scale=2.0)
        nb_env = NbScaleReward(nbgym.make("Toy-v0"), scale=2.0)
        assert comparable_spec(nb_env.spec) == comparable_spec(gym_env.spec)
        assert nb_env.spec.additional_wrappers == (
            nb_reg.WrapperSpec("NbScaleReward", f"{__name__}:NbScaleReward", {"scale": 2.0}),
        )
        gym_remade, _ = assert_same_make(lambda: gym.make(gym_env.spec), lambda: nbgym.make(nb_env.spec))
        assert gym_remade[0][0] == "returned"
        nb_env_again = nbgym.make(nb_env.spec)
        assert repr(nb_env_again) == repr(nb_env)
        assert nb_env_again.spec == nb_env.spec
        assert _same_names(repr(rollout(nb_env_again, 3, 6))) == _same_names(repr(rollout(gym_env, 3, 6)))

        # Through JSON as well (the wrapper is found by its entry point).
        assert repr(
            nbgym.make(
                nb_reg.EnvSpec.from_json(dataclasses.replace(nb_env.spec, entry_point=f"{__name__}:NbToyEnv").to_json())
            )
        ).replace("Toy-v0", "") == repr(nb_env).replace("Toy-v0", "")

        # A wrapper that does not record its arguments cannot be re-made.
        assert_same_make(
            lambda: gym.make(GymPlain(gym.make("Toy-v0")).spec), lambda: nbgym.make(NbPlain(nbgym.make("Toy-v0")).spec)
        )


@pytest.mark.parametrize("entry_scale", [2.0, 3.0])
def test_entry_point_wrappers_are_checked_against_the_spec(entry_scale: float) -> None:
    with empty_registries():
        for lib, lib_reg, env_cls, wrapper_cls in (
            (gym, gym_reg, GymToyEnv, GymScaleReward),
            (nbgym, nb_reg, NbToyEnv, NbScaleReward),
        ):
            wrapper_spec = wrapper_cls.wrapper_spec(scale=2.0)

            def creator(env_cls: type = env_cls, wrapper_cls: type = wrapper_cls, **kwargs: Any) -> Any:
                return wrapper_cls(env_cls(**kwargs), scale=entry_scale)

            lib.register("Pre-v0", entry_point=creator, additional_wrappers=(wrapper_spec,), max_episode_steps=3)
            lib.register("PreNone-v0", entry_point=creator)
            del lib_reg
        for env_id in ("Pre-v0", "PreNone-v0"):
            assert_same_make(lambda: gym.make(env_id), lambda: nbgym.make(env_id))


def test_make_with_wrapper_class_entry_point() -> None:
    # A wrapper class has `metadata` as an instance property: make cannot read it from the class.
    with empty_registries():
        gym.register("Wrapped-v0", entry_point=GymPlain, kwargs={"env": GymToyEnv()})
        nbgym.register("Wrapped-v0", entry_point=NbPlain, kwargs={"env": NbToyEnv()})
        assert_same_make(lambda: gym.make("Wrapped-v0"), lambda: nbgym.make("Wrapped-v0"))
        assert_same_make(
            lambda: gym.make("Wrapped-v0", render_mode="human"), lambda: nbgym.make("Wrapped-v0", render_mode="human")
        )


# --------------------------------------------------------------------------------------------------
# make_vec.
# --------------------------------------------------------------------------------------------------


def test_make_vec_mode_and_argument_errors_match_gymnasium() -> None:
    with empty_registries():
        register_both(
            "Both-v0",
            entry_point=reporting_creator("Both-v0"),
            vector_entry_point=reporting_creator("vec"),
            max_episode_steps=7,
        )
        register_both("VecOnly-v0", vector_entry_point=reporting_creator("vec"))
        register_both("SingleOnly-v0", entry_point=reporting_creator("SingleOnly-v0"))
        calls: list[tuple[str, dict[str, Any]]] = [
            ("Both-v0", {"vectorization_mode": "bogus"}),
            ("Both-v0", {"vectorization_mode": 3}),
            ("Both-v0", {"vector_kwargs": {"copy": False}}),
            ("Both-v0", {"wrappers": [lambda env: env]}),
            ("Both-v0", {"vectorization_mode": "vector_entry_point", "num_envs": 5, "render_mode": "rgb_array"}),
            ("Both-v0", {"num_envs": 2, "max_episode_steps": 3, "autoreset_mode": "SameStep", "num_threads": 2}),
            ("Both-v0", {"vectorization_mode": nbgym.VectorizeMode.VECTOR_ENTRY_POINT}),
            ("VecOnly-v0", {"vectorization_mode": "sync"}),
            ("VecOnly-v0", {"vectorization_mode": "async"}),
            ("VecOnly-v0", {"num_envs": 4}),
            ("SingleOnly-v0", {"vectorization_mode": "vector_entry_point"}),
        ]
        for env_id, kwargs in calls:
            gym_kwargs = {
                key: gym.VectorizeMode(value.value) if isinstance(value, nbgym.VectorizeMode) else value
                for key, value in kwargs.items()
            }
            assert_same_outcome(lambda: gym.make_vec(env_id, **gym_kwargs), lambda: nbgym.make_vec(env_id, **kwargs))

        # A spec with additional wrappers cannot be made by a vector entry point.
        wrapper = ("W", "m:W", {})
        assert_same_outcome(
            lambda: gym.make_vec(
                dataclasses.replace(gym.spec("Both-v0"), additional_wrappers=(gym_reg.WrapperSpec(*wrapper),))
            ),
            lambda: nbgym.make_vec(
                dataclasses.replace(nbgym.spec("Both-v0"), additional_wrappers=(nb_reg.WrapperSpec(*wrapper),))
            ),
        )


def toy_vector_class(lib: Any, metadata: dict[str, Any]) -> type:
    """A vector environment class for ``lib`` with the given metadata, recording its arguments."""

    class ToyVectorEnv(lib.vector.VectorEnv):
        def __init__(self, num_envs: int = 1, **kwargs: Any):
            self.num_envs = num_envs
            self.kwargs = kwargs
            self.metadata = metadata
            self.single_observation_space = lib.spaces.Discrete(3)
            self.single_action_space = lib.spaces.Discrete(2)
            self.observation_space = lib.spaces.MultiDiscrete([3] * num_envs)
            self.action_space = lib.spaces.MultiDiscrete([2] * num_envs)

    return ToyVectorEnv


@pytest.mark.parametrize("autoreset", ["none", "enum", "string"])
def test_make_vec_vector_entry_point_matches_gymnasium(autoreset: str) -> None:
    def metadata(lib: Any) -> dict[str, Any]:
        return {
            "none": {"render_modes": []},
            "enum": {"autoreset_mode": lib.vector.AutoresetMode.SAME_STEP},
            "string": {"autoreset_mode": "SameStep"},
        }[autoreset]

    with empty_registries():
        gym.register(
            "Toy-v0",
            entry_point=GymToyEnv,
            vector_entry_point=toy_vector_class(gym, metadata(gym)),
            max_episode_steps=9,
        )
        nbgym.register(
            "Toy-v0",
            entry_point=NbToyEnv,
            vector_entry_point=toy_vector_class(nbgym, metadata(nbgym)),
            max_episode_steps=9,
        )
        for kwargs in ({}, {"num_envs": 4, "size": 5, "render_mode": "rgb_array"}, {"max_episode_steps": 2}):
            assert_same_outcome(lambda: gym.make_vec("Toy-v0", **kwargs), lambda: nbgym.make_vec("Toy-v0", **kwargs))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # compared above
                gym_env, nb_env = gym.make_vec("Toy-v0", **kwargs), nbgym.make_vec("Toy-v0", **kwargs)
            assert nb_env.kwargs == gym_env.kwargs
            assert comparable_spec(nb_env.spec) == comparable_spec(gym_env.spec)
            # The vector env's spec makes the same vector env again.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert comparable_spec(nbgym.make_vec(nb_env.spec).spec) == comparable_spec(nb_env.spec)


def vector_rollout(env: Any, seed: int, steps: int) -> list[Any]:
    """What a seeded vector rollout returns, arrays with their dtypes."""

    def describe(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: describe(item) for key, item in value.items()}
        if isinstance(value, np.ndarray):
            return (value.tolist(), value.dtype.str, value.shape)
        return (value, type(value))

    obs, info = env.reset(seed=seed)
    record = [describe(obs), describe(info)]
    for step in range(steps):
        actions = np.array([(step + i) % 2 for i in range(env.num_envs)])
        record.append([describe(value) for value in env.step(actions)])
    return record


def scale_by_two(lib_wrapper: type) -> Callable[[Any], Any]:
    """A `wrappers` entry of make_vec: scales the sub-environment's rewards by two."""
    return lambda env: lib_wrapper(env, scale=2.0)


@pytest.mark.parametrize("mode", ["sync", "async", None])
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"size": 5, "num_envs": 2}, {"wrappers": True}, {"vector_kwargs": {"copy": False}}, {"max_episode_steps": 2}],
)
def test_make_vec_sync_async_match_gymnasium(mode: str | None, kwargs: dict[str, Any]) -> None:
    with toy_registered(max_episode_steps=4):
        gym_kwargs, nb_kwargs = dict(kwargs), dict(kwargs)
        if kwargs.get("wrappers"):
            gym_kwargs["wrappers"], nb_kwargs["wrappers"] = (
                [scale_by_two(GymScaleReward)],
                [scale_by_two(NbScaleReward)],
            )
        gym_kwargs.setdefault("num_envs", 3)
        nb_kwargs.setdefault("num_envs", 3)
        gym_env = gym.make_vec("Toy-v0", vectorization_mode=mode, **gym_kwargs)
        nb_env = nbgym.make_vec("Toy-v0", vectorization_mode=mode, **nb_kwargs)
        try:
            assert type(nb_env).__name__ == type(gym_env).__name__
            assert comparable_spec(nb_env.spec) == comparable_spec(gym_env.spec)
            for seed in (0, 11):
                assert vector_rollout(nb_env, seed, 6) == vector_rollout(gym_env, seed, 6)
            remade = nbgym.make_vec(nb_env.spec)
            try:
                assert comparable_spec(remade.spec) == comparable_spec(nb_env.spec)
                assert vector_rollout(remade, 4, 3) == vector_rollout(gym_env, 4, 3)
            finally:
                remade.close()
        finally:
            gym_env.close()
            nb_env.close()


# --------------------------------------------------------------------------------------------------
# The built-in environments (their modules are written beside this one).
# --------------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*CartPole-v0 is out of date:DeprecationWarning")
@pytest.mark.parametrize("env_id", GYM_PROVIDED_IDS)
def test_make_builtin_matches_gymnasium(env_id: str) -> None:
    gym_env, nb_env = gym.make(env_id), nbgym.make(env_id)
    assert str(nb_env) == str(gym_env)
    for gym_spec, nb_spec in ((gym_env.spec, nb_env.spec), (gym_env.unwrapped.spec, nb_env.unwrapped.spec)):
        gym_fields, nb_fields = spec_fields(gym_spec), spec_fields(nb_spec)
        for key in ("entry_point", "vector_entry_point"):
            del gym_fields[key]
            assert nb_fields.pop(key) == getattr(nbgym.spec(env_id), key)
        assert nb_fields == gym_fields


@pytest.mark.filterwarnings("ignore:.*CartPole-v0 is out of date:DeprecationWarning")
@pytest.mark.parametrize("env_id", COMPILED_IDS)
def test_make_vec_builtin_uses_the_compiled_vector_env(env_id: str) -> None:
    # The arguments gymnasium's make_vec would give the vector entry point, had the spec one.
    with pytest.raises(Created) as created:
        gym.make_vec(dataclasses.replace(gym.spec(env_id), vector_entry_point=reporting_creator(env_id)), 3)
    expected_kwargs = created.value.payload[1]

    env = nbgym.make_vec(env_id, 3)
    try:
        assert type(env).__name__ == nbgym.spec(env_id).vector_entry_point.split(":")[1]
        assert env.num_envs == 3
        assert env.spec.kwargs == {**expected_kwargs, "num_envs": 3, "vectorization_mode": "vector_entry_point"}
        if env_id.startswith("CartPole"):
            assert comparable_spec(env.spec) | {"entry_point": 0, "vector_entry_point": 0} == comparable_spec(
                gym.make_vec(env_id, 3).spec
            ) | {"entry_point": 0, "vector_entry_point": 0}
    finally:
        env.close()


def test_make_vec_builtin_passes_vector_arguments_as_kwargs() -> None:
    env = nbgym.make_vec("CartPole-v1", 2, autoreset_mode="SameStep", max_episode_steps=7, num_threads=1)
    try:
        assert env.metadata["autoreset_mode"] is nbgym.vector.AutoresetMode.SAME_STEP
        assert env.spec.kwargs == {
            "autoreset_mode": "SameStep",
            "max_episode_steps": 7,
            "num_threads": 1,
            "num_envs": 2,
            "vectorization_mode": "vector_entry_point",
        }
        env.reset(seed=0)
        truncations = [env.step(np.zeros(2, dtype=np.int64))[3] for _ in range(7)]
        assert truncations[-1].all() and not np.any(truncations[:-1])
    finally:
        env.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"apply_api_compatibility": True},
        {"autoreset": True},
        {"render_mode": "rgb_array"},
        {"render_mode": "rgb_array_list"},
        {"max_episode_steps": 10, "disable_env_checker": True},
        {"sutton_barto_reward": True, "max_episode_steps": -1},
    ],
)
def test_make_cartpole_arguments_match_gymnasium(kwargs: dict[str, Any]) -> None:
    assert_same_outcome(lambda: gym.make("CartPole-v1", **kwargs), lambda: nbgym.make("CartPole-v1", **kwargs))


@pytest.mark.parametrize("action", ["error", "ignore"])
def test_a_warnings_filter_set_after_import_governs_deprecations_as_in_gymnasium(action: str) -> None:
    """Filters the user sets after ``import nbgym`` decide, as after ``import gymnasium``: nbgym's own "once" filter
    for its deprecations was added when its logger loaded (at the first ``make``), in front of them."""
    script = (
        "import sys, warnings\n"
        "lib = __import__(sys.argv[1])\n"
        f"warnings.simplefilter({action!r})\n"
        "try:\n"
        "    lib.make('CartPole-v0')\n"
        "    print('made')\n"
        "except DeprecationWarning:\n"
        "    print('raised')\n"
    )
    outcomes = {
        name: subprocess.run([sys.executable, "-c", script, name], capture_output=True, text=True, check=True)
        for name in ("gymnasium", "nbgym")
    }
    assert outcomes["nbgym"].stdout == outcomes["gymnasium"].stdout == ("raised\n" if action == "error" else "made\n")
    assert ("WARN" in outcomes["nbgym"].stderr) == ("WARN" in outcomes["gymnasium"].stderr)
