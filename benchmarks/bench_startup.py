"""What a first step costs: a new process that imports, makes, resets and steps once, with and without the
kernel cache, beside gymnasium's same process, and where a cold compile's time goes.

Each measurement is the wall time of a whole new Python process (``python -c``), as a user meets it:

- ``cold``: nbgym with an empty ``NUMBA_CACHE_DIR`` (every kernel compiled);
- ``warm``: nbgym again with the cache the cold run filled;
- ``gymnasium``: gymnasium 1.4.0's same process (``--no-gymnasium`` to skip it);
- ``prebuilt`` (with ``--prebuilt``): nbgym with an empty ``NUMBA_CACHE_DIR`` again, from a copy of the package that
  holds its kernels prebuilt (``nbgym warmup --prebuilt`` of the ids, what ``NBGYM_PREBUILD_KERNELS`` builds into a
  wheel): a first step of a user who installed such a wheel. The build's time and size are printed first.

With ``--phases`` the cold process also reports where its time went, exclusive of nested work (numba compiles a
called function while typing its caller): numba's typing and lowering (Python), LLVM's function passes, LLVM's
module passes, machine code, the cache write, and the rest (imports, making the env, the step itself).

Usage::

    python benchmarks/bench_startup.py                       # the default ids
    python benchmarks/bench_startup.py --ids LunarLander-v3 CartPole-v1 --num-envs 0 16 --phases --prebuilt
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

DEFAULT_IDS = (
    "CartPole-v1",
    "FrozenLake-v1",
    "Pendulum-v1",
    "HalfCheetah-v5",
    "LunarLander-v3",
    "BipedalWalker-v3",
    "CarRacing-v3",
)

_FIRST_STEP = """
import sys
import {module} as gym
env_id, num_envs = sys.argv[1], int(sys.argv[2])
if num_envs == 0:
    env = gym.make(env_id)
else:
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="sync" if {oracle} else None)
env.action_space.seed(0)
env.reset(seed=0)
env.step(env.action_space.sample())
print("MODULE " + gym.__file__)
"""

_PHASES = """
import json, sys, time
from numba.core import codegen, typed_passes
from nbgym.engine import _cache as cache, _jit as jit

_stack = [["rest", time.perf_counter()]]
_spent = {}

def _timed(owner, name, phase):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        now = time.perf_counter()
        top = _stack[-1]
        _spent[top[0]] = _spent.get(top[0], 0.0) + now - top[1]
        _stack.append([phase, now])
        try:
            return original(*args, **kwargs)
        finally:
            now = time.perf_counter()
            phase_, start = _stack.pop()
            _spent[phase_] = _spent.get(phase_, 0.0) + now - start
            _stack[-1][1] = now
    setattr(owner, name, wrapper)

