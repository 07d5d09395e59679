"""The package layout holds (docs/architecture.md): a short top of wsim/, the names reserved for
the public Python functions kept free, trivial package entry files, a flat kernels/ (its cache
key hashes kernels/*.py only), every package listed for installation, every import going
down the layers (tests/layers.py checks; the synthetic graphs below show what it catches), and
docs/architecture.md's map naming every module."""

import ast
import re
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
    assert packages == ["agents", "analysis", "api", "balance_atlas", "bench", "cli", "dataset", "env", "people", "reference", "run"]
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
    problems = _problems_with(edges, {"wsim.analysis.rebalance_page": _gone("wsim.analysis.rebalance_page")})
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


def test_a_lazy_public_name_is_an_edge_to_the_module_defining_it():
    """`from wsim import simulate` and `wsim.Game` reach the API through wsim/__init__.py's lazy
    table, not through the leaves: each is an edge to the name's module, so a run module doing
    either runs up the layers."""
    files = layers.source_files()
    text = ("from wsim import RULES_VERSION, simulate\n"
            "from .. import Game as G\n"
            "import wsim\n"
            "import wsim.codes as w\n"
            "def f():\n"
            "    return wsim.tune(), wsim.codes, G\n")
    edges = layers.imports_of("wsim.run.settings", text, files, "wsim/run/settings.py")
    assert sorted((e.target, e.line) for e in edges) == [
        ("wsim", 1), ("wsim", 3), ("wsim.api.game", 2), ("wsim.api.runs", 1), ("wsim.api.tuning", 6),
        ("wsim.codes", 4)]
    problems = layers.check(edges, layers.read_order(), files)
    assert sorted(p.split(": ", 1)[1] for p in problems) == [
        f"wsim.run.settings imports wsim.api.{m}, which sits above it (run < api)"
        for m in ("game", "runs", "tuning")], problems


def test_the_lazy_names_are_read_from_the_package_file():
    lazy = layers.lazy_names()
    assert lazy["simulate"] == "wsim.api.runs" and lazy["Game"] == "wsim.api.game"
    assert all(module in layers.source_files() for module in lazy.values()), lazy
    aliased = layers.imports_of("wsim.env.single", "import wsim as w\nw.learn\n", layers.source_files())
    assert [e.target for e in aliased] == ["wsim", "wsim.api.learning"]


def test_import_module_with_a_literal_name_is_an_edge():
    """`importlib.import_module("wsim.api.runs")` imports as surely as an import statement; a
    computed name (wsim/__init__.py's lazy table) cannot be followed and is no edge."""
    files = layers.source_files()
    text = ("import importlib\n"
            "from importlib import import_module\n"
            "def f(name):\n"
            "    importlib.import_module('wsim.api.runs')\n"
            "    import_module('wsim.agents.ladder').run\n"
            "    import_module(name)\n"
            "    import_module('numpy')\n")
    edges = layers.imports_of("wsim.run.settings", text, files, "wsim/run/settings.py")
    assert sorted((e.target, e.line) for e in edges) == [("wsim.agents.ladder", 5), ("wsim.api.runs", 4)]
    problems = layers.check(edges, layers.read_order(), files)
    assert sorted(p.split(": ", 1)[1] for p in problems) == [
        "wsim.run.settings imports wsim.agents.ladder, which sits above it (run < agents)",
        "wsim.run.settings imports wsim.api.runs, which sits above it (run < api)"], problems


def test_the_page_prints_the_layers_in_the_order_the_code_declares():
    """The rule is LAYERS, pinned here whole; the page's numbered list must print it name by
    name, so reordering the prose alone fails."""
    assert layers.LAYERS == ("leaves", "kernels", "facts", "reference", "run", "dataset", "analysis", "agents",
                             "api", "env", "bench", "cli")
    assert [name for name, _ in layers.read_order()] == list(layers.LAYERS)


def test_the_checker_finds_a_page_that_reorders_the_layers(tmp_path):
    """Swapping two items of the page's list (agents above api) is a problem of its own, whatever
    the imports."""
    text = layers.PAGE.read_text()
    agents = text[text.index("8. **agents**"):text.index("9. **api**")]
    api = text[text.index("9. **api**"):text.index("10. **env**")]
    page = tmp_path / "architecture.md"
    page.write_text(text.replace(agents + api, "8." + api[2:] + "9." + agents[2:]))
    order = layers.read_order(page)
    assert [name for name, _ in order][7:9] == ["api", "agents"]
    problems = layers.check([], order, layers.source_files())
    assert problems == ["architecture.md lists the layers leaves, kernels, facts, reference, run, dataset, "
                        "analysis, api, agents, env, bench, cli; tests/layers.py's LAYERS declares leaves, "
                        "kernels, facts, reference, run, dataset, analysis, agents, api, env, bench, cli"]


def test_the_layout_map_names_every_module_and_only_modules_that_exist():
    """docs/architecture.md's "The layout" block is the map of the code: a new module needs its
    line there, and a line outlives no module."""
    named = layers.map_paths()
    modules = {p.relative_to(ROOT).as_posix() for top in ("wsim", "kernels") for p in (ROOT / top).rglob("*.py")
               if p.name != "__init__.py"}
    assert sorted(modules - named) == [], "modules missing from the layout map of architecture.md"
    assert sorted(p for p in named if not (ROOT / p).exists()) == [], "map lines naming no file"


def test_the_layout_map_reads_names_folders_and_nesting(tmp_path):
    page = tmp_path / "architecture.md"
    page.write_text("# Architecture\n\n## The layout\n\n```\n"
                    "wsim/top.py           words, then more.py words\n"
                    "wsim/data/cards.yaml  the facts\n"
                    "wsim/pkg/             a package\n"
                    "  a.py b.py           two modules\n"
                    "  c.py, d.py          two more\n"
                    "                      e.py: words that carry on, no name\n"
                    "  sub/                a folder inside\n"
                    "    f.py              nested\n"
                    "  g.py                back in pkg\n"
                    "kernels/              flat\n"
                    "  h.py\n"
                    "```\n\n## Next\n\n```\nwsim/not_the_map.py\n```\n")
    assert layers.map_paths(page) == {
        "wsim/top.py", "wsim/pkg/", "wsim/pkg/a.py", "wsim/pkg/b.py", "wsim/pkg/c.py",
        "wsim/pkg/d.py", "wsim/pkg/sub/", "wsim/pkg/sub/f.py", "wsim/pkg/g.py", "kernels/", "kernels/h.py"}


def test_the_architecture_page_is_a_reference_not_a_log():
    """Measurement records by date and commit belong to CHANGELOG.md; the page keeps the reasons
    (a commit is 7 or more hex digits; the page writes its large numbers with commas)."""
    page = layers.PAGE.read_text()
    assert re.findall(r"\b20\d\d-\d\d-\d\d\b", page) == []
    assert re.findall(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b", page) == []
