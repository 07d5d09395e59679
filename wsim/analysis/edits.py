"""Edits of the card data for a paired experiment (`wsim ablate --edit`, docs/interfaces.md §5).

An edit changes what a card or a wonder stage does, never which cards are dealt, so that the
edited run plays the same deals as the baseline:

    CARD.points=N | +N | -N          the flat points it scores (relative with a sign)
    CARD.coins=N | +N | -N           the flat coins taken when it is built
    CARD=neutral                     a card that does nothing (cost, chains, copies kept)
    WONDER/SIDE.stageK=neutral       a stage that does nothing (its cost kept)
    WONDER/SIDE.stageK.points=...    also .coins=..., as for cards
    SUBJECT.cost=stone:2,papyrus     the whole cost (RESOURCE[:N], N 1 by default; coins:N for a
                                     card only; `free` for none)
    SUBJECT.cost+=stone | -=stone:2  resources (or coins) added to or taken from the cost
    CARD.chain_to=LATER              owning CARD makes LATER free (LATER's chain_from gains it);
                                     chain_to-=LATER drops that link, chain_to=none every link
    CARD.points+=N, -=N              the same as points=+N, -N (also coins)
    CARD=replace:{name: NEW, ...}    every copy of CARD becomes NEW, a card entry in YAML flow
                                     form (cost, chain_from and effect keys, as in the data file),
                                     in CARD's place, age and copies (a guild stays a guild); NEW
                                     is a name unused in the data (the reports pair by name)
    CARD@N[,N...]=replace:{...}      only the copies that enter at those player counts: CARD is
                                     taken out of those counts and NEW, placed right after it,
                                     takes their place in the deck

A card name matches as everywhere (case, spaces, punctuation, aliases) and edits every copy of
that building (Age I and II Loom together). The edits are applied to the data document in
memory and the result is compiled like any data file; the compiled decks are then compared with
the original's position by position (same_deals), so an edit can never change the deal: a
replaced card is dealt exactly where the card it replaces was.
"""

from __future__ import annotations

import re

import yaml

from wsim import codes, effects
from wsim.compiler import DataError, has_control_character, normalize_name
from wsim.errors import WsimError, brief
from wsim.tables import Tables, compile_text
from wsim.yamlfile import parse

_AMOUNT = re.compile(r"([+-]?)(\d{1,4})")
_STAGE = re.compile(r"(?P<wonder>[A-Za-z_ ]+)/(?P<side>[A-Za-z]*)\.stage(?P<k>\d{1,2})", re.ASCII | re.IGNORECASE)
FIELDS = effects.EDIT_KEYS  # the effect kinds `--edit CARD.KEY=N` sets


class EditError(WsimError):
    """An --edit that names an unknown card or stage, or that cannot be applied."""


def _fail(edit: str, problem: str) -> EditError:
    return EditError(f"--edit {brief(edit)}: {problem}")


def _wonder_id(name: str) -> str:
    """A wonder as typed (any case, a space for the underscore) to its id."""
    return name.strip().lower().replace(" ", "_")


def _card_name(edit: str, subject: str, doc: dict, base: Tables) -> str:
    """The printed name of the card `subject` names (aliases as everywhere), in the data as the
    edits before this one left it: a card an earlier edit replaced is gone, its replacement known."""
    if "@" in subject:  # normalize_name would drop it, and with it the copies it meant to pick
        raise _fail(edit, f"{brief(subject.strip())}: CARD@N (some copies) goes with replace:{{...}} only; any "
                          "other edit of a card changes every copy")
    try:
        name = base.card_names[base.card_id(subject)]
    except KeyError:
        name = subject.strip()
    if any(normalize_name(c["name"]) == normalize_name(name) for c in doc["cards"]):
        return next(c["name"] for c in doc["cards"] if normalize_name(c["name"]) == normalize_name(name))
    gone = " (an earlier edit replaced it)" if name in base.card_names else " (see `wsim cards`)"
    raise _fail(edit, f"unknown card {brief(subject)}{gone}; a wonder stage is written WONDER/SIDE.stageK, "
                      "e.g. giza/B.stage2")


