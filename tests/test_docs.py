"""The README, the CHANGELOG and docs/ hold together: every relative link reaches a file (and a
heading of it, by GitHub's slugs), the README links every docs page, and it stays short (the two
commands, a tour, a map and where to read more; the rest lives in docs/); the speed page is a
reference, its dated history in the CHANGELOG."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
README_LINES = 250
SPEED_LINES = 200


def _slugs(page: Path) -> set:
    out, fenced = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def _pages() -> list:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_relative_link_reaches_its_file_and_heading():
    broken = []
    for page in _pages():
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):  # http:, mailto:
                continue
            name, _, anchor = target.partition("#")
            dest = (page.parent / name).resolve() if name else page
            if not dest.exists():
                broken.append(f"{page.name}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in _slugs(dest):
                broken.append(f"{page.name}: {target}: no such heading")
    assert broken == []


def test_the_readme_is_short_and_links_every_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    linked = {t.partition("#")[0] for t in LINK.findall(readme)}
    pages = sorted((ROOT / "docs").glob("*.md"))
    assert len(pages) >= 4
    assert [p.name for p in pages if f"docs/{p.name}" not in linked] == []
    assert readme.startswith("# ") and "make run" in readme.split("\n\n")[1] and "make test" in readme.split("\n\n")[1]


def test_the_speed_page_is_a_reference_and_its_history_is_in_the_changelog():
    speed = (ROOT / "docs" / "speed.md").read_text()
    assert len(speed.splitlines()) <= SPEED_LINES
    assert "](../CHANGELOG.md#history)" in speed
    assert "\n## History\n" in (ROOT / "CHANGELOG.md").read_text()
