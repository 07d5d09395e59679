"""`make verify`: the full atlas (the default options, every count 2–7) built and timed against its
budget, then rendered by a real browser (headless Chromium, `make chromium`): the findings'
sentences are on the index, each page of each kind draws its plots, and the screenshots are kept
in results/verify/atlas-shots/ (docs/atlas.md shows them: `python tests/test_atlas_deep.py SITE
docs/atlas` makes them again from any site)."""

import html
import json
import re
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import chromium

pytestmark = pytest.mark.deep

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "results" / "verify" / "atlas"
SHOTS = ROOT / "results" / "verify" / "atlas-shots"
BUDGET_SECONDS = 60 * 60  # docs/atlas.md "Budget": the default atlas on the 2-core machine
WIDTH, MAX_HEIGHT = 1280, 2400  # a screenshot shows a page's top: its first lines and first plots
# Run by a copy of each page: where each plot is and how tall the page is.
PROBE = """<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; };
document.body.dataset.probe = JSON.stringify({svgs: [...document.querySelectorAll("svg")].map(box),
  height: document.documentElement.scrollHeight});
</script>"""


def shown_pages(site: Path) -> dict:
    """One page of each kind: {short name: page file}."""
    from wsim.balance_atlas.cells import card_page, players_page, side_page

    findings = pd.read_csv(site / "tables" / "findings.csv")
    cards = pd.read_csv(site / "tables" / "cards.csv")
    card_links = [link for link, kind in zip(findings.link, findings.kind) if kind == "card"]
    players = 4 if (site / players_page(4)).exists() else int(cards.players.iloc[0])
    return {"index": "index.html", "players": players_page(players), "side": side_page("babylon", "B"),
            "card": card_links[0] if card_links else card_page(cards.card.iloc[0])}


def render(site: Path, shots: Path, profile: Path) -> dict:
    """Each shown page rendered: its DOM and a screenshot of its top (shots/NAME.png); checks that
    the plots in view drew something and that the page has text. Returns {name: DOM}."""
    from matplotlib import image

    browser = chromium.browser()
    shots.mkdir(parents=True, exist_ok=True)
    doms = {}
    for name, page in shown_pages(site).items():
        probed = site / f".probe-{page}"
        probed.write_text((site / page).read_text().replace("</body>", PROBE + "</body>"))
        try:
            dom = chromium.run(browser, profile, f"--window-size={WIDTH},1000", "--dump-dom", probed.as_uri()).stdout
            probe = json.loads(html.unescape(re.search(r'data-probe="([^"]*)"', dom).group(1)))
            height = min(probe["height"], MAX_HEIGHT)
            shot = shots / f"{name}.png"
            chromium.run(browser, profile, f"--window-size={WIDTH},{height}", f"--screenshot={shot}", probed.as_uri())
        finally:
            probed.unlink()
        pixels = image.imread(shot)[..., :3]
        assert pixels.shape[0] >= height - 1 and (pixels.mean(axis=2) < 0.6).mean() > 0.005, name
        if name == "index":  # its plot is the grid: cells coloured red (too strong) and blue (too weak)
            assert (abs(pixels[..., 0] - pixels[..., 2]) > 0.2).mean() > 0.001
            doms[name] = dom
            continue
        in_view = [b for b in probe["svgs"] if b[1] + b[3] <= height and b[2] > 20 and b[3] > 20]
        assert in_view, f"{name}: no plot in the screenshot"
        for left, top, width, h in in_view[:12]:  # each plot draws its marks (not all white)
            area = pixels[int(top):int(top + h), int(left):int(left + width)]
            assert area.size and (area.mean(axis=2) < 0.8).mean() > 0.005, (name, left, top, width, h)
        doms[name] = dom
    return doms


def test_the_full_atlas_builds_within_its_budget_and_renders(tmp_path, record_property):
    from clikit import run_cli

    resumed = (SITE / "data").is_dir()
    started = time.monotonic()
    result = run_cli("atlas", *(("--resume",) if resumed else ()), "--threads", "2", "--out", str(SITE))
    seconds = time.monotonic() - started
    assert result.exit_code == 0, result.output
    record_property("atlas_seconds", round(seconds))
    (SITE.parent / "atlas-time.json").write_text(json.dumps(
        {"seconds": round(seconds), "budget_seconds": BUDGET_SECONDS, "resumed": resumed,
         "within_budget": seconds <= BUDGET_SECONDS}))
    print(f"the atlas took {seconds:.0f} s (budget {BUDGET_SECONDS} s{'; resumed' if resumed else ''})")

    doms = render(SITE, SHOTS, tmp_path / "profile")
    findings = pd.read_csv(SITE / "tables" / "findings.csv")
    for sentence in findings.sentence:  # the index's first lines are the findings
        assert html.escape(sentence, quote=False) in doms["index"] or html.escape(sentence) in doms["index"]
    assert re.search(r"\b(act|not yet|don't act)\b", doms["players"])
    assert doms["side"].count("<svg") >= 6 and doms["card"].count("<svg") >= 6  # a plot per count


if __name__ == "__main__":  # python tests/test_atlas_deep.py SITE OUT: the screenshots of a built site
    sys.path.insert(0, str(ROOT / "tests"))
    import tempfile

    with tempfile.TemporaryDirectory() as profile:
        render(Path(sys.argv[1]).resolve(), Path(sys.argv[2]), Path(profile))
