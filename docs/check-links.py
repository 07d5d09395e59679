"""Check the relative links of README.md and docs/*.md: every target file exists, and every
#anchor names a heading of its page (GitHub's slugs). Run from the repository root:
python3 docs/check-links.py (exit 1 and one line per broken link)."""

import re
import sys
from pathlib import Path

LINK = re.compile(r"\]\(([^)\s]+)\)")


def slugs(page: Path) -> set:
    out, fenced = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def main() -> int:
    bad = 0
    for page in [Path("README.md"), *sorted(Path("docs").glob("*.md"))]:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            dest = (page.parent / name).resolve() if name else page.resolve()
            if not dest.exists():
                print(f"{page}: {target}: no such file")
                bad += 1
            elif anchor and dest.suffix == ".md" and anchor not in slugs(dest):
                print(f"{page}: {target}: no such heading")
                bad += 1
    linked = set(LINK.findall(Path("README.md").read_text()))
    for doc in sorted(Path("docs").glob("*.md")):
        if not any(t.partition("#")[0] == f"docs/{doc.name}" for t in linked):
            print(f"README.md: does not link {doc}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
