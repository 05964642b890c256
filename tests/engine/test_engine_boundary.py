"""The engine is closed: nbgym's environments use only its public names, and it is one package.

``nbgym/envs`` is written as an environment outside nbgym would be, against ``nbgym.engine``'s public API;
the engine's implementation is private inside ``nbgym/engine`` (``_env``, ``_kernels``, ``_jit``...), with one
module per name (no public module over a private one of the same name).
"""

from __future__ import annotations

import ast
import pathlib

import nbgym
import nbgym.engine

PACKAGE = pathlib.Path(nbgym.__file__).parent


def _is_engine(module: str) -> bool:
    return module in ("nbgym.engine", "nbgym._engine") or module.startswith(("nbgym.engine.", "nbgym._engine"))


def _private(module: str) -> bool:
    """Whether ``module`` is a private module of the engine (or the engine's former private package)."""
    return _is_engine(module) and any(part.startswith("_") for part in module.split(".")[1:])


def private_engine_imports(source: str, filename: str) -> list[str]:
    """The imports of private engine names in ``source``: ``import``/``from`` of a private engine module
    (``nbgym.engine._jit``, ``nbgym._engine...``), and names starting with ``_`` imported from the engine."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _private(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _is_engine(node.module):
            names = [alias.name for alias in node.names]
            if _private(node.module) or any(name.startswith("_") for name in names):
                found.append(f"line {node.lineno}: from {node.module} import {', '.join(names)}")
    return found


def test_the_check_finds_private_imports():
    cases = {
        "from nbgym._engine.env import _KERNEL_FLOATS": True,
        "from nbgym._engine import kernels": True,
        "import nbgym._engine.jit": True,
        "from nbgym.engine._jit import kernel": True,
        "from nbgym.engine import _kernels as kernels": True,
        "import nbgym.engine._render as render": True,
        "from nbgym.engine.npmath import _fma": True,
        "def f():\n    from nbgym.engine._render import import_pygame": True,
        "from nbgym.engine import KernelEnv, njit, rng": False,
        "from nbgym.engine.atomic import fetch_add": False,
        "import nbgym.engine.actions as reading": False,
        "from nbgym._box2d import world": False,  # the Box2D port is not the engine
        "from . import _raster": False,
    }
    for source, private in cases.items():
        assert bool(private_engine_imports(source, "<case>")) == private, source


def test_the_environments_import_no_private_engine_name():
    offenders = {}
    for path in sorted((PACKAGE / "envs").rglob("*.py")):
        found = private_engine_imports(path.read_text(), str(path))
        if found:
            offenders[str(path.relative_to(PACKAGE.parent))] = found
    assert not offenders, f"nbgym/envs imports private engine names (make them public in nbgym.engine): {offenders}"


def test_the_engine_is_one_package_with_one_module_per_name():
    assert not (PACKAGE / "_engine").exists(), "the engine's implementation lives in nbgym/engine (private modules)"
    engine = PACKAGE / "engine"
    modules = [path for path in engine.rglob("*.py") if path.name != "__init__.py"]
    modules += [path.parent for path in engine.rglob("__init__.py") if path.parent != engine]
    by_name: dict[str, list[str]] = {}
    for path in modules:
        by_name.setdefault(path.stem.lstrip("_"), []).append(str(path.relative_to(engine)))
    assert not {name: paths for name, paths in by_name.items() if len(paths) > 1}


def test_the_public_names_are_importable_and_documented():
    doc = nbgym.engine.__doc__
    for name in nbgym.engine.__all__:
        assert getattr(nbgym.engine, name) is not None, name
        assert name in doc, f"nbgym.engine.{name} is not in the package's docstring"
    assert not [name for name in nbgym.engine.__all__ if name.startswith("_")]


def test_the_kernels_cache_key_reads_the_engine_sources():
    """A physics' cache key hashes the engine files its kernels compile in: each must exist (a renamed one would
    silently drop out of the key)."""
    from nbgym.engine import _kernels

    assert all(path.is_file() for path in _kernels._ENGINE_SOURCES), _kernels._ENGINE_SOURCES
