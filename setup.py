"""nbgym's build: setuptools as ``pyproject.toml`` declares it, and, on request, the kernels compiled into the wheel.

``NBGYM_PREBUILD_KERNELS=1 pip wheel --no-build-isolation .`` (or ``pip install``) compiles every environment's
kernels whose modules import in the building environment (``nbgym warmup --prebuilt``: one that does not, MuJoCo's
without ``mujoco``, is skipped), for three x86-64 processor levels (x86-64-v4, x86-64-v3, generic: a process loads
the best its processor runs), into the wheel's ``nbgym/_prebuilt_kernels``; a comma-separated list of ids instead of
``1`` compiles those. A first step then loads its kernels from the package instead of compiling them (a Box2D
environment's ~50 s becomes ~1 s). Every id at the three processor levels takes ~14.5 min to build on a 2-core machine
and adds 57 MB to the package (``docs/benchmarks.md``); ``scripts/build_release_wheels.sh`` builds a release's wheels.
``NBGYM_PREBUILD_LEVELS=generic,x86-64-v3`` builds those levels only (a level needs a machine that runs its code);
``NBGYM_PREBUILD_REUSE=<dir>`` copies the kernels found in that kernel cache (one a run with
``NUMBA_CPU_NAME=<level>`` filled) instead of compiling them again.

The kernels are numba's code for this Python and this numba: the build must run in the environment the wheel is for
(``--no-build-isolation``: numba, numpy and the extras' libraries installed beside it), and such a wheel is tagged
for this Python and platform. ``nbgym/_prebuilt_kernels/manifest.json`` says what they were built for. A kernel's key
holds numpy's minor release, and MuJoCo's version only for the MuJoCo kernels: the wheel's kernels load without the
optional dependencies and with another numpy patch release. A process with another numba, numpy minor release, MuJoCo
(for the MuJoCo ids) or other compile options (``NUMBA_OPT``, ``NUMBA_BOUNDSCHECK``, ...) compiles those kernels as
it would without them, and says why. Without the variable the build is the plain, pure-Python one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

PREBUILD = os.environ.get("NBGYM_PREBUILD_KERNELS", "").strip()
PREBUILD_IDS = [] if PREBUILD in ("", "1") else [env_id.strip() for env_id in PREBUILD.split(",") if env_id.strip()]
PREBUILD_LEVELS = os.environ.get("NBGYM_PREBUILD_LEVELS", "").strip()
PREBUILD_REUSE = os.environ.get("NBGYM_PREBUILD_REUSE", "").strip()


class BuildWithKernels(build_py):
    """setuptools' ``build_py``, then the prebuilt kernels into the built package when ``NBGYM_PREBUILD_KERNELS`` is
    set."""

    def run(self) -> None:
        super().run()
        if not PREBUILD or self.editable_mode:
            return
        # No bytecode files and no MuJoCo log in the built package: the compile runs elsewhere, importing it.
        environ = {**os.environ, "PYTHONPATH": os.path.abspath(self.build_lib), "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            subprocess.run([sys.executable, "-c", "import numba, numpy"], env=environ, check=True)
        except subprocess.CalledProcessError:
            raise SystemExit(
                "NBGYM_PREBUILD_KERNELS compiles the kernels with the building environment's numba: install nbgym's "
                "dependencies there and build with `pip wheel --no-build-isolation .`"
            ) from None
        prebuilt = os.path.join(os.path.abspath(self.build_lib), "nbgym", "_prebuilt_kernels")
        command = [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", prebuilt, *PREBUILD_IDS]
        if PREBUILD_LEVELS:
            command += ["--levels", PREBUILD_LEVELS]
        if PREBUILD_REUSE:
            command += ["--reuse", os.path.abspath(PREBUILD_REUSE)]
        with tempfile.TemporaryDirectory() as elsewhere:
            status = subprocess.run(command, env=environ, cwd=elsewhere).returncode
        if status != 0:
            raise SystemExit(f"nbgym warmup --prebuilt failed (exit status {status}): no wheel without its kernels")


class KernelsDistribution(Distribution):
    """The distribution counts prebuilt kernels (machine code) as extension modules: the package is then built as
    platform-specific, and its wheel tagged for this Python and platform."""

    def has_ext_modules(self) -> bool:
        return bool(PREBUILD) or super().has_ext_modules()


setup(cmdclass={"build_py": BuildWithKernels}, distclass=KernelsDistribution)
