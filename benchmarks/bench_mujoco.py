"""Env-steps per second of nbgym's compiled MuJoCo environments beside gymnasium's (and envpool's, if installed).

For each environment and number of sub-environments: nbgym's compiled vector env (``make_vec``) at 1 and
2 threads, gymnasium's ``SyncVectorEnv`` and ``AsyncVectorEnv`` (one process per sub-environment, so only
up to ``--max-async`` of them), envpool with as many threads as nbgym, and ``mujoco.batch`` (mujoco 4.0's
batched simulations, one state row each, ``persistent=True``) stepping the physics alone with as many
threads: controls in, ``frame_skip`` substeps, qpos and qvel out, without ``mj_rnePostConstraint``,
observations, rewards or resets. Then the single env (``make``) against ``gymnasium.make``.

nbgym and gymnasium are seeded alike and given the same actions, so they run through the same states
(a fallen humanoid costs more per step than a standing one); timings alternate between libraries (the order
rotated from round to round) and each figure is the median of its ``--repeats`` samples::

    python benchmarks/bench_mujoco.py
    python benchmarks/bench_mujoco.py --envs Hopper-v5 --num-envs 64 256 --repeats 5

Thousands of gymnasium simulations stay in the process's memory; when ``AsyncVectorEnv`` then cannot
fork its workers, measure one environment per process (``--envs``).

Ratios of one run compare; absolute numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

import nbgym
from nbgym import _bench

ENVS = ["HalfCheetah-v5", "Hopper-v5", "Ant-v5", "Humanoid-v5"]
NUM_ENVS = [16, 64, 256, 1024]


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
"""``wall``: elapsed time (what threads and processes speed up); ``cpu``: this process's CPU time, which
other processes' load hardly changes (single-threaded work only: it adds up the threads' time and
leaves out worker processes')."""
clock = CLOCKS["wall"]


def _sampler(step: Callable[[], None], env_steps_per_call: int, sample_time: float) -> Callable[[], float]:
    """A sampler: calls ``step`` for about ``sample_time`` seconds of ``clock`` and returns env-steps per second."""
    step()  # compiles or loads kernels, starts workers
    start = clock()
    for _ in range(3):
        step()
    elapsed = (clock() - start) / 3
    calls = max(1, int(sample_time / max(elapsed, 1e-6)))

    def sample() -> float:
        begin = clock()
        for _ in range(calls):
            step()
        return calls * env_steps_per_call / (clock() - begin)

    return sample


def _vector_steppers(
    env_id: str, num_envs: int, args: argparse.Namespace
) -> tuple[dict[str, Callable[[], float]], list]:
    """The samplers of every library at ``num_envs``, and the environments to close after measuring."""
    import gymnasium

    rng = np.random.default_rng(0)
    shape = nbgym.make_vec(env_id, 1).single_action_space.shape
    pool = [rng.uniform(-1, 1, (num_envs, *shape)).astype(np.float32) for _ in range(64)]
    samplers: dict[str, Callable[[], float]] = {}
    envs = []

    def add(name: str, env) -> None:
        envs.append(env)
        env.reset(seed=0)
        position = iter(range(10**12))
        samplers[name] = _sampler(lambda: env.step(pool[next(position) % 64]), num_envs, args.sample_time)

    for threads in args.threads:
        add(f"nbgym {threads}t", nbgym.make_vec(env_id, num_envs, num_threads=threads))
    if num_envs <= args.max_sync:
        add("gymnasium sync", gymnasium.make_vec(env_id, num_envs, vectorization_mode="sync"))
    if num_envs <= args.max_async:
        add("gymnasium async", gymnasium.make_vec(env_id, num_envs, vectorization_mode="async"))
    try:
        import envpool

        for threads in args.threads:
            env = envpool.make_gymnasium(env_id, num_envs=num_envs, num_threads=threads, seed=0)
            add(f"envpool {threads}t", env)
    except ImportError:
        pass
    import mujoco.batch

    model = nbgym.make_vec(env_id, 1).unwrapped.model
    frame_skip = nbgym.make_vec(env_id, 1).unwrapped.frame_skip
    for threads in args.threads:
        batch = mujoco.batch.Batch(model, num_envs, nthread=threads, persistent=True)
        batch.reset()
        position = iter(range(10**12))

        def physics(batch=batch, position=position) -> None:
            batch.ctrl[:] = pool[next(position) % 64]
            batch.step(nstep=frame_skip)
            batch.qpos.copy(), batch.qvel.copy()

        samplers[f"mujoco.batch {threads}t"] = _sampler(physics, num_envs, args.sample_time)
    return samplers, envs


