"""The atlas's pages (wsim.balance_atlas.pages) from synthetic tables of two counts: every page the
contract lists, every link resolving, every data-src number equal to its cell (in the DataFrames
and in the CSVs written from them), determinism, escaping, and the formatter's rules."""

import math

import pandas as pd
import pytest

import atlas_checks
from wsim.balance_atlas import cells, pages

NAN = math.nan
ODD_CARD = 'Tom & "Jerry\'s" <Guild>'
ODD_WONDER = 'x<y&"z'
LADDER = ("random", "greedy", "learned", "search")
SIDES = (("rhodes", "A"), ("rhodes", "B"), ("babylon", "B"), (ODD_WONDER, "A"))
CARDS = ("Scriptorium", "Strategists Guild", ODD_CARD)


def _tables() -> dict:
    rungs, sides, side_curve, cards, card_curve, character, moves = [], [], [], [], [], [], []
    for p in (3, 4):
        fair = 1 / p
        people = p == 4
        for order, rung in enumerate(LADDER):
            rungs.append(dict(players=p, order=order, rung=rung, spec=f"{rung}:x", games=1200 if rung != "search" else 300,
                              anchor=int(rung == "search"), people_chi2=12.34 + order if people else NAN,
                              people_p=0.00003 if people and order == 0 else (0.2 if people else NAN),
                              people_rho=0.456 if people else NAN))
        for k, (wonder, side) in enumerate(SIDES):
            diff = (k - 1.5) * 0.03 + 0.001 * p
            action = ("act", "not yet", "don't act", "not yet")[k]
            sides.append(dict(
                players=p, wonder=wonder, side=side, anchor="search", below="learned", win_rate=fair + diff,
                ci_low=fair + diff - 0.02, ci_high=fair + diff + 0.02, fair_share=fair, diff=diff, vp=diff * 30,
                vp_ci_low=diff * 30 - 0.7, vp_ci_high=diff * 30 + 0.7, q_value=0.00001 * (k + 1),
                size_verdict=("too weak", "not resolved", "fair enough", "not resolved")[k],
                pair_diff=-0.004 * k, pair_ci_low=-0.02, pair_ci_high=0.01, pair_q=0.3 if k != 1 else 0.01,
                stability="stable" if k != 1 else "moves", people_rate=fair + 0.01 if people and k < 3 else NAN,
                people_ci_low=fair - 0.01 if people and k < 3 else NAN, people_ci_high=fair + 0.03 if people and k < 3 else NAN,
                people_q=0.5 if people and k < 3 else NAN, people="confirmed" if people and k < 3 else "no people data",
                action=action, direction=("too weak", "", "fair", "too strong")[k],
                games_needed=("", "12000", "", "inf")[k], why="search and learned agree; people <agree> & \"more\""))
            for order, rung in enumerate(LADDER):
                side_curve.append(dict(players=p, wonder=wonder, side=side, rung=rung, order=order, seats=2400 + k,
                                       win_rate=fair + diff * order / 3, ci_low=fair + diff * order / 3 - 0.015,
                                       ci_high=fair + diff * order / 3 + 0.015,
                                       q_value=NAN if order == 0 else 0.04))
        for k, card in enumerate(CARDS):
            effect = 0.02 * (k - 1)
            cards.append(dict(players=p, card=card, anchor="search", below="learned", effect=effect,
                              ci_low=effect - 0.01, ci_high=effect + 0.01, vp=1.25 * (k - 1), q_value=0.002,
                              size_verdict="too strong", pair_diff=0.001, pair_ci_low=-0.01, pair_ci_high=0.012,
                              pair_q=0.9, stability="stable", people="no people data",
                              action=("don't act", "act", "not yet")[k], direction=("fair", "too strong", "")[k],
                              games_needed=("", "", "45000")[k], why=""))
            for order, rung in enumerate(LADDER[:3] if k == 2 else LADDER):  # a rung missing: a gap
                card_curve.append(dict(players=p, card=card, rung=rung, order=order, effect=effect * order,
                                       ci_low=NAN if order == 1 else effect * order - 0.01,
                                       ci_high=NAN if order == 1 else effect * order + 0.01, q_value=0.5))
        for metric, value in (("leader_age1_wins", 0.41), ("winner_rank_age1", 1.8765), ("margin", 4.25),
                              ("close_share", 0.31), ("options", 12.5), ("decisions", 18.0),
                              ("skill_vs_random", 0.62), ("rating_spread", 25.5)):
            for population in ("random", "search"):
                character.append(dict(players=p, metric=metric, population=population, value=value,
                                      ci_low=value * 0.9 if metric != "decisions" else NAN,
                                      ci_high=value * 1.1 if metric != "decisions" else NAN, n=1200))
        if p == 4:
            for wonder, side in SIDES[:2]:
                moves.append(dict(players=p, wonder=wonder, side=side, rung="learned", base=0.25, edited=0.27,
                                  diff=0.02, ci_low=0.005, ci_high=0.035, q_value=0.01))
    findings = pd.DataFrame([
        dict(order=1, sentence="Babylon B is the weakest board, by 2–4 VP & <more>", kind="side",
             link=cells.side_page("babylon", "B")),
        dict(order=0, sentence=f"{ODD_CARD} is the strongest card", kind="card", link=cells.card_page(ODD_CARD)),
        dict(order=2, sentence="The game is decisive at 3 players", kind="character", link=cells.players_page(3))])
    frames = dict(rungs=rungs, sides=sides, side_curve=side_curve, cards=cards, card_curve=card_curve,
                  character=character, side_moves=moves)
    return {**{k: pd.DataFrame(v) for k, v in frames.items()}, "findings": findings}


