"""Where a step's time goes, per compiled function: ``perf`` samples of an nbgym step loop, with the kernels named.

``perf`` names a JIT's functions only from a map file (``/tmp/perf-PID.map``), and numba writes none here:
``NUMBA_ENABLE_PROFILING`` registers LLVM's perf listener, which wrote nothing with this llvmlite, and kernels loaded
from the cache are never announced to it. This script keeps the object code of every library numba compiles or loads
(``record_object_code``, before any env is made), writes the map of their functions' addresses from the objects' ELF
symbol tables, then steps the env while ``perf record`` samples this process, and prints each function's share of the
samples and its time per step (summed over threads: a thread that waits spins in ``step_chunks`` or ``atomic._spin``)::

    python benchmarks/profile_step.py BipedalWalker-v3                  # the single env, `make`
    python benchmarks/profile_step.py LunarLander-v3 --num-envs 64 --threads 2 --seconds 10

Linux only, with ``perf`` installed and allowed to sample the process (``kernel.perf_event_paranoid`` <= 2, or root).
The numbers are samples, not a benchmark: compare configurations with the bench scripts.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

_OBJECTS: list[bytes] = []
"""The object code of every numba library compiled or loaded since ``record_object_code``."""


_recording = False
"""Whether ``record_object_code`` is in effect."""


def record_object_code() -> None:
    """Keeps a copy of the object code numba compiles (its JIT's object cache hook, set again here: numba set it when
    its code generator was made) or loads from its cache; call before the kernels load."""
    global _recording
    from numba.core import codegen
    from numba.core.registry import cpu_target

    if _recording:
        return
    library = codegen.CPUCodeLibrary
    set_compiled = library._set_compiled_object

    def set_compiled_object(self: Any, value: bytes) -> None:
        _OBJECTS.append(bytes(value))
        set_compiled(self, value)

    def object_compiled(ll_module: Any, buf: bytes) -> None:
        _OBJECTS.append(bytes(buf))
        library._object_compiled_hook(ll_module, buf)

    library._set_compiled_object = set_compiled_object
    cpu_target.target_context.codegen()._engine.set_object_cache(object_compiled, library._object_getbuffer_hook)
    _recording = True


def stop_recording() -> None:
    """Gives numba its hooks back and drops the copies."""
    global _recording
    from numba.core import codegen
    from numba.core.registry import cpu_target

    if _recording:
        library = codegen.CPUCodeLibrary
        del library._set_compiled_object  # the inherited one again
        engine = cpu_target.target_context.codegen()._engine
        engine.set_object_cache(library._object_compiled_hook, library._object_getbuffer_hook)
        _recording = False
    _OBJECTS.clear()


_STT_FUNC = 2
_SHT_SYMTAB = 2


def elf_functions(image: bytes) -> list[tuple[str, int]]:
    """The functions an ELF64 little-endian object defines: ``(name, size)`` from its symbol table.

    Raises:
        ValueError: If ``image`` is not an ELF64 little-endian object.
    """
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        raise ValueError("not an ELF64 little-endian object")
    section_offset = struct.unpack_from("<Q", image, 0x28)[0]
    entry_size, count = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, section_offset + k * entry_size) for k in range(count)]
    functions = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, symbol_size in sections:
        if kind != _SHT_SYMTAB:
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, symbol_size):
            name_at, info, _other, section, _value, length = struct.unpack_from("<IBBHQQ", image, at)
            if info & 0xF == _STT_FUNC and section != 0:
                end = image.index(b"\0", strings + name_at)
                functions.append((image[strings + name_at : end].decode(), length))
    return functions


def write_perf_map(path: str) -> int:
    """Writes ``perf``'s map of the recorded objects' functions (``address size name`` per line) to ``path``;
    returns how many it names."""
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine
    named: dict[int, tuple[int, str]] = {}
    for image in _OBJECTS:
        for name, size in elf_functions(image):
            address = engine.get_function_address(name)
            if address:
                named.setdefault(address, (size, name))
    with open(path, "w") as out:
        for address, (size, name) in sorted(named.items()):
            out.write(f"{address:x} {max(size, 1):x} {name}\n")
    return len(named)


def short_name(symbol: str) -> str:
    """A numba function's qualified name from its mangled symbol (``_ZN5nbgym6_box2d6island...`` ->
    ``nbgym._box2d.island...``, the types dropped); other symbols as they are."""
    rest = symbol[len("_ZN") :] if symbol.startswith("_ZN") else ""
    if rest.startswith("7cpython"):
        rest = rest[len("7cpython") :]
    parts = []
    while rest[:1].isdigit():
        digits = re.match(r"\d+", rest).group()
        rest = rest[len(digits) :]
        parts.append(rest[: int(digits)])
        rest = rest[int(digits) :]
    return ".".join(parts) if parts else symbol


def parse_report(text: str) -> list[tuple[str, int]]:
    """``perf report --stdio -n --sort sym`` rows as ``(short name, samples)``, the names' rows summed, most first."""
    samples: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(\S+)", line)
        if match:
            name = short_name(match.group(2))
            samples[name] = samples.get(name, 0) + int(match.group(1))
    return sorted(samples.items(), key=lambda row: -row[1])


