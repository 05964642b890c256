"""The wheel carries what the front door promises: the MIT licence file and expression, ``py.typed`` (PEP 561)
and the rendering assets."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from helpers.paths import ROOT


def test_license_file_is_mit_for_the_nbgym_developers():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 nbgym developers" in text


def test_wheel_has_the_license_py_typed_and_assets(tmp_path):
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("the build needs setuptools>=77 (pyproject's build-system)")
    # Built from a copy, so the source tree gets no build/ or egg-info directories.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "nbgym", source / "nbgym", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("nbgym-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(name).decode() for name in names if name.endswith(".dist-info/METADATA"))
    assert "nbgym/py.typed" in names
    assert "nbgym/envs/_render/assets/clockwise.png" in names
    assert "nbgym/envs/box2d/car_racing/assets/car_racing_score_font.npz" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "License-Expression: MIT" in metadata.splitlines()


def test_the_tests_refuse_an_nbgym_from_outside_the_checkout(tmp_path):
    """A non-editable install (or another checkout) first on the path: the run stops and says what to do."""
    (tmp_path / "elsewhere" / "nbgym").mkdir(parents=True)
    (tmp_path / "elsewhere" / "nbgym" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "elsewhere")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
            str(ROOT / "tests" / "test_readme.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout + result.stderr
    assert f"the tests import nbgym from {tmp_path / 'elsewhere' / 'nbgym'}, not from this checkout" in result.stderr
    assert 'pip install -e ".[test]"' in result.stderr


@pytest.mark.slow
@pytest.mark.jit_only
def test_a_prebuilt_wheel_loads_its_kernels_in_a_fresh_venv_without_the_builders_extras(tmp_path):
    """``NBGYM_PREBUILD_KERNELS=CartPole-v1 pip wheel``, then ``scripts/check_prebuilt_wheel.py``: installed into a fresh
    venv with ``[box2d]`` only (the builder has MuJoCo) and numpy one patch release apart, CartPole loads its kernels
    without compiling and steps as gymnasium does. (CI runs the check for three families, from its 3.12 pass's
    kernels.) Minutes: a compile per processor level and a venv's installs."""
    pytest.importorskip("setuptools")
    source = tmp_path / "source"
    shutil.copytree(ROOT / "nbgym", source / "nbgym", ignore=shutil.ignore_patterns("__pycache__", "_prebuilt_kernels"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "setup.py"):
        shutil.copy(ROOT / name, source / name)
    environ = {**os.environ, "NBGYM_PREBUILD_KERNELS": "CartPole-v1", "NUMBA_NUM_THREADS": "1"}
    for name in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "PYTHONPATH"):
        environ.pop(name, None)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path)]
    subprocess.run([*command, str(source)], check=True, capture_output=True, env=environ, cwd=tmp_path)
    (wheel,) = tmp_path.glob("nbgym-*.whl")
    check = [sys.executable, str(ROOT / "scripts" / "check_prebuilt_wheel.py"), str(wheel), "--ids", "CartPole-v1"]
    result = subprocess.run(check, capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CartPole-v1" in result.stdout and "compiled 0 functions, exact: single True, vector True" in result.stdout
