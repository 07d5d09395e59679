"""`make verify`: the balance report rendered by a real browser (headless Chromium, installed by
`make chromium`) is not blank: text and every plot draw."""

import shutil
import subprocess

import pytest
from matplotlib import image

from clikit import run_cli

pytestmark = pytest.mark.deep


def test_the_report_renders_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "headless Chromium is needed: run `make chromium` (Debian package chromium)"
    out = tmp_path / "report"
    result = run_cli("ablate", "--edit", "Altar.points=+12", "--games", "2000", "--players", "4", "--seed", "8",
                     "--threads", "1", "--out", str(out))
    assert result.exit_code == 0, result.output
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,3000", (out / "index.html").as_uri()],
                   check=True, capture_output=True, timeout=120)
    pixels = image.imread(shot)[..., :3]
    ink = (pixels.mean(axis=2) < 0.6).mean()  # share of dark pixels: text, axes, markers
    blue = ((pixels[..., 2] - pixels[..., 0]) > 0.25).mean()  # the plots' markers and bars
    assert pixels.shape[0] >= 2000 and ink > 0.01 and blue > 0.0005, (ink, blue)
    # the page's lower half holds plots too (the card effects), not only the top
    lower = pixels[pixels.shape[0] // 2:]
    assert (lower.mean(axis=2) < 0.6).mean() > 0.005