_timed(typed_passes.NopythonTypeInference, "run_pass", "typing (numba)")
_timed(typed_passes.NativeLowering, "run_pass", "lowering (numba)")
_timed(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM function passes")
_timed(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM module passes")
_timed(codegen.JITCodeLibrary, "_finalize_specific", "machine code")
_timed(cache.CheckedFunctionCache, "save_overload", "cache write")
"""

_REPORT = """
now = time.perf_counter()
_spent[_stack[-1][0]] = _spent.get(_stack[-1][0], 0.0) + now - _stack[-1][1]
print("PHASES " + json.dumps(_spent))
"""


def first_step(
    env_id: str,
    num_envs: int,
    cache_dir: str | None,
    oracle: bool = False,
    phases: bool = False,
    package_root: str | None = None,
) -> tuple[float, dict]:
    """The wall time of a new process's first step (and its phases, with ``phases``), importing nbgym from
    ``package_root`` when given (run there: ``python -c`` puts its working directory, a checkout's root, first on
    ``sys.path``, which would import the checkout's nbgym instead).

    Raises:
        RuntimeError: If the step failed, or nbgym was not imported from ``package_root``.
    """
    code = _FIRST_STEP.format(module="gymnasium" if oracle else "nbgym", oracle=oracle)
    if phases:
        code = _PHASES + code + _REPORT
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    if package_root is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", code, env_id, str(num_envs)], env=env, capture_output=True, text=True, cwd=package_root
    )
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{env_id} x{num_envs} failed:\n{result.stderr[-2000:]}")
    spent, module = {}, ""
    for line in result.stdout.splitlines():
        if line.startswith("PHASES "):
            spent = json.loads(line[len("PHASES ") :])
        elif line.startswith("MODULE "):
            module = line[len("MODULE ") :]
    if package_root is not None and not pathlib.Path(module).resolve().is_relative_to(
        pathlib.Path(package_root).resolve()
    ):
        raise RuntimeError(f"{env_id} x{num_envs} imported nbgym from {module}, not from {package_root}")
    return seconds, spent


def build_prebuilt_copy(env_ids: list[str], root: str) -> tuple[float, int]:
    """A copy of the nbgym package under ``root`` with the kernels of ``env_ids`` prebuilt into it; returns the
    build's seconds and the prebuilt files' bytes."""
    import nbgym

    package = pathlib.Path(nbgym.__file__).resolve().parent
    copy = pathlib.Path(root) / "nbgym"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__", "_prebuilt_kernels"))
    prebuilt = copy / "_prebuilt_kernels"
    env = {**os.environ, "PYTHONPATH": root}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "nbgym", "warmup", "--prebuilt", str(prebuilt), *env_ids],
        env=env,
        check=True,
        cwd=root,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - start
    return seconds, sum(path.stat().st_size for path in prebuilt.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=list(DEFAULT_IDS))
    parser.add_argument(
        "--num-envs", nargs="+", type=int, default=[0], help="0: a single env (make); n: make_vec(id, n)"
    )
    parser.add_argument("--phases", action="store_true", help="where a cold process's time goes")
    parser.add_argument("--no-gymnasium", action="store_true")
    parser.add_argument("--prebuilt", action="store_true", help="also a first step with the kernels prebuilt")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)

    prebuilt_root = tempfile.TemporaryDirectory(prefix="nbgym-prebuilt-") if args.prebuilt else None
    if prebuilt_root is not None:
        seconds, size = build_prebuilt_copy(args.ids, prebuilt_root.name)
        print(f"prebuilt the kernels of {len(args.ids)} ids in {seconds:.0f} s: {size / 2**20:.1f} MB\n")
    rows = []
    print(
        "| env | cold (s) |"
        + (" cold, prebuilt (s) |" if args.prebuilt else "")
        + " warm (s) | gymnasium (s) | warm / gymnasium |"
        + (" phases of the cold process |" if args.phases else "")
    )
    print("|---|---|---|---|---|" + ("---|" if args.prebuilt else "") + ("---|" if args.phases else ""))
    for env_id in args.ids:
        for num_envs in args.num_envs:
            with tempfile.TemporaryDirectory(prefix="nbgym-startup-") as cache_dir:
                cold, spent = first_step(env_id, num_envs, cache_dir, phases=args.phases)
                warm, _ = first_step(env_id, num_envs, cache_dir)
            prebuilt = None
            if prebuilt_root is not None:
                with tempfile.TemporaryDirectory(prefix="nbgym-startup-") as cache_dir:
                    prebuilt, _ = first_step(env_id, num_envs, cache_dir, package_root=prebuilt_root.name)
            oracle = None if args.no_gymnasium else first_step(env_id, num_envs, None, oracle=True)[0]
            label = env_id if num_envs == 0 else f"{env_id} x{num_envs}"
            ratio = f"{warm / oracle:.1f}x" if oracle else "-"
            row = f"| {label} | {cold:.1f} |" + (f" {prebuilt:.2f} |" if prebuilt is not None else "")
            row += f" {warm:.2f} | {oracle:.2f} | {ratio} |" if oracle else f" {warm:.2f} | - | - |"
            if args.phases:
                total = sum(spent.values()) or 1.0
                row += (
                    " "
                    + ", ".join(
                        f"{name} {100 * value / total:.0f}%"
                        for name, value in sorted(spent.items(), key=lambda kv: -kv[1])
                    )
                    + " |"
                )
            print(row, flush=True)
            rows.append(
                {
                    "id": env_id,
                    "num_envs": num_envs,
                    "cold": cold,
                    "prebuilt": prebuilt,
                    "warm": warm,
                    "gymnasium": oracle,
                    "phases": spent,
                }
            )
    if prebuilt_root is not None:
        prebuilt_root.cleanup()
    if args.json:
        with open(args.json, "w") as file:
            json.dump(rows, file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
