"""Time to the first step in a fresh process: nbgym compiling its kernels (an empty numba cache) or
loading them (a warm cache), beside gymnasium (nothing to compile)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from ._common import ENV_IDS, FULL, LIBRARIES

_COLD, _WARM = "nbgym, cold cache", "nbgym, warm cache"

# What the timed process runs: the import, make_vec, reset and one step, as a training script starts.
_FIRST_STEP = """
import {library}
env = {library}.make_vec({env_id!r}, 16)
env.reset(seed=0)
env.step(env.action_space.sample())
"""


class FirstStep:
    """Import, ``make_vec(id, 16)``, ``reset`` and one ``step`` in a new process.

    Each sample of the cold case has its own empty ``NUMBA_CACHE_DIR`` (everything compiles); the warm
    case shares one that ``nbgym warmup`` filled in ``setup``.
    """

    params = (
        ENV_IDS if FULL else ["CartPole-v1"],
        [_COLD, _WARM, *(library for library in LIBRARIES if library == "gymnasium")],
    )
    param_names = ("env", "contender")
    repeat = (1, 3, 60.0)
    number = 1
    warmup_time = 0
    timeout = 600

    def setup(self, env_id: str, contender: str) -> None:
        self.root = tempfile.mkdtemp(prefix="nbgym-asv-cache-")
        if contender == _WARM:
            subprocess.run(
                [sys.executable, "-m", "nbgym", "warmup", env_id],
                env={**os.environ, "NUMBA_CACHE_DIR": self.root},
                check=True,
                capture_output=True,
            )

    def teardown(self, env_id: str, contender: str) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def timeraw_first_step(self, env_id: str, contender: str) -> tuple[str, str]:
        """Seconds from the import to the end of the first step (the interpreter's own start excluded)."""
        library = "gymnasium" if contender == "gymnasium" else "nbgym"
        cache = f"tempfile.mkdtemp(dir={self.root!r})" if contender == _COLD else repr(self.root)
        # numba reads NUMBA_CACHE_DIR when it is imported, which the timed statement does.
        setup = f"import os, tempfile\nos.environ['NUMBA_CACHE_DIR'] = {cache}"
        return _FIRST_STEP.format(library=library, env_id=env_id), setup
