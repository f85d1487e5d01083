"""Report timings: a 1,000-event debrief (aim: under 3 s) and a 100-table playtest
report (aim: under 15 s), each next to WeasyPrint rendering a plain HTML page of the
same length (the same number of pages of plain paragraphs) in the same run.

    .venv/bin/python bench/reports.py [game] [tables]
    .venv/bin/python bench/reports.py war 100

Games are seeded through the table service on a temporary SQLite database (computer
logic in every seat, tests/report_seed.py), so seeding time is not counted. Runs in the
environment `bash scripts/run` creates (no test extras needed)."""
from __future__ import annotations

import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from report_seed import play  # noqa: E402

from app import create_app  # noqa: E402
from app.extensions import services  # noqa: E402


def make_app(tmp_path: Path):
    """The test suite's settings (tests/conftest.py) without importing pytest: computer
    players move at once and the socket budget is out of the way."""
    return create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'bench.db'}", "TESTING": True,
                       "SECRET_KEY": "bench-secret", "BOT_DELAY_SCALE": 0.0, "PUBLIC_URL": "http://class.example:5000",
                       "SOCKET_RATE": 100000.0, "SOCKET_BURST": 100000.0})


def plain_pdf_seconds(pages: int) -> float:
    """WeasyPrint on plain paragraphs filling the same number of A4 pages."""
    from weasyprint import HTML
    para = "<p>" + "A plain sentence of a plain page, about as long as a line of a report. " * 6 + "</p>"
    html = "<html><body style='font-family: DejaVu Sans; font-size: 9pt'>" + para * 9 * pages + "</body></html>"
    began = time.perf_counter()
    HTML(string=html).write_pdf()
    return time.perf_counter() - began


def count_pages(pdf: bytes) -> int:
    import pypdf
    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def needs() -> str | None:
    """What the environment `bash scripts/run` made lacks for this bench, as the command to get it."""
    try:
        import pypdf  # noqa: F401 - a test extra: the page counts
    except ImportError:
        return ("bench/reports.py counts pages with pypdf, one of the test extras. Install it with\n"
                "    .venv/bin/python -m pip install 'pypdf>=4'\n"
                "or run `bash scripts/test` once (it installs the test extras into the same .venv).")
    return None


def main() -> None:
    missing = needs()
    if missing:
        print(missing, file=sys.stderr)
        raise SystemExit(2)
    game = sys.argv[1] if len(sys.argv) > 1 else "war"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    tmp = Path(tempfile.mkdtemp())
    app = make_app(tmp)
    tables = services(app).tables
    fac = services(app).accounts.add("bench", "bench-password-1")
    names = {"war": ["Ana", "Ben", "Cara"], "water_cycle": ["Ana", "Ben", "Cara", "Dev"],
             "storm_war": ["Ana", "Ben", "Cara"], "wizard": ["Ana", "Ben"]}.get(game, ["Ana", "Ben"])
    try:
        from app.reports import debrief_pdf
        from app.reports.playtest import playtest_pdf
        from datetime import date
        big = None
        for seed in range(20):   # a game of at least 1,000 events (capped there)
            code = play(tables, fac.id, game, names, seed=seed, moves=4000, until=1000,
                        notes=(("Ana", "A note."), ("Facilitator bench", "A teacher's note.")))
            if tables.get(code).version >= 1000:
                big = code
                break
        assert big, "no seeded game reached 1,000 events"
        for seed in range(count - 1):
            play(tables, fac.id, game, names, seed=100 + seed, moves=300)
        with app.test_request_context():
            debrief_pdf(tables, big)  # warm up: fonts, imports
            began = time.perf_counter()
            pdf = debrief_pdf(tables, big)
            debrief_s = time.perf_counter() - began
            n = count_pages(pdf)
            plain = plain_pdf_seconds(n)
            print(f"debrief of a {tables.get(big).version}-event {game} game: {debrief_s:.2f} s, {n} pages "
                  f"(aim < 3 s); plain WeasyPrint page(s) of the same length: {plain:.2f} s "
                  f"(ratio {debrief_s / plain:.1f}x)")
            # The eventlet server renders in a worker process (app/reports/render_worker.py): time that path.
            import json
            import subprocess
            from app.reports import MAX_PAGES, debrief_html, game_section, render_worker, table_data
            began = time.perf_counter()
            data = table_data(tables, big)
            section = game_section(game, data)
            htmls = [debrief_html(tables, big, data=data, section=section, compact=level) for level in (0, 1, 2)]
            job = json.dumps({"htmls": htmls, "font_dir": str(ROOT / "static" / "fonts"), "max_pages": MAX_PAGES})
            subprocess.run([sys.executable, render_worker.__file__], input=job.encode(), capture_output=True,
                           check=True)
            print(f"  the same through the server's worker process (start-up included): "
                  f"{time.perf_counter() - began:.2f} s")
            today = date.today()
            began = time.perf_counter()
            pdf = playtest_pdf(tables, services(app).db, fac.id, game, today, today)
            playtest_s = time.perf_counter() - began
            n = count_pages(pdf)
            plain = plain_pdf_seconds(n)
            print(f"playtest report of {count} {game} tables: {playtest_s:.2f} s, {n} pages (aim < 15 s); "
                  f"plain WeasyPrint pages of the same length: {plain:.2f} s (ratio {playtest_s / plain:.1f}x)")
    finally:
        services(app).notifier.scheduler.stop()
        services(app).db.dispose()


if __name__ == "__main__":
    main()