def _targets(edit: str, subject: str, doc: dict, base: Tables) -> list:
    """The data-document entries (dicts) an edit's subject names: every copy of a card, or one stage."""
    stage = _STAGE.fullmatch(subject)
    if stage:
        wonder, side, k = _wonder_id(stage["wonder"]), stage["side"].upper(), int(stage["k"])
        if side not in ("A", "B"):
            raise _fail(edit, f"a wonder's side is A or B, not {brief(stage['side'])}")
        entries = [w for w in doc["wonders"] if w.get("id") == wonder]
        if not entries:
            raise _fail(edit, f"unknown wonder {brief(wonder)} (one of: {' '.join(base.board_ids)})")
        stages = entries[0]["sides"][side]
        if not 1 <= k <= len(stages):
            raise _fail(edit, f"{wonder}/{side} has stages 1..{len(stages)}, not {k}")
        return [stages[k - 1]]
    name = normalize_name(_card_name(edit, subject, doc, base))
    return [c for c in doc["cards"] if normalize_name(c["name"]) == name]


def _apply(edit: str, doc: dict, base: Tables):
    """Apply one edit to the document in place."""
    subject, sep, value = edit.partition("=")
    subject, value = subject.strip(), value.strip()
    if not sep or not subject or not value:
        raise _fail(edit, "write CARD.points=N, CARD.coins=N, CARD.cost=RESOURCE:N,..., CARD.chain_to=CARD, "
                          "CARD=neutral or WONDER/SIDE.stageK=neutral")
    op = subject[-1] if subject[-1] in "+-" else ""
    subject = subject[:-1].strip() if op else subject
    if value[:8].lower() == "replace:" and not op:
        return _replace_card(edit, subject, value[8:], doc, base)
    if value.lower() == "neutral" and not op:
        for entry in _targets(edit, subject, doc, base):
            for key in effects.KEYS:
                entry.pop(key, None)
        return
    subject, dot, field = subject.rpartition(".")
    field = field.strip().lower()
    if dot and field == "cost":
        return _edit_cost(edit, subject.strip(), op, value, doc, base)
    if dot and field == "chain_to":
        return _edit_chain(edit, subject.strip(), op, value, doc, base)
    if not dot or field not in FIELDS:
        raise _fail(edit, f"the field edited must be one of {', '.join(FIELDS + ('cost', 'chain_to'))} (or the "
                          "value `neutral`)")
    if op:
        if value[:1] in "+-":
            raise _fail(edit, f"{field}{op}= takes a whole number N, not {brief(value)}")
        value = op + value
    amount = _AMOUNT.fullmatch(value)
    if not amount:
        raise _fail(edit, f"{field} takes a whole number N, +N or -N (up to 4 digits), not {brief(value)}")
    sign, number = amount[1], int(amount[2])
    for entry in _targets(edit, subject, doc, base):
        _set_count(entry, field, sign, number, edit, f"{field} would become {{new}}; it cannot be negative")


def _set_count(mapping: dict, key: str, op: str, n: int, edit: str, negative: str):
    """mapping[key] set to n (op ""), or n added ("+") or taken ("-"); a zero drops the key, a
    count below zero is refused with `negative` ({new} names the count)."""
    new = n if not op else mapping.get(key, 0) + (n if op == "+" else -n)
    if new < 0:
        raise _fail(edit, negative.format(new=new))
    if new:
        mapping[key] = new
    else:
        mapping.pop(key, None)


_COST_ITEM = re.compile(r"(?P<what>[a-z]+)(?::(?P<n>\d{1,2}))?")


def _cost_counts(edit: str, value: str, stage: bool) -> dict:
    """{resource or "coins": count} of a cost value ("stone:2,papyrus"; "free": {})."""
    if value.lower() == "free":
        return {}
    kinds = codes.RESOURCES if stage else codes.RESOURCES + ("coins",)
    out: dict = {}
    for item in value.lower().replace(" ", "").split(","):
        m = _COST_ITEM.fullmatch(item)
        if not m or m["what"] not in kinds:
            raise _fail(edit, f"a cost is RESOURCE[:N],... with RESOURCE one of {', '.join(kinds)}"
                              + (" (a wonder stage costs resources only)" if stage and m and m["what"] == "coins"
                                 else "") + f", not {brief(item)}")
        n = 1 if m["n"] is None else int(m["n"])
        if n < 1:
            raise _fail(edit, f"{m['what']}:{n}: a count is 1 or more (leave a resource out for none)")
        out[m["what"]] = out.get(m["what"], 0) + n
    return out


