"""The race chart: a game's series (value per seat over the moves) as inline SVG,
drawn on the server so the PDF needs no script. Lines differ by colour AND dash
pattern, and a legend below names each line with a sample of it, so a black-and-white
print still reads. The names are in the HTML legend, not in the SVG: there they wrap
instead of being cut, and an Arabic or Hebrew name is laid out right to left by the
page's text engine (isolated with <bdi>). The figure carries its alternative text."""
from __future__ import annotations

from markupsafe import Markup, escape

COLOURS = ("#1f4e9c", "#c0392b", "#1e8449", "#8e44ad", "#b9770e", "#117a8b", "#5d6d7e", "#a93226")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 4", "1 2", "10 4", "3 6")
MAX_POINTS = 400


def _thin(points: list, most: int = MAX_POINTS) -> list:
    if len(points) <= most:
        return points
    step = len(points) / most
    kept = [points[int(i * step)] for i in range(most)]
    return kept + [points[-1]]


def race_svg(series: dict | None, names: list[str], *, width: int = 640, height: int = 220,
             max_points: int = MAX_POINTS, span: tuple[str, str] = ("start", "end")) -> Markup | None:
    """None when there is nothing to draw (no points, or every value zero). `span` labels
    the time axis's ends (the teacher's clock times; never the log's move numbers)."""
    if not isinstance(series, dict):
        return None
    n = len(names)
    points = [(x, vals) for x, vals in (series.get("points") or [])
              if isinstance(x, (int, float)) and isinstance(vals, list) and len(vals) == n]
    if not points or n == 0:
        return None
    points = _thin(points, max_points)
    values = [v for _, vals in points for v in vals if isinstance(v, (int, float))]
    top = max(values, default=0)
    if top <= 0:
        return None
    x0, x1 = points[0][0], max(points[-1][0], points[0][0] + 1)
    left, right, upper, lower = 40, 40, 10, 28
    pw, ph = width - left - right, height - upper - lower

    def sx(x):
        return left + (x - x0) / (x1 - x0) * pw

    def sy(y):
        return upper + ph - (y / top) * ph

    label = str(series.get("label", "Score"))
    finals = [points[-1][1][seat] for seat in range(n)]
    alt = f"{label} over the game; at the end: " + ", ".join(f"{names[seat]} {finals[seat]}" for seat in range(n))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Report Sans" role="img" aria-label="{escape(alt)}">'
           f'<title>{escape(alt)}</title>']
    out.append(f'<rect x="{left}" y="{upper}" width="{pw}" height="{ph}" fill="none" stroke="#999" stroke-width="0.6"/>')
    if top == int(top) and top <= 8:
        ticks = list(range(int(top) + 1))              # small counts: every whole number
    else:
        step = max(1, round(top / 4)) if top >= 4 else top / 4
        ticks = [i * step for i in range(5) if i * step <= top * 1.001]
    for value in ticks:
        y = sy(value)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd" stroke-width="0.5"/>')
        label = f"{value:.0f}" if value == int(value) else f"{value:.1f}"
        out.append(f'<text x="{left - 4}" y="{y + 3:.1f}" font-size="8" text-anchor="end">{label}</text>')
    out.append(f'<text x="{left}" y="{height - 6}" font-size="8">{escape(span[0])}</text>')
    out.append(f'<text x="{left + pw}" y="{height - 6}" font-size="8" text-anchor="end">{escape(span[1])}</text>')
    ends = []
    for seat in range(n):
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        coords, prev = [], None
        for x, vals in points:
            v = vals[seat] if isinstance(vals[seat], (int, float)) else 0
            if prev is not None:  # a step chart: a score holds until the next change
                coords.append(f"{sx(x):.1f},{sy(prev):.1f}")
            coords.append(f"{sx(x):.1f},{sy(v):.1f}")
            prev = v
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{" ".join(coords)}" fill="none" stroke="{colour}" stroke-width="1.6"'
                   f'{dash_attr}/>')
        ends.append([sy(prev or 0), seat, prev])
    ends.sort()
    last_y = -100.0
    for y, seat, value in ends:  # each line's last value at the right, pushed apart so none overlap
        y = max(y + 3, last_y + 10)
        last_y = y
        colour = COLOURS[seat % len(COLOURS)]
        out.append(f'<text x="{left + pw + 6}" y="{y:.1f}" font-size="8" fill="{colour}">{escape(value)}</text>')
    out.append("</svg>")
    legend = ['<ul class="legend">']
    for seat in range(n):
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        # WeasyPrint tags every <svg> as a PDF Figure, whose alternative text is its <title>.
        legend.append(f'<li><svg xmlns="http://www.w3.org/2000/svg" width="24" height="8">'
                      f'<title>{escape(names[seat])}: {"solid" if not dash else "dashed"} line</title>'
                      f'<line x1="0" y1="4" x2="24" y2="4" stroke="{colour}" stroke-width="1.6"{dash_attr}/></svg> '
                      f'<bdi>{escape(names[seat])}</bdi> ({escape(finals[seat])})</li>')
    legend.append("</ul>")
    return Markup("".join(out) + "".join(legend))