def _single_steppers(env_id: str, args: argparse.Namespace) -> dict[str, Callable[[], float]]:
    import gymnasium

    samplers = {}
    for name, env in (("nbgym", nbgym.make(env_id)), ("gymnasium", gymnasium.make(env_id))):
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        pool = [rng.uniform(-1, 1, env.action_space.shape).astype(np.float32) for _ in range(64)]

        def step(env=env, pool=pool, position=iter(range(10**12))):
            for _ in range(100):
                _, _, terminated, truncated, _ = env.step(pool[next(position) % 64])
                if terminated or truncated:
                    env.reset()

        samplers[name] = _sampler(step, 100, args.sample_time)
    return samplers


def _rate(value: float) -> str:
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"


def main(argv: Sequence[str] | None = None) -> int:
    """Measures and prints one Markdown table per environment.

    Returns:
        The exit status.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=ENVS)
    parser.add_argument("--num-envs", nargs="+", type=int, default=NUM_ENVS)
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--max-async", type=int, default=64, help="largest batch run by gymnasium's AsyncVectorEnv")
    parser.add_argument("--max-sync", type=int, default=4096, help="largest batch run by gymnasium's SyncVectorEnv")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample-time", type=float, default=0.5)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="cpu: CPU time of this process, for a loaded machine (one thread, no async)",
    )
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    if args.clock == "cpu":
        args.threads, args.max_async = [1], 0
    warnings.filterwarnings("ignore")
    for env_id in args.envs:
        rows = []
        for num_envs in args.num_envs:
            samplers, envs = _vector_steppers(env_id, num_envs, args)
            rows.append((num_envs, _bench.interleaved_medians(samplers, args.repeats)))
            for env in envs:
                env.close()
        columns = list(dict.fromkeys(name for _, rates in rows for name in rates))
        ratios = [f"nbgym {t}t / mujoco.batch {t}t" for t in args.threads]
        print(
            f"\n**{env_id}** (env-steps/s; ratios: nbgym 1 thread / gymnasium sync, nbgym / mujoco.batch at "
            f"equal threads)\n"
        )
        print("| num_envs | " + " | ".join(columns) + " | nbgym 1t / sync | " + " | ".join(ratios) + " |")
        print("|---" * (len(columns) + 2 + len(ratios)) + "|")
        for num_envs, rates in rows:
            cells = [_rate(rates[name]) if name in rates else "-" for name in columns]
            ratio = f"{rates['nbgym 1t'] / rates['gymnasium sync']:.2f}x" if "gymnasium sync" in rates else "-"
            batch = [f"{rates[f'nbgym {t}t'] / rates[f'mujoco.batch {t}t']:.2f}x" for t in args.threads]
            print(f"| {num_envs} | " + " | ".join(cells) + f" | {ratio} | " + " | ".join(batch) + " |")
        single = _bench.interleaved_medians(_single_steppers(env_id, args), args.repeats)
        print(
            f"| single env (`make`) | nbgym {_rate(single['nbgym'])}, gymnasium {_rate(single['gymnasium'])} "
            f"| {single['nbgym'] / single['gymnasium']:.2f}x |"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
