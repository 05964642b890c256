"""The ``mujoco`` bindings' profiling timer (libmujoco's ``mjcb_time``, installed when ``mujoco`` is imported): nbgym
stops it when it loads libmujoco, since it costs a MuJoCo step 8-20%, and keeps it when asked (``NBGYM_MUJOCO_TIMERS=1``)
or when the timer is the user's own. Without it the physics is the same and ``data.timer`` still counts its calls."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import gymnasium
import mujoco
import numpy as np
import pytest
from helpers.paths import ROOT

import nbgym
from nbgym.envs.mujoco import _sim

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _timer_address() -> int | None:
    return ctypes.c_void_p.in_dll(_sim._LIB, "mjcb_time").value


def test_the_bindings_timer_is_stopped_and_the_timers_still_count_as_gymnasiums():
    assert _sim.TIMER_STOPPED and _timer_address() is None
    ours, theirs = nbgym.make("HalfCheetah-v5"), gymnasium.make("HalfCheetah-v5")
    ours.reset(seed=3)
    theirs.reset(seed=3)
    for action in np.random.default_rng(3).uniform(-1, 1, (4, 6)):
        np.testing.assert_array_equal(ours.step(action)[0], theirs.step(action)[0])
    step = mujoco.mjtTimer.mjTIMER_STEP
    ours_timer, theirs_timer = ours.unwrapped.data.timer[step], theirs.unwrapped.data.timer[step]
    assert ours_timer.number == theirs_timer.number == 4 * 5  # frame_skip 5
    assert ours_timer.duration == theirs_timer.duration == 0.0


def _loaded_in_a_new_process(before: str, variables: dict[str, str]) -> str:
    """What a new process prints after running ``before``, then loading nbgym's libmujoco: whether nbgym stopped the
    timer, whether one is installed, and the one the bindings report (``mujoco.get_mjcb_time()``)."""
    code = (
        "import ctypes, mujoco\n"
        f"{before}\n"
        "from nbgym.envs.mujoco import _sim\n"
        "installed = ctypes.c_void_p.in_dll(_sim._LIB, 'mjcb_time').value is not None\n"
        "print(_sim.TIMER_STOPPED, installed, mujoco.get_mjcb_time())\n"
    )
    env = {key: value for key, value in os.environ.items() if key != _sim.KEEP_TIMERS_VARIABLE}
    env.update(variables)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    return result.stdout.strip() if result.returncode == 0 else f"failed: {result.stderr.strip().splitlines()[-1]}"


def test_the_timer_is_kept_when_asked_or_when_it_is_the_users():
    assert _loaded_in_a_new_process("", {}) == "True False None"
    assert _loaded_in_a_new_process("", {_sim.KEEP_TIMERS_VARIABLE: "1"}) == "False True None"
    assert _loaded_in_a_new_process("", {_sim.KEEP_TIMERS_VARIABLE: "0"}) == "True False None"
    users = _loaded_in_a_new_process("def clock():\n    return 1.0\nmujoco.set_mjcb_time(clock)", {})
    assert users.startswith("False True <function clock"), users


def test_a_value_of_the_variable_other_than_0_or_1_is_refused():
    refused = _loaded_in_a_new_process("", {_sim.KEEP_TIMERS_VARIABLE: "yes"})
    assert refused.startswith("failed: ValueError: NBGYM_MUJOCO_TIMERS='yes': set it to 1"), refused