def _sample(perf: str, args: argparse.Namespace, steps: Callable[[int, int], None]) -> tuple[str | None, int, float]:
    """``perf record`` of this process for ``args.seconds`` while ``steps`` runs; returns perf's report (``None`` if
    perf failed, its error printed), the steps taken in those seconds and the time they took."""
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "perf.data")
        command = [perf, "record", "-F", str(args.frequency), "-p", str(os.getpid()), "-o", data]
        recording = subprocess.Popen(
            [*command, "--", "sleep", str(args.seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        time.sleep(0.2)  # perf attaches, then samples for ``seconds``
        done, sampled = 0, 0
        start = time.perf_counter()
        while recording.poll() is None:  # stepping on while perf writes its file: it samples no idle wait
            steps(20, done)
            done += 20
            if not sampled and time.perf_counter() - start >= args.seconds:
                sampled, elapsed = done, time.perf_counter() - start
        if not sampled:  # perf ended early
            sampled, elapsed = done, time.perf_counter() - start
        if recording.returncode != 0:
            print(recording.stderr.read().decode(errors="replace"), file=sys.stderr)
            return None, 0, 0.0
        report = subprocess.run(
            [perf, "report", "-i", data, "--stdio", "-n", "--no-children", "--sort", "sym", "-g", "none"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return report, sampled, elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--num-envs", type=int, default=0, help="a vector env of this many (default: the single env)")
    parser.add_argument("--threads", type=int, default=1, help="the vector env's num_threads (default: 1)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long perf samples (default: 10)")
    parser.add_argument("--frequency", type=int, default=4000, help="perf's samples per second (default: 4000)")
    parser.add_argument("--top", type=int, default=30, help="the functions shown (default: 30)")
    args = parser.parse_args(argv)
    if args.threads != 1 and not args.num_envs:
        parser.error("--threads is a vector env's: give --num-envs too")
    if min(args.num_envs, args.threads - 1, args.top) < 0 or args.seconds <= 0 or args.frequency <= 0:
        parser.error("--num-envs and --top take counts >= 0, --threads >= 1, --seconds and --frequency > 0")
    perf = shutil.which("perf")
    if perf is None or not sys.platform.startswith("linux"):
        parser.error("needs Linux's perf on the PATH (linux-tools / the perf package)")

    record_object_code()
    import nbgym

    if args.num_envs:
        env = nbgym.make_vec(args.env_id, num_envs=args.num_envs, num_threads=args.threads)
    else:
        env = nbgym.make(args.env_id)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(256)]
    single = not args.num_envs

    def steps(count: int, start: int) -> None:
        for k in range(start, start + count):
            _, _, terminated, truncated, _ = env.step(actions[k % len(actions)])
            if single and (terminated or truncated):
                env.reset()

    env.reset(seed=0)
    steps(200, 0)  # every kernel compiled or loaded before the map is written
    map_path = f"/tmp/perf-{os.getpid()}.map"
    named = write_perf_map(map_path)
    try:
        report, sampled, elapsed = _sample(perf, args, steps)
    finally:
        os.unlink(map_path)
        env.close()
    if report is None:
        return 1
    rows = parse_report(report)
    total = sum(count for _, count in rows)
    per_step = 1e6 / args.frequency / sampled
    what = f"{args.num_envs} envs, {args.threads} thread(s)" if args.num_envs else "single env"
    print(f"{args.env_id}, {what}: {sampled} steps sampled ({elapsed / sampled * 1e6:.1f} us a step)")
    print(f"{total} samples at {args.frequency} Hz, {named} compiled functions named; CPU time per step, all threads:")
    for name, count in rows[: args.top]:
        print(f"  {100 * count / total:5.1f}%  {count * per_step:8.2f} us  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
