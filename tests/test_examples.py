"""The training examples run as scripts with short budgets; with their full budgets (``pytest --training``) they
learn CartPole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from helpers.examples import load
from helpers.paths import EXAMPLES

SCRIPTS = ["ppo_cleanrl", "dqn_same_step", "sb3_ppo"]


@pytest.mark.parametrize(
    ("name", "budget"),
    [
        ("ppo_cleanrl", ["--total-timesteps", "2048", "--num-envs", "4", "--num-steps", "64"]),
        ("dqn_same_step", ["--total-timesteps", "1200", "--learning-starts", "400", "--eval-frequency", "600"]),
        ("sb3_ppo", ["--total-timesteps", "512", "--num-envs", "4"]),
    ],
)
def test_example_runs_with_a_short_budget(
    name: str, budget: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "curve.png"
    mean_return = load(name).main([*budget, "--eval-episodes", "2", "--plot", str(plot)])
    assert 0 < mean_return <= 500
    assert "SPS" in capsys.readouterr().out and plot.stat().st_size > 0


def test_examples_run_as_scripts() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "ppo_cleanrl.py"),
            "--total-timesteps",
            "1024",
            "--num-envs",
            "2",
            "--eval-episodes",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "greedy return" in result.stdout


def test_cleanrl_ppo_trains_identically_on_nbgym_and_gymnasium() -> None:
    ppo = load("ppo_cleanrl")
    args = ppo.arguments_parser().parse_args(["--total-timesteps", "1024", "--num-envs", "4", "--num-steps", "64"])
    parameters = []
    for library in ("nbgym", "gymnasium"):
        training = ppo.train(ppo.make_envs(library, "CartPole-v1", 4), args, report=lambda line: None)
        parameters.append(training.agent.state_dict())
        assert training.episode_returns  # episodes ended, so autoreset and the statistics were exercised
    ours, theirs = parameters
    assert list(ours) == list(theirs) and all(torch.equal(ours[name], theirs[name]) for name in theirs)


@pytest.mark.training
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name", SCRIPTS)
def test_example_learns_cartpole_in_its_budget(name: str) -> None:
    assert load(name).main([]) >= 475
