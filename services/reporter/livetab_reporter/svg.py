"""Charts written as SVG text: bars and points with error bars on linear axes, every label as text.

The report's figures are few and simple (accuracy with its interval, per model and per slice value), so they
are written directly instead of through a plotting library: the same page in a few milliseconds instead of a
second of drawing and importing, output that is the same bytes for the same figures, and text a browser
can search, scale and read aloud. Three kinds of chart, each on one `Frame` (the plot area with its axes):

- `hbars`: one horizontal bar per label with an error bar (the ranking);
- `grouped_bars`: vertical bars grouped by category, one series (model) per colour, with error bars;
- `lines`: points joined by lines with error bars, over a numeric x axis (accuracy against prompt tokens).

Sizes are in CSS pixels (a 640 x 380 figure is 6.4 x 3.8 inches at 100 dpi). Text widths are estimated from
per-character widths of a sans-serif face, which is all the layout needs: margins wide enough for the labels.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Bar", "Series", "grouped_bars", "hbars", "lines", "nice_ticks", "text_width"]

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
SIZE = 10.0  # font size of tick labels and legend, px
TITLE_SIZE = 12.0
INK, GRID, FRAME = "#222222", "#dddddd", "#444444"
BAR_OPACITY = 0.75

_NARROW = set("iljtfI.,:;|!'()[]{} ")
_WIDE = set("mwMW@%")


def text_width(text: str, size: float = SIZE) -> float:
    """Estimated width of one line of `text` in px at font size `size`."""
    em = 0.0
    for ch in text:
        if ch in _NARROW:
            em += 0.32
        elif ch in _WIDE:
            em += 0.86
        elif ch.isupper() or ch.isdigit():
            em += 0.64
        else:
            em += 0.55
    return em * size


def _q(v: float) -> str:
    """A coordinate: two decimals at most, no trailing zeros."""
    return f"{v:.2f}".rstrip("0").rstrip(".") if not float(v).is_integer() else str(int(v))


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """About `count` round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten)."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return [0.0]
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(count - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)
    first = math.floor(lo / step) * step
    ticks = []
    v = first
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 10))
        v += step
    if ticks[-1] < hi:
        ticks.append(round(v, 10))
    return ticks


def _label(v: float) -> str:
    return f"{v:g}" if abs(v) < 1e6 else f"{v:.3g}"


@dataclass
class Bar:
    """One value with its interval: drawn as a bar (or a point) and an error bar; `n` 0 draws no error bar."""

    value: float
    low: float
    high: float
    n: int = 1


@dataclass
class Series:
    name: str
    colour: str
    points: list[Bar]
    xs: list[float] = field(default_factory=list)  # for `lines`: each point's x


