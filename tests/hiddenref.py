"""A plain-Python model of what one seat knows of this age's hidden cards, for the tests of
kernels/hidden.py: where each hidden card may be, and with which others it can trade places.

Written from RULES.md §2 directly, with lists and dicts: follow every card of the age from the
deal, through each turn's plays (st.hist) and discard builds (st.took), noting the last turn the
seat saw it in its hand. A hidden card's group is that turn (0: never seen this age); a uniform
draw over the deals the seat cannot tell apart puts each group's cards uniformly over the
group's places.
"""

from __future__ import annotations

from collections import Counter

from wsim import codes
from wsim.kernels.layout import G_AGE, G_FC, G_NTOOK, G_TURN


def hidden_places(game, who: int) -> list:
    """[(place, group, card)] for every card of the current age `who` cannot see, where place is
    ("hand", seat), ("fc_pile",), ("pile",) or ("tucked",)."""
    gs, state = game.gs, game.state
    age, now, fc, n = int(gs[G_AGE]), int(gs[G_TURN]), int(gs[G_FC]), game.n
    dealt, hist, took = state["dealt"][0][age - 1], state["hist"][0], state["took"][0][:int(gs[G_NTOOK])]

    def holding(s, u):
        step = u - 1
        if fc >= 0:
            return s if step % 2 == 0 else 1 - s
        return (s + step) % n if age == 2 else (s - step) % n

    cards = []  # [card, where, group]: where is a hand (the seat it was dealt to), "fc", "pile", "tucked", "shown"
    for s in range(n):
        if s != fc:
            cards += [[int(c), s, 0] for c in dealt[s]]
    pile_cards = [[int(c), "fc", 0] for c in dealt[fc]] if fc >= 0 else []
    cards += pile_cards
    for u in range(1, now + 1):
        if fc >= 0:
            pile_cards[u - 1][1] = holding(codes.fc_controller(age, u), u)
        for card in cards:
            if card[1] == holding(who, u):
                card[2] = u
        rows = (u - 1, codes.TURNS_PER_AGE) if u == codes.TURNS_PER_AGE else (u - 1,)
        for row in rows:
            for s in range(n):
                c, action = int(hist[row, s, 0]), int(hist[row, s, 1])
                if c < 0:
                    continue
                holder = codes.fc_controller(age, u) if s == fc else s
                card = next(x for x in cards if x[0] == c and x[1] == holding(holder, u))
                if holder == who or action in (codes.ACT_BUILD, codes.ACT_BUILD_FREE):
                    card[1] = "shown"
                else:
                    card[1] = "pile" if action == codes.ACT_DISCARD else "tucked"
        for turn, c in took:
            if turn == u:
                card = next((x for x in cards if x[0] == c and x[1] == "pile"), None)
                if card is not None:
                    card[1] = "shown"
    mine = holding(who, now)
    out = []
    for c, where, group in cards:
        if where == "shown" or where == mine:
            continue
        if isinstance(where, int):
            place = ("hand", next(s for s in range(n) if s != fc and holding(s, now) == where))
        else:
            place = ("fc_pile",) if where == "fc" else (where,)
        out.append((place, group, c))
    return out


def expected_counts(places: list, draws: int) -> Counter:
    """Expected count of each (place, card) over `draws` uniform draws (non-guild cards; in Age
    III the unseen guilds are drawn again, so callers leave them out)."""
    groups = {}
    for _, group, c in places:
        groups.setdefault(group, Counter())[c] += 1
    out = Counter()
    for place, group, _ in places:
        size = sum(groups[group].values())
        for c, k in groups[group].items():
            out[(place, c)] += draws * k / size
    return out


def observed(places: list) -> Counter:
    """The count of each (place, card) in one world."""
    return Counter((place, c) for place, _, c in places)

