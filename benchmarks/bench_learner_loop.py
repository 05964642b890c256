"""The loop users run: a policy between steps, on every core. nbgym sync (one thread and all), nbgym async
(``recv`` -> policy -> ``send``, deterministic) beside envpool's sync and async modes where envpool installs,
and the ideal for the machine's cores.

    python benchmarks/bench_learner_loop.py [--env ID ...] [--num-envs N] [--seconds S] [--rounds R]

The policy is ``nbgym._bench.MlpPolicy`` (numpy, two tanh layers of 256, on one BLAS thread: this script pins
OpenBLAS before importing numpy), the same for every library. Each contender runs the loop for ``--seconds``
per round; the rounds are interleaved (every contender once per round, the order rotated) and the median of the
rounds is reported. The ratios are each round's, of samples taken seconds apart, and their median with their range
is reported: on a machine whose speed drifts between rounds, a ratio of medians would pair samples from
different minutes (LunarLander's async / ideal read 0.61 to 0.80 over one day on the 2-core AMD EPYC). Async runs in
batches of ``num_envs / 2``, and nbgym's also in one
batch of ``num_envs`` (``recv`` -> policy -> ``send`` with nothing else to overlap: what switching async on costs).

Each configuration is measured once. nbgym's async run with ``num_threads=1`` steps as with 2 (a batch goes to
``num_threads - 1`` workers, at least one, and the caller joins them), and a sync step that is one chunk (CartPole
x256) runs on one thread whatever ``num_threads`` is: such a contender is not measured again but shown as the same as
the other (``=``). A best of two samples of one configuration would count the machine's noise as speed (they
differed by 5-10% in one run, 2026-12-06).

The ideal: per ``num_envs`` env-steps, with ``t_step`` the one-thread sync step of the batch and ``t_policy`` the
policy on its observations (each timed alone in the same rounds), ``max((t_step + t_policy) / cores,
t_policy)``: all the work spread over the cores, but never faster than the policy alone, which one core runs. Each
round's ideal is from that round's times. It assumes that a core runs as fast while the other works, which two cores
sharing caches and memory need not do: ``bench_core_contention.py`` measures how far they slow each other.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: the policy takes one core
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numba  # noqa: E402

import nbgym  # noqa: E402
from nbgym import _bench  # noqa: E402
from nbgym.engine import _threads as threads  # noqa: E402

DEFAULT_ENVS = {
    "HalfCheetah-v5": 64,
    "Humanoid-v5": 64,
    "LunarLander-v3": 64,
    "BipedalWalker-v3": 64,
    "CartPole-v1": 256,
}


def _envpool(env_id: str, num_envs: int, batch_size: int, threads: int) -> Any:
    import envpool

    if env_id not in envpool.list_all_envs():
        raise _bench.Unavailable(f"envpool has no {env_id}")
    return envpool.make_gymnasium(env_id, num_envs=num_envs, batch_size=batch_size, num_threads=threads, seed=0)


def _one_thread_sync(env_id: str, num_envs: int, cores: int) -> bool:
    """Whether nbgym's sync step of ``num_envs`` with ``cores`` threads is a single thread's (one chunk: no worker)."""
    envs = nbgym.make_vec(env_id, num_envs)
    physics = envs._batch.physics
    envs.close()
    return threads.split(num_envs, cores, physics.min_chunk_size, physics.max_chunk_size)[1] == 0


def contenders(env_id: str, num_envs: int, cores: int) -> dict[str, tuple[Callable[[], Any], bool]]:
    """Each contender's name -> (its maker, whether it runs the async loop): one per configuration (the module's
    docstring)."""
    half = max(1, num_envs // 2)
    made: dict[str, tuple[Callable[[], Any], bool]] = {
        "nbgym sync, 1 thread": (lambda: nbgym.make_vec(env_id, num_envs), False),
    }
    if not _one_thread_sync(env_id, num_envs, cores):
        made[f"nbgym sync, {cores} threads"] = (lambda: nbgym.make_vec(env_id, num_envs, num_threads=cores), False)
    made[f"nbgym async, {cores} threads"] = (
        lambda: nbgym.make_vec(env_id, num_envs, batch_size=half, num_threads=cores),
        True,
    )
    made[f"nbgym async, 1 batch, {cores} threads"] = (lambda: nbgym.make_vec(env_id, num_envs, num_threads=cores), True)
    if "envpool" in _bench.installed_libraries():
        made[f"envpool sync, {cores} threads"] = (lambda: _envpool(env_id, num_envs, num_envs, cores), False)
        made[f"envpool async, {cores} threads"] = (lambda: _envpool(env_id, num_envs, half, cores), True)
    return made


def _step_time(envs: Any, policy: _bench.MlpPolicy, seconds: float) -> tuple[float, float]:
    """Seconds per batch of the sync step alone and of the policy alone (on the batch's observations)."""
    obs, _ = envs.reset(seed=0)
    actions = [policy(obs)]
    for _ in range(7):
        obs = envs.step(actions[-1])[0]
        actions.append(policy(obs))
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        envs.step(actions[calls % len(actions)])
        calls += 1
    t_step = (time.perf_counter() - start) / calls
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        policy(obs)
        calls += 1
    return t_step, (time.perf_counter() - start) / calls


def measure(env_id: str, num_envs: int, seconds: float, rounds: int, cores: int) -> dict[str, Any]:
    """Env-steps per second of every contender (median of the rounds), the step's and the policy's times alone,
    and the ideal."""
    made = contenders(env_id, num_envs, cores)
    envs: dict[str, Any] = {}
    for name, (make, _) in made.items():
        try:
            envs[name] = make()
        except _bench.Unavailable as unavailable:
            print(f"  {name}: skipped ({unavailable})")
    one = envs["nbgym sync, 1 thread"]
    policy = _bench.MlpPolicy(one.single_observation_space, one.single_action_space)
    samples: dict[str, list[float]] = {name: [] for name in envs}
    times: list[tuple[float, float]] = []
    names = list(envs)
    for round_index in range(rounds):
        order = names[round_index % len(names) :] + names[: round_index % len(names)]
        for name in order:
            samples[name].append(_bench.learner_loop_rate(envs[name], policy, made[name][1], seconds))
        times.append(_step_time(one, policy, seconds / 2))
    ideals = [num_envs / max((t_step + t_policy) / cores, t_policy) for t_step, t_policy in times]
    for env in envs.values():
        env.close()
    return {
        "rates": {name: statistics.median(values) for name, values in samples.items()},
        "samples": samples,
        "t_step": statistics.median(t for t, _ in times),
        "t_policy": statistics.median(p for _, p in times),
        "ideal": statistics.median(ideals),
        "ideals": ideals,
    }


def round_ratio(numerators: list[float], denominators: list[float]) -> str:
    """The median of each round's ratio, with their range."""
    ratios = [n / d for n, d in zip(numerators, denominators)]
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def _best(rates: dict[str, float], prefix: str) -> str | None:
    """The contender whose name starts with ``prefix`` with the highest median, if any."""
    named = [name for name in rates if name.startswith(prefix)]
    return max(named, key=rates.__getitem__) if named else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", action="append", help="an env id (repeatable; default: the README's five)")
    parser.add_argument("--num-envs", type=int, help="sub-environments (default: 64, CartPole 256)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds of each contender per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is reported)")
    args = parser.parse_args(argv)
    cores = min(os.cpu_count() or 1, numba.config.NUMBA_NUM_THREADS)
    env_ids = args.env or list(DEFAULT_ENVS)
    print(
        f"# learner loop, {cores} cores, numpy MLP 2x{_bench.LEARNER_HIDDEN} on one BLAS thread, median of "
        f"{args.rounds} interleaved rounds of {args.seconds} s; nbgym {nbgym.__version__}, envpool "
        f"{_bench.library_version('envpool') or 'not installed'}"
    )
    for env_id in env_ids:
        num_envs = args.num_envs or DEFAULT_ENVS.get(env_id, 64)
        result = measure(env_id, num_envs, args.seconds, args.rounds, cores)
        rates, samples = result["rates"], result["samples"]
        nbgym_best, envpool_best = _best(rates, "nbgym"), _best(rates, "envpool")
        async_best, sync_best = _best(rates, "nbgym async"), _best(rates, "nbgym sync")
        print(
            f"\n{env_id} x{num_envs}: step alone {result['t_step'] * 1e6:.0f} us, policy {result['t_policy'] * 1e6:.0f} us per batch"
        )
        for name, rate in rates.items():
            print(f"  {name:<32} {_bench.format_rate(rate):>8} env-steps/s")
            if name == "nbgym sync, 1 thread" and cores > 1 and f"nbgym sync, {cores} threads" not in rates:
                print(f"  {f'nbgym sync, {cores} threads':<32} {'=':>8} 1 thread's (the step is one chunk)")
        print(f"  {'ideal on ' + str(cores) + ' cores':<32} {_bench.format_rate(result['ideal']):>8} env-steps/s")
        print("  ratios, each round's: median (range)")
        if envpool_best:
            print(f"  nbgym's best / envpool's best: {round_ratio(samples[nbgym_best], samples[envpool_best])}")
        print(f"  nbgym async / ideal: {round_ratio(samples[async_best], result['ideals'])}")
        one_batch = samples[f"nbgym async, 1 batch, {cores} threads"]
        print(f"  nbgym async in 1 batch / nbgym sync's best: {round_ratio(one_batch, samples[sync_best])}")


if __name__ == "__main__":
    main()
