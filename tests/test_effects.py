"""The table of effect kinds (wsim/effects.py) and what derives from it: the compiled tables, the
loader's messages, `--edit`, the wording of `wsim cards`, the data file's header and the weights
a weights file may leave out."""

import copy
import hashlib
import json

import pytest
import yaml

from wsim import codes, effects
from wsim.compiler import _CARD_KEYS, DataError
from wsim.run.weights import DEFAULT_FILE, WeightsError, read_weights
from wsim.analysis.edits import apply_edits, edited_text
from wsim.cli.render import cards_text
from wsim.describe import cards_json
from wsim.errors import brief
from wsim.kernels.heuristic import HEURISTIC_KEYS
from wsim.kernels.policy import PARAM_KEYS
from wsim.kernels.schema import ENTITY
from wsim.tables import compile_text, points_caps


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Computed with the loader, wording and edits of main before the table (commit 9202741), on the
# shipped cards.yaml: the table must compile, say and edit exactly what the hand-written code did.
BEFORE = {
    "ent": "219a10caf00534c113f2ebbcec16b90c4d59bfc6fe9b2ed199ad63b5109ce9ad",
    "board": "9adcc7d5aee3ad8001dada883d385ea33ce8191e8f19eb758b8fc833324c0f6a",
    "caps": "559ff194273b4597d51332e68feb05b12a21843f56108369a0e33232e6fb419e",
    "cards": "050173c2735c914f57fdade81e3091888a9e955b5e9f4eb48ca21dda60945839",  # `wsim cards` (its data sha256 line: the header names the second edition's kinds since issue 59)
    "cards --json": "319fbe5fed3e71096d0afad304e712132758b0ab681208e40ef3ffe38f77b10f",
}
EDITS_BEFORE = {  # --edit: (ent of the edited tables, edited_text or None)
    ("Altar.points=+5",): ("1a691282dc706d15e82b992ea0e6d9ca85841496be929d978706411acc40ae42",
                           "54f0f832f1ce7b054c844475639f2a148805cc10b6d7d135546166d4372aa0b2"),
    ("Baths=neutral",): ("36cc86005d3ee452b5ff3d9c475d31a21d473dbc9d4bcc70fc421ef1e7cb8120", None),
    ("giza/B.stage2=neutral",): ("4f32e76a3f29ed26f5876c1f1d2ef4ca9cddff3851d3ba3806d20b1ff65af7e0", None),
    ("rhodes/A.stage1.coins=4",): ("34fc22c39c4e748864698d1b62791733711bad39c09d338d1c03d2ed94e73e11",
                                   "39ee9e4a596b16256e2ab08ebc925452f13c1da73e5666de42f1b61b2b44fada"),
    ("Loom.coins=+2", "Tavern.coins=-5"): ("7a6aaa11ce72b1e8f7647e033fe0db03a634f78042e8d6b9afedac8e3f1226cd",
                                           "e9a417cbd4b2dc87625b4c652998aa0c353452b5be5484cef29f1b019ff3eb43"),
    ("Lighthouse=neutral", "Marketplace=neutral"): (
        "aa126229f40fe2e521ace14bf245ece2bf27a1c09e4b92deb05526af9a602f48", None),
    ("olympia/A.stage2=neutral",): ("c589d35917ad4c960dfb58667cf2b11afba80cd2fe913fdcbbadee3f09fdf6f2", None),
}


def test_compiled_tables_are_those_of_before_the_table(tables):
    assert (sha(tables.ent.tobytes()), tables.ent.shape) == (BEFORE["ent"], (124, ENTITY.count))
    assert sha(tables.board.tobytes()) == BEFORE["board"]
    assert sha(points_caps(tables).tobytes()) == BEFORE["caps"]


def test_cards_output_is_that_of_before_the_table(tables):
    doc = cards_json(tables)
    assert sha((cards_text(doc, tables.data_sha256) + "\n").encode()) == BEFORE["cards"]
    assert sha((json.dumps(doc, indent=1) + "\n").encode()) == BEFORE["cards --json"]


@pytest.mark.parametrize("edits", sorted(EDITS_BEFORE))
def test_edits_are_those_of_before_the_table(tables, edits):
    text = edited_text(tables, list(edits))
    got = (sha(apply_edits(tables, list(edits)).ent.tobytes()), sha(text.encode()) if text else None)
    assert got == EDITS_BEFORE[edits]


def _card(doc, name):
    return next(c for c in doc["cards"] if c["name"] == name)


def _stage(doc, wonder, side, k):
    return next(w for w in doc["wonders"] if w["id"] == wonder)["sides"][side][k]


def _set(where, **values):
    return lambda doc: where(doc).update(values)


def _drop(where, key):
    return lambda doc: where(doc).pop(key)


