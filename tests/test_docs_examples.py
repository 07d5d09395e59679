"""Every Python example of the API and environment pages runs, in page order, in an empty folder,
and prints what its `# -> VALUE` comments say (a block whose first line is `# not run: REASON`
is skipped, and says why)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("docs/api.md", "docs/env.md")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
SHOWN = re.compile(r"# -> (.*?)(?: \(.*\))?$", re.M)  # the printed text, then an optional (remark)


@pytest.mark.slow  # the examples play small runs and analyses (5 s)
@pytest.mark.parametrize("page", PAGES)
def test_the_pages_examples_run_and_print_what_they_say(page, tmp_path, monkeypatch):
    blocks = BLOCK.findall((ROOT / page).read_text())
    assert blocks, f"{page} has no Python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        if block.startswith("# not run:"):
            assert len(block.splitlines()[0]) > len("# not run: ") + 10, "a skipped block says why"
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, page, "exec"), namespace)  # noqa: S102 - the project's own docs
        shown = SHOWN.findall(block)
        assert len(shown) == block.count("print("), f"{page}: every print shows its output: {block}"
        assert printed.getvalue().splitlines() == shown
