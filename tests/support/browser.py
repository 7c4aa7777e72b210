"""Look at a page as a person would: headless Chromium (Debian's, installed by deploy/chromium.sh) takes a
screenshot, and a second load of the same page with a probe script reports what the browser laid out."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PROBE = """<script>window.addEventListener('load', () => {
  const imgs = [...document.images].map(i => [i.alt, i.naturalWidth, i.naturalHeight, i.getBoundingClientRect().width]);
  const figs = [...document.querySelectorAll('figure > svg')].map(s => [s.getAttribute('aria-label'),
    s.viewBox.baseVal.width, s.viewBox.baseVal.height, s.getBoundingClientRect().width,
    [...s.querySelectorAll('text')].filter(t => t.getBBox().width > 0).length]);
  const pre = document.createElement('pre'); pre.id = 'probe';
  pre.textContent = JSON.stringify({imgs, figs, h2: [...document.querySelectorAll('h2')].map(h => h.textContent),
    slices: [...document.querySelectorAll('table.slice')].map(t => t.dataset.slice)});
  document.body.appendChild(pre);
});</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.fail("no chromium on PATH: `make test` installs it (deploy/chromium.sh)")


def look_at(page: Path, shot: Path, *, height: int = 2600) -> tuple[dict[str, Any], str]:
    """Screenshot `page` into `shot`; return what the browser laid out (images with their natural and shown
    sizes; figures, each an inline SVG: its label, drawn size, shown width and how many of its texts have a
    width on the page; h2 headings; slice tables) and the page's DOM as the browser built it."""
    flags = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--virtual-time-budget=5000"]
    shot.parent.mkdir(parents=True, exist_ok=True)
    shot.unlink(missing_ok=True)
    subprocess.run([*flags, f"--screenshot={shot}", f"--window-size=1280,{height}", page.as_uri()], check=True,
                   capture_output=True, timeout=120)
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        dom = subprocess.run([*flags, "--dump-dom", probe.as_uri()], check=True, capture_output=True, text=True,
                             timeout=120).stdout
    finally:
        probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found is not None, "the probe script did not run"
    return json.loads(html.unescape(found.group(1))), dom
