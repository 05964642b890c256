"""The wheel carries what the front door promises: the MIT licence file and expression, ``py.typed`` (PEP 561)
and the rendering assets."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("nbgym-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(name).decode() for name in names if name.endswith(".dist-info/METADATA"))
    assert "nbgym/py.typed" in names
    assert "nbgym/envs/_render/assets/clockwise.png" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "License-Expression: MIT" in metadata.splitlines()
