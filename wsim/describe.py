"""Plain-English and JSON descriptions of compiled cards, stages and costs (for `wsim cards`)."""

from __future__ import annotations

from wsim import codes
from wsim.tables import Tables


def cost_dict(tables: Tables, e: int) -> dict:
    """{"coins": N, "resources": {name: count}} of an entity, non-zero resources only."""
    res = {codes.RESOURCES[r]: int(tables.ent_cost[e, r]) for r in range(codes.N_RES) if tables.ent_cost[e, r]}
    return {"coins": int(tables.ent_coin_cost[e]), "resources": res}


def _mask_names(mask: int, names) -> list:
    return [names[i] for i in range(len(names)) if mask >> i & 1]


def _count_words(spec) -> str:
    amount, count, scope = (int(x) for x in spec)
    if count == codes.COUNT_STAGES:
        what = "wonder stage"
    elif count == codes.COUNT_DEFEATS:
        what = "defeat token"
    else:
        what = "/".join(_mask_names(count, codes.COLORS)) + " card"
    where = [name for name, bit in codes.SCOPES.items() if scope & bit]
    where_words = {("self",): "own city", ("left", "right"): "both neighbours",
                   ("self", "left", "right"): "own city and both neighbours"}.get(tuple(where), "+".join(where))
    return f"{amount} per {what} ({where_words})"


def effect_words(tables: Tables, e: int) -> str:
    """The effect of a card or stage in words, e.g. "produces wood/clay (tradeable)"."""
    t = tables
    out = []
    fixed = [codes.RESOURCES[r] for r in range(codes.N_RES) for _ in range(int(t.ent_prod[e, r]))]
    choice = "/".join(_mask_names(int(t.ent_choice[e]), codes.RESOURCES))
    units = fixed + ([choice] if choice else [])
    if units:
        out.append("produces " + " + ".join(units) + (" (tradeable)" if t.ent_tradeable[e] else " (not sold)"))
    if t.ent_points[e]:
        out.append(f"{t.ent_points[e]} point" + ("s" if t.ent_points[e] > 1 else ""))
    if t.ent_shields[e]:
        out.append(f"{t.ent_shields[e]} shield" + ("s" if t.ent_shields[e] > 1 else ""))
    if t.ent_coins[e]:
        out.append(f"{t.ent_coins[e]} coins")
    if t.ent_science[e] >= 0:
        sym = codes.SCIENCE[t.ent_science[e]]
        out.append("science: any symbol" if sym == "any" else f"science: {sym}")
    d = int(t.ent_discount[e])
    if d:
        goods = "raw" if d & (codes.DISC_RAW_LEFT | codes.DISC_RAW_RIGHT) else "manufactured"
        sides = [s for s, bits in (("left", codes.DISC_RAW_LEFT | codes.DISC_MANUF_LEFT),
                                   ("right", codes.DISC_RAW_RIGHT | codes.DISC_MANUF_RIGHT)) if d & bits]
        out.append(f"buys {goods} from {' and '.join(sides)} for {codes.DISCOUNT_PRICE} coin")
    if t.ent_coins_per[e, 0]:
        out.append("coins when built: " + _count_words(t.ent_coins_per[e]))
    if t.ent_points_per[e, 0]:
        out.append("points at the end: " + _count_words(t.ent_points_per[e]))
    p = int(t.ent_power[e])
    if p == codes.POW_COPY_STAGE:
        stage, of = int(t.ent_copy_stage[e]) + 1, codes.COPY_OF[t.ent_copy_of[e]]
        out.append(f"copies stage {stage} of the {of.replace('_', ' ')} neighbour")
    elif p:
        out.append(codes.POWERS[p].replace("_", " "))
    return ", ".join(out) or "nothing"


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
