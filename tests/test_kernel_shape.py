"""The kernels keep the shape docs/architecture.md gives them: the rules name no policy, pricing
is one module, each policy's choice is in its own file, one `decide`, one call site of the
trading solver (which the profile twin times in place), one meaning per sentinel of the move row."""

import ast
from pathlib import Path

from wsim.kernels import layout

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
POLICY_WORDS = ("policy", "random", "greedy", "heuristic", "rollout")


def _tree(name: str) -> ast.Module:
    return ast.parse((KERNELS / name).read_text())


def _names(tree: ast.AST) -> set:
    """Every identifier the code uses: names, attributes, imported names (not docstrings)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def _functions(tree: ast.AST) -> dict:
    return {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def _calls(tree: ast.AST, name: str) -> int:
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call)
               and (getattr(node.func, "id", None) == name or getattr(node.func, "attr", None) == name))


def test_the_rules_name_no_policy_and_no_pricing_strategy():
    for module in ("turn.py", "step.py"):
        used = {n.lower() for n in _names(_tree(module))}
        assert [n for n in used if any(w in n for w in POLICY_WORDS)] == [], module
        assert [n for n in used if n.startswith("list_")] == [], f"{module} names a listing mode"


def test_the_listing_modes_are_read_in_price_py_only():
    readers = {p.name for p in KERNELS.glob("*.py") if p.name not in ("layout.py", "schema.py")
               for n in _names(ast.parse(p.read_text())) if n in ("LIST_LAZY", "LIST_COMPACT", "LIST_EVERY")}
    # price.py prices; decide.py and heuristic.py say which listing their policy asks for; driven.py
    # gives the Python API every purchase
    assert readers <= {"price.py", "decide.py", "heuristic.py", "driven.py"}
    assert "turn.py" not in readers and "step.py" not in readers


def test_each_policy_chooses_in_its_own_file_and_there_is_one_decide():
    decides = [p.name for p in KERNELS.glob("*.py") if "decide" in _functions(ast.parse(p.read_text()))]
    assert decides == ["decide.py"]
    for module in ("greedy.py", "heuristic.py", "rollout.py"):
        assert "choice" in _functions(_tree(module)), module
    assert [f for f in _functions(_tree("decide.py")) if "heuristic" in f or "greedy" in f] == []


def test_the_solver_has_one_call_site_and_the_profile_no_copy_of_its_conditions():
    sites = {f"{p.name}:{name}" for p in KERNELS.glob("*.py")
             for name, node in _functions(ast.parse(p.read_text())).items() if _calls(node, "purchase")}
    assert sites == {"price.py:_solve"}  # its production and its timed branch
    timing = _tree("timing.py")
    assert [n for n in _names(timing) if n.startswith("wsim.kernels.") and n != "wsim.kernels.schema"] == []
    assert "_solve" in _functions(_tree("price.py")) and "cycles" in _names(_tree("price.py"))


def test_each_sentinel_of_the_move_row_has_one_value():
    sentinels = {"NO_CARD": layout.NO_CARD, "DECLINE": layout.DECLINE, "UNPRICED": layout.UNPRICED,
                 "EVERY_CARD": layout.EVERY_CARD}
    assert len(set(sentinels.values())) == len(sentinels)
    assert all(v < 0 for v in sentinels.values())  # never a card id, a slot, an action or a coin count


MAX_PARAMETERS = 12
RECORD_NAMES = ("book", "views", "tmp", "slots", "tape", "model", "log", "lst", "alay", "out")


def test_no_kernel_function_takes_more_than_twelve_parameters():
    """Arrays that travel together go as one record (kernels/schema.py: Log, Slots, ...)."""
    wide = [f"{p.name}:{node.lineno} {node.name} ({count})" for p in sorted(KERNELS.glob("*.py"))
            for node in ast.walk(ast.parse(p.read_text())) if isinstance(node, ast.FunctionDef)
            and (count := len(node.args.args) + len(node.args.kwonlyargs)) > MAX_PARAMETERS]
    assert wide == []


def test_the_run_time_records_are_read_by_field_name():
    """`book.pend`, never `book[1]`: the fields are named once, in kernels/schema.py."""
    files = sorted(KERNELS.glob("*.py")) + [KERNELS.parent / "wsim" / "env" / "batched.py"]
    positional = [f"{p.name}:{node.lineno} {node.value.id}[{node.slice.value}]" for p in files
                  for node in ast.walk(ast.parse(p.read_text())) if isinstance(node, ast.Subscript)
                  and isinstance(node.value, ast.Name) and node.value.id in RECORD_NAMES
                  and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)]
    assert positional == []
