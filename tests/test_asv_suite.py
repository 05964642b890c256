"""The asv benchmark suite (benchmarks/) and the benchmark scripts: ``asv check``, a quick ``asv run`` of
one small benchmark in this environment, the suite's parameters, and ``plot_results.py``."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

import nbgym
from nbgym import _bench
from nbgym.registration import registry
from helpers.paths import ROOT

BENCHMARKS = ROOT / "benchmarks"
NBGYM_PATH = str(pathlib.Path(nbgym.__file__).resolve().parent.parent)

needs_asv = pytest.mark.skipif(
    importlib.util.find_spec("asv") is None, reason="asv is not installed (pip install 'nbgym[bench]')"
)


def asv(*args: str, home: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """``asv ARGS`` in benchmarks/, with its machine file under ``home`` and this nbgym importable."""
    # asv drops PYTHONPATH from the benchmark processes and passes ASV_PYTHONPATH instead.
    environ = {**os.environ, "HOME": str(home), "ASV_PYTHONPATH": NBGYM_PATH}
    return subprocess.run(
        [sys.executable, "-m", "asv", *args], cwd=BENCHMARKS, capture_output=True, text=True, env=environ, timeout=600
    )


@pytest.fixture
def asv_home(tmp_path):
    """A home directory holding the machine description that ``asv run`` needs."""
    result = asv("machine", "--yes", home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return tmp_path


@needs_asv
def test_asv_check(tmp_path):
    result = asv("check", "--python=same", home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No problems found." in result.stdout


def test_asv_config():
    text = (BENCHMARKS / "asv.conf.json").read_text()
    # asv reads the file with // comments
    config = json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))
    assert config["repo"] == ".."
    assert config["environment_type"] == "virtualenv"
    assert config["benchmark_dir"] == "benchmarks"
    assert set(config["matrix"]["req"]) == {"numpy", "numba"}
    assert "{wheel_file}[bench]" in config["install_command"][0]
    assert (BENCHMARKS / "benchmarks" / "__init__.py").exists()


def import_suite(monkeypatch, full: bool):
    """The benchmarks package, imported afresh as asv imports it, with the default or the full selection."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    if full:
        monkeypatch.setenv("NBGYM_ASV_FULL", "1")
    else:
        monkeypatch.delenv("NBGYM_ASV_FULL", raising=False)
    for name in [name for name in sys.modules if name == "benchmarks" or name.startswith("benchmarks.")]:
        monkeypatch.delitem(sys.modules, name)
    import benchmarks._common

    return benchmarks


@pytest.fixture
def suite(monkeypatch):
    """The benchmarks package with the default selection."""
    return import_suite(monkeypatch, full=False)


def test_full_suite_parameters_come_from_the_registry(monkeypatch):
    import_suite(monkeypatch, full=True)
    from benchmarks import _common, bench_compile, bench_memory, bench_reset, bench_single, bench_step

    assert _common.FULL and _common.ENV_IDS == _common.ALL_ENV_IDS == _bench.compiled_env_ids(latest_only=True)
    assert "CartPole-v1" in _common.ENV_IDS and "CartPole-v0" not in _common.ENV_IDS
    assert _common.LIBRARIES == _bench.installed_libraries()
    assert ("gymnasium" in _common.LIBRARIES) == (importlib.util.find_spec("gymnasium") is not None)
    assert bench_step.VectorStep.params == (_common.ENV_IDS, [1, 16, 256, 4096, 65536], _common.LIBRARIES)
    assert bench_single.SingleStep.params[0][: len(_common.ENV_IDS)] == _common.ENV_IDS
    for benchmark in (bench_reset.ResetWithSeed, bench_memory.Memory, bench_compile.FirstStep):
        assert benchmark.params[0] == _common.ENV_IDS


