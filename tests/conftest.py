"""Shared pytest configuration.

Under ``NUMBA_DISABLE_JIT=1`` (CI's coverage pass) the kernels run as plain Python: numpy then warns
about the uint64 wrap-around that numpy's PCG64 arithmetic relies on by design, so those warnings are
silenced there, and tests marked ``jit_only`` (seconds compiled, minutes interpreted) are skipped.

Tests marked ``slow`` (long differential sweeps, property tests with thousands of examples) run only when asked
for: ``pytest -m slow`` runs them, ``pytest -m "slow or not slow"`` everything. Each has a short version in the
default run (fewer steps, seeds or examples), so every behaviour they check is checked on every run.

Tests marked ``cold`` compile kernels that no other test needs: from an empty cache in a process of their own, or
the Box2D port's functions as Python entry points (one to four minutes each on the 2-core machine). They run only
when asked for (``pytest -m cold``); CI runs the port's interpreted (``NUMBA_DISABLE_JIT=1``, where they take
seconds).

Tests marked ``training`` train an agent with an example's full budget (minutes each, and their time grows with
the machine's load): they run only with ``pytest --training``.
"""

import os
from pathlib import Path

import numba
import pytest
from helpers.paths import ROOT

# gymnasium's renderers initialise SDL too: keep SDL from taking over SIGTERM in this process, or the
# async tests' forked workers inherit a SIGTERM that does not stop them (see nbgym.envs._render).
os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")


# gymnasium's own tests, vendored: they import gymnasium expecting nbgym in its place, in a process of their own
# (tests/test_gymnasium_own_tests.py runs them).
collect_ignore = ["gymnasium_1_4_0"]


def pytest_configure(config):
    _check_nbgym_is_this_checkout()
    _keep_mujoco_log_out_of_the_working_directory()
    config.addinivalue_line(
        "markers", "slow: long sweeps, run only by `pytest -m slow` (a short version of each runs by default)"
    )
    config.addinivalue_line(
        "markers", "jit_only: seconds compiled but minutes as Python: skipped when NUMBA_DISABLE_JIT=1"
    )
    config.addinivalue_line(
        "markers", "cold: compiles kernels no other test needs (minutes): run only by `pytest -m cold`"
    )
    config.addinivalue_line("markers", "training: an example's full training budget; runs only with --training")
    config.addinivalue_line("markers", "ray: needs Ray (nbgym[ray]); CI runs them in a venv of their own (.ci/run)")
    if numba.config.DISABLE_JIT:
        config.addinivalue_line("filterwarnings", "ignore:overflow encountered in scalar:RuntimeWarning")


def pytest_addoption(parser):
    parser.addoption(
        "--training", action="store_true", help="also run the examples' full training budgets (minutes each)"
    )


def pytest_collection_modifyitems(config, items):
    left_out = set()
    if not config.getoption("--training"):
        left_out.add("training")
    if not config.getoption("markexpr"):  # a -m expression chooses for itself (`pytest -m slow`)
        left_out.update(("slow", "cold"))
    deselected = [item for item in items if any(item.get_closest_marker(name) for name in left_out)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
    if numba.config.DISABLE_JIT:
        skip = pytest.mark.skip(reason="jit_only: minutes when the kernels run as Python")
        for item in items:
            if item.get_closest_marker("jit_only"):
                item.add_marker(skip)


def _check_nbgym_is_this_checkout():
    """The tests test the nbgym they import: fail loudly when that is not this checkout's (a non-editable install
    of an older state of it, or another checkout), rather than pass or fail on code that is not the one edited."""
    import nbgym

    imported = Path(nbgym.__file__).resolve().parent
    if imported != ROOT / "nbgym":
        raise pytest.UsageError(
            f"the tests import nbgym from {imported}, not from this checkout ({ROOT / 'nbgym'}): they would test that "
            'copy. Install the checkout in editable mode, `pip install -e ".[test]"`, then run `pytest` again '
            "(or run `python -m pytest` from the checkout's root)."
        )


def _keep_mujoco_log_out_of_the_working_directory():
    """MuJoCo appends each warning to MUJOCO_LOG.TXT in the working directory (mujoco 4.0 warns of the
    deprecated ``settotalmass`` of gymnasium's HalfCheetah model at every load, as under gymnasium): the tests
    keep only its console output, which pytest captures. (mujoco < 4 has no log configuration.)"""
    try:
        import mujoco
    except ImportError:
        return
    if hasattr(mujoco, "MjLogConfig"):
        log_config = mujoco.MjLogConfig.get()
        log_config.logto_file = False
        log_config.set()
