"""Time to the first step in a fresh process: nbgym compiling its kernels (an empty numba cache), loading them (a warm
cache) or loading the kernels prebuilt into its package (an empty cache; what a wheel built with
``NBGYM_PREBUILD_KERNELS`` carries), beside gymnasium (nothing to compile)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

from ._common import ENV_IDS, FULL, LIBRARIES

_COLD, _WARM, _PREBUILT = "nbgym, cold cache", "nbgym, warm cache", "nbgym, prebuilt kernels"

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
    case shares one that ``nbgym warmup`` filled in ``setup``; the prebuilt case imports a copy of the package that
    ``nbgym warmup --prebuilt`` filled in ``setup``, over an empty cache of its own.
    """

    params = (
        ENV_IDS if FULL else ["CartPole-v1"],
        [_COLD, _WARM, _PREBUILT, *(library for library in LIBRARIES if library == "gymnasium")],
    )
    param_names = ("env", "contender")
    repeat = (1, 3, 60.0)
    number = 1
    warmup_time = 0
    timeout = 600

    def setup(self, env_id: str, contender: str) -> None:
        self.root = tempfile.mkdtemp(prefix="nbgym-asv-cache-")
        self.package_root = None
        if contender == _PREBUILT:
            import nbgym

            self.package_root = tempfile.mkdtemp(prefix="nbgym-asv-prebuilt-")
            copy = pathlib.Path(self.package_root) / "nbgym"
            ignored = shutil.ignore_patterns("__pycache__", "_prebuilt_kernels")
            shutil.copytree(pathlib.Path(nbgym.__file__).resolve().parent, copy, ignore=ignored)
            subprocess.run(
                [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", str(copy / "_prebuilt_kernels"), env_id],
                env={**os.environ, "PYTHONPATH": self.package_root},
                check=True,
                capture_output=True,
            )
        if contender == _WARM:
            subprocess.run(
                [sys.executable, "-m", "nbgym", "warmup", env_id],
                env={**os.environ, "NUMBA_CACHE_DIR": self.root},
                check=True,
                capture_output=True,
            )

    def teardown(self, env_id: str, contender: str) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        if self.package_root is not None:
            shutil.rmtree(self.package_root, ignore_errors=True)

    def timeraw_first_step(self, env_id: str, contender: str) -> tuple[str, str]:
        """Seconds from the import to the end of the first step (the interpreter's own start excluded)."""
        library = "gymnasium" if contender == "gymnasium" else "nbgym"
        cache = f"tempfile.mkdtemp(dir={self.root!r})" if contender in (_COLD, _PREBUILT) else repr(self.root)
        # numba reads NUMBA_CACHE_DIR when it is imported, which the timed statement does.
        setup = f"import os, tempfile\nos.environ['NUMBA_CACHE_DIR'] = {cache}"
        if self.package_root is not None:
            setup += f"\nimport sys\nsys.path.insert(0, {self.package_root!r})"
        return _FIRST_STEP.format(library=library, env_id=env_id), setup
