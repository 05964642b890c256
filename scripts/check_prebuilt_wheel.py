"""A wheel with prebuilt kernels, installed as a user gets it: into a fresh venv, with other optional dependencies than
the builder's (``[box2d]`` only: no MuJoCo), and numpy one patch release apart from the builder's where the registry has
one; then with MuJoCo added. Each id whose dependencies are present must load its kernels without compiling anything
(single and vector env) and step exactly as gymnasium 1.4.0 does; an id whose dependencies are missing must refuse
with gymnasium's error. Prints each id's first step in a whole new process (wall time), and fails on any compile or
difference.

    python scripts/check_prebuilt_wheel.py WHEEL --python python3.12 [--ids CartPole-v1,LunarLander-v3,HalfCheetah-v5]

``.ci/run`` builds the wheel for three ids from the kernels its Python 3.12 pass compiled (``NBGYM_PREBUILD_REUSE``)
and runs this. ``--max-first-step SECONDS`` also fails on a slower first step (for a quiet machine).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import zipfile

FIRST_STEP = r"""
import json, sys, time
start = time.perf_counter()
from numba.core import event
compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Compiles())
import nbgym
env = nbgym.make(sys.argv[1])
env.reset(seed=0)
env.step(env.action_space.sample())
print(json.dumps({"first_step": time.perf_counter() - start, "compiled": compiled}))
"""

EXACT = r"""
import hashlib, json, sys
from numba.core import event
compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Compiles())
import numpy as np
import gymnasium
import nbgym

env_id, steps = sys.argv[1], int(sys.argv[2])


def single(library):
    env = library.make(env_id)
    actions = gymnasium.make(env_id).action_space
    actions.seed(1)
    digest = hashlib.sha256()
    obs, _ = env.reset(seed=1)
    digest.update(np.asarray(obs).tobytes())
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(actions.sample())
        digest.update(np.asarray(obs).tobytes() + np.float64(reward).tobytes() + bytes([terminated, truncated]))
        if terminated or truncated:
            obs, _ = env.reset()
            digest.update(np.asarray(obs).tobytes())
    return digest.hexdigest()


def vector(library):
    kwargs = {"vectorization_mode": "sync"} if library is gymnasium else {}
    envs = library.make_vec(env_id, 3, **kwargs)
    actions = gymnasium.make_vec(env_id, 3, vectorization_mode="sync").action_space
    actions.seed(2)
    digest = hashlib.sha256()
    obs, _ = envs.reset(seed=2)
    digest.update(obs.tobytes())
    for _ in range(steps):
        obs, rewards, terminations, truncations, _ = envs.step(actions.sample())
        digest.update(obs.tobytes() + rewards.tobytes() + terminations.tobytes() + truncations.tobytes())
    return digest.hexdigest()


results = {"single": single(nbgym) == single(gymnasium), "vector": vector(nbgym) == vector(gymnasium)}
print(json.dumps({"exact": results, "compiled": compiled}))
"""

REFUSED = r"""
import sys
import gymnasium
import nbgym


def refusal(library):
    try:
        library.make(sys.argv[1])
    except Exception as error:  # noqa: BLE001 - whichever gymnasium raises
        return type(error).__name__, str(error)
    return None


ours, theirs = refusal(nbgym), refusal(gymnasium)
print(f"{ours[0]}: {ours[1]}" if ours else "made")
if ours is None or theirs is None or ours[0] != theirs[0]:
    raise SystemExit(f"{sys.argv[1]} without its dependency: nbgym {ours}, gymnasium {theirs}")
