"""One declared schema (kernels/schema.py): every field and limit is named there only, and the
tables, the kernels' offsets and the layout text are derived from it."""

import re
from pathlib import Path

import numpy as np

from wsim import tables as tables_mod
from wsim.kernels import layout, schema

ROOT = Path(schema.__file__).resolve().parent.parent
ASSIGNED = re.compile(r"^\(?([A-Z][A-Z0-9_]*(?:\s*,\s*[A-Z][A-Z0-9_]*)*)\)?\s*=(?!=)", re.M)
FIELD = re.compile(r"^(E|B|C|F|M|G|RES)_[A-Z0-9_]+$")
LIMITS = {k for k in vars(schema) if k.startswith(("MAX_", "DEAL_"))}


def test_fields_and_limits_are_defined_in_the_schema_only():
    found = []
    for path in sorted(list((ROOT / "kernels").glob("*.py")) + list((ROOT / "wsim").rglob("*.py"))):
        if path.name == "schema.py":
            continue
        for m in ASSIGNED.finditer(path.read_text()):
            names = [n.strip() for n in m.group(1).split(",")]
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names if FIELD.match(n) or n in LIMITS]
    assert found == []


def test_offsets_tables_and_docstrings_follow_the_schema(tables):
    for row in schema.ROWS:
        for name, at in row.constants().items():
            assert getattr(layout, name) == at
        for name, width, _ in row.fields:
            assert f"{row.prefix}{name.upper()}" in layout.__doc__
    assert tables.ent.shape[1] == schema.ENTITY.count and tables.board.shape[1] == schema.BOARD.count
    for name, width, _ in schema.ENTITY.fields:
        view = getattr(tables, ("card_" if name in schema.CARD_ONLY else "ent_") + name)
        assert np.shares_memory(view, tables.ent) and (view.ndim == 1) == (width == 1)
        assert f"E_{name.upper()}" in tables_mod.__doc__
    for name, _, _ in schema.BOARD.fields:
        assert np.shares_memory(getattr(tables, "board_" + name), tables.board)
    assert not tables.ent.flags.writeable and not tables.ent_cost.flags.writeable


def test_chain_sources_are_name_ids(tables):
    forum = tables.card_id("Forum")
    assert [tables.names[k] for k in tables.chain_sources(forum)] == ["East Trading Post", "West Trading Post"]
    assert list(tables.card_chain[tables.card_id("Lumber Yard")]) == [-1] * schema.MAX_CHAIN


def test_the_layout_stub_is_current():
    """kernels/layout.pyi names every offset layout.py makes at import (for IDEs and type
    checkers); after a schema change, `python -m wsim.kernels.layout` writes it again."""
    stub = (ROOT / "kernels" / "layout.pyi").read_text()
    assert stub == layout.stub()
    assert "F_COINS: int" in stub and "STATE: np.dtype" in stub


def test_packed_halves_match_the_solver_packing(tables):
    """The tables' packed costs are the trading solver's packed vectors split in two int32."""
    cost = tables.ent_cost.astype(np.int64)
    packed = sum(cost[:, r] << (8 * r) for r in range(7))
    both = tables.ent_cost_pk.astype(np.int64)
    assert ((both[:, 0] | (both[:, 1] << 32)) == packed).all()


def test_the_records_and_their_regions_follow_the_schema():
    from wsim.kernels.game import new_state
    from wsim.kernels.policy import P_COUNT
    from wsim.run.stepgame import regions

    for record, fields in ((layout.RUN, schema.RUN), (layout.STATE, schema.STATE), (layout.SCRATCH, schema.SCRATCH)):
        assert record.names == tuple(name for name, *_ in fields)
    assert layout.RUN["params"].shape[1] >= P_COUNT  # a bound: the rows are zero past P_COUNT
    state = new_state()
    assert [r.shape for r in regions(state)] == [tuple(shape) for _, _, shape, _ in schema.STATE]
