"""Calls into libmujoco that come back with an error code instead of ending the process.

MuJoCo reports a fatal error (``mju_error``: an invalid integrator, a solver type it does not know, an
arena too small for the contacts, ...) to a log handler that must not return; its default handler
prints the message and calls ``exit(1)``. The mujoco Python bindings install, around each call, a
*thread-local* handler (libmujoco's ``_mjPRIVATE_setTlsLogHandler``, ``_mjPRIVATE__set_tls_error_fn``
before mujoco 3.5) that copies the message and ``longjmp``s back to a ``setjmp`` made just before the
call, and then raise ``mujoco.FatalError``.

The compiled kernels call libmujoco directly, so they do the same through a small trampoline, built
here once per process from LLVM IR with llvmlite (numba's own compiler: no C compiler at install):

    int guarded_call(void (*function)(mjModel*, mjData*), mjModel* m, mjData* d, char* report)

installs the handler for the calling thread, ``setjmp``s, calls ``function(m, d)``, restores the
previous handler, and returns 0, or 1 after an error, whose text ("func: message", as the bindings
word it) is then in ``report`` (``REPORT_SIZE`` bytes). The handler finds the ``jmp_buf`` of its
thread's innermost guarded call through a POSIX thread-specific key, so any number of threads call
side by side. Warnings and other messages go on to the handler that was active before (the
previous thread-local one, else the global one), as the bindings forward them.

After an error the ``mjData`` is mid-computation (its stack marks unreleased): it must be reset
(``mj_resetData``) before it is stepped again; the envs refuse to step until then.

Where this cannot be built (no thread-local handler in libmujoco, no POSIX threads: Windows),
``GUARDED_CALL`` is 0 and the kernels call libmujoco unguarded, as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import llvmlite.binding as llvm

from nbgym.engine import outside_llvmlite

REPORT_SIZE = 2048
"""Bytes of the buffer receiving an error's text (the text is cut to fit, NUL-terminated)."""

_JMP_BUF_SIZE = 512
"""Room for a ``jmp_buf`` (glibc x86-64: 200 bytes, aarch64: 312, macOS arm64: 196): generous."""

_ERROR_LEVEL = 3  # mjLOG_ERROR
_SUBJECT_OFFSET = 8  # mjLogMessage: int level; int topic; char subject[1024]; const char* body; const char* func
_FUNC_OFFSET = _SUBJECT_OFFSET + 1024 + 8


def _symbol(library: ctypes.CDLL, *names: str) -> int:
    for name in names:
        try:
            return ctypes.cast(getattr(library, name), ctypes.c_void_p).value
        except AttributeError:
            continue
    return 0


def _slot(name: str, base: str, offset: int) -> str:
    """IR making ``%{name}``, an ``i8**`` to the pointer stored ``offset`` bytes into ``base``."""
    return f"""
  %{name}_byte = getelementptr i8, i8* %{base}, i64 {offset}
  %{name} = bitcast i8* %{name}_byte to i8**"""