"""


def pip(venv: pathlib.Path, *arguments: str) -> None:
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *arguments], check=True)


def version_apart(python: pathlib.Path, name: str, version: str) -> str:
    """A release of ``name`` one patch apart from ``version`` that the registry has (the one before, else the one
    after); ``version`` itself when it has neither."""
    major, minor, patch = (version.split(".") + ["0", "0"])[:3]
    candidates = [f"{major}.{minor}.{int(patch) - 1}"] if patch.isdigit() and int(patch) > 0 else []
    candidates.append(f"{major}.{minor}.{int(patch) + 1}" if patch.isdigit() else version)
    with tempfile.TemporaryDirectory() as scratch:
        for candidate in candidates:
            found = subprocess.run(
                [str(python), "-m", "pip", "download", "--quiet", "--no-deps", "-d", scratch, f"{name}=={candidate}"],
                capture_output=True,
            )
            if found.returncode == 0:
                return candidate
    return version


def run_probe(venv: pathlib.Path, code: str, *arguments: str) -> tuple[dict, float]:
    """Runs ``code`` in a new process of ``venv`` over an empty kernel cache; its JSON report and its wall time."""
    with tempfile.TemporaryDirectory() as cache:
        environ = {**os.environ, "NUMBA_CACHE_DIR": cache, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        for name in ("PYTHONPATH", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
            environ.pop(name, None)
        start = time.perf_counter()
        result = subprocess.run(
            [str(venv / "bin" / "python"), "-c", code, *arguments],
            capture_output=True,
            text=True,
            env=environ,
            cwd=cache,
        )
        seconds = time.perf_counter() - start
        written = [path for path in pathlib.Path(cache).rglob("*") if path.suffix in (".nbi", ".nbc")]
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)}: the probe failed:\n{result.stderr}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    report["cache_files_written"] = len(written)
    return report, seconds


def check(venv: pathlib.Path, env_ids: list[str], steps: int, max_first_step: float | None) -> list[str]:
    """Each id's checks in ``venv``; the failures."""
    failures = []
    for env_id in env_ids:
        first, wall = run_probe(venv, FIRST_STEP, env_id)
        exact, _ = run_probe(venv, EXACT, env_id, str(steps))
        compiled = first["compiled"] + exact["compiled"]
        print(
            f"  {env_id:<24} first step {wall:5.2f} s wall ({first['first_step']:.2f} s in the process), "
            f"compiled {len(compiled)} functions, exact: single {exact['exact']['single']}, "
            f"vector {exact['exact']['vector']}",
            flush=True,
        )
        if compiled or first["cache_files_written"] or exact["cache_files_written"]:
            failures.append(f"{env_id} compiled {sorted(set(compiled))} instead of loading the wheel's kernels")
        if not all(exact["exact"].values()):
            failures.append(f"{env_id} does not step as gymnasium does: {exact['exact']}")
        if max_first_step is not None and wall > max_first_step:
            failures.append(f"{env_id}'s first step took {wall:.2f} s (more than {max_first_step} s)")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=pathlib.Path)
    parser.add_argument("--python", default=sys.executable, help="the Python the wheel is for")
    parser.add_argument("--ids", default="CartPole-v1,LunarLander-v3,HalfCheetah-v5")
    parser.add_argument("--steps", type=int, default=300, help="steps compared with gymnasium per env")
    parser.add_argument("--max-first-step", type=float, default=None)
    parser.add_argument("--venv", type=pathlib.Path, help="where to make the fresh venv (default: a temporary one)")
    parser.add_argument("--numpy", help="the numpy to install (default: one patch release apart from the builder's)")
    args = parser.parse_args()

    manifest = json.loads(zipfile.ZipFile(args.wheel).read("nbgym/_prebuilt_kernels/manifest.json"))
    env_ids = [env_id.strip() for env_id in args.ids.split(",") if env_id.strip()]
    scratch = tempfile.TemporaryDirectory(prefix="nbgym-wheel-check-")
    venv = args.venv or pathlib.Path(scratch.name) / "venv"
    subprocess.run([args.python, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    start = time.perf_counter()

    builders_numpy = manifest["numpy_release"]
    numpy = args.numpy or version_apart(python, "numpy", builders_numpy)
    # The user's venv: the wheel with [box2d] only, numpy one patch release apart; gymnasium 1.4.0 and the box2d wheel
    # as the oracle (they bring no MuJoCo).
    pip(venv, f"{args.wheel}[box2d]", f"numpy=={numpy}", "gymnasium==1.4.0", "box2d==2.3.10")
    has_mujoco = subprocess.run([str(python), "-c", "import mujoco"], capture_output=True).returncode == 0
    assert not has_mujoco, "the fresh venv has MuJoCo: it would not test a user without it"
    print(
        f"{args.wheel.name}: built for {manifest}; installed with [box2d], numpy {numpy} (the builder's "
        f"{builders_numpy}), no MuJoCo ({time.perf_counter() - start:.0f} s to install)",
        flush=True,
    )
    failures = []
    mujoco_ids = [env_id for env_id in env_ids if env_id.split("-")[0] in MUJOCO_NAMES]
    others = [env_id for env_id in env_ids if env_id not in mujoco_ids]
    failures += check(venv, others, args.steps, args.max_first_step)
    for env_id in mujoco_ids:
        refused = subprocess.run([str(python), "-c", REFUSED, env_id], capture_output=True, text=True)
        print(f"  {env_id:<24} without MuJoCo: {refused.stdout.strip()}", flush=True)
        if refused.returncode != 0:
            failures.append(f"{env_id} without MuJoCo: {refused.stderr.strip()[-300:]}")
    if mujoco_ids:
        version = manifest.get("mujoco")
        # nbgym[mujoco]'s dependencies at the wheel's MuJoCo, and packaging, which gymnasium's MuJoCo envs import.
        pip(venv, f"mujoco=={version}" if version else "mujoco", "imageio>=2.14.1", "packaging")
        print(f"with mujoco {version} added:", flush=True)
        failures += check(venv, [*mujoco_ids, *others[:1]], args.steps, args.max_first_step)
    for failure in failures:
        print(f"FAILED: {failure}", file=sys.stderr)
    print(f"checked in {time.perf_counter() - start:.0f} s", flush=True)
    return 1 if failures else 0


MUJOCO_NAMES = {
    "Ant",
    "HalfCheetah",
    "Hopper",
    "Humanoid",
    "HumanoidStandup",
    "InvertedDoublePendulum",
    "InvertedPendulum",
    "Pusher",
    "Reacher",
    "Swimmer",
    "Walker2d",
}

if __name__ == "__main__":
    raise SystemExit(main())
