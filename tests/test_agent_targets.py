"""The agents issue's play targets, checked on the shipped (tuned) weights at a smaller scale
than the README's measurements: every mechanic is used, the heuristic reacts to the data, and
no policy's code names a card or a wonder."""

import ast
import re
from pathlib import Path

import pytest

from wsim.analysis.edits import apply_edits
from wsim.agents.mechanics import USE_FLOOR, usage
from wsim.run.runner import Pacer, Runner, play_paced
from wsim.run.settings import Settings

pytestmark = pytest.mark.slow

GAMES = 4000
POLICY_CODE = ("decide.py", "greedy.py", "heuristic.py", "hidden.py", "hidden_fc.py", "policy.py", "rollout.py")


def _self_play(tables, games, seed, promo=False):
    settings = Settings(players=4, policies=("heuristic",) * 4, seed=seed, games=games, manneken_pis=promo)
    return play_paced(Runner(tables, settings), Pacer(), 0, games)


def test_every_stage_of_every_side_is_built_by_at_least_30_percent_of_its_holders(tables):
    use = usage(tables, _self_play(tables, GAMES, 1, promo=True).res, 4)
    stages = {k: used / seats for k, (used, seats) in use.items() if "stage" in k}
    assert len(stages) == sum(int(tables.board_stages[b, s]) for b in range(tables.n_boards) for s in range(2))
    low = {k: round(v, 3) for k, v in stages.items() if v < USE_FLOOR}
    assert not low, low
    science = use["science points"]
    assert science[0] / science[1] > USE_FLOOR


def _altar_share(tables, altar):
    cards = _self_play(tables, GAMES, 2).cards
    return float((cards == altar).any(axis=(1, 2)).mean())


def test_the_heuristic_builds_altar_by_its_worth_without_retuning(tables):
    altar = tables.card_id("Altar")
    assert altar != 0  # cards rows are padded with 0: card 0 would be counted in empty slots
    printed = _altar_share(tables, altar)
    assert _altar_share(apply_edits(tables, ["Altar.points=7"]), altar) >= 0.9
    assert _altar_share(apply_edits(tables, ["Altar.points=0"]), altar) <= printed / 2


def _code_words(path: Path) -> str:
    """The identifiers and string constants of a module, docstrings and comments left out
    (they may say which wonder a power is printed on; the logic may not)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.arg)):
            words.append(node.name if isinstance(node, ast.FunctionDef) else node.arg)
        elif isinstance(node, ast.alias):
            words.append(node.asname or node.name)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append(node.value)
    return " ".join(words).lower().replace("_", " ")


@pytest.mark.parametrize("module", POLICY_CODE)
def test_no_policy_code_names_a_card_or_a_wonder(tables, module):
    code = _code_words(Path(__file__).resolve().parent.parent / "kernels" / module)
    assert len(code.split()) > 50  # the module's code was read
    names = {n.lower() for n in tables.card_names} | {n.lower() for n in tables.board_names}
    names |= {w.replace("_", " ") for w in tables.board_ids}
    found = sorted(n for n in names if re.search(r"\b" + re.escape(n) + r"\b", code))
    assert not found, found
