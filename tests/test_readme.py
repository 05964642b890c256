"""Every Python code block of README.md and of the pages it sends readers to (``DOCS``) runs as pasted: each is taken
from its file and run on its own in a fresh interpreter (so no block leans on another's imports), in an empty
directory.

A block that needs an extra says so on its first line (``# pip install "nbgym[mujoco]"``); it is skipped,
with that reason, where the extra's packages are not installed. A block marked in the README with
``<!-- readme-test: not run (why) -->`` is only compiled and its imports run.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.paths import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

DOCS = (
    "README.md",
    "docs/mujoco.md",
    "docs/box2d.md",
    "docs/training.md",
    "docs/how_it_works.md",
    "docs/benchmarks.md",
    "docs/rollouts.md",
    "docs/testing.md",
)
"""The README and the pages its sections moved to. (docs/custom_environments.md's blocks build on each other, step by
step: the module they add up to is examples/grid_world.py, which tests/engine/test_engine_examples.py runs.)"""

_BLOCK = re.compile(r"^(<!-- readme-test: not run \((?P<why>[^)]*)\) -->\n)?```python\n(?P<code>.*?)^```", re.S | re.M)
_EXTRAS = re.compile(r'^# pip install "nbgym\[(?P<extras>[a-z0-9,]+)\]"')


def readme_blocks() -> list[tuple[str, str, str | None]]:
    """``(where, code, why_not_run)`` of each ```` ```python ```` block of ``DOCS`` (``where``: ``file:line``)."""
    blocks = []
    for name in DOCS:
        text = (ROOT / name).read_text()
        blocks += [
            (f"{name}:{text.count(chr(10), 0, match.start('code')) + 1}", match["code"], match["why"])
            for match in _BLOCK.finditer(text)
        ]
    return blocks


def _requirement_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0)


def missing_packages(code: str) -> list[str]:
    """The distributions of the extras the block's first line names that are not installed."""
    match = _EXTRAS.match(code)
    if match is None:
        return []
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    missing = []
    for extra in match["extras"].split(","):
        for requirement in optional[extra]:
            try:
                importlib.metadata.version(_requirement_name(requirement))
            except importlib.metadata.PackageNotFoundError:
                missing.append(_requirement_name(requirement))
    return missing


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    """Runs ``code`` in a new interpreter in ``cwd``, importing this checkout's nbgym."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


BLOCKS = readme_blocks()


def test_the_readme_has_its_python_blocks():
    assert len(BLOCKS) >= 7
    assert any(why is not None for _, _, why in BLOCKS)  # the marker is parsed, not silently ignored


@pytest.mark.parametrize("line, code, why_not_run", BLOCKS, ids=[line for line, _, _ in BLOCKS])
def test_readme_block_runs_on_its_own(line, code, why_not_run, tmp_path):
    missing = missing_packages(code)
    if missing:
        pytest.skip(f"{line} needs {', '.join(missing)} ({_EXTRAS.match(code).group(0)[2:]})")
    if why_not_run is not None:
        # Not run (the reason is in the README): its syntax and its imports are checked.
        tree = ast.parse(code)
        code = ast.unparse([node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))])
    result = run_python(code, tmp_path)
    assert result.returncode == 0, f"{line} failed:\n{code}\n{result.stderr}"


def test_a_block_that_fails_fails_the_test(tmp_path):
    """The runner sees a block's failure (a name from another block, say)."""
    result = run_python("envs = nbgym.make_vec('CartPole-v1', 4)\n", tmp_path)
    assert result.returncode != 0 and "NameError: name 'nbgym' is not defined" in result.stderr


def test_extras_of_a_block_are_read_from_its_first_line():
    assert missing_packages('# pip install "nbgym[mujoco]"\nimport nbgym\n') in (
        [],
        ["mujoco"],
        ["mujoco", "imageio"],
        ["imageio"],
    )
    with pytest.raises(KeyError):
        missing_packages('# pip install "nbgym[nosuchextra]"\n')
    assert missing_packages("import nbgym\n") == []


def test_the_readme_is_a_front_door():
    """At most 400 lines (the measurement details live in docs/), each section once: a section pasted twice by an
    edit is caught here, not by a reader."""
    text = (ROOT / "README.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(text.splitlines()) <= 400
    assert len(headings) == len(set(headings)), headings
