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