ABOUT = {"title": "wsim atlas <test>", "data": "the packaged data file (sha256 0123abcd…)",
         "commands": ["wsim atlas --out site --players 3,4", "wsim atlas --out 'a & b'"]}


@pytest.fixture(scope="module")
def tables():
    return _tables()


@pytest.fixture(scope="module")
def site(tables):
    return pages.site_pages(tables, ABOUT)


def test_every_listed_page_exists(site, tables):
    expected = {"index.html", "players-3.html", "players-4.html"}
    expected |= {cells.side_page(w, s) for w, s in SIDES} | {cells.card_page(c) for c in CARDS}
    assert set(site) == expected == atlas_checks.expected_pages(tables)
    assert cells.side_page("rhodes", "A") == "side-rhodes-A.html"
    assert cells.card_page("Strategists Guild") == "card-strategists-guild.html"
    assert all(isinstance(v, bytes) and v.startswith(b"<!doctype html>") for v in site.values())


def test_every_link_resolves(site, tables):
    assert atlas_checks.broken_links(site, atlas_checks.table_files(tables)) == []
    links = atlas_checks.parse(site["index.html"]).links
    assert {"tables/sides.csv", "tables/side_moves.parquet", "players-4.html"} <= set(links)
    assert set(site) - {"index.html"} <= set(links)  # every page from the index
    # the check itself finds what is wrong
    broken = dict(site, **{"players-3.html": site["players-3.html"] + b'<a href="nowhere.html">x</a>'
                                                                    b'<a href="https://example.com/">y</a>'})
    assert [(h, why) for _, h, why in atlas_checks.broken_links(broken, atlas_checks.table_files(tables))] == [
        ("nowhere.html", "no such page or file"), ("https://example.com/", "not relative")]


def test_every_number_equals_its_cell(site, tables):
    assert atlas_checks.source_mismatches(site, tables) == []
    shown = {(t, r) for _, t, r, _, _ in atlas_checks.sources(site)}
    for name in ("sides", "cards", "side_curve", "card_curve", "rungs", "character", "side_moves", "findings"):
        assert {(name, r) for r in range(len(tables[name]))} <= shown, name  # every row on some page
    # the check itself finds a wrong number
    row = next(r for p, t, r, c, _ in atlas_checks.sources(site) if (p, t, c) == ("index.html", "sides", "diff"))
    text = cells.fmt("diff", tables["sides"]["diff"].iloc[row]).encode()
    src = f'data-src="sides:{row}:diff">'.encode()
    wrong = dict(site, **{"index.html": site["index.html"].replace(src + text, src + b"+99.9")})
    assert [m[1:] for m in atlas_checks.source_mismatches(wrong, tables)] == [
        (f"sides:{row}:diff", "+99.9", text.decode())]


def test_the_written_site_checks_clean(site, tables, tmp_path):
    """The same checks over a folder, the tables read back from their CSVs (the end-to-end form)."""
    for path, page in site.items():
        (tmp_path / path).write_bytes(page)
    (tmp_path / "tables").mkdir()
    for name, frame in tables.items():
        frame.to_csv(tmp_path / "tables" / f"{name}.csv", index=False)
        (tmp_path / "tables" / f"{name}.parquet").write_bytes(b"")
    assert atlas_checks.site_problems(tmp_path) == []


def test_deterministic(site, tables):
    assert pages.site_pages(tables, ABOUT) == site
    shuffled = dict(reversed(list(tables.items())))
    assert pages.site_pages(shuffled, dict(reversed(list(ABOUT.items())))) == site


