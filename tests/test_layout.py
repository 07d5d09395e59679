"""The package layout holds (docs/architecture.md): a short top of wsim/, the names reserved for
the public Python functions kept free, trivial package entry files, a flat kernels/ (its cache
key hashes kernels/*.py only) and every package listed for installation."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WSIM = ROOT / "wsim"
MAX_TOP_MODULES = 15
RESERVED = ("simulate", "ladder", "ablate", "balance", "survey", "rebalance")


def test_the_top_of_wsim_is_short_and_leaves_the_reserved_names_free():
    modules = sorted(p.stem for p in WSIM.glob("*.py"))
    assert len(modules) <= MAX_TOP_MODULES, modules
    packages = sorted(p.parent.name for p in WSIM.glob("*/__init__.py"))
    assert packages == ["agents", "analysis", "api", "cli", "dataset", "env", "reference", "run"]
    for name in RESERVED:
        assert name not in modules and name not in packages, name


def _imports(path: Path) -> list:
    """The imports a module runs when it is imported (a function's own run when it is called)."""
    tree = ast.parse(path.read_text())
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return [n for stmt in top for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_package_entry_files_import_nothing():
    """`import wsim` and `import wsim.cli` run before the entry point installs its signal
    handlers, and importing any module runs its packages' files: nothing may load there (wsim's
    lazy public names import their module at first use, in a function)."""
    for init in WSIM.rglob("__init__.py"):
        assert _imports(init) == [], init
    code = "import sys, wsim, wsim.cli; print(sorted(m for m in ('numba', 'click', 'pyarrow', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_kernels_is_flat():
    kernels = ROOT / "kernels"
    assert not [p for p in kernels.iterdir() if p.is_dir() and p.name != "__pycache__"]


def test_every_package_is_installed():
    """A package missing from pyproject.toml works from the source tree and breaks a wheel."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in WSIM.rglob("__init__.py")}
    assert listed == found | {"wsim.kernels"}
