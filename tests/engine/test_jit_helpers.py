"""Helpers and entries (``nbgym/engine/_jit.py``): compiled functions without Python wrappers or machine code of
their own, linked into the entries that call them; callable from Python all the same, and kept apart in the cache."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
from numba.core.caching import NullCache
import numpy as np
import pytest

from nbgym.engine import _jit as jit
from nbgym.engine._jit import HelperCodeLibrary, HelperDispatcher, borrowing_kernel, kernel
from helpers.jit import INTERPRETED
from helpers.paths import ROOT

pytestmark = pytest.mark.skipif(INTERPRETED, reason="helpers are compiled functions")


@kernel
def _scaled(values, column):
    return values[column] * 2.0


@kernel
def _pick(pair, index):
    return pair[index]  # a heterogeneous tuple's index must be a constant: typing needs the literal


@kernel
def _checked(values):
    if values[0] > 5.0:
        raise ValueError("too big", values[0])
    return values[0] + 1.0


@kernel(entry=True)
def _entry(values):
    return _scaled(values, 0) + _scaled(values, 1) + _scaled(values, 2) + _pick((1.5, 2), 0) + _checked(values)


@kernel
def _doubled(values, column):
    return values[column] * 2.0


@kernel(entry=True)
def _narrow_and_wide_entry(values, columns):
    # columns[k] is an int32, k an int64: one version of _doubled takes both
    total = 0.0
    for k in range(columns.shape[0]):
        total += _doubled(values, columns[k]) + _doubled(values, k)
    return total


_narrow_and_wide_entry._cache = NullCache()

# Compiled in this process, never loaded from an earlier run's disk cache: the tests below look at what compiling the
# entry links (a cached entry loads without compiling its helpers, which then have no versions to look at).
_entry._cache = NullCache()


def test_a_helper_has_no_wrapper_and_no_machine_code_and_an_entry_has_both():
    values = np.array([1.0, 2.0, 3.0])
    assert _entry(values) == 2.0 + 4.0 + 6.0 + 1.5 + 2.0
    assert isinstance(_scaled, HelperDispatcher) and not isinstance(_entry, HelperDispatcher)
    (helper_result,) = _scaled.overloads.values()
    assert isinstance(helper_result.library, HelperCodeLibrary)
    assert helper_result.entry_point is None or helper_result.library.get_pointer_to_function("anything") == 0
    (entry_result,) = _entry.overloads.values()
    assert not isinstance(entry_result.library, HelperCodeLibrary)


@borrowing_kernel(always_inline=True)
def _inlined_sum(values, count):
    total = 0.0
    for k in range(count):
        total += values[k]
    return total


@borrowing_kernel
def _called_sum(values, count):
    total = 0.0
    for k in range(count):
        total += values[k]
    return total


@kernel(entry=True)
def _sums(values):
    return _inlined_sum(values, 2) + _called_sum(values, 3)


_sums._cache = NullCache()  # compiled here: a cached entry loads without compiling its helpers


def test_an_always_inline_helper_is_marked_for_llvm_to_inline_at_every_call():
    """``borrowing_kernel(always_inline=True)`` compiles the helper with numba's ``forceinline``: the LLVM function
    that its callers link is ``alwaysinline``, so LLVM inlines every call of it; a plain helper's is not."""
    assert _sums(np.array([1.0, 2.0, 4.0])) == 3.0 + 7.0

    def attributes(helper):
        (result,) = helper.overloads.values()
        module = result.library._get_module_for_linking()
        function = module.get_function(result.fndesc.mangled_name)
        return {word for group in function.attributes for word in group.decode().split()}  # b"alwaysinline nofree"

    assert "alwaysinline" in attributes(_inlined_sum)
    assert "alwaysinline" not in attributes(_called_sum)


def test_constants_do_not_compile_a_helper_once_per_value():
    _entry(np.array([1.0, 2.0, 3.0]))
    assert len(_scaled.signatures) == 1, _scaled.signatures  # called with 0, 1 and 2: one int64 version
    assert [str(arg) for arg in _scaled.signatures[0]][1] == "int64"
    assert "Literal" in str(_pick.signatures)  # where typing needs the value, the literal version


def test_narrow_integers_do_not_compile_a_helper_once_per_width():
    values = np.array([1.0, 10.0, 100.0])
    columns = np.array([2, -1, 0], dtype=np.int32)  # -1: the conversion to int64 keeps the sign
    assert _narrow_and_wide_entry(values, columns) == 2.0 * (100.0 + 100.0 + 1.0) + 2.0 * (1.0 + 10.0 + 100.0)
    assert [[str(arg) for arg in signature] for signature in _doubled.signatures] == [
        ["array(float64, 1d, C)", "int64"]
    ]


def test_a_helper_called_from_python_runs_its_python_entry():
    values = np.array([1.0, 2.0, 3.0])
    assert _scaled(values, 2) == 6.0  # not numba's null wrapper: that would end the process
    assert _checked(values) == 2.0
    with pytest.raises(ValueError, match="too big"):
        _checked(np.array([9.0]))
    assert not isinstance(_scaled.python_entry(), HelperDispatcher)


