"""Headless Chromium for the tests that open an HTML page: one set of flags, a fresh profile per
call, the DOM after the page ran (`--dump-dom`) or a screenshot, and a pixel count per colour."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.processes import HANG_SECONDS

CHROMIUM = shutil.which("chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def chromium(page: Path, profile: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """Open `page` once with a fresh `profile` folder and `options` (e.g. --dump-dom)."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *options, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        check=False,
    )


def screenshot(page: Path, folder: Path, size: str = "1000,700", *options: str) -> Path:
    """A PNG of `page` as Chromium draws it, in `folder`."""
    shot = folder / (page.stem + ".png")
    done = chromium(page, folder / "profile", f"--screenshot={shot}", f"--window-size={size}", *options)
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    return shot


def colour_pixels(png: Path, colour: str, tolerance: int = 40) -> int:
    """How many pixels of a screenshot are close to `colour` (#rrggbb)."""
    from PIL import Image

    wanted = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    with Image.open(png) as image:
        rgb = image.convert("RGB")
        counts = rgb.getcolors(rgb.width * rgb.height) or []
    return sum(n for n, p in counts if all(abs(a - b) <= tolerance for a, b in zip(p, wanted, strict=True)))