def _handler_ir(structured: bool) -> str:
    """The error handler: ``void handler(const mjLogMessage* message)`` (``const char*`` before mujoco 3.5)."""
    if structured:
        head = f"""
  %level_slot = bitcast i8* %message to i32*
  %level = load i32, i32* %level_slot
  %is_error = icmp eq i32 %level, {_ERROR_LEVEL}
  br i1 %is_error, label %error, label %forward
forward:
  %frame_f = call i8* @get_frame()
  %has_frame = icmp ne i8* %frame_f, null
  br i1 %has_frame, label %forward_frame, label %done
forward_frame:{_slot("next_slot", "frame_f", _JMP_BUF_SIZE + 16)}
  %next = load i8*, i8** %next_slot
  %has_next = icmp ne i8* %next, null
  br i1 %has_next, label %call_next, label %done
call_next:
  %next_handler = bitcast i8* %next to void (i8*)*
  call void %next_handler(i8* %message)
  br label %done
done:
  ret void
error:
  %subject = getelementptr i8, i8* %message, i64 {_SUBJECT_OFFSET}{_slot("func_slot", "message", _FUNC_OFFSET)}
  %func = load i8*, i8** %func_slot
"""
    else:
        head = """
  br label %error
error:
  %subject = getelementptr i8, i8* %message, i64 0
  %func = inttoptr i64 0 to i8*
"""
    return f"""
define void @nbgym_mujoco_error_handler(i8* %message) {{
entry:{head}
  %frame = call i8* @get_frame(){_slot("report_slot", "frame", _JMP_BUF_SIZE)}
  %report = load i8*, i8** %report_slot
  %has_func = icmp ne i8* %func, null
  br i1 %has_func, label %with_func, label %jump
with_func:
  %after_func = call i64 @append(i8* %report, i64 0, i8* %func)
  %separator_text = getelementptr [3 x i8], [3 x i8]* @separator, i64 0, i64 0
  %after_separator = call i64 @append(i8* %report, i64 %after_func, i8* %separator_text)
  br label %jump
jump:
  %at = phi i64 [ 0, %error ], [ %after_separator, %with_func ]
  %end = call i64 @append(i8* %report, i64 %at, i8* %subject)
  call void @nbgym_longjmp(i8* %frame, i32 1)
  unreachable
}}
"""


def _module_ir(addresses: dict[str, int], key: int, key_bits: int, structured: bool) -> str:
    """The trampoline's module. Written with typed pointers (``i8*``, ``void (i8*)*``): LLVM 14 (llvmlite 0.43,
    numba 0.60) knows only those, and the LLVM of later llvmlites reads them as its opaque ``ptr``."""
    a = addresses
    key_type = f"i{key_bits}"
    forward = (
        f"""
  %prev_is_null = icmp eq i8* %previous, null
  br i1 %prev_is_null, label %global, label %chosen
global:
  %global_handler = call i8* inttoptr (i64 {a["global"]} to i8* ()*)()
  br label %chosen
chosen:
  %next = phi i8* [ %previous, %entry ], [ %global_handler, %global ]
"""
        if structured and a["global"]
        else """
  br label %chosen
chosen:
  %next = phi i8* [ %previous, %entry ]
"""
    )
    handler = "i8* bitcast (void (i8*)* @nbgym_mujoco_error_handler to i8*)"
    set_handler = (
        f"  %previous = call i8* inttoptr (i64 {a['set_handler']} to i8* (i8*)*)({handler})"
        if structured
        # Before mujoco 3.5 the setter returns nothing: the previous handler is taken as none.
        else f"  call void inttoptr (i64 {a['set_handler']} to void (i8*)*)({handler})\n"
        "  %previous = inttoptr i64 0 to i8*"
    )
    restore_type = "i8*" if structured else "void"
    set_specific = f"inttoptr (i64 {a['pthread_setspecific']} to i32 ({key_type}, i8*)*)"
    return f"""
@separator = private unnamed_addr constant [3 x i8] c": \\00"

define private i8* @get_frame() {{
  %frame = call i8* inttoptr (i64 {a["pthread_getspecific"]} to i8* ({key_type})*)({key_type} {key})
  ret i8* %frame
}}

define private void @nbgym_longjmp(i8* %buffer, i32 %value) noreturn {{
  call void inttoptr (i64 {a["longjmp"]} to void (i8*, i32)*)(i8* %buffer, i32 %value) noreturn
  unreachable
}}

; Copy the NUL-terminated src to dst[pos:], cut to fit REPORT_SIZE bytes with the NUL; the new end.
define private i64 @append(i8* %dst, i64 %pos, i8* %src) {{
entry:
  br label %loop
loop:
  %p = phi i64 [ %pos, %entry ], [ %p1, %body ]
  %k = phi i64 [ 0, %entry ], [ %k1, %body ]
  %full = icmp uge i64 %p, {REPORT_SIZE - 1}
  br i1 %full, label %end, label %check
check:
  %s = getelementptr i8, i8* %src, i64 %k
  %c = load i8, i8* %s
  %z = icmp eq i8 %c, 0
  br i1 %z, label %end, label %body
body:
  %d = getelementptr i8, i8* %dst, i64 %p
  store i8 %c, i8* %d
  %p1 = add i64 %p, 1
  %k1 = add i64 %k, 1
  br label %loop
end:
  %t = getelementptr i8, i8* %dst, i64 %p
  store i8 0, i8* %t
  ret i64 %p
}}

{_handler_ir(structured)}

define i32 @nbgym_guarded_call(i8* %function, i8* %model, i8* %data, i8* %report) {{
entry:
  ; frame: jmp_buf, then the report buffer's address, the enclosing frame, the handler to forward to,
  ; the handler to restore
  %frame_bytes = alloca [{_JMP_BUF_SIZE + 32} x i8], align 16
  %frame = getelementptr [{_JMP_BUF_SIZE + 32} x i8], [{_JMP_BUF_SIZE + 32} x i8]* %frame_bytes, i64 0, i64 0
{_slot("report_slot", "frame", _JMP_BUF_SIZE)}
  store i8* %report, i8** %report_slot
  %outer = call i8* @get_frame(){_slot("outer_slot", "frame", _JMP_BUF_SIZE + 8)}
  store volatile i8* %outer, i8** %outer_slot
{set_handler}{_slot("previous_slot", "frame", _JMP_BUF_SIZE + 24)}
  store volatile i8* %previous, i8** %previous_slot
{forward}{_slot("next_slot", "frame", _JMP_BUF_SIZE + 16)}
  store i8* %next, i8** %next_slot
  %set = call i32 {set_specific}({key_type} {key}, i8* %frame)
  %jumped = call i32 inttoptr (i64 {a["setjmp"]} to i32 (i8*)*)(i8* %frame) returns_twice
  %ok = icmp eq i32 %jumped, 0
  br i1 %ok, label %run, label %restore
run:
  %typed_function = bitcast i8* %function to void (i8*, i8*)*
  call void %typed_function(i8* %model, i8* %data)
  br label %restore
restore:
  %status = phi i32 [ 0, %run ], [ 1, %chosen ]
  %outer_back = load volatile i8*, i8** %outer_slot
  %reset = call i32 {set_specific}({key_type} {key}, i8* %outer_back)
  %previous_back = load volatile i8*, i8** %previous_slot
  call {restore_type} inttoptr (i64 {a["set_handler"]} to {restore_type} (i8*)*)(i8* %previous_back)
  ret i32 %status
}}
"""


