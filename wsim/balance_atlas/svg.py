"""The atlas's plots as small inline SVG text, drawn by hand (no matplotlib): a skill curve, one
estimate with its 95% CI per rung of the ladder, against a reference line (the fair share, or 0
for a card's effect). Deterministic: every coordinate is rounded to one decimal, and no number of
a table is drawn as text (the axis ticks are round values), so a page's numbers all stand in its
HTML, where a test checks them against the CSVs."""

from __future__ import annotations

import html
import math

LINE = "#1f4e79"
REFERENCE = "#888"
_STEPS = (0.5, 1, 2, 2.5, 5, 10, 20, 25, 50)  # tick steps, in percentage points


def _c(x: float) -> str:
    """A coordinate as SVG text: one decimal, never `-0.0`."""
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def _finite(*xs) -> bool:
    return all(x is not None and math.isfinite(x) for x in xs)


def _ticks(low: float, high: float, most: int) -> list:
    """Round tick values (percentage points) inside [low, high], at most `most` of them."""
    span = high - low
    step = next((s for s in _STEPS if span / s <= most), _STEPS[-1] * math.ceil(span / (_STEPS[-1] * most)))
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 6) for k in range(first, int(math.floor(high / step + 1e-9)) + 1)]


def curve(labels: list, points: list, reference: float | None, name: str, small: bool = False) -> str:
    """A skill curve: `points[i]` = (value, low, high) of rung `labels[i]` as fractions (None,
    or NaN parts, where the rung has no estimate), a dashed line at `reference` (a fraction).
    `small`: a sparkline for a table cell (no axes, no labels). `name` is the plot's accessible
    title (plain text: escaped here)."""
    width, height = (110, 30) if small else (240, 130)
    left, right, top, bottom = (4, 4, 3, 3) if small else (34, 8, 8, 30)
    values = [v for p in points if p is not None for v in p if v is not None and math.isfinite(v)]
    if reference is not None and math.isfinite(reference):
        values.append(reference)
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 0.02:  # at least two points of range, centred
        middle = (high + low) / 2
        low, high = middle - 0.01, middle + 0.01
    pad = 0.08 * (high - low)
    low, high = low - pad, high + pad
    n = max(len(labels), 1)

    def x(i: int) -> float:
        return left + (width - left - right) * (i + 0.5) / n

    def y(v: float) -> float:
        return top + (height - top - bottom) * (high - v) / (high - low)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" class="curve"><title>{html.escape(name)}</title>']
    if not small:
        for t in _ticks(100 * low, 100 * high, 4):
            yt = _c(y(t / 100))
            out.append(f'<line x1="{left}" x2="{width - right}" y1="{yt}" y2="{yt}" stroke="#eee"/>'
                       f'<text x="{left - 3}" y="{yt}" dy="3" text-anchor="end" font-size="8" fill="#666">{t:g}</text>')
        for i, label in enumerate(labels):
            out.append(f'<text x="{_c(x(i))}" y="{height - bottom + 11}" text-anchor="middle" font-size="8" '
                       f'fill="#444">{html.escape(str(label))}</text>')
    if reference is not None and math.isfinite(reference):
        yr = _c(y(reference))
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yr}" y2="{yr}" stroke="{REFERENCE}" '
                   'stroke-dasharray="3,2"/>')
    path = []
    for i, p in enumerate(points):
        if p is None or not _finite(p[0]):
            continue
        value, lo, hi = p
        if _finite(lo, hi):
            out.append(f'<line x1="{_c(x(i))}" x2="{_c(x(i))}" y1="{_c(y(lo))}" y2="{_c(y(hi))}" stroke="{LINE}" '
                       'stroke-width="1"/>')
        path.append(f"{_c(x(i))},{_c(y(value))}")
    if len(path) > 1:
        out.append(f'<polyline points="{" ".join(path)}" fill="none" stroke="{LINE}" stroke-width="1.5"/>')
    for point in path:
        cx, cy = point.split(",")
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{1.8 if small else 2.6}" fill="{LINE}"/>')
    out.append("</svg>")
    return "".join(out)


def diverging(t: float) -> str:
    """A background colour for `t` in [−1, 1] (clipped): blue below 0 (too weak), white at 0, red
    above (too strong), light enough for dark text; grey for NaN."""
    if t is None or not math.isfinite(t):
        return "#e6e6e6"
    t = max(-1.0, min(1.0, t))
    end = (214, 96, 77) if t > 0 else (67, 147, 195)
    rgb = [round(255 + (e - 255) * abs(t) * 0.85) for e in end]
    return "#" + "".join(f"{c:02x}" for c in rgb)
