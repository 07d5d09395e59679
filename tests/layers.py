"""The layer checker of tests/test_layout.py: the import graph of wsim/ and kernels/ read with
`ast` (imports inside functions included, relative imports resolved, wsim's lazy public names
and `importlib.import_module("literal")` followed to their module), the layer order declared
in LAYERS and printed, each layer with its paths, by docs/architecture.md, and every import that
runs up the layers or closes a cycle named; and the paths the page's layout map names.

Modules are named as Python imports them: kernels/ installs as wsim.kernels (pyproject.toml).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
HEADING = "## The layers"
# The layer order, lowest first: the rule itself lives here, in code, and the page's numbered list
# must print exactly these names in this order (test_layout.py), each with its paths and its reason.
# The page alone would let a reordered paragraph relax the rule with no test diff; the paths stay
# on the page because a reader needs them beside the reasons, and a moved path is a page edit the
# checker then judges against this order. It is here, not in wsim/, because only the tests enforce
# it: a module of the package that nothing runs would need a layer of its own.
LAYERS = ("leaves", "kernels", "facts", "reference", "run", "dataset", "analysis", "agents", "api",
          "env", "bench", "cli")
# the game loop calls the rollout's search and the search plays its playouts through that loop
# (numba compiles no recursion, so not through itself): the one import cycle kept (both files say so)
NUMBA_CYCLE = frozenset({"wsim.kernels.loop", "wsim.kernels.rollout"})


@dataclass(frozen=True)
class Edge:
    """One import: `source` (a module) imports `target` (a module), at file:line."""

    source: str
    target: str
    file: str
    line: int


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name Python imports a file of wsim/ or kernels/ under."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[0] == "kernels":
        parts = ["wsim", *parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(root: Path = ROOT) -> dict:
    """{module name: path} of every Python file of wsim/ and kernels/."""
    return {module_name(p, root): p for top in ("wsim", "kernels") for p in sorted((root / top).rglob("*.py"))}


def _known(name: str, modules) -> str | None:
    """The module of `modules` an import of `name` loads last: the name itself or, for a name
    inside a module (a function, a class), the longest module prefix."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@functools.cache
def lazy_names(root: Path = ROOT) -> dict:
    """{public name: module} of wsim/__init__.py's lazy table (`_LAZY`), read with `ast`: the
    names `wsim.simulate`, `from wsim import Game`, ... load at first use (PEP 562)."""
    for node in ast.parse((root / "wsim" / "__init__.py").read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["_LAZY"]:
            return ast.literal_eval(node.value)
    raise AssertionError("wsim/__init__.py has no _LAZY table")


def _from_target(base: str, name: str, modules, lazy: dict) -> str:
    """What `from base import name` loads: the module base.name if it is one, the module a lazy
    public name of wsim comes from, else base itself (a name defined in it)."""
    if f"{base}.{name}" in modules:
        return f"{base}.{name}"
    if base == "wsim" and name in lazy:
        return lazy[name]
    return base


def _literal_import_module(node: ast.AST) -> str | None:
    """The module of `importlib.import_module("a.b")` or `import_module("a.b")` with an absolute
    literal name; None for any other node (a computed name cannot be followed)."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if called == "import_module" and isinstance(first, ast.Constant) and isinstance(first.value, str) \
            and not first.value.startswith("."):
        return first.value
    return None


def _package_aliases(tree: ast.AST) -> set:
    """The local names bound to the package wsim: `import wsim`, `import wsim.x` (both bind
    `wsim`) and `import wsim as w`."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "wsim" or (alias.name.startswith("wsim.") and alias.asname is None):
                    bound.add(alias.asname or "wsim")
    return bound


def imports_of(module: str, text: str, modules, file: str = "", is_package: bool = False,
               lazy: dict | None = None) -> list:
    """The Edges of one module's source `text` into `modules`: every import statement, at
    module level or inside a function or class; `from . import x` and `from ..a import b`
    resolved against the module's own package; a lazy public name of wsim (`lazy`, by default
    wsim/__init__.py's table), imported or read as `wsim.name`, to the module defining it; and
    `import_module("a.b")` with a literal name."""
    lazy = lazy_names() if lazy is None else lazy
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(text)
    aliases = _package_aliases(tree)
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            names = [_from_target(base, alias.name, modules, lazy) for alias in node.names]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
              and node.attr in lazy):
            names = [lazy[node.attr]]
        elif (literal := _literal_import_module(node)) is not None:
            names = [literal]
        else:
            continue
        for name in names:
            target = _known(name, modules)
            if target is not None and target != module:
                edges.append(Edge(module, target, file, node.lineno))
    return edges


def import_graph(root: Path = ROOT) -> list:
    """Every import Edge among the modules of wsim/ and kernels/ under `root`."""
    files = source_files(root)
    edges = []
    for module, path in files.items():
        edges += imports_of(module, path.read_text(), files, str(path.relative_to(root)),
                            path.name == "__init__.py", lazy_names(root))
    return edges