def _build(libmujoco: ctypes.CDLL) -> tuple[int, object]:
    if sys.platform == "win32":
        return 0, None
    libc = ctypes.CDLL(None)
    structured_setter = _symbol(libmujoco, "_mjPRIVATE_setTlsLogHandler")
    legacy_setter = _symbol(libmujoco, "_mjPRIVATE__set_tls_error_fn")
    addresses = {
        "set_handler": structured_setter or legacy_setter,
        "global": _symbol(libmujoco, "_mjPRIVATE_getGlobalLogHandler"),
        "pthread_getspecific": _symbol(libc, "pthread_getspecific"),
        "pthread_setspecific": _symbol(libc, "pthread_setspecific"),
        "setjmp": _symbol(libc, "_setjmp"),
        "longjmp": _symbol(libc, "_longjmp", "longjmp"),
    }
    required = ("set_handler", "pthread_getspecific", "pthread_setspecific", "setjmp", "longjmp")
    if not all(addresses[name] for name in required):
        return 0, None
    key_type = ctypes.c_ulong if sys.platform == "darwin" else ctypes.c_uint  # pthread_key_t
    key = key_type()
    if libc.pthread_key_create(ctypes.byref(key), None) != 0:
        return 0, None
    ir = _module_ir(addresses, key.value, 8 * ctypes.sizeof(key_type), structured=bool(structured_setter))
    module = llvm.parse_assembly(ir)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=2)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    return engine.get_function_address("nbgym_guarded_call"), engine


def guarded_call_address(libmujoco: ctypes.CDLL) -> tuple[int, object]:
    """The address of ``guarded_call`` (0 where it cannot be built) and the object keeping its code alive. Built with
    Ctrl-C raised only outside llvmlite's code, as the kernels are compiled."""
    with outside_llvmlite():
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        return _build(libmujoco)
