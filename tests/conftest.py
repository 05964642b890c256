"""Shared pytest configuration.

Under ``NUMBA_DISABLE_JIT=1`` (CI's coverage pass) the kernels run as plain Python: numpy then warns
about the uint64 wrap-around that numpy's PCG64 arithmetic relies on by design, so those warnings are
silenced there; tests marked ``slow`` are skipped in that pass with ``-m "not slow"``.
"""

import os

import numba

# gymnasium's renderers initialise SDL too: keep SDL from taking over SIGTERM in this process, or the
# async tests' forked workers inherit a SIGTERM that does not stop them (see nbgym.envs._render).
os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long differential runs, skipped in the interpreted (no-jit) CI pass")
    config.addinivalue_line("markers", "ray: needs Ray (nbgym[ray]); CI runs them in a venv of their own (.ci/run)")
    if numba.config.DISABLE_JIT:
        config.addinivalue_line("filterwarnings", "ignore:overflow encountered in scalar:RuntimeWarning")
