"""Tiny, dependency-free SVG plots that follow the site's light/dark palette.

The SVG carries CSS classes (``fig-series-1``, ``fig-axis``...) instead of colours; the site's
``docs/stylesheets/figures.css`` maps them to Material's palette variables, so one committed file
renders correctly in both palettes. Output is deterministic (fixed number formatting, no
timestamps) so tests can compare a regenerated figure with the committed one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

_W, _H = 640, 380
_LEFT, _RIGHT, _TOP, _BOTTOM = 72, 20, 40, 70
_MAX_SERIES = 4


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
    return f"{v:.3g}"


def _num(v: float) -> str:
    return f"{v:.1f}"


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        return [10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]
    if hi == lo:
        hi = lo + 1
    raw = (hi - lo) / 5
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
    def __init__(self, lo: float, hi: float, log: bool, p0: float, p1: float):
        if log and lo <= 0:
            raise ValueError("log axis needs positive values")
        self.log = log
        self.ticks = _ticks(lo, hi, log)
        self.lo, self.hi = self.ticks[0], self.ticks[-1]
        self.p0, self.p1 = p0, p1

    def __call__(self, v: float) -> float:
        if self.log:
            a, b, v = math.log10(self.lo), math.log10(self.hi), math.log10(v)
        else:
            a, b = self.lo, self.hi
        return self.p0 + (v - a) / (b - a) * (self.p1 - self.p0)


def _frame(fig_id: str, title: str, desc: str, body: list[str]) -> str:
    head = (
        f'<svg class="fig-svg fig-plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" '
        f'role="img" aria-labelledby="{fig_id}-title {fig_id}-desc">'
    )
    lines = [
        head,
        f'<title id="{fig_id}-title">{escape(title)}</title>',
        f'<desc id="{fig_id}-desc">{escape(desc)}</desc>',
        f'<text class="fig-text" x="{_W / 2:.0f}" y="22" text-anchor="middle" '
        f'font-weight="bold">{escape(title)}</text>',
        *body,
        "</svg>",
    ]
    return "\n".join(lines) + "\n"


def _axes(xa: _Axis | None, ya: _Axis, x_label: str, y_label: str) -> list[str]:
    out = []
    x0, x1, y0, y1 = _LEFT, _W - _RIGHT, _H - _BOTTOM, _TOP
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
    out.append(
        f'<text class="fig-text" x="{(x0 + x1) / 2:.0f}" y="{_H - 34}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    cy = (y0 + y1) / 2
    out.append(
        f'<text class="fig-text" x="16" y="{cy:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {cy:.0f})">{escape(y_label)}</text>'
    )
    return out


def _legend(names: list[str], kind: str) -> list[str]:
    out, x = [], _LEFT
    y = _H - 12
    for i, name in enumerate(names, start=1):
        if kind == "line":
            out.append(
                f'<line class="fig-series-{i}" x1="{x}" y1="{y - 4}" x2="{x + 18}" y2="{y - 4}"/>'
            )
        else:
            out.append(f'<rect class="fig-fill-{i}" x="{x}" y="{y - 10}" width="14" height="10"/>')
        out.append(f'<text class="fig-text-small" x="{x + 24}" y="{y}">{escape(name)}</text>')
        x += 34 + 7 * len(name)
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
) -> str:
    """A line plot with markers, one class per series."""
    _check(series)
    xs = [x for s in series for x in s.xs]
    ys = [y for s in series for y in s.ys]
    xa = _Axis(min(xs), max(xs), log_x, _LEFT, _W - _RIGHT)
    ya = _Axis(0 if not log_y and min(ys) >= 0 else min(ys), max(ys), log_y, _H - _BOTTOM, _TOP)
    body = _axes(xa, ya, x_label, y_label)
    for i, s in enumerate(series, start=1):
        pts = " ".join(f"{_num(xa(x))},{_num(ya(y))}" for x, y in zip(s.xs, s.ys, strict=True))
        body.append(f'<polyline class="fig-series-{i}" fill="none" points="{pts}"/>')
        for x, y in zip(s.xs, s.ys, strict=True):
            body.append(
                f'<circle class="fig-fill-{i}" cx="{_num(xa(x))}" cy="{_num(ya(y))}" r="3">'
                f"<title>{escape(s.name)}: {_fmt(x)}, {_fmt(y)}</title></circle>"
            )
    body += _legend([s.name for s in series], "line")
    return _frame(fig_id, title, desc, body)


def bar_chart(
    categories: list[str],
    groups: list[Series],
    *,
    fig_id: str,
    title: str,
    desc: str,
    y_label: str,
    log_y: bool = False,
) -> str:
    """Grouped bars: one group per category, one bar per series (Series.ys, one per category)."""
    _check(groups)
    for g in groups:
        if len(g.ys) != len(categories):
            raise ValueError(f"series {g.name!r} has {len(g.ys)} values for {len(categories)} categories")
    ys = [y for g in groups for y in g.ys]
    ya = _Axis(min(ys) if log_y else 0, max(ys), log_y, _H - _BOTTOM, _TOP)
    body = _axes(None, ya, "", y_label)
    slot = (_W - _RIGHT - _LEFT) / len(categories)
    bar = slot * 0.8 / len(groups)
    base = ya(ya.lo)
    for c, cat in enumerate(categories):
        x0 = _LEFT + c * slot + slot * 0.1
        for i, g in enumerate(groups, start=1):
            top = ya(g.ys[c])
            body.append(
                f'<rect class="fig-fill-{i}" x="{_num(x0 + (i - 1) * bar)}" y="{_num(top)}" '
                f'width="{_num(bar)}" height="{_num(base - top)}">'
                f"<title>{escape(g.name)}, {escape(cat)}: {_fmt(g.ys[c])}</title></rect>"
            )
        body.append(
            f'<text class="fig-text-small" x="{_num(_LEFT + (c + 0.5) * slot)}" '
            f'y="{_H - _BOTTOM + 16}" text-anchor="middle">{escape(cat)}</text>'
        )
    body += _legend([g.name for g in groups], "bar")
    return _frame(fig_id, title, desc, body)
