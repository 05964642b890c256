"""Memory safety and faults of the MuJoCo environments (issue #21), against gymnasium 1.4.0 on the same
installed mujoco: a MuJoCo error raises gymnasium's ``mujoco.FatalError`` instead of ending the process,
single and vector, 1 and 2 threads; an interrupted threaded step never leaves a helper stepping; a BLAS
nbgym cannot match still runs, with one warning.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import gymnasium
import mujoco
import numpy as np
import pytest

import nbgym
from nbgym import error
from nbgym.envs.mujoco.mujoco_env import ASSETS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_python(code: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter from the repository root (this checkout's nbgym)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def small_arena_model(tmp_path: pathlib.Path) -> str:
    """HalfCheetah's model with an arena too small for the constraint solver: MuJoCo fails in ``mj_step``."""
    source = (pathlib.Path(ASSETS) / "half_cheetah.xml").read_text()
    path = tmp_path / "half_cheetah_small_arena.xml"
    path.write_text(source.replace('<mujoco model="cheetah">', '<mujoco model="cheetah"><size memory="8K"/>'))
    return str(path)


def break_integrator(env) -> None:
    env.unwrapped.model.opt.integrator = 7


def break_solver(env) -> None:
    env.unwrapped.model.opt.solver = 9


def repair(env) -> None:
    env.unwrapped.model.opt.integrator = 0
    env.unwrapped.model.opt.solver = 2


