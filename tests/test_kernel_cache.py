"""The numba cache is keyed on the kernel sources: an edit anywhere in them starts a new cache, and
every front module a kernel imports is one of those sources."""

import ast
import importlib.util
from pathlib import Path

import numba

import wsim.kernels as kernels
from wsim.kernels.game import play_games


def test_cache_folder_follows_every_kernel_source(tmp_path):
    sources = kernels.key_sources()
    key = kernels.sources_key(sources)
    assert numba.config.CACHE_DIR.endswith(f"wsim-{key}")
    assert play_games._cache._cache_path.startswith(numba.config.CACHE_DIR)
    copies = []
    for p in sources:
        copy = tmp_path / p.name
        copy.write_bytes(p.read_bytes())
        copies.append(copy)
    assert kernels.sources_key(copies) == key
    layout = tmp_path / "layout.py"
    layout.write_bytes(layout.read_bytes() + b"\n# an edit\n")
    assert kernels.sources_key(copies) != key


def _front_imports(path: Path) -> set:
    """The wsim modules (outside wsim.kernels) a kernel source imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wsim"):
            package = importlib.util.find_spec(node.module).submodule_search_locations
            names = [f"{node.module}.{a.name}" if package else node.module for a in node.names]
        found.update(n for n in names if n.startswith("wsim.") and not n.startswith("wsim.kernels"))
    return found


def test_every_front_module_a_kernel_imports_is_in_the_cache_key():
    # a kernel that read constants from a module outside the key would keep stale compiled values
    # after an edit of that module (wsim/effects.py declares ENTITY's effect fields and COUNT_*)
    here = Path(kernels.__file__).resolve().parent
    imported = set().union(*(_front_imports(p) for p in sorted(here.glob("*.py"))))
    assert imported >= {"wsim.codes", "wsim.effects"}
    keyed = {Path(importlib.util.find_spec(name).origin).resolve() for name in imported}
    assert keyed <= set(kernels.key_sources()), sorted(imported)
