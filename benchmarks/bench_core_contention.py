"""How much the learner loop's two halves slow each other on two cores: the policy timed alone and beside a process
that steps, a batch's step timed alone and beside a process that runs the policy.

    python benchmarks/bench_core_contention.py [--env ID] [--num-envs N] [--rounds R]

``bench_learner_loop.py``'s ideal spreads the step's and the policy's times, each measured alone, over the cores: it
assumes that a core runs as fast while the other one works. Cores share caches, memory bandwidth and, on a virtual
machine, the host's own cores, so they need not. Here the other work runs in a process of its own (no GIL shared):
the policy is ``nbgym._bench.MlpPolicy`` on one BLAS thread, on ``N`` observations, as the loop runs it on each batch;
the step is nbgym's compiled vector env of ``N`` sub-environments on one thread. Each round times each of the four
once, in alternation; the medians of the rounds and of each round's ratio (beside / alone) are printed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: the policy takes one core
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable  # noqa: E402

from nbgym import _bench  # noqa: E402

_CALLS = 300
"""Policy calls or steps per timing."""


class LoopHalves:
    """The env and the policy of the loop, made and warmed up, each timed per call."""

    def __init__(self, env_id: str, num_envs: int) -> None:
        self.runner = _bench.make_runner("nbgym", env_id, num_envs, _bench.action_pool(env_id, num_envs), single=False)
        env = self.runner.env
        self.observations = env.reset(seed=0)[0]
        self.policy = _bench.MlpPolicy(env.single_observation_space, env.single_action_space)
        self.policy_seconds(10)

    def policy_seconds(self, calls: int = _CALLS) -> float:
        """The policy's mean time on the observations of a batch."""
        start = time.perf_counter()
        for _ in range(calls):
            self.policy(self.observations)
        return (time.perf_counter() - start) / calls

    def step_seconds(self, calls: int = _CALLS) -> float:
        """A batch's mean step time (sub-environments whose episodes end autoreset, as in the loop)."""
        return _bench.time_steps(self.runner, calls) / calls


def _serve(env_id: str, num_envs: int, work: str) -> None:
    """The other process: says it is ready, then runs ``work`` ("policy" or "step") until it is killed."""
    halves = LoopHalves(env_id, num_envs)
    print("ready", flush=True)
    run = halves.policy_seconds if work == "policy" else halves.step_seconds
    while True:
        run()


def _beside(env_id: str, num_envs: int, work: str, timed: Callable[[], float]) -> float:
    """``timed()`` while another process runs ``work``."""
    other = subprocess.Popen(
        [sys.executable, __file__, "--serve", work, "--env", env_id, "--num-envs", str(num_envs)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        while (line := other.stdout.readline()) != "ready\n":  # other lines: a library's own prints, passed on
            if not line:
                raise RuntimeError(f"the process that runs the {work} ended with status {other.wait()} (see above)")
            sys.stderr.write(line)
        time.sleep(0.05)  # under way
        return timed()
    finally:
        other.kill()
        other.wait()
        other.stdout.close()


def measure(env_id: str, num_envs: int, rounds: int) -> dict[str, Any]:
    """Alternating timings of the policy and the step, alone and beside the other in another process."""
    halves = LoopHalves(env_id, num_envs)
    samples: dict[str, list[float]] = {"policy": [], "policy beside stepping": [], "step": [], "step beside policy": []}
    for _ in range(rounds):
        samples["policy"].append(halves.policy_seconds())
        samples["policy beside stepping"].append(_beside(env_id, num_envs, "step", halves.policy_seconds))
        samples["step"].append(halves.step_seconds())
        samples["step beside policy"].append(_beside(env_id, num_envs, "policy", halves.step_seconds))
    halves.runner.close()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="LunarLander-v3")
    parser.add_argument("--num-envs", type=int, default=32, help="a batch (default: 32, half of the loop's 64)")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (default: 7)")
    parser.add_argument("--serve", choices=("policy", "step"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.env, args.num_envs, args.serve)
        return 0
    samples = measure(args.env, args.num_envs, args.rounds)
    print(f"# {args.env} x{args.num_envs}, medians of {args.rounds} alternating rounds, the other work in a process")
    for alone, beside in (("policy", "policy beside stepping"), ("step", "step beside policy")):
        ratios = [b / a for a, b in zip(samples[alone], samples[beside])]
        print(
            f"{alone:>6s} alone {statistics.median(samples[alone]) * 1e6:7.1f} us, "
            f"beside the other {statistics.median(samples[beside]) * 1e6:7.1f} us: "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
