"""Tiny, dependency-free SVG plots that follow the site's light/dark palette.

The SVG carries CSS classes (``fig-series-1``, ``fig-axis``...) instead of colours; the site's
``docs/stylesheets/figures.css`` maps them to Material's palette variables, so one committed file
renders correctly in both palettes. Output is deterministic (fixed number formatting, no
timestamps) so tests can compare a regenerated figure with the committed one.

Every plot comes in two widths. The wide one (640 units) is what a desk shows; ``narrow=True`` draws
the same data 348 units wide, which a phone's column (358 CSS px at a 390 px viewport) shows a
little larger than its own size, so the 11-unit labels stay at least 11 CSS px. A figure that
includes both shows the narrow one on phones (``fig-svg--narrow``, figures.css) and the wide one
elsewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

_MAX_SERIES = 4


@dataclass(frozen=True)
class _Geometry:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    title_chars: int  # a title longer than this wraps (13-unit bold text)
    x_ticks: int  # about how many ticks a linear axis gets


_WIDE = _Geometry(640, 380, 72, 20, 40, 70, 90, 5)
_NARROW = _Geometry(348, 320, 52, 12, 40, 84, 42, 4)


@dataclass(frozen=True)
class Series:
    name: str
    xs: list[float]
    ys: list[float]


def _fmt(v: float) -> str:
    """Axis-tick label: short, exact for powers of ten and small integers."""
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-2:
        exp = math.floor(math.log10(abs(v)))
        mant = v / 10**exp
        return f"1e{exp}" if math.isclose(mant, 1.0) else f"{mant:.3g}e{exp}"
    text = f"{v:.3g}"
    return f"{v:.0f}" if "e" in text else text  # 1000, not 1e+03


def _num(v: float) -> str:
    return f"{v:.1f}"


def _ticks(lo: float, hi: float, log: bool, count: int = 5) -> list[float]:
    if log:
        return [10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    if hi == lo:
        hi = lo + 1
    raw = (hi - lo) / count
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * step:
            step *= m
            break
    start = math.floor(lo / step) * step
    out, t = [], start
    while t <= hi + step * 1e-9:
        out.append(round(t, 12))
        t += step
    if out[-1] < hi:
        out.append(round(out[-1] + step, 12))
    return out


class _Axis:
    def __init__(self, lo: float, hi: float, log: bool, p0: float, p1: float, count: int = 5):
        if log and lo <= 0:
            raise ValueError("log axis needs positive values")
        self.log = log
        self.ticks = _ticks(lo, hi, log, count)
        self.lo, self.hi = self.ticks[0], self.ticks[-1]
        self.p0, self.p1 = p0, p1

    def __call__(self, v: float) -> float:
        if self.log:
            a, b, v = math.log10(self.lo), math.log10(self.hi), math.log10(v)
        else:
            a, b = self.lo, self.hi
        return self.p0 + (v - a) / (b - a) * (self.p1 - self.p0)


def _title_lines(title: str, g: _Geometry) -> list[str]:
    """The title on one line, or word-wrapped on a narrow plot."""
    if g is _WIDE or len(title) <= g.title_chars:
        return [title]
    lines: list[str] = []
    for word in title.split():
        if lines and len(lines[-1]) + 1 + len(word) <= g.title_chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _frame(fig_id: str, title: str, desc: str, body: list[str], g: _Geometry, height: int) -> str:
    narrow = g is _NARROW
    head = (
        f'<svg class="fig-svg fig-plot{" fig-svg--narrow" if narrow else ""}" '
        f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {g.width} {height}" '
        f'role="img" aria-labelledby="{fig_id}-title {fig_id}-desc">'
    )
    heading = [
        f'<text class="fig-text" x="{g.width / 2:.0f}" y="{22 + 17 * i}" text-anchor="middle" '
        f'font-weight="bold">{escape(line)}</text>'
        for i, line in enumerate(_title_lines(title, g))
    ]
    lines = [
        head,
        f'<title id="{fig_id}-title">{escape(title)}</title>',
        f'<desc id="{fig_id}-desc">{escape(desc)}</desc>',
        *heading,
        *body,
        "</svg>",
    ]
    return "\n".join(lines) + "\n"


def _layout(title: str, g: _Geometry) -> tuple[int, int]:
    """(top of the plot area, height of the drawing): a wrapped title pushes the plot down."""
    extra = 17 * (len(_title_lines(title, g)) - 1)
    return g.top + extra, g.height + extra


def _axes(xa: _Axis | None, ya: _Axis, x_label: str, y_label: str, g: _Geometry, top: int,
          height: int) -> list[str]:
    out = []
    x0, x1, y0, y1 = g.left, g.width - g.right, height - g.bottom, top
    for t in ya.ticks:
        y = _num(ya(t))
        out.append(f'<line class="fig-grid" x1="{x0}" y1="{y}" x2="{x1}" y2="{y}"/>')
        out.append(
            f'<text class="fig-text-small" x="{x0 - 6}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{_fmt(t)}</text>'
        )
    if xa is not None:
        for t in xa.ticks:
            x = _num(xa(t))
            out.append(f'<line class="fig-grid" x1="{x}" y1="{y0}" x2="{x}" y2="{y1}"/>')
            out.append(
                f'<text class="fig-text-small" x="{x}" y="{y0 + 16}" text-anchor="middle">'
                f"{_fmt(t)}</text>"
            )
    out.append(f'<line class="fig-axis" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}"/>')
    out.append(f'<line class="fig-axis" x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}"/>')
    label_y = height - 34 if g is _WIDE else y0 + 36
    out.append(
        f'<text class="fig-text" x="{(x0 + x1) / 2:.0f}" y="{label_y}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    cy = (y0 + y1) / 2
    out.append(
        f'<text class="fig-text" x="16" y="{cy:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {cy:.0f})">{escape(y_label)}</text>'
    )
    return out


def _legend(names: list[str], kind: str, g: _Geometry, height: int) -> list[str]:
    """One row of entries on a wide plot; on a narrow one, as many rows as the entries need."""
    widths = [34 + 7 * len(name) for name in names]
    rows: list[list[int]] = [[]]
    x = g.left
    for i, w in enumerate(widths):
        if g is _NARROW and rows[-1] and x + w - 10 > g.width - g.right:
            rows.append([])
            x = g.left
        rows[-1].append(i)
        x += w
    out = []
    for r, row in enumerate(rows):
        x, y = g.left, height - 12 - 18 * (len(rows) - 1 - r)
        for i in row:
            n = i + 1
            if kind == "line":
                out.append(
                    f'<line class="fig-series-{n}" x1="{x}" y1="{y - 4}" x2="{x + 18}" y2="{y - 4}"/>'
                )
            else:
                out.append(f'<rect class="fig-fill-{n}" x="{x}" y="{y - 10}" width="14" height="10"/>')
            out.append(f'<text class="fig-text-small" x="{x + 24}" y="{y}">{escape(names[i])}</text>')
            x += widths[i]
    return out


def _check(series: list[Series]) -> None:
    if not 1 <= len(series) <= _MAX_SERIES:
        raise ValueError(f"between 1 and {_MAX_SERIES} series are supported, got {len(series)}")


def line_plot(
    series: list[Series],
    *,
    fig_id: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    narrow: bool = False,
) -> str:
    """A line plot with markers, one class per series (``narrow``: the phone's drawing, ids
    suffixed ``-narrow``)."""
    _check(series)
    g = _NARROW if narrow else _WIDE
    fig_id = f"{fig_id}-narrow" if narrow else fig_id
    top, height = _layout(title, g)
    xs = [x for s in series for x in s.xs]
    ys = [y for s in series for y in s.ys]
    xa = _Axis(min(xs), max(xs), log_x, g.left, g.width - g.right, g.x_ticks)
    ya = _Axis(0 if not log_y and min(ys) >= 0 else min(ys), max(ys), log_y, height - g.bottom, top)
    body = _axes(xa, ya, x_label, y_label, g, top, height)
    for i, s in enumerate(series, start=1):
        pts = " ".join(f"{_num(xa(x))},{_num(ya(y))}" for x, y in zip(s.xs, s.ys, strict=True))
        body.append(f'<polyline class="fig-series-{i}" fill="none" points="{pts}"/>')
        for x, y in zip(s.xs, s.ys, strict=True):
            body.append(
                f'<circle class="fig-fill-{i}" cx="{_num(xa(x))}" cy="{_num(ya(y))}" r="3">'
                f"<title>{escape(s.name)}: {_fmt(x)}, {_fmt(y)}</title></circle>"
            )
    body += _legend([s.name for s in series], "line", g, height)
    return _frame(fig_id, title, desc, body, g, height)


def bar_chart(
    categories: list[str],
    groups: list[Series],
    *,
    fig_id: str,
    title: str,
    desc: str,
    y_label: str,
    log_y: bool = False,
    narrow: bool = False,
) -> str:
    """Grouped bars: one group per category, one bar per series (Series.ys, one per category);
    ``narrow``: the phone's drawing, ids suffixed ``-narrow``, long category names slanted."""
    _check(groups)
    geo = _NARROW if narrow else _WIDE
    fig_id = f"{fig_id}-narrow" if narrow else fig_id
    top, height = _layout(title, geo)
    for s in groups:
        if len(s.ys) != len(categories):
            raise ValueError(f"series {s.name!r} has {len(s.ys)} values for {len(categories)} categories")
    ys = [y for s in groups for y in s.ys]
    ya = _Axis(min(ys) if log_y else 0, max(ys), log_y, height - geo.bottom, top)
    body = _axes(None, ya, "", y_label, geo, top, height)
    slot = (geo.width - geo.right - geo.left) / len(categories)
    bar = slot * 0.8 / len(groups)
    base = ya(ya.lo)
    for c, cat in enumerate(categories):
        x0 = geo.left + c * slot + slot * 0.1
        for i, s in enumerate(groups, start=1):
            bar_top = ya(s.ys[c])
            body.append(
                f'<rect class="fig-fill-{i}" x="{_num(x0 + (i - 1) * bar)}" y="{_num(bar_top)}" '
                f'width="{_num(bar)}" height="{_num(base - bar_top)}">'
                f"<title>{escape(s.name)}, {escape(cat)}: {_fmt(s.ys[c])}</title></rect>"
            )
        cx, cy = _num(geo.left + (c + 0.5) * slot), height - geo.bottom + 16
        if geo is _NARROW and 6.5 * len(cat) > slot:  # would run into its neighbours: slanted
            body.append(
                f'<text class="fig-text-small" x="{cx}" y="{cy}" text-anchor="end" '
                f'transform="rotate(-30 {cx} {cy})">{escape(cat)}</text>'
            )
        else:
            body.append(
                f'<text class="fig-text-small" x="{cx}" y="{cy}" text-anchor="middle">{escape(cat)}</text>'
            )
    body += _legend([s.name for s in groups], "bar", geo, height)
    return _frame(fig_id, title, desc, body, geo, height)