def _edit_cost(edit: str, subject: str, op: str, value: str, doc: dict, base: Tables):
    """A cost edit (=, += or -=) of every entry the subject names."""
    stage = _STAGE.fullmatch(subject) is not None
    if op and value.lower() == "free":
        raise _fail(edit, f"cost{op}= takes resources, e.g. cost{op}=stone; `free` goes with cost=")
    counts = _cost_counts(edit, value, stage)
    for entry in _targets(edit, subject, doc, base):
        cost = {} if not op else dict(entry.get("cost") or {})
        for what, n in counts.items():
            _set_count(cost, what, op, n, edit, f"the cost would hold {{new}} {what}; a cost cannot be negative")
        order = codes.RESOURCES + ("coins",)
        entry["cost"] = {k: cost[k] for k in sorted(cost, key=lambda k: order.index(k) if k in order else -1)}


def _edit_chain(edit: str, subject: str, op: str, value: str, doc: dict, base: Tables):
    """A chain edit: CARD.chain_to=LATER (a link added), -=LATER (dropped), =none (every link dropped)."""
    if _STAGE.fullmatch(subject):
        raise _fail(edit, "a chain links two cards; a wonder stage has none")
    _targets(edit, subject, doc, base)  # the subject is a card
    name = _card_name(edit, subject, doc, base)
    if value.lower() == "none" and not op:
        for c in doc["cards"]:
            c["chain_from"] = [n for n in c.get("chain_from", []) if normalize_name(n) != normalize_name(name)]
            if not c["chain_from"]:
                c.pop("chain_from")
        return
    if op == "+":
        raise _fail(edit, "write chain_to=LATER to add a link (chain_to-=LATER drops one)")
    later = _card_name(edit, value, doc, base)
    if normalize_name(later) == normalize_name(name):
        raise _fail(edit, f"a chain to itself ({name})")
    for c in doc["cards"]:
        if normalize_name(c["name"]) != normalize_name(later):
            continue
        links = [n for n in c.get("chain_from", []) if normalize_name(n) != normalize_name(name)]
        if op == "-" and len(links) == len(c.get("chain_from", [])):
            raise _fail(edit, f"{later} has no chain from {name}")
        if not op:
            links.append(name)
        if links:
            c["chain_from"] = links
        else:
            c.pop("chain_from", None)


_COPIES = re.compile(r"(?P<card>.+?)\s*@\s*(?P<counts>\d(?:\s*,\s*\d)*)")
_REPLACE_KEYS = {"name", "color", "cost", "chain_from"} | set(effects.KEYS)


def _replacement(edit: str, text: str) -> dict:
    """The new card entry of a replace: edit, a YAML flow mapping with a name."""
    try:
        entry = parse(text.strip().encode())
    except WsimError as e:
        raise _fail(edit, f"replace: takes a card entry such as {{name: Decorators Guild, points: 7}}: {e}") from None
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
        raise _fail(edit, "replace: takes a card entry with a name, e.g. replace:{name: Well, points: 3}")
    if has_control_character(entry["name"].strip()):
        raise _fail(edit, f"replace: the name {brief(entry['name'].strip())} holds a control character or a line "
                          "break; a name is one line of printable text")
    unknown = sorted(set(entry) - _REPLACE_KEYS)
    if unknown:
        kept = " (the replaced card's age and copies are kept, so that the deals stay the same)" \
            if set(unknown) & {"age", "players"} else ""
        raise _fail(edit, f"replace: a new card takes name, color, cost, chain_from and the effect keys "
                          f"({', '.join(effects.KEYS)}), not {', '.join(unknown)}{kept}")
    return entry