def test_default_suite_covers_every_family_the_scaling_curve_startup_memory_and_spaces(suite):
    from benchmarks import (
        _common,
        bench_compile,
        bench_import,
        bench_memory,
        bench_ratios,
        bench_single,
        bench_spaces,
        bench_step,
    )

    assert not _common.FULL
    assert set(_common.FAMILIES) == {"classic control", "toy text", "Box2D", "MuJoCo"}
    for family, env_ids in _common.FAMILIES.items():  # each family's envs are registered nbgym envs
        assert env_ids and all(env_id in _bench.nbgym_env_ids() for env_id in env_ids), family
    assert _common.ENV_IDS == [env_id for env_id in _common.FAMILY_ENV_IDS if env_id in _common.ALL_ENV_IDS]
    assert bench_step.VectorStep.params == (_common.ENV_IDS, [256], _common.LIBRARIES)
    assert bench_step.ScalingCurve.params == (["CartPole-v1"], [1, 16, 256, 4096, 65536], _common.LIBRARIES)
    assert set(_common.ENV_IDS) <= set(bench_single.SingleStep.params[0])
    assert bench_compile.FirstStep.params[0] == ["CartPole-v1"] and bench_import.Import.params
    assert bench_memory.Memory.params[0] == ["CartPole-v1"]
    assert len(bench_spaces.Spaces.params[0]) == 7
    assert bench_ratios.VersusLibrary.params[2] == ["gymnasium", "envpool"]


def test_compiled_env_ids_pick_up_new_envs_and_skip_broken_ones():
    added = {
        "NewCompiled-v0": dict(vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv"),
        "NewCompiled-v1": dict(vector_entry_point="nbgym.envs.classic_control.cartpole:CartPoleVectorEnv"),
        "BrokenCompiled-v0": dict(vector_entry_point="nbgym.envs._no_such_module:VectorEnv"),
        "NotCompiled-v0": dict(),
    }
    try:
        for env_id, kwargs in added.items():
            nbgym.register(id=env_id, entry_point="nbgym.envs.classic_control.cartpole:CartPoleEnv", **kwargs)
        assert {"NewCompiled-v0", "NewCompiled-v1"} <= set(_bench.compiled_env_ids())
        latest = _bench.compiled_env_ids(latest_only=True)
        assert "NewCompiled-v1" in latest and "NewCompiled-v0" not in latest
        assert not {"BrokenCompiled-v0", "NotCompiled-v0"} & set(_bench.compiled_env_ids())
        assert _bench.import_failure(registry["BrokenCompiled-v0"]) == (
            "ModuleNotFoundError: No module named 'nbgym.envs._no_such_module'"
        )
    finally:
        for env_id in added:
            del registry[env_id]


def test_unavailable_contenders_are_skipped_by_asv(suite):
    from benchmarks import _common

    with pytest.raises(NotImplementedError, match="envpool has no single-environment API|envpool is not installed"):
        _common.runner("envpool", "CartPole-v1", 1, single=True)
    made = _common.runner("nbgym", "CartPole-v1", 1)
    assert made.implementation == "CartPoleVectorEnv" and made.env.num_envs == 1
    made.close()


def report_file(tmp_path: pathlib.Path, threads: int) -> pathlib.Path:
    config = _bench.BenchConfig(["CartPole-v1"], num_envs=[1, 8], libraries=["nbgym"], threads=threads, repeats=1)
    report = _bench.Report(
        config,
        [
            _bench.Measurement("CartPole-v1", 1, "nbgym", "CartPoleEnv via make()", 1, 10, [3e5]),
            _bench.Measurement("CartPole-v1", 8, "nbgym", "CartPoleVectorEnv", threads, 10, [4e6 * threads]),
        ],
    )
    path = tmp_path / f"threads-{threads}.json"
    path.write_text(json.dumps(report.to_json()))
    return path


def plot_results(*args: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [NBGYM_PATH, os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "plot_results.py"), *args], capture_output=True, text=True, env=environ
    )


