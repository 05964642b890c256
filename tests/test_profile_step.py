"""benchmarks/profile_step.py: perf's map of the compiled functions, and the report it prints."""

from __future__ import annotations

import importlib.util
import pathlib

import numba
import pytest
from numba.core.registry import cpu_target

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "profile_step.py"


@pytest.fixture(scope="module")
def profile_step():
    spec = importlib.util.spec_from_file_location("profile_step", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    module.stop_recording()


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="interpreted: nothing is compiled to map")
def test_the_map_names_a_function_compiled_after_recording_at_its_address(profile_step, tmp_path):
    profile_step.record_object_code()

    @numba.njit(cache=False)
    def tripled_for_the_map(x):
        return 3 * x

    assert tripled_for_the_map(2) == 6
    path = tmp_path / "perf.map"
    assert profile_step.write_perf_map(str(path)) > 0
    engine = cpu_target.target_context.codegen()._engine
    rows = [line.split(" ", 2) for line in path.read_text().splitlines()]
    named = [row for row in rows if profile_step.short_name(row[2]).endswith("tripled_for_the_map")]
    assert named  # the function, and the wrapper Python calls
    for address, size, name in named:
        assert int(address, 16) == engine.get_function_address(name)
        assert int(size, 16) > 0
    addresses = [int(address, 16) for address, _, _ in rows]
    assert addresses == sorted(set(addresses))
    profile_step.stop_recording()
    assert profile_step.write_perf_map(str(path)) == 0  # numba's own methods again, nothing kept


def test_an_object_that_is_not_elf64_is_refused(profile_step):
    with pytest.raises(ValueError, match="not an ELF64"):
        profile_step.elf_functions(b"MZ" + bytes(64))


def test_report_rows_are_named_summed_and_ordered(profile_step):
    mangled = "_ZN5nbgym6_box2d6island16iterate_to_cycleB30v1E5ArrayIiLi2E1C7mutable7alignedE"
    report = (
        "# Samples: 10\n"
        f"    50.00%             5  [.] {mangled}\n"
        "    30.00%             3  [.] _PyEval_EvalFrameDefault\n"
        f"    20.00%             2  [.] {mangled}.internal.0123\n"
    )
    assert profile_step.parse_report(report) == [
        ("nbgym._box2d.island.iterate_to_cycle", 7),
        ("_PyEval_EvalFrameDefault", 3),
    ]
    assert profile_step.short_name("_ZN7cpython5nbgym6engine8_kernels11step_kernelB30v1") == (
        "nbgym.engine._kernels.step_kernel"
    )