def _replace_card(edit: str, subject: str, text: str, doc: dict, base: Tables):
    """CARD=replace:{...} and CARD@N,...=replace:{...}: the new entry takes the old one's place
    (or, for some copies, the place right after it), age and copies; links to the old building
    from later cards are dropped with it (the building is gone where it was replaced)."""
    copies = _COPIES.fullmatch(subject)
    if "@" in subject and not copies:  # not every copy: "Arsenal@" says some, and names none
        raise _fail(edit, f"{brief(subject)}: write CARD@N[,N...] with the player counts whose copies are "
                          "replaced (e.g. Arsenal@4,7), or CARD=replace:{...} for every copy")
    subject = copies["card"] if copies else subject
    if _STAGE.fullmatch(subject):
        raise _fail(edit, "replace: replaces a card; a wonder stage is edited field by field")
    new = _replacement(edit, text)
    counts = sorted({int(n) for n in copies["counts"].split(",")}) if copies else None
    old_entries = _targets(edit, subject, doc, base)
    _check_new_card(edit, new, old_entries, doc, base)
    for old in old_entries:
        if (new.get("color", old["color"]) == "purple") != (old["color"] == "purple"):
            raise _fail(edit, "replace: a guild is replaced by a guild, and a building by a building (the deal "
                              "draws the guilds apart)")
        entry = {"name": new["name"].strip(), "age": old["age"], "color": new.get("color", old["color"]),
                 **{k: v for k, v in new.items() if k not in ("name", "color")}}
        at = doc["cards"].index(old)
        if counts is None:
            entry["players"] = old["players"]
            doc["cards"][at] = entry
            continue
        if old["color"] == "purple":
            raise _fail(edit, "@N: a guild has no copies by player count (N+2 of them are drawn each game)")
        missing = [n for n in counts if n not in old["players"]]
        if missing:
            raise _fail(edit, f"{old['name']} (Age {old['age']}) has no copy that enters at {missing[0]} players "
                              f"(its copies: {old['players']})")
        players = list(old["players"])
        for n in counts:  # one copy each (a card may have two copies entering at one count)
            players.remove(n)
        old["players"] = players
        entry["players"] = counts
        doc["cards"].insert(at + 1, entry)
    if counts is None:
        name = normalize_name(old_entries[0]["name"])
        for c in doc["cards"]:
            links = [n for n in c.get("chain_from", []) if normalize_name(n) != name]
            if "chain_from" in c and len(links) != len(c["chain_from"]):
                c["chain_from"] = links
                if not links:
                    c.pop("chain_from")


def _check_new_card(edit: str, new: dict, old_entries: list, doc: dict, base: Tables):
    """Refuse a new card named like a building of the deck (as the edits before this one left
    it, or as given; names compared as the data loader compares them, aliases included) or
    chaining from the card it replaces. The reports count and pair buildings by name, and the
    loader makes one building of a name in two ages: a new card named like another would be
    taken for it (and a city holding one could not build the other)."""
    old = old_entries[0]["name"]
    own = {normalize_name(n) for entry in old_entries for n in [entry["name"], *(entry.get("aliases") or [])]}
    name = new["name"].strip()
    key = normalize_name(name)
    if key in own:
        raise _fail(edit, f"replace: the new card takes the name of the card it replaces ({old}), and the report "
                          f"would pair the two as one building; edit {old}'s fields instead ({old}.points=..., "
                          f"{old}.cost=..., {old}=neutral) or give the new card a name of its own")
    ages: dict = {}  # normalized name or alias -> (the building's name, its ages), in the deck now
    for entry in doc["cards"]:
        for n in [entry["name"], *(entry.get("aliases") or [])]:
            ages.setdefault(normalize_name(n), (entry["name"], set()))[1].add(entry["age"])
    if key in ages:
        building, in_ages = ages[key]
        raise _fail(edit, f"replace: the name {brief(name)} is taken: {building} is a building of Age"
                          f"{'s' if len(in_ages) > 1 else ''} {', '.join(map(str, sorted(in_ages)))}; a new card "
                          "takes a name unused in the deck")
    if key in base.lookup:
        card = base.card_names[base.lookup[key]]
        raise _fail(edit, f"replace: the name {brief(name)} is taken: {card} is a card of the data that an earlier "
                          f"edit replaced; a new card takes a name unused in the data, so that the report does not "
                          f"pair it with the baseline's {card}")
    chains = new.get("chain_from")
    if isinstance(chains, list) and any(isinstance(c, str) and normalize_name(c) in own for c in chains):
        raise _fail(edit, f"replace: the new card cannot chain from {old}, the card it replaces (a chain comes "
                          "from a building of an earlier age)")


