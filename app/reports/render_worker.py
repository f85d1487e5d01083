"""HTML -> PDF, in a process of its own when the server runs under eventlet.

`render_pdf` (app/reports/__init__.py) runs this file as a script and sends it one
JSON object on stdin: {"htmls": [html, tighter html, ...], "font_dir", "max_pages"};
the PDF comes back on stdout. A separate process shares no lock with the event loop
(WeasyPrint in an eventlet worker thread deadlocked two reports rendered at once on
eventlet's green locks) and never holds the loop's interpreter. Without eventlet
(tests, scripts) `render` runs in-process.

Only the standard library, WeasyPrint and fontTools are imported: no app start-up.
"""
from __future__ import annotations

import faulthandler
import json
import os
import sys
import unicodedata
from pathlib import Path

_INVISIBLE = {0xFE0E, 0xFE0F, 0x200D}   # variation selectors and the zero-width joiner of emoji sequences
_covered: dict[str, set[int]] = {}

# The scripts students' names come in, beyond DejaVu's Latin, Greek and Cyrillic: Debian's
# Noto fonts (fonts-noto-core, fonts-noto-cjk), installed by scripts/venv.sh and
# scripts/test --all and named in the reports' font stack (templates/reports/_style.html).
SYSTEM_FONTS = ("/usr/share/fonts/truetype/noto", "/usr/share/fonts/opentype/noto")
NOTO_FILES = ("NotoSans-Regular.ttf", "NotoSansDevanagari-Regular.ttf", "NotoSansThai-Regular.ttf",
              "NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf")
CJK_FILE = "NotoSansCJK-Regular.ttc"
# The CJK collection's cmap takes most of a second to read, which every report process
# would pay: its blocks are declared instead (Han, Hangul, kana, CJK punctuation, full width).
CJK_BLOCKS = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF),
              (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF),
              (0xF900, 0xFAFF), (0xFF00, 0xFFEF))


def _system_font(name: str) -> Path | None:
    return next((Path(d, name) for d in SYSTEM_FONTS if Path(d, name).is_file()), None)


def missing_fonts() -> list[str]:
    """The Noto files the reports' font stack names that this machine lacks (names in
    those scripts would print as their Unicode names in brackets)."""
    return [name for name in (*NOTO_FILES, CJK_FILE) if _system_font(name) is None]


def covered(font_dir: str) -> set[int]:
    """The characters the report fonts draw: the shipped DejaVu and the installed Noto
    fonts, bar the supplementary planes' emoji (the text shaper looks for a colour emoji
    font first and falls back to a system font)."""
    if font_dir not in _covered:
        from fontTools.ttLib import TTFont  # WeasyPrint's own dependency

        known = set(TTFont(str(Path(font_dir) / "DejaVuSans.ttf")).getBestCmap())
        for name in NOTO_FILES:
            path = _system_font(name)
            if path is not None:
                known |= set(TTFont(str(path), lazy=True).getBestCmap())
        if _system_font(CJK_FILE) is not None:
            for lo, hi in CJK_BLOCKS:
                known.update(range(lo, hi + 1))
        _covered[font_dir] = {c for c in known if c < 0x1F000}
    return _covered[font_dir]


# WeasyPrint has no `unicode-bidi: isolate`: a <bdi> (every name in a report) gets the
# Unicode isolates FSI ... PDI instead, which the text shaper honours, so an Arabic or
# Hebrew name reads right to left without pulling the cell's punctuation into its run.
_ISOLATES = {0x2066, 0x2067, 0x2068, 0x2069}


def isolated(html: str) -> str:
    return html.replace("<bdi>", "<bdi>\u2068").replace("</bdi>", "\u2069</bdi>")


def printable(html: str, font_dir: str) -> str:
    """Characters no report font can draw (most emoji) would print as empty boxes: each
    becomes its name in brackets ("[game die]"), so a student called by emoji is still
    recognisable on paper. Names in the scripts the fonts cover print as written."""
    known = covered(font_dir)
    if all(ord(ch) < 0x2000 or ord(ch) in known or ord(ch) in _ISOLATES for ch in html):
        return html
    out = []
    for ch in html:
        code = ord(ch)
        if code < 0x2000 or code in known or code in _ISOLATES:
            out.append(ch)
        elif code not in _INVISIBLE:
            out.append("[" + unicodedata.name(ch, f"U+{code:04X}").lower() + "]")
    return "".join(out)


def local_fetcher(font_dir: str):
    """WeasyPrint's fetcher for the shipped fonts (and data: URLs) only: a report never makes
    the server request anything from the network, whatever an address in its HTML says."""
    fonts = Path(font_dir).resolve().as_uri().rstrip("/") + "/"

    def check(url: str) -> None:
        if not (url.startswith("data:") or (url.startswith(fonts) and ".." not in url)):
            raise ValueError(f"A report loads nothing but its own fonts (refused {url[:80]})")

    try:
        from weasyprint.urls import URLFetcher  # WeasyPrint 68 and later: a class
    except ImportError:  # earlier: a function
        from weasyprint import default_url_fetcher

        def fetch(url: str, *args, **kwargs):
            check(url)
            return default_url_fetcher(url, *args, **kwargs)
        return fetch

    class LocalFetcher(URLFetcher):
        def fetch(self, url, *args, **kwargs):
            check(url)
            return super().fetch(url, *args, **kwargs)
    return LocalFetcher(allowed_protocols={"file", "data"})


def render(htmls: list[str], font_dir: str, max_pages: int = 0) -> bytes:
    """The first HTML as a PDF; while it runs past `max_pages`, the next (tighter) one."""
    from weasyprint import HTML  # slow to import: only when a report is made

    options = {"pdf_variant": "pdf/ua-1"}  # tagged PDF, where the installed WeasyPrint knows the variant
    document = None
    for i, html in enumerate(htmls):
        source = HTML(string=printable(isolated(html), font_dir), url_fetcher=local_fetcher(font_dir))
        try:
            document = source.render(**options)
        except (KeyError, TypeError, ValueError):
            options = {}
            document = source.render()
        if not max_pages or len(document.pages) <= max_pages or i == len(htmls) - 1:
            break
    return document.write_pdf(**options)


def main() -> None:
    # A crash in the native libraries (Pango, HarfBuzz, fontconfig) prints where Python
    # was on stderr, which render_pdf's error message carries.
    faulthandler.enable()
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    pdf = render(job["htmls"], job["font_dir"], int(job.get("max_pages") or 0))
    sys.stdout.buffer.write(pdf)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    # The PDF is out: leave without the interpreter's teardown, whose finalizers free
    # Pango's and fontconfig's objects in no set order and, rarely, crashed the process
    # (SIGSEGV) after a whole PDF had been written, failing a report that was made.
    os._exit(0)


if __name__ == "__main__":
    main()
