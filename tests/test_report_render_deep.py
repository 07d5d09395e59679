"""`make verify`: the balance report rendered by a real browser (headless Chromium, installed by
`make chromium`): the verdict sentences are in the page, a click on a heading sorts its table,
a row's hover target takes the pointer, and every plot draws where the page lays it out."""

import json
import re

import pytest
from matplotlib import image

import chromium
from clikit import run_cli

pytestmark = pytest.mark.deep

WIDTH = 1200
# Run by the test's copy of the page after the page's own script: click the wonders table's
# "seats" heading (largest first), then write down where each plot is, the page's height, and
# whether the middle of the first wonder side's hover target is that target (it takes the pointer).
PROBE = """<script>
const wonders = [...document.querySelectorAll("h2")].find(h => h.textContent === "Wonders");
let table = wonders.nextElementSibling;
while (table.tagName !== "TABLE") table = table.nextElementSibling;
[...table.querySelectorAll("th")].find(th => th.textContent === "seats").click();
const box = e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; };
const hover = [...document.querySelectorAll("svg g.hover")].find(g => g.textContent.includes("win rate"));
hover.scrollIntoView({block: "center"});
const r = hover.getBoundingClientRect(), hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
document.body.dataset.probe = JSON.stringify({svgs: [...document.querySelectorAll("svg")].map(box),
  height: document.documentElement.scrollHeight, hover: !!(hit && hit.closest("g.hover")),
  hoverText: hover.querySelector("title").textContent});
scrollTo(0, 0);
</script>"""


def test_the_report_renders_in_headless_chromium(tmp_path):
    browser = chromium.browser()
    out = tmp_path / "report"
    result = run_cli("ablate", "--edit", "Altar.points=+12", "--games", "2000", "--players", "4", "--seed", "8",
                     "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    probed = tmp_path / "probed.html"
    probed.write_text((out / "index.html").read_text().replace("</body>", PROBE + "</body>"))
    dom = chromium.run(browser, tmp_path / "profile", f"--window-size={WIDTH},1000", "--dump-dom", probed.as_uri()).stdout
    probe = json.loads(re.search(r'data-probe="([^"]*)"', dom).group(1).replace("&quot;", '"'))

    # the answer comes first: a verdict sentence per wonder side, with its size in VP
    verdicts = dom[dom.index("<h2>Verdicts</h2>"):dom.index("<h3>Cards</h3>")]
    assert len(re.findall(r"<li>.*? \(4 players\) is .*? points of win share .*? VP \[.*?</li>", verdicts)) == 14
    assert dom.index("<h2>Verdicts</h2>") < dom.index("<h2>Paired comparison</h2>") < dom.index("<h2>Wonders</h2>")
    # the click sorted the wonders table by seats, largest first (it is laid out farthest from fair first)
    table = dom[dom.index("<h2>Wonders</h2>"):]
    table = table[table.index("<table"):table.index("</table>")]
    seats = [int(v) for v in re.findall(r'<tr><td>[^<]*</td><td>[^<]*</td><td data-v="(\d+)">', table)]
    assert len(seats) == 14 and seats == sorted(seats, reverse=True)
    assert 'data-order="down">seats</th>' in table
    # a plot row's invisible hover target takes the pointer, and holds the row's numbers
    assert probe["hover"] and " VP [" in probe["hoverText"], probe

    shot = tmp_path / "shot.png"
    chromium.run(browser, tmp_path / "profile", f"--window-size={WIDTH},{probe['height']}", f"--screenshot={shot}",
              probed.as_uri())
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[0] >= probe["height"] - 1 and (pixels.mean(axis=2) < 0.6).mean() > 0.01
    assert len(probe["svgs"]) == 5
    for left, top, width, height in probe["svgs"]:  # each plot draws its markers (blue) and text (dark)
        area = pixels[int(top):int(top + height), int(left):int(left + width)]
        assert area.size and ((area[..., 2] - area[..., 0]) > 0.25).mean() > 0.001, (left, top, width, height)
        assert (area.mean(axis=2) < 0.6).mean() > 0.005
