"""The package layout holds (docs/architecture.md): a short top of wsim/, the names reserved for
the public Python functions kept free, trivial package entry files, a flat kernels/ (its cache
key hashes kernels/*.py only), every package listed for installation, and every import going
down the layers (tests/layers.py checks; the synthetic graphs below show what it catches)."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import layers

ROOT = Path(__file__).resolve().parents[1]
WSIM = ROOT / "wsim"
MAX_TOP_MODULES = 15
RESERVED = ("simulate", "ladder", "ablate", "balance", "survey", "rebalance")


def test_the_top_of_wsim_is_short_and_leaves_the_reserved_names_free():
    modules = sorted(p.stem for p in WSIM.glob("*.py"))
    assert len(modules) <= MAX_TOP_MODULES, modules
    packages = sorted(p.parent.name for p in WSIM.glob("*/__init__.py"))
    assert packages == ["agents", "analysis", "api", "cli", "dataset", "env", "people", "reference", "run"]
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


def test_imports_go_down_the_layers():
    """Every import of wsim/ and kernels/, inside functions too, goes down the layer order of
    docs/architecture.md or stays in its layer, and none closes a cycle (tests/layers.py)."""
    files = layers.source_files()
    problems = layers.check(layers.import_graph(), layers.read_order(), files)
    assert not problems, "\n".join(problems)


def _path(module: str) -> str:
    """The file of a module of wsim/, whether or not it still exists."""
    return module.replace(".", "/") + ".py"


def _gone(module: str) -> str:
    """The absolute path of a module the moves took away, for layers.place to place it."""
    return str(ROOT / _path(module))


def _review_edges(*chains: str) -> list:
    """Edges of module chains written `a -> b -> c` (names under wsim.), as the review found
    them (the fourth code review, issue 37); an edge's line is its place in its chain."""
    edges = []
    for chain in chains:
        names = [f"wsim.{n.strip()}" for n in chain.split("->")]
        edges += [layers.Edge(a, b, _path(a), i + 1) for i, (a, b) in enumerate(zip(names, names[1:]))]
    return edges


def _problems_with(edges: list, gone: dict) -> list:
    """The checker's problems with `edges` over today's tree and the modules of `gone`."""
    return layers.check(edges, layers.read_order(), {**layers.source_files(), **gone})


SEVEN = ("run.batch -> run.cluster -> run.compiling -> bench -> env.wonders_v1 -> api.game -> api.runs "
         "-> run.batch")


def test_the_checker_finds_the_seven_module_cycle():
    problems = _problems_with(_review_edges(SEVEN), {"wsim.run.batch": _gone("wsim.run.batch")})
    cycle = [p for p in problems if p.startswith("import cycle")]
    assert len(cycle) == 1 and all(f"wsim.{m.strip()}" in cycle[0] for m in SEVEN.split("->")), problems
    assert any("wsim.run.compiling imports wsim.bench, which sits above it (run < bench)" in p for p in problems)


def test_the_checker_finds_the_rebalance_page_cycle():
    """Both modules sit in one layer: only the cycle check can see it."""
    edges = _review_edges("analysis.rebalance -> analysis.rebalance_page -> analysis.rebalance")
    problems = _problems_with(edges, {})
    assert problems == [
        "import cycle of wsim.analysis.rebalance, wsim.analysis.rebalance_page: "
        "wsim/analysis/rebalance.py:1 wsim.analysis.rebalance -> wsim.analysis.rebalance_page; "
        "wsim/analysis/rebalance_page.py:2 wsim.analysis.rebalance_page -> wsim.analysis.rebalance"]


def test_the_checker_finds_run_importing_agents():
    edges = _review_edges("run.settings -> agents.weights", "run.stepgame -> agents.weights")
    problems = _problems_with(edges, {"wsim.agents.weights": _gone("wsim.agents.weights")})
    assert problems == [f"wsim/run/{m}.py:1: wsim.run.{m} imports wsim.agents.weights, which sits above it "
                        "(run < agents)" for m in ("settings", "stepgame")]


def test_the_checker_finds_run_and_dataset_importing_each_other():
    edges = _review_edges("run.batch -> dataset.parts -> run.settings", "run.part -> dataset.parts")
    problems = _problems_with(edges, {"wsim.run.batch": _gone("wsim.run.batch"),
                                      "wsim.run.part": _gone("wsim.run.part")})
    assert sorted(p.split(":")[0] for p in problems) == ["wsim/run/batch.py", "wsim/run/part.py"], problems


def test_the_numba_cycle_is_the_only_one_allowed():
    pair = _review_edges("kernels.loop -> kernels.rollout -> kernels.loop")
    assert layers.cycles(pair) == []
    wider = pair + _review_edges("kernels.rollout -> kernels.step -> kernels.rollout")
    assert len(layers.cycles(wider)) == 1 and "wsim.kernels.step" in layers.cycles(wider)[0]


def test_every_module_is_placed_once_in_a_layer_that_exists():
    order = layers.read_order()
    assert [name for name, _ in order][:3] == ["leaves", "kernels", "facts"] and order[-1][0] == "cli"
    files = {"wsim.stray": str(ROOT / "wsim" / "stray.py")}
    _, problems = layers.place(order + [("extra", ["wsim/codes.py", "wsim/nowhere/"])], files)
    assert problems == ["wsim/codes.py is listed in two layers", "layer extra: wsim/nowhere/ does not exist",
                        "wsim/stray.py (wsim.stray) is in no layer of architecture.md"]


def test_imports_inside_functions_and_relative_imports_are_edges():
    modules = {"wsim.run", "wsim.run.a", "wsim.run.b", "wsim.cli", "wsim.cli.c", "wsim.codes"}
    text = ("from . import b\n"
            "from .b import name\n"
            "from ..codes import X\n"
            "def f():\n"
            "    from wsim.cli import c\n"
            "    import wsim.cli.c.inner\n"
            "    import numpy\n")
    edges = layers.imports_of("wsim.run.a", text, modules, "wsim/run/a.py")
    assert [(e.target, e.line) for e in edges] == [("wsim.run.b", 1), ("wsim.run.b", 2), ("wsim.codes", 3),
                                                    ("wsim.cli.c", 5), ("wsim.cli.c", 6)]
    package = layers.imports_of("wsim.run", "from . import a\n", modules, "wsim/run/__init__.py", is_package=True)
    assert [e.target for e in package] == ["wsim.run.a"]