def test_an_entry_raises_a_helpers_exception():
    with pytest.raises(ValueError, match="too big"):
        _entry(np.array([9.0, 0.0, 0.0]))


MODULE = """
import numpy as np
from nbgym.engine._jit import kernel


@kernel
def helper(values, column):
    if values[column] < 0:
        raise ValueError("negative", values[column])
    return values[column] * 3.0


@kernel(entry=True)
def entry(values):
    return helper(values, 0) + helper(values, 1)
"""

RUN = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import probe_helpers as p
values = np.array([1.0, 2.0])
order = sys.argv[2]
results = []
for name in order.split(","):
    if name == "entry":
        results.append(p.entry(values))
    elif name == "helper":
        results.append(p.helper(values, 1))
    else:
        try:
            p.entry(np.array([-1.0, 2.0]))
        except ValueError as e:
            results.append(e.args[0])
print(results)
"""


@pytest.mark.parametrize("first,second", [("entry,raise", "helper,entry,raise"), ("helper", "entry,helper,raise")])
def test_helpers_and_entries_load_from_the_cache_in_any_order(tmp_path, first, second):
    """A second process loads what the first compiled: an entry's machine code links the helpers' loaded modules,
    and a helper called from Python never runs a helper's cache entry (no wrapper) as an entry."""
    (tmp_path / "probe_helpers.py").write_text(MODULE)
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    expected = {"entry": "9.0", "helper": "6.0", "raise": "'negative'"}
    for order in (first, second):
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(tmp_path), order], capture_output=True, text=True, env=environ, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "[" + ", ".join(expected[name] for name in order.split(",")) + "]"


def test_numba_compiles_helper_libraries_only_for_functions_without_wrappers():
    @numba.njit
    def plain(x):
        return x + 1

    plain(1)
    (result,) = plain.overloads.values()
    assert not isinstance(result.library, HelperCodeLibrary)
    assert jit.typed_passes.NativeLowering.run_pass._nbgym_helpers


SHARED_CALLEE = """
import numpy as np
from nbgym.engine._jit import kernel


@kernel(entry=True)
def never_raises(x, cosine):
    total = x
{body}
    return total


@kernel
def through(x):
    return never_raises(x, True) + np.float32(1.0)


@kernel(entry=True)
def outer(x):
    return through(x) + through(x * np.float32(2.0)) + never_raises(x, True)


outer(np.float32(0.5))
(compiled,) = outer.overloads.values()
defined = [line for line in compiled.library.get_llvm_str().splitlines() if line.startswith("define")]
print(sorted({("internal" in line.split("@")[0], ".internal." in line) for line in defined if "never_raises" in line}))
print(through(np.float32(0.5)) == never_raises(np.float32(0.5), True) + np.float32(1.0))
"""


def test_a_callee_made_internal_in_one_entry_is_never_called_from_another(tmp_path):
    """``outer`` links ``never_raises`` through the helper ``through`` and makes its copy internal under a name of
    its own, and LLVM drops the status it never fails with. ``through``'s Python entry then links ``never_raises`` as
    numba does (a weak definition, which the JIT resolves by name): it must call its own copy, not ``outer``'s (a wrong
    status: a ``SystemError``, or a crash). The callee is long enough that LLVM does not inline it; in a process of
    its own, which a crash would end."""
    body = "\n".join(
        f"    total = total * np.float32({1 + i / 1000}) + (np.sin(total) if cosine else np.cos(total))\n"
        f"    if total > np.float32({1000 + i}):\n        total = total - np.float32({i}.5) * x"
        for i in range(40)
    )
    (tmp_path / "shared_callee.py").write_text(SHARED_CALLEE.replace("{body}", body))
    environ = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(tmp_path / "shared_callee.py")], capture_output=True, text=True, env=environ, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[(True,", "True)]", "True"]


@kernel
def _countdown(n):
    """Recursive: LLVM cannot inline it whole, so the helpers that call it keep a call to it."""
    if n <= 0:
        return 0
    return 1 + _countdown(n - 1)


@kernel
def _countdowns(n):
    return _countdown(n) + _countdown(n + 1)


@kernel(entry=True)
def _countdowns_entry(n):
    return _countdowns(n) * 2


# Compiled here, the helpers too: a cached entry loads without compiling its helpers, and a cached helper without
# compiling its callee (the test failed on a second run with the same cache: ``_countdown`` had no version)
for _compiled_here in (_countdowns_entry, _countdowns, _countdown):
    _compiled_here._cache = NullCache()


