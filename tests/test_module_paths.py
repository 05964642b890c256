"""gymnasium's module paths under nbgym: every public module of gymnasium 1.4.0 that nbgym reproduces imports
from the same path, its public names are there, and packages expose their submodules as attributes."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import typing

import gymnasium
import numpy as np
import pytest

import nbgym

# Modules of environments and array libraries that other work brings (the jax/torch conversions), and the
# modules that import jax (gymnasium's JAX functional environments: tests/envs/test_functional_envs.py imports them
# in a subprocess, with their names). MuJoCo's modules (v4, v5, mujoco_env, mujoco_rendering, mujoco_py_env,
# utils) are here, and checked.
NOT_YET = ("envs.phys2d", "envs.tabular", "envs.functional_jax_env")
NOT_YET_NAMES = ("array_conversion", "jax_to_numpy", "jax_to_torch", "numpy_to_torch")


def public_modules(package) -> list[str]:
    """The public module paths under ``package``, relative to it, found on disk without importing them.

    Importing gymnasium's packages while collecting would import jax (``envs.phys2d``, ``envs.tabular``)
    into every test process, and jax, when installed, warns of a deadlock at each later fork (the
    async vector env and thread tests fork).
    """
    names = []
    pending = [(package.__path__, "")]
    while pending:
        path, prefix = pending.pop()
        for info in pkgutil.iter_modules(path):
            name = prefix + info.name
            if info.name.startswith("_") or name.startswith(NOT_YET) or info.name in NOT_YET_NAMES:
                continue
            names.append(name)
            if info.ispkg:
                pending.append(([os.path.join(info.module_finder.path, info.name)], f"{name}."))
    return sorted(names)


@pytest.mark.parametrize("module", public_modules(gymnasium))
def test_every_gymnasium_module_path_imports(module):
    importlib.import_module(f"nbgym.{module}")


# Modules that consist of public names gymnasium code imports from them (the environment modules' own
# helpers are implementation details of gymnasium's environments).
NAMED_MODULES = [
    "spaces.space",
    "spaces.box",
    "spaces.discrete",
    "spaces.multi_discrete",
    "spaces.multi_binary",
    "spaces.text",
    "spaces.tuple",
    "spaces.dict",
    "spaces.sequence",
    "spaces.graph",
    "spaces.oneof",
    "spaces.utils",
    "envs.classic_control.utils",
    "envs.toy_text.utils",
    "wrappers.atari_preprocessing",
    "experimental.functional",
    "logger",
]


# Public values without a defining module of their own.
CONSTANTS = {"spaces.space": {"MaskNDArray"}, "spaces.text": {"alphanumeric"}, "logger": {"WARN", "ERROR", "min_level"}}


@pytest.mark.parametrize("module", NAMED_MODULES)
def test_public_names_of_the_module_are_there(module):
    theirs = importlib.import_module(f"gymnasium.{module}")
    ours = importlib.import_module(f"nbgym.{module}")
    names = {
        name
        for name, value in vars(theirs).items()
        if not name.startswith("_")
        and getattr(value, "__module__", None) == theirs.__name__
        and not isinstance(value, typing.TypeVar)
    }
    names |= CONSTANTS.get(module, set())
    assert names, module
    missing = sorted(name for name in names if not hasattr(ours, name))
    assert not missing, f"nbgym.{module} lacks {missing}"


def test_space_modules_hold_the_spaces_of_nbgym_spaces():
    from nbgym.spaces.box import Box, array_short_repr, is_float_integer
    from nbgym.spaces.dict import Dict
    from nbgym.spaces.tuple import Tuple

    assert (Box, Dict, Tuple) == (nbgym.spaces.Box, nbgym.spaces.Dict, nbgym.spaces.Tuple)
    for value in (1, 1.5, True, np.int8(3), np.float32(2), "a", None, np.array(1.0)):
        assert is_float_integer(value) == gymnasium.spaces.box.is_float_integer(value), value
    for array in (np.zeros(3), np.arange(4.0), np.zeros(0)):
        assert array_short_repr(array) == gymnasium.spaces.box.array_short_repr(array)


def test_space_submodules_named_after_builtins_leave_the_builtins_alone():
    """Importing nbgym.spaces.dict / .tuple must not replace the builtins that nbgym.spaces' own code uses."""
    import nbgym.spaces.dict
    import nbgym.spaces.tuple

    assert nbgym.spaces.dict.Dict is nbgym.spaces.Dict and nbgym.spaces.tuple.Tuple is nbgym.spaces.Tuple
    space = nbgym.spaces.Dict(
        {"a": nbgym.spaces.Discrete(3), "b": nbgym.spaces.Tuple([nbgym.spaces.Discrete(2)])}, seed=1
    )
    their_space = gymnasium.spaces.Dict(
        {"a": gymnasium.spaces.Discrete(3), "b": gymnasium.spaces.Tuple([gymnasium.spaces.Discrete(2)])}, seed=1
    )
    assert space.sample() == their_space.sample()
    assert space.contains({"a": 1, "b": (0,)})
    assert nbgym.spaces.flatten(space, {"a": 1, "b": (0,)}).tolist() == [0, 1, 0, 1, 0]