def test_plot_results_markdown(tmp_path):
    paths = [report_file(tmp_path, 1), report_file(tmp_path, 2)]
    result = plot_results(*map(str, paths), "--no-png")
    assert result.returncode == 0, result.stderr
    reports = [_bench.Report.from_json(json.loads(path.read_text())) for path in paths]
    blocks = result.stdout.split("Measured on ")[1:]
    assert len(blocks) == 2
    for block, report in zip(blocks, reports, strict=True):
        assert block.rstrip().endswith(_bench.format_markdown(report))
        assert "| 8 | 4.00M |" in block or "| 8 | 8.00M |" in block
    out = tmp_path / "tables.md"
    assert plot_results(str(paths[0]), "--no-png", "--markdown", str(out)).stdout == ""
    assert out.read_text().rstrip().endswith(_bench.format_markdown(reports[0]))


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")
def test_plot_results_png(tmp_path):
    paths = [report_file(tmp_path, 1), report_file(tmp_path, 2)]
    result = plot_results(*map(str, paths), "--markdown", str(tmp_path / "tables.md"))
    assert result.returncode == 0, result.stderr
    png = paths[0].with_suffix(".png")
    assert result.stderr == f"plot written to {png}\n"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import plot_results as module
    finally:
        sys.path.remove(str(BENCHMARKS))
    lines = module.series([_bench.Report.from_json(json.loads(path.read_text())) for path in paths])
    assert lines == {
        "CartPole-v1": {"nbgym": {1: 3e5, 8: 4e6}, "nbgym, 2 threads": {8: 8e6}},
    }


def test_bench_cartpole_script(tmp_path):
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [NBGYM_PATH, os.environ.get("PYTHONPATH")]))}
    arguments = [
        "--out",
        str(tmp_path),
        "--num-envs",
        "1",
        "4",
        "--repeats",
        "1",
        "--sample-time",
        "0.01",
        "--threads",
        "1",
    ]
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_cartpole.py"), *arguments],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert result.returncode in (0, 1), result.stderr  # 1: no matplotlib for the PNG
    report = _bench.Report.from_json(json.loads((tmp_path / "threads-1.json").read_text()))
    assert report.config.env_ids == ["CartPole-v1"] and report.config.num_envs == [1, 4]
    assert {(m.library, m.num_envs) for m in report.measurements} >= {("nbgym", 1), ("nbgym", 4)}
    assert result.stdout.startswith(_bench.format_report(report))
    assert (tmp_path / "cartpole.md").read_text().rstrip().endswith(_bench.format_markdown(report))
    assert (tmp_path / "cartpole.png").exists() == (result.returncode == 0)


@needs_asv
@pytest.mark.skipif(importlib.util.find_spec("gymnasium") is None, reason="gymnasium is not installed")
def test_asv_quick_run_of_a_time_and_a_ratio_skipping_what_is_not_measured(asv_home):
    """``asv run --quick`` in this environment: a time, and a ratio (a number) where measured. A parameter outside
    the default selection (Pendulum at 16 envs) and a contender not installed here (envpool, if so) are skipped
    in ``setup``: n/a, never "failed" (asv calls ``teardown`` after a skipping ``setup`` too)."""
    benchmark = (
        r"(ResetWithSeed\.time_reset\('CartPole-v1', 256, 'nbgym'\)"
        r"|VersusLibrary\.track_ratio\('Pendulum-v1', (16|256), '(gymnasium|envpool)'\))"
    )
    result = asv("run", "--python=same", "--quick", "--dry-run", "--show-stderr", "--bench", benchmark, home=asv_home)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "failed" not in output, output
    assert "Running 2 total benchmarks" in output
    assert "bench_reset.ResetWithSeed.time_reset" in output and "bench_ratios.VersusLibrary.track_ratio" in output
    tables = {
        name.split()[0]: [line.split() for line in text.splitlines()]
        for name, text in (part.split("\n", 1) for part in result.stdout.split("··· bench_")[1:] if "\n" in part)
    }
    # ResetWithSeed's grid: env, num_envs, then one column per library; only (CartPole-v1, 256, nbgym) measured
    [reset] = [row for row in tables["reset.ResetWithSeed.time_reset"] if row[:2] == ["CartPole-v1", "256"]]
    assert reset[2][-1] == "s" and reset[3] == "n/a"  # a time, e.g. 21.8±0μs
    # VersusLibrary's ratios, a row per (env, num_envs, against) or a grid with a column per contender (asv
    # chooses by the table's width): only (Pendulum-v1, 256) is measured
    ratios = {
        tuple(row[:2]): row[2:] for row in tables["ratios.VersusLibrary.track_ratio"] if row[:1] == ["Pendulum-v1"]
    }
    long_format = ratios[("Pendulum-v1", "16")][0] in ("gymnasium", "envpool")
    pendulum = (
        {tuple(row[:3]): row[3] for row in tables["ratios.VersusLibrary.track_ratio"] if row[:1] == ["Pendulum-v1"]}
        if long_format
        else {
            ("Pendulum-v1", n, against): ratios[("Pendulum-v1", n)][k]
            for n in ("16", "256")
            for k, against in enumerate(("gymnasium", "envpool"))
        }
    )
    assert pendulum[("Pendulum-v1", "16", "gymnasium")] == pendulum[("Pendulum-v1", "16", "envpool")] == "n/a"
    assert float(pendulum[("Pendulum-v1", "256", "gymnasium")]) > 1  # nbgym's compiled Pendulum over gymnasium's sync
    envpool = pendulum[("Pendulum-v1", "256", "envpool")]
    assert envpool == "n/a" or float(envpool) > 0  # where installed


