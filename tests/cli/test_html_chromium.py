"""`-o html` as people see it: headless Chromium renders the samples' schedule page and the
screenshot must not be blank. Chromium is an optional system component (`apt-get install
chromium` on Debian; `make test` installs it where it can): without it the test skips and says so.

The screenshot is read by the small PNG decoder below (zlib and the five PNG row filters of the
PNG specification, section 9): enough for the 8-bit RGB/RGBA images Chromium writes, and no
imaging library to install."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.conftest import NOW, executable
from tests.cli.test_samples import SAMPLES

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> bytes a pixel at bit depth 8 (RGB, RGBA)


def chromium() -> str:
    found = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
    if found is None:
        pytest.skip("chromium not installed: apt-get install chromium (Debian) to run the HTML rendering test")
    return found


def paeth(left: int, up: int, corner: int) -> int:
    estimate = left + up - corner
    a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
    return left if a <= b and a <= c else up if b <= c else corner


def unfilter(kind: int, line: bytearray, prior: bytearray, bpp: int) -> bytearray:
    """One scanline with its filter undone (PNG spec 9.2: 0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth)."""
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        corner = prior[i - bpp] if i >= bpp else 0
        predictor = (0, left, prior[i], (left + prior[i]) // 2, paeth(left, prior[i], corner))[kind]
        line[i] = (line[i] + predictor) & 0xFF
    return line


def decode_png(data: bytes) -> list[bytes]:
    """The image's rows of pixels (each pixel `bpp` bytes)."""
    assert data.startswith(SIGNATURE), "not a PNG"
    pos, chunks, header = len(SIGNATURE), [], b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        if kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in CHANNELS and interlace == 0, (depth, colour, interlace)
    bpp, raw = CHANNELS[colour], zlib.decompress(b"".join(chunks))
    stride, prior, rows = width * bpp, bytearray(width * bpp), []
    for y in range(height):
        start = y * (stride + 1)
        prior = unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), prior, bpp)
        rows.append(bytes(prior))
    return [bytes(row[x:x + 3]) for row in rows for x in range(0, stride, bpp)]


def test_the_samples_page_renders_in_headless_chromium_and_is_not_blank(tmp_path: Path):
    """A blank page is one colour (white); the samples' page has text, table borders and the heat
    map's cells from green to red, so the screenshot has many colours and no single one fills it."""
    browser = chromium()
    page = tmp_path / "page.html"
    with page.open("wb") as out:
        run = subprocess.run([executable("kwhatif"), "schedule", "-c", str(SAMPLES / "cluster.yaml"), "--now", NOW,
                              "-q", "-o", "html"], stdout=out, timeout=120)
    assert run.returncode == 1  # samples: some pods stay pending
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    colours = Counter(decode_png(shot.read_bytes()))
    assert sum(colours.values()) == 1200 * 900
    assert len(colours) > 50, f"{len(colours)} colours: the page looks blank"
    assert colours.most_common(1)[0][1] < 0.95 * 1200 * 900, "one colour fills the page"
    assert any(r > 200 and g < 120 and b < 120 for r, g, b in colours), "no red heat cell (gpu-b1 is full)"