def test_nbgym_spaces_pickles_as_a_module():
    """Functions sent to AsyncVectorEnv's workers may refer to the module (cloudpickle pickles it by name)."""
    import cloudpickle

    from nbgym import spaces

    assert cloudpickle.loads(cloudpickle.dumps(spaces)) is spaces
    make_space = cloudpickle.loads(cloudpickle.dumps(lambda: spaces.Discrete(3)))
    assert make_space() == spaces.Discrete(3)


def test_packages_expose_their_submodules_as_gymnasium_does():
    """After ``import nbgym`` alone, as after ``import gymnasium``; without importing numba or an environment."""
    code = (
        "import sys, nbgym\n"
        "modules = [nbgym.envs.registration, nbgym.spaces.box, nbgym.spaces.dict, nbgym.spaces.utils,\n"
        "           nbgym.wrappers.common, nbgym.wrappers.vector, nbgym.utils.passive_env_checker,\n"
        "           nbgym.envs.classic_control.utils, nbgym.envs.toy_text.utils]\n"
        "assert nbgym.envs.registration.make is nbgym.make and nbgym.logger.colorize is nbgym.utils.colorize\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'gymnasium', 'pygame', 'cv2')\n"
        "               or m.startswith(('nbgym.envs.classic_control.', 'nbgym.envs.toy_text.')) and not m.endswith('.utils'))\n"
        "print(heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    # The vector wrappers' modules compile kernels (numba), as does an environment's module.
    assert nbgym.wrappers.vector.common.__name__ == "nbgym.wrappers.vector.common"
    assert nbgym.envs.classic_control.cartpole.CartPoleEnv is nbgym.envs.classic_control.CartPoleEnv
    with pytest.raises(AttributeError, match="has no attribute 'no_such_module'"):
        nbgym.wrappers.no_such_module  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_module'"):
        nbgym.spaces.no_such_module  # noqa: B018


def test_import_nbgym_stays_light():
    result = subprocess.run(
        [sys.executable, "-c", "import sys, nbgym; print(sorted(m for m in sys.modules if m.startswith('nbgym')))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "['nbgym']"


def test_reset_bound_helpers_are_gymnasiums():
    from gymnasium.envs.classic_control import utils as theirs

    from nbgym.envs.classic_control import utils as ours

    for options in (None, {}, {"low": -1, "high": "2"}, {"high": 0.5}):
        assert ours.maybe_parse_reset_bounds(options, -0.05, 0.05) == theirs.maybe_parse_reset_bounds(
            options, -0.05, 0.05
        )
    for options, message in (({"low": 1, "high": 0}, "must be lower"), ({"low": "x"}, "could not be converted")):
        with pytest.raises(ValueError, match=message):
            theirs.maybe_parse_reset_bounds(options, 0, 1)
        with pytest.raises(ValueError, match=message):
            ours.maybe_parse_reset_bounds(options, 0, 1)


def test_categorical_sample_is_gymnasiums():
    from gymnasium.envs.toy_text.utils import categorical_sample as theirs

    from nbgym.envs.toy_text.utils import categorical_sample as ours

    probabilities = [0.1, 0.0, 0.6, 0.3]
    our_generator, their_generator = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(50):
        sample, their_sample = ours(probabilities, our_generator), theirs(probabilities, their_generator)
        assert type(sample) is type(their_sample) and sample == their_sample


def test_logger_colorize_is_gymnasiums():
    for kwargs in ({}, {"bold": True}, {"highlight": True}, {"bold": True, "highlight": True}):
        assert nbgym.logger.colorize("text", "green", **kwargs) == gymnasium.logger.colorize("text", "green", **kwargs)
