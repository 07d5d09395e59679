"""Headless Chromium for the deep render tests (`make chromium` installs the Debian package)."""

import shutil
import subprocess


def browser() -> str:
    """The Chromium binary, or a failed assertion naming how to install it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed: run `make chromium` (Debian package chromium)"
    return found


def run(browser_path: str, profile, *args) -> subprocess.CompletedProcess:
    """One headless Chromium run with a throwaway profile, no network chatter, no scrollbars."""
    return subprocess.run([browser_path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars", *args],
                          check=True, capture_output=True, text=True, timeout=300)
