"""The last drop-in gaps with gymnasium 1.4.0 (issue #26): each compared with gymnasium."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter from the worktree root (so this checkout's nbgym is imported)."""
    environ = {**os.environ, "SDL_VIDEODRIVER": "dummy", **env}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=environ, timeout=300)


@pytest.mark.parametrize(
    "make",
    [
        "nbgym.make_vec('CartPole-v1', 2, render_mode='rgb_array')",
        "nbgym.make_vec('CartPole-v1', 2, render_mode='human')",
        "nbgym.make('Acrobot-v1', render_mode='rgb_array')",
    ],
)
def test_open_env_at_interpreter_exit_closes_quietly(make):
    # Kept alive by a module until the interpreter's last clean-up, when imports fail: close imports nothing.
    result = run_python(
        f"import builtins, nbgym\ne = {make}\ne.reset(seed=0)\ne.render()\nbuiltins.KEEP = e\n"
    )
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stderr.splitlines() if "XDG_RUNTIME_DIR" not in line] == []
