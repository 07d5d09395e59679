"""Checks of an atlas site, for the page tests and the end-to-end atlas test: every relative link
resolves, every number in a `data-src="TABLE:ROW:COLUMN"` element equals the table's cell as
wsim.balance_atlas.pages formats it. Over a dict of pages {path: bytes} (with the tables as DataFrames) or
over a built SITE folder (the tables read from SITE/tables/NAME.csv)."""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd

from wsim.balance_atlas.cells import card_page, cell_text, players_page, side_page

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_LINKS = ("href", "src")


class _Parsed(HTMLParser):
    """A page's links (href and src attributes) and its data-src elements with their text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.sources, self._open = [], [], []  # _open: [tag, index in sources or None]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.links += [attrs[a] for a in _LINKS if attrs.get(a) is not None]
        if tag in _VOID:
            return
        index = None
        if attrs.get("data-src") is not None:
            index = len(self.sources)
            self.sources.append([attrs["data-src"], ""])
        self._open.append((tag, index))

    def handle_startendtag(self, tag, attrs):
        attrs = dict(attrs)
        self.links += [attrs[a] for a in _LINKS if attrs.get(a) is not None]
        if attrs.get("data-src") is not None:
            self.sources.append([attrs["data-src"], ""])

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for _, index in self._open:
            if index is not None:
                self.sources[index][1] += data


def parse(page: bytes) -> _Parsed:
    parsed = _Parsed()
    parsed.feed(page.decode("utf-8"))
    parsed.close()
    return parsed


def expected_pages(tables: dict) -> set:
    """The pages the contract lists for `tables`: index.html, players-P.html per count, a page per
    wonder side of `sides` and per card of `cards`."""
    counts = {int(float(p)) for frame in tables.values() if "players" in frame for p in frame["players"]
              if str(p) not in ("", "nan")}
    sides = tables.get("sides")
    cards = tables.get("cards")
    return ({"index.html"} | {players_page(p) for p in counts}
            | ({side_page(w, s) for w, s in zip(sides["wonder"], sides["side"])} if sides is not None else set())
            | ({card_page(c) for c in cards["card"]} if cards is not None else set()))


def broken_links(pages: dict, files) -> list:
    """(page, href, why) for each link of `pages` ({relative path: bytes}) that is not relative or
    names neither a page nor one of `files` (relative paths, such as "tables/sides.csv")."""
    known = set(pages) | set(files)
    broken = []
    for path, page in sorted(pages.items()):
        for href in parse(page).links:
            target = href.split("#", 1)[0].split("?", 1)[0]
            if not target:
                continue  # a link within the page
            if ":" in target.split("/", 1)[0] or target.startswith("/"):
                broken.append((path, href, "not relative"))
                continue
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if resolved not in known:
                broken.append((path, href, "no such page or file"))
    return broken


def table_files(tables) -> set:
    """The files a site holds for its tables: tables/NAME.csv and tables/NAME.parquet."""
    return {f"tables/{name}.{ext}" for name in tables for ext in ("csv", "parquet")}


def sources(pages: dict) -> list:
    """(page, table, row, column, text) of every data-src element."""
    out = []
    for path, page in sorted(pages.items()):
        for src, text in parse(page).sources:
            table, row, column = src.split(":", 2)
            out.append((path, table, int(row), column, text))
    return out


def source_mismatches(pages: dict, tables: dict) -> list:
    """(page, data-src, shown, expected) where a data-src element's text is not its cell as
    cells.cell_text formats it (or names no cell of `tables`: expected None)."""
    bad = []
    for path, table, row, column, text in sources(pages):
        frame = tables.get(table)
        if frame is None or column not in frame or not 0 <= row < len(frame):
            bad.append((path, f"{table}:{row}:{column}", text, None))
            continue
        expected = cell_text(table, frame, row, column)
        if text != expected:
            bad.append((path, f"{table}:{row}:{column}", text, expected))
    return bad


def read_site(folder) -> tuple:
    """A built site: ({path: bytes} of its HTML pages, the relative paths of all its files, {name:
    DataFrame} of SITE/tables/NAME.csv read as text, "" kept as "", as fmt reads CSV text)."""
    folder = Path(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    pages = {f: (folder / f).read_bytes() for f in files if f.endswith(".html")}
    tables = {p.stem: pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted((folder / "tables").glob("*.csv"))}
    return pages, files, tables


def site_problems(folder) -> list:
    """Every missing page, broken link and data-src mismatch of a built site, as text lines."""
    pages, files, tables = read_site(folder)
    return ([f"{p}: missing" for p in sorted(expected_pages(tables) - set(pages))]
            + [f"{p}: link {h!r}: {why}" for p, h, why in broken_links(pages, files)]
            + [f"{p}: {src} shows {shown!r}, the CSV gives {want!r}" for p, src, shown, want in
               source_mismatches(pages, tables)])