def test_a_helper_links_only_its_own_functions_and_caches_all_it_calls():
    """What a helper's callers link defines its own functions only (its callees' come from their own libraries, into
    the entry), so that no helper's module passes optimise its callees again; its cache entry defines everything it
    calls, as a helper loaded from the cache has no callees' libraries to link."""
    assert _countdowns_entry(3) == (3 + 4) * 2
    (result,) = _countdowns.overloads.values()
    (callee,) = _countdown.overloads.values()
    library = result.library
    linked = library._get_module_for_linking()
    assert not linked.get_function(result.fndesc.mangled_name).is_declaration
    assert linked.get_function(callee.fndesc.mangled_name).is_declaration
    assert {function.name for function in linked.functions if not function.is_declaration} <= library._own_functions
    name, kind, bitcode = library.serialize_using_object_code()
    cached = jit.ll.parse_bitcode(bitcode)
    assert not cached.get_function(result.fndesc.mangled_name).is_declaration
    assert not cached.get_function(callee.fndesc.mangled_name).is_declaration


class _Linked(HelperCodeLibrary):
    """A stand-in for a helper's library: only what ``_linked_closure`` reads."""

    def __init__(self, name: str, callees: list) -> None:  # no codegen: nothing is compiled
        self._name, self._linking_libraries = name, callees

    def __repr__(self) -> str:
        return self._name


def test_an_entry_links_each_helper_after_every_helper_that_calls_it():
    """LLVM's linker copies a ``linkonce_odr`` function only into a module that already calls it: a helper linked
    before the last helper that calls it (the others having inlined it) would be left undefined in the entry. A
    depth-first walk's first visits put ``leaf`` before ``right``, which calls it."""
    leaf = _Linked("leaf", [])
    left = _Linked("left", [leaf])
    right = _Linked("right", [leaf])
    top = _Linked("top", [left, right])
    order = jit._linked_closure([top, right])
    assert sorted(order, key=id) == sorted([top, left, right, leaf], key=id)
    position = {id(library): index for index, library in enumerate(order)}
    for library in order:
        for callee in library._linking_libraries:
            assert position[id(library)] < position[id(callee)], order


def test_a_module_with_names_over_llvms_limit_is_copied_with_other_functions_declared():
    """LLVM names an inlined block after its callee's mangled name, past what its text parser takes (1,024
    characters): ``_declare_others`` copies the module through its text, so it shortens them."""
    module = jit.ll.parse_assembly(
        "define linkonce_odr i32 @callee(i32 %x) #0 {\n  ret i32 %x\n}\n\n"
        "define internal i32 @local(i32 %x) {\n  ret i32 %x\n}\n\n"
        "define i32 @own(i32 %x) !dbg !2 {\nentry:\n  br label %next\n\nnext:\n  %y = call i32 @callee(i32 %x)\n"
        "  %z = call i32 @local(i32 %y)\n  ret i32 %z\n}\n\n"
        "attributes #0 = { nounwind }\n"
        # Debug information (``NUMBA_DEBUGINFO``), whose linkage names are long string constants:
        "!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!5}\n"
        '!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: "numba", isOptimized: true, '
        "runtimeVersion: 0, emissionKind: FullDebug)\n"
        '!1 = !DIFile(filename: "kernel.py", directory: "/")\n'
        f'!2 = distinct !DISubprogram(name: "own", linkageName: "{"y" * 1500}", scope: !1, file: !1, line: 1, '
        "type: !3, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)\n"
        "!3 = !DISubroutineType(types: !4)\n!4 = !{}\n"
        '!5 = !{i32 2, !"Debug Info Version", i32 3}\n'
    )
    entry, after = module.get_function("own").blocks
    entry.name = "B1." + "x" * 1500  # as LLVM names may be, not as its text parser takes them
    after.name = "B2 " + "z" * 1500  # quoted, where a branch uses it too
    copy = jit._declare_others(module, {"own"})
    assert copy.get_function("callee").is_declaration
    assert not copy.get_function("local").is_declaration  # an internal copy: no other module's can stand for it
    assert not copy.get_function("own").is_declaration
    copy.verify()
    assert f'linkageName: "{"y" * 1500}"' in str(copy)  # a string constant: kept, for debuggers and profilers


def test_an_entry_missing_a_helpers_function_is_refused_before_llvm_would_end_the_process():
    """A helper's function called but left undefined in an entry's module is an nbgym bug: LLVM's JIT would abort the
    process on the symbol it cannot resolve; the entry's compile raises instead."""

    class Entry:
        name = "entry"

    helper = _Linked("helper", [])
    helper._own_functions = {"callee"}
    entry = Entry()
    entry._linking_libraries = [helper]
    entry._final_module = jit.ll.parse_assembly(
        "declare i32 @callee(i32)\n\ndefine i32 @own(i32 %x) {\n  %y = call i32 @callee(i32 %x)\n  ret i32 %y\n}\n"
    )
    with pytest.raises(RuntimeError, match="left 1 compiled function.*undefined in entry \\(callee\\)"):
        jit._refuse_undefined_callees(entry)
    entry._final_module = jit.ll.parse_assembly("define i32 @callee(i32 %x) {\n  ret i32 %x\n}\n")
    jit._refuse_undefined_callees(entry)
