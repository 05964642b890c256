"""The one place that holds the numba options of every nbgym kernel.

Compiled kernels are kept on disk between processes by nbgym's own cache (``cache.py``: where,
keyed by the compile options, damaged files detected and replaced); numba's ``cache=True`` is not passed,
as its locators fail in a read-only install. ``error_model="numpy"`` gives IEEE results (inf, nan) instead of Python
exceptions for float division by zero, as numpy scalars do in gymnasium. No fastmath: it would
reorder and fuse floating-point operations and break bit-exactness. ``nogil=True`` lets other Python
threads run during a kernel, the engine's own stepping threads among them (``threads.py``).

Helpers and entries. numba compiles, for every function, a wrapper that unboxes its arguments from Python objects
(and a C-callable one), links both into every kernel that calls the function, and optimises and generates machine
code for them there again. For a Box2D port routine that takes a world of 43 arrays, that wrapper is most of the
function's code: dropping it compiles a chain of such routines ~2.7x faster. So a function decorated here is a
*helper*: compiled for other kernels only, without wrappers (``HELPER_OPTIONS``). Calling a helper from Python
compiles and calls its *Python entry*, the same function with wrappers (kept in the cache under its own key), so a
helper works from Python too, at the cost of a second compile of its own code; functions that Python calls are
declared ``entry=True`` and compiled with wrappers from the start.

A helper's own code is never run: only the entries that link it run it. numba nevertheless generates machine code
for each function's module with everything it links, so a routine deep in the Box2D port was translated once per
function above it. ``HelperCodeLibrary`` keeps a helper's optimised module (LLVM's passes, as numba runs them) and
generates no machine code for it: that happens once, in the entry that links it. Its cache entry is its LLVM
bitcode. (Leaving the module passes to the entry too compiled LunarLander in 39 s instead of 46 s, but the code the
entry's passes made of unoptimised callees stepped 18% slower: the passes optimise bottom-up, one level at a time.)

A helper's module defines its own functions only. numba links into each function's module the modules of the
functions it calls, each holding those of the functions they call, and LLVM's module passes then optimise all of them
again: a routine deep in the port was optimised once more per function above it, each time to the same code (a
LunarLander compile spent 15.2 s of its 69 s in helpers' module passes). A helper's module now links the modules of
the functions it calls directly, defining only their own functions, which it may inline as before; what it links
for others declares the functions it does not define (``_declare_others``), and an entry links the modules of every
helper below it (``_linked_closure``), then optimises and translates the whole, as before. LunarLander's cold compile
went from 71.2 s to 63.9 s, its helpers' module passes to 6.1 s, its step at the same speed. A helper's cache entry
still defines all it calls, as no library of its callees comes with it when it is loaded.

Internal callees. numba passes each argument of a compiled call as its members, each array as 7-11 scalars, so a
call of a Box2D port routine that LLVM does not inline passes a ``World`` of 46 arrays as ~450 values; and numba links
every callee into a kernel's module as ``linkonce_odr`` (a definition other modules may replace), whose arguments
LLVM may not change. In the module of an entry that links helpers, nothing outside calls the linked functions: made
``internal`` there before LLVM's module passes (``_internalize_callees``), and renamed apart from every other module's
copies, they lose the arguments they never read (LLVM's dead-argument elimination): a LunarLander x16 step ran 1.4-1.9x
faster (20 unused arrays added to the ``World`` had cost it 13%; docs/box2d.md, "What a call costs"). Helpers' own
modules keep their callees ``linkonce_odr``, so that the entry that links several gets one copy of each.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Callable

from llvmlite import binding as ll
from numba import njit
from numba.core import cgutils, codegen, errors, typed_passes, types
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher

from nbgym.engine import _interrupts
from nbgym.engine._cache import CheckedFunctionCache

KERNEL_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy", "fastmath": False}

HELPER_OPTIONS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""What makes a compiled function a helper: no wrapper from Python objects, none for C callers (see the module
docstring). numba's own entry point of such a function is a null pointer: only ``HelperDispatcher`` may hold one."""

OVERLOAD_OPTIONS = {**{name: value for name, value in KERNEL_OPTIONS.items() if name != "cache"}, **HELPER_OPTIONS}
"""The options of the functions that kernels call through ``numba.extending.overload``. Not cached on
their own: numba would keep them in its plain, unchecked cache files, and their code is compiled into
every kernel that calls them, whose checked entry holds it. Never called from Python: helpers."""


