"""The race chart: a game's series (value per seat over the moves) as inline SVG,
drawn on the server so the PDF needs no script. Lines differ by colour AND dash
pattern and end in the player's name, so a black-and-white print still reads."""
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
             max_points: int = MAX_POINTS) -> Markup | None:
    """None when there is nothing to draw (no points, or every value zero)."""
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
    left, right, upper, lower = 40, 130, 10, 28
    pw, ph = width - left - right, height - upper - lower

    def sx(x):
        return left + (x - x0) / (x1 - x0) * pw

    def sy(y):
        return upper + ph - (y / top) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Report Sans" role="img" aria-label="{escape(series.get("label", "Score"))} over the game">']
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
    out.append(f'<text x="{left}" y="{height - 6}" font-size="8">start</text>')
    out.append(f'<text x="{left + pw}" y="{height - 6}" font-size="8" text-anchor="end">end (move {x1})</text>')
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
    for y, seat, value in ends:  # name labels at the right, pushed apart so they never overlap
        y = max(y + 3, last_y + 10)
        last_y = y
        colour = COLOURS[seat % len(COLOURS)]
        name = names[seat] if len(names[seat]) <= 16 else names[seat][:15] + "…"
        out.append(f'<text x="{left + pw + 6}" y="{y:.1f}" font-size="8" fill="{colour}">{escape(name)} '
                   f'({value})</text>')
    out.append("</svg>")
    return Markup("".join(out))
