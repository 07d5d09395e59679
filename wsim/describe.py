"""Plain-English and JSON descriptions of compiled cards, stages and costs (for `wsim cards`)."""

from __future__ import annotations

from wsim import codes, effects
from wsim.tables import Tables


def cost_dict(tables: Tables, e: int) -> dict:
    """{"coins": N, "resources": {name: count}} of an entity, non-zero resources only."""
    res = {codes.RESOURCES[r]: int(tables.ent_cost[e, r]) for r in range(codes.N_RES) if tables.ent_cost[e, r]}
    return {"coins": int(tables.ent_coin_cost[e]), "resources": res}


def effect_words(tables: Tables, e: int) -> str:
    """The effect of a card or stage in words, e.g. "produces wood/clay (tradeable)": each effect
    kind's phrase (wsim/effects.py), in the table's order."""
    fields = {f.name: getattr(tables, "ent_" + f.name)[e] for kind in effects.KINDS for f in kind.fields}
    out = [kind.words(fields) for kind in effects.KINDS if kind.words]
    return ", ".join(w for w in out if w) or "nothing"


def players_of(tables: Tables, c: int, n: int | None = None) -> list:
    """The printed player counts of a card's copies (only those used at n players, if given)."""
    return [p for p in tables.card_players[c] if n is None or p <= n]


def cards_json(tables: Tables, age: int | None = None, players: int | None = None) -> dict:
    """The `wsim cards --json` document (docs/interfaces.md §3)."""
    t = tables
    cards = []
    for c in range(t.n_cards):
        if age is not None and t.card_age[c] != age:
            continue
        is_guild = t.ent_kind[c] == codes.PURPLE
        if players is not None and not is_guild and t.card_copies[c, players] == 0:
            continue
        chain = [t.names[k] for k in t.chain_sources(c)]
        cards.append({
            "name": t.card_names[c], "age": int(t.card_age[c]), "color": codes.COLORS[t.ent_kind[c]],
            "players": players_of(t, c, players), "cost": cost_dict(t, c), "chain_from": chain,
            "effect": effect_words(t, c),
        })
    wonders = []
    for b in range(t.n_boards):
        res = int(t.board_resource[b])
        sides = {}
        for s, side in enumerate("AB"):
            stages = []
            for k in range(int(t.board_stages[b, s])):
                e = t.stage_entity(b, s, k)
                stages.append({"cost": cost_dict(t, e), "effect": effect_words(t, e)})
            sides[side] = {"starting_resource": codes.RESOURCES[res] if res >= 0 else None, "stages": stages}
        wonders.append({"id": t.board_ids[b], "promo": bool(t.board_promo[b]), "sides": sides,
                        "name": t.board_names[b], "starting_coins": int(t.board_coins[b])})
    return {"cards": cards, "wonders": wonders}