def _plain_type(value_type: types.Type) -> types.Type:
    """A helper's argument type as ``HelperDispatcher`` compiles it: unliteral, a narrow signed integer as ``int64``."""
    value_type = types.unliteral(value_type)
    if isinstance(value_type, types.Integer) and value_type.signed and value_type.bitwidth < 64:
        return types.int64
    return value_type


class KernelDispatcher(CPUDispatcher):
    """The dispatcher of an nbgym kernel: numba's, whose compiles and loads from the cache (at a first call too) take a
    Ctrl-C only outside llvmlite's code, which an interrupt can leave freeing memory twice (``_interrupts``)."""

    def compile(self, sig: Any) -> Any:
        with _interrupts.outside_llvmlite():
            return super().compile(sig)


class HelperDispatcher(KernelDispatcher):
    """The dispatcher of a helper: compiled without Python wrappers for the kernels that call it.

    Calling it from Python calls its Python entry instead (``python_entry``): numba would otherwise jump to the
    helper's missing wrapper, a null pointer.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.python_entry()(*args, **kwargs)

    def get_call_template(self, args: tuple, kws: dict) -> tuple:
        """numba's typing of a call from a kernel, with constants typed by their type, not their value, and signed
        integers narrower than 64 bits as ``int64``.

        numba types a constant argument by its value (``Literal[int](0)``) and compiles the callee once per value: a
        port routine called with 0, 1 and 2 was compiled three times, with everything it calls that takes the value
        on. And it compiles a callee once per integer width: an index read from an ``int32`` array and one counted
        in a loop (``int64``) made two copies of 25 of LunarLander's port routines, 29 of its 302 compiles. As
        numba does for calls from Python, the plain types come first, the literal ones (and the narrow integers)
        only for a function whose typing needs them (a tuple index, say); LLVM still folds the constant where it
        inlines the call. Widening changes no value: numba computes with a narrow integer as an ``int64`` anyway
        (``int32 + int32`` is ``int64``), and the call converts the argument exactly.
        """
        plain_args = tuple(_plain_type(arg) for arg in args)
        plain_kws = {name: _plain_type(value) for name, value in kws.items()}
        if plain_args != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain_args, plain_kws)
            except errors.TypingError:
                pass
        return super().get_call_template(args, kws)

    def add_overload(self, cres: Any) -> None:
        """Keeps a compiled version, refusing one compiled without reference counting that returns arrays.

        numba compiles a helper called from a function without reference counting (a ``borrowing_kernel``)
        without it too, and keeps that version for every caller: one returning an array (its argument) would hand
        a caller that counts references a reference it never got, and that caller would free the array under
        its owner.
        """
        # A version compiled here carries the context it was compiled in (numba makes one per compile, without
        # reference counting for such code); one loaded from the cache (its annotation kept as text) carries the
        # dispatcher's and was checked when it was compiled.
        context = cres.target_context
        compiled_here = not isinstance(cres.type_annotation, str)
        return_type = cres.signature.return_type
        if compiled_here and not context.enable_nrt and context.data_model_manager[return_type].contains_nrt_meminfo():
            raise errors.TypingError(
                f"{self.py_func.__qualname__} returns {return_type}, which holds arrays, and is compiled without "
                f"numba's reference counting (a borrowing_njit function, or a helper that one calls): a caller that "
                f"counts references would free the array under its owner. Return scalars, or write into an array "
                f"the caller passes."
            )
        super().add_overload(cres)

    def python_entry(self) -> Dispatcher:
        """The same function compiled with Python wrappers (made at the first call from Python)."""
        entry = self.__dict__.get("_python_entry")
        if entry is None:
            # numba's own record of the options (it survives pickling), less the helpers' and njit's implied one
            options = {
                name: value
                for name, value in self.targetoptions.items()
                if name not in HELPER_OPTIONS and name != "nopython"
            }
            entry = self._python_entry = _dispatcher(self.py_func, options, entry=True)
        return entry


def _dispatcher(function: Callable, options: dict, entry: bool) -> Any:
    """``function`` compiled with ``options`` over the checked cache: an entry (wrappers) or a helper (none)."""
    if entry:
        dispatcher = njit(**options)(function)
    else:
        dispatcher = njit(**options, **HELPER_OPTIONS)(function)
    if not isinstance(dispatcher, Dispatcher):  # NUMBA_DISABLE_JIT=1: the Python function itself
        return dispatcher
    dispatcher.__class__ = KernelDispatcher if entry else HelperDispatcher
    # Helpers and entries of one function share its cache file: the key tells them apart (a helper's code
    # loaded as an entry would be called through its null wrapper).
    dispatcher._cache = CheckedFunctionCache(function, variant="entry" if entry else "helper")
    return dispatcher


def kernel(function: Callable | None = None, *, entry: bool = False, counts_references: bool = False) -> Any:
    """Decorator of every compiled nbgym function: ``njit`` with ``KERNEL_OPTIONS``, over the checked cache.

    Args:
        function: The function to compile.
        entry: Whether Python calls it (the engine's kernels): compiled with Python wrappers. Otherwise it is a
            helper for other kernels, which Python may still call (see the module docstring).
        counts_references: Whether it counts references also where a borrowing function calls it; otherwise numba
            compiles it as its caller is compiled (a Box2D shape's constructor, which allocates, called by
            BipedalWalker's borrowing terrain code).

    Returns:
        Its numba dispatcher (the function itself when ``NUMBA_DISABLE_JIT=1``); with only ``entry``, the decorator.
    """
    if function is None:
        return lambda function: kernel(function, entry=entry, counts_references=counts_references)
    options = {**KERNEL_OPTIONS, "cache": False, **({"_nrt": True} if counts_references else {})}
    return _dispatcher(function, options, entry)


BORROWING_OPTIONS = {**OVERLOAD_OPTIONS, "_nrt": False}
"""The options of ``borrowing_kernel`` functions, and of overloads that such functions call."""


def borrowing_kernel(function: Callable | None = None, *, entry: bool = False, always_inline: bool = False) -> Any:
    """Decorator of compiled functions that borrow their arrays: ``kernel`` without numba's reference counting.

    numba counts references to every array a function receives: a compiled call that LLVM does not inline
    increments and decrements the count of each array argument, one atomic operation each, and a namedtuple
    of 38 arrays (a Box2D port ``World``) costs 76 of them per call. A function whose arrays all come from
    its caller, which keeps them alive for the call, needs none. Such a function may not allocate an array
    (numba then refuses to compile it); it may call ``kernel`` functions that do, and let them free it.

    Args:
        function: The function to compile.
        entry: As for ``kernel``.
        always_inline: Whether LLVM inlines every call of it (numba's ``forceinline``: its LLVM function is marked
            ``alwaysinline``), where its own heuristics would call it: for a function called in a hot loop from one
            place, whose call passes each array as its members (a copy of its code at each call site lengthens a
            cold compile).
    """
    if function is None:
        return lambda function: borrowing_kernel(function, entry=entry, always_inline=always_inline)
    options = {
        **KERNEL_OPTIONS,
        "cache": False,
        **{k: v for k, v in BORROWING_OPTIONS.items() if k not in HELPER_OPTIONS},
        **({"forceinline": True} if always_inline else {}),
    }
    return _dispatcher(function, options, entry)


_HELPER_BITCODE = "nbgym-helper-bitcode"
"""The kind of a helper library's cache entry (numba's own kinds are ``object`` and ``bitcode``)."""


class HelperCodeLibrary(codegen.JITCodeLibrary):
    """The code library of a helper (a function compiled without wrappers): an optimised LLVM module for other
    libraries to link, with no machine code of its own (see the module docstring)."""

    def _finalize_final_module(self) -> None:
        # No machine code: nothing calls a helper but the compiled code that links its module.
        self._define_environments(self._final_module)
        self._finalized = True

    def _define_environments(self, module: Any) -> None:
        """Defines the helper's environment pointers (numba's ``NumbaEnv`` globals, of ``common`` linkage) in the
        JIT engine, as numba's machine code of the module would have: numba sets each one when it makes the
        function, and the entries that link the module resolve their copies to these."""
        names = [variable.name for variable in module.global_variables if variable.name.startswith("_ZN08NumbaEnv")]
        if not names:
            return
        environments = self._codegen._create_empty_module(f"{self.name}.environments")
        for name in names:
            variable = codegen.llvmir.GlobalVariable(environments, cgutils.voidptr_t, name=name)
            variable.linkage = "common"
            variable.initializer = cgutils.get_null_value(cgutils.voidptr_t)
        self._codegen._add_module(codegen.ll.parse_assembly(str(environments)))
        self._codegen._engine.finalize_object()

    def get_pointer_to_function(self, name: str) -> int:
        self._ensure_finalized()
        return 0  # a helper has no callable code (its dispatcher's entry point is null; see HelperDispatcher)

    def finalize(self) -> None:
        # Its own functions: those defined before numba links the modules of the functions it calls.
        self._own_functions = {
            function.name for function in self._final_module.functions if not function.is_declaration
        }
        super().finalize()

    def _get_module_for_linking(self) -> Any:
        """Its optimised module with only its own functions defined: what callers link (see the module docstring)."""
        self._ensure_finalized()
        if self._shared_module is None:
            module = _declare_others(self._final_module, self._own_functions)
            for function in module.functions:
                if not function.is_declaration and function.linkage == ll.Linkage.external:
                    function.linkage = ll.Linkage.linkonce_odr  # as numba's: other modules may define it too
            self._shared_module = module
        return self._shared_module

    def serialize_using_object_code(self) -> tuple:
        # With every function it calls defined: loaded from the cache, it has no callees' libraries to link.
        module = self._get_module_for_linking().clone()
        for library in _linked_closure(self._linking_libraries):
            module.link_in(library._get_module_for_linking(), preserve=True)
        return (self.name, _HELPER_BITCODE, module.as_bitcode())


_LINKAGE_WORDS = frozenset(
    "private internal linkonce linkonce_odr weak weak_odr available_externally external common appending "
    "extern_weak hidden protected default dso_local dso_preemptable".split()
)
"""The words that may precede a function's type in LLVM's ``define``, none of which a ``declare`` takes here."""

_LOCAL_DEFINES = ("define internal ", "define private ")

_DEFINED_NAME = re.compile(r'@("(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+)\(')

_LONG_LOCAL_NAME = re.compile(r'(?:(?<=%)|^)("[^"\n]{1000,}"|[-a-zA-Z$._0-9]{1000,})(?=[:,\s)\]]|$)', re.M)
"""A value or block name that LLVM's text parser refuses (over 1,024 characters: numba's mangled callee names in the
names that inlining gives blocks), though LLVM made it: a use (``%name``) or a block's label (at a line's start). Not
a string constant, which the parser takes at any length (debug information's linkage names, with ``NUMBA_DEBUGINFO``
or ``NUMBA_ENABLE_PROFILING``)."""


def _declare_others(module: Any, own: set[str]) -> Any:
    """A copy of ``module`` with the functions not in ``own`` declared instead of defined (but for ``internal`` and
    ``private`` ones, which only this module's code calls).

    LLVM's C API can delete a function's body, but llvmlite does not bind it: the copy is made from the module's
    text, with each other function's ``define ... { ... }`` replaced by its ``declare`` (the same signature and
    attributes), and the names LLVM's parser would refuse shortened.
    """
    lines = str(module).split("\n")
    kept = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if (
            line.startswith("define ")
            and not line.startswith(_LOCAL_DEFINES)  # a module's own copy, which no other module's can stand for
            and _DEFINED_NAME.search(line).group(1).strip('"') not in own
        ):
            words = line[len("define ") :].rstrip("{ ").split(" ")
            while words[0] in _LINKAGE_WORDS:
                del words[0]
            header = re.sub(r" comdat(\([^)]*\))?| personality .*$| !\w+ !\d+", "", " ".join(words))
            kept.append(f"declare {header}")
            while lines[index] != "}":
                index += 1
        else:
            kept.append(line)
        index += 1
    return ll.parse_assembly(_LONG_LOCAL_NAME.sub(_short_name, "\n".join(kept)))


def _short_name(match: re.Match) -> str:
    return "nbgym.long." + hashlib.sha256(match.group(1).encode()).hexdigest()[:32]


def _linked_closure(libraries: list) -> list:
    """``libraries`` and, through each helper among them compiled in this process (one loaded from the cache defines
    all it calls), the libraries it links: each after every one that links it, as LLVM's linker copies a
    ``linkonce_odr`` definition only into a module that already calls it."""
    order = []
    visited = set()

    def visit(library: Any) -> None:
        visited.add(id(library))
        if isinstance(library, HelperCodeLibrary):
            for callee in library._linking_libraries:
                if id(callee) not in visited:
                    visit(callee)
        order.append(library)

    for library in libraries:
        if id(library) not in visited:
            visit(library)
    return order[::-1]


def _refuse_undefined_callees(library: Any) -> None:
    """Refuses an entry's module in which a function of a helper it links is called but not defined, before LLVM
    translates it: LLVM would end the process (a symbol it cannot resolve), where this raises.

    Raises:
        RuntimeError: Naming the functions and the library.
    """
    own = set()
    for linked in library._linking_libraries:
        own |= getattr(linked, "_own_functions", set())
    missing = [f.name for f in library._final_module.functions if f.is_declaration and f.name in own]
    if missing:
        raise RuntimeError(
            f"nbgym's kernel linker left {len(missing)} compiled function(s) undefined in {library.name} "
            f"({', '.join(sorted(missing)[:3])}): this is a bug in nbgym, please report it."
        )


def _refuse_borrowed_returns(state: Any) -> None:
    """Refuses, in a function compiled without reference counting, a call to a compiled function that returns
    arrays, whichever version of it the call reaches: one compiled with reference counting (for a caller that
    counts, compiled first) hands over a reference that this function never gives back, a leak per call; one
    compiled without is refused by ``HelperDispatcher.add_overload``. Checked at the caller, so that the order in
    which the functions compile does not matter.

    Raises:
        numba.core.errors.TypingError: Naming the callee, its return type and the line of the call.
    """
    data_models = state.targetctx.data_model_manager
    for block in state.func_ir.blocks.values():
        for call in block.find_exprs(op="call"):
            callee = state.typemap.get(call.func.name)
            if not isinstance(callee, types.Dispatcher):
                continue
            return_type = state.calltypes[call].return_type
            if data_models[return_type].contains_nrt_meminfo():
                raise errors.TypingError(
                    f"{callee.dispatcher.py_func.__qualname__} returns {return_type}, which holds arrays, and is called "
                    f"by {state.func_id.func_qualname}, which is compiled without numba's reference counting (a "
                    f"borrowing_njit function, or a physics' step, observe or action_valid declared with "
                    f"borrows_state=True): the returned reference would never be given back. Return scalars, or write "
                    f"into an array the caller passes.",
                    loc=call.loc,
                )


def _links_helpers(library: Any) -> bool:
    """Whether ``library`` is not a helper and links one (an entry, or a function numba compiled with a wrapper)."""
    return not isinstance(library, HelperCodeLibrary) and any(
        isinstance(linked, HelperCodeLibrary) for linked in library._linking_libraries
    )


def _internalize_callees(library: Any) -> None:
    """Makes the functions an entry's module links (``linkonce_odr``) ``internal`` to it, if it links helpers: only
    its own functions are called from outside it (see the module docstring)."""
    if not _links_helpers(library):
        return
    # Renamed too: the JIT's symbol table holds internal symbols by name, and a module that links the same callee
    # ``linkonce_odr`` (a weak definition, resolved by name) would otherwise call this module's copy, whose
    # arguments and return value LLVM has changed. A random suffix keeps the names apart across processes, whose
    # kernels meet in one JIT when they are loaded from the cache.
    suffix = f".internal.{uuid.uuid4().hex}"
    for function in library._final_module.functions:
        if not function.is_declaration and function.linkage == ll.Linkage.linkonce_odr:
            function.linkage = ll.Linkage.internal
            function.name = function.name + suffix


def _install_helper_libraries() -> None:
    """Makes numba compile the functions that have neither wrapper into ``HelperCodeLibrary`` and read them back
    from the cache; once per process (numba's lowering pass and its library loader are shared by every module)."""
    lowering = typed_passes.NativeLowering
    if getattr(lowering.run_pass, "_nbgym_helpers", False):
        return
    run_pass = lowering.run_pass

    def run_pass_with_helper_libraries(self: Any, state: Any) -> Any:
        flags = state.flags
        if not flags.nrt:
            _refuse_borrowed_returns(state)
        if state.library is None and flags.no_cpython_wrapper and flags.no_cfunc_wrapper:
            state.library = HelperCodeLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()
        return run_pass(self, state)

    run_pass_with_helper_libraries._nbgym_helpers = True
    lowering.run_pass = run_pass_with_helper_libraries

    finalize = codegen.CPUCodeLibrary.finalize

    def finalize_linking_helpers_callees(self: Any) -> None:
        # A helper links its own callees' modules; any other library, everything its helpers call.
        if _links_helpers(self):
            self._linking_libraries = _linked_closure(self._linking_libraries)
        finalize(self)

    codegen.CPUCodeLibrary.finalize = finalize_linking_helpers_callees

    optimize = codegen.CPUCodeLibrary._optimize_final_module

    def optimize_with_internal_callees(self: Any) -> None:
        if not isinstance(self, HelperCodeLibrary):
            _refuse_undefined_callees(self)
        _internalize_callees(self)
        optimize(self)

    codegen.CPUCodeLibrary._optimize_final_module = optimize_with_internal_callees

    unserialize = codegen.JITCodeLibrary._unserialize.__func__

    @classmethod
    def unserialize_helpers(cls: type, target_codegen: Any, state: tuple) -> Any:
        name, kind, data = state
        if kind != _HELPER_BITCODE:
            return unserialize(cls, target_codegen, state)
        library = HelperCodeLibrary(target_codegen, name)
        library._shared_module = codegen.ll.parse_bitcode(data)
        library._define_environments(library._shared_module)
        library._finalized = True
        return library

    codegen.JITCodeLibrary._unserialize = unserialize_helpers


_install_helper_libraries()