def _deck_positions(t: Tables) -> dict:
    """(age, players) -> the card names of that deck in the order the deal fills it (non-guild
    cards in data order, each copy in turn; Age III's guilds apart, as "guilds")."""
    out = {}
    for n in range(codes.MIN_PLAYERS, codes.MAX_PLAYERS + 1):
        for age in range(1, codes.N_AGES + 1):
            out[age, n] = [t.card_names[c] for c in range(t.n_cards) if t.card_age[c] == age
                           and t.ent_kind[c] != codes.PURPLE for _ in range(int(t.card_copies[c, n]))]
    out["guilds"] = [t.card_names[c] for c in range(t.n_cards) if t.ent_kind[c] == codes.PURPLE]
    return out


def deal_differences(base: Tables, other: Tables) -> list | None:
    """How `other`'s deals differ from `base`'s, as (OLD, NEW, player counts) per card replaced
    (a guild's counts: []), or None when they are not the same deals: the deal shuffles
    positions, so two data files deal alike when every deck has as many cards, the boards as
    many stages, and the cards differ only at the positions their composition forces (a card
    replaced where it stood, not the cards shifted or reordered)."""
    if (base.board_ids, base.board_stages.tolist()) != (other.board_ids, other.board_stages.tolist()):
        return None
    ours, theirs = _deck_positions(base), _deck_positions(other)
    found: dict = {}
    for key, names in ours.items():
        them = theirs[key]
        if len(them) != len(names):
            return None
        moved = [(a, b) for a, b in zip(names, them) if a != b]
        forced = sum(max(0, names.count(a) - them.count(a)) for a in set(names))
        if len(moved) != forced:
            return None
        for pair in dict.fromkeys(moved):
            counts = found.setdefault(pair, [])
            if key != "guilds" and key[1] not in counts:
                counts.append(key[1])
    return [(a, b, sorted(counts)) for (a, b), counts in found.items()]


def replacement_words(difference: tuple) -> str:
    """One deal_differences entry in words: "Arsenal -> Castrum at 4-7 players" (a guild: no counts)."""
    old, new, counts = difference
    if not counts:
        return f"{old} -> {new}"
    run = counts == list(range(counts[0], counts[-1] + 1)) and len(counts) > 2
    return f"{old} -> {new} at {f'{counts[0]}-{counts[-1]}' if run else ', '.join(map(str, counts))} players"


def apply_edits(base: Tables, edits: list) -> Tables:
    """The tables of `base`'s data file with `edits` applied (in order), compiled; the file text
    (`Tables.raw`) says which edits made it. Raises EditError for a bad edit."""
    if not edits:
        raise EditError("--edit: give at least one edit, e.g. --edit 'Altar.points=+5'")
    for edit in edits:
        # an edit is also written into the data text, as a comment: a line break would end the
        # comment there and make the rest data
        if has_control_character(edit):
            raise _fail(edit, "holds a control character or a line break; an edit is one line of printable "
                              "text, e.g. 'Altar.points=+5'")
    doc = parse(base.raw)
    for edit in edits:
        _apply(edit, doc, base)
    header = "".join(f"# wsim ablate --edit {e}\n" for e in edits)
    text = header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    try:
        edited = compile_text(text, source="edited data")
    except DataError as e:
        raise EditError(f"--edit: the edited data is not valid: {e}") from None
    if deal_differences(base, edited) is None:
        raise EditError("--edit: the edits change the deck's size or order, so the two runs would not "
                        "play the same deals (a card is replaced where it stands: CARD=replace:{...})")
    return edited