_BATHS = (lambda d: _card(d, "Baths"))
_TREE_FARM = (lambda d: _card(d, "Tree Farm"))
_OLYMPIA_2 = (lambda d: _stage(d, "olympia", "A", 1))
_OF = (" (one of: brown grey blue green yellow red purple, or [wonder_stage], or [defeat_token], "
       "or [wonder_complete])")  # the second edition's count target joined the lists (issue 59)
_POWERS = ("play_seventh_card free_build_once_per_age copy_neighbor_guild build_from_discard copy_neighbor_stage "
           "free_build_first_of_color free_build_first_of_age free_build_last_of_age")

# One broken entry per parser of the table and per cross-key rule, with the message main gave.
MESSAGES = [
    (_set(_TREE_FARM, produces=["wood/clay", "stone/ore"]),
     "card 'Tree Farm': field 'produces': at most one choice unit (a/b) per entry"),
    (_set(_TREE_FARM, produces=["wood/wood"]), "card 'Tree Farm': field 'produces': malformed choice 'wood/wood': wood twice"),
    (_drop(_TREE_FARM, "tradeable"), "card 'Tree Farm': field 'tradeable': required with 'produces' (true or false)"),
    (_set(_TREE_FARM, tradeable=1), "card 'Tree Farm': field 'tradeable': expected true or false"),
    (_set(_BATHS, tradeable=True), "card 'Baths': field 'tradeable': only meaningful with 'produces'"),
    (_set(lambda d: _stage(d, "alexandria", "A", 1), tradeable=True, produces=["wood"]),
     "wonder 'alexandria' side A stage 2: field 'tradeable': wonder-stage production is never tradeable"),
    (_set(_BATHS, points=True), "card 'Baths': field 'points': expected a whole number from 0 to 20, got True"),
    (_set(_BATHS, shields=10), "card 'Baths': field 'shields': expected a whole number from 0 to 9, got 10"),
    (_set(_BATHS, coins="x"), "card 'Baths': field 'coins': expected a whole number from 0 to 20, got 'x'"),
    (_set(lambda d: _card(d, "Apothecary"), science="cog"),
     "card 'Apothecary': field 'science': unknown science symbol 'cog' (one of: compass gear tablet any)"),
    (_set(_BATHS, discount={"goods": "raw", "from": ["up"]}),
     "card 'Baths': field 'discount': 'from' takes left and right, got 'up'"),
    (_set(_BATHS, coins_per={"amount": 1, "count": ["pink"], "in": ["self"]}),
     "card 'Baths': field 'coins_per': unknown colour 'pink'" + _OF),
    (_set(_BATHS, points_per={"amount": 1, "count": ["wonder_stage", "brown"], "in": ["self"]}),
     "card 'Baths': field 'points_per': unknown colour 'wonder_stage'" + _OF),
    (_set(_BATHS, points_per={"amount": 1, "count": ["brown"], "in": [["left"]]}),
     "card 'Baths': field 'points_per': unknown scope ['left'] (one of: self left right)"),
    (_set(_OLYMPIA_2, power="none"), f"wonder 'olympia' side A stage 2: field 'power': unknown power 'none' (one of: {_POWERS})"),
    (_set(_BATHS, copies={"stage": 1, "of": "left"}),
     "card 'Baths': field 'copies': only meaningful with power copy_neighbor_stage"),
    (_set(_OLYMPIA_2, power="copy_neighbor_stage"),
     "wonder 'olympia' side A stage 2: field 'copies': expected {stage: 1..4, of: left|right|left_or_right}"),
    (_set(_OLYMPIA_2, power="copy_neighbor_stage", copies={"stage": 5, "of": "left"}),
     "wonder 'olympia' side A stage 2: field 'copies': expected a whole number from 1 to 4, got 5"),
    (_set(_BATHS, points=99, science="x"), "card 'Baths': field 'points': expected a whole number from 0 to 20, got 99"),
    (_set(_BATHS, copies=1, power="x"), f"card 'Baths': field 'power': unknown power 'x' (one of: {_POWERS})"),
    (_set(_OLYMPIA_2, foo=1), "wonder 'olympia' side A stage 2: field 'foo': unknown stage effect"),
    # points on a colour final scoring has no category for: refused since issue 59 (were silently 0)
    (_set(lambda d: _card(d, "Stockade"), points=2),
     "card 'Stockade': field 'points': a red card's points are never scored (only blue, yellow and purple cards "
     "score points: docs/rules.md §7)"),
    (_set(lambda d: _card(d, "Apothecary"), points_per={"amount": 1, "count": ["green"], "in": ["self"]}),
     "card 'Apothecary': field 'points_per': a green card's points are never scored (only blue, yellow and purple "
     "cards score points: docs/rules.md §7)"),
]


