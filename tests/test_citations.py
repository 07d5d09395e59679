"""Every citation of the rules, the contract or the design points into the repository and
resolves: "docs/rules.md §10" needs a page docs/rules.md with a heading "§10", a quoted name after
it ('docs/interfaces.md §2 "Distributed runs"') a heading of that name inside §10's section, and
any mention of the spec's own files (RULES.md, INTERFACES, shared/spec) is refused, since a clone
does not hold them. The pages that restate the spec say which version they restate, and that
statement's form is checked here; whether it still names the spec's current version is for
the developer to check beside the spec (docs/correctness.md), since no test reads outside the
repository."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the pages that restate the spec, by the spec file each restates
RESTATED = {"rules.md": "RULES.md", "interfaces.md": "INTERFACES.md", "design.md": "DESIGN.md"}

# where citations are looked for: the code, the tests, the benchmarks, the studies, the docs, the build files
SCANNED = ("wsim", "kernels", "tests", "bench", "studies", "docs", "README.md", "CHANGELOG.md", "Makefile",
           "pyproject.toml")
SUFFIXES = {".py", ".pyi", ".md", ".yaml", ".yml", ".toml", ".txt", ".cfg", ""}
SKIPPED_DIRS = {"__pycache__", "results"}  # bench/results: recorded runs, not prose

# The one citation left as it was: the packaged data file's bytes are its `data_sha256`, which
# every dataset records and `wsim replay` compares, so a comment edited there would change
# behaviour; wsim/effects.py holds the same header line, which it must write byte for byte.
# The second edition's data file (wsim/data/cards-2e.yaml) carries the same generated header.
# (file, the exact text) — a second outside citation in any of them still fails.
KEPT = {("wsim/data/cards.yaml", "RULES.md section 8"), ("wsim/effects.py", "RULES.md section 8"),
        ("wsim/data/cards-2e.yaml", "RULES.md section 8")}

OUTSIDE = re.compile(r"\b(?:RULES|INTERFACES|DESIGN)\b(?:\.md)?(?:'s?)?(?:\s+(?:§|sections?\s)[^\n)]*)?|shared/(?:spec|findings)")
SECTION = r"§\d+(?:\.\d+)*"
SECTIONS = rf"{SECTION}(?:\s*(?:[-–,]|and|to)\s*{SECTION})*"
CITATION = re.compile(
    rf"(?P<prefix>docs/|\]\()?(?P<page>[a-z_]+)\.md\)?(?P<secs>\s+{SECTIONS})?(?:\s+\"(?P<name>[^\"]+)\")?")
HEADER = re.compile(r"^Restates `\.\./shared/spec/(?P<spec>[A-Z]+\.md)` of (?P<date>\d{4}-\d\d-\d\d) "
                    r"\(sha256 `(?P<sha>[0-9a-f]{12})`\)")
HEADING = re.compile(r"^(?P<level>#{2,6}) (?:§(?P<num>\d+(?:\.\d+)*)\b)?(?P<text>.*)$")


def page_sections(text: str) -> dict:
    """{section number: the headings inside that section}, from headings "## §N ..." (a sub-number
    "§N.M" is a section of its own too); fenced code is skipped."""
    out: dict = {}
    current, level, fenced = None, 0, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else HEADING.match(line)
        if not match:
            continue
        depth = len(match["level"])
        if match["num"]:
            current, level = match["num"], depth
            out[current] = []
        elif current is not None and depth > level:
            out[current].append(match["text"].strip())
        else:
            current = None
    return out


def _numbers(secs: str) -> list:
    return re.findall(r"§(\d+(?:\.\d+)*)", secs)


def problems(text: str, where: str, pages: dict, in_docs: bool = False) -> list:
    """What is wrong with the citations in `text` (a file at `where`): each a line naming the
    citation. `pages` maps a docs page's name to its text; `in_docs` says a bare "x.md" is a page
    of docs/ (true inside docs/, where pages link each other by name)."""
    out = []
    kept = {t for f, t in KEPT if f == where}
    for n, line in enumerate(text.splitlines(), 1):
        if where.startswith("docs/") and Path(where).name in RESTATED and HEADER.match(line):
            continue  # the version statement names the spec on purpose
        for match in OUTSIDE.finditer(line):
            if match.group(0).strip() not in kept:
                out.append(f"{where}:{n}: {match.group(0).strip()!r} points outside the repository")
        for match in CITATION.finditer(line):
            name = match["page"] + ".md"
            if not (match["prefix"] == "docs/" or (in_docs and match["prefix"] is not None) or
                    (in_docs and match["secs"])):
                continue  # not a docs page (README.md is upper case; other .md names are files)
            if name not in pages:
                out.append(f"{where}:{n}: docs/{name}: no such page")
                continue
            if not match["secs"]:
                continue
            sections = page_sections(pages[name])
            numbers = _numbers(match["secs"])
            first, last = numbers[0], numbers[-1]
            if re.search(r"[-–]|to", match["secs"]) and first.isdigit() and last.isdigit():
                numbers = [str(i) for i in range(int(first), int(last) + 1)] + numbers
            for number in dict.fromkeys(numbers):
                if number not in sections:
                    out.append(f"{where}:{n}: docs/{name} §{number}: no such section")
            if match["name"] and not any(match["name"].lower() in h.lower() for h in sections.get(last, [])):
                out.append(f"{where}:{n}: docs/{name} §{last} \"{match['name']}\": no such heading in it")
    return out


def _files() -> list:
    out = []
    for top in SCANNED:
        path = ROOT / top
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in found:
            rel = p.relative_to(ROOT)
            if SKIPPED_DIRS & set(rel.parts) or p.suffix not in SUFFIXES or p == Path(__file__).resolve():
                continue
            out.append(p)
    return out


def _pages() -> dict:
    return {p.name: p.read_text() for p in (ROOT / "docs").glob("*.md")}


def test_every_citation_in_the_repository_resolves_inside_it():
    pages = _pages()
    found = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += problems(text, rel, pages, in_docs=rel.startswith("docs/"))
    assert found == []


def test_the_scan_sees_the_files_that_cite():
    scanned = {p.relative_to(ROOT).as_posix() for p in _files()}
    assert {"kernels/turn.py", "wsim/reference/engine.py", "tests/test_rules_engine.py",
            "docs/choices.md", "README.md", "CHANGELOG.md", "wsim/data/cards.yaml"} <= scanned


@pytest.mark.parametrize("page", sorted(RESTATED))
def test_each_restating_page_names_the_spec_version_it_restates(page):
    text = (ROOT / "docs" / page).read_text()
    header = [m for m in map(HEADER.match, text.splitlines()[:6]) if m]
    assert len(header) == 1, f"docs/{page}: no 'Restates `../shared/spec/...` of DATE (sha256 `...`)' line"
    assert header[0]["spec"] == RESTATED[page]


PAGES = {"rules.md": "# R\n## §2 An age\n## §10 Two players\n### Seats\n",
         "interfaces.md": "# I\n## §0 Errors\n## §2 simulate\n### Distributed runs\n```\n## §7 fenced\n```\n"}


@pytest.mark.parametrize("text", [
    "see docs/rules.md §10", "docs/rules.md §2 and §10", "(docs/rules.md §2; hidden.py)",
    'docs/interfaces.md §2 "Distributed runs"', "docs/rules.md §10 \"Seats\"", "docs/design.md",
    "RULES_VERSION = 6", "the rules.md of a friend", "docs/interfaces.md §0, §2",
])
def test_a_citation_that_resolves_passes(text):
    assert problems(text, "wsim/x.py", {**PAGES, "design.md": ""}) == []


@pytest.mark.parametrize("text, why", [
    ("RULES.md §10", "outside"), ("RULES.md section 10", "outside"), ("INTERFACES §2", "outside"),
    ("where INTERFACES' columns end", "outside"), ("in shared/spec/", "outside"),
    ("N5 of shared/findings/reliability-4.md", "outside"),
    ("DESIGN.md", "outside"), ("docs/rules.md §11", "no such section"),
    ("docs/rules.md §2–§10", "no such section"), ("docs/interfaces.md §7", "no such section"),
    ("docs/rulez.md", "no such page"), ('docs/interfaces.md §2 "Integrity"', "no such heading"),
    ('docs/interfaces.md §0 "Distributed runs"', "no such heading"),
])
def test_a_citation_that_does_not_resolve_is_named(text, why):
    found = problems(text, "wsim/x.py", PAGES)
    assert found and all(why in f for f in found), found


def test_inside_docs_a_linked_page_is_checked_too():
    assert problems("[rules.md](rules.md) §2", "docs/x.md", PAGES, in_docs=True) == []
    found = problems("[rules.md](rules.md) §12", "docs/x.md", PAGES, in_docs=True)
    assert len(found) == 1 and "no such section" in found[0]


def test_the_kept_citation_is_kept_in_its_file_only():
    assert problems("RULES.md section 8", "wsim/data/cards.yaml", PAGES) == []
    assert len(problems("RULES.md section 8", "wsim/data/other.yaml", PAGES)) == 1