def test_names_are_escaped(site):
    for path, page in site.items():
        text = page.decode()
        assert "<Guild>" not in text and "x<y" not in text and "<test>" not in text and "<agree>" not in text, path
    card = site[cells.card_page(ODD_CARD)].decode()
    assert "Tom &amp; &quot;Jerry&#x27;s&quot; &lt;Guild&gt;" in card
    assert "wsim atlas --out &#x27;a &amp; b&#x27;" in site["index.html"].decode()
    assert cells.card_page(ODD_CARD) == "card-tom-jerry-s-guild.html"


def test_page_contents(site):
    index = site["index.html"].decode()
    # the findings in their order, each linked to its evidence
    first = index.index("strongest card")
    assert first < index.index("weakest board") < index.index("decisive at 3")
    assert f'href="{cells.card_page(ODD_CARD)}"' in index[:first]
    assert "background:#" in index and 'class="legend"' in index
    four, three = site["players-4.html"].decode(), site["players-3.html"].decode()
    # the action sentences come first, act before not yet before don't act
    assert four.index("</h1>") < four.index("<h3>Act (1)</h3>") < four.index("The ladder, weakest")
    assert four.index("<b class=\"action\">act</b>") < four.index("<b class=\"action\">not yet</b>") \
        < four.index("<b class=\"action\">don&#x27;t act</b>") < four.index("<h2>Wonder sides</h2>")
    assert "games that would settle it" in four and four.count("<svg") >= len(SIDES) + len(CARDS)
    assert "What the edit moved" in four and "What the edit moved" not in three
    assert "<script" not in "".join(p.decode() for p in site.values())
    side = site[cells.side_page("rhodes", "B")].decode()
    assert side.count("<figure>") == 2 and "What the edit moved" in side


@pytest.mark.parametrize("column, value, text", [
    ("win_rate", 0.31234, "31.2"), ("ci_low", "0.31234", "31.2"), ("diff", -0.0412, "−4.1"),
    ("diff", 0.0412, "+4.1"), ("diff", -0.0004, "0.0"), ("effect", 0.02, "+2.0"), ("fair_share", 0.25, "25.0"),
    ("vp", 1.234, "+1.2"), ("vp_ci_low", -0.96, "−1.0"), ("q_value", 0.00001, "<0.0001"), ("q_value", 0.04321, "0.0432"),
    ("games", 12000, "12,000"), ("games_needed", "12000", "12,000"), ("games_needed", "inf", "inf"),
    ("games_needed", "", ""), ("players", 4.0, "4"), ("win_rate", NAN, ""), ("win_rate", None, ""),
    ("people_rho", 0.4567, "0.46"), ("people_chi2", 12.34, "12.3"), ("anchor", "search", "search"),
    ("anchor", 1, "1"), ("winner_rank_age1", 1.8765, "1.88"), ("close_share", 0.31, "31.0"),
    ("sentence", "Babylon B & <x>", "Babylon B & <x>"), ("unknown", 2.5, "2.50"), ("unknown", 3.0, "3")])
def test_fmt(column, value, text):
    assert cells.fmt(column, value) == text


def test_character_cells_format_as_their_metric(tables):
    frame = tables["character"]
    row = int(frame.index[(frame.metric == "winner_rank_age1")][0])
    assert cells.cell_text("character", frame, row, "value") == "1.88"
    row = int(frame.index[(frame.metric == "close_share")][0])
    assert cells.cell_text("character", frame, row, "ci_high") == cells.fmt("close_share", 0.31 * 1.1)
    assert cells.cell_text("character", frame, row, "n") == "1,200"


def test_two_names_on_one_page_refused(tables):
    twin = pd.concat([tables["cards"], tables["cards"].iloc[:1].assign(card="scriptorium")], ignore_index=True)
    with pytest.raises(ValueError, match="card-scriptorium.html"):
        pages.site_pages(dict(tables, cards=twin), ABOUT)


def test_tables_without_optional_parts(tables):
    """A column, a table or a people's value missing leaves its cell, section or clause out."""
    lean = dict(tables, sides=tables["sides"].drop(columns=["why", "people_q", "vp_ci_low"]))
    for name in ("character", "side_moves", "card_curve", "findings"):
        del lean[name]
    site = pages.site_pages(lean, {})
    assert atlas_checks.source_mismatches(site, lean) == []
    assert atlas_checks.broken_links(site, atlas_checks.table_files(lean)) == []
    assert "<h1>wsim atlas</h1>" in site["index.html"].decode()
