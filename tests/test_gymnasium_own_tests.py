"""gymnasium 1.4.0's own tests, run against nbgym: the vendored tests in tests/gymnasium_1_4_0 (gymnasium's code, MIT,
its licence kept with them) run by pytest in a process of their own, where ``import gymnasium`` gives nbgym
(tests/gymnasium_1_4_0/conftest.py).

The tests here are the ones that failed against nbgym (issue #38): gymnasium's ``check_env`` on the JAX functional
environments (nbgym's check_env did not convert their jax arrays to numpy as gymnasium's does), and CarRacing's
domain-randomised colours kept by ``reset(options={"randomize": False})``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from helpers.common import JAX_IDS
from helpers.paths import ROOT

VENDORED = ROOT / "tests" / "gymnasium_1_4_0"
TESTS = [f"tests/envs/test_envs.py::test_all_env_api[{env_id}]" for env_id in JAX_IDS] + [
    "tests/envs/test_env_implementation.py::test_carracing_domain_randomize"
]


def test_gymnasiums_own_tests_pass_on_nbgym(tmp_path):
    pytest.importorskip("jax")
    shutil.copytree(VENDORED, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not nbgym's settings (pyproject.toml)
    environ = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "NBGYM_TEST_IDS": ",".join([*JAX_IDS, "CarRacing-v3"]),  # the envs made at collection (all: ~40 envs' kernels)
    }
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-rA", *TESTS]
    result = subprocess.run(command, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert f"{len(TESTS)} passed" in result.stdout, result.stdout[-4000:]
    assert f"gymnasium is nbgym: nbgym from {ROOT / 'nbgym' / '__init__.py'}" in result.stdout  # the header