class _Svg:
    def __init__(self, width: float, height: float, title: str) -> None:
        self.width, self.height = width, height
        self.parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_q(width)}" height="{_q(height)}" '
                      f'viewBox="0 0 {_q(width)} {_q(height)}" font-family="{FONT}" font-size="{_q(SIZE)}" '
                      f'role="img" aria-label="{_esc(title)}">', f"<title>{_esc(title)}</title>",
                      f'<rect width="{_q(width)}" height="{_q(height)}" fill="#ffffff"/>']

    def add(self, part: str) -> None:
        self.parts.append(part)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1.0) -> None:
        self.add(f'<line x1="{_q(x1)}" y1="{_q(y1)}" x2="{_q(x2)}" y2="{_q(y2)}" stroke="{stroke}" '
                 f'stroke-width="{_q(width)}"/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float = BAR_OPACITY) -> None:
        self.add(f'<rect x="{_q(x)}" y="{_q(y)}" width="{_q(max(w, 0.0))}" height="{_q(max(h, 0.0))}" '
                 f'fill="{fill}" fill-opacity="{_q(opacity)}"/>')

    def text(self, x: float, y: float, text: str | Sequence[str], *, anchor: str = "middle", size: float = SIZE,
             rotate: float = 0.0) -> None:
        """One label, or several lines of one stacked downwards from `y` (the first line's baseline)."""
        attrs = f'x="{_q(x)}" y="{_q(y)}" text-anchor="{anchor}" fill="{INK}"'
        if size != SIZE:
            attrs += f' font-size="{_q(size)}"'
        if rotate:
            attrs += f' transform="rotate({_q(rotate)} {_q(x)} {_q(y)})"'
        rows = [text] if isinstance(text, str) else list(text)
        if len(rows) == 1:
            self.add(f"<text {attrs}>{_esc(rows[0])}</text>")
            return
        spans = "".join(f'<tspan x="{_q(x)}" dy="{_q(0 if i == 0 else size * 1.2)}">{_esc(r)}</tspan>'
                        for i, r in enumerate(rows))
        self.add(f"<text {attrs}>{spans}</text>")

    def error_bar(self, x1: float, y1: float, x2: float, y2: float, cap: float, stroke: str = INK) -> None:
        """From (x1, y1) to (x2, y2), vertical or horizontal, with caps `cap` px wide at both ends."""
        self.line(x1, y1, x2, y2, stroke, 1.2)
        if x1 == x2:
            for y in (y1, y2):
                self.line(x1 - cap / 2, y, x1 + cap / 2, y, stroke, 1.2)
        else:
            for x in (x1, x2):
                self.line(x, y1 - cap / 2, x, y1 + cap / 2, stroke, 1.2)

    def done(self) -> str:
        return "\n".join([*self.parts, "</svg>"]) + "\n"


@dataclass
class Frame:
    """The plot area of a figure: its pixel box and the data ranges it maps onto it."""

    left: float
    top: float
    right: float
    bottom: float
    x_range: tuple[float, float]
    y_range: tuple[float, float]

    def x(self, v: float) -> float:
        lo, hi = self.x_range
        return self.left + (v - lo) / (hi - lo) * (self.right - self.left)

    def y(self, v: float) -> float:
        lo, hi = self.y_range
        return self.bottom - (v - lo) / (hi - lo) * (self.bottom - self.top)


def _legend(svg: _Svg, frame: Frame, series: Sequence[Series], marker: str) -> None:
    x, y = frame.right + 14, frame.top + 4
    svg.text(x, y + 8, "model", anchor="start", size=8.5)
    for i, s in enumerate(series):
        row = y + 22 + 15 * i
        if marker == "bar":
            svg.rect(x, row - 8, 16, 9, s.colour)
        else:
            svg.line(x, row - 3.5, x + 16, row - 3.5, s.colour, 1.6)
            svg.add(f'<circle cx="{_q(x + 8)}" cy="{_q(row - 3.5)}" r="3.5" fill="{s.colour}"/>')
        svg.text(x + 22, row, s.name, anchor="start", size=8.5)


def _legend_width(series: Sequence[Series]) -> float:
    return 36 + max([text_width("model", 8.5), *(text_width(s.name, 8.5) for s in series)]) if series else 0.0


def _y_axis(svg: _Svg, frame: Frame, ticks: Sequence[float], label: str, grid: bool = True) -> None:
    for t in ticks:
        y = frame.y(t)
        if grid:
            svg.line(frame.left, y, frame.right, y, GRID)
        svg.line(frame.left - 4, y, frame.left, y, FRAME)
        svg.text(frame.left - 7, y + 3.5, f"{t:.1f}", anchor="end")
    if label:
        mid = (frame.top + frame.bottom) / 2
        svg.text(frame.left - 42, mid, label, rotate=-90)  # beside the tick labels ("0.0" .. "1.0")


def _box(svg: _Svg, frame: Frame) -> None:
    svg.add(f'<rect x="{_q(frame.left)}" y="{_q(frame.top)}" width="{_q(frame.right - frame.left)}" '
            f'height="{_q(frame.bottom - frame.top)}" fill="none" stroke="{FRAME}" stroke-width="1"/>')


ACCURACY_TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def hbars(labels: Sequence[str], bars: Sequence[Bar], colours: Sequence[str], *, title: str, xlabel: str,
          width: float = 640.0) -> str:
    """One horizontal bar per label, top to bottom in the given order, on an accuracy axis from 0 to 1.05."""
    height = 26.0 * len(labels) + 96
    left = 16 + max(text_width(lb) for lb in labels)
    frame = Frame(left, 34, width - 24, height - 48, (0.0, 1.05), (0.0, float(len(labels))))
    svg = _Svg(width, height, title)
    for t in ACCURACY_TICKS:
        x = frame.x(t)
        svg.line(x, frame.top, x, frame.bottom, GRID)
        svg.line(x, frame.bottom, x, frame.bottom + 4, FRAME)
        svg.text(x, frame.bottom + 16, f"{t:.1f}")
    row = (frame.bottom - frame.top) / len(labels)
    for i, (label, bar, colour) in enumerate(zip(labels, bars, colours, strict=True)):
        mid = frame.top + row * (i + 0.5)
        svg.rect(frame.left, mid - row * 0.4, frame.x(bar.value) - frame.left, row * 0.8, colour)
        if bar.n:
            svg.error_bar(frame.x(bar.low), mid, frame.x(bar.high), mid, 8)
            svg.add(f'<circle cx="{_q(frame.x(bar.value))}" cy="{_q(mid)}" r="3" fill="{INK}"/>')
        svg.line(frame.left - 4, mid, frame.left, mid, FRAME)
        svg.text(frame.left - 7, mid + 3.5, label, anchor="end")
    _box(svg, frame)
    svg.text((frame.left + frame.right) / 2, height - 14, xlabel)
    svg.text((frame.left + frame.right) / 2, 20, title, size=TITLE_SIZE)
    return svg.done()


def grouped_bars(categories: Sequence[Sequence[str]], series: Sequence[Series], *, title: str, xlabel: str,
                 ylabel: str, rotate: bool = False, width: float = 640.0, height: float = 380.0) -> str:
    """Bars grouped by category (each category's label one or more lines, or one rotated line with `rotate`),
    one bar per series in each group; accuracy axis from 0 to 1.05; the legend to the right."""
    if rotate:
        below = 14 + max(text_width(" ".join(c)) for c in categories) * math.sin(math.radians(30)) + 12
    else:
        below = 14 + 12 * max(len(c) for c in categories)
    legend = _legend_width(series)
    left = 62.0
    if rotate:  # the first slanted label reaches left of its tick by its width's cosine: keep it inside
        span = (width - legend - 20 - left) / len(categories)
        left = max(left, text_width(" ".join(categories[0])) * math.cos(math.radians(30)) - span / 2 + 8)
    frame = Frame(left, 34, width - legend - 20, height - below - 34, (-0.5, len(categories) - 0.5), (0.0, 1.05))
    svg = _Svg(width, height, title)
    _y_axis(svg, frame, ACCURACY_TICKS, ylabel)
    slot = (frame.x(1) - frame.x(0)) * 0.8 / max(len(series), 1)
    for i, s in enumerate(series):
        for j, bar in enumerate(s.points):
            cx = frame.x(j) + (i - (len(series) - 1) / 2) * slot
            svg.rect(cx - slot * 0.45, frame.y(bar.value), slot * 0.9, frame.bottom - frame.y(bar.value), s.colour)
            if bar.n:
                svg.error_bar(cx, frame.y(bar.low), cx, frame.y(bar.high), min(6.0, slot * 0.6))
    for j, cat in enumerate(categories):
        x = frame.x(j)
        svg.line(x, frame.bottom, x, frame.bottom + 4, FRAME)
        if rotate:
            svg.text(x + 3, frame.bottom + 14, " ".join(cat), anchor="end", rotate=-30)
        else:
            svg.text(x, frame.bottom + 15, cat)
    _box(svg, frame)
    svg.text((frame.left + frame.right) / 2, frame.bottom + below + 12, xlabel)
    svg.text((frame.left + frame.right) / 2, 20, title, size=TITLE_SIZE)
    _legend(svg, frame, series, "bar")
    return svg.done()


def lines(series: Sequence[Series], *, title: str, xlabel: str, ylabel: str, width: float = 640.0,
          height: float = 380.0) -> str:
    """Each series' points (`xs`, values) joined by a line, with error bars; numeric x axis with round ticks
    padded around the data; accuracy axis from 0 to 1.05; the legend to the right."""
    xs = [x for s in series for x in s.xs]
    lo, hi = min(xs), max(xs)
    pad = (hi - lo) * 0.05 or max(abs(lo) * 0.05, 1.0)
    ticks = [t for t in nice_ticks(lo - pad, hi + pad) if lo - pad <= t <= hi + pad]
    legend = _legend_width(series)
    frame = Frame(62, 34, width - legend - 20, height - 56, (lo - pad, hi + pad), (0.0, 1.05))
    svg = _Svg(width, height, title)
    _y_axis(svg, frame, ACCURACY_TICKS, ylabel)
    for t in ticks:
        x = frame.x(t)
        svg.line(x, frame.top, x, frame.bottom, GRID)
        svg.line(x, frame.bottom, x, frame.bottom + 4, FRAME)
        svg.text(x, frame.bottom + 16, _label(t))
    for s in series:
        pts = [(frame.x(x), frame.y(b.value)) for x, b in zip(s.xs, s.points, strict=True)]
        if len(pts) > 1:
            path = " ".join(f"{_q(x)},{_q(y)}" for x, y in pts)
            svg.add(f'<polyline points="{path}" fill="none" stroke="{s.colour}" stroke-width="1.6"/>')
        for (px, py), b in zip(pts, s.points, strict=True):
            if b.n:
                svg.error_bar(px, frame.y(b.low), px, frame.y(b.high), 6, s.colour)
            svg.add(f'<circle cx="{_q(px)}" cy="{_q(py)}" r="3.5" fill="{s.colour}"/>')
    _box(svg, frame)
    svg.text((frame.left + frame.right) / 2, height - 14, xlabel)
    svg.text((frame.left + frame.right) / 2, 20, title, size=TITLE_SIZE)
    _legend(svg, frame, series, "line")
    return svg.done()