def read_order(page: Path = PAGE) -> list:
    """[(layer name, [paths])], lowest first, from the numbered list under the page's layers
    heading: `N. **name**: `path`, `path` — reason` (a path ending in / takes its folder)."""
    text = page.read_text()
    start = text.index(f"\n{HEADING}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    items = re.split(r"\n(?=\d+\. )", section)[1:]
    order = []
    for item in items:
        head = re.match(r"\d+\. \*\*(\w+)\*\*:(.*?)(?: — |$)", " ".join(item.split()))
        assert head, f"{page.name}: a layer item reads `N. **name**: `path`, ... — reason`: {item[:60]!r}"
        order.append((head[1], re.findall(r"`([^`]+)`", head[2])))
    return order


MAP_HEADING = "## The layout"
# a map line's names end where its words begin, at this column at the latest (longer names push
# the words right); a line indented this far or more carries on the words of the line above
MAP_WORDS_COLUMN = 22
MAP_NAME = re.compile(r"[\w./-]+(?:\.py|/)")


def map_paths(page: Path = PAGE) -> set:
    """The paths the page's layout map names: every `x.py` and `folder/` at the head of a line
    of its code block (`a.py b.py` and `a.py, b.py` name two), a name indented by 2 under the
    folder of the nearest line above indented by 0 (by 4: under the nearest indented by 2)."""
    text = page.read_text()
    start = text.index(f"\n{MAP_HEADING}\n")
    opening = text.index("```", start) + 3
    block = text[opening:text.index("\n```", opening)]
    paths, folders = set(), {}
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= MAP_WORDS_COLUMN:
            continue
        names = []
        for token in line.split():
            token = token.rstrip(",")
            if not MAP_NAME.fullmatch(token):
                break
            names.append(token)
        parent = folders.get(indent - 2, "") if indent else ""
        for name in names:
            paths.add(parent + name)
            if name.endswith("/"):
                folders[indent] = parent + name
    return paths


def order_problems(order: list, layers: tuple = LAYERS) -> list:
    """The page's layer names against `layers`, the order the code declares: a page that lists
    them otherwise (reordered, renamed, one added or dropped) is a problem."""
    names = [name for name, _ in order]
    if names == list(layers):
        return []
    return [f"{PAGE.name} lists the layers {', '.join(names)}; tests/layers.py's LAYERS declares "
            f"{', '.join(layers)}"]


def place(order: list, files: dict, root: Path = ROOT) -> tuple:
    """({module: layer index}, problems) for `files` {module: path}: each module in the layer
    that lists its file, or else the folder that holds it most closely; a module no layer holds,
    a path listed twice or a path that does not exist is a problem."""
    problems, claims = [], {}
    for index, (name, paths) in enumerate(order):
        for path in paths:
            if path in claims:
                problems.append(f"{path} is listed in two layers")
            if not (root / path).exists():
                problems.append(f"layer {name}: {path} does not exist")
            claims[path] = index
    layers = {}
    for module, path in files.items():
        rel = Path(path).relative_to(root).as_posix() if Path(path).is_absolute() else str(path)
        holders = [c for c in claims if c == rel or (c.endswith("/") and rel.startswith(c))]
        if holders:
            layers[module] = claims[max(holders, key=len)]
        else:
            problems.append(f"{rel} ({module}) is in no layer of {PAGE.name}")
    return layers, problems


def upward(edges: list, layers: dict, names: list) -> list:
    """The imports that run up the layers, named by file:line and target."""
    return [f"{e.file}:{e.line}: {e.source} imports {e.target}, which sits above it "
            f"({names[layers[e.source]]} < {names[layers[e.target]]})"
            for e in edges if layers[e.target] > layers[e.source]]


def cycles(edges: list, allowed=NUMBA_CYCLE) -> list:
    """Every module cycle but `allowed` (strongly connected components of the import graph),
    each named by the imports that close it."""
    graph: dict = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):  # Tarjan's algorithm; the graph is small enough for recursion
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    problems = []
    for component in found:
        if component == allowed:
            continue
        inside = sorted({f"{e.file}:{e.line} {e.source} -> {e.target}" for e in edges
                         if e.source in component and e.target in component})
        problems.append(f"import cycle of {', '.join(sorted(component))}: " + "; ".join(inside))
    return problems


def check(edges: list, order: list, files: dict, root: Path = ROOT) -> list:
    """Every problem of an import graph against a layer order (`files`: {module: path} of the
    tree): an order other than LAYERS, unplaced modules, imports that run up, cycles."""
    layers, problems = place(order, files, root)
    names = [name for name, _ in order]
    placed = [e for e in edges if e.source in layers and e.target in layers]
    return order_problems(order) + problems + upward(placed, layers, names) + cycles(edges)