# One parameter combination of each benchmark class of the default selection, called as asv calls it (setup,
# every benchmark method, teardown), with short samples: the quick selection cannot rot unseen.
QUICK_SELECTION = [
    ("bench_step", "VectorStep", ("FrozenLake-v1", 256, "nbgym")),
    ("bench_step", "ScalingCurve", ("CartPole-v1", 16, "gymnasium")),
    ("bench_single", "SingleStep", ("Blackjack-v1", "nbgym")),
    ("bench_single", "SingleStep", ("LunarLander-v3", "nbgym")),
    ("bench_reset", "ResetWithSeed", ("Pendulum-v1", 256, "nbgym")),
    ("bench_memory", "Memory", ("CartPole-v1", 4096, "nbgym")),
    ("bench_spaces", "Spaces", ("Dict", "nbgym")),
    ("bench_threads", "ThreadedStep", (65536, 2, "none")),
    ("bench_learner_loop", "LearnerLoop", ("CartPole-v1", "async")),
    ("bench_import", "Import", ("nbgym",)),
    ("bench_compile", "FirstStep", ("CartPole-v1", "nbgym, cold cache")),
    ("bench_ratios", "VersusLibrary", ("CartPole-v1", 256, "gymnasium")),
    ("bench_ratios", "VersusMujocoBatch", ("HalfCheetah-v5", 256)),
    ("bench_ratios", "RolloutVersusPythonLoop", ("CartPole-v1", 4096)),
]


@pytest.mark.parametrize(
    "module, name, params", QUICK_SELECTION, ids=[f"{name}{params}" for _, name, params in QUICK_SELECTION]
)
def test_quick_selection_runs(module, name, params, suite, monkeypatch):
    benchmark_module = importlib.import_module(f"benchmarks.{module}")
    cls = getattr(benchmark_module, name)
    grid = cls.params if isinstance(cls.params[0], list) else [cls.params]
    assert all(value in values for value, values in zip(params, grid, strict=True)), "not in the default selection"
    for attribute, value in (("SAMPLE_TIME", 0.01), ("REPEATS", 2)):
        if hasattr(benchmark_module, attribute):
            monkeypatch.setattr(benchmark_module, attribute, value)
    benchmark = cls()
    try:
        if hasattr(benchmark, "setup"):
            benchmark.setup(*params)
    except NotImplementedError as e:  # not measured here (a library or extra not installed): what asv skips
        pytest.skip(str(e))
    try:
        methods = [m for m in dir(benchmark) if m.startswith(("time_", "track_", "peakmem_", "timeraw_"))]
        assert methods
        for method in methods:
            value = getattr(benchmark, method)(*params)
            if method.startswith("track_"):
                assert value > 0 and getattr(cls, method).unit
            elif method.startswith("timeraw_"):  # the code asv times in a fresh process: it must compile
                for code in (value,) if isinstance(value, str) else value:
                    compile(code, method, "exec")
    finally:
        if hasattr(benchmark, "teardown"):
            benchmark.teardown(*params)


def test_a_skipped_setup_leaves_a_teardown_that_passes(suite):
    """asv calls teardown after a setup that raised NotImplementedError: it must not fail there."""
    from benchmarks import bench_ratios, bench_step

    for benchmark, params in (
        (bench_step.VectorStep(), ("CartPole-v1", 256, "envpool")),
        (bench_ratios.VersusLibrary(), ("Pendulum-v1", 16, "gymnasium")),
    ):
        try:
            benchmark.setup(*params)
        except NotImplementedError:
            pass
        else:
            pytest.skip("measured here")
        benchmark.teardown(*params)