def check_against(baseline: Tables, edited: Tables, name: str):
    """Refuse (EditError) two data files that do not make a paired experiment: a deck of other
    cards, copies or boards (the deals would differ), or no difference at all. name: how the
    baseline was given (e.g. its path)."""
    if deal_differences(baseline, edited) is None:
        raise EditError(f"--against {name}: its decks (cards in order, copies) or boards differ from the data "
                        "played, so the two runs would not play the same deals (what a card or a stage does, "
                        "costs and chains included, may differ, and a card may be replaced where it stands)")
    if (edited.ent.shape == baseline.ent.shape and (edited.ent == baseline.ent).all() and
            (edited.board == baseline.board).all() and (edited.card_chain == baseline.card_chain).all()):
        raise EditError(f"--against {name}: the two data files play the same (nothing differs but the text)")


def _mapping_get(node, key: str):
    """The value node of `key` in a YAML mapping node, or None."""
    for k, v in node.value:
        if getattr(k, "value", None) == key:
            return v
    return None


def _field_spots(root, edit: str, base: Tables) -> list:
    """The mapping nodes (one per copy of a card, or the stage's) that an edit's subject names,
    found in the composed YAML of the data file."""
    subject = edit.partition("=")[0].strip().rpartition(".")[0].strip()
    stage = _STAGE.fullmatch(subject)
    if stage:
        wonder, side, k = _wonder_id(stage["wonder"]), stage["side"].upper(), int(stage["k"])
        for entry in _mapping_get(root, "wonders").value:
            if getattr(_mapping_get(entry, "id"), "value", None) == wonder:
                return [_mapping_get(_mapping_get(entry, "sides"), side).value[k - 1]]
        return []
    name = normalize_name(base.card_names[base.card_id(subject)])
    return [entry for entry in _mapping_get(root, "cards").value
            if normalize_name(str(getattr(_mapping_get(entry, "name"), "value", ""))) == name]


def edited_text(base: Tables, edits: list) -> str | None:
    """The data file's text with only the lines of the edited numbers changed (comments and
    layout kept), for points and coins edits of a file in the block layout of the shipped one;
    None when the file's layout does not allow it (a flow mapping, say). The result compiles to
    the tables apply_edits makes, or None is returned."""
    text = base.raw.decode()
    changes = []  # (start, end, replacement) in the text
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        edited = apply_edits(base, edits)
        for edit in edits:
            field = edit.partition("=")[0].strip().rpartition(".")[2].strip().lower()
            for node in _field_spots(root, edit, base):
                if node.flow_style:
                    return None
                value = _mapping_get(node, field)
                new = _entry_value(edited, base, edit, field)
                if value is not None:
                    changes.append((value.start_mark.index, value.end_mark.index, str(new)))
                else:  # a new key after the mapping's last line, indented as its keys
                    indent = " " * node.value[0][0].start_mark.column
                    end = node.value[-1][1].end_mark.index
                    changes.append((end, end, f"\n{indent}{field}: {new}"))
    except (yaml.YAMLError, AttributeError, IndexError, KeyError, TypeError):
        return None
    for start, end, replacement in sorted(changes, reverse=True):
        text = text[:start] + replacement + text[end:]
    try:
        again = compile_text(text, source="edited data")
    except DataError:
        return None
    same = (again.ent == edited.ent).all() and (again.board == edited.board).all()
    return text if same else None


def _entry_value(edited: Tables, base: Tables, edit: str, field: str) -> int:
    """The value an edit leaves in the edited tables (the entity of its stage or card)."""
    subject = edit.partition("=")[0].strip().rpartition(".")[0].strip()
    stage = _STAGE.fullmatch(subject)
    if stage:
        board = base.board_id(_wonder_id(stage["wonder"]))
        entity = base.stage_entity(board, "AB".index(stage["side"].upper()), int(stage["k"]) - 1)
    else:
        entity = base.card_id(subject)
    return int(getattr(edited, "ent_" + effects.BY_KEY[field].fields[0].name)[entity])