@pytest.mark.parametrize("breaker, message", MESSAGES, ids=[m for _, m in MESSAGES])
def test_loader_messages_are_those_of_before_the_table(data_doc, breaker, message):
    doc = copy.deepcopy(data_doc)
    breaker(doc)
    with pytest.raises(DataError) as e:
        compile_text(yaml.safe_dump(doc, sort_keys=False))
    assert str(e.value) == "data: " + message


def test_data_file_header_is_the_tables(tables):
    text = tables.raw.decode()
    assert effects.with_header(text) == text, "regenerate the header: see wsim.effects.with_header"
    header = "\n".join(effects.header_lines())
    for key in effects.KEYS:
        assert f" {key}:" in header, f"the data file's header does not document {key}"
    items = [line[6:].split(":")[0] for line in effects.header_lines()[1:] if line[6:7].isalpha()]
    assert set(items) <= set(effects.KEYS)


def test_header_check_fails_when_the_table_changes(tables, monkeypatch):
    text = tables.raw.decode()
    extra = effects.Kind("coins_at_age_end", effects.Int(0, 9), (), "age_end", None,
                         ("coins_at_age_end: N        coins at the end of each age",))
    monkeypatch.setattr(effects, "KINDS", effects.KINDS + (extra,))
    assert effects.with_header(text) != text
    assert "coins_at_age_end: N" in effects.with_header(text)


def test_data_file_uses_only_the_tables_keys(data_doc):
    used = set()
    for card in data_doc["cards"]:
        used |= set(card) - _CARD_KEYS
    for w in data_doc["wonders"]:
        for stages in w["sides"].values():
            for stage in stages:
                used |= set(stage) - {"cost"}
    assert used <= set(effects.KEYS), sorted(used - set(effects.KEYS))


def test_table_is_consistent():
    for kind in effects.KINDS:
        assert kind.timing in effects.TIMINGS, kind.key
        assert set(kind.counts) <= set(effects.COUNT_CODES), kind.key
        assert {feature for feature, _ in kind.weights} <= set(HEURISTIC_KEYS), kind.key
        if kind.edit:  # --edit writes a number into the key's one field
            assert isinstance(kind.parser, effects.Int) and [f.width for f in kind.fields] == [1], kind.key
    codes_ = list(effects.COUNT_CODES.values())
    assert all(c >= 1 << codes.N_COLORS for c in codes_) and len(set(codes_)) == len(codes_)
    assert max(codes_) < 1 << 31  # a count is an int32 field
    assert effects.EDIT_KEYS == ("points", "coins")
    names = [name for name, _, _ in ENTITY.fields]
    assert [name for name, _, _ in effects.entity_fields()] == names[3:3 + len(effects.entity_fields())]


def _weights_file(tmp_path, drop=(), **extra):
    doc = json.loads(DEFAULT_FILE.read_text())
    for key in drop:
        del doc["weights"][key]
    doc["weights"].update(extra)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def new_feature(monkeypatch):
    """A heuristic feature `new_kind` that a new effect kind brought, with a default weight of 0."""
    kind = effects.Kind("new_kind", effects.Int(0, 9), (), "age_end", None, (), weights=(("new_kind", 0),))
    monkeypatch.setattr(effects, "KINDS", effects.KINDS + (kind,))
    monkeypatch.setitem(PARAM_KEYS, "heuristic", HEURISTIC_KEYS + ("new_kind",))


def test_weights_file_without_a_default_feature_loads(tmp_path, new_feature):
    row, _ = read_weights(_weights_file(tmp_path))
    shipped = json.loads(DEFAULT_FILE.read_text())["weights"]
    assert list(row[:len(HEURISTIC_KEYS) + 1]) == [shipped[k] for k in HEURISTIC_KEYS] + [0]
    assert read_weights(_weights_file(tmp_path, new_kind=7))[0][len(HEURISTIC_KEYS)] == 7


@pytest.mark.parametrize("drop, extra", [(("shield",), {}), ((), {"extra": 1})])
def test_weights_file_missing_a_key_without_default_is_refused_as_before(tmp_path, drop, extra):
    path = _weights_file(tmp_path, drop, **extra)
    got = sorted(set(HEURISTIC_KEYS) - set(drop) | set(extra))
    with pytest.raises(WeightsError) as e:
        read_weights(path)
    assert str(e.value) == (f"weights file {brief(str(path))}: \"weights\" must give exactly the keys "
                            f"{', '.join(HEURISTIC_KEYS)}; got {brief(got)}")


def test_a_default_weight_is_the_heuristics_only(tmp_path, new_feature, monkeypatch):
    # greedy's keys share names with heuristic features: a default must not reach its files
    monkeypatch.setitem(PARAM_KEYS, "greedy", PARAM_KEYS["greedy"] + ("new_kind",))
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"format": "wsim-weights-1", "policy": "greedy",
                                "weights": {k: 1 for k in PARAM_KEYS["greedy"] if k != "new_kind"}}))
    with pytest.raises(WeightsError):
        read_weights(path, "greedy")