def fatal_error(call) -> str:
    with pytest.raises(mujoco.FatalError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("fault", [break_integrator, break_solver])
def test_mujoco_error_in_step_raises_gymnasiums_fatal_error(fault):
    ours, theirs = nbgym.make("HalfCheetah-v5"), gymnasium.make("HalfCheetah-v5")
    np.testing.assert_array_equal(ours.reset(seed=0)[0], theirs.reset(seed=0)[0])
    action = np.full(6, 0.5, dtype=np.float32)
    fault(ours)
    fault(theirs)
    assert fatal_error(lambda: ours.step(action)) == fatal_error(lambda: theirs.step(action))
    # The simulation stopped mid-step: no further step until a reset (gymnasium would step the broken data).
    with pytest.raises(error.ResetNeeded, match="reset"):
        ours.step(action)
    repair(ours)
    repair(theirs)
    for seed in (1, None):
        np.testing.assert_array_equal(ours.reset(seed=seed)[0], theirs.reset(seed=seed)[0])
        for _ in range(3):
            mine, gym_step = ours.step(action), theirs.step(action)
            np.testing.assert_array_equal(mine[0], gym_step[0])
            assert mine[1] == gym_step[1]


def test_model_whose_arena_is_too_small_raises(tmp_path):
    xml_file = small_arena_model(tmp_path)
    ours = nbgym.make("HalfCheetah-v5", xml_file=xml_file)
    theirs = gymnasium.make("HalfCheetah-v5", xml_file=xml_file)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    action = np.full(6, 0.5, dtype=np.float32)
    for _ in range(100):
        try:
            expected = theirs.step(action)
        except mujoco.FatalError as failure:
            assert fatal_error(lambda: ours.step(action)) == str(failure)
            assert "mj_stackAlloc" in str(failure)
            break
        np.testing.assert_array_equal(ours.step(action)[0], expected[0])
    else:
        pytest.fail("gymnasium's env did not fail")


def test_mujoco_error_in_reset_raises(tmp_path):
    env = nbgym.make("HalfCheetah-v5")
    env.reset(seed=0)
    env.unwrapped.model.opt.solver = 9
    env.unwrapped.data.qpos[1] = -0.5  # sunk into the floor: the reset's mj_forward meets contacts
    env.unwrapped.init_qpos[1] = -0.5
    message = fatal_error(lambda: env.reset(seed=0))
    assert "unknown solver type 9" in message
    with pytest.raises(error.ResetNeeded):
        env.step(np.zeros(6, dtype=np.float32))
    env.unwrapped.model.opt.solver = 2
    env.reset(seed=0)
    env.step(np.zeros(6, dtype=np.float32))


@pytest.mark.parametrize("num_threads", [1, 2])
def test_vector_env_survives_mujoco_errors_in_a_loop(num_threads):
    num_envs = 4
    ours = nbgym.make_vec("HalfCheetah-v5", num_envs, num_threads=num_threads)
    theirs = gymnasium.make_vec("HalfCheetah-v5", num_envs, vectorization_mode="sync")
    actions = np.random.default_rng(0).uniform(-1, 1, (num_envs, 6)).astype(np.float32)
    for round_ in range(25):
        ours.reset(seed=round_)
        ours.unwrapped.model.opt.integrator = 7
        message = fatal_error(lambda: ours.step(actions))
        assert message.startswith("mj_step: invalid integrator")
        assert "[0, 1, 2, 3]" in message  # every sub-environment failed, and each stopped at its first error
        with pytest.raises(error.ResetNeeded):
            ours.step(actions)
        ours.unwrapped.model.opt.integrator = 0
    np.testing.assert_array_equal(ours.reset(seed=7)[0], theirs.reset(seed=7)[0])
    for _ in range(5):
        mine, gym_step = ours.step(actions), theirs.step(actions)
        np.testing.assert_array_equal(mine[0], gym_step[0])
        np.testing.assert_array_equal(mine[1], gym_step[1])


@pytest.mark.parametrize("num_threads", [1, 2])
def test_vector_env_error_in_one_sub_environment(tmp_path, num_threads):
    """Only the sub-environments whose simulation fails are broken: the others stepped, a reset of the broken
    ones (``reset_mask``) lets the batch go on."""
    xml_file = small_arena_model(tmp_path)
    env = nbgym.make_vec("HalfCheetah-v5", 3, num_threads=num_threads, xml_file=xml_file)
    env.reset(seed=0)
    # Sub-environments 0 and 1 start high in the air: no contact, so no constraint to solve, for a few steps;
    # sub-environment 2 sinks into the floor: many contacts.
    for data in env.unwrapped.datas[:2]:
        data.qpos[1] = 5.0
    env.unwrapped.datas[2].qpos[1] = -0.3
    zero = np.zeros((3, 6), dtype=np.float32)
    message = fatal_error(lambda: env.step(zero))
    assert "mj_stackAlloc" in message and "sub-environment(s) [2]" in message
    times = [data.time for data in env.unwrapped.datas[:2]]
    assert min(times) > 0
    with pytest.raises(error.ResetNeeded, match=r"\[2\]"):
        env.step(zero)
    env.reset(options={"reset_mask": np.array([False, False, True])})
    env.unwrapped.datas[2].qpos[1] = 5.0
    env.step(zero)
    assert [data.time for data in env.unwrapped.datas[:2]] > times


def test_warnings_still_reach_mujocos_handler():
    """The guard forwards MuJoCo's warnings (here a non-finite control) to the handler that prints them."""
    code = """
        import warnings
        warnings.simplefilter("ignore")
        import numpy as np, nbgym
        env = nbgym.make("HalfCheetah-v5")
        env.reset(seed=0)
        env.step(np.full(6, np.nan, dtype=np.float32))
        print("stepped", env.unwrapped.data.warning[mujoco_warning].number)
    """.replace("mujoco_warning", "__import__('mujoco').mjtWarning.mjWARN_BADCTRL")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert "stepped 5" in result.stdout  # once per mj_step of the frame_skip
    assert "Nan, Inf or huge value in CTRL" in result.stdout + result.stderr


def test_ctrl_c_during_threaded_step_never_leaves_a_helper_stepping():
    """SIGINT sent again and again during a 2-thread MuJoCo step: every step that raised KeyboardInterrupt
    still finished in every thread before returning, so all sub-environments keep the same time."""
    code = """
        import os, signal, threading, time, warnings
        warnings.simplefilter("ignore")
        import numpy as np, nbgym
        env = nbgym.make_vec("HalfCheetah-v5", 32, num_threads=2, max_episode_steps=10**9)  # never terminates
        env.reset(seed=0)
        actions = np.zeros((32, 6), dtype=np.float32)
        env.step(actions)
        interrupts = steps = 0

        def sender():
            for _ in range(60):
                time.sleep(0.005)
                os.kill(os.getpid(), signal.SIGINT)

        def check():
            times = {data.time for data in env.unwrapped.datas}
            assert len(times) == 1, times

        thread = threading.Thread(target=sender)
        thread.start()
        while thread.is_alive():
            try:
                while thread.is_alive():
                    try:
                        env.step(actions)
                        steps += 1
                        check()
                    except KeyboardInterrupt:
                        interrupts += 1
            except KeyboardInterrupt:  # one landing in the handler above
                interrupts += 1
        thread.join()
        check()
        print("interrupts", interrupts, "steps", steps)
    """
    result = run_python(code)
    assert result.returncode == 0, result.stderr[-3000:]
    interrupts = int(result.stdout.split()[1])
    assert interrupts >= 30, result.stdout


def test_unknown_blas_summation_order_runs_with_one_warning():
    """With an OpenBLAS core whose dot product nbgym cannot reproduce, every MuJoCo env still builds and runs:
    one RuntimeWarning, and the values that are not norms stay gymnasium's."""
    code = """
        import warnings
        import numpy as np
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import nbgym, gymnasium
            for env_id in ("Reacher-v5", "Pusher-v5", "Ant-v5", "HalfCheetah-v5"):
                env = nbgym.make(env_id)
                env.reset(seed=0)
                env.step(env.action_space.sample())
            ours, theirs = nbgym.make("HalfCheetah-v5"), gymnasium.make("HalfCheetah-v5")
            assert (ours.reset(seed=3)[0] == theirs.reset(seed=3)[0]).all()
            action = np.full(6, 0.25, dtype=np.float32)
            assert ours.step(action)[1] == theirs.step(action)[1]
        norm_warnings = [w for w in caught if "np.linalg.norm" in str(w.message)]
        print("warnings", len(norm_warnings), norm_warnings[0].category.__name__ if norm_warnings else None)
    """
    probe = run_python("from nbgym.envs.mujoco import _sim; print(_sim.NORM_EXACT)", {"OPENBLAS_CORETYPE": "Prescott"})
    assert probe.returncode == 0, probe.stderr
    result = run_python(code, {"OPENBLAS_CORETYPE": "Prescott"})
    assert result.returncode == 0, result.stderr[-3000:]
    expected = 0 if probe.stdout.strip() == "True" else 1
    assert f"warnings {expected}" in result.stdout
    if expected:
        assert "RuntimeWarning" in result.stdout