def fake_results() -> dict:
    """An asv results file as ``asv run`` writes it (api_version 2): values flattened over the parameter grid,
    ``None`` where skipped, NaN where failed."""
    columns = ["result", "params", "version", "started_at", "duration"]
    return {
        "commit_hash": "0123456789abcdef",
        "result_columns": columns,
        "results": {
            "bench_ratios.VersusLibrary.track_ratio": [
                [2.5, None, 200.0, None, float("nan"), None],
                [["'CartPole-v1'", "'Pendulum-v1'", "'Taxi-v4'"], ["4096"], ["'gymnasium'", "'envpool'"]],
                "v",
                0,
                1.0,
            ],
            "bench_ratios.VersusMujocoBatch.track_ratio": [[0.75], [["'HalfCheetah-v5'"], ["256"]], "v", 0, 1.0],
            "bench_step.ScalingCurve.track_steps_per_second": [
                [3e5, 1e5, 2e7, 1.5e7],
                [["'CartPole-v1'"], ["1", "4096"], ["'nbgym'", "'gymnasium'"]],
                "v",
                0,
                1.0,
            ],
        },
    }


def asv_picture_module():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_asv_picture
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return make_asv_picture


def test_asv_picture_reads_the_measured_values_of_asv_results():
    module = asv_picture_module()
    results = fake_results()
    assert module.ratio_bars(results) == [
        ("CartPole-v1 4096 envs: nbgym / gymnasium", 2.5),
        ("Pendulum-v1 4096 envs: nbgym / gymnasium", 200.0),
        ("HalfCheetah-v5 256 envs: nbgym / mujoco.batch", 0.75),
    ]
    assert module.scaling_lines(results) == {"nbgym": {1: 3e5, 4096: 2e7}, "gymnasium": {1: 1e5, 4096: 1.5e7}}


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")
def test_asv_picture_script_writes_a_png(tmp_path):
    machine_dir = tmp_path / "results" / "some-machine"
    machine_dir.mkdir(parents=True)
    (machine_dir / "machine.json").write_text(json.dumps({"cpu": "Some CPU", "num_cpu": "2"}))
    (machine_dir / "01234567-existing-py.json").write_text(json.dumps(fake_results()))
    module = asv_picture_module()
    out = tmp_path / "asv.png"
    assert module.main([str(module.newest_results(tmp_path / "results")), "--out", str(out), "--note", "load 3"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ratios_are_timed_on_the_cpu_clock(suite, monkeypatch):
    """A contender that waits (as one preempted by other processes does) is not charged for the wait."""
    import time

    from benchmarks import bench_ratios

    monkeypatch.setattr(bench_ratios, "SAMPLE_TIME", 0.02)
    monkeypatch.setattr(bench_ratios, "REPEATS", 2)

    def spin(seconds):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass

    class Busy(_bench.Runner):
        def run(self, steps):
            for _ in range(steps):
                spin(0.001)

    class Waiting(_bench.Runner):
        def run(self, steps):
            for _ in range(steps):
                spin(0.0001)
                time.sleep(0.001)

    busy, waiting = Busy("a", "busy", 1, None, [None]), Waiting("b", "waiting", 1, None, [None])
    # In elapsed time the two are about as fast; in CPU time the waiting one is ~10x faster.
    assert bench_ratios._ratio(waiting, busy) > 4


def test_compiled_vector_envs_too_large_for_the_machine_are_not_measured():
    """asv's full matrix asks for every compiled env at 65,536 sub-environments: one that would not fit in memory
    (CarRacing: ~50 GiB of arrays) is skipped, saying how much it needs, instead of being killed for memory."""
    actions = _bench.action_pool("LunarLander-v3", 2)
    with pytest.raises(_bench.Unavailable, match=r"10000000000 sub-environments of LunarLander-v3 need about .* GiB"):
        _bench.make_runner("nbgym", "LunarLander-v3", 10**10, actions)
    runner = _bench.make_runner("nbgym", "LunarLander-v3", 2, actions)
    assert runner.num_envs == 2
    runner.close()
